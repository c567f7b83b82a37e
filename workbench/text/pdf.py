"""PDF to text with a page map, page furniture taken out, and unusable pages reported (C4).

The glyphs, their boxes and their directions come from PDFium (through pypdfium2); the layout is
ours, from geometry alone, so every rule is stated here and none hides in a library default:

1. Glyphs. PDFium's generated spaces and line breaks are dropped; a hyphen PDFium marks as ending
   a line (U+002D or U+00AD in the font's text, which PDFium reports as one marker) is written "-";
   a glyph with no Unicode mapping (a control code, a mapping error) is written U+FFFD. Each page's
   glyphs are read in their dominant direction (the most common of 0, 90, 180, 270 degrees), so a
   page rotated by /Rotate or by its content matrix reads like its upright twin; glyphs set in
   another direction are read in their own frame; a run (rule 2) whose box centre lies outside
   the page's crop box is invisible and goes to the furniture record as "outside".
2. Runs. Consecutive glyphs on one line (each glyph's vertical centre inside its neighbour's box)
   form a run; a gap wider than `RUN_GAP` line heights, or a step backwards, ends it. A gap wider
   than `SPACE_GAP` line heights inside a run is a word space, whether or not the PDF drew one.
3. Furniture. The outermost `MARGIN_LINES` line inside the top and the bottom `MARGIN_ZONE` of a
   page, and every line set in a minority direction, are candidates; a candidate whose text, with
   every digit run read as "#", recurs on at least two pages is a running header ("top"), footer
   ("bottom") or margin slug ("margin"): it leaves the body and is recorded with its page, text
   and box. A minority-direction line that does not recur stays in the body, after the page's text.
4. Reading order. Recursive XY cut: a region is cut horizontally at its widest empty band (the
   topmost on a tie) when that band is at least `BAND_GAP` line heights; else vertically at a
   column gutter (at least `GUTTER_MIN` line heights wide, with at least `COLUMN_MIN` of the page's
   text width on each side; the widest gutter wins, the leftmost on a tie); else horizontally at
   its widest empty band of any height. Regions are read top to bottom and columns left to right,
   so a three-column page reads column by column, while a table of narrow cells keeps its rows.
5. Lines and paragraphs. A run joins a line when the vertical centres of the run and of the line's
   first run overlap; a line's runs are joined left to right, with a space where two stand more
   than `SPACE_GAP` apart or overlap by as much (two stacked cells of a table heading). Between
   two lines of one column a blank line is written when the white space between them exceeds the
   page's usual leading (the median white space between two lines of one column) by
   `PARAGRAPH_GAP` line heights, or the second is a first-line indent (at least `INDENT` line
   heights right of both the line before and the line after it). Where the reading moves to
   another column or page, a blank line is written when the line before ends a sentence (".", ":",
   ";", "?", "!", ")", "]" or a closing quote) or the next line is indented; otherwise the
   paragraph continues with one line break.
6. Pages. `pages` maps each page (numbered from 1) to its body's `[char_start, char_end)`. A page
   whose body is empty ("no_text") or has fewer letters and digits than half its characters
   ("garbage"; white space and leader runs, three or more of one of `LEADER_CHARACTERS` in a row,
   a space allowed between them,
   are not counted, so a table of contents with dot leaders is text) contributes no text and is listed in `unusable_pages`; a PDF with no usable page
   at all is refused.

The guarantee: the text is a pure function of the bytes and of PDFium's build, which is part of
the extractor version (`PDF_EXTRACTOR_VERSION`), so a library upgrade that changes the text is
refused as `CorpusChanged` instead of silently replacing held text. PDFium is not thread-safe:
call this from one thread per process.
"""

from __future__ import annotations

import ctypes
import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib.metadata import version as distribution_version
from itertools import pairwise
from statistics import median
from typing import Literal

import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]

from workbench.errors import ExtractionError
from workbench.models import Extraction, Furniture, PageSpan, UnusablePage

__all__ = [
    "PDF_EXTRACTOR",
    "PDF_EXTRACTOR_VERSION",
    "extract_pdf",
]

PDF_EXTRACTOR = "pdf-text"
PDF_EXTRACTOR_VERSION = f"2+pypdfium2-{distribution_version('pypdfium2')}"

SPACE_GAP = 0.06  # line heights: a wider gap between two glyphs is a word space
RUN_GAP = 0.8  # line heights: a wider gap ends a run (a table cell, a column gutter)
PARAGRAPH_GAP = 0.5  # line heights of white space between two lines that make a paragraph break
INDENT = 0.5  # line heights a first line stands right of its neighbours
# Runs of these (three or more of one, a space allowed between) lead the eye to a page number:
# table-of-contents leaders, "........" or ". . . .".
LEADER_CHARACTERS = ".·…_-"
_LEADERS = re.compile(f"([{re.escape(LEADER_CHARACTERS)}]) ?(?:\\1 ?){{2,}}")
BAND_GAP = 1.0  # line heights: an empty band this tall cuts a region before any column gutter
GUTTER_MIN = 0.5  # line heights: the narrowest column gutter
COLUMN_MIN = 0.2  # of the page's text width, on each side of a column gutter
MARGIN_ZONE = 0.15  # of the page height, at the top and at the bottom, where running lines stand
MARGIN_LINES = 1  # outermost lines of each zone that may be furniture
HEADER_PROBE = 1024  # bytes searched for the "%PDF-" header

_DIGIT_RUN = re.compile(r"[0-9]+")
_SENTENCE_END = frozenset('.:;?!)]”’"')
_REPLACEMENT = "\ufffd"

Position = Literal["top", "bottom", "margin", "outside"]
_Glyph = tuple[str, int, tuple[float, float, float, float]]  # text, direction, PDF box


@dataclass(slots=True)
class _Run:
    """Glyphs of one line in reading direction; u runs along the line, v down the page."""

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

    @property
    def height(self) -> float:
        return max(self.v1 - self.v0, 1.0)


@dataclass(slots=True)
class _Line:
    text: str
    u0: float
    u1: float
    v0: float
    v1: float
    column: tuple[int, ...] = ()
    runs: list[_Run] = field(default_factory=list)

    @property
    def height(self) -> float:
        return max(self.v1 - self.v0, 1.0)


@dataclass(slots=True)
class _Page:
    number: int
    body: list[_Run]
    candidates: list[tuple[Position, _Line]]  # possible furniture, in page order
    aside: list[_Line]  # minority-direction lines
    outside: list[_Line]


def extract_pdf(data: bytes, *, source: str) -> Extraction:
    """Extract a PDF's text, page map, furniture and unusable pages (rules in the module docstring).

    Refused with `ExtractionError`: empty bytes; no "%PDF-" header in the first `HEADER_PROBE`
    bytes; bytes PDFium cannot open (its reason is quoted; an encrypted file needs a password we
    do not have); a PDF with no page, or with no page of usable text.
    """
    if not data:
        raise ExtractionError(f"{source}: empty file; expected a PDF")
    if b"%PDF-" not in data[:HEADER_PROBE]:
        raise ExtractionError(
            f"{source}: no %PDF- header in the first {HEADER_PROBE} bytes; expected a PDF"
        )
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as error:
        reason = str(error).removeprefix("Failed to load document ").strip("().")
        raise ExtractionError(f"{source}: unreadable PDF ({reason}); expected a PDF") from error
    try:
        pages = [_read_page(document, index) for index in range(len(document))]
    finally:
        document.close()
    if not pages:
        raise ExtractionError(f"{source}: the PDF has no pages; expected at least one")
    return _assemble(pages, source)


# ---------------------------------------------------------------------------------------------
# Reading glyphs into runs


def _quadrant(radians: float) -> int:
    """The glyph's reading direction in PDF space (counter-clockwise), to the nearest 90 degrees.

    PDFium measures the angle clockwise (device space, y down) and reports -1 when it cannot.
    """
    if radians < 0:
        return 0
    return (4 - round(math.degrees(radians) / 90.0) % 4) % 4 * 90


def _frame(quadrant: int, x0: float, y0: float, x1: float, y1: float) -> tuple[float, ...]:
    """(u0, u1, v0, v1): the box in the frame where text of `quadrant` reads left to right, down."""
    if quadrant == 0:
        return x0, x1, -y1, -y0
    if quadrant == 90:
        return y0, y1, x0, x1
    if quadrant == 180:
        return -x1, -x0, y0, y1
    return -y1, -y0, -x1, -x0


def _read_page(document: pdfium.PdfDocument, index: int) -> _Page:
    page = document[index]
    textpage = page.get_textpage()
    try:
        left, bottom, right, top = page.get_bbox()
        handle = textpage.raw
        box = pdfium_c.FS_RECTF()
        box_ref = ctypes.byref(box)
        is_generated = pdfium_c.FPDFText_IsGenerated
        unicode_of = pdfium_c.FPDFText_GetUnicode
        loose_box = pdfium_c.FPDFText_GetLooseCharBox
        angle_of = pdfium_c.FPDFText_GetCharAngle
        quadrants: dict[float, int] = {}
        glyphs: list[_Glyph] = []
        for k in range(pdfium_c.FPDFText_CountChars(handle)):
            code = unicode_of(handle, k)
            if code == 0x20 and is_generated(handle, k):
                continue  # PDFium's guessed spaces (and line breaks, below): our geometry decides
            if code < 0x20 or code in (0xFFFE, 0xFFFF) or 0xD800 <= code <= 0xDFFF:
                if code in (0x0A, 0x0D):
                    continue
                # PDFium reports a hyphen it found ending a line as U+0002; any other control
                # code is a glyph without a Unicode mapping.
                char = "-" if pdfium_c.FPDFText_IsHyphen(handle, k) else _REPLACEMENT
            else:
                char = chr(code)
            loose_box(handle, k, box_ref)
            x0, x1 = (box.left, box.right) if box.left <= box.right else (box.right, box.left)
            y0, y1 = (box.bottom, box.top) if box.bottom <= box.top else (box.top, box.bottom)
            radians = angle_of(handle, k)
            quadrant = quadrants.get(radians)
            if quadrant is None:
                quadrant = quadrants[radians] = _quadrant(radians)
            glyphs.append((char, quadrant, (x0, y0, x1, y1)))
    finally:
        textpage.close()
        page.close()
    counts = Counter(q for c, q, _ in glyphs if not c.isspace())
    # Most glyphs decide the page's direction; a tie goes to the smaller angle.
    dominant = min(counts, key=lambda q: (-counts[q], q)) if counts else 0

    def visible(run: _Run) -> bool:
        """A run whose box centre lies inside the crop box; a whole run is in or out."""
        cx, cy = (run.x0 + run.x1) / 2, (run.y0 + run.y1) / 2
        return bool(left <= cx <= right and bottom <= cy <= top)

    main_runs = _runs([g for g in glyphs if g[1] == dominant])
    other_runs = _runs([g for g in glyphs if g[1] != dominant])
    body = [r for r in main_runs if visible(r)]
    aside_runs = [r for r in other_runs if visible(r)]
    outside = _bands([r for r in main_runs + other_runs if not visible(r)])
    u_top, _, v_top, v_bottom = _frame(dominant, left, bottom, right, top)
    del u_top
    height = v_bottom - v_top
    lines = _bands(body)
    candidates: list[tuple[Position, _Line]] = []
    top_zone = [ln for ln in lines if ln.v1 <= v_top + MARGIN_ZONE * height][:MARGIN_LINES]
    bottom_zone = [ln for ln in lines if ln.v0 >= v_bottom - MARGIN_ZONE * height]
    candidates += [("top", ln) for ln in top_zone]
    candidates += [("bottom", ln) for ln in bottom_zone[-MARGIN_LINES:]]
    aside = _bands(aside_runs)
    candidates += [("margin", ln) for ln in aside]
    return _Page(number=index + 1, body=body, candidates=candidates, aside=aside, outside=outside)


def _runs(glyphs: list[_Glyph]) -> list[_Run]:
    """Runs of glyphs in content order (rule 2); each glyph read in its own direction's frame."""
    runs: list[_Run] = []
    run: _Run | None = None
    last: tuple[float, ...] = ()
    space = False
    for char, quadrant, (x0, y0, x1, y1) in glyphs:
        if char.isspace():
            space = run is not None
            continue
        u0, u1, v0, v1 = _frame(quadrant, x0, y0, x1, y1)
        if run is not None:
            _, lu1, lv0, lv1 = last
            height = max(lv1 - lv0, v1 - v0, 1.0)
            centre, last_centre = (v0 + v1) / 2, (lv0 + lv1) / 2
            same_line = lv0 <= centre <= lv1 or v0 <= last_centre <= v1
            gap = u0 - lu1
            if same_line and -0.5 * height <= gap <= RUN_GAP * height:
                if space or gap > SPACE_GAP * height:
                    run.parts.append(" ")
                run.parts.append(char)
                # CAUTION: plain comparisons, not min()/max(): this runs once per glyph.
                if u0 < run.u0:
                    run.u0 = u0
                if u1 > run.u1:
                    run.u1 = u1
                if v0 < run.v0:
                    run.v0 = v0
                if v1 > run.v1:
                    run.v1 = v1
                if x0 < run.x0:
                    run.x0 = x0
                if y0 < run.y0:
                    run.y0 = y0
                if x1 > run.x1:
                    run.x1 = x1
                if y1 > run.y1:
                    run.y1 = y1
                last, space = (u0, u1, v0, v1), False
                continue
        run = _Run([char], u0, u1, v0, v1, x0, y0, x1, y1)
        runs.append(run)
        last, space = (u0, u1, v0, v1), False
    return runs


def _join(runs: list[_Run]) -> str:
    """Runs of one line, left to right, a space between two that stand apart or overlap (rule 5)."""
    pieces: list[str] = []
    previous: _Run | None = None
    for run in sorted(runs, key=lambda r: (r.u0, r.v0)):
        if previous is not None and abs(run.u0 - previous.u1) > SPACE_GAP * max(
            run.height, previous.height
        ):
            pieces.append(" ")
        pieces.append("".join(run.parts))
        previous = run
    return "".join(pieces).strip()


def _bands(runs: list[_Run], column: tuple[int, ...] = ()) -> list[_Line]:
    """Group runs into lines, top to bottom.

    A run joins the current line when its vertical centre lies within the line's first run, or
    that run's centre within it (a raised footnote marker joins its line). The first run, not the
    growing line, is the test, so two stacked table cells never chain into one line.
    """
    lines: list[_Line] = []
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
        lines.append(_Line("", run.u0, run.u1, run.v0, run.v1, column, [run]))
    for line in lines:
        line.text = _join(line.runs)
    return [line for line in lines if line.text]


# ---------------------------------------------------------------------------------------------
# Reading order


def _widest_band(runs: list[_Run]) -> tuple[float, float]:
    """(height, cut position) of the tallest empty band between runs (topmost); (0, 0) if none."""
    ordered = sorted(runs, key=lambda r: r.v0)
    best = (0.0, 0.0)
    reach = ordered[0].v1
    for run in ordered[1:]:
        if run.v0 > reach and run.v0 - reach > best[0]:
            best = (run.v0 - reach, (run.v0 + reach) / 2)
        reach = max(reach, run.v1)
    return best


def _gutter(runs: list[_Run], width: float, unit: float) -> float | None:
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
    runs: list[_Run], width: float, unit: float, column: tuple[int, ...]
) -> Iterator[tuple[tuple[int, ...], list[_Run]]]:
    """Leaf regions of the recursive XY cut in reading order, each with its column path."""
    stack: list[tuple[tuple[int, ...], list[_Run]]] = [(column, runs)]
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


def _body_lines(page: _Page, furniture_runs: set[int]) -> list[_Line]:
    runs = [r for r in page.body if id(r) not in furniture_runs]
    if not runs:
        return []
    width = max(r.u1 for r in runs) - min(r.u0 for r in runs)
    unit = median(r.height for r in runs)
    lines: list[_Line] = []
    for path, region in _regions(runs, width, unit, ()):
        lines.extend(_bands(region, path))
    return lines


# ---------------------------------------------------------------------------------------------
# Furniture, paragraphs, pages


def _key(text: str) -> str:
    return _DIGIT_RUN.sub("#", " ".join(text.split()))


def _furniture(page: int, position: Position, line: _Line) -> Furniture:
    return Furniture(
        page=page,
        text=line.text,
        position=position,
        x0=round(min(r.x0 for r in line.runs), 1),
        y0=round(min(r.y0 for r in line.runs), 1),
        x1=round(max(r.x1 for r in line.runs), 1),
        y1=round(max(r.y1 for r in line.runs), 1),
    )


def _ends_sentence(text: str) -> bool:
    return text[-1:] in _SENTENCE_END


def _indented(line: _Line, before: _Line | None, after: _Line | None) -> bool:
    """A first-line indent: right of the next line of its column, and of the line before if any."""
    if after is None or after.column != line.column:
        return False
    step = INDENT * line.height
    if line.u0 - after.u0 < step:
        return False
    return before is None or before.column != line.column or line.u0 - before.u0 >= step


def _leading(lines: list[_Line]) -> float:
    """The page's usual white space between two lines of one column (the median; 0 if none)."""
    gaps = [b.v0 - a.v1 for a, b in pairwise(lines) if a.column == b.column and b.v0 >= a.v1]
    return median(gaps) if gaps else 0.0


def _separator(
    before: _Line, line: _Line, after: _Line | None, *, same_page: bool, leading: float
) -> str:
    """The line break between two consecutive body lines (rule 5): "\\n" or "\\n\\n"."""
    same_column = same_page and before.column == line.column and line.v0 >= before.v0
    if same_column:
        if line.v0 - before.v1 > leading + PARAGRAPH_GAP * min(before.height, line.height):
            return "\n\n"
        return "\n\n" if _indented(line, before, after) else "\n"
    if _ends_sentence(before.text) or _indented(line, None, after):
        return "\n\n"
    return "\n"


def _usable(page: int, lines: list[_Line], had_glyphs: bool) -> UnusablePage | None:
    text = "".join(line.text for line in lines)
    if not text:
        detail = (
            "only running headers and footers on the page"
            if had_glyphs
            else "no text layer on the page"
        )
        return UnusablePage(page=page, reason="no_text", detail=detail)
    visible = [c for c in _LEADERS.sub("", text) if not c.isspace()]
    readable = sum(c.isalnum() for c in visible)
    if readable * 2 < len(visible):
        return UnusablePage(
            page=page,
            reason="garbage",
            detail=f"{readable} of {len(visible)} characters are letters or digits",
        )
    return None


def _assemble(pages: list[_Page], source: str) -> Extraction:
    seen: dict[tuple[Position, str], set[int]] = {}
    for page in pages:
        for position, line in page.candidates:
            seen.setdefault((position, _key(line.text)), set()).add(page.number)
    running = {key for key, numbers in seen.items() if len(numbers) >= 2}
    furniture: list[Furniture] = []
    unusable: list[UnusablePage] = []
    spans: list[PageSpan] = []
    parts: list[str] = []
    length = 0
    previous: _Line | None = None
    for page in pages:
        page_furniture = [
            (position, line)
            for position, line in page.candidates
            if (position, _key(line.text)) in running
        ]
        taken = {id(run) for _, line in page_furniture for run in line.runs}
        lines = _body_lines(page, taken)
        lines += [line for line in page.aside if id(line.runs[0]) not in taken]
        furniture += [_furniture(page.number, position, line) for position, line in page_furniture]
        furniture += [_furniture(page.number, "outside", line) for line in page.outside]
        problem = _usable(page.number, lines, bool(page.body or page.aside))
        if problem is not None:
            unusable.append(problem)
            spans.append(PageSpan(page=page.number, char_start=length, char_end=length))
            continue
        leading = _leading(lines)
        for i, line in enumerate(lines):
            after = lines[i + 1] if i + 1 < len(lines) else None
            if previous is not None:
                separator = _separator(previous, line, after, same_page=i > 0, leading=leading)
                parts.append(separator)
                length += len(separator)
            if i == 0:
                start = length
            parts.append(line.text)
            length += len(line.text)
            previous = line
        spans.append(PageSpan(page=page.number, char_start=start, char_end=length))
    if not parts:
        listed = "; ".join(f"page {u.page}: {u.reason}" for u in unusable[:3])
        raise ExtractionError(
            f"{source}: no page has usable text ({listed}); expected a PDF with a text layer"
        )
    # Empty spans of unusable pages stand where the next page begins, never inside a separator.
    fixed: list[PageSpan] = []
    for i, span in enumerate(spans):
        if span.char_start == span.char_end:
            later = next((s.char_start for s in spans[i + 1 :] if s.char_end > s.char_start), None)
            at = later if later is not None else length
            span = PageSpan(page=span.page, char_start=at, char_end=at)
        fixed.append(span)
    return Extraction(
        text="".join(parts) + "\n",
        extractor=PDF_EXTRACTOR,
        extractor_version=PDF_EXTRACTOR_VERSION,
        pages=tuple(fixed),
        furniture=tuple(furniture),
        unusable_pages=tuple(unusable),
    )
