"""PDF footnotes as passages, seen by the verifier and the diff (C6, C7, C20): the Massachusetts
D.P.U. rate order held alone in a workspace of its own, its notes read off its glyphs through the
one hook every stage reads (`text.parts.version_parts`, kept in the workspace by ingest and read
back by `workspace.parts.held_parts`, as the verifier reads them; tests/test_ingest_parts.py
checks the kept reading is what the artefact gives when read again), notes run on across a page
joined."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import FreshWorkspace
from workbench.changes.diff import diff_versions
from workbench.changes.footnoted import footnote_changes
from workbench.cite.batch import verify_citations
from workbench.cite.verify import Citation
from workbench.cli import main
from workbench.history.dating import quote_history
from workbench.measure.apparatus import apparatus_report
from workbench.models import CatalogueRow
from workbench.text import parts
from workbench.text.footnotes import Footnote, FootnoteReading, note_words
from workbench.text.normalize import normalized_text
from workbench.text.parts import version_parts
from workbench.text.segment import segment_version
from workbench.workspace import Workspace
from workbench.workspace.parts import held_parts

DPU = "us-ma/dpu-18-150-national-grid-base-rate-order/dpu-18-150_order_2019-09-30.pdf"


@pytest.fixture(scope="module")
def held(
    catalogue: tuple[CatalogueRow, ...],
    fresh_workspace: FreshWorkspace,
    tmp_path_factory: pytest.TempPathFactory,
) -> Workspace:
    rows = [row for row in catalogue if row.path == DPU]
    return fresh_workspace(rows, tmp_path_factory.mktemp("dpu") / "workspace.sqlite")


@pytest.fixture(scope="module")
def reading(held: Workspace) -> FootnoteReading:
    footnotes, _ = held_parts(held, held.version(DPU))  # kept at ingest: no PDF read again
    assert footnotes is not None
    return footnotes


def _lead_in(note: Footnote, reading: FootnoteReading, text: str) -> int:
    """Where a quote ending at the note's first marker starts: the start of the line before the
    marker's, so that no other marker stands in the quote."""
    marker = note.anchors[0][0]
    start = text.rindex("\n", 0, text.rindex("\n", 0, marker)) + 1
    others = [a for m in reading.markers if (a := m.char_start) < marker and a >= start]
    return max([start, *(a + 4 for a in others)])


@pytest.mark.slow
def test_a_clause_quoted_without_its_run_on_note(held: Workspace, reading: FootnoteReading) -> None:
    text = held.version(DPU).text
    note = next(n for n in reading.footnotes if n.continued and n.anchors)
    (run_start, run_end), *_ = note.continued
    start, marker = _lead_in(note, reading, text), note.anchors[0][0]

    def cite(end: int) -> Citation:
        return Citation(version_id=DPU, char_start=start, char_end=end, quoted_text=text[start:end])

    up_to_marker, through_its_page, through_run_on = verify_citations(
        held, [cite(marker), cite(note.char_end), cite(run_end)]
    )
    assert up_to_marker.standing == "verified with caveats"
    assert [c.kind for c in up_to_marker.caveats] == ["footnote_unquoted"]
    (evidence,) = up_to_marker.caveats[0].evidence
    assert (evidence.char_start, evidence.char_end) == (note.char_start, note.char_end)
    assert dict(evidence.facts)["continued"] == f"[{run_start}, {run_end})"
    assert f"(run on at [{run_start}, {run_end}))" in evidence.note
    # Quoting the note's words on its own page leaves its run-on words out: still unquoted.
    assert note.label in _labels_unquoted(through_its_page)
    assert note.label not in _labels_unquoted(through_run_on)


def _labels_unquoted(verdict: object) -> list[str]:
    caveats = getattr(verdict, "caveats", ())
    return [
        str(dict(e.facts)["label"])
        for c in caveats
        if c.kind == "footnote_unquoted"
        for e in c.evidence
    ]


@pytest.mark.slow
def test_footnote_passages_and_every_other_passage_kept(
    held: Workspace, reading: FootnoteReading, capsys: pytest.CaptureFixture[str]
) -> None:
    version = held.version(DPU)
    assert main(["passages", DPU, "--json", "--workspace", str(held.path)]) == 0
    passages = json.loads(capsys.readouterr().out)
    spans = [(a, b, n) for n in reading.footnotes for a, b in n.spans]
    notes = [p for p in passages if p["kind"] == "footnote"]
    for p in notes:
        (note,) = [n for a, b, n in spans if a <= p["char_start"] and p["char_end"] <= b]
        assert p["anchors"] == [list(a) for a in note.anchors]
    # Every character of every note's words lies in a footnote passage.
    covered = {i for p in notes for i in range(p["char_start"], p["char_end"])}
    text = version.text
    assert all(i in covered for a, b, _ in spans for i in range(a, b) if not text[i].isspace())
    # A passage no note's span touches keeps its offsets, label, kind and path.
    plain = segment_version(version)
    cut = segment_version(version, footnotes=reading)
    untouched = [
        p for p in plain if not any(a < p.char_end and p.char_start < b for a, b, _ in spans)
    ]
    kept = {(p.char_start, p.char_end, p.section_label, p.kind, p.path) for p in cut}
    assert untouched and all(
        (p.char_start, p.char_end, p.section_label, p.kind, p.path) in kept for p in untouched
    )
    assert len(cut) > len(plain)


@pytest.mark.slow
def test_diff_reports_a_run_on_note_changed(held: Workspace, reading: FootnoteReading) -> None:
    """The order with one run-on note's words on the next page rewritten (letters of one word
    turned to 'x', offsets kept): every unchanged clause holding its marker is reported, and
    none when the run-on words are left out of the reading."""
    version = held.version(DPU)
    text = version.text
    note = next(n for n in reading.footnotes if n.continued and n.anchors)
    (start, end), *_ = note.continued
    word = next(w for w in re.finditer(r"[A-Za-z]{5,}", text[start:end]))
    at = start + word.start()
    after_text = text[:at] + "x" * len(word.group()) + text[at + len(word.group()) :]

    def side(text: str) -> SimpleNamespace:
        return SimpleNamespace(
            version_id=DPU,
            text=text,
            structure=(),
            jurisdiction=version.jurisdiction,
            family=version.family,
            media_type=version.media_type,
        )

    changes = diff_versions(side(text), side(after_text))
    found = footnote_changes(changes, (text, after_text), (reading, reading))
    holding = [
        c.change_id
        for c in changes
        if c.kind == "unchanged"
        and c.after is not None
        and any(c.after.char_start <= a < c.after.char_end for a, _ in note.anchors)
    ]
    assert holding and [f.change_id for f in found] == holding
    assert all("x" * len(word.group()) in " ".join(f.words_after) for f in found)
    own_page = replace(
        reading,
        footnotes=tuple(replace(n, continued=()) for n in reading.footnotes),
    )
    assert footnote_changes(changes, (text, after_text), (own_page, own_page)) == ()


@pytest.mark.slow
def test_history_lists_a_pdf_quotes_note_with_its_run_on_words(
    held: Workspace, reading: FootnoteReading
) -> None:
    version = held.version(DPU)
    note = next(n for n in reading.footnotes if n.continued and n.anchors)
    start, marker = _lead_in(note, reading, version.text), note.anchors[0][0]
    life = quote_history(held, version.text[start:marker], version.family)
    (holding,) = life.versions
    run_on = " ".join(version.text[a:b] for a, b in note.continued)
    assert holding.footnotes == (note_words(note, version.text),)
    assert normalized_text(run_on) in holding.footnotes[0]


@pytest.mark.slow
def test_store_moved_gives_no_pdf_reading(held: Workspace, tmp_path: Path) -> None:
    assert version_parts(held.version(DPU), tmp_path) == (None, None)


@pytest.mark.slow
def test_verify_after_measure_does_not_extract(
    held: Workspace, reading: FootnoteReading, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Measure's apparatus pass keeps the order's parts in the workspace; a later verify (in a
    new process: the per-process readings cleared) reads them there, the PDF never extracted."""
    apparatus_report(held)
    text = held.version(DPU).text
    note = next(n for n in reading.footnotes if n.anchors)
    start, marker = _lead_in(note, reading, text), note.anchors[0][0]
    parts._pdf.cache_clear()

    def never(*_: object, **__: object) -> None:
        raise AssertionError("the PDF was extracted again")

    monkeypatch.setattr("workbench.text.pdf.extract_pdf", never)
    (verified,) = verify_citations(
        held,
        [
            Citation(
                version_id=DPU, char_start=start, char_end=marker, quoted_text=text[start:marker]
            )
        ],
    )
    assert [c.kind for c in verified.caveats] == ["footnote_unquoted"]
    assert parts._pdf.cache_info().misses == 0
