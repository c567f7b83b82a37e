"""The occurrence search (C5, C6): every span of a version's text some reading of which equals a
quote, each once and ascending (`find_occurrences`), and the status it gives a quote (`find_text`),
over an index cached under the text's SHA-256. How the look-up works: docs/verification.md."""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from workbench.models import text_sha256
from workbench.text.normal_form import Normalized
from workbench.text.normalize import normalize, normalized_text

# CAUTION: must hold every character `normalize` can record in `line_break_hyphens`; a hyphen the
# skeleton keeps would make the joined reading unfindable. A test checks it on adversarial text.
HYPHENS = "-\u2010"
DELETABLE = " " + HYPHENS
GRAM = 16  # characters read from an anchor: long enough that few anchors share them
# The index cache keeps the most recently used texts up to this many characters in all (an index
# takes about 20 bytes a character: some 80 MB), and always the last one: a batch, a notebook or a
# run that cites across a few dozen versions builds each index once.
CACHE_CHARACTERS = 4_000_000

OccurrenceStatus = Literal["found", "missing", "ambiguous", "no_such_occurrence"]

_SKELETON_CUT = re.compile(r"[-\u2010] ?")
_SPACE = re.compile(" ")


def skeleton(text: str) -> str:
    """`text` with every hyphen, and every space right after a hyphen, deleted.

    The same as `_SKELETON_CUT.sub("", text)` (a test holds the two equal), in four C-speed
    replacements: a space goes exactly when a hyphen stands right before it.
    """
    return (
        text.replace("- ", "-").replace("\u2010 ", "\u2010").replace("-", "").replace("\u2010", "")
    )


def text_skeleton(text: str) -> str:
    """The skeleton the occurrence search looks quotes up in (`SourceIndex.skeleton`): `text`
    normalized, then `skeleton`, without building an index."""
    return skeleton(normalized_text(text))


def quote_skeleton(quote: str) -> str:
    """The pattern the occurrence search looks `quote` up by: its normalized core (without
    leading and trailing spaces and hyphens), then `skeleton`.

    Every occurrence of `quote` in a text starts on an occurrence of this pattern in the text's
    skeleton (`reading_spans` finds nothing else), so `quote_skeleton(q) in text_skeleton(t)` is
    a necessary condition for `find_occurrences(t, q)` to find anything: a filter that may rule a
    text out before its index is built, never a finding.
    """
    return skeleton(normalized_text(quote).strip(DELETABLE))


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
    ends = {0}  # where in `quote` a reading of `source[:at]` can end
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


def reads_alone(raw: str, quote: str) -> bool:
    """Whether raw text, normalized on its own, reads as the normalized `quote`."""
    folded = normalize(raw)
    return reads_as(
        folded.text, interior_points(folded.line_break_hyphens, 0, len(folded.text)), quote
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceIndex:
    """One version's text as the occurrence search reads it.

    `kept_skeleton[k]`/`kept_normalized[k]`: the k-th run of characters the skeleton keeps starts
    at that skeleton offset and that normalized offset (one run more per hyphen cut). Anchor a is
    the a-th word start of the skeleton, at `anchor_at[a]`; `first_anchor` maps `GRAM` characters
    to the first anchor they start from, and `next_anchor[a]` is the next anchor whose characters
    are anchor a's (-1: none). `derived` holds what a reader computes from the index once (the
    verifier's qualifier pass), cached with it.
    """

    text_sha256: str
    text: str = field(repr=False)
    normalized: Normalized = field(repr=False)
    skeleton: str = field(repr=False)
    kept_skeleton: tuple[int, ...] = field(repr=False)
    kept_normalized: tuple[int, ...] = field(repr=False)
    first_anchor: dict[str, int] = field(repr=False)
    next_anchor: array[int] = field(repr=False)
    anchor_at: array[int] = field(repr=False)
    derived: dict[str, object] = field(default_factory=dict, repr=False, compare=False)

    @property
    def points(self) -> tuple[int, ...]:
        """Normalized offsets of line-break hyphens (the space the break folded to follows each)."""
        return self.normalized.line_break_hyphens

    def normalized_of_skeleton_spans(
        self, starts: Iterable[int], length: int
    ) -> list[tuple[int, int]]:
        """Normalized `[first, last)` of each skeleton span `[start, start + length)` (`length >
        0`): the offsets of its first character and just past its last, with one search for each
        span that lies in one kept run."""
        kept, kept_normalized = self.kept_skeleton, self.kept_normalized
        spans = []
        for start in starts:
            at = start + length - 1
            k = bisect_right(kept, start) - 1
            j = k if k + 1 == len(kept) or at < kept[k + 1] else bisect_right(kept, at, k) - 1
            spans.append(
                (kept_normalized[k] + (start - kept[k]), kept_normalized[j] + (at - kept[j]) + 1)
            )
        return spans

    def skeleton_hits(self, pattern: str) -> list[int]:
        """Every start of `pattern` in the skeleton (overlapping ones too), ascending."""
        text = self.skeleton
        found = []
        space = pattern.find(" ", 0, max(len(pattern) - GRAM, 0))
        if space < 0:  # no word start with a whole gram after it: scan
            at = text.find(pattern) if pattern else -1
            while at >= 0:
                found.append(at)
                at = text.find(pattern, at + 1)
            return found
        word = space + 1  # every occurrence has an anchor here, holding these characters
        anchor = self.first_anchor.get(pattern[word : word + GRAM], -1)
        following, anchored = self.next_anchor, self.anchor_at
        while anchor >= 0:
            start = anchored[anchor] - word
            if text.startswith(pattern, start):
                found.append(start)
            anchor = following[anchor]
        return found


def build_index(text: str, sha256: str | None = None) -> SourceIndex:
    """Normalize and index `text` (uncached); `sha256` is trusted when given (the caller hashed)."""
    folded = normalize(text)
    pieces = []
    kept_skeleton, kept_normalized = [0], [0]
    at = cut = 0
    for match in _SKELETON_CUT.finditer(folded.text):
        pieces.append(folded.text[at : match.start()])
        cut += match.end() - match.start()
        at = match.end()
        kept_skeleton.append(at - cut)
        kept_normalized.append(at)
    pieces.append(folded.text[at:])
    skeleton_text = "".join(pieces)
    anchors = [m.end() for m in _SPACE.finditer(skeleton_text)]
    grams = [skeleton_text[at : at + GRAM] for at in anchors]
    first: dict[str, int] = {}
    following = array("q", [-1]) * len(grams)
    for anchor in range(len(grams) - 1, -1, -1):  # backwards: each gram's first anchor wins
        following[anchor] = first.get(grams[anchor], -1)
        first[grams[anchor]] = anchor
    return SourceIndex(
        text_sha256=sha256 if sha256 is not None else text_sha256(text),
        text=text,
        normalized=folded,
        skeleton=skeleton_text,
        kept_skeleton=tuple(kept_skeleton),
        kept_normalized=tuple(kept_normalized),
        first_anchor=first,
        next_anchor=following,
        anchor_at=array("q", anchors),
    )


class _IndexCache:
    """The most recently used indexes by their text's SHA-256, with the characters they hold
    counted as they come and go (never re-summed: a run that indexes thousands of texts pays
    nothing per text for the bound)."""

    def __init__(self) -> None:
        self.held: OrderedDict[str, SourceIndex] = OrderedDict()
        self.characters = 0

    def get(self, sha256: str) -> SourceIndex | None:
        index = self.held.get(sha256)
        if index is not None:
            self.held.move_to_end(sha256)
        return index

    def put(self, index: SourceIndex) -> None:
        self.held[index.text_sha256] = index
        self.characters += len(index.text)
        while self.characters > CACHE_CHARACTERS and len(self.held) > 1:
            _, dropped = self.held.popitem(last=False)
            self.characters -= len(dropped.text)

    def clear(self) -> None:
        self.held.clear()
        self.characters = 0


_CACHE = _IndexCache()


def source_index(text: str | bytes, sha256: str) -> SourceIndex:
    """The cached index of `text` (a str, or its UTF-8 bytes, decoded only to build an index not
    yet cached), whose SHA-256 the caller has just computed as `sha256`.

    CAUTION: the key is the hash of the text itself, never a version id: an altered text gets its
    own entry, so a version whose stored text changed is never answered from the old index. The
    cache holds the most recently used texts, `CACHE_CHARACTERS` characters in all (and always
    the last one).
    """
    held = _CACHE.get(sha256)
    if held is not None:
        return held
    index = build_index(text if isinstance(text, str) else text.decode("utf-8"), sha256)
    _CACHE.put(index)
    return index


def index_text(text: str) -> SourceIndex:
    """The cached index of a text, hashed here: what a caller searching one text for several
    quotes passes to `find_occurrences`."""
    return source_index(text, text_sha256(text))


def holds_words(quote: str) -> bool:
    """Whether `quote` holds anything but white space and hyphens once normalized (a quote that
    does not can occur nowhere, and every check refuses it as empty)."""
    return bool(normalized_text(quote).strip(DELETABLE))


def clear_cache() -> None:
    """Forget every cached index (benchmarks use it to time a cold build)."""
    _CACHE.clear()


# ---------------------------------------------------------------------------------------------
# Occurrences


@dataclass(frozen=True, slots=True, kw_only=True)
class Occurrence:
    """One occurrence of a quote in a version's text: raw `[char_start, char_end)`, and its
    1-based `number` in the order occurrences are counted (normalized start, then end)."""

    number: int
    char_start: int
    char_end: int


def reading_spans(index: SourceIndex, quote: str) -> list[tuple[int, int]]:
    """Every normalized span some reading of which equals the normalized `quote`, ordered by
    start, then end; a quote of nothing but spaces and hyphens has none. (Whether each counts as
    an occurrence is `counted_spans`'s question.)

    The quote's core (without leading and trailing spaces and hyphens) is found on the skeleton;
    its leading and trailing spaces and hyphens are matched inside the run of such characters
    beside the core, since a reading never drops a span's first or last character.
    """
    core = quote.strip(DELETABLE)
    if not core:
        return []
    pattern = skeleton(core)  # `quote_skeleton` of the quote before it was normalized
    text, points = index.normalized.text, index.points
    found = index.normalized_of_skeleton_spans(index.skeleton_hits(pattern), len(pattern))
    if pattern == quote:  # no hyphen inside, no space or hyphen at either end
        # Inside one kept run the normalized text is the skeleton, so the span is the quote. The
        # spans stay ascending: skeleton starts map to normalized starts in order.
        return [
            (first, last)
            for first, last in found
            if last - first == len(quote)
            or reads_as(text[first:last], interior_points(points, first, last), quote)
        ]
    spans = []
    for first, last in found:
        starts = _run_edges(text, first, -1, quote[0]) if quote[0] in DELETABLE else [first]
        ends = _run_edges(text, last, 1, quote[-1]) if quote[-1] in DELETABLE else [last]
        for start in starts:
            for end in ends:
                if reads_as(text[start:end], interior_points(points, start, end), quote):
                    spans.append((start, end))
    spans.sort()
    return spans


def counted_spans(index: SourceIndex, quote: str) -> list[tuple[int, int]]:
    """The normalized spans of the normalized `quote`'s occurrences, in counting order: the
    reading spans on raw-character boundaries, and those that split a ligature's expansion and
    still read as the quote when their raw text is normalized on its own."""
    spans = reading_spans(index, quote)
    folded = index.normalized
    if not folded.expands:  # no raw character became several: every span is on boundaries
        return spans
    return [
        (start, end)
        for start, end in spans
        if on_raw_boundaries(folded, start, end)
        or reads_alone(index.text[slice(*folded.raw_span(start, end))], quote)
    ]


def find_occurrences(text_or_index: str | SourceIndex, quote: str) -> tuple[Occurrence, ...]:
    """Every occurrence of `quote` in a text (its stored str, or its `SourceIndex`), by the
    verifier's own rule: both sides normalized once, exact equality under the three readings of
    a line-break hyphen, overlapping occurrences included, raw offsets. A quote of nothing but
    white space and hyphens once normalized has no occurrence."""
    index = text_or_index if isinstance(text_or_index, SourceIndex) else index_text(text_or_index)
    raw_span = index.normalized.raw_span
    return tuple(
        Occurrence(number=number, char_start=start, char_end=end)
        for number, (start, end) in enumerate(
            (raw_span(s, e) for s, e in counted_spans(index, normalized_text(quote))), 1
        )
    )


def occurrence_spans(source: str | SourceIndex, text: str) -> tuple[tuple[int, int], ...]:
    """Raw `(start, end)` spans of every occurrence of `text`, in the verifier's counting order
    (`find_occurrences`)."""
    return tuple((o.char_start, o.char_end) for o in find_occurrences(source, text))


def find_text(
    source: str | SourceIndex, text: str, occurrence: int | None
) -> tuple[OccurrenceStatus, tuple[tuple[int, int], ...]]:
    """`text`'s status in a source (its text, or its index from `index_text`) and the raw spans
    of all its occurrences, by the verifier's occurrence search (`find_occurrences`).

    Occurrence rule (C6): found once, or a named occurrence that exists, is `found`; more than
    one occurrence and none named is `ambiguous`; a named occurrence past the last is
    `no_such_occurrence`; none is `missing`.
    """
    spans = occurrence_spans(source, text)
    if not spans:
        return "missing", spans
    if occurrence is None:
        return ("found" if len(spans) == 1 else "ambiguous"), spans
    return ("found" if occurrence <= len(spans) else "no_such_occurrence"), spans


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
