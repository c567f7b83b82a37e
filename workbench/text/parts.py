"""A held version's footnotes and tables (C20) and a PDF's heading lines (C15), read from its
artefact in the store once its SHA-256 is checked, and kept per process by that hash; a PDF's read
off the trace of its extraction (`pdf_parts`: at ingest, or extracted again); missing or other
bytes give no reading."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.models import Version
    from workbench.text.footnotes import FootnoteReading
    from workbench.text.pdf import Placed
    from workbench.text.table_cells import Table

READ_MEDIA = ("xml", "markdown", "pdf")  # media types whose markup or glyphs hold notes or tables

# Each heading line's `[start, end)` in the version's text (`pdf_headings.heading_lines`).
Headings = tuple[tuple[int, int], ...]


@lru_cache(maxsize=8)
def _artefact(artefact_sha256: str, path: Path) -> bytes | None:
    """The artefact's bytes, or None when they are missing or not `artefact_sha256`'s."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return data if hashlib.sha256(data).hexdigest() == artefact_sha256 else None


# The extractor already read these bytes: a reader's refusal (WorkbenchError) gives no reading.
# The markup readers load with the first version whose markup is read.


@lru_cache(maxsize=8)
def _markup(
    artefact_sha256: str, path: Path, media_type: str, text: str
) -> tuple[FootnoteReading | None, tuple[Table, ...] | None]:
    """The footnotes and tables of an XML or Markdown version; (None, None) where its bytes are
    missing or not `artefact_sha256`'s, or a reader refuses them."""
    from workbench.text.footnotes import read_markdown_footnotes

    data = _artefact(artefact_sha256, path)
    if data is None:
        return None, None
    if "xml" not in media_type:
        return read_markdown_footnotes(text), ()
    try:
        return markup_parts(data, source=str(path), text=text)
    except WorkbenchError:
        return None, None


def markup_parts(
    data: bytes, *, source: str, text: str
) -> tuple[FootnoteReading, tuple[Table, ...]]:
    """An XML artefact's footnote reading (`footnotes.read_markup_footnotes`) and tables
    (`table_cells.read_tables`, in raw offsets of `text`, its `extract_xml` text), each what its
    own reader gives, from one parse and one render; no render where neither reader chooses an
    element (`xml.chooses_any`). Refused as either reader refuses."""
    from workbench.text.footnotes import NoteMarkup
    from workbench.text.table_cells import is_cell, is_table, tables_from_cells
    from workbench.text.xml import chooses_any, chosen_spans_of, parse_xml

    root = parse_xml(data, source=source)
    notes = NoteMarkup(root)
    reads_notes, reads_tables = chooses_any(root, notes.chooses), chooses_any(root, is_table)
    selects = ([notes.chooses] if reads_notes else []) + ([is_cell] if reads_tables else [])
    chosen = chosen_spans_of(root, source, selects) if selects else []
    reading = notes.reading(chosen.pop(0) if reads_notes else ())
    return reading, tables_from_cells(root, chosen.pop(0), text) if reads_tables else ()


@lru_cache(maxsize=4)
def _pdf(
    artefact_sha256: str, path: Path, text: str, glyphs: bool
) -> tuple[FootnoteReading | None, tuple[Table, ...] | None, Headings]:
    """A PDF's parts (`pdf_parts`) off one extraction again with its trace, through the shared
    OCR cache; none where it is refused or is not the version's text."""
    import os

    from workbench.text.ocr import CACHE_ENV, OcrOptions
    from workbench.text.pdf import extract_pdf

    data = _artefact(artefact_sha256, path)
    if data is None:
        return None, None, ()
    cache = os.environ.get(CACHE_ENV)
    trace: list[Placed] = []
    try:
        extraction = extract_pdf(
            data,
            source=str(path),
            ocr=OcrOptions(cache=Path(cache) if cache else None),
            trace=trace,
        )
    except WorkbenchError:
        return None, None, ()
    if extraction.text != text:
        return None, None, ()
    return pdf_parts(data, trace, text, glyphs=glyphs)


def pdf_parts(
    data: bytes, trace: Sequence[Placed], text: str, *, glyphs: bool
) -> tuple[FootnoteReading | None, tuple[Table, ...] | None, Headings]:
    """A PDF's footnotes (only where every page was read from its glyphs: `glyphs`), tables and
    heading lines, read off `trace`, the runs of the extraction of `data` that gave `text`; none
    where a reader refuses."""
    from workbench.text.pdf_footnotes import footnotes_from_trace
    from workbench.text.pdf_headings import heading_lines
    from workbench.text.pdf_table_grids import page_rulings
    from workbench.text.pdf_tables import tables_from_trace

    try:
        footnotes = footnotes_from_trace(trace, text) if glyphs else None
        tables = tables_from_trace(trace, text, page_rulings(data, {p for _, p, _ in trace}))
        return footnotes, tables, heading_lines(trace, text)
    except WorkbenchError:
        return None, None, ()


def read_from_glyphs(version: Version) -> bool:
    """Whether every page of `version` was read from its glyphs, so its footnotes may be read.

    OCR words carry no glyph sizes, so a PDF with a page read by OCR (or held before origins were
    recorded, which may hide one) has no footnote reading; its tables are read all the same."""
    origin = version.origin
    return origin is not None and not any(p.ocr for p in origin.pages)


def lazy_headings(
    versions: Sequence[Version], headings_of: Callable[[Version], Headings]
) -> Callable[[], list[Headings]] | None:
    """What `choice.choose_profile` reads as `headings`: a function giving `headings_of` each of
    `versions` that is a PDF (() for the others), called only when a profile is induced; None
    when none of them is a PDF (no line is set as a heading by its glyphs)."""
    if not any("pdf" in v.media_type for v in versions):
        return None
    return lambda: [headings_of(v) if "pdf" in v.media_type else () for v in versions]


def holds_parts(version: Version) -> bool:
    """Whether `version`'s media type (`READ_MEDIA`) may hold footnotes or tables at all."""
    return any(kind in version.media_type for kind in READ_MEDIA)


def _pdf_parts(
    version: Version, store: Path
) -> tuple[FootnoteReading | None, tuple[Table, ...] | None, Headings]:
    path = store / version.version_id
    return _pdf(version.artefact_sha256, path, version.text, read_from_glyphs(version))


def version_parts(
    version: Version, store: Path
) -> tuple[FootnoteReading | None, tuple[Table, ...] | None]:
    """The footnote reading and tables of `version`, read from `store / version_id` (None, None
    for a media type that carries no such markup, bytes that are missing or not the version's,
    or markup either reader refuses). A PDF's are read off its glyphs and geometry (the PDF
    extracted again, once for both); a PDF with a page read by OCR has no footnote reading."""
    footnotes, tables, _ = version_parts_and_headings(version, store)
    return footnotes, tables


def version_parts_and_headings(
    version: Version, store: Path
) -> tuple[FootnoteReading | None, tuple[Table, ...] | None, Headings]:
    """`version_parts` and, for a PDF, the lines it sets as headings
    (`pdf_headings.heading_lines`), read off the same extraction; () for any other version and
    for a PDF whose bytes are missing, refused or not the version's."""
    if not holds_parts(version):
        return None, None, ()
    if "pdf" in version.media_type:
        return _pdf_parts(version, store)
    path = store / version.version_id
    footnotes, tables = _markup(version.artefact_sha256, path, version.media_type, version.text)
    return footnotes, tables, ()
