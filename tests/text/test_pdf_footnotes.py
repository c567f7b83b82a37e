"""Footnotes read off a PDF's glyphs (C20): the Massachusetts D.P.U. rate order (602 pages, its
notes at each page's foot), every marker linked to the note of its number or reported."""

from __future__ import annotations

from itertools import pairwise

import pytest

from tests.conftest import OCR_CACHE, STORE
from workbench.errors import ExtractionError
from workbench.models import Version
from workbench.text.footnotes import FootnoteReading
from workbench.text.ocr import OcrOptions
from workbench.text.pdf_footnotes import read_pdf_footnotes
from workbench.workspace import Workspace

DPU = next(STORE.glob("us-ma/*/dpu-18-150_order_2019-09-30.pdf"))
OTHER = STORE / "us-nerc" / "nerc-cip-002" / "cip-002-8.pdf"


@pytest.fixture(scope="module")
def dpu_held(corpus_workspace: Workspace) -> Version:
    """The order as the run's whole-corpus workspace holds it (its text, and its pages'
    offsets): the extraction ingest made, not made again here."""
    return corpus_workspace.version(str(DPU.relative_to(STORE)))


@pytest.fixture(scope="module")
def dpu(dpu_held: Version) -> tuple[str, FootnoteReading]:
    text = dpu_held.text
    ocr = OcrOptions(cache=OCR_CACHE)
    return text, read_pdf_footnotes(DPU.read_bytes(), source=str(DPU), text=text, ocr=ocr)


@pytest.mark.slow
def test_every_marker_linked_or_reported(dpu: tuple[str, FootnoteReading]) -> None:
    text, reading = dpu
    linked = sorted(a for note in reading.footnotes for a in note.anchors)
    reported = sorted((m.char_start, m.char_end) for m in (*reading.unlinked, *reading.ambiguous))
    assert reading.footnotes and sorted([*linked, *reported]) == sorted(reading.marker_spans)
    assert len(linked) > len(reported)
    for note in reading.footnotes:
        body = text[note.char_start : note.char_end]
        assert body.startswith(note.label + " ") and note.label.isdigit()
        assert all(text[a:b] == note.label for a, b in note.anchors)
        assert all(not note.char_start <= a < note.char_end for a, _ in linked)


def test_other_text_is_refused() -> None:
    """Whatever the PDF (here a short NERC standard: the order would only take longer to read
    again), a text that is not its extraction is refused."""
    with pytest.raises(ExtractionError, match="the PDF re-extracted is not the version's text"):
        read_pdf_footnotes(
            OTHER.read_bytes(), source=str(OTHER), text="other", ocr=OcrOptions(cache=OCR_CACHE)
        )


@pytest.mark.slow
def test_every_printed_number_has_its_note_or_is_reported(
    dpu: tuple[str, FootnoteReading],
) -> None:
    """The order numbers its notes 1, 2, 3...: every number up to the last note's is a note
    read, or a marker reported as naming none (a note continued onto the next page is no
    longer taken for the body, and a marker set after a number's digits is read)."""
    _, reading = dpu
    labels = [int(note.label) for note in reading.footnotes]
    reported = {int(m.label) for m in (*reading.unlinked, *reading.ambiguous)}
    assert labels == sorted(labels) and len(set(labels)) == len(labels)
    assert set(range(1, max(labels) + 1)) - set(labels) <= reported
    assert not reading.unanchored, [n.label for n in reading.unanchored]


@pytest.mark.slow
def test_run_on_notes_joined_at_the_next_page_foot(
    dpu: tuple[str, FootnoteReading], dpu_held: Version
) -> None:
    """A note left open at a page's end continues at the next page's foot: each run-on span lies
    on the page after the one before it, holds no note's opening, and no note of its page opens
    before it ends."""
    text, reading = dpu

    def page(offset: int) -> int:
        return next(p.page for p in dpu_held.pages if p.char_start <= offset <= p.char_end)

    joined = [n for n in reading.footnotes if n.continued]
    starts = sorted(n.char_start for n in reading.footnotes)
    assert joined
    for note in joined:
        for (_, before), (start, end) in pairwise(note.spans):
            assert page(start) == page(before) + 1
            assert text[start:end] == text[start:end].strip()
            assert not any(start <= s < end for s in starts)
            assert all(end <= s for s in starts if s > start and page(s) == page(start))
    assert "continued" not in next(n for n in reading.footnotes if not n.continued).as_json()
    assert joined[0].as_json()["continued"] == [list(s) for s in joined[0].continued]
