"""Grounded claims on the real corpus: note parsing and byte-preserving writes, the out-of-process
check, the append-only run ledger, grades read off headers, and the census."""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import CORPUS_DIR, ROOT, STORE, tree_digest
from workbench.cite.index import build_index
from workbench.cli import main
from workbench.derived import code_digest
from workbench.errors import NoteError
from workbench.models import CatalogueRow
from workbench.notes import (
    CheckReport,
    Ledger,
    NoteGrade,
    Quote,
    catalogue_index,
    census,
    check_note,
    check_notes,
    find_quote,
    grade_note,
    note_key,
    parse_note,
    with_pointer,
)
from workbench.workspace import version_from_row

NOTES = ROOT / "notes"
DC = "us-dc/dc-code-34-1432/34-1432@2024-07-30.xml"
EXEMPTION = "dc-34-1432-government-exemption.md"
SRCC = "dc-34-1432-srcc-expansion.md"
JSON_EXPANSION = "http-problem-01-json-expansion.md"


@pytest.fixture
def notes(tmp_path: Path, catalogue: tuple[CatalogueRow, ...]) -> Path:
    folder = tmp_path / "notes"
    shutil.copytree(NOTES, folder, ignore=shutil.ignore_patterns("reports"))
    return folder


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    with Ledger(tmp_path / "ledger.sqlite") as held:
        yield held


def _check(note: Path, ledger: Ledger, against: Path | None = None) -> CheckReport:
    return check_note(note, against=against, corpus_dir=CORPUS_DIR, store=STORE, ledger=ledger)


def _grade(note: Path, ledger: Ledger) -> NoteGrade:
    return grade_note(
        parse_note(note),
        catalogue_index(CORPUS_DIR),
        ledger.runs(note_key(note)),
    )


# ---------------------------------------------------------------------------------------------
# Parsing and writing


@pytest.mark.parametrize("name", sorted(p.name for p in NOTES.glob("*.md")))
def test_pointer_write_touches_only_the_pointer_line(name: str) -> None:
    note = parse_note(NOTES / name)
    written = with_pointer(note, DC)
    again = parse_note(NOTES / name, written)
    assert again.pointer == DC
    assert [(q.text, q.locator) for q in again.quotes] == [(q.text, q.locator) for q in note.quotes]
    assert [f.name for f in again.fields if f.name != "pointer"] == [
        f.name for f in note.fields if f.name != "pointer"
    ]
    if note.pointer is None:
        # Inserted as one line just before the closing '---': every other byte is where it was.
        line = f"pointer: {DC}\n".encode()
        assert written == note.data[: note.header_end] + line + note.data[note.header_end :]
    else:
        cleared = with_pointer(note, None)
        assert cleared.replace(b"pointer:\n", f"pointer: {note.pointer}\n".encode()) == note.data


def test_example_notes_parse_with_their_quotes() -> None:
    note = parse_note(NOTES / SRCC)
    assert [(q.locator, q.occurrence, q.line) for q in note.quotes] == [
        ("§ 34-1432(a-1)(1)", 1, 13),
        ("§ 34-1432(a-1)", None, 20),
    ]
    assert note.quotes[0].text == "the solar collectors used shall be SRCC OG-100 certified"
    assert note.status == "draft" and note.get("origin") == "model" and note.pointer is None


@given(
    body=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200),
    crlf=st.booleans(),
)
def test_pointer_write_preserves_every_other_byte(body: str, crlf: bool) -> None:
    end = "\r\n" if crlf else "\n"
    head = end.join(["---", "title: x", "status: draft", "origin: web", "---", ""])
    data = (head + body.replace("```", "")).encode()
    try:
        note = parse_note(Path("n.md"), data)
    except NoteError:
        return  # a body with a malformed quote block is refused, never rewritten
    written = with_pointer(note, DC)
    assert parse_note(Path("n.md"), written).pointer == DC
    assert written.replace(f"pointer: {DC}{end}".encode(), b"", 1) == data
    assert (
        with_pointer(parse_note(Path("n.md"), written), None).replace(
            f"pointer:{end}".encode(), b"", 1
        )
        == data
    )


GOOD_HEAD = "---\nstatus: draft\norigin: web\n---\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            "status: draft\n", "front matter: line 1 must be '---' to open the header", id="no-open"
        ),
        pytest.param("---\nstatus: draft\n", "front matter: no closing '---' line", id="no-close"),
        pytest.param(
            "---\nstatus draft\n---\n",
            "front matter: line 2: expected 'field: value'",
            id="no-colon",
        ),
        pytest.param(
            f"---\nstatus: draft\norigin: web\npointer: {DC}\npointer: {DC}\n---\n",
            "field pointer: appears twice (lines 4 and 5); a note has at most one",
            id="two-pointers",
        ),
        pytest.param(
            "---\nstatus: final\n---\n",
            "field status: 'final' is not draft or validated",
            id="status",
        ),
        pytest.param(
            "---\norigin: web\n---\n",
            "field status: missing; expected draft or validated",
            id="none",
        ),
        pytest.param(
            "---\nstatus: draft\norigin: memory\n---\n",
            "field origin: 'memory' is not model, web or document",
            id="origin",
        ),
        pytest.param(
            "---\nstatus: draft\n---\n",
            "field origin: a draft note must name its origin (model, web or document)",
            id="draft-no-origin",
        ),
        pytest.param(
            "---\nstatus: validated\nvalidated_at: yesterday\n---\n",
            "field validated_at: 'yesterday' is not an ISO 8601 date or time",
            id="validated-at",
        ),
        pytest.param(
            "---\nstatus: draft\norigin: web\npointer: ../../etc/passwd\n---\n",
            "field pointer: '../../etc/passwd' is not a catalogue path <jurisdiction>/<family>/<file>",
            id="traversal",
        ),
        pytest.param(
            "---\nstatus: draft\norigin: web\npointer: us-dc/nothing/here.xml\n---\n",
            "field pointer: us-dc/nothing/here.xml is not in the catalogue",
            id="outside-catalogue",
        ),
        pytest.param(
            GOOD_HEAD + "\n> quote: words\n",
            "line 6: the quote has no 'locator:' line",
            id="locator",
        ),
        pytest.param(
            GOOD_HEAD + "\n> quote:  - \n> locator: p. 1\n",
            "line 6: the quote is empty; expected verbatim words",
            id="empty-quote",
        ),
        pytest.param(
            GOOD_HEAD + "\n> quote: a\n> locator: p\n> occurrence: 0\n",
            "line 6: occurrence '0' is not a positive integer",
            id="occurrence",
        ),
        pytest.param(
            "\ufeff---\n", "front matter: starts with a byte order mark; expected '---'", id="bom"
        ),
    ],
)
def test_a_bad_note_is_refused_in_one_line_and_nothing_is_written(
    notes: Path, tmp_path: Path, text: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = notes / "bad.md"
    bad.write_bytes(text.encode())
    ledger = tmp_path / "ledger.sqlite"
    before = tree_digest(notes)
    for command in (["grade", str(bad)], ["check", str(bad), "--against", str(STORE / DC)]):
        code = main([*command, "--ledger", str(ledger), "--corpus-dir", str(CORPUS_DIR)])
        assert code == 2
        assert capsys.readouterr().err == f"workbench: error: {bad}: {message}\n"
    # The batch refuses before it checks anything: no note is rewritten, no run recorded.
    assert main(["check", "--all", str(notes), "--ledger", str(ledger)]) == 2
    assert capsys.readouterr().err == f"workbench: error: {bad}: {message}\n"
    assert tree_digest(notes) == before
    with Ledger(ledger) as held:
        assert held.runs() == ()


def test_check_refuses_a_file_outside_the_catalogue(notes: Path, ledger: Ledger) -> None:
    stray = notes / "stray.txt"
    stray.write_text("The standard shall not apply\n")
    before = tree_digest(notes)
    with pytest.raises(NoteError) as info:
        _check(notes / EXEMPTION, ledger, against=stray)
    assert str(info.value) == (
        f"{notes / EXEMPTION}: --against {stray}: {stray.relative_to(stray.parents[2]).as_posix()}"
        " is not in the catalogue"
    )
    assert tree_digest(notes) == before and ledger.runs() == ()


def test_a_batch_of_notes_reads_the_catalogue_once(
    tmp_path: Path, ledger: Ledger, catalogue_reads: list[Path]
) -> None:
    """`check_notes` reads the catalogue once for the whole batch and hands it to each note's
    check (each checking process reads it again, apart from this one)."""
    folder = tmp_path / "batch"
    folder.mkdir()
    for name in (EXEMPTION, SRCC):
        shutil.copy2(NOTES / name, folder / name)
    reports = check_notes(folder, corpus_dir=CORPUS_DIR, store=STORE, ledger=ledger)
    assert [r.note.name for r in reports] == sorted((EXEMPTION, SRCC))
    assert len(ledger.runs()) == 2
    assert catalogue_reads == [CORPUS_DIR]


# ---------------------------------------------------------------------------------------------
# The check, the ledger and the grade transitions


def test_floor_to_middle_to_edited_to_top(notes: Path, ledger: Ledger) -> None:
    note = notes / EXEMPTION
    assert _grade(note, ledger).grade == "floor"

    report = _check(note, ledger, against=STORE / DC)
    run = report.run
    assert (run.outcome, report.pointer_before, report.pointer_after) == ("confirmed", None, DC)
    assert [q["status"] for q in run.quotes] == ["found", "found"]
    # The check ran in another process, which named itself and the workbench source it ran.
    assert run.checker_pid != os.getpid()
    assert run.checker_sha256 == code_digest()
    assert run.document_sha256 == catalogue_index(CORPUS_DIR)[DC].sha256
    grade = _grade(note, ledger)
    assert (grade.grade, grade.pointer, grade.backing_run) == ("middle", DC, run.run)

    # Edit a quoted byte after the passing run: the pointer stays, the run no longer matches.
    data = note.read_bytes()
    note.write_bytes(data.replace(b"January 1, 2024", b"January 1, 2025"))
    edited = _grade(note, ledger)
    assert (edited.grade, edited.backing_run) == ("middle", None)
    assert "evidence missing: no confirmed run matches the note's current quotes" in edited.why[0]

    # Re-checked, the edited quote is missing: no pointer, back to the floor, the gap recorded.
    failed = _check(note, ledger)
    assert (failed.run.outcome, failed.pointer_after) == ("missing", None)
    assert [q["status"] for q in failed.run.missing] == ["missing"]
    assert _grade(note, ledger).grade == "floor"

    note.write_bytes(
        data.replace(b"status: draft", b"status: validated")
        .replace(b"validated_by:\n", b"validated_by: A. Person\n")
        .replace(b"validated_at:\n", b"validated_at: 2026-11-30\n")
    )
    top = _grade(note, ledger)
    assert (top.grade, top.evidence_missing) == ("top", ())


def test_paraphrases_fail_and_leave_no_pointer(notes: Path, ledger: Ledger) -> None:
    for name, missing in [
        (SRCC, "certified by the Solar Rating and Certification Corporation"),
        (JSON_EXPANSION, "a JavaScript Object Notation (JSON) object"),
    ]:
        before = (notes / name).read_bytes()
        report = _check(notes / name, ledger)
        assert (report.run.outcome, report.pointer_after) == ("missing", None)
        assert [q["quote"] for q in report.run.missing] == [missing]
        assert (notes / name).read_bytes() == before
        assert _grade(notes / name, ledger).grade == "floor"


def test_occurrence_rule(notes: Path) -> None:
    row = catalogue_index(CORPUS_DIR)[DC]
    text = version_from_row(row, (STORE / DC).read_bytes()).text
    index = build_index(text)
    words = "the solar collectors used shall be SRCC OG-100 certified"
    base = Quote(text=words, locator="x", occurrence=None, line=1)
    status, spans = find_quote(index, base)
    # The phrase never crosses a line, so a plain count of the raw text must agree.
    assert status == "ambiguous" and len(spans) == text.count(words) > 1
    assert all(text[s:e] == words for s, e in spans)
    for occurrence, expected in [(1, "found"), (len(spans), "found")]:
        named = Quote(text=words, locator="x", occurrence=occurrence, line=1)
        assert find_quote(index, named)[0] == expected
    past = Quote(text=words, locator="x", occurrence=len(spans) + 1, line=1)
    assert find_quote(index, past)[0] == "no_such_occurrence"
    assert (
        find_quote(index, Quote(text="SRCC OG-999", locator="x", occurrence=None, line=1))[0]
        == "missing"
    )


def test_ledger_is_append_only_and_refuses_confirmed_without_quotes(
    ledger: Ledger, notes: Path
) -> None:
    run = _check(notes / EXEMPTION, ledger).run
    conn = sqlite3.connect(ledger.path)
    for sql in ("UPDATE runs SET outcome = 'missing'", "DELETE FROM runs"):
        with pytest.raises(sqlite3.DatabaseError, match="the run ledger is append-only"):
            conn.execute(sql)
    conn.close()
    forged = {
        "quotes_sha256": run.quotes_sha256,
        "document": DC,
        "document_sha256": run.document_sha256,
        "text_sha256": None,
        "extractor": None,
        "outcome": "confirmed",
        "checker": {
            "pid": 1,
            "executable": "x",
            "workbench_version": "0",
            "checker_sha256": "0" * 64,
        },
    }
    for quotes in ([], [{"quote": "q", "status": "missing"}]):
        with pytest.raises(sqlite3.IntegrityError, match="CHECK constraint failed"):
            ledger.append("n.md", {**forged, "quotes": quotes}, "2026-01-01T00:00:00+00:00")
    assert ledger.runs() == (run,)


# ---------------------------------------------------------------------------------------------
# The census


def test_census_lines_on_the_example_base(
    notes: Path, ledger: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = census(notes, corpus_dir=CORPUS_DIR, ledger=ledger).lines()
    assert lines == (
        f"census of {notes}: 11 notes",
        "  top: 2",
        "  middle: 1",
        "  floor: 8",
        "top-grade notes missing an evidence field: 1",
        f"  {notes / 'cip-002-5.1a-applicability.md'}: validated_at",
        "middle-grade pointers with no recorded run behind them (evidence missing): 1",
        f"  {notes / 'dc-34-1432-rps-2011.md'} -> {DC}",
        "floor notes whose last check found quotes missing: 0",
    )
    # Checking the hand-set pointer backs it; a failed check is listed as a gap; census exits 0.
    assert _check(notes / "dc-34-1432-rps-2011.md", ledger).confirmed
    assert not _check(notes / SRCC, ledger).confirmed
    (notes / "broken.md").write_text("no header\n")
    before = tree_digest(notes)
    assert main(["census", str(notes), "--ledger", str(ledger.path)]) == 0
    assert capsys.readouterr().out.splitlines()[-5:] == [
        "middle-grade pointers with no recorded run behind them (evidence missing): 0",
        "floor notes whose last check found quotes missing: 1",
        f"  {notes / SRCC}",
        "notes whose header could not be read: 1",
        f"  {notes / 'broken.md'}: front matter: line 1 must be '---' to open the header",
    ]
    assert tree_digest(notes) == before


def test_a_caveated_ground_is_counted_apart_and_never_top(notes: Path, ledger: Ledger) -> None:
    """A validated note whose backing run found a quote only with a caveat (as a verdict's JSON
    writes caveats) is graded middle, carries the caveat kind, and the census lists it apart; the
    same note backed by a run without caveats (recorded before caveats existed) is top."""
    path = notes / "cip-002-5.1a-purpose.md"
    report = _check(path, ledger)
    assert report.confirmed
    catalogue = catalogue_index(CORPUS_DIR)
    plain = grade_note(parse_note(path), catalogue, ledger.runs(note_key(path)))
    assert (plain.grade, plain.caveats) == ("top", ())
    run = report.run
    caveat = {"kind": "qualifier_omitted", "evidence": [{"char_start": 0, "char_end": 3}]}
    result = {
        "quotes_sha256": run.quotes_sha256,
        "document": run.document,
        "document_sha256": run.document_sha256,
        "text_sha256": run.text_sha256,
        "extractor": run.extractor,
        "outcome": run.outcome,
        "quotes": [{**run.quotes[0], "caveats": [caveat]}, *run.quotes[1:]],
        "checker": {
            "pid": run.checker_pid,
            "executable": run.checker_executable,
            "workbench_version": run.workbench_version,
            "checker_sha256": run.checker_sha256,
        },
    }
    ledger.append(note_key(path), result, run.checked_at)
    graded = grade_note(parse_note(path), catalogue, ledger.runs(note_key(path)))
    assert (graded.grade, graded.caveats) == ("middle", ("qualifier_omitted",))
    assert graded.why[0] == "status validated, but a caveated ground cannot make a top grade"
    assert graded.as_json()["caveats"] == ["qualifier_omitted"]
    lines = census(notes, corpus_dir=CORPUS_DIR, ledger=ledger).lines()
    at = lines.index(
        "notes whose quotes were found only with caveats (never plainly verified; never top): 1"
    )
    assert lines[at + 1] == f"  {path}: qualifier_omitted"
    assert lines[1] == "  top: 1"
