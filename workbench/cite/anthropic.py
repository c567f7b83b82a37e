"""Anthropic citations read as citation lines (C22): a Messages API response's citations, or one
citation object a line (`char_location`, `page_location`, `content_block_location`,
`search_result_location`, `web_search_result_location`), each against the document `--documents`
gives at its index."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from workbench.cite.blocks import BlockMap
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
from workbench.cite.responses import Document, Refused, document_at, line_of, refuse
from workbench.cite.verify import Citation
from workbench.cite.w3c import source_iri

ANTHROPIC_TYPES = (
    "char_location",
    "page_location",
    "content_block_location",
    "search_result_location",
    "web_search_result_location",
)


def _document(record: dict[str, Any], documents: Sequence[Document]) -> str | BlockMap:
    index = offset_field(record, "document_index", "document_index")
    return document_at(documents, index, "document_index", str(record.get("cited_text", "")))


def _version_id(document: str | BlockMap) -> str:
    return document if isinstance(document, str) else document.version_id


def _exclusive(
    record: dict[str, Any], field: str, what: str, least: int, unit: str
) -> tuple[int, int]:
    """`start_{field}` and `end_{field}`, counts from `least`, the end exclusive and after the
    start."""
    start = count_field(record, f"start_{field}", what, least)
    end = count_field(record, f"end_{field}", what, least)
    if end <= start:
        raise LineError(
            f"field 'end_{field}': {end} is not after start_{field} {start} "
            f"(the end {unit} is exclusive)"
        )
    return start, end


def _anthropic_pages(
    record: dict[str, Any], documents: Sequence[Document]
) -> tuple[UnplacedQuote, PageRange]:
    """A page_location citation: its pages as a `PageRange`, first and last inclusive. Anthropic
    documents `start_page_number` as 1-indexed and `end_page_number` as exclusive, so start s and
    end e name pages s to e - 1 and need 1 <= s < e (page 4 alone: start 4, end 5)."""
    version_id = _version_id(_document(record, documents))
    start, end = _exclusive(record, "page_number", "a page number", 1, "page")
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
    start, end = _exclusive(record, "block_index", "a block index", 0, "block")

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


def anthropic_citations(response: Any) -> list[dict[str, Any]]:
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


def anthropic_line(
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


def read_anthropic(response: Any, documents: Sequence[Document]) -> tuple[CitationLine, ...]:
    """One line per citation of a whole response (`anthropic_citations`), in content order."""
    return tuple(
        line_of(number, anthropic_line, record, documents)
        for number, record in enumerate(anthropic_citations(response), 1)
    )
