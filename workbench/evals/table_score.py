"""Table cells scored against the Code of Federal Regulations' own `GPOTABLE` markup (C20): a cell
is exact when its value and both header paths, white space collapsed, equal the truth's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.text.table_cells import Table, read_tables
from workbench.text.xml import extract_xml


@dataclass(frozen=True, slots=True, kw_only=True)
class TableScore:
    """One file: truth cells, cells read, cells exact in value and both headers, each part's own
    misses (table, row, column, what the truth holds, what was read), and the rows each side
    refused."""

    file: str
    truth: int
    read: int
    exact: int
    misses: tuple[tuple[int, int, int, str, str], ...]
    ragged_truth: tuple[str, ...]
    refused_read: tuple[str, ...]


def _words(text: str) -> str:
    return " ".join(text.split())


def score_file(path: Path, truth: Mapping[str, Any]) -> TableScore:
    """Score the reader on one GPO XML file against its truth record (a cell exact when its value
    and both header paths, white space collapsed, equal the truth's);
    tables are matched in text order, the truth's tables without a non-empty cell left out."""
    data = path.read_bytes()
    text = extract_xml(data, source=str(path)).text
    tables = read_tables(data, source=str(path), text=text)
    exact, total = 0, 0
    misses: list[tuple[int, int, int, str, str]] = []
    # A table with no cell text gives nothing to the text: it is matched to no read table.
    for t, wanted in enumerate(w for w in truth["tables"] if w["cells"]):
        hits, missed = _scored(t, wanted["cells"], tables[t] if t < len(tables) else None, text)
        exact, total, misses = exact + hits, total + len(wanted["cells"]), misses + missed
    return TableScore(
        file=path.name,
        truth=total,
        read=sum(len(t.cells) for t in tables),
        exact=exact,
        misses=tuple(misses),
        ragged_truth=tuple(
            f"table {t} row {r['row']}: {r['cells']} cells for {r['columns']} columns"
            for t, table in enumerate(truth["tables"])
            for r in table["ragged_rows"]
        ),
        refused_read=tuple(
            f"table {t} {reason}" for t, table in enumerate(tables) for reason in table.refused_rows
        ),
    )


def _scored(
    t: int, wanted: Sequence[Mapping[str, Any]], table: Table | None, text: str
) -> tuple[int, list[tuple[int, int, int, str, str]]]:
    """The truth cells `wanted` (of truth table `t`) exact in `table` at their row and column,
    value and both header paths with white space collapsed, and the misses."""
    read = {(c.row, c.column): c for c in table.cells} if table is not None else {}
    exact, misses = 0, []
    for cell in wanted:
        got = read.get((cell["row"], cell["column"]))
        expected = (cell["value"], tuple(cell["row_header"]), tuple(cell["column_header"]))
        found = (
            (
                _words(got.value(text)),
                tuple(_words(h) for h in got.row_header),
                tuple(_words(h) for h in got.column_header),
            )
            if got is not None
            else None
        )
        if found == expected:
            exact += 1
        else:
            misses.append((t, cell["row"], cell["column"], repr(expected), repr(found)))
    return exact, misses


def score_tables(
    name: str, truth: Sequence[Mapping[str, Any]], tables: Sequence[Table], text: str
) -> TableScore:
    """Score tables read from a document with no markup (a PDF) against its truth tables (each
    a `cells` list as `score_file`'s): each truth table, in order, is matched to the read table
    not yet matched with the most of its cells exact (ties to the earlier read table; none when
    no cell is), so a table the reader adds, or a truth table it misses, costs only its own
    cells."""
    exact, total = 0, 0
    misses: list[tuple[int, int, int, str, str]] = []
    free = list(range(len(tables)))
    for t, wanted in enumerate(truth):
        best = max(
            free, key=lambda k: (_scored(t, wanted["cells"], tables[k], text)[0], -k), default=None
        )
        hits, missed = _scored(t, wanted["cells"], None if best is None else tables[best], text)
        if hits and best is not None:
            free.remove(best)
        else:
            hits, missed = _scored(t, wanted["cells"], None, text)
        exact, total, misses = exact + hits, total + len(wanted["cells"]), misses + missed
    return TableScore(
        file=name,
        truth=total,
        read=sum(len(t.cells) for t in tables),
        exact=exact,
        misses=tuple(misses),
        ragged_truth=(),
        refused_read=tuple(
            f"table {t} {reason}" for t, table in enumerate(tables) for reason in table.refused_rows
        ),
    )


def score_files(folder: Path, truth: Mapping[str, Any]) -> tuple[TableScore, ...]:
    """Every file of a truth report (`files`, each named by `file`), read from `folder`."""
    files: Sequence[Mapping[str, Any]] = truth["files"]
    return tuple(score_file(folder / f["file"], f) for f in files)


def exact_share(scores: Sequence[TableScore]) -> float:
    """Cells exact in value and both headers over truth cells, summed over files."""
    truth = sum(s.truth for s in scores)
    return sum(s.exact for s in scores) / truth if truth else 0.0


Grid = Sequence[Sequence[str]]


def table_grid(
    head: Sequence[Any], cells: Sequence[Any], columns: int, text: str
) -> list[list[str]]:
    """A table as rows of cell strings (white space collapsed, "" where no cell stands): its head
    rows, then its body rows; a cell spanning columns stands in its first."""
    head_rows = max((c.row + 1 for c in head), default=0)
    rows = head_rows + max((c.row + 1 for c in cells), default=0)
    grid = [[""] * columns for _ in range(rows)]
    for offset, part in ((0, head), (head_rows, cells)):
        for c in part:
            grid[offset + c.row][c.column] = _words(c.value(text))
    return grid


def _bare(value: str) -> str:
    return "".join(value.split())


def grid_share(expected: Grid, found: Sequence[Grid]) -> int:
    """How many of `expected`'s non-empty cells the `found` grids reproduce: the same string,
    white space ignored (inside a cell it is layout: camelot's grids keep its PDF library's
    spacing, "11,062 .6", or strip it), at the same place once a found grid is shifted by whole
    rows and columns, each found grid at its own best shift (a reader that finds a table one row
    lower, or in two pieces, is not scored as missing it); a cell is counted once."""
    want = {
        (r, c): _bare(v) for r, row in enumerate(expected) for c, v in enumerate(row) if _bare(v)
    }
    reproduced: set[tuple[int, int]] = set()
    for grid in found:
        at: dict[str, list[tuple[int, int]]] = {}
        for r, row in enumerate(grid):
            for c, v in enumerate(row):
                if w := _bare(v):
                    at.setdefault(w, []).append((r, c))
        shifts: dict[tuple[int, int], set[tuple[int, int]]] = {}
        for (r, c), value in want.items():
            for fr, fc in at.get(value, ()):
                shifts.setdefault((fr - r, fc - c), set()).add((r, c))
        if shifts:
            reproduced |= max(shifts.values(), key=lambda cells: (len(cells), sorted(cells)))
    return len(reproduced)
