"""Turn an admitted artefact's bytes into the text that every offset indexes (DESIGN.md C4, C14).

Each media type has one named, versioned extractor (`EXTRACTORS`): plain text and Markdown pass
through `decode_text` unchanged ("identity"); XML goes to `xml.extract_xml` ("xml-text", or
"xml-blocks" for a schema outside the known vocabularies), which renders the reading text a person
would cite and carries its labels through as `StructureMark`s; PDF goes to `pdf.extract_pdf`
("pdf-text"), which also returns a page map, the page furniture it took out of the body and the
pages with no usable text. `extract` dispatches on the media type. Every refusal is a typed,
one-line error naming the source and the byte, line or media type at fault.

The module is `extraction`, not `extract`, so that `workbench.text.extract` stays the verb
(importing a submodule binds its name on the package).

The guarantee: extraction is a pure function of the bytes. The same bytes give the same text every
time, so a version's text hash can be re-derived and checked; any change to a rule changes that
extractor's version.
"""

from __future__ import annotations

from workbench.errors import ExtractionError, TextDecodeError
from workbench.models import Extraction
from workbench.text.pdf import PDF_EXTRACTOR, PDF_EXTRACTOR_VERSION, extract_pdf
from workbench.text.xml import XML_BLOCKS_EXTRACTOR, XML_TEXT_EXTRACTOR, extract_xml

__all__ = [
    "CURRENT_EXTRACTORS",
    "EXTRACTORS",
    "MAX_LINE_CHARS",
    "AwaitingExtractor",
    "decode_text",
    "extract",
]

MAX_LINE_CHARS = 1_000_000

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


def decode_text(data: bytes, *, source: str, line_limit: bool = True) -> str:
    """Decode `data` as strict UTF-8, exactly: no newline translation, a UTF-8 BOM kept as U+FEFF.

    Refused with `TextDecodeError`, cheapest check first: empty input; a UTF-32 or UTF-16 byte
    order mark at byte 0; a NUL byte; invalid UTF-8 (the offset and value of the first bad byte);
    with `line_limit`, a line (ended by "\\n") longer than `MAX_LINE_CHARS` characters (its
    1-based number, length). The line limit guards plain text, whose lines become the passages'
    lines; XML is laid out by its elements, and one-line XML files are common (Justice Canada's).
    """
    if not data:
        raise TextDecodeError(f"{source}: empty file; expected text")
    # CAUTION: UTF-32 LE's mark begins with UTF-16 LE's; the longer marks are tested first.
    for mark, name in (
        (b"\xff\xfe\x00\x00", "UTF-32"),
        (b"\x00\x00\xfe\xff", "UTF-32"),
        (b"\xff\xfe", "UTF-16"),
        (b"\xfe\xff", "UTF-16"),
    ):
        if data.startswith(mark):
            raise TextDecodeError(f"{source}: {name} byte order mark at byte 0; expected UTF-8")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise TextDecodeError(f"{source}: NUL byte at byte {nul}; expected text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TextDecodeError(
            f"{source}: invalid UTF-8 at byte {error.start} "
            f"(0x{data[error.start]:02x}); expected UTF-8 text"
        ) from error
    # A line has no more characters than bytes, so only a byte run longer than the limit can fail;
    # rfind over a limit-sized window steps over many short lines per call, in C.
    pos = 0
    while line_limit and len(data) - pos > MAX_LINE_CHARS:
        newline = data.rfind(b"\n", pos, pos + MAX_LINE_CHARS + 1)
        if newline < 0:
            end = data.find(b"\n", pos)
            end = len(data) if end < 0 else end
            length = len(data[pos:end].decode("utf-8"))
            if length > MAX_LINE_CHARS:
                line = data.count(b"\n", 0, pos) + 1
                raise TextDecodeError(
                    f"{source}: line {line} is {length} characters long; "
                    f"expected at most {MAX_LINE_CHARS}"
                )
            newline = end
        pos = newline + 1
    return text


def extract(data: bytes, media_type: str, *, source: str) -> Extraction:
    """Extract the text of an artefact of `media_type`; `source` names it in error messages.

    PDF: `extract_pdf` (its rules are in `workbench/text/pdf.py`). Text and Markdown:
    `decode_text`, unchanged. XML: `decode_text` first (same byte-level refusals), then
    `extract_xml` (its rules are in its docstring, `workbench/text/xml.py`).
    """
    if media_type == "application/pdf":
        return extract_pdf(data, source=source)
    if media_type not in EXTRACTORS:
        raise ExtractionError(f"{source}: no extractor for media type {media_type!r}")
    name, version = EXTRACTORS[media_type]
    text = decode_text(data, source=source, line_limit=name == "identity")
    if name == "identity":
        return Extraction(text=text, extractor=name, extractor_version=version)
    return extract_xml(data, source=source)
