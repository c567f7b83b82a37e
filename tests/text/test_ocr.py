"""OCR as a named extractor: the filer's scan read by tesseract, deterministic and cached.

Every sentence and table line fixed here was read by a person off the page rendered with
pypdfium2 (page N named beside it), never copied from an OCR output. The commission's copy of the
same response carries the commission's own OCR layer (invisible text), so a sentence both hold is
two independent machine readings agreeing.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pytest

from tests.conftest import OCR_CACHE, STORE
from workbench.cite import find_occurrences
from workbench.corpus import add as corpus_add
from workbench.corpus import read_fetched
from workbench.derived import code_digest
from workbench.errors import (
    AddError,
    ExtractionError,
    FamilyTaskFailed,
    OcrEngineMismatch,
    OcrUnavailable,
)
from workbench.measure.tasks import FamilyTask, load_family
from workbench.models import CatalogueRow, page_for_offset
from workbench.text import ocr
from workbench.text.ocr import (
    LOW_CONFIDENCE,
    OCR_SETTINGS,
    EngineBuild,
    OcrOptions,
    engine_build,
    read_page,
    tesseract_languages,
)
from workbench.text.pdf import extract_pdf
from workbench.workspace import Workspace, ingest

TX = "us-tx/puct-49421-item80-cehe-response-to-tiec-rfi-set1/"
TX_FILER_SCAN = TX + "v1_cehe-filer-copy_D49421-CEHE-Response-to-TIEC-1st-RFIs.pdf"
TX_COMMISSION = TX + "v2_puct-interchange_49421_80_1016841.PDF"
NERC_012 = "us-nerc/nerc-cip-012/cip-012-1.pdf"


def test_the_filers_scan_is_read_by_ocr_page_by_page(workspace: Workspace) -> None:
    """The cover page is drawn text; every other page is a scan with only its page number drawn
    over it, read by OCR in English; none is left unusable."""
    scan = workspace.version(TX_FILER_SCAN)
    assert scan.unusable_pages == ()
    assert scan.origin is not None
    pages = scan.origin.pages
    assert [p.origin for p in pages] == ["glyphs"] + ["ocr"] * (len(pages) - 1)
    build = engine_build()
    for page in pages[1:]:
        reading = page.ocr
        assert reading is not None and reading.words
        assert reading.extractor == "tesseract-ocr 1"
        assert reading.engine == build.identity("eng") and reading.languages == "eng"
        assert reading.settings == OCR_SETTINGS
        assert reading.low_confidence is (reading.mean_confidence < LOW_CONFIDENCE)
        span = scan.pages[page.page - 1]
        for word in reading.words:
            assert span.char_start <= word.char_start < word.char_end <= span.char_end
            assert not scan.text[word.char_start : word.char_end].isspace()
            assert 0 <= word.x0 < word.x1 <= 612 and 0 <= word.y0 < word.y1 <= 792


# Page 7 of the filer's scan (TIEC01-03, question c), page 8 of the commission's copy.
BOTH_READ = (
    "Is the amount of the Municipal Account Franchise Credit based on total class kWh or the kWh "
    "associated with municipal accounts?"
)


def test_two_machine_readings_agree_on_a_sentence_read_off_the_page(workspace: Workspace) -> None:
    scan, commission = workspace.version(TX_FILER_SCAN), workspace.version(TX_COMMISSION)
    (ours,) = find_occurrences(scan.text, BOTH_READ)
    (theirs,) = find_occurrences(commission.text, BOTH_READ)
    assert page_for_offset(scan.pages, ours.char_start) == 7
    assert page_for_offset(commission.pages, theirs.char_start) == 8
    assert scan.origin is not None and commission.origin is not None
    assert scan.origin.touched(ours.char_start, ours.char_end) == ("ocr",)
    assert commission.origin.touched(theirs.char_start, theirs.char_end) == ("invisible",)


# Page 4 of the filer's scan is a landscape table printed sideways on a portrait page; its row for
# line 13, read off the page turned upright. The table is laid out like a table of glyphs: its
# columns are cut at the gutter after the present revenues, so the row's two halves stand on two
# lines of the text, and white space between them is one space to the search.
TABLE_LINE = (
    "Retail Electric Delivery Revenues 2,503,211 $ 2,095,600,469 $ 2,282,203,678 $ "
    "(32,358,663) $ 154,244,545 7.4%"
)


def test_a_landscape_table_page_is_turned_upright_and_its_line_read(workspace: Workspace) -> None:
    scan = workspace.version(TX_FILER_SCAN)
    assert scan.origin is not None
    page = scan.origin.pages[3]
    assert page.ocr is not None and page.ocr.rotation in (90, 270)
    span = scan.pages[3]
    found = find_occurrences(scan.text[span.char_start : span.char_end], TABLE_LINE)
    assert len(found) == 1


# ---------------------------------------------------------------------------------------------
# Determinism, the cache, the engine


@pytest.fixture(scope="module")
def scan_page() -> Iterator[tuple[pdfium.PdfPage, str]]:
    """Page 2 of the filer's scan, open, and the scan's SHA-256."""
    data = (STORE / TX_FILER_SCAN).read_bytes()
    document = pdfium.PdfDocument(data)
    page = document[1]
    yield page, hashlib.sha256(data).hexdigest()
    page.close()
    document.close()


def _read(page: pdfium.PdfPage, artefact: str, options: OcrOptions) -> ocr.PageReading:
    return read_page(
        page,
        page_number=2,
        artefact_sha256=artefact,
        languages="eng",
        options=options,
        source=TX_FILER_SCAN,
    )


@pytest.mark.slow
def test_two_readers_that_miss_the_same_page_run_the_engine_once(
    scan_page: tuple[pdfium.PdfPage, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first reader of a page the cache misses holds its entry while the engine runs; a
    second that misses the same page meanwhile waits, then takes the first's words from the
    cache. (Two threads: each opens the entry for itself, so they lock it as two processes do.)"""
    page, artefact = scan_page
    words = _read(page, artefact, OcrOptions(cache=OCR_CACHE))  # the engine's reading of it
    options = OcrOptions(cache=tmp_path / "ocr-cache")
    reads: list[int] = []
    engine_running, second_missed = threading.Event(), threading.Event()

    def engine(*_: object, page_number: int, **__: object) -> ocr.PageReading:
        reads.append(page_number)
        engine_running.set()
        assert second_missed.wait(timeout=60)  # the first holds the entry until the second missed
        return words

    cached = ocr.OcrCache.get

    def get(cache: ocr.OcrCache, inputs: Mapping[str, object]) -> ocr.PageReading | None:
        held = cached(cache, inputs)
        if held is None and threading.current_thread().name == "second":
            second_missed.set()
        return held

    monkeypatch.setattr(ocr, "_read", engine)
    monkeypatch.setattr(ocr.OcrCache, "get", get)
    readings: dict[str, ocr.PageReading] = {}

    def reader(name: str) -> threading.Thread:
        def read() -> None:
            readings[name] = _read(page, artefact, options)

        return threading.Thread(target=read, name=name)

    first, second = reader("first"), reader("second")
    first.start()
    assert engine_running.wait(timeout=60)
    second.start()
    first.join(timeout=120)
    second.join(timeout=120)
    assert reads == [2]
    assert readings == {"first": words, "second": words}


@pytest.mark.slow
def test_the_same_page_read_twice_by_the_engine_gives_the_same_words(
    scan_page: tuple[pdfium.PdfPage, str],
) -> None:
    page, artefact = scan_page
    first = _read(page, artefact, OcrOptions())
    second = _read(page, artefact, OcrOptions())
    assert first == second and len(first.words) > 100


@pytest.mark.slow
def test_a_cached_page_is_never_read_again(
    scan_page: tuple[pdfium.PdfPage, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page, artefact = scan_page
    options = OcrOptions(cache=tmp_path / "ocr-cache")
    first = _read(page, artefact, options)
    (entry,) = (tmp_path / "ocr-cache").iterdir()

    def no_engine(*_: object, **__: object) -> bytes:
        raise AssertionError("the engine ran for a cached page")

    monkeypatch.setattr(ocr, "_run", no_engine)
    assert _read(page, artefact, options) == first
    # An entry for other inputs (here: the page read as German) is not this page's reading: the
    # page is read again (by a stand-in that counts the reads and gives the engine's words).
    data = json.loads(entry.read_text())
    data["inputs"]["languages"] = "deu"
    entry.write_text(json.dumps(data))
    reads: list[int] = []

    def counted(*_: object, page_number: int, **__: object) -> ocr.PageReading:
        reads.append(page_number)
        return first

    monkeypatch.setattr(ocr, "_read", counted)
    assert _read(page, artefact, options) == first and reads == [2]
    assert json.loads(entry.read_text())["inputs"]["languages"] == "eng"  # read again, replaced


def test_another_engine_build_is_refused_by_name(scan_page: tuple[pdfium.PdfPage, str]) -> None:
    page, artefact = scan_page
    here = engine_build()
    other = EngineBuild(version="tesseract 5.4.1 leptonica-1.84.1", data=here.data)
    with pytest.raises(OcrEngineMismatch) as caught:
        _read(page, artefact, OcrOptions(engine=other))
    assert str(caught.value) == (
        f"{TX_FILER_SCAN}: page 2: this machine's OCR engine is '{here.identity('eng')}'; the run "
        f"requires '{other.identity('eng')}'; install the same tesseract build and data everywhere"
    )


def test_a_dask_worker_with_another_engine_is_refused_by_name(
    catalogue: Sequence[CatalogueRow], workspace: Workspace
) -> None:
    rows = tuple(r for r in catalogue if r.path in (TX_FILER_SCAN, TX_COMMISSION))
    other = EngineBuild(version="tesseract 4.1.1 leptonica-1.79.0", data=engine_build().data)
    task = FamilyTask(
        jurisdiction="us-tx",
        family=rows[0].family,
        store=str(STORE.resolve()),
        rows=rows,
        text_sha256=tuple(workspace.version(r.path).text_sha256 for r in rows),
        code_digest=code_digest(),
        ocr=OcrOptions(cache=None, engine=other),
    )
    with pytest.raises(FamilyTaskFailed, match=r"^family us-tx/puct-49421.*this machine's OCR "):
        load_family(task)
    same = replace(task, ocr=OcrOptions(cache=OCR_CACHE, engine=engine_build()))
    assert [v.text_sha256 for v in load_family(same)[0]] == list(task.text_sha256)


def test_a_missing_engine_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ocr, "TESSERACT", "/nonexistent/tesseract")
    engine_build.cache_clear()
    try:
        with pytest.raises(OcrUnavailable) as caught:
            engine_build()
    finally:
        engine_build.cache_clear()
    assert str(caught.value) == (
        "the OCR engine '/nonexistent/tesseract' is not installed; expected Debian's "
        "tesseract-ocr (run 'make ocr', or 'apt-get install tesseract-ocr tesseract-ocr-eng')"
    )


@pytest.mark.parametrize(
    ("language", "codes"),
    [
        pytest.param(None, "eng", id="absent-is-english"),
        pytest.param("en", "eng", id="en"),
        pytest.param("de", "deu", id="de"),
        pytest.param("fr-CA", "fra", id="fr-CA"),
    ],
)
def test_the_language_comes_from_the_provenance(language: str | None, codes: str) -> None:
    assert tesseract_languages(language, source="x.pdf") == codes


def test_a_language_without_ocr_data_is_refused() -> None:
    with pytest.raises(OcrUnavailable) as caught:
        tesseract_languages("es", source="x.pdf")
    assert str(caught.value) == (
        "x.pdf: provenance language 'es' has no OCR data here; expected one of de, en, fr"
    )


# ---------------------------------------------------------------------------------------------
# Scans with no text layer at all


def _scan_pdf(path: str, page_index: int, dpi: int) -> bytes:
    """An image-only PDF: one page of a held PDF rendered at `dpi`, drawn page-sized."""
    source = pdfium.PdfDocument((STORE / path).read_bytes())
    page = source[page_index]
    width, height = page.get_size()
    bitmap = page.render(scale=dpi / 72, grayscale=True)
    made = pdfium.PdfDocument.new()
    new = made.new_page(width, height)
    image = pdfium.PdfImage.new(made)
    image.set_bitmap(bitmap)
    image.set_matrix(pdfium.PdfMatrix().scale(width, height))
    new.insert_obj(image)
    new.gen_content()
    return _saved(made)


def _saved(made: pdfium.PdfDocument) -> bytes:
    """The document's bytes, with the creation time PDFium writes set to a fixed one and the
    file identifier it draws at random replaced by one read off the rest (both the same length,
    so no offset moves): the same page makes the same artefact each run, so the OCR cache (keyed
    by the artefact's SHA-256) holds its reading."""
    out = io.BytesIO()
    made.save(out)
    saved, count = re.subn(
        rb"/CreationDate\(D:\d{14}", b"/CreationDate(D:20000101000000", out.getvalue()
    )
    assert count == 1, "PDFium wrote no creation time, or more than one"
    drawn = re.compile(rb"/ID\[<([0-9A-F]{32})><([0-9A-F]{32})>\]")
    digest = hashlib.sha256(drawn.sub(b"", saved)).hexdigest()[:32].upper().encode()
    fixed, count = drawn.subn(b"/ID[<" + digest + b"><" + digest + b">]", saved)
    assert count == 1, "PDFium wrote no file identifier, or more than one"
    return fixed


def test_an_image_only_pdf_is_read_by_ocr() -> None:
    """CIP-012-1's page 2 as a scan with no text layer: read by OCR, the sentence a person read
    off the page found (tests/text/test_extract_pdf.py), the page not flagged."""
    result = extract_pdf(
        _scan_pdf(NERC_012, 1, 300), source="scan.pdf", ocr=OcrOptions(cache=OCR_CACHE)
    )
    (page,) = result.origin.pages if result.origin else ()
    assert page.origin == "ocr" and page.ocr is not None and not page.ocr.low_confidence
    sentence = "The Responsible Entity is not required to include oral communications in its plan."
    assert len(find_occurrences(result.text, sentence)) == 1


def test_a_blurred_scan_is_flagged_below_the_confidence_threshold() -> None:
    """The same page scanned at 30 dots per inch: OCR reads something, with a mean word
    confidence below `LOW_CONFIDENCE`, and says so."""
    blurred = _scan_pdf(NERC_012, 1, 30)
    result = extract_pdf(blurred, source="blur.pdf", ocr=OcrOptions(cache=OCR_CACHE))
    (page,) = result.origin.pages if result.origin else ()
    assert page.ocr is not None
    assert page.ocr.mean_confidence < LOW_CONFIDENCE and page.ocr.low_confidence


def test_a_scan_that_still_yields_nothing_is_reported_not_ingested(tmp_path: Path) -> None:
    """A blank page-sized image: OCR reads nothing, so the document is refused at ingest and
    the report says why (it is never held, never measured)."""
    blank = pdfium.PdfBitmap.new_native(85, 110, pdfium.raw.FPDFBitmap_Gray)
    blank.fill_rect((255, 255, 255, 255), 0, 0, 85, 110)
    made = pdfium.PdfDocument.new()
    page = made.new_page(612, 792)
    image = pdfium.PdfImage.new(made)
    image.set_bitmap(blank)
    image.set_matrix(pdfium.PdfMatrix().scale(612, 792))
    page.insert_obj(image)
    page.gen_content()
    source = tmp_path / "blank.pdf"
    source.write_bytes(_saved(made))
    mirror = tmp_path / "mirror"
    report = corpus_add.add_files(
        [source],
        mirror,
        jurisdiction="xx",
        family="blank-scan",
        official=True,
        url="https://example.org/blank.pdf",
        language="en",
    )
    (placement,) = report.placements
    assert placement.provenance["language"] == "en"
    row = CatalogueRow.of(placement.path, placement.provenance)
    with Workspace(tmp_path / "w.sqlite") as held:
        result = ingest(held, [row], mirror)
        assert result.added == () and held.count() == 0
    (refusal,) = result.refused
    assert (refusal.path, refusal.reason) == ("xx/blank-scan/blank.pdf", "extraction_failed")
    assert refusal.detail == (
        "xx/blank-scan/blank.pdf: no page has usable text (page 1: no_text), from its text layer "
        "or by OCR of a scanned page; expected a PDF with text"
    )
    with pytest.raises(ExtractionError):
        extract_pdf(read_fetched(row, mirror), source="blank.pdf")


def test_corpus_add_refuses_a_language_that_is_no_tag(tmp_path: Path) -> None:
    source = tmp_path / "a.txt"
    source.write_bytes(b"Words.\n")
    with pytest.raises(AddError) as caught:
        corpus_add.add_files(
            [source],
            tmp_path / "mirror",
            jurisdiction="xx",
            family="f",
            official=True,
            url="https://example.org/a.txt",
            language="English",
        )
    assert str(caught.value) == (
        "--language: expected a language tag such as en, de or fr-CA, got 'English'"
    )
    assert not (tmp_path / "mirror").exists()
