"""A table's rows as the units the diff pairs (C7, C20): one inserted row is one change.

`row_units` reads each table as rows, each one unit labelled by its row header (else its first
cell) and carrying its cells, and the rest of a passage holding cells as one unit per stretch
between them; every surface shows a row by its cells (`Change.before_cells`), never by the
stretch they lie in. Rules and reasons: docs/diff.md#tables.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise
from typing import TYPE_CHECKING

from workbench.cells import TableCell
from workbench.models import Passage

if TYPE_CHECKING:  # the table reader reads markup (lxml): only a version that has tables loads it
    from workbench.text.table_cells import Table


def _masked(start: int, end: int, pieces: Sequence[tuple[int, str]]) -> str:
    """A string of `end - start` spaces with each (offset, text) piece written at its place."""
    out = [" "] * (end - start)
    for at, value in pieces:
        out[at - start : at - start + len(value)] = value
    return "".join(out)


def _value(passages: Sequence[Passage], ends: Sequence[int], cell: TableCell) -> str:
    """The cell's text, read from the passage that holds it ("" where none does); `ends` are
    the passages' ends, in order."""
    at = bisect_left(ends, cell.char_end)
    for p in passages[at : at + 1]:
        if p.char_start <= cell.char_start and cell.char_end <= p.char_end:
            return p.text[cell.char_start - p.char_start : cell.char_end - p.char_start]
    return ""


def _unit(passage: Passage, cells: Sequence[TableCell], values: Sequence[str]) -> Passage:
    """One row as a unit: its cells' span, their text in place, and as its label its row header,
    or where it has none its first cell's text (white space folded; None where that is empty),
    so that two rows paired across different first cells are capped, hence doubtful."""
    start = min(c.char_start for c in cells)
    end = max(c.char_end for c in cells)
    key = " ".join(cells[0].row_header) or " ".join(values[0].split())
    return replace(
        passage,
        char_start=start,
        char_end=end,
        text=_masked(start, end, [(c.char_start, v) for c, v in zip(cells, values, strict=True)]),
        section_label=key or None,
        cells=tuple(cells),
    )


def row_units(passages: Sequence[Passage], tables: Sequence[Table] | None) -> list[Passage]:
    """`passages` with each table read as its rows (docs/diff.md, "Tables"); unchanged without tables.

    A passage holding cells of a table (whatever its kind: a paragraph may hold a table that is
    set without blank lines around it) gives, the first time one of a table's cells is met, all
    of that table's row units, then the units of its own text outside every cell (`_runs`). A
    table a cell of which lies across two passages, or two of whose cells overlap, is not read
    as rows: its text stays the passages'. Ordinals are the units' places in the list."""
    ends = [p.char_end for p in passages]
    # A table whose cells cross passages or overlap is left as the passages' text (docs/diff.md).
    tables = [t for t in tables or () if _whole(passages, ends, t)]
    if not tables:
        return list(passages)
    pieces = sorted(_span(c) for t in tables for c in (*t.head, *t.cells))
    cells = sorted(
        ((c, k) for k, t in enumerate(tables) for c in (*t.head, *t.cells)),
        key=lambda ck: ck[0].char_start,
    )
    starts = [c.char_start for c, _ in cells]
    piece_starts = [a for a, _ in pieces]
    units: list[Passage] = []
    done: set[int] = set()
    for passage in passages:
        first = bisect_left(starts, passage.char_start)
        last = bisect_left(starts, passage.char_end)
        inside = [(c, k) for c, k in cells[first:last] if c.char_end <= passage.char_end]
        held = pieces[
            bisect_left(piece_starts, passage.char_start) : bisect_left(
                piece_starts, passage.char_end
            )
        ]
        if not held:
            units.append(passage)
            continue
        for k in sorted({k for _, k in inside} - done):
            done.add(k)
            table = tables[k]
            rows: list[tuple[TableCell, ...]] = []
            if table.head:
                rows.append(tuple(sorted(table.head, key=lambda c: (c.row, c.column))))
            rows += list(table.rows().values())
            for row in rows:
                values = [_value(passages, ends, c) for c in row]
                if any(values):
                    units.append(_unit(passage, row, values))
        units += _runs(passage, held)
    return [replace(u, ordinal=i) for i, u in enumerate(units)]


def _span(cell: TableCell) -> tuple[int, int]:
    """The raw span a row unit holds of a cell: its first piece (`char_start:char_end`). A cell
    wrapped over lines the text interleaves with its neighbours' (`spans`) leaves its other
    pieces to the text around the rows, so every unit stays in text order and the redline's
    two readings are the versions' texts."""
    return cell.char_start, cell.char_end


def _whole(passages: Sequence[Passage], ends: Sequence[int], table: Table) -> bool:
    """Whether every cell of `table` (`_span`) lies inside one passage and no two overlap: only then can its rows be units, each character in one of them or in the exact
    stretches of text around them."""
    pieces = sorted(_span(cell) for cell in (*table.head, *table.cells))
    if any(b[0] < a[1] for a, b in pairwise(pieces)):
        return False
    for start, end in pieces:
        at = bisect_left(ends, end)
        if at == len(passages) or not passages[at].char_start <= start <= end:
            return False
    return True


def _runs(passage: Passage, pieces: Sequence[tuple[int, int]]) -> list[Passage]:
    """The passage's text outside the cells' `pieces` it holds, as units: each stretch between
    two pieces, white space trimmed from its ends, that holds any other character, in text
    order. A stretch is an exact slice, so no unit's span covers a cell or a piece of one."""
    runs: list[Passage] = []
    at = passage.char_start
    for start, end in [*pieces, (passage.char_end,) * 2]:
        stretch = passage.text[at - passage.char_start : max(at, start) - passage.char_start]
        if stretch.strip():
            first = at + len(stretch) - len(stretch.lstrip())
            text = stretch.strip()
            runs.append(
                replace(passage, char_start=first, char_end=first + len(text), text=text, cells=())
            )
        at = max(at, end)
    return runs
