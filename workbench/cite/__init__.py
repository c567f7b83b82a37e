"""Exact citation verification (C5, C6, C17): verified (plainly, or with caveats), refused with a
reason and the text the source really holds, or resolved. The names below load from their modules
at first use; the modules and their import order are in docs/verification.md, "How it is built"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.lazy import lazy_names

if TYPE_CHECKING:  # the type checker reads each name where it lives
    from workbench.cite.alterations import ALTERATION_REASONS, AlteredVerification, read_marks
    from workbench.cite.batch import verify_citation, verify_citations, verify_for_version
    from workbench.cite.blocks import BlockMap, VersionBlocks, version_blocks
    from workbench.cite.claims import CLAIM_REASONS, Claim, ClaimVerdict, decide_claim
    from workbench.cite.formats import FORMATS, read_citations, with_alterations
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
    from workbench.cite.responses import documents_as_json, read_documents
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

# Each name and the module that holds it, in the order of imports above.
_HOME = {
    "ALTERATION_REASONS": "workbench.cite.alterations",
    "AlteredVerification": "workbench.cite.alterations",
    "read_marks": "workbench.cite.alterations",
    "verify_citation": "workbench.cite.batch",
    "verify_citations": "workbench.cite.batch",
    "verify_for_version": "workbench.cite.batch",
    "BlockMap": "workbench.cite.blocks",
    "VersionBlocks": "workbench.cite.blocks",
    "version_blocks": "workbench.cite.blocks",
    "CLAIM_REASONS": "workbench.cite.claims",
    "Claim": "workbench.cite.claims",
    "ClaimVerdict": "workbench.cite.claims",
    "decide_claim": "workbench.cite.claims",
    "FORMATS": "workbench.cite.formats",
    "read_citations": "workbench.cite.formats",
    "with_alterations": "workbench.cite.formats",
    "HYPHENS": "workbench.cite.index",
    "Occurrence": "workbench.cite.index",
    "OccurrenceStatus": "workbench.cite.index",
    "SourceIndex": "workbench.cite.index",
    "find_occurrences": "workbench.cite.index",
    "find_text": "workbench.cite.index",
    "holds_words": "workbench.cite.index",
    "index_text": "workbench.cite.index",
    "occurrence_spans": "workbench.cite.index",
    "LINE_REASONS": "workbench.cite.lines",
    "CitationLine": "workbench.cite.lines",
    "PageRange": "workbench.cite.lines",
    "PAGE_REASONS": "workbench.cite.pages",
    "verdict_pages": "workbench.cite.pages",
    "SECTION_REASONS": "workbench.cite.pincites",
    "verify_lines": "workbench.cite.placing",
    "QualifierFlag": "workbench.cite.qualifiers",
    "documents_as_json": "workbench.cite.responses",
    "read_documents": "workbench.cite.responses",
    "summary": "workbench.cite.verdicts",
    "tally": "workbench.cite.verdicts",
    "verification_as_json": "workbench.cite.verdicts",
    "verification_text": "workbench.cite.verdicts",
    "CAVEATS": "workbench.cite.verify",
    "REASONS": "workbench.cite.verify",
    "VERIFIED_MEANS": "workbench.cite.verify",
    "Caveat": "workbench.cite.verify",
    "CaveatEvidence": "workbench.cite.verify",
    "Citation": "workbench.cite.verify",
    "Verification": "workbench.cite.verify",
    "annotation": "workbench.cite.w3c",
    "export_annotations": "workbench.cite.w3c",
}

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


__getattr__, __dir__ = lazy_names(globals(), _HOME)
