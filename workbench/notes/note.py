"""A grounded note (C9): its header fields, its quotes and where notes live, parsed from its bytes
exactly as they hold them or refused with `NoteError` naming the field or line; the only write is
the pointer, spliced in."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from workbench.cite import holds_words
from workbench.corpus import check_relative_path, read_catalogue
from workbench.errors import NoteError
from workbench.models import CatalogueRow, content_id
from workbench.notes.markdown import byte_lines, in_code
from workbench.text.frontmatter import HeaderProblem, read_header

STATUSES = ("draft", "validated")
ORIGINS = ("model", "web", "document")
GROUNDING_FIELDS = ("pointer", "status", "validated_by", "validated_at", "origin", "document")
SNAPSHOT_MARKER = "(snapshot required)"

_QUOTE_LINE = re.compile(r" {0,3}> ?(.*)")
_LABEL = re.compile(r"(quote|locator|occurrence):(?:[ \t]+(.*))?")
_REPORT_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+\.ingest\.md)\)")


@dataclass(frozen=True, slots=True, kw_only=True)
class Quote:
    """One claim's verbatim quote as written (lines joined with `\\n`), its locator, the occurrence
    it names (or None), the body line it starts on, and the source report its locator links to."""

    text: str
    locator: str
    occurrence: int | None
    line: int
    report: str | None = None
    snapshot_required: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class HeaderField:
    """One `field: value` line of a note's header: the field, its value (None: unset), its line
    (1-based) and the byte span of the line, its ending excluded (where `with_pointer` splices)."""

    name: str
    value: str | None
    line: int
    start: int
    end: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Note:
    """A parsed note. `fields` are the header's lines in order, each with the byte span of its
    line (line ending excluded); `header_end` is the byte offset where the closing `---` starts."""

    path: Path
    data: bytes
    fields: tuple[HeaderField, ...]
    header_end: int
    quotes: tuple[Quote, ...]

    def get(self, name: str) -> str | None:
        return next((f.value for f in self.fields if f.name == name), None)

    @property
    def pointer(self) -> str | None:
        return self.get("pointer")

    @property
    def status(self) -> str:
        return self.get("status") or ""

    @property
    def document_quotes(self) -> tuple[Quote, ...]:
        """The quotes checked against the pointed document: those not linked to a source report."""
        return tuple(q for q in self.quotes if q.report is None)


def parse_note(path: Path, data: bytes | None = None) -> Note:
    """Parse a note; raise `NoteError` naming the note and the field or line at fault.

    The header is front matter read strictly (`text.frontmatter.read_header`: `---` on line 1
    through the next `---` line, `field: value` lines, blank lines and `#` comments); its first
    problem, in line order, is the error. A field may appear once. Unknown fields are kept as
    bytes and ignored. In the body, a blockquote whose first line is `> quote: ...` is a claim's
    quote: following `>` lines continue it until `> locator: ...` (required) and an optional
    `> occurrence: N`. Fenced code blocks are skipped.
    """
    if data is None:
        data = path.read_bytes()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NoteError(f"{path}: byte {exc.start}: not UTF-8") from exc
    lines = byte_lines(data)
    texts = [raw.decode("utf-8") for _, raw, _ in lines]
    header = read_header(texts)
    if header.problems:
        raise _header_error(path, header.problems[0])
    assert header.close is not None
    close = header.close
    fields = tuple(
        HeaderField(
            name=f.name,
            value=f.value,
            line=f.line,
            start=lines[f.line - 1][0],
            end=lines[f.line - 1][0] + len(lines[f.line - 1][1]),
        )
        for f in header.fields
    )
    note = Note(
        path=path,
        data=data,
        fields=fields,
        header_end=lines[close - 1][0],
        quotes=_parse_quotes(path, texts[close:], close + 1),
    )
    _check_fields(note)
    return note


def _header_error(path: Path, problem: HeaderProblem) -> NoteError:
    """A header problem as a note states it."""
    if problem.kind == "not_a_field":
        return NoteError(f"{path}: front matter: line {problem.line}: expected 'field: value'")
    if problem.kind == "repeated":
        return NoteError(f"{path}: {problem.message}; a note has at most one")
    return NoteError(f"{path}: {problem.message}")


def _check_fields(note: Note) -> None:
    path = note.path
    status = note.get("status")
    if status is None:
        raise NoteError(f"{path}: field status: missing; expected draft or validated")
    if status not in STATUSES:
        raise NoteError(f"{path}: field status: {status!r} is not draft or validated")
    origin = note.get("origin")
    if origin is not None and origin not in ORIGINS:
        raise NoteError(f"{path}: field origin: {origin!r} is not model, web or document")
    if status == "draft" and origin is None:
        raise NoteError(
            f"{path}: field origin: a draft note must name its origin (model, web or document)"
        )
    at = note.get("validated_at")
    if at is not None:
        try:
            dt.datetime.fromisoformat(at.replace("Z", "+00:00"))
        except ValueError:
            raise NoteError(
                f"{path}: field validated_at: {at!r} is not an ISO 8601 date or time"
            ) from None
    for name in ("pointer", "document"):
        value = note.get(name)
        if value is None:
            continue
        problem = check_relative_path(value, field=name)
        if problem or value.count("/") != 2:
            raise NoteError(
                f"{path}: field {name}: {value!r} is not a catalogue path "
                "<jurisdiction>/<family>/<file>"
            )


def _parse_quotes(path: Path, lines: Sequence[str], first: int) -> tuple[Quote, ...]:
    """The claims' quotes in the body `lines`, the first of which is line `first` of the note. A
    fenced code block ends a blockquote, and nothing inside one is read."""
    quotes: list[Quote] = []
    block: list[tuple[int, str]] = []

    def flush() -> None:
        if block and _LABEL.fullmatch(block[0][1]) and block[0][1].startswith("quote:"):
            quotes.append(_quote(path, block))
        block.clear()

    for number, (line, code) in enumerate(zip(lines, in_code(lines), strict=True), start=first):
        match = None if code else _QUOTE_LINE.fullmatch(line)
        if match is None:
            flush()
            continue
        block.append((number, match.group(1)))
    flush()
    return tuple(quotes)


def _quote(path: Path, block: Sequence[tuple[int, str]]) -> Quote:
    parts: dict[str, list[str]] = {}
    label = ""
    for number, content in block:
        match = _LABEL.fullmatch(content)
        if match:
            label = match.group(1)
            if label in parts:
                raise NoteError(f"{path}: line {number}: a second '{label}:' in one quote")
            parts[label] = [match.group(2) or ""]
        else:
            parts[label].append(content)
    line = block[0][0]
    text = "\n".join(parts["quote"]).strip("\n")
    if not holds_words(text):
        raise NoteError(f"{path}: line {line}: the quote is empty; expected verbatim words")
    locator = " ".join(" ".join(parts.get("locator", [])).split())
    if not locator:
        raise NoteError(f"{path}: line {line}: the quote has no 'locator:' line")
    occurrence: int | None = None
    if "occurrence" in parts:
        given = " ".join(parts["occurrence"]).strip()
        if not given.isdigit() or int(given) < 1:
            raise NoteError(f"{path}: line {line}: occurrence {given!r} is not a positive integer")
        occurrence = int(given)
    link = _REPORT_LINK.search(locator)
    return Quote(
        text=text,
        locator=locator,
        occurrence=occurrence,
        line=line,
        report=link.group(2) if link else None,
        snapshot_required=bool(link and SNAPSHOT_MARKER in link.group(1)),
    )


def quotes_sha256(quotes: Iterable[Quote]) -> str:
    """SHA-256 of the canonical JSON list of `[quote text, occurrence]` in note order, with the
    linked report and the snapshot marker appended for a quote that links one: a run is tied to
    this, so editing any quoted byte, or a quote's route, leaves the old run behind."""
    items = [
        [q.text, q.occurrence] + ([q.report, q.snapshot_required] if q.report else [])
        for q in quotes
    ]
    return content_id(items)


def with_pointer(note: Note, pointer: str | None) -> bytes:
    """The note's bytes with the header's `pointer` set to `pointer` (None: emptied), every other
    byte kept. An absent `pointer` line is inserted just before the closing `---`, with the line
    ending the header's first line uses (`\\n` or `\\r\\n`: a parsed note's line 1 is `---`)."""
    data = note.data
    held = next((f for f in note.fields if f.name == "pointer"), None)
    if held is not None:
        line = b"pointer:" + (b" " + pointer.encode("utf-8") if pointer else b"")
        return data[: held.start] + line + data[held.end :]
    if pointer is None:
        return data
    ending = byte_lines(data)[0][2]
    at = note.header_end
    return data[:at] + b"pointer: " + pointer.encode("utf-8") + ending + data[at:]


def note_key(path: Path) -> str:
    """How the ledger names a note: its resolved path relative to the working folder (POSIX), or
    absolute when it lies outside it."""
    resolved = path.resolve()
    try:
        return resolved.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return resolved.as_posix()


def notes_in(folder: Path) -> tuple[Path, ...]:
    """Every `*.md` under `folder` except source reports (`*.ingest.md`) and anything in a folder
    whose name starts with `.`, sorted by path."""
    if not folder.is_dir():
        raise NoteError(f"{folder}: not a folder of notes")
    return tuple(
        sorted(
            p
            for p in folder.rglob("*.md")
            if not p.name.endswith(".ingest.md")
            and not any(part.startswith(".") for part in p.relative_to(folder).parts)
        )
    )


def catalogue_index(corpus_dir: Path) -> dict[str, CatalogueRow]:
    """The catalogue's rows by path, read (and checked, C3) once: what a command hands on to
    each note or report it checks."""
    return {row.path: row for row in read_catalogue(corpus_dir)}


def check_pointer(note: Note, catalogue: Mapping[str, CatalogueRow]) -> None:
    """Raise `NoteError` if the note's pointer or document names no catalogued document."""
    for name in ("pointer", "document"):
        value = note.get(name)
        if value is not None and value not in catalogue:
            raise NoteError(f"{note.path}: field {name}: {value} is not in the catalogue")
