"""Ruled tables (C20): a PDF page's ruling lines read off PDFium's path objects, gathered into
grids, and the words inside a grid placed in its cells. `pdf_tables` hands it the page's words
(raw offsets of the version's text, C1) and reads the rest of the page; the rules are stated in
docs/pdf.md#tables and in each function's docstring.
"""

from __future__ import annotations

import ctypes
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from workbench.text.pdf_page import frame
from workbench.text.pdf_table_rows import (
    MAX_HEAD_ROWS,
    MIN_COLUMNS,
    Cell,
    Rows,
    Word,
    head_rows,
    pieces,
)

THIN = 2.0  # points: a path stretch or rectangle this thin is a ruling line
MIN_RULE = 4.0  # points: the shortest ruling line
FRAME_SHARE = 0.9  # of a grid side's length its rules must cover
DOUBLE_APART = 1.0  # points: two rules' middles at least this far apart (and nearer than MIN_RULE) are a double rule
SNAP = 2.0  # points: two rules this close are one grid line; a rule this near a cell edge meets it

Segment = tuple[float, float, float, float]  # x0, y0, x1, y1 in PDF points


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


def grids(segments: Sequence[Segment], q: int) -> list[_Grid]:
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


def _double(grid: _Grid) -> list[int]:
    """The grid's row lines (indices into `vs`, top first) drawn double: two rules near the line
    (within `MIN_RULE`) whose middles lie at least `DOUBLE_APART` apart and which run side by side
    along at least half the grid's width (a head set apart from its body; the stretch under a
    head cell spanning down may be drawn single)."""
    half = (grid.us[-1] - grid.us[0]) / 2
    out = []
    for k, line in enumerate(grid.vs):
        near = [(v, u0, u1) for v, u0, u1 in grid.horizontal if abs(v - line) < MIN_RULE]
        if any(
            abs(a[0] - b[0]) >= DOUBLE_APART and min(a[2], b[2]) - max(a[1], b[1]) >= half
            for i, a in enumerate(near)
            for b in near[i + 1 :]
        ):
            out.append(k)
    return out


def lattice(grid: _Grid, words: list[Word], text: str, page: int) -> tuple[Rows | None, set[int]]:
    """The words inside a ruled grid placed in its cells: a tile joins its right (lower)
    neighbour where no rule stands between them across its middle, so a merged cell spans; a
    cell's words in text order give its offsets, in pieces (`pdf_table_rows.pieces`) where a
    word of another cell stands between two of them, with the doubt stated. A grid row no word
    stands in is no row. The head is the rows over the first double rule (`_double`) where one
    stands under at most `MAX_HEAD_ROWS` rows, else `head_rows`'s. Returns the rows and the run
    offsets of the words it holds (read as no other table)."""
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
    inside: dict[tuple[int, int], list[Word]] = defaultdict(list)
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
    by_row: dict[int, list[Cell]] = defaultdict(list)
    for key, held in inside.items():
        held.sort(key=lambda w: w.start)
        used.update(w.start for w in held)
        parts = pieces([w.start for w in held], [w.end for w in held], starts)
        doubt = None if len(parts) == 1 else "the cell's text is not contiguous in the text"
        placed = tiles[key]
        low_row, low_col = min(t[0] for t in placed), min(t[1] for t in placed)
        span = max(t[1] for t in placed) - low_col + 1
        height = max(t[0] for t in placed) - low_row + 1
        start, end = parts[0]
        spans = tuple(parts) if len(parts) > 1 else ()
        by_row[low_row].append(Cell(start, end, low_col, span, height, doubt, spans))
    # A grid row no word stands in (two rules drawn close, a row a merged cell fills) is no row.
    kept = [i for i in range(rows) if by_row.get(i)]
    grid_rows = [sorted(by_row[i], key=lambda c: c.column) for i in kept]
    under = [sum(i < line for i in kept) for line in _double(grid)]
    heads = next(
        (n for n in under if 0 < n <= MAX_HEAD_ROWS and n < len(grid_rows)),
        head_rows(grid_rows, text),
    )
    edges = tuple(pairwise(us))
    return Rows(page, edges, cols, grid_rows[:heads], grid_rows[heads:]), used
