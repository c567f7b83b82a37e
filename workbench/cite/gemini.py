"""Gemini grounding read as citation lines (C22): `groundingSupports` and Interactions
`url_citation` annotations, their UTF-8 byte offsets converted exactly and checked against the
answer. Details and examples: docs/verification.md."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from workbench.cite.lines import CitationLine, LineError, PageRange, UnplacedQuote
from workbench.cite.responses import (
    Document,
    OffsetUnit,
    checked_answer,
    document_at,
    field,
    line_of,
    refuse,
)

# Gemini File Search writes each page of a PDF it read as `--- PAGE N ---` before that page's
# text (the recorded retrievedContext shows it); the marker is Gemini's, not the document's.
PAGE_MARKER = re.compile(r"\A--- PAGE (\d+) ---\n+")


def is_gemini(value: Any) -> bool:
    """True for a generateContent response or a list of its streamed events, or an Interactions
    API response (`steps`)."""
    first = value[0] if isinstance(value, list) and value else value
    return isinstance(first, dict) and ("candidates" in first or "steps" in first)


def read_gemini(
    value: Any, documents: Sequence[Document], *, unit: OffsetUnit = "bytes"
) -> tuple[CitationLine, ...]:
    """One line per (support, chunk index) pair, in support order, then per url_citation.
    `documents[k]` is the held version chunk k was retrieved from. `unit` exists so a test can
    show what reading the same offsets as characters would do."""
    if isinstance(value, dict) and "steps" in value:
        return tuple(_interactions(value, unit))
    # A stream's events without a candidate (usage only) add nothing; a response needs one.
    candidates = (
        [e["candidates"][0] for e in value if isinstance(e, dict) and e.get("candidates")]
        if isinstance(value, list)
        else [field(value, "candidates", 0)]
    )
    answer = "".join(
        part.get("text", "")
        for candidate in candidates
        for part in candidate.get("content", {}).get("parts", ())
        if not part.get("thought")
    )
    # A stream repeats or fills in the metadata as it goes: the last event holding supports wins.
    grounding: dict[str, Any] = {}
    for candidate in candidates:
        metadata = candidate.get("groundingMetadata") or {}
        if metadata.get("groundingSupports"):
            grounding = metadata
    chunks = grounding.get("groundingChunks", [])
    lines: list[CitationLine] = []
    for s, support in enumerate(grounding.get("groundingSupports", ())):
        for k in support.get("groundingChunkIndices", ()):
            lines.append(
                line_of(len(lines) + 1, _support, s, support, k, chunks, answer, documents, unit)
            )
    return tuple(lines)


def _support(
    number: int,
    s: int,
    support: dict[str, Any],
    k: Any,
    chunks: list[Any],
    answer: str,
    documents: Sequence[Document],
    unit: OffsetUnit,
) -> CitationLine:
    segment = support.get("segment")
    if not isinstance(segment, dict):
        raise LineError(f"support {s}: field 'segment' missing")
    recorded = segment.get("text")
    where = f"support {s} segment"
    # startIndex is left out when it is 0 (proto3 JSON drops default values).
    checked_answer(
        answer, segment.get("startIndex", 0), segment.get("endIndex"), unit, recorded, where
    )
    if type(k) is not int or not 0 <= k < len(chunks):
        raise LineError(f"support {s}: groundingChunkIndices names chunk {k!r}; {len(chunks)} held")
    chunk = chunks[k]
    if "retrievedContext" not in chunk or "text" not in chunk["retrievedContext"]:
        web = chunk.get("web", chunk.get("retrievedContext", {}))
        raise refuse(
            web.get("uri") or web.get("title") or f"chunk {k}",
            recorded or "",
            "no_source_text",
            f"support {s} cites chunk {k} ({web.get('title') or 'untitled'}), a page Gemini names "
            "by address only: none of its words are recorded, so nothing is verified (admit the "
            "page as a version and cite its words to check them)",
        )
    context = chunk["retrievedContext"]
    text = context["text"]
    if not isinstance(text, str):
        raise LineError(f"chunk {k}: field 'retrievedContext/text': expected a string")
    if k >= len(documents):
        raise refuse(
            context.get("title") or f"chunk {k}",
            text,
            "not_held",
            f"support {s} cites chunk {k} ({context.get('title') or 'untitled'}), which "
            f"--documents maps to no held version (it maps {len(documents)}); give entry {k} "
            "the version id of the document the search read",
        )
    document = document_at(documents, k, "groundingChunkIndices", text)
    version_id = document if isinstance(document, str) else document.version_id
    marker = PAGE_MARKER.match(text)
    pages = None
    if marker:
        page = int(marker[1])
        text, pages = text[marker.end() :], PageRange(first=page, last=page)
    quote = UnplacedQuote(version_id=version_id, quoted_text=text)
    return CitationLine(line=number, citation=None, error=None, pages=pages, unplaced=quote)


def _interactions(value: dict[str, Any], unit: OffsetUnit) -> Iterator[CitationLine]:
    number = 0
    for step in value["steps"]:
        for content in step.get("content") or ():
            for a, annotation in enumerate(content.get("annotations") or ()):
                number += 1
                yield line_of(number, _url, content, a, annotation, unit)


def _url(
    number: int, content: dict[str, Any], a: int, annotation: dict[str, Any], unit: OffsetUnit
) -> CitationLine:
    if annotation.get("type") != "url_citation":
        raise LineError(f"annotation {a}: type {annotation.get('type')!r} is not url_citation")
    span = checked_answer(
        content.get("text", ""),
        annotation.get("start_index"),
        annotation.get("end_index"),
        unit,
        None,
        annotation.get("url", ""),
    )
    raise refuse(
        annotation.get("url", ""),
        span,
        "no_source_text",
        f"url_citation of {annotation.get('title') or 'an untitled page'}: the answer's span "
        f"{excerpt(span)} names a page by address and carries none of its words, so nothing "
        "is verified",
    )


def excerpt(text: str) -> str:
    """A span of the answer as a refusal shows it: JSON-quoted, cut to 60 characters."""
    return json.dumps(text if len(text) <= 60 else text[:57] + "...", ensure_ascii=False)
