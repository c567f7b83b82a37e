"""The catalogue as a workspace's commands read it: every record checked once per catalogue.

`corpus.read_catalogue` checks a catalogue's bytes against its checksum file and then every
record, which on a catalogue of tens of thousands of rows is most of the read. A check of the
same bytes by the same code passes the same way, so a workspace keeps, in the table
`checked_catalogues`, the SHA-256 of each catalogue whose every record passed under the current
code digest (`models.code_digest`): read through `read_checked`, or written by `measure` from
rows it had checked. Those bytes are then read without the per-record check (nor strict JSON's);
the checksum comparison, the JSON parse and the path checks of every line still run, and any
other bytes, or the same bytes under other code, are checked whole.

The guarantee: a SHA-256 is kept only after every record of those bytes passed under this code,
and a row of another code digest is dropped when one is kept.
"""

from __future__ import annotations

from pathlib import Path

from workbench.corpus.catalogue import Catalogue, read_catalogue
from workbench.models import code_digest
from workbench.workspace.held import Workspace

TABLE = "checked_catalogues"
_SCHEMA = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} "
    "(sha256 TEXT NOT NULL, code TEXT NOT NULL, PRIMARY KEY (sha256, code))"
)


def checked_catalogues(workspace: Workspace | Path) -> frozenset[str]:
    """The SHA-256 of every catalogue whose records passed under this code, as the workspace
    (or the workspace file, when it exists) keeps them."""
    if isinstance(workspace, Path):
        if not workspace.is_file():
            return frozenset()
        with Workspace(workspace, create=False) as held:
            return checked_catalogues(held)
    if TABLE not in workspace.tables():
        return frozenset()
    rows = workspace.read(f"SELECT sha256 FROM {TABLE} WHERE code = ?", (code_digest(),))
    return frozenset(sha for (sha,) in rows)


def keep_checked(workspace: Workspace, sha256: str) -> None:
    """Keep `sha256` as a catalogue whose every record passed under this code."""
    code = code_digest()
    with workspace.transaction() as conn:
        conn.execute(_SCHEMA)
        conn.execute(f"DELETE FROM {TABLE} WHERE code != ?", (code,))
        conn.execute(f"INSERT OR IGNORE INTO {TABLE} (sha256, code) VALUES (?, ?)", (sha256, code))


def read_checked(workspace: Workspace, corpus_dir: Path) -> Catalogue:
    """The catalogue in `corpus_dir`, its records checked unless the workspace kept its bytes
    as checked (module docstring); kept as checked after."""
    checked = checked_catalogues(workspace)
    catalogue = read_catalogue(corpus_dir, checked=checked)
    if catalogue.sha256 not in checked:
        keep_checked(workspace, catalogue.sha256)
    return catalogue
