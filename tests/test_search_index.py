"""The search index updated in place (`search.index.update_index`): after versions arrive, or
one indexed under another text hash, it holds what a build from scratch holds, and answers every
query the same; until it is updated it is reported stale, as before."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from tests.conftest import STORE
from workbench.models import CatalogueRow
from workbench.search import (
    INDEX_FORMAT,
    Candidate,
    SearchScope,
    build_index,
    find_candidates,
    index_status,
    passages_for_search,
    update_index,
)
from workbench.workspace import Workspace, ingest

FAMILIES = ("dc-code-34-1151", "dc-code-34-1432", "draft-nottingham-http-link-header")
QUERIES = (
    "negotiate a payment plan",
    "The Commission shall",
    "link relation types registry",
    "disconnection notices must contain notice of the right of a client",
)
TABLES = {
    "search_texts": "text_id",
    "search_passages": "version_id, char_start",
    "search_versions": "version_id",
    "search_word_docs": "word",
    "search_index_meta": "key",
}


def _rows(catalogue: tuple[CatalogueRow, ...]) -> list[CatalogueRow]:
    return sorted(
        (r for r in catalogue if r.family in FAMILIES), key=lambda r: (r.family, r.version_order)
    )


@pytest.fixture
def growing(catalogue: tuple[CatalogueRow, ...], tmp_path: Path) -> Iterator[Workspace]:
    """Every family's versions but its last held, with an index built over them."""
    rows = _rows(catalogue)
    last = {r.family: r for r in rows}
    with Workspace(tmp_path / "w.sqlite") as held:
        assert not ingest(held, [r for r in rows if r is not last[r.family]], STORE).refused
        assert update_index(held).built
        yield held


def _tables(path: Path) -> dict[str, list[tuple[object, ...]]]:
    with closing(sqlite3.connect(path)) as conn:
        return {
            table: conn.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()
            for table, order in TABLES.items()
        }


def _answers(workspace: Workspace) -> list[tuple[tuple[Candidate, ...], str]]:
    scope = SearchScope(workspace=workspace)
    return [(r.candidates, r.note) for r in (find_candidates(q, scope, k=5) for q in QUERIES)]


def _scratch(workspace: Workspace, target: Path) -> Workspace:
    """A copy of the workspace whose index is built from scratch."""
    with closing(sqlite3.connect(workspace.path)) as src, closing(sqlite3.connect(target)) as dst:
        src.backup(dst)
    copy = Workspace(target)
    build_index(copy)
    return copy


def test_an_index_updated_after_new_versions_is_one_built_from_scratch(
    growing: Workspace, catalogue: tuple[CatalogueRow, ...], tmp_path: Path
) -> None:
    before = index_status(growing)
    held = set(growing.version_ids())
    newest = [r for r in _rows(catalogue) if r.path not in held]
    assert len(newest) == len(FAMILIES)
    assert not ingest(growing, newest, STORE).refused
    stale = index_status(growing)
    assert stale.state == "stale" and stale.reason.startswith("search index built with key")
    assert all(c.path == "scan" for found, _ in _answers(growing) for c in found)
    done = update_index(growing)
    assert (done.built, done.added, done.dropped) == (False, len(FAMILIES), 0)
    assert done.status.passages > before.passages
    with _scratch(growing, tmp_path / "scratch.sqlite") as scratch:
        assert _tables(growing.path) == _tables(scratch.path)
        assert _answers(growing) == _answers(scratch)
    again = update_index(growing)
    assert (again.built, again.added, again.dropped) == (False, 0, 0)


def test_a_version_indexed_under_another_hash_is_dropped_and_indexed_again(
    growing: Workspace, tmp_path: Path
) -> None:
    with closing(sqlite3.connect(growing.path)) as conn, conn:
        (version_id,) = conn.execute("SELECT MIN(version_id) FROM search_versions").fetchone()
        conn.execute(
            "UPDATE search_versions SET text_sha256 = 'x' WHERE version_id = ?", (version_id,)
        )
        # As if the index were built when the workspace held that version with that text.
        conn.execute("UPDATE search_index_meta SET value = 'x' WHERE key IN ('key', 'watermark')")
    done = update_index(growing)
    assert (done.built, done.added, done.dropped) == (False, 1, 1)
    with _scratch(growing, tmp_path / "scratch.sqlite") as scratch:
        assert _tables(growing.path) == _tables(scratch.path)
        assert _answers(growing) == _answers(scratch)


def test_a_version_no_longer_held_leaves_the_index(growing: Workspace, tmp_path: Path) -> None:
    texts = len(_tables(growing.path)["search_texts"])
    # A workspace never lets a version go (its triggers refuse); this one is made to, by hand.
    with closing(sqlite3.connect(growing.path)) as conn, conn:
        (version_id,) = conn.execute(
            "SELECT MAX(version_id) FROM versions WHERE family = ?", (FAMILIES[-1],)
        ).fetchone()
        conn.execute("DROP TRIGGER versions_append_only_delete")
        conn.execute("DELETE FROM versions WHERE version_id = ?", (version_id,))
    done = update_index(growing)
    assert (done.built, done.added, done.dropped) == (False, 0, 1)
    assert done.status.texts < texts  # the texts only that version held are gone
    with _scratch(growing, tmp_path / "scratch.sqlite") as scratch:
        assert _tables(growing.path) == _tables(scratch.path)
        assert _answers(growing) == _answers(scratch)


def test_an_index_of_another_format_is_built_whole(growing: Workspace) -> None:
    with closing(sqlite3.connect(growing.path)) as conn, conn:
        conn.execute("UPDATE search_index_meta SET value = '1' WHERE key = 'index_format'")
    stale = index_status(growing)
    assert stale.reason == (
        f"search index built with index_format 1; now {INDEX_FORMAT}; rebuild it with "
        "'workbench search --reindex'"
    )
    assert update_index(growing).built
    assert index_status(growing).state == "fresh"


def test_a_build_reads_the_kept_passages_and_indexes_what_segmenting_gives(
    growing: Workspace, tmp_path: Path, segmented: list[str]
) -> None:
    """`growing`'s index was built whole with no passages kept: it segmented every version and
    kept its passages. A build on a copy segments none (every version's passages read back) and
    writes the same tables, whose passages are the segmenting path's (`passages_for_search`)."""
    with _scratch(growing, tmp_path / "again.sqlite") as again:
        assert segmented == []
        assert _tables(again.path) == _tables(growing.path)
    indexed = [row[1:2] + row[4:] for row in _tables(growing.path)["search_passages"]]
    assert sorted(indexed) == sorted(
        (p.version_id, p.char_start, p.char_end, p.section_label)
        for version in growing.versions()
        for p in passages_for_search(version)
    )


def test_an_update_reads_the_key_over_every_held_version_once(
    growing: Workspace, catalogue: tuple[CatalogueRow, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key the meta records is the one the update compared: every held version is listed
    and hashed once, not again when the meta is written."""
    import workbench.search.index as index_mod

    held = set(growing.version_ids())
    assert not ingest(growing, [r for r in _rows(catalogue) if r.path not in held], STORE).refused
    keys: list[str] = []
    digest = index_mod._digest
    monkeypatch.setattr(index_mod, "_digest", lambda *a: keys.append(digest(*a)) or keys[-1])
    done = update_index(growing)
    assert (done.built, done.added, len(keys)) == (False, len(FAMILIES), 1)
    monkeypatch.undo()
    assert index_status(growing).state == "fresh"
    assert dict(_tables(growing.path)["search_index_meta"])["key"] == keys[0]
