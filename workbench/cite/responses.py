"""A provider's whole response read as citation lines (C22): offsets into the answer converted
exactly and checked against its text; a citation carrying no source text refused by name."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Literal

from workbench.cite.blocks import BlockMap, block_map_from_json
from workbench.cite.lines import CitationLine, LineError, LineRefusal, kind_of
from workbench.errors import CitationError
from workbench.models import strict_json

RESPONSE_REASONS: dict[str, str] = {
    "answer_span_mismatch": "the citation's offsets into the model's answer are not a span of it, "
    "or the answer there is not the text the citation records for that span",
    "not_held": "the citation's source is a document or page that no held version stands for "
    "(--documents maps none to it, or maps it to null: never recorded)",
    "no_source_text": "the citation names a web page and carries none of its words: nothing can "
    "be verified",
    "no_locator": "the citation names a file and a position in the answer, and no passage of the "
    "file: nothing can be placed",
}
OffsetUnit = Literal["bytes", "characters"]
# What `--documents` maps an index to: a version id, the blocks written for one, or null (the
# document the request sent was never recorded).
Document = str | BlockMap | None


class Refused(Exception):
    """Raised inside one citation's reader: the citation is refused by name, before the rule."""

    def __init__(self, refusal: LineRefusal) -> None:
        super().__init__(refusal.detail)
        self.refusal = refusal


def refuse(where: str, quote: str, reason: str, detail: str) -> Refused:
    """A `Refused` about `where` (a version id, a URL or a file name, as the citation names it)."""
    return Refused(LineRefusal(version_id=where, quoted_text=quote, reason=reason, detail=detail))


def document_at(
    documents: Sequence[Document], index: Any, field: str, quote: str
) -> str | BlockMap:
    """The document `--documents` gives at `index` (named by `field` in the citation). An index
    past the list is a format error; a null entry refuses the citation `not_held`."""
    if type(index) is not int or not 0 <= index < len(documents):
        raise LineError(
            f"field {field!r}: {index!r} names no document "
            f"(--documents maps {len(documents)}: 0 to {len(documents) - 1})"
        )
    document = documents[index]
    if document is None:
        raise refuse(
            f"document {index}",
            quote,
            "not_held",
            f"--documents gives null for document {index}: the document the request sent was "
            "never recorded, so the cited words cannot be checked; admit it as a version "
            "('workbench corpus add') and map it here",
        )
    return document


def read_events(data: bytes, source: str) -> list[Any] | None:
    """The JSON of every `data:` line of a Server-Sent Events stream, in order (`[DONE]` and
    other fields skipped), or None when `data` holds no `data:` line (not a stream)."""
    text = _decoded(data, source)
    payloads = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    if not payloads:
        return None
    events = []
    for number, payload in enumerate(payloads, 1):
        if payload == "[DONE]":
            continue
        try:
            events.append(strict_json(payload, CitationError))
        except json.JSONDecodeError as exc:
            raise CitationError(f"{source}: event {number}: not JSON ({exc.msg})") from exc
    return events


def read_whole(data: bytes, source: str) -> Any:
    """`data` as one JSON value, or None when it is not one (JSON Lines, or not JSON)."""
    try:
        return strict_json(_decoded(data, source).removeprefix("\ufeff"), CitationError)
    except json.JSONDecodeError:
        return None


def _decoded(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CitationError(f"{source}: not UTF-8 (byte {exc.start})") from exc


def answer_span(answer: str, start: Any, end: Any, unit: OffsetUnit) -> tuple[int, int] | str:
    """Offsets into `answer` as a half-open character span, or why they are not one.

    `bytes`: offsets into the answer's UTF-8 encoding, converted exactly (a byte offset that falls
    inside a character's encoding is no span); `characters`: Python `str` indices. Either way the
    offsets must be integers with 0 <= start <= end <= the answer's length in that unit.
    """
    size = len(answer.encode("utf-8")) if unit == "bytes" else len(answer)
    if type(start) is not int or type(end) is not int or not 0 <= start <= end <= size:
        return f"offsets [{start!r}, {end!r}) are not a span of the answer ({size} {unit})"
    if unit == "characters":
        return start, end
    encoded = answer.encode("utf-8")
    try:
        return len(encoded[:start].decode("utf-8")), len(encoded[:end].decode("utf-8"))
    except UnicodeDecodeError as exc:
        at = start if exc.end == start else end
        return f"byte offset {at} falls inside a character's UTF-8 encoding"


def checked_answer(
    answer: str, start: Any, end: Any, unit: OffsetUnit, recorded: str | None, where: str
) -> str:
    """The answer's text at the offsets, checked against the text the citation records for the
    span (`recorded`, compared exactly: it is the provider's own copy of its own answer); raises
    `Refused` as `answer_span_mismatch` otherwise."""
    span = answer_span(answer, start, end, unit)
    if isinstance(span, str):
        raise refuse(where, recorded or "", "answer_span_mismatch", span)
    text = answer[span[0] : span[1]]
    if recorded is not None and text != recorded:
        raise refuse(
            where,
            recorded,
            "answer_span_mismatch",
            f"the answer at [{start}, {end}) read as {unit} holds {_quoted(text)}, not the "
            f"segment text recorded, {_quoted(recorded)}",
        )
    return text


def _quoted(text: str) -> str:
    return json.dumps(text[:80], ensure_ascii=False)


def field(value: Any, *path: str | int) -> Any:
    """`value[path[0]][path[1]]...`, or a `CitationError` naming the first step missing."""
    for depth, step in enumerate(path):
        missing = (
            not isinstance(value, dict) or step not in value
            if isinstance(step, str)
            else not isinstance(value, list) or not -len(value) <= step < len(value)
        )
        if missing:
            named = "/".join(str(s) for s in path[: depth + 1])
            raise CitationError(f"response field {named!r} missing (got {kind_of(value)})")
        value = value[step]
    return value


def line_of(number: int, read: Callable[..., CitationLine], *args: Any) -> CitationLine:
    """One citation's line: what `read(number, *args)` returns for it, its refusal, or its
    error."""
    try:
        line = read(number, *args)
    except Refused as refused:
        return CitationLine(line=number, citation=None, error=None, refusal=refused.refusal)
    except LineError as exc:
        return CitationLine(line=number, citation=None, error=f"citation {number}: {exc}")
    return line


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
