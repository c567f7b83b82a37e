"""A held version's footnotes, tables and PDF heading lines kept as derived state
(`workspace.parts`): read from the artefact once, kept under their key, and read back equal to the
reading with no artefact touched, on a Justice Canada regulation (markup notes and tables, no
heading lines, kept when first asked) and a PDF (a NERC standard, its notes off the glyphs, its
tables by geometry, its heading lines by size, kept at ingest); one row per version, under the
key computed now; a read-only workspace keeps nothing and still answers."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import FreshWorkspace
from workbench.models import CatalogueRow
from workbench.text.parts import version_parts, version_parts_and_headings
from workbench.workspace import Workspace
from workbench.workspace import parts as parts_module
from workbench.workspace.parts import (
    TABLE,
    held_footnotes,
    held_headings,
    held_parts,
    held_tables,
    parts_key,
)

JUSTICE = "ca-federal/ca-energy-efficiency-regs-2016/SOR-2016-311@2025-03-31.xml"
NERC = "us-nerc/nerc-cip-008/cip-008-6.pdf"
PATHS = [pytest.param(JUSTICE, id="justice-canada-xml"), pytest.param(NERC, id="nerc-pdf")]


def _never(*_: object) -> None:
    raise AssertionError("the artefact was read again")


@pytest.fixture
def holding(
    catalogue: tuple[CatalogueRow, ...], fresh_workspace: FreshWorkspace, tmp_path: Path
) -> Callable[[str], Workspace]:
    """`holding(path)`: a new workspace holding the one version `path`."""
    return lambda path: fresh_workspace(
        [row for row in catalogue if row.path == path], tmp_path / "workspace.sqlite"
    )


@pytest.mark.parametrize("path", PATHS)
def test_a_versions_parts_are_read_once_and_kept(
    path: str, holding: Callable[[str], Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    with holding(path) as workspace:
        version = workspace.version(path)
        *read, headings = version_parts_and_headings(version, workspace.settings.store)
        footnotes, tables = read
        assert footnotes is not None and footnotes.footnotes and tables
        assert (read[0], read[1]) == version_parts(version, workspace.settings.store)
        # Only a PDF sets lines as headings by their glyphs; the markup's are read elsewhere.
        assert bool(headings) == path.endswith(".pdf")
        assert all(version.text[a:b].strip() == version.text[a:b] != "" for a, b in headings)
        # Ingest kept a PDF's parts from its one extraction (tests/test_ingest_parts.py).
        assert (TABLE in workspace.tables()) is path.endswith(".pdf")
        assert held_parts(workspace, version) == tuple(read)
        kept = workspace.read(f"SELECT key, version_id FROM {TABLE}")
        assert kept == [(parts_key(version), path)]
        # A second read touches no artefact: neither the reader nor the PDF extractor runs.
        monkeypatch.setattr("workbench.workspace.parts.version_parts_and_headings", _never)
        monkeypatch.setattr("workbench.text.pdf.extract_pdf", _never)
        assert held_parts(workspace, version) == tuple(read)
        assert held_headings(workspace, version) == headings


def test_a_version_keeps_one_row_under_the_key_computed_now(
    holding: Callable[[str], Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parts kept by other code are never read again: once kept under the key computed now,
    the version's row under the other key is gone."""
    with holding(JUSTICE) as workspace:
        version = workspace.version(JUSTICE)
        with monkeypatch.context() as older:
            older.setattr("workbench.workspace.parts.code_digest", lambda: "older code")
            older_key = parts_key(version)
            held_parts(workspace, version)
        assert workspace.read(f"SELECT key FROM {TABLE}") == [(older_key,)]
        assert older_key != parts_key(version)
        held_parts(workspace, version)
        assert workspace.read(f"SELECT key FROM {TABLE}") == [(parts_key(version),)]


def test_a_read_only_workspace_keeps_nothing_and_still_answers(
    holding: Callable[[str], Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    with holding(JUSTICE) as workspace:
        version = workspace.version(JUSTICE)
        # As a workspace nobody may write is opened (root writes whatever the file modes say).
        monkeypatch.setattr(workspace, "read_only", "the file is read-only")
        read = held_parts(workspace, version)
        assert read == version_parts(version, workspace.settings.store) != (None, None)
        assert TABLE not in workspace.tables()


def test_footnote_readings_kept_alone_before_are_dropped(
    holding: Callable[[str], Workspace],
) -> None:
    """One kept thing: the table that kept footnote readings alone goes once parts are kept."""
    with holding(JUSTICE) as workspace:
        with workspace.transaction() as conn:
            conn.execute("CREATE TABLE derived_footnotes (key TEXT PRIMARY KEY)")
        held_parts(workspace, workspace.version(JUSTICE))
        assert "derived_footnotes" not in workspace.tables()
        assert TABLE in workspace.tables()


def test_kept_parts_are_decoded_once_per_process(
    holding: Callable[[str], Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Citations verified one at a time against a version read its kept parts once each: the
    records decoded from the kept row are taken again, equal and the very same, not decoded
    again for every citation."""
    with holding(JUSTICE) as workspace:
        version = workspace.version(JUSTICE)
        read = held_parts(workspace, version)  # read from the artefact, and kept
        decoded = held_parts(workspace, version)  # read back from the kept row
        assert decoded == read
        monkeypatch.setattr("workbench.workspace.parts._footnotes", _never)
        monkeypatch.setattr("workbench.workspace.parts._tables", _never)
        again = held_parts(workspace, version)
        assert again == read
        assert all(a is b for a, b in zip(again, decoded, strict=True))


@pytest.mark.parametrize("path", PATHS)
def test_a_reader_of_one_part_decodes_no_other(
    path: str, holding: Callable[[str], Workspace], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The footnotes, tables and heading lines are kept in columns of their own: a quote's
    history reads a version's footnotes without parsing its tables (most of a long version's
    kept bytes), a diff its tables without its footnotes, and each is what `held_parts` gives.
    Every cell is kept as an array of its fields, no field named, each header path named once
    for the cells it heads (`cells.cells_json`)."""
    with holding(path) as workspace:
        version = workspace.version(path)
        footnotes, tables = held_parts(workspace, version)  # kept (at ingest, or now)
        assert footnotes is not None and tables
        [(kept_tables,)] = workspace.read(f"SELECT tables FROM {TABLE}")
        cells = headers = 0
        for table, kept in zip(tables, json.loads(kept_tables), strict=True):
            stored, rows = kept["cells"]
            named = [(tuple(names), tuple(map(tuple, spans))) for names, spans in stored]
            assert len(set(named)) == len(named)  # each header path once
            assert rows == [
                [
                    c.char_start,
                    c.char_end,
                    c.row,
                    c.column,
                    c.row_span,
                    c.column_span,
                    named.index((c.row_header, c.row_header_spans)),
                    named.index((c.column_header, c.column_header_spans)),
                    [list(s) for s in c.spans],
                    c.doubt,
                ]
                for c in table.cells
            ]
            cells, headers = cells + len(rows), headers + len(named)
        assert headers < cells  # a header heads many cells, and is named once for them
        loads = json.loads
        parsed: list[str] = []

        def parse(kept: str) -> object:
            parsed.append(kept)
            return loads(kept)

        monkeypatch.setattr("workbench.workspace.parts.json.loads", parse)
        parts_module._decoded.cache_clear()
        assert held_footnotes(workspace, version) == footnotes
        assert kept_tables not in parsed and parsed
        parsed.clear()
        read = held_tables(workspace, version)
        assert read == tables and parsed == [kept_tables]
        # the cells a header heads share its tuple: one object per header, not one per cell
        shared = {
            id(h) for t in read or () for c in t.cells for h in (c.row_header, c.column_header)
        }
        assert len(shared) <= headers
        parsed.clear()
        held_headings(workspace, version)
        assert kept_tables not in parsed


def test_parts_kept_in_the_earlier_layout_are_made_again(
    holding: Callable[[str], Workspace],
) -> None:
    """A parts table of the earlier layout (one JSON column, each cell an object naming its
    fields) is never read: its rows were kept under keys no code computes now, and the table
    is made again in this layout when a version's parts are next kept."""
    with holding(JUSTICE) as workspace:
        version = workspace.version(JUSTICE)
        with workspace.transaction() as conn:
            conn.execute(
                f"CREATE TABLE {TABLE} (key TEXT PRIMARY KEY, version_id TEXT NOT NULL, "
                "parts TEXT NOT NULL)"
            )
            conn.execute(
                f"INSERT INTO {TABLE} VALUES (?, ?, ?)",
                (parts_key(version), JUSTICE, '{"headings": [], "footnotes": null, "tables": []}'),
            )
        read = held_parts(workspace, version)
        assert read == version_parts(version, workspace.settings.store)
        assert read[0] is not None and read[1]  # not the row of the earlier layout
        columns = [row[1] for row in workspace.read(f"PRAGMA table_info({TABLE})")]
        assert columns == ["key", "version_id", "headings", "footnotes", "tables"]
        assert workspace.read(f"SELECT key FROM {TABLE}") == [(parts_key(version),)]
