"""The whole code's reconciliation kept in the workspace (amendments/store.py, stored_rows.py).

A workspace of the shared corpus's D.C. sections and laws is built without the latest release,
reconciled with the store, then given that release and reconciled again: the stored run equals
a fresh one object for object, and what it took from the workspace is everything the release
did not touch. The release held out is the latest filing date the held sections carry, read
from their provenance here.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, STORE, FreshWorkspace, _copy
from workbench.amendments import laws, store, stored_rows
from workbench.amendments import whole_code as ledger
from workbench.amendments.lawbook import HeldVersions, LawBook
from workbench.amendments.store import StoredReconciliation
from workbench.amendments.style import style_for
from workbench.amendments.whole_code import CodeReconciliation, reconcile_code
from workbench.cli import main
from workbench.evals.reconciliation import NOT_APPLIED_CSV, REPORT_JSON, REPORT_MD, TITLES_CSV
from workbench.models import CatalogueRow
from workbench.text.profiles import profile_for
from workbench.workspace import Workspace, ingest


def _split(
    catalogue: Sequence[CatalogueRow],
) -> tuple[list[CatalogueRow], list[CatalogueRow], set[str]]:
    """The us-dc rows without the sections' latest release, that release's rows, and the
    families it touches."""
    rows = [r for r in catalogue if r.jurisdiction == "us-dc"]
    dates = {r.path: r.provenance.get("filing_date") for r in rows}
    sections = [r for r in rows if r.family.startswith("dc-code-") and dates[r.path]]
    latest = max(str(dates[r.path]) for r in sections)
    held_out = [r for r in sections if dates[r.path] == latest]
    return [r for r in rows if r not in held_out], held_out, {r.family for r in held_out}


@dataclass(frozen=True, slots=True, kw_only=True)
class Cold:
    """A workspace of some of the us-dc rows and its first reconciliation with the store, made
    once for the module: each test that starts there reconciles a copy of the file it left."""

    path: Path
    run: CodeReconciliation

    def copy(self, path: Path) -> Workspace:
        _copy(self.path, path)
        return Workspace(path)


def _cold(
    rows: Sequence[CatalogueRow],
    catalogue: tuple[CatalogueRow, ...],
    fresh_workspace: FreshWorkspace,
    path: Path,
) -> Cold:
    with fresh_workspace(rows, path) as held:
        return Cold(path=path, run=reconcile_code(held, "us-dc", catalogue, STORE, stored=True))


@pytest.fixture(scope="module")
def cold_all(
    catalogue: tuple[CatalogueRow, ...],
    fresh_workspace: FreshWorkspace,
    tmp_path_factory: pytest.TempPathFactory,
) -> Cold:
    """Every us-dc row, reconciled once."""
    rows = [r for r in catalogue if r.jurisdiction == "us-dc"]
    return _cold(rows, catalogue, fresh_workspace, tmp_path_factory.mktemp("all") / "w.sqlite")


@pytest.fixture(scope="module")
def cold_before(
    catalogue: tuple[CatalogueRow, ...],
    fresh_workspace: FreshWorkspace,
    tmp_path_factory: pytest.TempPathFactory,
) -> Cold:
    """The us-dc rows without the sections' latest release (`_split`), reconciled once."""
    before, _, _ = _split(catalogue)
    return _cold(before, catalogue, fresh_workspace, tmp_path_factory.mktemp("before") / "w.sqlite")


def _spy(
    monkeypatch: pytest.MonkeyPatch,
    owner: Any,
    name: str,
    seen: list[Any],
    what: Callable[[tuple[Any, ...]], Iterable[Any]],
    made: Callable[[Any], bool] = lambda _: True,
) -> None:
    """Replace `owner.name` by itself recording into `seen` what `what` says of each call's
    arguments, for the calls whose result `made` accepts."""
    real = getattr(owner, name)

    def spied(*args: Any, **kw: Any) -> Any:
        found = real(*args, **kw)
        if made(found):
            seen.extend(what(args))
        return found

    monkeypatch.setattr(owner, name, spied)


def _dated(row: CatalogueRow) -> bool:
    return bool(row.provenance.get("filing_date"))


def test_one_more_release_reads_again_only_what_it_touched(
    catalogue: tuple[CatalogueRow, ...],
    cold_before: Cold,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before, release, touched = _split(catalogue)
    assert release and touched
    with cold_before.copy(tmp_path / "w.sqlite") as held:
        cold = cold_before.run
        assert cold == reconcile_code(held, "us-dc", catalogue, STORE)
        assert cold.reused == {"instructions": 0, "sections": 0, "pairs": 0}
        again = reconcile_code(held, "us-dc", catalogue, STORE, stored=True)
        assert again == cold
        checks = len(list(cold.instructions()))
        assert again.reused == {
            "instructions": checks,
            "sections": len(cold.sections),
            "pairs": 0,  # every section whole
        }

        ingested = ingest(held, release, STORE)
        assert not ingested.refused
        attributed: list[tuple[str, str, str]] = []
        keyed: list[str] = []
        read_from_bytes: list[str] = []
        stated: list[str] = []
        remade: list[str] = []
        extended: list[str] = []
        loaded_laws: list[str] = []
        _spy(monkeypatch, HeldVersions, "__getitem__", loaded_laws, lambda a: [a[1]])
        _spy(monkeypatch, ledger, "reconcile", attributed, lambda a: a[0])
        _spy(monkeypatch, ledger, "section_key", keyed, lambda a: [a[1]])
        _spy(monkeypatch, laws, "notes_start", read_from_bytes, lambda a: [a[0].version_id])
        _spy(monkeypatch, StoredReconciliation, "_reads", stated, lambda a: [a[1].law])
        _spy(monkeypatch, store, "check_instruction", remade, lambda a: [a[0].instruction_id])
        _spy(
            monkeypatch,
            store,
            "checked_with_later",
            extended,
            lambda a: [a[0].instruction_id],
            made=lambda found: found is not None,
        )
        step = reconcile_code(held, "us-dc", catalogue, STORE, stored=True)
        monkeypatch.undo()
        # Under the watermark, only the sections the release touched and those some instruction
        # is checked against are keyed again; every other keeps its stored key unread.
        checked_families = {c.family for _, c in step.instructions() if c.family}
        assert touched <= set(keyed) <= touched | checked_families
        assert len(keyed) < len(step.sections)
        # A family whose checks are those the stored run made is not keyed again for them: the
        # families keyed are the release's and those of a check made otherwise, before or now.
        was = {i.instruction_id: c for i, c in cold.instructions()}
        moved = {
            c.family
            for i, now in step.instructions()
            if now != was[i.instruction_id]
            for c in (was[i.instruction_id], now)
            if c.family
        }
        assert set(keyed) <= touched | moved
        assert len(keyed) < len(touched | checked_families)
        # A law's checks' reads are stated again only where the release gave a version to a
        # family they read: every law whose checks target a touched family, and not all.
        laws_touched = {i.law for i, c in step.instructions() if c.family in touched}
        assert laws_touched and laws_touched <= set(stated)
        assert len(set(stated)) < len(step.laws)
        # Where a release's notes begin was kept by the stored run that read it: only releases
        # the release brought are read from their bytes again.
        assert read_from_bytes and set(read_from_bytes) <= set(ingested.added)
        fresh = reconcile_code(held, "us-dc", catalogue, STORE)
        assert step == fresh
        assert step.attributions == fresh.attributions and step.laws == fresh.laws
        assert step.pairs > cold.pairs
        # Every section the release did not touch is taken from the store, none it touched.
        assert step.reused["sections"] == len(fresh.sections) - len(touched & fresh.sections.keys())
        # Some checks read what the release changed, and only those are made again. A check not
        # applied in its pair whose family only gained later releases judges only those.
        assert 0 < step.reused["instructions"] < len(list(fresh.instructions()))
        assert extended and set(extended).isdisjoint(remade)
        outcomes = {i.instruction_id: c for i, c in step.instructions()}
        assert {outcomes[i].family for i in extended} <= touched
        # No law changed: every law's report is its stored row, no law's version loaded.
        assert loaded_laws == []
        assert all(outcomes[i].outcome != "applied" for i in extended)
        # Of the sections it touched, each release pair whose own key held was taken from the
        # store: the pairs attributed again are the new ones and those whose checks changed.
        dated = Counter(r.family for r in before + release if r.family in touched and _dated(r))
        touched_pairs = sum(n - 1 for n in dated.values())
        new_pairs = step.pairs - cold.pairs
        assert {family for family, _, _ in attributed} <= touched
        assert len(attributed) + step.reused["pairs"] == touched_pairs
        assert new_pairs <= len(attributed) < touched_pairs and step.reused["pairs"] > 0


def test_a_damaged_record_is_read_again_not_trusted(
    catalogue: tuple[CatalogueRow, ...], cold_all: Cold, tmp_path: Path
) -> None:
    path = tmp_path / "w.sqlite"
    _copy(cold_all.path, path)
    first = cold_all.run
    # One family's head has a count that is not a number; another's attributions are not the
    # text its head's SHA-256 names (an empty list parses, and would silently drop its changes
    # if trusted).
    family, other = sorted(f for f, t in first.tallies.items() if t.changes)[:2]
    law = first.laws[0].law.version_id
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE reconcile_sections SET changes = 'many' WHERE family = ?", (family,))
        conn.execute("UPDATE reconcile_sections SET attributions = '[]' WHERE family = ?", (other,))
        conn.execute(
            "UPDATE reconcile_laws SET record = json_set(record, '$.checks', json('[1]')) "
            "WHERE law = ?",
            (law,),
        )
    with Workspace(path) as held:
        again = reconcile_code(held, "us-dc", catalogue, STORE, stored=True)
    assert again == first
    damaged = len(first.laws[0].checks)
    assert damaged > 0
    assert again.reused == {
        "instructions": len(list(first.instructions())) - damaged,
        "sections": len(first.sections) - 2,
        "pairs": 0,  # neither damaged row gives a pair: one has no head, one no attributions
    }
    assert dict(again.attributions) == dict(first.attributions)


def test_tables_of_an_earlier_layout_are_replaced_not_read(
    catalogue: tuple[CatalogueRow, ...], cold_all: Cold, tmp_path: Path
) -> None:
    """A workspace a release before reconciled (one JSON record per family and per law) is
    read as holding no section and no law, and its tables are replaced by the current layout."""
    path = tmp_path / "w.sqlite"
    _copy(cold_all.path, path)
    first = cold_all.run
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE reconcile_sections")
        conn.execute("CREATE TABLE reconcile_sections (family TEXT PRIMARY KEY, record TEXT)")
        conn.executemany(
            "INSERT INTO reconcile_sections VALUES (?, '{}')", [(f,) for f in first.sections]
        )
        conn.execute("DROP TABLE reconcile_laws")
        conn.execute("CREATE TABLE reconcile_laws (law TEXT PRIMARY KEY, record TEXT NOT NULL)")
        conn.executemany(
            "INSERT INTO reconcile_laws VALUES (?, '{}')",
            [(r.law.version_id,) for r in first.laws],
        )
    with Workspace(path) as held:
        again = reconcile_code(held, "us-dc", catalogue, STORE, stored=True)
        assert again == first
        assert again.reused["sections"] == again.reused["instructions"] == 0
        third = reconcile_code(held, "us-dc", catalogue, STORE, stored=True).reused
        assert third["sections"] == len(first.sections)
        assert third["instructions"] == len(list(first.instructions()))
    with sqlite3.connect(path) as conn:
        law_columns = [row[1] for row in conn.execute("PRAGMA table_info(reconcile_laws)")]
        columns = [row[1] for row in conn.execute("PRAGMA table_info(reconcile_sections)")]
    assert (law_columns, columns) == (
        list(stored_rows.LAW_COLUMNS),
        list(stored_rows.SECTION_COLUMNS),
    )


def test_reconcile_twice_writes_the_same_report_and_says_what_it_reused(
    catalogue: tuple[CatalogueRow, ...],
    fresh_workspace: FreshWorkspace,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = [r for r in catalogue if r.jurisdiction == "us-dc"]
    path = tmp_path / "w.sqlite"
    fresh_workspace(rows, path).close()
    paths = ["--workspace", str(path), "--corpus-dir", str(ROOT / "corpus"), "--store", str(STORE)]
    written = []
    for run in ("first", "second"):
        assert main(["reconcile", "--out", str(tmp_path / run), *paths]) == 0
        written.append(capsys.readouterr().out.splitlines())
    sections = {r.family for r in rows if r.family.startswith("dc-code-")}
    checks = json.loads((tmp_path / "first" / REPORT_JSON).read_bytes())["instructions"]
    assert checks > 0
    assert written[0][-2] == (
        f"taken from the workspace (unchanged since a run kept them): 0 of {checks} checks, "
        f"0 of {len(sections)} sections"
    )
    assert written[1][-2] == (
        f"taken from the workspace (unchanged since a run kept them): {checks} of {checks} "
        f"checks, {len(sections)} of {len(sections)} sections"
    )
    assert written[0][:-2] == written[1][:-2]
    for name in (REPORT_JSON, REPORT_MD, TITLES_CSV, NOT_APPLIED_CSV):
        assert (tmp_path / "first" / name).read_bytes() == (tmp_path / "second" / name).read_bytes()


def test_acts_looked_up_before_are_searched_only_in_the_versions_held_since(
    catalogue: tuple[CatalogueRow, ...], cold_before: Cold, tmp_path: Path
) -> None:
    """`codified_as` after one more release, from what the run before it kept of each Act it
    looked up, answers as a lookup that scans every held text does: for every Act section a
    held release's notes credit (the style's own pattern, matched over the texts here)."""
    _, release, _ = _split(catalogue)
    style = style_for("us-dc")
    refs = style.cross_references
    assert refs is not None
    with cold_before.copy(tmp_path / "w.sqlite") as held:
        assert not ingest(held, release, STORE).refused
        kept = StoredReconciliation(held, style, profile_for("us-dc", None)).codified
        assert kept
        stored = LawBook(held, "us-dc", catalogue, STORE, codified=kept).code
        scanned = LawBook(held, "us-dc", catalogue, STORE).code
        texts = [text for (text,) in held.read("SELECT text FROM versions")]
        credited = {(m["law"], m["section"]) for t in texts for m in refs.source_note.finditer(t)}
        asked = sorted((act, section) for act, section in credited if act in kept)
        answers = [stored.codified_as(act, section) for act, section in asked]
        assert answers == [scanned.codified_as(act, section) for act, section in asked]
    assert any(answers) and stored.codified_read.keys() == scanned.codified_read.keys()
    # The marks moved on to the versions held now; the releases found are the same.
    assert all(stored.codified_read[a][0] > kept[a][0] for a in stored.codified_read)
    assert stored.codified_read == scanned.codified_read


def _law_row(families: set[str], sections: set[str], firsts: bool) -> stored_rows.LawRow:
    return stored_rows.LawRow(
        rules="r",
        artefact_sha256="a",
        text_sha256="t",
        effective="2024-01-01",
        act=None,
        families=frozenset(families),
        sections=frozenset(sections),
        firsts=firsts,
        record="{}",
        reads="[]",
    )


_HELD = frozenset({"dc-code-1-101", "dc-code-1-102", "dc-code-2-201"})


@pytest.mark.parametrize(
    ("law", "families", "numbers", "refirsted", "touched"),
    [
        (_law_row({"dc-code-1-101"}, {"1-101"}, False), {"dc-code-2-201"}, set(), False, False),
        (_law_row({"dc-code-1-101"}, {"1-101"}, False), {"dc-code-1-101"}, set(), False, True),
        (_law_row(set(), {"9-999"}, False), {"dc-code-2-201"}, {"9-999"}, False, True),
        (_law_row({"dc-code-1-101"}, {"1-101"}, False), {"dc-code-1-102"}, {"1-101"}, False, True),
        (_law_row(set(), set(), True), {"dc-code-2-201"}, set(), True, True),
        (_law_row(set(), set(), True), {"dc-code-2-201"}, set(), False, False),
        (_law_row({"dc-code-gone"}, {"3-301"}, False), set(), set(), False, True),
    ],
    ids=[
        "another-family-moved",
        "a-family-read-moved",
        "a-number-looked-up-now-held",
        "a-number-looked-up-now-printed-by-another",
        "firsts-read-and-a-first-release-new",
        "firsts-read-no-first-release-new",
        "a-family-read-no-longer-held",
    ],
)
def test_a_law_is_touched_only_where_what_its_checks_read_moved(
    law: stored_rows.LawRow, families: set[str], numbers: set[str], refirsted: bool, touched: bool
) -> None:
    moved = store.Moved(
        families=frozenset(families), numbers=frozenset(numbers), refirsted=refirsted, held=_HELD
    )
    assert moved.touches(law) is touched


_R1, _R2, _R3 = (["2024-01-01", "v1"], ["2024-02-01", "v2"], ["2024-03-01", "v3"])


@pytest.mark.parametrize(
    ("read", "now", "later"),
    [
        (["1-101", "f", [_R1, _R2]], ["1-101", "f", [_R1, _R2, _R3]], ["v3"]),
        (["1-101", "f", [_R1]], ["1-101", "f", [_R1, _R2, _R3]], ["v2", "v3"]),
        (["1-101", "f", [_R1, _R3]], ["1-101", "f", [_R1, _R2, _R3]], None),
        (["1-101", "f", [_R1, _R2]], ["1-101", "f", [_R1, _R2]], None),
        (["1-101", "f", [_R1, _R2]], ["1-101", "g", [_R1, _R2, _R3]], None),
        (["1-101", None], ["1-101", "f", [_R1]], None),
        ([], [], None),
    ],
    ids=[
        "one-release-after-every-one-read",
        "two-releases-after",
        "a-release-between-those-read",
        "nothing-gained",
        "another-family",
        "a-number-now-held",
        "no-code-target",
    ],
)
def test_a_check_judges_again_only_the_releases_after_those_it_read(
    read: list[Any], now: list[Any], later: list[str] | None
) -> None:
    assert store._later(read, now) == later
