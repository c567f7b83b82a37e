"""What `measure` remembers of the documents it admitted from a mirror folder (C3): each one's file
stamp, so the next run reads and hashes again only the documents whose stamps moved. The rule and
its limit are in docs/design.md."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from workbench.corpus import Admission
from workbench.models import CatalogueRow
from workbench.workspace import Workspace

TABLE = "admitted_files"
_SCHEMA = f"CREATE TABLE IF NOT EXISTS {TABLE} (path TEXT PRIMARY KEY, stamp TEXT NOT NULL)"


def known_files(
    workspace: Path, catalogue: Iterable[CatalogueRow]
) -> dict[str, tuple[str, CatalogueRow]]:
    """Each catalogued row whose document the workspace `workspace` remembers admitting, with
    that document's stamp then (empty when the workspace file does not exist: none is made)."""
    if not workspace.is_file():
        return {}
    with Workspace(workspace) as held:
        stamps = (
            dict(held.read(f"SELECT path, stamp FROM {TABLE}")) if TABLE in held.tables() else {}
        )
    return {row.path: (stamps[row.path], row) for row in catalogue if row.path in stamps}


def keep_stamps(
    held: Workspace, admission: Admission, known: Mapping[str, tuple[str, CatalogueRow]]
) -> None:
    """Remember the stamps of `admission`'s documents, writing only those that moved."""
    moved = [
        (path, stamp)
        for path, stamp in admission.stamps.items()
        if path not in known or known[path][0] != stamp
    ]
    with held.transaction() as conn:
        conn.execute(_SCHEMA)
        conn.executemany(f"INSERT OR REPLACE INTO {TABLE} (path, stamp) VALUES (?, ?)", moved)
