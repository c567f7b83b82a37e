"""A law's reading kept as derived state (workbench.amendments.readings): read once per workspace.

The workspace holds the shared corpus's D.C. Laws and nothing else. A `LawBook` reads every law;
a second one over the same workspace takes each reading from it (no law's XML parsed for its
spans, no prose read) and gets the very same objects; a key that moved, a row that
does not read back, and a workspace nobody may write each read the law again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import STORE, FreshWorkspace, _copy
from workbench.amendments import instructions, lawbook, laws, readings
from workbench.amendments.instructions import Reading
from workbench.amendments.lawbook import LawBook
from workbench.amendments.laws import HeldLaw
from workbench.models import CatalogueRow
from workbench.workspace import Workspace


def _laws(catalogue: tuple[CatalogueRow, ...]) -> list[CatalogueRow]:
    return [r for r in catalogue if r.jurisdiction == "us-dc" and r.family.startswith("dc-law-")]


@pytest.fixture
def held(
    catalogue: tuple[CatalogueRow, ...], fresh_workspace: FreshWorkspace, tmp_path: Path
) -> Iterator[Workspace]:
    with fresh_workspace(_laws(catalogue), tmp_path / "laws.sqlite") as workspace:
        yield workspace


def _count(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """The laws whose XML was parsed for a reading and whose prose was read, as they happen."""
    seen: dict[str, list[str]] = {"held_law": [], "read_instructions": []}

    def parsed(version: object, *args: object) -> HeldLaw:
        seen["held_law"].append(version.version_id)  # type: ignore[attr-defined]
        return laws.held_law(version, *args)  # type: ignore[arg-type]

    def prose(version: object, *args: object) -> Reading:
        seen["read_instructions"].append(version.version_id)  # type: ignore[attr-defined]
        return instructions.read_instructions(version, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(readings, "held_law", parsed)
    monkeypatch.setattr(readings, "read_instructions", prose)
    return seen


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    return _count(monkeypatch)


def _read_all(
    workspace: Workspace, catalogue: tuple[CatalogueRow, ...]
) -> dict[str, tuple[HeldLaw, Reading]]:
    book = LawBook(workspace, "us-dc", catalogue, STORE)
    return {law: book.reading(law) for law in book.versions}


@dataclass(frozen=True, slots=True, kw_only=True)
class FirstBook:
    """The first book over a workspace that keeps no reading, every law read once for the module."""

    path: Path  # the workspace as that book left it
    readings: dict[str, tuple[HeldLaw, Reading]]  # what it read, by law
    counted: dict[str, list[str]]  # the laws it parsed and whose prose it read


@pytest.fixture(scope="module")
def first_book(
    catalogue: tuple[CatalogueRow, ...],
    fresh_workspace: FreshWorkspace,
    tmp_path_factory: pytest.TempPathFactory,
) -> FirstBook:
    path = tmp_path_factory.mktemp("readings") / "read.sqlite"
    with pytest.MonkeyPatch.context() as monkeypatch, fresh_workspace(_laws(catalogue), path) as w:
        seen = _count(monkeypatch)
        first = _read_all(w, catalogue)
    return FirstBook(path=path, readings=first, counted=seen)


@pytest.fixture
def read(first_book: FirstBook, tmp_path: Path) -> Iterator[Workspace]:
    """A copy of the workspace the first book read every law into."""
    _copy(first_book.path, tmp_path / "read.sqlite")
    with Workspace(tmp_path / "read.sqlite") as workspace:
        yield workspace


def _clear(seen: dict[str, list[str]]) -> None:
    for calls in seen.values():
        calls.clear()


def test_a_second_book_takes_every_reading_from_the_workspace(
    first_book: FirstBook,
    read: Workspace,
    catalogue: tuple[CatalogueRow, ...],
    counted: dict[str, list[str]],
) -> None:
    first = first_book.readings
    laws = sorted(first)
    assert len(laws) == len(_laws(catalogue))
    parsed, prose = first_book.counted["held_law"], first_book.counted["read_instructions"]
    assert sorted(parsed) == sorted(prose) == laws
    assert sum(len(r.instructions) for _, r in first.values()) > 0
    assert any(r.unread for _, r in first.values())
    rows = read.read(f"SELECT version_id FROM {readings.TABLE} ORDER BY version_id")
    assert [law for (law,) in rows] == laws
    again = _read_all(read, catalogue)
    assert counted == {"held_law": [], "read_instructions": []}
    # Read back, every law's facts and spans and every instruction and unread sentence are the
    # very ones read from the law.
    assert again == first


@pytest.mark.parametrize(
    ("change", "reread"),
    [
        pytest.param("UPDATE {table} SET key = 'another-' || key", True, id="key-moved"),
        pytest.param("UPDATE {table} SET reading = '{{}}'", True, id="record-damaged"),
        pytest.param("UPDATE {table} SET reading = 'not json'", True, id="record-not-json"),
        pytest.param("SELECT 1", False, id="unchanged"),
    ],
)
def test_a_reading_not_kept_under_its_key_is_read_again_and_replaced(
    first_book: FirstBook,
    read: Workspace,
    catalogue: tuple[CatalogueRow, ...],
    counted: dict[str, list[str]],
    change: str,
    reread: bool,
) -> None:
    first = first_book.readings
    keys = read.read(f"SELECT version_id, key FROM {readings.TABLE} ORDER BY version_id")
    with sqlite3.connect(read.path) as conn:
        conn.execute(change.format(table=readings.TABLE))
    assert _read_all(read, catalogue) == first
    assert sorted(counted["held_law"]) == (sorted(first) if reread else [])
    # one row per law, under the key computed now (a row under another key is dropped)
    assert read.read(f"SELECT version_id, key FROM {readings.TABLE} ORDER BY version_id") == keys


def test_a_read_only_workspace_reads_every_law_and_keeps_none(
    held: Workspace,
    catalogue: tuple[CatalogueRow, ...],
    counted: dict[str, list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(held, "read_only", "the file is read-only")
    first = _read_all(held, catalogue)
    assert readings.TABLE not in held.tables()
    _clear(counted)
    assert _read_all(held, catalogue) == first
    assert sorted(counted["held_law"]) == sorted(counted["read_instructions"]) == sorted(first)


def test_a_second_book_takes_every_laws_facts_from_the_kept_readings(
    held: Workspace,
    read: Workspace,
    catalogue: tuple[CatalogueRow, ...],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A book over a workspace that keeps its laws' readings (`read`, the same laws read by a
    first book) parses no law for its effective date and Act number (`laws.law_facts`); the
    facts are the ones read from the bytes (by a book over the workspace before any reading)."""
    parsed: list[str] = []

    def facts(version: object, *args: object) -> laws.LawFacts:
        parsed.append(version.version_id)  # type: ignore[attr-defined]
        return laws.law_facts(version, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(lawbook, "law_facts", facts)
    first = LawBook(held, "us-dc", catalogue, STORE)
    assert sorted(parsed) == sorted(first.versions) != []
    parsed.clear()
    again = LawBook(read, "us-dc", catalogue, STORE)
    assert parsed == []
    assert again.facts == first.facts
