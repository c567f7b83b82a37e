"""A PDF whose page PDFium cannot load is refused naming the file and the page, and the rest of the
corpus is ingested beside it."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.errors import ExtractionError
from workbench.text.ocr import DPI, MAX_PIXELS, MIN_DPI, page_dpi
from workbench.text.pdf import extract_pdf

CONTENT = b"BT /F1 12 Tf 72 500 Td (A page of text that reads as a sentence.) Tj ET"
FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def _page(size: int, content: bytes, resources: bytes) -> bytes:
    return (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Contents 4 0 R /Resources %s >>"
        % (
            size,
            size,
            resources,
        )
    )


def _pdf(
    kids: bytes,
    count: int,
    *,
    size: int = 612,
    content: bytes = CONTENT,
    resources: bytes = b"<< /Font << /F1 5 0 R >> >>",
    fifth: bytes = FONT,
) -> bytes:
    """A PDF of one page object of `size` × `size` pt under a page tree whose kids are `kids`
    (`2 0 R` is the tree itself); object 5 is `fifth` (a font, or an image)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % count,
        _page(size, content, resources),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        fifth,
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    trailer = b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
    return out + trailer % (len(objects) + 1, xref)


def _scan(size: int) -> bytes:
    """A page of `size` × `size` pt holding one 1 × 1 image over the whole of it: a scan."""
    pixel = b"<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray "
    pixel += b"/BitsPerComponent 8 /Length 1 >>\nstream\n\x80\nendstream"
    content = b"q %d 0 0 %d 0 0 cm /Im1 Do Q" % (size, size)
    return _pdf(
        b"3 0 R",
        1,
        size=size,
        content=content,
        resources=b"<< /XObject << /Im1 5 0 R >> >>",
        fifth=pixel,
    )


SELF_HOLDING = _pdf(b"3 0 R 2 0 R", 2)  # the second kid is the page tree itself
BENIGN = _pdf(b"3 0 R", 1)


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
        extract_pdf(_scan(20_000), source="vast.pdf")
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
