"""Footnotes, tables and cells counted per jurisdiction (C20) on the default workspace: the counts
are those of the readers themselves, called here on each held artefact, and counted again from the
parts the pass kept in the workspace (`workspace.parts`), no artefact read again; the rows of
counts it kept are summed again with only the versions they lack counted."""

from __future__ import annotations

import os
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import STORE, _copy
from workbench.derived import TABLE as DERIVED_TABLE
from workbench.measure import apparatus
from workbench.measure.apparatus import APPARATUS_FIELDS, TABLE, apparatus_report
from workbench.models import Version
from workbench.text.footnotes import FootnoteReading, read_footnotes
from workbench.text.ocr import CACHE_ENV, OcrOptions
from workbench.text.pdf import Placed, extract_pdf
from workbench.text.pdf_footnotes import footnotes_from_trace
from workbench.text.pdf_tables import page_rulings, tables_from_trace
from workbench.text.table_cells import Table, read_tables
from workbench.workspace import Workspace
from workbench.workspace.parts import TABLE as PARTS

# A PDF's tables are read from OCR pages too, through the shared cache (as `text.parts` reads them).
OCR = OcrOptions(cache=Path(os.environ[CACHE_ENV]) if os.environ.get(CACHE_ENV) else None)


@pytest.fixture(scope="module")
def report(workspace: Workspace) -> dict[str, object]:
    return apparatus_report(workspace, STORE)


@pytest.mark.slow
def test_counts_are_the_readers_own(
    report: dict[str, object], held_versions: tuple[Version, ...]
) -> None:
    expected: dict[str, Counter[str]] = {}
    for version in held_versions:
        data = (STORE / version.version_id).read_bytes()
        source, text = version.version_id, version.text
        tables: tuple[Table, ...] = ()
        if "pdf" in version.media_type:  # both readers on one traced extraction, as measure reads
            trace: list[Placed] = []
            assert extract_pdf(data, source=source, ocr=OCR, trace=trace).text == text
            reading = footnotes_from_trace(trace, text)
            tables = tables_from_trace(trace, text, page_rulings(data, {p for _, p, _ in trace}))
        else:
            reading = read_footnotes(data, source=source, media_type=version.media_type, text=text)
        if "xml" in version.media_type:
            tables = read_tables(data, source=source, text=text)
        count = expected.setdefault(version.jurisdiction, Counter())
        count["footnotes"] += len(reading.footnotes)
        count["markers"] += len(reading.markers)
        count["tables"] += len(tables)
        count["cells"] += sum(len(t.cells) for t in tables)
        count["versions"] += 1
    jurisdictions = report["jurisdictions"]
    assert isinstance(jurisdictions, dict) and list(jurisdictions) == sorted(expected)
    for j, count in expected.items():
        assert {f: jurisdictions[j][f] for f in count} == dict(count), j
    assert any(c["footnotes"] for c in expected.values()) and any(
        c["cells"] for c in expected.values()
    )
    assert list(report["overall"]) == list(APPARATUS_FIELDS)  # type: ignore[call-overload]


def test_counts_are_read_again_from_the_kept_parts(
    workspace: Workspace, report: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*_: object) -> FootnoteReading:
        raise AssertionError("read again though kept")

    monkeypatch.setattr("workbench.workspace.parts.version_parts_and_headings", never)
    assert apparatus_report(workspace, STORE) == report


@pytest.fixture(scope="module")
def counted_file(
    workspace: Workspace, report: dict[str, object], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """The default workspace after the pass kept its rows of counts, copied once (by SQLite's
    backup) into a file no connection holds open, so a test's copy of it is a copy of its bytes."""
    path = tmp_path_factory.mktemp("counted") / "workspace.sqlite"
    _copy(workspace.path, path)
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no -wal or -shm beside it
    return path


@pytest.fixture
def copied(counted_file: Path, tmp_path: Path) -> Iterator[Workspace]:
    """A copy of the default workspace after the pass kept its rows of counts."""
    shutil.copyfile(counted_file, tmp_path / "workspace.sqlite")
    with Workspace(tmp_path / "workspace.sqlite") as held:
        yield held


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the versions the pass counts from their parts, in order."""
    counted: list[str] = []
    row = apparatus._version_row

    def counting(workspace: Workspace, version_id: str, *rest: Any) -> tuple[int, ...]:
        counted.append(version_id)
        return row(workspace, version_id, *rest)

    monkeypatch.setattr(apparatus, "_version_row", counting)
    return counted


def test_versions_are_loaded_one_at_a_time_and_only_where_no_parts_are_kept(
    copied: Workspace, report: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counting every version again (its rows' key lost), the pass reads the kept parts without
    the versions: it never loads every version at once (`Workspace.versions`), and loads one
    (its text and all) only where the workspace keeps no parts for it, over pages of `PAGE`
    versions. What it counts is the report the first pass made."""
    copied.execute(f"DELETE FROM {DERIVED_TABLE}")
    without = {
        v
        for (v,) in copied.read(
            f"SELECT version_id FROM versions WHERE version_id NOT IN (SELECT version_id FROM {PARTS})"
        )
    }
    assert without and len(without) < copied.count()  # some versions keep parts, some none
    loaded: list[str] = []
    version = copied.version

    def one(version_id: str) -> Version:
        loaded.append(version_id)
        return version(version_id)

    def every(*_: object) -> tuple[Version, ...]:
        raise AssertionError("every held version loaded at once")

    monkeypatch.setattr(copied, "version", one)
    monkeypatch.setattr(copied, "versions", every)
    monkeypatch.setattr(apparatus, "PAGE", 7)  # several pages over the corpus
    assert apparatus_report(copied, STORE) == report
    assert sorted(loaded) == sorted(without)


@pytest.mark.parametrize("read_only", [False, True], ids=["writable", "read-only"])
@pytest.mark.parametrize(
    ("forget", "recounted"),
    [
        pytest.param("", "none", id="rows-kept-nothing-counted"),
        pytest.param(
            f"UPDATE {DERIVED_TABLE} SET watermark = watermark - 1", "last", id="last-counted"
        ),
        pytest.param(f"DELETE FROM {TABLE} WHERE rowid = 1", "one", id="row-lost-only-it-counted"),
        pytest.param(f"DELETE FROM {DERIVED_TABLE}", "all", id="key-lost-every-version-counted"),
        pytest.param(
            f"UPDATE {DERIVED_TABLE} SET key = 'other'", "all", id="other-key-every-version-counted"
        ),
    ],
)
def test_kept_rows_are_summed_again(
    copied: Workspace,
    report: dict[str, object],
    monkeypatch: pytest.MonkeyPatch,
    forget: str,
    recounted: str,
    read_only: bool,
) -> None:
    """The kept rows that hold are summed and only the other versions counted; a writable
    workspace keeps a row for every version, a read-only one keeps nothing (it sums the rows
    up to the watermark and adds what it counted)."""
    lost = copied.read(f"SELECT version_id FROM {TABLE} WHERE rowid = 1")[0][0]
    last = copied.read("SELECT version_id FROM versions ORDER BY rowid DESC LIMIT 1")[0][0]
    if forget:
        copied.execute(forget)
    rows = copied.read(f"SELECT * FROM {TABLE} ORDER BY version_id")
    if read_only:
        monkeypatch.setattr(copied, "read_only", "the file is read-only")
    counted = _counting(monkeypatch)
    assert apparatus_report(copied, STORE) == report
    held = sorted(copied.version_ids())
    assert sorted(counted) == {"none": [], "last": [last], "one": [lost], "all": held}[recounted]
    if read_only:
        assert copied.read(f"SELECT * FROM {TABLE} ORDER BY version_id") == rows
    else:
        assert sorted(v for (v,) in copied.read(f"SELECT version_id FROM {TABLE}")) == held
