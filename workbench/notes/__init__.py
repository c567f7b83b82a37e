"""Grounded notes (C9) and the quotes register (C10): claims that name their ground, checked from
outside by the verifier's own occurrence search, graded from their headers. The verbs are loaded at
first use; the modules and their order are in docs/claims.md."""

from __future__ import annotations

from workbench.lazy import lazy_names

# Each public name and the module that holds it, in the order of the modules.
_HOME = {
    # a note
    "Note": "workbench.notes.note",
    "Quote": "workbench.notes.note",
    "parse_note": "workbench.notes.note",
    "with_pointer": "workbench.notes.note",
    "quotes_sha256": "workbench.notes.note",
    "note_key": "workbench.notes.note",
    "notes_in": "workbench.notes.note",
    "catalogue_index": "workbench.notes.note",
    # the run ledger
    "Ledger": "workbench.notes.ledger",
    "Run": "workbench.notes.ledger",
    # a source report and its snapshot
    "LOCATION_LABEL": "workbench.notes.report",
    "Report": "workbench.notes.report",
    "ReportProblem": "workbench.notes.report",
    "RetainedExtract": "workbench.notes.report",
    "parse_report": "workbench.notes.report",
    "snapshot_path": "workbench.notes.report",
    "Snapshot": "workbench.notes.snapshot",
    "read_snapshot": "workbench.notes.snapshot",
    "write_snapshot": "workbench.notes.snapshot",
    # the quotes register
    "WRAP_WIDTH": "workbench.notes.register",
    "LinkedQuoteCheck": "workbench.notes.register",
    "add_quote": "workbench.notes.register",
    "check_linked_quote": "workbench.notes.register",
    "new_report": "workbench.notes.register",
    "validate_report": "workbench.notes.register",
    # the check, from outside
    "CheckReport": "workbench.notes.check",
    "check_note": "workbench.notes.check",
    "check_notes": "workbench.notes.check",
    "find_quote": "workbench.notes.check",
    "recheck_note": "workbench.notes.check",
    # grades and the census
    "Census": "workbench.notes.grade",
    "NoteGrade": "workbench.notes.grade",
    "census": "workbench.notes.grade",
    "grade_note": "workbench.notes.grade",
}

__all__ = sorted(_HOME)


__getattr__, __dir__ = lazy_names(globals(), _HOME)
