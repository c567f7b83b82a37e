"""Citations through time on real D.C. Code releases: cite a quote (and verify the citation back),
date it across a family's versions, and recheck recorded quotes in newer versions, notes through
the ledger and the census.

The quotes are found by code, with a plain test that does not use the workbench's search (white
space folded, `str.count`): a sentence that several releases hold and a later one does not, and
one that a later release holds twice.
"""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest

from tests.conftest import CORPUS_DIR, STORE
from workbench.cite.w3c import source_iri
from workbench.cli import main
from workbench.errors import ChecksumMismatch
from workbench.history import dating as timeline
from workbench.history import recheck
from workbench.models import Version
from workbench.notes import Ledger, census, check_note, note_key, parse_note
from workbench.text.normalize import normalized_text
from workbench.wording import counted
from workbench.workspace import Workspace

_SENTENCE_END = re.compile(r"(?<=[.;])\s+")
Dropped = tuple[str, tuple[Version, ...], list[int]]  # a sentence, its family, its counts


def _folded(text: str) -> str:
    return " ".join(text.split())


def _sentences(version: Version, shortest: int = 60) -> Iterator[str]:
    for sentence in _SENTENCE_END.split(version.text):
        folded = _folded(sentence)
        if shortest <= len(folded) <= 300:
            yield folded


def _dc_families(held_versions: tuple[Version, ...]) -> list[str]:
    return sorted({v.family for v in held_versions if v.jurisdiction == "us-dc"})


@pytest.fixture(scope="module")
def dropped(workspace: Workspace, held_versions: tuple[Version, ...]) -> Dropped:
    """A sentence of a D.C. family's first release that every release but the latest holds (each
    once: at least two in a row), the family's releases, and the counts in each release. The
    latest release is the one amendment that removed it, so a note into the release before it
    is rechecked in one separate process."""
    for family in _dc_families(held_versions):
        versions = workspace.versions(family)
        texts = [_folded(v.text) for v in versions]
        for sentence in _sentences(versions[0]):
            counts = [text.count(sentence) for text in texts]
            if counts[:2] == [1, 1] and counts[-2:] == [1, 0] and set(counts) == {1, 0}:
                return sentence, versions, counts
    raise AssertionError("no latest D.C. release drops a sentence every earlier one holds")


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ---------------------------------------------------------------------------------------------
# cite


def test_cite_makes_a_citation_verify_reads_back_as_verified(
    workspace: Workspace,
    dropped: Dropped,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    quote, versions, _ = dropped
    version = versions[0]
    ws = ["--workspace", str(workspace.path)]
    code, out, _ = _run(["cite", quote, "--version", version.version_id, "--json", *ws], capsys)
    assert code == 0
    record = json.loads(out)
    assert set(record) == {"version_id", "char_start", "char_end", "quoted_text"}
    assert normalized_text(version.text[record["char_start"] : record["char_end"]]) == quote
    cited = tmp_path / "cited.jsonl"
    cited.write_text(out, encoding="utf-8")
    code, out, _ = _run(["verify", str(cited), "--json", *ws], capsys)
    assert code == 0 and json.loads(out)["outcome"] == "verified"
    # The same quote read from stdin, as a W3C Web Annotation, verifies in that format too.
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((quote + "\n").encode())))
    code, out, _ = _run(
        ["cite", "-", "--version", version.version_id, "--format", "w3c", *ws], capsys
    )
    assert code == 0
    annotation = json.loads(out)
    source = annotation["target"]["source"]
    assert (source["id"], source["version_id"]) == (
        source_iri(version.text_sha256),
        version.version_id,
    )
    cited.write_text(out, encoding="utf-8")
    code, out, _ = _run(["verify", str(cited), "--format", "w3c", "--json", *ws], capsys)
    assert code == 0 and json.loads(out)["outcome"] == "verified"


def test_a_quote_held_many_times_lists_ten_and_a_named_one_prints_alone(
    workspace: Workspace, capsys: pytest.CaptureFixture[str], held_versions: tuple[Version, ...]
) -> None:
    version = workspace.versions(_dc_families(held_versions)[0])[0]
    counts = {
        w: len(re.findall(rf"\b{w}\b", version.text))
        for w in re.findall(r"[a-z]{3,}", version.text)
    }
    word = max(counts, key=lambda w: (counts[w], w))
    n = len(timeline.cite_quote(workspace, word, version.version_id).occurrences)
    assert n > timeline.LISTED_OCCURRENCES
    ws = ["--workspace", str(workspace.path)]
    code, out, _ = _run(["cite", word, "--version", version.version_id, *ws], capsys)
    assert code == 1
    assert sum(line.startswith("  occurrence ") for line in out.splitlines()) == 10
    assert f"… and {n - timeline.LISTED_OCCURRENCES} more (every one: --json)" in out
    code, out, _ = _run(
        ["cite", word, "--version", version.version_id, "--occurrence", "3", *ws], capsys
    )
    assert code == 0
    assert [line for line in out.splitlines() if "occurrence " in line and " of " in line] == [
        next(line for line in out.splitlines() if line.startswith(" *occurrence 3 of "))
    ]


MACHINE_READ_SCAN = "puct-49421-item80-cehe-response-to-tiec-rfi-set1"


def test_a_quote_refused_in_machine_read_text_names_the_reading_and_the_page_image(
    workspace: Workspace, capsys: pytest.CaptureFixture[str], held_versions: tuple[Version, ...]
) -> None:
    """A quote that is not in an OCR'd version is refused as ever; the refusal says the text
    there is a machine's reading, shows the nearest words (never evidence) and gives the
    command that draws them on the page image."""
    version = next(
        v
        for v in workspace.versions(MACHINE_READ_SCAN)
        if (o := workspace.text_origins(v.version_id)) and any(r.origin == "ocr" for r in o.runs)
    )
    origins = workspace.text_origins(version.version_id)
    assert origins is not None
    run = next(r for r in origins.runs if r.origin == "ocr")
    words = re.search(
        r"(?:[A-Za-z]{4,} ){5}[A-Za-z]{4,}", version.text[run.char_start : run.char_end]
    )
    assert words is not None
    real = words.group()
    misread = (
        real[:-2] + ("x" if real[-2] != "x" else "y") + real[-1]
    )  # one letter a scan got wrong
    cited = timeline.cite_quote(workspace, misread, version.version_id)
    assert cited.status == "not_found" and cited.nearest is not None
    near = cited.nearest
    assert version.text[near.char_start : near.char_end] == near.text
    assert real in near.text and near.origins == ("ocr",)
    ws = ["--workspace", str(workspace.path)]
    code, out, _ = _run(["cite", misread, "--version", version.version_id, *ws], capsys)
    assert code == 1
    assert "its text there was read by a machine (ocr), not drawn by the filing" in out
    assert f"workbench show {version.version_id} --span {near.char_start}:{near.char_end}" in out
    code, out, _ = _run(["cite", misread, "--version", version.version_id, "--json", *ws], capsys)
    shown = json.loads(out)["nearest_machine_read"]
    assert shown["is_evidence"] is False and shown["text"] == near.text
    # A version of glyphs only gives no such reading.
    plain = workspace.versions(_dc_families(held_versions)[0])[0]
    assert timeline.cite_quote(workspace, misread, plain.version_id).nearest is None


def test_several_occurrences_are_refused_until_one_is_named(
    workspace: Workspace,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    held_versions: tuple[Version, ...],
) -> None:
    version = workspace.versions(_dc_families(held_versions)[0])[0]
    words = re.findall(r"[A-Za-z]{5,}", version.text)
    word = next(w for w in words if len(re.findall(rf"\b{w}\b", version.text)) >= 3)
    cited = timeline.cite_quote(workspace, word, version.version_id)
    assert cited.status == "ambiguous" and cited.citation is None
    assert len(cited.occurrences) >= 3
    for o in cited.occurrences:
        assert version.text[o.char_start : o.char_end] == word
        assert o.section_path  # every D.C. passage sits under its section
    ws = ["--workspace", str(workspace.path)]
    code, out, _ = _run(["cite", word, "--version", version.version_id, *ws], capsys)
    assert code == 1
    assert out.startswith(f"refused: the quote occurs {len(cited.occurrences)} times in ")
    code, out, _ = _run(
        ["cite", word, "--version", version.version_id, "--occurrence", "2", "--json", *ws],
        capsys,
    )
    assert code == 0
    record = json.loads(out)
    second = cited.occurrences[1]
    assert (record["char_start"], record["char_end"], record["occurrence"]) == (
        second.char_start,
        second.char_end,
        2,
    )
    (tmp_path / "c.jsonl").write_text(out, encoding="utf-8")
    code, out, _ = _run(["verify", str(tmp_path / "c.jsonl"), *ws], capsys)
    assert code == 0 and out.startswith("line 1: verified: ")
    past = str(len(cited.occurrences) + 1)
    code, out, _ = _run(
        ["cite", word, "--version", version.version_id, "--occurrence", past, "--json", *ws],
        capsys,
    )
    assert code == 1 and json.loads(out)["status"] == "no_such_occurrence"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(
            ["cite", " - ", "--version", "us-dc/x/y.xml"],
            "workbench: error: quote ' - ': holds no words once normalized; expected verbatim "
            "words",
            id="empty-quote",
        ),
        pytest.param(
            ["cite", "shall", "--version", "us-dc/no/such.xml"],
            "workbench: error: us-dc/no/such.xml: no such version in",
            id="unknown-version",
        ),
        pytest.param(
            ["cite", "shall", "--version", "us-dc/no/such.xml", "--occurrence", "0"],
            "workbench: error: occurrence 0: expected a positive integer",
            id="occurrence-zero",
        ),
        pytest.param(
            ["history", "shall", "--family", "no-such-family"],
            "workbench: error: no-such-family: no such family in",
            id="unknown-family",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    workspace: Workspace, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run([*argv, "--workspace", str(workspace.path)], capsys)
    assert code == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1


# ---------------------------------------------------------------------------------------------
# history


def test_history_dates_a_real_quote_across_dc_code_releases(
    workspace: Workspace,
    dropped: Dropped,
    capsys: pytest.CaptureFixture[str],
) -> None:
    quote, versions, counts = dropped
    life = timeline.quote_history(workspace, quote, versions[0].family)
    assert [h.version_id for h in life.versions] == [v.version_id for v in versions]
    assert [len(h.occurrences) for h in life.versions] == counts
    holding = [v.version_id for v, n in zip(versions, counts, strict=True) if n]
    assert (life.first_holding, life.last_holding, life.latest_holds) == (
        holding[0],
        holding[-1],
        False,
    )
    for version, held in zip(versions, life.versions, strict=True):
        for o in held.occurrences:
            assert normalized_text(version.text[o.char_start : o.char_end]) == quote
            assert o.page is None  # XML: no page map
    ws = ["--workspace", str(workspace.path)]
    code, out, _ = _run(["history", quote, "--family", versions[0].family, "--json", *ws], capsys)
    assert code == 0 and json.loads(out) == life.as_json()


def test_history_names_the_page_in_a_pdf(
    workspace: Workspace, held_versions: tuple[Version, ...]
) -> None:
    version = next(v for v in held_versions if v.jurisdiction == "us-nerc" and v.pages)
    last_page = version.pages[-1]
    sentence = next(
        s
        for s in map(_folded, _SENTENCE_END.split(version.text[last_page.char_start :]))
        if 40 <= len(s) <= 200 and _folded(version.text).count(s) == 1
    )
    life = timeline.quote_history(workspace, sentence, version.family)
    held = next(h for h in life.versions if h.version_id == version.version_id)
    (o,) = held.occurrences
    assert o.page == o.end_page == last_page.page


def test_history_and_verify_name_one_page_for_a_span_starting_between_pages(
    workspace: Workspace,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    held_versions: tuple[Version, ...],
) -> None:
    """A quote whose first character is the white space between two pages of a held PDF (the
    first such gap, after a page body that ends in a word): the page map gives that white space to
    the later page, and `history` and `verify` both name that page, for the span's first and last
    character alike."""
    version, gap_start, later = next(
        (v, a.char_end, b)
        for v in held_versions
        for a, b in pairwise(v.pages)
        if a.char_end < b.char_start and not v.text[a.char_end - 1].isspace()
    )
    assert version.text[gap_start : later.char_start].isspace()
    end = min(later.char_end, later.char_start + 200)
    quote = version.text[gap_start:end]
    ws = ["--workspace", str(workspace.path)]
    code, out, _ = _run(["history", quote, "--family", version.family, "--json", *ws], capsys)
    assert code == 0
    (held,) = (h for h in json.loads(out)["versions"] if h["version_id"] == version.version_id)
    (found,) = (o for o in held["occurrences"] if o["char_start"] == gap_start)
    assert (found["page"], found["end_page"]) == (later.page, later.page)
    citation = {
        "version_id": version.version_id,
        "char_start": found["char_start"],
        "char_end": found["char_end"],
        "quoted_text": quote,
    }
    if len(held["occurrences"]) > 1:
        citation["occurrence"] = found["occurrence"]
    cited = tmp_path / "between-pages.jsonl"
    cited.write_text(json.dumps(citation) + "\n", encoding="utf-8")
    code, out, _ = _run(["verify", str(cited), "--json", *ws], capsys)
    verdict = json.loads(out)
    assert code == 0 and verdict["outcome"] == "verified"
    assert verdict["pages"] == [found["page"], found["end_page"]]


# ---------------------------------------------------------------------------------------------
# recheck


def test_recheck_of_a_citation_finds_it_present_then_gone(
    workspace: Workspace,
    dropped: Dropped,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    quote, versions, counts = dropped
    first = versions[0]
    cited = timeline.cite_quote(workspace, quote, first.version_id)
    citations = tmp_path / "citations.jsonl"
    citations.write_text(json.dumps(cited.citation_json()) + "\n", encoding="utf-8")
    ws = ["--workspace", str(workspace.path), "--ledger", str(tmp_path / "ledger.sqlite")]
    code, out, _ = _run(["recheck", "--citations", str(citations), "--json", *ws], capsys)
    assert code == 1  # a quote is gone
    findings = json.loads(out)["findings"]
    assert [f["version_id"] for f in findings] == [v.version_id for v in versions[1:]]
    assert [f["status"] for f in findings] == ["still_present" if n else "gone" for n in counts[1:]]
    for finding, version in zip(findings, versions[1:], strict=True):
        for o in finding["occurrences"]:  # found in that version's own text, never projected
            assert normalized_text(version.text[o["char_start"] : o["char_end"]]) == quote
    # Beside the gone quote, the newest release's passage the alignment paired with the quote's
    # old one: shown as a place to look, not as evidence (it does not hold the quote).
    suggestion = findings[-1]["suggestion"]
    newest = versions[-1]
    assert findings[-1]["status"] == "gone" and suggestion["is_evidence"] is False
    assert suggestion["version_id"] == newest.version_id
    assert newest.text[suggestion["char_start"] : suggestion["char_end"]] == suggestion["text"]
    assert quote not in _folded(suggestion["text"])
    assert all(f["suggestion"] is None for f in findings[:-1])


def test_recheck_reports_a_quote_a_later_release_holds_twice(
    workspace: Workspace, tmp_path: Path, held_versions: tuple[Version, ...]
) -> None:
    for family in _dc_families(held_versions):
        versions = workspace.versions(family)
        pair = next(
            (
                (a, b, s)
                for a, b in pairwise(versions)
                for s in _sentences(a, 40)
                if _folded(a.text).count(s) == 1 and _folded(b.text).count(s) >= 2
            ),
            None,
        )
        if pair is not None:
            break
    else:
        raise AssertionError("no D.C. release holds twice a sentence its predecessor holds once")
    before, after, sentence = pair
    cited = timeline.cite_quote(workspace, sentence, before.version_id)
    assert cited.citation is not None
    report = recheck.recheck_quotes(workspace, citations=[("line 1", cited.citation)])
    finding = next(f for f in report.findings if f.version_id == after.version_id)
    assert finding.status == "now_ambiguous" and len(finding.occurrences) >= 2


def test_recheck_does_not_call_a_quote_ambiguous_in_its_own_version_now_ambiguous(
    workspace: Workspace, held_versions: tuple[Version, ...]
) -> None:
    """A sentence its own release already holds twice, cited by naming its occurrence, held twice
    by the next release too: `still_ambiguous`, not `now_ambiguous` (nothing became ambiguous)."""
    found = next(
        (
            (a, b, s)
            for family in _dc_families(held_versions)
            for a, b in pairwise(workspace.versions(family))
            for s in _sentences(a, 30)
            if _folded(a.text).count(s) == 2 and _folded(b.text).count(s) >= 2
        ),
        None,
    )
    assert found is not None, "no D.C. release holds twice a sentence its successor holds twice"
    before, after, sentence = found
    cited = timeline.cite_quote(workspace, sentence, before.version_id, occurrence=2)
    assert cited.citation is not None and cited.citation.occurrence == 2
    report = recheck.recheck_quotes(workspace, citations=[("line 1", cited.citation)])
    finding = next(f for f in report.findings if f.version_id == after.version_id)
    assert finding.status == "still_ambiguous" and len(finding.occurrences) >= 2
    printed = recheck.recheck_lines(report)
    assert any(
        line.startswith(f"line 1: still_ambiguous in {after.version_id} at [") for line in printed
    )


def test_recheck_catches_a_note_an_amendment_broke_and_the_census_counts_it(
    workspace: Workspace,
    dropped: Dropped,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    quote, versions, counts = dropped
    # The last release that holds the quote: the note is grounded there, and the next release,
    # the amendment, removed it.
    last = max(i for i, n in enumerate(counts) if n)
    base = versions[last]
    notes = tmp_path / "notes"
    notes.mkdir()
    note = notes / "dropped.md"
    note.write_text(
        "---\nstatus: draft\norigin: document\n"
        f"document: {base.version_id}\n---\n\n> quote: {quote}\n> locator: the section\n",
        encoding="utf-8",
    )
    ledger_path = tmp_path / "ledger.sqlite"
    with Ledger(ledger_path) as ledger:
        checked = check_note(note, against=None, corpus_dir=CORPUS_DIR, store=STORE, ledger=ledger)
        assert checked.confirmed and checked.pointer_after == base.version_id
        before = census(notes, corpus_dir=CORPUS_DIR, ledger=ledger)
        assert before.gone_from_latest == () and before.count("middle") == 1
    data = note.read_bytes()
    # No --notes: the ledger names the note.
    ws = ["--workspace", str(workspace.path), "--ledger", str(ledger_path)]
    code, out, _ = _run(["recheck", "--family", base.family, *ws], capsys)
    assert code == 1
    newer = [v for v in versions if v.version_order > base.version_order]
    lines = out.splitlines()
    (line,) = (q.line for q in parse_note(note).quotes)  # below the pointer the check wrote
    assert lines[0] == f"{note}:{line}: gone in {newer[0].version_id} (from {base.version_id})"
    assert lines[-1].endswith(f"; {counted(len(newer), 'run')} recorded in the ledger")
    assert note.read_bytes() == data  # a recheck never writes the note
    with Ledger(ledger_path) as ledger:
        runs = ledger.runs(note_key(note))
        assert [r.document for r in runs] == [base.version_id] + [v.version_id for v in newer]
        assert runs[-1].outcome == "missing"
        after = census(notes, corpus_dir=CORPUS_DIR, ledger=ledger)
    latest = versions[-1].version_id
    assert after.gone_from_latest == ((note, latest),)
    assert after.lines()[-2:] == (
        "middle-grade notes whose quote the latest version of their document no longer holds, "
        "by their last recheck: 1",
        f"  {note} -> {latest}",
    )
    # A newer version's file that no longer matches its catalogue row: the run says so, and the
    # recheck stops there, comparing no word against those bytes.
    tampered = tmp_path / "store" / newer[0].version_id
    tampered.parent.mkdir(parents=True)
    tampered.write_bytes((STORE / newer[0].version_id).read_bytes().replace(b"the", b"teh", 1))
    with Ledger(ledger_path) as ledger:
        with pytest.raises(ChecksumMismatch, match="does not match its catalogue sha256"):
            recheck.recheck_quotes(
                workspace,
                notes=[note],
                ledger=ledger,
                corpus_dir=CORPUS_DIR,
                store=tmp_path / "store",
            )
        assert ledger.runs(note_key(note))[-1].outcome == "checksum_mismatch"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        pytest.param(
            '{"version_id": "us-dc/x/y.xml", "char_start": 0}',
            "line 1: field 'char_end' missing",
            id="malformed-line",
        ),
        pytest.param(
            '{"version_id": "us-dc/no/such.xml", "char_start": 0, "char_end": 5, '
            '"quoted_text": "shall"}',
            ":1: us-dc/no/such.xml: no such version in",
            id="unknown-version",
        ),
    ],
)
def test_recheck_refuses_a_bad_citations_file_in_one_line(
    workspace: Workspace,
    tmp_path: Path,
    line: str,
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    citations = tmp_path / "bad.jsonl"
    citations.write_text(line + "\n", encoding="utf-8")
    ws = ["--workspace", str(workspace.path), "--ledger", str(tmp_path / "l.sqlite")]
    code, out, err = _run(["recheck", "--citations", str(citations), *ws], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert message in err
