"""Runs into lines and lines into reading order (docs/pdf.md, rules 4 and 5): the order and the
white space between runs depend only on their boxes, never on whether a run came from glyphs or OCR,
and each piece of text keeps its run's origin (C18)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from statistics import median

from workbench.models import TextOrigin

SPACE_GAP = 0.06  # line heights: a wider gap between two glyphs or runs is a word space
BAND_GAP = 1.0  # line heights: an empty band this tall cuts a region before any column gutter
GUTTER_MIN = 0.5  # line heights: the narrowest column gutter
COLUMN_MIN = 0.2  # of the page's text width, on each side of a column gutter

# A piece of a line's text and its origin; None for white space the layout wrote.
Piece = tuple[str, TextOrigin | None]


@dataclass(slots=True)
class Run:
    """Glyphs (or OCR words) of one line in reading direction; u runs along the line, v down the
    page. `words` (OCR runs only) holds each word's `[start, end)` in the run's text and its index
    in the page's reading; `boxes` (glyph runs read for `pdf.py`'s trace only) each character's
    glyph box (x0, y0, x1, y1) in PDF points, None for a space the run wrote."""

    parts: list[str]
    u0: float
    u1: float
    v0: float
    v1: float
    # the unrotated PDF box, for the furniture record
    x0: float
    y0: float
    x1: float
    y1: float
    origin: TextOrigin = "glyphs"
    words: list[tuple[int, int, int]] | None = None
    boxes: list[tuple[float, float, float, float] | None] | None = None

    @property
    def height(self) -> float:
        return max(self.v1 - self.v0, 1.0)


@dataclass(slots=True)
class Line:
    """Runs joined left to right: `pieces` are the line's text with their origins, `placed` each
    run's offset in the line's text."""

    text: str
    u0: float
    u1: float
    v0: float
    v1: float
    column: tuple[int, ...] = ()
    runs: list[Run] = field(default_factory=list)
    pieces: list[Piece] = field(default_factory=list)
    placed: list[tuple[int, Run]] = field(default_factory=list)

    @property
    def height(self) -> float:
        return max(self.v1 - self.v0, 1.0)


def join(line: Line) -> None:
    """Set the line's text from its runs, left to right, a space between two that stand more than
    `SPACE_GAP` apart or overlap by as much (rule 5)."""
    pieces: list[Piece] = []
    placed: list[tuple[int, Run]] = []
    length = 0
    previous: Run | None = None
    for run in sorted(line.runs, key=lambda r: (r.u0, r.v0)):
        if previous is not None and abs(run.u0 - previous.u1) > SPACE_GAP * max(
            run.height, previous.height
        ):
            pieces.append((" ", None))
            length += 1
        text = "".join(run.parts)
        placed.append((length, run))
        pieces.append((text, run.origin))
        length += len(text)
        previous = run
    line.pieces, line.placed = pieces, placed
    line.text = "".join(text for text, _ in pieces)


def bands(runs: list[Run], column: tuple[int, ...] = ()) -> list[Line]:
    """Group runs into lines, top to bottom.

    A run joins the current line when its vertical centre lies within the line's first run, or
    that run's centre within it (a raised footnote marker joins its line). The first run, not the
    growing line, is the test, so two stacked table cells never chain into one line.
    """
    lines: list[Line] = []
    for run in sorted(runs, key=lambda r: ((r.v0 + r.v1) / 2, r.u0)):
        centre = (run.v0 + run.v1) / 2
        if lines:
            line = lines[-1]
            first = line.runs[0]
            if first.v0 <= centre <= first.v1 or run.v0 <= (first.v0 + first.v1) / 2 <= run.v1:
                line.runs.append(run)
                line.u0, line.u1 = min(line.u0, run.u0), max(line.u1, run.u1)
                line.v0, line.v1 = min(line.v0, run.v0), max(line.v1, run.v1)
                continue
        lines.append(Line("", run.u0, run.u1, run.v0, run.v1, column, [run]))
    for line in lines:
        join(line)
    return [line for line in lines if line.text]


# ---------------------------------------------------------------------------------------------
# Reading order


def _widest_band(runs: list[Run]) -> tuple[float, float]:
    """(height, cut position) of the tallest empty band between runs (topmost); (0, 0) if none."""
    ordered = sorted(runs, key=lambda r: r.v0)
    best = (0.0, 0.0)
    reach = ordered[0].v1
    for run in ordered[1:]:
        if run.v0 > reach and run.v0 - reach > best[0]:
            best = (run.v0 - reach, (run.v0 + reach) / 2)
        reach = max(reach, run.v1)
    return best


def _gutter(runs: list[Run], width: float, unit: float) -> float | None:
    """The u position of the widest column gutter that qualifies (rule 4), or None."""
    ordered = sorted(runs, key=lambda r: r.u0)
    start, reach = ordered[0].u0, ordered[0].u1
    end = max(r.u1 for r in runs)
    best: tuple[float, float] | None = None
    for run in ordered[1:]:
        gap = run.u0 - reach
        if (
            gap >= GUTTER_MIN * unit
            and reach - start >= COLUMN_MIN * width
            and end - run.u0 >= COLUMN_MIN * width
            and (best is None or gap > best[0])
        ):
            best = (gap, (run.u0 + reach) / 2)
        reach = max(reach, run.u1)
    return None if best is None else best[1]


def _regions(
    runs: list[Run], width: float, unit: float, column: tuple[int, ...]
) -> Iterator[tuple[tuple[int, ...], list[Run]]]:
    """Leaf regions of the recursive XY cut in reading order, each with its column path."""
    stack: list[tuple[tuple[int, ...], list[Run]]] = [(column, runs)]
    while stack:
        path, region = stack.pop()
        if len(region) > 1:
            gap, at = _widest_band(region)
            cut_v = gap >= BAND_GAP * unit
            if not cut_v:
                u = _gutter(region, width, unit)
                if u is not None:
                    left = [r for r in region if (r.u0 + r.u1) / 2 < u]
                    right = [r for r in region if (r.u0 + r.u1) / 2 >= u]
                    stack.append(((*path, 1), right))
                    stack.append(((*path, 0), left))
                    continue
                cut_v = gap > 0
            if cut_v:
                stack.append((path, [r for r in region if r.v0 > at]))
                stack.append((path, [r for r in region if r.v0 <= at]))
                continue
        yield path, region


def reading_order(runs: list[Run]) -> list[Line]:
    """The lines of a page's body runs in reading order (rule 4), each with its column path."""
    if not runs:
        return []
    width = max(r.u1 for r in runs) - min(r.u0 for r in runs)
    unit = median(r.height for r in runs)
    lines: list[Line] = []
    for path, region in _regions(runs, width, unit, ()):
        lines.extend(bands(region, path))
    return lines
