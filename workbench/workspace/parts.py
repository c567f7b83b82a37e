"""A held version's footnotes, tables and PDF heading lines as derived state (C13, C15, C20):
kept in the workspace under one key (`derived.derived_key`) by ingest from a PDF's one extraction
(`keep_pdf_parts`), or by `held_parts` and `held_headings` from the artefact the first time they
are asked (`text.parts`), and read back by every later command."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.cells import cell_from_json
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
_SCHEMA = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} "
    "(key TEXT PRIMARY KEY, version_id TEXT NOT NULL, parts TEXT NOT NULL)"
)
_RETIRED = "derived_footnotes"  # footnote readings alone, kept before tables were kept beside them
_MARKER_LISTS = ("markers", "unlinked", "ambiguous")

Parts = tuple["FootnoteReading | None", "tuple[Table, ...] | None"]
Kept = tuple["FootnoteReading | None", "tuple[Table, ...] | None", Headings]


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
    kept = _kept_row(workspace, _key(version_id, artefact_sha256, text_sha256))
    return None if kept is None else (kept[0], kept[1])


def held_parts(workspace: Workspace, version: Version, store: Path | None = None) -> Parts:
    """`text.parts.version_parts` of a held version (its footnote reading, its tables), read
    from what the workspace kept under `parts_key`, or read from the artefact in `store`
    (default: the workspace's) and kept there. Nothing read (no such markup, bytes missing from
    the store, a refusal: (None, None)) is not kept, and a read-only workspace keeps nothing."""
    footnotes, tables, _ = _held(workspace, version, store)
    return footnotes, tables


def held_headings(workspace: Workspace, version: Version, store: Path | None = None) -> Headings:
    """The lines a held PDF sets as headings (`pdf_headings.heading_lines`, raw offsets), kept
    with its parts as `held_parts` keeps them; () for a version that is no PDF or none read."""
    if "pdf" not in version.media_type:  # only a PDF's glyphs set lines as headings
        return ()
    return _held(workspace, version, store)[2]


def family_headings(
    workspace: Workspace, versions: Sequence[Version], store: Path | None = None
) -> Callable[[], list[Headings]] | None:
    """What `choice.choose_profile` reads as `headings` for `versions` held in `workspace`
    (`text.parts.lazy_headings` of their `held_headings`)."""
    return lazy_headings(versions, lambda v: held_headings(workspace, v, store))


def _held(workspace: Workspace, version: Version, store: Path | None) -> Kept:
    if not holds_parts(version):  # no reader for its media type: nothing to read or keep
        return None, None, ()
    key = parts_key(version)
    kept = _kept_row(workspace, key)
    if kept is not None:
        return kept
    read = version_parts_and_headings(version, store or workspace.settings.store)
    keep_parts(workspace, key, version.version_id, read)
    return read


def _kept_row(workspace: Workspace, key: str) -> Kept | None:
    if TABLE not in workspace.tables():
        return None
    rows = workspace.read(f"SELECT parts FROM {TABLE} WHERE key = ?", (key,))
    return _decoded(rows[0][0]) if rows else None


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
        conn.execute(f"DROP TABLE IF EXISTS {_RETIRED}")  # its footnote readings are kept here
        conn.execute(_SCHEMA)
        parts = json.dumps(_kept(*read), ensure_ascii=False)
        keep_row(conn, TABLE, ("key", key), {"version_id": version_id}, {"parts": parts})


def _kept(
    footnotes: FootnoteReading | None, tables: tuple[Table, ...] | None, headings: Headings
) -> dict[str, Any]:
    """The JSON kept: each record's own `as_json`, a table's fields around its cells', each
    heading line's `[start, end)`."""
    return {
        "headings": [list(span) for span in headings],
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


@lru_cache(maxsize=8)
def _decoded(kept: str) -> Kept:
    """The records of one kept row's JSON, decoded once per process for the same text (the
    records are frozen, so they are shared): citations verified one at a time against a version
    read its parts again for each, and a diff and its footnote check each ask for both versions'
    parts."""
    return _parts(json.loads(kept))


def _parts(kept: dict[str, Any]) -> Kept:
    """The parts `_kept` wrote, as the records they were."""
    from workbench.text.footnotes import Footnote, FootnoteMarker, FootnoteReading
    from workbench.text.table_cells import Table

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
    read = (
        None
        if tables is None
        else tuple(
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
    )
    return reading, read, _spans(kept["headings"])
