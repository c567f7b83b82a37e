"""The quotes register (C10): a source report's retained extracts, each entered only after exact
search found it in snapshot bytes whose hash and source equal the report's, and a note's link
checked on one of two routes, neither ever falling back to another copy."""

from __future__ import annotations

import hashlib
import re
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast

from workbench.cite import (
    HYPHENS,
    OccurrenceStatus,
    find_occurrences,
    find_text,
    holds_words,
    index_text,
)
from workbench.errors import ExtractNotFound, QuotesRegisterError
from workbench.files import replace_file
from workbench.models import CatalogueRow
from workbench.notes.note import catalogue_index
from workbench.notes.report import (
    EMPTY_SENTENCE,
    EXTRACT_LABEL,
    LOCATION_LABEL,
    NEXT_HEADING,
    QUOTES_HEADING,
    REPORT_FIELDS,
    REPORT_SUFFIX,
    Report,
    ReportProblem,
    RetainedExtract,
    parse_report,
    scan_report,
    snapshot_path,
)
from workbench.notes.snapshot import (
    FailClosed,
    catalogue_row,
    read_snapshot,
    snapshot_bytes,
)
from workbench.text.normalize import normalized_text

WRAP_WIDTH = 98

Route = Literal["quotes", "snapshot"]
LinkStatus = Literal[OccurrenceStatus, "not_retained", FailClosed]

_SLUG = re.compile(r"[a-z0-9][a-z0-9._-]*")
# Line breaks other than "\n" would end a Markdown line where the register does not expect one.
_OTHER_BREAKS = re.compile(r"[\r\f\v\x1c\x1d\x1e\x85\u2028\u2029]")


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


def _snapshot_text(report: Report) -> str:
    snapshot = read_snapshot(report)
    if snapshot.text is None:
        raise QuotesRegisterError(
            f"{report.path}: {snapshot.status}: {snapshot.detail}; nothing written"
        )
    return snapshot.text


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
        raise ExtractNotFound(
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
    folder: Path,
    slug: str,
    canonical_source: str,
    *,
    corpus_dir: Path,
    store: Path,
    ocr_cache: Path | None = None,
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
    data = snapshot_bytes(row, store, ocr_cache)
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


def validate_report(
    path: Path,
    *,
    corpus_dir: Path | None = None,
    catalogue: Mapping[str, CatalogueRow] | None = None,
) -> tuple[ReportProblem, ...]:
    """Every problem of a report, in line order (problems of the whole report first): its
    structure; with `corpus_dir`, its canonical source and document hash against the catalogue
    there (read here unless the caller has read it: `catalogue`, its rows by path, so a command
    validating several reports reads the file once); its snapshot (a fail-closed status is one
    problem); and each retained extract not found in the snapshot's text. An empty tuple means
    valid."""
    try:
        scan = scan_report(path)
    except QuotesRegisterError as exc:
        return (ReportProblem(report=path, line=None, message=str(exc).split(": ", 1)[-1]),)
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
        if catalogue is None:
            catalogue = catalogue_index(corpus_dir)
        row = catalogue.get(source)
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
                data=scan.data,
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
