"""A held version's footnotes and tables as derived state (C13, C20): `held_parts` reads them once
from the artefact (`text.parts.version_parts`, a PDF extracted again) and keeps both in the
workspace under their key (`derived.derived_key`), where every later command reads them back."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.cells import cell_from_json
from workbench.derived import derived_key
from workbench.models import Version, code_digest
from workbench.text.parts import holds_parts, version_parts
from workbench.workspace.held import Workspace

if TYPE_CHECKING:  # the records' modules read markup (lxml): loaded with the first kept reading
    from workbench.text.footnotes import FootnoteReading
    from workbench.text.table_cells import Table

KIND = "parts"
TABLE = "derived_parts"
_SCHEMA = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} "
    "(key TEXT PRIMARY KEY, version_id TEXT NOT NULL, parts TEXT NOT NULL)"
)
_RETIRED = "derived_footnotes"  # footnote readings alone, kept before tables were kept beside them
_MARKER_LISTS = ("markers", "unlinked", "ambiguous")

Parts = tuple["FootnoteReading | None", "tuple[Table, ...] | None"]


def parts_key(version: Version) -> str:
    """The key of a version's parts: its id, its artefact's and its text's SHA-256 (the parts
    are read from both, and neither changes under a held version), and the code."""
    inputs = [version.version_id, version.artefact_sha256, version.text_sha256]
    return derived_key(KIND, inputs, code_digest())


def held_parts(workspace: Workspace, version: Version, store: Path | None = None) -> Parts:
    """`text.parts.version_parts` of a held version (its footnote reading, its tables), read
    from what the workspace kept under `parts_key`, or read from the artefact in `store`
    (default: the workspace's) and kept there. Nothing read (no such markup, bytes missing from
    the store, a refusal: (None, None)) is not kept, and a read-only workspace keeps nothing."""
    if not holds_parts(version):  # no reader for its media type: nothing to read or keep
        return None, None
    key = parts_key(version)
    if TABLE in workspace.tables():
        rows = workspace.read(f"SELECT parts FROM {TABLE} WHERE key = ?", (key,))
        if rows:
            return _parts(key, rows[0][0])
    footnotes, tables = version_parts(version, store or workspace.settings.store)
    keep_parts(workspace, key, version.version_id, (footnotes, tables))
    return footnotes, tables


def keep_parts(workspace: Workspace, key: str, version_id: str, parts: Parts) -> None:
    """Keep the parts `version_parts` read of a version under its `parts_key` (`key`), as
    `held_parts` does (`measure` keeps those its Dask workers read); nothing read is not kept,
    and a read-only workspace keeps nothing."""
    footnotes, tables = parts
    if (footnotes is None and tables is None) or workspace.read_only is not None:
        return
    with workspace.transaction() as conn:
        conn.execute(f"DROP TABLE IF EXISTS {_RETIRED}")  # its footnote readings are kept here
        conn.execute(_SCHEMA)
        conn.execute(
            f"INSERT OR REPLACE INTO {TABLE} VALUES (?, ?, ?)",
            (key, version_id, json.dumps(_kept(footnotes, tables), ensure_ascii=False)),
        )


def _kept(footnotes: FootnoteReading | None, tables: tuple[Table, ...] | None) -> dict[str, Any]:
    """The JSON kept: each record's own `as_json`, a table's fields around its cells'."""
    return {
        "footnotes": None
        if footnotes is None
        else {
            "footnotes": [n.as_json() for n in footnotes.footnotes],
            **{name: [m.as_json() for m in getattr(footnotes, name)] for name in _MARKER_LISTS},
        },
        "tables": None
        if tables is None
        else [
            {
                "char_start": t.char_start,
                "char_end": t.char_end,
                "columns": t.columns,
                "cells": [c.as_json() for c in t.cells],
                "refused_rows": list(t.refused_rows),
                "head": [c.as_json() for c in t.head],
            }
            for t in tables
        ],
    }


def _spans(rows: list[list[int]]) -> tuple[tuple[int, int], ...]:
    return tuple((start, end) for start, end in rows)


@lru_cache(maxsize=4)
def _parts(key: str, stored: str) -> Parts:
    """The parts `_kept` wrote under `key` (`stored`, its JSON), as the records they were; read
    once per process, as a diff and its footnote check each ask for both versions' parts."""
    from workbench.text.footnotes import Footnote, FootnoteMarker, FootnoteReading
    from workbench.text.table_cells import Table

    kept = json.loads(stored)
    notes, tables = kept["footnotes"], kept["tables"]
    reading = (
        None
        if notes is None
        else FootnoteReading(
            footnotes=tuple(
                Footnote(
                    label=n["label"],
                    char_start=n["char_start"],
                    char_end=n["char_end"],
                    anchors=_spans(n["anchors"]),
                    continued=_spans(n.get("continued", [])),
                )
                for n in notes["footnotes"]
            ),
            **{name: tuple(FootnoteMarker(**m) for m in notes[name]) for name in _MARKER_LISTS},
        )
    )
    return reading, None if tables is None else tuple(
        Table(
            char_start=t["char_start"],
            char_end=t["char_end"],
            columns=t["columns"],
            cells=tuple(cell_from_json(c) for c in t["cells"]),
            refused_rows=tuple(t["refused_rows"]),
            head=tuple(cell_from_json(c) for c in t["head"]),
        )
        for t in tables
    )
