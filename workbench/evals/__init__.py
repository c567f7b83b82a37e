"""Scorecards: the workbench measured against truths it did not compute (C7, C12).

Two corpora carry such truths. The demonstration corpus (`demo`: `load_demo`) is three versions of
one document with deliberate edits and a manifest, written by a script that imports nothing from
the workbench, that lists every edit with exact offsets; `scorecard` scores the diff, its caution
and the verifier against it (`write_scorecard` writes the JSON and Markdown). The real corpus
carries the documents' own identifiers, from which a pairing truth is derived (again outside the
workbench); `alignment` scores the diff's pairings against it (`alignment_scorecard`), and
`amendments` the amendment reader against a truth derived from the Council's markup. Each truth
file is read by one rule (`truth.read_truth`, told which truth by a `TruthKind`). Every
figure goes through `measure.rate`, so no share is printed below ten subjects. Imports run one
way: demo, then scorecard; truth, then the scorers that read a truth file.

The verbs are named here and loaded at first use (`workbench.lazy`): scoring diffs loads
rapidfuzz and numpy. The function that builds the demonstration scorecard keeps its module's
name, `scorecard`, so it is not named here (a verb spelled like a module of its package would be
hidden by it); it is `workbench.scorecard`, or `workbench.evals.scorecard.scorecard`.
"""

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
