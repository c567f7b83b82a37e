"""`workbench reconcile`: every release gap of every held section matched with the held laws.

On the default workspace (the twelve sections and seven laws of us-dc) the report's figures for
the sections a law targets are the amendment scorecard's, derived here from `amendment_report`
and read from the committed scorecard, never typed; every section's figures are those of the
diff of every consecutive release pair.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.amendments.once import dc_reconciliation, dc_report
from tests.conftest import ROOT, STORE
from workbench.amendments.whole_code import CodeReconciliation, reconcile_code
from workbench.changes.diff import diff_versions
from workbench.cli import main
from workbench.errors import AmendmentError
from workbench.evals.amendments import reconciliation_shares
from workbench.evals.cards import scorecard_bytes
from workbench.evals.reconciliation import (
    NOT_APPLIED_CSV,
    REPORT_JSON,
    TITLES_CSV,
    reconciliation_report,
    write_reconciliation,
)
from workbench.measure import corpus_digest
from workbench.models import CatalogueRow
from workbench.workspace import Workspace


@pytest.fixture(scope="module")
def reconciled(workspace: Workspace, catalogue: tuple[CatalogueRow, ...]) -> CodeReconciliation:
    return dc_reconciliation(workspace, catalogue)


@pytest.fixture(scope="module")
def report(reconciled: CodeReconciliation, catalogue: tuple[CatalogueRow, ...]) -> dict[str, Any]:
    return reconciliation_report(reconciled, corpus_digest=corpus_digest(catalogue))


def test_the_targeted_figures_are_the_amendment_scorecards(
    workspace: Workspace,
    catalogue: tuple[CatalogueRow, ...],
    reconciled: CodeReconciliation,
    report: dict[str, Any],
) -> None:
    scored = dc_report(workspace, catalogue)
    overall = report["scopes"]["targeted"]["overall"]
    assert overall == reconciliation_shares(scored.attributions.values(), len(scored.not_reflected))
    committed = json.loads((ROOT / "measurements" / "amendment-scorecard.json").read_bytes())
    assert overall == committed["reconciliation"]
    # The very attributions, change by change, and the same instructions with the same checks.
    targeted = {
        cid: a for cid, a in reconciled.attributions.items() if a.family in reconciled.targeted
    }
    assert targeted == dict(scored.attributions)
    assert sorted(reconciled.not_reflected) == sorted(scored.not_reflected)
    outcomes = Counter(c.outcome for law in scored.laws for c in law.checks)
    assert {o: n for o, n in report["outcomes"]["overall"].items() if n} == dict(outcomes)
    assert report["laws"] == len(scored.laws) == len(committed["laws"])


def test_every_section_holds_every_change_of_every_consecutive_release_pair(
    workspace: Workspace, reconciled: CodeReconciliation, report: dict[str, Any]
) -> None:
    expected = {}
    for family in reconciled.sections:
        versions = sorted(workspace.versions(family), key=lambda v: v.version_order)
        for before, after in itertools.pairwise(versions):
            for change in diff_versions(before, after):
                if change.kind != "unchanged":
                    expected[change.change_id] = family
    assert {cid: a.family for cid, a in reconciled.attributions.items()} == expected
    every = report["scopes"]["every"]
    assert (
        every["overall"]["changes"]
        == len(expected)
        > report["scopes"]["targeted"]["overall"]["changes"]
    )
    for scope in report["scopes"].values():
        assert sum(t["changes"] for t in scope["titles"].values()) == scope["overall"]["changes"]
    applied = sum(report["outcomes"]["overall"][o] for o in ("applied", "created"))
    assert len(report["not_applied"]) == report["instructions"] - applied


def test_the_report_files_hold_the_report(report: dict[str, Any], tmp_path: Path) -> None:
    names = write_reconciliation(tmp_path, report)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)
    assert (tmp_path / REPORT_JSON).read_bytes() == scorecard_bytes(report)
    titles = list(csv.DictReader(io.StringIO((tmp_path / TITLES_CSV).read_text())))
    for row in titles:
        block = report["scopes"][row["scope"]]
        shares = block["overall"] if row["title"] == "all" else block["titles"][row["title"]]
        assert int(row["made_by"]) == shares["made_by"]["holds"]
        assert int(row["changes"]) == shares["changes"]
    listed = list(csv.DictReader(io.StringIO((tmp_path / NOT_APPLIED_CSV).read_text())))
    assert [(r["law"], r["outcome"]) for r in listed] == [
        (r["law"], r["outcome"]) for r in report["not_applied"]
    ]


def test_titles_are_held_code_titles_and_targets_not_held_are_counted_apart(
    reconciled: CodeReconciliation, report: dict[str, Any]
) -> None:
    from workbench.amendments.whole_code import NOT_THE_CODE, title_of
    from workbench.evals.reconciliation import NO_HELD_TITLE, report_lines

    held = set(reconciled.sections.values())
    titles = {title_of(n) for n in held}
    assert set(report["outcomes"]["titles"]) <= titles | {NOT_THE_CODE, NO_HELD_TITLE}
    read = {
        (i.law, i.char_start, i.action, i.target.citation()): (i, c)
        for i, c in reconciled.instructions()
    }
    for row in report["not_applied"]:
        ins, check = read[(row["law"], row["char_start"], row["action"], row["target"])]
        assert row["target_held"] == (
            check.family is not None
            or (ins.target.document == "code" and ins.target.section in held)
        )
    not_held = sum(not r["target_held"] for r in report["not_applied"])
    assert report_lines(report)[-1] == (
        f"instructions neither applied nor created: {len(report['not_applied']) - not_held} of "
        f"those whose target is held; {not_held} more whose target is not held (not counted "
        "against the reader)"
    )
    assert not_held > 0 and len(report["not_applied"]) > not_held


def test_reconcile_reads_the_rewritten_cross_reference_as_amendments_does(
    reconciled: CodeReconciliation, report: dict[str, Any]
) -> None:
    """D.C. Law 24-314 § 2(c)(3)(N): the codifier wrote its "section 8a" as the Code section that
    codifies it; the reconciliation takes the same check as `amendments`, so it is applied here
    too, its rewriting named, and not among the instructions neither applied nor created."""
    (ins, check) = next(
        (i, c)
        for i, c in reconciled.instructions()
        if i.law == "us-dc/dc-law-24-314/24-314.xml" and i.new_label == "(N)"
    )
    assert check.outcome == "applied" and "the codifier wrote the cross-reference" in check.detail
    # Its sentence adds (K) to (N); every one of them is applied, so none is listed.
    assert not [
        r for r in report["not_applied"] if (r["law"], r["char_start"]) == (ins.law, ins.char_start)
    ]


def test_no_law_or_no_code_held_is_refused_in_one_line(
    workspace: Workspace, catalogue: tuple[CatalogueRow, ...]
) -> None:
    laws = [row for row in catalogue if row.family.startswith("dc-law-")]
    code = [row for row in catalogue if row.family.startswith("dc-code-")]
    with pytest.raises(AmendmentError) as caught:
        reconcile_code(workspace, "us-dc", code, STORE)
    assert str(caught.value) == (
        f"{workspace.path}: no held law of us-dc (families matching '^dc-law-'); admit and "
        "ingest the laws, e.g. with 'workbench corpus add --from-git REPO --at-head'"
    )
    with pytest.raises(AmendmentError) as caught:
        reconcile_code(workspace, "us-dc", laws, STORE)
    assert str(caught.value) == (
        f"{workspace.path}: no held Code section of us-dc (XML families with structure marks "
        "that are not laws); admit and ingest the Code's section files"
    )


def test_the_command_writes_the_report_and_refuses_in_one_line(
    workspace: Workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = ["--workspace", str(workspace.path), "--corpus-dir", str(ROOT / "corpus")]
    paths += ["--store", str(STORE)]
    out = tmp_path / "report"
    assert main(["reconcile", "--out", str(out), "--json", *paths]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (out / REPORT_JSON).read_bytes() == scorecard_bytes(shown)
    a_file = tmp_path / "a-file"
    a_file.write_bytes(b"")
    with pytest.raises(SystemExit) as exited:
        main(["reconcile", "--out", str(a_file), *paths])
    assert exited.value.code == 2
    assert capsys.readouterr().err == (
        f"workbench reconcile: error: argument --out: {a_file}: exists and is not a folder; "
        "give a folder or a new path\n"
    )
    empty = tmp_path / "empty.sqlite"
    Workspace(empty).close()
    assert main(["reconcile", "--out", str(out), *paths[2:], "--workspace", str(empty)]) == 2
    assert capsys.readouterr().err == (
        f"workbench: error: {empty}: no held law of us-dc (families matching '^dc-law-'); admit "
        "and ingest the laws, e.g. with 'workbench corpus add --from-git REPO --at-head'\n"
    )
