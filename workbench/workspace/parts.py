"""A held version's footnotes, tables and PDF heading lines as derived state (C13, C15, C20):
kept in the workspace under one key (`derived.derived_key`) by ingest from a PDF's one extraction
(`keep_pdf_parts`), or by `held_parts` and `held_headings` from the artefact the first time they
are asked (`text.parts`), and read back by every later command."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from workbench.cells import cells_from_json, cells_json, spans_from_json
from workbench.derived import code_digest, derived_key, keep_row
from workbench.models import Version
from workbench.text.parts import (
    Headings,
    holds_parts,
    lazy_headings,
    pdf_parts,
    read_from_glyphs,
    version_parts_and_headings,
)
from workbench.workspace.held import Workspace

if TYPE_CHECKING:  # the records' modules read markup (lxml): loaded with the first kept reading
    from workbench.text.footnotes import FootnoteReading
    from workbench.text.pdf import Placed
    from workbench.text.table_cells import Table

KIND = "parts"
TABLE = "derived_parts"
# A version's parts in three columns, so that a reader of one (the footnotes a quote's history
# asks for, the tables a diff pairs) never parses the others: `headings` (each heading line's
# [start, end]), `footnotes` (NULL: none read) and `tables` (NULL: none read; a table's body and
# head cells each as `cells.cells_json`, each header named once). `tables`, most of a long
# version's bytes, stays the last column: SQLite reads a row's columns through it to reach any
# after.
_SCHEMA = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (key TEXT PRIMARY KEY, version_id TEXT NOT NULL, "
    "headings TEXT NOT NULL, footnotes TEXT, tables TEXT)"
)
_NEWEST = "tables"  # the column a table of the earlier layout (one JSON column) lacks
_RETIRED = "derived_footnotes"  # footnote readings alone, kept before tables were kept beside them
_MARKER_LISTS = ("markers", "unlinked", "ambiguous")

Parts = tuple["FootnoteReading | None", "tuple[Table, ...] | None"]
Kept = tuple["FootnoteReading | None", "tuple[Table, ...] | None", Headings]
Column = Literal["footnotes", "tables", "headings"]
_NOTHING: dict[Column, Any] = {"footnotes": None, "tables": None, "headings": ()}
_PARTS: tuple[Column, ...] = ("footnotes", "tables")  # what `held_parts` gives


def parts_key(version: Version) -> str:
    """The key of a version's parts: its id, its artefact's and its text's SHA-256 (the parts
    are read from both, and neither changes under a held version), and the code."""
    return _key(version.version_id, version.artefact_sha256, version.text_sha256)


def _key(version_id: str, artefact_sha256: str, text_sha256: str) -> str:
    return derived_key(KIND, [version_id, artefact_sha256, text_sha256], code_digest())


def kept_parts(
    workspace: Workspace, version_id: str, artefact_sha256: str, text_sha256: str
) -> Parts | None:
    """The parts (`held_parts`) the workspace keeps for the held version of those id and hashes,
    read without the version (its text); None when none are kept under their key."""
    kept = _kept_row(workspace, _key(version_id, artefact_sha256, text_sha256), _PARTS)
    return None if kept is None else (kept[0], kept[1])


def held_parts(workspace: Workspace, version: Version, store: Path | None = None) -> Parts:
    """`text.parts.version_parts` of a held version (its footnote reading, its tables), read
    from what the workspace kept under `parts_key`, or read from the artefact in `store`
    (default: the workspace's) and kept there. Nothing read (no such markup, bytes missing from
    the store, a refusal: (None, None)) is not kept, and a read-only workspace keeps nothing."""
    footnotes, tables = _held(workspace, version, store, _PARTS)
    return footnotes, tables


def held_footnotes(
    workspace: Workspace, version: Version, store: Path | None = None
) -> FootnoteReading | None:
    """The footnote reading of `held_parts`, the kept tables not read."""
    (reading,) = _held(workspace, version, store, ("footnotes",))
    return cast("FootnoteReading | None", reading)


def held_tables(
    workspace: Workspace, version: Version, store: Path | None = None
) -> tuple[Table, ...] | None:
    """The tables of `held_parts`, the kept footnote reading not read."""
    (tables,) = _held(workspace, version, store, ("tables",))
    return cast("tuple[Table, ...] | None", tables)


def held_headings(workspace: Workspace, version: Version, store: Path | None = None) -> Headings:
    """The lines a held PDF sets as headings (`pdf_headings.heading_lines`, raw offsets), kept
    with its parts as `held_parts` keeps them; () for a version that is no PDF or none read."""
    if "pdf" not in version.media_type:  # only a PDF's glyphs set lines as headings
        return ()
    (headings,) = _held(workspace, version, store, ("headings",))
    return cast(Headings, headings)


def family_headings(
    workspace: Workspace, versions: Sequence[Version], store: Path | None = None
) -> Callable[[], list[Headings]] | None:
    """What `choice.choose_profile` reads as `headings` for `versions` held in `workspace`
    (`text.parts.lazy_headings` of their `held_headings`)."""
    return lazy_headings(versions, lambda v: held_headings(workspace, v, store))


def _held(
    workspace: Workspace, version: Version, store: Path | None, columns: tuple[Column, ...]
) -> tuple[Any, ...]:
    """The `columns` of the version's kept parts, decoded; read from the artefact and kept
    first when none are kept under its key."""
    if not holds_parts(version):  # no reader for its media type: nothing to read or keep
        return tuple(_NOTHING[c] for c in columns)
    key = parts_key(version)
    kept = _kept_row(workspace, key, columns)
    if kept is not None:
        return kept
    read = version_parts_and_headings(version, store or workspace.settings.store)
    keep_parts(workspace, key, version.version_id, read)
    footnotes, tables, headings = read
    whole = {"footnotes": footnotes, "tables": tables, "headings": headings}
    return tuple(whole[c] for c in columns)


def _kept_row(
    workspace: Workspace, key: str, columns: tuple[Column, ...]
) -> tuple[Any, ...] | None:
    """The `columns` of the row kept under `key`, decoded, or None (no row, or a table of the
    earlier layout: its rows were kept under keys no code computes now)."""
    if not _current(workspace.read(f"PRAGMA table_info({TABLE})")):
        return None
    rows = workspace.read(f"SELECT {', '.join(columns)} FROM {TABLE} WHERE key = ?", (key,))
    return (
        tuple(_decoded(c, value) for c, value in zip(columns, rows[0], strict=True))
        if rows
        else None
    )


def _current(columns: Iterable[Sequence[Any]]) -> bool:
    """Whether the table's columns (`PRAGMA table_info` rows) are this layout's; False for no
    table or one of the earlier layout."""
    return any(column[1] == _NEWEST for column in columns)


def keep_pdf_parts(
    workspace: Workspace, version: Version, data: bytes, trace: Sequence[Placed]
) -> None:
    """Keep a PDF version's parts (`text.parts.pdf_parts`) read off `trace`, the runs of the
    extraction of its artefact `data` that gave its text (ingest's), under `parts_key`, so
    `held_parts` reads them back and extracts nothing: the same rows it would keep."""
    glyphs = read_from_glyphs(version)
    read = pdf_parts(data, trace, version.text, glyphs=glyphs)
    keep_parts(workspace, parts_key(version), version.version_id, read)


def keep_parts(workspace: Workspace, key: str, version_id: str, read: Kept) -> None:
    """Keep what `text.parts.version_parts_and_headings` read of a version under its `parts_key`
    (`key`), as `held_parts` does (ingest keeps a PDF's from its own extraction, `measure` those
    its Dask workers read); nothing read is not kept, and a read-only workspace keeps nothing.
    The version's rows under other keys (other code) go (`derived.keep_row`)."""
    footnotes, tables, _ = read
    if (footnotes is None and tables is None) or workspace.read_only is not None:
        return
    with workspace.transaction() as conn:
        _table(conn)
        keep_row(conn, TABLE, ("key", key), {"version_id": version_id}, _kept(*read))


def _table(conn: sqlite3.Connection) -> None:
    """Make the table of this layout, in the transaction of a write to it."""
    conn.execute(f"DROP TABLE IF EXISTS {_RETIRED}")  # its footnote readings are kept here
    if not _current(conn.execute(f"PRAGMA table_info({TABLE})")):
        # A table of the earlier layout holds rows kept under keys no code computes now.
        conn.execute(f"DROP TABLE IF EXISTS {TABLE}")
    conn.execute(_SCHEMA)


def take_kept_parts(workspace: Workspace, source: Workspace, version_ids: Sequence[str]) -> int:
    """Copy the parts `source` keeps for `version_ids` (every row of this layout, under
    whatever key) into `workspace`, beside the versions `Workspace.take_held` took from it:
    the rows ingest kept from a PDF's extraction, so nothing is read again. Returns how many
    rows were copied; a row under a key `workspace` keeps already is left as it is."""
    ids = list(dict.fromkeys(version_ids))
    if not ids or not _current(source.read(f"PRAGMA table_info({TABLE})")):
        return 0
    rows = source.read(
        f"SELECT key, version_id, headings, footnotes, tables FROM {TABLE} "
        f"WHERE version_id IN ({', '.join('?' * len(ids))}) ORDER BY rowid",
        tuple(ids),
    )
    if not rows:
        return 0
    with workspace.transaction() as conn:
        _table(conn)
        copied = conn.executemany(
            f"INSERT OR IGNORE INTO {TABLE} (key, version_id, headings, footnotes, tables) "
            "VALUES (?, ?, ?, ?, ?)",
            rows,
        ).rowcount
    return int(copied)


def _kept(
    footnotes: FootnoteReading | None, tables: tuple[Table, ...] | None, headings: Headings
) -> dict[str, str | None]:
    """The columns kept: each heading line's `[start, end)`; each footnote record's own
    `as_json`; a table's fields around its body and head cells (`cells.cells_json` each)."""
    notes = None
    if footnotes is not None:
        notes = {
            "footnotes": [n.as_json() for n in footnotes.footnotes],
            **{name: [m.as_json() for m in getattr(footnotes, name)] for name in _MARKER_LISTS},
        }
    rows = None
    if tables is not None:
        rows = [
            {
                "char_start": t.char_start,
                "char_end": t.char_end,
                "columns": t.columns,
                "cells": cells_json(t.cells),
                "refused_rows": list(t.refused_rows),
                "head": cells_json(t.head),
            }
            for t in tables
        ]
    return {
        "headings": _json([list(span) for span in headings]),
        "footnotes": None if notes is None else _json(notes),
        "tables": None if rows is None else _json(rows),
    }


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@lru_cache(maxsize=16)
def _decoded(column: Column, kept: str | None) -> Any:
    """The records of one kept column's JSON (NULL: None), decoded once per process for the
    same text (the records are frozen, so they are shared): citations verified one at a time
    against a version read its parts again for each, and a diff and its footnote check each ask
    for both versions' parts."""
    if kept is None:
        return None
    data = json.loads(kept)
    if column == "headings":
        return spans_from_json(data)
    return _footnotes(data) if column == "footnotes" else _tables(data)


def _footnotes(notes: dict[str, Any]) -> FootnoteReading:
    """The footnote reading `_kept` wrote, as the records it was."""
    from workbench.text.footnotes import Footnote, FootnoteMarker, FootnoteReading

    return FootnoteReading(
        footnotes=tuple(
            Footnote(
                label=n["label"],
                char_start=n["char_start"],
                char_end=n["char_end"],
                anchors=spans_from_json(n["anchors"]),
                continued=spans_from_json(n.get("continued", [])),
            )
            for n in notes["footnotes"]
        ),
        **{name: tuple(FootnoteMarker(**m) for m in notes[name]) for name in _MARKER_LISTS},
    )


def _tables(tables: list[dict[str, Any]]) -> tuple[Table, ...]:
    """The tables `_kept` wrote, as the records they were."""
    from workbench.text.table_cells import Table

    return tuple(
        Table(
            char_start=t["char_start"],
            char_end=t["char_end"],
            columns=t["columns"],
            cells=cells_from_json(t["cells"]),
            refused_rows=tuple(t["refused_rows"]),
            head=cells_from_json(t["head"]),
        )
        for t in tables
    )
