"""Footnotes, tables and cells counted per jurisdiction (C20) on the default workspace: the counts
are those of the readers themselves, called here on each held artefact, and a version's counts
are kept in the measurement cache under its hashes and the code digest."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import STORE
from workbench.measure import apparatus
from workbench.measure.apparatus import APPARATUS_FIELDS, CACHE_NAME, apparatus_report
from workbench.text.footnotes import FootnoteReading, read_footnotes
from workbench.text.pdf_footnotes import read_pdf_footnotes
from workbench.text.table_cells import read_tables
from workbench.workspace import Workspace


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("measure-cache")


@pytest.fixture(scope="module")
def report(workspace: Workspace, cache: Path) -> dict[str, object]:
    return apparatus_report(workspace, STORE, cache)


def test_counts_are_the_readers_own(workspace: Workspace, report: dict[str, object]) -> None:
    expected: dict[str, Counter[str]] = {}
    for version in workspace.versions():
        data = (STORE / version.version_id).read_bytes()
        source, text = version.version_id, version.text
        if "pdf" in version.media_type:
            reading = read_pdf_footnotes(data, source=source, text=text)
        else:
            reading = read_footnotes(data, source=source, media_type=version.media_type, text=text)
        tables = read_tables(data, source=source, text=text) if "xml" in version.media_type else []
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


def test_a_versions_counts_are_kept_under_its_key(
    workspace: Workspace, report: dict[str, object], cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = (cache / CACHE_NAME).read_bytes()

    def never(*_: object) -> FootnoteReading:
        raise AssertionError("read again though kept")

    with monkeypatch.context() as patched:
        patched.setattr(apparatus, "_version_counts", never)
        assert apparatus_report(workspace, STORE, cache) == report
    assert (cache / CACHE_NAME).read_bytes() == kept
    (cache / CACHE_NAME).write_bytes(b"{not json")  # a torn file: counted again, replaced
    assert apparatus_report(workspace, STORE, cache) == report
    assert (cache / CACHE_NAME).read_bytes() == kept
