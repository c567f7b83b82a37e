"""Tables read from markup into cells under their headers (C20), in raw offsets of the text: a
header not certain is stated in the cell's `doubt`, and a row that does not fit is refused, never
placed by guess. The three markups: docs/extraction.md, "Tables"."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from lxml import etree

from workbench.cells import Spans, TableCell
from workbench.text.xml import chooses_any, chosen_element_spans, parse_xml

GPO_TABLE, GPO_HEAD, GPO_ROW, GPO_CELL = "gpotable", "ched", "row", "ent"
HTML_TABLE, HTML_ROW, HTML_CELLS, HTML_HEAD_CELL = "table", "tr", frozenset({"td", "th"}), "th"
CALS_GROUP, CALS_ROW, CALS_CELL, CALS_HEAD = "tgroup", "row", "entry", "thead"
_CELL_NAMES = frozenset({GPO_HEAD, GPO_CELL, CALS_CELL}) | HTML_CELLS
_TABLE_NAMES = frozenset({GPO_TABLE, HTML_TABLE, CALS_GROUP})


@dataclass(frozen=True, slots=True, kw_only=True)
class Table:
    """One table: the raw span from its first to its last cell's text, its column count, its body
    cells in row then column order, the rows refused (`row N: reason`), and, where the reader
    keeps them (a PDF's), its head cells (row N of the head, no headers of their own)."""

    char_start: int
    char_end: int
    columns: int
    cells: tuple[TableCell, ...]
    refused_rows: tuple[str, ...] = ()
    head: tuple[TableCell, ...] = ()

    def rows(self) -> dict[int, tuple[TableCell, ...]]:
        """Its cells by row index, each row's in column order."""
        out: dict[int, list[TableCell]] = {}
        for cell in self.cells:
            out.setdefault(cell.row, []).append(cell)
        return {row: tuple(cells) for row, cells in out.items()}


def _local(el: etree._Element) -> str:
    tag = el.tag
    return tag.rpartition("}")[2].casefold() if isinstance(tag, str) else ""


def _int(value: str | None, default: int) -> int:
    return int(value) if value is not None and value.strip().isdigit() else default


@dataclass(slots=True)
class _Cell:
    """A cell placed in the grid before its headers are read."""

    element: etree._Element
    row: int
    column: int
    row_span: int = 1
    column_span: int = 1
    indent: int = 0


@dataclass(slots=True)
class _Grid:
    spans: dict[int, tuple[int, int]]
    text: str
    head: list[_Cell] = field(default_factory=list)  # column heads, any level
    head_levels: int = 0
    body: list[_Cell] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    columns: int = 0
    stub_headers: bool = True  # a row's first cell is its header (else: its `th` cells)

    def span(self, el: etree._Element) -> tuple[int, int] | None:
        return self.spans.get(id(el))

    def words(self, cells: Iterable[_Cell]) -> tuple[tuple[str, ...], Spans]:
        found = [s for c in cells if (s := self.span(c.element)) is not None]
        return tuple(self.text[a:b] for a, b in found), tuple(found)


def read_tables(data: bytes, *, source: str, text: str) -> tuple[Table, ...]:
    """Every table of an XML artefact, in text order, its cells in raw offsets of `text` (the
    artefact's `extract_xml` text). Rules of each markup in `_gpo`, `_html`, `_cals`."""
    root = parse_xml(data, source=source)
    if not chooses_any(root, is_table):
        return ()  # no table element: none is read, and the text need not be rendered again
    return tables_from_cells(root, chosen_element_spans(root, source, is_cell), text)


def is_table(el: etree._Element) -> bool:
    """An element `read_tables` reads a table from (an HTML table only with rows: checked there)."""
    return _local(el) in _TABLE_NAMES


def is_cell(el: etree._Element) -> bool:
    """A table cell of any markup, head or body: the elements whose spans `tables_from_cells`
    reads."""
    return _local(el) in _CELL_NAMES


def tables_from_cells(
    root: etree._Element, cells: Sequence[tuple[etree._Element, int, int]], text: str
) -> tuple[Table, ...]:
    """The tables of `root` (`read_tables`) from its cells' spans in `text`: the elements
    `is_cell` chose in one render (`xml.chosen_element_spans`), each with its span."""
    # CAUTION: `cells` keeps every cell's lxml proxy alive, so `id()` names one element throughout.
    spans = {id(el): (start, end) for el, start, end in cells}
    tables = []
    for el in root.iter(etree.Element):
        name = _local(el)
        grid = _Grid(spans=spans, text=text)
        if name == GPO_TABLE:
            _gpo(el, grid)
        elif name == HTML_TABLE and any(_local(c) == HTML_ROW for c in el.iter(etree.Element)):
            _html(el, grid)
        elif name == CALS_GROUP:
            _cals(el, grid)
        else:
            continue
        if (table := _table(grid)) is not None:
            tables.append(table)
    return tuple(sorted(tables, key=lambda t: t.char_start))


def _gpo(table: etree._Element, grid: _Grid) -> None:
    """GPO: a head of level H sits under the nearest earlier head of a lower level; the heads
    with no deeper head after them are the columns, in order. Each `ROW`'s `ENT`s fill columns
    from the first; a row with more cells than columns is refused. A row's stub is its first
    `ENT`; a stub of higher indent (`I`) is a sub-row of the nearest earlier stub of lower."""
    heads = [el for el in table.iter(etree.Element) if _local(el) == GPO_HEAD]
    levels = [_int(h.get("H"), 1) for h in heads]
    leaves = [i for i, level in enumerate(levels) if i + 1 == len(levels) or levels[i + 1] <= level]
    grid.columns = _int(table.get("COLS"), len(leaves))
    if len(leaves) != grid.columns:
        grid.refused.append(f"head: {len(leaves)} column heads for {grid.columns} columns")
        leaves = []
    grid.head_levels = max(levels, default=0)
    for column, i in enumerate(leaves):
        chain, level = [i], levels[i]
        for k in range(i - 1, -1, -1):
            if levels[k] < level:
                chain.append(k)
                level = levels[k]
        for depth, k in enumerate(reversed(chain)):
            grid.head.append(_Cell(element=heads[k], row=depth, column=column))
    rows = [el for el in table if _local(el) == GPO_ROW]
    for r, row in enumerate(rows):
        cells = [el for el in row if _local(el) == GPO_CELL]
        if len(cells) > grid.columns:
            grid.refused.append(f"row {r}: {len(cells)} cells for {grid.columns} columns")
            continue
        for c, el in enumerate(cells):
            indent = _int(el.get("I"), 0) if c == 0 else 0
            grid.body.append(_Cell(element=el, row=r, column=c, indent=indent))


def _place(rows: Sequence[Sequence[etree._Element]], span: object) -> list[list[_Cell]]:
    """Cells of rows placed on a grid, each in the first free column (a cell spanning rows from
    above holds its columns); `span(el)` gives (start column or None, column span, row span)."""
    taken: set[tuple[int, int]] = set()
    placed: list[list[_Cell]] = []
    for r, row in enumerate(rows):
        out: list[_Cell] = []
        column = 0
        for el in row:
            start, width, height = span(el)  # type: ignore[operator]
            if start is not None:
                column = start
            while (r, column) in taken:
                column += 1
            out.append(_Cell(element=el, row=r, column=column, row_span=height, column_span=width))
            taken.update((r + i, column + j) for i in range(height) for j in range(width))
            column += width
        placed.append(out)
    return placed


def _html(table: etree._Element, grid: _Grid) -> None:
    """HTML: rows are `tr` not inside a nested table; head rows are those in `thead`, or else the
    leading rows whose cells are all `th`. A body row's header is its `th` cells if it has any,
    else its first cell."""
    rows = [
        tr
        for tr in table.iter(etree.Element)
        if _local(tr) == HTML_ROW
        and next(a for a in tr.iterancestors() if _local(a) == HTML_TABLE) is table
    ]
    cells = [[c for c in tr if _local(c) in HTML_CELLS] for tr in rows]

    def span(el: etree._Element) -> tuple[None, int, int]:
        return None, max(_int(el.get("colspan"), 1), 1), max(_int(el.get("rowspan"), 1), 1)

    placed = _place(cells, span)
    heads = sum(1 for tr in rows if any(_local(a) == "thead" for a in tr.iterancestors()))
    if not heads:
        while (
            heads < len(rows)
            and cells[heads]
            and all(_local(c) == HTML_HEAD_CELL for c in cells[heads])
        ):
            heads += 1
    _split(grid, placed, heads)
    grid.stub_headers = not any(_local(c.element) == HTML_HEAD_CELL for c in grid.body)


def _cals(group: etree._Element, grid: _Grid) -> None:
    """CALS: columns are the `tgroup`'s `cols` (or its `colspec`s); an `entry` names its column by
    `colname`, or spans `namest` to `nameend`, and `morerows` more rows; head rows are `thead`'s."""
    names = {
        spec.get("colname"): i
        for i, spec in enumerate(c for c in group if _local(c) == "colspec")
        if spec.get("colname")
    }
    rows = [r for r in group.iter(etree.Element) if _local(r) == CALS_ROW]
    cells = [[c for c in row if _local(c) == CALS_CELL] for row in rows]

    def span(el: etree._Element) -> tuple[int | None, int, int]:
        first = names.get(el.get("namest") or el.get("colname"))
        last = names.get(el.get("nameend"), first)
        width = last - first + 1 if first is not None and last is not None else 1
        return first, max(width, 1), _int(el.get("morerows"), 0) + 1

    heads = sum(1 for r in rows if any(_local(a) == CALS_HEAD for a in r.iterancestors()))
    _split(grid, _place(cells, span), heads)
    grid.columns = max(_int(group.get("cols"), 0), grid.columns)


def _split(grid: _Grid, placed: list[list[_Cell]], heads: int) -> None:
    grid.head_levels = heads
    grid.head = [c for row in placed[:heads] for c in row]
    grid.body = [
        _Cell(
            element=c.element,
            row=c.row - heads,
            column=c.column,
            row_span=c.row_span,
            column_span=c.column_span,
        )
        for row in placed[heads:]
        for c in row
    ]
    grid.columns = max((c.column + c.column_span for row in placed for c in row), default=0)


def _table(grid: _Grid) -> Table | None:
    """The grid's cells with their header paths, or None when no cell gave text."""
    body = [c for c in grid.body if grid.span(c.element) is not None]
    if not body:
        return None
    cells = []
    stubs: dict[int, list[_Cell]] = {}
    stack: list[_Cell] = []
    for row in sorted({c.row for c in grid.body}):
        in_row = [c for c in grid.body if c.row == row]
        if grid.stub_headers:
            first = next(
                (c for c in grid.body if c.column == 0 and c.row <= row < c.row + c.row_span), None
            )
            if first is not None and first.row == row:
                while stack and stack[-1].indent >= first.indent:
                    stack.pop()
                stack.append(first)
            stubs[row] = list(stack) if first is not None and first.row <= row else []
        else:
            stubs[row] = [c for c in in_row if _local(c.element) == HTML_HEAD_CELL]
    for c in body:
        columns = range(c.column, c.column + c.column_span)
        over = [h for h in grid.head if h.column <= c.column < h.column + h.column_span]
        over.sort(key=lambda h: h.row)
        path = [h for i, h in enumerate(over) if i == 0 or h.element is not over[i - 1].element]
        column_header, column_spans = grid.words(path)
        row_header, row_spans = grid.words(stubs.get(c.row, []))
        doubt = None
        leaf = path[-1] if path else None
        if not column_header:
            doubt = f"column {c.column} has no header"
        elif leaf is not None and leaf.column_span > 1:
            doubt = f"the header over column {c.column} spans {leaf.column_span} columns"
        elif len({id(h.element) for h in grid.head if h.column in columns}) > len(path):
            doubt = f"the cell spans columns {c.column}-{c.column + c.column_span - 1} of different headers"
        start, end = grid.spans[id(c.element)]
        cells.append(
            TableCell(
                char_start=start,
                char_end=end,
                row=c.row,
                column=c.column,
                row_span=c.row_span,
                column_span=c.column_span,
                row_header=row_header,
                row_header_spans=row_spans,
                column_header=column_header,
                column_header_spans=column_spans,
                doubt=doubt,
            )
        )
    cells.sort(key=lambda t: (t.row, t.column))
    every = [s for c in cells for s in ((c.char_start, c.char_end), *c.column_header_spans)]
    return Table(
        char_start=min(a for a, _ in every),
        char_end=max(b for _, b in every),
        columns=grid.columns,
        cells=tuple(cells),
        refused_rows=tuple(grid.refused),
    )
