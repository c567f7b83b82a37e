"""Scorecards (C7, C12, C19, C20): the workbench measured against truths it did not compute, each
read by one rule and scored through `measure.rate`. The verbs are loaded at first use; the corpora,
truths and scorers are in docs/eval.md."""

from __future__ import annotations

from workbench.lazy import lazy_names

# Each verb and the module that holds it.
_HOME = {
    "DemoCorpus": "workbench.evals.demo",
    "load_demo": "workbench.evals.demo",
    "write_scorecard": "workbench.evals.scorecard",
    "read_truth": "workbench.evals.truth",
    "file_sha256": "workbench.evals.truth",
    "alignment_scorecard": "workbench.evals.alignment",
    "write_alignment_scorecard": "workbench.evals.alignment",
}

__all__ = sorted(_HOME)

__getattr__, __dir__ = lazy_names(globals(), _HOME)
