"""Changes (C7, C8, C21): what changed between two versions, shown so a person can read it, and
reviewers' verdicts on the pairings in doubt. The names below are the stage's verbs, each loaded
from its module at first use; the modules and their order are in docs/review.md."""

from __future__ import annotations

from workbench.lazy import lazy_names

# Each verb and the module that holds it, in the order the stage runs.
_HOME = {
    # what changed
    "PAIRING_FLOOR": "workbench.changes.diff",
    "RESTRUCTURE_CONFIDENCE_CEILING": "workbench.changes.diff",
    "change_as_json": "workbench.changes.diff",
    "diff_passages": "workbench.changes.diff",
    "diff_versions": "workbench.changes.diff",
    "doubt_reasons": "workbench.changes.diff",
    "pairing_is_uncertain": "workbench.changes.diff",
    # which versions are compared, and what `workbench diff` shows
    "diff_sections": "workbench.changes.pairs",
    "kinds_shown": "workbench.changes.pairs",
    "version_pairs": "workbench.changes.pairs",
    "change_frame": "workbench.changes.diff_files",
    "marked_text": "workbench.changes.redline",
    "redlines": "workbench.changes.redline",
    "page_html": "workbench.changes.redline_page",
    "Attributed": "workbench.changes.attribution",
    "attribution_line": "workbench.changes.attribution",
    # the review of doubtful pairings
    "Verdict": "workbench.changes.verdict",
    "pairing_caution_stands": "workbench.changes.caution",
    "standing_verdict": "workbench.changes.caution",
    "Pairing": "workbench.changes.queue",
    "ReviewItem": "workbench.changes.queue",
    "doubtful_pairings": "workbench.changes.queue",
    "find_item": "workbench.changes.queue",
    "item_caution_stands": "workbench.changes.queue",
    "review_frame": "workbench.changes.queue",
    "review_items": "workbench.changes.queue",
    "Sample": "workbench.changes.sample",
    "confident_pairings": "workbench.changes.sample",
    "draw_sample": "workbench.changes.sample",
    "append_group_verdict": "workbench.changes.log",
    "append_verdict": "workbench.changes.log",
    "orphaned_verdicts": "workbench.changes.orphans",
    "read_samples": "workbench.changes.log",
    "read_verdicts": "workbench.changes.log",
    "record_sample": "workbench.changes.log",
    "verify_chain": "workbench.changes.log",
    # the confident audit
    "answers_needed": "workbench.changes.audit",
    "audit_confident": "workbench.changes.audit",
    "audit_markdown": "workbench.changes.audit",
    "audit_sample": "workbench.changes.audit",
    "sample_confident": "workbench.changes.audit",
    "sample_pairings": "workbench.changes.audit",
    "upper_bound": "workbench.changes.audit",
    "ReviewWidget": "workbench.changes.widgets",  # needs ipywidgets
}

__all__ = sorted(_HOME)


__getattr__, __dir__ = lazy_names(globals(), _HOME)
