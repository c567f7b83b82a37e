"""The normalizer's array pass: numpy over a text's code points, a block at a time, the same
result as the match loop (`normalize.normalize_short`); importing it loads numpy, so `normalize`
takes it only where it pays (`normalize._takes_array_pass`)."""

from __future__ import annotations

import codecs
import re

import numpy as np

from workbench.text.normal_form import HYPHENS as _HYPHENS
from workbench.text.normal_form import LIGATURES as _LIGATURES
from workbench.text.normal_form import LINE_BREAKS as _LINE_BREAKS
from workbench.text.normal_form import REMOVED as _REMOVED
from workbench.text.normal_form import Normalized

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
    # CAUTION: the array pass looks up only the code points outside [U+0020, U+0085) (and " "
    # itself): no other may be special.
    assert not table[0x21:0x85].any()
    return table


_CLASS = _class_table()


def code_points(text: str) -> np.ndarray:
    """`text` as an array of its code points (little-endian uint32; lone surrogates kept)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")


def narrow_code_points(text: str) -> np.ndarray:
    """`text`'s code points as uint8 for ASCII text, uint16 when all are below U+10000, else
    uint32 (lone surrogates kept): the array pass reads a half or a quarter of the bytes."""
    if text.isascii():
        return np.frombuffer(text.encode("ascii"), np.uint8)
    encoded = text.encode("utf-16-le", "surrogatepass")
    # CAUTION: UTF-16 code units are the code points only when no character needed a pair.
    if len(encoded) == 2 * len(text):
        return np.frombuffer(encoded, "<u2")
    return code_points(text)


def text_of_code_points(codes: np.ndarray, encoding: str) -> str:
    """The text whose code points are `codes` (an unsigned array; the inverse of `code_points`),
    decoded with `encoding` (see `narrowest_encoding`)."""
    if encoding == "latin-1":
        return codecs.latin_1_decode(np.ascontiguousarray(codes, np.uint8).data)[0]
    if encoding == "utf-16-le":
        return codecs.utf_16_le_decode(np.ascontiguousarray(codes, "<u2").data, "strict", True)[0]
    text: str = codecs.utf_32_le_decode(
        np.ascontiguousarray(codes, "<u4").data, "surrogatepass", True
    )[0]
    return text


def narrowest_encoding(top: int, surrogate: bool) -> str:
    """The encoding `text_of_code_points` decodes code points up to `top` with: Latin-1 below
    U+0100, UTF-16 below U+10000 when none is a surrogate (so no two can pair up), else UTF-32
    (lone surrogates passed through)."""
    if top < 0x100:
        return "latin-1"
    if top < 0x10000 and not surrogate:
        return "utf-16-le"
    return "utf-32-le"


def normalize_long(text: str) -> Normalized:
    """`normalize` as one pass over the code points (fast for long texts).

    An *event* is a place the loop in `normalize_short` would match: a maximal run of white space
    and removed characters other than a lone " " (a run of two or more, or one character that is
    not " "), or one ligature, full-width digit or Unicode hyphen. Between events the text is
    copied; an event emits " " (a run holding white space), nothing (removed characters only), or
    its fold. The normalized text is built as an array too: every event keeps one slot (its first
    character) and what it emits is written there; an event that emits nothing loses its slot,
    a ligature gains the slots for its other letters.
    """
    return _array_pass(text)


# The letters each ligature U+FB00 .. U+FB04 expands to after its first "f" (0: none).
_LIGATURE_TAILS = np.array(
    [[ord(c) for c in _LIGATURES[chr(0xFB00 + k)][1:].ljust(2, "\x00")] for k in range(5)],
    np.uint8,
)
# The array pass reads a long text in blocks of about `_BLOCK` characters, each cut between two
# characters neither of which is white space or removed, so that no run of them spans a cut. A
# block's temporary arrays (about a dozen bytes a character) are reused from block to block, where
# whole-text masks would be fresh memory, page-faulted in on every call; everything after the
# per-character passes works on the few special positions, once for the whole text.
_BLOCK = 1 << 18
_CUT = re.compile(r"[^\s\u00ad\ufeff]{2}")


def _array_pass(text: str, block: int = _BLOCK) -> Normalized:
    """The array pass. Per block: the *rare* characters (below " " or from U+0085 up: all the
    special ones but " ") and their classes, the *pairs* (i: characters i and i + 1 are both
    white space or removed), and the code points without every character that follows a pair
    (a run of two or more such characters keeps only its first). Then, for the whole text: the
    events, and what each writes in its one remaining slot."""
    n = len(text)
    parts = []
    out = np.zeros(0, np.uint8)
    filled = start = 0
    while True:
        end = n
        if start + block < n:
            cut = _CUT.search(text, start + block - 1)
            if cut is not None:
                end = cut.start() + 1
        *found, block_out = _scan_block(text, start, end)
        parts.append(found)
        if end == n and not filled:
            out = block_out
            break
        # The blocks' code points go straight into one array (sized for the whole text, widened
        # only for a wider block), not into a list to join.
        if block_out.itemsize > out.itemsize:
            wider = np.empty(n, np.promote_types(out.dtype, block_out.dtype))
            wider[:filled] = out[:filled]
            out = wider
        elif not filled:
            out = np.empty(n, block_out.dtype)
        out[filled : filled + block_out.size] = block_out
        filled += block_out.size
        if end == n:
            out = out[:filled]
            break
        start = end
    rare_at, rare, rare_class, pair_at = (
        column[0] if len(column) == 1 else np.concatenate(column)
        for column in zip(*parts, strict=True)
    )
    lone = (rare_class == _C_WHITE) | (rare_class == _C_REMOVED)
    lone_at = rare_at[lone]
    removed_at = rare_at[rare_class == _C_REMOVED]
    single = rare_class >= _C_LIGATURE
    # Runs of consecutive pairs [p, q] are the runs of two or more characters [p, q + 2); a lone
    # white-space or removed character in none of them is a run of its own.
    breaks = np.flatnonzero(pair_at[1:] != pair_at[:-1] + 1) + 1
    runs_from = pair_at[np.concatenate(([0], breaks))] if pair_at.size else pair_at
    runs_to = pair_at[np.concatenate((breaks, [pair_at.size])) - 1] + 2 if pair_at.size else pair_at
    near = np.searchsorted(pair_at, lone_at - 1)
    paired = near < pair_at.size
    paired[paired] = pair_at[near[paired]] <= lone_at[paired]
    alone_at = lone_at[~paired]
    ev_start = np.concatenate((runs_from, alone_at, rare_at[single]))
    ev_end = np.concatenate((runs_to, alone_at + 1, rare_at[single] + 1))
    ev_class = np.concatenate(
        (np.zeros(runs_from.size + alone_at.size, np.uint8), rare_class[single])
    )
    ev_code = np.concatenate((np.zeros(runs_from.size + alone_at.size, rare.dtype), rare[single]))
    # Three ascending lists to merge: the stable sort (a merge sort) finds the runs.
    order = np.argsort(ev_start, kind="stable")
    ev_start, ev_end, ev_class, ev_code = (a[order] for a in (ev_start, ev_end, ev_class, ev_code))
    # A run emits " " unless it holds only removed characters; a ligature emits its letters.
    removed_in = np.searchsorted(removed_at, ev_end) - np.searchsorted(removed_at, ev_start)
    ev_out = (removed_in < ev_end - ev_start).astype(np.int64)
    ligature = ev_class == _C_LIGATURE
    ev_out[ligature] = np.where(ev_code[ligature] >= 0xFB03, 3, 2)
    # Each event's slot in `out`: its first character, after the characters dropped before it.
    slot = ev_start - np.searchsorted(pair_at, ev_start - 1)
    before = out[np.maximum(slot - 1, 0)]
    follows_hyphen = (slot > 0) & ((before == 0x2D) | (before == 0x2010) | (before == 0x2011))
    out[slot[(ev_class == 0) & (ev_out == 1)]] = 0x20
    out[slot[ev_class == _C_UNICODE_HYPHEN]] = 0x2D
    chosen = ev_class == _C_FULL_WIDTH
    out[slot[chosen]] = ev_code[chosen].astype(np.int64) - (0xFF10 - 0x30)
    out[slot[ligature]] = ord("f")
    gone = slot[ev_out == 0]
    if gone.size:
        out = np.delete(out, gone)
    if ligature.any():
        tails = _LIGATURE_TAILS[ev_code[ligature].astype(np.int64) - 0xFB00]
        after = slot[ligature] - np.searchsorted(gone, slot[ligature]) + 1
        out = np.insert(out, np.repeat(after, ev_out[ligature] - 1), tails[tails != 0])
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
    hyphens: list[int] = []
    candidates = np.flatnonzero(follows_hyphen & (ev_class == 0) & (ev_out == 1))
    for start, end, norm in zip(
        ev_start[candidates].tolist(),
        ev_end[candidates].tolist(),
        seg_norm[1::2][candidates].tolist(),
        strict=True,
    ):
        if not _LINE_BREAKS.isdisjoint(text[start:end]):
            hyphens.append(norm - 1)
    kept = seg_out > 0
    norm_starts, raw_starts = seg_norm[kept], seg_raw[kept]
    raw_lens, identity = seg_len[kept], identity[kept]
    expands = bool(ligature.any())
    # Folds write only ASCII, so the raw rare characters bound the normalized text's.
    top = int(rare.max()) if rare.size else 0
    encoding = narrowest_encoding(top, bool(((rare >= 0xD800) & (rare < 0xE000)).any()))
    return Normalized(
        text=text_of_code_points(out, encoding),
        raw_length=n,
        norm_starts=tuple(norm_starts.tolist()),
        raw_starts=tuple(raw_starts.tolist()),
        raw_lens=tuple(raw_lens.tolist()),
        identity=tuple(identity.tolist()),
        line_break_hyphens=tuple(hyphens),
        expands=expands,
    )


def _scan_block(text: str, start: int, end: int) -> tuple[np.ndarray, ...]:
    """`_array_pass`'s per-character work on `text[start:end]`: rare positions (offsets in the
    text), their code points and classes, pair positions, and the code points that remain."""
    codes = narrow_code_points(text[start:end])
    # The code points outside [U+0020, U+0085), in one pass (the subtraction wraps around).
    rare_at = np.flatnonzero(codes - 0x20 >= 0x85 - 0x20)
    rare = codes[rare_at]
    # The class table holds the characters below U+0020 too (ASCII white space is U+0009..U+000D
    # and U+001C..U+001F); nothing above U+FFFF is special.
    rare_class = _CLASS[np.minimum(rare, 0xFFFF) if codes.itemsize == 4 else rare]
    foldable = codes == 0x20
    foldable[rare_at[(rare_class == _C_WHITE) | (rare_class == _C_REMOVED)]] = True
    pair = foldable[1:] & foldable[:-1]
    kept = np.empty(codes.size, bool)
    kept[:1] = True
    np.logical_not(pair, out=kept[1:])
    return rare_at + start, rare, rare_class, np.flatnonzero(pair) + start, codes[kept]
