"""A PDF whose page PDFium cannot load is refused naming the file and the page, and the rest of the
corpus is ingested beside it."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests.hostile import BENIGN, SELF_HOLDING, scan
from workbench.cli import main
from workbench.errors import ExtractionError
from workbench.text.ocr import DPI, MAX_PIXELS, MIN_DPI, page_dpi
from workbench.text.pdf import extract_pdf


def test_the_benign_control_reads() -> None:
    assert "reads as a sentence" in extract_pdf(BENIGN, source="benign.pdf").text


def test_a_page_tree_that_holds_itself_is_refused_naming_the_page() -> None:
    with pytest.raises(ExtractionError) as refused:
        extract_pdf(SELF_HOLDING, source="loop.pdf")
    assert str(refused.value) == (
        "loop.pdf: page 2: PDFium cannot read it (Failed to load page); the PDF is refused"
    )


def test_a_page_too_large_for_ocr_is_refused_by_page_without_rendering_it() -> None:
    with pytest.raises(ExtractionError) as refused:
        extract_pdf(scan(20_000), source="vast.pdf")
    assert str(refused.value) == (
        f"vast.pdf: page 1: 20000 × 20000 pt is too large to read by OCR: within {MAX_PIXELS} "
        f"pixels it would be under {MIN_DPI} dpi"
    )


@pytest.mark.parametrize("points", [612, 2_384, 9_000], ids=["letter", "a0-square", "large"])
def test_a_page_is_read_at_the_highest_resolution_within_the_pixel_cap(points: int) -> None:
    dpi = page_dpi(points, points)

    def pixels(at: int) -> int:
        return math.ceil(points * at / 72) ** 2

    if dpi == 0:  # refused: even the lowest legible resolution is over the cap
        assert pixels(MIN_DPI) > MAX_PIXELS
        return
    assert MIN_DPI <= dpi <= DPI and pixels(dpi) <= MAX_PIXELS
    assert dpi == DPI or pixels(dpi + 1) > MAX_PIXELS


def test_the_rest_of_the_corpus_is_ingested(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "loop.pdf").write_bytes(SELF_HOLDING)
    (tmp_path / "note.txt").write_text("Sec. 1. Scope\n\nThe rule applies.\n", encoding="utf-8")
    mirror, corpus = str(tmp_path / "mirror"), str(tmp_path / "corpus")
    for family, name in (("fam-pdf", "loop.pdf"), ("fam-txt", "note.txt")):
        facts = ["--jurisdiction", "xx", "--family", family, "--official", "--order", "1"]
        url = ["--url", f"https://example.org/{name}", "--date", "2020-01-01"]
        assert main(["corpus", "add", "--into", mirror, *facts, *url, str(tmp_path / name)]) == 0
    assert main(["corpus", "admit", mirror, "--corpus-dir", corpus]) == 0
    workspace = ["--workspace", str(tmp_path / "ws.sqlite")]
    capsys.readouterr()
    assert main(["ingest", "--corpus-dir", corpus, "--store", mirror, *workspace]) == 1
    listed = capsys.readouterr().out
    assert (
        "xx/fam-pdf/loop.pdf: page 2: PDFium cannot read it (Failed to load page); "
        "the PDF is refused"
    ) in listed
    assert main(["families", *workspace]) == 0
    held = capsys.readouterr().out
    assert "fam-txt" in held and "fam-pdf" not in held
