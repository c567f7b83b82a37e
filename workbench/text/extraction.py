"""Turn an admitted artefact's bytes into the text every offset indexes (C4, C14): one named,
versioned extractor per media type, `extract` dispatching among them, each a pure function of the
bytes and every refusal one line naming the source and the byte, line or media type at fault."""

from __future__ import annotations

from workbench.errors import ExtractionError
from workbench.models import Extraction
from workbench.text.decode import MAX_LINE_CHARS, decode_text
from workbench.text.ocr import OcrOptions
from workbench.text.pdf import PDF_EXTRACTOR, PDF_EXTRACTOR_VERSION, Placed, extract_pdf
from workbench.text.xml import XML_BLOCKS_EXTRACTOR, XML_TEXT_EXTRACTOR, extract_xml

__all__ = [
    "CURRENT_EXTRACTORS",
    "EXTRACTORS",
    "MAX_LINE_CHARS",
    "AwaitingExtractor",
    "decode_text",
    "extract",
]

EXTRACTORS: dict[str, tuple[str, str]] = {
    "text/plain": ("identity", "1"),
    "text/markdown": ("identity", "1"),
    "application/xml": XML_TEXT_EXTRACTOR,
    "text/xml": XML_TEXT_EXTRACTOR,
    "application/pdf": (PDF_EXTRACTOR, PDF_EXTRACTOR_VERSION),
}
# Every extractor's current version, by name: a version held under one of these (and its artefact
# hash) is what extraction would produce again, so a warm ingest need not extract it.
CURRENT_EXTRACTORS: dict[str, str] = {
    **dict(EXTRACTORS.values()),
    XML_BLOCKS_EXTRACTOR[0]: XML_BLOCKS_EXTRACTOR[1],
}


class AwaitingExtractor(ExtractionError):
    """The media type is known but its extractor is not written yet: counted as awaiting.

    No media type awaits one now (PDF has `extract_pdf`); kept for the ingest report's contract.
    """


def extract(
    data: bytes,
    media_type: str,
    *,
    source: str,
    language: str | None = None,
    ocr: OcrOptions | None = None,
    trace: list[Placed] | None = None,
) -> Extraction:
    """Extract the text of an artefact of `media_type`; `source` names it in error messages.

    PDF: `extract_pdf` (its rules are in `workbench/text/pdf.py`; a scanned page is read by OCR
    in `language`, the provenance's, with `ocr`'s cache and engine; with `trace`, its placed runs
    are appended there, what the PDF's parts are read from). Any other media type leaves `trace`
    as it is. Text and Markdown:
    `decode_text`, unchanged. XML: `decode_text` first (same byte-level refusals), then
    `extract_xml` (its rules are in its docstring, `workbench/text/xml.py`).
    """
    if media_type == "application/pdf":
        return extract_pdf(data, source=source, language=language, ocr=ocr, trace=trace)
    if media_type not in EXTRACTORS:
        raise ExtractionError(f"{source}: no extractor for media type {media_type!r}")
    name, version = EXTRACTORS[media_type]
    text = decode_text(data, source=source, line_limit=name == "identity")
    if name == "identity":
        return Extraction(text=text, extractor=name, extractor_version=version)
    return extract_xml(data, source=source)
