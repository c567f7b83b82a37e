"""What made each change, shown on the diff's surfaces (workbench.changes.attribution): the JSON,
the listing's line, the redline page and the review widget, handed the amendments verb's real
attributions of D.C. Code § 34-1434 as data.

The changes stage computes none of it (tests/test_layers.py holds that it never imports the
history stage); these tests hand it the records and read what each surface shows.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import STORE, command_paths
from workbench.amendments.reconcile import AmendmentReport, family_amendments
from workbench.changes.attribution import (
    attribution_counts,
    attribution_line,
    section_json,
)
from workbench.changes.pairs import diff_sections, version_pairs
from workbench.changes.queue import doubtful_pairings
from workbench.changes.redline import Section
from workbench.changes.redline_page import page_html
from workbench.changes.widgets import ReviewWidget
from workbench.cli import main
from workbench.models import CatalogueRow
from workbench.workspace import Workspace

FAMILY = "dc-code-34-1434"
LAW_24_314 = "us-dc/dc-law-24-314/24-314.xml"


@pytest.fixture(scope="module")
def sections(workspace: Workspace) -> tuple[Section, ...]:
    return diff_sections(version_pairs(workspace, FAMILY))


@pytest.fixture(scope="module")
def report(
    workspace: Workspace, catalogue: tuple[CatalogueRow, ...], sections: tuple[Section, ...]
) -> AmendmentReport:
    changes = {(s.before.version_id, s.after.version_id): s.changes for s in sections}
    return family_amendments(workspace, FAMILY, catalogue, STORE, changes=changes)


def _made_by_law(report: AmendmentReport) -> str:
    return next(
        k
        for k, a in sorted(report.attributions.items())
        if a.kind == "made_by" and a.made_by[0].law == LAW_24_314
    )


def test_every_change_shown_carries_its_attribution_and_an_unchanged_passage_none(
    sections: tuple[Section, ...], report: AmendmentReport
) -> None:
    for part in sections:
        shown = section_json(part, report.attributions)
        assert shown["changes"], part.before.version_id
        for entry in shown["changes"]:
            made = report.attributions.get(entry["change_id"])
            if entry["kind"] == "unchanged":
                assert entry["attribution"] is None
            else:
                assert made is not None and entry["attribution"] == made.as_json()
        # beside the attribution, each change's JSON is the diff's own, unchanged
        bare = [{k: v for k, v in c.items() if k != "attribution"} for c in shown["changes"]]
        assert bare == part.as_json()["changes"]


def test_the_listing_names_the_law_its_section_and_the_sentence(
    sections: tuple[Section, ...], report: AmendmentReport
) -> None:
    change_id = _made_by_law(report)
    (by,) = report.attributions[change_id].made_by
    assert attribution_line(report.attributions, change_id) == (
        f"made by {LAW_24_314} {by.law_section} [{by.char_start}, {by.char_end})"
    )
    assert attribution_line(report.attributions, "chg-not-attributed") is None
    part = next(s for s in sections if any(c.change_id == change_id for c in s.changes))
    kinds = [report.attributions[c.change_id].kind for c in part.changes if c.kind != "unchanged"]
    assert attribution_counts(part, report.attributions) == "attributed: " + ", ".join(
        f"{kinds.count(k)} {k}" for k in sorted(set(kinds))
    )


def test_the_redline_page_shows_what_made_each_change_and_is_unchanged_without(
    sections: tuple[Section, ...], report: AmendmentReport
) -> None:
    change_id = _made_by_law(report)
    page = page_html(
        sections, family=FAMILY, shown="every change", attributions=report.attributions
    )
    line = report.attributions[change_id].line()
    row = page[page.index(f'<tr id="{change_id}"') :]
    row = row[: row.index("</tr>")]
    assert f'<div class="made made_by">{html.escape(line)}</div>' in row
    assert page_html(sections, family=FAMILY, shown="every change") == page_html(
        sections, family=FAMILY, shown="every change", attributions=None
    )
    assert "made by" not in page_html(sections, family=FAMILY, shown="every change")


@dataclass(frozen=True)
class _Hostile:
    kind: str = "made_by"

    def line(self) -> str:
        return "made by <script>alert(1)</script>\x1b[31m"

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind}


def test_a_records_words_are_escaped_on_the_page_and_shown_on_a_terminal(
    sections: tuple[Section, ...],
) -> None:
    change = next(c for s in sections for c in s.changes if c.kind != "unchanged")
    hostile = {change.change_id: _Hostile()}
    page = page_html(sections, family=FAMILY, shown="every change", attributions=hostile)
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert attribution_line(hostile, change.change_id) == (
        "made by <script>alert(1)</script>\u241b[31m"
    )


def test_the_review_widget_shows_what_made_a_doubtful_pairing(
    workspace: Workspace, report: AmendmentReport
) -> None:
    pairings = doubtful_pairings(workspace, FAMILY)
    attributed = [p for p in pairings if p.change.change_id in report.attributions]
    assert attributed, "a doubtful pairing of § 34-1434 that the laws account for"
    widget = ReviewWidget(workspace, attributed, attributions=report.attributions)
    made = report.attributions[attributed[0].change.change_id]
    assert html.escape(made.line()) in widget.scores.value
    assert html.escape(made.line()) not in ReviewWidget(workspace, attributed).scores.value


def test_diff_laws_shows_the_attributions_the_amendments_verb_hands_it(
    workspace: Workspace,
    report: AmendmentReport,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    change_id = _made_by_law(report)
    line = report.attributions[change_id].line()
    assert main(["diff", FAMILY, "--laws", *command_paths(workspace)]) == 0
    listing = capsys.readouterr().out.splitlines()
    at = next(k for k, text in enumerate(listing) if text.startswith(f"  {change_id} "))
    assert listing[at + 3] == f"    {line}"
    assert main(["diff", FAMILY, "--laws", "--json", *command_paths(workspace)]) == 0
    shown = {
        c["change_id"]: c for part in json.loads(capsys.readouterr().out) for c in part["changes"]
    }
    assert shown[change_id]["attribution"] == report.attributions[change_id].as_json()
    page = tmp_path / "redline.html"
    assert main(["diff", FAMILY, "--laws", "--html", str(page), *command_paths(workspace)]) == 0
    assert html.escape(line) in page.read_text(encoding="utf-8")
    assert main(["diff", FAMILY, *command_paths(workspace)]) == 0
    assert "made by" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(
            ["dc-code-34-1432", "--from", "us-dc/dc-code-34-1432/34-1432@2021-10-18.xml"],
            "us-dc/dc-code-34-1432/34-1432@2021-10-18.xml -> "
            "us-dc/dc-code-34-1432/34-1432@2024-09-29.xml: not two consecutive dated releases "
            "of dc-code-34-1432; the laws are reconciled with the changes between consecutive "
            "releases",
            id="not-consecutive",
        ),
        pytest.param(
            ["draft-cedik-http-warning"],
            "ietf: no drafting style names this jurisdiction; expected one of us-dc",
            id="no-drafting-style",
        ),
    ],
)
def test_diff_laws_refuses_what_the_laws_cannot_account_for_before_writing(
    workspace: Workspace,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    argv: list[str],
    message: str,
) -> None:
    page = tmp_path / "redline.html"
    assert main(["diff", *argv, "--laws", "--html", str(page), *command_paths(workspace)]) == 2
    assert capsys.readouterr().err == f"workbench: error: {message}\n"
    assert not page.exists()
