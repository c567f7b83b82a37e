"""Tables read off a PDF page's geometry (C20), in raw offsets of the version's extracted text.

The extractor's trace (`pdf.extract_pdf(trace=...)`) gives every body run where the text holds it,
with its glyph boxes: the same glyphs the text's offsets index (C1), checked equal to the version's
text. A table is a ruled grid (`pdf_table_grids`) or a block of rows whose runs line up in
columns; each cell's offsets are those of its words in the text, and `pdf_table_rows` makes the
rows a table. The rules (reasoning in docs/pdf.md#tables) are in `tables_from_trace`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from statistics import median
from typing import TYPE_CHECKING

from workbench.errors import ExtractionError
from workbench.text.pdf_page import frame
from workbench.text.pdf_table_grids import Segment, grids, lattice, page_rulings
from workbench.text.pdf_table_rows import (
    MIN_COLUMNS,
    Cell,
    Rows,
    Word,
    assemble,
    head_rows,
    join_pages,
)
from workbench.text.pdf_table_rows import pieces as cell_pieces
from workbench.text.table_cells import Table

if TYPE_CHECKING:
    from workbench.text.ocr import OcrOptions
    from workbench.text.pdf import Placed
    from workbench.text.pdf_layout import Run

MIN_ROWS = 3  # rows (lines with cells in two columns or more) a table needs, its head row included
ROW_GAP = 2.0  # line heights of white space between two rows beyond which a table ends
GUTTER_SHARE = 0.1  # share of a table's rows whose runs may cross a column gutter
GUTTER_MIN = 0.3  # line heights: the narrowest column gutter between runs
WORD_GUTTER = 0.5  # line heights: the narrowest column gutter between words of one run
WRAP_GAP = 0.5  # line heights: the widest white space between two lines of one wrapped cell
ROW_SPACING = 0.1  # line heights: the white space rows are set apart by beyond a cell's lines
MAX_PROSE_WORDS = 3  # words in every column's median cell above which a block is prose
QUADRANTS = (0, 90, 180, 270)


@dataclass(slots=True)
class _Line:
    """The runs of one page line, left to right, with their words."""

    v0: float
    v1: float
    runs: list[list[Word]] = field(default_factory=list)

    @property
    def height(self) -> float:
        return max(self.v1 - self.v0, 1.0)

    @property
    def base(self) -> float:
        """The line's baseline: its words' median."""
        return median(w.base for run in self.runs for w in run)


def _pitch(line: _Line, above: _Line) -> float:
    """From one line's baseline to the next's."""
    return line.base - above.base


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


def tables_from_trace(
    trace: Sequence[Placed], text: str, rules: Mapping[int, Sequence[Segment]] | None = None
) -> tuple[Table, ...]:
    """Tables from the runs the text holds (`pdf.Placed`), page by page, by these rules:

    - Ruled grids first, where the page's `rules` (`pdf_table_grids.rulings`) are given: rules
      that touch are one grid, read by `pdf_table_grids.lattice` (a cell wrapped over lines keeps
      every piece); a run whose first word a grid holds is read by no other table. The runs left
      are read by the rules below.
    - Lines: runs of a page whose vertical centre lies inside the first run's extent of a line
      join it (in the frame where the run reads left to right); a run's words are its non-space
      stretches, each placed along the line by its glyph boxes (by its share of the run's
      characters where the run has none, as OCR runs).
    - Blocks: consecutive lines with two runs or more, no more than `ROW_GAP` line heights
      apart, single-run lines allowed between them as `_continues` says; a block of at least
      `MIN_ROWS` lines of two runs or more is a table candidate.
    - Columns: gutters are stretches at least `GUTTER_MIN` line heights wide that runs of at most
      `GUTTER_SHARE` of the block's lines cross; the columns lie between them. At least
      `MIN_COLUMNS` columns, or no table.
    - Cells: a run's consecutive words whose centres fall in one column are a cell, its offsets
      from its first word's start to its last word's end; a word whose middle half crosses a
      gutter makes its cell span the columns it covers. Lines that continue the row above are
      joined to it (`_join_wrapped`).
    - Headers: the leading rows before the first row of figures are the head
      (`pdf_table_rows.head_rows`; position and content, no type size is read), an unruled
      head's lines read as head rows by `_head_levels`; each body cell's column header is the
      head cells over its column, its row header the cell in the stub column of its row (the
      leftmost column with a cell in at least half the body rows), or the stub cell of a row
      above that spans down to it. A column with no head cell, a head cell spanning columns, a
      cell spanning columns or a cell in pieces states its doubt (`cell_ambiguous` for a
      citation).
    - Pages: a table continued on the next page is joined into one
      (`pdf_table_rows.join_pages`), its repeated head not counted as rows.
    """
    pages: dict[int, list[tuple[int, Run]]] = defaultdict(list)
    for offset, page, run in trace:
        pages[page].append((offset, run))
    found: list[Rows] = []
    for page in sorted(pages):
        placed = pages[page]
        taken: set[int] = set()
        if rules and rules.get(page):
            turns = [_quadrant(run) for _, run in placed]
            q = max(set(turns), key=lambda t: (turns.count(t), -t))
            words = [w for offset, run in placed for w in _words(offset, run, text)]
            for grid in grids(rules[page], q):
                read, used = lattice(grid, words, text, page)
                taken |= used
                if read is not None:
                    found.append(read)
        rest = [(o, r) for o, r in placed if o not in taken]
        for block in _blocks(_lines(rest, text)):
            if (read := _table(block, text, page)) is not None:
                found.append(read)
    tables = [t for rows in join_pages(found, text) if (t := assemble(rows, text)) is not None]
    return tuple(sorted(tables, key=lambda t: t.char_start))


def _quadrant(run: Run) -> int:
    """The direction the run reads in: the one whose frame of its PDF box is its (u, v) box."""
    for q in QUADRANTS:
        u0, _, v0, _ = frame(q, run.x0, run.y0, run.x1, run.y1)
        if abs(u0 - run.u0) < 0.01 and abs(v0 - run.v0) < 0.01:
            return q
    return 0


def _words(offset: int, run: Run, text: str) -> list[Word]:
    """The run's words with their raw offsets and extents along the line."""
    chars = "".join(run.parts)
    q = _quadrant(run)
    words: list[Word] = []
    k = 0
    while k < len(chars):
        if chars[k].isspace():
            k += 1
            continue
        end = k
        while end < len(chars) and not chars[end].isspace():
            end += 1
        boxes = [b for b in (run.boxes or [])[k:end] if b is not None]
        base = run.v1
        if boxes:
            placed = [frame(q, *b) for b in boxes]
            u0, u1 = min(p[0] for p in placed), max(p[1] for p in placed)
            base = median(p[3] for p in placed)
        else:
            width = (run.u1 - run.u0) / max(len(chars), 1)
            u0, u1 = run.u0 + k * width, run.u0 + end * width
        words.append(Word(offset + k, offset + end, u0, u1, run.v0, run.v1, base))
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
        if len(line.runs) >= MIN_COLUMNS or (current and _continues(line, current)):
            current.append(line)
        else:
            close()
    close()
    return blocks


def _continues(line: _Line, current: list[_Line]) -> bool:
    """A single-run line stays in the block it follows: the first after a line of two runs or
    more (one line may stand between two rows), and any number more set within
    1 + `WRAP_GAP` line heights (the block's median) baseline to baseline of the line above
    whose run starts at least `GUTTER_MIN` line heights right of the block's left edge (the next
    lines of a cell wrapped past the first column; a paragraph after a table starts at its left
    edge)."""
    if len(current[-1].runs) >= MIN_COLUMNS:
        return True
    height = median(kept.height for kept in current)
    left = min(kept.runs[0][0].u0 for kept in current)
    return (
        _pitch(line, current[-1]) <= (1 + WRAP_GAP) * height
        and line.runs[0][0].u0 - left >= GUTTER_MIN * height
    )


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


def _cells(line: _Line, columns: list[tuple[float, float]], text: str) -> list[Cell]:
    """A line's cells: each run's consecutive words of one column, a word whose middle half
    crosses a gutter spanning;
    two pieces of one column on one line (runs set apart inside a cell) are one cell when no line
    break stands between them in the text."""
    cells: list[Cell] = []
    for run in line.runs:
        group: list[tuple[Word, int, int]] = []
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
    out: list[Cell] = []
    for cell in cells:
        before = out[-1] if out else None
        if (
            before is not None
            and before.column == cell.column
            and before.end <= cell.start
            and "\n" not in text[before.end : cell.start]
        ):
            out[-1] = Cell(before.start, cell.end, before.column, max(before.span, cell.span))
        else:
            out.append(cell)
    return out


def _merge(group: list[tuple[Word, int, int]]) -> Cell:
    low = min(g[1] for g in group)
    high = max(g[2] for g in group)
    return Cell(group[0][0].start, group[-1][0].end, low, high - low + 1)


def _prose(rows: list[list[Cell]], text: str) -> bool:
    """Running text set in columns: every column's median cell holds more than
    `MAX_PROSE_WORDS` words."""
    by_column: dict[int, list[int]] = defaultdict(list)
    for row in rows:
        for c in row:
            by_column[c.column].append(len(text[c.start : c.end].split()))
    return all(median(counts) > MAX_PROSE_WORDS for counts in by_column.values())


def _marked_text(rows: list[list[Cell]], text: str) -> bool:
    """Running text with marks in its margin (numbered notes, a list): two columns, every cell of
    the first one word, the second's median cell more than `MAX_PROSE_WORDS` words (a table of
    three columns or more keeps its labels)."""
    by_column: dict[int, list[int]] = defaultdict(list)
    for row in rows:
        for c in row:
            by_column[c.column].append(len(c.value(text).split()))
    first = min(by_column, default=0)
    return len(by_column) == 2 and all(
        max(counts) == 1 if k == first else median(counts) > MAX_PROSE_WORDS
        for k, counts in by_column.items()
    )


def _table(block: list[_Line], text: str, page: int) -> Rows | None:
    """The block read as a table: its head lines (`head_rows` on its cells), then its body rows
    (`_join_wrapped`); where a column holds no body cell, the columns are those the body lines
    alone make (a head wider than its column, or set closer to its neighbour than the figures
    are, makes no column of its own); the head lines are read as head rows by `_head_levels`.
    A block more than half of whose body rows hold one cell once joined, or whose body is text
    with marks in its margin (`_marked_text`), is no table: the lines a list item or a note
    wraps over, hanging from its mark, are not a column's cells."""
    columns = _columns(block)
    if len(columns) < MIN_COLUMNS:
        return None
    rows = [_cells(line, columns, text) for line in block]
    if _prose(rows, text):
        return None
    heads = head_rows(rows, text)
    held = {c.column for row in rows[heads:] for c in row}
    if heads and len(block) - heads >= MIN_ROWS - 1 and len(held) < len(columns):
        body_columns = _columns(block[heads:])
        if len(body_columns) >= MIN_COLUMNS:
            columns = body_columns
    body = _join_wrapped(
        block[heads:], [_cells(line, columns, text) for line in block[heads:]], text
    )
    if 2 * sum(len(row) < MIN_COLUMNS for row in body) > len(body) or _marked_text(body, text):
        return None  # lines a list item or a note wraps over, hanging from its mark: no table
    head = _head_levels(block[:heads], columns)
    return Rows(page, tuple(columns), len(columns), head, body)


def _join_wrapped(lines: list[_Line], rows: list[list[Cell]], text: str) -> list[list[Cell]]:
    """Body lines joined where cells wrap. A line with no cell in the first column (the leftmost
    any line holds a cell in) and no figure (`_number`) may hold the next lines of the row
    above; a stretch of such lines is joined to that row when, baseline to baseline, each line
    from the row down through them is within 1 + `WRAP_GAP` line heights (the block's median)
    of the one above, and the pitch under the stretch (to the next row; at the table's end, the
    pitch over the row it hangs from) is wider than each of them by more than `ROW_SPACING` line
    heights: the rows are set apart and the stretch hangs from the row above (top-aligned
    cells). Set evenly, the lines are left one row each (a cell centred on its row may as well
    begin on the line above). Joined, each cell joins that row's cell in its column (pieces in
    text order, one piece where only white space stands between them), or stands in that row
    where it has none."""
    stub = min((c.column for row in rows for c in row), default=0)
    height = median(line.height for line in lines)
    hangs = [
        k > 0
        and bool(row)
        and all(c.column != stub for c in row)
        and not any(_number(c.value(text)) for c in row)
        for k, row in enumerate(rows)
    ]
    out: list[list[Cell]] = []
    k = 0
    while k < len(rows):
        end = k
        while end < len(rows) and hangs[end]:
            end += 1
        if end == k:
            out.append(list(rows[k]))
            k += 1
            continue
        pitches = [_pitch(lines[i], lines[i - 1]) for i in range(k, end)]
        # The pitch that sets rows apart: under the stretch, or at a table's end over the row it
        # hangs from.
        apart = [_pitch(lines[i], lines[i - 1]) for i in (end, k - 1) if 0 < i < len(rows)]
        if (
            out
            and apart
            and max(pitches) <= (1 + WRAP_GAP) * height
            and apart[0] - max(pitches) > ROW_SPACING * height
        ):
            above = out[-1]
            for row in rows[k:end]:
                for cell in row:
                    at = next((i for i, c in enumerate(above) if c.column == cell.column), None)
                    if at is None:
                        above.append(cell)
                        above.sort(key=lambda c: c.column)
                    else:
                        above[at] = _joined(above[at], cell, text)
        else:
            out += [list(row) for row in rows[k:end]]
        k = end
    return out


def _number(value: str) -> bool:
    """A figure: a digit and no letter ("1,250", "(45)", "2014/12/03"; not "unit 4")."""
    return any(ch.isdigit() for ch in value) and not any(ch.isalpha() for ch in value)


def _joined(first: Cell, then: Cell, text: str) -> Cell:
    """Two cells of one column read as one, its pieces in text order."""
    pieces: list[tuple[int, int]] = []
    for a, b in sorted(
        [*(first.spans or ((first.start, first.end),)), *(then.spans or ((then.start, then.end),))]
    ):
        if pieces and not text[pieces[-1][1] : a].strip():
            pieces[-1] = (pieces[-1][0], b)
        else:
            pieces.append((a, b))
    many = len(pieces) > 1
    return Cell(
        pieces[0][0],
        pieces[0][1],
        first.column,
        max(first.span, then.span),
        doubt="the cell's text is not contiguous in the text" if many else first.doubt,
        spans=tuple(pieces) if many else (),
    )


def _head_groups(line: _Line) -> list[list[Word]]:
    """A head line's cells: each run's words, split where two are set more than `WORD_GUTTER`
    line heights apart."""
    out: list[list[Word]] = []
    for run in line.runs:
        out.append([run[0]])
        for before, word in pairwise(run):
            if word.u0 - before.u1 > WORD_GUTTER * line.height:
                out.append([word])
            else:
                out[-1].append(word)
    return out


def _centre(words: list[Word]) -> float:
    return (words[0].u0 + words[-1].u1) / 2


def _centred_over(head: list[Word], below: list[list[Word]]) -> bool:
    """A head cell spans the cells below it: its centre lies within half its width of the centre
    of their extent (a spanning head is set over the middle of what it spans)."""
    hull = (min(b[0].u0 for b in below) + max(b[-1].u1 for b in below)) / 2
    return abs(_centre(head) - hull) <= (head[-1].u1 - head[0].u0) / 2


def _column_under(columns: list[tuple[float, float]], words: list[Word]) -> int:
    """The column a head cell stands over: the one its extent overlaps most (ties to the left),
    else the one nearest its centre."""
    u0, u1 = words[0].u0, words[-1].u1
    overlaps = [min(u1, b) - max(u0, a) for a, b in columns]
    best = max(range(len(columns)), key=lambda k: (overlaps[k], -k))
    return best if overlaps[best] > 0 else _column_of(columns, _centre(words))


def _head_levels(lines: list[_Line], columns: list[tuple[float, float]]) -> list[list[Cell]]:
    """An unruled table's head lines as head rows. Each cell (`_head_groups`) stands in the column
    nearest its centre. A line holding a cell that is the nearest (by centre) to two cells or more
    of the line below ends a head row, that cell spanning from its column to theirs; the lines
    before it down to the last such line are one head row, the cells of one column joined as one
    cell wrapped over lines (its pieces in text order)."""
    grouped = [_head_groups(line) for line in lines]
    levels: list[dict[int, tuple[int, list[Word]]]] = []
    level: dict[int, tuple[int, list[Word]]] | None = None
    for k, groups in enumerate(grouped):
        if k and lines[k].v0 - lines[k - 1].v1 > WRAP_GAP * lines[k].height:
            level = None  # set apart by more than a line's leading: not one cell's next line
        if level is None:
            level = {}
            levels.append(level)
        below = grouped[k + 1] if k + 1 < len(grouped) else []
        nearest = [
            min(range(len(groups)), key=lambda g: (abs(_centre(groups[g]) - _centre(b)), g))
            for b in below
        ]
        children = {
            g: kids
            for g, words in enumerate(groups)
            if len(kids := [b for b, p in zip(below, nearest, strict=True) if p == g]) > 1
            and _centred_over(words, kids)
        }
        for g, words in enumerate(groups):
            own = [_column_under(columns, w) for w in (words, *children.get(g, ()))]
            low, high = min(own), max(own)
            was_high, held = level.get(low, (low, []))
            level[low] = (max(was_high, high), held + words)
        spanning = bool(children)
        if spanning:
            level = None
    starts = sorted(w.start for groups in grouped for words in groups for w in words)
    head: list[list[Cell]] = []
    for cells in levels:
        row = []
        for low in sorted(cells):
            high, words = cells[low]
            words = sorted(words, key=lambda w: w.start)
            pieces = cell_pieces([w.start for w in words], [w.end for w in words], starts)
            spans = tuple(pieces) if len(pieces) > 1 else ()
            row.append(Cell(pieces[0][0], pieces[0][1], low, high - low + 1, spans=spans))
        head.append(row)
    return head
