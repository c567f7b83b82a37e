"""A held version's footnotes and tables (C20), read from its artefact in the corpus store.

The workspace keeps a version's text, not its markup or glyphs, so a version's footnote reading
and tables are read from the artefact bytes in the store, checked against the version's artefact
SHA-256 first, and kept per process by that hash. No bytes (the store moved) or other bytes give
no reading. One home for every stage: the verifier, `passages`, `diff`'s footnote check, and the
numbering inducer's footnote look-alikes (`version_parts(...)[0].marker_spans`).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError
from workbench.text.footnotes import FootnoteReading, read_footnotes
from workbench.text.table_cells import Table, read_tables

if TYPE_CHECKING:
    from workbench.models import Version

READ_MEDIA = ("xml", "markdown", "pdf")  # media types whose markup or glyphs give footnotes


@lru_cache(maxsize=8)
def _read(
    artefact_sha256: str, path: Path, media_type: str, text: str
) -> tuple[FootnoteReading | None, tuple[Table, ...] | None]:
    try:
        data = path.read_bytes()
    except OSError:
        return None, None
    if hashlib.sha256(data).hexdigest() != artefact_sha256:
        return None, None
    source = str(path)
    try:
        if "pdf" in media_type:  # off the glyphs, re-extracted (no page of it is read by OCR)
            from workbench.text.pdf_footnotes import read_pdf_footnotes

            return read_pdf_footnotes(data, source=source, text=text), None
        footnotes = read_footnotes(data, source=source, media_type=media_type, text=text)
        tables = read_tables(data, source=source, text=text) if "xml" in media_type else ()
    except WorkbenchError:  # the extractor already read these bytes; a reader's refusal gives none
        return None, None
    return footnotes, tables


def version_parts(
    version: Version, store: Path
) -> tuple[FootnoteReading | None, tuple[Table, ...] | None]:
    """The footnote reading and tables of `version`, read from `store / version_id` (None, None
    for a media type that carries no such markup, or bytes that are missing or not the
    version's). A PDF's footnotes are read off its glyphs (`pdf_footnotes`, the PDF extracted
    again); a PDF with a page read by OCR, or whose origins were not recorded, gives none (OCR
    words carry no glyph sizes, and reading again is not to run the OCR engine)."""
    if not any(kind in version.media_type for kind in READ_MEDIA):
        return None, None
    origin = version.origin  # a PDF held before origins were recorded may hide an OCR page
    if "pdf" in version.media_type and (origin is None or any(p.ocr for p in origin.pages)):
        return None, None
    path = store / version.version_id
    return _read(version.artefact_sha256, path, version.media_type, version.text)
