"""Regulatory-text workbench: immutable versions, exact offsets, diffs with alignment confidence.

The verbs a notebook needs are named here; each lives in its stage's module and is imported only
when first asked for (PEP 562 module `__getattr__`), so `import workbench` — and every command,
which imports through this package — loads nothing heavy it does not use: numpy, polars, altair,
pypdfium2, rapidfuzz, dask and ipywidgets load with the verb that needs them.

A verb is never named like a stage module: `workbench.segment` and `workbench.normalize` are the
modules (`segment_version` is the verb), because importing a submodule binds its name on the
package and would hide a verb of the same name.
"""

from __future__ import annotations

import importlib

# Each verb and the module that holds it, in data-flow order.
_HOME = {
    # corpus and store
    "admit": "workbench.corpus",
    "fetch": "workbench.corpus",
    "read_catalogue": "workbench.corpus",
    "read_refusals": "workbench.corpus",
    "verify_store": "workbench.corpus",
    "Workspace": "workbench.workspace",
    "consecutive_pairs": "workbench.models",
    "ingest": "workbench.workspace",
    # text, passages and structure
    "segment_version": "workbench.segment",
    "parse_structure": "workbench.structure",
    # changes and their review
    "RESTRUCTURE_CONFIDENCE_CEILING": "workbench.diff",
    "diff_versions": "workbench.diff",
    "pairing_is_uncertain": "workbench.diff",
    "append_verdict": "workbench.review",
    "doubtful_pairings": "workbench.review",
    "pairing_caution_stands": "workbench.review",
    "read_verdicts": "workbench.review",
    "review_frame": "workbench.review",
    "review_items": "workbench.review",
    "verify_chain": "workbench.review",
    "ReviewWidget": "workbench.widgets",  # needs ipywidgets
    # measurements
    "measure_corpus": "workbench.measure",
    "corpus_digest": "workbench.measure",
    "corpus_digests": "workbench.measure",
    "reduce_families": "workbench.measure",
    "measure_family": "workbench.measure",
    "map_families": "workbench.measure",
    "rate": "workbench.measure",
    "map_families_on_cluster": "workbench.engine",  # needs dask for workers
    # citations, notes and the quotes register
    "Citation": "workbench.cite",
    "Verification": "workbench.cite",
    "verify_citation": "workbench.cite",
    "verify_citations": "workbench.cite",
    "verify_for_version": "workbench.cite",
    "census": "workbench.claims",
    "check_note": "workbench.claims",
    "check_notes": "workbench.claims",
    "grade_note": "workbench.claims",
    "parse_note": "workbench.claims",
    "add_quote": "workbench.quotes",
    "new_report": "workbench.quotes",
    "parse_report": "workbench.quotes",
    "validate_report": "workbench.quotes",
    "write_snapshot": "workbench.quotes",
    # citations through time: a quote made into a citation, dated across versions, rechecked
    "cite_quote": "workbench.timeline",
    "quote_history": "workbench.timeline",
    "recheck_quotes": "workbench.recheck",
    # candidate search and the scorecard
    "SearchScope": "workbench.search",
    "find_candidates": "workbench.search",
    "index_status": "workbench.search",
    "build_search_index": "workbench.search:build_index",
    "load_demo": "workbench.evals",
    "scorecard": "workbench.evals",
    "write_scorecard": "workbench.evals",
    # charts drawn offline for the notebooks
    "render_chart": "workbench.charts",
}

__all__ = sorted(_HOME)


def __getattr__(name: str) -> object:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'workbench' has no attribute {name!r}")
    module, _, attribute = home.partition(":")
    value = getattr(importlib.import_module(module), attribute or name)
    globals()[name] = value  # found once; later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
