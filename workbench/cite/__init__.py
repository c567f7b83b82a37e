"""Exact citation verification: the verifier, the occurrence search, and citation formats.

`verify` holds the rule (C6), `index` the occurrence search every check of quoted words uses
(over a per-version index cached by text hash) and `qualifiers` the scan for a negation or
condition a verified quote leaves out; `formats` reads citations from other tools and
writes W3C Web Annotations; `probes` builds the corruption suite and the line-break hyphen census
on the real corpus. Nothing here calls a network or a model, or imports from search.
"""

from workbench.cite.index import (
    HYPHENS,
    Occurrence,
    SourceIndex,
    find_occurrences,
    holds_words,
    index_text,
)
from workbench.cite.qualifiers import QualifierFlag
from workbench.cite.verify import (
    REASONS,
    VERIFIED_MEANS,
    Citation,
    Verification,
    verify_citation,
    verify_citations,
    verify_for_version,
)

__all__ = [
    "HYPHENS",
    "REASONS",
    "VERIFIED_MEANS",
    "Citation",
    "Occurrence",
    "QualifierFlag",
    "SourceIndex",
    "Verification",
    "find_occurrences",
    "holds_words",
    "index_text",
    "verify_citation",
    "verify_citations",
    "verify_for_version",
]
