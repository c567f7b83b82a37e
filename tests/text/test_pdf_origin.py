"""Ligatures and text origins: words PDFium's own text agrees with, and where each run came from.

The Constitutional AI paper (outside material, LaTeX-made, fi/fl/ff ligatures in 28 of its 34
pages) is compared page by page with PDFium's own text. Every sentence fixed here was read by a
person off the page rendered with pypdfium2, never copied from the extractor's output. The held
PDFs are compared with the text the previous extractor version (`pdf-text` 2, loaded from its
commit) makes of them, so no held offset moves.
"""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from itertools import pairwise
from pathlib import Path
from types import ModuleType

import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pytest

from tests.conftest import OCR_CACHE, ROOT, STORE, module_from_commit
from tests.text.test_extract_pdf import _pdf
from workbench.cite import find_occurrences
from workbench.corpus import read_fetched
from workbench.models import CatalogueRow, Extraction, TextOrigins, page_for_offset, text_sha256
from workbench.text.extraction import CURRENT_EXTRACTORS
from workbench.text.ocr import OcrOptions
from workbench.text.pdf import PDF_EXTRACTOR, PDF_EXTRACTOR_VERSION, extract_pdf
from workbench.workspace import Workspace, ingest, version_from_row, version_listing

CAI = ROOT.parent / "shared" / "external" / "anthropic-cookbook-citations" / "misc" / "data"
CAI_PDF = CAI / "Constitutional AI.pdf"
TX = "us-tx/puct-49421-item80-cehe-response-to-tiec-rfi-set1/"
TX_FILER_SCAN = TX + "v1_cehe-filer-copy_D49421-CEHE-Response-to-TIEC-1st-RFIs.pdf"
TX_COMMISSION = TX + "v2_puct-interchange_49421_80_1016841.PDF"
TX_UPDATES = "us-tx/puct-49595-puc01-01-rate-case-expense-update/"
COMMISSION_COPIES = [
    TX_COMMISSION,
    TX_UPDATES + "v1_puct-interchange_49595_19_1036020_PUC01-01U2.PDF",
    TX_UPDATES + "v2_puct-interchange_49595_21_1039609_PUC01-01U3.PDF",
]
NERC_012 = "us-nerc/nerc-cip-012/cip-012-1.pdf"


@cache
def _cai() -> tuple[bytes, Extraction]:
    data = CAI_PDF.read_bytes()
    return data, extract_pdf(data, source=CAI_PDF.name)


# ---------------------------------------------------------------------------------------------
# Ligatures: the Constitutional AI paper against PDFium's own text


def _pdfium_words(data: bytes) -> list[list[str]]:
    """PDFium's own text of each page, in words; its line-end hyphen marker (U+0002, which
    pypdfium2 hands over as U+FFFE, the two lines joined) read as a hyphen that ends a line."""
    document = pdfium.PdfDocument(data)
    try:
        pages = []
        for page in document:
            text = page.get_textpage().get_text_range()
            pages.append(text.replace("\x02", "-\n").replace("\ufffe", "-\n").split())
        return pages
    finally:
        document.close()


def _differences(pdfium_words: list[str], our_words: list[str]) -> set[tuple[str, str, str]]:
    """How two pages' words differ, each difference explained as white space only: ("join", a, b)
    where one of our words is PDFium's a and b run together, ("split", a, b) where PDFium's one
    word is our a and b. A difference that is not white space is left as ("other", ...)."""
    theirs, ours = Counter(pdfium_words), Counter(our_words)
    only_theirs, only_ours = theirs - ours, ours - theirs
    found: set[tuple[str, str, str]] = set()
    for word in list(only_ours.elements()):
        pair = next(
            (
                (a, word[len(a) :])
                for a in only_theirs
                if word.startswith(a) and only_theirs[word[len(a) :]]
            ),
            None,
        )
        if pair is not None and (pair[0] != pair[1] or only_theirs[pair[0]] >= 2):
            only_theirs.subtract(pair)
            only_ours[word] -= 1
            found.add(("join", *pair))
    for word in list((+only_theirs).elements()):
        pair = next(
            (
                (a, word[len(a) :])
                for a in only_ours
                if word.startswith(a) and only_ours[word[len(a) :]] > 0
            ),
            None,
        )
        if pair is not None:
            only_ours.subtract(pair)
            only_theirs[word] -= 1
            found.add(("split", *pair))
    found |= {("other", w, "") for w in (+only_theirs).elements()}
    found |= {("other", "", w) for w in (+only_ours).elements()}
    return found


# Where our words still differ from PDFium's, white space only, each looked at on the page. The
# held PDFs print the same things and hold them the same way (a raised figure set tight against
# the number it follows, "908.1" in the D.P.U. order; an accent drawn as a glyph of its own, the
# Federal Register's "Aviac ¸a˜ o"; a kerned gap as wide as a thin space, CIP-003-8's
# "Communi cation"), so changing these would move held text.
STILL_DIFFERENT = {
    1: {("join", "Bai∗", ",")},  # "Yuntao Bai,*": the asterisk stands over the comma
    4: {("join", "10", "10")},  # the axis label "10¹⁰": PDFium sets the exponent apart
    6: {("join", "10", "10"), ("join", "10", "9")},
    9: {("join", "10", "10")},
    10: {("join", "10", "10")},
    17: {("split", "Tr", "˛ebacz,")},  # "Tręebacz": the ogonek is a glyph of its own
    19: {("split", "https://github.com/anthropics/hh-", "rlhf")},  # a kerned gap after "-"
    20: {("join", "10", "10"), ("join", "10", "9")},
}


def test_constitutional_ai_words_are_pdfiums_words_on_every_page() -> None:
    """Per page, our words (body and the furniture taken from the page) are PDFium's words, after
    white-space folding, but for the white-space differences read off the page above; no word is
    split at a ligature glyph anywhere."""
    data, result = _cai()
    theirs = _pdfium_words(data)
    assert len(result.pages) == len(theirs) == 34
    found = {}
    for span in result.pages:
        ours = result.text[span.char_start : span.char_end].split()
        ours += [w for f in result.furniture if f.page == span.page for w in f.text.split()]
        differences = _differences(theirs[span.page - 1], ours)
        if differences:
            found[span.page] = differences
    assert found == STILL_DIFFERENT
    ligature_words = {w for page in theirs for w in page if any(p in w for p in ("fi", "fl", "ff"))}
    assert len(ligature_words) > 100  # the paper is full of them
    splits = {a + b for page in found.values() for kind, a, b in page if kind == "split"}
    assert not splits & ligature_words


@pytest.mark.parametrize(
    ("page", "sentence"),
    [
        pytest.param(
            1,
            "self-critiques and revisions, and then finetune the original model on revised "
            "responses.",
            id="finetune",
        ),
        pytest.param(1, "In the RL phase, we sample from the finetuned model", id="finetuned"),
        pytest.param(
            3,
            "such principles should be redeveloped and refined by a larger set of stakeholders",
            id="refined",
        ),
        pytest.param(
            3,
            "Since such a small number of bits of information are involved in these principles,",
            id="of-information-stays-two-words",
        ),
    ],
)
def test_sentences_read_off_the_page_occur_once_on_it(page: int, sentence: str) -> None:
    _, result = _cai()
    (found,) = find_occurrences(result.text, sentence)
    assert page_for_offset(result.pages, found.char_start) == page
    assert "ofinformation" not in "".join(result.text.split(" "))


# ---------------------------------------------------------------------------------------------
# Held PDFs keep their text

PDF_TEXT_2_COMMIT = "fe330ed"  # the last commit whose PDF extractor is `pdf-text` 2


@cache
def _pdf_text_2() -> ModuleType:
    return module_from_commit(PDF_TEXT_2_COMMIT, "workbench/text/pdf.py", "pdf_text_2")


def test_version_2_is_loaded_from_its_commit() -> None:
    old = _pdf_text_2()
    assert old.PDF_EXTRACTOR == PDF_EXTRACTOR == "pdf-text"
    assert old.PDF_EXTRACTOR_VERSION.startswith("2+") and PDF_EXTRACTOR_VERSION.startswith("3+")


@pytest.mark.slow
def test_every_held_pdf_keeps_its_text_but_the_scan_read_by_ocr(
    corpus_workspace: Workspace, catalogue: Sequence[CatalogueRow]
) -> None:
    """Version 3 gives every catalogued PDF the text version 2 gave, byte for byte, except the
    filer's scan: version 2 held its cover page only, version 3 reads its other pages by OCR."""
    old = _pdf_text_2()
    changed = []
    for row in catalogue:
        if row.media_type != "application/pdf":
            continue
        held = corpus_workspace.version(row.path)
        before = old.extract_pdf(read_fetched(row, STORE), source=row.path)
        if before.text != held.text:
            changed.append(row.path)
            assert [u.page for u in before.unusable_pages] == list(range(2, len(held.pages) + 1))
            assert held.origin is not None
            assert [p.page for p in held.origin.pages if p.ocr] == list(
                range(2, len(held.pages) + 1)
            )
        else:
            assert before.pages == held.pages and before.furniture == held.furniture
    assert changed == [TX_FILER_SCAN]


@pytest.mark.slow
def test_a_version_held_by_version_2_gains_origins_and_keeps_its_row(
    tmp_path: Path, catalogue: Sequence[CatalogueRow]
) -> None:
    """A workspace that holds PDFs extracted by version 2: the next ingest extracts them again,
    and where version 3 reproduces the text hash it records the origins beside the untouched row
    (once: the run after extracts nothing); the scan, whose text version 3 changes, is refused as
    changed and stays as it was held (C4)."""
    rows = [r for r in catalogue if r.path in (NERC_012, TX_FILER_SCAN)]
    old = _pdf_text_2()
    with Workspace(tmp_path / "w.sqlite") as held:
        for row in rows:
            data = read_fetched(row, STORE)
            before = old.extract_pdf(data, source=row.path)
            as_before = replace(
                version_from_row(row, data, ocr=OcrOptions(cache=OCR_CACHE)),
                extractor_version=before.extractor_version,
                text=before.text,
                text_sha256=text_sha256(before.text),
                pages=before.pages,
                furniture=before.furniture,
                unusable_pages=before.unusable_pages,
                origin=None,
            )
            assert held.add_version(as_before, dict(row.provenance))
        rows_before = held.execute(
            "SELECT version_id, extractor_version, text_sha256 FROM versions ORDER BY version_id"
        )
        assert held.version(NERC_012).origin is None
        report = ingest(held, rows, STORE)
        assert report.added == () and report.unchanged == (NERC_012,)
        (refusal,) = report.refused
        assert (refusal.path, refusal.reason) == (TX_FILER_SCAN, "corpus_changed")
        assert (
            held.execute(
                "SELECT version_id, extractor_version, text_sha256 FROM versions ORDER BY version_id"
            )
            == rows_before
        )
        nerc = held.version(NERC_012)
        assert nerc.extractor_version.startswith("2+")
        assert nerc.origin is not None and {r.origin for r in nerc.origin.runs} == {
            "glyphs",
            "none",
        }
        assert held.held_extractors(NERC_012) == (
            rows[0].sha256 if rows[0].path == NERC_012 else rows[1].sha256,
            frozenset(
                {
                    (PDF_EXTRACTOR, nerc.extractor_version),
                    (PDF_EXTRACTOR, CURRENT_EXTRACTORS[PDF_EXTRACTOR]),
                }
            ),
        )
        again = ingest(held, rows, STORE)
        assert again.unchanged == (NERC_012,) and [r.path for r in again.refused] == [TX_FILER_SCAN]
        assert held.execute("SELECT COUNT(*) FROM text_origins") == [(1,)]
        with pytest.raises(Exception, match="append-only table text_origins: UPDATE refused"):
            held.execute("UPDATE text_origins SET origin = '{}'")


# ---------------------------------------------------------------------------------------------
# Origins


def test_origin_runs_partition_every_held_text(workspace: Workspace) -> None:
    for version in workspace.versions():
        origin = version.origin
        assert isinstance(origin, TextOrigins), version.version_id
        assert origin.runs[0].char_start == 0 and origin.runs[-1].char_end == len(version.text)
        assert all(
            a.char_end == b.char_start and a.origin != b.origin for a, b in pairwise(origin.runs)
        )
        if version.media_type == "application/pdf":
            assert [p.page for p in origin.pages] == [s.page for s in version.pages]
            assert (
                origin.runs[-1].origin == "none"
                and version.text[origin.runs[-1].char_start :] == "\n"
            )
        else:
            assert [(r.origin, r.char_end) for r in origin.runs] == [("glyphs", len(version.text))]


@pytest.mark.parametrize("path", COMMISSION_COPIES, ids=["49421-v2", "49595-U2", "49595-U3"])
def test_the_commissions_copies_are_invisible_by_detection(workspace: Workspace, path: str) -> None:
    """Every page the commission published holds its OCR layer in render mode 3 over the scan:
    no character of the text is the filing's own drawing."""
    version = workspace.version(path)
    assert version.origin is not None
    assert {r.origin for r in version.origin.runs} == {"invisible", "none"}
    pages = version.origin.pages
    assert {p.origin for p in pages if p.characters} == {"invisible"}
    assert all(p.ocr is None for p in pages)


def test_versions_json_counts_characters_by_origin(workspace: Workspace) -> None:
    name = "puct-49421-item80-cehe-response-to-tiec-rfi-set1"
    family = workspace.versions(name)
    listed = version_listing(workspace, name)
    for row, version in zip(listed, family, strict=True):
        shown = [c for c in version.text if not c.isspace()]
        assert sum(row["origin"].values()) == len(shown)
    assert set(listed[0]["origin"]) == {"glyphs", "ocr"}  # the cover page, the scanned pages
    assert set(listed[1]["origin"]) == {"invisible"}


TEXT = b"BT /F1 12 Tf 72 700 Td (Hidden words under the scan.) Tj ET\n"
STAMP = b"BT /F1 12 Tf 72 100 Td (Stamped over it.) Tj ET\n"
IMAGE = b"q 612 0 0 792 0 0 cm BI /W 1 /H 1 /CS /G /BPC 8 ID \xff EI Q\n"
SMALL_IMAGE = b"q 100 0 0 100 400 400 cm BI /W 1 /H 1 /CS /G /BPC 8 ID \xff EI Q\n"


HIDDEN, SHOWN = "Hidden words under the scan.", "Stamped over it."


@pytest.mark.parametrize(
    ("content", "runs"),
    [
        pytest.param(
            TEXT + IMAGE + STAMP,
            [("invisible", HIDDEN), ("glyphs", SHOWN)],
            id="under-then-over-a-page-image",
        ),
        pytest.param(IMAGE + TEXT, [("glyphs", HIDDEN)], id="over-a-page-image"),
        pytest.param(TEXT + SMALL_IMAGE, [("glyphs", HIDDEN)], id="under-a-small-image"),
        pytest.param(b"3 Tr " + TEXT, [("invisible", HIDDEN)], id="render-mode-3"),
        pytest.param(b"7 Tr " + TEXT, [("invisible", HIDDEN)], id="render-mode-7-clip-only"),
    ],
)
def test_text_is_invisible_under_a_page_image_or_in_an_invisible_mode(
    content: bytes, runs: list[tuple[str, str]]
) -> None:
    result = extract_pdf(_pdf(content), source="x.pdf")
    assert result.origin is not None
    found = [
        (r.origin, result.text[r.char_start : r.char_end])
        for r in result.origin.runs
        if r.origin != "none"
    ]
    assert found == runs


@pytest.mark.slow
def test_a_tesseract_pdf_of_a_held_page_is_invisible(tmp_path: Path) -> None:
    """Tesseract's own PDF output of a held page's image (`tesseract page.png out -l eng pdf`):
    the image, and its words in render mode 3 over it. The workbench records them `invisible`,
    and finds there the sentence a person read off that page (tests/text/test_extract_pdf.py)."""
    document = pdfium.PdfDocument((STORE / NERC_012).read_bytes())
    document[1].render(scale=300 / 72).to_pil().save(tmp_path / "page.png", dpi=(300, 300))
    document.close()
    subprocess.run(
        ["tesseract", "page.png", "out", "-l", "eng", "pdf"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        env={**os.environ, "OMP_THREAD_LIMIT": "1"},
    )
    result = extract_pdf((tmp_path / "out.pdf").read_bytes(), source="out.pdf")
    assert result.origin is not None
    assert {r.origin for r in result.origin.runs} == {"invisible", "none"}
    (page,) = result.origin.pages
    assert page.origin == "invisible" and page.ocr is None
    sentence = "The Responsible Entity is not required to include oral communications in its plan."
    assert len(find_occurrences(result.text, sentence)) == 1
