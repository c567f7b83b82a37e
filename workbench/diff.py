"""Diff two versions passage by passage, score each pairing, and narrow it to the changed characters.

`diff_versions(before, after)` segments both versions and normalizes each passage (the keys). The
key lists are matched by a longest common subsequence: a minimal diff, as `git diff --minimal`
computes, done by rapidfuzz's Indel opcodes in C++. Everything between two matched passages is a
gap: its passages are paired by position (modified), and the surplus on one side is removed or
added. Same inputs, same list, every time.

Why not `difflib.SequenceMatcher` (as the design first planned): its longest-block-first matching is
not minimal, and on the largest real version pair it ran several times slower than git, where the
LCS runs faster than git (`benchmarks/bench_spine.py` prints all three).

The matching is symmetric. Any matcher breaks ties between equally good alignments by position in
one of its arguments, so `diff(a, b)` and `diff(b, a)` could keep different passages as unchanged (a
transposition keeps x in one order and y in the other). The LCS therefore always runs in one
canonical orientation, the lexicographically smaller key list first: both argument orders run the
same computation, mirrored, so what the diff calls changed is independent of argument order.

Each modified pair gets `similarity` (rapidfuzz Indel, i.e. the LCS ratio of the normalized texts)
and an `alignment_confidence`: the same number, capped at `RESTRUCTURE_CONFIDENCE_CEILING` where the
two section labels (read through the version's numbering profile) disagree. `pairing_is_uncertain` is the one predicate for doubt.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from rapidfuzz.distance import Indel

from workbench.models import Change, ChangeKind, Passage, Span, canonical_json
from workbench.normalize import normalize, normalized_text
from workbench.profiles import Profile
from workbench.segment import segment_version

RESTRUCTURE_CONFIDENCE_CEILING = 0.5


class HasText(Protocol):
    @property
    def version_id(self) -> str: ...
    @property
    def text(self) -> str: ...


def pairing_is_uncertain(change: Change) -> bool:
    """Doubt, for every surface: a modified pairing whose confidence is at or below the ceiling.

    A capped pairing is always uncertain (its confidence is at most the ceiling); so is an uncapped
    pairing whose passages are no more than half alike.
    """
    return (
        change.kind == "modified"
        and change.alignment_confidence is not None
        and change.alignment_confidence <= RESTRUCTURE_CONFIDENCE_CEILING
    )


def change_id(before_id: str, after_id: str, position: int) -> str:
    """Deterministic id from the two version ids and the position in the diff output.

    "chg-" and the first 20 hex digits of SHA-256 over `canonical_json([before_id, after_id,
    position])`.
    """
    return _change_id_prefix(before_id, after_id)(position)


def _change_id_prefix(before_id: str, after_id: str) -> Callable[[int], str]:
    """`change_id` for one version pair, hashing the shared prefix of the canonical JSON once."""
    prefix = hashlib.sha256(canonical_json([before_id, after_id])[:-1].encode("utf-8") + b",")

    def make(position: int) -> str:
        digest = prefix.copy()
        digest.update(f"{position}]".encode("ascii"))
        return "chg-" + digest.hexdigest()[:20]

    return make


def _matching_pairs(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """Index pairs (i, j) with a[i] == b[j] kept as unchanged, increasing in both i and j.

    A longest common subsequence of the two key lists (rapidfuzz Indel opcodes over exact integer
    ids, one id per distinct key, so no hash collision can equate two different passages).

    CAUTION: the LCS always runs with the lexicographically smaller key list as its first argument,
    so `(a, b)` and `(b, a)` run the same computation and get mirrored answers. Do not "simplify"
    this to `Indel.opcodes(a, b)`: ties between equally long subsequences would then be broken by
    argument order, and what the diff calls changed would depend on it.
    """
    ids: dict[str, int] = {}
    ids_a = [ids.setdefault(key, len(ids)) for key in a]
    ids_b = [ids.setdefault(key, len(ids)) for key in b]
    swap = list(b) < list(a)
    first, second = (ids_b, ids_a) if swap else (ids_a, ids_b)
    pairs: list[tuple[int, int]] = []
    for op in Indel.opcodes(first, second):
        if op.tag == "equal":
            for k in range(op.src_end - op.src_start):
                i, j = op.src_start + k, op.dest_start + k
                pairs.append((j, i) if swap else (i, j))
    pairs.sort()
    return pairs


def _narrow(before: Passage, after: Passage) -> tuple[Span, Span]:
    """The changed characters of a modified pair, on each side, in raw version coordinates.

    From the first to the last character a minimal Indel edit script touches (rapidfuzz opcodes
    over the normalized texts), mapped back through each passage's normalization map.
    """
    norm_a, norm_b = normalize(before.text), normalize(after.text)
    edits = [op for op in Indel.opcodes(norm_a.text, norm_b.text) if op.tag != "equal"]
    if not edits:
        return (
            Span(
                version_id=before.version_id,
                char_start=before.char_start,
                char_end=before.char_start,
            ),
            Span(
                version_id=after.version_id, char_start=after.char_start, char_end=after.char_start
            ),
        )
    a_start, a_end = norm_a.raw_span(edits[0].src_start, edits[-1].src_end)
    b_start, b_end = norm_b.raw_span(edits[0].dest_start, edits[-1].dest_end)
    return (
        Span(
            version_id=before.version_id,
            char_start=before.char_start + a_start,
            char_end=before.char_start + a_end,
        ),
        Span(
            version_id=after.version_id,
            char_start=after.char_start + b_start,
            char_end=after.char_start + b_end,
        ),
    )


def _span(passage: Passage) -> Span:
    return Span(
        version_id=passage.version_id, char_start=passage.char_start, char_end=passage.char_end
    )


def diff_passages(
    before_id: str,
    after_id: str,
    before: Sequence[Passage],
    after: Sequence[Passage],
) -> tuple[Change, ...]:
    """Typed changes between two passage lists; see the module docstring for every rule.

    Output order: text order of the pairing; inside a gap, the position-paired (modified) passages
    first, then the surplus removed passages, then the surplus added ones.
    """
    keys_a = [normalized_text(p.text) for p in before]
    keys_b = [normalized_text(p.text) for p in after]
    out: list[Change] = []
    next_id = _change_id_prefix(before_id, after_id)

    def emit(ia: int | None, ib: int | None) -> None:
        pa = before[ia] if ia is not None else None
        pb = after[ib] if ib is not None else None
        kind: ChangeKind
        similarity: float | None = None
        confidence: float | None = None
        capped = False
        narrowed: tuple[Span | None, Span | None] = (None, None)
        if ia is not None and ib is not None and pa is not None and pb is not None:
            same = keys_a[ia] == keys_b[ib]
            kind = "unchanged" if same else "modified"
            similarity = 1.0 if same else Indel.normalized_similarity(keys_a[ia], keys_b[ib])
            capped = not same and pa.section_label != pb.section_label
            confidence = min(similarity, RESTRUCTURE_CONFIDENCE_CEILING) if capped else similarity
            if not same:
                narrowed = _narrow(pa, pb)
        else:
            kind = "removed" if pa is not None else "added"
        out.append(
            Change(
                change_id=next_id(len(out)),
                kind=kind,
                before=_span(pa) if pa is not None else None,
                after=_span(pb) if pb is not None else None,
                before_label=pa.section_label if pa is not None else None,
                after_label=pb.section_label if pb is not None else None,
                similarity=similarity,
                alignment_confidence=confidence,
                capped=capped,
                span_before=narrowed[0],
                span_after=narrowed[1],
            )
        )

    i = j = 0
    for mi, mj in [*_matching_pairs(keys_a, keys_b), (len(before), len(after))]:
        paired = min(mi - i, mj - j)
        for k in range(paired):
            emit(i + k, j + k)
        for ia in range(i + paired, mi):
            emit(ia, None)
        for ib in range(j + paired, mj):
            emit(None, ib)
        if mi < len(before) and mj < len(after):
            emit(mi, mj)
        i, j = mi + 1, mj + 1
    return tuple(out)


def diff_versions(
    before: HasText, after: HasText, profile: Profile | None = None
) -> tuple[Change, ...]:
    """Typed changes from `before` to `after` (anything with `version_id` and `text`).

    Both sides are segmented through `profile` (default: each version's shipped profile, see
    `segment.segment_version`), so the section labels the cap compares are the profile's.
    """
    return diff_passages(
        before.version_id,
        after.version_id,
        segment_version(before, profile),
        segment_version(after, profile),
    )


def change_as_json(change: Change) -> dict[str, Any]:
    """The JSON shape `workbench diff --json` prints for one change."""
    return {
        "change_id": change.change_id,
        "kind": change.kind,
        "before": change.before.as_json() if change.before else None,
        "after": change.after.as_json() if change.after else None,
        "before_label": change.before_label,
        "after_label": change.after_label,
        "similarity": change.similarity,
        "alignment_confidence": change.alignment_confidence,
        "capped": change.capped,
        "uncertain": pairing_is_uncertain(change),
        "span_before": change.span_before.as_json() if change.span_before else None,
        "span_after": change.span_after.as_json() if change.span_after else None,
    }
