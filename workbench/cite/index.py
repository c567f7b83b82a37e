"""What the verifier keeps per version: normalized text, offset map and a sampled q-gram index.

A `SourceIndex` is built once per text and cached under the text's SHA-256, so a batch of citations
against one version normalizes and indexes the text once, and a changed text can never be served a
stale index (its hash is a different key). The guarantee: `skeleton_hits(pattern)` returns every
start of `pattern` in the skeleton text, each exactly once, in ascending order — nothing is sampled
away, the sampling only decides where the look-up starts.

The skeleton is the normalized text with every hyphen, and every space right after a hyphen,
deleted. It is the same for every reading of a line-break hyphen ("regu- lation", "regu-lation" and
"regulation" all become "regulation"), so one exact search over it finds every place where some
reading of the source could equal a quote; the verifier then checks each place exactly.

The index samples the skeleton every `STRIDE` characters and keys each sample by a 64-bit hash of
the `GRAM` characters starting there (GRAM == STRIDE: the samples are the skeleton's whole chunks,
hashed in one array pass); the hashes are kept sorted. A pattern of at least `GRAM + STRIDE - 1`
characters covers exactly one sampled position in its first `STRIDE` characters, wherever it
starts, so looking up the hashes of its `STRIDE` leading grams and confirming each candidate with
`str.startswith` finds every occurrence once (a hash collision costs one refused confirmation,
never a hit). Shorter patterns are found by a plain `str.find` scan of the skeleton.
`skeleton_hits_many` looks up a whole batch of patterns in one array pass.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from workbench.normalize import Normalized, code_points, normalize
from workbench.store import text_sha256

# CAUTION: must hold every character `normalize` can record in `line_break_hyphens`; a hyphen the
# skeleton keeps would make the joined reading unfindable. A test checks it on adversarial text.
HYPHENS = "-\u2010"
DELETABLE = " " + HYPHENS
# CAUTION: GRAM == STRIDE (the samples are the skeleton's whole chunks, hashed as one array) and
# GRAM is even (a gram is hashed as GRAM // 2 64-bit words).
GRAM = 16
STRIDE = 16
CACHE_SIZE = 8

_SKELETON_CUT = re.compile(r"[-\u2010] ?")
# Odd 64-bit multipliers, one per 64-bit word of a gram (GRAM code points of 4 bytes each).
_MULTIPLIERS = np.array(
    [
        0x9E3779B97F4A7C15,
        0xC2B2AE3D27D4EB4F,
        0x165667B19E3779F9,
        0xD6E8FEB86659FD93,
        0xFF51AFD7ED558CCD,
        0xC4CEB9FE1A85EC53,
        0x94D049BB133111EB,
        0xBF58476D1CE4E5B9,
    ],
    dtype=np.uint64,
)
_EMPTY = np.zeros(0, np.int64)


def _gram_hashes(grams: np.ndarray) -> np.ndarray:
    """Hash of each row of `grams`, a C-contiguous (rows, GRAM) array of uint32 code points."""
    words = grams.view(np.uint64).reshape(-1, GRAM // 2)
    with np.errstate(over="ignore"):
        hashes: np.ndarray = (words * _MULTIPLIERS).sum(axis=1, dtype=np.uint64)
    return hashes


def _leading_gram_hashes(patterns: Sequence[str]) -> np.ndarray:
    """(len(patterns), STRIDE) hashes of each pattern's grams starting at 0 .. STRIDE - 1; every
    pattern has at least GRAM + STRIDE - 1 characters."""
    width = GRAM + STRIDE - 1
    codes = code_points("".join(p[:width] for p in patterns)).reshape(len(patterns), width)
    windows = np.lib.stride_tricks.sliding_window_view(codes, GRAM, axis=1)
    return _gram_hashes(np.ascontiguousarray(windows)).reshape(len(patterns), STRIDE)


def skeleton(text: str) -> str:
    """`text` with every hyphen, and every space right after a hyphen, deleted.

    The same as `_SKELETON_CUT.sub("", text)`, in four C-speed replacements: a space goes exactly
    when a hyphen stands right before it (a test holds the two equal).
    """
    return (
        text.replace("- ", "-").replace("\u2010 ", "\u2010").replace("-", "").replace("\u2010", "")
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceIndex:
    """One version's text as the verifier reads it.

    `kept_skeleton[k]`/`kept_normalized[k]`: the k-th run of characters the skeleton keeps starts at
    that skeleton offset and that normalized offset (the map is piecewise, one run per hyphen).
    `gram_hashes` are the sampled grams' hashes, ascending, and `gram_starts` their skeleton
    offsets in the same order (in no particular order among equal hashes: hits are sorted);
    `chunk_hashes` are the same hashes in skeleton order.
    """

    text_sha256: str
    text: str = field(repr=False)
    normalized: Normalized = field(repr=False)
    skeleton: str = field(repr=False)
    kept_skeleton: tuple[int, ...] = field(repr=False)
    kept_normalized: tuple[int, ...] = field(repr=False)
    gram_hashes: np.ndarray = field(repr=False)
    gram_starts: np.ndarray = field(repr=False)
    chunk_hashes: np.ndarray = field(repr=False)

    @property
    def points(self) -> tuple[int, ...]:
        """Normalized offsets of line-break hyphens (the space the break folded to follows each)."""
        return self.normalized.line_break_hyphens

    def normalized_of_skeleton(self, i: int) -> int:
        """Normalized offset of skeleton character `i`."""
        k = bisect_right(self.kept_skeleton, i) - 1
        return self.kept_normalized[k] + (i - self.kept_skeleton[k])

    def skeleton_hits(self, pattern: str) -> list[int]:
        """Every start offset of `pattern` in the skeleton (overlapping ones too), ascending."""
        return self.skeleton_hits_many((pattern,))[0]

    def skeleton_hits_many(self, patterns: Sequence[str]) -> list[list[int]]:
        """`skeleton_hits` of each pattern, in order; long patterns share one array look-up."""
        text = self.skeleton
        found: list[list[int]] = [[] for _ in patterns]
        long_ones = []
        for i, pattern in enumerate(patterns):
            if len(pattern) >= GRAM + STRIDE - 1:
                long_ones.append(i)
            elif pattern:
                hits = found[i]
                at = text.find(pattern)
                while at >= 0:
                    hits.append(at)
                    at = text.find(pattern, at + 1)
        if not long_ones or not self.gram_hashes.size:
            return found
        chosen = [patterns[i] for i in long_ones]
        hashes = _leading_gram_hashes(chosen).ravel()
        # Sorted keys make numpy's binary searches start where the last one ended.
        order = np.argsort(hashes)
        keys = hashes[order]
        lo = np.searchsorted(self.gram_hashes, keys, "left")
        hi = np.searchsorted(self.gram_hashes, keys, "right")
        found_at = np.flatnonzero(hi > lo)
        # One row per (pattern, sampled gram) candidate: the pattern and where it would start.
        counts = (hi - lo)[found_at]
        first = np.repeat(lo[found_at] - np.cumsum(counts) + counts, counts)
        sample = first + np.arange(counts.sum())
        key_at = np.repeat(order[found_at], counts)
        rows, shifts = np.divmod(key_at, STRIDE)
        sampled_at = self.gram_starts[sample]
        candidates = sampled_at - shifts
        # A cheap sieve before the exact test: where the pattern runs on over the next sampled
        # chunk, that chunk's hash must equal the hash of the pattern's gram there.
        further = [i for i, p in enumerate(chosen) if len(p) >= GRAM + STRIDE + GRAM - 1]
        if further:
            next_hash = np.zeros((len(chosen), STRIDE), np.uint64)
            next_hash[further] = _leading_gram_hashes([chosen[i][GRAM:] for i in further])
            has_next = np.zeros(len(chosen), bool)
            has_next[further] = True
            chunk = sampled_at // STRIDE + 1
            inside = chunk < self.chunk_hashes.size
            expected = next_hash[rows, shifts]
            actual = self.chunk_hashes[np.minimum(chunk, self.chunk_hashes.size - 1)]
            keep = ~has_next[rows] | (inside & (actual == expected))
            rows, candidates = rows[keep], candidates[keep]
        text = self.skeleton
        for row, start in zip(rows.tolist(), candidates.tolist(), strict=True):
            i = long_ones[row]
            if start >= 0 and text.startswith(patterns[i], start):
                found[i].append(start)
        for i in long_ones:
            found[i].sort()
        return found


def build_index(text: str, sha256: str | None = None) -> SourceIndex:
    """Normalize and index `text` (uncached); `sha256` is trusted when given (the caller hashed)."""
    normalized = normalize(text)
    folded = normalized.text
    cuts: list[int] = []
    for hyphen in HYPHENS:
        at = folded.find(hyphen)
        while at >= 0:
            cuts.append(at)
            at = folded.find(hyphen, at + 1)
    cuts.sort()
    # One cut per `_SKELETON_CUT` match: a hyphen and the space right after it, if any.
    kept_skeleton = [0]
    kept_normalized = [0]
    pieces = []
    removed = 0
    after = 0
    for at in cuts:
        end = at + 2 if folded.startswith(" ", at + 1) else at + 1
        pieces.append(folded[after:at])
        removed += end - at
        kept_skeleton.append(end - removed)
        kept_normalized.append(end)
        after = end
    pieces.append(folded[after:])
    skeleton_text = "".join(pieces)
    samples = len(skeleton_text) // STRIDE
    if samples:
        chunks = code_points(skeleton_text)[: samples * STRIDE].reshape(samples, GRAM)
        hashes = _gram_hashes(chunks)
        order = np.argsort(hashes)
        gram_hashes, gram_starts = hashes[order], order * STRIDE
    else:
        hashes = gram_hashes = np.zeros(0, np.uint64)
        gram_starts = _EMPTY
    return SourceIndex(
        text_sha256=sha256 if sha256 is not None else text_sha256(text),
        text=text,
        normalized=normalized,
        skeleton=skeleton_text,
        kept_skeleton=tuple(kept_skeleton),
        kept_normalized=tuple(kept_normalized),
        gram_hashes=gram_hashes,
        gram_starts=gram_starts,
        chunk_hashes=hashes,
    )


_CACHE: OrderedDict[str, SourceIndex] = OrderedDict()


def source_index(text: str, sha256: str) -> SourceIndex:
    """The cached index of `text`, whose SHA-256 the caller has just computed as `sha256`.

    CAUTION: the key is the hash of the text itself, never a version id: an altered text gets its
    own entry, so a version whose stored text changed is never answered from the old index. The
    cache holds the `CACHE_SIZE` most recently used texts.
    """
    held = _CACHE.get(sha256)
    if held is not None:
        _CACHE.move_to_end(sha256)
        return held
    index = build_index(text, sha256)
    _CACHE[sha256] = index
    while len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)
    return index


def clear_cache() -> None:
    """Forget every cached index (benchmarks use it to time a cold build)."""
    _CACHE.clear()
