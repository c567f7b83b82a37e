"""Table cells scored against the Code of Federal Regulations' own `GPOTABLE` markup (C20): a cell
is exact when its value and both header paths, white space collapsed, equal the truth's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.text.table_cells import read_tables
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
    exact, total, misses = 0, 0, []
    # A table with no cell text gives nothing to the text: it is matched to no read table.
    for t, wanted in enumerate(w for w in truth["tables"] if w["cells"]):
        read = {(c.row, c.column): c for c in tables[t].cells} if t < len(tables) else {}
        for cell in wanted["cells"]:
            total += 1
            got = read.get((cell["row"], cell["column"]))
            expected = (cell["value"], tuple(cell["row_header"]), tuple(cell["column_header"]))
            found = (
                (
                    _words(text[got.char_start : got.char_end]),
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
            grid[offset + c.row][c.column] = _words(text[c.char_start : c.char_end])
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
