"""The lines a PDF sets as headings, read off the extractor's trace by their glyphs' size and their
place on the page, never by their words (C15): raw offsets (C1) into the version's text. The rule
and its thresholds: docs/pdf.md, "Headings"."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import median
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.text.pdf import Placed
    from workbench.text.pdf_layout import Run

SIZE_RATIO = 1.2  # a line whose median glyph is this many times the body's is set larger
OUTDENT = 1.0  # body glyph heights a line stands left of its page's margin to be set apart
SHORT_LINE = 0.5  # of the page's median body line width: the longest line set apart by place
EDGE_STEP = 1.0  # PDF points: left edges are compared rounded to this


@dataclass(slots=True)
class _Line:
    page: int
    u0: float
    u1: float
    heights: list[float] = field(default_factory=list)


def _glyph_heights(run: Run) -> list[float]:
    """Each drawn character's glyph height across its line: the box's extent down the page in
    the frame where the run reads (its PDF box's height when upright, else its width)."""
    if run.boxes is None:
        return []
    down = run.v1 - run.v0
    upright = abs(down - (run.y1 - run.y0)) <= abs(down - (run.x1 - run.x0))
    return [
        (box[3] - box[1]) if upright else (box[2] - box[0])  # (x0, y0, x1, y1)
        for box in run.boxes
        if box is not None
    ]


def _lines(trace: Sequence[Placed], text: str) -> dict[int, _Line]:
    """The text's lines that hold glyph runs, by their first character's offset."""
    lines: dict[int, _Line] = {}
    for offset, page, run in trace:
        start = text.rfind("\n", 0, offset) + 1
        line = lines.get(start)
        if line is None:
            line = lines[start] = _Line(page=page, u0=run.u0, u1=run.u1)
        line.u0, line.u1 = min(line.u0, run.u0), max(line.u1, run.u1)
        line.heights += _glyph_heights(run)
    return {start: line for start, line in lines.items() if line.heights}


def _outdented(lines: Sequence[_Line], body: float) -> list[_Line]:
    """The lines of one page standing left of its margin, when all of them are short (the rule
    is `heading_lines`')."""
    if not lines:
        return []
    edges = Counter(round(line.u0 / EDGE_STEP) for line in lines)
    margin = min(edges, key=lambda edge: (-edges[edge], edge)) * EDGE_STEP
    width = median(line.u1 - line.u0 for line in lines)
    outside = [line for line in lines if line.u0 <= margin - OUTDENT * body]
    # Running text left of the margin makes it no margin: the page's text has another edge.
    if any(line.u1 - line.u0 > SHORT_LINE * width for line in outside):
        return []
    return outside


def heading_lines(trace: Sequence[Placed], text: str) -> tuple[tuple[int, int], ...]:
    """The `[start, end)` of every line of `text` (the extraction `trace` was recorded with) that
    the PDF sets as a heading, in text order.

    The body's glyph height is the median height of every drawn character of the document (most
    characters are body text); a line's is the median of its own characters'. A line is a
    heading when it is set larger (its height at least `SIZE_RATIO` times the body's), or when,
    at body size, it stands apart by its place: it starts at least `OUTDENT` body heights left of
    its page's margin (the edge, rounded to `EDGE_STEP` points, at which most of the page's
    body-size lines start; the leftmost on a tie), and every line of the page standing so
    is at most `SHORT_LINE` of the page's median body-size line width long (a longer one is
    running text: the page has another edge, and its lines there are no headings). A short line
    at the margin at body size is no heading: a short paragraph is set so. Type weight is not
    read. OCR words carry no glyph boxes, so a page read by OCR gives none. A heading line holds
    a letter or a digit; its span leaves out the white space around it.
    """
    lines = _lines(trace, text)
    if not lines:
        return ()
    body = median(h for line in lines.values() for h in line.heights)
    larger = {start for start, line in lines.items() if median(line.heights) >= SIZE_RATIO * body}
    pages: dict[int, list[_Line]] = defaultdict(list)
    for start, line in lines.items():
        if start not in larger:
            pages[line.page].append(line)
    apart = {id(line) for page in pages.values() for line in _outdented(page, body)}
    found = []
    for start, line in sorted(lines.items()):
        if start not in larger and id(line) not in apart:
            continue
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        content = text[start:end]
        if any(c.isalnum() for c in content):
            lead = len(content) - len(content.lstrip())
            found.append((start + lead, start + len(content.rstrip())))
    return tuple(found)
