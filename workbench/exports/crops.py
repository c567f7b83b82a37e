"""A person can look (C18): `show_span` draws the page region(s) of a PDF version's span with its
characters' boxes highlighted, a pure function of the artefact's bytes, the held version and the
span, every box listed. Which boxes, and how: docs/extraction.md."""

from __future__ import annotations

import ctypes
import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL import Image, ImageDraw

from workbench.corpus import read_catalogue, read_fetched
from workbench.errors import ShowError
from workbench.models import CatalogueRow, TextOrigin, TextOrigins, Version
from workbench.workspace import Workspace

if TYPE_CHECKING:
    from workbench.text.pdf import Placed

__all__ = ["Highlight", "PlacedText", "SpanImage", "placed_text", "render_span", "show_span"]

PDF = "application/pdf"
SCALE = 2.0  # pixels per PDF point (144 dots per inch)
MARGIN = 18.0  # PDF points of the page shown above and below the highlighted boxes
SEPARATOR = 6  # pixels of grey rule between two pages' bands
SEPARATOR_COLOUR = (128, 128, 128)
FILL = (255, 214, 0)
FILL_ALPHA = 0.35
OUTLINE = (230, 0, 126)
OUTLINE_WIDTH = 2

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in PDF points, y upwards


@dataclass(frozen=True, slots=True, kw_only=True)
class Highlight:
    """One highlighted box: `text[char_start:char_end]` of `origin` on `page`, its box in PDF
    points (page coordinates) and in the image's pixels (left, top, right, bottom; right and
    bottom exclusive)."""

    page: int
    origin: TextOrigin
    char_start: int
    char_end: int
    box: Box
    pixels: tuple[int, int, int, int]

    def as_json(self) -> dict[str, Any]:
        return {
            "page": self.page,
            "origin": self.origin,
            "char_start": self.char_start,
            "char_end": self.char_end,
            "box": [round(v, 1) for v in self.box],
            "pixels": list(self.pixels),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class SpanImage:
    """A span's page bands as one PNG (`png`), with every box it highlights."""

    version_id: str
    char_start: int
    char_end: int
    pages: tuple[int, ...]
    width: int
    height: int
    highlights: tuple[Highlight, ...]
    png: bytes = field(repr=False)

    def as_json(self) -> dict[str, Any]:
        return {
            "version_id": self.version_id,
            "char_start": self.char_start,
            "char_end": self.char_end,
            "pages": list(self.pages),
            "width": self.width,
            "height": self.height,
            "highlights": [h.as_json() for h in self.highlights],
        }


def show_span(
    workspace: Workspace,
    version_id: str,
    char_start: int,
    char_end: int,
    *,
    corpus_dir: Path,
    store: Path,
    ocr_cache: Path | None = None,
    highlight: bool = True,
) -> SpanImage:
    """The span's image (docs/extraction.md, Looking at a span), the artefact read from `store`
    through the catalogue in `corpus_dir`; a scanned page re-extracted reads its words from
    `ocr_cache`.

    Refused with `ShowError`: a version that is not a PDF, a span out of range or empty, a span
    with no character on a page, an artefact whose re-extraction is not the held text; with
    `ChecksumMismatch` when the stored bytes are not the catalogued ones.
    """
    version = workspace.version(version_id)
    check_span(version, char_start, char_end)
    row = next((r for r in read_catalogue(corpus_dir) if r.path == version.version_id), None)
    unlike = row_mismatch(version, row, corpus_dir)
    if unlike is not None or row is None:
        raise ShowError(unlike)
    named = row.provenance.get("language")
    return render_span(
        version,
        read_fetched(row, store),
        char_start,
        char_end,
        language=named if isinstance(named, str) else None,
        ocr_cache=ocr_cache,
        highlight=highlight,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class PlacedText:
    """A PDF version's text as one extraction of its artefact placed it: every placed run, with
    its glyph boxes (`trace`), and the text's origins."""

    trace: tuple[Placed, ...]
    origin: TextOrigins


def placed_text(
    version: Version,
    data: bytes,
    *,
    language: str | None = None,
    ocr_cache: Path | None = None,
) -> PlacedText:
    """The artefact's bytes `data` extracted again with the trace, a scanned page's words read
    from `ocr_cache`; refused (`ShowError`) when that is not the held text."""
    from workbench.text.ocr import OcrOptions
    from workbench.text.pdf import extract_pdf

    trace: list[Placed] = []
    extraction = extract_pdf(
        data,
        source=version.version_id,
        language=language,
        ocr=OcrOptions(cache=ocr_cache),
        trace=trace,
    )
    if extraction.text != version.text:
        raise ShowError(
            f"{version.version_id}: its artefact re-extracted by {extraction.extractor} "
            f"{extraction.extractor_version} is not the held text (held by "
            f"{version.extractor} {version.extractor_version}); offsets into other text would "
            "highlight other words"
        )
    assert extraction.origin is not None  # a PDF's extraction always records its origins
    return PlacedText(trace=tuple(trace), origin=extraction.origin)


def needs_glyphs(version: Version, char_start: int, char_end: int) -> bool:
    """Whether the span touches characters placed from glyphs (or invisible text), whose boxes
    only an extraction's trace holds (`placed_text`); True for a version with no origins."""
    origin = version.origin
    return origin is None or bool(
        {"glyphs", "invisible"} & set(origin.touched(char_start, char_end))
    )


def row_mismatch(version: Version, row: CatalogueRow | None, corpus_dir: Path) -> str | None:
    """Why `row` (looked up in `corpus_dir`'s catalogue) is not the row of the artefact the
    workspace holds `version` from, or None when it is."""
    if row is not None and row.sha256 == version.artefact_sha256:
        return None
    return (
        f"{version.version_id}: "
        + ("not in the catalogue" if row is None else f"catalogue sha256 {row.sha256}")
        + f" in {corpus_dir}; the workspace holds artefact sha256 {version.artefact_sha256}"
    )


def check_span(version: Version, char_start: int, char_end: int) -> None:
    """Refuse (`ShowError`) a version that is not a PDF, and a span empty or out of its text."""
    if version.media_type != PDF:
        raise ShowError(
            f"{version.version_id}: media type {version.media_type}; show renders the pages of "
            f"a PDF version ({PDF})"
        )
    if not 0 <= char_start < char_end <= len(version.text):
        raise ShowError(
            f"--span {char_start}:{char_end}: not a non-empty span of {version.version_id}, "
            f"whose text has {len(version.text)} characters; expected 0 <= START < END <= "
            f"{len(version.text)}"
        )


def render_span(
    version: Version,
    data: bytes,
    char_start: int,
    char_end: int,
    *,
    language: str | None = None,
    ocr_cache: Path | None = None,
    highlight: bool = True,
    placed: PlacedText | None = None,
) -> SpanImage:
    """The span's image from the artefact's bytes `data` (no time stamp in the PNG); with
    `highlight` False, the same bands with nothing drawn on them (what a test compares against).
    A span that `needs_glyphs` reads its boxes off `placed` (the artefact's `placed_text`, one
    extraction for every span of the version), else off an extraction made here."""
    check_span(version, char_start, char_end)
    origin = version.origin
    boxes: list[tuple[int, TextOrigin, int, int, Box]] = []
    if needs_glyphs(version, char_start, char_end):
        if placed is None:
            placed = placed_text(version, data, language=language, ocr_cache=ocr_cache)
        boxes += _glyph_boxes(placed.trace, char_start, char_end)
        origin = placed.origin
    assert origin is not None  # set above for a version with none recorded
    boxes += _ocr_boxes(origin, char_start, char_end)
    if not boxes:
        raise ShowError(
            f"--span {char_start}:{char_end}: no character of the span has a box on a page of "
            f"{version.version_id} (only white space the extractor wrote)"
        )
    return _render(version, data, char_start, char_end, boxes, highlight)


def _glyph_boxes(
    trace: Sequence[Placed], char_start: int, char_end: int
) -> Iterator[tuple[int, TextOrigin, int, int, Box]]:
    """One box per glyph run of `trace` the span touches: the union of its touched characters'
    glyph boxes."""
    for offset, page, run in trace:
        if run.boxes is None or offset >= char_end or offset + len(run.boxes) <= char_start:
            continue
        first, last = max(char_start - offset, 0), min(char_end - offset, len(run.boxes))
        boxes = [b for b in run.boxes[first:last] if b is not None]
        if boxes:
            union = (
                min(b[0] for b in boxes),
                min(b[1] for b in boxes),
                max(b[2] for b in boxes),
                max(b[3] for b in boxes),
            )
            yield page, run.origin, offset + first, offset + last, union


def _ocr_boxes(
    origin: TextOrigins, char_start: int, char_end: int
) -> Iterator[tuple[int, TextOrigin, int, int, Box]]:
    """The boxes of the OCR words the span touches, as the text origin holds them."""
    for page in origin.pages:
        for word in page.ocr.words if page.ocr is not None else ():
            if word.char_start < char_end and word.char_end > char_start:
                box = (word.x0, word.y0, word.x1, word.y1)
                yield page.page, "ocr", word.char_start, word.char_end, box


def _render(
    version: Version,
    data: bytes,
    char_start: int,
    char_end: int,
    placed: list[tuple[int, TextOrigin, int, int, Box]],
    highlight: bool,
) -> SpanImage:
    import pypdfium2 as pdfium  # type: ignore[import-untyped]

    pages = sorted({p for p, *_ in placed})
    bands: list[Image.Image] = []
    highlights: list[Highlight] = []
    top_of_band = 0
    document = pdfium.PdfDocument(data)
    try:
        for number in pages:
            page = document[number - 1]
            try:
                image = page.render(scale=SCALE).to_pil().convert("RGB")
                mine = [
                    (o, s, e, box, _pixels(page, image.size, box))
                    for p, o, s, e, box in sorted(placed, key=lambda b: (b[0], b[2], b[4]))
                    if p == number
                ]
            finally:
                page.close()
            if highlight:
                _draw(image, [px for *_, px in mine])
            margin = round(MARGIN * SCALE)
            top = max(min(px[1] for *_, px in mine) - margin, 0)
            bottom = min(max(px[3] for *_, px in mine) + margin, image.height)
            if bands:
                top_of_band += SEPARATOR
            for o, s, e, box, (left, upper, right, lower) in mine:
                shift = top_of_band - top
                highlights.append(
                    Highlight(
                        page=number,
                        origin=o,
                        char_start=s,
                        char_end=e,
                        box=box,
                        pixels=(left, upper + shift, right, lower + shift),
                    )
                )
            bands.append(image.crop((0, top, image.width, bottom)))
            top_of_band += bottom - top
    finally:
        document.close()
    width = max(b.width for b in bands)
    sheet = Image.new("RGB", (width, top_of_band), SEPARATOR_COLOUR)
    at = 0
    for band in bands:
        sheet.paste(band, (0, at))
        at += band.height + SEPARATOR
    buffer = io.BytesIO()
    sheet.save(buffer, format="PNG", optimize=False)
    return SpanImage(
        version_id=version.version_id,
        char_start=char_start,
        char_end=char_end,
        pages=tuple(pages),
        width=sheet.width,
        height=sheet.height,
        highlights=tuple(highlights),
        png=buffer.getvalue(),
    )


def _pixels(page: Any, size: tuple[int, int], box: Box) -> tuple[int, int, int, int]:
    """A PDF box's pixels in the page rendered at `size`: its corners through PDFium's
    page-to-device transform (the renderer's, /Rotate included); right and bottom exclusive."""
    import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]

    x, y = ctypes.c_int(), ctypes.c_int()
    xs, ys = [], []
    for px, py in ((box[0], box[1]), (box[0], box[3]), (box[2], box[1]), (box[2], box[3])):
        pdfium_c.FPDF_PageToDevice(
            page.raw, 0, 0, size[0], size[1], 0, px, py, ctypes.byref(x), ctypes.byref(y)
        )
        xs.append(x.value)
        ys.append(y.value)
    left, top = max(min(xs), 0), max(min(ys), 0)
    return left, top, min(max(max(xs), left + 1), size[0]), min(max(max(ys), top + 1), size[1])


def _draw(image: Image.Image, boxes: list[tuple[int, int, int, int]]) -> None:
    """Blend every box with `FILL`, then outline each just outside it."""
    mask = Image.new("L", image.size, 0)
    shade = ImageDraw.Draw(mask)
    for left, top, right, bottom in boxes:
        shade.rectangle((left, top, right - 1, bottom - 1), fill=round(255 * FILL_ALPHA))
    image.paste(Image.composite(Image.new("RGB", image.size, FILL), image, mask))
    pen = ImageDraw.Draw(image)
    w = OUTLINE_WIDTH
    for left, top, right, bottom in boxes:
        pen.rectangle((left - w, top - w, right - 1 + w, bottom - 1 + w), outline=OUTLINE, width=w)
