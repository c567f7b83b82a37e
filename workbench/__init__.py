"""Regulatory-text workbench: immutable versions, exact offsets, diffs with alignment confidence.

The verbs a notebook needs are re-exported here; everything else lives in its stage's module.
"""

from workbench.corpus import admit, fetch, read_catalogue, verify_store
from workbench.diff import RESTRUCTURE_CONFIDENCE_CEILING, diff_versions, pairing_is_uncertain
from workbench.measure import corpus_digest, corpus_digests
from workbench.normalize import normalize
from workbench.segment import segment
from workbench.store import Workspace, ingest

__all__ = [
    "RESTRUCTURE_CONFIDENCE_CEILING",
    "Workspace",
    "admit",
    "corpus_digest",
    "corpus_digests",
    "diff_versions",
    "fetch",
    "ingest",
    "normalize",
    "pairing_is_uncertain",
    "read_catalogue",
    "segment",
    "verify_store",
]
