"""Citations by page: a PDF version's page map decides whether a verified span lies on the pages
named (C6). A page claim can only turn a verified citation into a refused one; the rule is in
docs/bundle.md."""

from __future__ import annotations

from collections.abc import Sequence

from workbench.cite.lines import PageRange
from workbench.cite.verify import Citation, Verification
from workbench.errors import VersionNotFound
from workbench.models import PageSpan
from workbench.models import span_pages as first_and_last_page
from workbench.workspace import Workspace

PAGE_REASONS: dict[str, str] = {
    "no_page_map": "the citation names a page, but the version has no page map (only a PDF "
    "version has one)",
    "wrong_page": "the quoted span does not lie on the page or pages the citation names",
}


def span_pages(pages: Sequence[PageSpan], char_start: int, char_end: int) -> PageRange:
    """The pages a non-empty raw span `[s, e)` lies on: from `page_for_offset(s)` to
    `page_for_offset(e - 1)` (white space between two pages belongs to the later page, so a span
    over a page break lies on both); `pages` must not be empty."""
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


def pages_span(pages: Sequence[PageSpan], named: PageRange) -> tuple[int, int]:
    """The raw span from the first named page's body to the last's, (0, 0) when none is held."""
    held = [p for p in pages if named.first <= p.page <= named.last]
    return (held[0].char_start, held[-1].char_end) if held else (0, 0)


def refused_as(verification: Verification, reason: str, detail: str) -> Verification:
    """`verification` refused with another reason and detail (its slice and occurrences kept)."""
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
        return refused_as(
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
    return refused_as(
        verification,
        "wrong_page",
        f"the citation names {named.label()} of {len(pages)}; the span "
        f"[{citation.char_start}, {citation.char_end}) lies on {lies.label()}"
        + (f"; the quote stands at {where}" if len(verification.occurrences) > 1 else ""),
    )
