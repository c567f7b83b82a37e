"""Diff two versions passage by passage (C7): pair them by content, score each pairing, narrow it,
and decide doubt by the one predicate (`pairing_is_uncertain`). Same inputs, same list, and what it
calls changed does not depend on argument order; each step's tie-break is in its function's
docstring, the steps and why the floor is 0.5 in docs/text-and-offsets.md."""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from workbench.changes.origin import OriginReader, change_origins
from workbench.models import PAIRING_KINDS, Change, Passage, Span, TextOrigins, Version, content_id
from workbench.text.normalize import normalize, normalized_text

if TYPE_CHECKING:
    from workbench.text.profiles import Profile
    from workbench.text.table_cells import Table

RESTRUCTURE_CONFIDENCE_CEILING = 0.5
PAIRING_FLOOR = 0.5
MAX_PIECES = 4


class HasText(Protocol):
    @property
    def version_id(self) -> str: ...
    @property
    def text(self) -> str: ...


def pairing_is_uncertain(change: Change) -> bool:
    """Doubt, for every surface: a pairing of unequal text (modified, moved, split or merged)
    whose confidence is at or below the ceiling, or both of whose sides are machine-read.

    A capped pairing is always uncertain (its confidence is at most the ceiling); so is an uncapped
    pairing whose passages are no more than half alike, and every pairing of two machine readings
    (`Change.machine_read`: each side touches text of origin `invisible` or `ocr`).
    """
    return change.kind in PAIRING_KINDS and (
        change.machine_read
        or (
            change.alignment_confidence is not None
            and change.alignment_confidence <= RESTRUCTURE_CONFIDENCE_CEILING
        )
    )


def doubt_reasons(change: Change) -> tuple[str, ...]:
    """Why `pairing_is_uncertain` flags `change`, as short phrases, in this order.

    "split or merge" (a split or merged change: always capped); "move across sections" (a moved
    passage whose section labels disagree); "label cap" (any other pairing whose labels
    disagree); "low similarity" (the texts are no more than `RESTRUCTURE_CONFIDENCE_CEILING`
    alike); "machine_read" (both sides are a machine's reading, `Change.machine_read`), and then
    "low-confidence OCR words" where every changed character lies in one (`Change.low_confidence`).
    Empty for a change that is not doubtful.
    """
    if not pairing_is_uncertain(change):
        return ()
    reasons = []
    if change.kind in ("split", "merged"):
        reasons.append("split or merge")
    if change.capped:
        reasons.append("move across sections" if change.kind == "moved" else "label cap")
    if change.similarity is not None and change.similarity <= RESTRUCTURE_CONFIDENCE_CEILING:
        reasons.append("low similarity")
    if change.machine_read:
        reasons.append("machine_read")
        if change.low_confidence:
            reasons.append("low-confidence OCR words")
    return tuple(reasons)


def change_id(before_id: str, after_id: str, position: int) -> str:
    """Deterministic id from the two version ids and the position in the diff output.

    "chg-" and the first 20 hex digits of `content_id([before_id, after_id, position])`.
    """
    return "chg-" + content_id([before_id, after_id, position])[:20]


def _matching_pairs(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """Index pairs (i, j) with a[i] == b[j] kept as unchanged, increasing in both i and j.

    A longest common subsequence of the two key lists (rapidfuzz Indel opcodes over exact integer
    ids, one id per distinct key, so no hash collision can equate two different passages).

    CAUTION: the LCS always runs with the lexicographically smaller key list as its first argument,
    so `(a, b)` and `(b, a)` run the same computation and get mirrored answers. Do not "simplify"
    this to `Indel.opcodes(a, b)`: ties between equally long subsequences would then be broken by
    argument order, and what the diff calls changed would depend on it.
    """
    from rapidfuzz.distance import Indel  # loaded where text is compared, not to show a diff

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


def _common_prefix(a: str, b: str) -> int:
    """Length of the longest common prefix, by halving slices compared in C (never quadratic)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _narrow_normalized(norm_a: str, norm_b: str) -> tuple[int, int, int, int]:
    """(start_a, end_a, start_b, end_b) of the changed characters of two normalized texts.

    The longest common prefix is trimmed first, then the longest common suffix of what is left
    (so the two never overlap): the narrowest span outside which the two texts agree. It costs a
    few linear passes, whatever the texts' length.
    """
    head = _common_prefix(norm_a, norm_b)
    rest_a, rest_b = norm_a[head:], norm_b[head:]
    tail = _common_prefix(rest_a[::-1], rest_b[::-1])
    return head, len(norm_a) - tail, head, len(norm_b) - tail


def _narrow(before: Passage, after: Passage) -> tuple[Span, Span]:
    """The changed characters of a modified pair, on each side, in raw version coordinates.

    `_narrow_normalized` over the normalized texts, mapped back through each passage's
    normalization map. An empty change (texts equal once normalized) is an empty span at each
    passage's start.
    """
    norm_a, norm_b = normalize(before.text), normalize(after.text)
    start_a, end_a, start_b, end_b = _narrow_normalized(norm_a.text, norm_b.text)
    if start_a == end_a and start_b == end_b:
        a_start = a_end = b_start = b_end = 0
    else:
        a_start, a_end = norm_a.raw_span(start_a, end_a)
        b_start, b_end = norm_b.raw_span(start_b, end_b)
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


def _cover(passages: Sequence[Passage]) -> Span:
    """One span from the first passage's start to the last one's end."""
    return Span(
        version_id=passages[0].version_id,
        char_start=passages[0].char_start,
        char_end=passages[-1].char_end,
    )


@dataclass(frozen=True, slots=True)
class _Link:
    """One change in index terms: passages of side a, of side b, and their similarity."""

    kind: str
    a: tuple[int, ...]
    b: tuple[int, ...]
    similarity: float | None


def _similarity_matrix(rows: Sequence[str], columns: Sequence[str]) -> Any:
    """Indel similarities of every (row, column) pair, 0 below `PAIRING_FLOOR` (rapidfuzz, in C++)."""
    from rapidfuzz.distance import Indel
    from rapidfuzz.process import cdist

    return cdist(
        rows,
        columns,
        scorer=Indel.normalized_similarity,
        score_cutoff=PAIRING_FLOOR,
        workers=1,
    )


def _align_gap(scores: Any, rows: int, columns: int) -> list[tuple[int, int]]:
    """Order-preserving pairs (i, j) of one gap maximizing the total similarity.

    Only pairs more than `PAIRING_FLOOR` alike may be taken. Dynamic programming over the gap's
    similarity matrix; on the way back a tie is broken by taking the pair, then by leaving the row
    (side a) unpaired, then the column.
    """
    total = [[0.0] * (columns + 1) for _ in range(rows + 1)]
    for i in range(1, rows + 1):
        above, here = total[i - 1], total[i]
        row = scores[i - 1]
        for j in range(1, columns + 1):
            best = above[j] if above[j] >= here[j - 1] else here[j - 1]
            score = row[j - 1]
            if score > PAIRING_FLOOR and above[j - 1] + score > best:
                best = above[j - 1] + score
            here[j] = best
    pairs: list[tuple[int, int]] = []
    i, j = rows, columns
    while i > 0 and j > 0:
        score = scores[i - 1][j - 1]
        if score > PAIRING_FLOOR and total[i][j] == total[i - 1][j - 1] + score:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif total[i][j] == total[i - 1][j]:
            i -= 1
        else:
            j -= 1
    pairs.reverse()
    return pairs


def aligned(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """Order-preserving pairs (i, j) of two text lists maximizing their total similarity, only
    pairs more than `PAIRING_FLOOR` alike (`_align_gap`'s rule and tie-breaks)."""
    return _align_gap(_similarity_matrix(a, b), len(a), len(b)) if a and b else []


def _run_candidates(
    one: str, many: Sequence[str], allowed: Sequence[bool]
) -> list[tuple[float, int, int]]:
    """(similarity, first, end) of runs of 2..`MAX_PIECES` consecutive `many` texts whose joined
    text is more than `PAIRING_FLOOR` like `one`. A run may only hold `allowed` texts, and grows
    only while the joined length could still reach the floor (Indel similarity is at most
    2·shorter/(sum of lengths))."""
    from rapidfuzz.distance import Indel

    found = []
    longest = len(one) * (2 - PAIRING_FLOOR) / PAIRING_FLOOR
    for first in range(len(many)):
        if not allowed[first]:
            continue
        length = len(many[first])
        for end in range(first + 2, min(first + MAX_PIECES, len(many)) + 1):
            if not allowed[end - 1]:
                break
            length += 1 + len(many[end - 1])
            if length > longest:
                break
            similarity = Indel.normalized_similarity(one, " ".join(many[first:end]))
            if similarity > PAIRING_FLOOR:
                found.append((similarity, first, end))
    return found


def _splits_and_merges(
    keys_a: Sequence[str],
    keys_b: Sequence[str],
    pairs: list[tuple[int, int]],
    scores: Any,
    apart: tuple[Sequence[bool], Sequence[bool]],
) -> list[_Link]:
    """Splits (one a, several consecutive b) and merges (the reverse) inside one gap.

    A passage `apart` (a table's unit: `_apart`) is in none, as the one passage or in a run.

    A candidate run may hold passages that are unpaired or paired with the one passage itself; it
    is kept when its joined text is more alike to the one passage than that passage's own pairing
    (or than nothing). Candidates are taken best first (higher similarity gain, then split before
    merged, then the lower index of the one passage, then of the run), each only while all its
    passages are still free; a taken candidate dissolves the pairings it absorbs.
    """
    partner_a = {i: j for i, j in pairs}
    partner_b = {j: i for i, j in pairs}
    candidates: list[tuple[float, int, int, int, int, float]] = []
    apart_a, apart_b = apart
    for i, one in enumerate(keys_a):
        if apart_a[i]:
            continue
        own = scores[i][partner_a[i]] if i in partner_a else 0.0
        allowed = [partner_b.get(j, i) == i and not apart_b[j] for j in range(len(keys_b))]
        for similarity, first, end in _run_candidates(one, keys_b, allowed):
            if similarity > own:
                candidates.append((-(similarity - own), 0, i, first, end, similarity))
    for j, one in enumerate(keys_b):
        if apart_b[j]:
            continue
        own = scores[partner_b[j]][j] if j in partner_b else 0.0
        allowed = [partner_a.get(i, j) == j and not apart_a[i] for i in range(len(keys_a))]
        for similarity, first, end in _run_candidates(one, keys_a, allowed):
            if similarity > own:
                candidates.append((-(similarity - own), 1, j, first, end, similarity))
    candidates.sort()
    taken_a: set[int] = set()
    taken_b: set[int] = set()
    links = []
    for _, merged, single, first, end, similarity in candidates:
        ones, runs = (taken_b, taken_a) if merged else (taken_a, taken_b)
        run = range(first, end)
        if single in ones or any(k in runs for k in run):
            continue
        ones.add(single)
        runs.update(run)
        if merged:
            links.append(_Link("merged", tuple(run), (single,), similarity))
        else:
            links.append(_Link("split", (single,), tuple(run), similarity))
    pairs[:] = [(i, j) for i, j in pairs if i not in taken_a and j not in taken_b]
    return links


def _moves(
    keys_a: Sequence[str], keys_b: Sequence[str], free_a: list[int], free_b: list[int]
) -> list[_Link]:
    """Moves among the passages left unpaired anywhere in the document.

    Equal texts first: the k-th unpaired a with a text pairs with the k-th unpaired b with it.
    Then near ones: every (a, b) pair more than `PAIRING_FLOOR` alike, best first (higher
    similarity, then lower a index, then lower b index), each passage used once.
    """
    links = []
    waiting: dict[str, list[int]] = defaultdict(list)
    for j in free_b:
        waiting[keys_b[j]].append(j)
    left_a = []
    used_b: set[int] = set()
    for i in free_a:
        queue = waiting.get(keys_a[i])
        if queue:
            j = queue.pop(0)
            used_b.add(j)
            links.append(_Link("moved", (i,), (j,), 1.0))
        else:
            left_a.append(i)
    left_b = [j for j in free_b if j not in used_b]
    if left_a and left_b:
        scores = _similarity_matrix([keys_a[i] for i in left_a], [keys_b[j] for j in left_b])
        near = sorted(
            (-float(scores[x][y]), left_a[x], left_b[y])
            for x in range(len(left_a))
            for y in range(len(left_b))
            if scores[x][y] > PAIRING_FLOOR
        )
        done_a: set[int] = set()
        for negative, i, j in near:
            if i in done_a or j in used_b:
                continue
            done_a.add(i)
            used_b.add(j)
            links.append(_Link("moved", (i,), (j,), -negative))
    return links


def _align(
    keys_a: Sequence[str], keys_b: Sequence[str], apart: tuple[Sequence[bool], Sequence[bool]]
) -> list[_Link]:
    """Every change in index terms, for one orientation of the two key lists (see `_links`)."""
    links: list[_Link] = []
    gaps = []
    i = j = 0
    for mi, mj in [*_matching_pairs(keys_a, keys_b), (len(keys_a), len(keys_b))]:
        gaps.append((range(i, mi), range(j, mj)))
        if mi < len(keys_a) and mj < len(keys_b):
            links.append(_Link("unchanged", (mi,), (mj,), 1.0))
        i, j = mi + 1, mj + 1
    free_a: list[int] = []
    free_b: list[int] = []
    for gap_a, gap_b in gaps:
        if not (gap_a and gap_b):
            free_a.extend(gap_a)
            free_b.extend(gap_b)
            continue
        first_link = len(links)
        sub_a = [keys_a[k] for k in gap_a]
        sub_b = [keys_b[k] for k in gap_b]
        scores = _similarity_matrix(sub_a, sub_b)
        pairs = _align_gap(scores, len(sub_a), len(sub_b))
        sub_apart = ([apart[0][k] for k in gap_a], [apart[1][k] for k in gap_b])
        for link in _splits_and_merges(sub_a, sub_b, pairs, scores, sub_apart):
            links.append(
                _Link(
                    link.kind,
                    tuple(gap_a[k] for k in link.a),
                    tuple(gap_b[k] for k in link.b),
                    link.similarity,
                )
            )
        for x, y in pairs:
            links.append(_Link("modified", (gap_a[x],), (gap_b[y],), float(scores[x][y])))
        paired_a = {k for link in links[first_link:] for k in link.a}
        paired_b = {k for link in links[first_link:] for k in link.b}
        free_a.extend(k for k in gap_a if k not in paired_a)
        free_b.extend(k for k in gap_b if k not in paired_b)
    links.extend(_moves(keys_a, keys_b, free_a, free_b))
    paired_a = {k for link in links for k in link.a}
    paired_b = {k for link in links for k in link.b}
    links.extend(_Link("removed", (k,), (), None) for k in range(len(keys_a)) if k not in paired_a)
    links.extend(_Link("added", (), (k,), None) for k in range(len(keys_b)) if k not in paired_b)
    return links


_MIRROR = {"split": "merged", "merged": "split", "removed": "added", "added": "removed"}


def _links(
    keys_a: Sequence[str],
    keys_b: Sequence[str],
    apart: tuple[Sequence[bool], Sequence[bool]] | None = None,
) -> list[_Link]:
    """Every change in index terms, computed in one canonical orientation.

    CAUTION: as in `_matching_pairs`, the alignment always runs with the lexicographically smaller
    key list as side a, and the answer is mirrored for the other argument order (a split one way
    is a merge the other, a removal an addition), so every tie-break above is broken the same way
    whichever version comes first, and what the diff calls changed does not depend on it.
    `apart` flags each side's passages that no split or merge holds (none: no flag).
    """
    if apart is None:
        apart = ([False] * len(keys_a), [False] * len(keys_b))
    if list(keys_b) < list(keys_a):
        return [
            _Link(_MIRROR.get(link.kind, link.kind), link.b, link.a, link.similarity)
            for link in _align(keys_b, keys_a, (apart[1], apart[0]))
        ]
    return _align(keys_a, keys_b, apart)


def _order(links: Sequence[_Link]) -> list[_Link]:
    """Links in output order: by the first before passage; a change with no before passage stands
    after the before passages of every change whose after side begins before its own."""
    last_before = -1
    anchors: dict[int, float] = {}
    for link in sorted((link for link in links if link.b), key=lambda link: link.b[0]):
        if link.a:
            last_before = max(last_before, link.a[-1])
        else:
            anchors[link.b[0]] = last_before + 0.5
    return sorted(
        links,
        key=lambda link: (link.a[0] if link.a else anchors[link.b[0]], link.b[0] if link.b else -1),
    )


def _apart(passages: Sequence[Passage], units: Sequence[Passage]) -> list[bool]:
    """Which `units` (`table_rows.row_units` of `passages`) belong to a table: a row, or a stretch
    of a passage holding cells (a span no passage has). Their text lies between other units'
    cells, so a run of them is no stretch of the text: no split or merge holds one."""
    spans = {(p.char_start, p.char_end) for p in passages}
    return [bool(u.cells) or (u.char_start, u.char_end) not in spans for u in units]


def diff_passages(
    before_id: str,
    after_id: str,
    before: Sequence[Passage],
    after: Sequence[Passage],
    origins: tuple[TextOrigins | None, TextOrigins | None] = (None, None),
    tables: tuple[Sequence[Table] | None, Sequence[Table] | None] = (None, None),
) -> tuple[Change, ...]:
    """Typed changes between two passage lists; every rule in docs/text-and-offsets.md.
    With the versions' `tables`, each table is paired row by row (`table_rows.row_units`): a
    side that is a row carries its cells (`Change.before_cells`) and no narrowed span.

    Output order: by the first before passage of each change; an added passage stands after the
    before passages of the changes whose after side precedes it. `origins` are the two versions'
    text origins (`Version.origin`; None where none is recorded): each change records what its
    sides touch (`origin.change_origins`).
    """
    # the table rows load here: what reads a kept diff (the redline, doubt) needs none of them
    from workbench.changes.table_rows import row_units

    readers = (OriginReader(origins[0]), OriginReader(origins[1]))
    units = row_units(before, tables[0]), row_units(after, tables[1])
    apart = (_apart(before, units[0]), _apart(after, units[1]))
    before, after = units
    keys_a = [normalized_text(p.text) for p in before]
    keys_b = [normalized_text(p.text) for p in after]
    next_id = functools.partial(change_id, before_id, after_id)
    out: list[Change] = []
    for link in _order(_links(keys_a, keys_b, apart)):
        pas = [before[k] for k in link.a]
        pbs = [after[k] for k in link.b]
        pa = pas[0] if pas else None
        pb = pbs[0] if pbs else None
        similarity = link.similarity
        capped = False
        confidence: float | None = None
        narrowed: tuple[Span | None, Span | None] = (None, None)
        if pa is not None and pb is not None and similarity is not None:
            capped = link.kind != "unchanged" and pa.section_label != pb.section_label
            # CAUTION: a split or merge is a restructure (one passage became several, or the
            # reverse), so its confidence is capped whatever its labels say; `capped` keeps its
            # meaning (the labels disagree) and the similarity is kept as computed.
            restructure = capped or link.kind in ("split", "merged")
            confidence = (
                min(similarity, RESTRUCTURE_CONFIDENCE_CEILING) if restructure else similarity
            )
            if link.kind in ("modified", "moved"):
                narrowed = _narrow(pa, pb)
        # A table row's narrowed span runs over other rows' cells (a PDF table read column by
        # column): the row is shown by its cells, so it keeps no narrowed span (origins still
        # judge the changed characters through it).
        rows = any(p.cells for p in (*pas, *pbs))
        out.append(
            Change(
                change_id=next_id(len(out)),
                kind=link.kind,  # type: ignore[arg-type]
                before=_cover(pas) if pas else None,
                after=_cover(pbs) if pbs else None,
                before_label=pa.section_label if pa is not None else None,
                after_label=pb.section_label if pb is not None else None,
                similarity=similarity,
                alignment_confidence=confidence,
                capped=capped,
                span_before=None if rows else narrowed[0],
                span_after=None if rows else narrowed[1],
                before_spans=tuple(_span(p) for p in pas) if link.kind == "merged" else (),
                after_spans=tuple(_span(p) for p in pbs) if link.kind == "split" else (),
                front_matter=bool(pas and pbs)
                and all(p.kind == "front_matter" for p in (*pas, *pbs)),
                **change_origins(link.kind, pas, pbs, narrowed, readers),
                before_cells=tuple(c for p in pas for c in p.cells),
                after_cells=tuple(c for p in pbs for c in p.cells),
            )
        )
    return tuple(out)


def _origin(version: HasText) -> TextOrigins | None:
    return version.origin if isinstance(version, Version) else None


def diff_versions(
    before: HasText,
    after: HasText,
    profile: Profile | None = None,
    *,
    passages: tuple[Sequence[Passage], Sequence[Passage]] | None = None,
    tables: tuple[Sequence[Table] | None, Sequence[Table] | None] = (None, None),
) -> tuple[Change, ...]:
    """Typed changes from `before` to `after` (anything with `version_id` and `text`).

    Both sides are segmented through `profile` (default: each version's shipped profile, see
    `segment.segment_version`), so the section labels the cap compares are the profile's, unless
    their `passages` through it are given (a held version's, kept: `workspace.passages`). A held
    `Version` hands in its text origins (C18); anything else has none. With their `tables`
    (a held version's: `workspace.parts.held_parts`), tables pair row by row (`diff_passages`).
    """
    if passages is None:
        # the segmenter loads only here: a held version's kept passages need none of it
        from workbench.text.segment import segment_version

        passages = (segment_version(before, profile), segment_version(after, profile))
    return diff_passages(
        before.version_id,
        after.version_id,
        passages[0],
        passages[1],
        (_origin(before), _origin(after)),
        tables,
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
        "front_matter": change.front_matter,
        "span_before": change.span_before.as_json() if change.span_before else None,
        "span_after": change.span_after.as_json() if change.span_after else None,
        "origin": {"before": list(change.before_origin), "after": list(change.after_origin)},
        "machine_read": change.machine_read,
        "low_confidence": change.low_confidence,
        **(
            {
                "before_spans": [span.as_json() for span in change.before_spans],
                "after_spans": [span.as_json() for span in change.after_spans],
            }
            if change.kind in ("split", "merged")
            else {}
        ),
        **(
            {
                "before_cells": [cell.as_json() for cell in change.before_cells],
                "after_cells": [cell.as_json() for cell in change.after_cells],
            }
            if change.before_cells or change.after_cells
            else {}
        ),
    }
