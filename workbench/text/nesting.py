"""Nesting by what the text shows (C15, induction's rule 5 in docs/profiles.md): which label shape
opens inside which, siblings and companions, and with two versions or more which ranks make the
labels' paths recur in the neighbouring versions, as ranks that depend only on the labels given,
in the order given, each with the evidence it counted."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from workbench.text.ordinals import Ordinal, ordinal, step_consistent
from workbench.text.shapes import Shape, Token

SIBLING_EVIDENCE = 2
SIBLING_SHARE = 0.25  # the weaker direction against the stronger, at the least
COMPANION_SHARE = (
    0.8  # one requirement label the text lost (a wrapped `R2.`) leaves its measure a companion
)
HOLD_SHARE = 0.8  # of a sparse shape's labels with a label of the dense one before its next
HOLD_RATIO = 2  # labels of the dense shape per label of the sparse one, at the least
# Agreement across versions overturns a rank that containment within the texts backs only when it
# makes at least this many more labels agree per containment observation it goes against.
AGREEMENT_MARGIN = 4


def _names_parent(child: Token, parent: Token) -> bool:
    """A dotted child names its parent's number (`6.1` inside `6.`); other children name none."""
    if child.shape.kind not in ("dotted", "letter-dotted"):
        return True
    head = child.number.split(".")[-2]
    read = ordinal(head, "alpha" if head.isalpha() else "numeric")
    mine = parent.ordinal
    return read is not None and mine is not None and read[0] == mine[0]


def evidence(
    tokens: Sequence[Sequence[Token]],
) -> tuple[Counter[tuple[Shape, Shape]], Counter[tuple[Shape, Shape]]]:
    """(opens inside, counts across) for every ordered pair of shapes (rule 5)."""
    opens: Counter[tuple[Shape, Shape]] = Counter()
    across: Counter[tuple[Shape, Shape]] = Counter()
    for text in tokens:
        last: dict[Shape, Token] = {}
        since: dict[Shape, set[Shape]] = defaultdict(set)
        waiting: dict[Shape, list[Shape]] = defaultdict(list)  # children opened after a P label
        before: Token | None = None
        for token in text:
            shape, current = token.shape, token.ordinal
            previous = last.get(shape)
            if (
                previous is not None
                and current is not None
                and current[0] != 1
                and step_consistent(previous.ordinal, current)
            ):
                for other in since[shape]:
                    across[(other, shape)] += 1
                # The parent counts on after the child's run: the child was inside it.
                for child in waiting[shape]:
                    opens[(shape, child)] += 1
            else:
                _unresumed(opens, shape, waiting[shape])
            waiting[shape] = []
            starts = current is not None and (
                current[0] == 1
                or previous is None
                or not step_consistent(previous.ordinal, current)
            )
            if (
                before is not None
                and before.shape != shape
                and starts
                and _names_parent(token, before)
            ):
                if token.inner:  # on its parent's line: "(b) (1) (A) Notwithstanding ..."
                    opens[(before.shape, shape)] += 1
                else:
                    waiting[before.shape].append(shape)
            for other in since:
                since[other].add(shape)
            since[shape] = set()
            last[shape] = token
            before = token
        for parent, children in waiting.items():
            _unresumed(opens, parent, children)
    return opens, across


def _unresumed(opens: Counter[tuple[Shape, Shape]], parent: Shape, children: list[Shape]) -> None:
    """Children opened after a P label that P did not count on from (its last unit, or a new
    list): evidence too, except for a child with a word after a parent without one (`Appendix A`
    after the last `8.2` starts a part of its own, it is not inside 8.2)."""
    for child in children:
        if not (child.word and not parent.word):
            opens[(parent, child)] += 1


def _companions(tokens: Sequence[Sequence[Token]], kept: frozenset[Shape]) -> list[Shape]:
    """Shapes in step with another: at least `COMPANION_SHARE` of their labels (and two or more)
    repeat the number of the last label of one other shape (`M1` after `R1`, `M2` after `R2`: a
    requirement's measure). A companion belongs to that label and holds no unit of its own."""
    same: Counter[tuple[Shape, Shape]] = Counter()
    total: Counter[Shape] = Counter()
    for text in tokens:
        last: dict[Shape, Ordinal] = {}
        for token in text:
            current = token.ordinal
            if token.shape in kept and current is not None:
                total[token.shape] += 1
                for other, number in last.items():
                    if other != token.shape and number[0] == current[0]:
                        same[(other, token.shape)] += 1
                last[token.shape] = current
    found = {
        child
        for (_, child), count in same.items()
        if count >= 2 and count >= COMPANION_SHARE * total[child]
    }
    return sorted(found)


def _reaches(edges: dict[Shape, set[Shape]], start: Shape, goal: Shape) -> bool:
    seen, stack = set(), [start]
    while stack:
        node = stack.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            stack.extend(edges.get(node, ()))
    return False


def _by_heading_depth(
    tokens: Sequence[Sequence[Token]], kept: frozenset[Shape]
) -> list[tuple[Shape, Shape]]:
    """(parent, child) for Markdown heading shapes whose headings are shallower than the other's
    (`### 1 luku.` holds `##### 1 §`): the markup says which contains which, whether the child
    counts on across its parents or starts again under each. A shape's depth is the one its
    headings have most often (ties: the shallower)."""
    depths: dict[Shape, Counter[int]] = defaultdict(Counter)
    for text in tokens:
        for token in text:
            if token.shape in kept and token.heading_depth:
                depths[token.shape][token.heading_depth] += 1
    depth = {
        shape: min(counts.items(), key=lambda item: (-item[1], item[0]))[0]
        for shape, counts in depths.items()
    }
    return [(a, b) for a in sorted(depth) for b in sorted(depth) if depth[a] < depth[b]]


def _held(
    tokens: Sequence[Sequence[Token]],
    kept: frozenset[Shape],
    across: Counter[tuple[Shape, Shape]],
) -> list[tuple[Shape, Shape, int]]:
    """(parent, child, parent labels with a child label after them) for shapes where each parent
    label opens a stretch of child labels that count on across the parents (the rule:
    docs/profiles.md, rule 5), most child labels first; a companion (`M1` after `R1`) holds
    nothing."""
    labels: Counter[Shape] = Counter(t.shape for text in tokens for t in text if t.shape in kept)
    place = {"heading": 0, "margin": 1, "body": 2}
    companions = set(_companions(tokens, kept))
    found = []
    for parent in sorted(kept):
        for child in sorted(kept):
            if (
                parent == child
                or parent in companions
                or place[parent.place] > place[child.place]
                or across[(parent, child)] < SIBLING_EVIDENCE
                or labels[child] < HOLD_RATIO * labels[parent]
            ):
                continue
            opening = 0
            for text in tokens:
                pending = False  # a parent label with no child label after it yet
                for token in text:
                    if token.shape == parent:
                        pending = True
                    elif token.shape == child and pending:
                        opening += 1
                        pending = False
            if opening >= HOLD_SHARE * labels[parent]:
                found.append((-labels[child], parent, child, opening))
    return [(parent, child, opening) for _, parent, child, opening in sorted(found)]


def _containment_ranks(
    kept: frozenset[Shape],
    document: Shape | None,
    containment: _Containment,
    companions: Sequence[Shape],
) -> dict[Shape, int]:
    """Each kept shape's rank by containment within the texts, 0 outermost (rule 5); the
    document's number is 0, the rest below."""
    opens, across = containment.opens, containment.across
    candidates = sorted(
        ((count, pair) for pair, count in opens.items() if count > across[pair]),
        key=lambda item: (-item[0], item[1]),
    )
    children: dict[Shape, set[Shape]] = defaultdict(set)
    for parent, child in containment.headings:
        children[parent].add(child)
    for parent, child in containment.held:
        if not _reaches(children, child, parent):
            children[parent].add(child)
    for _, (parent, child) in candidates:
        if parent in kept and child in kept and not _reaches(children, child, parent):
            children[parent].add(child)
    group = {shape: shape for shape in kept}  # sibling groups, named by their least shape

    def root(shape: Shape) -> Shape:
        while group[shape] != shape:
            shape = group[shape]
        return shape

    pairs = sorted(
        (
            (min(across[(a, b)], across[(b, a)]), a, b)
            for a in sorted(kept)
            for b in sorted(kept)
            if a < b
            and min(across[(a, b)], across[(b, a)]) >= SIBLING_EVIDENCE
            and min(across[(a, b)], across[(b, a)])
            >= SIBLING_SHARE * max(across[(a, b)], across[(b, a)])
        ),
        key=lambda item: (-item[0], item[1], item[2]),
    )
    for _, a, b in pairs:
        ra, rb = root(a), root(b)
        if ra == rb:
            continue
        # Siblings share a rank only where no nesting runs between their groups.
        merged = {s for s in kept if root(s) in (ra, rb)}
        if any(_reaches(children, x, y) for x in merged for y in merged if x != y):
            continue
        group[max(ra, rb)] = min(ra, rb)
    condensed: dict[Shape, set[Shape]] = defaultdict(set)
    for parent, kids in children.items():
        for child in kids:
            if root(parent) != root(child):
                condensed[root(parent)].add(root(child))
    top = 1 if document is not None else 0
    depth: dict[Shape, int] = {}

    def rank_of(node: Shape, seen: frozenset[Shape] = frozenset()) -> int:
        if node not in depth:
            parents = [p for p, kids in condensed.items() if node in kids and p not in seen]
            depth[node] = max((rank_of(p, seen | {node}) + 1 for p in parents), default=top)
        return depth[node]

    rank = {shape: rank_of(root(shape)) for shape in kept}
    for companion in companions:
        rank[companion] = max(rank[s] for s in kept if s.place == companion.place) + 1
    return _floored(rank, kept, document)


def _floored(
    rank: dict[Shape, int], kept: frozenset[Shape], document: Shape | None
) -> dict[Shape, int]:
    """`rank` with each place's ranks starting below the place above it, the document's 0."""
    # A label at the margin of an indented text, or in a Markdown heading, is never inside a
    # body label.
    floor = 1 if document is not None else 0
    for place in ("heading", "margin", "body"):
        shapes = [s for s in kept if s.place == place]
        if shapes:
            lowest = min(rank[s] for s in shapes)
            for s in shapes:
                rank[s] += floor - lowest
            floor = max(rank[s] for s in shapes) + 1
    if document is not None:
        rank[document] = 0
    return rank


# ---------------------------------------------------------------------------------------------
# Agreement across versions


@dataclass(frozen=True, slots=True, kw_only=True)
class _Containment:
    """What the texts show of which shape holds which, within each text: labels opening inside
    and counting across (`evidence`), heading-depth and held pairs, and for each held or heading
    pair the observations behind it (parent labels opening a stretch, child headings)."""

    opens: Counter[tuple[Shape, Shape]]
    across: Counter[tuple[Shape, Shape]]
    headings: tuple[tuple[Shape, Shape], ...]
    held: tuple[tuple[Shape, Shape], ...]
    markup: Counter[tuple[Shape, Shape]]  # (parent, child): held or heading observations


def _containment(tokens: Sequence[Sequence[Token]], kept: frozenset[Shape]) -> _Containment:
    opens, across = evidence(tokens)
    headings = _by_heading_depth(tokens, kept)
    held = _held(tokens, kept, across)
    markup: Counter[tuple[Shape, Shape]] = Counter()
    in_headings = Counter(t.shape for text in tokens for t in text if t.heading_depth)
    for parent, child in headings:
        markup[(parent, child)] += in_headings[child]
    for parent, child, opening in held:
        markup[(parent, child)] += opening
    return _Containment(
        opens=opens,
        across=across,
        headings=tuple(headings),
        held=tuple((parent, child) for parent, child, _ in held),
        markup=markup,
    )


IdPath = tuple[str, ...]  # a label's path: its ancestors' numbers, then its own


def _paths(text: Sequence[Token], rank: dict[Shape, int]) -> list[IdPath]:
    """Each label's path under `rank`, nested as the structure parser nests a profile's levels:
    a label closes every open one at its depth or deeper, a dotted number is as deep as its parts
    at its rank, and closes a dotted number of its rank it does not extend."""
    stack: list[tuple[tuple[int, int], tuple[str, ...], bool, str]] = []
    out = []
    for token in text:
        dotted = token.shape.kind in ("dotted", "letter-dotted")
        parts = tuple(token.number.split(".")) if dotted else (token.number,)
        depth = (rank[token.shape], len(parts))
        while stack and (
            stack[-1][0] >= depth
            or (
                dotted
                and stack[-1][2]
                and stack[-1][0][0] == depth[0]
                and parts[: len(stack[-1][1])] != stack[-1][1]
            )
        ):
            stack.pop()
        stack.append((depth, parts, dotted, f"{token.number} {token.latin}".strip()))
        out.append(tuple(entry[3] for entry in stack))
    return out


def _recurring(tokens: Sequence[Sequence[Token]], rank: dict[Shape, int]) -> list[list[bool]]:
    """For each text's labels, whether its identifier recurs in a neighbouring version under
    `rank` (texts in version order): its path (every label from the outermost, each its number
    and Latin insertion) stands once in its own text and once in the text before or after it. A path that
    stands twice in one text identifies no unit, so a level laid flat whose numbers start again
    under each parent agrees nowhere."""
    paths = [_paths(text, rank) for text in tokens]
    counts = [Counter(found) for found in paths]
    out = []
    for k, found in enumerate(paths):
        beside = [counts[j] for j in (k - 1, k + 1) if 0 <= j < len(paths)]
        out.append([counts[k][p] == 1 and any(c[p] == 1 for c in beside) for p in found])
    return out


def _agreeing(tokens: Sequence[Sequence[Token]], rank: dict[Shape, int]) -> int:
    return sum(sum(found) for found in _recurring(tokens, rank))


def _relation(rank: dict[Shape, int], shape: Shape, other: Shape) -> int:
    """1 when `shape` ranks below `other` (inside it), 0 beside it, -1 above it."""
    return (rank[shape] > rank[other]) - (rank[shape] < rank[other])


def _against(containment: _Containment, shape: Shape, other: Shape, old: int, new: int) -> int:
    """The observations within the texts that back `shape`'s relation to `other` before a move
    (`_relation`: `old`) and not after it (`new`). Inside `other`: its labels opening right after
    one of `other` (`evidence`), the held and heading observations, and `other` counting on
    across it; above `other`: the same, the other way round; beside it: either counting on across
    the other (numbered on across each other, as sections and parts)."""
    if old == new:
        return 0
    pair, back = (other, shape), (shape, other)
    backs = {
        1: {"inside": containment.opens[pair] + containment.markup[pair],
            "other across": containment.across[back]},
        0: {"other across": containment.across[back], "across": containment.across[pair]},
        -1: {"above": containment.opens[back] + containment.markup[back],
             "across": containment.across[pair]},
    }  # fmt: skip
    return sum(count for name, count in backs[old].items() if name not in backs[new])


def _moved(
    rank: dict[Shape, int],
    shape: Shape,
    to: int,
    kept: frozenset[Shape],
    companions: frozenset[Shape],
    document: Shape | None,
) -> dict[Shape, int]:
    """`rank` with `shape` at `to`, counted in half ranks (`2 * r` beside the shapes of rank `r`,
    `2 * r + 1` between them and those of `r + 1`); companions of its place below every other
    shape of it, each place below the one above, the ranks numbered on without gaps."""
    moved = {s: 2 * rank[s] for s in kept}
    moved[shape] = to
    deepest = max(moved[s] for s in kept if s.place == shape.place and s not in companions)
    for companion in companions:
        if companion.place == shape.place and moved[companion] <= deepest:
            moved[companion] = deepest + 1
    moved = _floored(moved, kept, None)
    top = 1 if document is not None else 0
    dense = {r: top + k for k, r in enumerate(sorted(set(moved.values())))}
    out = {s: dense[moved[s]] for s in kept}
    if document is not None:
        out[document] = 0
    return out


def _candidates(
    rank: dict[Shape, int], shape: Shape, kept: frozenset[Shape], companions: frozenset[Shape]
) -> list[int]:
    """The half ranks (`_moved`) `shape` may take in its place: beside any other shape of it, or
    between two ranks, above the first or below the last; its own aside."""
    band = [rank[s] for s in kept if s.place == shape.place and s not in companions]
    return [to for to in range(2 * min(band) - 1, 2 * max(band) + 2) if to != 2 * rank[shape]]


def nest(
    tokens: Sequence[Sequence[Token]], kept: frozenset[Shape], document: Shape | None
) -> tuple[dict[Shape, int], dict[Shape, str]]:
    """Each kept shape's rank, 0 outermost, and the evidence it counted (rule 5).

    Containment within the texts ranks every shape (`_containment_ranks`). Then, when at least
    two texts (versions, in version order) hold labels, each shape in turn (the shapes' sort
    order; companions and the document's number stay) is tried at every other rank of its place
    (`_candidates`), the rest as they stand, and scored by agreement across versions
    (`_recurring`: labels whose path recurs in a neighbouring version). A candidate overturns the
    rank it has when it makes more labels agree and, if the containment observations that back
    the relations it changes (`_against`) number any, at least `AGREEMENT_MARGIN` times as many
    more labels as those observations. Among candidates that do, the one with the most labels
    agreeing wins; ties go to fewer observations against it, then to the nearer rank, then to
    the shallower. One text keeps the ranks containment gave.
    """
    containment = _containment(tokens, kept)
    companions = frozenset(_companions(tokens, kept))
    rank = _containment_ranks(kept, document, containment, sorted(companions))
    versions = sum(1 for text in tokens if text)
    placed: dict[Shape, tuple[int, int]] = {}  # moved: (labels agreeing, before the move)
    if versions >= 2:
        scored: dict[tuple[tuple[Shape, int], ...], int] = {}  # a move may repeat another's ranks

        def agreeing(ranks: dict[Shape, int]) -> int:
            key = tuple(sorted(ranks.items()))
            if key not in scored:
                scored[key] = _agreeing(tokens, ranks)
            return scored[key]

        for shape in sorted(kept - companions):
            before = agreeing(rank)
            best: tuple[tuple[int, int, int, int], dict[Shape, int]] | None = None
            for to in _candidates(rank, shape, kept, companions):
                moved = _moved(rank, shape, to, kept, companions, document)
                if all(_relation(moved, shape, o) == _relation(rank, shape, o) for o in kept):
                    continue
                against = sum(
                    _against(containment, shape, o, _relation(rank, shape, o),
                             _relation(moved, shape, o))
                    for o in kept if o != shape
                )  # fmt: skip
                agree = agreeing(moved)
                gain = agree - before
                if gain <= 0 or gain < AGREEMENT_MARGIN * against:
                    continue
                key = (-agree, against, abs(to - 2 * rank[shape]), to)
                if best is None or key < best[0]:
                    best = (key, moved)
            if best is not None:
                rank = best[1]
                placed[shape] = (-best[0][0], before)
    notes = _notes(tokens, kept, document, rank, containment, placed, versions, companions)
    return rank, notes


def _notes(
    tokens: Sequence[Sequence[Token]],
    kept: frozenset[Shape],
    document: Shape | None,
    rank: dict[Shape, int],
    containment: _Containment,
    placed: dict[Shape, tuple[int, int]],
    versions: int,
    companions: frozenset[Shape],
) -> dict[Shape, str]:
    """What each kept shape's nesting counted: the shape it is nested under (of the shapes one
    rank above it, the one it opens inside most often, ties to the sort order) with the labels
    that opened inside it against those that counted on across it, and with two versions or more,
    its labels whose identifier recurs in a neighbouring version (`_recurring`) of all its labels;
    a companion says it is one; a shape agreement moved says so, with all labels agreeing after
    and before the move."""
    agreed: Counter[Shape] = Counter()
    labels: Counter[Shape] = Counter()
    for text, found in zip(tokens, _recurring(tokens, rank), strict=True):
        for token, agrees in zip(text, found, strict=True):
            labels[token.shape] += 1
            agreed[token.shape] += agrees
    above = [*kept, *([document] if document is not None else [])]
    total = sum(labels.values())
    notes = {}
    for shape in sorted(kept):
        higher = [s for s in above if rank[s] < rank[shape]]
        if shape in companions:
            note = "a companion: holds nothing, ranked below every other shape in its place"
        elif higher:
            parents = [s for s in higher if rank[s] == max(rank[h] for h in higher)]
            parent = min(parents, key=lambda s: (-containment.opens[(s, shape)], s))
            opened = containment.opens[(parent, shape)]
            seen = opened + containment.across[(parent, shape)]
            note = f"nested under {parent.describe()}: containment {opened}/{seen}"
        else:
            note = "outermost"
        if versions >= 2:
            note += f"{',' if higher and shape not in companions else ':'} agreement {agreed[shape]}/{labels[shape]} across versions"
        if shape in placed:
            after, before = placed[shape]
            note += (
                f"; ranked by agreement across versions: {after}/{total} labels agree, "
                f"{before}/{total} at the rank containment gave"
            )
        notes[shape] = note
    return notes
