"""The catalogue as a workspace holds it: one table that admission appends to, whose tracked,
checksummed export is the catalogue file (C3, C13; docs/corpus.md, "One catalogue").
"""

from __future__ import annotations

import hashlib
import heapq
import itertools
import os
import sqlite3
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
from workbench.models.rows import media_type_of
from workbench.workspace.held import Workspace

TABLE, EXPORT = "catalogue", "catalogue_export"
# A row's line, and beside it the columns every reader asks for (its path and `ROW_FIELDS`), so
# that the catalogue is read as columns, no record parsed.
_COLUMNS = ("key", "line", "path", *ROW_FIELDS)
# The order `families` reads the table in (by family, each in version order, ties by key), and
# beside it what a measure decides a family's reuse from (each row's path and SHA-256) and the
# format `TableRows.entries` lists: an index that covers them, so the families are read without
# touching the rows' lines (a table whose index lacks the format is made again: `_indexed`).
_FAMILY_ORDER = ("jurisdiction", "document_family", "version_order", "key")
_INDEX = f"{TABLE}_by_family"
_SCHEMA = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (key TEXT PRIMARY KEY, line TEXT NOT NULL, "
    "path TEXT NOT NULL, " + ", ".join(ROW_FIELDS) + ") WITHOUT ROWID",
    f"CREATE INDEX IF NOT EXISTS {_INDEX} ON {TABLE} "
    f"({', '.join(_FAMILY_ORDER)}, path, sha256, format)",
    f"CREATE TABLE IF NOT EXISTS {EXPORT} (folder TEXT NOT NULL, sha256 TEXT NOT NULL)",
)
PAGE_ROWS = 1024  # index entries `families` reads per query
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


def unheld_catalogue(workspace: Path, corpus_dir: Path) -> Catalogue | None:
    """The catalogue in `corpus_dir` when the workspace file's table does not hold it, read from
    the file with every record checked (`hold_catalogue` makes it the table once the caller has
    opened the workspace); None when the table holds it: the file's bytes are checked against
    its checksum file and no row is read. Writes nothing."""
    if workspace.is_file():
        with Workspace(workspace, create=False) as opened:
            if _holds_export(opened, corpus_dir):
                catalogue_sha256(corpus_dir)  # edited since the table's export: CatalogueError
                return None
    return read_catalogue(corpus_dir)


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
    if not _holds_export(workspace, corpus_dir):
        return None
    return Catalogue(table_rows(workspace), catalogue_sha256(corpus_dir))


def _holds_export(workspace: Workspace, corpus_dir: Path) -> bool:
    """True when the table's last export into `corpus_dir` is the one its checksum file names."""
    return exported(workspace) == (_folder(corpus_dir), expected_sha256(corpus_dir))


def held_rows(workspace: Workspace, corpus_dir: Path, sha256: str) -> Catalogue | None:
    """The table's rows, in line order, when its last export into `corpus_dir` has SHA-256
    `sha256`; None otherwise. Read as columns: no record is parsed."""
    if exported(workspace) != (_folder(corpus_dir), sha256):
        return None
    return Catalogue(table_rows(workspace), sha256)


def table_rows(workspace: Workspace) -> Iterator[CatalogueRow]:
    """The table's rows, in line order, read as columns: no record is parsed (take them all
    before writing to the workspace)."""
    for columns in workspace.rows(f"SELECT {', '.join(_COLUMNS)} FROM {TABLE} ORDER BY key"):
        yield _record(columns)


@dataclass(frozen=True, slots=True, kw_only=True)
class Listed:
    """What the reports read of a catalogue row (its path, SHA-256, size, media type,
    jurisdiction and family), without its line."""

    path: str
    sha256: str
    size: int
    media_type: str
    jurisdiction: str
    family: str

    @classmethod
    def of(cls, row: CatalogueRow) -> Listed:
        return cls(
            path=row.path,
            sha256=row.sha256,
            size=row.size,
            media_type=row.media_type,
            jurisdiction=row.jurisdiction,
            family=row.family,
        )


def listed_rows(workspace: Workspace) -> Iterator[Listed]:
    """The table's rows as `Listed`, in line order: their columns read, never their lines."""
    query = (
        f"SELECT path, sha256, bytes, format, jurisdiction, document_family FROM {TABLE} "
        "ORDER BY key"
    )
    for path, sha256, size, format_, jurisdiction, family in workspace.rows(query):
        yield Listed(
            path=path,
            sha256=sha256,
            size=size,
            media_type=sys.intern(media_type_of(format_)),
            jurisdiction=sys.intern(jurisdiction),
            family=sys.intern(family),
        )


Member = tuple[str, str]  # a row of a family, as `families` gives it: (path, sha256)


def families(workspace: Workspace) -> Iterator[tuple[str, str, tuple[Member, ...]]]:
    """Each family of the table, sorted by (jurisdiction, family): (jurisdiction, family, each
    row's path and SHA-256 in version order, ties by key as the lines sort). Read from the
    table's index `PAGE_ROWS` entries at a time, each page one query starting after the last
    entry of the one before, so a reader holds a page, never the table, and may write to the
    workspace between the families it takes; no line is read (`family_rows` reads a family's)."""
    return _grouped(_entries(workspace))


def _entries(workspace: Workspace) -> Iterator[tuple[Any, ...]]:
    """(jurisdiction, family, version order, key, path, sha256) of every row, in that order."""
    order = ", ".join(_FAMILY_ORDER)
    first = f"SELECT {order}, path, sha256 FROM {TABLE} ORDER BY {order} LIMIT {PAGE_ROWS}"
    after = first.replace(" ORDER BY", f" WHERE ({order}) > (?, ?, ?, ?) ORDER BY")
    page = workspace.read(first)
    while page:
        yield from page
        if len(page) < PAGE_ROWS:
            return
        page = workspace.read(after, page[-1][:4])


def _grouped(
    entries: Iterable[tuple[Any, ...]],
) -> Iterator[tuple[str, str, tuple[Member, ...]]]:
    for (jurisdiction, family), rows in itertools.groupby(entries, key=lambda e: e[:2]):
        yield jurisdiction, family, tuple((path, sha256) for *_, path, sha256 in rows)


def family_rows(workspace: Workspace, jurisdiction: str, family: str) -> list[CatalogueRow]:
    """The table's rows of one family, in version order (ties by key): one query on its index."""
    return [
        _record(columns)
        for columns in workspace.read(
            f"SELECT {', '.join(_COLUMNS)} FROM {TABLE} WHERE jurisdiction = ? AND "
            "document_family = ? ORDER BY version_order, key",
            (jurisdiction, family),
        )
    ]


Entry = tuple[str, int, str, str]  # a row as `TableRows.entries` lists it


class TableRows:
    """The catalogue table's rows of a workspace, each read where it is looked up: what a reader
    that only looks rows up by path, and lists a jurisdiction's families, is given in place of
    every row read whole (the amendments' `laws.Catalogued`)."""

    def __init__(self, workspace: Workspace) -> None:
        self._workspace = workspace

    def get(self, path: str) -> CatalogueRow | None:
        """The row of `path` as `table_rows` reads it, or None when the table holds none: one
        query on the table's key."""
        found = self._workspace.read(
            f"SELECT {', '.join(_COLUMNS)} FROM {TABLE} WHERE key = ?", (line_key(path),)
        )
        return _record(found[0]) if found else None

    def entries(self, jurisdiction: str) -> Iterator[Entry]:
        """(family, version order, path, media type) of each row of `jurisdiction`, in family
        then version order (ties by key), read from the table's index: no line is read."""
        query = (
            f"SELECT document_family, version_order, path, format FROM {TABLE} "
            f"WHERE jurisdiction = ? ORDER BY {', '.join(_FAMILY_ORDER)}"
        )
        for family, order, path, format_ in self._workspace.rows(query, (jurisdiction,)):
            yield family, order, path, media_type_of(format_)


def _record(columns: tuple[Any, ...]) -> CatalogueRow:
    key, line, path, *values = columns
    return CatalogueRow(
        path=path,
        text=line[len(key) + 22 : -2],  # between `{"path":KEY,"provenance":` and `}\n`
        fields=tuple(sys.intern(v) if isinstance(v, str) else v for v in values),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Admitted:
    """The table's rows as an admission has them, by what differs: less `absent` (catalogued
    paths it does not hold), with `instead` in place of the table's row of each one's path (a
    path catalogued with other bytes, whose catalogued row `merge_admission` kept). Empty:
    every row of the table, as a catalogue read whole has them."""

    absent: frozenset[str] = frozenset()
    instead: tuple[CatalogueRow, ...] = ()

    @property
    def left(self) -> frozenset[str]:
        """The table's paths whose rows the admission does not have as the table holds them
        (empty: the admission is the table)."""
        return self.absent | {row.path for row in self.instead}

    @classmethod
    def of(cls, admission: Admission, merged: Admission) -> Admitted:
        """What differs between `admission` and the table `admit_held` made of it (`merged`)."""
        table = {row.path: row for row in merged.rows}
        admitted = {row.path for row in admission.rows}
        return cls(
            absent=frozenset(table.keys() - admitted),
            instead=tuple(row for row in admission.rows if table[row.path] != row),
        )

    def families(self, workspace: Workspace) -> Iterator[tuple[str, str, tuple[Member, ...]]]:
        """`families` of the table as the admission has them, in the same order."""
        left = self.left
        if not left:
            return families(workspace)
        kept = (entry for entry in _entries(workspace) if entry[4] not in left)
        moved = sorted(
            (r.jurisdiction, r.family, r.version_order, line_key(r.path), r.path, r.sha256)
            for r in self.instead
        )
        return _grouped(heapq.merge(kept, moved, key=lambda entry: entry[:4]))

    def family_rows(
        self, workspace: Workspace, jurisdiction: str, family: str
    ) -> list[CatalogueRow]:
        """`family_rows` of the table as the admission has them."""
        rows = family_rows(workspace, jurisdiction, family)
        left = self.left
        if not left:
            return rows
        here = [r for r in self.instead if (r.jurisdiction, r.family) == (jurisdiction, family)]
        return sorted(
            [row for row in rows if row.path not in left] + here,
            key=lambda r: (r.version_order, line_key(r.path)),
        )

    def listed(self, workspace: Workspace) -> tuple[Listed, ...]:
        """`listed_rows` of the table as the admission has them, in line order."""
        if not self.left:
            return tuple(listed_rows(workspace))
        return tuple(map(Listed.of, self.rows(workspace)))

    def rows(self, workspace: Workspace) -> list[CatalogueRow]:
        """The table's rows as the admission has them, in line order."""
        left = self.left
        kept = [row for row in table_rows(workspace) if row.path not in left]
        return sorted(kept + list(self.instead), key=lambda r: line_key(r.path))


def exported(workspace: Workspace) -> tuple[str, str] | None:
    """The folder and SHA-256 of the table's last export (None: the workspace holds none)."""
    if (
        EXPORT not in workspace.tables()
        or _columns(workspace) != _COLUMNS
        or not _indexed(workspace)
    ):
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


def _indexed(workspace: Workspace) -> bool:
    found = f"SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = '{_INDEX}'"
    return bool(workspace.read(found))


def _lines(workspace: Workspace) -> Iterable[str]:
    # A line at a time: read whole, the lines were the table again (30 MB for the D.C. Code).
    return (line for (line,) in workspace.rows(f"SELECT line FROM {TABLE} ORDER BY key"))


def _mark(conn: sqlite3.Connection, corpus_dir: Path, sha256: str) -> None:
    conn.execute(f"DELETE FROM {EXPORT}")
    conn.execute(
        f"INSERT INTO {EXPORT} (folder, sha256) VALUES (?, ?)", (_folder(corpus_dir), sha256)
    )


def _folder(corpus_dir: Path) -> str:
    return os.fsdecode(corpus_dir.resolve())
