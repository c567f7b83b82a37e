"""Amendment instructions on the real D.C. Laws: read from the prose, verified against the held
Code releases before and after each law, reconciled with the diff (workbench.amendments).

Every figure is derived here from the held texts; the laws and releases named are real ones.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from lxml import etree

from tests.amendments.once import dc_report
from workbench.amendments import instructions
from workbench.amendments.enactment import check_instruction
from workbench.amendments.instructions import (
    Instruction,
    Reading,
    read_instructions,
    required_literals,
)
from workbench.amendments.laws import HeldCode, by_path, code_families
from workbench.amendments.reconcile import AmendmentReport, law_amendments
from workbench.amendments.style import STYLES_DIR, parse_style, style_for
from workbench.bounds import MATCH_BUDGET_SECONDS, BudgetedPattern
from workbench.cite import verify_citation
from workbench.cli import main
from workbench.errors import AmendmentError
from workbench.models import CatalogueRow
from workbench.text.extraction import extract
from workbench.text.profiles import profile_for
from workbench.text.xml import element_spans
from workbench.workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]
STORE = ROOT / "corpus" / "real"
LAW_24_314 = "us-dc/dc-law-24-314/24-314.xml"
LAW_24_167 = "us-dc/dc-law-24-167/24-167.xml"
LAW_24_147 = "us-dc/dc-law-24-147/24-147.xml"
LAW_25_217 = "us-dc/dc-law-25-217/25-217.xml"
CODE_34_1432 = "us-dc/dc-code-34-1432/34-1432@{}.xml"


@pytest.fixture(scope="module")
def report(workspace: Workspace, catalogue: tuple[CatalogueRow, ...]) -> AmendmentReport:
    return dc_report(workspace, catalogue)


def _by_sentence(report: AmendmentReport, law: str, start: str) -> tuple[Instruction, ...]:
    return tuple(i for i in report.law(law).reading.instructions if i.sentence.startswith(start))


def _one(report: AmendmentReport, law: str, start: str) -> Instruction:
    (found,) = _by_sentence(report, law, start)
    return found


def _check(report: AmendmentReport, ins: Instruction):  # type: ignore[no-untyped-def]
    law = report.law(ins.law)
    return law.checks[law.reading.instructions.index(ins)]


# --- reading the prose -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("law", "sentence", "action", "target", "old", "new", "label"),
    [
        pytest.param(
            LAW_24_314,
            "Paragraph (13) is amended by striking",
            "strike_and_insert",
            "§ 34-1432(c)(13)",
            "2.85% from solar energy",
            "3.0% from solar energy",
            None,
            id="strike-and-insert",
        ),
        pytest.param(
            LAW_24_314,
            "Subparagraph (J) is amended by striking the period",
            "strike_and_insert",
            "§ 34-1436(c)(1)(J)",
            ".",
            ";",
            None,
            id="punctuation-named-in-words",
        ),
        pytest.param(
            LAW_24_314,
            "Section 6(c)(3) (D.C. Official Code § 34-1434(c)(3)) is amended to read",
            "amend_to_read",
            "§ 34-1434(c)(3)",
            None,
            None,
            None,
            id="amend-to-read",
        ),
        pytest.param(
            LAW_25_217,
            "Designate the existing text as paragraph (1).",
            "redesignate",
            "§ 34-1432(b)",
            None,
            None,
            "(1)",
            id="redesignate",
        ),
        pytest.param(
            LAW_24_167,
            "Sub-subparagraph (viii) is repealed.",
            "repeal",
            "§ 1-328.04(l)(2)(A)(viii)",
            None,
            None,
            None,
            id="repeal",
        ),
    ],
)
def test_each_action_is_read_from_the_prose_with_its_target(
    report: AmendmentReport,
    law: str,
    sentence: str,
    action: str,
    target: str,
    old: str | None,
    new: str | None,
    label: str | None,
) -> None:
    ins = next(i for i in _by_sentence(report, law, sentence) if i.action == action)
    assert (ins.target.citation(), ins.old_text, ins.new_label) == (target, old, label)
    if new is not None:
        assert ins.new_text == new


def test_new_units_are_one_instruction_each_with_their_own_quoted_lines(
    report: AmendmentReport,
) -> None:
    added = _by_sentence(report, LAW_24_314, "New subparagraphs (K), (L), (M), and (N) are added")
    assert [i.target.citation() for i in added] == [f"§ 34-1436(c)(1)({label})" for label in "KLMN"]
    assert [i.action for i in added] == ["add_unit"] * 4
    assert added[1].new_lines == (
        "(L) Beginning in fiscal year 2026, transferring funding, in an amount to be determined by "
        "DOEE in its discretion, to the Energy Assistance Trust Fund for the purpose of expanding "
        "access to the District's low-income utility assistance programs;",
    )


def test_a_repeal_of_two_paragraphs_is_two_instructions(report: AmendmentReport) -> None:
    both = _by_sentence(report, LAW_24_167, "Paragraphs (22) and (23) are repealed.")
    assert [i.target.citation() for i in both] == ["§ 2-1217.01…(22)", "§ 2-1217.01…(23)"]


def test_a_strike_only_and_a_count_phrase_are_read(report: AmendmentReport) -> None:
    strikes = [i for law in report.laws for i in law.reading.instructions if i.action == "strike"]
    assert strikes and all(i.new_text is None and i.old_text for i in strikes)
    both = [
        i
        for law in report.laws
        for i in law.reading.instructions
        if "both times it appears" in i.sentence and i.action == "strike_and_insert"
    ]
    assert both and {i.count for i in both} == {2}


def test_an_uncodified_law_and_a_table_of_contents_are_flagged_apart(
    report: AmendmentReport,
) -> None:
    section_3 = _one(
        report, "us-dc/dc-law-25-50/25-50.xml", "Section 3 of the Local Solar Expansion"
    )
    assert (section_3.target.document, section_3.target.law, section_3.target.section) == (
        "law",
        "D.C. Law 24-314",
        "3",
    )
    tocs = [
        i
        for law in report.laws
        for i in law.reading.instructions
        if i.sentence.startswith("The table of contents is amended")
    ]
    assert tocs and {i.target.document for i in tocs} == {"table_of_contents"}


def test_every_instruction_is_an_exact_citation_into_its_law(
    report: AmendmentReport, workspace: Workspace
) -> None:
    for law in report.laws:
        text = workspace.version(law.law.version_id).text
        for ins in law.reading.instructions:
            assert text[ins.char_start : ins.char_end] == ins.sentence
            assert verify_citation(ins.citation(), text).outcome == "verified", ins
        for unread in law.reading.unread:
            assert text[unread.char_start : unread.char_end] == unread.text


def test_a_sentence_that_reads_like_an_instruction_but_does_not_parse_is_unread(
    report: AmendmentReport,
) -> None:
    unread = report.law(LAW_25_217).reading.unread
    missing_quote = [
        u for u in unread if u.text.startswith("Subsection (f) is amended by striking")
    ]
    assert [u.text for u in missing_quote] == [
        'Subsection (f) is amended by striking the phrase "Universal Paid Leave Fund and '
        'inserting the word "District" in its place.'
    ]


@pytest.mark.timeout(60)
def test_an_empty_label_is_no_label(report: AmendmentReport, workspace: Workspace) -> None:
    """Enacted laws in the D.C. Council's repository print sections whose `<num/>` is empty,
    which extract as zero-length structure marks (before the fix the reader looped for ever on
    one). The same law with every section's label emptied so reads the same instructions: the
    same targets, actions, texts and offsets (only the law's own citations lose the number)."""
    style, profile = style_for("us-dc"), profile_for("us-dc", None)
    version = workspace.version(LAW_24_314)
    law, read = report.law(LAW_24_314).law, report.law(LAW_24_314).reading
    emptied = tuple(
        dataclasses.replace(m, label="", char_end=m.char_start)
        if m.path[-1:] == ("section",)
        else m
        for m in version.structure
    )
    assert emptied != version.structure
    again = read_instructions(
        dataclasses.replace(version, structure=emptied), law.markup, law.quotations, style, profile
    )

    def read_as(ins: Instruction) -> tuple[object, ...]:
        return (ins.action, ins.target, ins.old_text, ins.new_text, ins.new_lines, ins.char_start)

    assert read.instructions
    assert [read_as(i) for i in again.instructions] == [read_as(i) for i in read.instructions]


def test_the_reader_never_reads_the_publishers_markup(
    catalogue: tuple[CatalogueRow, ...], workspace: Workspace, report: AmendmentReport
) -> None:
    """Every codify: element removed from each law's bytes: the reading is the same, sentence for
    sentence (offsets move with the text; what they cite does not). The reading of the law as
    held is the report's (`LawBook.reading`, the one `read_instructions` gives: test_readings)."""
    style = style_for("us-dc")
    profile = profile_for("us-dc", None)
    for row in catalogue:
        if not row.family.startswith("dc-law-"):
            continue
        version = workspace.version(row.path)
        held = report.law(row.path).reading
        root = etree.fromstring((STORE / row.path).read_bytes())
        for el in [e for e in root.iter() if etree.QName(e).namespace in style.publisher_markup]:
            parent = el.getparent()
            if parent is not None:  # an element inside removed markup went with it
                if el.tail:
                    previous = el.getprevious()
                    if previous is not None:
                        previous.tail = (previous.tail or "") + el.tail
                    else:
                        parent.text = (parent.text or "") + el.tail
                parent.remove(el)
        stripped = etree.tostring(root, encoding="utf-8", xml_declaration=True)
        assert b"codify:find-replace" not in stripped
        extraction = extract(stripped, "application/xml", source=row.path)
        bare = dataclasses.replace(version, text=extraction.text, structure=extraction.structure)
        quotations = element_spans(
            stripped,
            source=row.path,
            select=lambda el: etree.QName(el).localname == style.quotation_element,
        )
        again = read_instructions(
            bare, (), [(s.char_start, s.char_end) for s in quotations], style, profile
        )

        def shape(reading):  # type: ignore[no-untyped-def]
            return [
                (
                    i.law_section,
                    i.action,
                    i.target,
                    i.old_text,
                    i.new_text,
                    i.new_lines,
                    i.new_label,
                    i.count,
                    i.sentence,
                )
                for i in reading.instructions
            ], [(u.law_section, u.text) for u in reading.unread]

        assert shape(again) == shape(held), row.path
        assert len(held.instructions) > 0


# --- verification ----------------------------------------------------------------------------


def test_a_law_effective_between_two_releases_is_checked_against_that_pair(
    report: AmendmentReport,
) -> None:
    ins = _one(report, LAW_24_314, "Paragraph (13) is amended by striking")
    check = _check(report, ins)
    assert report.law(LAW_24_314).law.effective == "2023-03-10"
    assert check.before is not None and check.after is not None
    assert (check.before.version_id, check.after.version_id) == (
        CODE_34_1432.format("2021-11-19"),
        CODE_34_1432.format("2023-04-05"),
    )


def test_applied_struck_text_before_and_inserted_text_after_at_the_offsets_found(
    report: AmendmentReport, workspace: Workspace
) -> None:
    check = _check(report, _one(report, LAW_24_314, "Paragraph (13) is amended by striking"))
    assert check.outcome == "applied"
    assert check.before is not None and check.after is not None
    before = workspace.version(check.before.version_id).text
    after = workspace.version(check.after.version_id).text
    (old,) = check.before.old
    (new,) = check.after.new
    assert before[old[0] : old[1]] == "2.85% from solar energy"
    assert after[new[0] : new[1]] == "3.0% from solar energy"
    assert check.before.unit is not None and before[check.before.unit[0] :].startswith(
        "(13) In 2023"
    )


def test_target_missing_the_struck_10_0_percent_is_not_in_the_before_unit(
    report: AmendmentReport,
) -> None:
    ins = _one(report, LAW_24_314, "Paragraph (31) is amended by striking")
    check = _check(report, ins)
    assert (ins.old_text, check.outcome) == ("10.0% from solar energy", "target_missing")
    assert check.reads_as_instructed_in[0] == CODE_34_1432.format("2023-04-05")


def test_not_applied_and_applied_late(report: AmendmentReport) -> None:
    (ins,) = [
        i
        for i in _by_sentence(report, LAW_24_147, "Subparagraph (H) is amended by striking")
        if i.target.section == "34-1436"
    ]
    check = _check(report, ins)
    assert check.outcome == "not_applied"
    assert check.detail == "us-dc/dc-code-34-1436/34-1436@2022-09-08.xml does not read ';'"
    assert check.reads_as_instructed_in[0] == "us-dc/dc-code-34-1436/34-1436@2022-11-15.xml"


def test_count_mismatch_when_the_struck_text_does_not_stand_the_stated_number_of_times(
    report: AmendmentReport, workspace: Workspace, catalogue: tuple[CatalogueRow, ...]
) -> None:
    ins = _one(report, LAW_24_314, "Paragraph (13) is amended by striking")
    twice = dataclasses.replace(ins, count=2)
    code = _code(workspace, catalogue)
    check = check_instruction(twice, code, "2023-03-10")
    assert (check.outcome, check.detail) == (
        "count_mismatch",
        "'2.85% from solar energy' stands 1 times in the unit; the law says 2",
    )


def _code(workspace: Workspace, catalogue: tuple[CatalogueRow, ...]) -> HeldCode:
    return HeldCode(
        workspace,
        "us-dc",
        style_for("us-dc"),
        catalogue,
        STORE,
        families=code_families(
            by_path(catalogue).entries("us-dc"),
            {r.family for r in catalogue if r.family.startswith("dc-law-")},
        ),
    )


def test_a_target_not_held_has_no_versions(report: AmendmentReport) -> None:
    ins = _one(report, LAW_24_167, "Sub-subparagraph (viii) is repealed.")
    check = _check(report, ins)
    assert (check.outcome, check.detail) == ("no_versions", "§ 1-328.04 is not held")


def test_a_section_added_is_created_where_every_quoted_line_stands_in_its_first_release(
    report: AmendmentReport, workspace: Workspace, catalogue: tuple[CatalogueRow, ...]
) -> None:
    ins = _one(report, LAW_24_314, "A new section 8a is added")
    check = _check(report, ins)
    # The Code prints "this chapter" where the law says "this act": one quoted line departs.
    assert (check.outcome, check.family) == ("not_applied", "dc-code-34-1436.01")
    assert "1 of 9 quoted lines do not stand" in check.detail
    kept = tuple(line for line in ins.new_lines if "in this act" not in line)
    created = check_instruction(
        dataclasses.replace(ins, new_lines=kept), _code(workspace, catalogue), "2023-03-10"
    )
    assert (created.outcome, created.family, created.before) == (
        "created",
        "dc-code-34-1436.01",
        None,
    )
    assert created.after is not None
    assert created.after.version_id == "us-dc/dc-code-34-1436.01/34-1436.01@2023-04-05.xml"


def test_a_cross_reference_the_codifier_rewrote_is_applied_with_the_rewriting_named(
    report: AmendmentReport, workspace: Workspace, catalogue: tuple[CatalogueRow, ...]
) -> None:
    """24-314 § 2(c)(3)(N) quotes "section 8a"; the Code prints the section that codifies the
    Act's § 8a. The map comes from the held Code's own source notes, not the Council's markup."""
    (ins,) = [
        i
        for i in _by_sentence(report, LAW_24_314, "New subparagraphs (K), (L), (M), and (N)")
        if i.new_label == "(N)"
    ]
    assert "section 8a" in (ins.new_text or "")
    check = _check(report, ins)
    assert check.outcome == "applied"
    assert check.detail.endswith(
        "every quoted line stands (the codifier wrote the cross-reference 'section 8a' as "
        "'§ 34-1436.01')"
    )
    code = _code(workspace, catalogue)
    act = code.act_codified_in(code.releases("dc-code-34-1436.01")[-1])
    assert act is not None and code.codified_as(act, "8a") == "34-1436.01"
    notes = code.releases("dc-code-34-1436.01")[-1].version.text
    assert f"D.C. Law {act}, § 8a" in notes
    # Only the rewritten reference may differ: any other word changed does not stand, and the
    # refusal names the words that differ.
    edited = dataclasses.replace(
        ins, new_lines=tuple(line.replace("triennial", "biennial") for line in ins.new_lines)
    )
    refused = check_instruction(edited, code, "2023-03-10")
    assert refused.outcome == "not_applied"
    assert (
        "the law's words differ: 'biennial' where the release reads 'triennial'" in refused.detail
    )
    # A reference to an Act section no held Code section codifies is never rewritten.
    unknown = dataclasses.replace(
        ins, new_lines=tuple(line.replace("section 8a", "section 99z") for line in ins.new_lines)
    )
    assert check_instruction(unknown, code, "2023-03-10").outcome == "not_applied"


def test_the_three_commands_agree_on_the_rewritten_cross_reference(
    report: AmendmentReport, workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    (ins,) = [
        i
        for i in _by_sentence(report, LAW_24_314, "New subparagraphs (K), (L), (M), and (N)")
        if i.new_label == "(N)"
    ]
    ws = ["--workspace", str(workspace.path)]
    assert main(["amendments", LAW_24_314, "--json", *ws]) == 0
    read = json.loads(capsys.readouterr().out)
    (listed,) = [i for i in read["instructions"] if i["instruction_id"] == ins.instruction_id]
    assert listed["check"]["outcome"] == "applied" and listed["made_changes"]
    assert main(["diff", "dc-code-34-1436", "--laws", "--json", *ws]) == 0
    pairs = json.loads(capsys.readouterr().out)
    made = [c for p in pairs for c in p["changes"] if c["change_id"] in listed["made_changes"]]
    assert made and all(
        c["attribution"]["kind"] == "made_by"
        and ins.instruction_id in {m["instruction_id"] for m in c["attribution"]["made_by"]}
        for c in made
    )


# --- reconciliation --------------------------------------------------------------------------


def test_each_change_of_the_pair_names_the_instruction_that_made_it(
    report: AmendmentReport,
) -> None:
    ins = _one(report, LAW_24_314, "Paragraph (13) is amended by striking")
    made = [
        a
        for a in report.attributions.values()
        if ins.instruction_id in {m.instruction_id for m in a.made_by}
    ]
    assert len(made) == 1 and made[0].kind == "made_by" and not made[0].in_notes
    (by,) = made[0].made_by
    assert (by.law, by.law_section, by.char_start, by.char_end) == (
        LAW_24_314,
        "§ 2(a)(1)",
        ins.char_start,
        ins.char_end,
    )


def test_changes_a_new_history_note_explains_are_attributed_to_the_act(
    report: AmendmentReport,
) -> None:
    pair = [
        a
        for a in report.attributions.values()
        if (a.before, a.after)
        == (CODE_34_1432.format("2023-10-19"), CODE_34_1432.format("2024-07-30"))
    ]
    assert (
        pair and {a.kind for a in pair} == {"history"} and {a.acts for a in pair} == {("25-499",)}
    )


def test_instructions_already_read_before_the_law_are_not_reflected(
    report: AmendmentReport,
) -> None:
    added = _by_sentence(report, LAW_25_217, "Add new paragraphs (2) and (3)")
    assert len(added) == 2
    for ins in added:
        check = _check(report, ins)
        assert check.outcome == "applied" and "the before release read so already" in check.detail
        assert ins.instruction_id in report.not_reflected


# --- the style table and the command line ----------------------------------------------------


@pytest.mark.parametrize(
    ("source", "message"),
    [
        pytest.param(b"name = 1", "probe.toml: name: expected str", id="wrong-type"),
        pytest.param(b"colour = 'x'", "probe.toml: colour: unknown key", id="unknown-key"),
    ],
)
def test_a_malformed_style_is_refused_naming_the_key(source: bytes, message: str) -> None:
    with pytest.raises(AmendmentError) as caught:
        parse_style(source, "probe.toml")
    assert str(caught.value) == message


SHIPPED = STYLES_DIR / "us-dc.toml"
FIRST_PHRASING = (
    "pattern = '(?:The existing text (?:is|shall be) designated|Designate the existing text) as "
)


def _with_first_phrasing(pattern: str) -> bytes:
    """The shipped style with its first phrasing's pattern replaced by `pattern`."""
    lines = SHIPPED.read_text(encoding="utf-8").splitlines(keepends=True)
    (k,) = [k for k, line in enumerate(lines) if line.startswith(FIRST_PHRASING)]
    lines[k] = f"pattern = '{pattern}'\n"
    return "".join(lines).encode("utf-8")


def test_a_style_pattern_over_its_budget_is_refused_naming_file_and_key() -> None:
    """A phrasing is matched under the pattern budget (`bounds`): `(a|aa)+$` on a sentence of
    forty letters is refused in one line naming the style file, the key and the pattern; the
    shipped pattern answers the same sentence."""
    sentence = "a" * 40 + "!"
    assert (
        parse_style(SHIPPED.read_bytes(), "shipped").phrasings[0].pattern.fullmatch(sentence)
        is None
    )
    style = parse_style(_with_first_phrasing("(a|aa)+$"), "probe.toml")
    with pytest.raises(AmendmentError) as caught:
        style.phrasings[0].pattern.fullmatch(sentence)
    assert str(caught.value) == (
        f"probe.toml: phrasings[0].pattern: the pattern '(a|aa)+$' took more than "
        f"{MATCH_BUDGET_SECONDS} s on a text of {len(sentence)} characters; a pattern must not "
        "backtrack without bound (a repeated group that can match the same text in more than "
        "one way, such as (a+)+ or (a|aa)+)"
    )


def test_a_style_pattern_that_does_not_compile_is_refused_naming_file_and_key() -> None:
    with pytest.raises(AmendmentError) as caught:
        parse_style(_with_first_phrasing("(?P<new_label>"), "probe.toml")
    assert str(caught.value) == (
        "probe.toml: phrasings[0].pattern: bad regular expression '(?P<new_label>': missing ), "
        "unterminated subpattern at position 0"
    )


def test_a_jurisdiction_without_a_style_is_refused() -> None:
    with pytest.raises(AmendmentError) as caught:
        style_for("ietf")
    assert (
        str(caught.value)
        == "ietf: no drafting style names this jurisdiction; expected one of us-dc"
    )


def test_a_version_that_is_not_a_law_is_refused_before_anything_is_read(
    workspace: Workspace, catalogue: tuple[CatalogueRow, ...]
) -> None:
    with pytest.raises(AmendmentError) as caught:
        law_amendments(workspace, CODE_34_1432.format("2021-10-18"), catalogue, STORE)
    assert str(caught.value) == (
        f"{CODE_34_1432.format('2021-10-18')}: family dc-code-34-1432 is not a law of the us-dc "
        "drafting style (families matching '^dc-law-'); expected a held law"
    )


def test_the_command_prints_json_and_one_line_errors(
    workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = ["--workspace", str(workspace.path), "--corpus-dir", str(ROOT / "corpus")]
    paths += ["--store", str(STORE)]
    assert main(["amendments", LAW_24_314, "--json", *paths]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["law"] == LAW_24_314 and shown["effective"] == "2023-03-10"
    first = shown["instructions"][0]
    assert first["check"]["outcome"] == "applied" and first["made_changes"]
    assert set(first["made_changes"]) <= set(shown["changes"])
    assert main(["amendments", "nope.xml", *paths]) == 2
    assert capsys.readouterr().err == (
        f"workbench: error: nope.xml: no such version in {workspace.path}; see 'workbench ingest'\n"
    )


@pytest.mark.parametrize(
    ("pattern", "literals"),
    [
        pytest.param(r"ab(?P<x>cd)ef", ("abcdef",), id="a-group-that-must-match-is-walked"),
        pytest.param(r"a(?:b|c)d", ("a", "d"), id="an-alternation-cuts"),
        pytest.param(r"a(?:bc)?d", ("a", "d"), id="an-optional-group-cuts"),
        pytest.param(r"ab+c", ("a", "c"), id="a-repeat-cuts"),
        pytest.param(r"a\.b[xy]c", ("a.b", "c"), id="an-escape-is-its-character"),
        pytest.param(r"(?i:ab)c", ("c",), id="a-case-insensitive-group-cuts"),
        pytest.param(r"(?i)abc", (), id="case-insensitive-as-a-whole"),
        pytest.param(r"a(?=b)c", ("a", "c"), id="a-look-ahead-cuts"),
        pytest.param(r" a a ", (" a a ",), id="a-run-kept-whole"),
        pytest.param(r"(?P<s>.+?) is (?P<t>.+?) is ", (" is ",), id="repeated-runs-listed-once"),
    ],
)
def test_the_literals_a_pattern_requires(pattern: str, literals: tuple[str, ...]) -> None:
    assert required_literals(pattern) == literals


def test_a_phrasing_is_not_tried_on_a_sentence_lacking_what_it_requires(
    catalogue: tuple[CatalogueRow, ...],
    workspace: Workspace,
    report: AmendmentReport,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each law read with every phrasing tried on every sentence, and with a phrasing tried only
    on the sentences holding every literal it requires: the same readings, and the engine run
    on fewer sentences."""
    style, profile = style_for("us-dc"), profile_for("us-dc", None)
    runs: list[str] = []
    real = BudgetedPattern.fullmatch

    def counted(self: BudgetedPattern, text: str, *args: int) -> object:
        runs.append(text)
        return real(self, text, *args)

    monkeypatch.setattr(BudgetedPattern, "fullmatch", counted)
    laws = [workspace.version(r.path) for r in catalogue if r.family.startswith("dc-law-")]
    spans = [report.law(v.version_id).law for v in laws]  # each law's markup and quotations

    def read_all() -> list[Reading]:
        return [
            read_instructions(v, h.markup, h.quotations, style, profile)
            for v, h in zip(laws, spans, strict=True)
        ]

    filtered = read_all()
    tried = len(runs)
    runs.clear()
    monkeypatch.setattr(instructions, "required_literals", lambda pattern: ())
    assert read_all() == filtered
    assert sum(len(r.instructions) for r in filtered) > 0
    assert 0 < tried < len(runs)
