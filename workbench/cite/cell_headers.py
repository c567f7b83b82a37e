"""A cell citation's headers checked at their offsets (C6, C20): `check_cell` says whether the cited
span is one cell's whole value under exactly those headers, and which cells hold the same value
under them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.cells import TableCell
from workbench.text.normalize import normalized_text

if TYPE_CHECKING:
    from workbench.text.table_cells import Table

HEADER_PATH_SEPARATOR = " / "


@dataclass(frozen=True, slots=True, kw_only=True)
class CellCheck:
    """The cell at the offsets and the spans of every cell equal to it in value and in the headers
    named (text order); or `reason` and `detail` when the headers cannot be granted."""

    cell: TableCell | None = None
    occurrences: tuple[tuple[int, int], ...] = ()
    reason: str | None = None
    detail: str = ""


def _names(header: tuple[str, ...]) -> set[str]:
    """What a citation may name a header path by: its innermost header, or the whole path joined
    by `HEADER_PATH_SEPARATOR`, normalized."""
    if not header:
        return set()
    return {normalized_text(header[-1]), normalized_text(HEADER_PATH_SEPARATOR.join(header))}


def _matches(cell: TableCell, row_header: str | None, column_header: str | None) -> bool:
    return (row_header is None or normalized_text(row_header) in _names(cell.row_header)) and (
        column_header is None or normalized_text(column_header) in _names(cell.column_header)
    )


def _shown(cell: TableCell) -> str:
    row = HEADER_PATH_SEPARATOR.join(cell.row_header) or "none"
    column = HEADER_PATH_SEPARATOR.join(cell.column_header) or "none"
    return f"row header {row!r} at {list(cell.row_header_spans)}, column header {column!r} at {list(cell.column_header_spans)}"


def check_cell(
    tables: Sequence[Table] | None,
    text: str,
    char_start: int,
    char_end: int,
    quote: str,
    row_header: str | None,
    column_header: str | None,
) -> CellCheck:
    """Check a cell citation whose quote reads at `[char_start, char_end)` (already checked).

    In order: no tables read for the version, a span that is not one cell's whole value
    (normalized), or a cell whose header is in doubt (`TableCell.doubt`) refuse `cell_ambiguous`;
    a named header that is neither the cell's innermost header nor its whole path refuses
    `header_mismatch`, naming the cell's headers and their offsets. Otherwise the occurrences are
    the cells whose value reads as the quote and whose headers match the names, in text order.
    """
    if tables is None:
        return CellCheck(
            reason="cell_ambiguous",
            detail="no table is read for this version, so a cell's headers cannot be checked",
        )
    cells = [c for t in tables for c in t.cells]
    holding = [c for c in cells if c.char_start < char_end and char_start < c.char_end]
    whole = [
        c
        for c in holding
        if normalized_text(text[c.char_start : c.char_end])
        == normalized_text(text[char_start:char_end])
    ]
    if len(holding) != 1 or not whole:
        where = ", ".join(f"[{c.char_start}, {c.char_end})" for c in holding) or "no cell"
        return CellCheck(
            reason="cell_ambiguous",
            detail=f"[{char_start}, {char_end}) is not one cell's whole value (it meets {where})",
        )
    cell = whole[0]
    if cell.doubt is not None:
        return CellCheck(
            cell=cell,
            reason="cell_ambiguous",
            detail=f"the cell's header is in doubt: {cell.doubt}",
        )
    if not _matches(cell, row_header, column_header):
        return CellCheck(
            cell=cell,
            reason="header_mismatch",
            detail=f"the cell at [{cell.char_start}, {cell.char_end}) stands under {_shown(cell)}",
        )
    same = tuple(
        (c.char_start, c.char_end)
        for c in cells
        if normalized_text(text[c.char_start : c.char_end]) == quote
        and _matches(c, row_header, column_header)
    )
    return CellCheck(cell=cell, occurrences=tuple(sorted(same)), detail=_shown(cell))
