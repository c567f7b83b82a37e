"""The quotes register on real corpus documents: report structure, byte-preserving appends, the
snapshot that fails closed, the two link routes, and the check end to end through `check_note`.

Snapshots are built in temporary folders from `corpus/real` by `write_snapshot`, which refuses
unless they hash to the `snapshot_sha256` the committed reports record."""

from __future__ import annotations

import hashlib
import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import CORPUS_DIR, ROOT, STORE, tree_digest
from workbench.cli import main
from workbench.errors import QuotesRegisterError
from workbench.models import CatalogueRow
from workbench.notes import (
    WRAP_WIDTH,
    CheckReport,
    Ledger,
    ReportProblem,
    add_quote,
    catalogue_index,
    check_linked_quote,
    check_note,
    grade_note,
    new_report,
    note_key,
    parse_note,
    parse_report,
    quotes_sha256,
    read_snapshot,
    snapshot_path,
    validate_report,
    write_snapshot,
)
from workbench.text.normalize import normalized_text
from workbench.workspace import version_from_row

NOTES = ROOT / "notes"
DC = "us-dc/dc-code-34-1432/34-1432@2024-07-30.xml"
DC_OTHER = "us-dc/dc-code-34-1432/34-1432@2024-08-02.xml"
DC_REPORT = "dc-34-1432-2024-07-30.ingest.md"
HTTP_REPORT = "http-problem-01.ingest.md"
# In § 34-1432(c)(1) of the document, and in no retained extract of the DC report.
NOT_RETAINED = "not less than 0.40% from solar energy"
RETAINED = "shall not apply to electricity sold to the District of Columbia government"


@pytest.fixture(scope="module")
def snapshotted(
    tmp_path_factory: pytest.TempPathFactory, catalogue: tuple[CatalogueRow, ...]
) -> Path:
    """`notes/` with its reports, copied once for the module; each report's snapshot written
    from the corpus."""
    folder = tmp_path_factory.mktemp("snapshotted") / "notes"
    shutil.copytree(NOTES, folder, ignore=shutil.ignore_patterns(".snapshots"))
    for report in sorted((folder / "reports").glob("*.ingest.md")):
        write_snapshot(report, corpus_dir=CORPUS_DIR, store=STORE)
    return folder


@pytest.fixture
def base(tmp_path: Path, snapshotted: Path) -> Path:
    """`snapshotted`, copied for the test (which may change any file of it)."""
    return Path(shutil.copytree(snapshotted, tmp_path / "notes"))


@pytest.fixture
def dc(base: Path) -> Path:
    return base / "reports" / DC_REPORT


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    with Ledger(tmp_path / "ledger.sqlite") as held:
        yield held


def _line(text: str, needle: str, nth: int = 1) -> int:
    """The 1-based line number of the `nth` line equal to `needle`."""
    hits = [n for n, line in enumerate(text.split("\n"), start=1) if line == needle]
    return hits[nth - 1]


# ---------------------------------------------------------------------------------------------
# The committed reports and their snapshots


def test_committed_reports_are_valid_with_snapshots_built_from_the_corpus(base: Path) -> None:
    for name in (DC_REPORT, HTTP_REPORT):
        path = base / "reports" / name
        assert validate_report(path, corpus_dir=CORPUS_DIR) == ()
        report = parse_report(path)
        snapshot = read_snapshot(report)
        assert snapshot.status == "ok" and snapshot.sha256 == report.snapshot_sha256
        # The snapshot's text is the text the claims check searches: the extracted document.
        row = catalogue_index(CORPUS_DIR)[report.canonical_source]
        text = version_from_row(row, (STORE / row.path).read_bytes()).text
        assert snapshot.text == text
    dc = parse_report(base / "reports" / DC_REPORT)
    assert [e.location for e in dc.extracts] == ["§ 34-1432(b)(2)", "§ 34-1432(a)"]
    assert parse_report(base / "reports" / HTTP_REPORT).extracts == ()


def test_validating_several_reports_reads_the_catalogue_once(
    base: Path, catalogue_reads: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """`quotes validate` of several reports reads the catalogue once and checks each report's
    source against that read."""
    paths = [str(base / "reports" / name) for name in (DC_REPORT, HTTP_REPORT)]
    assert main(["quotes", "validate", *paths, "--corpus-dir", str(CORPUS_DIR)]) == 0
    said = capsys.readouterr().out.splitlines()
    assert [line.split(": ")[:2] for line in said] == [[path, "valid"] for path in paths]
    assert catalogue_reads == [CORPUS_DIR]


def test_write_snapshot_writes_nothing_when_the_bytes_are_held(dc: Path) -> None:
    done = write_snapshot(dc, corpus_dir=CORPUS_DIR, store=STORE)
    assert (done.written, done.path) == (False, snapshot_path(dc))


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        pytest.param(
            "snapshot_sha256",
            "0" * 64,
            "field snapshot_sha256: the snapshot built from {source} hashes to {actual}, not the "
            "recorded {value}; the recorded value is immutable, nothing written",
            id="recorded-hash-immutable",
        ),
        pytest.param(
            "document_sha256",
            "1" * 64,
            "field document_sha256: {value} is not the catalogued {catalogued} of {source}; "
            "changed source bytes are a new observation and need a new report",
            id="other-observation",
        ),
    ],
)
def test_write_snapshot_refuses_bytes_the_report_does_not_record(
    dc: Path, field: str, value: str, message: str
) -> None:
    report = parse_report(dc)
    held = getattr(report, field)
    dc.write_bytes(dc.read_bytes().replace(held.encode(), value.encode()))
    snapshot_path(dc).unlink()
    with pytest.raises(QuotesRegisterError) as info:
        write_snapshot(dc, corpus_dir=CORPUS_DIR, store=STORE)
    expected = message.format(
        source=DC,
        actual=report.snapshot_sha256,
        value=value,
        catalogued=report.document_sha256,
    )
    assert str(info.value) == f"{dc}: {expected}"
    assert not snapshot_path(dc).exists()


def test_new_report_writes_a_valid_skeleton_and_never_overwrites(tmp_path: Path) -> None:
    folder = tmp_path / "reports"
    report = new_report(folder, "dc-2024-08-02", DC_OTHER, corpus_dir=CORPUS_DIR, store=STORE)
    assert report.path == folder / "dc-2024-08-02.ingest.md"
    assert report.extracts == () and report.empty_span is not None
    assert read_snapshot(report).status == "ok"
    assert validate_report(report.path, corpus_dir=CORPUS_DIR) == ()
    before = tree_digest(folder)
    with pytest.raises(QuotesRegisterError, match="already exists; a report is never overwritten"):
        new_report(folder, "dc-2024-08-02", DC, corpus_dir=CORPUS_DIR, store=STORE)
    for slug in ("../escape", "Upper", "a/b", ""):
        with pytest.raises(QuotesRegisterError, match="expected lowercase letters"):
            new_report(folder, slug, DC, corpus_dir=CORPUS_DIR, store=STORE)
    with pytest.raises(QuotesRegisterError, match="not in the catalogue"):
        new_report(folder, "x", "us-dc/none/x.xml", corpus_dir=CORPUS_DIR, store=STORE)
    assert tree_digest(folder) == before


# ---------------------------------------------------------------------------------------------
# Structure


SECTION = "## Quotes"
NEXT = "## Connections Found"
LABEL = "Source extract (verbatim):"
EMPTY = "No source quotes have been retained yet."


def _structure_cases() -> list[object]:
    """(edit of the DC report's text, expected problems as (needle line, message)) where the
    needle names the line a problem is reported on."""
    return [
        pytest.param(
            lambda t: t.replace(NEXT, f"{SECTION}\n\n{EMPTY}\n\n{NEXT}"),
            [
                (
                    (SECTION, 1),
                    "'## Quotes' is followed by '## Quotes' on line {line}; expected "
                    "'## Connections Found' immediately after it",
                ),
                (
                    (SECTION, 2),
                    "a second '## Quotes' section (the first is on line {first}); a source report "
                    "holds exactly one",
                ),
            ],
            id="two-quotes-sections",
        ),
        pytest.param(
            lambda t: t.replace(NEXT, f"## Limitations\n\nNone.\n\n{NEXT}"),
            [
                (
                    (SECTION, 1),
                    "'## Quotes' is followed by '## Limitations' on line {next}; expected "
                    "'## Connections Found' immediately after it",
                )
            ],
            id="not-before-connections",
        ),
        pytest.param(
            lambda t: t.replace(
                "Source location: § 34-1432(a)\n",
                "Source location: § 34-1432(a)\n\nThis one matters most.\n",
            ),
            [
                (
                    ("This one matters most.", 1),
                    "stray text in the Quotes section: 'This one matters most.'; expected only "
                    "extract and location pairs",
                )
            ],
            id="stray-text",
        ),
        pytest.param(
            lambda t: t.replace("\nSource location: § 34-1432(b)(2)\n", ""),
            [((LABEL, 1), "the source extract has no 'Source location:' line after it")],
            id="extract-without-location",
        ),
        pytest.param(
            lambda t: t.replace(f"{SECTION}\n", f"{SECTION}\n\n{EMPTY}\n"),
            [
                (
                    (EMPTY, 1),
                    "'No source quotes have been retained yet.' stands beside 2 retained "
                    "extract(s); it belongs only in an empty section",
                )
            ],
            id="empty-sentence-with-pairs",
        ),
        pytest.param(
            lambda t: t.replace("section.\n\nSource location", "section.\nSource location"),
            [
                (
                    ("Source location: § 34-1432(a)", 1),
                    "expected a blank line between the extract and 'Source location:'",
                )
            ],
            id="location-folded-into-the-blockquote",
        ),
        pytest.param(
            lambda t: t.replace(f"{LABEL}\n> (a)", "> (a)"),
            [
                (
                    (
                        "> (a) The Commission shall implement a renewable energy portfolio standard "
                        "which applies to all",
                        1,
                    ),
                    "a '>' line with no 'Source extract (verbatim):' line before it; expected "
                    "only extract and location pairs",
                ),
                (
                    (
                        "> District of Columbia retail electricity sales, except as provided under "
                        "subsection (b) of this",
                        1,
                    ),
                    "a '>' line with no 'Source extract (verbatim):' line before it; expected "
                    "only extract and location pairs",
                ),
                (
                    ("> section.", 1),
                    "a '>' line with no 'Source extract (verbatim):' line before it; expected "
                    "only extract and location pairs",
                ),
                (
                    ("Source location: § 34-1432(a)", 1),
                    "'Source location:' with no source extract before it; expected only extract "
                    "and location pairs",
                ),
            ],
            id="extract-without-label-reports-every-line",
        ),
        pytest.param(
            lambda t: t[: t.index(LABEL)] + t[t.index(NEXT) :],
            [
                (
                    (SECTION, 1),
                    "the Quotes section is empty; expected extract and location pairs or "
                    "'No source quotes have been retained yet.'",
                )
            ],
            id="empty-section",
        ),
        pytest.param(
            lambda t: t.replace("snapshot_sha256: c6", "snapshot_sha256: C6"),
            [
                (
                    (
                        "snapshot_sha256: C6b0f7c5f879bb5e934ec93b4cf03626f7e3ceb95707a54fbf4666a41e5630ff",
                        1,
                    ),
                    "field snapshot_sha256: 'C6b0f7c5f879bb5e934ec93b4cf03626f7e3ceb95707a54fbf4666a41e5630ff' "
                    "is not a SHA-256 (64 lowercase hex digits)",
                )
            ],
            id="hash-field",
        ),
    ]


@pytest.mark.parametrize(("edit", "expected"), _structure_cases())
def test_structure_problems_are_all_reported_with_their_lines(
    dc: Path,
    edit: object,
    expected: list[tuple[tuple[str, int], str]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = edit(dc.read_text(encoding="utf-8"))  # type: ignore[operator]
    dc.write_text(text, encoding="utf-8")
    marks = {
        "line": _line(text, SECTION, 2) if text.count(f"\n{SECTION}\n") > 1 else 0,
        "first": _line(text, SECTION),
        "next": _line(text, "## Limitations") if "## Limitations" in text else 0,
    }
    wanted = sorted(
        (
            ReportProblem(report=dc, line=_line(text, *needle), message=message.format(**marks))
            for needle, message in expected
        ),
        key=lambda p: p.line or 0,
    )
    assert list(validate_report(dc)) == wanted
    # Parsing stops at the first problem, and says how many more there are.
    more = len(wanted) - 1
    suffix = f" (and {more} more; run 'workbench quotes validate')" if more else ""
    with pytest.raises(QuotesRegisterError) as info:
        parse_report(dc)
    assert str(info.value) == f"{wanted[0]}{suffix}"
    # The command prints one line per problem and exits 1.
    assert main(["quotes", "validate", str(dc), "--corpus-dir", str(CORPUS_DIR)]) == 1
    assert capsys.readouterr().out.splitlines() == [str(p) for p in wanted]


def test_headings_inside_fenced_code_do_not_count(dc: Path) -> None:
    text = dc.read_text(encoding="utf-8")
    fenced = "```markdown\n## Quotes\n## Connections Found\n```\n\n"
    dc.write_text(text.replace("## Summary\n", fenced + "## Summary\n"), encoding="utf-8")
    assert validate_report(dc) == ()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param(b"\xff---\n", "byte 0: not UTF-8", id="not-utf8"),
        pytest.param(
            b"\xef\xbb\xbf---\n",
            "front matter: starts with a byte order mark; expected '---'",
            id="bom",
        ),
        pytest.param(
            b"# no header\n",
            "line 1: front matter: line 1 must be '---' to open the header",
            id="no-header",
        ),
        pytest.param(
            b"---\ncanonical_source: a/b/c\n---\n\n## Quotes\n\n"
            + EMPTY.encode()
            + b"\n\n## Connections Found\n",
            "field document_sha256: missing; a source report records it",
            id="missing-field",
        ),
    ],
)
def test_unreadable_reports_are_one_problem_each(tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "bad.ingest.md"
    path.write_bytes(data)
    problems = validate_report(path)
    assert str(problems[0]) == f"{path}: {message}"
    with pytest.raises(QuotesRegisterError):
        parse_report(path)


# ---------------------------------------------------------------------------------------------
# Appending


def test_append_preserves_every_byte_outside_the_insertion_point(dc: Path) -> None:
    before = parse_report(dc)
    data = dc.read_bytes()
    extract = "(3) The District of Columbia government shall not purchase renewable energy credits"
    added = add_quote(dc, extract, "§ 34-1432(b)(3)")
    written = dc.read_bytes()
    inserted = f"\n{LABEL}\n> {extract}\n\nSource location: § 34-1432(b)(3)\n".encode()
    assert written == data[: before.insert_at] + inserted + data[before.insert_at :]
    after = parse_report(dc)
    assert after.extracts[:-1] == before.extracts  # incumbents untouched, lines included
    assert after.extracts[-1] == added and added.text == extract
    assert validate_report(dc, corpus_dir=CORPUS_DIR) == ()
    # A second append goes after the first, again touching nothing else.
    add_quote(
        dc, "(c) The renewable energy portfolio standard shall be as follows:", "§ 34-1432(c)"
    )
    assert dc.read_bytes().startswith(written[: after.insert_at])
    assert dc.read_bytes().endswith(written[after.insert_at :])


def test_first_append_replaces_the_empty_sentence_only(base: Path) -> None:
    path = base / "reports" / HTTP_REPORT
    data = path.read_bytes()
    start, end = parse_report(path).empty_span or (0, 0)
    assert data[start:end] == EMPTY.encode()
    # The line break inside "machine-⏎readable" is the source's; the extract may join the word.
    extract = 'This document defines a "problem detail" as a way to carry machine-readable details'
    add_quote(path, extract, "Abstract, page 1")
    block = f"{LABEL}\n> {extract}\n\nSource location: Abstract, page 1".encode()
    assert path.read_bytes() == data[:start] + block + data[end:]
    assert validate_report(path, corpus_dir=CORPUS_DIR) == ()


def test_a_long_extract_is_wrapped_at_spaces_and_reads_back_the_same(dc: Path) -> None:
    extract = (
        "(b) (1) If the standard becomes applicable to electricity sold to a customer after the "
        "start of a calendar year, the standard shall not apply to electricity sold to the "
        "customer during that portion of the year before the standard became applicable."
    )
    added = add_quote(dc, extract, "§ 34-1432(b)(1)")
    lines = added.text.split("\n")
    assert len(lines) > 1 and all(len(line) <= WRAP_WIDTH for line in lines)
    assert " ".join(lines) == extract


@pytest.mark.parametrize(
    ("extract", "location", "message"),
    [
        pytest.param(
            "The standard shall not apply to electricity sold to the District government until 2029",
            "§ 34-1432(b)(2)",
            "extract 'The standard shall not apply to electricity sold to the District government unti' "
            f"is not in the snapshot of {DC} (exact search after normalization); nothing written",
            id="paraphrase",
        ),
        pytest.param(" - ", "x", "the extract is empty; expected verbatim words", id="empty"),
        pytest.param(
            "The Commission\rshall",
            "x",
            "the extract holds a line break other than a newline; write a space or a newline "
            "(the normalization folds either)",
            id="carriage-return",
        ),
        pytest.param(
            "The Commission",
            "a\nb",
            "the location must be one line saying where the extract stands",
            id="two-line-location",
        ),
        pytest.param(
            "The Commission",
            "  ",
            "the location must be one line saying where the extract stands",
            id="no-location",
        ),
    ],
)
def test_a_refused_append_writes_nothing(
    dc: Path, extract: str, location: str, message: str
) -> None:
    before = tree_digest(dc.parent)
    with pytest.raises(QuotesRegisterError) as info:
        add_quote(dc, extract, location)
    assert str(info.value) == f"{dc}: {message}"
    assert tree_digest(dc.parent) == before


@pytest.mark.parametrize(
    ("extract", "location", "code", "said"),
    [
        pytest.param(
            "words no snapshot holds anywhere", "here", 1, "refused: ", id="not-found-refused"
        ),
        pytest.param("The Commission", "a\nb", 2, "error: ", id="bad-location-unusable"),
    ],
)
def test_quotes_add_exits_as_the_readme_says(
    dc: Path,
    capsys: pytest.CaptureFixture[str],
    extract: str,
    location: str,
    code: int,
    said: str,
) -> None:
    """A refused extract is exit 1 (the command ran and refused); an unusable argument is 2."""
    before = tree_digest(dc.parent)
    assert main(["quotes", "add", str(dc), "--extract", extract, "--location", location]) == code
    err = capsys.readouterr().err
    assert err.startswith(f"workbench: {said}{dc}: ") and err.count("\n") == 1
    assert tree_digest(dc.parent) == before


# ---------------------------------------------------------------------------------------------
# The snapshot fails closed, one status per way


def _break_missing(report: Path) -> None:
    snapshot_path(report).unlink()


def _break_hash(report: Path) -> None:
    snapshot = snapshot_path(report)
    snapshot.write_bytes(snapshot.read_bytes().replace(b"2028", b"2029"))


def _break_source(report: Path) -> None:
    # The snapshot's bytes still hash to the recorded value; the report now names another source.
    report.write_bytes(report.read_bytes().replace(DC.encode(), DC_OTHER.encode()))


def _break_utf8(report: Path) -> None:
    snapshot = snapshot_path(report)
    data = snapshot.read_bytes() + b"\xff\xfe"
    snapshot.write_bytes(data)
    held = parse_report(report).snapshot_sha256
    report.write_bytes(
        report.read_bytes().replace(held.encode(), hashlib.sha256(data).hexdigest().encode())
    )


def _break_folder(report: Path) -> None:
    snapshot = snapshot_path(report)
    snapshot.unlink()
    snapshot.mkdir()


@pytest.mark.parametrize(
    ("damage", "status"),
    [
        pytest.param(_break_missing, "snapshot_missing", id="missing"),
        pytest.param(_break_hash, "snapshot_sha256_mismatch", id="hash-mismatch"),
        pytest.param(_break_source, "snapshot_source_mismatch", id="canonical-source-mismatch"),
        pytest.param(_break_utf8, "snapshot_unreadable", id="invalid-utf8"),
        pytest.param(_break_folder, "snapshot_unreadable", id="not-a-file"),
    ],
)
def test_the_snapshot_route_fails_closed(dc: Path, damage: object, status: str) -> None:
    assert check_linked_quote(dc, RETAINED, None, snapshot_required=True).status == "found"
    damage(dc)  # type: ignore[operator]
    check = check_linked_quote(dc, RETAINED, None, snapshot_required=True)
    assert (check.route, check.status, check.spans) == ("snapshot", status, ())
    # Validation names the same status; appending refuses and writes nothing.
    problems = validate_report(dc)
    assert [p.message.split(":")[0] for p in problems] == [status]
    before = tree_digest(dc.parent)
    with pytest.raises(QuotesRegisterError, match=f": {status}: .*; nothing written$"):
        add_quote(dc, RETAINED, "§ 34-1432(b)(2)")
    assert tree_digest(dc.parent) == before
    # The ordinary route never reads the snapshot: the retained extracts still back the quote.
    assert check_linked_quote(dc, RETAINED, None, snapshot_required=False).status == "found"


# ---------------------------------------------------------------------------------------------
# The two routes


def test_the_ordinary_route_reads_only_the_retained_extracts(dc: Path) -> None:
    # In the snapshot (and the document), but not retained: the ordinary route fails.
    assert check_linked_quote(dc, NOT_RETAINED, None, snapshot_required=True).status == "found"
    check = check_linked_quote(dc, NOT_RETAINED, None, snapshot_required=False)
    assert (check.route, check.status, check.extracts) == ("quotes", "not_retained", ())
    # Words of the report's own analysis are not source support either.
    analysis = "a yearly schedule of tier one, tier two and solar shares"
    assert analysis in dc.read_text(encoding="utf-8")
    assert check_linked_quote(dc, analysis, None, snapshot_required=False).status == "not_retained"
    # Retained: found, in the first extract; normalized (line breaks fold), exact.
    found = check_linked_quote(
        dc, RETAINED.replace(" the District", "\nthe District"), None, snapshot_required=False
    )
    assert (found.status, found.extracts) == ("found", (1,))
    near = RETAINED.replace("Columbia", "Colombia")
    assert check_linked_quote(dc, near, None, snapshot_required=False).status == "not_retained"


def test_the_snapshot_route_applies_the_occurrence_rule(dc: Path) -> None:
    phrase = "the solar collectors used shall be SRCC OG-100 certified"
    check = check_linked_quote(dc, phrase, None, snapshot_required=True)
    assert check.status == "ambiguous" and len(check.spans) > 1
    text = read_snapshot(parse_report(dc)).text or ""
    assert all(text[s:e] == phrase for s, e in check.spans)
    assert check_linked_quote(dc, phrase, 2, snapshot_required=True).status == "found"
    past = check_linked_quote(dc, phrase, len(check.spans) + 1, snapshot_required=True)
    assert past.status == "no_such_occurrence"


# ---------------------------------------------------------------------------------------------
# The check, end to end


QUOTES_ROUTE = "dc-34-1432-quotes-route.md"
NOT_RETAINED_NOTE = "dc-34-1432-not-retained.md"
SNAPSHOT_ROUTE = "http-problem-01-snapshot-route.md"


def _check(note: Path, ledger: Ledger) -> CheckReport:
    return check_note(note, against=None, corpus_dir=CORPUS_DIR, store=STORE, ledger=ledger)


def test_check_note_confirms_linked_quotes_on_their_routes(base: Path, ledger: Ledger) -> None:
    quotes_route = _check(base / QUOTES_ROUTE, ledger)
    assert (quotes_route.run.outcome, quotes_route.pointer_after) == ("confirmed", DC)
    [entry] = quotes_route.run.quotes
    assert {k: entry[k] for k in ("route", "report", "status", "extracts", "canonical_source")} == {
        "route": "quotes",
        "report": note_key(base / "reports" / DC_REPORT),
        "status": "found",
        "extracts": [1],
        "canonical_source": DC,
    }
    grade = grade_note(
        parse_note(base / QUOTES_ROUTE),
        catalogue_index(CORPUS_DIR),
        ledger.runs(note_key(base / QUOTES_ROUTE)),
    )
    assert (grade.grade, grade.backing_run) == ("middle", quotes_route.run.run)

    failed = _check(base / NOT_RETAINED_NOTE, ledger)
    assert (failed.run.outcome, failed.pointer_after) == ("missing", None)
    assert [(q["route"], q["status"]) for q in failed.run.missing] == [("quotes", "not_retained")]

    snapshot_route = _check(base / SNAPSHOT_ROUTE, ledger)
    assert snapshot_route.confirmed
    [entry] = snapshot_route.run.quotes
    assert (entry["route"], entry["status"], len(entry["spans"])) == ("snapshot", "found", 1)


def test_a_missing_snapshot_fails_closed_through_the_check(base: Path, ledger: Ledger) -> None:
    note = base / SNAPSHOT_ROUTE
    assert _check(note, ledger).pointer_after is not None
    snapshot_path(base / "reports" / HTTP_REPORT).unlink()
    # The document itself is held and holds the words; the check still does not fall back to it.
    report = _check(note, ledger)
    assert (report.run.outcome, report.pointer_before, report.pointer_after) == (
        "missing",
        report.run.document,
        None,
    )
    assert [q["status"] for q in report.run.missing] == ["snapshot_missing"]
    # Restoring the exact snapshot restores the verdict.
    write_snapshot(base / "reports" / HTTP_REPORT, corpus_dir=CORPUS_DIR, store=STORE)
    assert _check(note, ledger).confirmed


def test_a_changed_route_leaves_the_old_run_behind(base: Path, ledger: Ledger) -> None:
    note = base / QUOTES_ROUTE
    run = _check(note, ledger).run
    data = note.read_bytes()
    note.write_bytes(data.replace(b"[retained extract]", b"[retained extract (snapshot required)]"))
    grade = grade_note(
        parse_note(note),
        catalogue_index(CORPUS_DIR),
        ledger.runs(note_key(note)),
    )
    assert grade.grade == "middle" and grade.backing_run is None
    assert run.quotes_sha256 != quotes_sha256(parse_note(note).quotes)


@pytest.mark.parametrize(
    ("link", "message"),
    [
        pytest.param(
            "reports/nothing.ingest.md",
            "{reports}/nothing.ingest.md: no such source report",
            id="missing",
        ),
        pytest.param(
            "/etc/x.ingest.md",
            "{note}: line 14: link '/etc/x.ingest.md' is not a relative path to a source report",
            id="absolute",
        ),
        pytest.param(
            "https://example.org/x.ingest.md",
            "{note}: line 14: link 'https://example.org/x.ingest.md' is not a relative path to a source report",
            id="url",
        ),
    ],
)
def test_a_bad_report_link_is_refused_before_anything_is_written(
    base: Path, ledger: Ledger, link: str, message: str
) -> None:
    note = base / QUOTES_ROUTE
    note.write_bytes(
        note.read_bytes().replace(b"reports/dc-34-1432-2024-07-30.ingest.md", link.encode())
    )
    before = tree_digest(base)
    with pytest.raises(QuotesRegisterError) as info:
        _check(note, ledger)
    assert str(info.value) == message.format(note=note, reports=base / "reports")
    assert tree_digest(base) == before and ledger.runs() == ()


def test_a_malformed_linked_report_stops_the_check(base: Path, ledger: Ledger) -> None:
    report = base / "reports" / DC_REPORT
    report.write_bytes(report.read_bytes().replace(b"## Connections Found", b"## Links"))
    before = tree_digest(base)
    with pytest.raises(QuotesRegisterError, match="expected '## Connections Found' immediately"):
        _check(base / QUOTES_ROUTE, ledger)
    assert tree_digest(base) == before and ledger.runs() == ()


def test_the_docs_example_is_the_committed_report() -> None:
    readme = (ROOT / "docs" / "claims.md").read_text(encoding="utf-8")
    block = readme.split("<!-- quotes-register-example -->\n```markdown\n", 1)[1].split("```\n", 1)[
        0
    ]
    assert block == (NOTES / "reports" / DC_REPORT).read_text(encoding="utf-8")
    assert parse_report(NOTES / "reports" / DC_REPORT, block.encode()).extracts


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_appending_slices_of_the_source_keeps_every_other_byte(dc: Path, crlf: bool) -> None:
    """Twenty slices of the snapshot's own text (any offsets, line breaks included), appended one
    after another: each append inserts one block at the previous end of the section, in the
    report's own line ending, and every earlier pair reads back unchanged."""
    if crlf:
        dc.write_bytes(dc.read_bytes().replace(b"\n", b"\r\n"))
    text = read_snapshot(parse_report(dc)).text or ""
    pick = random.Random(6)
    appended = 0
    while appended < 20:
        start = pick.randrange(len(text) - 400)
        extract = text[start : start + pick.randrange(20, 400)]
        if not normalized_text(extract).strip(" -") or "\r" in extract:
            continue
        before = parse_report(dc)
        data = dc.read_bytes()
        added = add_quote(dc, extract, f"offset {start}")
        written = dc.read_bytes()
        assert written.startswith(data[: before.insert_at])
        assert written.endswith(data[before.insert_at :])
        block = written[before.insert_at : len(written) - (len(data) - before.insert_at)]
        assert block.startswith(b"\r\n" if crlf else b"\n") and block.endswith(
            b"\r\n" if crlf else b"\n"
        )
        if crlf:
            assert b"\n" not in block.replace(b"\r\n", b"")
        after = parse_report(dc)
        assert after.extracts[:-1] == before.extracts and after.extracts[-1] == added
        assert normalized_text(added.text) == normalized_text(extract.strip())
        appended += 1
    assert validate_report(dc) == ()
