"""Honest dates (workbench.amendments.asof): the release of a family that stood on a date, the held
laws it does not yet reflect, and the laws that took effect between releases; and the commands
that show them (`text`, `cite`, `history` with --as-of; `versions --laws`).

Dates asked are inputs; every release, law and count expected is derived from the held
versions' filing dates and the laws' own reading, never typed in.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import STORE, command_paths
from workbench.amendments.asof import LawInEffect, laws_by_release, release_as_of
from workbench.amendments.lawbook import LawBook
from workbench.cli import main
from workbench.errors import AsOfError
from workbench.models import CatalogueRow
from workbench.workspace import Workspace

FAMILY = "dc-code-34-1432"
LAW_24_314 = "us-dc/dc-law-24-314/24-314.xml"


@pytest.fixture(scope="module")
def book(workspace: Workspace, catalogue: tuple[CatalogueRow, ...]) -> LawBook:
    return LawBook(workspace, "us-dc", catalogue, STORE)


def _releases(workspace: Workspace, family: str) -> list[tuple[str, str]]:
    dates = workspace.filing_dates()
    return sorted(
        (str(dates[v.version_id]), v.version_id)
        for v in workspace.versions(family)
        if dates[v.version_id]
    )


def test_a_date_between_releases_uses_the_one_before_and_names_the_law_it_lacks(
    workspace: Workspace, catalogue: tuple[CatalogueRow, ...], book: LawBook
) -> None:
    effective = book.facts[LAW_24_314].effective
    standing = [r for r in _releases(workspace, FAMILY) if r[0] <= effective]
    dated = release_as_of(workspace, FAMILY, effective, catalogue, STORE)
    assert (dated.published, dated.version_id) == standing[-1]
    assert standing[-1][0] < effective  # the law took effect after that release was published
    (law,) = dated.not_yet_reflected
    assert (law.law, law.effective, law.section) == (LAW_24_314, effective, "34-1432")
    assert law.instructions == len(book.amending(LAW_24_314, FAMILY)) > 0
    assert set(dated.releases) == {vid for _, vid in standing}


def test_on_a_release_day_that_release_is_used_and_it_lacks_no_law_before_it(
    workspace: Workspace, catalogue: tuple[CatalogueRow, ...]
) -> None:
    published, version_id = _releases(workspace, FAMILY)[0]
    dated = release_as_of(workspace, FAMILY, published, catalogue, STORE)
    assert (dated.version_id, dated.releases) == (version_id, (version_id,))
    assert dated.not_yet_reflected == ()
    assert dated.lines()[1] == "  no held law amending it took effect after it and by that date"


@pytest.mark.parametrize(
    ("date", "message"),
    [
        pytest.param(
            "2000-01-01",
            "dc-code-34-1432: no release published on or before 2000-01-01; its first, "
            "us-dc/dc-code-34-1432/34-1432@2021-10-18.xml, was published 2021-10-18",
            id="before-every-release",
        ),
        pytest.param(
            "2023-02-30", "2023-02-30: not a calendar date; expected YYYY-MM-DD", id="no-such-day"
        ),
        pytest.param("2023-3-1", "2023-3-1: not a calendar date; expected YYYY-MM-DD", id="short"),
    ],
)
def test_a_date_that_cannot_be_used_is_refused(
    workspace: Workspace, catalogue: tuple[CatalogueRow, ...], date: str, message: str
) -> None:
    with pytest.raises(AsOfError) as caught:
        release_as_of(workspace, FAMILY, date, catalogue, STORE)
    assert str(caught.value) == message


def test_a_family_no_drafting_style_names_has_releases_and_no_laws(
    workspace: Workspace, catalogue: tuple[CatalogueRow, ...]
) -> None:
    family = "draft-cedik-http-warning"
    last = _releases(workspace, family)[-1]
    dated = release_as_of(workspace, family, "2999-12-31", catalogue, STORE)
    assert (dated.published, dated.version_id, dated.not_yet_reflected) == (*last, ())


def test_the_laws_between_releases_are_the_laws_checked_against_those_pairs(
    workspace: Workspace, catalogue: tuple[CatalogueRow, ...], book: LawBook
) -> None:
    listed = laws_by_release(workspace, FAMILY, catalogue, STORE)
    releases = _releases(workspace, FAMILY)
    assert list(listed.since_previous) == [vid for _, vid in releases[1:]]
    # Every law whose instruction into the section was checked against a pair is listed under
    # that pair's later release, and nothing else is.
    expected: dict[str, set[str]] = {vid: set() for _, vid in releases[1:]}
    for law in book.versions:
        for check in book.report(law).checks:
            if check.family == FAMILY and check.before and check.after:
                expected[check.after.version_id].add(law)
    assert {k: {t.law for t in v} for k, v in listed.since_previous.items()} == expected
    assert any(expected.values())
    assert listed.after_last == ()  # no held law took effect after the last release


def test_text_as_of_prints_the_exact_text_and_says_which_release_beside_it(
    workspace: Workspace, book: LawBook, capsys: pytest.CaptureFixture[str]
) -> None:
    effective = book.facts[LAW_24_314].effective
    version_id = [vid for d, vid in _releases(workspace, FAMILY) if d <= effective][-1]
    assert main(["text", "--family", FAMILY, "--as-of", effective, *command_paths(workspace)]) == 0
    captured = capsys.readouterr()
    assert captured.out == workspace.version(version_id).text
    assert captured.err.splitlines()[0].startswith(f"as of {effective}: {version_id}, published ")
    assert captured.err.splitlines()[1].startswith(f"  not yet reflected: {LAW_24_314} ")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(
            ["text", "--family", FAMILY, "--as-of", "2000-01-01"],
            "dc-code-34-1432: no release published on or before 2000-01-01; its first, "
            "us-dc/dc-code-34-1432/34-1432@2021-10-18.xml, was published 2021-10-18",
            id="text-before-every-release",
        ),
        pytest.param(
            ["text", "us-dc/dc-code-34-1432/34-1432@2021-10-18.xml", "--as-of", "2023-01-01"],
            "name the version by its id, or by --family F with --as-of DATE; not both, not neither",
            id="text-id-and-date",
        ),
        pytest.param(
            ["text"],
            "name the version by its id, or by --family F with --as-of DATE; not both, not neither",
            id="text-neither",
        ),
        pytest.param(
            ["cite", "solar", "--family", FAMILY],
            "name the version by its id, or by --family F with --as-of DATE; not both, not neither",
            id="cite-family-without-date",
        ),
        pytest.param(
            ["history", "solar", "--family", FAMILY, "--as-of", "2023-13-01"],
            "2023-13-01: not a calendar date; expected YYYY-MM-DD",
            id="history-bad-date",
        ),
    ],
)
def test_as_of_refusals_are_one_line_and_exit_2(
    workspace: Workspace, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main([*argv, *command_paths(workspace)]) == 2
    assert capsys.readouterr().err == f"workbench: error: {message}\n"


def test_cite_and_history_as_of_search_the_release_that_stood_then(
    workspace: Workspace, book: LawBook, capsys: pytest.CaptureFixture[str]
) -> None:
    effective = book.facts[LAW_24_314].effective
    standing = [vid for d, vid in _releases(workspace, FAMILY) if d <= effective]
    quote = "not less than 2.85% from solar energy"  # the words 24-314 § 2(a)(1) strikes
    argv = ["--family", FAMILY, "--as-of", effective, "--json", *command_paths(workspace)]
    assert main(["cite", quote, *argv]) == 0
    cited = json.loads(capsys.readouterr().out)
    assert cited["version_id"] == standing[-1] == cited["as_of"]["version_id"]
    assert [law["law"] for law in cited["as_of"]["not_yet_reflected"]] == [LAW_24_314]
    assert main(["history", quote, *argv]) == 0
    life = json.loads(capsys.readouterr().out)
    assert [v["version_id"] for v in life["versions"]] == [
        v.version_id for v in workspace.versions(FAMILY) if v.version_id in standing
    ]
    assert life["latest_holds"] is True
    # the newest release, which reflects the law, no longer holds the struck words
    assert main(["history", quote, "--family", FAMILY, "--json", *command_paths(workspace)]) == 0
    assert json.loads(capsys.readouterr().out)["latest_holds"] is False


def test_versions_laws_lists_each_law_under_the_first_release_after_it(
    workspace: Workspace, catalogue: tuple[CatalogueRow, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    listed = laws_by_release(workspace, FAMILY, catalogue, STORE)
    assert main(["versions", FAMILY, "--laws", "--json", *command_paths(workspace)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["laws_since_previous"] is None
    for row in rows[1:]:
        assert row["laws_since_previous"] == [
            t.as_json() for t in listed.since_previous[row["version_id"]]
        ]
    assert rows[-1]["laws_after"] == []
    assert main(["versions", FAMILY, "--laws", *command_paths(workspace)]) == 0
    lines = capsys.readouterr().out.splitlines()
    for release, laws in listed.since_previous.items():
        at = next(k for k, line in enumerate(lines) if f"  {release}  " in line)
        shown = [line for line in lines[at - len(laws) : at] if "took effect" in line]
        assert shown == [f"       took effect since the release before: {t.line()}" for t in laws]
    assert main(["versions", FAMILY, *command_paths(workspace)]) == 0
    assert "took effect" not in capsys.readouterr().out


def test_the_pending_laws_line_names_act_date_and_count(book: LawBook) -> None:
    facts = book.facts[LAW_24_314]
    law = LawInEffect(
        law=LAW_24_314, effective=facts.effective, act=facts.act, section="34-1432", instructions=1
    )
    assert law.line() == (
        f"{LAW_24_314} (D.C. Act {facts.act}), effective {facts.effective}: 1 instruction into "
        "§ 34-1432"
    )
