"""Regulatory-text workbench: immutable versions, exact offsets, diffs with alignment confidence.

The verbs a notebook needs are re-exported here; everything else lives in its stage's module.
Nothing here imports a heavy optional dependency: the review widget (ipywidgets) and the Dask
engine load only when asked for by name.
"""

from workbench.charts import render_chart
from workbench.cite import (
    Citation,
    Verification,
    verify_citation,
    verify_citations,
    verify_for_version,
)
from workbench.claims import census, check_note, check_notes, grade_note, parse_note
from workbench.corpus import admit, fetch, read_catalogue, read_refusals, verify_store
from workbench.diff import RESTRUCTURE_CONFIDENCE_CEILING, diff_versions, pairing_is_uncertain
from workbench.evals import load_demo, scorecard, write_scorecard
from workbench.measure import (
    corpus_digest,
    corpus_digests,
    measure_families,
    measure_family,
    measure_workspace,
    rate,
)
from workbench.normalize import normalize
from workbench.review import (
    append_verdict,
    doubtful_pairings,
    pairing_caution_stands,
    read_verdicts,
    review_frame,
    review_items,
    verify_chain,
)
from workbench.search import SearchScope, find_candidates, index_status
from workbench.search import build_index as build_search_index
from workbench.segment import segment
from workbench.store import Workspace, ingest
from workbench.structure import parse_structure

_LAZY = {
    "ReviewWidget": ("workbench.widgets", "ReviewWidget"),  # needs ipywidgets
    "measure_held": ("workbench.engine", "measure_held"),  # needs dask for workers
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        module, attribute = _LAZY[name]
        return getattr(importlib.import_module(module), attribute)
    raise AttributeError(f"module 'workbench' has no attribute {name!r}")


__all__ = [
    "RESTRUCTURE_CONFIDENCE_CEILING",
    "Citation",
    "ReviewWidget",
    "SearchScope",
    "Verification",
    "Workspace",
    "admit",
    "append_verdict",
    "build_search_index",
    "census",
    "check_note",
    "check_notes",
    "corpus_digest",
    "corpus_digests",
    "diff_versions",
    "doubtful_pairings",
    "fetch",
    "find_candidates",
    "grade_note",
    "index_status",
    "ingest",
    "load_demo",
    "measure_families",
    "measure_family",
    "measure_held",
    "measure_workspace",
    "normalize",
    "pairing_caution_stands",
    "pairing_is_uncertain",
    "parse_note",
    "parse_structure",
    "rate",
    "read_catalogue",
    "read_refusals",
    "read_verdicts",
    "render_chart",
    "review_frame",
    "review_items",
    "scorecard",
    "segment",
    "verify_chain",
    "verify_citation",
    "verify_citations",
    "verify_for_version",
    "verify_store",
    "write_scorecard",
]

# The quotes register (issue 6): source reports, their snapshots, and the two link routes.
from workbench.quotes import (  # noqa: E402
    add_quote,
    new_report,
    parse_report,
    validate_report,
    write_snapshot,
)

__all__ += ["add_quote", "new_report", "parse_report", "validate_report", "write_snapshot"]
