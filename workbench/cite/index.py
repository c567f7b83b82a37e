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

The index samples the skeleton every `STRIDE` characters and keys each sample by the `GRAM`
characters starting there. A pattern of at least `GRAM + STRIDE - 1` characters covers exactly one
sampled position in its first `STRIDE` characters, wherever it starts, so looking up its `STRIDE`
leading grams and confirming each candidate with `str.startswith` finds every occurrence once.
Shorter patterns are found by a plain `str.find` scan of the skeleton.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field

from workbench.normalize import Normalized, normalize
from workbench.store import text_sha256

# CAUTION: must hold every character `normalize` can record in `line_break_hyphens`; a hyphen the
# skeleton keeps would make the joined reading unfindable. A test checks it on adversarial text.
HYPHENS = "-\u2010"
DELETABLE = " " + HYPHENS
GRAM = 16
STRIDE = 16
CACHE_SIZE = 8

_SKELETON_CUT = re.compile(r"[-\u2010] ?")


def skeleton(text: str) -> str:
    """`text` with every hyphen, and every space right after a hyphen, deleted."""
    return _SKELETON_CUT.sub("", text)


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceIndex:
    """One version's text as the verifier reads it.

    `kept_skeleton[k]`/`kept_normalized[k]`: the k-th run of characters the skeleton keeps starts at
    that skeleton offset and that normalized offset (the map is piecewise, one run per hyphen).
    `grams` maps each sampled q-gram of the skeleton to its sampled start offsets, ascending.
    """

    text_sha256: str
    text: str = field(repr=False)
    normalized: Normalized = field(repr=False)
    skeleton: str = field(repr=False)
    kept_skeleton: tuple[int, ...] = field(repr=False)
    kept_normalized: tuple[int, ...] = field(repr=False)
    grams: Mapping[str, list[int]] = field(repr=False)

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
        text = self.skeleton
        if not pattern:
            return []
        if len(pattern) < GRAM + STRIDE - 1:
            hits: list[int] = []
            at = text.find(pattern)
            while at >= 0:
                hits.append(at)
                at = text.find(pattern, at + 1)
            return hits
        hits = []
        grams = self.grams
        for j in range(STRIDE):
            sampled = grams.get(pattern[j : j + GRAM])
            if sampled is None:
                continue
            for at in sampled:
                start = at - j
                if start >= 0 and text.startswith(pattern, start):
                    hits.append(start)
        hits.sort()
        return hits


def build_index(text: str, sha256: str | None = None) -> SourceIndex:
    """Normalize and index `text` (uncached); `sha256` is trusted when given (the caller hashed)."""
    normalized = normalize(text)
    folded = normalized.text
    kept_skeleton = [0]
    kept_normalized = [0]
    removed = 0
    for match in _SKELETON_CUT.finditer(folded):
        removed += match.end() - match.start()
        kept_skeleton.append(match.end() - removed)
        kept_normalized.append(match.end())
    skeleton_text = _SKELETON_CUT.sub("", folded)
    starts = range(0, len(skeleton_text) - GRAM + 1, STRIDE)
    keys = [skeleton_text[i : i + GRAM] for i in starts]
    grams: dict[str, list[int]] = {}
    for key, at in zip(keys, starts, strict=True):
        sampled = grams.get(key)
        if sampled is None:
            grams[key] = [at]
        else:
            sampled.append(at)
    return SourceIndex(
        text_sha256=sha256 if sha256 is not None else text_sha256(text),
        text=text,
        normalized=normalized,
        skeleton=skeleton_text,
        kept_skeleton=tuple(kept_skeleton),
        kept_normalized=tuple(kept_normalized),
        grams=grams,
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
