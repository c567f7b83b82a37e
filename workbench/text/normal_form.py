"""The normalizer's record and the characters it folds (`normalize` and its array pass,
`normalize_array`, both read them): `Normalized`, a normalized text and its map back to raw
offsets."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field

LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl"}
REMOVED = "\u00ad\ufeff"
LINE_BREAKS = frozenset("\n\r\f\v\x1c\x1d\x1e\x85\u2028\u2029")
HYPHENS = {"\u2010": "-", "\u2011": "-"}


@dataclass(frozen=True, slots=True)
class Normalized:
    """Normalized text and the map from each normalized offset back to raw offsets.

    Segment k covers normalized `[norm_starts[k], norm_starts[k+1])` and raw
    `[raw_starts[k], raw_starts[k] + raw_lens[k])`. An identity segment maps character by character;
    any other segment maps every one of its normalized characters to its whole raw range.
    """

    text: str
    raw_length: int
    norm_starts: tuple[int, ...] = field(repr=False)
    raw_starts: tuple[int, ...] = field(repr=False)
    raw_lens: tuple[int, ...] = field(repr=False)
    identity: tuple[bool, ...] = field(repr=False)
    line_break_hyphens: tuple[int, ...] = ()
    # True if some raw character became more than one normalized character (a ligature): only
    # then can a normalized span start or end inside one raw character's output.
    expands: bool = False

    def _segment(self, i: int) -> int:
        if not 0 <= i < len(self.text):
            raise IndexError(f"normalized offset {i} outside [0, {len(self.text)})")
        return bisect_right(self.norm_starts, i) - 1

    def raw_start(self, i: int) -> int:
        """Raw offset where normalized character `i` begins."""
        k = self._segment(i)
        if self.identity[k]:
            return self.raw_starts[k] + (i - self.norm_starts[k])
        return self.raw_starts[k]

    def raw_end(self, i: int) -> int:
        """Raw offset just past the raw characters that normalized character `i` came from."""
        k = self._segment(i)
        if self.identity[k]:
            return self.raw_starts[k] + (i - self.norm_starts[k]) + 1
        return self.raw_starts[k] + self.raw_lens[k]

    def raw_span(self, start: int, end: int) -> tuple[int, int]:
        """Raw `[start, end)` covering normalized `[start, end)`.

        An empty normalized span maps to an empty raw span at the raw start of the character that
        follows it (or the raw end of the text when it sits at the end).
        """
        if not 0 <= start <= end <= len(self.text):
            raise IndexError(f"normalized span [{start}, {end}) outside [0, {len(self.text)}]")
        if start == end:
            at = self.raw_start(start) if start < len(self.text) else self.raw_length
            return at, at
        return self.raw_spans(((start, end),))[0]

    def raw_spans(self, spans: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
        """`raw_span` of each non-empty normalized span of `spans` (inside the text), in order:
        what a search that found many spans maps back in one pass."""
        starts, raw_starts, raw_lens, identity = (
            self.norm_starts,
            self.raw_starts,
            self.raw_lens,
            self.identity,
        )
        mapped = []
        for start, end in spans:
            # One search for the first character's segment; the last one's is the same segment,
            # or found by a search that starts there.
            last = end - 1
            k = bisect_right(starts, start) - 1
            if k + 1 == len(starts) or last < starts[k + 1]:
                j = k
            else:
                j = bisect_right(starts, last, k) - 1
            raw_start = raw_starts[k] + (start - starts[k]) if identity[k] else raw_starts[k]
            if identity[j]:
                mapped.append((raw_start, raw_starts[j] + (last - starts[j]) + 1))
            else:
                mapped.append((raw_start, raw_starts[j] + raw_lens[j]))
        return tuple(mapped)
