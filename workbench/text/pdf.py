"""PDF to text with a page map, page furniture taken out, text origins recorded and scans read by
OCR (C4, C18), laid out from PDFium's glyphs by geometry alone. The text is a pure function of the
bytes and the builds the extractor version names; the numbered rules are in docs/pdf.md. Call it
from one thread per process (PDFium is not thread-safe)."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version as distribution_version
from itertools import pairwise
from statistics import median
from typing import Literal

import pypdfium2 as pdfium  # type: ignore[import-untyped]

from workbench.errors import ExtractionError
from workbench.models import (
    TEXT_ORIGINS,
    Extraction,
    Furniture,
    OcrReading,
    OcrWord,
    OriginRun,
    PageOrigin,
    PageSpan,
    TextOrigin,
    TextOrigins,
    UnusablePage,
)
from workbench.text.ocr import (
    LOW_CONFIDENCE,
    OCR_EXTRACTOR,
    OCR_EXTRACTOR_VERSION,
    OCR_SETTINGS,
    OcrOptions,
    PageReading,
    read_page,
    tesseract_languages,
)
from workbench.text.pdf_layout import Line, Run, bands, reading_order
from workbench.text.pdf_page import frame, ocr_runs, read_glyphs, runs

__all__ = [
    "PDF_EXTRACTOR",
    "PDF_EXTRACTOR_VERSION",
    "Placed",
    "extract_pdf",
]

PDF_EXTRACTOR = "pdf-text"
PDF_EXTRACTOR_VERSION = f"3+pypdfium2-{distribution_version('pypdfium2')}"

PARAGRAPH_GAP = 0.5  # line heights of white space between two lines that make a paragraph break
INDENT = 0.5  # line heights a first line stands right of its neighbours
# Runs of these (three or more of one, a space allowed between) lead the eye to a page number:
# table-of-contents leaders, "........" or ". . . .".
LEADER_CHARACTERS = ".·…_-"
_LEADERS = re.compile(f"([{re.escape(LEADER_CHARACTERS)}]) ?(?:\\1 ?){{2,}}")
MARGIN_ZONE = 0.15  # of the page height, at the top and at the bottom, where running lines stand
MARGIN_LINES = 1  # outermost lines of each zone that may be furniture
HEADER_PROBE = 1024  # bytes searched for the "%PDF-" header
STAMP_CHARS = 32  # letters and digits a scan's own text layer needs to be read instead of OCR

_DIGIT_RUN = re.compile(r"[0-9]+")
_SENTENCE_END = frozenset('.:;?!)]”’"')

Position = Literal["top", "bottom", "margin", "outside"]
_Scan = Callable[[pdfium.PdfPage, int], PageReading]
# A run as the text holds it: its first character's offset in the text, its page, the run.
Placed = tuple[int, int, Run]


@dataclass(slots=True)
class _Page:
    number: int
    body: list[Run]
    candidates: list[tuple[Position, Line]]  # possible furniture, in page order
    aside: list[Line]  # minority-direction lines
    outside: list[Line]
    reading: PageReading | None = None  # the OCR reading, for a scanned page


def extract_pdf(
    data: bytes,
    *,
    source: str,
    language: str | None = None,
    ocr: OcrOptions | None = None,
    trace: list[Placed] | None = None,
) -> Extraction:
    """Extract a PDF's text, page map, furniture, unusable pages and origins (rules in the module
    docstring); a scanned page is read by OCR in `language` (the provenance's; English when None),
    with `ocr`'s cache and required engine build. With `trace`, every run the body text holds is
    appended to it where it stands (`Placed`), glyph runs with their characters' boxes
    (`Run.boxes`): what `workbench show` highlights. The extraction is the same with or without.

    Refused with `ExtractionError`: empty bytes; no "%PDF-" header in the first `HEADER_PROBE`
    bytes; bytes PDFium cannot open (its reason is quoted; an encrypted file needs a password we
    do not have), or a page of them it cannot load or read (named); a PDF with no page, or with no page of usable text, from its text layer or by
    OCR. A scanned page refuses the whole PDF when the OCR engine or its language data is missing
    (`OcrUnavailable`) or is another build than `ocr.engine` (`OcrEngineMismatch`).
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
    artefact = hashlib.sha256(data).hexdigest()
    options = ocr if ocr is not None else OcrOptions()

    def scan(page: pdfium.PdfPage, number: int) -> PageReading:
        languages = tesseract_languages(language, source=source)
        return read_page(
            page,
            page_number=number,
            artefact_sha256=artefact,
            languages=languages,
            options=options,
            source=source,
        )

    try:
        boxes = trace is not None
        pages = [_read_page(document, index, scan, boxes, source) for index in range(len(document))]
    finally:
        document.close()
    if not pages:
        raise ExtractionError(f"{source}: the PDF has no pages; expected at least one")
    return _assemble(pages, source, trace)


# ---------------------------------------------------------------------------------------------
# A page: glyphs, a scan's OCR words, runs, furniture candidates


def _own_text(chars: list[str]) -> bool:
    """Whether a scan's text layer is text of its own (rule 7)."""
    shown = [c for c in chars if not c.isspace()]
    readable = sum(c.isalnum() for c in shown)
    return readable >= STAMP_CHARS and readable * 2 >= len(shown)


def _read_page(
    document: pdfium.PdfDocument, index: int, scan: _Scan, boxes: bool, source: str
) -> _Page:
    """Page `index + 1` read, or an `ExtractionError` naming `source` and the page where PDFium
    cannot load or read it (a page tree that holds itself, a broken page object)."""
    try:
        return _read_loaded(document, index, scan, boxes)
    except pdfium.PdfiumError as error:
        reason = str(error).strip(".")
        raise ExtractionError(
            f"{source}: page {index + 1}: PDFium cannot read it ({reason}); the PDF is refused"
        ) from error


def _read_loaded(document: pdfium.PdfDocument, index: int, scan: _Scan, boxes: bool) -> _Page:
    page = document[index]
    try:
        read = read_glyphs(page)
        glyphs = read.glyphs
        reading = None
        if read.scanned and not _own_text([g[0] for g in glyphs]):
            reading = scan(page, index + 1)
            glyphs = [g for g in glyphs if g[4] != "invisible"]
    finally:
        page.close()
    left, bottom, right, top = read.crop
    counts = Counter(q for c, q, *_ in glyphs if not c.isspace())
    words = list(enumerate(reading.words)) if reading is not None else []
    for _, word in words:  # an OCR word counts as many glyphs as it has characters
        counts[word.quadrant] += len(word.text)
    # Most glyphs decide the page's direction; a tie goes to the smaller angle.
    dominant = min(counts, key=lambda q: (-counts[q], q)) if counts else 0

    def visible(run: Run) -> bool:
        """A run whose box centre lies inside the crop box; a whole run is in or out."""
        cx, cy = (run.x0 + run.x1) / 2, (run.y0 + run.y1) / 2
        return bool(left <= cx <= right and bottom <= cy <= top)

    main_runs = runs((g for g in glyphs if g[1] == dominant), boxes=boxes)
    other_runs = runs((g for g in glyphs if g[1] != dominant), boxes=boxes)
    if words:
        drawn = [r for r in main_runs + other_runs if visible(r)]
        words = [(i, w) for i, w in words if not _drawn(drawn, w.x0, w.y0, w.x1, w.y1)]
        main_runs += ocr_runs((i, w) for i, w in words if w.quadrant == dominant)
        other_runs += ocr_runs((i, w) for i, w in words if w.quadrant != dominant)
    body = [r for r in main_runs if visible(r)]
    aside_runs = [r for r in other_runs if visible(r)]
    outside = bands([r for r in main_runs + other_runs if not visible(r)])
    _, _, v_top, v_bottom = frame(dominant, left, bottom, right, top)
    height = v_bottom - v_top
    lines = bands(body)
    candidates: list[tuple[Position, Line]] = []
    top_zone = [ln for ln in lines if ln.v1 <= v_top + MARGIN_ZONE * height][:MARGIN_LINES]
    bottom_zone = [ln for ln in lines if ln.v0 >= v_bottom - MARGIN_ZONE * height]
    candidates += [("top", ln) for ln in top_zone]
    candidates += [("bottom", ln) for ln in bottom_zone[-MARGIN_LINES:]]
    aside = bands(aside_runs)
    candidates += [("margin", ln) for ln in aside]
    return _Page(
        number=index + 1,
        body=body,
        candidates=candidates,
        aside=aside,
        outside=outside,
        reading=reading,
    )


def _drawn(drawn: list[Run], x0: float, y0: float, x1: float, y1: float) -> bool:
    """Whether a box's centre lies inside the box of one of the page's visible glyph runs."""
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return any(r.x0 <= cx <= r.x1 and r.y0 <= cy <= r.y1 for r in drawn)


# ---------------------------------------------------------------------------------------------
# Furniture, paragraphs, pages


def _key(text: str) -> str:
    return _DIGIT_RUN.sub("#", " ".join(text.split()))


def _furniture(page: int, position: Position, line: Line) -> Furniture:
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


def _indented(line: Line, before: Line | None, after: Line | None) -> bool:
    """A first-line indent: right of the next line of its column, and of the line before if any."""
    if after is None or after.column != line.column:
        return False
    step = INDENT * line.height
    if line.u0 - after.u0 < step:
        return False
    return before is None or before.column != line.column or line.u0 - before.u0 >= step


def _leading(lines: list[Line]) -> float:
    """The page's usual white space between two lines of one column (the median; 0 if none)."""
    gaps = [b.v0 - a.v1 for a, b in pairwise(lines) if a.column == b.column and b.v0 >= a.v1]
    return median(gaps) if gaps else 0.0


def _separator(
    before: Line, line: Line, after: Line | None, *, same_page: bool, leading: float
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


def _usable(page: _Page, lines: list[Line]) -> UnusablePage | None:
    text = "".join(line.text for line in lines)
    if not text:
        if page.reading is not None:
            detail = "a scan on which OCR read no text"
        elif page.body or page.aside:
            detail = "only running headers and footers on the page"
        else:
            detail = "no text layer on the page"
        return UnusablePage(page=page.number, reason="no_text", detail=detail)
    visible = [c for c in _LEADERS.sub("", text) if not c.isspace()]
    readable = sum(c.isalnum() for c in visible)
    if readable * 2 < len(visible):
        return UnusablePage(
            page=page.number,
            reason="garbage",
            detail=f"{readable} of {len(visible)} characters are letters or digits",
        )
    return None


class _Writer:
    """The text as it is written, with each piece's origin (None: white space the layout wrote)
    and every OCR word kept, by page, with its offsets."""

    def __init__(self, trace: list[Placed] | None) -> None:
        self.trace = trace
        self.parts: list[str] = []
        self.spans: list[tuple[int, int, TextOrigin | None]] = []
        self.length = 0
        self.words: dict[int, list[OcrWord]] = {}

    def write(self, text: str, origin: TextOrigin | None) -> None:
        self.parts.append(text)
        self.spans.append((self.length, self.length + len(text), origin))
        self.length += len(text)

    def line(self, page: _Page, line: Line) -> None:
        start = self.length
        for text, origin in line.pieces:
            self.write(text, origin)
        if self.trace is not None:
            self.trace += [(start + offset, page.number, run) for offset, run in line.placed]
        if page.reading is None:
            return
        kept = self.words.setdefault(page.number, [])
        for offset, run in line.placed:
            for begin, end, index in run.words or ():
                word = page.reading.words[index]
                kept.append(
                    OcrWord(
                        char_start=start + offset + begin,
                        char_end=start + offset + end,
                        confidence=word.confidence,
                        x0=round(word.x0, 1),
                        y0=round(word.y0, 1),
                        x1=round(word.x1, 1),
                        y1=round(word.y1, 1),
                    )
                )

    def origin_runs(self) -> tuple[OriginRun, ...]:
        """Rule 8: each piece of layout white space takes the origin on both its sides, else
        `none`; then adjacent pieces of one origin are one run."""
        following: list[TextOrigin | None] = []
        upcoming: TextOrigin | None = None
        for _, _, origin in reversed(self.spans):
            following.append(upcoming)
            upcoming = origin if origin is not None else upcoming
        following.reverse()
        resolved: list[tuple[int, int, TextOrigin]] = []
        before: TextOrigin | None = None
        for (start, end, origin), after in zip(self.spans, following, strict=True):
            if origin is None:
                origin = before if before is not None and before == after else "none"
            else:
                before = origin
            if resolved and resolved[-1][2] == origin:
                resolved[-1] = (resolved[-1][0], end, origin)
            elif start < end:
                resolved.append((start, end, origin))
        return tuple(OriginRun(char_start=s, char_end=e, origin=o) for s, e, o in resolved)


def _page_origin(
    page: _Page, span: PageSpan, counts: dict[str, int], words: list[OcrWord]
) -> PageOrigin:
    """The page's origin summary and OCR reading (rule 8; the tie-break is `PageOrigin`'s)."""
    characters = tuple((o, counts[o]) for o in TEXT_ORIGINS if counts.get(o))
    summary: TextOrigin = "none"
    if characters:
        summary = max(characters, key=lambda c: (c[1], -TEXT_ORIGINS.index(c[0])))[0]
    reading = None
    if page.reading is not None:
        mean = round(page.reading.mean_confidence, 2)
        reading = OcrReading(
            extractor=f"{OCR_EXTRACTOR} {OCR_EXTRACTOR_VERSION}",
            engine=page.reading.engine,
            languages=page.reading.languages,
            settings=OCR_SETTINGS,
            rotation=page.reading.rotation,
            mean_confidence=mean,
            low_confidence=mean < LOW_CONFIDENCE,
            words=tuple(words),
        )
    return PageOrigin(page=span.page, origin=summary, characters=characters, ocr=reading)


def _assemble(pages: list[_Page], source: str, trace: list[Placed] | None) -> Extraction:
    seen: dict[tuple[Position, str], set[int]] = {}
    for page in pages:
        for position, line in page.candidates:
            seen.setdefault((position, _key(line.text)), set()).add(page.number)
    running = {key for key, numbers in seen.items() if len(numbers) >= 2}
    furniture: list[Furniture] = []
    unusable: list[UnusablePage] = []
    spans: list[PageSpan] = []
    writer = _Writer(trace)
    previous: Line | None = None
    for page in pages:
        page_furniture = [
            (position, line)
            for position, line in page.candidates
            if (position, _key(line.text)) in running
        ]
        taken = {id(run) for _, line in page_furniture for run in line.runs}
        lines = reading_order([r for r in page.body if id(r) not in taken])
        lines += [line for line in page.aside if id(line.runs[0]) not in taken]
        furniture += [_furniture(page.number, position, line) for position, line in page_furniture]
        furniture += [_furniture(page.number, "outside", line) for line in page.outside]
        problem = _usable(page, lines)
        if problem is not None:
            unusable.append(problem)
            at = writer.length
            spans.append(PageSpan(page=page.number, char_start=at, char_end=at))
            continue
        leading = _leading(lines)
        for i, line in enumerate(lines):
            after = lines[i + 1] if i + 1 < len(lines) else None
            if previous is not None:
                separator = _separator(previous, line, after, same_page=i > 0, leading=leading)
                writer.write(separator, None)
            if i == 0:
                start = writer.length
            writer.line(page, line)
            previous = line
        spans.append(PageSpan(page=page.number, char_start=start, char_end=writer.length))
    if not writer.parts:
        listed = "; ".join(f"page {u.page}: {u.reason}" for u in unusable[:3])
        raise ExtractionError(
            f"{source}: no page has usable text ({listed}), from its text layer or by OCR of a "
            "scanned page; expected a PDF with text"
        )
    # Empty spans of unusable pages stand where the next page begins, never inside a separator.
    fixed: list[PageSpan] = []
    for i, span in enumerate(spans):
        if span.char_start == span.char_end:
            later = next((s.char_start for s in spans[i + 1 :] if s.char_end > s.char_start), None)
            at = later if later is not None else writer.length
            span = PageSpan(page=span.page, char_start=at, char_end=at)
        fixed.append(span)
    writer.write("\n", "none")
    text = "".join(writer.parts)
    origin = TextOrigins(runs=writer.origin_runs())
    page_origins = tuple(
        _page_origin(
            page,
            span,
            origin.characters(text, span.char_start, span.char_end),
            writer.words.get(page.number, []),
        )
        for page, span in zip(pages, fixed, strict=True)
    )
    return Extraction(
        text=text,
        extractor=PDF_EXTRACTOR,
        extractor_version=PDF_EXTRACTOR_VERSION,
        pages=tuple(fixed),
        furniture=tuple(furniture),
        unusable_pages=tuple(unusable),
        origin=TextOrigins(runs=origin.runs, pages=page_origins),
    )
