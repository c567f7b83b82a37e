"""Citations from other tools read as `lines.CitationLine`s: three JSON Lines formats (`workbench`,
`w3c`, `anthropic`) and whole provider responses, told apart by `detect_format`, each read by its
own module, loaded when its format is read. A malformed line never stops the rest of the file
(C14); the fields are listed in docs/verification.md."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

from workbench.cite.lines import (
    CitationLine,
    LineError,
    PageRange,
    count_field,
    kind_of,
    offset_field,
    string_field,
)
from workbench.cite.verify import Citation
from workbench.errors import CitationError
from workbench.models import strict_json

if TYPE_CHECKING:
    from workbench.cite.responses import Document

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
    from workbench.cite.responses import read_events, read_whole

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
        from workbench.cite.bedrock import is_bedrock
        from workbench.cite.cohere import is_cohere
        from workbench.cite.gemini import is_gemini
        from workbench.cite.openai import is_openai

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
        from workbench.cite.gemini import read_gemini

        return read_gemini(response, documents)
    if fmt == "openai":
        from workbench.cite.openai import read_openai

        return read_openai(response, documents)
    if fmt == "cohere":
        from workbench.cite.cohere import read_cohere

        return read_cohere(response, documents)
    if fmt == "bedrock":
        from workbench.cite.bedrock import read_bedrock

        return read_bedrock(response, documents)
    from workbench.cite.anthropic import read_anthropic

    return read_anthropic(response, documents)


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
        from workbench.cite.w3c import read_w3c

        return read_w3c(number, record)
    from workbench.cite.anthropic import anthropic_line
    from workbench.cite.responses import Refused

    try:
        return anthropic_line(number, record, documents)
    except Refused as refused:
        return CitationLine(line=number, citation=None, error=None, refusal=refused.refusal)
