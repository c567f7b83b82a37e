"""A source report (C10): its records, where it and its snapshot stand, and its reading from its
bytes, never re-serialized; `scan_report` finds every problem, and `Report.insert_at` is the one
offset where the register appends. The format is in docs/claims.md."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from workbench.cite import holds_words
from workbench.corpus import check_relative_path
from workbench.errors import QuotesRegisterError
from workbench.notes.markdown import byte_lines, in_code
from workbench.text.frontmatter import read_header

REPORT_SUFFIX = ".ingest.md"
SNAPSHOT_FOLDER = ".snapshots"
QUOTES_HEADING = "Quotes"
NEXT_HEADING = "Connections Found"
EXTRACT_LABEL = "Source extract (verbatim):"
LOCATION_LABEL = "Source location:"
EMPTY_SENTENCE = "No source quotes have been retained yet."
REPORT_FIELDS = ("canonical_source", "document_sha256", "snapshot_sha256")

_SHA256 = re.compile(r"[0-9a-f]{64}")
_HEADING = re.compile(r"(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*")
_EXTRACT_LINE = re.compile(r"> ?(.*)")


# ---------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True, slots=True, kw_only=True)
class RetainedExtract:
    """One retained pair: the extract's text (its `>` lines joined with `\\n`), its location, and
    the lines of its `Source extract (verbatim):` label and its `Source location:` line."""

    text: str
    location: str
    line: int
    location_line: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ReportProblem:
    """One thing wrong with a report: the report, the line (None: the report as a whole), what."""

    report: Path
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        return f"{self.report}: {where}{self.message}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """A parsed source report. `insert_at` is the byte offset where the next pair goes (just after
    the last `Source location:` line); `empty_span` the bytes of the empty sentence (line ending
    excluded), None once quotes are retained; `newline` the line ending the Quotes heading uses."""

    path: Path
    data: bytes
    canonical_source: str
    document_sha256: str
    snapshot_sha256: str
    extracts: tuple[RetainedExtract, ...]
    insert_at: int
    empty_span: tuple[int, int] | None
    newline: bytes

    @property
    def snapshot_path(self) -> Path:
        return snapshot_path(self.path)


# ---------------------------------------------------------------------------------------------
# Paths


def report_slug(path: Path) -> str:
    if not path.name.endswith(REPORT_SUFFIX) or path.name == REPORT_SUFFIX:
        raise QuotesRegisterError(f"{path}: a source report is named <slug>{REPORT_SUFFIX}")
    return path.name[: -len(REPORT_SUFFIX)]


def snapshot_path(report: Path) -> Path:
    """The snapshot paired with `report` by exact name: `.snapshots/<slug>.md` beside it."""
    return report.parent / SNAPSHOT_FOLDER / f"{report_slug(report)}.md"


def resolve_report(note: Path, link: str, line: int) -> Path:
    """The report a note's link names, resolved relative to the note's folder. Refused: an
    absolute path, a URL, a backslash or an empty part (`..` may climb to a sibling folder)."""
    if (
        link.startswith(("/", "\\"))
        or "\\" in link
        or re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", link)
        or any(part in ("", ".") for part in link.split("/"))
    ):
        raise QuotesRegisterError(
            f"{note}: line {line}: link {link!r} is not a relative path to a source report"
        )
    return note.parent / link


# ---------------------------------------------------------------------------------------------
# Reading a report

_Complain = Callable[[int | None, str], None]


@dataclass(slots=True)
class ReportScan:
    """What `scan_report` read of a report, and every problem it met on the way (built up as the
    report is read, so not frozen; `parse_report` turns it into a `Report`)."""

    data: bytes
    fields: dict[str, str | None] = field(default_factory=dict)
    field_lines: dict[str, int] = field(default_factory=dict)
    extracts: list[RetainedExtract] = field(default_factory=list)
    problems: list[ReportProblem] = field(default_factory=list)
    insert_at: int | None = None
    empty_span: tuple[int, int] | None = None
    newline: bytes = b"\n"


def scan_report(path: Path, data: bytes | None = None) -> ReportScan:
    """Read everything a report says (`data`, or the file's bytes), collecting every problem
    instead of stopping at the first. Raises `QuotesRegisterError` only for a path not named
    `<slug>.ingest.md` and a file that cannot be read.

    The header is front matter read strictly (`text.frontmatter.read_header`, as in a note);
    unknown fields are kept and ignored. The body is read only once the header is closed.
    """
    report_slug(path)
    scan = ReportScan(data=_read(path, data))

    def complain(line: int | None, message: str) -> None:
        scan.problems.append(ReportProblem(report=path, line=line, message=message))

    try:
        scan.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        complain(None, f"byte {exc.start}: not UTF-8")
        return scan
    lines = byte_lines(scan.data)
    header = read_header([raw.decode("utf-8") for _, raw, _ in lines])
    for problem in header.problems:
        complain(problem.line, problem.message)
    for held in header.fields:
        scan.fields[held.name], scan.field_lines[held.name] = held.value, held.line
    if header.close is None:
        return scan
    _check_fields(scan, complain)
    _scan_body(scan, lines, header.close, complain)
    return scan


def _check_fields(scan: ReportScan, complain: _Complain) -> None:
    for name in REPORT_FIELDS:
        value = scan.fields.get(name)
        line = scan.field_lines.get(name)
        if value is None:
            complain(line, f"field {name}: missing; a source report records it")
        elif name == "canonical_source":
            if check_relative_path(value, field=name) or value.count("/") != 2:
                complain(
                    line,
                    f"field {name}: {value!r} is not a catalogue path "
                    "<jurisdiction>/<family>/<file>",
                )
        elif not _SHA256.fullmatch(value):
            complain(line, f"field {name}: {value!r} is not a SHA-256 (64 lowercase hex digits)")


def _scan_body(
    scan: ReportScan, lines: list[tuple[int, bytes, bytes]], close: int, complain: _Complain
) -> None:
    """Find the one Quotes section by its level-2 heading (headings inside fenced code do not
    count) and check that the next heading of level 1 or 2 is `## Connections Found`."""
    headings: list[tuple[int, int, str]] = []
    body = [raw.decode("utf-8") for _, raw, _ in lines[close:]]
    for number, (line, code) in enumerate(zip(body, in_code(body), strict=True), start=close + 1):
        match = None if code else _HEADING.fullmatch(line)
        if match is not None:
            headings.append((number, len(match.group(1)), (match.group(2) or "").strip()))
    quotes = [h for h in headings if h[1:] == (2, QUOTES_HEADING)]
    if not quotes:
        complain(None, f"no '## {QUOTES_HEADING}' section; a source report holds exactly one")
        return
    for extra in quotes[1:]:
        complain(
            extra[0],
            f"a second '## {QUOTES_HEADING}' section (the first is on line {quotes[0][0]}); "
            "a source report holds exactly one",
        )
    start = quotes[0][0]
    following = next((h for h in headings if h[0] > start and h[1] <= 2), None)
    if following is None or following[1:] != (2, NEXT_HEADING):
        found = (
            f"'{'#' * following[1]} {following[2]}' on line {following[0]}"
            if following is not None
            else "the end of the report"
        )
        complain(
            start,
            f"'## {QUOTES_HEADING}' is followed by {found}; expected '## {NEXT_HEADING}' "
            "immediately after it",
        )
    end = following[0] if following is not None else len(lines) + 1
    scan.newline = lines[start - 1][2] or b"\n"
    _scan_section(scan, lines, start, end, complain)


def _scan_section(
    scan: ReportScan,
    lines: list[tuple[int, bytes, bytes]],
    start: int,
    end: int,
    complain: _Complain,
) -> None:
    """The Quotes section's grammar, on lines `start + 1` to `end - 1` (trailing spaces ignored):
    blank lines between items; an item is the label line, at once followed by one or more `>`
    lines (the extract: each line's text after `>` and one optional space, joined with `\\n`),
    then at least one blank line (Markdown would otherwise fold the next line into the
    blockquote), then the `Source location:` line. After a problem, reading resumes at the next
    line, so that every problem is reported."""
    sentences: list[int] = []
    earlier = len(scan.problems)

    def text(n: int) -> str:
        return lines[n - 1][1].decode("utf-8").rstrip(" \t")

    number = start + 1
    while number < end:
        line = text(number)
        if not line:
            number += 1
            continue
        if line == EMPTY_SENTENCE:
            sentences.append(number)
            offset, raw, _ = lines[number - 1]
            scan.empty_span = (offset, offset + len(raw))
            number += 1
            continue
        if line != EXTRACT_LABEL:
            if _EXTRACT_LINE.fullmatch(line):
                what = f"a '>' line with no '{EXTRACT_LABEL}' line before it"
            elif line.startswith(LOCATION_LABEL):
                what = f"'{LOCATION_LABEL}' with no source extract before it"
            else:
                what = f"stray text in the Quotes section: {line[:60]!r}"
            complain(number, f"{what}; expected only extract and location pairs")
            number += 1
            continue
        label = number
        body: list[str] = []
        number += 1
        while number < end:
            match = _EXTRACT_LINE.fullmatch(lines[number - 1][1].decode("utf-8"))
            if match is None:
                break
            body.append(match.group(1))
            number += 1
        if not body:
            complain(label, f"'{EXTRACT_LABEL}' is not followed at once by '>' lines")
            continue
        extract = "\n".join(body)
        if not holds_words(extract):
            complain(label, "the source extract is empty; expected verbatim words")
        located = number
        if located < end and text(located):
            complain(located, f"expected a blank line between the extract and '{LOCATION_LABEL}'")
        while located < end and not text(located):
            located += 1
        if located >= end or not text(located).startswith(LOCATION_LABEL):
            complain(label, f"the source extract has no '{LOCATION_LABEL}' line after it")
            number = located
            continue
        location = " ".join(text(located)[len(LOCATION_LABEL) :].split())
        if not location:
            complain(located, f"'{LOCATION_LABEL}' is empty; expected where the extract stands")
        scan.extracts.append(
            RetainedExtract(text=extract, location=location, line=label, location_line=located)
        )
        offset, raw, ending = lines[located - 1]
        scan.insert_at = offset + len(raw) + len(ending)
        number = located + 1
    for again in sentences[1:]:
        complain(again, f"a second {EMPTY_SENTENCE!r}; write it once")
    if sentences and scan.extracts:
        complain(
            sentences[0],
            f"{EMPTY_SENTENCE!r} stands beside {len(scan.extracts)} retained extract(s); "
            "it belongs only in an empty section",
        )
    if not sentences and not scan.extracts and len(scan.problems) == earlier:
        complain(
            start,
            f"the Quotes section is empty; expected extract and location pairs or "
            f"{EMPTY_SENTENCE!r}",
        )


def _read(path: Path, data: bytes | None) -> bytes:
    if data is not None:
        return data
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise QuotesRegisterError(f"{path}: no such source report") from None
    except OSError as exc:
        raise QuotesRegisterError(f"{path}: cannot read the source report ({exc})") from exc


def parse_report(path: Path, data: bytes | None = None) -> Report:
    """Parse a source report; raise `QuotesRegisterError` with the first problem (by line; a
    problem of the whole report first) and how many more there are."""
    scan = scan_report(path, data)
    if scan.problems:
        first = sorted(scan.problems, key=lambda p: p.line or 0)[0]
        more = len(scan.problems) - 1
        raise QuotesRegisterError(
            str(first) + (f" (and {more} more; run 'workbench quotes validate')" if more else "")
        )
    assert scan.insert_at is not None or scan.empty_span is not None
    return Report(
        path=path,
        data=scan.data,
        canonical_source=str(scan.fields["canonical_source"]),
        document_sha256=str(scan.fields["document_sha256"]),
        snapshot_sha256=str(scan.fields["snapshot_sha256"]),
        extracts=tuple(scan.extracts),
        insert_at=scan.insert_at if scan.insert_at is not None else -1,
        empty_span=scan.empty_span,
        newline=scan.newline,
    )
