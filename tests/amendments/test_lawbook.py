"""Reading only the laws a question needs (workbench.amendments.lawbook): one law's report, and one
Code section's reconciliation, are the very ones that reading every held law gives.

The laws, sections and releases are the real ones; every expectation is derived from the full
report (`amendment_report`, every law read), never typed in.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.amendments.once import dc_report
from workbench.amendments.enactment import check_instruction
from workbench.amendments.lawbook import LawBook, names_section
from workbench.amendments.laws import HeldCode, RowsByPath, by_path, law_facts
from workbench.amendments.reconcile import (
    AmendmentReport,
    family_amendments,
    law_amendments,
    law_frame,
    law_json,
)
from workbench.amendments.style import style_for
from workbench.changes.pairs import diff_sections
from workbench.corpus.catalogue import Catalogue
from workbench.errors import AmendmentError
from workbench.models import CatalogueRow
from workbench.workspace import Workspace
from workbench.workspace.catalogue import TableRows, read_held

ROOT = Path(__file__).resolve().parents[2]
CORPUS_DIR = ROOT / "corpus"
STORE = CORPUS_DIR / "real"
LAW_24_314 = "us-dc/dc-law-24-314/24-314.xml"
CODE_34_1432 = "us-dc/dc-code-34-1432/34-1432@{}.xml"


@pytest.fixture(scope="module")
def full(workspace: Workspace, catalogue: tuple[CatalogueRow, ...]) -> AmendmentReport:
    return dc_report(workspace, catalogue)


@pytest.fixture(scope="module")
def book(workspace: Workspace, catalogue: tuple[CatalogueRow, ...]) -> LawBook:
    return LawBook(workspace, "us-dc", catalogue, STORE)


def _as_json(value: object) -> object:
    return json.loads(json.dumps(value, sort_keys=True))


def test_every_section_a_law_amends_is_one_its_text_names(
    full: AmendmentReport, book: LawBook
) -> None:
    """The rule the book reads by: an instruction checked against a release pair targets a
    section whose number the law's own text prints."""
    checked = 0
    for law in full.laws:
        for check in law.checks:
            if check.family and check.before and check.after:
                section = book.code.section_of(check.family)
                assert section is not None
                assert book.names(law.law.version_id, section), check
                checked += 1
    assert checked > 0


@pytest.mark.parametrize(
    ("section", "text", "named"),
    [
        pytest.param("34-1432", "D.C. Official Code § 34-1432(c))", True, id="cited-with-units"),
        pytest.param("34-1432", "section 34-1432.", True, id="at-a-sentence-end"),
        pytest.param("34-1436", "§ 34-1436.01(a)", False, id="a-longer-number"),
        pytest.param("34-1436", "§ 134-1436", False, id="a-digit-before"),
        pytest.param("34-1436", "§ 34-1436a", False, id="a-letter-after"),
    ],
)
def test_a_section_is_named_only_as_a_whole_number(section: str, text: str, named: bool) -> None:
    assert names_section(text, section) is named


def test_one_law_reads_only_itself_and_reports_as_the_full_reading_does(
    workspace: Workspace, catalogue: tuple[CatalogueRow, ...], full: AmendmentReport
) -> None:
    for law in full.laws:
        version_id = law.law.version_id
        alone = law_amendments(workspace, version_id, catalogue, STORE)
        assert _as_json(law_json(alone, version_id)) == _as_json(law_json(full, version_id))
        gaps = {
            (c.family, c.before.version_id, c.after.version_id)
            for c in law.checks
            if c.family and c.before and c.after
        }
        others = {
            other.law.version_id
            for other in full.laws
            for c in other.checks
            if c.family
            and c.before
            and c.after
            and (c.family, c.before.version_id, c.after.version_id) in gaps
        }
        assert {r.law.version_id for r in alone.laws} == others | {version_id}
    only = law_amendments(workspace, LAW_24_314, catalogue, STORE)
    assert [r.law.version_id for r in only.laws] == [LAW_24_314]


def test_a_sections_reconciliation_reads_only_the_laws_naming_it(
    workspace: Workspace, catalogue: tuple[CatalogueRow, ...], full: AmendmentReport, book: LawBook
) -> None:
    families = sorted({a.family for a in full.attributions.values()})
    assert len(families) > 1
    for family in families:
        section = family_amendments(workspace, family, catalogue, STORE)
        assert {k: a.as_json() for k, a in section.attributions.items()} == {
            k: a.as_json() for k, a in full.attributions.items() if a.family == family
        }
        named = book.code.section_of(family)
        assert named is not None
        read = {r.law.version_id for r in section.laws}
        assert all(book.names(law, named) for law in read), family
        amending = {
            r.law.version_id
            for r in full.laws
            if any(c.family == family and c.before and c.after for c in r.checks)
        }
        assert amending <= read, family


def test_the_changes_a_surface_holds_are_the_ones_attributed(
    workspace: Workspace, catalogue: tuple[CatalogueRow, ...], full: AmendmentReport
) -> None:
    pairs = [
        (workspace.version(CODE_34_1432.format(b)), workspace.version(CODE_34_1432.format(a)))
        for b, a in (("2021-11-19", "2023-04-05"), ("2023-10-19", "2024-07-30"))
    ]
    changes = {(s.before.version_id, s.after.version_id): s.changes for s in diff_sections(pairs)}
    section = family_amendments(workspace, "dc-code-34-1432", catalogue, STORE, changes=changes)
    shown = {c.change_id for diff in changes.values() for c in diff if c.kind != "unchanged"}
    assert set(section.attributions) == shown
    assert all(section.attributions[k] == full.attributions[k] for k in shown)


@pytest.mark.parametrize(
    ("family", "changes", "message"),
    [
        pytest.param(
            "dc-law-24-314",
            None,
            "dc-law-24-314: not a Code section of us-dc whose releases are held; expected one of ",
            id="a-law-is-not-a-section",
        ),
        pytest.param(
            "dc-code-34-1432",
            {(CODE_34_1432.format("2021-10-18"), CODE_34_1432.format("2023-04-05")): ()},
            f"{CODE_34_1432.format('2021-10-18')} -> {CODE_34_1432.format('2023-04-05')}: not "
            "two consecutive dated releases of dc-code-34-1432; the laws are reconciled with the "
            "changes between consecutive releases",
            id="not-consecutive",
        ),
        pytest.param(
            "draft-cedik-http-warning",
            None,
            "ietf: no drafting style names this jurisdiction; expected one of us-dc",
            id="no-drafting-style",
        ),
    ],
)
def test_a_family_the_laws_cannot_reconcile_is_refused(
    workspace: Workspace,
    catalogue: tuple[CatalogueRow, ...],
    family: str,
    changes: dict[tuple[str, str], tuple[()]] | None,
    message: str,
) -> None:
    with pytest.raises(AmendmentError) as caught:
        family_amendments(workspace, family, catalogue, STORE, changes=changes)
    assert str(caught.value).startswith(message)


def test_a_laws_frame_sets_each_instruction_beside_the_changes_it_made(
    workspace: Workspace, catalogue: tuple[CatalogueRow, ...]
) -> None:
    report = law_amendments(workspace, LAW_24_314, catalogue, STORE)
    frame = law_frame(report, LAW_24_314, workspace)
    law = report.law(LAW_24_314)
    made = {
        ins.instruction_id: [
            k
            for k, a in report.attributions.items()
            if ins.instruction_id in {m.instruction_id for m in a.made_by}
        ]
        for ins in law.reading.instructions
    }
    assert frame.height == sum(max(1, len(ids)) for ids in made.values())
    assert frame.filter(frame["change_id"].is_null()).height == sum(
        not ids for ids in made.values()
    )
    assert frame["char_start"].is_sorted()
    first = frame.row(0, named=True)
    (ins, check) = (law.reading.instructions[0], law.checks[0])
    assert (first["law_section"], first["outcome"], first["change_id"]) == (
        ins.law_section,
        check.outcome,
        made[ins.instruction_id][0],
    )
    before = workspace.version(first["before"]).text
    start, end = (int(n) for n in first["struck_at"].strip("[)").split(", "))
    assert before[start:end] == ins.old_text
    assert "[-" in first["change"] and "{+" in first["change"]


def test_a_whole_section_added_is_looked_for_only_among_sections_first_released_since(
    workspace: Workspace,
    catalogue: tuple[CatalogueRow, ...],
    full: AmendmentReport,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A section an instruction adds without its number is searched for only among the families
    whose first dated release is not older than the law (`HeldCode.first_released_since`): no
    other family's versions are loaded, and the check is the one reading every law gives."""
    added = [
        (law, ins, check)
        for law in full.laws
        for ins, check in zip(law.reading.instructions, law.checks, strict=True)
        if ins.target.document == "code"
        and ins.action == "add_unit"
        and not ins.target.path
        and ins.target.section is None
    ]
    assert added
    loaded: list[str] = []
    dated = HeldCode.dated
    monkeypatch.setattr(
        HeldCode, "dated", lambda code, family: loaded.append(family) or dated(code, family)
    )
    for law, ins, check in added:
        book = LawBook(workspace, "us-dc", catalogue, STORE)
        loaded.clear()
        assert check_instruction(ins, book.code, law.law.effective) == check
        since = {
            family
            for family in book.code.families
            if (facts := book.code.dated_facts(family)) and facts[0][0] >= law.law.effective
        }
        assert set(book.code.first_released_since(law.law.effective)) == since
        assert set(loaded) <= since, law.law.version_id


@pytest.fixture(scope="module")
def tabled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Catalogue, TableRows]]:
    """The catalogue file's rows, read as `reconcile` reads them (checked against its SHA-256),
    and a workspace table made from them, looked up where read (`TableRows`)."""
    with Workspace(tmp_path_factory.mktemp("tabled") / "w.sqlite") as held:
        yield read_held(held, CORPUS_DIR), TableRows(held)


def test_the_catalogue_table_gives_each_row_the_file_gives_and_lists_the_same_entries(
    tabled: tuple[Catalogue, TableRows],
) -> None:
    """Looked up by path, the table gives the row the file's rows give (its fields included), and
    None where they give none; each jurisdiction's entries are the same."""
    rows, table = tabled
    read = by_path(rows)
    assert isinstance(read, RowsByPath) and by_path(table) is table
    for row in rows:
        found = table.get(row.path)
        assert found == read.get(row.path) and found is not None
        assert found.fields == row.fields, row.path
    unknown = "us-dc/dc-law-24-314/24-315.xml"
    assert table.get(unknown) is None and read.get(unknown) is None
    for jurisdiction in sorted({row.jurisdiction for row in rows}):
        assert sorted(table.entries(jurisdiction)) == sorted(read.entries(jurisdiction))
    assert list(table.entries("xx-nowhere")) == list(read.entries("xx-nowhere")) == []


@pytest.mark.parametrize("kind", [pytest.param(0, id="file-rows"), pytest.param(1, id="table")])
@pytest.mark.parametrize(
    ("changed", "message"),
    [
        pytest.param(
            {"version_id": "us-dc/dc-law-24-314/24-315.xml"},
            "us-dc/dc-law-24-314/24-315.xml: not in the catalogue; expected a catalogued law",
            id="not-catalogued",
        ),
        pytest.param(
            {"artefact_sha256": "0" * 64},
            "us-dc/dc-law-24-314/24-314.xml: catalogue sha256 {} is not the held version's "
            f"artefact sha256 {'0' * 64}; re-run 'workbench ingest'",
            id="other-bytes",
        ),
    ],
)
def test_a_law_not_catalogued_as_held_is_refused_alike_by_either_catalogue(
    workspace: Workspace,
    tabled: tuple[Catalogue, TableRows],
    kind: int,
    changed: dict[str, Any],
    message: str,
) -> None:
    rows = (by_path(tabled[0]), tabled[1])[kind]
    held = workspace.version(LAW_24_314)
    catalogued = rows.get(LAW_24_314)
    assert catalogued is not None
    with pytest.raises(AmendmentError) as refused:
        law_facts(replace(held, **changed), style_for("us-dc"), rows, STORE)
    assert str(refused.value) == message.format(catalogued.sha256)


def test_a_law_book_on_the_catalogue_table_is_the_one_on_the_file_rows(
    workspace: Workspace, tabled: tuple[Catalogue, TableRows], book: LawBook
) -> None:
    """The same laws, facts, Code sections and section numbers, and each law read alike."""
    on_table = LawBook(workspace, "us-dc", tabled[1], STORE)
    assert list(on_table.versions) == list(book.versions) and on_table.facts == book.facts
    assert on_table.code.families == book.code.families
    assert on_table.code.by_section == book.code.by_section
    assert [on_table.report(law) for law in on_table.versions] == list(
        map(book.report, book.versions)
    )
