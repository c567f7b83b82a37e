"""The qualifier scan (C6, C17): a negation or condition beside a verified quote, or inside its
marked omission, flagged with its raw offsets. It only flags; it never changes a verdict."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Literal

from workbench.cite.index import SourceIndex

QUALIFIER_REACH = 160
_QUALIFIER = re.compile(
    # The look-ahead only lets the search skip faster: every word starts with one of its letters.
    r"\b(?=[nuesp])(?:not|no(?!\.)|unless|except|provided(?:, however)?,? that|notwithstanding"
    r"|subject to)\b",
    re.IGNORECASE,
)
# A sentence ends at a mark, any closing quotes or brackets after it, and a space before a capital,
# a digit, an opening bracket or quote mark, or §; unless the word before the mark (the run of word
# characters and dots, at most `_WORD_REACH`, that ends at it) is a single letter, holds a dot, or
# is one of `_ABBREVIATIONS`.
_SENTENCE_END = re.compile(r"[.?!][\"”’)\]]* (?=[A-Z0-9(“\"‘\[§])")
_WORD_BEFORE = re.compile(r"[\w.]*\Z")
_WORD_REACH = 12
_ABBREVIATIONS = frozenset(
    [
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
    ]
)
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")


@dataclass(frozen=True, slots=True, kw_only=True)
class QualifierFlag:
    """A negation or condition near a verified quote and left out of it; raw offsets."""

    word: str  # as normalized, e.g. "unless", "provided, however, that"
    char_start: int
    char_end: int
    side: Literal["before", "after", "omitted"]


@dataclass(frozen=True, slots=True, kw_only=True)
class _QualifierPass:
    """One regular-expression pass over a version's normalized text, cached with its index: every
    qualifier word (starts, ends, the words as they stand) and every sentence end (the mark's
    offset, and where its match ends: the character the look-ahead read), ascending."""

    starts: tuple[int, ...]
    ends: tuple[int, ...]
    words: tuple[str, ...]
    marks: tuple[int, ...]
    mark_ends: tuple[int, ...]


def _qualifier_pass(index: SourceIndex) -> _QualifierPass:
    held = index.derived.get("qualifiers")
    if isinstance(held, _QualifierPass):
        return held
    text = index.normalized.text
    words = list(_QUALIFIER.finditer(text))
    ends = [m for m in _SENTENCE_END.finditer(text) if _ends_sentence(text, m.start())]
    made = _QualifierPass(
        starts=tuple(m.start() for m in words),
        ends=tuple(m.end() for m in words),
        words=tuple(m.group() for m in words),
        marks=tuple(m.start() for m in ends),
        mark_ends=tuple(m.end() for m in ends),
    )
    index.derived["qualifiers"] = made
    return made


def _ends_sentence(text: str, mark: int) -> bool:
    """Whether the sentence mark at `mark` ends a sentence, by the word before it."""
    word = _WORD_BEFORE.search(text, max(0, mark - _WORD_REACH), mark)
    token = word.group().lower() if word is not None else ""
    return len(token) > 1 and "." not in token and token not in _ABBREVIATIONS


def qualifiers_near(index: SourceIndex, start: int, end: int) -> tuple[QualifierFlag, ...]:
    """Negations and conditions within `QUALIFIER_REACH` normalized characters of normalized
    `[start, end)`, in the same sentence and paragraph, outside the quote; ordered by offset.

    Words: not, no (but not "No." the abbreviation), unless, except, provided [, however,] that,
    notwithstanding, subject to; case-insensitive, whole words, each wholly before or wholly after
    the quote, starting within reach. Before the quote, a word counts from the end of the last
    sentence end whose match (look-ahead included) lies in `text[start - reach:start + 1]`; after
    it, up to and including the first sentence end's mark in `text[end:end + reach]`, or else to
    the reach limit, moved on to the end of a word the limit would cut ("no" is not "not"). A
    blank raw line between the word and the quote ends the paragraph: no flag.
    """
    found = _qualifier_pass(index)
    folded = index.normalized
    text = folded.text
    reach_start = max(start - QUALIFIER_REACH, 0)
    reach_end = min(end + QUALIFIER_REACH, len(text))
    first = bisect_left(found.starts, reach_start)
    last = bisect_left(found.starts, reach_end)
    if first == last:
        return ()
    lo = reach_start
    k = bisect_right(found.mark_ends, start) - 1
    if k >= 0 and found.marks[k] >= reach_start:
        lo = found.mark_ends[k]
    hi = reach_end
    k = bisect_left(found.marks, end)
    if k < len(found.marks) and found.marks[k] < reach_end:
        hi = found.marks[k] + 1
    while hi < len(text) and text[hi - 1].isalnum() and text[hi].isalnum():
        hi += 1
    quote_start, quote_end = folded.raw_span(start, end)
    flags = []
    for word, word_start, word_end in zip(
        found.words[first:last], found.starts[first:last], found.ends[first:last], strict=True
    ):
        before = word_end <= start
        if not (before and word_start >= lo) and not (word_start >= end and word_end <= hi):
            continue
        raw_start, raw_end = folded.raw_span(word_start, word_end)
        gap = index.text[raw_end:quote_start] if before else index.text[quote_end:raw_start]
        if not _PARAGRAPH_BREAK.search(gap):
            flags.append(
                QualifierFlag(
                    word=word,
                    char_start=raw_start,
                    char_end=raw_end,
                    side="before" if before else "after",
                )
            )
    return tuple(flags)


def qualifiers_inside(index: SourceIndex, start: int, end: int) -> tuple[QualifierFlag, ...]:
    """The qualifier words (the words of `qualifiers_near`) lying wholly inside normalized
    `[start, end)` of `index`'s text, as whole words of that text, ordered by offset; side
    `omitted`. The alteration rule calls it on the text a marked omission or a bracket left out."""
    found = _qualifier_pass(index)
    raw_span = index.normalized.raw_span
    first = bisect_left(found.starts, start)
    return tuple(
        QualifierFlag(word=word, char_start=s, char_end=e, side="omitted")
        for word, word_end, (s, e) in (
            (found.words[k], found.ends[k], raw_span(found.starts[k], found.ends[k]))
            for k in range(first, bisect_left(found.starts, end))
        )
        if word_end <= end
    )
