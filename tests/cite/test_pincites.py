"""Pincites on real versions: the right and the wrong subsection of a D.C. Code section, a NERC
requirement and its part, a section the version lacks, labels no profile reads."""

from __future__ import annotations

import json

import pytest

from workbench.cite import Citation, Verification, verify_citations
from workbench.cite.formats import read_citations
from workbench.cite.pincites import SECTION_REASONS, read_section
from workbench.cite.placing import verify_lines
from workbench.cite.verdicts import verification_as_json
from workbench.text.profiles import profile_for
from workbench.text.structure import parse_structure
from workbench.workspace import Workspace

PORTFOLIO = "us-dc/dc-code-34-1432/34-1432@2023-04-05.xml"
TIER = "In 2012, 5% from tier one renewable sources"
NERC = "us-nerc/nerc-cip-003/cip-003-9.pdf"
REQUIREMENT = "Each Responsible Entity with at least one asset identified in CIP"
PART = "For its assets identified in CIP"


def _verdict(workspace: Workspace, version_id: str, quote: str, section: str) -> Verification:
    text = workspace.version(version_id).text
    start = text.index(quote)
    citation = Citation(
        version_id=version_id,
        char_start=start,
        char_end=start + len(quote),
        quoted_text=quote,
        section=section,
    )
    return verify_citations(workspace, [citation])[0]


@pytest.mark.parametrize(
    ("section", "reason", "says"),
    [
        pytest.param("(c)(2)", None, "in section 34-1432 > (c) > (2)", id="right-subsection"),
        pytest.param("§ 34-1432(c)(2)", None, "34-1432 > (c) > (2)", id="with-the-section"),
        pytest.param("(c)", None, "in section 34-1432 > (c) [", id="the-enclosing-subsection"),
        pytest.param(
            "(c)(3)",
            "wrong_section",
            "is 34-1432 > (c) > (3) [",
            id="wrong-subsection",
        ),
        pytest.param("(b)", "wrong_section", "it lies in section 34-1432 > (c) > (2)", id="wrong"),
        pytest.param("(z)", "no_such_section", "has no section '(z)'", id="no-such-subsection"),
        pytest.param("R2", "bad_section", "'R2' reads as no label of profile 'us-dc'", id="nerc"),
        pytest.param("(c)(2)!", "bad_section", "'!' reads as no label", id="trailing-junk"),
        pytest.param(
            "34-1432(c)(2)",
            "bad_section",
            "a form it reads, the section the quoted span lies in: '§ 34-1432(c)(2)'",
            id="no-section-sign-offers-the-accepted-form",
        ),
    ],
)
def test_a_pincite_into_a_dc_code_section(
    workspace: Workspace, section: str, reason: str | None, says: str
) -> None:
    verdict = _verdict(workspace, PORTFOLIO, TIER, section)
    assert verdict.reason == reason and says in verdict.detail, verdict.detail
    assert reason is None or reason in SECTION_REASONS


def test_the_accepted_form_a_refusal_offers_verifies(workspace: Workspace) -> None:
    refused = _verdict(workspace, PORTFOLIO, TIER, "34-1432(c)(2)")
    offered = refused.detail.rsplit(": ", 1)[1].strip("'")
    assert _verdict(workspace, PORTFOLIO, TIER, offered).verified


def test_the_wrong_subsection_is_read_off_the_version_s_own_numbering(workspace: Workspace) -> None:
    """The wrong_section detail names both units with the parser's own extents."""
    version = workspace.version(PORTFOLIO)
    units = {u.path: u for u in parse_structure(version).units}
    right, wrong = units[("34-1432", "(c)", "(2)")], units[("34-1432", "(c)", "(3)")]
    start = version.text.index(TIER)
    end = start + len(TIER)
    assert right.char_start <= start < end <= right.char_end
    verdict = _verdict(workspace, PORTFOLIO, TIER, "(c)(3)")
    assert verdict.detail == (
        f"section '(c)(3)' is 34-1432 > (c) > (3) [{wrong.char_start}, {wrong.char_end}); the "
        f"span [{start}, {end}) is not inside it: it lies in section 34-1432 > (c) > (2) "
        f"[{right.char_start}, {right.char_end})"
    )


@pytest.mark.parametrize(
    ("quote", "section", "reason", "says"),
    [
        pytest.param(REQUIREMENT, "R2", None, "in section B > R2 [", id="requirement"),
        pytest.param(REQUIREMENT, "R1", "wrong_section", "it lies in section B > R2", id="wrong"),
        pytest.param(PART, "R1.2", None, "in section B > R1 > 1.2 [", id="part-shorthand"),
        pytest.param(PART, "R1 1.2", None, "in section B > R1 > 1.2 [", id="part-spelled-out"),
        pytest.param(PART, "R1.1", "wrong_section", "lies in section B > R1 > 1.2", id="part"),
        pytest.param(REQUIREMENT, "R9", "no_such_section", "no section 'R9'", id="no-r9"),
        pytest.param(REQUIREMENT, "(b)", "bad_section", "no label of profile 'us-nerc'", id="dc"),
    ],
)
def test_a_pincite_into_a_nerc_requirement(
    workspace: Workspace, quote: str, section: str, reason: str | None, says: str
) -> None:
    verdict = _verdict(workspace, NERC, quote, section)
    assert verdict.reason == reason and says in verdict.detail, verdict.detail


def test_reading_labels_through_profiles(workspace: Workspace) -> None:
    nerc = workspace.version(NERC)
    profile = profile_for(nerc.jurisdiction, nerc.family)
    assert read_section("R1.2.3", profile) == ("R1", "1.2.3")
    assert read_section("R2.1", profile) == ("R2", "2.1")
    assert read_section("R2 2.1", profile) == ("R2", "2.1")
    assert read_section("   ", profile) == "section '   ' names no label"
    dc = profile_for("us-dc", "dc-code-34-1432")
    assert read_section("(a-1)(3)", dc) == ("(a-1)", "(3)")
    assert read_section("(c) (2)", dc) == ("(c)", "(2)")


def test_a_refusal_of_the_rule_stands_and_our_json_carries_the_section(
    workspace: Workspace,
) -> None:
    text = workspace.version(PORTFOLIO).text
    start = text.index(TIER)
    record = {
        "version_id": PORTFOLIO,
        "char_start": start,
        "char_end": start + len(TIER),
        "section": "(c)(3)",
    }
    data = (
        json.dumps({**record, "quoted_text": TIER.replace("5%", "6%")})
        + "\n"
        + json.dumps({**record, "quoted_text": TIER})
        + "\n"
        + json.dumps({**record, "quoted_text": TIER, "section": 2})
        + "\n"
    ).encode()
    lines = read_citations(data, "workbench")
    assert lines[2].error == "line 3: field 'section': expected a string, got number"
    mismatch, wrong, _ = verify_lines(workspace, lines)
    assert mismatch is not None and mismatch.reason == "quote_mismatch"
    assert wrong is not None and wrong.reason == "wrong_section"
    assert verification_as_json(2, wrong)["section"] == "(c)(3)"
