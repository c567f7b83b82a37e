"""OpenAI Responses API annotations read as citation lines (C22): `url_citation` refused
`no_source_text`, `file_citation` refused `no_locator` unless it carries a `quote` to place."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from workbench.cite.gemini import excerpt
from workbench.cite.lines import CitationLine, LineError, UnplacedQuote
from workbench.cite.responses import Document, checked_answer, line_of, refuse


def is_openai(value: Any) -> bool:
    """True for a Responses API response: an `output` list of items."""
    return isinstance(value, dict) and isinstance(value.get("output"), list)


def read_openai(value: dict[str, Any], documents: Sequence[Document]) -> tuple[CitationLine, ...]:
    """One line per annotation of every `output_text`, in output order."""
    return tuple(_annotations(value, documents))


def _annotations(value: dict[str, Any], documents: Sequence[Document]) -> Iterator[CitationLine]:
    number = 0
    for item in value["output"]:
        for content in item.get("content") or () if isinstance(item, dict) else ():
            if content.get("type") != "output_text":
                continue
            for a, annotation in enumerate(content.get("annotations") or ()):
                number += 1
                yield line_of(number, _annotation, content["text"], a, annotation, documents)


def _annotation(
    number: int, answer: str, a: int, annotation: dict[str, Any], documents: Sequence[Document]
) -> CitationLine:
    kind = annotation.get("type")
    if kind == "url_citation":
        url = annotation.get("url", "")
        span = checked_answer(
            answer,
            annotation.get("start_index"),
            annotation.get("end_index"),
            "characters",
            None,
            url,
        )
        raise refuse(
            url,
            span,
            "no_source_text",
            f"url_citation of {annotation.get('title') or 'an untitled page'}: the answer's span "
            f"{excerpt(span)} names a page by address and carries none of its words, so nothing "
            "is verified",
        )
    if kind != "file_citation":
        raise LineError(f"annotation {a}: type {kind!r} is not url_citation or file_citation")
    filename = annotation.get("filename") or annotation.get("file_id") or ""
    quote = annotation.get("quote")
    if not isinstance(quote, str):
        raise refuse(
            filename,
            "",
            "no_locator",
            f"file_citation of {filename} names the file and position {annotation.get('index')!r} "
            "of the answer, no passage of the file: nothing can be placed (the file search "
            "results, requested with include=['file_search_call.results'], hold the text it read)",
        )
    held = [
        d if isinstance(d, str) else d.version_id
        for d in documents
        if d is not None
        and (d if isinstance(d, str) else d.version_id).rsplit("/", 1)[-1] == filename
    ]
    if not held:
        raise refuse(
            filename,
            quote,
            "not_held",
            f"file_citation of {filename}: --documents names no held version whose file name is "
            f"{filename}",
        )
    return CitationLine(
        line=number,
        citation=None,
        error=None,
        unplaced=UnplacedQuote(version_id=held[0], quoted_text=quote),
    )
