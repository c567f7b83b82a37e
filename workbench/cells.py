"""Table cells as records (C20): a cell's raw offsets, grid place, header paths, and the reason a
header is in doubt."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Spans = tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class TableCell:
    """One body cell of a table: `text[char_start:char_end]` is its value. `row` and `column` count
    from 0, body rows only; the header paths run outermost first, each header with its raw span;
    `spans` the raw `[start, end)` of each piece of the value where it is not contiguous in the
    text (a cell wrapped over lines the text interleaves with its neighbours'), empty where
    `char_start:char_end` is the whole value; `doubt` is the reason a header is not certain (None
    when both are)."""

    char_start: int
    char_end: int
    row: int
    column: int
    row_span: int = 1
    column_span: int = 1
    row_header: tuple[str, ...] = ()
    row_header_spans: Spans = ()
    column_header: tuple[str, ...] = ()
    column_header_spans: Spans = ()
    spans: Spans = ()
    doubt: str | None = None

    def value(self, text: str) -> str:
        """The cell's text in `text`: its pieces joined by a space where it has `spans`."""
        if not self.spans:
            return text[self.char_start : self.char_end]
        return " ".join(text[a:b] for a, b in self.spans)

    def as_json(self) -> dict[str, Any]:
        return {
            "char_start": self.char_start,
            "char_end": self.char_end,
            "row": self.row,
            "column": self.column,
            "row_span": self.row_span,
            "column_span": self.column_span,
            "row_header": list(self.row_header),
            "row_header_spans": [list(s) for s in self.row_header_spans],
            "column_header": list(self.column_header),
            "column_header_spans": [list(s) for s in self.column_header_spans],
            "spans": [list(s) for s in self.spans],
            "doubt": self.doubt,
        }


Header = tuple[tuple[str, ...], Spans]  # a header path's names and their raw spans


def cells_json(cells: Sequence[TableCell]) -> list[Any]:
    """Cells as the workspace stores them together (a kept table's body or head, a diffed row's
    cells): `[headers, rows]`, each distinct header path (its names and their spans) once, in
    the order of its first cell, and each cell as `[char_start, char_end, row, column, row_span,
    column_span, row header's index, column header's index, spans, doubt]`: a header is named
    once however many cells it heads. `[]` for no cells. `cells_from_json` reads it back; the
    printed form is each cell's `as_json`."""
    if not cells:
        return []
    headers: dict[Header, int] = {}
    rows = [
        [
            c.char_start,
            c.char_end,
            c.row,
            c.column,
            c.row_span,
            c.column_span,
            headers.setdefault((c.row_header, c.row_header_spans), len(headers)),
            headers.setdefault((c.column_header, c.column_header_spans), len(headers)),
            [list(s) for s in c.spans],
            c.doubt,
        ]
        for c in cells
    ]
    return [[[list(names), [list(s) for s in spans]] for names, spans in headers], rows]


def cells_from_json(data: Sequence[Any]) -> tuple[TableCell, ...]:
    """The cells `cells_json` stored; the cells of one header share its tuples."""
    if not data:
        return ()
    stored, rows = data
    headers = [(tuple(names), spans_from_json(spans)) for names, spans in stored]
    cells = []
    for start, end, row, column, row_span, column_span, at_row, at_column, spans, doubt in rows:
        row_header, row_header_spans = headers[at_row]
        column_header, column_header_spans = headers[at_column]
        cells.append(
            TableCell(
                char_start=start,
                char_end=end,
                row=row,
                column=column,
                row_span=row_span,
                column_span=column_span,
                row_header=row_header,
                row_header_spans=row_header_spans,
                column_header=column_header,
                column_header_spans=column_header_spans,
                spans=spans_from_json(spans),
                doubt=doubt,
            )
        )
    return tuple(cells)


def spans_from_json(rows: Sequence[Sequence[int]]) -> Spans:
    """Spans stored as [start, end] arrays, as the records hold them."""
    return tuple((start, end) for start, end in rows)


def parts_json(kind: str, anchors: Spans, cells: Sequence[TableCell]) -> dict[str, Any]:
    """A passage's own parts as `passages --json` prints them: a footnote's `anchors`, a table's
    `cells`; nothing for any other kind, so every other passage prints as it always did."""
    if kind == "footnote":
        return {"anchors": [list(a) for a in anchors]}
    if kind == "table":
        return {"cells": [c.as_json() for c in cells]}
    return {}
