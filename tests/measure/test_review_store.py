"""`measure` fills the workspace's stored review queue with the review items its map computed
(`changes.stored.MeasuredQueue`): the first `review list` after it reads them back, diffs no pair,
and prints what the queue computed lazily prints."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tests.conftest import link_families
from workbench.changes.stored import refresh_review_queue
from workbench.cli import main
from workbench.measure import measure_corpus
from workbench.models import Change, consecutive_pairs
from workbench.workspace import Workspace

# An Internet-Draft of many versions and renumberings, a draft pair with capped pairings, and a
# single-version PDF (a family with no pair at all).
FAMILIES = (
    "ietf/draft-nottingham-http-link-header",
    "ietf/draft-nottingham-cache-extensions",
    "us-federal/epa-oig-report-10-p-0154-excerpt",
)
STORED = ("review_queue", "review_pairs", "review_families", "derived_state")


def _listing(capsysbinary: pytest.CaptureFixture[bytes], path: Path) -> str:
    assert main(["review", "list", "--limit", "0", "--workspace", str(path)]) == 0
    return capsysbinary.readouterr().out.decode()


def _forget(path: Path, tables: tuple[str, ...]) -> None:
    with closing(sqlite3.connect(path)) as conn, conn:
        for table in tables:
            conn.execute(f"DELETE FROM {table}")


def test_the_first_review_list_after_measure_diffs_no_pair(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    mirror = link_families(tmp_path / "mirror", FAMILIES)
    measure_corpus(mirror=mirror, out=tmp_path / "out", workspace=tmp_path / "w.sqlite")
    lazy = tmp_path / "lazy.sqlite"
    shutil.copy2(tmp_path / "w.sqlite", lazy)
    _forget(lazy, (*STORED, "kept_diffs"))
    expected = _listing(capsysbinary, lazy)  # every pair diffed by the listing itself
    assert " -> " in expected

    def diffed(*args: object) -> tuple[Change, ...]:
        raise AssertionError("review list diffed a pair measure had diffed")

    monkeypatch.setattr("workbench.changes.diff.diff_versions", diffed)
    assert _listing(capsysbinary, tmp_path / "w.sqlite") == expected
    # The stored pairs are under the keys the refresh computes: with every family's key
    # forgotten, each family is read again and each of its pairs read back, none diffed.
    _forget(tmp_path / "w.sqlite", ("review_families", "derived_state"))
    with Workspace(tmp_path / "w.sqlite") as held:
        pairs = consecutive_pairs(held.versions())
        refreshed = refresh_review_queue(held, held.profile_registry())
    assert (refreshed.families, refreshed.diffed, refreshed.reused) == (
        len(FAMILIES),
        0,
        len(pairs),
    )
    assert _listing(capsysbinary, tmp_path / "w.sqlite") == expected
