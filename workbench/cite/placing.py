"""Every line read, routed to its verdict (C6): a quote that names no offsets placed by the rule's
own occurrence search, every citation decided by the rule, then page claims checked. Nothing here
passes a quote."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from workbench.cite.batch import verify_citations
from workbench.cite.index import SourceIndex, counted_spans, index_text
from workbench.cite.lines import CitationLine, LineRefusal
from workbench.cite.pages import check_pages, on_pages, pages_span, refused_as
from workbench.cite.verify import Citation, Verification, context_occurrences
from workbench.errors import VersionNotFound
from workbench.models import PageSpan, Version
from workbench.text.normalize import normalize, normalized_text
from workbench.workspace import Workspace

SHOWN_LINES = 1
SHOWN_CHARS = 600


@dataclass(frozen=True, slots=True, kw_only=True)
class _Shown:
    """Where a quote that occurs nowhere is shown: its best place's raw span and how many of the
    quote's words it holds."""

    char_start: int
    char_end: int
    words: int
    of: int


def best_place(text: str, quote: str, start: int, end: int) -> _Shown:
    """The quote's best place in raw `[start, end)` of `text`, shown with a refusal and never
    evidence: the longest run of the quote's consecutive words (normalized, equal word for word)
    the region holds, the earliest on a tie (difflib's longest matching block), else the region's
    start; its lines and `SHOWN_LINES` more on each side, at most `SHOWN_CHARS` characters."""
    from difflib import SequenceMatcher  # only a refusal's best place needs it

    region = normalize(text[start:end])
    words, at = [], 0
    for word in region.text.split(" "):
        if word:
            words.append((word, at))
        at += len(word) + 1
    wanted = normalized_text(quote).split()
    match = SequenceMatcher(None, [w for w, _ in words], wanted, autojunk=False).find_longest_match(
        0, len(words), 0, len(wanted)
    )
    if not match.size:
        return _Shown(char_start=start, char_end=start, words=0, of=len(wanted))
    first, last = words[match.a], words[match.a + match.size - 1]
    raw_start, raw_end = region.raw_span(first[1], last[1] + len(last[0]))
    return _Shown(
        char_start=start + raw_start, char_end=start + raw_end, words=match.size, of=len(wanted)
    )


def shown_lines(
    text: str, char_start: int, char_end: int, region: tuple[int, int]
) -> tuple[int, int]:
    """The raw span shown around `[char_start, char_end)`: its lines and `SHOWN_LINES` more each
    side, inside the region searched, cut to `SHOWN_CHARS` characters around the span when
    longer."""
    lo = text.rfind("\n", 0, char_start) + 1
    hi = text.find("\n", char_end)
    hi = len(text) if hi < 0 else hi
    for _ in range(SHOWN_LINES):
        lo = text.rfind("\n", 0, max(lo - 1, 0)) + 1 if lo else 0
        after = text.find("\n", hi + 1) if hi < len(text) else -1
        hi = len(text) if after < 0 else after
    lo, hi = max(lo, region[0]), min(hi, region[1])
    if hi - lo > SHOWN_CHARS:
        half = max(SHOWN_CHARS - (char_end - char_start), 0) // 2
        lo, hi = max(lo, char_start - half), min(hi, char_end + half)
        lo, hi = lo, min(hi, lo + SHOWN_CHARS)
    return lo, hi


def place(
    line: CitationLine, held: tuple[Version, SourceIndex] | None
) -> tuple[Citation, _Shown | None]:
    """The citation a quote with no offsets is decided as (docs/bundle.md, citations by page; a W3C
    quote at its first candidate with its prefix and suffix), and where it is shown when it occurs
    nowhere (None when it occurs). `held` is its version read and indexed
    (None: not held, and the rule refuses it as unknown_version)."""
    assert line.unplaced is not None
    quote = line.unplaced
    cited = Citation(
        version_id=quote.version_id,
        char_start=0,
        char_end=0,
        quoted_text=quote.quoted_text,
        prefix=quote.prefix,
        suffix=quote.suffix,
        text_sha256=quote.text_sha256,
        locator=quote.locator,
    )
    if held is None:
        return cited, None
    version, index = held
    counted = counted_spans(index, normalized_text(quote.quoted_text))
    spans = index.normalized.raw_spans(counted)
    if not spans:
        start, end = pages_span(version.pages, line.pages) if line.pages else (0, len(version.text))
        shown = best_place(version.text, quote.quoted_text, start, end)
        lo, hi = shown_lines(version.text, shown.char_start, shown.char_end, (start, end))
        return Citation(
            version_id=quote.version_id,
            char_start=lo,
            char_end=hi,
            quoted_text=quote.quoted_text,
            text_sha256=quote.text_sha256,
            locator=quote.locator,
        ), shown
    candidates = list(range(len(spans)))
    if line.pages is not None:
        pages: Sequence[PageSpan] = version.pages
        candidates = [i for i in candidates if pages and on_pages(pages, *spans[i], line.pages)]
    if quote.prefix is not None or quote.suffix is not None:
        around = context_occurrences(index.normalized.text, counted, quote.prefix, quote.suffix)
        candidates = [n - 1 for n in around if n - 1 in candidates] or candidates
    chosen = candidates[0] if candidates else 0
    named = None
    if line.pages is not None and len(spans) > 1 and len(candidates) <= 1:
        named = chosen + 1
    start, end = spans[chosen]
    return Citation(
        version_id=quote.version_id,
        char_start=start,
        char_end=end,
        quoted_text=quote.quoted_text,
        occurrence=named,
        prefix=quote.prefix,
        suffix=quote.suffix,
        text_sha256=quote.text_sha256,
        locator=quote.locator,
    ), None


def _refusal(refusal: LineRefusal) -> Verification:
    return Verification(
        citation=Citation(
            version_id=refusal.version_id,
            char_start=0,
            char_end=0,
            quoted_text=refusal.quoted_text,
        ),
        outcome="refused",
        reason=refusal.reason,
        detail=refusal.detail,
        actual_text=None,
        text_sha256=None,
    )


def _not_found(verification: Verification, line: CitationLine, shown: _Shown) -> Verification:
    c = verification.citation
    where = f" on the {line.pages.label()} named" if line.pages is not None else ""
    found = (
        f"its longest run of words there ({shown.words} of {shown.of} words, at "
        f"[{shown.char_start}, {shown.char_end}))"
        if shown.words
        else "the start of the text searched (no word of the quote is there)"
    )
    return refused_as(
        verification,
        "quote_not_found",
        f"the quote occurs nowhere in {c.version_id}; shown: [{c.char_start}, {c.char_end}), the "
        f"lines around {found}{where}: a place to look, not evidence",
    )


def by_address(workspace: Workspace, line: CitationLine) -> CitationLine:
    """A quote that names a page by its address (`UnplacedQuote.source_url`) given the one held
    version whose provenance names that `source_url`, compared exactly; refused `not_held` when
    none does, and when several do (the detail lists them: cite one in our format)."""
    quote = line.unplaced
    if quote is None or quote.source_url is None:
        return line
    held = [
        str(row[0])
        for row in workspace.read(
            "SELECT version_id FROM versions WHERE json_extract(provenance, '$.source_url') = ? "
            "ORDER BY version_id",
            (quote.source_url,),
        )
    ]
    if len(held) == 1:
        return replace(line, unplaced=replace(quote, version_id=held[0]))
    detail = (
        f"no held version names {quote.source_url} as its source_url: the page is no held "
        "version (only the cited text and its address are recorded); admit the page as a "
        "version to check the words against it"
        if not held
        else f"{len(held)} held versions name {quote.source_url} as their source_url "
        f"({', '.join(held[:5])}): cite the quote in one of them, in our format"
    )
    refusal = LineRefusal(
        version_id=quote.source_url, quoted_text=quote.quoted_text, reason="not_held", detail=detail
    )
    return replace(line, unplaced=None, refusal=refusal)


def verify_lines(
    workspace: Workspace, lines: Sequence[CitationLine]
) -> tuple[Verification | None, ...]:
    """Verify every line read by `formats.read_citations`, in input order (None for a line that
    could not be read): a line refused by name keeps its refusal, a quote with no offsets is placed,
    every citation goes through `verify_citations` in one batch, then page claims are checked."""
    citations: list[Citation] = []
    shown: list[_Shown | None] = []
    held: dict[str, tuple[Version, SourceIndex] | None] = {}
    lines = tuple(by_address(workspace, line) for line in lines)
    for line in lines:
        if line.unplaced is not None:
            version_id = line.unplaced.version_id
            if version_id not in held:
                try:
                    version = workspace.version(version_id)
                    held[version_id] = (version, index_text(version.text))
                except VersionNotFound:
                    held[version_id] = None
            citation, where = place(line, held[version_id])
            citations.append(citation)
            shown.append(where)
        elif line.citation is not None:
            citations.append(line.citation)
            shown.append(None)
    decided = iter(verify_citations(workspace, citations))
    places = iter(shown)
    page_maps: dict[str, tuple[PageSpan, ...]] = {}
    out: list[Verification | None] = []
    for line in lines:
        if line.refusal is not None:
            out.append(_refusal(line.refusal))
            continue
        if line.citation is None and line.unplaced is None:  # an error, or a claim (cite.claims)
            out.append(None)
            continue
        verification, where = next(decided), next(places)
        if where is not None and verification.reason == "quote_mismatch":
            verification = _not_found(verification, line, where)
        elif line.pages is not None and verification.verified:
            version_id = verification.citation.version_id
            if version_id not in page_maps:
                page_maps[version_id] = workspace.page_map(version_id)
            verification = check_pages(verification, page_maps[version_id], line.pages)
        out.append(verification)
    return tuple(out)
