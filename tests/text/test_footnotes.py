"""The footnote reader (C20) on real markup: Federal Register GPO XML scored against its own
FTREF/FTNT links (truth from scripts/footnote_truth.py), a held Federal Register issue in USLM,
a Justice Canada Act, and the `footnote_unquoted` caveat on a held clause."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import ROOT, STORE
from tests.text.truths import kept_truth
from workbench.cite.batch import verify_citation
from workbench.cite.verify import Citation
from workbench.evals import footnote_score
from workbench.evals.footnote_score import FootnoteScore, precision_recall, score_files
from workbench.models import Extraction
from workbench.text.footnotes import (
    FootnoteReading,
    read_footnotes,
    read_markdown_footnotes,
    read_markup_footnotes,
)
from workbench.text.segment import segment
from workbench.text.xml import extract_xml

FR_NOTICES = ROOT.parent / "shared" / "external" / "footnotes-fr-notices-cfpb"
FR_ISSUE = STORE / "us-federal-register" / "fr-issue-2017-06-07" / "FR-2017-06-07-uslm.xml"
CANADA_ACT = STORE / "ca-federal" / "ca-energy-efficiency-act" / "E-6.4@2019-06-21.xml"
MIN_PRECISION = MIN_RECALL = 0.99  # the issue's target


@pytest.fixture(scope="module")
def fr_truth() -> dict[str, object]:
    """The truth script's links in the notices, kept between runs under its key (`kept_truth`)."""
    return kept_truth(ROOT / "scripts" / "footnote_truth.py", sorted(FR_NOTICES.glob("*.xml")))


@cache
def _extracted(path: Path) -> tuple[Extraction, FootnoteReading]:
    """A document's extraction and footnote reading, once for the module: six tests read the
    Federal Register issue's (the records are frozen, so they are shared)."""
    data = path.read_bytes()
    return extract_xml(data, source=str(path)), read_markup_footnotes(data, source=str(path))


def _read(path: Path) -> tuple[str, FootnoteReading]:
    extraction, reading = _extracted(path)
    return extraction.text, reading


@pytest.fixture(scope="module")
def fr_scores(fr_truth: dict[str, object]) -> tuple[FootnoteScore, ...]:
    """The reader's links in each notice scored against the truth, once for the module."""
    return score_files(FR_NOTICES, fr_truth)


def test_federal_register_links_meet_the_markup(fr_scores: tuple[FootnoteScore, ...]) -> None:
    scores = fr_scores
    precision, recall = precision_recall(scores)
    misses = [(s.file, s.missed, s.extra) for s in scores if s.missed or s.extra]
    assert precision >= MIN_PRECISION and recall >= MIN_RECALL, misses
    assert len(scores) == 3


@given(text=st.text(alphabet="ab \n\t\u00a0\u2003", max_size=400), at=st.integers(0, 400))
def test_the_words_before_a_marker_are_the_last_of_the_whole_text_before_it(
    text: str, at: int
) -> None:
    # The score keys a marker by the last CONTEXT non-white-space characters before it, read
    # from a window before it: exactly those of the whole text before it, squeezed.
    start = min(at, len(text))
    whole = "".join(text[:start].split())[-footnote_score.CONTEXT :]
    assert footnote_score._before(text, start) == whole


def test_out_of_sequence_note_is_reported_not_guessed(fr_scores: tuple[FootnoteScore, ...]) -> None:
    # 2013-00740's reference 250 has an FTNT that opens with no number: no link, a report.
    scores = {s.file: s for s in fr_scores}
    for score in scores.values():
        assert score.unlinked_read == score.unlinked_truth
        assert score.unanchored_read == score.unanchored_truth
    assert any(s.unlinked_truth for s in scores.values())


@pytest.mark.parametrize(
    "path",
    [pytest.param(FR_ISSUE, id="uslm-ref-idref"), pytest.param(CANADA_ACT, id="justice-canada")],
)
def test_every_marker_linked_or_reported(path: Path) -> None:
    text, reading = _read(path)
    assert reading.footnotes and reading.markers
    linked = sorted(a for note in reading.footnotes for a in note.anchors)
    reported = sorted((m.char_start, m.char_end) for m in (*reading.unlinked, *reading.ambiguous))
    assert sorted([*linked, *reported]) == sorted(reading.marker_spans)
    for note in reading.footnotes:
        for start, end in note.anchors:
            assert text[start:end] == note.label  # the marker prints the note's own label
            assert text[note.char_start : note.char_end].startswith(note.label)


def test_footnote_passages_keep_every_offset() -> None:
    extraction, reading = _extracted(FR_ISSUE)
    plain = segment("fr", extraction.text, marks=extraction.structure)
    with_notes = segment("fr", extraction.text, marks=extraction.structure, footnotes=reading)
    assert [(p.char_start, p.char_end) for p in plain] == [
        (p.char_start, p.char_end) for p in with_notes
    ]
    notes = [p for p in with_notes if p.kind == "footnote"]
    assert {p.kind for p in with_notes if p.kind != "footnote"} <= {p.kind for p in plain}
    starts = {f.char_start: f for f in reading.footnotes}
    assert notes and all(
        p.anchors == starts[p.char_start].anchors for p in notes if p.char_start in starts
    )
    assert all(
        p.as_json(profile="x", page=None)["anchors"] == [list(a) for a in p.anchors] for p in notes
    )
    assert all("anchors" not in p.as_json(profile="x", page=None) for p in plain)


@pytest.mark.parametrize(
    ("text", "linked", "unlinked", "ambiguous"),
    [
        pytest.param("A rule.[^1]\n\n[^1]: Unless waived.\n", {"1": 1}, [], [], id="linked"),
        pytest.param("A rule.[^2]\n\n[^1]: Unless waived.\n", {"1": 0}, ["2"], [], id="no-note"),
        pytest.param(
            "A rule.[^1]\n\n[^1]: One.\n\n[^1]: Two.\n", {"1": 0}, [], ["1"], id="two-notes"
        ),
        pytest.param(
            "A[^n] and B[^n].\n\n[^n]: Shared,\n    continued.\n",
            {"n": 2},
            [],
            [],
            id="two-markers",
        ),
    ],
)
def test_markdown_footnotes(
    text: str, linked: dict[str, int], unlinked: list[str], ambiguous: list[str]
) -> None:
    reading = read_markdown_footnotes(text)
    assert {f.label: len(f.anchors) for f in reading.footnotes} == linked
    assert [m.label for m in reading.unlinked] == unlinked
    assert [m.label for m in reading.ambiguous] == ambiguous
    for note in reading.footnotes:
        assert text[note.char_start : note.char_end].startswith(f"[^{note.label}]:")
        assert not text[note.char_start : note.char_end].endswith("\n")
    assert (
        read_footnotes(text.encode(), source="x.md", media_type="text/markdown", text=text)
        == reading
    )


AKN = (
    '<akomaNtoso xmlns="http://docs.oasis-open.org/legaldocml/ns/akn/3.0"><act><body>'
    '<section eId="s1"><num>1.</num><content><p>The operator shall file a report'
    '<authorialNote marker="1" eId="s1__n1"><p>Unless exempted.</p></authorialNote> each year.</p>'
    '</content></section><section eId="s2"><num>2.</num><content><p>See the note'
    '<noteRef href="#s2__n2">2</noteRef> on filing.</p></content></section></body></act></akomaNtoso>'
)


def test_akoma_ntoso_notes() -> None:
    # An authorialNote is printed where its marker stands: anchored there, by its `marker`; a
    # noteRef naming a note the document lacks is reported, never linked.
    data = AKN.encode()
    text = extract_xml(data, source="akn").text
    reading = read_markup_footnotes(data, source="akn")
    (note,) = reading.footnotes
    assert (note.label, text[note.char_start : note.char_end]) == ("1", "Unless exempted.")
    assert note.anchors == ((note.char_start, note.char_start),)
    assert [(m.label, text[m.char_start : m.char_end]) for m in reading.unlinked] == [("2", "2")]


def test_two_notes_for_one_number_are_ambiguous() -> None:
    path = FR_NOTICES / "2013-01241.xml"
    data = path.read_bytes()
    first = data.index(b"<FTNT>")
    # The first note copied in front of itself: the same number twice in one part.
    twice = data[:first] + data[first : data.index(b"</FTNT>", first) + 7] + data[first:]
    reading = read_markup_footnotes(twice, source=str(path))
    original = read_markup_footnotes(data, source=str(path))
    assert [m.label for m in reading.ambiguous] == [original.footnotes[0].label]
    assert len(reading.footnotes) == len(original.footnotes) + 1


QUOTE = (
    "The following are the key elements of a LMP for CO: Attainment inventory, maintenance "
    "demonstration, monitoring network, verification of continued attainment, contingency plan, "
    "and conformity determinations."
)


@pytest.mark.parametrize(
    ("quote_end", "with_note", "standing"),
    [
        pytest.param(0, False, "verified with caveats", id="stops-at-marker"),
        pytest.param(1, False, "verified with caveats", id="holds-marker"),
        pytest.param(0, True, "verified", id="quotes-the-note-too"),
    ],
)
def test_footnote_unquoted(quote_end: int, with_note: bool, standing: str) -> None:
    text, reading = _read(FR_ISSUE)
    start = text.index(QUOTE)
    end = start + len(QUOTE) + quote_end
    (note,) = reading.notes_in(start, end + 1)
    if with_note:
        end = note.char_end
    citation = Citation(
        version_id="fr", char_start=start, char_end=end, quoted_text=text[start:end]
    )
    verdict = verify_citation(citation, text, footnotes=reading)
    assert verdict.standing == standing
    assert verify_citation(citation, text).standing == "verified"  # no reading, no caveat
    if standing == "verified":
        return
    (caveat,) = verdict.caveats
    (evidence,) = caveat.evidence
    assert caveat.kind == "footnote_unquoted"
    assert (evidence.char_start, evidence.char_end) == (note.char_start, note.char_end)
    assert evidence.text == text[note.char_start : note.char_end]
    marker = f"[{note.anchors[0][0]}, {note.anchors[0][1]})"
    assert caveat.line() == (
        f"caveat footnote_unquoted: [{note.char_start}, {note.char_end}) is footnote "
        f"{note.label}, whose marker at {marker} the quote holds, unquoted: "
        f"{' '.join(evidence.text.split())[:80]!r}"
    )


def test_the_qualifier_scan_reads_the_note() -> None:
    text, reading = _read(FR_ISSUE)
    note = next(
        f for f in reading.footnotes if f.anchors and " unless " in text[f.char_start : f.char_end]
    )
    marker = note.anchors[0][0]
    start = text.rindex(". ", 0, marker) + 2
    citation = Citation(
        version_id="fr", char_start=start, char_end=marker, quoted_text=text[start:marker]
    )
    (caveat,) = verify_citation(citation, text, footnotes=reading).caveats
    facts = dict(next(e for e in caveat.evidence if e.char_start == note.char_start).facts)
    assert "unless" in str(facts["qualifiers"]).split(", ")
    assert str(facts["marker"]) == f"[{note.anchors[0][0]}, {note.anchors[0][1]})"
