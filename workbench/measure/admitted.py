"""What `measure` remembers of the documents it admitted from a mirror folder, so that the next
run reads again only those that changed.

Each admitted document's `admission.file_stamp` (byte count, modification and change times and
inode of the document and of its provenance file) is kept in the workspace, in the table
`admitted_files`. The next `measure` of that mirror gives `admit` each catalogued row with the
stamp it was admitted under: a document whose stamp has not moved is that row again, its
provenance not parsed and its bytes not hashed; every other one is checked whole, as a first
admission checks it. This is the rule git's index and rsync follow for a tree of files; a file
changed behind the file system's back keeping all four of its figures is not seen until
`workbench corpus admit` (which always reads every file) or a version's bytes are read, which
checks them against the catalogue (C3).

The guarantee: a stamp is kept only for a row the catalogue holds, taken before its bytes were
read, so a document written during its own admission is read again by the next run.
"""

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
