"""The quotes register (DESIGN.md C10): a source report's retained verbatim extracts, checked
against the exact snapshot bytes the report records, and the two routes a note's link can take.

A source report `<slug>.ingest.md` is tracked Markdown. Its front matter records the source's
canonical identity (`canonical_source`, a catalogue path; `document_sha256`, the catalogued hash)
and `snapshot_sha256`, the SHA-256 of its snapshot. Its analytical sections are interpretation and
never count as source support. It holds exactly one `## Quotes` section, immediately before
`## Connections Found`, holding only adjacent pairs

    Source extract (verbatim):
    > words as the source prints them,
    > over as many lines as needed

    Source location: where they stand

or, when empty, exactly the sentence `No source quotes have been retained yet.`. The snapshot is an
ignored local reading copy paired by exact name, `.snapshots/<slug>.md` beside the report: a small
front matter (`canonical_source`, `document_sha256`, `extractor`) and then the document's extracted
text, the same text every offset in the workbench indexes. `snapshot_sha256` is immutable: a
snapshot is written only when its bytes hash to the recorded value.

The guarantee: an extract enters the register only after the verifier's exact search
(`find_occurrences`, normalized on both sides, never similarity) found it in snapshot bytes whose
hash and canonical source equal the report's, and the append changes no byte outside the one
insertion point. A note link marked `(snapshot required)` is checked against that snapshot or
fails closed (missing, unreadable, hash or source mismatch, each its own status); an ordinary link
is checked against the retained extracts alone. Neither route ever falls back to another copy.
"""

from __future__ import annotations

import hashlib
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, cast

from workbench.cite import HYPHENS, SourceIndex, find_occurrences, holds_words, index_text
from workbench.corpus import check_relative_path, read_catalogue, read_fetched
from workbench.errors import QuotesRegisterError
from workbench.files import replace_file
from workbench.models import CODE_FENCE, FIELD_LINE, CatalogueRow
from workbench.text.normalize import normalized_text
from workbench.workspace import version_from_row

REPORT_SUFFIX = ".ingest.md"
SNAPSHOT_FOLDER = ".snapshots"
QUOTES_HEADING = "Quotes"
NEXT_HEADING = "Connections Found"
EXTRACT_LABEL = "Source extract (verbatim):"
LOCATION_LABEL = "Source location:"
EMPTY_SENTENCE = "No source quotes have been retained yet."
REPORT_FIELDS = ("canonical_source", "document_sha256", "snapshot_sha256")
SNAPSHOT_FIELDS = ("canonical_source", "document_sha256", "extractor")
WRAP_WIDTH = 98

Route = Literal["quotes", "snapshot"]
OccurrenceStatus = Literal["found", "missing", "ambiguous", "no_such_occurrence"]
FailClosed = Literal[
    "snapshot_missing",
    "snapshot_unreadable",
    "snapshot_sha256_mismatch",
    "snapshot_source_mismatch",
]
SnapshotStatus = Literal["ok", FailClosed]
LinkStatus = Literal[OccurrenceStatus, "not_retained", FailClosed]

_SLUG = re.compile(r"[a-z0-9][a-z0-9._-]*")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_HEADING = re.compile(r"(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*")
_EXTRACT_LINE = re.compile(r"> ?(.*)")
# Line breaks other than "\n" would end a Markdown line where the register does not expect one.
_OTHER_BREAKS = re.compile(r"[\r\f\v\x1c\x1d\x1e\x85\u2028\u2029]")


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


@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot:
    """What reading a report's snapshot found. `text` (the extracted text after the front matter)
    is set only when `status` is `ok`; `detail` says what failed, in words."""

    path: Path
    status: SnapshotStatus
    sha256: str | None
    text: str | None
    detail: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SnapshotWrite:
    path: Path
    sha256: str
    written: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkedQuoteCheck:
    """A note's linked quote checked on its route. `extracts` are the 1-based numbers of the
    retained extracts holding it (quotes route); `spans` its raw spans in the snapshot's text
    (snapshot route; the same offsets as the document's extracted text)."""

    route: Route
    status: LinkStatus
    canonical_source: str
    snapshot_sha256: str
    extracts: tuple[int, ...]
    spans: tuple[tuple[int, int], ...]


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


def _lines(data: bytes) -> list[tuple[int, bytes, bytes]]:
    """(byte offset, line without its ending, the ending) for every line; `\\n` and `\\r\\n`
    both end one."""
    out: list[tuple[int, bytes, bytes]] = []
    at = 0
    for raw in data.splitlines(keepends=True):
        body = raw.rstrip(b"\r\n") if raw.endswith(b"\n") else raw
        out.append((at, body, raw[len(body) :]))
        at += len(raw)
    return out


@dataclass(slots=True)
class _Scan:
    """What `_scan` read, and every problem it met on the way."""

    fields: dict[str, str | None] = field(default_factory=dict)
    field_lines: dict[str, int] = field(default_factory=dict)
    extracts: list[RetainedExtract] = field(default_factory=list)
    problems: list[ReportProblem] = field(default_factory=list)
    insert_at: int | None = None
    empty_span: tuple[int, int] | None = None
    newline: bytes = b"\n"


def _scan(path: Path, data: bytes) -> _Scan:
    """Read everything a report says, collecting every problem instead of stopping at the first.

    The header opens on line 1 with `---` and closes at the next `---` line, one `field: value`
    per line (as in a note); unknown fields are kept and ignored.
    """
    scan = _Scan()

    def complain(line: int | None, message: str) -> None:
        scan.problems.append(ReportProblem(report=path, line=line, message=message))

    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        complain(None, f"byte {exc.start}: not UTF-8")
        return scan
    if data.startswith(b"\xef\xbb\xbf"):
        complain(None, "front matter: starts with a byte order mark; expected '---'")
        return scan
    lines = _lines(data)
    if not lines or lines[0][1] != b"---":
        complain(1, "front matter: line 1 must be '---' to open the header")
        return scan
    close: int | None = None
    for number, (_, raw, _) in enumerate(lines[1:], start=2):
        line = raw.decode("utf-8")
        if line == "---":
            close = number
            break
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = FIELD_LINE.fullmatch(line)
        if match is None:
            complain(number, "front matter: expected 'field: value'")
            continue
        name, value = match.group(1), match.group(2) or None
        if name in scan.field_lines:
            complain(
                number, f"field {name}: appears twice (lines {scan.field_lines[name]} and {number})"
            )
            continue
        scan.fields[name], scan.field_lines[name] = value, number
    if close is None:
        complain(None, "front matter: no closing '---' line")
        return scan
    _check_fields(scan, complain)
    _scan_body(scan, lines, close, complain)
    return scan


def _check_fields(scan: _Scan, complain: _Complain) -> None:
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
    scan: _Scan, lines: list[tuple[int, bytes, bytes]], close: int, complain: _Complain
) -> None:
    """Find the one Quotes section by its level-2 heading (headings inside fenced code do not
    count) and check that the next heading of level 1 or 2 is `## Connections Found`."""
    headings: list[tuple[int, int, str]] = []
    fence: str | None = None
    for number in range(close + 1, len(lines) + 1):
        line = lines[number - 1][1].decode("utf-8")
        opened = CODE_FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1) == fence:
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        match = _HEADING.fullmatch(line)
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
    scan: _Scan, lines: list[tuple[int, bytes, bytes]], start: int, end: int, complain: _Complain
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
    report_slug(path)
    data = _read(path, data)
    scan = _scan(path, data)
    if scan.problems:
        first = sorted(scan.problems, key=lambda p: p.line or 0)[0]
        more = len(scan.problems) - 1
        raise QuotesRegisterError(
            str(first) + (f" (and {more} more; run 'workbench quotes validate')" if more else "")
        )
    assert scan.insert_at is not None or scan.empty_span is not None
    return Report(
        path=path,
        data=data,
        canonical_source=str(scan.fields["canonical_source"]),
        document_sha256=str(scan.fields["document_sha256"]),
        snapshot_sha256=str(scan.fields["snapshot_sha256"]),
        extracts=tuple(scan.extracts),
        insert_at=scan.insert_at if scan.insert_at is not None else -1,
        empty_span=scan.empty_span,
        newline=scan.newline,
    )


# ---------------------------------------------------------------------------------------------
# Snapshots


def catalogue_row(canonical_source: str, corpus_dir: Path) -> CatalogueRow:
    row = next((r for r in read_catalogue(corpus_dir) if r.path == canonical_source), None)
    if row is None:
        raise QuotesRegisterError(
            f"canonical_source {canonical_source}: not in the catalogue of {corpus_dir}"
        )
    return row


def snapshot_bytes(row: CatalogueRow, store: Path) -> bytes:
    """The snapshot of a catalogued document: front matter, then its extracted text exactly.

    The fetched file is checked against its catalogue row first (C3), then extracted by the same
    path the claims check uses (`version_from_row`), so the text is the text offsets index.
    """
    try:
        data = read_fetched(row, store)
    except FileNotFoundError:
        raise QuotesRegisterError(
            f"canonical_source {row.path}: not held in {store} (fetch the corpus?)"
        ) from None
    version = version_from_row(row, data)
    head = (
        "---\n"
        f"canonical_source: {row.path}\n"
        f"document_sha256: {row.sha256}\n"
        f"extractor: {version.extractor} {version.extractor_version}\n"
        "---\n"
    )
    return (head + version.text).encode("utf-8")


def write_snapshot(report_path: Path, *, corpus_dir: Path, store: Path) -> SnapshotWrite:
    """Write the report's snapshot from the fetched corpus, or refuse.

    Refused (`QuotesRegisterError`, nothing written): the report's `document_sha256` is not the
    catalogued hash (changed bytes are a new observation, with a new report), or the bytes built
    hash differently from the recorded `snapshot_sha256`, which is never rewritten. A snapshot
    already holding those bytes is left alone (`written` False).
    """
    report = parse_report(report_path)
    row = catalogue_row(report.canonical_source, corpus_dir)
    if row.sha256 != report.document_sha256:
        raise QuotesRegisterError(
            f"{report_path}: field document_sha256: {report.document_sha256} is not the catalogued "
            f"{row.sha256} of {row.path}; changed source bytes are a new observation and need a "
            "new report"
        )
    data = snapshot_bytes(row, store)
    digest = hashlib.sha256(data).hexdigest()
    if digest != report.snapshot_sha256:
        raise QuotesRegisterError(
            f"{report_path}: field snapshot_sha256: the snapshot built from "
            f"{report.canonical_source} hashes to {digest}, not the recorded "
            f"{report.snapshot_sha256}; the recorded value is immutable, nothing written"
        )
    target = report.snapshot_path
    if target.is_file() and target.read_bytes() == data:
        return SnapshotWrite(path=target, sha256=digest, written=False)
    target.parent.mkdir(parents=True, exist_ok=True)
    replace_file(target, data)
    return SnapshotWrite(path=target, sha256=digest, written=True)


def _front_matter(text: str) -> tuple[dict[str, str], str] | None:
    """A snapshot's fields (exactly `SNAPSHOT_FIELDS`, in order) and the text after them; None
    when the front matter is not that."""
    if not text.startswith("---\n"):
        return None
    close = text.find("\n---\n", 3)
    if close < 0:
        return None
    fields: dict[str, str] = {}
    for line in text[4:close].split("\n"):
        match = FIELD_LINE.fullmatch(line)
        if match is None or match.group(2) is None or match.group(1) in fields:
            return None
        fields[match.group(1)] = match.group(2)
    if tuple(fields) != SNAPSHOT_FIELDS:
        return None
    return fields, text[close + 5 :]


def read_snapshot(report: Report) -> Snapshot:
    """Read a report's name-paired snapshot, failing closed. Checked in this order, the first
    failure deciding the status: the file exists (`snapshot_missing`); its bytes can be read
    (`snapshot_unreadable`); their SHA-256 is the report's `snapshot_sha256`
    (`snapshot_sha256_mismatch`); they decode as UTF-8 and open with the snapshot's front matter
    (`snapshot_unreadable`); its `canonical_source` and `document_sha256` are the report's
    (`snapshot_source_mismatch`: equal bytes do not bind a path to the report citing it). No other
    copy is ever consulted."""
    path = report.snapshot_path

    def failed(status: SnapshotStatus, detail: str, sha256: str | None = None) -> Snapshot:
        return Snapshot(path=path, status=status, sha256=sha256, text=None, detail=detail)

    if not path.exists():
        return failed(
            "snapshot_missing", f"{path} does not exist (run 'workbench quotes snapshot')"
        )
    try:
        data = path.read_bytes()
    except OSError as exc:
        return failed("snapshot_unreadable", f"{path} cannot be read ({exc.strerror or exc})")
    digest = hashlib.sha256(data).hexdigest()
    if digest != report.snapshot_sha256:
        return failed(
            "snapshot_sha256_mismatch",
            f"{path} hashes to {digest}; the report records {report.snapshot_sha256}",
            digest,
        )
    try:
        parsed = _front_matter(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return failed("snapshot_unreadable", f"{path}: byte {exc.start}: not UTF-8", digest)
    if parsed is None:
        return failed(
            "snapshot_unreadable",
            f"{path} does not open with the front matter {', '.join(SNAPSHOT_FIELDS)}",
            digest,
        )
    fields, text = parsed
    held = (fields["canonical_source"], fields["document_sha256"])
    if held != (report.canonical_source, report.document_sha256):
        return failed(
            "snapshot_source_mismatch",
            f"{path} is a snapshot of {held[0]} (sha256 {held[1]}); the report's source is "
            f"{report.canonical_source} (sha256 {report.document_sha256})",
            digest,
        )
    return Snapshot(path=path, status="ok", sha256=digest, text=text, detail="")


def _snapshot_text(report: Report) -> str:
    snapshot = read_snapshot(report)
    if snapshot.text is None:
        raise QuotesRegisterError(
            f"{report.path}: {snapshot.status}: {snapshot.detail}; nothing written"
        )
    return snapshot.text


# ---------------------------------------------------------------------------------------------
# Searching


def find_text(
    source: str | SourceIndex, text: str, occurrence: int | None
) -> tuple[OccurrenceStatus, tuple[tuple[int, int], ...]]:
    """`text`'s status in a source (its text, or its index from `index_text`) and the raw spans
    of all its occurrences, by the verifier's occurrence search (`find_occurrences`).

    Occurrence rule (C6): found once, or a named occurrence that exists, is `found`; more than
    one occurrence and none named is `ambiguous`; a named occurrence past the last is
    `no_such_occurrence`; none is `missing`.
    """
    spans = tuple((o.char_start, o.char_end) for o in find_occurrences(source, text))
    if not spans:
        return "missing", spans
    if occurrence is None:
        return ("found" if len(spans) == 1 else "ambiguous"), spans
    return ("found" if occurrence <= len(spans) else "no_such_occurrence"), spans


def occurs_in(source: str, text: str) -> bool:
    """True if `text` occurs at least once in `source` by the verifier's exact search."""
    return bool(find_occurrences(source, text))


# ---------------------------------------------------------------------------------------------
# Writing the register


def _extract_lines(extract: str) -> list[str]:
    """The extract's lines as given; a line longer than `WRAP_WIDTH` is wrapped at spaces, never
    after a hyphen, and only when the wrapped text normalizes to the same words."""
    out: list[str] = []
    for line in extract.split("\n"):
        if len(line) <= WRAP_WIDTH:
            out.append(line)
            continue
        wrapped = textwrap.wrap(
            line, WRAP_WIDTH, break_on_hyphens=False, break_long_words=False, drop_whitespace=True
        )
        if (
            normalized_text("\n".join(wrapped)) == normalized_text(line).strip(" ")
            and line == line.strip(" ")
            and not any(w.endswith(tuple(HYPHENS)) for w in wrapped[:-1])
        ):
            out.extend(wrapped)
        else:
            out.append(line)
    return out


def add_quote(report_path: Path, extract: str, location: str) -> RetainedExtract:
    """Append one extract and its location at the end of the report's Quotes section (replacing
    the empty sentence when it stands), every other byte kept; return the pair as re-read. The
    extract is written as given, less white space at its two ends and at line ends, with lines over
    `WRAP_WIDTH` wrapped (see `_extract_lines`).

    Refused (`QuotesRegisterError`, nothing written): a malformed report; an empty extract or one
    holding a line break other than `\\n`; an empty or multi-line location; a snapshot that fails
    closed (see `read_snapshot`); an extract the verifier's exact search does not find in the
    snapshot's text; a report that changed on disk while this ran.
    """
    report = parse_report(report_path)
    if _OTHER_BREAKS.search(extract):
        raise QuotesRegisterError(
            f"{report_path}: the extract holds a line break other than a newline; write a space "
            "or a newline (the normalization folds either)"
        )
    # White space at either end is never part of what a quote says (the search ignores it too).
    extract = extract.strip()
    if not holds_words(extract):
        raise QuotesRegisterError(f"{report_path}: the extract is empty; expected verbatim words")
    if "\n" in location or _OTHER_BREAKS.search(location) or not location.split():
        raise QuotesRegisterError(
            f"{report_path}: the location must be one line saying where the extract stands"
        )
    location = " ".join(location.split())
    if not occurs_in(_snapshot_text(report), extract):
        excerpt = " ".join(extract.split())[:80]
        raise QuotesRegisterError(
            f"{report_path}: extract {excerpt!r} is not in the snapshot of "
            f"{report.canonical_source} (exact search after normalization); nothing written"
        )
    nl = report.newline
    block = nl.join(
        [
            EXTRACT_LABEL.encode(),
            *(f"> {line}".rstrip(" ").encode() for line in _extract_lines(extract)),
            b"",
            f"{LOCATION_LABEL} {location}".encode(),
        ]
    )
    data = report.data
    if report.empty_span is not None:
        start, end = report.empty_span
        written = data[:start] + block + data[end:]
    else:
        at = report.insert_at
        written = data[:at] + nl + block + nl + data[at:]
    again = parse_report(report_path, written)
    # CAUTION: the register is append-only: the incumbent pairs must read back unchanged, and the
    # new one must say exactly what was verified.
    if again.extracts[:-1] != report.extracts or normalized_text(
        again.extracts[-1].text
    ) != normalized_text(extract):
        raise QuotesRegisterError(f"{report_path}: the appended pair would not read back as given")
    if report_path.read_bytes() != data:
        raise QuotesRegisterError(
            f"{report_path}: changed on disk while appending; nothing written"
        )
    replace_file(report_path, written)
    return again.extracts[-1]


def new_report(
    folder: Path, slug: str, canonical_source: str, *, corpus_dir: Path, store: Path
) -> Report:
    """Write a report skeleton `<folder>/<slug>.ingest.md` (empty Quotes section) and its snapshot,
    recording the snapshot's SHA-256. Refused: a slug that is not lowercase letters, digits, `.`,
    `_` and `-`; an existing report; an existing snapshot holding other bytes."""
    if not _SLUG.fullmatch(slug) or slug.endswith(".ingest"):
        raise QuotesRegisterError(
            f"slug {slug!r}: expected lowercase letters, digits, '.', '_' and '-'"
        )
    path = folder / f"{slug}{REPORT_SUFFIX}"
    if path.exists():
        raise QuotesRegisterError(f"{path}: already exists; a report is never overwritten")
    row = catalogue_row(canonical_source, corpus_dir)
    data = snapshot_bytes(row, store)
    target = snapshot_path(path)
    if target.exists() and target.read_bytes() != data:
        raise QuotesRegisterError(
            f"{target}: a snapshot with other bytes already stands there; move it away first"
        )
    text = "\n".join(
        [
            "---",
            f"canonical_source: {canonical_source}",
            f"document_sha256: {row.sha256}",
            f"snapshot_sha256: {hashlib.sha256(data).hexdigest()}",
            "---",
            "",
            f"# Source report: {canonical_source}",
            "",
            "## Summary",
            "",
            "What the source says and why it matters, in your own words. Analysis is",
            "interpretation: only the Quotes section counts as source support.",
            "",
            f"## {QUOTES_HEADING}",
            "",
            EMPTY_SENTENCE,
            "",
            f"## {NEXT_HEADING}",
            "",
            "None yet.",
            "",
        ]
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        replace_file(target, data)
    with path.open("xb") as handle:
        handle.write(text.encode("utf-8"))
    return parse_report(path)


# ---------------------------------------------------------------------------------------------
# Validating a report and checking a note's links


def validate_report(path: Path, *, corpus_dir: Path | None = None) -> tuple[ReportProblem, ...]:
    """Every problem of a report, in line order (problems of the whole report first): its
    structure; with `corpus_dir`, its canonical source and document hash against the catalogue;
    its snapshot (a fail-closed status is one problem); and each retained extract not found in the
    snapshot's text. An empty tuple means valid."""
    try:
        report_slug(path)
        data = _read(path, None)
    except QuotesRegisterError as exc:
        return (ReportProblem(report=path, line=None, message=str(exc).split(": ", 1)[-1]),)
    scan = _scan(path, data)
    problems = list(scan.problems)

    def complain(line: int | None, message: str) -> None:
        problems.append(ReportProblem(report=path, line=line, message=message))

    usable = {
        name: str(scan.fields[name])
        for name in REPORT_FIELDS
        if scan.fields.get(name) is not None
        and not any(p.message.startswith(f"field {name}:") for p in scan.problems)
    }
    source, sha = usable.get("canonical_source"), usable.get("document_sha256")
    if corpus_dir is not None and source is not None:
        row = next((r for r in read_catalogue(corpus_dir) if r.path == source), None)
        if row is None:
            complain(
                scan.field_lines["canonical_source"],
                f"field canonical_source: {source} is not in the catalogue",
            )
        elif sha is not None and sha != row.sha256:
            complain(
                scan.field_lines["document_sha256"],
                f"field document_sha256: {sha} is not the catalogued {row.sha256}",
            )
    if len(usable) == len(REPORT_FIELDS):
        snapshot = read_snapshot(
            Report(
                path=path,
                data=data,
                canonical_source=usable["canonical_source"],
                document_sha256=usable["document_sha256"],
                snapshot_sha256=usable["snapshot_sha256"],
                extracts=tuple(scan.extracts),
                insert_at=-1,
                empty_span=None,
                newline=scan.newline,
            )
        )
        if snapshot.text is None:
            complain(scan.field_lines["snapshot_sha256"], f"{snapshot.status}: {snapshot.detail}")
        elif scan.extracts:
            index = index_text(snapshot.text)
            for extract in scan.extracts:
                if find_text(index, extract.text, None)[0] == "missing":
                    excerpt = " ".join(extract.text.split())[:80]
                    complain(extract.line, f"source extract {excerpt!r} is not in the snapshot")
    return tuple(sorted(problems, key=lambda p: p.line or 0))


def check_linked_quote(
    report_path: Path, text: str, occurrence: int | None, *, snapshot_required: bool
) -> LinkedQuoteCheck:
    """Check a note's quote that links a source report, on the route the link declares.

    Quotes route (an ordinary link): `found` when at least one retained extract contains the
    quote by the exact search, else `not_retained`; nothing else of the report counts, the
    snapshot is not read, and `occurrence` is not consulted (an extract is a bounded passage, not
    a position). Snapshot route (`(snapshot required)` in the link text): the snapshot is read
    (see `read_snapshot`; a failure is the quote's status, no other copy is consulted), then the
    quote is searched in its text under the occurrence rule of `find_text`.
    A malformed or missing report raises `QuotesRegisterError`.
    """
    report = parse_report(report_path)
    if not snapshot_required:
        held = tuple(
            number
            for number, extract in enumerate(report.extracts, start=1)
            if occurs_in(extract.text, text)
        )
        return LinkedQuoteCheck(
            route="quotes",
            status="found" if held else "not_retained",
            canonical_source=report.canonical_source,
            snapshot_sha256=report.snapshot_sha256,
            extracts=held,
            spans=(),
        )
    snapshot = read_snapshot(report)
    if snapshot.text is None:
        status: LinkStatus = cast(FailClosed, snapshot.status)
        spans: tuple[tuple[int, int], ...] = ()
    else:
        status, spans = find_text(snapshot.text, text, occurrence)
    return LinkedQuoteCheck(
        route="snapshot",
        status=status,
        canonical_source=report.canonical_source,
        snapshot_sha256=report.snapshot_sha256,
        extracts=(),
        spans=spans,
    )
