"""Citations from other tools: three input formats, each JSON Lines (one citation per line; blank
lines are skipped), every line read as a `lines.CitationLine`.

* `workbench`: `{"version_id", "char_start", "char_end", "quoted_text", "occurrence"?, "page"?,
  "alterations"?, "section"?}`; `page` (1-based, as a reader counts a PDF's pages) claims the span
  lies on that page; `alterations` (a boolean, default false) reads the quote's marked omissions
  and bracketed insertions (`cite.alterations`); `section` (a label such as `(b)(2)` or `R2.1`)
  claims the span lies in that section (`cite.pincites`); `row_header` and `column_header` name
  the headers of the table cell quoted (`cite.cell_headers`);
* `w3c`: a Web Annotation, every text selector form (`cite.w3c`);
* `anthropic`: a Messages API citation, with the documents given in request order (`--documents`,
  `read_documents`): `char_location` (`cited_text`, `start_char_index`, `end_char_index`,
  `document_index`; the type may be left out), `page_location` (`cited_text`,
  `start_page_number`, `end_page_number`, `document_index`), which names pages and no offsets and
  is placed in the text by exact search inside those pages (`cite.placing`), or
  `content_block_location` (`cited_text`, `start_block_index`, `end_block_index`,
  `document_index`), read against the blocks `workbench blocks` wrote for that document
  (`cite.blocks`): a citation into a document given as a plain version id, or into a map that is
  not as `workbench blocks` wrote it, is refused `blocks_not_written`, and one past the map's last
  block `block_out_of_range`.

Page and block numbers. Anthropic documents `start_page_number` as 1-indexed and `end_page_number`
as exclusive ("start_page_number": 1, # 1-indexed; "end_page_number": 2, # exclusive, in the
Citations guide, https://platform.claude.com/docs/en/build-with-claude/citations), and block
indexes as 0-based, the end exclusive. So a citation of page 4 alone reads start 4, end 5, and of
block 0 alone start 0, end 1. Pages are held here as a `PageRange` of first and last page,
inclusive: a page_location citation with `start_page_number` s and `end_page_number` e names
pages s to e - 1, and needs 1 <= s < e. Our own `page` p names pages p to p.

The guarantee: a malformed line never stops the rest of the file. Each line becomes a claim (a
citation, a quote to place, a refusal by name) or a one-line error naming the line number and the
field. Offsets that are present but not integers are not a format error: they reach the verifier
and are refused as `bad_offsets`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

from workbench.cite.blocks import BlockMap, block_map_from_json
from workbench.cite.lines import (
    CitationLine,
    LineError,
    LineRefusal,
    PageRange,
    UnplacedQuote,
    count_field,
    kind_of,
    offset_field,
    string_field,
)
from workbench.cite.verify import Citation
from workbench.cite.w3c import read_w3c
from workbench.errors import CitationError
from workbench.models import strict_json

Format = Literal["workbench", "w3c", "anthropic"]
FORMATS: tuple[Format, ...] = ("workbench", "w3c", "anthropic")
ANTHROPIC_TYPES = ("char_location", "page_location", "content_block_location")
MAX_LINE_BYTES = 4 * 1024 * 1024
# What `--documents` maps a document index to: a version id, or the blocks written for one.
Document = str | BlockMap
_WORKBENCH_FIELDS = (
    "version_id",
    "char_start",
    "char_end",
    "quoted_text",
    "occurrence",
    "page",
    "alterations",
    "section",
    "row_header",
    "column_header",
)


def _workbench(record: dict[str, Any]) -> Citation:
    unknown = sorted(set(record) - set(_WORKBENCH_FIELDS))
    if unknown:
        raise LineError(
            f"field {unknown[0]!r}: unknown field (expected {', '.join(_WORKBENCH_FIELDS)})"
        )
    occurrence = record.get("occurrence")
    altered = record.get("alterations", False)
    if type(altered) is not bool:
        raise LineError(f"field 'alterations': expected true or false, got {kind_of(altered)}")
    return Citation(
        version_id=string_field(record, "version_id", "version_id"),
        char_start=offset_field(record, "char_start", "char_start"),
        char_end=offset_field(record, "char_end", "char_end"),
        quoted_text=string_field(record, "quoted_text", "quoted_text"),
        occurrence=occurrence,
        alterations=altered,
        section=string_field(record, "section", "section") if "section" in record else None,
        row_header=string_field(record, "row_header", "row_header")
        if "row_header" in record
        else None,
        column_header=(
            string_field(record, "column_header", "column_header")
            if "column_header" in record
            else None
        ),
    )


def _document(record: dict[str, Any], documents: Sequence[Document]) -> Document:
    index = offset_field(record, "document_index", "document_index")
    if type(index) is not int or not 0 <= index < len(documents):
        raise LineError(
            f"field 'document_index': {index!r} names no document "
            f"(--documents maps {len(documents)}: 0 to {len(documents) - 1})"
        )
    return documents[index]


def _version_id(document: Document) -> str:
    return document if isinstance(document, str) else document.version_id


def _anthropic_pages(
    record: dict[str, Any], documents: Sequence[Document]
) -> tuple[UnplacedQuote, PageRange]:
    """A page_location citation: its pages as a `PageRange` (the end is exclusive; module docstring)."""
    version_id = _version_id(_document(record, documents))
    start = count_field(record, "start_page_number", "a page number", 1)
    end = count_field(record, "end_page_number", "a page number", 1)
    if end <= start:
        raise LineError(
            f"field 'end_page_number': {end} is not after start_page_number {start} "
            "(the end page is exclusive)"
        )
    quote = UnplacedQuote(
        version_id=version_id, quoted_text=string_field(record, "cited_text", "cited_text")
    )
    return quote, PageRange(first=start, last=end - 1)


def _anthropic_blocks(
    number: int, record: dict[str, Any], documents: Sequence[Document]
) -> CitationLine:
    """A content_block_location citation, read against its document's blocks (module docstring)."""
    document = _document(record, documents)
    quote = string_field(record, "cited_text", "cited_text")
    start = count_field(record, "start_block_index", "a block index", 0)
    end = count_field(record, "end_block_index", "a block index", 0)
    if end <= start:
        raise LineError(
            f"field 'end_block_index': {end} is not after start_block_index {start} "
            "(the end block is exclusive)"
        )

    def refused(reason: str, detail: str) -> CitationLine:
        refusal = LineRefusal(
            version_id=_version_id(document), quoted_text=quote, reason=reason, detail=detail
        )
        return CitationLine(line=number, citation=None, error=None, refusal=refusal)

    where = f"document {record['document_index']}"
    if isinstance(document, str):
        return refused(
            "blocks_not_written",
            f"{where} is given as the version id {document}, not as blocks; a "
            "content_block_location citation is read against the map 'workbench blocks "
            f"{document} --json' writes: give that in --documents",
        )
    if not document.written:
        return refused(
            "blocks_not_written",
            f"{where}: the blocks map of {document.version_id} does not hash to its "
            f"blocks_sha256 {document.blocks_sha256[:12]}...; it is not a map 'workbench blocks' "
            "wrote (or it was edited)",
        )
    if end > len(document.spans):
        return refused(
            "block_out_of_range",
            f"{where}: blocks {start} to {end - 1} are cited; the blocks written for "
            f"{document.version_id} run from 0 to {len(document.spans) - 1}",
        )
    citation = Citation(
        version_id=document.version_id,
        char_start=document.spans[start][0],
        char_end=document.spans[end - 1][1],
        quoted_text=quote,
        text_sha256=document.text_sha256,
    )
    return CitationLine(line=number, citation=citation, error=None)


def _anthropic(record: dict[str, Any], documents: Sequence[Document]) -> Citation:
    return Citation(
        version_id=_version_id(_document(record, documents)),
        char_start=offset_field(record, "start_char_index", "start_char_index"),
        char_end=offset_field(record, "end_char_index", "end_char_index"),
        quoted_text=string_field(record, "cited_text", "cited_text"),
    )


def documents_from_json(value: Any, source: str) -> tuple[Document, ...]:
    """A `--documents` value: a JSON array, or an object from document index ("0", "1", ...) to
    entry covering every index from 0; each entry a version id, or a blocks map as `workbench
    blocks --json` writes it (its extra `document` key is left unread)."""
    if isinstance(value, dict):
        try:
            value = [value[str(i)] for i in range(len(value))]
        except KeyError as exc:
            raise CitationError(
                f"{source}: document indexes must run from 0 to {len(value) - 1}; {exc} is missing"
            ) from exc
    if not isinstance(value, list):
        raise CitationError(f"{source}: expected an array of version ids or blocks maps")
    documents: list[Document] = []
    for number, entry in enumerate(value):
        if isinstance(entry, str):
            documents.append(entry)
            continue
        read = block_map_from_json(entry)
        if isinstance(read, str):
            raise CitationError(f"{source}: entry {number}: {read}")
        documents.append(read)
    return tuple(documents)


def documents_as_json(documents: Sequence[Document]) -> list[Any]:
    """`documents` as `documents_from_json` reads them back (a bundle records them so)."""
    return [d if isinstance(d, str) else d.as_json() for d in documents]


def read_documents(data: bytes, source: str) -> tuple[Document, ...]:
    """The `--documents` file (`documents_from_json`)."""
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CitationError(f"{source}: not a UTF-8 JSON file ({exc})") from exc
    return documents_from_json(value, source)


def read_citations(
    data: bytes, fmt: Format, *, documents: Sequence[Document] | None = None, source: str = "-"
) -> tuple[CitationLine, ...]:
    """Every non-blank line of a JSON Lines file, read as a claim or as an error."""
    if fmt not in FORMATS:
        raise CitationError(f"format {fmt!r}: expected one of {', '.join(FORMATS)}")
    if fmt == "anthropic" and documents is None:
        raise CitationError(f"{source}: the anthropic format needs --documents")
    lines = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        raw = raw.removesuffix(b"\r")
        if not raw.strip():
            continue
        try:
            lines.append(_parse(number, raw, fmt, documents or ()))
        except LineError as exc:
            lines.append(CitationLine(line=number, citation=None, error=f"line {number}: {exc}"))
    return tuple(lines)


def with_alterations(lines: Sequence[CitationLine]) -> tuple[CitationLine, ...]:
    """`lines` with alterations on for every citation they hold (`workbench verify --alterations`);
    a line that holds no citation with a quote (a quote to place, a span claiming no quote, a
    refusal, an error) is left as it is."""
    return tuple(
        replace(line, citation=replace(line.citation, alterations=True))
        if line.citation is not None and not line.citation.position_only
        else line
        for line in lines
    )


def _parse(number: int, raw: bytes, fmt: Format, documents: Sequence[Document]) -> CitationLine:
    if len(raw) > MAX_LINE_BYTES:
        raise LineError(f"{len(raw)} bytes; a line holds at most {MAX_LINE_BYTES}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LineError(f"not UTF-8 (byte {exc.start})") from exc
    try:
        record = strict_json(text.removeprefix("\ufeff"), LineError)
    except json.JSONDecodeError as exc:
        raise LineError(f"not JSON ({exc.msg} at column {exc.colno})") from exc
    if not isinstance(record, dict):
        raise LineError(f"expected a JSON object, got {kind_of(record)}")
    if fmt == "workbench":
        page = count_field(record, "page", "a page number", 1) if "page" in record else None
        return CitationLine(
            line=number,
            citation=_workbench(record),
            error=None,
            pages=None if page is None else PageRange(first=page, last=page),
        )
    if fmt == "w3c":
        return read_w3c(number, record)
    kind = record.get("type", "char_location")
    if kind == "page_location":
        quote, pages = _anthropic_pages(record, documents)
        return CitationLine(line=number, citation=None, error=None, pages=pages, unplaced=quote)
    if kind == "content_block_location":
        return _anthropic_blocks(number, record, documents)
    if kind != "char_location":
        raise LineError(
            f"field 'type': expected {', '.join(repr(t) for t in ANTHROPIC_TYPES)}, got {kind!r}"
        )
    return CitationLine(line=number, citation=_anthropic(record, documents), error=None)
