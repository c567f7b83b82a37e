"""Citations from other tools, and our verified citations as W3C Web Annotations.

Three input formats, each JSON Lines (one citation per line; blank lines are skipped):

* `workbench`: `{"version_id", "char_start", "char_end", "quoted_text", "occurrence"?, "page"?,
  "alterations"?, "section"?}`; `page` (1-based, as a reader counts a PDF's pages) claims the span
  lies on that page; `alterations` (a boolean, default false) reads the quote's marked omissions
  and bracketed insertions (`cite.alterations`); `section` (a label such as `(b)(2)` or `R2.1`)
  claims the span lies in that section (`cite.pincites`);
* `w3c`: a Web Annotation whose one target has a `source` naming the version id (a string, or an
  object with `id` and optionally our `text_sha256`) and a `selector` list holding a
  TextPositionSelector (`start`, `end`) and a TextQuoteSelector (`exact`, `prefix`?, `suffix`?);
* `anthropic`: a Messages API citation, with the documents given in request order as version ids:
  `char_location` (`cited_text`, `start_char_index`, `end_char_index`, `document_index`; the type
  may be left out) or `page_location` (`cited_text`, `start_page_number`, `end_page_number`,
  `document_index`), which names pages and no offsets: it is read as a `PageQuote` and placed in
  the text by `cite.pages` (exact search inside the named pages) before the rule decides it.

Page numbers. Anthropic documents `start_page_number` as 1-indexed and `end_page_number` as
exclusive ("start_page_number": 1, # 1-indexed; "end_page_number": 2, # exclusive, in the
Citations guide, https://platform.claude.com/docs/en/build-with-claude/citations), so a citation
of page 4 alone reads start 4, end 5. Both are held here as a `PageRange` of first and last page,
inclusive: a page_location citation with `start_page_number` s and `end_page_number` e names
pages s to e - 1, and needs 1 <= s < e. Our own `page` p names pages p to p.

The guarantee: a malformed line never stops the rest of the file. Each line becomes either a
`Citation` or a one-line error naming the line number and the field. Offsets that are present but
not integers are not a format error: they reach the verifier and are refused as `bad_offsets`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from workbench.cite.alterations import AlteredVerification
from workbench.cite.batch import verify_citations
from workbench.cite.index import SourceIndex, counted_spans, source_index
from workbench.cite.verify import Citation, Verification
from workbench.errors import CitationError
from workbench.models import content_id, strict_json, text_sha256
from workbench.text.normalize import normalized_text
from workbench.workspace import Workspace

Format = Literal["workbench", "w3c", "anthropic"]
FORMATS: tuple[Format, ...] = ("workbench", "w3c", "anthropic")
MAX_LINE_BYTES = 4 * 1024 * 1024
W3C_CONTEXT = "http://www.w3.org/ns/anno.jsonld"
_WORKBENCH_FIELDS = (
    "version_id",
    "char_start",
    "char_end",
    "quoted_text",
    "occurrence",
    "page",
    "alterations",
    "section",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class PageRange:
    """Pages `first` to `last` of a PDF version, both included, numbered from 1 as a reader counts
    them (the PDF's page order, as `models.PageSpan` numbers them)."""

    first: int
    last: int

    def label(self) -> str:
        return (
            f"page {self.first}" if self.first == self.last else f"pages {self.first}-{self.last}"
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class PageQuote:
    """A quote said to stand on the line's pages of `version_id`, with no offsets given."""

    version_id: str
    quoted_text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CitationLine:
    """One input line: its citation, or the error that stopped it being read.

    `pages` are the pages the line names, if any. A line that names pages and no offsets (an
    Anthropic page_location citation) holds a `page_quote` and no `citation`; `cite.pages` places it.
    """

    line: int
    citation: Citation | None
    error: str | None
    pages: PageRange | None = None
    page_quote: PageQuote | None = None


class _LineError(Exception):
    """Raised inside one line's parser; becomes that line's error message."""


def _kind(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number"
    )


def _string(record: dict[str, Any], name: str, label: str) -> str:
    if name not in record:
        raise _LineError(f"field {label!r} missing")
    value = record[name]
    if not isinstance(value, str):
        raise _LineError(f"field {label!r}: expected a string, got {_kind(value)}")
    return value


def _offset(record: dict[str, Any], name: str, label: str) -> Any:
    """An offset as given: missing is a format error, a non-integer is left for `bad_offsets`."""
    if name not in record:
        raise _LineError(f"field {label!r} missing")
    return record[name]


def _page_number(record: dict[str, Any], name: str) -> int:
    value = record.get(name)
    if name not in record:
        raise _LineError(f"field {name!r} missing")
    if type(value) is not int or value < 1:
        raise _LineError(
            f"field {name!r}: expected a page number (an integer from 1), got {value!r}"
        )
    return value


def _workbench(record: dict[str, Any]) -> Citation:
    unknown = sorted(set(record) - set(_WORKBENCH_FIELDS))
    if unknown:
        raise _LineError(
            f"field {unknown[0]!r}: unknown field (expected {', '.join(_WORKBENCH_FIELDS)})"
        )
    occurrence = record.get("occurrence")
    altered = record.get("alterations", False)
    if type(altered) is not bool:
        raise _LineError(f"field 'alterations': expected true or false, got {_kind(altered)}")
    return Citation(
        version_id=_string(record, "version_id", "version_id"),
        char_start=_offset(record, "char_start", "char_start"),
        char_end=_offset(record, "char_end", "char_end"),
        quoted_text=_string(record, "quoted_text", "quoted_text"),
        occurrence=occurrence,
        alterations=altered,
        section=_string(record, "section", "section") if "section" in record else None,
    )


def _w3c(record: dict[str, Any]) -> Citation:
    target = record.get("target")
    if isinstance(target, list):
        if len(target) != 1:
            raise _LineError(f"field 'target': expected one target, got {len(target)}")
        target = target[0]
    if not isinstance(target, dict):
        raise _LineError(f"field 'target': expected an object, got {_kind(target)}")
    source = target.get("source")
    sha = None
    if isinstance(source, dict):
        sha = source.get("text_sha256")
        if sha is not None and not isinstance(sha, str):
            raise _LineError(
                f"field 'target.source.text_sha256': expected a string, got {_kind(sha)}"
            )
        source = source.get("id")
    if not isinstance(source, str):
        raise _LineError(
            "field 'target.source': expected the version id, as a string or an object with 'id'"
        )
    selectors = target.get("selector")
    if isinstance(selectors, dict):
        selectors = [selectors]
    if not isinstance(selectors, list):
        raise _LineError(f"field 'target.selector': expected an array, got {_kind(selectors)}")
    by_type = {s.get("type"): s for s in selectors if isinstance(s, dict)}
    position = by_type.get("TextPositionSelector")
    quote = by_type.get("TextQuoteSelector")
    if position is None:
        raise _LineError("field 'target.selector': no TextPositionSelector")
    if quote is None:
        raise _LineError("field 'target.selector': no TextQuoteSelector")
    context = {}
    for name in ("prefix", "suffix"):
        if name in quote:
            context[name] = _string(quote, name, f"TextQuoteSelector.{name}")
    return Citation(
        version_id=source,
        char_start=_offset(position, "start", "TextPositionSelector.start"),
        char_end=_offset(position, "end", "TextPositionSelector.end"),
        quoted_text=_string(quote, "exact", "TextQuoteSelector.exact"),
        prefix=context.get("prefix"),
        suffix=context.get("suffix"),
        text_sha256=sha,
    )


def _document(record: dict[str, Any], documents: Sequence[str]) -> str:
    index = _offset(record, "document_index", "document_index")
    if type(index) is not int or not 0 <= index < len(documents):
        raise _LineError(
            f"field 'document_index': {index!r} names no document "
            f"(--documents maps {len(documents)}: 0 to {len(documents) - 1})"
        )
    return documents[index]


def _anthropic_pages(
    record: dict[str, Any], documents: Sequence[str]
) -> tuple[PageQuote, PageRange]:
    """A page_location citation: its pages as a `PageRange` (the end is exclusive; module docstring)."""
    version_id = _document(record, documents)
    start = _page_number(record, "start_page_number")
    end = _page_number(record, "end_page_number")
    if end <= start:
        raise _LineError(
            f"field 'end_page_number': {end} is not after start_page_number {start} "
            "(the end page is exclusive)"
        )
    quote = PageQuote(
        version_id=version_id, quoted_text=_string(record, "cited_text", "cited_text")
    )
    return quote, PageRange(first=start, last=end - 1)


def _anthropic(record: dict[str, Any], documents: Sequence[str]) -> Citation:
    return Citation(
        version_id=_document(record, documents),
        char_start=_offset(record, "start_char_index", "start_char_index"),
        char_end=_offset(record, "end_char_index", "end_char_index"),
        quoted_text=_string(record, "cited_text", "cited_text"),
    )


def read_documents(data: bytes, source: str) -> tuple[str, ...]:
    """The `--documents` file: a JSON array of version ids in request order, or an object from
    document index ("0", "1", ...) to version id covering every index from 0."""
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CitationError(f"{source}: not a UTF-8 JSON file ({exc})") from exc
    if isinstance(value, dict):
        try:
            value = [value[str(i)] for i in range(len(value))]
        except KeyError as exc:
            raise CitationError(
                f"{source}: document indexes must run from 0 to {len(value) - 1}; {exc} is missing"
            ) from exc
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CitationError(f"{source}: expected an array of version ids (strings)")
    return tuple(value)


def read_citations(
    data: bytes, fmt: Format, *, documents: Sequence[str] | None = None, source: str = "-"
) -> tuple[CitationLine, ...]:
    """Every non-blank line of a JSON Lines file, read as a citation or as an error."""
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
        except _LineError as exc:
            lines.append(CitationLine(line=number, citation=None, error=f"line {number}: {exc}"))
    return tuple(lines)


def with_alterations(lines: Sequence[CitationLine]) -> tuple[CitationLine, ...]:
    """`lines` with alterations on for every citation they hold (`workbench verify --alterations`);
    a line that names pages and no offsets, or could not be read, is left as it is."""
    return tuple(
        replace(line, citation=replace(line.citation, alterations=True))
        if line.citation is not None
        else line
        for line in lines
    )


def _parse(number: int, raw: bytes, fmt: Format, documents: Sequence[str]) -> CitationLine:
    if len(raw) > MAX_LINE_BYTES:
        raise _LineError(f"{len(raw)} bytes; a line holds at most {MAX_LINE_BYTES}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _LineError(f"not UTF-8 (byte {exc.start})") from exc
    try:
        record = strict_json(text.removeprefix("\ufeff"), _LineError)
    except json.JSONDecodeError as exc:
        raise _LineError(f"not JSON ({exc.msg} at column {exc.colno})") from exc
    if not isinstance(record, dict):
        raise _LineError(f"expected a JSON object, got {_kind(record)}")
    if fmt == "workbench":
        page = _page_number(record, "page") if "page" in record else None
        return CitationLine(
            line=number,
            citation=_workbench(record),
            error=None,
            pages=None if page is None else PageRange(first=page, last=page),
        )
    if fmt == "w3c":
        return CitationLine(line=number, citation=_w3c(record), error=None)
    kind = record.get("type", "char_location")
    if kind == "page_location":
        quote, pages = _anthropic_pages(record, documents)
        return CitationLine(line=number, citation=None, error=None, pages=pages, page_quote=quote)
    if kind != "char_location":
        raise _LineError(f"field 'type': expected 'char_location' or 'page_location', got {kind!r}")
    return CitationLine(line=number, citation=_anthropic(record, documents), error=None)


# ---------------------------------------------------------------------------------------------
# Export


def minimal_context(index: SourceIndex, verification: Verification) -> tuple[str, str]:
    """Raw prefix and suffix around a verified citation that make its quote unique.

    The smallest n >= 0 such that n normalized characters before and n after (fewer at the text's
    ends) surround no other occurrence; the raw text of those characters is returned, so a W3C
    reader anchors in our stored text. A quote that occurs once gets empty context.
    """
    citation = verification.citation
    folded = index.normalized
    text = folded.text
    quote = normalized_text(citation.quoted_text)
    spans = counted_spans(index, quote)
    start, end = spans[(verification.occurrence or 1) - 1]
    others = [s for s in spans if s != (start, end)]
    n = 0
    limit = max(start, len(text) - end)
    while others and n < limit:
        n += 1
        before, after = text[max(0, start - n) : start], text[end : end + n]
        others = [
            (s, e)
            for s, e in others
            if text[:s].rstrip(" ").endswith(before.rstrip(" "))
            and text[e:].lstrip(" ").startswith(after.lstrip(" "))
        ]
    if n == 0:
        return "", ""
    raw = index.text
    prefix_start = folded.raw_start(max(0, start - n))
    suffix_end = folded.raw_end(min(len(text), end + n) - 1) if end < len(text) else len(raw)
    return raw[prefix_start : citation.char_start], raw[citation.char_end : suffix_end]


def annotation(index: SourceIndex, verification: Verification) -> dict[str, Any]:
    """A verified citation as a W3C Web Annotation (motivation `quoting`).

    The source is the version id with the text sha256 it was verified against; the selectors are a
    TextQuoteSelector (the stored text at the offsets, with `minimal_context`) and a
    TextPositionSelector (the raw offsets, code points, as W3C counts them). The id is
    `urn:sha256:` over the canonical JSON of [version id, text sha256, start, end].
    """
    if not verification.verified:
        raise CitationError("only a verified citation can be exported as an annotation")
    citation = verification.citation
    prefix, suffix = minimal_context(index, verification)
    quote: dict[str, Any] = {"type": "TextQuoteSelector", "exact": verification.actual_text}
    if prefix:
        quote["prefix"] = prefix
    if suffix:
        quote["suffix"] = suffix
    key = [citation.version_id, index.text_sha256, citation.char_start, citation.char_end]
    return {
        "@context": W3C_CONTEXT,
        "id": "urn:sha256:" + content_id(key),
        "type": "Annotation",
        "motivation": "quoting",
        "target": {
            "source": {"id": citation.version_id, "text_sha256": index.text_sha256},
            "selector": [
                quote,
                {
                    "type": "TextPositionSelector",
                    "start": citation.char_start,
                    "end": citation.char_end,
                },
            ],
        },
    }


def annotate_verified(
    workspace: Workspace, verifications: Iterable[Verification]
) -> tuple[dict[str, Any], ...]:
    """The verified ones of `verifications` as Web Annotations (`annotation`), in their order; a
    refused one is never exported."""
    indexes: dict[str, SourceIndex] = {}
    annotations = []
    for verification in verifications:
        if not verification.verified:
            continue
        version_id = verification.citation.version_id
        if version_id not in indexes:
            text = workspace.version(version_id).text
            indexes[version_id] = source_index(text, text_sha256(text))
        annotations.append(annotation(indexes[version_id], verification))
    return tuple(annotations)


def export_annotations(
    workspace: Workspace, citations: Iterable[Citation]
) -> tuple[tuple[dict[str, Any], ...], tuple[Verification, ...]]:
    """Verify `citations` (through the hash check) and annotate the verified ones, in input order;
    the refused ones are returned with the rest and never exported."""
    verifications = verify_citations(workspace, citations)
    return annotate_verified(workspace, verifications), verifications


# ---------------------------------------------------------------------------------------------
# Verdicts as printed


def verification_as_json(
    line: int,
    verification: Verification,
    *,
    spanned: PageRange | None = None,
    named: PageRange | None = None,
) -> dict[str, Any]:
    """One verdict as `workbench verify --json` prints it and a bundle stores it: the outcome, the
    citation as read, the text at its offsets, the occurrences (the first 20 spans and the count),
    the qualifier flags, the PDF pages the span lies on (`pages`, null without a page map) and the
    pages the line named (`pages_named`, null when it named none)."""
    citation = verification.citation
    return {
        "line": line,
        "outcome": verification.outcome,
        "reason": verification.reason,
        "detail": verification.detail,
        "version_id": citation.version_id,
        "char_start": citation.char_start,
        "char_end": citation.char_end,
        "quoted_text": citation.quoted_text,
        "actual_text": verification.actual_text,
        "text_sha256": verification.text_sha256,
        "occurrence": verification.occurrence,
        "occurrence_count": len(verification.occurrences),
        "occurrences": [list(span) for span in verification.occurrences[:20]],
        "pages": None if spanned is None else [spanned.first, spanned.last],
        "pages_named": None if named is None else [named.first, named.last],
        "qualifiers": [
            {"word": q.word, "char_start": q.char_start, "char_end": q.char_end, "side": q.side}
            for q in verification.qualifiers
        ],
        **_asked_for(verification),
    }


def _asked_for(verification: Verification) -> dict[str, Any]:
    """The keys a citation's own requests add to its verdict's JSON: `section` when it names one;
    `alterations` (each gap's kind, marks, bracketed text, raw span and source text) and
    `fragments` (raw spans) when it has alterations on."""
    citation = verification.citation
    added: dict[str, Any] = {}
    if citation.section is not None:
        added["section"] = citation.section
    if citation.alterations:
        altered = verification if isinstance(verification, AlteredVerification) else None
        added["fragments"] = [list(span) for span in altered.fragments] if altered else []
        added["alterations"] = [
            {
                "kind": a.kind,
                "marks": list(a.marks),
                "inserted": a.inserted,
                "char_start": a.char_start,
                "char_end": a.char_end,
                "source_text": a.source_text,
            }
            for a in (altered.alterations if altered else ())
        ]
    return added


def verification_text(
    line: int,
    verification: Verification,
    *,
    spanned: PageRange | None = None,
    named: PageRange | None = None,
) -> str:
    """One verdict as `workbench verify` prints it: an outcome line (with ` p. N` or ` pp. N-M`
    where the span lies in a PDF, and the pages the line named), then one line per alteration of
    an altered quote, then one line per qualifier."""
    c = verification.citation
    where = f"{c.version_id} [{c.char_start}, {c.char_end})"
    if spanned is not None:
        where += (
            f" p. {spanned.first}"
            if spanned.first == spanned.last
            else f" pp. {spanned.first}-{spanned.last}"
        )
    if named is not None:
        where += f" ({named.label()} named)"
    reason = f" {verification.reason}" if verification.reason else ""
    out = [
        f"line {line}: {verification.outcome}{reason}: {where}: {verification.detail}; "
        f"text at offsets: {json.dumps(verification.actual_text, ensure_ascii=False)}\n"
    ]
    shape = _asked_for(verification)
    out += [
        f"  alteration: {a['kind']} {' '.join(a['marks'])} stands for [{a['char_start']}, "
        f"{a['char_end']}): {json.dumps(a['source_text'], ensure_ascii=False)}\n"
        for a in shape.get("alterations", ())
    ]
    out += [
        f"  qualifier {'inside an omission' if q.side == 'omitted' else q.side + ' the quote'}, "
        f"left out of it: {q.word!r} at [{q.char_start}, {q.char_end})\n"
        for q in verification.qualifiers
    ]
    return "".join(out)
