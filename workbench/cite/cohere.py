"""Cohere Chat (v2) citations read as citation lines (C22): answer offsets checked against its
`text`, and each document source's `snippet` (else `text`) placed by the occurrence rule."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from workbench.cite.lines import CitationLine, LineError, UnplacedQuote
from workbench.cite.responses import Document, checked_answer, document_at, line_of, refuse

# The id Cohere writes for the N-th document of a request that gave it none: `doc:N`, or
# `doc:0:N` (the documents-and-citations guide's reply names the second document `doc:0:1`).
_GIVEN_ID = re.compile(r"doc:(?:\d+:)?(\d+)")
EVIDENCE_FIELDS = ("snippet", "text")


def is_cohere(value: Any) -> bool:
    """True for a Chat v2 response: a `message` holding `citations`."""
    return isinstance(value, dict) and isinstance(value.get("message"), dict)


def read_cohere(value: dict[str, Any], documents: Sequence[Document]) -> tuple[CitationLine, ...]:
    """One line per (citation, source), in citation order."""
    return tuple(_lines(value["message"], documents))


def _lines(message: dict[str, Any], documents: Sequence[Document]) -> Iterator[CitationLine]:
    content = message.get("content") or ()
    answer = "".join(c.get("text", "") for c in content if isinstance(c, dict))
    number = 0
    for c, citation in enumerate(message.get("citations") or ()):
        for source in citation.get("sources") or ():
            number += 1
            yield line_of(number, _source, answer, c, citation, source, documents)


def _source(
    number: int,
    answer: str,
    c: int,
    citation: dict[str, Any],
    source: dict[str, Any],
    documents: Sequence[Document],
) -> CitationLine:
    recorded = citation.get("text")
    checked_answer(
        answer, citation.get("start"), citation.get("end"), "characters", recorded, f"citation {c}"
    )
    sent: dict[str, Any] = source["document"] if isinstance(source.get("document"), dict) else {}
    ident = str(source.get("id") or sent.get("id") or "")
    if source.get("type") != "document":
        raise refuse(
            ident,
            recorded or "",
            "no_source_text",
            f"citation {c} names a {source.get('type')!r} source, not a document sent: its words "
            "are no held version's",
        )
    text = next((sent[f] for f in EVIDENCE_FIELDS if isinstance(sent.get(f), str)), None)
    if text is None:
        raise refuse(
            ident,
            recorded or "",
            "no_source_text",
            f"citation {c}: document {ident} carries no {' or '.join(EVIDENCE_FIELDS)} field, so "
            "no words of it can be checked",
        )
    given = _GIVEN_ID.fullmatch(ident)
    if given is None and not ident:
        raise LineError(f"citation {c}: a source names no document id")
    document = document_at(documents, int(given[1]), "sources/id", text) if given else ident
    version_id = document if isinstance(document, str) else document.version_id
    return CitationLine(
        line=number,
        citation=None,
        error=None,
        unplaced=UnplacedQuote(version_id=version_id, quoted_text=text),
    )
