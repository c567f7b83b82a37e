"""A PDF table's rows of cells made a `Table` (C20): its head split from its body, a table continued
over pages joined into one, each body cell given its row-header and column-header paths.

`pdf_tables` finds the cells by geometry; this module reads no geometry but the column edges it is
handed. Every offset is a raw offset of the version's text (C1); the rules are stated in
docs/pdf.md#tables and in each function's docstring.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise

from workbench.cells import TableCell
from workbench.text.table_cells import Table

MIN_COLUMNS = 2  # columns a table needs
MAX_HEAD_ROWS = 5  # leading rows that may be the head before a row of figures

Edges = tuple[tuple[float, float], ...]  # each column's extent along the line, in points


@dataclass(frozen=True, slots=True)
class Word:
    """A word of a run: its raw `[start, end)` in the text, its extent along the line and across
    it (its run's), and its baseline (the median bottom of its glyph boxes, its run's bottom
    where it has none): glyph boxes are tight, so only the baseline is the same for every word of
    a line whatever its letters."""

    start: int
    end: int
    u0: float
    u1: float
    v0: float = 0.0
    v1: float = 0.0
    base: float = 0.0


@dataclass(frozen=True, slots=True)
class Cell:
    """A cell placed in its row: raw `[start, end)` of its first piece, its column, the columns
    and rows it spans, its doubt, and every piece where its text is not contiguous."""

    start: int
    end: int
    column: int
    span: int
    rows: int = 1
    doubt: str | None = None
    spans: tuple[tuple[int, int], ...] = ()

    def value(self, text: str) -> str:
        """Its text: its pieces joined by a space where it has more than one."""
        if not self.spans:
            return text[self.start : self.end]
        return " ".join(text[a:b] for a, b in self.spans)


@dataclass(slots=True)
class Rows:
    """One page's table before its headers are given: the page, its column edges, its column
    count, its head rows and its body rows (each a list of cells in column order)."""

    page: int
    edges: Edges
    columns: int
    head: list[list[Cell]]
    body: list[list[Cell]] = field(default_factory=list)


def _firsts(row: list[Cell], text: str) -> list[bool]:
    """For each cell past the first column holding a letter or a digit, whether its first such
    character is a digit (a sign or a currency before it is neither)."""
    out = []
    for c in row:
        if c.column > 0:
            first = next((ch for ch in c.value(text) if ch.isalnum()), None)
            if first is not None:
                out.append(first.isdigit())
    return out


def is_figure_row(row: list[Cell], text: str) -> bool:
    """A row of figures: of its cells past the first column holding a letter or a digit, at
    least half (and one) open with a digit (`_firsts`); cells of neither, a dash for none or a
    unit in brackets, are not counted."""
    firsts = _firsts(row, text)
    return bool(firsts) and 2 * sum(firsts) >= len(firsts)


def _is_text_row(row: list[Cell], text: str) -> bool:
    firsts = _firsts(row, text)
    return bool(firsts) and 2 * sum(firsts) < len(firsts)


def head_rows(rows: list[list[Cell]], text: str) -> int:
    """How many leading rows are the head: those before the first row of figures
    (`is_figure_row`) that the next row does not contradict (a row of two figures or more over a
    row of more cells, mostly words, is a head of years or numbers over their sub-heads), at most
    `MAX_HEAD_ROWS`; none where the first row is one (a table continued from the page before);
    one where no row of figures comes that early."""
    for k, row in enumerate(rows[: MAX_HEAD_ROWS + 1]):
        under = rows[k + 1] if k + 1 < len(rows) else []
        if is_figure_row(row, text) and not (
            _is_text_row(under, text) and len(_firsts(under, text)) > len(_firsts(row, text)) > 1
        ):
            while k > 1 and all(c.column == 0 for c in rows[k - 1]):
                k -= 1  # a label alone in the first column over the figures opens the body
            return k
    return 1


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> float:
    return min(a[1], b[1]) - max(a[0], b[0])


def _same_edges(a: Edges, b: Edges) -> bool:
    """Two tables' columns are the same: as many, and each column of one overlaps the same column
    of the other more than any other (a column's extent follows its widest cell, so the edges of
    an unruled table move a little from page to page)."""
    if len(a) != len(b):
        return False
    return all(
        _overlap(column, b[k])
        > max(0.0, max((_overlap(column, o) for j, o in enumerate(b) if j != k), default=0.0))
        for k, column in enumerate(a)
    )


def _values(head: list[list[Cell]], text: str) -> list[list[tuple[int, int, str]]]:
    return [[(c.column, c.span, " ".join(c.value(text).split())) for c in row] for row in head]


def join_pages(found: list[Rows], text: str) -> list[Rows]:
    """Tables continued over pages joined: a table that is the first read on its page continues
    the last one read on the page before when their columns are the same (`_same_edges`) and its
    head is none or the same cells (value, column and span, white space collapsed) as that
    table's: a repeated head is recognised and not counted as rows; its body rows follow."""
    out: list[Rows] = []
    for rows in sorted(found, key=lambda r: (r.page, min(_starts(r)))):
        last = out[-1] if out else None
        first_on_page = last is None or last.page != rows.page
        if (
            last is not None
            and first_on_page
            and last.page + 1 == rows.page
            and _same_edges(last.edges, rows.edges)
            and (not rows.head or _values(rows.head, text) == _values(last.head, text))
        ):
            last.body.extend(rows.body)
            last.page = rows.page
            last.edges = rows.edges
            continue
        out.append(rows)
    return out


def _starts(rows: Rows) -> list[int]:
    return [c.start for row in (*rows.head, *rows.body) for c in row] or [0]


def assemble(rows: Rows, text: str) -> Table | None:
    """Rows of cells made a table: each body cell with its column-header path (the head cells
    over its column, top first) and its row header (the cell in its stub column, see
    `pdf_tables.tables_from_trace`)."""
    head = [c for row in rows.head for c in row]
    body_rows = rows.body
    if not body_rows:
        return None
    out: list[TableCell] = []
    # The stub column: the leftmost column with a cell in at least half the body rows.
    stub_column = next(
        (
            k
            for k in range(rows.columns)
            if 2 * sum(any(c.column == k for c in row) for row in body_rows) >= len(body_rows)
        ),
        0,
    )
    above: tuple[int, Cell] | None = None  # the last stub cell and its row
    for r, row in enumerate(body_rows):
        stub = next((c for c in row if c.column == stub_column), None)
        if stub is not None:
            above = (r, stub)
        elif above is not None and above[0] + above[1].rows > r:
            stub = above[1]
        row_spans = ((stub.start, stub.end),) if stub is not None else ()
        for c in row:
            over = [h for h in head if h.column <= c.column < h.column + h.span]
            leaf = over[-1] if over else None
            doubt = None
            if leaf is None:
                doubt = f"column {c.column} has no header"
            elif leaf.span > 1:
                doubt = f"the header over column {c.column} spans {leaf.span} columns"
            elif c.span > 1:
                doubt = f"the cell spans columns {c.column}-{c.column + c.span - 1}"
            elif c.doubt is not None:
                doubt = c.doubt
            out.append(
                TableCell(
                    char_start=c.start,
                    char_end=c.end,
                    row=r,
                    column=c.column,
                    row_span=c.rows,
                    column_span=c.span,
                    row_header=(stub.value(text),) if stub is not None else (),
                    row_header_spans=row_spans,
                    column_header=tuple(h.value(text) for h in over),
                    column_header_spans=tuple((h.start, h.end) for h in over),
                    spans=c.spans,
                    doubt=doubt,
                )
            )
    every = [(c.char_start, c.char_end) for c in out] + [(h.start, h.end) for h in head]
    every += [s for c in out for s in c.spans] + [s for h in head for s in h.spans]
    return Table(
        char_start=min(a for a, _ in every),
        char_end=max(b for _, b in every),
        columns=rows.columns,
        cells=tuple(out),
        head=tuple(
            TableCell(
                char_start=c.start,
                char_end=c.end,
                row=r,
                column=c.column,
                column_span=c.span,
                spans=c.spans,
            )
            for r, row in enumerate(rows.head)
            for c in row
        ),
    )


def pieces(starts: list[int], ends: list[int], others: list[int]) -> list[tuple[int, int]]:
    """A cell's words (raw starts and ends, in text order) as its pieces: maximal stretches of them
    with no word of another cell (`others`, every word's start in the table, sorted) between two
    of them."""
    from bisect import bisect_left

    out = [(starts[0], ends[0])]
    for (a, _), (b, end) in pairwise(zip(starts, ends, strict=True)):
        if bisect_left(others, b) - bisect_left(others, a) > 1:
            out.append((b, end))
        else:
            out[-1] = (out[-1][0], end)
    return out
