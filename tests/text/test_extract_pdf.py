"""PDF extraction on the real PDFs, checked against words read off the rendered pages.

Every sentence in `READ_OFF_THE_PAGE` was typed by a person looking at the page rendered with
`pdftoppm -r 70 -f N -l N -png` (page N named beside it), never copied from the extractor's output.
What a reader cannot see (which hyphen character was printed, how lines broke) is left to the one
shared normalization, as the verifier does: a typed sentence matches where its normalized form
occurs in the normalized text, a typed "-" also matching a hyphen that ended a printed line.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from collections.abc import Sequence
from itertools import pairwise

import pytest

from tests.conftest import STORE
from workbench.cite import Citation, verify_for_version
from workbench.errors import ExtractionError
from workbench.models import PageSpan, Version, page_for_offset
from workbench.text.extraction import EXTRACTORS, extract
from workbench.text.normalize import normalize, normalized_text
from workbench.text.pdf import (
    PDF_EXTRACTOR,
    PDF_EXTRACTOR_VERSION,
    extract_pdf,
)
from workbench.text.segment import segment
from workbench.workspace import Workspace

NERC = "us-nerc/nerc-{family}/{name}.pdf"
FR = "us-federal-register/fr-2020-17221-faa-boeing-737max-nprm/federal-register-2020-17221.pdf"
DMCA = "us-federal/copyright-office-dmca-summary-1998/dmca.pdf"
NICS = "us-federal/fbi-nics-firearm-checks-2015-11/nics-background-checks-2015-11.pdf"
NICS_ROTATED = (
    "us-federal/fbi-nics-firearm-checks-2015-11/nics-background-checks-2015-11-rotated.pdf"
)
EPA = "us-federal/epa-oig-report-10-p-0154-excerpt/us-032.pdf"
I1040NR = "us-irs/irs-form-1040nr-2007/i1040nr.pdf"
SCOTUS = "us-supreme-court/scotus-07-1315-oral-argument-transcript/scotus-transcript-p1.pdf"


def _nerc(name: str) -> str:
    return NERC.format(family=name[:7], name=name)


# NERC page 2 of each standard names it in its exemptions clause ("Exemptions: The following are
# exempt from Standard CIP-003-8:"); later versions print the hyphens as U+2010.
_EXEMPT = [
    "cip-002-5.1a",
    "cip-002-7",
    "cip-002-8",
    "cip-003-8",
    "cip-003-9",
    "cip-003-10",
    "cip-003-11",
    "cip-004-7",
    "cip-004-8",
    "cip-005-7",
    "cip-005-8",
    "cip-006-6",
    "cip-006-7",
    "cip-007-6",
    "cip-007-7",
    "cip-008-6",
    "cip-008-7",
    "cip-009-6",
    "cip-009-7",
    "cip-010-4",
    "cip-010-5",
    "cip-011-3",
    "cip-011-4",
    "cip-013-2",
    "cip-013-3",
]
READ_OFF_THE_PAGE: list[tuple[str, int, str]] = [
    *[
        (_nerc(n), 2, f"The following are exempt from Standard {n.upper().replace('A', 'a')}:")
        for n in _EXEMPT
    ],
    (
        _nerc("cip-015-1"),
        2,
        "The following are exempt from Reliability Standard CIP-015-1:",
    ),
    (
        _nerc("cip-012-1"),
        2,
        "The Responsible Entity is not required to include oral communications in its plan.",
    ),
    (
        _nerc("cip-012-1"),
        2,
        "Evidence may include, but is not limited to, documented plan(s) that meet the security "
        "objective of Requirement R1 and documentation demonstrating the implementation of the "
        "plan(s).",
    ),
    (
        _nerc("cip-012-2"),
        2,
        "Physical access restrictions to unencrypted portions of the network",
    ),
    (
        _nerc("cip-012-2"),
        2,
        "Service level agreements with carriers containing high availability provisions",
    ),
    (
        _nerc("cip-014-3"),
        2,
        "This Reliability Standard addresses the directives from the FERC order issued March 7, "
        "2014, Reliability Standards for Physical Security Measures, 146 FERC ¶ 61,166 (2014), "
        "which required NERC to develop a physical security reliability standard(s) to identify "
        "and protect facilities that if rendered inoperable or damaged could result in "
        "instability, uncontrolled separation, or Cascading within an Interconnection.",
    ),
    (
        "eu/eprtr-pollutant-thresholds-guidance-excerpt/eu-001.pdf",
        1,
        "In the following tables you will find the 91 E-PRTR pollutants and their thresholds "
        "broken down by the 7 groups used in all the searches of the E-PRTR website.",
    ),
    (
        "uk/good-energy-svt-tariff-information-label/good_energy.pdf",
        1,
        "E7 and E10 meter calculation based off, 58:42%, day:night consumption split for E7 and "
        "66:34% for E10",
    ),
    (
        FR,
        2,
        "Investigation of the accident has been completed by the Indonesian authorities (Komite "
        "Nasional Keselamatan Transportasi (KNKT)) with assistance from the National "
        "Transportation Safety Board (NTSB) and the FAA of the United States, the manufacturer, "
        "and the operator.",
    ),
    (
        FR,
        2,
        "To address the unsafe condition, the FAA proposes to require four design changes:",
    ),
    (DMCA, 3, "Article 18 of the WPPT contains nearly identical language."),
    (
        DMCA,
        3,
        "Each of the WIPO treaties contains virtually identical language obligating member "
        "states to prevent circumvention of technological measures used to protect copyrighted "
        "works, and to prevent tampering with the integrity of copyright management information.",
    ),
    (
        EPA,
        1,
        "Air toxics are emitted from a wide variety of sources, including stationary sources, "
        "mobile sources, and natural sources like forest fires.",
    ),
    (EPA, 1, "Table 1-1 provides more information on the sources of air toxics emissions."),
    (NICS, 1, "NICS Firearm Background Checks"),
    (NICS_ROTATED, 1, "NICS Firearm Background Checks"),
    ("us-irs/irs-form-1040nr-2007/f1040nr.pdf", 1, "U.S. Nonresident Alien Income Tax Return"),
    (
        "us-irs/irs-form-1040nr-2007/f1040nr.pdf",
        1,
        "Single resident of Canada or Mexico, or a single U.S. national",
    ),
    (
        I1040NR,
        10,
        "Only the U.S. source income is included on line 8 as effectively connected wages.",
    ),
    (
        "us-senate/senate-report-of-expenditures-page/senate-expenditures.pdf",
        1,
        "LAVALLEY, ROBERT CLINTON",
    ),
    (
        "us-ma/dpu-18-150-national-grid-base-rate-order/dpu-18-150_order_2019-09-30.pdf",
        41,
        "The Attorney General also refutes the Company’s assessment of the Attorney General’s "
        "capital and total input price calculations as showing higher volatility",
    ),
    (
        "us-tx/puct-49421-item80-cehe-response-to-tiec-rfi-set1/"
        "v1_cehe-filer-copy_D49421-CEHE-Response-to-TIEC-1st-RFIs.pdf",
        1,
        "FOR AUTHORITY TO CHANGE RATES",
    ),
    (
        "us-tx/puct-49421-item80-cehe-response-to-tiec-rfi-set1/v2_puct-interchange_49421_80_1016841.PDF",
        2,
        "First Requests for Information",
    ),
    (
        "us-tx/puct-49595-puc01-01-rate-case-expense-update/"
        "v1_puct-interchange_49595_19_1036020_PUC01-01U2.PDF",
        2,
        "REVIEW OF RATE CASE EXPENSES",
    ),
    (
        "us-tx/puct-49595-puc01-01-rate-case-expense-update/"
        "v2_puct-interchange_49595_21_1039609_PUC01-01U3.PDF",
        41,
        "Communicate with client K Colvin, P. Peters, et al.",
    ),
    (SCOTUS, 1, "STEVEN E. MERCER, ESQ., Deputy Attorney General, Los"),
    (SCOTUS, 1, "IN THE SUPREME COURT OF THE UNITED STATES"),
    (
        "us-wi/wi-dcf-f-2476-e-90-day-summary-report/150109DSP-Milw-505-90D.pdf",
        1,
        "The child was declared brain dead at the hospital and died from his injuries.",
    ),
    (
        "us-wi/wi-dcf-f-2476-e-90-day-summary-report/150109DSP-Milw-505-90D.pdf",
        1,
        "A crminal charge is merely and allegation a and a defendant is considered innocent "
        "until proven guilty.",
    ),
    (
        "us-wi/wi-dcf-f-2476-e-90-day-summary-report/issue-13-151201DSP-Fond-581-90D.pdf",
        1,
        "No criminal charges have been filed in this case and the case has been closed by law "
        "enforcement.",
    ),
]


def _pattern(sentence: str) -> re.Pattern[str]:
    """The typed sentence, normalized; a "-" may be followed by the space of a line break."""
    return re.compile("- ?".join(re.escape(part) for part in normalized_text(sentence).split("-")))


def _matches(sentence: str, text: str) -> list[re.Match[str]]:
    return list(_pattern(sentence).finditer(normalized_text(text)))


def test_every_catalogued_pdf_has_a_sentence_read_off_its_page(
    catalogue: Sequence[object],
) -> None:
    pdfs = {r.path for r in catalogue if r.media_type == "application/pdf"}  # type: ignore[attr-defined]
    assert pdfs == {path for path, _, _ in READ_OFF_THE_PAGE}


@pytest.mark.parametrize(
    ("path", "page", "sentence"),
    [
        pytest.param(p, n, s, id=f"{p.rsplit('/', 1)[1]}-p{n}-{s[:24]}")
        for p, n, s in READ_OFF_THE_PAGE
    ],
)
def test_sentence_read_off_the_page_occurs_once_on_that_page(
    document_workspace: Workspace, path: str, page: int, sentence: str
) -> None:
    version = document_workspace.version(path)
    (found,) = _matches(sentence, version.text)
    span = version.pages[page - 1]
    body = version.text[span.char_start : span.char_end]
    assert len(_matches(sentence, body)) == 1, f"not on page {page}"
    assert found


@pytest.mark.parametrize(
    ("path", "page", "first_words"),
    [
        pytest.param(_nerc("cip-003-8"), 2, "4.1.7. Transmission Owner", id="cip-003-8"),
        pytest.param(_nerc("cip-012-1"), 2, "B. Requirements and Measures", id="cip-012-1"),
        pytest.param(
            _nerc("cip-014-3"),
            2,
            "Transmission Planner as critical to the derivation of Interconnection",
            id="cip-014-3-mid-sentence",
        ),
        pytest.param(
            _nerc("cip-013-3"),
            2,
            "this standard where a specific type of Facilities",
            id="cip-013-3-mid-sentence",
        ),
        pytest.param(DMCA, 3, "Registration as a Prerequisite to Suit", id="dmca-after-header"),
        pytest.param(FR, 2, "Hatta International Airport in Jakarta,", id="fr-after-running-head"),
        pytest.param(I1040NR, 10, "section assume you have decided that", id="i1040nr-after-slug"),
    ],
)
def test_page_map_starts_on_the_pages_first_words(
    document_workspace: Workspace, path: str, page: int, first_words: str
) -> None:
    version = document_workspace.version(path)
    span = version.pages[page - 1]
    assert span.page == page
    assert version.text[span.char_start :].startswith(first_words)
    assert page_for_offset(version.pages, span.char_start) == page
    assert page_for_offset(version.pages, version.pages[page - 2].char_end - 1) == page - 1


def test_the_three_column_proposed_rule_reads_column_by_column(workspace: Workspace) -> None:
    """Page 2 of the NPRM, read off the page: column 1, its footnotes, column 2, column 3."""
    text = normalized_text(workspace.version(FR).text)
    in_reading_order = [
        "Hatta International Airport in Jakarta, Indonesia, resulting in 189 fatalities.",
        "These effects include stall warning activation, airspeed disagree alert, and",
        "Preliminary KNKT.18.10.35.04 Aircraft Accident Investigation Report",
        "altitude disagree alert,",
        "and may affect the flightcrew",
        "On March 10, 2019, a Boeing Model",
        "and the Ethiopian Civil Aviation Authority (ECAA).",
        "To address the unsafe condition, the FAA proposes to require four design changes:",
        "In addition to these four design changes, the FAA also proposes to",
    ]
    positions = [text.index(normalized_text(s)) for s in in_reading_order]
    assert positions == sorted(positions)


@pytest.mark.slow
def test_the_two_column_instructions_read_column_by_column(corpus_workspace: Workspace) -> None:
    """Page 10 of the 1040NR instructions has three columns, read off the page top to bottom."""
    text = normalized_text(corpus_workspace.version(I1040NR).text)
    in_reading_order = [
        "section assume you have decided that the income involved is effectively",
        "contains the following information.",
        "1. The specific compensation or the specific fringe benefit for which an",
        "contributions on line 8. They already",
        "are included as income in box 1 of your Form W-2.",
        "In addition, interest from a U.S. bank, savings and loan association,",
    ]
    positions = [text.index(normalized_text(s)) for s in in_reading_order]
    assert positions == sorted(positions)


@pytest.mark.parametrize(
    ("path", "page", "position", "furniture"),
    [
        pytest.param(
            _nerc("cip-003-8"),
            2,
            "top",
            "CIP-003-8 - Cyber Security — Security Management Controls",
            id="nerc-header",
        ),
        pytest.param(_nerc("cip-003-8"), 2, "bottom", "Page 2 of 59", id="nerc-footer"),
        pytest.param(
            FR,
            2,
            "top",
            "Federal Register / Vol. 85, No. 152 / Thursday, August 6, 2020 / Proposed Rules 47699",
            id="fr-running-head",
        ),
        pytest.param(
            DMCA, 3, "top", "The Digital Millennium Copyright Act of 1998", id="dmca-header"
        ),
        pytest.param(SCOTUS, 1, None, "Official - Subject to Final Review", id="one-page-kept"),
    ],
)
def test_running_headers_leave_the_body_and_are_recorded(
    document_workspace: Workspace, path: str, page: int, position: str | None, furniture: str
) -> None:
    version = document_workspace.version(path)
    recorded = [
        (f.page, f.position)
        for f in version.furniture
        if normalized_text(f.text) == normalized_text(furniture)
    ]
    body_lines = [normalized_text(line) for line in version.text.splitlines()]
    if position is None:  # a one-page document has nothing to repeat: its heading stays text
        assert not recorded and body_lines.count(normalized_text(furniture)) == 1
        return
    assert (page, position) in recorded
    assert normalized_text(furniture) not in body_lines


def test_every_nerc_page_loses_its_running_header(workspace: Workspace) -> None:
    version = workspace.version(_nerc("cip-003-8"))
    tops = [f.page for f in version.furniture if f.position == "top"]
    bottoms = [f.page for f in version.furniture if f.position == "bottom"]
    assert tops == bottoms == list(range(1, 60))
    assert "Page 17 of 59" not in version.text


@pytest.mark.parametrize(
    ("path", "label_line"),
    [
        pytest.param(_nerc("cip-012-1"), "R1. The Responsible Entity shall implement", id="R1"),
        pytest.param(_nerc("cip-012-1"), "1.1. Identification of security protection", id="1.1"),
        pytest.param(_nerc("cip-012-1"), "M1. Evidence may include", id="M1"),
        pytest.param(
            _nerc("cip-003-8"), "4.2.3.2. Cyber Assets associated with communication", id="4.2.3.2"
        ),
        pytest.param(SCOTUS, "12 The above-entitled matter came on for oral", id="gutter-12"),
    ],
)
def test_numbering_labels_stay_at_line_starts(
    document_workspace: Workspace, path: str, label_line: str
) -> None:
    """Labels reach the structure parser where it looks for them: at the start of a line."""
    assert ("\n" + label_line) in document_workspace.version(path).text


def test_a_rotated_page_yields_the_words_of_its_upright_twin(workspace: Workspace) -> None:
    upright = workspace.version(NICS).text.split()
    rotated = workspace.version(NICS_ROTATED).text.split()
    assert len(upright) > 1000 and rotated == upright


def test_text_outside_the_page_is_recorded_not_read(workspace: Workspace) -> None:
    """The EPA page's text layer opens with font alphabets drawn off the page (ICDAR us-032)."""
    version = workspace.version(EPA)
    outside = [f.text for f in version.furniture if f.position == "outside"]
    assert any(t.startswith("zyxwvutsrqponmlkjihgfedcba") for t in outside)
    assert "zyxwvu" not in version.text and not version.unusable_pages


def test_a_page_without_text_is_reported_and_gives_no_passage(workspace: Workspace) -> None:
    """Page 8 of the NPRM is a figure with no text layer, read off the rendered page."""
    version = workspace.version(FR)
    assert [(u.page, u.reason) for u in version.unusable_pages] == [(8, "no_text")]
    eight, nine = version.pages[7], version.pages[8]
    assert eight.char_start == eight.char_end == nine.char_start
    assert all(p.text.strip() for p in segment(FR, version.text))


def test_line_end_hyphens_stay_in_the_text(workspace: Workspace) -> None:
    """DMCA page 3 prints "adequate legal protec-" at a line end; the hyphen and break are kept."""
    text = workspace.version(DMCA).text
    assert "adequate legal protec-\ntion and effective legal remedies" in text


def test_unicode_hyphens_of_later_nerc_versions_fold_to_the_earlier_ascii_ones(
    workspace: Workspace,
) -> None:
    earlier = workspace.version(_nerc("cip-003-8")).text
    later = workspace.version(_nerc("cip-003-9")).text
    assert "CIP-003-8" in earlier and "CIP\u2010003\u20108" not in earlier  # as printed
    assert later.count("CIP\u2010003\u20109") and later.count("CIP-003-9")  # printed both ways
    assert normalized_text(later).count("CIP-003-9") == (
        later.count("CIP\u2010003\u20109") + later.count("CIP-003-9")
    )
    assert "\u2014" in later and "\u2014" in normalized_text(later)  # dashes are not folded


# ---------------------------------------------------------------------------------------------
# Determinism and versioning


def test_the_pdf_extractor_is_named_and_versioned_with_its_library() -> None:
    assert EXTRACTORS["application/pdf"] == (PDF_EXTRACTOR, PDF_EXTRACTOR_VERSION)
    assert PDF_EXTRACTOR == "pdf-text"
    assert re.fullmatch(r"3\+pypdfium2-\d+\.\d+\.\d+", PDF_EXTRACTOR_VERSION)


@pytest.mark.parametrize("path", [FR, _nerc("cip-003-9"), EPA])
def test_same_bytes_same_text_hash_twice_and_in_a_fresh_process(
    document_workspace: Workspace, path: str
) -> None:
    data = (STORE / path).read_bytes()
    first = extract(data, "application/pdf", source=path)
    second = extract(data, "application/pdf", source=path)
    held: Version = document_workspace.version(path)
    digest = hashlib.sha256(first.text.encode()).hexdigest()
    assert first == second
    assert digest == held.text_sha256
    fresh = subprocess.run(
        [
            sys.executable,
            "-c",
            "import hashlib, sys; from workbench.text.pdf import extract_pdf; "
            "t = extract_pdf(open(sys.argv[1], 'rb').read(), source='x').text; "
            "print(hashlib.sha256(t.encode()).hexdigest())",
            str(STORE / path),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert fresh.stdout.strip() == digest


def test_page_map_partitions_the_text_in_page_order(workspace: Workspace) -> None:
    for version in workspace.versions():
        if version.media_type != "application/pdf":
            assert version.pages == ()
            continue
        spans = version.pages
        assert [s.page for s in spans] == list(range(1, len(spans) + 1))
        assert spans[0].char_start >= 0
        assert all(a.char_end <= b.char_start for a, b in pairwise(spans))
        assert spans[-1].char_end <= len(version.text)
        between = [version.text[a.char_end : b.char_start] for a, b in pairwise(spans)]
        assert all(gap in ("", "\n", "\n\n") for gap in between), version.version_id


@pytest.mark.parametrize(
    ("offset", "page"),
    [
        pytest.param(0, 1, id="start"),
        pytest.param(9, 1, id="last-of-page-1"),
        pytest.param(10, 2, id="separator-belongs-to-next"),
        pytest.param(12, 2, id="page-2"),
        pytest.param(20, 3, id="empty-page-3-then-4-starts-later"),
        pytest.param(99, 4, id="past-the-end"),
    ],
)
def test_page_for_offset(offset: int, page: int) -> None:
    spans = (
        PageSpan(page=1, char_start=0, char_end=10),
        PageSpan(page=2, char_start=12, char_end=20),
        PageSpan(page=3, char_start=22, char_end=22),
        PageSpan(page=4, char_start=22, char_end=30),
    )
    assert page_for_offset(spans, offset) == page
    assert page_for_offset((), offset) is None


# ---------------------------------------------------------------------------------------------
# Synthetic PDFs: hostile input and the hard cases the corpus does not hold


def _pdf(*pages: bytes, encrypt: bytes = b"") -> bytes:
    """A minimal PDF with one Helvetica page (612 x 792) per content stream."""
    count = len(pages)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>"
        % (b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(count)), count),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for i, content in enumerate(pages):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (5 + 2 * i)
        )
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content))
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        encrypt,
        xref,
    )
    return out


def _text(x: int, y: int, words: str, size: int = 10) -> bytes:
    return b"BT /F1 %d Tf %d %d Td (%s) Tj ET\n" % (size, x, y, words.encode("latin-1"))


def _lines(x: int, top: int, lines: Sequence[str]) -> bytes:
    return b"".join(_text(x, top - 12 * i, line) for i, line in enumerate(lines))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param(b"", "x.pdf: empty file; expected a PDF", id="empty"),
        pytest.param(
            b"<html>not a pdf</html>",
            "x.pdf: no %PDF- header in the first 1024 bytes; expected a PDF",
            id="no-header",
        ),
        pytest.param(
            b"%PDF-1.7\n1 0 obj <<",
            "x.pdf: unreadable PDF (PDFium: Data format error); expected a PDF",
            id="truncated",
        ),
        pytest.param(
            _pdf(_text(72, 700, "Secret"), encrypt=b"/Encrypt << /Filter /Standard /V 9 >> "),
            "x.pdf: unreadable PDF (PDFium: Incorrect password error); expected a PDF",
            id="encrypted-needs-a-password",
        ),
        pytest.param(
            _pdf(b"", b""),
            "x.pdf: no page has usable text (page 1: no_text; page 2: no_text), from its text "
            "layer or by OCR of a scanned page; expected a PDF with text",
            id="no-text-layer-no-scan",
        ),
        pytest.param(
            _pdf(_text(72, 700, "\x01\x02\x03\x04\x05\x06")),
            "x.pdf: no page has usable text (page 1: garbage), from its text layer or by OCR of a "
            "scanned page; expected a PDF with text",
            id="garbage-text-layer",
        ),
    ],
)
def test_hostile_pdfs_are_refused_with_the_reason(data: bytes, message: str) -> None:
    with pytest.raises(ExtractionError) as caught:
        extract_pdf(data, source="x.pdf")
    assert str(caught.value) == message


def test_unusable_pages_are_listed_and_leave_empty_spans() -> None:
    data = _pdf(
        _text(72, 700, "First page words."),
        b"",
        _text(72, 700, "\x01\x02\x03\x04\x05\x06"),
        _text(72, 700, "Fourth page words."),
    )
    result = extract_pdf(data, source="x.pdf")
    assert result.text == "First page words.\n\nFourth page words.\n"
    assert [(u.page, u.reason, u.detail) for u in result.unusable_pages] == [
        (2, "no_text", "no text layer on the page"),
        (3, "garbage", "0 of 6 characters are letters or digits"),
    ]
    assert [(s.page, s.char_start, s.char_end) for s in result.pages] == [
        (1, 0, 17),
        (2, 19, 19),
        (3, 19, 19),
        (4, 19, 37),
    ]


def test_running_lines_are_found_by_repetition_with_any_page_number() -> None:
    bodies = ["Alpha opens the rule.", "Beta follows it.", "Gamma closes it."]
    pages = [
        _text(72, 760, "Model Rule - Part 7")
        + _text(72, 400, body)
        + _text(280, 30, f"Page {n} of 3")
        for n, body in enumerate(bodies, 1)
    ]
    result = extract_pdf(_pdf(*pages), source="x.pdf")
    assert result.text == "Alpha opens the rule.\n\nBeta follows it.\n\nGamma closes it.\n"
    assert [(f.page, f.position, f.text) for f in result.furniture] == [
        (1, "top", "Model Rule - Part 7"),
        (1, "bottom", "Page 1 of 3"),
        (2, "top", "Model Rule - Part 7"),
        (2, "bottom", "Page 2 of 3"),
        (3, "top", "Model Rule - Part 7"),
        (3, "bottom", "Page 3 of 3"),
    ]


def test_columns_read_left_to_right_and_a_paragraph_continues_across_them() -> None:
    left = ["Alpha one runs on and on", "into the column next to it", "and the one after"]
    middle = ["without a break at all.", "Beta two starts another", "sentence that ends here."]
    right = ["Gamma three stands alone", "on the last line of the page."]
    page = _lines(40, 700, left) + _lines(230, 700, middle) + _lines(420, 700, right)
    result = extract_pdf(_pdf(page), source="x.pdf")
    assert result.text == "\n".join(left + middle) + "\n\n" + "\n".join(right) + "\n"


def test_glyphs_drawn_apart_without_a_space_get_one() -> None:
    """A PDF may position two words apart with no space glyph ("following Facilities")."""
    data = _pdf(b"BT /F1 10 Tf 72 700 Td (following) Tj 45 0 Td (Facilities) Tj ET")
    assert extract_pdf(data, source="x.pdf").text == "following Facilities\n"


def test_extraction_through_extract_refuses_pdfs_as_extraction_errors() -> None:
    with pytest.raises(ExtractionError, match=r"^t\.pdf: empty file; expected a PDF$"):
        extract(b"", "application/pdf", source="t.pdf")


@pytest.mark.parametrize(
    ("path", "page", "sentence"),
    [
        pytest.param(p, n, s, id=f"{p.rsplit('/', 1)[1]}-p{n}-{s[:24]}")
        for p, n, s in READ_OFF_THE_PAGE
        if p in (FR, DMCA, _nerc("cip-003-9"), _nerc("cip-015-1"), _nerc("cip-014-3"))
    ],
)
def test_the_verifier_verifies_sentences_read_off_the_page(
    document_workspace: Workspace, path: str, page: int, sentence: str
) -> None:
    """A quote typed from the rendered page, cited at its place in the extracted text, verifies."""
    version = document_workspace.version(path)
    folded = normalize(version.text)
    (match,) = _pattern(sentence).finditer(folded.text)
    start, end = folded.raw_span(*match.span())
    assert page_for_offset(version.pages, start) == page
    citation = Citation(version_id=path, char_start=start, char_end=end, quoted_text=sentence)
    outcome = verify_for_version(document_workspace, citation)
    assert outcome.outcome == "verified", (outcome.reason, outcome.detail)


MA_ORDER = "us-ma/dpu-18-150-national-grid-base-rate-order/dpu-18-150_order_2019-09-30.pdf"


@pytest.mark.slow
def test_a_table_of_contents_with_dot_leaders_is_text_not_garbage(
    corpus_workspace: Workspace,
) -> None:
    """The D.P.U. order's contents pages (vi to xvi) are mostly leader dots; their entries are text."""
    version = corpus_workspace.version(MA_ORDER)
    assert version.unusable_pages == ()
    contents = version.text[version.pages[5].char_start : version.pages[5].char_end]
    assert "TABLE OF CONTENTS" in contents and "PERFORMANCE-BASED RATEMAKING PROPOSAL" in contents


def test_leaders_alone_do_not_make_a_page_readable() -> None:
    result = extract_pdf(
        _pdf(_text(72, 700, "Words."), _text(72, 700, "\x01\x02 ........ \x03\x04")), source="x.pdf"
    )
    assert [(u.page, u.reason) for u in result.unusable_pages] == [(2, "garbage")]
