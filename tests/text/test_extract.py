"""Extraction (text/extraction.py, text/xml.py): exact decoding, XML to reading text, marks, bad input."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from tests.conftest import in_small_workspace
from workbench.errors import ExtractionError, TextDecodeError, WorkbenchError
from workbench.models import CatalogueRow, Extraction
from workbench.text.extraction import (
    EXTRACTORS,
    MAX_LINE_CHARS,
    AwaitingExtractor,
    decode_text,
    extract,
)
from workbench.text.structure import parse_structure
from workbench.text.xml import XML_BLOCKS_EXTRACTOR
from workbench.workspace import version_from_row

MIRROR = Path(
    os.environ.get("WORKBENCH_MIRROR", Path(__file__).resolve().parents[3] / "shared" / "corpus")
)

XML_FILES = (
    sorted(str(p.relative_to(MIRROR)) for p in MIRROR.glob("*/*/*") if p.suffix.lower() == ".xml")
    if MIRROR.is_dir()
    else []
)
BOM_FILES = (
    "ietf/draft-baker-soap-media-reg/draft-baker-soap-media-reg-04.txt",
    "ietf/draft-nottingham-atom-format/draft-nottingham-atom-format-01.txt",
)
TAG = re.compile(r"</?[A-Za-z_][\w.:-]*(?:\s[^<>]*)?/?>")


def _in_the_loop(paths: Iterable[str]) -> list[Any]:
    """The files as parameters, those outside the default workspace marked slow (rule 1 of
    docs/development.md: every file of the fetched store), as `document_workspace`'s cases are."""
    return [
        pytest.param(path, marks=() if in_small_workspace(path) else pytest.mark.slow)
        for path in paths
    ]


@pytest.fixture(scope="session")
def mirror() -> Path:
    if not MIRROR.is_dir():
        pytest.skip(f"no corpus mirror at {MIRROR} (set WORKBENCH_MIRROR)")
    return MIRROR


@cache
def _extract_real(root: Path, relative: str) -> Extraction:
    return extract((root / relative).read_bytes(), "application/xml", source=relative)


def _lines(root: Path, relative: str) -> list[str]:
    return _extract_real(root, relative).text.split("\n")


# --- every real XML file -------------------------------------------------------------------------


def test_corpus_holds_the_xml_kinds_we_render(mirror: Path) -> None:
    kinds = {path.split("/")[0] for path in XML_FILES}
    assert kinds == {"us-federal", "us-federal-register", "us-dc", "ca-federal"}
    assert len(XML_FILES) >= 100
    assert sum(path.startswith("ca-federal/") for path in XML_FILES) >= 20


@pytest.mark.parametrize("relative", _in_the_loop(XML_FILES))
def test_real_xml_extracts_cleanly_and_deterministically(mirror: Path, relative: str) -> None:
    data = (mirror / relative).read_bytes()
    first = _extract_real(mirror, relative)  # the extraction the other tests of this file read
    again = extract(data, "application/xml", source=relative)
    assert first == again
    expected = (
        XML_BLOCKS_EXTRACTOR
        if relative.startswith("ca-federal/")
        else EXTRACTORS["application/xml"]
    )
    assert (first.extractor, first.extractor_version) == expected
    text = first.text
    assert text.strip() and text.endswith("\n") and not text.endswith("\n\n")
    assert not text[0].isspace()
    assert TAG.search(text) is None
    assert "\n\n\n" not in text
    assert all(line == line.rstrip() for line in text.split("\n"))
    for mark in first.structure:
        assert text[mark.char_start : mark.char_end] == mark.label
        assert mark.label == mark.label.strip() and mark.path
    assert [m.char_start for m in first.structure] == sorted(m.char_start for m in first.structure)


# --- version 2 holds every version-1 XML text and its marks ---------------------------------------

# The last commit whose extractor is version 1 of "xml-text": its source is loaded from git as a
# module of its own, so the figures compared are derived here, never typed in.
XML_TEXT_V1_COMMIT = "f2e5c0f"
REPOSITORY = Path(__file__).resolve().parents[2]
STORE = REPOSITORY / "corpus" / "real"  # where the `catalogue` fixture fetched the held bytes


@cache
def _xml_text_v1() -> ModuleType:
    source = subprocess.run(
        ["git", "-C", str(REPOSITORY), "show", f"{XML_TEXT_V1_COMMIT}:workbench/extract.py"],
        check=True,
        capture_output=True,
    ).stdout
    # Its PDF extractor has moved since; the XML rule under test is exactly that commit's.
    source = source.replace(b"workbench.extract_pdf", b"workbench.text.pdf")
    spec = importlib.util.spec_from_loader("xml_text_v1", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["xml_text_v1"] = module  # dataclasses resolve their module by name
    exec(compile(source, f"{XML_TEXT_V1_COMMIT}:workbench/extract.py", "exec"), module.__dict__)
    return module


def test_version_1_is_loaded_from_its_commit() -> None:
    v1 = _xml_text_v1()
    assert v1.EXTRACTORS["application/xml"] == ("xml-text", "1")
    assert EXTRACTORS["application/xml"] == ("xml-text", "1")
    assert XML_BLOCKS_EXTRACTOR == ("xml-blocks", "1")


@pytest.mark.parametrize(
    "whole",
    [
        pytest.param(False, id="default-workspace-files"),
        # Rule 1 of docs/development.md: every XML file of the fetched store, extracted twice.
        pytest.param(True, id="every-xml-file", marks=pytest.mark.slow),
    ],
)
def test_version_2_holds_every_version_1_text_and_marks(
    catalogue: tuple[CatalogueRow, ...], whole: bool
) -> None:
    """Version 2 of the XML extractor gives every file version 1 read the same text and marks:
    on every XML file of the store, or, in the loop, those of the default workspace."""
    rows = [
        row
        for row in catalogue
        if row.media_type in {"application/xml", "text/xml"} and row.jurisdiction != "ca-federal"
        and (whole or in_small_workspace(row.path))
    ]  # fmt: skip
    assert {row.jurisdiction for row in rows} == {"us-federal", "us-federal-register", "us-dc"}
    v1 = _xml_text_v1()
    moved = []
    for row in rows:
        data = (STORE / row.path).read_bytes()
        before = v1.extract(data, row.media_type, source=row.path)
        after = extract(data, row.media_type, source=row.path)
        if (before.text, before.structure) != (after.text, after.structure):
            moved.append(row.path)
    assert not moved
    if whole:
        assert len(rows) == len(XML_FILES) - sum(p.startswith("ca-federal/") for p in XML_FILES)


# --- Justice Canada's consolidations (a schema the vocabulary never named) -----------------------

CA_FILES = [path for path in XML_FILES if path.startswith("ca-federal/")]
CER_2024 = "ca-federal/ca-cer-act/C-15.1@2024-12-08.xml"
# The largest passage a ca-federal file may give: a section's text or one table row is far
# shorter; the longest real one is a graphic's description in the Energy Efficiency Regulations.
CA_MAX_PASSAGE_CHARS = 4_000


def _passages(text: str) -> list[str]:
    return re.split(r"\n[^\S\n]*\n", text.rstrip("\n"))


def _elements(root: Path, relative: str, *names: str) -> list[etree._Element]:
    """The named elements of a file, read by lxml apart from the extractor, outside front matter."""
    tree = etree.fromstring((root / relative).read_bytes())
    front = tree.find("Identification")
    hidden = set(front.iter()) if front is not None else set()
    return [el for el in tree.iter(*names) if el not in hidden]


def _words(el: etree._Element) -> str:
    return "".join(el.itertext())


def _labels_above(el: etree._Element) -> list[str]:
    """The Label texts of the elements enclosing `el`, outermost first."""
    labels = []
    for ancestor in el.iterancestors():
        label = ancestor.find("Label")
        if label is not None and label is not el:
            labels.append(_words(label))
    return labels[::-1]


@pytest.mark.parametrize("relative", _in_the_loop(CA_FILES))
def test_ca_every_text_element_starts_a_line_after_its_own_labels(
    mirror: Path, relative: str
) -> None:
    """No block boundary of the document falls inside a line: each `Text` opens its line, or
    follows only the labels of the elements that enclose it ("5 (1) For the purposes ...").

    The document's own text pieces (texts and tails) are found in the output in document order,
    so each `Text` is looked for where its document neighbours put it, not at an equal string
    elsewhere; front matter outside the title block is passed over (the extractor drops it).
    """
    text = _extract_real(mirror, relative).text
    cursor = checked = 0
    skipping: etree._Element | None = None
    tree = etree.fromstring((mirror / relative).read_bytes())
    for event, element in etree.iterwalk(tree, events=("start", "end")):
        if skipping is not None:
            if event == "end" and element is skipping:
                skipping = None
            continue
        parent = element.getparent()
        if (
            event == "start"
            and parent is not None
            and parent.tag == "Identification"
            and element.tag not in ("LongTitle", "ShortTitle", "ReaderNote")
        ):
            skipping = element
            continue
        piece = (element.text if event == "start" else element.tail) or ""
        if event == "start" and element.tag == "Text" and _words(element).strip():
            words = _words(element).strip()
            at = text.find(words, cursor)
            assert at >= 0, (relative, words[:80])
            before = text[text.rfind("\n", 0, at) + 1 : at]
            labels = _labels_above(element)
            assert before in {""} | {" ".join(labels[k:]) + " " for k in range(len(labels))}
            own = parent.find("Label") if parent is not None else None
            if own is not None:  # a labelled element's text is on its label's line
                assert before.endswith(_words(own) + " "), (relative, words[:80])
            checked += 1
        if piece.strip():
            at = text.find(piece.strip(), cursor)
            assert at >= 0, (relative, piece[:80])
            cursor = at + len(piece.strip())
    assert checked or not _elements(mirror, relative, "Section")  # a repealed Act has none


@pytest.mark.parametrize("relative", _in_the_loop(CA_FILES))
def test_ca_marginal_notes_and_headings_are_passages_of_their_own(
    mirror: Path, relative: str
) -> None:
    passages = _passages(_extract_real(mirror, relative).text)
    held = set(passages)
    notes = [_words(el).strip() for el in _elements(mirror, relative, "MarginalNote")]
    headings = [
        " ".join(_words(part).strip() for part in el if part.tag in ("Label", "TitleText"))
        for el in _elements(mirror, relative, "Heading")
    ]
    assert notes or headings or not _elements(mirror, relative, "Section")
    for line in notes + headings:
        assert line in held, (relative, line)
        assert "\n" not in line


@pytest.mark.parametrize("relative", _in_the_loop(CA_FILES))
def test_ca_passages_stay_short_and_every_label_is_marked(mirror: Path, relative: str) -> None:
    result = _extract_real(mirror, relative)
    passages = _passages(result.text)
    assert max(map(len, passages)) <= CA_MAX_PASSAGE_CHARS
    labels = [_words(el).strip() for el in _elements(mirror, relative, "Label")]
    assert [mark.label for mark in result.structure] == labels
    assert "lims:" not in result.text


def test_ca_cer_act_reads_as_printed(mirror: Path) -> None:
    result = _extract_real(mirror, CER_2024)
    passages = _passages(result.text)
    assert passages[:2] == [
        "An Act to establish the Canadian Energy Regulator",
        "Canadian Energy Regulator Act",
    ]
    for passage in (
        "Short title",
        "1 This Act may be cited as the Canadian Energy Regulator Act.",
        "2 The following definitions apply in this Act.",
        "Powers of liquidators, trustees, etc.",
        "5 (1) For the purposes of this Act, each of the following is considered to be a company:",
        "PART 1 Canadian Energy Regulator",
        "2019, c. 28, s. 10 “317”",
    ):
        assert passage in passages
    # Front matter outside the title block (regnal years, bill history dates) is not text; nor is
    # any attribute (the root's lims:fid).
    tree = etree.fromstring((mirror / CER_2024).read_bytes())
    assert _words(tree.find("Identification/Parliament/RegnalYear/Year-s")) not in result.text
    assert tree.get("{http://justice.gc.ca/lims}fid") not in result.text
    assert len(passages) >= 1_000


def test_ca_structure_marks_nest_into_section_paths(
    catalogue: tuple[CatalogueRow, ...],
) -> None:
    (row,) = [row for row in catalogue if row.path == CER_2024]
    version = version_from_row(row, (STORE / row.path).read_bytes())
    first = version.structure[0]
    assert (first.label, first.value, first.path) == ("1", None, ("Statute", "Body", "Section"))
    parse = parse_structure(version)
    assert parse.refusal is None
    paths = [unit.path for unit in parse.units]
    assert [p for p in paths if p[0] == "5"] == [
        ("5",),
        ("5", "(1)"),
        ("5", "(1)", "(a)"),
        ("5", "(1)", "(b)"),
        ("5", "(1)", "(c)"),
        ("5", "(1)", "(c)", "(i)"),
        ("5", "(1)", "(c)", "(ii)"),
        ("5", "(2)"),
        ("5", "(3)"),
    ]
    text = version.text
    assert parse.path_at(text.index("(ii) constructing, operating or abandoning")) == (
        "5",
        "(1)",
        "(c)",
        "(ii)",
    )


# --- hand-checked content ------------------------------------------------------------------------

HR255 = "us-federal/115-hr255/115hr255enr_good.xml"
PL115_6 = "us-federal/115-hr255/115publ6-uslm.xml"
HR1037 = "us-federal/116-hr1037/h1037_eh.XML"
DC_306 = "us-dc/dc-code-34-306/34-306@2021-11-03.xml"
DC_1436 = "us-dc/dc-code-34-1436.01/34-1436.01@2023-10-19.xml"
FR_2018 = "us-federal-register/fr-issue-2018-05-10/FR-2018-05-10-uslm.xml"

SHORT_TITLE = "This Act may be cited as the “Promoting Women in Entrepreneurship Act”."
FINDING_1 = (
    "(1) women make up almost 50 percent of the workforce, but less than 25 percent of the "
    "workforce in science, technology, engineering, and mathematics (STEM) professions;"
)
ENACTING = (
    "Be it enacted by the Senate and House of Representa\u00adtives of the United States of "
    "America in Congress assembled,"
)
QUOTED_12 = (
    "“(12) encourage its entrepreneurial programs to recruit and support women to extend their "
    "focus beyond the laboratory and into the commercial world.”."
)
RUN_IN = (
    "(b) Form of Report.—The report required under subsection (a) shall be submitted in "
    "unclassified form but may contain a classified annex."
)
DC_TEXT = (
    "The Inspector of Gas and Meters provided for by law prior to March 4, 1913, shall transfer "
    "and deliver to the Commission all books, maps, papers, records, apparatus, and the property "
    "of whatsoever description in his possession, and said Commission is authorized to take "
    "possession of all books, maps, papers, records, apparatus, and property of whatsoever "
    "description."
)
DC_PARA = (
    "(2) The study shall also compare the District's local solar energy policies to policies "
    "supporting the expansion of solar resources in other jurisdictions."
)
FR_CONTACT = (
    "Thomas A. Nies, Executive Director, New England Fishery Management Council; "
    "telephone: (978) 465–0492."
)


@pytest.mark.parametrize(
    ("relative", "line"),
    [
        pytest.param(HR255, SHORT_TITLE, id="bill-short-title"),
        pytest.param(HR255, "SEC. 2. FINDINGS.", id="bill-sec-num-and-heading"),
        pytest.param(HR255, FINDING_1, id="bill-num-and-content"),
        pytest.param(HR255, ENACTING, id="bill-soft-hyphen-kept"),
        pytest.param(HR255, "H. R. 255", id="bill-preface-type-and-number"),
        pytest.param(PL115_6, FINDING_1, id="law-same-passage-as-bill"),
        pytest.param(
            PL115_6,
            "(3) by adding at the end the following new paragraph:",
            id="law-page-number-lifted-out",
        ),
        pytest.param(PL115_6, "131 STAT. 12", id="law-page-number-own-passage"),
        pytest.param(PL115_6, QUOTED_12, id="law-closing-period-after-quoted-block"),
        pytest.param(HR1037, RUN_IN, id="bill-run-in-heading"),
        pytest.param(
            DC_306,
            "34-306 Inspector of Gas and Meters to transfer books to Commission.",
            id="dc-num-and-heading",
        ),
        pytest.param(DC_306, DC_TEXT, id="dc-section-text"),
        pytest.param(
            DC_306, "Mar. 4, 1913, 37 Stat. 988, ch. 150, § 8, par. 60", id="dc-history-note"
        ),
        pytest.param(DC_1436, DC_PARA, id="dc-num-and-text"),
        pytest.param(FR_2018, "ACTION: Notice of public meeting via webinar.", id="fr-action-line"),
        pytest.param(FR_2018, FR_CONTACT, id="fr-contact-paragraph"),
        pytest.param(FR_2018, "Authority: 16 U.S.C. 1801 et seq.", id="fr-authority-run-in"),
    ],
)
def test_hand_checked_line_is_in_output(mirror: Path, relative: str, line: str) -> None:
    assert line in _lines(mirror, relative)


@pytest.mark.parametrize(
    ("relative", "absent"),
    [
        pytest.param(HR255, "115 HR 255 ENR:", id="bill-meta-title"),
        pytest.param(HR255, "GPO Locator to USLM Converter", id="bill-meta-processed-by"),
        pytest.param(FR_2018, "Federal Register Volume 83, Issue 91", id="fr-meta-title"),
        pytest.param(FR_2018, "FR Converter 0.9.9", id="fr-meta-processed-by"),
        pytest.param(HR1037, "IN THE HOUSE OF REPRESENTATIVES", id="bill-hidden-chamber"),
        pytest.param(HR255, "uslm.css", id="processing-instruction"),
    ],
)
def test_metadata_and_hidden_text_is_dropped(mirror: Path, relative: str, absent: str) -> None:
    assert absent not in _extract_real(mirror, relative).text


def test_bill_structure_marks(mirror: Path) -> None:
    marks = _extract_real(mirror, HR255).structure
    got = [(m.label, m.value, m.path) for m in marks[:3]]
    assert got == [
        ("SECTION 1.", "1", ("bill", "main", "section")),
        ("SEC. 2.", "2", ("bill", "main", "section")),
        ("(1)", "1", ("bill", "main", "section", "paragraph")),
    ]
    quoted = marks[-1]
    assert (quoted.label, quoted.value) == ("“(12)", "12")
    assert quoted.path[-3:] == ("content", "quotedContent", "paragraph")


def test_dc_structure_marks(mirror: Path) -> None:
    marks = _extract_real(mirror, DC_1436).structure
    got = [(m.label, m.value, m.path) for m in marks[:3]]
    assert got == [
        ("34-1436.01", None, ("section",)),
        ("(a)", None, ("section", "para")),
        ("(1)", None, ("section", "para", "para")),
    ]


@pytest.mark.parametrize("relative", BOM_FILES)
def test_real_utf8_bom_is_kept_at_offset_zero(mirror: Path, relative: str) -> None:
    data = (mirror / relative).read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    text = extract(data, "text/plain", source=relative).text
    assert text[0] == "\ufeff"
    assert text == data.decode("utf-8") and len(text) == len(data.decode("utf-8"))


# --- decoding ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        pytest.param(b"a\r\nb\r\n", "a\r\nb\r\n", id="crlf-kept"),
        pytest.param(b"a\rb\n", "a\rb\n", id="lone-cr-kept"),
        pytest.param(b"\xef\xbb\xbfhi\n", "\ufeffhi\n", id="utf8-bom-kept"),
        pytest.param("caf\u00e9\u00a0\u00ad\n".encode(), "caf\u00e9\u00a0\u00ad\n", id="multibyte"),
        pytest.param(b"a" * MAX_LINE_CHARS, "a" * MAX_LINE_CHARS, id="line-at-the-limit"),
        pytest.param(
            ("\u00e9" * 600_000 + "\n").encode() * 2,
            ("\u00e9" * 600_000 + "\n") * 2,
            id="long-byte-run-short-char-line",
        ),
    ],
)
def test_decode_text_is_exact(data: bytes, expected: str) -> None:
    assert decode_text(data, source="x.txt") == expected
    assert extract(data, "text/plain", source="x.txt").text == expected


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param(b"", "x.txt: empty file; expected text", id="empty"),
        pytest.param(b"abc\x00def", "x.txt: NUL byte at byte 3; expected text", id="nul"),
        pytest.param(
            b"\xff\xfea\x00",
            "x.txt: UTF-16 byte order mark at byte 0; expected UTF-8",
            id="utf16-le-bom",
        ),
        pytest.param(
            b"\xfe\xff\x00a",
            "x.txt: UTF-16 byte order mark at byte 0; expected UTF-8",
            id="utf16-be-bom",
        ),
        pytest.param(
            b"\xff\xfe\x00\x00a\x00\x00\x00",
            "x.txt: UTF-32 byte order mark at byte 0; expected UTF-8",
            id="utf32-le-bom",
        ),
        pytest.param(
            b"abc\xff",
            "x.txt: invalid UTF-8 at byte 3 (0xff); expected UTF-8 text",
            id="invalid-byte",
        ),
        pytest.param(
            "abc\u00e9".encode()[:-1],
            "x.txt: invalid UTF-8 at byte 3 (0xc3); expected UTF-8 text",
            id="truncated-multibyte",
        ),
        pytest.param(
            b"ok\n\xed\xa0\x80",
            "x.txt: invalid UTF-8 at byte 3 (0xed); expected UTF-8 text",
            id="encoded-surrogate",
        ),
    ],
)
def test_decode_text_refuses(data: bytes, message: str) -> None:
    with pytest.raises(TextDecodeError) as caught:
        decode_text(data, source="x.txt")
    assert str(caught.value) == message
    with pytest.raises(TextDecodeError) as caught:  # the XML extractor decodes first
        extract(data, "application/xml", source="x.txt")
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param(
            b"a" * (MAX_LINE_CHARS + 1),
            "x.txt: line 1 is 1000001 characters long; expected at most 1000000",
            id="huge-line",
        ),
        pytest.param(
            b"ok\n" + b"a" * (MAX_LINE_CHARS + 1) + b"\nend\n",
            "x.txt: line 2 is 1000001 characters long; expected at most 1000000",
            id="huge-second-line",
        ),
    ],
)
def test_line_limit_guards_plain_text_not_xml(data: bytes, message: str) -> None:
    with pytest.raises(TextDecodeError) as caught:
        extract(data, "text/plain", source="x.txt")
    assert str(caught.value) == message
    # XML is laid out by its elements: the same run of characters in one element is one passage.
    xml = b"<a><p>" + data.replace(b"\n", b" ") + b"</p></a>"
    assert len(xml) > MAX_LINE_CHARS
    text = extract(xml, "application/xml", source="x.xml").text
    assert text == data.replace(b"\n", b" ").decode().strip() + "\n"


@given(st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1))
def test_decode_text_round_trips_any_text(text: str) -> None:
    assert decode_text(text.encode("utf-8"), source="x.txt") == text


@given(st.binary(max_size=64))
def test_decode_text_decodes_or_refuses_with_a_typed_error(data: bytes) -> None:
    try:
        assert decode_text(data, source="x.txt") == data.decode("utf-8")
    except TextDecodeError as error:
        assert str(error).startswith("x.txt: ")


@given(st.binary(max_size=64))
def test_extract_xml_never_fails_untyped(data: bytes) -> None:
    try:
        extract(b"<a>" + data + b"</a>", "application/xml", source="x.xml")
    except WorkbenchError as error:
        assert isinstance(error, TextDecodeError | ExtractionError)


# --- XML rendering rules -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("xml", "text"),
    [
        pytest.param(
            "<s><num>SEC. 2. </num><heading>FINDINGS.</heading>\n<chapeau>  The Congress finds—"
            "</chapeau><paragraph><num>  (1)</num><content> women</content></paragraph></s>",
            "SEC. 2. FINDINGS.\n\nThe Congress finds—\n\n(1) women\n",
            id="num-keeps-its-heading-and-content",
        ),
        pytest.param(
            "<s><num>(a) </num><heading>In General.—</heading>"
            "<chapeau>The Secretary—</chapeau></s>",
            "(a) In General.—The Secretary—\n",
            id="run-in-heading",
        ),
        pytest.param(
            "<para>\n <num>(a)</num>\n <para>\n  <num>(1)</num>\n  <text>Text.</text>\n"
            " </para>\n</para>",
            "(a) (1) Text.\n",
            id="dc-nested-numbers-share-a-line",
        ),
        pytest.param(
            "<c>new paragraph:<quotedContent><paragraph><num>“(12)</num><content> x.”</content>"
            "</paragraph></quotedContent>; and</c>",
            "new paragraph:\n\n“(12) x.”; and\n",
            id="closing-punctuation-after-quoted-block",
        ),
        pytest.param("<c><p>One</p>Two</c>", "One\n\nTwo\n", id="text-after-block-new-passage"),
        pytest.param(
            "<a><meta><title>Gone</title></meta><p>Kept</p></a>", "Kept\n", id="meta-dropped"
        ),
        pytest.param(
            "<a><p>x<!-- note -->y<?page num='3'?>z</p></a>",
            "xyz\n",
            id="comment-and-pi-dropped-tails-kept",
        ),
        pytest.param(
            "<a><p>a <i>b</i>\n   <i>c</i>  </p></a>", "a b c\n", id="formatting-white-space"
        ),
        pytest.param(
            "<a><p>x\u00a0y\u00adz  w</p></a>", "x\u00a0y\u00adz  w\n", id="verbatim-inside-text"
        ),
        pytest.param(
            "<a><p>line one  \nline two</p></a>",
            "line one\nline two\n",
            id="no-trailing-spaces-inside-text",
        ),
        pytest.param(
            "<a><p>by striking the period<page>131 STAT. 12</page> at the end</p><p>Next</p></a>",
            "by striking the period at the end\n\n131 STAT. 12\n\nNext\n",
            id="page-number-lifted",
        ),
        pytest.param(
            "<a><x display='no'>hidden</x><p>shown</p></a>", "shown\n", id="hidden-dropped"
        ),
        pytest.param(
            "<a><preface><type>H. R.</type><docNumber>255</docNumber><congress>115th</congress>"
            "</preface></a>",
            "H. R. 255\n\n115th\n",
            id="preface-lines",
        ),
        pytest.param(
            "<t><tr><td>Korea</td><td>$51,000,000</td></tr><tr><td>Army</td></tr></t>",
            "Korea $51,000,000\n\nArmy\n",
            id="table-cells",
        ),
        pytest.param("<a>\r\n<p>x\r\ny</p></a>", "x\ny\n", id="xml-parser-normalizes-crlf"),
    ],
)
def test_xml_rendering_rules(xml: str, text: str) -> None:
    assert extract(xml.encode(), "application/xml", source="t.xml").text == text


USLM = "http://schemas.gpo.gov/xml/uslm"


@pytest.mark.parametrize(
    ("xml", "text"),
    [
        pytest.param(
            "<Act><Section><MarginalNote>Short title</MarginalNote><Label>1</Label>"
            "<Text>This Act is the <XRef>Energy Act</XRef>.</Text></Section></Act>",
            "Short title\n\n1 This Act is the Energy Act.\n",
            id="note-own-passage-label-on-its-text-line",
        ),
        pytest.param(
            "<Act><Section><Label>3</Label><Subsection><MarginalNote>Purpose</MarginalNote>"
            "<Label>(1)</Label><Text>T</Text></Subsection></Section></Act>",
            "Purpose\n\n3 (1) T\n",
            id="note-before-an-open-label-line-is-read-first",
        ),
        pytest.param(
            "<Body><Heading><Label>PART 1</Label><TitleText>Regulator</TitleText></Heading>"
            "<Section><Label>9</Label><Text>x</Text></Section></Body>",
            "PART 1 Regulator\n\n9 x\n",
            id="heading-label-and-title-one-line",
        ),
        pytest.param(
            "<Doc><Note><A>one</A><B>two</B></Note><P>x <A>y</A> z</P></Doc>",
            "one\n\ntwo\n\nx y z\n",
            id="element-only-content-blocks-running-text-inline",
        ),
        pytest.param(
            "<Doc><Q><A>one</A> <B>two</B></Q></Doc>",
            "one two\n",
            id="a-space-without-newline-is-running-text",
        ),
        pytest.param(
            "<Doc><Q>\n  <A>one</A>\n  <B>two</B>\n</Q></Doc>",
            "one\n\ntwo\n",
            id="indentation-is-not-running-text",
        ),
        pytest.param(
            "<Doc><Text><Term>NAFTA</Term><Repealed>[Repealed]</Repealed></Text></Doc>",
            "NAFTA[Repealed]\n",
            id="text-block-children-inline",
        ),
        pytest.param(
            "<Doc><Q>a <I><B>b</B><B>c</B></I> d</Q></Doc>",
            "a bc d\n",
            id="inside-an-inline-element-everything-is-inline",
        ),
        pytest.param(
            "<S><Label>4</Label><PageBreak/><Text>t</Text></S>",
            "4 t\n",
            id="an-element-without-text-opens-nothing",
        ),
        pytest.param(
            "<Provision><Label>(a)</Label>text</Provision>",
            "(a) text\n",
            id="label-and-inline-text-one-space",
        ),
        pytest.param(
            "<table><tgroup><tbody><row><entry>1</entry><entry>CSA</entry></row>"
            "<row><entry>2</entry></row></tbody></tgroup></table>",
            "1 CSA\n\n2\n",
            id="cals-rows-and-cells",
        ),
        pytest.param(
            "<Statute a:id='77' xmlns:a='urn:x'><Identification><BillNumber>C-69</BillNumber>"
            "<LongTitle>An Act</LongTitle><BillHistory><Stages><Date><YYYY>2019</YYYY></Date>"
            "</Stages></BillHistory><ShortTitle>Short</ShortTitle><RunningHead>Short</RunningHead>"
            "</Identification><Body><Section><Label>1</Label><Text>x</Text></Section></Body>"
            "</Statute>",
            "An Act\n\nShort\n\n1 x\n",
            id="front-matter-title-block-only-attributes-never",
        ),
        pytest.param(
            "<DOC><META><TITLE>gone</TITLE></META><P>kept</P></DOC>",
            "kept\n",
            id="vocabulary-case-folded",
        ),
    ],
)
def test_structural_rendering_rules(xml: str, text: str) -> None:
    assert extract(xml.encode(), "application/xml", source="t.xml").text == text


def test_lifted_label_line_keeps_exact_marks() -> None:
    xml = (
        "<Act><Section><Label>3</Label><Subsection><MarginalNote>Purpose</MarginalNote>"
        "<Label>(1)</Label><Text>T</Text></Subsection></Section></Act>"
    )
    result = extract(xml.encode(), "application/xml", source="t.xml")
    got = [(m.label, result.text[m.char_start : m.char_end], m.path) for m in result.structure]
    assert got == [
        ("3", "3", ("Act", "Section")),
        ("(1)", "(1)", ("Act", "Section", "Subsection")),
    ]


@pytest.mark.parametrize(
    ("namespace", "text", "labels"),
    [
        pytest.param(USLM, "Sec. 1.Short title.\n", [], id="uslm-label-is-a-caption"),
        pytest.param(None, "Sec. 1.\n\nShort title.\n", ["Short title."], id="other-label-numbers"),
    ],
)
def test_reading_mode_follows_the_root_namespace(
    namespace: str | None, text: str, labels: list[str]
) -> None:
    xmlns = f" xmlns='{namespace}'" if namespace else ""
    xml = (
        f"<bill{xmlns}><toc><referenceItem><designator>Sec. 1.</designator>"
        "<label>Short title.</label></referenceItem></toc></bill>"
    )
    result = extract(xml.encode(), "application/xml", source="t.xml")
    assert result.text == text
    assert [m.label for m in result.structure] == labels


def test_num_marks_slice_exactly_on_synthetic_xml() -> None:
    xml = "<a><section><num value='2'>  SEC. 2.\u00a0</num><heading>X</heading></section><num/></a>"
    result = extract(xml.encode(), "application/xml", source="t.xml")
    assert result.text == "SEC. 2.\u00a0X\n"
    first, empty = result.structure
    assert (first.label, first.value, first.path) == ("SEC. 2.", "2", ("a", "section"))
    assert result.text[first.char_start : first.char_end] == "SEC. 2."
    assert (empty.label, empty.char_start, empty.char_end) == ("", 9, 9)


# --- hostile and unsupported input ---------------------------------------------------------------

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<lolz><p>&lol9;</p></lolz>
"""
EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE foo [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<foo><p>x &xxe; y</p></foo>
"""


@pytest.mark.parametrize(
    ("data", "media_type", "error", "message"),
    [
        pytest.param(
            b"<a><b>text</b>",
            "application/xml",
            ExtractionError,
            "t.xml: malformed XML at line 1, column 15: Premature end of data in tag a line 1",
            id="unclosed-tag",
        ),
        pytest.param(
            b"<a><b>x</a>",
            "application/xml",
            ExtractionError,
            "t.xml: malformed XML at line 1, column 12: "
            "Opening and ending tag mismatch: b line 1 and a",
            id="mismatched-tag",
        ),
        pytest.param(
            b"<a>x &nbsp; y</a>",
            "text/xml",
            ExtractionError,
            "t.xml: malformed XML at line 1, column 12: Entity 'nbsp' not defined",
            id="undefined-entity",
        ),
        pytest.param(
            EXTERNAL_ENTITY,
            "application/xml",
            ExtractionError,
            "t.xml: unexpanded entity reference &xxe; at line 3; expected no entity references",
            id="external-entity",
        ),
        pytest.param(
            b"<a><meta><title>only metadata</title></meta><!-- c --></a>",
            "application/xml",
            ExtractionError,
            "t.xml: XML holds no text outside its metadata; expected text",
            id="no-text",
        ),
        pytest.param(
            b"\x89PNG",
            "image/png",
            ExtractionError,
            "t.xml: no extractor for media type 'image/png'",
            id="unknown-media-type",
        ),
        pytest.param(
            b"%PDF-1.7",
            "application/pdf",
            ExtractionError,
            "t.xml: unreadable PDF (PDFium: Data format error); expected a PDF",
            id="pdf-truncated",
        ),
    ],
)
def test_extract_refuses(
    data: bytes, media_type: str, error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as caught:
        extract(data, media_type, source="t.xml")
    assert type(caught.value) is error
    assert str(caught.value) == message
    assert "root:" not in str(caught.value)


BOMB_REFUSAL = re.compile(
    r"bomb\.xml: (malformed XML at line \d+, column \d+: .+"
    r"|unexpanded entity reference &lol9; at line \d+; expected no entity references)"
)


def test_billion_laughs_never_expands() -> None:
    try:
        result = extract(BILLION_LAUGHS, "application/xml", source="bomb.xml")
    except ExtractionError as error:
        assert type(error) is ExtractionError
        assert BOMB_REFUSAL.fullmatch(str(error))
    else:
        assert len(result.text) < 100


def test_awaiting_extractor_is_an_extraction_error() -> None:
    assert issubclass(AwaitingExtractor, ExtractionError)


@pytest.mark.parametrize("media_type", ["text/plain", "text/markdown"])
def test_text_extractors_are_identity(media_type: str) -> None:
    data = "# Title\r\n\r\nBody\u00ad text\f\n".encode()
    result = extract(data, media_type, source="x")
    assert result == Extraction(text=data.decode(), extractor="identity", extractor_version="1")
