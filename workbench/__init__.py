"""Regulatory-text workbench: immutable versions, exact offsets, diffs with alignment confidence.
The verbs a notebook needs are named here, each loaded from its stage's package at first use
(`workbench.lazy`), so `import workbench` loads nothing heavy it does not use."""

from __future__ import annotations

from workbench.lazy import lazy_names

# Each verb and the module that holds it, in data-flow order.
_HOME = {
    # corpus and store
    "admit": "workbench.corpus.admission",
    "fetch": "workbench.corpus.store",
    "read_catalogue": "workbench.corpus.catalogue",
    "read_refusals": "workbench.corpus.catalogue",
    "verify_store": "workbench.corpus.store",
    "Workspace": "workbench.workspace",
    "open_workspace": "workbench.workspace",
    "consecutive_pairs": "workbench.models",
    "ingest": "workbench.workspace",
    # text, passages and structure
    "segment_version": "workbench.text.segment",
    "read_footnotes": "workbench.text.footnotes",
    "read_pdf_footnotes": "workbench.text.pdf_footnotes",
    "read_tables": "workbench.text.table_cells",
    "held_parts": "workbench.workspace.parts",  # a held version's notes and tables, as ingest kept them
    "parse_structure": "workbench.text.structure",
    # changes and their review
    "RESTRUCTURE_CONFIDENCE_CEILING": "workbench.changes.diff",
    "diff_versions": "workbench.changes.diff",
    "pairing_is_uncertain": "workbench.changes.diff",
    "append_verdict": "workbench.changes.log",
    "doubtful_pairings": "workbench.changes.queue",
    "pairing_caution_stands": "workbench.changes.caution",
    "read_verdicts": "workbench.changes.log",
    "review_frame": "workbench.changes.queue",
    "review_items": "workbench.changes.queue",
    "verify_chain": "workbench.changes.log",
    "confident_pairings": "workbench.changes.sample",
    "audit_confident": "workbench.changes.audit",
    "sample_confident": "workbench.changes.audit",
    "sample_pairings": "workbench.changes.audit",
    "ReviewWidget": "workbench.changes.widgets",  # needs ipywidgets
    # measurements
    "measure_corpus": "workbench.measure",
    "update_corpus": "workbench.measure",
    "corpus_digest": "workbench.measure",
    "corpus_digests": "workbench.measure",
    "reduce_families": "workbench.measure",
    "measure_family": "workbench.measure",
    "map_families": "workbench.measure",
    "rate": "workbench.measure",
    "map_tasks": "workbench.measure.cluster",  # needs dask for workers
    # citations, notes and the quotes register
    "Citation": "workbench.cite",
    "Claim": "workbench.cite",
    "Verification": "workbench.cite",
    "decide_claim": "workbench.cite",
    "read_citations": "workbench.cite",
    "verify_lines": "workbench.cite",
    "verify_citation": "workbench.cite",
    "verify_citations": "workbench.cite",
    "verify_for_version": "workbench.cite",
    "census": "workbench.notes.grade",
    "check_note": "workbench.notes.check",
    "check_notes": "workbench.notes.check",
    "grade_note": "workbench.notes.grade",
    "parse_note": "workbench.notes.note",
    "add_quote": "workbench.notes.register",
    "new_report": "workbench.notes.register",
    "parse_report": "workbench.notes.report",
    "validate_report": "workbench.notes.register",
    "write_snapshot": "workbench.notes.snapshot",
    # citations through time: a quote made into a citation, dated across versions, rechecked
    "cite_quote": "workbench.history.dating",
    "quote_history": "workbench.history.dating",
    "recheck_quotes": "workbench.history.recheck",
    # amendment instructions, each verified against the releases around its law, and honest dates
    "law_amendments": "workbench.amendments.reconcile",
    "law_frame": "workbench.amendments.reconcile",
    "release_as_of": "workbench.amendments.asof",
    # candidate search and the scorecard
    "SearchScope": "workbench.search",
    "find_candidates": "workbench.search",
    "index_status": "workbench.search",
    "build_search_index": "workbench.search:build_index",
    "load_demo": "workbench.evals.demo",
    "scorecard": "workbench.evals.scorecard",
    "write_scorecard": "workbench.evals.scorecard",
    # charts drawn offline for the notebooks
    "render_chart": "workbench.measure.charts",
}

__all__ = sorted(_HOME)


__getattr__, __dir__ = lazy_names(globals(), _HOME)
