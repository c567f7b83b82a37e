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
