"""Exact citation verification (DESIGN.md C5, C6, C14): verified, or refused with a reason.

A citation names a version, half-open raw offsets `[char_start, char_end)`, the quoted words, and
optionally which occurrence of them it relied on. It is verified only when the text at those
offsets, normalized, equals the normalized quote — by equality over a small stated set of readings,
never by similarity — and the quote's occurrences in the version leave no doubt which one is meant.
No threshold, no re-anchoring, no stored verdict: every call re-reads the text. The guarantee:
`verified` means these words are at these offsets in this version. It does not mean that a reading
drawn from them is right; the qualifier scan flags a negation or condition the quote leaves out,
and never changes the verdict.

Line-break hyphens. The normalizer keeps a hyphen before a line break as "regu- lation" and records
it. Inside a span (at least one character before the hyphen and one after the folded space) such a
point may be read three ways and no other: joined ("regulation"), hyphen kept ("regu-lation"), or
hyphen and space ("regu- lation"). A point at the very edge of a span is compared as written.

Occurrences are counted over the version's normalized text: every span, overlapping ones included,
some reading of which equals the normalized quote, and which starts and ends on raw-character
boundaries. Hits are found on the skeleton (see `index`); a hit whose normalized ends are the first
and last characters produced from whole raw characters passes the fast boundary test; any other hit
(one that splits a ligature's expansion) is re-read exactly from the raw text and counts only if the
re-read still equals the quote. Occurrences are numbered from 1 in order of normalized start, then
end; raw spans come from the normalizer's offset map.

A batch (`verify_batch`) decides the citations whose quote is the raw text at their offsets,
character for character, in columns (array passes over the whole batch, `_verify_copied`), and
every other citation one by one (`_verify_general`); tests hold the two to the same verdict, field
by field. Either way, every verdict is decided from the text, not from an earlier verdict.

Checks run in this order, and the first that fails is the reason: `unknown_version`,
`source_changed` (both only through a workspace), `bad_offsets`, `bad_occurrence`, `empty_quote`,
`quote_mismatch`, `context_mismatch`, `ambiguous_occurrence`, `wrong_occurrence`.
"""

from __future__ import annotations

import gc
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Literal, NamedTuple

import numpy as np

from workbench.cite.index import DELETABLE, SourceIndex, skeleton, source_index
from workbench.errors import CitationError, VersionNotFound
from workbench.normalize import (
    Normalized,
    code_points,
    normalize,
    normalized_text,
    normalized_texts,
    raw_span_arrays,
    raw_spans,
)
from workbench.store import Workspace, text_sha256

REASONS: dict[str, str] = {
    "unknown_version": "no version with that id is held",
    "source_changed": "the stored text no longer hashes to the version's recorded text sha256, "
    "or the citation names a text sha256 other than the version's",
    "bad_offsets": "offsets are not integers, negative, reversed, or past the end of the text",
    "bad_occurrence": "the occurrence named is not a positive integer",
    "empty_quote": "the quote holds nothing but white space and hyphens once normalized",
    "quote_mismatch": "the text at the offsets, normalized, is not the quote under any reading",
    "context_mismatch": "the prefix/suffix given (W3C TextQuoteSelector) surround no occurrence",
    "ambiguous_occurrence": "the quote occurs more than once and no occurrence is named",
    "wrong_occurrence": "the occurrence named is not the one at the offsets",
}
VERIFIED_MEANS = (
    "verified means the quoted words are at these offsets in this version; "
    "it does not mean that a reading drawn from them is right"
)
QUALIFIER_REACH = 160
_QUALIFIER = re.compile(
    # The look-ahead only lets the search skip faster: every word starts with one of its letters.
    r"\b(?=[nuesp])(?:not|no(?!\.)|unless|except|provided(?:, however)?,? that|notwithstanding"
    r"|subject to)\b",
    re.IGNORECASE,
)
_SENTENCE_MARK = re.compile(r"[.?!]")
_SENTENCE_END = re.compile(r"[.?!][\"”’)\]]* (?=[A-Z0-9(“\"‘\[§])")
_ABBREVIATIONS = frozenset(
    {
        "no",
        "nos",
        "sec",
        "secs",
        "stat",
        "pub",
        "inc",
        "co",
        "corp",
        "ch",
        "cl",
        "art",
        "par",
        "subsec",
        "vol",
        "pp",
        "fig",
        "etc",
        "mr",
        "ms",
        "dr",
        "jr",
        "sr",
        "st",
        "vs",
    }
)
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")

Outcome = Literal["verified", "refused"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Citation:
    """A claim that `quoted_text` stands at raw `[char_start, char_end)` of `version_id`.

    `occurrence` (1-based) names which occurrence of the quote the claim relied on. `prefix` and
    `suffix` (from a W3C TextQuoteSelector) name it by its surroundings instead. `text_sha256`, when
    the producer recorded it (our W3C export does), is the text the citation was made against.
    """

    version_id: str
    char_start: int
    char_end: int
    quoted_text: str
    occurrence: int | None = None
    prefix: str | None = None
    suffix: str | None = None
    text_sha256: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class QualifierFlag:
    """A negation or condition near a verified quote and left out of it; raw offsets."""

    word: str  # as normalized, e.g. "unless", "provided, however, that"
    char_start: int
    char_end: int
    side: Literal["before", "after"]


class Verification(NamedTuple):
    """The outcome for one citation. `actual_text` is the raw text at the offsets, when they are
    valid, so a reader sees a mismatch itself; `occurrences` are the raw spans of every counted
    occurrence (empty when counting was not reached); `occurrence` is the 1-based index of the one
    at the offsets.

    A named tuple, not a frozen dataclass like `Citation`: a batch makes one per citation, and a
    tuple is made several times faster. Build it with keywords.
    """

    citation: Citation
    outcome: Outcome
    reason: str | None
    detail: str
    actual_text: str | None
    text_sha256: str | None
    occurrences: tuple[tuple[int, int], ...] = ()
    occurrence: int | None = None
    qualifiers: tuple[QualifierFlag, ...] = ()

    @property
    def verified(self) -> bool:
        return self.outcome == "verified"


class Hit(NamedTuple):
    """A normalized span some reading of which equals the quote; `fast` if it passed the boundary
    test, `counted` if it counts as an occurrence (always, when `fast`).

    A named tuple, not a frozen dataclass like the other records: a batch makes one per
    occurrence, and a tuple is made several times faster.
    """

    norm_start: int
    norm_end: int
    fast: bool
    counted: bool


# ---------------------------------------------------------------------------------------------
# Readings and boundaries


def reads_as(source: str, points: Sequence[int], quote: str) -> bool:
    """True if one reading of `source` equals `quote`.

    `points` are ascending offsets in `source` of interior line-break hyphens (`source[h + 1]` is
    the folded space). At each, exactly three readings are allowed: joined (hyphen and space
    dropped), hyphen kept (space dropped), hyphen and space (as written). Everything else must be
    equal character for character.
    """
    if not points:
        return source == quote
    if not len(source) - 2 * len(points) <= len(quote) <= len(source):
        return False
    at = 0
    ends = {0}
    for h in points:
        chunk = source[at:h]
        ends = {p + len(chunk) for p in ends if quote.startswith(chunk, p)}
        if not ends:
            return False
        hyphen = source[h]
        grown = set(ends)
        for p in ends:
            if quote.startswith(hyphen, p):
                grown.add(p + 1)
                if quote.startswith(" ", p + 1):
                    grown.add(p + 2)
        ends = grown
        at = h + 2
    tail = source[at:]
    return any(len(quote) - p == len(tail) and quote.endswith(tail) for p in ends)


def interior_points(points: Sequence[int], start: int, end: int) -> list[int]:
    """Points strictly inside `[start, end)` (a character before the hyphen and one after the
    space), relative to `start`."""
    lo = bisect_right(points, start)
    hi = bisect_left(points, end - 2)
    return [h - start for h in points[lo:hi]]


def on_raw_boundaries(normalized: Normalized, start: int, end: int) -> bool:
    """Fast test: normalized `[start, end)` begins with the first and ends with the last character
    produced from whole raw characters (it splits no ligature's expansion)."""
    starts = normalized.norm_starts
    k = bisect_right(starts, start) - 1
    if not normalized.identity[k] and starts[k] != start:
        return False
    k = bisect_right(starts, end - 1) - 1
    if normalized.identity[k]:
        return True
    following = starts[k + 1] if k + 1 < len(starts) else len(normalized.text)
    return following == end


def _reread(text: str, quote: str) -> bool:
    """Exact re-read: normalize raw `text` on its own and compare under the allowed readings."""
    folded = normalize(text)
    return reads_as(
        folded.text, interior_points(folded.line_break_hyphens, 0, len(folded.text)), quote
    )


def _image(normalized: Normalized, char_start: int, char_end: int, sliced: str) -> tuple[int, int]:
    """Normalized span standing for raw `[char_start, char_end)` whose slice normalized to
    `sliced`: the characters produced from raw characters inside it, and a folded space only where
    the slice itself kept one (a slice may cut a white-space run down to removed characters)."""
    raw_starts, raw_lens, norm_starts = (
        normalized.raw_starts,
        normalized.raw_lens,
        normalized.norm_starts,
    )
    total = len(normalized.text)
    k = bisect_right(raw_starts, char_start) - 1
    if k >= 0 and char_start < raw_starts[k] + raw_lens[k]:
        if normalized.identity[k]:
            start = norm_starts[k] + (char_start - raw_starts[k])
        else:
            start = norm_starts[k]
            if raw_starts[k] < char_start and not sliced.startswith(" "):
                start += 1
    else:
        start = norm_starts[k + 1] if k + 1 < len(norm_starts) else total
    k = bisect_right(raw_starts, char_end - 1) - 1
    segment_end = norm_starts[k + 1] if k + 1 < len(norm_starts) else total
    if char_end - 1 < raw_starts[k] + raw_lens[k]:
        if normalized.identity[k]:
            end = norm_starts[k] + (char_end - 1 - raw_starts[k]) + 1
        else:
            end = segment_end
            if char_end < raw_starts[k] + raw_lens[k] and not sliced.endswith(" "):
                end -= 1
    else:
        end = segment_end
    return start, end


# ---------------------------------------------------------------------------------------------
# Occurrences


def _run_edges(text: str, at: int, step: int, char: str) -> list[int]:
    """Positions inside the run of deletable characters next to `at` (before it for step -1,
    after it for step 1) where `char` stands, as span starts (step -1) or span ends (step 1)."""
    found = []
    i = at
    while True:
        probe = i - 1 if step < 0 else i
        if not 0 <= probe < len(text) or text[probe] not in DELETABLE:
            break
        i += step
        if text[probe] == char:
            found.append(i)
    return found


def occurrence_hits(index: SourceIndex, quote: str) -> list[Hit]:
    """Every normalized span some reading of which equals the normalized `quote`, ascending.

    The quote's leading and trailing hyphens and spaces are matched inside the deletable run beside
    its core, since a reading never drops a span's first or last character.
    """
    return occurrence_hits_many(index, (quote,))[0]


def occurrence_hits_many(index: SourceIndex, quotes: Sequence[str]) -> list[list[Hit]]:
    """`occurrence_hits` of each normalized quote, in order; the skeleton look-ups of the whole
    batch run as one array pass. In a text with no line-break hyphen the only reading is the text
    as written, and the index is built over the normalized text itself: an occurrence is then the
    quote, character for character."""
    cores = [quote.strip(DELETABLE) for quote in quotes]
    if not index.folds_hyphens:
        wanted = [quote if core else "" for quote, core in zip(quotes, cores, strict=True)]
        return [
            [_hit(index, quote, at, at + len(quote)) for at in starts]
            for quote, starts in zip(wanted, index.skeleton_hits_many(wanted), strict=True)
        ]
    patterns = [skeleton(core) for core in cores]
    starts_by_quote = index.skeleton_hits_many(patterns)
    folded = index.normalized
    text, points = folded.text, folded.line_break_hyphens
    found: list[list[Hit]] = []
    for quote, core, pattern, skeleton_starts in zip(
        quotes, cores, patterns, starts_by_quote, strict=True
    ):
        hits: list[Hit] = []
        found.append(hits)
        if not core or not skeleton_starts:
            continue
        if pattern == quote:
            hits.extend(_plain_hits(index, quote, skeleton_starts))
            continue
        lead = len(quote) - len(quote.lstrip(DELETABLE))
        trail = len(quote) - len(quote.rstrip(DELETABLE))
        width = len(pattern) - 1
        for at in skeleton_starts:
            first = index.normalized_of_skeleton(at)
            last = index.normalized_of_skeleton(at + width) + 1
            starts = _run_edges(text, first, -1, quote[0]) if lead else [first]
            ends = _run_edges(text, last, 1, quote[-1]) if trail else [last]
            for start in starts:
                for end in ends:
                    if reads_as(text[start:end], interior_points(points, start, end), quote):
                        hits.append(_hit(index, quote, start, end))
        if len(hits) > 1:
            hits.sort(key=lambda h: (h.norm_start, h.norm_end))
    return found


def _hit(index: SourceIndex, quote: str, start: int, end: int) -> Hit:
    """A normalized span that reads as `quote`, with its boundary test (and exact re-read)."""
    folded = index.normalized
    if not folded.expands or on_raw_boundaries(folded, start, end):
        return Hit(start, end, True, True)
    raw_start, raw_end = folded.raw_span(start, end)
    counted = _reread(index.text[raw_start:raw_end], quote)
    return Hit(start, end, False, counted)


def _plain_hits(index: SourceIndex, quote: str, skeleton_starts: Sequence[int]) -> list[Hit]:
    """Hits of a quote with no hyphen and no leading or trailing space (so it is its own
    skeleton). A skeleton hit inside one kept run is the same characters in the normalized text;
    one that straddles a cut is read as usual."""
    kept_skeleton, kept_normalized = index.kept_skeleton, index.kept_normalized
    runs = len(kept_skeleton)
    text, points = index.normalized.text, index.normalized.line_break_hyphens
    hits = []
    for at in skeleton_starts:
        k = bisect_right(kept_skeleton, at) - 1
        if k + 1 == runs or at + len(quote) <= kept_skeleton[k + 1]:
            start = kept_normalized[k] + (at - kept_skeleton[k])
            hits.append(_hit(index, quote, start, start + len(quote)))
            continue
        start = index.normalized_of_skeleton(at)
        end = index.normalized_of_skeleton(at + len(quote) - 1) + 1
        if reads_as(text[start:end], interior_points(points, start, end), quote):
            hits.append(_hit(index, quote, start, end))
    return hits


def _context_matches(index: SourceIndex, start: int, end: int, prefix: str, suffix: str) -> bool:
    """True if normalized `prefix` ends just before `start` and `suffix` begins at `end`; white
    space at the two joins is not compared (a quote may begin or end inside a folded run)."""
    text = index.normalized.text
    before = normalized_text(prefix).rstrip(" ")
    after = normalized_text(suffix).lstrip(" ")
    return text[:start].rstrip(" ").endswith(before) and text[end:].lstrip(" ").startswith(after)


# ---------------------------------------------------------------------------------------------
# Qualifiers


def _is_sentence_end(text: str, match: re.Match[str]) -> bool:
    """True unless the word before the mark (the run of word characters and dots, at most 12, that
    ends there) is a single letter, holds a dot, or is a common abbreviation."""
    end = match.start()
    start = end
    floor = max(0, end - 12)
    while start > floor and (text[start - 1].isalnum() or text[start - 1] in "_."):
        start -= 1
    token = text[start:end].lower()
    return len(token) > 1 and "." not in token and token not in _ABBREVIATIONS


@cache
def _folded_letters() -> dict[int, int]:
    """Code points above ASCII that `re.IGNORECASE` matches to an ASCII letter of a qualifier
    word's first two letters ("ſ" stands for "s" there), each with that letter."""
    every = "".join(map(chr, range(0x80, 0x10000)))
    return {
        ord(char): ord(letter)
        for letter in {ch for pair in _QUALIFIER_PAIRS for ch in pair}
        for char in re.findall(letter, every, re.IGNORECASE)
    }


# Every qualifier word begins with one of these letter pairs; a match is confirmed by `_QUALIFIER`.
_QUALIFIER_PAIRS = (("n", "o"), ("u", "n"), ("e", "x"), ("p", "r"), ("s", "u"))


class QualifierWords(NamedTuple):
    """Every qualifier word in a normalized text: starts and ends (ascending), the words as they
    stand, and the starts and ends as arrays (for the batch's window test)."""

    starts: list[int]
    ends: list[int]
    words: tuple[str, ...]
    starts_array: np.ndarray
    ends_array: np.ndarray


def qualifier_matches(index: SourceIndex) -> QualifierWords:
    """Every `_QUALIFIER` match in the version's normalized text, kept with its index.

    The same as `_QUALIFIER.finditer(text)` (a test holds them equal), found faster: an array pass
    picks the places where a word could begin (a letter pair that opens a qualifier, case folded,
    not preceded by an ASCII letter, digit or underscore), and `_QUALIFIER.match` decides each.
    The pass reads each code point's low byte (a character above U+00FF whose low byte looks like
    a letter only adds a candidate), and the non-ASCII characters that fold to a letter are mapped.
    """
    held = index.derived.get("qualifier_words")
    if isinstance(held, QualifierWords):
        return held
    text = index.normalized.text
    codes = code_points(text)
    lower = codes.astype(np.uint8) | 0x20
    for code, letter in _folded_letters().items():
        if code <= 0xFF or (codes == code).any():
            lower[codes == code] = letter
    pair = np.zeros(max(0, codes.size - 1), bool)
    for first, second in _QUALIFIER_PAIRS:
        pair |= (lower[:-1] == ord(first)) & (lower[1:] == ord(second))
    at = np.flatnonzero(pair)
    before = codes[np.maximum(at - 1, 0)]
    folded = before | 0x20
    word_before = (
        ((folded >= 0x61) & (folded <= 0x7A))
        | ((before >= 0x30) & (before <= 0x39))
        | (before == 0x5F)
    )
    word_before[at == 0] = False
    starts: list[int] = []
    ends: list[int] = []
    words: list[str] = []
    done = 0
    for position in at[~word_before].tolist():
        if position < done:
            continue
        match = _QUALIFIER.match(text, position)
        if match is not None:
            starts.append(position)
            ends.append(match.end())
            words.append(match.group())
            done = match.end()
    found = QualifierWords(
        starts, ends, tuple(words), np.array(starts, np.int64), np.array(ends, np.int64)
    )
    index.derived["qualifier_words"] = found
    return found


def qualifiers_near(index: SourceIndex, start: int, end: int) -> tuple[QualifierFlag, ...]:
    """Negations and conditions within `QUALIFIER_REACH` normalized characters of normalized
    `[start, end)`, in the same sentence, outside the quote; ordered by offset.

    Words: not, no (but not "No." the abbreviation), unless, except, provided [, however,] that,
    notwithstanding, subject to; case-insensitive, whole words, each wholly before or wholly after
    the quote. A sentence ends at . ? or ! followed by a space and a capital, digit, bracket, quote
    mark or §, unless the word before is a single letter, holds a dot, or is a common abbreviation;
    a paragraph ends at a blank raw line.
    """
    return _qualifiers_in(index, start, end, qualifier_matches(index))


def _qualifiers_in(
    index: SourceIndex, start: int, end: int, found: QualifierWords
) -> tuple[QualifierFlag, ...]:
    folded = index.normalized
    text = folded.text
    starts, ends, words = found.starts, found.ends, found.words
    lo = max(0, start - QUALIFIER_REACH)
    hi = min(len(text), end + QUALIFIER_REACH)
    first = bisect_left(starts, lo)
    last = bisect_left(starts, hi)
    near = [
        k
        for k in range(first, last)
        if ends[k] <= start or starts[k] >= end  # wholly outside the quote
    ]
    if not near:
        return ()
    # A sentence end is its mark, any closers, a space and a look-ahead at one more character: one
    # that ends by `start` lies wholly in text[:start + 1] (the quote itself may open the next
    # sentence). After the quote, the first true sentence end whose mark is within reach counts.
    for ending in _SENTENCE_END.finditer(text, lo, start + 1):
        if _is_sentence_end(text, ending):
            lo = ending.end()
    mark = _SENTENCE_MARK.search(text, end, hi)
    while mark is not None:
        match = _SENTENCE_END.match(text, mark.start())
        if match is not None and _is_sentence_end(text, match):
            hi = match.start() + 1
            break
        mark = _SENTENCE_MARK.search(text, match.end() if match else mark.end(), hi)
    while hi < len(text) and text[hi - 1].isalnum() and text[hi].isalnum():
        hi += 1  # never cut a word at the reach limit: "no" is not "not"
    raw = index.text
    quote_start, quote_end = folded.raw_span(start, end)
    flags = []
    for k in near:
        word_start, word_end = starts[k], ends[k]
        before = word_end <= start
        if not (lo <= word_start and word_end <= start) and not (
            end <= word_start and word_end <= hi
        ):
            continue
        raw_start, raw_end = folded.raw_span(word_start, word_end)
        gap = raw[raw_end:quote_start] if before else raw[quote_end:raw_start]
        if _PARAGRAPH_BREAK.search(gap):
            continue
        flags.append(
            QualifierFlag(
                word=words[k],
                char_start=raw_start,
                char_end=raw_end,
                side="before" if before else "after",
            )
        )
    return tuple(flags)


# ---------------------------------------------------------------------------------------------
# Verification


def _refused(
    citation: Citation,
    reason: str,
    detail: str,
    *,
    actual: str | None = None,
    sha256: str | None = None,
    occurrences: tuple[tuple[int, int], ...] = (),
    occurrence: int | None = None,
) -> Verification:
    return Verification(
        citation=citation,
        outcome="refused",
        reason=reason,
        detail=detail,
        actual_text=actual,
        text_sha256=sha256,
        occurrences=occurrences,
        occurrence=occurrence,
    )


def _offsets_problem(citation: Citation, length: int) -> str | None:
    start, end = citation.char_start, citation.char_end
    for name, value in (("char_start", start), ("char_end", end)):
        if type(value) is not int:
            return f"{name} {value!r} is not an integer"
    if start < 0:
        return f"char_start {start} is negative"
    if start > end:
        return f"char_start {start} is after char_end {end}"
    if end > length:
        return f"char_end {end} is past the end of the text ({length} characters)"
    return None


def verify_indexed(index: SourceIndex, citation: Citation) -> Verification:
    """Verify `citation` against an indexed text (whose hash the caller has already checked)."""
    return verify_batch(index, (citation,))[0]


def verify_batch(index: SourceIndex, citations: Sequence[Citation]) -> list[Verification]:
    """Verify citations against one indexed text (whose hash the caller has already checked), in
    order. Each citation is decided exactly as alone; only the work is shared: the quotes are
    normalized together and their occurrences looked up in one pass over the index."""
    for citation in citations:
        if not isinstance(citation.quoted_text, str) or not isinstance(citation.version_id, str):
            raise CitationError(
                f"{citation.version_id!r}: version_id and quoted_text must be strings, got "
                f"{type(citation.version_id).__name__} and {type(citation.quoted_text).__name__}"
            )
    with _collector_paused():
        results = _verify_copied(index, citations)
        rest = [i for i, result in enumerate(results) if result is None]
        if rest:
            for i, verification in zip(
                rest, _verify_general(index, [citations[i] for i in rest]), strict=True
            ):
                results[i] = verification
        return [r for r in results if r is not None]


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for a batch, then restore it as it was.

    A batch makes a few small objects per citation and per occurrence and keeps them all until it
    returns, so the collector's passes over them (triggered by the count of new objects, not by
    memory) free nothing and only cost time. Memory freed by reference counting is freed as usual.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _verify_general(index: SourceIndex, citations: Sequence[Citation]) -> list[Verification]:
    """`verify_batch` for any citation: quotes normalized together, each located, occurrences of
    all looked up at once."""
    quotes = normalized_texts([citation.quoted_text for citation in citations])
    exact = _exact_span_of(index, citations)
    results: list[Verification | None] = []
    located: list[tuple[int, str, str, tuple[int, int]]] = []
    for i, (citation, quote) in enumerate(zip(citations, quotes, strict=True)):
        outcome = _locate(index, citation, quote, exact.get(i))
        if isinstance(outcome, Verification):
            results.append(outcome)
        else:
            results.append(None)
            located.append((i, quote, *outcome))
    hits = occurrence_hits_many(index, [quote for _, quote, _, _ in located])
    counted = [[(h.norm_start, h.norm_end) for h in quote_hits if h.counted] for quote_hits in hits]
    spans = iter(raw_spans(index.normalized, [span for each in counted for span in each]))
    for (i, _, actual, image), occurrences in zip(located, counted, strict=True):
        raw = tuple(next(spans) for _ in occurrences)
        results[i] = _count(index, citations[i], actual, image, occurrences, raw)
    return [r for r in results if r is not None]


def _verify_copied(index: SourceIndex, citations: Sequence[Citation]) -> list[Verification | None]:
    """Verdicts for the citations whose quote is the raw text at their offsets, character for
    character, and whose offsets fall on the offset map's boundaries (None for every other
    citation: `_verify_general` decides those). Columnar: the offsets map, the look-ups, the raw
    spans and the qualifier windows are array passes over the whole batch.

    Why a copied quote needs no normalizing: when raw `[s, e)` starts and ends on map boundaries,
    the white-space runs and folds inside it are the text's own, so it normalizes to exactly the
    normalized text's `[ns, ne)`, and that reading ("as written") is one the comparison allows. A
    test holds this path's verdicts equal to `_verify_general`'s on real and adversarial text.
    """
    raw = index.text
    length = len(raw)
    results: list[Verification | None] = [None] * len(citations)
    picked: list[int] = []
    picked_starts: list[int] = []
    picked_ends: list[int] = []
    for i, citation in enumerate(citations):
        start, end, named, quote = (
            citation.char_start,
            citation.char_end,
            citation.occurrence,
            citation.quoted_text,
        )
        if (
            type(start) is int
            and type(end) is int
            and 0 <= start < end <= length
            and (named is None or (type(named) is int and named > 0))
            and citation.prefix is None
            and citation.suffix is None
            and len(quote) == end - start
            and raw.startswith(quote, start)
        ):
            picked.append(i)
            picked_starts.append(start)
            picked_ends.append(end)
    if not picked:
        return results
    norm_start, norm_end, exact = _exact_spans(
        index, np.array(picked_starts, np.int64), np.array(picked_ends, np.int64)
    )
    folded = index.normalized.text
    chosen: list[int] = []
    images: list[tuple[int, int]] = []
    quotes: list[str] = []
    exact_at = np.flatnonzero(exact)
    first, last = norm_start[exact_at].tolist(), norm_end[exact_at].tolist()
    sliced = map(folded.__getitem__, map(slice, first, last))
    for i, a, b, quote in zip(
        [picked[k] for k in exact_at.tolist()], first, last, sliced, strict=True
    ):
        if quote.strip(DELETABLE):
            chosen.append(i)
            images.append((a, b))
            quotes.append(quote)
    if not chosen:
        return results
    if index.folds_hyphens or index.normalized.expands:
        counted = [
            [(h.norm_start, h.norm_end) for h in hits if h.counted]
            for hits in occurrence_hits_many(index, quotes)
        ]
        sizes = np.fromiter(map(len, counted), np.int64, len(counted))
        flat = np.array([span for each in counted for span in each], np.int64).reshape(-1, 2)
        hit_starts, hit_ends = flat[:, 0], flat[:, 1]
    else:  # no line-break hyphen, no ligature: an occurrence is the quote, character for character
        rows, hit_starts = index.skeleton_hits_flat(quotes, [start for start, _ in images])
        hit_ends = hit_starts + np.fromiter(map(len, quotes), np.int64, len(quotes))[rows]
        sizes = np.bincount(rows, minlength=len(quotes))
    raw_start, raw_end = _raw_spans(index, hit_starts, hit_ends)
    every = list(zip(raw_start.tolist(), raw_end.tolist(), strict=True))
    occurrence_starts = hit_starts.tolist()
    occurrence_ends = hit_ends.tolist()
    verified: list[int] = []
    at = 0
    for i, image, size in zip(chosen, images, sizes.tolist(), strict=True):
        citation = citations[i]
        following = at + size
        # Occurrences are ordered by start, then end; two readings may share a start.
        k = bisect_left(occurrence_starts, image[0], at, following)
        while k < following and occurrence_starts[k] == image[0] and occurrence_ends[k] < image[1]:
            k += 1
        if k == following or (occurrence_starts[k], occurrence_ends[k]) != image:
            raise AssertionError(  # pragma: no cover - guarded by the property tests
                f"{citation.version_id}: span {image} missing from its own occurrences"
            )
        cited = k - at + 1
        spans = (every[at],) if size == 1 else tuple(every[at:following])
        at = following
        results[i] = verdict = _decide(
            index, citation, citation.quoted_text, cited, spans, citation.occurrence
        )
        if verdict.reason is None:
            verified.append(i)
    if verified:
        _flag_qualifiers(index, results, verified, dict(zip(chosen, images, strict=True)))
    return results


def _flag_qualifiers(
    index: SourceIndex,
    results: list[Verification | None],
    verified: list[int],
    images: dict[int, tuple[int, int]],
) -> None:
    """Add qualifier flags to the verified results at `verified`; only the quotes with a qualifier
    word within reach (one array pass over the batch) are read one by one."""
    found = qualifier_matches(index)
    starts = found.starts_array
    if not starts.size:
        return
    first = np.array([images[i][0] for i in verified], np.int64)
    last = np.array([images[i][1] for i in verified], np.int64)
    # Words wholly before a quote within reach, and words starting after it within reach (a word
    # inside the quote is never flagged): the words are ascending and never overlap.
    before = np.searchsorted(found.ends_array, first, "right") - np.searchsorted(
        starts, first - QUALIFIER_REACH
    )
    after = np.searchsorted(starts, last + QUALIFIER_REACH) - np.searchsorted(starts, last)
    for k in np.flatnonzero((before > 0) | (after > 0)).tolist():
        i = verified[k]
        flags = _qualifiers_in(index, int(first[k]), int(last[k]), found)
        if flags:
            result = results[i]
            assert result is not None
            results[i] = result._replace(qualifiers=flags)


def _exact_span_of(index: SourceIndex, citations: Sequence[Citation]) -> dict[int, tuple[int, int]]:
    """For each citation (by position) whose raw span is non-empty, inside the text and exact (see
    `_exact_spans`), the normalized span standing for it."""
    length = len(index.text)
    valid = [
        i
        for i, c in enumerate(citations)
        if type(c.char_start) is int
        and type(c.char_end) is int
        and 0 <= c.char_start < c.char_end <= length
    ]
    if not valid:
        return {}
    starts = np.array([citations[i].char_start for i in valid], np.int64)
    ends = np.array([citations[i].char_end for i in valid], np.int64)
    norm_start, norm_end, ok = _exact_spans(index, starts, ends)
    return {
        i: (a, b)
        for i, a, b, good in zip(
            valid, norm_start.tolist(), norm_end.tolist(), ok.tolist(), strict=True
        )
        if good
    }


def _exact_spans(
    index: SourceIndex, starts: np.ndarray, ends: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For raw `[starts, ends)` (all non-empty and inside the text), as arrays: the normalized
    spans whose raw spans are exactly those, and whether there is one (the spans are junk where
    not). A raw span is exact when it starts at a segment's start or inside an identity segment,
    and ends at a segment's end or inside an identity segment."""
    raw_starts, raw_lens = index.raw_starts_array, index.raw_lens_array
    norm_starts, identity = index.norm_starts_array, index.identity_array
    if not raw_starts.size:
        none = np.zeros(starts.size, bool)
        return starts, ends, none
    following = np.append(norm_starts[1:], len(index.normalized.text))
    k = np.searchsorted(raw_starts, starts, "right") - 1
    inside = k >= 0
    k = np.maximum(k, 0)
    offset = starts - raw_starts[k]
    same = identity[k]
    ok = inside & np.where(same, offset < raw_lens[k], offset == 0)
    norm_start = norm_starts[k] + np.where(same, offset, 0)
    last = ends - 1
    k = np.maximum(np.searchsorted(raw_starts, last, "right") - 1, 0)
    offset = last - raw_starts[k]
    same = identity[k]
    ok &= np.where(same, offset < raw_lens[k], ends == raw_starts[k] + raw_lens[k])
    norm_end = np.where(same, norm_starts[k] + offset + 1, following[k])
    return norm_start, norm_end, ok


def _raw_spans(
    index: SourceIndex, starts: np.ndarray, ends: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """`raw_span` of each non-empty normalized `[starts, ends)`, as two arrays."""
    segments = (
        index.norm_starts_array,
        index.raw_starts_array,
        index.raw_lens_array,
        index.identity_array,
    )
    return raw_span_arrays(segments, starts, ends)


def _locate(
    index: SourceIndex, citation: Citation, quote: str, exact: tuple[int, int] | None
) -> Verification | tuple[str, tuple[int, int]]:
    """The refusal decided before counting, or the raw text at the offsets and the normalized
    span (the image) that reads as the normalized `quote`. `exact` is the normalized span whose raw
    span is exactly the citation's, if there is one (`_exact_span_of`)."""
    sha = index.text_sha256
    raw = index.text
    problem = _offsets_problem(citation, len(raw))
    if problem:
        return _refused(citation, "bad_offsets", problem, sha256=sha)
    start, end = citation.char_start, citation.char_end
    actual = raw[start:end]
    named = citation.occurrence
    if named is not None and (type(named) is not int or named < 1):
        return _refused(
            citation,
            "bad_occurrence",
            f"occurrence {named!r} is not a positive integer",
            actual=actual,
            sha256=sha,
        )
    if not quote.strip(DELETABLE):
        return _refused(
            citation,
            "empty_quote",
            f"quoted_text {citation.quoted_text[:40]!r} holds no words once normalized",
            actual=actual,
            sha256=sha,
        )
    folded = index.normalized
    if exact is not None:
        image = exact
        matches = reads_as(
            folded.text[image[0] : image[1]],
            interior_points(folded.line_break_hyphens, image[0], image[1]),
            quote,
        )
    else:
        sliced = normalize(actual)
        matches = reads_as(
            sliced.text, interior_points(sliced.line_break_hyphens, 0, len(sliced.text)), quote
        )
        image = _image(folded, start, end, sliced.text) if matches else (0, 0)
    if not matches:
        return _refused(
            citation,
            "quote_mismatch",
            f"the text at [{start}, {end}) does not read as the quote",
            actual=actual,
            sha256=sha,
        )
    return actual, image


def _count(
    index: SourceIndex,
    citation: Citation,
    actual: str,
    image: tuple[int, int],
    counted: list[tuple[int, int]],
    spans: tuple[tuple[int, int], ...],
) -> Verification:
    """The verdict for a located citation, from its quote's counted occurrences (normalized
    spans, ascending) and their raw spans."""
    sha = index.text_sha256
    start, end = citation.char_start, citation.char_end
    named = citation.occurrence
    try:
        cited = counted.index(image) + 1
    except ValueError:  # pragma: no cover - guarded by the property tests
        raise AssertionError(
            f"{citation.version_id}: verified span [{start}, {end}) missing from its own occurrences"
        ) from None
    if named is None and (citation.prefix is not None or citation.suffix is not None):
        around = [
            i + 1
            for i, (s, e) in enumerate(counted)
            if _context_matches(index, s, e, citation.prefix or "", citation.suffix or "")
        ]
        if not around:
            return _refused(
                citation,
                "context_mismatch",
                f"prefix {citation.prefix!r} and suffix {citation.suffix!r} surround none of "
                f"the quote's {len(counted)} occurrence(s)",
                actual=actual,
                sha256=sha,
                occurrences=spans,
                occurrence=cited,
            )
        if len(around) == 1:
            named = around[0]
    verdict = _decide(index, citation, actual, cited, spans, named)
    if not verdict.verified:
        return verdict
    return verdict._replace(qualifiers=qualifiers_near(index, image[0], image[1]))


def _decide(
    index: SourceIndex,
    citation: Citation,
    actual: str,
    cited: int,
    spans: tuple[tuple[int, int], ...],
    named: int | None,
) -> Verification:
    """The verdict once the cited span is occurrence `cited` of the counted `spans` (raw) and the
    occurrence `named` is known; a verified one has no qualifier flags yet."""
    sha = index.text_sha256
    if named is None and len(spans) > 1:
        return _refused(
            citation,
            "ambiguous_occurrence",
            f"the quote occurs {len(spans)} times; the offsets are occurrence {cited}, "
            "and no occurrence is named",
            actual=actual,
            sha256=sha,
            occurrences=spans,
            occurrence=cited,
        )
    if named is not None and named != cited:
        return _refused(
            citation,
            "wrong_occurrence",
            f"occurrence {named} is named; the offsets are occurrence {cited} of {len(spans)}",
            actual=actual,
            sha256=sha,
            occurrences=spans,
            occurrence=cited,
        )
    return Verification(
        citation=citation,
        outcome="verified",
        reason=None,
        detail=f"occurrence {cited} of {len(spans)}",
        actual_text=actual,
        text_sha256=sha,
        occurrences=spans,
        occurrence=cited,
    )


def verify_citation(citation: Citation, source_text: str) -> Verification:
    """Verify `citation` against `source_text`, the version's text as stored.

    The text is hashed to find its cached index (built on first use). Nothing here knows the
    version's recorded hash: use `verify_for_version`, which checks it, everywhere but tests.
    """
    sha = text_sha256(source_text)
    return verify_indexed(source_index(source_text, sha), citation)


def verify_for_version(workspace: Workspace, citation: Citation) -> Verification:
    """Verify one citation against its held version, checking the text hash first."""
    return verify_citations(workspace, (citation,))[0]


def verify_citations(
    workspace: Workspace, citations: Iterable[Citation]
) -> tuple[Verification, ...]:
    """Verify a batch, in input order. Each version is read once and its stored text hashed once
    against the recorded `text_sha256` before any of its citations is looked at; its index is
    cached under that hash, and its citations are verified together (`verify_batch`)."""
    citations = tuple(citations)
    indexes: dict[str, SourceIndex | Verification] = {}
    results: list[Verification | None] = [None] * len(citations)
    pending: dict[str, list[int]] = {}
    for i, citation in enumerate(citations):
        version_id = citation.version_id
        if not isinstance(version_id, str):
            raise CitationError(f"version_id {version_id!r} must be a string")
        held = indexes.get(version_id)
        if held is None:
            held = _open_version(workspace, citation)
            indexes[version_id] = held
        if isinstance(held, Verification):
            results[i] = _refused(citation, held.reason or "", held.detail, sha256=held.text_sha256)
        elif citation.text_sha256 is not None and citation.text_sha256 != held.text_sha256:
            results[i] = _refused(
                citation,
                "source_changed",
                f"the citation was made against text sha256 {citation.text_sha256}; "
                f"{version_id} holds {held.text_sha256}",
                sha256=held.text_sha256,
            )
        else:
            pending.setdefault(version_id, []).append(i)
    for version_id, positions in pending.items():
        held = indexes[version_id]
        assert isinstance(held, SourceIndex)
        batch = verify_batch(held, [citations[i] for i in positions])
        for i, verification in zip(positions, batch, strict=True):
            results[i] = verification
    return tuple(r for r in results if r is not None)


def _open_version(workspace: Workspace, citation: Citation) -> SourceIndex | Verification:
    """The version's index, or the refusal every citation of it gets."""
    try:
        version = workspace.version(citation.version_id)
    except VersionNotFound:
        return _refused(
            citation, "unknown_version", f"{citation.version_id}: no such version is held"
        )
    stored = text_sha256(version.text)
    if stored != version.text_sha256:
        return _refused(
            citation,
            "source_changed",
            f"{version.version_id}: stored text hashes to {stored}; the version was recorded "
            f"with text sha256 {version.text_sha256}",
            sha256=stored,
        )
    return source_index(version.text, stored)
