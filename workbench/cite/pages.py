"""Citations by page: a PDF version's page map decides whether a quote lies on the pages named.

A PDF version holds a page map (`Version.pages`, from the PDF extractor): where each page's body
lies in the text. Two kinds of citation name pages. Our JSON citation may carry `page`: the rule
(C6) decides it from its offsets as ever, and a verified span must then lie on that page. An
Anthropic `page_location` citation names pages and no offsets: its quote is first placed by exact
search (after the one normalization, the readings of a line-break hyphen included) and then
decided by the same rule at the offsets found, so the hash check, the readings and the occurrence
count are the rule's own. The guarantee: nothing here passes a quote the rule refused, and a page
claim can only turn a verified citation into a refused one, never the reverse.

Where a span lies. A span `[s, e)` lies on the pages from `page_for_offset(s)` to
`page_for_offset(e - 1)` (white space between two pages belongs to the later page). It lies on
pages `first` to `last` when both ends fall inside them; a span that runs over a page break lies
on both pages, and only a claim naming both holds it.

Placing a page_location quote, in this order:

1. the quote's occurrences in the whole version, in text order (the verifier's search);
2. none: refused `quote_not_found`, once the rule has checked the version's text hash;
3. exactly one occurrence lies on the named pages: cited at its offsets, naming its occurrence
   number when the version holds the quote more than once (the pages tell them apart, as a W3C
   prefix and suffix would);
4. several lie on the named pages: cited at the first, naming no occurrence, so the rule refuses
   it as `ambiguous_occurrence` and lists them;
5. none lies on them: cited at the first occurrence (named), so it verifies and the page check
   refuses it as `wrong_page`, saying on which pages the quote does stand.

Checks run in the rule's order, then: `no_page_map` (the line names pages and the version has no
page map), `wrong_page`.
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.cite.batch import verify_citations
from workbench.cite.formats import CitationLine, PageRange
from workbench.cite.index import SourceIndex, find_text, index_text
from workbench.cite.verify import Citation, Verification
from workbench.errors import VersionNotFound
from workbench.models import PageSpan, Version
from workbench.models import span_pages as first_and_last_page
from workbench.workspace import Workspace

PAGE_REASONS: dict[str, str] = {
    "quote_not_found": "the citation names pages and no offsets, and the quote occurs nowhere in "
    "the version",
    "no_page_map": "the citation names a page, but the version has no page map (only a PDF "
    "version has one)",
    "wrong_page": "the quoted span does not lie on the page or pages the citation names",
}


def span_pages(pages: Sequence[PageSpan], char_start: int, char_end: int) -> PageRange:
    """The pages a non-empty raw span lies on (module docstring); `pages` must not be empty."""
    lies = first_and_last_page(pages, char_start, char_end)
    assert lies is not None  # a page map was given
    return PageRange(first=lies[0], last=lies[1])


def pages_spanned(pages: Sequence[PageSpan], citation: Citation) -> PageRange | None:
    """The pages a citation's span lies on, as `span_pages`; None when the version has no page map
    or the offsets are not a valid non-empty span (the rule refuses those as `bad_offsets`)."""
    start, end = citation.char_start, citation.char_end
    if not pages or type(start) is not int or type(end) is not int or not 0 <= start < end:
        return None
    return span_pages(pages, start, end)


def verdict_pages(
    workspace: Workspace, verifications: Sequence[Verification | None]
) -> tuple[PageRange | None, ...]:
    """For each verdict, the pages its span lies on (`pages_spanned`), read from its version's
    page map; None for no verdict, or one whose version was not read (no text sha256)."""
    maps: dict[str, tuple[PageSpan, ...]] = {}
    out: list[PageRange | None] = []
    for verification in verifications:
        if verification is None or verification.text_sha256 is None:
            out.append(None)
            continue
        version_id = verification.citation.version_id
        if version_id not in maps:
            try:
                maps[version_id] = workspace.page_map(version_id)
            except VersionNotFound:
                maps[version_id] = ()
        out.append(pages_spanned(maps[version_id], verification.citation))
    return tuple(out)


def on_pages(pages: Sequence[PageSpan], char_start: int, char_end: int, named: PageRange) -> bool:
    """True when the span lies on the named pages: both its ends fall on pages first to last."""
    lies = span_pages(pages, char_start, char_end)
    return named.first <= lies.first and lies.last <= named.last


def _pages_span(pages: Sequence[PageSpan], named: PageRange) -> tuple[int, int]:
    """The raw span from the first named page's body to the last's, (0, 0) when none is held."""
    held = [p for p in pages if named.first <= p.page <= named.last]
    return (held[0].char_start, held[-1].char_end) if held else (0, 0)


def _place(
    workspace: Workspace, line: CitationLine, held: dict[str, tuple[Version, SourceIndex] | None]
) -> tuple[Citation, bool]:
    """The citation a page quote is decided as, and whether its quote occurs at all (docstring).
    `held` keeps each version read, with its index, for the other lines of the same version."""
    assert line.page_quote is not None and line.pages is not None
    version_id, quote = line.page_quote.version_id, line.page_quote.quoted_text
    if version_id not in held:
        try:
            version = workspace.version(version_id)
            held[version_id] = (version, index_text(version.text))
        except VersionNotFound:
            held[version_id] = None
    read = held[version_id]
    if read is None:  # the rule refuses it as unknown_version
        return Citation(version_id=version_id, char_start=0, char_end=0, quoted_text=quote), True
    version, index = read
    spans = find_text(index, quote, None)[1]
    if not spans:
        start, end = _pages_span(version.pages, line.pages)
        return Citation(
            version_id=version_id, char_start=start, char_end=end, quoted_text=quote
        ), False
    inside = [
        i
        for i, (s, e) in enumerate(spans)
        if version.pages and on_pages(version.pages, s, e, line.pages)
    ]
    chosen = inside[0] if inside else 0
    named = chosen + 1 if len(spans) > 1 and len(inside) <= 1 else None
    start, end = spans[chosen]
    return Citation(
        version_id=version_id, char_start=start, char_end=end, quoted_text=quote, occurrence=named
    ), True


def _refused(verification: Verification, reason: str, detail: str) -> Verification:
    return Verification(
        citation=verification.citation,
        outcome="refused",
        reason=reason,
        detail=detail,
        actual_text=verification.actual_text,
        text_sha256=verification.text_sha256,
        occurrences=verification.occurrences,
        occurrence=verification.occurrence,
        qualifiers=(),
    )


def check_pages(
    verification: Verification, pages: Sequence[PageSpan], named: PageRange
) -> Verification:
    """A verified citation that names pages, checked against the version's page map.

    A refused citation is returned as it is (the rule's reason stands). A verified one is refused
    `no_page_map` when the version has no page map, and `wrong_page` when its span does not lie on
    the named pages (the detail names the pages it does lie on, and the version's page count).
    """
    if not verification.verified:
        return verification
    if not pages:
        return _refused(
            verification,
            "no_page_map",
            f"the citation names {named.label()}; {verification.citation.version_id} has no "
            "page map (it was not extracted from a PDF)",
        )
    citation = verification.citation
    if on_pages(pages, citation.char_start, citation.char_end, named):
        return verification
    lies = span_pages(pages, citation.char_start, citation.char_end)
    where = ", ".join(
        span_pages(pages, s, e).label() + f" [{s}, {e})" for s, e in verification.occurrences[:20]
    )
    return _refused(
        verification,
        "wrong_page",
        f"the citation names {named.label()} of {len(pages)}; the span "
        f"[{citation.char_start}, {citation.char_end}) lies on {lies.label()}"
        + (f"; the quote stands at {where}" if len(verification.occurrences) > 1 else ""),
    )


def verify_lines(
    workspace: Workspace, lines: Sequence[CitationLine]
) -> tuple[Verification | None, ...]:
    """Verify every line read by `formats.read_citations`, in input order (None for a line that
    could not be read): page quotes are placed first, then every citation goes through
    `verify_citations` in one batch, then each line that names pages is checked against its
    version's page map (`check_pages`)."""
    citations: list[Citation] = []
    found: list[bool] = []
    held: dict[str, tuple[Version, SourceIndex] | None] = {}
    for line in lines:
        if line.page_quote is not None:
            citation, occurs = _place(workspace, line, held)
            citations.append(citation)
            found.append(occurs)
        elif line.citation is not None:
            citations.append(line.citation)
            found.append(True)
    decided = iter(verify_citations(workspace, citations))
    occurs_at_all = iter(found)
    page_maps: dict[str, tuple[PageSpan, ...]] = {}
    out: list[Verification | None] = []
    for line in lines:
        if line.citation is None and line.page_quote is None:
            out.append(None)
            continue
        verification, occurs = next(decided), next(occurs_at_all)
        if not occurs and verification.reason == "quote_mismatch":
            assert line.pages is not None
            verification = _refused(
                verification,
                "quote_not_found",
                f"the quote occurs nowhere in {verification.citation.version_id}; the citation "
                f"names {line.pages.label()}, whose text is at the offsets",
            )
        elif line.pages is not None and verification.verified:
            version_id = verification.citation.version_id
            if version_id not in page_maps:
                page_maps[version_id] = workspace.page_map(version_id)
            verification = check_pages(verification, page_maps[version_id], line.pages)
        out.append(verification)
    return tuple(out)
