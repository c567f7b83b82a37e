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

    def as_row(self) -> list[Any]:
        """The stored form (kept parts, kept diffs, the review queue): the fields as an array in
        their order, no names, a span as [start, end]; `cell_from_row` reads it back. The
        printed form is `as_json`."""
        return [
            self.char_start,
            self.char_end,
            self.row,
            self.column,
            self.row_span,
            self.column_span,
            list(self.row_header),
            [list(s) for s in self.row_header_spans],
            list(self.column_header),
            [list(s) for s in self.column_header_spans],
            [list(s) for s in self.spans],
            self.doubt,
        ]


def cell_from_row(row: Sequence[Any]) -> TableCell:
    """The cell `TableCell.as_row` stored."""
    (
        start,
        end,
        at_row,
        at_column,
        row_span,
        column_span,
        rh,
        rh_spans,
        ch,
        ch_spans,
        spans,
        doubt,
    ) = row
    return TableCell(
        char_start=start,
        char_end=end,
        row=at_row,
        column=at_column,
        row_span=row_span,
        column_span=column_span,
        row_header=tuple(rh),
        row_header_spans=spans_from_json(rh_spans),
        column_header=tuple(ch),
        column_header_spans=spans_from_json(ch_spans),
        spans=spans_from_json(spans),
        doubt=doubt,
    )


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
