"""One normalization, applied to both sides of every comparison and never to stored text (C5).

`normalize(text)` folds what a printer or an extractor varies without changing the words:

* soft hyphens (U+00AD) and zero-width no-break spaces / byte order marks (U+FEFF) are removed;
* the ligatures ﬀ ﬁ ﬂ ﬃ ﬄ (U+FB00–U+FB04) are expanded to their letters;
* full-width digits (U+FF10–U+FF19) become ASCII digits;
* the Unicode hyphens U+2010 HYPHEN and U+2011 NON-BREAKING HYPHEN become "-" (U+002D): later NERC
  standards print "CIP‐003‐9" with U+2010 where earlier ones print "CIP-003-8" (the counts over
  the extracted corpus are in the README);
* every run of white space (`str.isspace`: spaces, tabs, line breaks, form feeds, no-break spaces),
  together with any removed characters inside it, becomes one ASCII space.

It folds nothing else: not case, not superscripts or subscripts (a footnote marker is not a digit),
not dashes (U+2012 figure dash, U+2013 en dash, U+2014 em dash and U+2212 minus say something a
hyphen does not: a range, a break, a sign). A hyphen before a line break is kept, followed by the one space the line break folds to,
and its normalized position is recorded in `line_break_hyphens`, because such a hyphen is ambiguous
(a split word, a real compound, a suspended hyphen) and the comparison must decide per reading.

The guarantee: every normalized character maps back to the raw characters it came from. The map is
piecewise: identity runs are stored as one segment, so a megabyte of ordinary text costs a few
thousand segments, and a lookup is one binary search.

Two implementations compute the same result: a loop over regular-expression matches for short
texts (quotes, slices), and an array pass (numpy over the text's code points) for long ones, about
ten times faster on a megabyte. A property test holds them equal on adversarial text and on every
held version; `LONG_TEXT` is where the array pass takes over.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

SCHEME = "wb-normalize"
SCHEME_VERSION = 2

_LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl"}
_REMOVED = "\u00ad\ufeff"
_LINE_BREAKS = frozenset("\n\r\f\v\x1c\x1d\x1e\x85\u2028\u2029")
_HYPHENS = {"\u2010": "-", "\u2011": "-"}
_LINE_END_HYPHENS = frozenset("-\u2010\u2011")
# One match per place where normalized text differs from raw text. White space and removed
# characters are one class so that "a \u00ad b" folds to "a b", not "a  b".
# A lone " " is already normal and is not matched at all (most of a text's runs are lone spaces):
# a run of two or more, any other white space, or a removed character starts a match.
_FOLD = re.compile(
    r"[\s\u00ad\ufeff]{2,}|[^\S ]|[\u00ad\ufeff]|[\ufb00-\ufb04]|[\uff10-\uff19]|[\u2010\u2011]"
)


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
        return self.raw_start(start), self.raw_end(end - 1)


LONG_TEXT = 2048


def raw_spans(normalized: Normalized, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """`normalized.raw_span(start, end)` of each non-empty span, in one array pass."""
    if not spans:
        return []
    starts, ends = np.array(spans, dtype=np.int64).reshape(-1, 2).T
    if not (starts.min() >= 0 and (starts < ends).all() and ends.max() <= len(normalized.text)):
        raise IndexError(f"a span is empty or outside [0, {len(normalized.text)}]")
    norm_starts = np.array(normalized.norm_starts, dtype=np.int64)
    raw_starts = np.array(normalized.raw_starts, dtype=np.int64)
    raw_lens = np.array(normalized.raw_lens, dtype=np.int64)
    identity = np.array(normalized.identity, dtype=bool)
    k = np.searchsorted(norm_starts, starts, "right") - 1
    raw_start = np.where(identity[k], raw_starts[k] + (starts - norm_starts[k]), raw_starts[k])
    last = ends - 1
    k = np.searchsorted(norm_starts, last, "right") - 1
    raw_end = np.where(
        identity[k], raw_starts[k] + (last - norm_starts[k]) + 1, raw_starts[k] + raw_lens[k]
    )
    return list(zip(raw_start.tolist(), raw_end.tolist(), strict=True))


def normalize(text: str) -> Normalized:
    """Normalize `text` under scheme `wb-normalize` v2 and keep the map back to raw offsets."""
    if len(text) >= LONG_TEXT:
        return normalize_long(text)
    return normalize_short(text)


def normalize_short(text: str) -> Normalized:
    """`normalize`, one regular-expression match at a time (fast for short texts)."""
    pieces: list[str] = []
    norm_starts: list[int] = []
    raw_starts: list[int] = []
    raw_lens: list[int] = []
    identity: list[bool] = []
    hyphens: list[int] = []
    out_len = 0
    raw_at = 0

    def segment(raw_start: int, raw_len: int, out: str, is_identity: bool) -> None:
        nonlocal out_len
        if not out:
            return
        norm_starts.append(out_len)
        raw_starts.append(raw_start)
        raw_lens.append(raw_len)
        identity.append(is_identity)
        pieces.append(out)
        out_len += len(out)

    for match in _FOLD.finditer(text):
        start, end = match.span()
        run = match.group()
        if run == " ":
            continue  # already normal; stays inside the surrounding identity run
        segment(raw_at, start - raw_at, text[raw_at:start], True)
        raw_at = end
        first = run[0]
        if first in _LIGATURES:
            segment(start, 1, _LIGATURES[first], False)
        elif "\uff10" <= first <= "\uff19":
            segment(start, 1, chr(ord(first) - 0xFF10 + 0x30), False)
        elif first in _HYPHENS:
            segment(start, 1, _HYPHENS[first], False)
        elif any(ch.isspace() for ch in run):
            if (
                start > 0
                and text[start - 1] in _LINE_END_HYPHENS
                and not _LINE_BREAKS.isdisjoint(run)
            ):
                hyphens.append(out_len - 1)
            segment(start, end - start, " ", False)
        # else: only removed characters (soft hyphens, U+FEFF) — nothing is emitted for them.
    segment(raw_at, len(text) - raw_at, text[raw_at:], True)
    return Normalized(
        text="".join(pieces),
        raw_length=len(text),
        norm_starts=tuple(norm_starts),
        raw_starts=tuple(raw_starts),
        raw_lens=tuple(raw_lens),
        identity=tuple(identity),
        line_break_hyphens=tuple(hyphens),
        expands=any(
            len(piece) > 1 for piece, same in zip(pieces, identity, strict=True) if not same
        ),
    )


# The same folds as `normalize`, as one translate table and one white-space pass: removing the
# removed characters first lets the white space around them merge into one run, exactly as the
# combined run class in `_FOLD` does.
_TABLE = str.maketrans(
    {
        **_LIGATURES,
        **_HYPHENS,
        **{chr(0xFF10 + d): str(d) for d in range(10)},
        **dict.fromkeys(_REMOVED, None),
    }
)
_SPECIAL = re.compile(r"[\u00ad\ufeff\ufb00-\ufb04\uff10-\uff19\u2010\u2011]")
# A lone " " is already normal: only longer runs, or any other white space, are rewritten.
_SPACE_RUN = re.compile(r"\s{2,}|[^\S ]")


def normalized_text(text: str) -> str:
    """`normalize(text).text` without building the map: the diff's passage keys use this.

    CAUTION: must stay equal to `normalize(text).text` for every input; a property test holds it.
    `str.translate` with this table is slow, so it runs only on text that needs it.
    """
    if len(text) >= LONG_TEXT:
        return normalize_long(text).text
    if _SPECIAL.search(text):
        text = text.translate(_TABLE)
    return _SPACE_RUN.sub(" ", text)


def normalized_texts(texts: Sequence[str]) -> list[str]:
    """`normalized_text` of each text, in order, normalized together as one long text.

    The texts are joined with U+0000, which no fold touches and which ends every white-space run,
    so each part normalizes exactly as it would alone; a text that holds U+0000 itself is
    normalized on its own.
    """
    if sum(map(len, texts)) < LONG_TEXT or any("\x00" in text for text in texts):
        return [normalized_text(text) for text in texts]
    return normalize_long("\x00".join(texts)).text.split("\x00")


# ---------------------------------------------------------------------------------------------
# The array pass for long texts

_C_SPACE, _C_WHITE, _C_REMOVED, _C_LIGATURE, _C_FULL_WIDTH, _C_UNICODE_HYPHEN = 1, 2, 3, 4, 5, 6


def _class_table() -> np.ndarray:
    """Class of every code point below U+10000 (none above it is white space or folded)."""
    table = np.zeros(0x10000, np.uint8)
    table[[c for c in range(0x10000) if chr(c).isspace()]] = _C_WHITE
    table[0x20] = _C_SPACE
    table[[ord(c) for c in _REMOVED]] = _C_REMOVED
    table[[ord(c) for c in _LIGATURES]] = _C_LIGATURE
    table[0xFF10:0xFF1A] = _C_FULL_WIDTH
    table[[ord(c) for c in _HYPHENS]] = _C_UNICODE_HYPHEN
    # CAUTION: the ASCII shortcut in `normalize_long` assumes this set of ASCII white space.
    assert [c for c in range(0x80) if table[c] == _C_WHITE] == [*range(9, 14), *range(28, 32)]
    return table


_CLASS = _class_table()


def code_points(text: str) -> np.ndarray:
    """`text` as an array of its code points (little-endian uint32; lone surrogates kept)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")


def normalize_long(text: str) -> Normalized:
    """`normalize` as one pass over the code points (fast for long texts).

    An *event* is a place the loop in `normalize_short` would match: a maximal run of white space
    and removed characters other than a lone " " (a run of two or more, or one character that is
    not " "), or one ligature, full-width digit or Unicode hyphen. Between events the text is
    copied; an event emits " " (a run holding white space), nothing (removed characters only), or
    its fold.
    """
    n = len(text)
    codes = code_points(text)
    # Everything but ASCII white space and " " that the folds touch lies at or above U+0085.
    high_at = np.flatnonzero(codes >= 0x85)
    high_class = _CLASS[np.minimum(codes[high_at], 0xFFFF)]
    special = high_class != 0
    high_at, high_class = high_at[special], high_class[special]
    foldable_high = high_at[high_class <= _C_REMOVED]
    low = codes <= 0x20
    foldable = ((codes >= 9) & (codes <= 13)) | ((codes >= 28) & low)
    foldable[foldable_high] = True
    event = foldable & (codes != 0x20)
    pair = foldable[1:] & foldable[:-1]
    event[1:] |= pair
    event[:-1] |= pair
    edges = np.diff(event.view(np.int8), prepend=np.int8(0), append=np.int8(0))
    run_starts = np.flatnonzero(edges == 1)
    run_ends = np.flatnonzero(edges == -1)
    removed_at = high_at[high_class == _C_REMOVED]
    removed_in = np.searchsorted(removed_at, run_ends) - np.searchsorted(removed_at, run_starts)
    run_out = (removed_in < run_ends - run_starts).astype(np.int64)
    single_at = high_at[high_class >= _C_LIGATURE]
    single_class = high_class[high_class >= _C_LIGATURE]
    single_out = np.ones(single_at.size, np.int64)
    ligature = single_class == _C_LIGATURE
    single_out[ligature] = np.where(codes[single_at[ligature]] >= 0xFB03, 3, 2)
    ev_start = np.concatenate((run_starts, single_at))
    ev_end = np.concatenate((run_ends, single_at + 1))
    ev_out = np.concatenate((run_out, single_out))
    ev_class = np.concatenate((np.zeros(run_starts.size, np.uint8), single_class))
    if single_at.size:
        order = np.argsort(ev_start, kind="stable")
        ev_start, ev_end, ev_out, ev_class = (
            a[order] for a in (ev_start, ev_end, ev_out, ev_class)
        )
    # Segments alternate: copied text before event 0, event 0, copied text, ..., copied text.
    k = ev_start.size
    seg_raw = np.empty(2 * k + 1, np.int64)
    seg_len = np.empty(2 * k + 1, np.int64)
    seg_out = np.empty(2 * k + 1, np.int64)
    seg_raw[0::2] = np.concatenate(([0], ev_end))
    seg_len[0::2] = np.concatenate((ev_start, [n])) - seg_raw[0::2]
    seg_out[0::2] = seg_len[0::2]
    seg_raw[1::2] = ev_start
    seg_len[1::2] = ev_end - ev_start
    seg_out[1::2] = ev_out
    seg_norm = np.cumsum(seg_out) - seg_out
    identity = np.zeros(2 * k + 1, bool)
    identity[0::2] = True
    starts, ends = ev_start.tolist(), ev_end.tolist()
    emitted = [" " if out else "" for out in ev_out.tolist()]
    for i in np.flatnonzero(ev_class).tolist():
        char = text[starts[i]]
        emitted[i] = _LIGATURES.get(char) or _HYPHENS.get(char) or chr(ord(char) - 0xFF10 + 0x30)
    pieces: list[str] = [""] * (2 * k + 1)
    pieces[0::2] = [text[a:b] for a, b in zip([0, *ends], [*starts, n], strict=True)]
    pieces[1::2] = emitted
    hyphens: list[int] = []
    if k:
        before = codes[np.maximum(ev_start - 1, 0)]
        after_hyphen = (before == 0x2D) | (before == 0x2010) | (before == 0x2011)
        candidates = np.flatnonzero((ev_start > 0) & (ev_class == 0) & (ev_out == 1) & after_hyphen)
        event_norm = seg_norm[1::2].tolist()
        for i in candidates.tolist():
            if not _LINE_BREAKS.isdisjoint(text[starts[i] : ends[i]]):
                hyphens.append(event_norm[i] - 1)
    kept = seg_out > 0
    return Normalized(
        text="".join(pieces),
        raw_length=n,
        norm_starts=tuple(seg_norm[kept].tolist()),
        raw_starts=tuple(seg_raw[kept].tolist()),
        raw_lens=tuple(seg_len[kept].tolist()),
        identity=tuple(identity[kept].tolist()),
        line_break_hyphens=tuple(hyphens),
        expands=bool(ligature.any()),
    )
