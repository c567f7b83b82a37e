"""What the verifier keeps per version: normalized text, offset map and a sampled q-gram index.

A `SourceIndex` is built once per text and cached under the text's SHA-256, so a batch of citations
against one version normalizes and indexes the text once, and a changed text can never be served a
stale index (its hash is a different key). The guarantee: `skeleton_hits(pattern)` returns every
start of `pattern` in the skeleton text, each exactly once, in ascending order — nothing is sampled
away, the sampling only decides where the look-up starts.

The skeleton is the normalized text with every hyphen, and every space right after a hyphen,
deleted. It is the same for every reading of a line-break hyphen ("regu- lation", "regu-lation" and
"regulation" all become "regulation"), so one exact search over it finds every place where some
reading of the source could equal a quote; the verifier then checks each place exactly. A text with
no line-break hyphen has one reading, as written: its index is built over the normalized text
itself (`folds_hyphens` is False, `skeleton` is `normalized.text`), and quotes are looked up as
they are.

The index samples the skeleton every `STRIDE` characters and keys each sample by a 64-bit hash of
the `GRAM` characters starting there (GRAM == STRIDE: the samples are the skeleton's whole chunks,
hashed in one array pass, at the skeleton's narrowest code width); the hashes are kept sorted, each
with its chunk number in its low bits (one sort of plain integers), and a bucket table maps a hash's
top bits to its run of keys, so a look-up is one gather, not a binary search. A pattern of at least
`GRAM + STRIDE - 1` characters covers exactly one sampled position in its first `STRIDE`
characters, wherever it starts, so looking up the hashes of its `STRIDE` leading grams and
confirming each candidate by exact string equality finds every occurrence once (a hash collision
costs one refused confirmation, never a hit). Shorter patterns are found by a plain `str.find` scan
of the skeleton. `skeleton_hits_flat` looks up a whole batch of patterns in one array pass.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import itemgetter

import numpy as np
from numpy.lib.stride_tricks import as_strided, sliding_window_view

from workbench.normalize import (
    Normalized,
    StartLookup,
    code_points,
    normalize_arrays,
    text_of_code_points,
)
from workbench.store import text_sha256

# CAUTION: must hold every character `normalize` can record in `line_break_hyphens`; a hyphen the
# skeleton keeps would make the joined reading unfindable. A test checks it on adversarial text.
HYPHENS = "-\u2010"
DELETABLE = " " + HYPHENS
# CAUTION: GRAM == STRIDE (the samples are the skeleton's whole chunks, hashed as one array) and
# GRAM is a multiple of 8 (a gram's code points fill whole 64-bit words at every width).
GRAM = 16
STRIDE = 16
CACHE_SIZE = 8

_SKELETON_CUT = re.compile(r"[-\u2010] ?")
# Odd 64-bit multipliers, one per 64-bit word of a gram (GRAM code points of 1, 2 or 4 bytes).
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


def _gram_hashes(grams: np.ndarray) -> np.ndarray:
    """Hash of each gram in `grams`, a C-contiguous array of code points (uint8, uint16 or uint32)
    whose last axis is GRAM long: the gram's bytes as 64-bit words, times one odd multiplier
    each, summed (wrapping around)."""
    words = grams.reshape(-1, GRAM).view(np.uint64)
    hashes: np.ndarray = words @ _MULTIPLIERS[: words.shape[1]]
    return hashes


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

    `folds_hyphens`: True if `skeleton` is the normalized text with its hyphens folded away (the
    text has a line-break hyphen), False if it is `normalized.text` itself (no line-break hyphen:
    the kept maps are then `(0,)` and `(0,)`).
    `kept_skeleton[k]`/`kept_normalized[k]`: the k-th run of characters the skeleton keeps starts at
    that skeleton offset and that normalized offset (the map is piecewise, one run per hyphen).
    `chunk_hashes` are the sampled grams' 64-bit hashes in skeleton order (chunk k starts at
    skeleton offset k * STRIDE), and `gram_keys` the look-up table, ascending: each chunk's hash
    with its low `chunk_bits` bits replaced by its chunk number. `gram_buckets` has one entry per
    value b of a key's top `bucket_bits` bits, and one more: those keys are
    `gram_keys[gram_buckets[b]:gram_buckets[b + 1]]`. `gram_presence[t]` is True where some
    chunk's hash has t as its top `presence_bits` bits (a look-up's first test, one byte read per
    gram). A gram is hashed over its code points at `code_width` (uint8 for an ASCII skeleton,
    uint16 below U+10000, else uint32), and a pattern is hashed at the same width;
    `skeleton_codes` are the skeleton's code points at that width.
    `norm_starts_array`, `raw_starts_array`, `raw_lens_array` (int64) and `identity_array` (bool)
    equal the normalized text's segment map tuples, for array look-ups; `norm_ends_array[k]` is
    where segment k ends in the normalized text (the next one's start, or the text's length).
    """

    text_sha256: str
    text: str = field(repr=False)
    normalized: Normalized = field(repr=False)
    folds_hyphens: bool
    skeleton: str = field(repr=False)
    kept_skeleton: tuple[int, ...] = field(repr=False)
    kept_normalized: tuple[int, ...] = field(repr=False)
    code_width: np.dtype = field(repr=False)
    skeleton_codes: np.ndarray = field(repr=False)
    gram_keys: np.ndarray = field(repr=False)
    chunk_bits: int = field(repr=False)
    gram_buckets: np.ndarray = field(repr=False)
    bucket_bits: int = field(repr=False)
    gram_presence: np.ndarray = field(repr=False)
    presence_bits: int = field(repr=False)
    chunk_hashes: np.ndarray = field(repr=False)
    norm_starts_array: np.ndarray = field(repr=False)
    norm_ends_array: np.ndarray = field(repr=False)
    raw_starts_array: np.ndarray = field(repr=False)
    raw_lens_array: np.ndarray = field(repr=False)
    identity_array: np.ndarray = field(repr=False)
    # What a reader of the index derives from it once and keeps with it (the verifier's qualifier
    # words): it lives and is evicted with the index, under the same text hash.
    derived: dict[str, object] = field(default_factory=dict, repr=False, compare=False)

    @property
    def points(self) -> tuple[int, ...]:
        """Normalized offsets of line-break hyphens (the space the break folded to follows each)."""
        return self.normalized.line_break_hyphens

    def norm_lookup(self) -> StartLookup:
        """The `StartLookup` of the segments' normalized starts (built on first use, kept in
        `derived`)."""
        return self._lookup("norm_lookup", self.norm_starts_array, len(self.normalized.text))

    def raw_lookup(self) -> StartLookup:
        """The `StartLookup` of the segments' raw starts (built on first use, kept in
        `derived`)."""
        return self._lookup("raw_lookup", self.raw_starts_array, len(self.text))

    def _lookup(self, name: str, starts: np.ndarray, length: int) -> StartLookup:
        held = self.derived.get(name)
        if isinstance(held, StartLookup):
            return held
        made = self.derived[name] = StartLookup.of(starts, length)
        return made

    def normalized_of_skeleton(self, i: int) -> int:
        """Normalized offset of skeleton character `i`."""
        k = bisect_right(self.kept_skeleton, i) - 1
        return self.kept_normalized[k] + (i - self.kept_skeleton[k])

    def skeleton_hits(self, pattern: str) -> list[int]:
        """Every start offset of `pattern` in the skeleton (overlapping ones too), ascending."""
        return self.skeleton_hits_many((pattern,))[0]

    def skeleton_hits_many(self, patterns: Sequence[str]) -> list[list[int]]:
        """`skeleton_hits` of each pattern, in order; long patterns share one array look-up."""
        rows, starts = self.skeleton_hits_flat(patterns)
        found: list[list[int]] = [[] for _ in patterns]
        for row, start in zip(rows.tolist(), starts.tolist(), strict=True):
            found[row].append(start)
        return found

    def skeleton_hits_flat(self, patterns: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Every occurrence of every pattern as two arrays, pattern numbers and skeleton starts,
        ordered by pattern, then start."""
        lengths = np.fromiter(map(len, patterns), np.int64, len(patterns))
        long_ones = np.flatnonzero(lengths >= GRAM + STRIDE - 1)
        width = GRAM + STRIDE + GRAM - 1
        chosen = list(map(patterns.__getitem__, long_ones.tolist()))
        grams = _leading_hashes(_leading_codes(chosen, width, self.code_width))
        picked, candidates = self._candidates(
            grams[:, :STRIDE],
            lengths[long_ones],
            lambda rows, shifts: grams[rows, shifts + GRAM],
        )
        numbers = long_ones[picked]
        # The exact test, as a C-level loop: the pattern stands in the skeleton at each candidate.
        sure = np.fromiter(
            map(
                self.skeleton.startswith,
                map(patterns.__getitem__, numbers.tolist()),
                candidates.tolist(),
            ),
            bool,
            candidates.size,
        )
        short = np.flatnonzero((lengths > 0) & (lengths < GRAM + STRIDE - 1)).tolist()
        return self._ordered(
            zip(short, map(patterns.__getitem__, short), strict=True),
            numbers[sure],
            candidates[sure],
        )

    def skeleton_repeats(
        self, starts: np.ndarray, ends: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """`skeleton_hits_flat` of the skeleton's own spans `[starts[i], ends[i])` (non-empty), each
        span's own start among its hits. The long spans' leading grams are hashed from the
        skeleton's code points where they stand (no string is cut for them), a candidate at a
        span's own start needs no exact test, and spans holding the same text are looked up once."""
        lengths = ends - starts
        long_ones = np.flatnonzero(lengths >= GRAM + STRIDE - 1)
        skeleton_codes = self.skeleton_codes
        # A long span's first GRAM + STRIDE - 1 code points all lie inside it: each is a row of
        # the skeleton's sliding windows (a view), copied out whole by one gather of rows.
        if long_ones.size:
            windows = sliding_window_view(skeleton_codes, GRAM + STRIDE - 1)
            hashes = _leading_hashes(windows[starts[long_ones]], STRIDE)
        else:
            hashes = np.zeros((0, STRIDE), np.uint64)
        copies, originals = self._same_texts(starts[long_ones], lengths[long_ones], hashes[:, 0])
        looked = long_ones
        if copies.size:
            kept = np.ones(long_ones.size, bool)
            kept[copies] = False
            looked, hashes = long_ones[kept], hashes[kept]
            copies, originals = long_ones[copies], long_ones[originals]
        picked, candidates = self._candidates(hashes, lengths[looked])
        numbers = looked[picked]
        own = starts[numbers]
        sure = candidates == own
        # A candidate whose last, middle or first code point differs from its span's is no
        # occurrence: three gathers, each over the candidates the one before left (one past the
        # text's end is clipped, and such a candidate is refused by the exact test). Only the
        # rest are compared whole.
        ask = np.flatnonzero(~sure)
        last = lengths[numbers[ask]] - 1
        for half in (2, 1, 0):
            offset = last * half // 2
            alike = skeleton_codes.take(candidates[ask] + offset, mode="clip") == (
                skeleton_codes.take(own[ask] + offset)
            )
            ask, last = ask[alike], last[alike]
        if ask.size:
            # The exact test, as a C-level loop (each span cut once, however many candidates it
            # has: the candidates come ordered by span).
            rows = numbers[ask]
            new_row = np.empty(rows.size, bool)
            new_row[0] = True
            np.not_equal(rows[1:], rows[:-1], out=new_row[1:])
            asked = rows[new_row]
            cut = list(
                map(
                    self.skeleton.__getitem__,
                    map(slice, starts[asked].tolist(), ends[asked].tolist()),
                )
            )
            each = (np.cumsum(new_row) - 1).tolist()  # each candidate's span among `cut`
            repeated = itemgetter(*each)(cut) if len(each) > 1 else (cut[each[0]],)
            sure[ask] = np.fromiter(
                map(self.skeleton.startswith, repeated, candidates[ask].tolist()), bool, ask.size
            )
        numbers, found = numbers[sure], candidates[sure]
        if copies.size:
            # A span with another's text has that one's hits (which are ordered by span).
            lo = np.searchsorted(numbers, originals)
            counts = np.searchsorted(numbers, originals, "right") - lo
            at = np.repeat(lo - np.cumsum(counts) + counts, counts)
            at += np.arange(at.size)
            numbers = np.concatenate((numbers, np.repeat(copies, counts)))
            found = np.concatenate((found, found[at]))
        short = np.flatnonzero(lengths < GRAM + STRIDE - 1)
        cut_short = map(
            self.skeleton.__getitem__, map(slice, starts[short].tolist(), ends[short].tolist())
        )
        return self._ordered(zip(short.tolist(), cut_short, strict=True), numbers, found)

    def _same_texts(
        self, starts: np.ndarray, lengths: np.ndarray, first_grams: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Among spans `[starts, starts + lengths)` whose first grams hash to `first_grams`: each
        span whose text is an earlier span's, character for character, and that earlier span (as
        two arrays of positions). Spans are grouped by length and first gram, and each group's
        first is compared with the rest (a span that only hashes like it is looked up on its own)."""
        none = np.zeros(0, np.intp)
        fingerprint = first_grams ^ (lengths.astype(np.uint64) * _MULTIPLIERS[1])
        order = np.argsort(fingerprint, kind="stable")
        ordered = fingerprint[order]
        later = np.flatnonzero(ordered[1:] == ordered[:-1]) + 1
        if not later.size:
            return none, none
        # Each later member's group's first: the stable sort keeps a group in span order.
        head = np.ones(order.size, bool)
        head[later] = False
        group_first = order[np.flatnonzero(head)[np.cumsum(head) - 1]]
        copies, originals = order[later], group_first[later]
        skeleton = self.skeleton
        texts = map(
            skeleton.__getitem__,
            map(slice, starts[originals].tolist(), (starts + lengths)[originals].tolist()),
        )
        same = (lengths[copies] == lengths[originals]) & np.fromiter(
            map(skeleton.startswith, texts, starts[copies].tolist()), bool, copies.size
        )
        return copies[same], originals[same]

    def _candidates(
        self,
        grams: np.ndarray,
        lengths: np.ndarray,
        sieve: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Where each long pattern may start, from the hashes of its first `STRIDE` grams (`grams`,
        one row per pattern) and its length: the pattern's row and the start, for every sampled
        chunk whose hash equals one of those grams and which passes the sieve, ordered by row.
        Every occurrence is among them; each still needs the exact test. `sieve(rows, shifts)`
        gives the hash of each pattern's gram at `shifts + GRAM` (asked only where the pattern
        is that long)."""
        if not grams.shape[0] or not self.gram_keys.size:
            empty = np.zeros(0, np.int64)
            return empty, empty
        hashes = np.ascontiguousarray(grams).ravel()
        # Most grams are no chunk's: the presence map (one byte read per gram) refuses them
        # before the bucket table is read.
        top = (hashes >> np.uint64(64 - self.presence_bits)).astype(np.intp)
        asked = np.flatnonzero(self.gram_presence[top])
        wanted = hashes[asked]
        # The bucket table gives each hash's run of keys (those sharing its top bits) in one gather;
        # every hash the presence map passed has a key there (the map reads more top bits).
        bucket = (wanted >> np.uint64(64 - self.bucket_bits)).astype(np.intp)
        lo = self.gram_buckets[bucket]
        counts = self.gram_buckets[bucket + 1] - lo
        # One row per (pattern gram, key in its bucket) pair; only a key whose hash part (all but
        # its low chunk bits) equals the gram's stays: the chunk, the pattern and where it would
        # start. (A hash that equals the gram's only in those bits costs one refused exact test.)
        sample = np.repeat(lo - np.cumsum(counts) + counts, counts)
        sample += np.arange(sample.size)
        keys = self.gram_keys[sample]
        bits = np.uint64(self.chunk_bits)
        same = np.flatnonzero((keys >> bits) == np.repeat(wanted >> bits, counts))
        chunk = (keys[same] & np.uint64((1 << self.chunk_bits) - 1)).astype(np.int64)
        key_at = np.repeat(asked, counts)[same]
        picked, shifts = np.divmod(key_at, STRIDE)
        candidates = chunk * STRIDE - shifts
        keep = candidates >= 0
        if sieve is not None:
            # A cheap sieve before the exact test: where the pattern runs on over the next sampled
            # chunk, that chunk's hash must equal the hash of the pattern's gram there.
            runs_on = lengths[picked] >= GRAM + STRIDE + GRAM - 1
            following = chunk + 1
            beyond = following >= self.chunk_hashes.size
            keep &= ~(runs_on & beyond)
            sieved = np.flatnonzero(runs_on & ~beyond)
            keep[sieved] &= self.chunk_hashes[following[sieved]] == sieve(
                picked[sieved], shifts[sieved]
            )
        return picked[keep], candidates[keep]

    def _ordered(
        self, short: Iterable[tuple[int, str]], rows: np.ndarray, starts: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The confirmed long-pattern hits `rows`, `starts` with the hits of the short patterns
        (`short`: each one's row and text; found by a `str.find` scan of the skeleton), ordered by
        pattern, then start."""
        text = self.skeleton
        short_rows: list[int] = []
        short_starts: list[int] = []
        for i, pattern in short:
            at = text.find(pattern)
            while at >= 0:
                short_rows.append(i)
                short_starts.append(at)
                at = text.find(pattern, at + 1)
        every_row = np.concatenate((np.array(short_rows, np.int64), rows))
        every_start = np.concatenate((np.array(short_starts, np.int64), starts))
        # One sort of plain integers (row and start in one key), not an argsort and two gathers.
        keys = every_row * (len(text) + 1) + every_start
        keys.sort()
        ordered: tuple[np.ndarray, np.ndarray] = np.divmod(keys, len(text) + 1)
        return ordered


def _leading_hashes(codes: np.ndarray, grams: int = GRAM + STRIDE) -> np.ndarray:
    """(rows, grams) hashes of each row's grams at offsets 0 .. grams - 1, equal to `_gram_hashes`
    of each window; `codes` is (rows, at least grams + GRAM - 1).

    Without copying any window: each row (padded to whole 64-bit words if it is not) is read as
    the 64-bit word starting at each of its code points (a strided view, no copy), and the gram
    at offset r is the sum of its words, those at r, r + step, r + 2 * step ... (step: a word's
    width in code points), each times its multiplier.
    """
    rows, width = codes.shape
    size = codes.itemsize
    row_bytes = -(-width * size // 8) * 8  # whole 64-bit words per row
    if row_bytes != width * size or not codes.flags.c_contiguous:
        padded = np.zeros((rows, row_bytes // size), codes.dtype)
        padded[:, :width] = codes
        codes = padded
    words = as_strided(
        codes.view(np.uint64),
        shape=(rows, width - 8 // size + 1),
        strides=(row_bytes, size),
        writeable=False,
    )
    step = 8 // size  # code points per word
    hashes: np.ndarray = words[:, :grams] * _MULTIPLIERS[0]
    for j in range(1, GRAM // step):
        hashes += words[:, j * step : j * step + grams] * _MULTIPLIERS[j]
    return hashes


def _leading_codes(patterns: Sequence[str], width: int, dtype: np.dtype) -> np.ndarray:
    """(len(patterns), width) code points of each pattern's first `width` characters at `dtype`,
    zero past a pattern's end. (A code point too wide for `dtype` wraps around: it cannot occur
    in the skeleton, and a hash it happens to match is refused by the exact confirmation.)"""
    cut: Iterator[str] = map(str.__getitem__, patterns, repeat(slice(0, width)))
    padded = "".join(map(str.ljust, cut, repeat(width), repeat("\x00")))
    return code_points(padded).astype(dtype).reshape(len(patterns), width)


def build_index(
    text: str, sha256: str | None = None, *, fold_hyphens: bool | None = None
) -> SourceIndex:
    """Normalize and index `text` (uncached); `sha256` is trusted when given (the caller hashed).

    `fold_hyphens` chooses the skeleton: None (the default) folds hyphens exactly when the
    normalized text has a line-break hyphen; True or False forces it (tests compare the two).
    """
    arrays = normalize_arrays(text)
    normalized, codes, encoding = arrays.normalized, arrays.codes, arrays.encoding
    norm_starts, raw_starts = arrays.norm_starts, arrays.raw_starts
    raw_lens, identity = arrays.raw_lens, arrays.identity
    del arrays  # so that the normalized code points go as soon as the skeleton's replace them
    if fold_hyphens is None:
        fold_hyphens = bool(normalized.line_break_hyphens)
    kept_skeleton: tuple[int, ...] = (0,)
    kept_normalized: tuple[int, ...] = (0,)
    skeleton_text = normalized.text
    if fold_hyphens:
        codes, kept_skeleton, kept_normalized = _fold_hyphens(codes, normalized.text)
    samples = codes.size // STRIDE
    chunk_hashes = _gram_hashes(codes[: samples * STRIDE].reshape(samples, GRAM))
    # CAUTION: a key is a chunk's hash with its low `bits` bits replaced by the chunk's number, so
    # one `sort` of plain integers orders hashes and chunks together (hashes equal in all but
    # their low bits share a bucket, which a look-up tells apart by `chunk_hashes`).
    bits = max(1, (samples - 1).bit_length())
    keys = chunk_hashes >> np.uint64(bits)
    keys <<= np.uint64(bits)
    keys |= np.arange(samples, dtype=np.uint64)
    keys.sort()
    # The bucket table: the keys whose top `bucket_bits` bits are b are keys[table[b]:table[b + 1]]
    # (about one key per bucket).
    # CAUTION: no more bits than the presence map's below (a look-up takes every hash the map
    # passes to hold a key in its bucket).
    bucket_bits = min(bits, 64 - bits, 26)
    table = np.zeros((1 << bucket_bits) + 1, np.int64)
    np.cumsum(
        np.bincount(
            (keys >> np.uint64(64 - bucket_bits)).astype(np.intp), minlength=1 << bucket_bits
        ),
        out=table[1:],
    )
    # The presence map: a flag per value of a hash's top `presence_bits` bits, set where a chunk's
    # hash has them (between one in eight and one in sixteen, up to 64 MiB of flags).
    # The keys' top bits are their hashes' (a key keeps its hash's top 64 - bits bits), and the
    # keys are sorted: the flags are written in order.
    presence_bits = min(bits + 3, 64 - bits, 26)
    presence = np.zeros(1 << presence_bits, bool)
    presence[(keys >> np.uint64(64 - presence_bits)).astype(np.intp)] = True
    if len(kept_skeleton) > 1:  # hyphens were cut: `codes` are the skeleton's
        skeleton_text = text_of_code_points(codes, encoding)
    return SourceIndex(
        text_sha256=sha256 if sha256 is not None else text_sha256(text),
        text=text,
        normalized=normalized,
        folds_hyphens=fold_hyphens,
        skeleton=skeleton_text,
        kept_skeleton=kept_skeleton,
        kept_normalized=kept_normalized,
        code_width=codes.dtype,
        skeleton_codes=codes,
        gram_keys=keys,
        chunk_bits=bits,
        gram_buckets=table,
        bucket_bits=bucket_bits,
        gram_presence=presence,
        presence_bits=presence_bits,
        chunk_hashes=chunk_hashes,
        norm_starts_array=norm_starts,
        norm_ends_array=np.append(norm_starts[1:], len(normalized.text)),
        raw_starts_array=raw_starts,
        raw_lens_array=raw_lens,
        identity_array=identity,
    )


def _fold_hyphens(
    codes: np.ndarray, folded: str
) -> tuple[np.ndarray, tuple[int, ...], tuple[int, ...]]:
    """The skeleton's code points (`codes`, the normalized text's, without each `_SKELETON_CUT`
    match: a hyphen and the space right after it, if any) and its kept maps."""
    is_hyphen = codes == ord(HYPHENS[0])
    for hyphen in HYPHENS[1:]:
        if hyphen in folded:  # a cheap test first: normalize folds U+2010 to "-"
            is_hyphen |= codes == ord(hyphen)
    cuts = np.flatnonzero(is_hyphen)
    if not cuts.size:
        return codes, (0,), (0,)
    after = cuts + 1
    spaced = np.zeros(cuts.size, bool)
    inside = after < codes.size
    spaced[inside] = codes[after[inside]] == 0x20
    ends = after + spaced
    kept = np.logical_not(is_hyphen, out=is_hyphen)
    kept[after[spaced]] = False
    removed = np.cumsum(ends - cuts)
    return codes[kept], (0, *(ends - removed).tolist()), (0, *ends.tolist())


_CACHE: OrderedDict[str, SourceIndex] = OrderedDict()


def source_index(text: str | bytes, sha256: str) -> SourceIndex:
    """The cached index of `text` (a str, or its UTF-8 bytes, decoded only to build an index not
    yet cached), whose SHA-256 the caller has just computed as `sha256`.

    CAUTION: the key is the hash of the text itself, never a version id: an altered text gets its
    own entry, so a version whose stored text changed is never answered from the old index. The
    cache holds the `CACHE_SIZE` most recently used texts.
    """
    held = _CACHE.get(sha256)
    if held is not None:
        _CACHE.move_to_end(sha256)
        return held
    index = build_index(text if isinstance(text, str) else text.decode("utf-8"), sha256)
    _CACHE[sha256] = index
    while len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)
    return index


def clear_cache() -> None:
    """Forget every cached index (benchmarks use it to time a cold build)."""
    _CACHE.clear()
