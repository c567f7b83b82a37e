"""A version pair's diff kept as derived state (`changes.kept`): `measure` keeps every consecutive
pair's diff, `workbench diff` reads it back without choosing a profile or pairing (and, once a
diff has derived them, its footnote changes without reading a part or a whole version: the
versions' texts alone), and what it prints (`--json`
and the listing) is byte for byte what a diff computed from the versions prints; a pair no one
kept is computed once and kept, and a workspace nobody may write keeps nothing."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from tests.conftest import link_families
from workbench.cells import cells_json
from workbench.changes import kept
from workbench.changes.diff import diff_versions
from workbench.changes.pairs import held_diffs, pair_changes, pairs_profile, version_pairs
from workbench.changes.queue import doubtful_pairings, find_change, in_review_queue
from workbench.changes.sample import confident_pairings, is_confident_pairing
from workbench.cli import main
from workbench.derived import code_digest
from workbench.errors import ChangeNotFound
from workbench.measure import measure_corpus
from workbench.models import Change
from workbench.text.profiles import SHIPPED_DIR
from workbench.workspace import Workspace, parts
from workbench.workspace.parts import held_parts
from workbench.workspace.passages import held_passages

# A PDF standard whose reading has footnotes, an Internet-Draft of six versions and renumberings,
# and a Justice Canada regulation read from its XML (tables in it).
FAMILIES = {
    "nerc-pdf-footnotes": "us-nerc/nerc-cip-008",
    "ietf-six-versions": "ietf/draft-nottingham-http-link-header",
    "justice-canada-xml": "ca-federal/ca-cer-amp-regs",
}


def _never(*_: object, **__: object) -> None:
    raise AssertionError("a kept diff was computed again")


def _printed(capsysbinary: pytest.CaptureFixture[bytes], path: Path, *argv: str) -> bytes:
    assert main(["diff", *argv, "--workspace", str(path)]) == 0
    return capsysbinary.readouterr().out


def _kept_rows(path: Path) -> list[tuple[str, str]]:
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute(f"SELECT before_id, after_id FROM {kept.TABLE} ORDER BY 1").fetchall()


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace `measure` filled from a mirror of `FAMILIES`."""
    folder = tmp_path_factory.mktemp("kept")
    mirror = link_families(folder / "mirror", FAMILIES.values())
    measure_corpus(mirror=mirror, out=folder / "out", workspace=folder / "measured.sqlite")
    return folder / "measured.sqlite"


@pytest.mark.parametrize("family", [pytest.param(f, id=i) for i, f in FAMILIES.items()])
@pytest.mark.parametrize(
    "form",
    [
        pytest.param([], id="listing"),
        pytest.param(["--json"], id="json"),
        pytest.param(["--kind", "unchanged"], id="listing-unchanged"),
        pytest.param(["--doubtful"], id="listing-doubtful"),
    ],
)
def test_a_kept_diff_prints_what_a_computed_one_prints(
    family: str,
    form: list[str],
    measured: Path,
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    name = family.split("/")[1]
    computed = tmp_path / "computed.sqlite"
    shutil.copy2(measured, computed)
    with closing(sqlite3.connect(computed)) as conn, conn:
        conn.execute(f"DELETE FROM {kept.TABLE}")
    expected = _printed(capsysbinary, computed, name, *form)  # chosen, paired and kept here
    assert expected
    with Workspace(computed) as held:
        pairs = [(b.version_id, a.version_id) for b, a in version_pairs(held, name)]
    assert [pair for pair in _kept_rows(computed) if pair in pairs] == sorted(pairs)
    # Neither the profile choice nor the pairing runs for a kept diff: measure's, or the one
    # the first diff kept.
    monkeypatch.setattr("workbench.changes.diff.diff_versions", _never)
    monkeypatch.setattr("workbench.text.choice.choose_profile", _never)
    assert _printed(capsysbinary, measured, name, *form) == expected
    # The first diff also kept the footnote changes under unchanged clauses: no part is read,
    # and no whole version (its structure, furniture and origins): only the versions' texts.
    monkeypatch.setattr("workbench.workspace.parts.held_parts", _never)
    monkeypatch.setattr(Workspace, "versions", _never)
    monkeypatch.setattr(Workspace, "version", _never)
    assert _printed(capsysbinary, computed, name, *form) == expected
    # That diff kept the word pieces of the changes it showed: no word comparison runs again.
    monkeypatch.setattr("workbench.changes.redline._tokens", _never)
    assert _printed(capsysbinary, computed, name, *form) == expected


def _counting(built: list[str]) -> Callable[[list[object], str, str], Change]:
    """`kept.change_from_row`, noting the kind of each change it builds in `built`."""
    building = kept.change_from_row

    def counting(row: list[object], before_id: str, after_id: str) -> Change:
        change = building(row, before_id, after_id)
        built.append(change.kind)
        return change

    return counting


def test_a_listing_of_a_kept_diff_counts_its_unchanged_changes_without_building_them(
    measured: Path,
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The text listing shows no unchanged change unless asked: once the pair's footnote
    changes are kept too, it builds only the changes it may show or count as doubtful, and
    counts the unchanged ones from the kept count, never reading their rows."""
    path = tmp_path / "listed.sqlite"
    shutil.copy2(measured, path)
    name = "draft-nottingham-http-link-header"
    first = _printed(capsysbinary, path, name)  # the footnote changes derived and kept
    built: list[str] = []
    building, counting = kept.change_from_row, _counting(built)
    monkeypatch.setattr(kept, "change_from_row", counting)
    assert _printed(capsysbinary, path, name) == first
    monkeypatch.setattr(kept, "change_from_row", building)
    with Workspace(path) as held:
        whole = [c.kind for _, _, changes in held_diffs(held, name) for c in changes]
    assert "unchanged" not in built and whole.count("unchanged") > 0
    assert sorted(built) == sorted(k for k in whole if k != "unchanged")


@pytest.mark.parametrize(
    "kept_first", [pytest.param(True, id="kept"), pytest.param(False, id="computed")]
)
def test_the_pairings_are_read_without_the_unchanged_changes(
    measured: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept_first: bool
) -> None:
    """The review queue's doubtful pairings and the audit's confident ones are the pairings of
    the whole diffs (`held_diffs`); from kept diffs they are read without building one unchanged
    change (the `unchanged` column is not read); computed here by the first, and kept, they
    are the same, and the second reads them back so."""
    path = tmp_path / "pairings.sqlite"
    shutil.copy2(measured, path)
    if not kept_first:
        with closing(sqlite3.connect(path)) as conn, conn:
            conn.execute(f"DELETE FROM {kept.TABLE}")
    built: list[str] = []
    building, counting = kept.change_from_row, _counting(built)
    with Workspace(path) as held:
        monkeypatch.setattr(kept, "change_from_row", counting)
        doubtful = doubtful_pairings(held)
        confident = confident_pairings(held)
        monkeypatch.setattr(kept, "change_from_row", building)
        whole = [(b, a, c) for b, a, changes in held_diffs(held) for c in changes]
    assert built and "unchanged" not in built
    assert [p.change for p in doubtful] == [c for _, _, c in whole if in_review_queue(c)]
    assert [p.change for p in confident] == [c for _, _, c in whole if is_confident_pairing(c)]
    assert doubtful and confident and any(c.kind == "unchanged" for _, _, c in whole)


def test_a_change_is_found_by_its_id_reading_only_the_family_whose_kept_diffs_hold_it(
    measured: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`find_change` over kept diffs reads only the family whose kept rows hold the id, and for
    an id no diff holds builds no change at all; what it finds is the pairing of the walk over
    every whole diff (`held_diffs`), unchanged changes included. A workspace where one family's
    diffs are not kept walks, diffs and finds the same."""
    path = tmp_path / "found.sqlite"
    shutil.copy2(measured, path)
    with Workspace(path) as held:
        whole = [(b, a, changes) for b, a, changes in held_diffs(held)]
        wanted = [
            (b, a, changes[k])
            for b, a, changes in whole
            for k in sorted({0, len(changes) // 2, len(changes) - 1})
        ]
        assert {c.kind for _, _, c in wanted} >= {"unchanged", "modified"}
        for before, after, change in wanted:
            built: list[str] = []
            monkeypatch.setattr(kept, "change_from_row", _counting(built))
            found = find_change(held, change.change_id)
            monkeypatch.undo()
            assert (found.before_id, found.after_id, found.change) == (
                before.version_id,
                after.version_id,
                change,
            )
            family = [c for b, _, cs in whole if b.family == before.family for c in cs]
            assert len(built) == len(family) < sum(len(cs) for _, _, cs in whole)
        built = []
        monkeypatch.setattr(kept, "change_from_row", _counting(built))
        with pytest.raises(ChangeNotFound):
            find_change(held, "chg-" + "0" * 20)
        assert built == []
        monkeypatch.undo()
    before, after, change = wanted[-1]
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute(f"DELETE FROM {kept.TABLE} WHERE family = ?", (before.family,))
    with Workspace(path) as held:
        found = find_change(held, change.change_id)
        assert (found.before_id, found.after_id, found.change) == (
            before.version_id,
            after.version_id,
            change,
        )


_OLDER_SHAPE = (
    f"CREATE TABLE {kept.TABLE} (diff_key TEXT PRIMARY KEY, jurisdiction TEXT NOT NULL, "
    "family TEXT NOT NULL, before_id TEXT NOT NULL, after_id TEXT NOT NULL, changes TEXT NOT NULL, "
    "footnotes TEXT)"
)


@pytest.mark.parametrize(
    "read_only", [pytest.param(False, id="replaced"), pytest.param(True, id="read-only")]
)
def test_a_kept_diffs_table_of_an_older_shape_is_never_read(
    measured: Path,
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
    read_only: bool,
) -> None:
    """A workspace whose kept diffs are in the one-column shape an older workbench wrote (under
    keys no code computes now): a diff computes, and replaces the table by the current one; a
    workspace nobody may write computes and keeps nothing."""
    path = tmp_path / "older.sqlite"
    shutil.copy2(measured, path)
    name = "draft-nottingham-http-link-header"
    expected = _printed(capsysbinary, path, name, "--json")
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute(f"DROP TABLE {kept.TABLE}")
        conn.execute(_OLDER_SHAPE)
        conn.execute(
            f"INSERT INTO {kept.TABLE} VALUES ('k', 'ietf', ?, 'b', 'a', '[]', NULL)", (name,)
        )
    if read_only:
        # As a workspace nobody may write is opened (root writes whatever the file modes say).
        monkeypatch.setattr("workbench.workspace.held.unwritable", lambda _: "read-only")
    assert _printed(capsysbinary, path, name, "--json") == expected
    with closing(sqlite3.connect(path)) as conn:
        columns = [row[1] for row in conn.execute(f"PRAGMA table_info({kept.TABLE})")]
        rows = conn.execute(f"SELECT COUNT(*) FROM {kept.TABLE}").fetchone()[0]
    assert ("unchanged" in columns, rows) == ((False, 1) if read_only else (True, 5))


def test_measure_keeps_every_consecutive_pair_under_the_key_a_diff_computes(
    measured: Path,
) -> None:
    with Workspace(measured) as held:
        for family in FAMILIES.values():
            pairs = version_pairs(held, family.split("/")[1])
            keys = kept.pair_keys(held, pairs, code_digest())
            assert keys is not None and len(set(keys)) == len(pairs) > 0
            stored = kept.read_kept(held, keys)
            assert set(stored) == set(keys), family
            # what measure kept is what the diff computes from the versions
            computed = pair_changes(pairs, profiles=held.profile_registry(), workspace=held)
            assert tuple(stored[key] for key in keys) == computed
            # the same keys from the versions table alone, no version loaded
            ids = [(before.version_id, after.version_id) for before, after in pairs]
            jurisdiction, name = family.split("/")
            assert kept.family_pair_keys(held, (jurisdiction, name), ids) == keys


def test_measure_replaces_a_familys_kept_diffs_through_an_index(
    measured: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`measure` replaces each family's kept diffs as its result arrives (`kept.keep`, `whole`):
    every statement it runs on the table reaches the family's rows through an index, by
    SQLite's own query plan, never by a scan of the table (a scan per family grew with the
    square of the corpus). The family's diffs are the same after."""
    path = tmp_path / "replaced.sqlite"
    shutil.copy2(measured, path)
    jurisdiction, family = FAMILIES["ietf-six-versions"].split("/")
    with Workspace(path) as held:
        columns = "diff_key, jurisdiction, family, before_id, after_id, changes, unchanged"
        before = held.read(f"SELECT {columns} FROM {kept.TABLE} ORDER BY diff_key")
        rows = [
            (key, before_id, after_id, (changes, unchanged, count))
            for key, before_id, after_id, count, changes, unchanged in held.read(
                "SELECT diff_key, before_id, after_id, unchanged_count, changes, unchanged "
                f"FROM {kept.TABLE} WHERE jurisdiction = ? AND family = ?",
                (jurisdiction, family),
            )
        ]
        assert len(rows) == 5
        statements: list[str] = []
        transaction = held.transaction

        @contextmanager
        def traced() -> Iterator[sqlite3.Connection]:
            with transaction() as conn:
                conn.set_trace_callback(statements.append)
                try:
                    yield conn
                finally:
                    conn.set_trace_callback(None)

        monkeypatch.setattr(held, "transaction", traced)
        kept.keep(held, (jurisdiction, family), rows, whole=True)
        monkeypatch.undo()
        reaching = [s for s in statements if s.split()[0] in ("DELETE", "UPDATE", "SELECT")]
        assert any(s.startswith(f"DELETE FROM {kept.TABLE}") for s in reaching)
        for statement in reaching:
            plan = " ".join(str(r[-1]) for r in held.read("EXPLAIN QUERY PLAN " + statement))
            assert f"SCAN {kept.TABLE}" not in plan and "INDEX" in plan, statement
        assert held.read(f"SELECT {columns} FROM {kept.TABLE} ORDER BY diff_key") == before


def test_a_named_pair_is_kept_apart_from_the_consecutive_ones(
    measured: Path,
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first and last of six versions: its profile is chosen over those two alone, so its key
    is its own; computed once and kept beside measure's consecutive pairs, then read back."""
    path = tmp_path / "named.sqlite"
    shutil.copy2(measured, path)
    name = "draft-nottingham-http-link-header"
    before = len(_kept_rows(path))
    first = _printed(capsysbinary, path, name, "--from", f"ietf/{name}/{name}-00.txt", "--json")
    assert len(_kept_rows(path)) == before + 1
    monkeypatch.setattr("workbench.changes.diff.diff_versions", _never)
    again = _printed(capsysbinary, path, name, "--from", f"ietf/{name}/{name}-00.txt", "--json")
    assert again == first


def test_a_docx_redline_keeps_its_diff_under_the_researchers_profiles(
    measured: Path,
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`diff --docx` with `--profiles` keeps the pair's diff under the one key rule, the
    profile files among its inputs: a second redline reads it back, and an edited profile file
    makes another key, so the pair is diffed again."""
    path = tmp_path / "docx.sqlite"
    shutil.copy2(measured, path)
    folder = tmp_path / "profiles"
    folder.mkdir()
    shipped = SHIPPED_DIR / "generic.toml"
    profile = folder / "researcher.toml"
    profile.write_text(
        shipped.read_text(encoding="utf-8").replace('name = "generic"', 'name = "researcher"'),
        encoding="utf-8",
    )
    name = "draft-nottingham-http-link-header"
    span = ("--from", f"ietf/{name}/{name}-00.txt", "--to", f"ietf/{name}/{name}-04.txt")
    argv = ("--docx", str(tmp_path / "r.docx"), "--profiles", str(folder))
    first = _printed(capsysbinary, path, name, *span, *argv)
    monkeypatch.setattr("workbench.changes.diff.diff_versions", _never)
    assert _printed(capsysbinary, path, name, *span, *argv) == first
    with profile.open("a", encoding="utf-8") as edited:
        edited.write("# edited\n")
    with pytest.raises(AssertionError, match="a kept diff was computed again"):
        main(["diff", name, *span, *argv, "--workspace", str(path)])


def test_a_read_only_workspace_computes_and_keeps_nothing(
    measured: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "read-only.sqlite"
    shutil.copy2(measured, path)
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute(f"DELETE FROM {kept.TABLE}")
    with Workspace(path) as held:
        # As a workspace nobody may write is opened (root writes whatever the file modes say).
        monkeypatch.setattr(held, "read_only", "the file is read-only")
        pairs = version_pairs(held, "draft-nottingham-http-link-header")
        computed = pair_changes(pairs, workspace=held)
        assert len(computed) == len(pairs) == 5
    assert _kept_rows(path) == []


def test_a_kept_diff_reads_back_equal_records(measured: Path) -> None:
    """`changes_from_json` gives back every field of every change `changes_json` wrote."""
    with Workspace(measured) as held:
        for before, after in version_pairs(held, "nerc-cip-008"):
            changes = pair_changes(
                ((before, after),), profiles=held.profile_registry(), workspace=held
            )[0]
            back = kept.changes_from_json(
                kept.changes_json(changes), before.version_id, after.version_id
            )
            assert back == changes and {c.kind for c in changes} > {"unchanged"}


def test_the_review_queue_stores_a_change_as_the_kept_diff_does(measured: Path) -> None:
    """One stored shape of a change (`kept.change_row`): every pairing measure stored in the
    review queue is, byte for byte once parsed, a row of its pair's kept diff (a pairing is
    never unchanged: one of the rows kept with their positions)."""
    with closing(sqlite3.connect(measured)) as conn:
        diffs = {
            (before_id, after_id): [row for _, row in json.loads(changes)]
            for before_id, after_id, changes in conn.execute(
                f"SELECT before_id, after_id, changes FROM {kept.TABLE}"
            )
        }
        queued = conn.execute("SELECT before_id, after_id, item FROM review_queue").fetchall()
    assert queued
    for before_id, after_id, item in queued:
        for change in json.loads(item)["changes"]:
            assert change in diffs[(before_id, after_id)], change


# The families of `FAMILIES` whose versions hold tables: their pairs' rows pair row by row.
TABLED = {i: f for i, f in FAMILIES.items() if i != "ietf-six-versions"}


def _rows(changes: tuple[Change, ...]) -> int:
    return sum(bool(c.before_cells or c.after_cells) for c in changes)


@pytest.mark.parametrize("family", [pytest.param(f, id=i) for i, f in TABLED.items()])
def test_measure_keeps_the_diff_that_pairs_table_rows(measured: Path, family: str) -> None:
    """measure's map reads each version's tables (kept as parts) before it pairs the family, so
    its kept diff is the one `workbench diff` computes: rows paired row by row, with cells."""
    with Workspace(measured) as held:
        pairs = version_pairs(held, family.split("/")[1])
        keys = kept.pair_keys(held, pairs, code_digest())
        assert keys is not None
        stored = kept.read_kept(held, keys)
        rows = [_rows(stored[key]) for key in keys]
        assert sum(rows) > 0, family
        for (before, after), key in zip(pairs, keys, strict=True):
            tables = (held_parts(held, before)[1], held_parts(held, after)[1])
            assert tables != (None, None)
            passages = (
                held_passages(held, before, pairs_profile(pairs, held.profile_registry())),
                held_passages(held, after, pairs_profile(pairs, held.profile_registry())),
            )
            computed = diff_versions(before, after, passages=passages, tables=tables)
            assert stored[key] == computed
            # a row's cells are kept in the stored form of cells (`cells.cells_json`), no field
            # named, each header once
            [(changed, unchanged)] = held.read(
                f"SELECT changes, unchanged FROM {kept.TABLE} WHERE diff_key = ?", (key,)
            )
            rows = [row for _, row in json.loads(changed)] + json.loads(unchanged)
            by_id = {c.change_id: c for c in computed}
            for row in rows:
                change = by_id[row[0]]
                assert row[17:] == [
                    cells_json(change.before_cells),
                    cells_json(change.after_cells),
                ]
            assert any(row[17] or row[18] for row in rows)
            # without its tables, the pair is diffed otherwise: the kept diff is not that one
            assert _rows(diff_versions(before, after, passages=passages)) == 0


@pytest.mark.parametrize("family", [pytest.param(f, id=i) for i, f in TABLED.items()])
def test_the_review_queue_holds_the_pairings_diff_doubtful_prints(
    measured: Path,
    tmp_path: Path,
    family: str,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """The queue measure stored is the one diff `workbench diff --doubtful` computes from the
    versions (no kept diff to read): every queue pairing is the change of the same id the
    command prints, over the same two spans, and every doubtful change the command prints but a
    front-matter edit is on the queue, so `review answer <id>` lands on the pairing shown."""
    path = tmp_path / "queue.sqlite"
    shutil.copy2(measured, path)
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute(f"DELETE FROM {kept.TABLE}")
    name = family.split("/")[1]
    shown = json.loads(_printed(capsysbinary, path, name, "--doubtful", "--json"))
    printed = {
        c["change_id"]: (c["before"], c["after"])
        for part in shown
        for c in part["changes"]
        if not c["front_matter"]
    }
    assert main(["review", "list", name, "--json", "--limit", "0", "--workspace", str(path)]) == 0
    items = json.loads(capsysbinary.readouterr().out)
    queued = {
        p["change_id"]: (p["before"], p["after"])
        for item in items
        for p in (item["pairings"] if item["item"] == "group" else [item])
    }
    assert queued and queued == printed


def test_a_diff_over_tables_the_store_could_not_give_is_not_kept(
    measured: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A version whose parts no reading gave (its bytes gone from the store) is diffed without
    its tables, and that diff is not kept: it would be read back under the key of the one that
    pairs its rows."""
    path = tmp_path / "unsettled.sqlite"
    shutil.copy2(measured, path)
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute(f"DELETE FROM {kept.TABLE}")
        conn.execute(f"DELETE FROM {parts.TABLE}")
    monkeypatch.setattr(parts, "version_parts_and_headings", lambda *_: (None, None, ()))
    with Workspace(path) as held:
        pairs = version_pairs(held, "nerc-cip-008")
        assert sum(map(_rows, pair_changes(pairs, workspace=held))) == 0
    assert _kept_rows(path) == []
