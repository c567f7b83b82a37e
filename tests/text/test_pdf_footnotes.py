"""Footnotes read off a PDF's glyphs (C20): the Massachusetts D.P.U. rate order (602 pages, its
notes at each page's foot), every marker linked to the note of its number or reported."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import STORE
from workbench.errors import ExtractionError
from workbench.text.extraction import extract
from workbench.text.footnotes import FootnoteReading
from workbench.text.ocr import OcrOptions
from workbench.text.pdf_footnotes import read_pdf_footnotes

DPU = next(STORE.glob("us-ma/*/dpu-18-150_order_2019-09-30.pdf"))
OCR_CACHE = Path(os.environ["WORKBENCH_OCR_CACHE"])  # the suite's one cache (tests/conftest.py)


@pytest.fixture(scope="module")
def dpu() -> tuple[str, FootnoteReading]:
    data = DPU.read_bytes()
    ocr = OcrOptions(cache=OCR_CACHE)
    text = extract(data, "application/pdf", source=str(DPU), ocr=ocr).text
    return text, read_pdf_footnotes(data, source=str(DPU), text=text, ocr=ocr)


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
    with pytest.raises(ExtractionError, match="the PDF re-extracted is not the version's text"):
        read_pdf_footnotes(
            DPU.read_bytes(), source=str(DPU), text="other", ocr=OcrOptions(cache=OCR_CACHE)
        )
