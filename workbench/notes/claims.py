"""Grounded claims (DESIGN.md C9): notes that name their ground, a check run from outside, a run
ledger, grades read off headers, and the census.

A note is Markdown with a front-matter header (`pointer`, `status`, `validated_by`,
`validated_at`, `origin`, plus a `document` the note is about) and, in its body, each claim's
verbatim quote with a locator. The note's bytes are parsed, never re-serialized: the only write is
the pointer's value, spliced into the header with every other byte kept. A grade is never stored;
`grade_note` reads it off the header and the ledger each time. The check runs in a separate process
(`python -m workbench.notes.claims NOTE DOCUMENT --corpus-dir DIR`) that is handed only those paths: it
verifies the document's bytes against the catalogue first, then searches every quote with the
verifier's own occurrence search. Only the parent writes, and only after reading the child's result:
the ledger row first, then the pointer. The guarantee: a pointer written by `check_note`, and a
`confirmed` ledger row, exist only when every quote (at least one) was found in the checksum-verified
document; the ledger's own CHECK constraint refuses a confirmed row with no quotes or a missing one.
A quote whose locator links a source report (`[...](x.ingest.md)`) is checked in the same child on
the route its link declares (`workbench.notes.register`: the report's retained extracts, or its snapshot
when the link says `(snapshot required)`), and counts toward `confirmed` like any other quote.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from workbench.cite import SourceIndex, holds_words, index_text
from workbench.corpus import check_relative_path, read_catalogue
from workbench.errors import CheckerError, LedgerError, NoteError, WorkbenchError
from workbench.files import replace_file
from workbench.models import (
    CODE_FENCE,
    FIELD_LINE,
    CatalogueRow,
    canonical_json,
    code_digest,
    content_id,
)
from workbench.notes.register import check_linked_quote, find_text, parse_report, resolve_report
from workbench.workspace import version_from_row

STATUSES = ("draft", "validated")
ORIGINS = ("model", "web", "document")
GROUNDING_FIELDS = ("pointer", "status", "validated_by", "validated_at", "origin", "document")
EVIDENCE_FIELDS = ("validated_by", "validated_at")
CHECK_SCHEME = 1
SNAPSHOT_MARKER = "(snapshot required)"

Grade = Literal["floor", "middle", "top"]
QuoteStatus = Literal["found", "missing", "ambiguous", "no_such_occurrence"]
Outcome = Literal["confirmed", "missing", "checksum_mismatch", "no_quotes"]

_QUOTE_LINE = re.compile(r" {0,3}> ?(.*)")
_LABEL = re.compile(r"(quote|locator|occurrence):(?:[ \t]+(.*))?")
_REPORT_LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+\.ingest\.md)\)")


# ---------------------------------------------------------------------------------------------
# Notes


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


def _lines(data: bytes) -> list[tuple[int, bytes]]:
    """(byte offset, line without its ending) for every line; `\\n` and `\\r\\n` both end one."""
    out: list[tuple[int, bytes]] = []
    at = 0
    for raw in data.splitlines(keepends=True):
        body = raw.rstrip(b"\r\n") if raw.endswith(b"\n") else raw
        out.append((at, body))
        at += len(raw)
    return out


def parse_note(path: Path, data: bytes | None = None) -> Note:
    """Parse a note; raise `NoteError` naming the note and the field or line at fault.

    The header opens on line 1 with `---` and closes at the next `---` line; inside, each line is
    `field: value` (an empty value is unset), a blank line, or a `#` comment. A field may appear
    once. Unknown fields are kept as bytes and ignored. In the body, a blockquote whose first line
    is `> quote: ...` is a claim's quote: following `>` lines continue it until `> locator: ...`
    (required) and an optional `> occurrence: N`. Fenced code blocks are skipped.
    """
    if data is None:
        data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NoteError(f"{path}: byte {exc.start}: not UTF-8") from exc
    if text.startswith("\ufeff"):
        raise NoteError(f"{path}: front matter: starts with a byte order mark; expected '---'")
    lines = _lines(data)
    if not lines or lines[0][1] != b"---":
        raise NoteError(f"{path}: front matter: line 1 must be '---' to open the header")
    fields: list[HeaderField] = []
    seen: dict[str, int] = {}
    close: int | None = None
    for number, (start, raw) in enumerate(lines[1:], start=2):
        line = raw.decode("utf-8")
        if line == "---":
            close = number
            break
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = FIELD_LINE.fullmatch(line)
        if match is None:
            raise NoteError(f"{path}: front matter: line {number}: expected 'field: value'")
        name, value = match.group(1), match.group(2) or None
        if name in seen:
            raise NoteError(
                f"{path}: field {name}: appears twice (lines {seen[name]} and {number}); "
                "a note has at most one"
            )
        seen[name] = number
        fields.append(
            HeaderField(name=name, value=value, line=number, start=start, end=start + len(raw))
        )
    if close is None:
        raise NoteError(f"{path}: front matter: no closing '---' line")
    note = Note(
        path=path,
        data=data,
        fields=tuple(fields),
        header_end=lines[close - 1][0],
        quotes=_parse_quotes(path, lines[close:], close + 1),
    )
    _check_fields(note)
    return note


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


def _parse_quotes(path: Path, lines: Sequence[tuple[int, bytes]], first: int) -> tuple[Quote, ...]:
    quotes: list[Quote] = []
    fence: str | None = None
    block: list[tuple[int, str]] = []

    def flush() -> None:
        if block and _LABEL.fullmatch(block[0][1]) and block[0][1].startswith("quote:"):
            quotes.append(_quote(path, block))
        block.clear()

    for number, (_, raw) in enumerate(lines, start=first):
        line = raw.decode("utf-8")
        opened = CODE_FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1) == fence:
                fence = None
            continue
        if opened:
            flush()
            fence = opened.group(1)
            continue
        match = _QUOTE_LINE.fullmatch(line)
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
    ending the header already uses."""
    data = note.data
    held = next((f for f in note.fields if f.name == "pointer"), None)
    if held is not None:
        line = b"pointer:" + (b" " + pointer.encode("utf-8") if pointer else b"")
        return data[: held.start] + line + data[held.end :]
    if pointer is None:
        return data
    ending = b"\r\n" if data.startswith(b"---\r\n") else b"\n"
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
    return {row.path: row for row in read_catalogue(corpus_dir)}


def check_pointer(note: Note, catalogue: Mapping[str, CatalogueRow]) -> None:
    """Raise `NoteError` if the note's pointer or document names no catalogued document."""
    for name in ("pointer", "document"):
        value = note.get(name)
        if value is not None and value not in catalogue:
            raise NoteError(f"{note.path}: field {name}: {value} is not in the catalogue")


# ---------------------------------------------------------------------------------------------
# The check (child side)


def find_quote(index: SourceIndex, quote: Quote) -> tuple[QuoteStatus, tuple[tuple[int, int], ...]]:
    """A quote's status and the raw spans of all its occurrences, by the verifier's search.

    Occurrence rule (C6): found once, or a named occurrence that exists, is `found`; more than
    one occurrence and none named is `ambiguous`; a named occurrence past the last is
    `no_such_occurrence`; none is `missing`.
    """
    return find_text(index, quote.text, quote.occurrence)


def linked_reports(note: Note) -> tuple[Path, ...]:
    """The source reports the note's quotes link, resolved relative to the note, each parsed
    (a malformed or missing report raises `QuotesRegisterError`), in first-link order."""
    paths: dict[Path, None] = {}
    for quote in note.quotes:
        if quote.report is not None:
            paths.setdefault(resolve_report(note.path, quote.report, quote.line))
    for path in paths:
        parse_report(path)
    return tuple(paths)


def _linked_result(note: Note, quote: Quote) -> dict[str, Any]:
    """A linked quote's ledger entry: route, report (as `note_key` names it), status."""
    assert quote.report is not None
    report = resolve_report(note.path, quote.report, quote.line)
    check = check_linked_quote(
        report, quote.text, quote.occurrence, snapshot_required=quote.snapshot_required
    )
    return {
        "route": check.route,
        "report": note_key(report),
        "canonical_source": check.canonical_source,
        "snapshot_sha256": check.snapshot_sha256,
        "status": check.status,
        "extracts": list(check.extracts),
        "spans": [list(s) for s in check.spans],
    }


def checker_identity() -> dict[str, Any]:
    """Who ran the check: process id, interpreter, workbench version, and the SHA-256 over every
    source file of the workbench package (the check runs code in claims, quotes, the verifier, the
    normalizer and the extractors; a change to any of them is a different checker)."""
    return {
        "pid": os.getpid(),
        "executable": sys.executable,
        "workbench_version": metadata.version("workbench"),
        "checker_sha256": code_digest(),
    }


def run_check(note_path: Path, document_path: Path, corpus_dir: Path) -> dict[str, Any]:
    """The check itself, as the child runs it: read the note, find the document's catalogue row
    from the last three parts of its path, checksum first, then every quote in note order: a
    document quote in the document's extracted text, a linked quote on its report's route."""
    note = parse_note(note_path)
    catalogue = catalogue_index(corpus_dir)
    rel = "/".join(document_path.parts[-3:])
    row = catalogue.get(rel)
    if row is None:
        raise NoteError(
            f"{document_path}: not a catalogued document ({rel} is not in the catalogue)"
        )
    data = document_path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    quotes = note.quotes
    result: dict[str, Any] = {
        "scheme": CHECK_SCHEME,
        "document": rel,
        "document_sha256": digest,
        "catalogue_sha256": row.sha256,
        "quotes_sha256": quotes_sha256(quotes),
        "text_sha256": None,
        "extractor": None,
        "quotes": [],
        "checker": checker_identity(),
    }
    # CAUTION: checksum first; no word is compared against bytes the catalogue does not vouch for.
    if digest != row.sha256 or len(data) != row.size:
        result["outcome"] = "checksum_mismatch"
        return result
    version = version_from_row(row, data)
    index = index_text(version.text)
    found = []
    for quote in quotes:
        entry: dict[str, Any] = {
            "quote": quote.text,
            "locator": quote.locator,
            "occurrence": quote.occurrence,
            "line": quote.line,
        }
        if quote.report is not None:
            entry.update(_linked_result(note, quote))
        else:
            status, spans = find_quote(index, quote)
            entry.update(status=status, spans=[list(s) for s in spans])
        found.append(entry)
    result["text_sha256"] = version.text_sha256
    result["extractor"] = f"{version.extractor} {version.extractor_version}"
    result["quotes"] = found
    if not found:
        result["outcome"] = "no_quotes"
    elif all(q["status"] == "found" for q in found):
        result["outcome"] = "confirmed"
    else:
        result["outcome"] = "missing"
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m workbench.notes.claims NOTE DOCUMENT --corpus-dir DIR`: print the check's JSON."""
    parser = argparse.ArgumentParser(prog="python -m workbench.notes.claims")
    parser.add_argument("note", type=Path)
    parser.add_argument("document", type=Path)
    parser.add_argument("--corpus-dir", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        result = run_check(args.note, args.document, args.corpus_dir)
    except (WorkbenchError, OSError) as exc:
        print(" ".join(str(exc).split()), file=sys.stderr)
        return 2
    sys.stdout.write(canonical_json(result) + "\n")
    return 0


# ---------------------------------------------------------------------------------------------
# The run ledger

_LEDGER_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run INTEGER PRIMARY KEY AUTOINCREMENT,
    note TEXT NOT NULL,
    quotes_sha256 TEXT NOT NULL,
    document TEXT NOT NULL,
    document_sha256 TEXT NOT NULL,
    text_sha256 TEXT,
    extractor TEXT,
    quotes TEXT NOT NULL,
    quote_count INTEGER NOT NULL,
    missing_count INTEGER NOT NULL,
    outcome TEXT NOT NULL
        CHECK (outcome IN ('confirmed', 'missing', 'checksum_mismatch', 'no_quotes')),
    checked_at TEXT NOT NULL,
    checker_pid INTEGER NOT NULL,
    checker_executable TEXT NOT NULL,
    workbench_version TEXT NOT NULL,
    checker_sha256 TEXT NOT NULL,
    CHECK (quote_count = json_array_length(quotes)),
    CHECK (outcome != 'confirmed' OR (quote_count > 0 AND missing_count = 0))
);
CREATE INDEX IF NOT EXISTS runs_by_note ON runs (note);
CREATE TRIGGER IF NOT EXISTS runs_no_update BEFORE UPDATE ON runs
BEGIN SELECT RAISE(ABORT, 'the run ledger is append-only'); END;
CREATE TRIGGER IF NOT EXISTS runs_no_delete BEFORE DELETE ON runs
BEGIN SELECT RAISE(ABORT, 'the run ledger is append-only'); END;
"""


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """One ledger row: which note (and the hash of its quotes), which file and its hash, which
    quotes with what status, the outcome, when (UTC), and the checking process's identity."""

    run: int
    note: str
    quotes_sha256: str
    document: str
    document_sha256: str
    text_sha256: str | None
    extractor: str | None
    quotes: tuple[Mapping[str, Any], ...]
    outcome: Outcome
    checked_at: str
    checker_pid: int
    checker_executable: str
    workbench_version: str
    checker_sha256: str

    @property
    def missing(self) -> tuple[Mapping[str, Any], ...]:
        return tuple(q for q in self.quotes if q["status"] != "found")

    def as_json(self) -> dict[str, Any]:
        """What `workbench runs --json` prints for the row: every field, by name."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


class Ledger:
    """The run ledger: an SQLite file apart from the notes, append-only by its own triggers."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(path, timeout=30.0, isolation_level=None)
            self._conn.executescript(_LEDGER_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise LedgerError(f"{path}: not a workbench run ledger ({exc})") from exc

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._conn.close()

    def append(self, note: str, result: Mapping[str, Any], checked_at: str) -> Run:
        checker = result["checker"]
        quotes = list(result["quotes"])
        cursor = self._conn.execute(
            "INSERT INTO runs (note, quotes_sha256, document, document_sha256, text_sha256, "
            "extractor, quotes, quote_count, missing_count, outcome, checked_at, checker_pid, "
            "checker_executable, workbench_version, checker_sha256) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                note,
                result["quotes_sha256"],
                result["document"],
                result["document_sha256"],
                result["text_sha256"],
                result["extractor"],
                canonical_json(quotes),
                len(quotes),
                sum(q["status"] != "found" for q in quotes),
                result["outcome"],
                checked_at,
                checker["pid"],
                checker["executable"],
                checker["workbench_version"],
                checker["checker_sha256"],
            ),
        )
        return self.runs(run=cursor.lastrowid)[0]

    def runs(self, note: str | None = None, *, run: int | None = None) -> tuple[Run, ...]:
        """Rows in run order, all or one note's (by `note_key`) or one run's."""
        sql, params = "SELECT * FROM runs", ()  # type: tuple[str, tuple[Any, ...]]
        if note is not None:
            sql, params = sql + " WHERE note = ?", (note,)
        elif run is not None:
            sql, params = sql + " WHERE run = ?", (run,)
        cursor = self._conn.execute(sql + " ORDER BY run", params)
        names = [d[0] for d in cursor.description]
        out = []
        for values in cursor.fetchall():
            row = dict(zip(names, values, strict=True))
            row["quotes"] = tuple(json.loads(row["quotes"]))
            del row["quote_count"], row["missing_count"]
            out.append(Run(**row))
        return tuple(out)


# ---------------------------------------------------------------------------------------------
# The check (parent side)


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckReport:
    """What `check_note` did: the ledger row, and the pointer before and after."""

    note: Path
    run: Run
    pointer_before: str | None
    pointer_after: str | None

    @property
    def confirmed(self) -> bool:
        return self.run.outcome == "confirmed"


def _spawn(note_path: Path, document_path: Path, corpus_dir: Path) -> dict[str, Any]:
    command = [
        sys.executable,
        "-m",
        "workbench.notes.claims",
        str(note_path),
        str(document_path),
        "--corpus-dir",
        str(corpus_dir),
    ]
    done = subprocess.run(command, capture_output=True, check=False, timeout=900)
    if done.returncode != 0:
        message = " ".join(done.stderr.decode("utf-8", "replace").split()[-80:])
        raise CheckerError(f"{note_path}: the checking process failed: {message}")
    try:
        result: dict[str, Any] = json.loads(done.stdout)
    except ValueError as exc:
        raise CheckerError(f"{note_path}: the checking process printed no JSON result") from exc
    return result


def resolve_document(note: Note, against: Path | None, store: Path) -> Path:
    """The file to check against: `against`, else the note's pointer, else its `document`, each
    catalogue path taken under `store`."""
    if against is not None:
        return against
    named = note.pointer or note.get("document")
    if named is None:
        raise NoteError(f"{note.path}: field document: no --against, pointer or document to check")
    return store / named


def _checked_run(
    note: Note,
    document: Path,
    rel: str,
    corpus_dir: Path,
    ledger: Ledger,
    now: dt.datetime | None,
) -> Run:
    """Run the check of `note` against `document` (catalogue path `rel`) in a separate process,
    hold its answer to the note and the document asked for, and append it to the ledger."""
    note_path = note.path
    result = _spawn(note_path, document, corpus_dir)
    if result.get("scheme") != CHECK_SCHEME or result.get("document") != rel:
        raise CheckerError(f"{note_path}: the checking process answered for another document")
    if result["quotes_sha256"] != quotes_sha256(note.quotes):
        raise CheckerError(f"{note_path}: the note's quotes changed while it was being checked")
    # CAUTION: re-derived here, not taken from the child: confirmed means quotes, all found.
    quotes = result["quotes"]
    if result["outcome"] == "confirmed" and not (
        len(quotes) == len(note.quotes) > 0 and all(q["status"] == "found" for q in quotes)
    ):
        raise CheckerError(f"{note_path}: the checking process said confirmed without quotes")
    moment = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
    return ledger.append(note_key(note_path), result, moment.isoformat(timespec="seconds"))


def recheck_note(
    note_path: Path,
    document: str,
    *,
    corpus_dir: Path,
    store: Path,
    ledger: Ledger,
    now: dt.datetime | None = None,
) -> Run:
    """Check a note's quotes against `document` (a catalogue path: a version newer than the one
    the note points at) exactly as `check_note` does, in a separate process, and record the run;
    the note itself is never written (its pointer names the version its quotes were confirmed in,
    and that stays true whatever a newer version holds)."""
    note = parse_note(note_path)
    catalogue = catalogue_index(corpus_dir)
    check_pointer(note, catalogue)
    if document not in catalogue:
        raise NoteError(f"{note_path}: {document} is not in the catalogue")
    path = store / document
    if not path.is_file():
        raise NoteError(f"{note_path}: {path}: no such file (fetch the corpus?)")
    return _checked_run(note, path, document, corpus_dir, ledger, now)


def check_note(
    note_path: Path,
    *,
    against: Path | None,
    corpus_dir: Path,
    store: Path,
    ledger: Ledger,
    now: dt.datetime | None = None,
) -> CheckReport:
    """Check one note in a separate process, then record the run and set or clear the pointer.

    Bad input (a malformed note, a pointer or document outside the catalogue, a file that is not a
    catalogued document, a linked source report that is missing or malformed) raises before
    anything is written. A confirmed run sets the pointer to the
    checked document; a run with quotes missing clears the pointer when it named that document;
    a checksum mismatch or a note with no quotes leaves the note as it was. A quote linking a source
    report counts like a document quote (`confirmed` needs every quote found, on every route).
    """
    note = parse_note(note_path)
    catalogue = catalogue_index(corpus_dir)
    check_pointer(note, catalogue)
    linked_reports(note)
    document = resolve_document(note, against, store)
    rel = "/".join(document.parts[-3:])
    if rel not in catalogue:
        raise NoteError(f"{note_path}: --against {document}: {rel} is not in the catalogue")
    if not document.is_file():
        raise NoteError(f"{note_path}: --against {document}: no such file (fetch the corpus?)")
    run = _checked_run(note, document, rel, corpus_dir, ledger, now)
    before = note.pointer
    after = before
    if run.outcome == "confirmed":
        after = rel
    elif run.outcome == "missing" and before == rel:
        after = None
    if after != before:
        replace_file(note_path, with_pointer(note, after))
    return CheckReport(note=note_path, run=run, pointer_before=before, pointer_after=after)


def check_notes(
    folder: Path, *, corpus_dir: Path, store: Path, ledger: Ledger
) -> tuple[CheckReport, ...]:
    """`check_note` over every note in `folder` (see `notes_in`), in path order, each against its
    pointer or else its `document`. Every note is parsed and its fields checked against the
    catalogue first: one bad note stops the batch before any run is made or any file written."""
    catalogue = catalogue_index(corpus_dir)
    paths = notes_in(folder)
    for path in paths:
        note = parse_note(path)
        check_pointer(note, catalogue)
        resolve_document(note, None, store)
        linked_reports(note)
    return tuple(
        check_note(path, against=None, corpus_dir=corpus_dir, store=store, ledger=ledger)
        for path in paths
    )


# ---------------------------------------------------------------------------------------------
# Grades and the census


@dataclass(frozen=True, slots=True, kw_only=True)
class NoteGrade:
    """A grade read off a note's header and the ledger, with why.

    `backing_run` is the confirmed run matching the pointer, the document's catalogued hash and
    the note's current quotes hash (the latest such run); None when the pointer has none behind it.
    `evidence_missing` lists the empty evidence fields of a validated note.
    """

    note: Path
    grade: Grade
    pointer: str | None
    backing_run: int | None
    evidence_missing: tuple[str, ...]
    why: tuple[str, ...]
    last_run: Run | None

    def as_json(self) -> dict[str, Any]:
        """What `workbench grade --json` prints."""
        return {
            "note": str(self.note),
            "grade": self.grade,
            "pointer": self.pointer,
            "backing_run": self.backing_run,
            "evidence_missing": list(self.evidence_missing),
            "why": list(self.why),
        }


def grade_note(note: Note, catalogue: Mapping[str, CatalogueRow], runs: Sequence[Run]) -> NoteGrade:
    """Grade a note: top when its status is validated (and it names who and when, else the
    missing field is listed), middle when it carries a pointer, floor otherwise. `runs` are the
    note's ledger rows."""
    check_pointer(note, catalogue)
    pointer = note.pointer
    current = quotes_sha256(note.quotes)
    why: list[str] = []
    backing: Run | None = None
    if pointer is not None:
        sha = catalogue[pointer].sha256
        backing = next(
            (
                r
                for r in reversed(runs)
                if r.outcome == "confirmed"
                and r.document == pointer
                and r.document_sha256 == sha
                and r.quotes_sha256 == current
            ),
            None,
        )
        if backing is not None:
            why.append(
                f"pointer {pointer} backed by run {backing.run} "
                f"({len(backing.quotes)} quotes confirmed at {backing.checked_at})"
            )
        else:
            older = [r.run for r in runs if r.outcome == "confirmed" and r.document == pointer]
            why.append(
                f"pointer {pointer}: evidence missing: no confirmed run matches the note's "
                f"current quotes (sha256 {current[:12]})"
                + (f"; confirmed runs for other quotes: {older}" if older else "")
            )
    missing = tuple(f for f in EVIDENCE_FIELDS if note.get(f) is None)
    grade: Grade
    if note.status == "validated":
        grade = "top"
        why.insert(0, "status validated")
        if missing:
            why.append(f"evidence field missing: {', '.join(missing)}")
        else:
            why.append(f"validated by {note.get('validated_by')} at {note.get('validated_at')}")
    elif pointer is not None:
        grade = "middle"
    else:
        grade = "floor"
        why.append(f"no pointer (origin {note.get('origin')})")
        last = runs[-1] if runs else None
        if last is not None and last.outcome == "missing":
            gaps = sum(q["status"] != "found" for q in last.quotes)
            why.append(f"run {last.run} found {gaps} of {len(last.quotes)} quotes missing")
    return NoteGrade(
        note=note.path,
        grade=grade,
        pointer=pointer,
        backing_run=backing.run if backing else None,
        evidence_missing=missing if grade == "top" else (),
        why=tuple(why),
        last_run=runs[-1] if runs else None,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Census:
    """The state of a notes folder. `unreadable` holds the one-line error of each note whose
    header could not be read; such notes are counted nowhere else."""

    folder: Path
    grades: tuple[NoteGrade, ...]
    unreadable: tuple[str, ...]
    # (note, latest version) for each middle-grade note whose last run into the latest version of
    # its pointer's family (a recheck, or a check against it) found one of its quotes missing.
    gone_from_latest: tuple[tuple[Path, str], ...] = ()

    def count(self, grade: Grade) -> int:
        return sum(g.grade == grade for g in self.grades)

    @property
    def top_missing_evidence(self) -> tuple[NoteGrade, ...]:
        return tuple(g for g in self.grades if g.grade == "top" and g.evidence_missing)

    @property
    def middle_without_run(self) -> tuple[NoteGrade, ...]:
        return tuple(g for g in self.grades if g.grade == "middle" and g.backing_run is None)

    @property
    def floor_with_gaps(self) -> tuple[NoteGrade, ...]:
        return tuple(
            g
            for g in self.grades
            if g.grade == "floor" and g.last_run is not None and g.last_run.outcome == "missing"
        )

    def lines(self) -> tuple[str, ...]:
        """The printout, in a fixed order; notes listed by path. The line on middle-grade notes
        whose quote the latest version no longer holds, and the one on unreadable headers, are
        printed only when they count something."""
        out = [f"census of {self.folder}: {len(self.grades) + len(self.unreadable)} notes"]
        out += [f"  {grade}: {self.count(grade)}" for grade in ("top", "middle", "floor")]
        out.append(f"top-grade notes missing an evidence field: {len(self.top_missing_evidence)}")
        out += [f"  {g.note}: {', '.join(g.evidence_missing)}" for g in self.top_missing_evidence]
        out.append(
            "middle-grade pointers with no recorded run behind them (evidence missing): "
            f"{len(self.middle_without_run)}"
        )
        out += [f"  {g.note} -> {g.pointer}" for g in self.middle_without_run]
        out.append(
            f"floor notes whose last check found quotes missing: {len(self.floor_with_gaps)}"
        )
        out += [f"  {g.note}" for g in self.floor_with_gaps]
        if self.gone_from_latest:
            out.append(
                "middle-grade notes whose quote the latest version of their document no longer "
                f"holds, by their last recheck: {len(self.gone_from_latest)}"
            )
            out += [f"  {note} -> {latest}" for note, latest in self.gone_from_latest]
        if self.unreadable:
            out.append(f"notes whose header could not be read: {len(self.unreadable)}")
            out += [f"  {line}" for line in self.unreadable]
        return tuple(out)


def latest_in_family(catalogue: Mapping[str, CatalogueRow], path: str) -> str:
    """The catalogue path of the latest version (highest version order; on a tie, the greatest
    path) of the jurisdiction and family that catalogue path `path` belongs to."""
    row = catalogue[path]
    kin = [
        r
        for r in catalogue.values()
        if (r.jurisdiction, r.family) == (row.jurisdiction, row.family)
    ]
    return max(kin, key=lambda r: (r.version_order, r.path)).path


def gone_from_latest(
    grade: NoteGrade, catalogue: Mapping[str, CatalogueRow], runs: Sequence[Run]
) -> str | None:
    """The latest version of a middle-grade note's family when the note's last run into it found a
    quote missing (the quote is gone there, by that run), else None. A note pointing at the latest
    version is never listed: its own check is that run."""
    if grade.grade != "middle" or grade.pointer is None:
        return None
    latest = latest_in_family(catalogue, grade.pointer)
    if latest == grade.pointer:
        return None
    last = next((r for r in reversed(runs) if r.document == latest), None)
    if last is None or not any(q["status"] == "missing" for q in last.quotes):
        return None
    return latest


def census(folder: Path, *, corpus_dir: Path, ledger: Ledger) -> Census:
    """Grade every note in `folder` (see `notes_in`). Runs no check and writes nothing."""
    catalogue = catalogue_index(corpus_dir)
    grades: list[NoteGrade] = []
    unreadable: list[str] = []
    gone: list[tuple[Path, str]] = []
    for path in notes_in(folder):
        try:
            note = parse_note(path)
            runs = ledger.runs(note_key(path))
            grades.append(grade_note(note, catalogue, runs))
        except NoteError as exc:
            unreadable.append(str(exc))
            continue
        latest = gone_from_latest(grades[-1], catalogue, runs)
        if latest is not None:
            gone.append((path, latest))
    return Census(
        folder=folder,
        grades=tuple(grades),
        unreadable=tuple(unreadable),
        gone_from_latest=tuple(gone),
    )


if __name__ == "__main__":
    raise SystemExit(main())
