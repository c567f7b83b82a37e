from __future__ import annotations

import json

import pytest

from workbench.models import Version, text_sha256
from workbench.text.lines import clean_label, gutter_line_starts
from workbench.text.ordinals import InconsistentStep
from workbench.text.profiles import profile_for, shipped_profiles
from workbench.text.structure import parse_structure, read_text, units_from_readings
from workbench.workspace import Workspace


def _text_version(text: str, version_id: str = "test/fam/v.txt") -> Version:
    return Version(
        version_id=version_id,
        jurisdiction="test",
        family="fam",
        version_order=1,
        version_label="",
        media_type="text/plain",
        artefact_sha256="0" * 64,
        artefact_bytes=len(text.encode()),
        extractor="identity",
        extractor_version="1",
        text_sha256=text_sha256(text),
        text=text,
    )


def _path_of(workspace: Workspace, version_id: str, needle: str) -> tuple[str, ...] | None:
    version = workspace.version(version_id)
    return parse_structure(version).path_at(
        version.text.rindex(needle)
    )  # the body, not the contents list


@pytest.mark.parametrize(
    ("version_id", "needle", "path"),
    [
        pytest.param(
            "ietf/draft-ietf-appsawg-http-problem/draft-ietf-appsawg-http-problem-02.txt",
            "3.2.  Extension Members",
            ("3", "3.2"),
            id="ietf-subsection-heading",
        ),
        pytest.param(
            "ietf/draft-ietf-appsawg-http-problem/draft-ietf-appsawg-http-problem-02.txt",
            "Normative References\n\n   [RFC2119]",
            ("8", "8.1"),
            id="ietf-body-under-subsection",
        ),
        pytest.param(
            "ietf/draft-ietf-appsawg-http-problem/draft-ietf-appsawg-http-problem-02.txt",
            "Appendix A.  HTTP Problems and XML",
            ("Appendix A",),
            id="ietf-appendix",
        ),
        pytest.param(
            "us-dc/dc-code-34-1432/34-1432@2024-07-30.xml",
            "(a-1) (1)",
            ("34-1432", "(a-1)"),
            id="dc-paragraph",
        ),
        pytest.param(
            "us-federal/115-hr255/115hr255enr_good.xml",
            "(2) women are less likely",
            ("2", "2"),
            id="uslm-paragraph-under-section",
        ),
        pytest.param(
            "us-mo/mo-2024-hb1746/HB1746_introduced.md",
            "137.077. 1. (1) Beginning",
            ("137.077",),
            id="mo-statute-section",
        ),
        pytest.param(
            "us-nerc/nerc-cip-002/cip-002-7.pdf",
            "1.1. Identify each of the high impact BCS",
            ("B", "R1", "1.1"),
            id="nerc-part-under-requirement-under-part-b",
        ),
    ],
)
def test_real_paths(
    workspace: Workspace, version_id: str, needle: str, path: tuple[str, ...]
) -> None:
    assert _path_of(workspace, version_id, needle) == path


def test_table_of_contents_lines_are_not_headings(workspace: Workspace) -> None:
    version = workspace.version(
        "ietf/draft-ietf-appsawg-http-problem/draft-ietf-appsawg-http-problem-02.txt"
    )
    toc = version.text.index("Table of Contents")
    first_heading = version.text.index("\n1.  Introduction\n") + 1
    parse = parse_structure(version)
    assert parse.path_at(toc + 30) is None, "front matter and its contents list belong to no unit"
    assert parse.units[0].char_start == first_heading


def test_front_matter_is_uncovered_not_guessed(workspace: Workspace) -> None:
    version_id = "ietf/draft-ietf-appsawg-http-problem/draft-ietf-appsawg-http-problem-02.txt"
    assert _path_of(workspace, version_id, "Abstract") is None


def test_gutter_numbers_are_set_aside(workspace: Workspace) -> None:
    version = workspace.version("us-mo/mo-2024-hb1746/HB1746_introduced.md")
    gutter = gutter_line_starts(version.text)
    line = version.text.index("2 property, excluding land")
    assert line in gutter
    units = parse_structure(version).units
    assert units and all(u.char_start not in gutter for u in units), (
        "a gutter number is not a label: units start after it"
    )


@pytest.mark.parametrize(
    ("text", "profile", "refusal"),
    [
        pytest.param(
            "Just prose.\nNo numbers at all.\n", "generic", "no_numbering", id="no-numbering"
        ),
        pytest.param(
            "1.  One\n\nx\n\n4.  Four\n\nx\n\n2.  Two\n\nx\n\n9.  Nine\n",
            "ietf",
            "inconsistent_numbering",
            id="inconsistent",
        ),
        pytest.param(
            "".join(f"{n} some text on line {n}\n" for n in range(1, 30)),
            "us-mo",
            "gutter_ambiguous",
            id="gutter-without-sections",
        ),
    ],
)
def test_refusals(text: str, profile: str, refusal: str) -> None:
    chosen = next(p for p in shipped_profiles() if p.name == profile)
    parse = parse_structure(_text_version(text), chosen)
    assert parse.refusal == refusal
    assert parse.units == () and parse.path_at(0) is None


def test_xml_without_numbering_refuses(held_versions: tuple[Version, ...]) -> None:
    refused = [v for v in held_versions if v.media_type == "application/xml" and not v.structure]
    assert refused, "the corpus holds USLM joint resolutions with no <num> elements"
    assert {parse_structure(v).refusal for v in refused} == {"no_numbering"}


@pytest.mark.slow
def test_every_real_version_parses_or_refuses_with_a_stated_code(
    corpus_workspace: Workspace,
) -> None:
    for version in corpus_workspace.versions():
        parse = parse_structure(version)
        assert parse.refusal in (None, "no_numbering", "inconsistent_numbering", "gutter_ambiguous")
        for unit in parse.units:
            assert 0 <= unit.char_start < unit.char_end <= len(version.text)
            assert unit.path[-1] == unit.label
            assert parse.path_at(unit.char_start) == unit.path, (version.version_id, unit)


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        pytest.param("SEC. 2.", "2", id="sec"),
        pytest.param("§ 34-306", "34-306", id="section-sign"),
        pytest.param("(a)", "(a)", id="paragraph"),
        pytest.param("6.1.", "6.1", id="dotted"),
        pytest.param("Section 4", "4", id="section-word"),
    ],
)
def test_clean_label(raw: str, clean: str) -> None:
    assert clean_label(raw) == clean


def test_structure_lists_the_inconsistent_steps_with_the_label_expected(
    workspace: Workspace,
) -> None:
    from tests.cli.test_cli import _run

    version_id = "us-nerc/nerc-cip-002/cip-002-7.pdf"
    version = workspace.version(version_id)
    steps: list[InconsistentStep] = []
    units_from_readings(
        read_text(version.text, profile_for("us-nerc", "")), len(version.text), steps
    )
    assert steps, "the standard's compliance section numbers its items on from the requirements"
    shown = json.loads(_run("structure", version_id, "--json", workspace=workspace.path).stdout)
    assert shown["label_steps_inconsistent"] == len(steps)
    assert shown["inconsistent_steps"] == [
        {"line": version.text.count("\n", 0, s.char_start) + 1, **s.as_json()} for s in steps
    ]
    listing = _run("structure", version_id, workspace=workspace.path).stdout.decode()
    first = shown["inconsistent_steps"][0]
    assert f"inconsistent steps ({len(steps)}):" in listing
    assert f"after {first['previous']}, expected {first['expected']}" in listing


def test_a_made_up_gap_is_listed_with_the_label_expected() -> None:
    profile = next(p for p in shipped_profiles() if p.name == "ietf")
    text = "1.  One\n\nx\n\n2.  Two\n\nx\n\n4.  Four\n\nx\n\n5.  Five\n\nx\n\n6.  Six\n"
    steps: list[InconsistentStep] = []
    units_from_readings(read_text(text, profile), len(text), steps)
    assert [(s.label, s.previous, s.expected) for s in steps] == [("4", "2", "3")]
