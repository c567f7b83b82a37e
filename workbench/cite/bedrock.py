"""Amazon Bedrock Converse citations read as citation lines (C22): `sourceContent` decided at
`documentChar` offsets, or placed in the whole document for page and chunk locations."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from workbench.cite.lines import CitationLine, LineError, UnplacedQuote
from workbench.cite.responses import Document, document_at, field, line_of, refuse
from workbench.cite.verify import Citation

LOCATIONS = ("documentChar", "documentPage", "documentChunk", "web")


def is_bedrock(value: Any) -> bool:
    """True for a Converse response: `output.message`."""
    return isinstance(value, dict) and isinstance(value.get("output"), dict)


def read_bedrock(value: dict[str, Any], documents: Sequence[Document]) -> tuple[CitationLine, ...]:
    """One line per citation of every `citationsContent` block, in content order."""
    return tuple(_lines(field(value, "output", "message", "content"), documents))


def _lines(content: list[Any], documents: Sequence[Document]) -> Iterator[CitationLine]:
    number = 0
    for block in content:
        cited = block.get("citationsContent") if isinstance(block, dict) else None
        for citation in (cited or {}).get("citations") or ():
            number += 1
            yield line_of(number, _citation, citation, documents)


def _citation(number: int, citation: dict[str, Any], documents: Sequence[Document]) -> CitationLine:
    parts = citation.get("sourceContent") or ()
    quote = "".join(p.get("text", "") for p in parts if isinstance(p, dict))
    location = citation.get("location") or {}
    kind = next((k for k in LOCATIONS if k in location), None)
    if kind is None:
        raise LineError(f"field 'location': expected one of {', '.join(LOCATIONS)}")
    where = location[kind]
    if kind == "web":
        raise refuse(
            where.get("url", "") if isinstance(where, dict) else "",
            quote,
            "not_held",
            "a web location: the page is no held version; admit it as a version to check the "
            "words against it",
        )
    if not quote:
        raise refuse(
            f"document {where.get('documentIndex')}",
            "",
            "no_source_text",
            f"the {kind} citation carries no sourceContent, so no words can be checked",
        )
    document = document_at(documents, where.get("documentIndex"), "documentIndex", quote)
    version_id = document if isinstance(document, str) else document.version_id
    if kind == "documentChar":
        cited = Citation(
            version_id=version_id,
            char_start=where.get("start"),
            char_end=where.get("end"),
            quoted_text=quote,
        )
        return CitationLine(line=number, citation=cited, error=None)
    placed = UnplacedQuote(version_id=version_id, quoted_text=quote)
    return CitationLine(line=number, citation=None, error=None, unplaced=placed)
