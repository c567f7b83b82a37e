"""Nesting by what the text shows (C15, induction's rule 5 in docs/profiles.md): which label shape
opens inside which, siblings and companions, as ranks that depend only on the order of the labels
given."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from workbench.text.ordinals import Ordinal, ordinal, step_consistent
from workbench.text.shapes import Shape, Token

SIBLING_EVIDENCE = 2
SIBLING_SHARE = 0.25  # the weaker direction against the stronger, at the least
COMPANION_SHARE = (
    0.8  # one requirement label the text lost (a wrapped `R2.`) leaves its measure a companion
)
HOLD_SHARE = 0.8  # of a sparse shape's labels with a label of the dense one before its next
HOLD_RATIO = 2  # labels of the dense shape per label of the sparse one, at the least


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
) -> list[tuple[Shape, Shape]]:
    """(parent, child) for shapes where each parent label opens a stretch of child labels that
    count on across the parents (the rule: docs/profiles.md, rule 5), most child labels first; a
    companion (`M1` after `R1`) holds nothing."""
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
                found.append((-labels[child], parent, child))
    return [(parent, child) for _, parent, child in sorted(found)]


def ranks(
    tokens: Sequence[Sequence[Token]], kept: frozenset[Shape], document: Shape | None
) -> dict[Shape, int]:
    """Each kept shape's rank, 0 outermost (rule 5); the document's number is 0, the rest below."""
    opens, across = evidence(tokens)
    candidates = sorted(
        ((count, pair) for pair, count in opens.items() if count > across[pair]),
        key=lambda item: (-item[0], item[1]),
    )
    children: dict[Shape, set[Shape]] = defaultdict(set)
    for parent, child in _by_heading_depth(tokens, kept):
        children[parent].add(child)
    for parent, child in _held(tokens, kept, across):
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
    for companion in _companions(tokens, kept):
        rank[companion] = max(rank[s] for s in kept if s.place == companion.place) + 1
    # A label at the margin of an indented text, or in a Markdown heading, is never inside a
    # body label: each place's ranks start below the place above it.
    floor = top
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
