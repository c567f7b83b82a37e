"""One PDF page read through PDFium (C18): its glyphs, their boxes, directions and origins, as runs
(docs/pdf.md, rules 1 and 2); ligatures, markers and origins are read off the glyphs, their boxes
and the page's objects, never from a word list."""

from __future__ import annotations

import ctypes
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]

from workbench.models import TextOrigin
from workbench.text.ocr import OcrWordBox
from workbench.text.pdf_layout import SPACE_GAP, Run

RUN_GAP = 0.8  # line heights: a wider gap ends a run (a table cell, a column gutter)
MARKER_SIZE = 0.8  # a glyph at most this share of its neighbour's height may be a marker
PAGE_IMAGE = 0.9  # share of the crop box an image must cover to be the page's (a scan)
INVISIBLE_MODES = frozenset({3, 7})  # text render modes that paint nothing: invisible, clip
_REPLACEMENT = "\ufffd"

# text, direction, PDF box, PDFium broke the words before it, origin
Glyph = tuple[str, int, tuple[float, float, float, float], bool, TextOrigin]


@dataclass(slots=True)
class PageGlyphs:
    """What PDFium gives for one page: its glyphs in content order, the crop box and whether a
    page-sized image is drawn on it (a scan)."""

    glyphs: list[Glyph]
    crop: tuple[float, float, float, float]  # left, bottom, right, top
    scanned: bool


def quadrant(radians: float) -> int:
    """The glyph's reading direction in PDF space (counter-clockwise), to the nearest 90 degrees.

    PDFium measures the angle clockwise (device space, y down) and reports -1 when it cannot.
    """
    if radians < 0:
        return 0
    return (4 - round(math.degrees(radians) / 90.0) % 4) % 4 * 90


def frame(quadrant: int, x0: float, y0: float, x1: float, y1: float) -> tuple[float, ...]:
    """(u0, u1, v0, v1): the box in the frame where text of `quadrant` reads left to right, down."""
    if quadrant == 0:
        return x0, x1, -y1, -y0
    if quadrant == 90:
        return y0, y1, x0, x1
    if quadrant == 180:
        return -x1, -x0, y0, y1
    return -y1, -y0, -x1, -x0


def _address(handle: Any) -> int:
    """A PDFium object handle's address: the key that finds one object again."""
    return ctypes.cast(handle, ctypes.c_void_p).value or 0


def _objects(page: pdfium.PdfPage) -> tuple[dict[int, int], dict[int, int], int, bool]:
    """The page's paint order: text objects (inside forms too) to the index of the top-level
    object that paints them, their render modes, the index of the last page-sized image (-1 if
    none) and whether any text object is drawn in an invisible mode."""
    left, bottom, right, top = page.get_bbox()
    area = max((right - left) * (top - bottom), 1.0)
    order: dict[int, int] = {}
    modes: dict[int, int] = {}
    image = -1
    bounds = [ctypes.c_float() for _ in range(4)]
    refs = [ctypes.byref(b) for b in bounds]

    def texts(holder: object, index: int, form: bool) -> None:
        count = (pdfium_c.FPDFFormObj_CountObjects if form else pdfium_c.FPDFPage_CountObjects)(
            holder
        )
        get = pdfium_c.FPDFFormObj_GetObject if form else pdfium_c.FPDFPage_GetObject
        for k in range(count):
            obj = get(holder, k)
            kind = pdfium_c.FPDFPageObj_GetType(obj)
            at = index if form else k
            if kind == pdfium_c.FPDF_PAGEOBJ_TEXT:
                order[_address(obj)] = at
                modes[_address(obj)] = pdfium_c.FPDFTextObj_GetTextRenderMode(obj)
            elif kind == pdfium_c.FPDF_PAGEOBJ_FORM:
                texts(obj, at, True)

    texts(page.raw, 0, False)
    for k in range(pdfium_c.FPDFPage_CountObjects(page.raw)):
        obj = pdfium_c.FPDFPage_GetObject(page.raw, k)
        if pdfium_c.FPDFPageObj_GetType(obj) != pdfium_c.FPDF_PAGEOBJ_IMAGE:
            continue
        pdfium_c.FPDFPageObj_GetBounds(obj, *refs)
        x0, y0, x1, y1 = (b.value for b in bounds)
        covered = max(0.0, min(x1, right) - max(x0, left)) * max(
            0.0, min(y1, top) - max(y0, bottom)
        )
        if covered >= PAGE_IMAGE * area:
            image = k
    invisible = any(mode in INVISIBLE_MODES for mode in modes.values())
    return order, modes, image, invisible


def read_glyphs(page: pdfium.PdfPage) -> PageGlyphs:
    """The page's glyphs in content order, with their origins (rules: docs/pdf.md)."""
    order, modes, image, any_invisible = _objects(page)
    # Only a page with an invisible mode or a page-sized image needs each glyph's text object.
    per_object = any_invisible or image >= 0
    textpage = page.get_textpage()
    try:
        handle = textpage.raw
        box = pdfium_c.FS_RECTF()
        box_ref = ctypes.byref(box)
        is_generated = pdfium_c.FPDFText_IsGenerated
        unicode_of = pdfium_c.FPDFText_GetUnicode
        loose_box = pdfium_c.FPDFText_GetLooseCharBox
        angle_of = pdfium_c.FPDFText_GetCharAngle
        object_of = pdfium_c.FPDFText_GetTextObject
        quadrants: dict[float, int] = {}
        glyphs: list[Glyph] = []
        broken = False
        for k in range(pdfium_c.FPDFText_CountChars(handle)):
            code = unicode_of(handle, k)
            if code == 0x20 and is_generated(handle, k):
                broken = True
                continue  # PDFium's guessed spaces (and line breaks, below): our geometry decides
            if code < 0x20 or code in (0xFFFE, 0xFFFF) or 0xD800 <= code <= 0xDFFF:
                if code in (0x0A, 0x0D):
                    broken = True
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
            turn = quadrants.get(radians)
            if turn is None:
                turn = quadrants[radians] = quadrant(radians)
            origin: TextOrigin = "glyphs"
            if per_object:
                address = _address(object_of(handle, k))
                if modes.get(address, 0) in INVISIBLE_MODES or order.get(address, image) < image:
                    origin = "invisible"
            glyphs.append((char, turn, (x0, y0, x1, y1), broken, origin))
            broken = False
        crop = page.get_bbox()
    finally:
        textpage.close()
    return PageGlyphs(glyphs=glyphs, crop=crop, scanned=image >= 0)


def runs(glyphs: Iterable[Glyph], *, boxes: bool = False) -> list[Run]:
    """Runs of glyphs in content order (rule 2); each glyph read in its own direction's frame.

    A run never mixes origins: a glyph of another origin than the run's starts a new run. With
    `boxes`, each run keeps every character's glyph box (`Run.boxes`); the text is the same.
    """
    out: list[Run] = []
    run: Run | None = None
    last: tuple[float, ...] = ()
    space = False
    for char, turn, (x0, y0, x1, y1), broken, origin in glyphs:
        if char.isspace():
            space = run is not None
            continue
        u0, u1, v0, v1 = frame(turn, x0, y0, x1, y1)
        if run is not None and origin == run.origin:
            if not space and (u0, u1, v0, v1) == last:  # a ligature: one glyph, its letters
                run.parts.append(char)
                if run.boxes is not None:
                    run.boxes.append((x0, y0, x1, y1))
                space = False
                continue
            _, lu1, lv0, lv1 = last
            height = max(lv1 - lv0, v1 - v0, 1.0)
            centre, last_centre = (v0 + v1) / 2, (lv0 + lv1) / 2
            same_line = lv0 <= centre <= lv1 or v0 <= last_centre <= v1
            gap = u0 - lu1
            if same_line and -0.5 * height <= gap <= RUN_GAP * height:
                if space or (broken if _marker(lv0, lv1, v0, v1) else gap > SPACE_GAP * height):
                    run.parts.append(" ")
                    if run.boxes is not None:
                        run.boxes.append(None)
                run.parts.append(char)
                if run.boxes is not None:
                    run.boxes.append((x0, y0, x1, y1))
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
        run = Run([char], u0, u1, v0, v1, x0, y0, x1, y1, origin)
        if boxes:
            run.boxes = [(x0, y0, x1, y1)]
        out.append(run)
        last, space = (u0, u1, v0, v1), False
    return out


def _marker(av0: float, av1: float, bv0: float, bv1: float) -> bool:
    """Whether one of two neighbouring glyphs (v down the page) is a footnote marker: at most
    `MARKER_SIZE` of the other's height, its box wholly above the middle of the other's."""
    small, big = ((av0, av1), (bv0, bv1)) if av1 - av0 <= bv1 - bv0 else ((bv0, bv1), (av0, av1))
    return (
        small[1] - small[0] <= MARKER_SIZE * (big[1] - big[0]) and small[1] < (big[0] + big[1]) / 2
    )


def ocr_runs(words: Iterable[tuple[int, OcrWordBox]]) -> list[Run]:
    """Runs of OCR words (index in the page's reading, word), in the engine's reading order."""
    out: list[Run] = []
    run: Run | None = None
    line: tuple[int, int, int] | None = None
    last: tuple[float, ...] = ()
    for index, word in words:
        u0, u1, v0, v1 = frame(word.quadrant, word.x0, word.y0, word.x1, word.y1)
        if run is not None and word.line == line and run.words is not None:
            height = max(run.v1 - run.v0, v1 - v0, 1.0)
            if u0 - last[1] <= RUN_GAP * height:
                start = sum(len(p) for p in run.parts) + 1
                run.parts += [" ", word.text]
                run.words.append((start, start + len(word.text), index))
                run.u0, run.u1 = min(run.u0, u0), max(run.u1, u1)
                run.v0, run.v1 = min(run.v0, v0), max(run.v1, v1)
                run.x0, run.y0 = min(run.x0, word.x0), min(run.y0, word.y0)
                run.x1, run.y1 = max(run.x1, word.x1), max(run.y1, word.y1)
                last = (u0, u1)
                continue
        run = Run([word.text], u0, u1, v0, v1, word.x0, word.y0, word.x1, word.y1, "ocr")
        run.words = [(0, len(word.text), index)]
        out.append(run)
        line, last = word.line, (u0, u1)
    return out
