"""The catalogue as a workspace holds it: one table that admission appends to, whose tracked,
checksummed export is the catalogue file (C3, C13; docs/corpus.md, "One catalogue").
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from workbench.corpus.admission import Admission, merge_admission
from workbench.corpus.catalogue import (
    CATALOGUE_NAME,
    Catalogue,
    catalogue_line,
    catalogue_sha256,
    expected_sha256,
    line_key,
    read_catalogue,
    spliced_lines,
    write_catalogue_bytes,
    write_catalogue_lines,
)
from workbench.models import ROW_FIELDS, CatalogueRow
from workbench.workspace.held import Workspace

TABLE, EXPORT = "catalogue", "catalogue_export"
# A row's line, and beside it the columns every reader asks for (its path and `ROW_FIELDS`), so
# that the catalogue is read as columns, no record parsed.
_COLUMNS = ("key", "line", "path", *ROW_FIELDS)
_SCHEMA = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (key TEXT PRIMARY KEY, line TEXT NOT NULL, "
    "path TEXT NOT NULL, " + ", ".join(ROW_FIELDS) + ") WITHOUT ROWID",
    f"CREATE TABLE IF NOT EXISTS {EXPORT} (folder TEXT NOT NULL, sha256 TEXT NOT NULL)",
)
_INSERT = (
    f"INSERT OR REPLACE INTO {TABLE} ({', '.join(_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(_COLUMNS))})"
)


def read_held(workspace: Workspace, corpus_dir: Path) -> Catalogue:
    """The catalogue in `corpus_dir`, its bytes read once and checked against its checksum file.
    Bytes the table last exported are read from the table (the file hashed, not parsed); any
    others (new commits, a `corpus admit`, a reseal) are read from the file with every record
    checked, and become the table."""
    held = _held_export(workspace, corpus_dir)
    if held is not None:
        return held
    catalogue = read_catalogue(corpus_dir)
    hold_catalogue(workspace, catalogue, corpus_dir)
    return catalogue


def read_held_file(workspace: Path, corpus_dir: Path) -> Catalogue:
    """`read_held` for a workspace file that may not exist yet, writing nothing: the file's
    rows are held by `hold_catalogue` once the caller has opened the workspace."""
    if workspace.is_file():
        with Workspace(workspace, create=False) as opened:
            held = _held_export(opened, corpus_dir)
        if held is not None:
            return held
    return read_catalogue(corpus_dir)


def _held_export(workspace: Workspace, corpus_dir: Path) -> Catalogue | None:
    """The table's rows when its last export into `corpus_dir` is the one the checksum file
    names, the file's bytes hashed and checked as they are read (`CatalogueError`: edited);
    None when the table holds another, the file not read (`read_catalogue` hashes it as it
    parses it: one pass over the bytes either way)."""
    if exported(workspace) != (_folder(corpus_dir), expected_sha256(corpus_dir)):
        return None
    return Catalogue(_table_rows(workspace), catalogue_sha256(corpus_dir))


def held_rows(workspace: Workspace, corpus_dir: Path, sha256: str) -> Catalogue | None:
    """The table's rows, in line order, when its last export into `corpus_dir` has SHA-256
    `sha256`; None otherwise. Read as columns: no record is parsed."""
    if exported(workspace) != (_folder(corpus_dir), sha256):
        return None
    return Catalogue(_table_rows(workspace), sha256)


def _table_rows(workspace: Workspace) -> Iterator[CatalogueRow]:
    """The table's rows, in line order, read as columns: no record is parsed."""
    for key, line, path, *values in workspace.rows(
        f"SELECT {', '.join(_COLUMNS)} FROM {TABLE} ORDER BY key"
    ):
        yield CatalogueRow(
            path=path,
            text=line[len(key) + 22 : -2],  # between `{"path":KEY,"provenance":` and `}\n`
            fields=tuple(sys.intern(v) if isinstance(v, str) else v for v in values),
        )


def exported(workspace: Workspace) -> tuple[str, str] | None:
    """The folder and SHA-256 of the table's last export (None: the workspace holds none)."""
    if EXPORT not in workspace.tables() or _columns(workspace) != _COLUMNS:
        return None  # none, or a table of an earlier layout: made again from the file
    found = workspace.read(f"SELECT folder, sha256 FROM {EXPORT}")
    return (found[0][0], found[0][1]) if found else None


def hold_catalogue(workspace: Workspace, catalogue: Catalogue, corpus_dir: Path) -> Catalogue:
    """Make the table the catalogue `catalogue`, read from `corpus_dir` (nothing is written when
    it already is); returns it."""
    if exported(workspace) == (_folder(corpus_dir), catalogue.sha256):
        return catalogue
    with _made(workspace, whole=True) as conn:
        conn.executemany(_INSERT, map(_row, catalogue))
        _mark(conn, corpus_dir, catalogue.sha256)
    return catalogue


def admit_held(
    workspace: Workspace,
    admission: Admission,
    corpus_dir: Path,
    existing: Catalogue | None,
) -> tuple[Admission, str]:
    """Append `admission` to the table holding `existing` (the catalogue `read_held_file` read
    from `corpus_dir`; None: there was none) by `merge_admission`'s rule, export the table into
    `corpus_dir` and return the merged catalogue and the export's SHA-256. Only rows new or
    changed are written, unless the table did not hold `existing` (then it is made whole).
    The export splices the new and changed rows' lines into the file as it stands
    (`spliced_lines`) when its bytes are still the ones `existing` was read from (their
    SHA-256); else it is written whole from the table. Either way, the same bytes."""
    rows = existing if existing is not None else ()
    merged = merge_admission(rows, admission)
    held = {row.path: row for row in rows}
    appended = [row for row in merged.rows if held.get(row.path) is not row]
    whole = existing is None or exported(workspace) != (_folder(corpus_dir), existing.sha256)
    with _made(workspace, whole=whole) as conn:
        conn.executemany(_INSERT, map(_row, merged.rows if whole else appended))
        data = None if whole or existing is None else _file_as_read(corpus_dir, existing.sha256)
        if data is None:
            sha256 = write_catalogue_lines(_lines(workspace), merged.refusals, corpus_dir)
        else:
            lines = sorted(map(catalogue_line, appended))  # sorted as their keys are
            pieces = spliced_lines(data, lines)
            sha256 = write_catalogue_bytes(pieces, merged.refusals, corpus_dir)
        _mark(conn, corpus_dir, sha256)
    return merged, sha256


def _file_as_read(corpus_dir: Path, sha256: str) -> bytes | None:
    """The catalogue file's bytes when their SHA-256 is `sha256` (None otherwise)."""
    path = corpus_dir / CATALOGUE_NAME
    data = path.read_bytes() if path.is_file() else b""
    return data if hashlib.sha256(data).hexdigest() == sha256 else None


@contextmanager
def _made(workspace: Workspace, *, whole: bool) -> Iterator[sqlite3.Connection]:
    """A transaction on the table, emptied first when `whole` (made again in this layout)."""
    with workspace.transaction() as conn:
        if whole:
            conn.execute(f"DROP TABLE IF EXISTS {TABLE}")
        for statement in _SCHEMA:
            conn.execute(statement)
        yield conn


def _row(row: CatalogueRow) -> tuple[object, ...]:
    return (line_key(row.path), catalogue_line(row), row.path, *row.fields)


def _columns(workspace: Workspace) -> tuple[str, ...]:
    return tuple(str(c[1]) for c in workspace.read(f"PRAGMA table_info({TABLE})"))


def _lines(workspace: Workspace) -> Iterable[str]:
    return (line for (line,) in workspace.read(f"SELECT line FROM {TABLE} ORDER BY key"))


def _mark(conn: sqlite3.Connection, corpus_dir: Path, sha256: str) -> None:
    conn.execute(f"DELETE FROM {EXPORT}")
    conn.execute(
        f"INSERT INTO {EXPORT} (folder, sha256) VALUES (?, ?)", (_folder(corpus_dir), sha256)
    )


def _folder(corpus_dir: Path) -> str:
    return os.fsdecode(corpus_dir.resolve())
