"""Tables read off a PDF page's geometry (C20), in raw offsets of the version's extracted text.

The extractor's trace (`pdf.extract_pdf(trace=...)`) gives every body run where the text holds it,
with its glyph boxes: the same glyphs the text's offsets index (C1), checked equal to the version's
text. A table is a block of rows whose runs line up in columns; each cell's offsets are those of
its words in the text. The rules (reasoning in docs/pdf.md#tables) are in `tables_from_trace`.
"""

from __future__ import annotations

import ctypes
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from statistics import median
from typing import TYPE_CHECKING

from workbench.cells import TableCell
from workbench.errors import ExtractionError
from workbench.text.pdf_page import frame
from workbench.text.table_cells import Table

if TYPE_CHECKING:
    from workbench.text.ocr import OcrOptions
    from workbench.text.pdf import Placed
    from workbench.text.pdf_layout import Run

MIN_ROWS = 3  # rows (lines with cells in two columns or more) a table needs, its head row included
MIN_COLUMNS = 2
ROW_GAP = 2.0  # line heights of white space between two rows beyond which a table ends
GUTTER_SHARE = 0.1  # share of a table's rows whose runs may cross a column gutter
GUTTER_MIN = 0.3  # line heights: the narrowest column gutter between runs
WORD_GUTTER = 0.5  # line heights: the narrowest column gutter between words of one run
MAX_HEAD_ROWS = 5  # leading rows that may be the head before a row of figures
MAX_PROSE_WORDS = 3  # words in every column's median cell above which a block is prose
QUADRANTS = (0, 90, 180, 270)
THIN = 2.0  # points: a path stretch or rectangle this thin is a ruling line
MIN_RULE = 4.0  # points: the shortest ruling line
FRAME_SHARE = 0.9  # of a grid side's length its rules must cover
SNAP = 2.0  # points: two rules this close are one grid line; a rule this near a cell edge meets it

Segment = tuple[float, float, float, float]  # x0, y0, x1, y1 in PDF points


@dataclass(frozen=True, slots=True)
class _Word:
    """A word of a run: its raw `[start, end)` in the text and its extent along the line."""

    start: int
    end: int
    u0: float
    u1: float
    v0: float = 0.0
    v1: float = 0.0


@dataclass(slots=True)
class _Line:
    """The runs of one page line, left to right, with their words."""

    v0: float
    v1: float
    runs: list[list[_Word]] = field(default_factory=list)

    @property
    def height(self) -> float:
        return max(self.v1 - self.v0, 1.0)


def read_pdf_tables(
    data: bytes,
    *,
    source: str,
    text: str,
    language: str | None = None,
    ocr: OcrOptions | None = None,
) -> tuple[Table, ...]:
    """The tables of a PDF whose extracted text is `text` (rules in `tables_from_trace`).

    Refused (`ExtractionError`) when the re-extraction's text is not `text`.
    """
    from workbench.text.pdf import extract_pdf

    trace: list[Placed] = []
    extraction = extract_pdf(data, source=source, language=language, ocr=ocr, trace=trace)
    if extraction.text != text:
        raise ExtractionError(f"{source}: the PDF re-extracted is not the version's text")
    return tables_from_trace(trace, text, page_rulings(data, {p for _, p, _ in trace}))


def page_rulings(data: bytes, pages: set[int]) -> dict[int, list[Segment]]:
    """The ruling lines of each of `pages` (1-based) of the PDF `data`."""
    import pypdfium2 as pdfium  # type: ignore[import-untyped]

    document = pdfium.PdfDocument(data)
    try:
        return {p: rulings(document[p - 1]) for p in sorted(pages)}
    finally:
        document.close()


def rulings(page: object) -> list[Segment]:
    """The page's ruling lines in PDF points: a path at most `THIN` across and at least
    `MIN_RULE` long is one (a thin filled rectangle drawn as a line); of any other stroked path,
    every straight horizontal or vertical stretch at least `MIN_RULE` long (a stroked rectangle
    gives its four sides). A filled shape's edges are not rules: shaded cells are set apart by
    white, which is no line."""
    import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]

    out: list[Segment] = []
    x, y = ctypes.c_float(), ctypes.c_float()
    for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_PATH], max_depth=4):  # type: ignore[attr-defined]
        left, bottom, right, top = obj.get_bounds()
        if min(right - left, top - bottom) <= THIN and max(right - left, top - bottom) >= MIN_RULE:
            out.append((left, bottom, right, top))
            continue
        fill, stroke = ctypes.c_int(), ctypes.c_int()
        pdfium_c.FPDFPath_GetDrawMode(obj.raw, ctypes.byref(fill), ctypes.byref(stroke))
        m = obj.get_matrix()
        paths: list[list[tuple[float, float]]] = []
        for k in range(pdfium_c.FPDFPath_CountSegments(obj.raw)):
            segment = pdfium_c.FPDFPath_GetPathSegment(obj.raw, k)
            pdfium_c.FPDFPathSegment_GetPoint(segment, ctypes.byref(x), ctypes.byref(y))
            at = (m.a * x.value + m.c * y.value + m.e, m.b * x.value + m.d * y.value + m.f)
            if (
                pdfium_c.FPDFPathSegment_GetType(segment) == pdfium_c.FPDF_SEGMENT_MOVETO
                or not paths
            ):
                paths.append([at])
            else:
                paths[-1].append(at)
            if pdfium_c.FPDFPathSegment_GetClose(segment):
                paths[-1].append(paths[-1][0])
        for points in paths:
            if stroke.value:
                for a, b in pairwise(points):
                    out += _straight(a, b)
            elif fill.value:  # a filled stretch thin enough is a rule drawn as a rectangle
                xs, ys = [p[0] for p in points], [p[1] for p in points]
                out += _straight((min(xs), min(ys)), (max(xs), max(ys)))
    return out


def _straight(a: tuple[float, float], b: tuple[float, float]) -> list[Segment]:
    (x0, y0), (x1, y1) = a, b
    if (abs(x1 - x0) <= THIN or abs(y1 - y0) <= THIN) and max(
        abs(x1 - x0), abs(y1 - y0)
    ) >= MIN_RULE:
        return [(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))]
    return []


def tables_from_trace(
    trace: Sequence[Placed], text: str, rules: Mapping[int, Sequence[Segment]] | None = None
) -> tuple[Table, ...]:
    """Tables from the runs the text holds (`pdf.Placed`), page by page, by these rules:

    - Ruled grids first, where the page's `rules` (`rulings`) are given: rules that touch are
      one grid (`_grids`), read by `_lattice`; a run whose first word a grid holds is read by
      no other table. The runs left are read by the rules below.
    - Lines: runs of a page whose vertical centre lies inside the first run's extent of a line
      join it (in the frame where the run reads left to right); a run's words are its non-space
      stretches, each placed along the line by its glyph boxes (by its share of the run's
      characters where the run has none, as OCR runs).
    - Blocks: consecutive lines with two runs or more, no more than `ROW_GAP` line heights
      apart, one single-run line allowed between two of them; a block of at least `MIN_ROWS`
      lines is a table candidate.
    - Columns: gutters are stretches at least `GUTTER_MIN` line heights wide that runs of at most
      `GUTTER_SHARE` of the block's lines cross; the columns lie between them. At least
      `MIN_COLUMNS` columns, or no table.
    - Cells: a run's consecutive words whose centres fall in one column are a cell, its offsets
      from its first word's start to its last word's end; a word whose middle half crosses a gutter makes its
      cell span the columns it covers.
    - Headers: the leading rows before the first row of figures are the head (`_head_rows`;
      position and content, no type size is read); each body cell's column header is the head
      cells over its column, its row header the cell in the stub column of its row (the
      leftmost column with a cell in at least half the body rows), or the stub cell of a row
      above that spans down to it. A column with no head cell, a head cell spanning
      columns, or a cell spanning columns states its doubt (`cell_ambiguous` for a citation).
    """
    pages: dict[int, list[tuple[int, Run]]] = defaultdict(list)
    for offset, page, run in trace:
        pages[page].append((offset, run))
    tables: list[Table] = []
    for page in sorted(pages):
        placed = pages[page]
        taken: set[int] = set()
        if rules and rules.get(page):
            turns = [_quadrant(run) for _, run in placed]
            q = max(set(turns), key=lambda t: (turns.count(t), -t))
            words = [w for offset, run in placed for w in _words(offset, run, text)]
            for grid in _grids(rules[page], q):
                table, used = _lattice(grid, words, text)
                taken |= used
                if table is not None:
                    tables.append(table)
        rest = [(o, r) for o, r in placed if o not in taken]
        for block in _blocks(_lines(rest, text)):
            if (table := _table(block, text)) is not None:
                tables.append(table)
    return tuple(sorted(tables, key=lambda t: t.char_start))


@dataclass(frozen=True, slots=True)
class _Grid:
    """Ruled grid lines in the reading frame: column lines (u) and row lines (v), and the
    horizontal (v, u0, u1) and vertical (u, v0, v1) rules that draw them."""

    us: tuple[float, ...]
    vs: tuple[float, ...]
    horizontal: tuple[tuple[float, float, float], ...]
    vertical: tuple[tuple[float, float, float], ...]


def _snap(values: list[float]) -> list[float]:
    """Rule positions as grid lines: one closer than `MIN_RULE` to the last kept is the same line
    (a double rule, or a cell no glyph fits in)."""
    out: list[float] = []
    for v in sorted(values):
        if out and v - out[-1] < MIN_RULE:
            continue
        out.append(v)
    return out


def _grids(segments: Sequence[Segment], q: int) -> list[_Grid]:
    """Ruled grids: rules that touch (within `SNAP`) are one grid; one of at least two
    horizontal and two vertical rules, making at least `MIN_COLUMNS` columns, is kept."""
    rules = []
    for x0, y0, x1, y1 in segments:
        u0, u1, v0, v1 = frame(q, x0, y0, x1, y1)
        rules.append((u0, u1, v0, v1))
    parent = list(range(len(rules)))

    def find(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for i, a in enumerate(rules):
        for j in range(i + 1, len(rules)):
            b = rules[j]
            if (
                a[0] - SNAP <= b[1]
                and b[0] - SNAP <= a[1]
                and a[2] - SNAP <= b[3]
                and b[2] - SNAP <= a[3]
            ):
                parent[find(i)] = find(j)
    groups: dict[int, list[tuple[float, float, float, float]]] = defaultdict(list)
    for k, r in enumerate(rules):
        groups[find(k)].append(r)
    grids = []
    for group in groups.values():
        horizontal = tuple(((v0 + v1) / 2, u0, u1) for u0, u1, v0, v1 in group if v1 - v0 <= THIN)
        vertical = tuple(((u0 + u1) / 2, v0, v1) for u0, u1, v0, v1 in group if u1 - u0 <= THIN)
        us, vs = _snap([v[0] for v in vertical]), _snap([h[0] for h in horizontal])
        if len(vs) < 2 or len(us) < MIN_COLUMNS + 1:
            continue
        grid = _Grid(tuple(us), tuple(vs), horizontal, vertical)
        if _framed(grid):
            grids.append(grid)
    return grids


def _framed(grid: _Grid) -> bool:
    """Whether the grid's four sides are rules along at least `FRAME_SHARE` of their length: a
    ruled table is boxed; rules under a head or beside a column alone make no grid."""

    def covered(
        rules: Sequence[tuple[float, float, float]], at: float, low: float, high: float
    ) -> bool:
        length = sum(
            max(0.0, min(b, high) - max(a, low)) for p, a, b in rules if abs(p - at) <= MIN_RULE
        )
        return length >= FRAME_SHARE * (high - low)

    u0, u1, v0, v1 = grid.us[0], grid.us[-1], grid.vs[0], grid.vs[-1]
    return (
        covered(grid.horizontal, v0, u0, u1)
        and covered(grid.horizontal, v1, u0, u1)
        and covered(grid.vertical, u0, v0, v1)
        and covered(grid.vertical, u1, v0, v1)
    )


def _ruled(rules: Sequence[tuple[float, float, float]], at: float, low: float, high: float) -> bool:
    """Whether a rule stands at `at` across the middle of `low`..`high`."""
    middle = (low + high) / 2
    return any(abs(p - at) <= SNAP and a - SNAP <= middle <= b + SNAP for p, a, b in rules)


def _lattice(grid: _Grid, words: list[_Word], text: str) -> tuple[Table | None, set[int]]:
    """The words inside a ruled grid placed in its cells: a tile joins its right (lower)
    neighbour where no rule stands between them across its middle, so a merged cell spans; a
    cell's words in text order give its offsets, from its first to its last where no other
    word of the grid stands between them, else its first piece only, with the doubt stated.
    Returns the table and the run offsets of the words it holds (read as no other table)."""
    us, vs = grid.us, grid.vs
    rows, cols = len(vs) - 1, len(us) - 1
    owner = {(i, j): (i, j) for i in range(rows) for j in range(cols)}

    def top(t: tuple[int, int]) -> tuple[int, int]:
        while owner[t] != t:
            t = owner[t]
        return t

    for i in range(rows):
        for j in range(cols):
            if j + 1 < cols and not _ruled(grid.vertical, us[j + 1], vs[i], vs[i + 1]):
                owner[top((i, j + 1))] = top((i, j))
            if i + 1 < rows and not _ruled(grid.horizontal, vs[i + 1], us[j], us[j + 1]):
                a, b = top((i, j)), top((i + 1, j))
                if a != b:
                    owner[max(a, b)] = min(a, b)
    inside: dict[tuple[int, int], list[_Word]] = defaultdict(list)
    used: set[int] = set()
    for w in words:
        u, v = (w.u0 + w.u1) / 2, (w.v0 + w.v1) / 2
        if not (us[0] <= u <= us[-1] and vs[0] <= v <= vs[-1]):
            continue
        i = max(k for k in range(rows) if vs[k] <= v)
        j = max(k for k in range(cols) if us[k] <= u)
        inside[top((i, j))].append(w)
    if not inside:
        return None, used
    lines = [len(_snap([(w.v0 + w.v1) / 2 for w in held])) for held in inside.values()]
    if 2 * sum(n > 1 for n in lines) > len(lines):
        return None, used  # a frame round an unruled table: most "cells" hold several lines
    starts = sorted(w.start for ws in inside.values() for w in ws)
    tiles: dict[tuple[int, int], list[tuple[int, int]]] = defaultdict(list)
    for t in owner:
        tiles[top(t)].append(t)
    by_row: dict[int, list[_Cell]] = defaultdict(list)
    for key, held in inside.items():
        held.sort(key=lambda w: w.start)
        used.update(w.start for w in held)
        first = 0
        for k in range(1, len(held)):  # the first piece: up to a word of another cell
            between = [s for s in starts if held[k - 1].start < s < held[k].start]
            if between:
                break
            first = k
        doubt = None if first == len(held) - 1 else "the cell's text is not contiguous in the text"
        placed = tiles[key]
        low_row, low_col = min(t[0] for t in placed), min(t[1] for t in placed)
        span = max(t[1] for t in placed) - low_col + 1
        height = max(t[0] for t in placed) - low_row + 1
        by_row[low_row].append(_Cell(held[0].start, held[first].end, low_col, span, height, doubt))
    grid_rows = [sorted(by_row.get(i, []), key=lambda c: c.column) for i in range(rows)]
    while grid_rows and not grid_rows[0]:
        grid_rows.pop(0)
    return _assemble(grid_rows, cols, text), used


def _quadrant(run: Run) -> int:
    """The direction the run reads in: the one whose frame of its PDF box is its (u, v) box."""
    for q in QUADRANTS:
        u0, _, v0, _ = frame(q, run.x0, run.y0, run.x1, run.y1)
        if abs(u0 - run.u0) < 0.01 and abs(v0 - run.v0) < 0.01:
            return q
    return 0


def _words(offset: int, run: Run, text: str) -> list[_Word]:
    """The run's words with their raw offsets and extents along the line."""
    chars = "".join(run.parts)
    q = _quadrant(run)
    words: list[_Word] = []
    k = 0
    while k < len(chars):
        if chars[k].isspace():
            k += 1
            continue
        end = k
        while end < len(chars) and not chars[end].isspace():
            end += 1
        boxes = [b for b in (run.boxes or [])[k:end] if b is not None]
        if boxes:
            spans = [frame(q, *b)[:2] for b in boxes]
            u0, u1 = min(s[0] for s in spans), max(s[1] for s in spans)
        else:
            width = (run.u1 - run.u0) / max(len(chars), 1)
            u0, u1 = run.u0 + k * width, run.u0 + end * width
        words.append(_Word(offset + k, offset + end, u0, u1, run.v0, run.v1))
        k = end
    return words


def _lines(placed: list[tuple[int, Run]], text: str) -> list[_Line]:
    """The page's runs gathered into lines, top to bottom, each line's runs left to right."""
    lines: list[tuple[_Line, float, float]] = []  # line, its first run's extent
    for offset, run in sorted(placed, key=lambda p: ((p[1].v0 + p[1].v1) / 2, p[1].u0)):
        centre = (run.v0 + run.v1) / 2
        words = _words(offset, run, text)
        if not words:
            continue
        for line, top, bottom in lines[-3:]:
            if top <= centre <= bottom:
                line.runs.append(words)
                line.v0, line.v1 = min(line.v0, run.v0), max(line.v1, run.v1)
                break
        else:
            lines.append((_Line(run.v0, run.v1, [words]), run.v0, run.v1))
    out = [line for line, _, _ in lines]
    for line in out:
        line.runs.sort(key=lambda r: r[0].u0)
    return out


def _blocks(lines: list[_Line]) -> list[list[_Line]]:
    """Runs of table-like lines (`tables_from_trace`'s "Blocks" rule)."""
    blocks: list[list[_Line]] = []
    current: list[_Line] = []

    def close() -> None:
        while current and len(current[-1].runs) < MIN_COLUMNS:
            current.pop()
        if sum(len(line.runs) >= MIN_COLUMNS for line in current) >= MIN_ROWS:
            blocks.append(list(current))
        current.clear()

    for line in lines:
        if current and line.v0 - current[-1].v1 > ROW_GAP * line.height:
            close()
        if len(line.runs) >= MIN_COLUMNS:
            current.append(line)
        elif current and len(current[-1].runs) >= MIN_COLUMNS:
            current.append(line)  # one single-run line may stand between two rows
        else:
            close()
    close()
    return blocks


def _columns(block: list[_Line]) -> list[tuple[float, float]]:
    """The block's columns as (u0, u1), between its gutters (`tables_from_trace`'s rule): a
    stretch that the words of at most `GUTTER_SHARE` of the lines cross is a gutter when it is
    at least `GUTTER_MIN` line heights wide and no more runs cross it either (runs are set
    apart), or at least `WORD_GUTTER` wide (two columns set closer than a run break, wider
    than a word space)."""
    height = median(line.height for line in block)
    runs = [(r[0].u0, r[-1].u1) for line in block for r in line.runs]
    words = [(w.u0, w.u1) for line in block for r in line.runs for w in r]
    left, right = min(a for a, _ in runs), max(b for _, b in runs)
    allowed = int(GUTTER_SHARE * len(block))
    cuts = sorted({left, right, *(a for a, _ in words), *(b for _, b in words)})
    stretches: list[tuple[float, float, bool]] = []  # open stretches, and whether runs leave them
    for a, b in pairwise(cuts):
        if sum(1 for u0, u1 in words if u0 < b and u1 > a) > allowed:
            continue
        by_runs = sum(1 for u0, u1 in runs if u0 < b and u1 > a) <= allowed
        if stretches and stretches[-1][1] == a:
            first, _, clear = stretches[-1]
            stretches[-1] = (first, b, clear and by_runs)
        else:
            stretches.append((a, b, by_runs))
    columns: list[tuple[float, float]] = []
    start = left
    for a, b, clear in stretches:
        wide = b - a >= (GUTTER_MIN if clear else WORD_GUTTER) * height
        if wide and start < a:
            columns.append((start, a))
            start = b
    columns.append((start, right))
    return [c for c in columns if any(c[0] <= (u0 + u1) / 2 <= c[1] for u0, u1 in words)]


def _column_of(columns: list[tuple[float, float]], u: float) -> int:
    """The column holding `u`, else the nearest one."""
    for k, (a, b) in enumerate(columns):
        if a <= u <= b:
            return k
    return min(
        range(len(columns)), key=lambda k: min(abs(u - columns[k][0]), abs(u - columns[k][1]))
    )


@dataclass(frozen=True, slots=True)
class _Cell:
    start: int
    end: int
    column: int
    span: int
    rows: int = 1
    doubt: str | None = None


def _cells(line: _Line, columns: list[tuple[float, float]], text: str) -> list[_Cell]:
    """A line's cells: each run's consecutive words of one column, a word whose middle half
    crosses a gutter spanning;
    two pieces of one column on one line (runs set apart inside a cell) are one cell when no line
    break stands between them in the text."""
    cells: list[_Cell] = []
    for run in line.runs:
        group: list[tuple[_Word, int, int]] = []
        for word in run:
            # A word spans where its core (its middle half) crosses a gutter: a wide head
            # that only reaches over a narrow gutter stays in its own column.
            quarter = (word.u1 - word.u0) / 4
            first = _column_of(columns, word.u0 + quarter)
            last = _column_of(columns, word.u1 - quarter)
            centre = _column_of(columns, (word.u0 + word.u1) / 2)
            low, high = (first, last) if last > first else (centre, centre)
            if group and low > group[-1][2]:
                cells.append(_merge(group))
                group = []
            group.append((word, low, high))
        if group:
            cells.append(_merge(group))
    out: list[_Cell] = []
    for cell in cells:
        before = out[-1] if out else None
        if (
            before is not None
            and before.column == cell.column
            and before.end <= cell.start
            and "\n" not in text[before.end : cell.start]
        ):
            out[-1] = _Cell(before.start, cell.end, before.column, max(before.span, cell.span))
        else:
            out.append(cell)
    return out


def _merge(group: list[tuple[_Word, int, int]]) -> _Cell:
    low = min(g[1] for g in group)
    high = max(g[2] for g in group)
    return _Cell(group[0][0].start, group[-1][0].end, low, high - low + 1)


def _head_rows(rows: list[list[_Cell]], text: str) -> int:
    """How many leading rows are the head: those before the first row of figures (at least
    half its cells past the first column open with no letter: a digit, a sign, a dash for
    none), at most `MAX_HEAD_ROWS`; none where the first row is one (a table continued from
    the page before); one where no row of figures comes that early."""
    for k, row in enumerate(rows[: MAX_HEAD_ROWS + 1]):
        values = [text[c.start : c.start + 1] for c in row if c.column > 0]
        if values and 2 * sum(not v.isalpha() for v in values) >= len(values):
            return k
    return 1


def _prose(rows: list[list[_Cell]], text: str) -> bool:
    """Running text set in columns: every column's median cell holds more than
    `MAX_PROSE_WORDS` words."""
    by_column: dict[int, list[int]] = defaultdict(list)
    for row in rows:
        for c in row:
            by_column[c.column].append(len(text[c.start : c.end].split()))
    return all(median(counts) > MAX_PROSE_WORDS for counts in by_column.values())


def _table(block: list[_Line], text: str) -> Table | None:
    """The block read as a table: its head rows (`_head_rows`), then its body rows."""
    columns = _columns(block)
    if len(columns) < MIN_COLUMNS:
        return None
    rows = [_cells(line, columns, text) for line in block]
    if _prose(rows, text):
        return None
    return _assemble(rows, len(columns), text)


def _assemble(rows: list[list[_Cell]], columns: int, text: str) -> Table | None:
    """Rows of cells made a table: its head rows (`_head_rows`), then its body rows, each body
    cell with its column-header path (the head cells over its column, top first) and its row
    header (the cell in its stub column, see `tables_from_trace`)."""
    if not rows:
        return None
    heads = _head_rows(rows, text)
    head = [c for row in rows[:heads] for c in row]
    out: list[TableCell] = []
    body_rows = rows[heads:]
    # The stub column: the leftmost column with a cell in at least half the body rows.
    stub_column = next(
        (
            k
            for k in range(columns)
            if 2 * sum(any(c.column == k for c in row) for row in body_rows) >= len(body_rows)
        ),
        0,
    )
    above: tuple[int, _Cell] | None = None  # the last stub cell and its row
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
            column_spans = tuple((h.start, h.end) for h in over)
            out.append(
                TableCell(
                    char_start=c.start,
                    char_end=c.end,
                    row=r,
                    column=c.column,
                    row_span=c.rows,
                    column_span=c.span,
                    row_header=tuple(text[a:b] for a, b in row_spans),
                    row_header_spans=row_spans,
                    column_header=tuple(text[a:b] for a, b in column_spans),
                    column_header_spans=column_spans,
                    doubt=doubt,
                )
            )
    if not out:
        return None
    every = [(c.char_start, c.char_end) for c in out] + [(h.start, h.end) for h in head]
    return Table(
        char_start=min(a for a, _ in every),
        char_end=max(b for _, b in every),
        columns=columns,
        cells=tuple(out),
        head=tuple(
            TableCell(
                char_start=c.start, char_end=c.end, row=r, column=c.column, column_span=c.span
            )
            for r, row in enumerate(rows[:heads])
            for c in row
        ),
    )
