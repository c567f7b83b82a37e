"""Exact citation verification (C5, C6, C17): verified, or refused with a reason and the text the
source really holds.

The rule is the foundation and everything else is built on it, in this order of imports: `index`
is the occurrence search every check of quoted words uses (over a per-version index cached by
text hash) and the found/ambiguous/missing rule (`find_text`); `qualifiers` scans for a negation or
condition a verified quote leaves out; `hints` words a mismatch; `verify` holds the rule itself
(`decide`, contract C6 top to bottom) and imports nothing built on it. Above it: `alterations` (a
quote with marked omissions, fragment by fragment, each through `decide`) and `pincites` (a
section a verified quote must lie in); `batch`, the entry points that route a citation to them and
share the reading of each version's text; `formats`, citations read from other tools and verdicts
written as JSON, text and W3C Web Annotations; `pages`, a PDF's page claims. Nothing here calls a
network or a model, or imports from search, notes or any later stage.

Every module here needs the normalizer (and so numpy), so the names below are imported eagerly:
deferring them would defer nothing a caller of `cite` does not load anyway.
"""

from workbench.cite.alterations import ALTERATION_REASONS, AlteredVerification, read_marks
from workbench.cite.batch import verify_citation, verify_citations, verify_for_version
from workbench.cite.formats import (
    FORMATS,
    CitationLine,
    PageRange,
    export_annotations,
    read_citations,
    read_documents,
    verification_as_json,
    verification_text,
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
from workbench.cite.pages import PAGE_REASONS, verdict_pages, verify_lines
from workbench.cite.pincites import SECTION_REASONS
from workbench.cite.qualifiers import QualifierFlag
from workbench.cite.verify import REASONS, VERIFIED_MEANS, Citation, Verification

__all__ = [
    "ALTERATION_REASONS",
    "FORMATS",
    "HYPHENS",
    "PAGE_REASONS",
    "REASONS",
    "SECTION_REASONS",
    "VERIFIED_MEANS",
    "AlteredVerification",
    "Citation",
    "CitationLine",
    "Occurrence",
    "OccurrenceStatus",
    "PageRange",
    "QualifierFlag",
    "SourceIndex",
    "Verification",
    "export_annotations",
    "find_occurrences",
    "find_text",
    "holds_words",
    "index_text",
    "occurrence_spans",
    "read_citations",
    "read_documents",
    "read_marks",
    "verdict_pages",
    "verification_as_json",
    "verification_text",
    "verify_citation",
    "verify_citations",
    "verify_for_version",
    "verify_lines",
    "with_alterations",
]
