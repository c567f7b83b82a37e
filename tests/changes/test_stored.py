"""The review queue stored in the workspace (`changes.stored`): the same items in the same order
as the queue recomputed from the diffs, read a page at a time, and re-diffed only where a
version pair changed."""

from __future__ import annotations

import json
import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tests.conftest import STORE
from workbench.changes import log
from workbench.changes.queue import find_item, item_as_json, item_caution_stands, review_items
from workbench.changes.stored import refresh_review_queue, review_page, stored_item
from workbench.cli import main
from workbench.models import CatalogueRow
from workbench.workspace import Workspace, ingest

NEXT = re.compile(r"the next page: --after (\S+)")
GROWING = "draft-nottingham-http-link-header"  # a family of many versions and renumberings


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


def test_a_new_version_diffs_only_its_own_pair(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path
) -> None:
    rows = sorted((r for r in catalogue if r.family == GROWING), key=lambda r: r.version_order)
    with Workspace(tmp_path / "w.sqlite") as held:
        assert not ingest(held, rows[:-1], STORE).refused
        registry = held.profile_registry()
        first = refresh_review_queue(held, registry)
        assert (first.families, first.diffed, first.reused) == (1, len(rows) - 2, 0)
        again = refresh_review_queue(held, registry)
        assert (again.families, again.diffed, again.reused) == (0, 0, 0)
        assert not ingest(held, rows[-1:], STORE).refused
        grown = refresh_review_queue(held, registry)
        assert (grown.families, grown.diffed, grown.reused) == (1, 1, len(rows) - 2)
        stored = review_page(held, GROWING).items
        assert stored == review_items(held, GROWING, profiles=registry)
        assert stored[-1].pairings[0].after_id == rows[-1].path


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
