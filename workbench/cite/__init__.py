"""Exact citation verification (C5, C6, C17): verified (plainly, or with caveats), refused with a
reason and the text the source really holds, or resolved. The names below are imported eagerly; the
modules and their import order are in docs/verification.md, "How it is built"."""

from workbench.cite.alterations import ALTERATION_REASONS, AlteredVerification, read_marks
from workbench.cite.batch import verify_citation, verify_citations, verify_for_version
from workbench.cite.blocks import BlockMap, VersionBlocks, version_blocks
from workbench.cite.claims import CLAIM_REASONS, Claim, ClaimVerdict, decide_claim
from workbench.cite.formats import (
    FORMATS,
    documents_as_json,
    read_citations,
    read_documents,
    with_alterations,
)
from workbench.cite.index import (
    HYPHENS,
    Occurrence,
    OccurrenceStatus,
    SourceIndex,
    find_occurrences,
    find_text,
    holds_words,
    index_text,
    occurrence_spans,
)
from workbench.cite.lines import LINE_REASONS, CitationLine, PageRange
from workbench.cite.pages import PAGE_REASONS, verdict_pages
from workbench.cite.pincites import SECTION_REASONS
from workbench.cite.placing import verify_lines
from workbench.cite.qualifiers import QualifierFlag
from workbench.cite.verdicts import summary, tally, verification_as_json, verification_text
from workbench.cite.verify import (
    CAVEATS,
    REASONS,
    VERIFIED_MEANS,
    Caveat,
    CaveatEvidence,
    Citation,
    Verification,
)
from workbench.cite.w3c import annotation, export_annotations

__all__ = [
    "ALTERATION_REASONS",
    "CAVEATS",
    "CLAIM_REASONS",
    "FORMATS",
    "HYPHENS",
    "LINE_REASONS",
    "PAGE_REASONS",
    "REASONS",
    "SECTION_REASONS",
    "VERIFIED_MEANS",
    "AlteredVerification",
    "BlockMap",
    "Caveat",
    "CaveatEvidence",
    "Citation",
    "CitationLine",
    "Claim",
    "ClaimVerdict",
    "Occurrence",
    "OccurrenceStatus",
    "PageRange",
    "QualifierFlag",
    "SourceIndex",
    "Verification",
    "VersionBlocks",
    "annotation",
    "decide_claim",
    "documents_as_json",
    "export_annotations",
    "find_occurrences",
    "find_text",
    "holds_words",
    "index_text",
    "occurrence_spans",
    "read_citations",
    "read_documents",
    "read_marks",
    "summary",
    "tally",
    "verdict_pages",
    "verification_as_json",
    "verification_text",
    "verify_citation",
    "verify_citations",
    "verify_for_version",
    "verify_lines",
    "version_blocks",
    "with_alterations",
]
