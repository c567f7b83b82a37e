"""A diff's changes laid out for reading (C1, C7): pieces of each change, exact slices of their
version cut at its narrowed spans, read by the marked text, the redline page and the change table
(`diff_files`). How the marks are found: docs/diff.md."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from workbench.cells import TableCell
from workbench.changes.diff import aligned, change_as_json, doubt_reasons, pairing_is_uncertain
from workbench.changes.origin import machine_label
from workbench.errors import RedlineError
from workbench.models import CHANGE_KINDS, Change, PageSpan, Span, span_pages
from workbench.terminal import CONTROLS
from workbench.text.normalize import normalized_text

if TYPE_CHECKING:
    pass

SHOWN_BY_DEFAULT = frozenset(CHANGE_KINDS) - {"unchanged"}  # what the text listing shows unasked
CONTEXT_CHARS = 60  # unchanged characters `marked_text` keeps on each side of a mark

# A token of the word comparison: a run of white space, a run of word characters, or one other
# character (so "$10" is "$" and "10", and a changed fee marks "10", not the dollar sign).
_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")
_WORD = re.compile(r"\w")
_SPACE = re.compile(r"\s+")
_ANSI = {"removed": "\x1b[31m", "added": "\x1b[32m", "reset": "\x1b[m"}
COLOUR_CODES = tuple(_ANSI.values())  # the only escape sequences `marked_text` writes


class Held(Protocol):
    """What a redline needs of a version: its id and text, and (a PDF) its page map."""

    @property
    def version_id(self) -> str: ...
    @property
    def text(self) -> str: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Piece:
    """A run of a change: `[before_start, before_end)` of the before text beside `[after_start,
    after_end)` of the after text, the same (after normalization, white space folded) or changed.

    A side the change does not have (an added passage has no before side) is empty at 0.
    """

    changed: bool
    before_start: int
    before_end: int
    after_start: int
    after_end: int


Cuts = tuple[int, int, int, int]  # a word comparison's cuts: before start, end; after start, end
# The word pieces (`_word_pieces`) of the text between each pair of cuts of one version pair:
# derived offsets, kept with the pair's diff (`kept.read_marks`), so that showing a kept diff
# needs no word matcher. Filled by `_word_pieces` where it has to compare.
WordMarks = dict[Cuts, tuple[Piece, ...]]


def marks_json(marks: WordMarks) -> str:
    """The kept form of a pair's `WordMarks`: a JSON array of [the four cuts, [[changed (0 or
    1), before start, before end, after start, after end], ...]], in cut order."""
    return json.dumps(
        [
            [list(cuts), [[int(p.changed), *_offsets(p)] for p in pieces]]
            for cuts, pieces in sorted(marks.items())
        ],
        separators=(",", ":"),
    )


def marks_from_json(kept: str) -> WordMarks:
    """The `WordMarks` `marks_json` wrote."""
    return {
        (cuts[0], cuts[1], cuts[2], cuts[3]): tuple(
            _piece(bool(changed), (bs, be), (as_, ae)) for changed, bs, be, as_, ae in pieces
        )
        for cuts, pieces in json.loads(kept)
    }


def _offsets(piece: Piece) -> tuple[int, int, int, int]:
    return piece.before_start, piece.before_end, piece.after_start, piece.after_end


@dataclass(frozen=True, slots=True, kw_only=True)
class CellPieces:
    """One cell of a change shown as a table row (`cell_pieces`): its raw span on each side (None
    where that side has no cell in its place), the column header over it ("" for none), and its
    pieces, which cover the cell on each side and nothing else."""

    before: tuple[int, int] | None
    after: tuple[int, int] | None
    header: str
    pieces: tuple[Piece, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Redline:
    """One change laid out for reading: its pieces, why it is doubtful, and its pages (PDF).

    A change with a table row on either side (`Change.before_cells`) is shown by its `cells`,
    and its pieces are theirs in order: they cover the cells, never the stretch between them."""

    change: Change
    before_source: str = field(repr=False)  # the whole before version's text ("" if no side)
    after_source: str = field(repr=False)
    pieces: tuple[Piece, ...]
    doubt: tuple[str, ...]  # `diff.doubt_reasons`: empty unless `pairing_is_uncertain`
    before_pages: tuple[int, int] | None  # first and last page of the before side (PDF only)
    after_pages: tuple[int, int] | None
    cells: tuple[CellPieces, ...] = ()

    @property
    def before_text(self) -> str:
        """The before side's text: its span, or for a row its cells (`row_text`)."""
        if self.cells:
            return row_text(self.before_source, self.cells, before=True)
        span = self.change.before
        return self.before_source[span.char_start : span.char_end] if span else ""

    @property
    def after_text(self) -> str:
        """The after side's text: its span, or for a row its cells (`row_text`)."""
        if self.cells:
            return row_text(self.after_source, self.cells, before=False)
        span = self.change.after
        return self.after_source[span.char_start : span.char_end] if span else ""

    def before_of(self, piece: Piece) -> str:
        return self.before_source[piece.before_start : piece.before_end]

    def after_of(self, piece: Piece) -> str:
        return self.after_source[piece.after_start : piece.after_end]


@dataclass(frozen=True, slots=True, kw_only=True)
class Section:
    """One version pair: its whole diff (`changes`, what the counts count) and the redlines of
    the changes selected to be shown (`shown`, in the diff's order).

    A text listing of a kept diff (`kept.read_listed`) holds in `changes` only the changes it
    may show or count as doubtful, and the rest counted by kind in `left_out`; every other
    section holds the whole diff, and `left_out` is empty."""

    before: Held
    after: Held
    changes: tuple[Change, ...]
    shown: tuple[Redline, ...]
    left_out: tuple[tuple[str, int], ...] = ()  # (kind, how many), never doubtful

    def as_json(self) -> dict[str, Any]:
        """What `workbench diff --json` prints for one version pair: the two version ids and each
        shown change (`change_json`)."""
        return {
            "before": self.before.version_id,
            "after": self.after.version_id,
            "changes": [change_json(r) for r in self.shown],
        }


# ---------------------------------------------------------------------------------------------
# Pieces


def _widen(
    before: str,
    after: str,
    cut_b: tuple[int, int],
    cut_a: tuple[int, int],
    outer: tuple[Span, Span],
) -> tuple[tuple[int, int], tuple[int, int]]:
    """Move both sides' cuts out to whole words, by the same characters on each side.

    A cut start moves left while the character before it is a word character, the same on both
    sides, and still inside both passages, and some side's cut starts inside a word; a cut end
    moves right by the mirror rule. The moved characters are equal on both sides, so the text
    left outside the cuts still agrees, and a fee raised from $10 to $12 reads `$[-10-]{+12+}`.
    """
    span_b, span_a = outer
    (sb, eb), (sa, ea) = cut_b, cut_a

    def word(text: str, at: int) -> bool:
        return 0 <= at < len(text) and _WORD.match(text, at) is not None

    while (
        sb > span_b.char_start
        and sa > span_a.char_start
        and word(before, sb - 1)
        and before[sb - 1] == after[sa - 1]
        and ((word(before, sb) and sb < eb) or (word(after, sa) and sa < ea))
    ):
        sb, sa = sb - 1, sa - 1
    while (
        eb < span_b.char_end
        and ea < span_a.char_end
        and word(before, eb)
        and before[eb] == after[ea]
        and ((word(before, eb - 1) and sb < eb) or (word(after, ea - 1) and sa < ea))
    ):
        eb, ea = eb + 1, ea + 1
    return (sb, eb), (sa, ea)


def _token_key(token: str) -> str:
    return " " if token.isspace() else normalized_text(token)


def _tokens(text: str, start: int, end: int) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _TOKEN.finditer(text, start, end)]


def _word_pieces(
    before: str,
    after: str,
    cut_b: tuple[int, int],
    cut_a: tuple[int, int],
    marks: WordMarks | None = None,
) -> tuple[Piece, ...]:
    """The pieces of the text between the cuts: equal and changed runs of whole tokens.

    Tokens (`_TOKEN`) are compared by their normalized text, any two runs of white space being
    equal; the runs are rapidfuzz's Indel opcodes over the token keys (a longest common
    subsequence); `_joined` then merges them. The pieces `marks` holds for these cuts are
    taken as they are; others are found, and added to `marks` when given.
    """
    cuts = (*cut_b, *cut_a)
    if marks is not None and cuts in marks:
        return marks[cuts]
    from rapidfuzz.distance import Indel  # only where no kept marks give the pieces

    tok_b, tok_a = _tokens(before, *cut_b), _tokens(after, *cut_a)
    ids: dict[str, int] = {}
    keys_b = [ids.setdefault(_token_key(before[s:e]), len(ids)) for s, e in tok_b]
    keys_a = [ids.setdefault(_token_key(after[s:e]), len(ids)) for s, e in tok_a]

    def at_b(k: int) -> int:
        return tok_b[k][0] if k < len(tok_b) else cut_b[1]

    def at_a(k: int) -> int:
        return tok_a[k][0] if k < len(tok_a) else cut_a[1]

    pieces: list[Piece] = []
    for op in Indel.opcodes(keys_b, keys_a):
        piece = Piece(
            changed=op.tag != "equal",
            before_start=at_b(op.src_start),
            before_end=at_b(op.src_end),
            after_start=at_a(op.dest_start),
            after_end=at_a(op.dest_end),
        )
        pieces.append(piece)
    if marks is not None:
        marks[cuts] = tuple(pieces)
    return tuple(pieces)


def _joined(pieces: Sequence[Piece], before: str, after: str) -> tuple[Piece, ...]:
    """Drop empty pieces, then merge neighbours: adjacent pieces that are both equal or both
    changed are one piece, and so is an equal piece of white space alone between two changed
    ones (two changed words read as one mark)."""
    kept = [p for p in pieces if p.before_start < p.before_end or p.after_start < p.after_end]
    out: list[Piece] = []
    for k, piece in enumerate(kept):
        spaced = (
            not piece.changed
            and 0 < k < len(kept) - 1
            and kept[k - 1].changed
            and kept[k + 1].changed
            and not before[piece.before_start : piece.before_end].strip()
            and not after[piece.after_start : piece.after_end].strip()
        )
        changed = piece.changed or spaced
        if out and out[-1].changed == changed:
            last = out.pop()
            piece = Piece(
                changed=changed,
                before_start=last.before_start,
                before_end=piece.before_end,
                after_start=last.after_start,
                after_end=piece.after_end,
            )
        elif spaced:
            piece = dataclasses.replace(piece, changed=True)
        out.append(piece)
    return tuple(out)


def _pieces(
    change: Change, before: str, after: str, marks: WordMarks | None = None
) -> tuple[Piece, ...]:
    """The pieces of one change (the rules in docs/diff.md and `_widen`, `_word_pieces`).

    Unchanged: one equal piece. Added or removed: one changed piece. Modified or moved: an equal
    piece up to the widened cut, the word pieces between the cuts, an equal piece after; a moved
    passage whose text is equal once normalized is one equal piece. Split or merged: the word
    pieces of the two whole spans. `_joined` drops empty pieces and merges neighbours.
    """
    b, a = change.before, change.after
    if b is None or a is None:
        side = b or a
        assert side is not None  # every change has at least one side
        start, end = side.char_start, side.char_end
        before_range, after_range = ((start, end), (0, 0)) if a is None else ((0, 0), (start, end))
        return (_piece(True, before_range, after_range),)
    whole_b, whole_a = (b.char_start, b.char_end), (a.char_start, a.char_end)
    if change.kind == "unchanged":
        return (_piece(False, whole_b, whole_a),)
    if change.span_before is None or change.span_after is None:
        return _joined(_word_pieces(before, after, whole_b, whole_a, marks), before, after)
    cut_b, cut_a = _widen(
        before,
        after,
        (change.span_before.char_start, change.span_before.char_end),
        (change.span_after.char_start, change.span_after.char_end),
        (b, a),
    )
    pieces = [
        _piece(False, (b.char_start, cut_b[0]), (a.char_start, cut_a[0])),
        *_word_pieces(before, after, cut_b, cut_a, marks),
        _piece(False, (cut_b[1], b.char_end), (cut_a[1], a.char_end)),
    ]
    return _joined(pieces, before, after)


def _piece(changed: bool, before: tuple[int, int], after: tuple[int, int]) -> Piece:
    return Piece(
        changed=changed,
        before_start=before[0],
        before_end=before[1],
        after_start=after[0],
        after_end=after[1],
    )


Placed = tuple[tuple[int, int], str]  # a cell's raw span and its column header
CellPair = tuple[Placed | None, Placed | None]  # a cell on each side, None where a side has none


def _placed(cells: Sequence[TableCell], span: Span | None) -> dict[tuple[int, int, int], Placed]:
    """One side's cells by place: (the rank of the cell's row among the side's rows, its column,
    how many cells of the side stood in that place before it) -> (its raw span, its column
    header joined by " / "). A side that is no row is one place, (-1, -1, 0), its whole span
    without header; a missing side has none."""
    if span is None:
        return {}
    if not cells:
        return {(-1, -1, 0): ((span.char_start, span.char_end), "")}
    ranks = {row: k for k, row in enumerate(sorted({c.row for c in cells}))}
    out: dict[tuple[int, int, int], Placed] = {}
    for c in cells:
        place = (ranks[c.row], c.column)
        ahead = sum(key[:2] == place for key in out)
        out[(*place, ahead)] = ((c.char_start, c.char_end), " / ".join(c.column_header))
    return out


def _pairs(old: Sequence[Placed], new: Sequence[Placed], source: tuple[str, str]) -> list[CellPair]:
    """The cells of two sides, paired: [(before or None, after or None), ...] in row order.

    Two sides with the same places (`_placed`'s keys) pair place by place. Otherwise the cells
    pair in order by content (`diff.aligned` over their folded texts: only cells more than
    `PAIRING_FLOOR` alike), and each unpaired cell stands before the next pair, the before
    side's first."""
    texts = [
        [_folded(text[slice(*span)]) for span, _ in side]
        for side, text in zip((old, new), source, strict=True)
    ]
    out: list[CellPair] = []
    i = j = 0
    for x, y in [*aligned(*texts), (len(old), len(new))]:
        out += [(old[k], None) for k in range(i, x)]
        out += [(None, new[k]) for k in range(j, y)]
        if x < len(old) and y < len(new):
            out.append((old[x], new[y]))
        i, j = x + 1, y + 1
    return out


def cell_pieces(
    change: Change, before: str, after: str, marks: WordMarks | None = None
) -> tuple[CellPieces, ...]:
    """A change with a table row on either side, cell by cell (empty for any other change).

    The cells of the two sides are paired (`_pairs`): where both sides hold the same places
    (the row's rank in the change, then the column: `_placed`), place by place, else in order by
    content; a cell left alone is a cell removed or added, marked whole. Two cells whose texts
    are equal once white space is folded and normalized are one equal piece; others are compared
    word by word (`_word_pieces`). The header shown is the after cell's, else the before
    cell's."""
    if not (change.before_cells or change.after_cells):
        return ()
    old = _placed(change.before_cells, change.before)
    new = _placed(change.after_cells, change.after)
    if old.keys() == new.keys():
        pairs: list[CellPair] = [(old[k], new[k]) for k in sorted(old)]
    else:
        pairs = _pairs(
            [old[k] for k in sorted(old)], [new[k] for k in sorted(new)], (before, after)
        )
    out = []
    for b, a in pairs:
        header = (a or b or ((0, 0), ""))[1]
        if b is None or a is None:
            pieces: tuple[Piece, ...] = (
                _piece(True, b[0] if b else (0, 0), a[0] if a else (0, 0)),
            )
        elif _folded(before[slice(*b[0])]) == _folded(after[slice(*a[0])]):
            pieces = (_piece(False, b[0], a[0]),)
        else:
            pieces = _joined(_word_pieces(before, after, b[0], a[0], marks), before, after)
        out.append(
            CellPieces(
                before=None if b is None else b[0],
                after=None if a is None else a[0],
                header=header,
                pieces=pieces,
            )
        )
    return tuple(out)


def _folded(text: str) -> str:
    return normalized_text(_SPACE.sub(" ", text)).strip()


def row_text(source: str, cells: Sequence[CellPieces], *, before: bool) -> str:
    """One side of a row as the listing shows it, unmarked: `| header: value | value |`, each
    cell of that side in place order (white space folded; "" for a side with no cell)."""
    spans = [(c.header, c.before if before else c.after) for c in cells]
    shown = [f"{h}: " * bool(h) + _SPACE.sub(" ", source[slice(*s)]) for h, s in spans if s]
    return f"| {' | '.join(shown)} |" if shown else ""


def _pages(version: Held, span: Span | None) -> tuple[int, int] | None:
    """First and last page of `span` (`models.span_pages`), PDF only."""
    pages: Sequence[PageSpan] = getattr(version, "pages", ())
    return None if span is None else span_pages(pages, span.char_start, span.char_end)


def redline(change: Change, before: Held, after: Held, marks: WordMarks | None = None) -> Redline:
    """Lay out one change of `diff_versions(before, after)` for reading: a table row cell by
    cell (`cell_pieces`), any other change by `_pieces` (word pieces from `marks` where it
    holds them, `_word_pieces`)."""
    cells = cell_pieces(change, before.text, after.text, marks)
    return Redline(
        change=change,
        before_source=before.text,
        after_source=after.text,
        pieces=tuple(p for c in cells for p in c.pieces)
        if cells
        else _pieces(change, before.text, after.text, marks),
        doubt=doubt_reasons(change),
        before_pages=_pages(before, change.before),
        after_pages=_pages(after, change.after),
        cells=cells,
    )


def redlines(
    before: Held, after: Held, changes: Iterable[Change], marks: WordMarks | None = None
) -> tuple[Redline, ...]:
    """`redline` of each change, in the order given."""
    return tuple(redline(change, before, after, marks) for change in changes)


def select(
    changes: Iterable[Change], *, kinds: Iterable[str] | None = None, doubtful: bool = False
) -> tuple[Change, ...]:
    """The changes of the named kinds (None: every kind) and, with `doubtful`, only those
    `pairing_is_uncertain` flags; in the order given. An unknown kind is refused."""
    wanted = set(CHANGE_KINDS if kinds is None else kinds)
    unknown = sorted(wanted - set(CHANGE_KINDS))
    if unknown:
        raise RedlineError(
            f"unknown change kind {', '.join(unknown)}; expected one of {', '.join(CHANGE_KINDS)}"
        )
    return tuple(
        c for c in changes if c.kind in wanted and (not doubtful or pairing_is_uncertain(c))
    )


def section(
    before: Held,
    after: Held,
    changes: Sequence[Change],
    *,
    kinds: Iterable[str] | None = None,
    doubtful: bool = False,
    left_out: tuple[tuple[str, int], ...] = (),
    marks: WordMarks | None = None,
) -> Section:
    """The `Section` of one diff, showing the changes `select` keeps (`left_out`: the changes
    of the diff not in `changes`, counted by kind, as `Section` holds them; `marks`: the pair's
    word pieces, as `redline` takes them)."""
    chosen = select(changes, kinds=kinds, doubtful=doubtful)
    return Section(
        before=before,
        after=after,
        changes=tuple(changes),
        shown=redlines(before, after, chosen, marks),
        left_out=left_out,
    )


def selection_words(kinds: Iterable[str] | None, doubtful: bool) -> str:
    """What a selection shows, in words: "every change", "modified and moved changes", ..."""
    named = [k for k in CHANGE_KINDS if kinds is not None and k in set(kinds)]
    what = "every change" if not named else " and ".join(named) + " changes"
    return f"{what}, doubtful pairings only" if doubtful else what


def pair_summary(s: Section) -> str:
    """One line: the two version ids, how many changes of each kind the whole diff holds, how
    many are doubtful, and how many are shown when a selection left some out."""
    changes, left_out = s.changes, dict(s.left_out)
    counts = ", ".join(
        f"{sum(c.kind == k for c in changes) + left_out.get(k, 0)} {k}" for k in CHANGE_KINDS
    )
    doubtful = sum(pairing_is_uncertain(c) for c in changes)  # none of `left_out` is doubtful
    line = f"{s.before.version_id} -> {s.after.version_id}: {counts}; {doubtful} doubtful"
    whole = len(changes) + sum(left_out.values())
    return line if len(s.shown) == whole else f"{line}; {len(s.shown)} shown"


# ---------------------------------------------------------------------------------------------
# JSON and the text listing


def _slice(source: str, span: Span | None) -> str | None:
    return source[span.char_start : span.char_end] if span is not None else None


def change_json(r: Redline) -> dict[str, Any]:
    """`diff.change_as_json` of the change, with its texts, pages and doubt (`diff --json`).

    `before_text`/`after_text` are each side's whole span, `span_before_text`/`span_after_text`
    the narrowed spans' text (None where the change has none), `before_pages`/`after_pages` the
    first and last page of each side ([first, last], PDF only, else None), `doubt` the reasons
    the pairing is doubtful (empty when it is not).
    """
    c = r.change
    described = {
        **change_as_json(c),
        "doubt": list(r.doubt),
        "before_text": _slice(r.before_source, c.before),
        "after_text": _slice(r.after_source, c.after),
        "span_before_text": _slice(r.before_source, c.span_before),
        "span_after_text": _slice(r.after_source, c.span_after),
        "before_pages": list(r.before_pages) if r.before_pages else None,
        "after_pages": list(r.after_pages) if r.after_pages else None,
    }
    if r.cells:  # a table row: its cells, each with its text, never the stretch they lie in
        for side, source, cells in (
            ("before", r.before_source, c.before_cells),
            ("after", r.after_source, c.after_cells),
        ):
            span = getattr(c, side)
            described[f"{side}_text"] = None if span is None else getattr(r, f"{side}_text")
            described[f"{side}_cells"] = [
                {**cell.as_json(), "text": source[cell.char_start : cell.char_end]}
                for cell in cells
            ]
    return described


def pages_label(pages: tuple[int, int] | None) -> str:
    """ "p. 3", "pp. 3-4", or "" for a version with no page map."""
    if pages is None:
        return ""
    first, last = pages
    return f"p. {first}" if first == last else f"pp. {first}-{last}"


def place(
    side: str,
    span: Span | None,
    pages: tuple[int, int] | None,
    origin: Sequence[str] = (),
    *,
    cells: int = 0,
) -> str:
    """ "before [s, e) p. 3 machine-read: ocr" (`origin.machine_label` of the side's origins); a
    side that is a table row of N `cells` says "before N cells in [s, e)": its cells lie in that
    stretch, which may hold other rows' cells too."""
    if span is None:
        return f"{side} -"
    where = pages_label(pages)
    stretch = f"[{span.char_start}, {span.char_end})"
    span_text = f"{side} {f'{cells} cells in ' if cells else ''}{stretch}" + (
        f" {where}" if where else ""
    )
    return span_text + machine_label(origin)


def places(r: Redline) -> str:
    """Where the change lies: "before [s, e) p. 3; after [s, e) p. 4" (pages for a PDF only)."""
    c = r.change
    before = place("before", c.before, r.before_pages, c.before_origin, cells=len(c.before_cells))
    after = place("after", c.after, r.after_pages, c.after_origin, cells=len(c.after_cells))
    return f"{before}; {after}"


def summary(r: Redline) -> str:
    """Id, kind, labels, confidence (and "capped"), and "DOUBTFUL (reasons)" when it is doubtful."""
    c = r.change
    score = (
        f" conf {c.alignment_confidence:.2f}{' capped' if c.capped else ''}"
        if c.alignment_confidence is not None
        else ""
    )
    doubt = f" DOUBTFUL ({', '.join(r.doubt)})" if r.doubt else ""
    labels = f"{_visible(c.before_label or '-')}->{_visible(c.after_label or '-')}"
    return f"{c.change_id} {c.kind:<8} labels {labels}{score}{doubt}"


def _visible(text: str) -> str:
    """`text` for a terminal: white space folded to one space, control characters shown."""
    return _SPACE.sub(" ", text).translate(CONTROLS)


def _elide(text: str, *, head: bool, tail: bool, context: int) -> str:
    """Keep `context` characters at the ends that touch a mark (`head`: the start, `tail`: the
    end) and put " … " for the rest; a piece touching no mark keeps its first 2·`context`."""
    if head and tail:
        return text if len(text) <= 2 * context + 3 else f"{text[:context]} … {text[-context:]}"
    if head:
        return text if len(text) <= context + 2 else f"{text[:context]} …"
    if tail:
        return text if len(text) <= context + 2 else f"… {text[-context:]}"
    return text if len(text) <= 2 * context + 2 else f"{text[: 2 * context]} …"


def marked_text(r: Redline, *, colour: bool = False, context: int = CONTEXT_CHARS) -> str:
    """The change as one line: `[-removed-]{+added+}` marks in the text they stand in.

    Unchanged text is the after side's (the before side's where there is no after side), and so
    is white space alone on one side of a changed run (it is never marked); of an
    unchanged run, `context` characters are kept next to each mark and the rest is " … " (a
    change with no mark keeps its first 2·`context`). Marked text is never shortened. White space
    is folded to one space and control characters are shown as symbols (`CONTROLS`), so no
    filing can move the cursor or colour the terminal. `colour` adds ANSI red and green around
    the marks (the marks stay, so a copied line reads the same). A table row is its cells,
    `| header: value | ... |`, each marked alone (`cell_pieces`).
    """
    if r.cells:  # a table row: `| header: value | ... |`, each cell marked in place
        cells = [
            f"{_visible(c.header)}: " * bool(c.header)
            + _marked(r, c.pieces, colour=colour, context=context, after=c.after is not None)
            for c in r.cells
        ]
        return f"| {' | '.join(cells)} |"
    return _marked(r, r.pieces, colour=colour, context=context, after=r.change.after is not None)


def _marked(r: Redline, pieces: Sequence[Piece], *, colour: bool, context: int, after: bool) -> str:
    """`pieces` of `r` as one marked line (rules in `marked_text`); `after`: the unchanged text
    is the after side's."""
    parts: list[str] = []
    last = len(pieces) - 1
    for k, piece in enumerate(pieces):
        if not piece.changed:
            text = _visible(r.after_of(piece) if after else r.before_of(piece))
            parts.append(_elide(text, head=k > 0, tail=k < last, context=context))
            continue
        for side, text in (("removed", r.before_of(piece)), ("added", r.after_of(piece))):
            # White space alone on one side of a run is what `_joined` absorbed between two
            # changed words: unmarked, shown on the after side as the stream's plain text is.
            if text.isspace() and side == "added":
                parts.append(" ")
            if not text.strip():
                continue
            left, right = ("[-", "-]") if side == "removed" else ("{+", "+}")
            mark = f"{left}{_visible(text)}{right}"
            parts.append(f"{_ANSI[side]}{mark}{_ANSI['reset']}" if colour else mark)
    return "".join(parts).strip()
