"""Exact citation verification: the verifier, its per-version index, and citation formats.

`verify` holds the rule (C6) and `index` the cached per-version search structures; `formats` reads
citations from other tools and writes W3C Web Annotations; `probes` builds the corruption suite and
the line-break hyphen census on the real corpus. Nothing here calls a network or a model, or imports
from search.
"""

from workbench.cite.verify import (
    REASONS,
    VERIFIED_MEANS,
    Citation,
    Occurrence,
    QualifierFlag,
    Verification,
    find_occurrences,
    verify_citation,
    verify_citations,
    verify_for_version,
)

__all__ = [
    "REASONS",
    "VERIFIED_MEANS",
    "Citation",
    "Occurrence",
    "QualifierFlag",
    "Verification",
    "find_occurrences",
    "verify_citation",
    "verify_citations",
    "verify_for_version",
]
