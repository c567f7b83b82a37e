"""The workspace file (C2, C18): an embedded SQLite file of append-only versions, their text origins
and the settings it remembers (`Workspace`); a held version never moves, and re-ingesting other
bytes under its id raises `CorpusChanged`."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.corpus import CorpusSettings, project_settings
from workbench.database import check_marker, read_only_connection, refuse_writing, unwritable
from workbench.errors import (
    AppendOnlyViolation,
    CorpusChanged,
    FamilyNotFound,
    VersionNotFound,
    WorkspaceError,
)
from workbench.models import (
    Furniture,
    PageSpan,
    StructureMark,
    TextOrigins,
    UnusablePage,
    Version,
    canonical_json,
    origins_from_json,
    strict_json,
)
from workbench.models.versions import marks_from_json, marks_json

if TYPE_CHECKING:
    from workbench.models import VersionText
    from workbench.text.profiles import Profile

SCHEMA_VERSION = "3"
# Schema 2 stored each structure mark as an object naming its fields (`StructureMark.as_json`);
# a workspace of it is read and written in that layout (its held rows never change, C2).
EARLIER_SCHEMA = "2"
PDF_MEDIA_TYPE = "application/pdf"
# What `take_held` copies of a version, and how: two files of one schema hold its tables with
# the same columns in the same order.
_TAKEN = ("versions", "text_origins")
_TAKE = "SELECT * FROM {} WHERE version_id = ? ORDER BY rowid"
SETTINGS_KEY = "settings/"  # workspace_meta rows settings/1, settings/2, ...: the highest stands

_SCHEMA = """
CREATE TABLE IF NOT EXISTS workspace_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS versions (
    version_id TEXT PRIMARY KEY,
    jurisdiction TEXT NOT NULL,
    family TEXT NOT NULL,
    version_order INTEGER NOT NULL,
    version_label TEXT NOT NULL,
    media_type TEXT NOT NULL,
    artefact_sha256 TEXT NOT NULL,
    artefact_bytes INTEGER NOT NULL,
    extractor TEXT NOT NULL,
    extractor_version TEXT NOT NULL,
    text_sha256 TEXT NOT NULL,
    text TEXT NOT NULL,
    structure TEXT NOT NULL,
    pages TEXT NOT NULL,
    furniture TEXT NOT NULL,
    unusable_pages TEXT NOT NULL,
    provenance TEXT NOT NULL,
    ingested_at TEXT NOT NULL,
    UNIQUE (jurisdiction, family, version_order)
);
CREATE INDEX IF NOT EXISTS versions_by_family ON versions (family, version_order);
CREATE INDEX IF NOT EXISTS versions_listing ON versions (jurisdiction, family, media_type);
CREATE INDEX IF NOT EXISTS versions_content
    ON versions (jurisdiction, family, version_order, version_id, text_sha256);
CREATE TRIGGER IF NOT EXISTS versions_append_only_update BEFORE UPDATE ON versions
BEGIN SELECT RAISE(ABORT, 'append-only table versions: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS versions_append_only_delete BEFORE DELETE ON versions
BEGIN SELECT RAISE(ABORT, 'append-only table versions: DELETE refused'); END;
CREATE TABLE IF NOT EXISTS text_origins (
    version_id TEXT NOT NULL,
    extractor TEXT NOT NULL,
    extractor_version TEXT NOT NULL,
    text_sha256 TEXT NOT NULL,
    origin TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    PRIMARY KEY (version_id, extractor, extractor_version)
);
CREATE TRIGGER IF NOT EXISTS text_origins_append_only_update BEFORE UPDATE ON text_origins
BEGIN SELECT RAISE(ABORT, 'append-only table text_origins: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS text_origins_append_only_delete BEFORE DELETE ON text_origins
BEGIN SELECT RAISE(ABORT, 'append-only table text_origins: DELETE refused'); END;
CREATE TRIGGER IF NOT EXISTS meta_append_only_update BEFORE UPDATE ON workspace_meta
BEGIN SELECT RAISE(ABORT, 'append-only table workspace_meta: UPDATE refused'); END;
CREATE TRIGGER IF NOT EXISTS meta_append_only_delete BEFORE DELETE ON workspace_meta
BEGIN SELECT RAISE(ABORT, 'append-only table workspace_meta: DELETE refused'); END;
"""

_VERSION_COLUMNS = (
    "version_id, jurisdiction, family, version_order, version_label, media_type, artefact_sha256, "
    "artefact_bytes, extractor, extractor_version, text_sha256, text, structure, pages, furniture, "
    "unusable_pages"
)


def _records_json(records: Iterable[StructureMark | PageSpan | Furniture | UnusablePage]) -> str:
    """A version's page map, furniture or unusable pages (and a schema 2 workspace's structure)
    as stored: the canonical JSON of each record's own shape (`as_json`, beside the record in
    models)."""
    return canonical_json([r.as_json() for r in records])


class Workspace:
    """An open workspace file. Use as a context manager, or call `close()`.

    `settings` is the corpus every command on it reads: what it remembers (else the project's,
    `corpus.project_settings`), with the options `open_workspace` was given applied; `overrides`
    says which of those options replaced a remembered setting, one line each.
    """

    def __init__(self, path: Path, *, create: bool = True) -> None:
        """Open the workspace at `path`; with `create` (the default) make it if it does not exist,
        else refuse a missing one with a `WorkspaceError` and make nothing, not even its folder."""
        self.path = path
        self._batched = False  # inside `batch()`: transactions are savepoints of its one
        if not create and not path.exists():
            raise WorkspaceError(
                f"{path}: no such workspace; 'workbench measure' or 'workbench ingest' makes one"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        # CAUTION: a file is read, never written, until its own schema marker shows it is a
        # workspace (`guard`); one nobody may write is read through an immutable connection.
        self.read_only = unwritable(path) if path.exists() else None
        if path.exists() and path.stat().st_size:
            check_marker(path, immutable=self.read_only is not None)
        try:
            if self.read_only is not None:
                self._conn = read_only_connection(path, immutable=True)
            else:
                self._conn = sqlite3.connect(path, timeout=30.0, isolation_level=None)
            self._conn.row_factory = sqlite3.Row  # rows are read by column name
            self._conn.execute("PRAGMA busy_timeout = 30000")
            if self.read_only is None:
                self._conn.execute("PRAGMA journal_mode = WAL")
                self._conn.execute("PRAGMA synchronous = NORMAL")
                self._conn.executescript(_SCHEMA)
                self._conn.execute(
                    "INSERT OR IGNORE INTO workspace_meta (key, value) VALUES ('schema_version', ?)",
                    (SCHEMA_VERSION,),
                )
            held = self._conn.execute(
                "SELECT value FROM workspace_meta WHERE key = 'schema_version'"
            ).fetchone()["value"]
        except sqlite3.DatabaseError as exc:
            raise WorkspaceError(f"{path}: not a workbench workspace ({exc})") from exc
        if held not in (SCHEMA_VERSION, EARLIER_SCHEMA):
            raise WorkspaceError(
                f"{path}: workspace schema {held}; this workbench reads schemas "
                f"{EARLIER_SCHEMA} and {SCHEMA_VERSION}"
            )
        self.schema: str = held
        self.settings: CorpusSettings = self.remembered_settings() or project_settings()
        self.overrides: tuple[str, ...] = ()

    def _settings_rows(self) -> list[tuple[int, Any]]:
        """(n, recorded value) of every `settings/<n>` row, in order of n."""
        rows = self._conn.execute(
            "SELECT key, value FROM workspace_meta WHERE key LIKE ?", (SETTINGS_KEY + "%",)
        )
        return sorted(
            (int(row["key"].removeprefix(SETTINGS_KEY)), strict_json(row["value"], WorkspaceError))
            for row in rows
        )

    def remembered_settings(self) -> CorpusSettings | None:
        """The standing settings (the highest `settings/<n>` row), or None if none was recorded
        (a workspace made before settings were remembered, or by `Workspace` alone)."""
        rows = self._settings_rows()
        if not rows:
            return None
        source = f"{self.path}: workspace_meta {SETTINGS_KEY}{rows[-1][0]}"
        return CorpusSettings.from_json(rows[-1][1]["settings"], source=source)

    def remember(self, settings: CorpusSettings, *, by: str) -> bool:
        """Append `settings` as the standing ones, recorded by the command `by`, unless they equal
        the standing ones; True if a row was appended. Earlier rows are never changed."""
        with self.transaction() as conn:
            rows = self._settings_rows()
            if rows and rows[-1][1]["settings"] == settings.as_json():
                return False
            at = datetime.now(UTC).isoformat(timespec="seconds")
            record = {"settings": settings.as_json(), "recorded_by": by, "recorded_at": at}
            key = f"{SETTINGS_KEY}{rows[-1][0] + 1 if rows else 1}"
            conn.execute(
                "INSERT INTO workspace_meta (key, value) VALUES (?, ?)",
                (key, canonical_json(record)),
            )
        self.settings = settings
        return True

    def profile_registry(self) -> tuple[Profile, ...]:
        """Every profile a family of this workspace may be read through: the researcher's
        (`researcher_profiles`) first, then the shipped ones, the registry `measure` chose from."""
        from workbench.text.profiles import registry

        return registry(researcher_profiles(self.settings))

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; append-only trigger aborts become `AppendOnlyViolation`.
        Inside `batch()` it is a savepoint: undone alone on error, committed with the batch."""
        if self.read_only is not None:
            # Nobody may write the file: what only reads runs as it would, the first write is
            # refused with the reason (not SQLite's "attempt to write a readonly database").
            try:
                yield self._conn
            except sqlite3.OperationalError as exc:
                if "readonly" in str(exc):
                    raise refuse_writing(self.path, self.read_only) from exc
                raise
            return
        begin, done = "BEGIN IMMEDIATE", "COMMIT"
        undo: tuple[str, ...] = ("ROLLBACK",)
        if self._batched:
            begin, undo, done = "SAVEPOINT one", ("ROLLBACK TO one", "RELEASE one"), "RELEASE one"
        self._conn.execute(begin)
        try:
            yield self._conn
        except sqlite3.DatabaseError as exc:
            for statement in undo:
                self._conn.execute(statement)
            if "append-only" in str(exc):
                raise AppendOnlyViolation(f"{self.path}: {exc}") from exc
            raise
        except BaseException:
            for statement in undo:
                self._conn.execute(statement)
            raise
        else:
            self._conn.execute(done)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Many transactions committed as one (each a savepoint: one that fails is undone alone,
        as it would be on its own), so a caller writing many small ones pays one commit. Nothing
        is written if the batch itself fails."""
        if self._batched:
            yield
            return
        if self.read_only is not None:  # each transaction refuses its first write
            yield
            return
        self._conn.execute("BEGIN IMMEDIATE")
        self._batched = True
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        else:
            self._conn.execute("COMMIT")
        finally:
            self._batched = False

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run raw SQL in its own transaction (for tests and inspection); triggers still apply."""
        with self.transaction() as conn:
            return [tuple(row) for row in conn.execute(sql, params)]

    def read(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run one read-only query outside any write transaction (a listing never waits for a
        writer, nor holds one up)."""
        return [tuple(row) for row in self._conn.execute(sql, params)]

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
        """`read`, a row at a time: for a reader that keeps what it makes of each row, not the
        rows themselves (the query runs as the rows are taken; take them all before writing)."""
        for row in self._conn.execute(sql, params):
            yield tuple(row)

    def tables(self) -> frozenset[str]:
        """The names of the tables the workspace file holds (derived tables are made by the
        step that first writes them, so a reader asks before it reads one)."""
        return frozenset(
            n for (n,) in self.read("SELECT name FROM sqlite_master WHERE type = 'table'")
        )

    def held_extractors(self, version_id: str) -> tuple[str, frozenset[tuple[str, str]]] | None:
        """(artefact sha256, every (extractor, version) that made the held text or reproduced it
        since, by its origin record) of a held version, or None: the warm-run check (C4)."""
        row = self._conn.execute(
            "SELECT artefact_sha256, extractor, extractor_version FROM versions "
            "WHERE version_id = ?",
            (version_id,),
        ).fetchone()
        if row is None:
            return None
        since = self._conn.execute(
            "SELECT extractor, extractor_version FROM text_origins WHERE version_id = ?",
            (version_id,),
        )
        made = {(row["extractor"], row["extractor_version"])}
        made |= {(r["extractor"], r["extractor_version"]) for r in since}
        return row["artefact_sha256"], frozenset(made)

    def add_version(self, version: Version, provenance: dict[str, Any]) -> bool:
        """Hold `version`; True if written, False if the same bytes were already held.

        Raises CorpusChanged when the id is held with a different artefact hash or text hash.
        With origins (`version.origin`, a PDF's), they are recorded beside the row: with a new
        row, or, for a version already held whose text this extraction reproduces, once per
        extractor version (the row is left as it is).
        """
        with self.transaction() as conn:
            held = conn.execute(
                "SELECT artefact_sha256, text_sha256, extractor, extractor_version FROM versions WHERE version_id = ?",
                (version.version_id,),
            ).fetchone()
            if held is not None:
                artefact, text_hash = held["artefact_sha256"], held["text_sha256"]
                extractor, extractor_version = held["extractor"], held["extractor_version"]
                if artefact != version.artefact_sha256:
                    raise CorpusChanged(
                        f"{version.version_id}: held with artefact sha256 {artefact}; new bytes hash to "
                        f"{version.artefact_sha256}; a corrected document must be admitted as a new version"
                    )
                if text_hash != version.text_sha256:
                    raise CorpusChanged(
                        f"{version.version_id}: re-extraction by {version.extractor} {version.extractor_version} "
                        f"gives text sha256 {version.text_sha256}; held text ({extractor} {extractor_version}) "
                        f"has {text_hash}; the held text stays, so to hold the new reading, ingest into "
                        f"a new workspace"
                    )
                self._record_origin(conn, version)
                return False
            self._record_origin(conn, version)
            conn.execute(
                f"INSERT INTO versions ({_VERSION_COLUMNS}, provenance, ingested_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    version.version_id,
                    version.jurisdiction,
                    version.family,
                    version.version_order,
                    version.version_label,
                    version.media_type,
                    version.artefact_sha256,
                    version.artefact_bytes,
                    version.extractor,
                    version.extractor_version,
                    version.text_sha256,
                    version.text,
                    self._marks_json(version.structure),
                    _records_json(version.pages),
                    _records_json(version.furniture),
                    _records_json(version.unusable_pages),
                    canonical_json(provenance),
                    datetime.now(UTC).isoformat(timespec="seconds"),
                ),
            )
            return True

    def take_held(self, source: Workspace, version_ids: Sequence[str]) -> tuple[str, ...]:
        """Hold the versions `source` holds under `version_ids`, in that order, as it holds them
        (rows, provenance, time of ingest and origin records copied; nothing extracted), and
        return the ids taken: `ingest` of their rows then leaves them as held (C4). An id held
        here already, or not by `source`, is left out; `WorkspaceError` if the schemas differ."""
        if source.schema != self.schema:
            raise WorkspaceError(
                f"{source.path}: workspace schema {source.schema}; {self.path} is schema "
                f"{self.schema}: versions are taken only between workspaces of one schema"
            )
        held, taken = set(self.version_ids()), []
        with self.transaction() as conn:
            for version_id in dict.fromkeys(version_ids):
                found = [source.read(_TAKE.format(t), (version_id,)) for t in _TAKEN]
                if version_id in held or not found[0]:
                    continue
                for table, rows in zip(_TAKEN, found, strict=True):
                    for row in rows:
                        marks = ", ".join("?" * len(row))
                        conn.execute(f"INSERT INTO {table} VALUES ({marks})", row)
                taken.append(version_id)
        return tuple(taken)

    @staticmethod
    def _record_origin(conn: sqlite3.Connection, version: Version) -> None:
        if version.origin is None or version.media_type != PDF_MEDIA_TYPE:
            return
        conn.execute(
            "INSERT OR IGNORE INTO text_origins (version_id, extractor, extractor_version, "
            "text_sha256, origin, recorded_at) VALUES (?, ?, ?, ?, ?, ?)",
            (
                version.version_id,
                version.extractor,
                version.extractor_version,
                version.text_sha256,
                canonical_json(version.origin.as_json()),
                datetime.now(UTC).isoformat(timespec="seconds"),
            ),
        )

    def origin_lines(self, family: tuple[str, str] | None = None) -> dict[str, str]:
        """Every origin record of each version (of the (jurisdiction, family) `family` names,
        when given) as one line: extractor, version and text hash of each, in a fixed order.
        What a key over a version's origins is made from (the stored review queue's and the
        stored reconciliation's), read without the texts."""
        where = ""
        params: tuple[str, ...] = ()
        if family is not None:
            where = (
                " WHERE version_id IN (SELECT version_id FROM versions"
                " WHERE jurisdiction = ? AND family = ?)"
            )
            params = family
        lines: dict[str, str] = {}
        for version_id, extractor, extractor_version, text_sha256 in self.read(
            "SELECT version_id, extractor, extractor_version, text_sha256 FROM text_origins"
            f"{where} ORDER BY version_id, extractor, extractor_version",
            params,
        ):
            line = f"{lines.get(version_id, '')} {extractor} {extractor_version} {text_sha256}"
            lines[version_id] = line
        return lines

    def origins(self, version_ids: Sequence[str] | None) -> dict[str, TextOrigins]:
        """The newest origin record of each version (of `version_ids`, or of all); an earlier
        record of a version is read, never decoded."""
        where = (
            ""
            if version_ids is None
            else f"WHERE version_id IN ({','.join('?' * len(version_ids))})"
        )
        rows = self._conn.execute(
            f"SELECT version_id, origin FROM text_origins {where} ORDER BY recorded_at, rowid",
            tuple(version_ids or ()),
        )
        newest = {r["version_id"]: r["origin"] for r in rows}  # the last recorded stands
        return {version_id: origins_from_json(json.loads(o)) for version_id, o in newest.items()}

    @staticmethod
    def _with_origin(version: Version, origins: dict[str, TextOrigins]) -> Version:
        """The version with its recorded origins (plain text, Markdown and XML: all `glyphs`)."""
        origin = origins.get(version.version_id)
        if origin is None and version.media_type != PDF_MEDIA_TYPE:
            origin = TextOrigins.whole(len(version.text))
        return version if origin is None else replace(version, origin=origin)

    def _marks_json(self, marks: Sequence[StructureMark]) -> str:
        """A version's marks in the layout of the workspace's schema (`marks_json`, or each
        mark's `as_json` in a schema 2 workspace)."""
        if self.schema == EARLIER_SCHEMA:
            return _records_json(marks)
        return canonical_json(marks_json(marks))

    def _marks(self, stored: str) -> tuple[StructureMark, ...]:
        """The marks `_marks_json` stored."""
        if self.schema == EARLIER_SCHEMA:
            return tuple(map(StructureMark.from_json, json.loads(stored)))
        return marks_from_json(json.loads(stored))

    def _version(self, row: sqlite3.Row) -> Version:
        return Version(
            version_id=row["version_id"],
            jurisdiction=row["jurisdiction"],
            family=row["family"],
            version_order=row["version_order"],
            version_label=row["version_label"],
            media_type=row["media_type"],
            artefact_sha256=row["artefact_sha256"],
            artefact_bytes=row["artefact_bytes"],
            extractor=row["extractor"],
            extractor_version=row["extractor_version"],
            text_sha256=row["text_sha256"],
            text=row["text"],
            structure=self._marks(row["structure"]),
            pages=tuple(map(PageSpan.from_json, json.loads(row["pages"]))),
            furniture=tuple(map(Furniture.from_json, json.loads(row["furniture"]))),
            unusable_pages=tuple(map(UnusablePage.from_json, json.loads(row["unusable_pages"]))),
        )

    def version(self, version_id: str) -> Version:
        """The held version; VersionNotFound if no such id is held."""
        row = self._conn.execute(
            f"SELECT {_VERSION_COLUMNS} FROM versions WHERE version_id = ?", (version_id,)
        ).fetchone()
        if row is None:
            raise self._not_found(version_id)
        return self._with_origin(self._version(row), self.origins([version_id]))

    def _not_found(self, version_id: str) -> VersionNotFound:
        return VersionNotFound(
            f"{version_id}: no such version in {self.path}; see 'workbench ingest'"
        )

    def page_map(self, version_id: str) -> tuple[PageSpan, ...]:
        """The held version's PDF page map (empty for other formats), read without its text.
        VersionNotFound if no such id is held."""
        row = self._conn.execute(
            "SELECT pages FROM versions WHERE version_id = ?", (version_id,)
        ).fetchone()
        if row is None:
            raise self._not_found(version_id)
        return tuple(map(PageSpan.from_json, json.loads(row["pages"])))

    def text_origins(self, version_id: str) -> TextOrigins | None:
        """The held version's newest origin record (C18), without the rest of the record: what the
        verifier reads to caveat a quote of machine-read text. None where none is recorded (every
        plain-text, Markdown and XML version: all `glyphs`; a PDF held before origins were)."""
        return self.origins([version_id]).get(version_id)

    def text_bytes(self, version_id: str) -> tuple[bytes, str]:
        """The held version's text as stored (its UTF-8 bytes, not decoded) and its recorded
        `text_sha256`, without the rest of the record: the verifier hashes the bytes and decodes
        them only when it has no index of them yet. VersionNotFound if no such id is held."""
        row = self._conn.execute(
            "SELECT CAST(text AS BLOB) AS text, text_sha256 FROM versions WHERE version_id = ?",
            (version_id,),
        ).fetchone()
        if row is None:
            raise self._not_found(version_id)
        return row["text"], row["text_sha256"]

    def versions(self, family: str | None = None) -> tuple[Version, ...]:
        """Held versions ordered by jurisdiction, family, version_order; FamilyNotFound if none match."""
        where, params = ("WHERE family = ?", (family,)) if family is not None else ("", ())
        rows = self._conn.execute(
            f"SELECT {_VERSION_COLUMNS} FROM versions {where} ORDER BY jurisdiction, family, version_order",
            params,
        ).fetchall()
        if family is not None and not rows:
            raise FamilyNotFound(f"{family}: no such family in {self.path}")
        origins = self.origins([r["version_id"] for r in rows] if family is not None else None)
        return tuple(self._with_origin(self._version(r), origins) for r in rows)

    def version_texts(self, family: str) -> tuple[VersionText, ...]:
        """The family's held versions as `VersionText` (identity, text, page map; no structure,
        furniture, unusable pages or origins decoded), in the order of `versions`;
        FamilyNotFound if none is held."""
        from workbench.models import VersionText  # the diff's view, loaded by the diff alone

        # every field but the page map (decoded apart) read as a column; not the structure,
        # furniture or unusable pages, most of a long version's row
        columns = tuple(f.name for f in fields(VersionText) if f.name != "pages")
        rows = self._conn.execute(
            f"SELECT {', '.join(columns)}, pages FROM versions WHERE family = ? "
            "ORDER BY jurisdiction, family, version_order",
            (family,),
        ).fetchall()
        if not rows:
            raise FamilyNotFound(f"{family}: no such family in {self.path}")
        return tuple(
            VersionText(
                **{name: row[name] for name in columns},
                pages=tuple(map(PageSpan.from_json, json.loads(row["pages"]))),
            )
            for row in rows
        )

    def version_ids(self) -> tuple[str, ...]:
        rows = self._conn.execute("SELECT version_id FROM versions ORDER BY version_id")
        return tuple(row["version_id"] for row in rows)

    def filing_dates(self) -> dict[str, str | None]:
        """Each held version's `filing_date` as its provenance gives it (None where it has none)."""
        out: dict[str, str | None] = {}
        for version_id, value, kind in self._conn.execute(  # SQLite reads the one field
            "SELECT version_id, json_extract(provenance, '$.filing_date'), "
            "json_type(provenance, '$.filing_date') FROM versions ORDER BY version_id"
        ):
            out[version_id] = value if kind == "text" else None
        return out

    def count(self) -> int:
        row = self._conn.execute("SELECT COUNT(*) AS held FROM versions").fetchone()
        return int(row["held"])


def researcher_profiles(settings: CorpusSettings) -> tuple[Profile, ...]:
    """The profiles in `settings.profile_folders()`, folder by folder in that order; a folder that
    is gone is a `ProfileError` naming it."""
    from workbench.text.profiles import read_profile_dir

    return tuple(p for folder in settings.profile_folders() for p in read_profile_dir(folder))
