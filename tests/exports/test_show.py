"""`workbench show`: a span's page region as a PNG, its characters' boxes highlighted (C18), checked
by reading the PNG's pixels: outside the boxes the page as PDFium draws it, inside them that page
blended with the fill, around them the outline; and the boxes hold the quote's words, by PDFium's
own text of the box (glyphs) or by the OCR words the version holds (ocr)."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pytest
from PIL import Image

from tests.conftest import CORPUS_DIR, STORE, command_paths
from tests.exports.test_bundle import _frictionless, _rewrite
from workbench.cli import main
from workbench.exports import verify_bundle
from workbench.exports.crops import FILL, FILL_ALPHA, OUTLINE, OUTLINE_WIDTH, show_span
from workbench.text.ocr import OcrOptions, default_cache
from workbench.text.pdf import Placed, extract_pdf
from workbench.workspace import Workspace

NERC = "us-nerc/nerc-cip-002/cip-002-8.pdf"
# Starts inside a line and runs over three: the first box starts at "the", not at the line.
NERC_QUOTE = (
    "the following Facilities, systems, and equipment owned by each Responsible Entity in 4.1 "
    "above are those to which"
)
# A sentence further down the same version, held once: a second crop of one PDF.
NERC_SECOND_QUOTE = (
    "One or more of the following Facilities, systems and equipment owned by the Distribution "
    "Provider for the protection or restoration of the BES"
)
TX_FILER_SCAN = (
    "us-tx/puct-49421-item80-cehe-response-to-tiec-rfi-set1/"
    "v1_cehe-filer-copy_D49421-CEHE-Response-to-TIEC-1st-RFIs.pdf"
)
# The question tests/cite/test_machine_read.py cites from a page of the scan our OCR read.
OCR_QUOTE = (
    "Please explain why wholesale transmission revenues are increasing while CenterPoint is "
    "proposing to decrease the wholesale transmission rate."
)
NICS = "us-federal/fbi-nics-firearm-checks-2015-11/nics-background-checks-2015-11"
TABLE_ROW = "Connecticut 9,631 11,594 5,072 134 0 7 0 0"


def _span(text: str, quote: str) -> tuple[int, int]:
    found = re.search(r"\s+".join(map(re.escape, quote.split())), text)
    assert found is not None, quote
    return found.span()


def _show(workspace: Workspace, tmp_path: Path, version_id: str, quote: str) -> dict[str, Any]:
    start, end = _span(workspace.version(version_id).text, quote)
    png = tmp_path / "crops" / "quote.png"
    argv = ["show", version_id, "--span", f"{start}:{end}", "--png", str(png), "--json"]
    return {"png": png, "start": start, "end": end, "argv": argv}


def _run_json(
    argv: list[str], workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> dict[str, Any]:
    assert main([*argv, *command_paths(workspace)]) == 0
    shown: dict[str, Any] = json.loads(capsys.readouterr().out)
    return shown


def _check_pixels(png: Path, plain: Image.Image, boxes: list[list[int]]) -> None:
    """Outside every box and its outline: PDFium's page unchanged; inside a box (off every
    outline): the page blended with FILL at FILL_ALPHA; just outside each box: the outline."""
    shown = np.asarray(Image.open(io.BytesIO(png.read_bytes())).convert("RGB"), dtype=np.int16)
    page = np.asarray(plain, dtype=np.int16)
    assert shown.shape == page.shape
    w = OUTLINE_WIDTH
    box = np.zeros(shown.shape[:2], dtype=bool)
    ring = np.zeros(shown.shape[:2], dtype=bool)
    for left, top, right, bottom in boxes:
        box[top:bottom, left:right] = True
    for left, top, right, bottom in boxes:
        outer = np.zeros_like(ring)
        outer[max(top - w, 0) : bottom + w, max(left - w, 0) : right + w] = True
        outer[top:bottom, left:right] = False
        ring |= outer
    inside, outside = box & ~ring, ~box & ~ring
    assert (shown[ring] == OUTLINE).all()
    blend = np.rint(page * (1 - FILL_ALPHA) + np.array(FILL) * FILL_ALPHA)
    assert (np.abs(shown[inside] - blend[inside]) <= 1).all()
    assert (np.abs(page[inside] - blend[inside]) > 1).any(axis=1).sum() > 0.9 * inside.sum()
    assert (shown[outside] == page[outside]).all()
    assert inside.sum() > 0 and outside.sum() > inside.sum()


def _plain(workspace: Workspace, version_id: str, start: int, end: int) -> Image.Image:
    image = show_span(
        workspace,
        version_id,
        start,
        end,
        corpus_dir=CORPUS_DIR,
        store=STORE,
        ocr_cache=default_cache(workspace.path),
        highlight=False,
    )
    return Image.open(io.BytesIO(image.png)).convert("RGB")


def _pdfium_words(version_id: str, highlights: list[dict[str, Any]]) -> list[str]:
    """PDFium's own text inside each highlighted box, word by word."""
    document = pdfium.PdfDocument(STORE / version_id)
    words: list[str] = []
    try:
        for h in highlights:
            textpage = document[h["page"] - 1].get_textpage()
            words += textpage.get_text_bounded(*h["box"]).split()
            textpage.close()
    finally:
        document.close()
    return words


def test_a_glyph_quote_is_highlighted_glyph_by_glyph_on_its_nerc_page(
    workspace: Workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    call = _show(workspace, tmp_path, NERC, NERC_QUOTE)
    shown = _run_json(call["argv"], workspace, capsys)
    highlights = shown["highlights"]
    assert {h["origin"] for h in highlights} == {"glyphs"}
    # One box per line the quote touches; together they hold the quote's words and no other.
    assert len(highlights) == 3
    assert _pdfium_words(NERC, highlights) == NERC_QUOTE.split()
    assert (highlights[0]["char_start"], highlights[-1]["char_end"]) == (call["start"], call["end"])
    plain = _plain(workspace, NERC, call["start"], call["end"])
    _check_pixels(call["png"], plain, [h["pixels"] for h in highlights])
    # Written again, the image is byte for byte the same (no time stamp in it).
    first = call["png"].read_bytes()
    _run_json(call["argv"], workspace, capsys)
    assert call["png"].read_bytes() == first


def test_an_ocr_quote_is_highlighted_word_by_word_on_the_filers_scan(
    workspace: Workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    call = _show(workspace, tmp_path, TX_FILER_SCAN, OCR_QUOTE)
    shown = _run_json(call["argv"], workspace, capsys)
    highlights = shown["highlights"]
    version = workspace.version(TX_FILER_SCAN)
    # One box per OCR word, each the word the text holds at its offsets.
    assert {h["origin"] for h in highlights} == {"ocr"}
    held = [version.text[h["char_start"] : h["char_end"]] for h in highlights]
    assert held == OCR_QUOTE.split()
    assert version.origin is not None
    (reading,) = {p.ocr for p in version.origin.pages if p.page == highlights[0]["page"]}
    assert reading is not None
    boxes = {(w.char_start, w.char_end): [w.x0, w.y0, w.x1, w.y1] for w in reading.words}
    assert [h["box"] for h in highlights] == [
        boxes[h["char_start"], h["char_end"]] for h in highlights
    ]
    plain = _plain(workspace, TX_FILER_SCAN, call["start"], call["end"])
    _check_pixels(call["png"], plain, [h["pixels"] for h in highlights])


def test_a_rotated_page_is_highlighted_where_its_row_is_drawn(
    workspace: Workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    boxes = {}
    for name in ("", "-rotated"):
        version_id = f"{NICS}{name}.pdf"
        call = _show(workspace, tmp_path, version_id, TABLE_ROW)
        highlights = _run_json(call["argv"], workspace, capsys)["highlights"]
        assert _pdfium_words(version_id, highlights) == TABLE_ROW.split()
        boxes[name] = [h["pixels"] for h in highlights]
        plain = _plain(workspace, version_id, call["start"], call["end"])
        _check_pixels(call["png"], plain, boxes[name])
    # The rotated page is drawn turned a quarter: each cell's box, wide upright, is tall there.
    for (a, b, c, d), (e, f, g, h) in zip(boxes[""], boxes["-rotated"], strict=True):
        assert abs((c - a) - (h - f)) <= 2 and abs((d - b) - (g - e)) <= 2


def test_the_trace_leaves_the_held_text_byte_identical(workspace: Workspace) -> None:
    for version_id in (NERC, f"{NICS}-rotated.pdf", TX_FILER_SCAN):
        version = workspace.version(version_id)
        trace: list[Placed] = []
        extraction = extract_pdf(
            (STORE / version_id).read_bytes(),
            source=version_id,
            ocr=_ocr_options(workspace),
            trace=trace,
        )
        assert extraction.text == version.text
        assert extraction.origin == version.origin
        # Every placed run's text stands in the text where the trace says it does.
        for offset, _, run in trace:
            text = "".join(run.parts)
            assert version.text[offset : offset + len(text)] == text
            assert run.boxes is None or len(run.boxes) == len(text)


def _ocr_options(workspace: Workspace) -> OcrOptions:
    return OcrOptions(cache=default_cache(workspace.path))


@pytest.mark.parametrize(
    ("version_id", "options", "message"),
    [
        (
            "ietf/draft-wilde-xml-patch/draft-wilde-xml-patch-00.txt",
            ["--span", "0:10", "--png", "{tmp}/x.png"],
            "workbench: error: ietf/draft-wilde-xml-patch/draft-wilde-xml-patch-00.txt: media "
            "type text/plain; show renders the pages of a PDF version (application/pdf)",
        ),
        (
            NERC,
            ["--span", "10:{length+1}", "--png", "{tmp}/x.png"],
            "workbench: error: --span 10:{length+1}: not a non-empty span of {version}, whose text "
            "has {length} characters; expected 0 <= START < END <= {length}",
        ),
        (
            NERC,
            ["--span", "12:12", "--png", "{tmp}/x.png"],
            "workbench: error: --span 12:12: not a non-empty span of {version}, whose text has "
            "{length} characters; expected 0 <= START < END <= {length}",
        ),
        (
            NERC,
            ["--span", "{length-1}:{length}", "--png", "{tmp}/x.png"],
            "workbench: error: --span {length-1}:{length}: no character of the span has a box "
            "on a page of {version} (only white space the extractor wrote)",
        ),
        (
            NERC,
            ["--span", "10-20", "--png", "{tmp}/x.png"],
            "workbench show: error: argument --span: '10-20': expected START:END, two character "
            "offsets such as 120:180",
        ),
        (
            NERC,
            ["--span", "10:20", "--png", "{tmp}"],
            "workbench show: error: argument --png: {tmp}: is a folder; give a file name",
        ),
        (
            NERC,
            ["--span", "10:20", "--png", "{tmp}/x.jpg"],
            "workbench show: error: argument --png: {tmp}/x.jpg: not a .png file name; the "
            "image is written as PNG",
        ),
        (
            "us-nerc/nerc-cip-002/cip-002-9.pdf",
            ["--span", "10:20", "--png", "{tmp}/x.png"],
            "workbench: error: us-nerc/nerc-cip-002/cip-002-9.pdf: no such version in "
            "{workspace}; see 'workbench ingest'",
        ),
    ],
    ids=[
        "not-a-pdf",
        "past-the-end",
        "empty",
        "white-space",
        "syntax",
        "folder",
        "not-png",
        "unknown",
    ],
)
def test_show_refuses_hostile_arguments_in_one_line_writing_nothing(
    workspace: Workspace,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    version_id: str,
    options: list[str],
    message: str,
) -> None:
    length = len(workspace.version(NERC).text)
    fill = {
        "{tmp}": str(tmp_path),
        "{length+1}": str(length + 1),
        "{length-1}": str(length - 1),
        "{length}": str(length),
        "{version}": NERC,
        "{workspace}": str(workspace.path),
    }

    def filled(text: str) -> str:
        for key, value in fill.items():
            text = text.replace(key, value)
        return text

    argv = ["show", version_id, *(filled(o) for o in options), *command_paths(workspace)]
    code: int | str | None
    try:
        code = main(argv)
    except SystemExit as stop:  # refused while the command line is parsed
        code = stop.code
    assert code == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [filled(message)] and captured.out == ""
    assert list(tmp_path.iterdir()) == []


def _count_extractions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sources `text.pdf.extract_pdf` extracts from now on, in order (through the module and
    through `text.extraction`, which binds it at import)."""
    import workbench.text.extraction as extraction
    import workbench.text.pdf as pdf

    sources: list[str] = []
    whole = pdf.extract_pdf

    def counted(data: bytes, **options: Any) -> Any:
        sources.append(options["source"])
        return whole(data, **options)

    monkeypatch.setattr(pdf, "extract_pdf", counted)
    monkeypatch.setattr(extraction, "extract_pdf", counted)
    return sources


def test_bundle_with_crops_holds_each_verified_pdf_quotes_image_and_re_checks_it(
    workspace: Workspace,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two glyph quotes of one version and an OCR quote get their images, as `show` draws them; a
    plain-text quote and a refused citation get none; a re-check draws them again; a swapped
    image is named. Each PDF is extracted once: the two crops of one version share its trace, and
    the re-check reads each version's parts and glyph boxes off its one re-extraction."""
    records = []
    for version_id, quote in ((NERC, NERC_QUOTE), (TX_FILER_SCAN, OCR_QUOTE)):
        text = workspace.version(version_id).text
        start, end = _span(text, quote)
        records.append(
            {
                "version_id": version_id,
                "char_start": start,
                "char_end": end,
                "quoted_text": text[start:end],
            }
        )
    plain_text = "ietf/draft-wilde-xml-patch/draft-wilde-xml-patch-00.txt"
    records.append(
        {
            "version_id": plain_text,
            "char_start": 0,
            "char_end": 8,
            "quoted_text": workspace.version(plain_text).text[:8],
        }
    )
    records.append({**records[0], "char_start": records[0]["char_start"] + 1})  # refused
    start, end = _span(workspace.version(NERC).text, NERC_SECOND_QUOTE)
    records.append({**records[0], "char_start": start, "char_end": end})
    records[-1]["quoted_text"] = workspace.version(NERC).text[start:end]
    citations = tmp_path / "citations.jsonl"
    citations.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    bundle = tmp_path / "crops.zip"
    argv = [
        "bundle",
        str(bundle),
        "--citations",
        str(citations),
        "--with-crops",
        "--with-documents",
    ]
    extracted = _count_extractions(monkeypatch)
    assert main([*argv, *command_paths(workspace)]) == 0
    assert ", crops inside;" in capsys.readouterr().out
    assert extracted == [NERC]  # its two crops' glyph boxes; the parts were kept at ingest
    with zipfile.ZipFile(bundle) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    descriptor = json.loads(members["datapackage.json"])
    crops = [r for r in descriptor["resources"] if "workbench:crop" in r]
    assert [(r["name"], r["path"], r["mediatype"]) for r in crops] == [
        ("crop-1", "crops/1.png", "image/png"),
        ("crop-2", "crops/2.png", "image/png"),
        ("crop-5", "crops/5.png", "image/png"),
    ]
    for resource in crops:
        record = records[int(resource["name"][5:]) - 1]
        png = tmp_path / f"{resource['name']}.png"
        span = f"{record['char_start']}:{record['char_end']}"
        shown = _run_json(
            ["show", record["version_id"], "--span", span, "--png", str(png), "--json"],
            workspace,
            capsys,
        )
        assert members[resource["path"]] == png.read_bytes()
        assert resource["workbench:crop"] == {"verdict": int(resource["name"][5:]), **shown}
    extracted.clear()
    assert verify_bundle(bundle, ocr_cache=default_cache(workspace.path)).problems == ()
    assert sorted(extracted) == [NERC, TX_FILER_SCAN]

    def swap(members: dict[str, bytes]) -> None:
        members["crops/1.png"] = members["crops/2.png"]

    forged = _rewrite(bundle, tmp_path / "forged.zip", swap, rehash=True)
    problems = verify_bundle(forged, ocr_cache=default_cache(workspace.path)).problems
    assert [(p.where, p.reason) for p in problems] == [("crops/1.png", "differs")]
    (report,) = _frictionless(bundle)
    assert report["valid"], report
