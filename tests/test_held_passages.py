"""A held version's passages kept as derived state (`workspace.passages`): what a diff reads back
is what segmenting gives, on every held version of the small workspace; a kept row is taken only
under its key; a workspace nobody may write is segmented and read, never written."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tests.conftest import FreshWorkspace
from tests.test_workspace_opening import _as_nobody, _digest, built, shared  # noqa: F401
from workbench.changes import kept
from workbench.changes.pairs import diff_sections, version_pairs
from workbench.cli import main
from workbench.models import CatalogueRow, Passage, Version
from workbench.text import segment
from workbench.text.choice import choose_profile
from workbench.text.profiles import Profile, generic_profile
from workbench.text.segment import segment_version
from workbench.workspace import Workspace
from workbench.workspace.passages import TABLE, held_passages, passages_key


def test_kept_passages_are_the_segmented_ones(
    catalogue: tuple[CatalogueRow, ...],
    fresh_workspace: FreshWorkspace,
    tmp_path: Path,
    held_versions: tuple[Version, ...],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each version's passages are segmented once (`segment_version`, what the first call
    returns) and kept; the second call reads them back, segmenting nothing, and equals them."""
    held = held_versions
    made: list[tuple[str, tuple[Passage, ...]]] = []
    whole = segment.segment_version

    def segmenting(version: Version, profile: Profile) -> tuple[Passage, ...]:
        made.append((version.version_id, whole(version, profile)))
        return made[-1][1]

    monkeypatch.setattr(segment, "segment_version", segmenting)
    with fresh_workspace(
        [r for r in catalogue if r.path in {v.version_id for v in held}], tmp_path / "w.sqlite"
    ) as own:
        versions = own.versions()
        for version in versions:
            profile = choose_profile([version]).profile
            first = held_passages(own, version, profile)  # segmented and kept
            assert made[-1][0] == version.version_id and made[-1][1] is first
            assert held_passages(own, version, profile) == first, version.version_id  # read back
        assert [version_id for version_id, _ in made] == [v.version_id for v in versions]
        kept = own.read(f"SELECT COUNT(*) FROM {TABLE}")[0][0]
        assert kept == len(versions)


def test_a_kept_row_is_taken_only_under_its_key(
    fresh_workspace: FreshWorkspace,
    catalogue: tuple[CatalogueRow, ...],
    tmp_path: Path,
    held_versions: tuple[Version, ...],
) -> None:
    version = max(held_versions, key=lambda v: len(v.text))
    row = next(r for r in catalogue if r.path == version.version_id)
    with fresh_workspace([row], tmp_path / "w.sqlite") as own:
        version = own.version(row.path)
        named = choose_profile([version]).profile
        generic = generic_profile()
        assert passages_key(version, named) != passages_key(version, generic)
        held_passages(own, version, generic)
        assert held_passages(own, version, named) == segment_version(version, named)
        assert own.read(f"SELECT COUNT(*) FROM {TABLE}")[0][0] == 2


def test_a_version_keeps_one_row_per_profile_under_the_key_computed_now(
    workspace: Workspace,
    fresh_workspace: FreshWorkspace,
    catalogue: tuple[CatalogueRow, ...],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    held_versions: tuple[Version, ...],
) -> None:
    """Passages kept by other code are never read again: once a version's passages through a
    profile are kept under the key computed now, its row through that profile under the other
    key is gone; its row through another profile stays."""
    version = max(held_versions, key=lambda v: len(v.text))
    row = next(r for r in catalogue if r.path == version.version_id)
    with fresh_workspace([row], tmp_path / "w.sqlite") as own:
        version = own.version(row.path)
        named, generic = choose_profile([version]).profile, generic_profile()
        with monkeypatch.context() as older:
            older.setattr("workbench.workspace.passages.code_digest", lambda: "older code")
            older_key = passages_key(version, named)
            held_passages(own, version, named)
        held_passages(own, version, generic)
        held_passages(own, version, named)
        kept = own.read(f"SELECT key FROM {TABLE} ORDER BY key")
        assert older_key not in {passages_key(version, p) for p in (named, generic)}
        assert kept == sorted((passages_key(version, p),) for p in (named, generic))


def test_passages_kept_before_rows_named_their_profile_are_dropped(
    fresh_workspace: FreshWorkspace,
    catalogue: tuple[CatalogueRow, ...],
    tmp_path: Path,
    held_versions: tuple[Version, ...],
) -> None:
    """A table kept before its rows named their profile holds rows of older code alone: the
    first passages kept replace it, and its rows go."""
    version = min(held_versions, key=lambda v: len(v.text))
    row = next(r for r in catalogue if r.path == version.version_id)
    with fresh_workspace([row], tmp_path / "w.sqlite") as own:
        with own.transaction() as conn:
            conn.execute(
                f"CREATE TABLE {TABLE} (key TEXT PRIMARY KEY, version_id TEXT, passages TEXT)"
            )
            conn.execute(f"INSERT INTO {TABLE} VALUES ('older', ?, '[]')", (row.path,))
        profile = choose_profile([own.version(row.path)]).profile
        held_passages(own, own.version(row.path), profile)
        kept = own.read(f"SELECT key, version_id, profile FROM {TABLE}")
        assert kept == [(passages_key(own.version(row.path), profile), row.path, profile.name)]


def test_a_diff_from_kept_passages_is_the_diff_from_segments(
    fresh_workspace: FreshWorkspace,
    catalogue: tuple[CatalogueRow, ...],
    tmp_path: Path,
    held_versions: tuple[Version, ...],
) -> None:
    family = max(
        {v.family for v in held_versions},
        key=lambda f: sum(len(v.text) for v in held_versions if v.family == f),
    )
    rows = [r for r in catalogue if r.family == family]
    with fresh_workspace(rows, tmp_path / "w.sqlite") as own:
        chosen = version_pairs(own, family)
        assert chosen
        plain = diff_sections(chosen)
        for _ in range(2):  # the first segments and keeps, the second reads what was kept
            assert diff_sections(chosen, workspace=own) == plain


@pytest.mark.parametrize(
    "file_mode",
    [
        pytest.param(0o444, id="read-only-file-and-folder"),
        pytest.param(0o666, id="read-only-folder"),
    ],
)
def test_a_read_only_workspace_segments_and_never_writes(
    shared: Path,  # noqa: F811
    file_mode: int,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A workspace nobody may write, with no passages and no diff kept: `workbench diff`, run
    as an ordinary user, segments both versions and prints what a writable workspace prints,
    and the file is left byte-identical with nothing made beside it."""
    with closing(sqlite3.connect(shared)) as conn, conn:
        conn.execute(f"DELETE FROM {TABLE}")
        conn.execute(f"DELETE FROM {kept.TABLE}")
    writable = shared.parent / "writable.sqlite"
    writable.write_bytes(shared.read_bytes())
    assert main(["diff", "fam-1", "--json", "--workspace", str(writable)]) == 0
    expected = capsys.readouterr().out
    for name in os.listdir(shared.parent):
        if name != shared.name:
            os.remove(shared.parent / name)
    os.chmod(shared, file_mode)
    os.chmod(shared.parent, 0o555)
    before = _digest(shared)
    done = _as_nobody(["diff", "fam-1", "--json", "--workspace", shared.name], shared.parent)
    assert (done.returncode, done.stderr, done.stdout) == (0, "", expected)
    assert sorted(os.listdir(shared.parent)) == [shared.name]
    assert _digest(shared) == before
