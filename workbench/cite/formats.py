"""Citations from other tools read as `lines.CitationLine`s: three JSON Lines formats (`workbench`,
`w3c`, `anthropic`) and whole provider responses, told apart by `detect_format`. A malformed line
never stops the rest of the file (C14); the fields are listed in docs/verification.md."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

from workbench.cite.bedrock import is_bedrock, read_bedrock
from workbench.cite.blocks import BlockMap, block_map_from_json
from workbench.cite.cohere import is_cohere, read_cohere
from workbench.cite.gemini import is_gemini, read_gemini
from workbench.cite.lines import (
    CitationLine,
    LineError,
    PageRange,
    UnplacedQuote,
    count_field,
    kind_of,
    offset_field,
    string_field,
)
from workbench.cite.openai import is_openai, read_openai
from workbench.cite.responses import (
    Document as Document,  # re-exported: `--documents` entries, as a bundle records them
)
from workbench.cite.responses import (
    Refused,
    document_at,
    line_of,
    read_events,
    read_whole,
    refuse,
)
from workbench.cite.verify import Citation
from workbench.cite.w3c import read_w3c, source_iri
from workbench.errors import CitationError
from workbench.models import strict_json

Format = Literal["workbench", "w3c", "anthropic", "gemini", "openai", "cohere", "bedrock", "auto"]
FORMATS: tuple[Format, ...] = (
    "workbench",
    "w3c",
    "anthropic",
    "gemini",
    "openai",
    "cohere",
    "bedrock",
    "auto",
)
RESPONSE_KEYS = frozenset({"candidates", "steps", "output", "content", "message"})
ANTHROPIC_TYPES = (
    "char_location",
    "page_location",
    "content_block_location",
    "search_result_location",
    "web_search_result_location",
)
MAX_LINE_BYTES = 4 * 1024 * 1024
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


def _document(record: dict[str, Any], documents: Sequence[Document]) -> str | BlockMap:
    index = offset_field(record, "document_index", "document_index")
    return document_at(documents, index, "document_index", str(record.get("cited_text", "")))


def _version_id(document: str | BlockMap) -> str:
    return document if isinstance(document, str) else document.version_id


def _anthropic_pages(
    record: dict[str, Any], documents: Sequence[Document]
) -> tuple[UnplacedQuote, PageRange]:
    """A page_location citation: its pages as a `PageRange`, first and last inclusive. Anthropic
    documents `start_page_number` as 1-indexed and `end_page_number` as exclusive, so start s and
    end e name pages s to e - 1 and need 1 <= s < e (page 4 alone: start 4, end 5)."""
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
    """A content_block_location citation (0-based blocks, the end exclusive), read against its
    document's blocks."""
    return _in_blocks(
        number, record, _document(record, documents), f"document {record['document_index']}"
    )


def _search_result(
    number: int, record: dict[str, Any], documents: Sequence[Document]
) -> CitationLine:
    """A search_result_location citation: its `source` names the blocks map, among --documents,
    of the version whose text hashes to that `ni:` IRI (`VersionBlocks.search_result`)."""
    source = string_field(record, "source", "source")
    quote = string_field(record, "cited_text", "cited_text")
    maps = [d for d in documents if isinstance(d, BlockMap) and source_iri(d.text_sha256) == source]
    if not maps:
        raise refuse(
            source,
            quote,
            "not_held",
            f"search result {record.get('search_result_index')!r}: its source {source} is not the "
            "ni: IRI of any blocks map in --documents; give the map 'workbench blocks VERSION_ID "
            "--json' wrote for the version sent",
        )
    return _in_blocks(number, record, maps[0], f"search result {source}")


def _in_blocks(
    number: int, record: dict[str, Any], document: str | BlockMap, where: str
) -> CitationLine:
    quote = string_field(record, "cited_text", "cited_text")
    start = count_field(record, "start_block_index", "a block index", 0)
    end = count_field(record, "end_block_index", "a block index", 0)
    if end <= start:
        raise LineError(
            f"field 'end_block_index': {end} is not after start_block_index {start} "
            "(the end block is exclusive)"
        )

    def refused(reason: str, detail: str) -> Refused:
        return refuse(_version_id(document), quote, reason, detail)

    if isinstance(document, str):
        raise refused(
            "blocks_not_written",
            f"{where} is given as the version id {document}, not as blocks; a "
            "content_block_location citation is read against the map 'workbench blocks "
            f"{document} --json' writes: give that in --documents",
        )
    if not document.written:
        raise refused(
            "blocks_not_written",
            f"{where}: the blocks map of {document.version_id} does not hash to its "
            f"blocks_sha256 {document.blocks_sha256[:12]}...; it is not a map 'workbench blocks' "
            "wrote (or it was edited)",
        )
    if end > len(document.spans):
        raise refused(
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
        locator="blocks",
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
    entry covering every index from 0; each entry a version id, a blocks map as `workbench
    blocks --json` writes it (its extra `document` and `search_result` keys are left unread), or null for a document
    the request sent that was never recorded (a citation of it is refused `not_held`)."""
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
        if entry is None or isinstance(entry, str):
            documents.append(entry)
            continue
        read = block_map_from_json(entry)
        if isinstance(read, str):
            raise CitationError(f"{source}: entry {number}: {read}")
        documents.append(read)
    return tuple(documents)


def documents_as_json(documents: Sequence[Document]) -> list[Any]:
    """`documents` as `documents_from_json` reads them back (a bundle records them so)."""
    return [d.as_json() if isinstance(d, BlockMap) else d for d in documents]


def read_documents(data: bytes, source: str) -> tuple[Document, ...]:
    """The `--documents` file (`documents_from_json`)."""
    try:
        value = strict_json(data.decode("utf-8"), lambda why: CitationError(f"{source}: {why}"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CitationError(f"{source}: not a UTF-8 JSON file ({exc})") from exc
    return documents_from_json(value, source)


def read_citations(
    data: bytes, fmt: Format, *, documents: Sequence[Document] | None = None, source: str = "-"
) -> tuple[CitationLine, ...]:
    """Every non-blank line of a JSON Lines file, read as a claim or as an error."""
    if fmt not in FORMATS:
        raise CitationError(f"format {fmt!r}: expected one of {', '.join(FORMATS)}")
    response = _response(data, fmt, source)
    if fmt == "auto":
        fmt = detect_format(data, response)
    if fmt == "anthropic" and documents is None:
        raise CitationError(f"{source}: the anthropic format needs --documents")
    if fmt in ("gemini", "openai", "cohere", "bedrock") or (
        fmt == "anthropic" and response is not None
    ):
        return _read_response(response, fmt, documents or (), source)
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


def _response(data: bytes, fmt: Format, source: str) -> Any:
    """A whole provider response: the list of a stream's events, or one JSON value that is not a
    citation line (an object holding one of `RESPONSE_KEYS`); else None."""
    if fmt in ("workbench", "w3c"):
        return None
    events = read_events(data, source)
    if events is not None:
        return events
    whole = read_whole(data, source)
    if isinstance(whole, dict) and RESPONSE_KEYS & set(whole):
        return whole
    return None


def detect_format(data: bytes, response: Any) -> Format:
    """`--format auto`: a whole response by its keys (Gemini `candidates` or `steps`, OpenAI
    `output` as a list, Bedrock `output.message`, Cohere `message`, else Anthropic: `content`,
    or a stream's events); else JSON Lines by the first
    line's keys (`version_id`: workbench; `target`: w3c; `cited_text`: anthropic). Anything else
    is a `CitationError` naming what was looked for."""
    if response is not None:
        if is_gemini(response):
            return "gemini"
        if is_openai(response):
            return "openai"
        if is_bedrock(response):
            return "bedrock"
        if is_cohere(response):
            return "cohere"
        return "anthropic"
    first = next((line for line in data.split(b"\n") if line.strip()), b"")
    try:
        record = json.loads(first)
    except (UnicodeDecodeError, json.JSONDecodeError):
        record = None
    if isinstance(record, dict):
        for key, fmt in (
            ("version_id", "workbench"),
            ("target", "w3c"),
            ("cited_text", "anthropic"),
        ):
            if key in record:
                return fmt  # type: ignore[return-value]
    raise CitationError(
        "--format auto: the input is no provider response (candidates, steps, output, content, "
        "message) "
        "and its first line has none of version_id, target, cited_text; name the format"
    )


def _read_response(
    response: Any, fmt: Format, documents: Sequence[Document], source: str
) -> tuple[CitationLine, ...]:
    if response is None:
        raise CitationError(f"{source}: not a {fmt} response (one JSON object or its events)")
    if fmt == "gemini":
        return read_gemini(response, documents)
    if fmt == "openai":
        return read_openai(response, documents)
    if fmt == "cohere":
        return read_cohere(response, documents)
    if fmt == "bedrock":
        return read_bedrock(response, documents)
    return tuple(
        line_of(number, _anthropic_line, record, documents)
        for number, record in enumerate(_anthropic_citations(response), 1)
    )


def _anthropic_citations(response: Any) -> list[dict[str, Any]]:
    """Every citation of a Messages API response, in content order: a JSON response's
    `content[].citations`, or a stream's `citations_delta` events."""
    if isinstance(response, dict):
        blocks = response.get("content") or ()
        return [c for b in blocks if isinstance(b, dict) for c in b.get("citations") or ()]
    return [
        event["delta"]["citation"]
        for event in response
        if isinstance(event, dict)
        and isinstance(event.get("delta"), dict)
        and event["delta"].get("type") == "citations_delta"
    ]


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
    if fmt == "workbench" and ("absent" in record or "count" in record):
        from workbench.cite.claims import claim_from_json  # the claim rule, for a claim alone

        try:
            claim = claim_from_json(record)
        except CitationError as exc:
            raise LineError(str(exc)) from exc
        return CitationLine(line=number, citation=None, error=None, claim=claim)
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
    try:
        return _anthropic_line(number, record, documents)
    except Refused as refused:
        return CitationLine(line=number, citation=None, error=None, refusal=refused.refusal)


def _anthropic_line(
    number: int, record: dict[str, Any], documents: Sequence[Document]
) -> CitationLine:
    """One Anthropic citation object, by its type (`char_location` when the type is left out)."""
    if not isinstance(record, dict):
        raise LineError(f"expected a JSON object, got {kind_of(record)}")
    kind = record.get("type", "char_location")
    if kind == "web_search_result_location":
        url = string_field(record, "url", "url")
        quote = UnplacedQuote(
            version_id="",
            quoted_text=string_field(record, "cited_text", "cited_text"),
            source_url=url,
        )
        return CitationLine(line=number, citation=None, error=None, unplaced=quote)
    if kind == "search_result_location":
        return _search_result(number, record, documents)
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
