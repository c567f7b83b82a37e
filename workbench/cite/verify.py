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

import operator
import re
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, partial
from itertools import compress, repeat
from operator import itemgetter, methodcaller
from typing import Literal, NamedTuple, NoReturn, TypeVar, cast

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
    search,
    search_order,
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
# A sentence ends at a mark (. ? !), any closing quotes or brackets after it, and a space before a
# capital, a digit, an opening bracket or quote mark, or § (as a regular expression,
# `[.?!]["”’)\]]* (?=[A-Z0-9(“"‘\[§])`; a test holds `_sentence_ends` to it), unless the word
# before the mark is a single letter, holds a dot, or is one of these abbreviations.
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


class QualifierFlag(NamedTuple):
    """A negation or condition near a verified quote and left out of it; raw offsets.

    A named tuple, like `Verification`: a batch makes them in columns. Build it with keywords.
    """

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


@dataclass(frozen=True, slots=True, kw_only=True)
class Occurrence:
    """One occurrence of a quote in a version's text: raw `[char_start, char_end)`, and its
    1-based `number` in the order occurrences are counted (normalized start, then end)."""

    number: int
    char_start: int
    char_end: int


def find_occurrences(text_or_index: str | SourceIndex, quote: str) -> tuple[Occurrence, ...]:
    """Every occurrence of `quote` in a text (its stored str, or its `SourceIndex`), by the
    verifier's own rule: both sides normalized once, exact equality under the three readings of
    a line-break hyphen, overlapping occurrences included, raw offsets. A quote of nothing but
    white space and hyphens once normalized has no occurrence."""
    if isinstance(text_or_index, SourceIndex):
        index = text_or_index
    else:
        index = source_index(text_or_index, text_sha256(text_or_index))
    hits = [h for h in occurrence_hits(index, normalized_text(quote)) if h.counted]
    return tuple(
        Occurrence(number=number, char_start=start, char_end=end)
        for number, (start, end) in enumerate(
            (index.normalized.raw_span(h.norm_start, h.norm_end) for h in hits), 1
        )
    )


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


def _context_matches(text: str, start: int, end: int, before: str, after: str) -> bool:
    """True if `before` (a normalized prefix, without trailing spaces) ends just before `start` in
    the normalized `text` and `after` (a normalized suffix, without leading spaces) begins at
    `end`; white space at the two joins is not compared (a quote may begin or end inside a folded
    run). Compared in place: nothing is copied, however long the text."""
    while start and text[start - 1] == " ":
        start -= 1
    while end < len(text) and text[end] == " ":
        end += 1
    return text.endswith(before, 0, start) and text.startswith(after, end)


# ---------------------------------------------------------------------------------------------
# Qualifiers


def _ends_sentence(word: str) -> bool:
    """Whether a sentence mark after `word` (the run of word characters and dots, at most
    `_WORD_REACH`, that ends at the mark) ends a sentence: unless the word is a single letter,
    holds a dot, or is a common abbreviation."""
    token = word.lower()
    return len(token) > 1 and "." not in token and token not in _ABBREVIATIONS


_WORD_REACH = 12


@cache
def _folded_letters() -> dict[int, int]:
    """Code points above ASCII that `re.IGNORECASE` matches to an ASCII letter of a qualifier
    word, as far as the array test reads the words ("ſ" stands for "s" there, "ı" for "i"), each
    with that letter."""
    every = "".join(map(chr, range(0x80, 0x10000)))
    spelled = {ch for pair in _QUALIFIER_PAIRS for ch in pair} | set("t" + _NOT_REST)
    spelled |= set().union(*(rest for _, rest in _WORD_RESTS))
    return {
        ord(char): ord(letter)
        for letter in spelled - {" "}
        for char in re.findall(letter, every, re.IGNORECASE)
    }


# Every qualifier word begins with one of these letter pairs; a match is confirmed by `_QUALIFIER`.
_QUALIFIER_PAIRS = (("n", "o"), ("u", "n"), ("e", "x"), ("p", "r"), ("s", "u"))
# What each word spells after its first two letters, by its first letter ("provided" may go on
# as "provided, however, that": the regular expression reads that); "n" opens "no", "not" and
# "notwithstanding", which go on from "not" as below.
_WORD_RESTS = (("u", "less"), ("e", "cept"), ("p", "ovided"), ("s", "bject to"))
_NOT_REST = "withstanding"


class QualifierWords(NamedTuple):
    """Every qualifier word in a normalized text (starts and ends ascending, and the words as they
    stand), and the sentence ends near them: the mark's offset and the end of its sentence-end
    match (the offset of the character the look-ahead read), ascending. Only sentence ends within
    `QUALIFIER_REACH` of some qualifier word are listed; no other can decide a flag."""

    starts: np.ndarray
    ends: np.ndarray
    words: tuple[str, ...]
    sentence_marks: np.ndarray
    sentence_match_ends: np.ndarray


def _ascii_word(codes: np.ndarray) -> np.ndarray:
    """Where each code point is an ASCII letter, digit or underscore (a `\\b` boundary's word side,
    as far as ASCII goes)."""
    folded = codes | 0x20
    word: np.ndarray = (
        ((folded >= 0x61) & (folded <= 0x7A))
        | ((codes >= 0x30) & (codes <= 0x39))
        | (codes == 0x5F)
    )
    return word


def _spelled(lower: np.ndarray, at: np.ndarray, letters: str) -> np.ndarray:
    """Where the case-folded code points `lower` spell `letters` from each offset in `at` (False
    where the text ends first)."""
    spelled = at + len(letters) <= lower.size
    last = lower.size - 1
    for i, letter in enumerate(letters):
        spelled &= lower[np.minimum(at + i, last)] == ord(letter)
    return spelled


def _may_begin_words(lower: np.ndarray, codes: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Which of the offsets `at`, where a qualifier's first two letters stand (case folded), may
    begin a qualifier word as far as the letters after them tell.

    CAUTION: a necessary test, never a sufficient one; `_QUALIFIER.match` decides each offset
    kept. So it may keep too much, never too little: `lower` maps a character above U+00FF by its
    low byte (it may look like a letter), and a word boundary is read as far as ASCII goes.
    """
    size = lower.size
    first = lower[at]
    may = np.ones(at.size, bool)
    for letter, rest in _WORD_RESTS:
        rows = np.flatnonzero(first == ord(letter))
        may[rows] = _spelled(lower, at[rows] + 2, rest)
    rows = np.flatnonzero(first == ord("n"))
    n_at = at[rows]
    inside = n_at + 2 < size  # "no" ending the text is a word
    after = codes[np.minimum(n_at + 2, size - 1)]
    # A "t" after "no" (no other character folds to it) makes "no" no word; "not" is one if no
    # ASCII letter, digit or underscore follows it, and "notwithstanding" is spelled on.
    t = inside & ((after == ord("t")) | (after == ord("T")))
    not_at = n_at[t]
    follows = codes[np.minimum(not_at + 3, size - 1)]
    may[rows[t]] = (
        (not_at + 3 >= size) | ~_ascii_word(follows) | _spelled(lower, not_at + 3, _NOT_REST)
    )
    # Otherwise "no" is a word only before no ASCII letter, digit or underscore, and not before a
    # dot ("No." is the abbreviation).
    no = inside & ~t
    may[rows[no]] = ~_ascii_word(after[no]) & (after[no] != ord("."))
    return may


def qualifier_matches(index: SourceIndex) -> QualifierWords:
    """Every `_QUALIFIER` match in the version's normalized text, and the sentence ends near them;
    kept with its index.

    The words are the same as `_QUALIFIER.finditer(text)` finds (a test holds them equal), found
    faster: array passes pick the places where a word could begin (a letter pair that opens a
    qualifier, case folded, not preceded by an ASCII letter, digit or underscore, and followed
    by the rest of a qualifier's letters: `_may_begin_words`), and `_QUALIFIER.match` decides
    each. The passes read each code point's low byte (a character above U+00FF whose low byte
    looks like a letter only adds a candidate), and the non-ASCII characters that fold to a
    letter are mapped. Sentence ends are found by `_sentence_ends`.
    """
    held = index.derived.get("qualifier_words")
    if isinstance(held, QualifierWords):
        return held
    text = index.normalized.text
    # Without line-break hyphens the skeleton is the normalized text: its code points are held.
    codes = code_points(text) if index.folds_hyphens else index.skeleton_codes
    lower = codes.astype(np.uint8) | 0x20
    high = codes[codes > 0xFF] if codes.itemsize > 1 else codes[:0]
    for code, letter in _folded_letters().items():
        if code <= 0xFF or (code <= np.iinfo(codes.dtype).max and (high == code).any()):
            lower[codes == code] = letter
    # A letter pair that opens a qualifier, then the letters after it.
    pair = np.zeros(max(0, codes.size - 1), bool)
    for first, second in _QUALIFIER_PAIRS:
        pair |= (lower[:-1] == ord(first)) & (lower[1:] == ord(second))
    at = np.flatnonzero(pair)
    at = at[_may_begin_words(lower, codes, at)]
    word_before = _ascii_word(codes[np.maximum(at - 1, 0)])
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
    word_starts = np.array(starts, np.int64)
    marks = np.flatnonzero((codes == 0x2E) | (codes == 0x3F) | (codes == 0x21))
    near = np.searchsorted(word_starts, marks + QUALIFIER_REACH, "right") > np.searchsorted(
        word_starts, marks - QUALIFIER_REACH, "left"
    )
    sentence_marks, match_ends = _sentence_ends(text, codes, marks[near])
    found = QualifierWords(
        word_starts, np.array(ends, np.int64), tuple(words), sentence_marks, match_ends
    )
    index.derived["qualifier_words"] = found
    return found


def _sentence_ends(
    text: str, codes: np.ndarray, marks: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Which of the sentence marks at `marks` (ascending offsets into `text`, whose code points are
    `codes`) end a sentence (the rule is stated at `_ABBREVIATIONS`). The marks and where each
    one's match ends (after the space), in arrays.

    Array passes read the closing quotes and brackets after each mark, the space and the character
    that must open the next sentence, and the length of the run of word characters and dots
    before the mark; only the words before the marks that pass are read one by one
    (`_ends_sentence`). A test holds the result to the rule's regular expressions, mark by mark.
    """
    size = codes.size
    at = marks + 1
    # `["”’)\]]*`: step over closing quotes and brackets.
    moving = np.flatnonzero(at < size)
    while moving.size:
        moving = moving[np.isin(codes[at[moving]], _CLOSING)]
        at[moving] += 1
        moving = moving[at[moving] < size]
    # " (?=[A-Z0-9(“\"‘\[§])": a space, then a capital, a digit or an opening mark.
    ok = at + 1 < size
    ok[ok] = codes[at[ok]] == 0x20
    following = codes[at[ok] + 1]
    ok[ok] = (
        ((following >= 0x41) & (following <= 0x5A))
        | ((following >= 0x30) & (following <= 0x39))
        | np.isin(following, _OPENING)
    )
    marks, match_ends = marks[ok], at[ok] + 1
    # The run of word characters (`str.isalnum` or "_") and dots ending at each mark, at most
    # `_WORD_REACH` long: the code points before it, nearest first.
    before = marks[:, None] - np.arange(1, _WORD_REACH + 1)
    held = before >= 0
    near = codes[np.maximum(before, 0)]
    wordy = held & (_ascii_word(near) | (near == 0x2E))
    wider = np.unique(near[held & (near > 0x7F)])
    if wider.size:
        alnum = [code for code in wider.tolist() if chr(code).isalnum()]
        wordy |= held & np.isin(near, alnum)
    run = np.where(wordy.all(axis=1), _WORD_REACH, wordy.argmin(axis=1))
    ends = np.fromiter(
        map(
            _ends_sentence,
            map(text.__getitem__, map(slice, (marks - run).tolist(), marks.tolist())),
        ),
        bool,
        marks.size,
    )
    return marks[ends], match_ends[ends]


# The sentence rule's closing and opening marks (besides capitals and digits), as code points.
_CLOSING = np.array([ord(c) for c in '"”’)]'])
_OPENING = np.array([ord(c) for c in '(“"‘[§'])


def qualifiers_near(index: SourceIndex, start: int, end: int) -> tuple[QualifierFlag, ...]:
    """Negations and conditions within `QUALIFIER_REACH` normalized characters of normalized
    `[start, end)`, in the same sentence, outside the quote; ordered by offset.

    Words: not, no (but not "No." the abbreviation), unless, except, provided [, however,] that,
    notwithstanding, subject to; case-insensitive, whole words, each wholly before or wholly after
    the quote. A sentence ends at . ? or ! followed by a space and a capital, digit, bracket, quote
    mark or §, unless the word before is a single letter, holds a dot, or is a common abbreviation;
    a paragraph ends at a blank raw line.
    """
    return qualifier_flags(index, np.array([start], np.int64), np.array([end], np.int64))[0]


def qualifier_flags(
    index: SourceIndex, starts: np.ndarray, ends: np.ndarray
) -> list[tuple[QualifierFlag, ...]]:
    """`qualifiers_near` of each normalized span `[starts[i], ends[i])` (non-empty), in columns:
    the words within reach, the sentence limits and the raw spans are array passes over the
    batch; only the pairs of a quote and a word that survive them are read one by one (for a
    blank raw line between the two).

    The limits: before a quote, a word counts from the end of the last sentence end that lies,
    look-ahead included, in `text[reach_start:start + 1]`; after it, up to and including the
    first sentence-end mark in `text[end:reach_end]`, or else to `reach_end`, moved on to the end
    of a word the reach limit would cut ("no" is not "not").
    """
    flags: list[tuple[QualifierFlag, ...]] = [()] * starts.size
    found = qualifier_matches(index)
    if not found.starts.size or not starts.size:
        return flags
    text = index.normalized.text
    length = len(text)
    reach_start = np.maximum(starts - QUALIFIER_REACH, 0)
    reach_end = np.minimum(ends + QUALIFIER_REACH, length)
    # Every look-up below takes the quotes in the order of their starts (`search`).
    order = search_order(starts)
    first = search(found.starts, reach_start, "left", order)
    counts = search(found.starts, reach_end, "left", order) - first
    if not counts.any():
        return flags
    # One row per (quote, word starting within reach) pair.
    quote = np.repeat(np.arange(starts.size), counts)
    word = np.repeat(first - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
    word_start, word_end = found.starts[word], found.ends[word]
    before = word_end <= starts[quote]
    after = word_start >= ends[quote]
    # Sentence limits per quote.
    marks, match_ends = found.sentence_marks, found.sentence_match_ends
    lo = reach_start.copy()
    last = search(match_ends, starts, "right", order) - 1
    has = last >= 0
    has[has] = marks[last[has]] >= reach_start[has]
    lo[has] = match_ends[last[has]]
    hi = reach_end.copy()
    following = search(marks, ends, "left", order)
    stops = following < marks.size
    stops[stops] = marks[following[stops]] < reach_end[stops]
    hi[stops] = marks[following[stops]] + 1
    keep = (before & (word_start >= lo[quote])) | (after & (word_end <= hi[quote]))
    # A word cut by the reach limit counts if the limit, moved to the end of the word it cuts,
    # takes it in (rare: read one by one).
    for k in np.flatnonzero(after & ~keep & ~stops[quote] & (word_start < hi[quote])).tolist():
        limit = int(hi[quote[k]])
        while limit < length and text[limit - 1].isalnum() and text[limit].isalnum():
            limit += 1
        keep[k] = word_end[k] <= limit
    pairs = np.flatnonzero(keep)
    if not pairs.size:
        return flags
    quote, word, before = quote[pairs], word[pairs], before[pairs]
    raw_start, raw_end = _raw_spans(index, word_start[pairs], word_end[pairs])
    quote_start, quote_end = _raw_spans(index, starts[quote], ends[quote])
    gap_start = np.where(before, raw_end, quote_end)
    gap_end = np.where(before, quote_start, raw_start)
    raw = index.text
    broken = np.fromiter(
        map(
            bool,
            map(
                _PARAGRAPH_BREAK.search,
                map(raw.__getitem__, map(slice, gap_start.tolist(), gap_end.tolist())),
            ),
        ),
        bool,
        pairs.size,
    )
    whole = np.flatnonzero(~broken)
    if not whole.size:
        return flags
    made = list(
        map(
            _QUALIFIER_FLAG,
            zip(
                map(found.words.__getitem__, word[whole].tolist()),
                raw_start[whole].tolist(),
                raw_end[whole].tolist(),
                map(_SIDES.__getitem__, before[whole].tolist()),
                strict=True,
            ),
        )
    )
    owners = quote[whole]
    cuts = np.flatnonzero(np.diff(owners)) + 1
    bounds = [0, *cuts.tolist(), owners.size]
    each = map(tuple, map(made.__getitem__, map(slice, bounds[:-1], bounds[1:])))
    deque(map(flags.__setitem__, owners[bounds[:-1]].tolist(), each), maxlen=0)
    return flags


_QUALIFIER_FLAG = partial(tuple.__new__, QualifierFlag)
_SIDES = ("after", "before")


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
    # Columns are read by comprehensions: faster than `map(attrgetter(...))` on slotted records.
    if not all(map(isinstance, [c.version_id for c in citations], repeat(str))):
        _refuse_types(citations)
    return _verify_batch(index, citations)


def _verify_batch(index: SourceIndex, citations: Sequence[Citation]) -> list[Verification]:
    """`verify_batch` of citations whose version ids are known to be strings."""
    quotes = [c.quoted_text for c in citations]
    if not all(map(isinstance, quotes, repeat(str))):
        _refuse_types(citations)
    results = _verify_copied(index, citations, quotes)
    rest = list(compress(range(len(results)), map(operator.is_, results, repeat(None))))
    if rest:
        general = _verify_general(index, list(map(citations.__getitem__, rest)))
        deque(map(results.__setitem__, rest, general), maxlen=0)
    return cast(list[Verification], results)  # every position is filled now


def _refuse_types(citations: Sequence[Citation]) -> NoReturn:
    """Raise the CitationError naming the first citation whose version id or quote is no str."""
    citation = next(
        c
        for c in citations
        if not isinstance(c.quoted_text, str) or not isinstance(c.version_id, str)
    )
    raise CitationError(
        f"{citation.version_id!r}: version_id and quoted_text must be strings, got "
        f"{type(citation.version_id).__name__} and {type(citation.quoted_text).__name__}"
    )


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
    flat = np.array([span for each in counted for span in each], np.int64).reshape(-1, 2)
    raw_start, raw_end = _raw_spans(index, flat[:, 0], flat[:, 1])
    spans = zip(raw_start.tolist(), raw_end.tolist(), strict=True)
    verified: list[tuple[int, Verification, tuple[int, int]]] = []
    for (i, _, actual, image), occurrences in zip(located, counted, strict=True):
        raw = tuple(next(spans) for _ in occurrences)
        results[i] = verdict = _count(index, citations[i], actual, image, occurrences, raw)
        if verdict.verified:
            verified.append((i, verdict, image))
    # The qualifier scan, in columns over the verified citations.
    if verified:
        images = np.array([image for _, _, image in verified], np.int64)
        flagged = qualifier_flags(index, images[:, 0], images[:, 1])
        for (i, verdict, _), flags in zip(verified, flagged, strict=True):
            if flags:
                results[i] = verdict._replace(qualifiers=flags)
    return [r for r in results if r is not None]


def _verify_copied(
    index: SourceIndex, citations: Sequence[Citation], quotes: list[str] | None = None
) -> list[Verification | None]:
    """Verdicts for the citations whose quote is the raw text at their offsets, character for
    character, and whose offsets fall on the offset map's boundaries (None for every other
    citation: `_verify_general` decides those); `quotes` are their quoted texts, if the caller
    has read them. Columnar: the eligibility checks, the offsets map, the look-ups, the
    occurrence numbers, the raw spans, the qualifier scan and the records are array passes,
    C-level loops or (to read a field) comprehensions over the whole batch, with no Python
    function called per citation.

    Why a copied quote needs no normalizing: when raw `[s, e)` starts and ends on map boundaries,
    the white-space runs and folds inside it are the text's own, so it normalizes to exactly the
    normalized text's `[ns, ne)`, and that reading ("as written") is one the comparison allows. A
    test holds this path's verdicts equal to `_verify_general`'s on real and adversarial text.
    """
    raw = index.text
    length = len(raw)
    results: list[Verification | None] = [None] * len(citations)
    if quotes is None:
        quotes = [c.quoted_text for c in citations]
    starts, start_ok = _offset_column([c.char_start for c in citations], length)
    ends, end_ok = _offset_column([c.char_end for c in citations], length)
    named = [c.occurrence for c in citations]
    unnamed = _is_none(named)
    numbers, number_ok = _offset_column(named, _LARGEST)
    eligible = (
        start_ok
        & end_ok
        & (starts < ends)
        & (unnamed | (number_ok & (numbers > 0)))
        & _all_none([c.prefix for c in citations])
        & _all_none([c.suffix for c in citations])
        & (np.fromiter(map(len, quotes), np.int64, len(quotes)) == ends - starts)
    )
    picked = np.flatnonzero(eligible)
    copied = np.fromiter(
        map(raw.startswith, _at(quotes, picked.tolist()), starts[picked].tolist()),
        bool,
        picked.size,
    )
    picked = picked[copied]
    if not picked.size:
        return results
    norm_start, norm_end, exact = _exact_spans(index, starts[picked], ends[picked])
    picked, norm_start, norm_end = picked[exact], norm_start[exact], norm_end[exact]
    worded, rows, hit_starts, hit_ends = _copied_occurrences(index, norm_start, norm_end)
    if not worded.all():
        picked, norm_start, norm_end = picked[worded], norm_start[worded], norm_end[worded]
    if not picked.size:
        return results
    sizes = np.bincount(rows, minlength=picked.size)
    # Occurrences are ordered by quote, then start, then end: the cited one is the quote's own span.
    own = np.flatnonzero((hit_starts == norm_start[rows]) & (hit_ends == norm_end[rows]))
    if own.size != picked.size or (rows[own] != np.arange(picked.size)).any():
        raise AssertionError(  # pragma: no cover - guarded by the property tests
            f"{citations[int(picked[0])].version_id}: a copied quote's span is missing from its "
            "own occurrences"
        )
    offsets = np.cumsum(sizes) - sizes
    cited = own - offsets + 1
    # In a text with no line-break hyphen or ligature a hit is its quote, character for character.
    exact_hits = not (index.folds_hyphens or index.normalized.expands)
    spans = _occurrence_tuples(
        index, hit_starts, hit_ends, offsets, sizes, starts[picked], ends[picked], exact_hits
    )
    named_here = numbers[picked]
    kinds = np.where(
        unnamed[picked], np.where(sizes == 1, 0, 1), np.where(named_here == cited, 0, 2)
    )
    # The qualifier scan, in columns over the verified quotes.
    flags: list[tuple[QualifierFlag, ...]] = [()] * picked.size
    passed = np.flatnonzero(kinds == 0)
    found = qualifier_flags(index, norm_start[passed], norm_end[passed])
    deque(map(flags.__setitem__, passed.tolist(), found), maxlen=0)
    chosen = picked.tolist()
    records: list[Verification | None] = list(
        map(
            tuple.__new__,
            repeat(Verification),
            zip(  # not strict: the `repeat` column is endless, the others as long as `chosen`
                _at(citations, chosen),
                _OUTCOMES[kinds].tolist(),
                _REASONS[kinds].tolist(),
                _details(kinds, cited, sizes, named_here),
                _at(quotes, chosen),
                repeat(index.text_sha256),
                spans,
                cited.tolist(),
                flags,
            ),
        )
    )
    if picked.size == len(citations):  # every citation is a copied quote: `picked` is all, in order
        return records
    # Each citation's record, or None (the last item) where the general path decides.
    at = np.full(len(citations), picked.size)
    at[picked] = np.arange(picked.size)
    records.append(None)
    return list(itemgetter(*at.tolist())(records))


_T = TypeVar("_T")


def _at(items: Sequence[_T], positions: list[int]) -> Sequence[_T]:
    """`items` at `positions` (ascending, none repeated), in one C-level call."""
    if len(positions) == len(items):  # then they are all the positions, in order
        return items
    if len(positions) <= 1:  # an itemgetter of one position returns the item itself
        return tuple(map(items.__getitem__, positions))
    return cast(tuple[_T, ...], itemgetter(*positions)(items))


def _occurrence_tuples(
    index: SourceIndex,
    hit_starts: np.ndarray,
    hit_ends: np.ndarray,
    offsets: np.ndarray,
    sizes: np.ndarray,
    raw_starts: np.ndarray,
    raw_ends: np.ndarray,
    exact_hits: bool,
) -> list[tuple[tuple[int, int], ...]]:
    """Each copied quote's occurrences as a tuple of raw spans, from the normalized hits (quote
    k's are `[offsets[k], offsets[k] + sizes[k])`), built by C-level loops. A quote that occurs
    once occurs only at its own raw span `[raw_starts[k], raw_ends[k])` (an exact span maps back
    to itself): its 1-tuple comes straight from `zip`, and only the others' hits are mapped.
    `exact_hits`: each hit is its quote, character for character, so two quotes with the same
    first hit have the same hits and share one tuple."""
    spans: list[tuple[tuple[int, int], ...]] = [()] * sizes.size
    once = np.flatnonzero(sizes == 1)
    deque(
        map(
            spans.__setitem__,
            once.tolist(),
            zip(zip(raw_starts[once].tolist(), raw_ends[once].tolist(), strict=True)),
        ),
        maxlen=0,
    )
    more = np.flatnonzero(sizes > 1)
    if not more.size:
        return spans
    made = more
    if exact_hits:
        # Quotes whose first hits are the same span hold the same text, so the same hits: each
        # such set is mapped and made into a tuple once.
        first = offsets[more]
        distinct, one_of, set_of = np.unique(
            hit_starts[first] * (len(index.normalized.text) + 1) + hit_ends[first],
            return_index=True,
            return_inverse=True,
        )
        # (When every set is distinct, `more` stays in its order.)
        made = more[one_of] if distinct.size < more.size else more
    hits = np.repeat(offsets[made] - np.cumsum(sizes[made]) + sizes[made], sizes[made])
    hits += np.arange(hits.size)
    raw_start, raw_end = _raw_spans(index, hit_starts[hits], hit_ends[hits])
    every = list(zip(raw_start.tolist(), raw_end.tolist(), strict=True))
    ends = np.cumsum(sizes[made])
    cuts = map(slice, (ends - sizes[made]).tolist(), ends.tolist())
    tuples = list(map(tuple, map(every.__getitem__, cuts)))
    if made.size < more.size:
        tuples = list(itemgetter(*set_of.tolist())(tuples))  # two or more quotes share a set
    deque(map(spans.__setitem__, more.tolist(), tuples), maxlen=0)
    return spans


def _copied_occurrences(
    index: SourceIndex, norm_start: np.ndarray, norm_end: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For copied quotes standing at normalized `[norm_start, norm_end)`: which hold a character
    other than spaces and hyphens (a quote of none is refused: `_verify_general` decides those),
    and the counted occurrences of those quotes as arrays of row (numbered among the worded
    quotes), normalized start and end, ordered by row, then start."""
    folded = index.normalized.text
    if index.folds_hyphens or index.normalized.expands:
        sliced = list(map(folded.__getitem__, map(slice, norm_start.tolist(), norm_end.tolist())))
        worded = np.fromiter(map(bool, map(_CORE, sliced)), bool, len(sliced))
        counted = [
            [(h.norm_start, h.norm_end) for h in hits if h.counted]
            for hits in occurrence_hits_many(index, list(compress(sliced, worded.tolist())))
        ]
        sizes = np.fromiter(map(len, counted), np.int64, len(counted))
        flat = np.array([span for each in counted for span in each], np.int64).reshape(-1, 2)
        return worded, np.repeat(np.arange(sizes.size), sizes), flat[:, 0], flat[:, 1]
    # No line-break hyphen, no ligature: the skeleton is the normalized text, and an occurrence is
    # the quote, character for character. Only a quote whose first character is a space or a
    # hyphen can lack any other: those are cut out and read.
    worded = np.ones(norm_start.size, bool)
    doubtful = np.flatnonzero(np.isin(index.skeleton_codes[norm_start], _DELETABLE_CODES))
    cut = map(
        folded.__getitem__, map(slice, norm_start[doubtful].tolist(), norm_end[doubtful].tolist())
    )
    worded[doubtful] = np.fromiter(map(bool, map(_CORE, cut)), bool, doubtful.size)
    if not worded.all():
        norm_start, norm_end = norm_start[worded], norm_end[worded]
    rows, hit_starts = index.skeleton_repeats(norm_start, norm_end)
    return worded, rows, hit_starts, hit_starts + (norm_end - norm_start)[rows]


_DELETABLE_CODES = np.array(list(map(ord, DELETABLE)))


_CORE = methodcaller("strip", DELETABLE)
# The verdicts decided by the occurrence count, and each one's detail: {0} is the occurrence at the
# offsets, {1} the number of occurrences, {2} the occurrence named.
_VERDICTS: tuple[tuple[Outcome, str | None], ...] = (
    ("verified", None),
    ("refused", "ambiguous_occurrence"),
    ("refused", "wrong_occurrence"),
)
_DETAILS: dict[str | None, str] = {
    None: "occurrence {0} of {1}",
    "ambiguous_occurrence": "the quote occurs {1} times; the offsets are occurrence {0}, "
    "and no occurrence is named",
    "wrong_occurrence": "occurrence {2} is named; the offsets are occurrence {0} of {1}",
}
# Each verdict kind's outcome and reason, as arrays a column of kinds indexes.
_OUTCOMES = np.array([outcome for outcome, _ in _VERDICTS], object)
_REASONS = np.array([reason for _, reason in _VERDICTS], object)


def _detail(kind: int, cited: int, count: int, named: int) -> str:
    """The detail of a verdict of kind `kind` (a position in `_VERDICTS`)."""
    return _DETAILS[_REASONS[kind]].format(cited, count, named)


_ONLY = _detail(0, 1, 1, 1)  # a quote verified as the one occurrence in its text


def _details(
    kinds: np.ndarray, cited: np.ndarray, counts: np.ndarray, named: np.ndarray
) -> list[str]:
    """`_detail` of each verdict, as columns: most quotes occur once and are verified, and their
    detail is one shared string; only the others are formatted."""
    details = [_ONLY] * kinds.size
    other = np.flatnonzero((kinds != 0) | (counts != 1))
    if other.size:
        formatted = map(
            cache(_detail),
            kinds[other].tolist(),
            cited[other].tolist(),
            counts[other].tolist(),
            named[other].tolist(),
        )
        deque(map(details.__setitem__, other.tolist(), formatted), maxlen=0)
    return details


_LARGEST = 2**62


def _is_none(values: Sequence[object]) -> np.ndarray:
    """Where each of `values` is None, as a bool array (all or none found by one count)."""
    count = values.count(None)
    if count in (0, len(values)):
        return np.full(len(values), bool(count), bool)
    return np.fromiter(map(operator.is_, values, repeat(None)), bool, len(values))


def _all_none(values: Sequence[object]) -> np.ndarray | bool:
    """`_is_none(values)`, or True if every value is None (the common case, found by a count)."""
    if values.count(None) == len(values):
        return True
    return _is_none(values)


def _offset_column(values: Sequence[object], largest: int) -> tuple[np.ndarray, np.ndarray]:
    """`values` as an int64 array, and where each is an int (not a bool) in `[0, largest]`; the
    array holds 0 where not."""
    if values and set(map(type, values)) == {int}:
        try:
            column = np.array(values, np.int64)
        except OverflowError:  # an int beyond 64 bits: the general way below
            pass
        else:
            inside = (column >= 0) & (column <= largest)
            return np.where(inside, column, 0), inside
    kept = [value if type(value) is int and 0 <= value <= largest else -1 for value in values]
    column = np.array(kept, np.int64)
    inside = column >= 0
    return np.where(inside, column, 0), inside


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
    following = index.norm_ends_array
    lookup = index.raw_lookup()
    k = lookup.last_at_or_before(starts)
    inside = k >= 0
    k = np.maximum(k, 0)
    offset = starts - raw_starts[k]
    same = identity[k]
    ok = inside & np.where(same, offset < raw_lens[k], offset == 0)
    norm_start = norm_starts[k] + np.where(same, offset, 0)
    last = ends - 1
    k = np.maximum(lookup.last_at_or_before(last), 0)
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
    return raw_span_arrays(segments, starts, ends, index.norm_lookup())


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
    spans, ascending) and their raw spans; a verified one has no qualifier flags yet."""
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
        text = index.normalized.text
        before = normalized_text(citation.prefix or "").rstrip(" ")
        after = normalized_text(citation.suffix or "").lstrip(" ")
        around = [
            i + 1 for i, (s, e) in enumerate(counted) if _context_matches(text, s, e, before, after)
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
    return _decide(index, citation, actual, cited, spans, named)


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
    if named is None and len(spans) > 1:
        reason: str | None = "ambiguous_occurrence"
    elif named is not None and named != cited:
        reason = "wrong_occurrence"
    else:
        reason = None
    return Verification(
        citation=citation,
        outcome="verified" if reason is None else "refused",
        reason=reason,
        detail=_DETAILS[reason].format(cited, len(spans), named),
        actual_text=actual,
        text_sha256=index.text_sha256,
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
    versions = [c.version_id for c in citations]
    if not all(map(isinstance, versions, repeat(str))):
        bad = next(v for v in versions if not isinstance(v, str))
        raise CitationError(f"version_id {bad!r} must be a string")
    results: list[Verification | None] = [None] * len(citations)
    groups: dict[str, list[int]] = {}
    if len(set(versions)) == 1:
        groups[versions[0]] = list(range(len(citations)))
    else:
        for i, version_id in enumerate(versions):
            groups.setdefault(version_id, []).append(i)
    for version_id, positions in groups.items():
        held = _open_version(workspace, citations[positions[0]])
        if isinstance(held, Verification):
            for i in positions:
                results[i] = _refused(
                    citations[i], held.reason or "", held.detail, sha256=held.text_sha256
                )
            continue
        every = len(positions) == len(citations)  # one version: the positions are all, in order
        claimed = [
            c.text_sha256 for c in (citations if every else map(citations.__getitem__, positions))
        ]
        if claimed.count(None) != len(claimed):
            checked = []
            for i, sha in zip(positions, claimed, strict=True):
                if sha is None or sha == held.text_sha256:
                    checked.append(i)
                else:
                    results[i] = _refused(
                        citations[i],
                        "source_changed",
                        f"the citation was made against text sha256 {sha}; "
                        f"{version_id} holds {held.text_sha256}",
                        sha256=held.text_sha256,
                    )
            positions = checked
        if len(positions) == len(citations):  # no citation was refused above
            return tuple(_verify_batch(held, citations))
        batch = _verify_batch(held, list(map(citations.__getitem__, positions)))
        deque(map(results.__setitem__, positions, batch), maxlen=0)
    return tuple(results)  # type: ignore[arg-type]  # every position is filled above


def _open_version(workspace: Workspace, citation: Citation) -> SourceIndex | Verification:
    """The version's index, or the refusal every citation of it gets."""
    try:
        stored_bytes, recorded = workspace.text_bytes(citation.version_id)
    except VersionNotFound:
        return _refused(
            citation, "unknown_version", f"{citation.version_id}: no such version is held"
        )
    stored = text_sha256(stored_bytes)
    if stored != recorded:
        return _refused(
            citation,
            "source_changed",
            f"{citation.version_id}: stored text hashes to {stored}; the version was recorded "
            f"with text sha256 {recorded}",
            sha256=stored,
        )
    return source_index(stored_bytes, stored)
