"""The review queue stored in the workspace (`changes.stored`): the same items in the same order
as the queue recomputed from the diffs, read a page at a time, and refreshed only where a
version pair changed, from the pair's kept diff where one is kept."""

from __future__ import annotations

import json
import re
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import STORE
from workbench.changes import kept, log
from workbench.changes.diff import diff_versions
from workbench.changes.kept import version_lines
from workbench.changes.pairs import pair_changes, version_pairs
from workbench.changes.queue import find_item, item_as_json, item_caution_stands, review_items
from workbench.changes.stored import refresh_review_queue, review_page, stored_item
from workbench.cli import main
from workbench.derived import code_digest
from workbench.models import CatalogueRow, Version
from workbench.workspace import Workspace, ingest

NEXT = re.compile(r"the next page: --after (\S+)")
GROWING = "draft-nottingham-http-link-header"  # a family of many versions and renumberings
ONE_PDF = "epa-oig-report-10-p-0154-excerpt"  # a PDF held alone, its text's origin recorded


def _copy(workspace: Workspace, target: Path) -> Path:
    with closing(sqlite3.connect(workspace.path)) as src, closing(sqlite3.connect(target)) as dst:
        src.backup(dst)
    return target


def _list(capsysbinary: pytest.CaptureFixture[bytes], path: Path, *args: str) -> tuple[str, str]:
    assert main(["review", "list", *args, "--workspace", str(path)]) == 0
    out, err = capsysbinary.readouterr()
    return out.decode(), err.decode()


def _pages(capsysbinary: pytest.CaptureFixture[bytes], path: Path, *args: str) -> list[str]:
    """Every page of a listing, following the cursor each page names on stderr."""
    pages, after = [], None
    while True:
        out, err = _list(capsysbinary, path, *args, *(("--after", after) if after else ()))
        pages.append(out)
        found = NEXT.search(err)
        if found is None:
            return pages
        after = found.group(1)


def test_the_pages_one_after_another_are_the_whole_listing(
    workspace: Workspace, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    path = _copy(workspace, tmp_path / "w.sqlite")
    with Workspace(path) as held:
        today = review_items(held, profiles=held.profile_registry())
        verdicts = log.read_verdicts(held)
    whole, _ = _list(capsysbinary, path, "--limit", "0", "--json")
    assert json.loads(whole) == [item_as_json(item, verdicts) for item in today]
    pages = _pages(capsysbinary, path, "--limit", "40", "--json")
    assert len(pages) == -(-len(today) // 40)
    assert [row for page in pages for row in json.loads(page)] == json.loads(whole)
    text, _ = _list(capsysbinary, path, "--limit", "0")
    assert "".join(_pages(capsysbinary, path, "--limit", "40")) == text
    stands = sum(item_caution_stands(item, verdicts) for item in today)
    assert text.endswith(f"caution stands on {stands}\n")
    pairs = [f"{i.pairings[0].before_id} -> {i.pairings[0].after_id}" for i in today]
    headings = [pair for k, pair in enumerate(pairs) if k == 0 or pairs[k - 1] != pair]
    assert [line for line in text.splitlines() if line in set(pairs)] == headings


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The after version of every pair `diff_versions` diffs from here on, in order."""
    diffed: list[str] = []

    def counting(before: Version, after: Version, *args: Any, **kwargs: Any) -> Any:
        diffed.append(after.version_id)
        return diff_versions(before, after, *args, **kwargs)

    monkeypatch.setattr("workbench.changes.diff.diff_versions", counting)
    return diffed


def _kept_keys(held: Workspace, family: str) -> tuple[list[str], set[str]]:
    """The kept-diff keys of the family's consecutive pairs computed now, and those kept."""
    keys = kept.pair_keys(held, version_pairs(held, family), code_digest())
    assert keys is not None
    return list(keys), set(kept.read_kept(held, keys))


def test_a_new_version_diffs_only_its_own_pair(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A release adds a version: its one new pair is diffed (and its diff kept under the key
    computed now); every other pair's items are read back and its diff is neither read nor
    computed, though the profile is now chosen over one version more."""
    rows = sorted((r for r in catalogue if r.family == GROWING), key=lambda r: r.version_order)
    diffed = _counted(monkeypatch)
    with Workspace(tmp_path / "w.sqlite") as held:
        assert not ingest(held, rows[:-1], STORE).refused
        registry = held.profile_registry()
        first = refresh_review_queue(held, registry)
        assert (first.families, first.diffed, first.taken, first.reused) == (1, len(rows) - 2, 0, 0)
        again = refresh_review_queue(held, registry)
        assert (again.families, again.diffed, again.taken, again.reused) == (0, 0, 0, 0)
        assert not ingest(held, rows[-1:], STORE).refused
        diffed.clear()
        grown = refresh_review_queue(held, registry)
        assert (grown.families, grown.diffed, grown.taken, grown.reused) == (
            1,
            1,
            0,
            len(rows) - 2,
        )
        assert diffed == [rows[-1].path]
        keys, held_keys = _kept_keys(held, GROWING)
        assert held_keys == {keys[-1]}
        stored = review_page(held, GROWING).items
        assert stored == review_items(held, GROWING, profiles=registry)
        assert stored[-1].pairings[0].after_id == rows[-1].path


def test_a_refresh_takes_the_kept_diffs_and_keeps_what_it_diffs(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every pair's diff kept but one, no items stored: the refresh takes the kept diffs under
    the keys computed now, diffs the one pair alone and keeps its diff, so a later `workbench
    diff` of the family reads every pair."""
    rows = sorted((r for r in catalogue if r.family == GROWING), key=lambda r: r.version_order)
    with Workspace(tmp_path / "w.sqlite") as held:
        assert not ingest(held, rows, STORE).refused
        pair_changes(version_pairs(held, GROWING), workspace=held)  # keeps every pair's diff
        keys, held_keys = _kept_keys(held, GROWING)
        assert held_keys == set(keys)
        with held.transaction() as conn:
            conn.execute(f"DELETE FROM {kept.TABLE} WHERE diff_key = ?", (keys[1],))
        diffed = _counted(monkeypatch)
        refreshed = refresh_review_queue(held, held.profile_registry())
        assert (refreshed.families, refreshed.diffed, refreshed.taken, refreshed.reused) == (
            1,
            1,
            len(keys) - 1,
            0,
        )
        assert diffed == [rows[2].path]
        assert _kept_keys(held, GROWING)[1] == set(keys)
        diffed.clear()
        assert review_page(held, GROWING).items == review_items(
            held, GROWING, profiles=held.profile_registry()
        )
        assert diffed == []


def test_a_refresh_keys_again_only_the_families_touched_since_its_watermark(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a refresh, a new version, or a new origin record of a held version (a PDF read
    again by another extractor version), makes the next refresh read the lines of its own
    family alone; nothing new, no family's."""
    rows = sorted((r for r in catalogue if r.family == GROWING), key=lambda r: r.version_order)
    pdf = next(r for r in catalogue if r.family == ONE_PDF)
    with Workspace(tmp_path / "w.sqlite") as held:
        assert not ingest(held, [*rows[:-1], pdf], STORE).refused
        registry = held.profile_registry()
        refresh_review_queue(held, registry)
        keyed: list[tuple[str, str] | None] = []

        def lines(workspace: Workspace, only: tuple[str, str] | None = None) -> Any:
            keyed.append(only)
            return version_lines(workspace, only)

        monkeypatch.setattr("workbench.changes.stored.version_lines", lines)
        assert not ingest(held, rows[-1:], STORE).refused
        grown = refresh_review_queue(held, registry)
        assert (grown.families, keyed) == (1, [(rows[-1].jurisdiction, GROWING)])
        keyed.clear()
        with held.transaction() as conn:
            conn.execute(
                "INSERT INTO text_origins SELECT version_id, extractor, 'a later version', "
                "text_sha256, origin, recorded_at FROM text_origins WHERE version_id = ?",
                (pdf.path,),
            )
        read_again = refresh_review_queue(held, registry)
        assert (read_again.families, keyed) == (1, [(pdf.jurisdiction, ONE_PDF)])
        keyed.clear()
        again = refresh_review_queue(held, registry)
        assert (again.families, again.diffed, again.taken, again.reused, keyed) == (0, 0, 0, 0, [])


def test_an_item_is_found_in_the_stored_queue_as_in_the_diffs(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path
) -> None:
    rows = [r for r in catalogue if r.family == GROWING]
    with Workspace(tmp_path / "w.sqlite") as held:
        assert not ingest(held, rows, STORE).refused
        registry = held.profile_registry()
        refresh_review_queue(held, registry)
        items = review_items(held, profiles=registry)
        groups = [item for item in items if item.group_id is not None]
        assert groups, "the family renumbers sections: some item is a group"
        for item in (*groups[:2], items[0]):
            for name in (item.item_id, item.pairings[-1].change.change_id):
                assert stored_item(held, name, GROWING) == find_item(
                    held, name, family=GROWING, profiles=registry
                )
        assert stored_item(held, "chg-00000000000000000000") is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            ("--after", "chg-00000000000000000000"),
            "chg-00000000000000000000: not an item of the review queue in {path}; --after takes "
            "an item id 'workbench review list' printed",
            id="unknown-cursor",
        ),
        pytest.param(
            ("--limit", "-1"),
            "argument --limit: '-1': expected 0 (every item) or a positive whole number",
            id="negative-limit",
        ),
    ],
)
def test_a_bad_page_is_refused(
    workspace: Workspace,
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    args: tuple[str, ...],
    message: str,
) -> None:
    path = _copy(workspace, tmp_path / "w.sqlite")
    try:
        code = main(["review", "list", *args, "--workspace", str(path)])
    except SystemExit as exit:
        code = int(str(exit.code))
    assert code == 2
    assert message.format(path=path) in capsysbinary.readouterr().err.decode()
