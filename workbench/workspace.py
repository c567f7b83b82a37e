"""The workspace: an embedded SQLite file of immutable versions, and ingest into it.

A version row holds the extracted text that every offset indexes, the artefact's SHA-256 and byte
count, the extractor's name and version, the text's SHA-256, the structure the extractor carried
through, for a PDF its page map, the page furniture taken out of the body and the pages with no
usable text, and the provenance it was admitted with. The table is append-only, enforced by triggers
that abort any UPDATE or DELETE, so no caller (not even raw SQL through this connection) can move a
held version. Re-ingesting a version id with identical bytes writes nothing; with different bytes,
or bytes whose re-extraction gives a different text hash, it raises `CorpusChanged` and leaves the
held row as it was.

A PDF's text origins (C18) are a side record, `text_origins`, one append-only row per version and
extractor version that made its text, or reproduced it exactly when extracting a version held
under an older one (row, text and offsets stay; the version then counts as held under the newer
version). A version read back carries its newest record's origins (None for a PDF with none; plain
text, Markdown and XML are `glyphs` throughout).

The workspace runs in WAL mode with a busy timeout so that two processes (two notebook kernels) can
read and append at once.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.corpus import read_fetched
from workbench.errors import (
    AppendOnlyViolation,
    ChecksumMismatch,
    CorpusChanged,
    ExtractionError,
    FamilyNotFound,
    FetchError,
    TextDecodeError,
    UnsafePath,
    VersionNotFound,
    WorkspaceError,
)
from workbench.models import (
    CatalogueRow,
    Furniture,
    PageSpan,
    Refusal,
    StructureMark,
    TextOrigins,
    UnusablePage,
    Version,
    canonical_json,
    origins_from_json,
    text_sha256,
)
from workbench.progress import bar

if TYPE_CHECKING:
    from workbench.text.ocr import OcrOptions

SCHEMA_VERSION = "2"
PDF_MEDIA_TYPE = "application/pdf"

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
    """A version's structure, page map, furniture or unusable pages as stored: the canonical JSON of
    each record's own shape (`as_json`, beside the record in models)."""
    return canonical_json([r.as_json() for r in records])


class Workspace:
    """An open workspace file. Use as a context manager, or call `close()`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(path, timeout=30.0, isolation_level=None)
            self._conn.row_factory = sqlite3.Row  # rows are read by column name
            self._conn.execute("PRAGMA busy_timeout = 30000")
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
        if held != SCHEMA_VERSION:
            raise WorkspaceError(
                f"{path}: workspace schema {held}; this workbench reads schema {SCHEMA_VERSION}"
            )

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; append-only trigger aborts become `AppendOnlyViolation`."""
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
        except sqlite3.DatabaseError as exc:
            self._conn.execute("ROLLBACK")
            if "append-only" in str(exc):
                raise AppendOnlyViolation(f"{self.path}: {exc}") from exc
            raise
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        else:
            self._conn.execute("COMMIT")

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run raw SQL in its own transaction (for tests and inspection); triggers still apply."""
        with self.transaction() as conn:
            return [tuple(row) for row in conn.execute(sql, params)]

    def read(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run one read-only query outside any write transaction (a listing never waits for a
        writer, nor holds one up)."""
        return [tuple(row) for row in self._conn.execute(sql, params)]

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
                    _records_json(version.structure),
                    _records_json(version.pages),
                    _records_json(version.furniture),
                    _records_json(version.unusable_pages),
                    canonical_json(provenance),
                    datetime.now(UTC).isoformat(timespec="seconds"),
                ),
            )
            return True

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

    def origins(self, version_ids: Sequence[str] | None) -> dict[str, TextOrigins]:
        """The newest origin record of each version (of `version_ids`, or of all)."""
        where = (
            ""
            if version_ids is None
            else f"WHERE version_id IN ({','.join('?' * len(version_ids))})"
        )
        rows = self._conn.execute(
            f"SELECT version_id, origin FROM text_origins {where} ORDER BY recorded_at, rowid",
            tuple(version_ids or ()),
        )
        return {r["version_id"]: origins_from_json(json.loads(r["origin"])) for r in rows}

    @staticmethod
    def _with_origin(version: Version, origins: dict[str, TextOrigins]) -> Version:
        """The version with its recorded origins (plain text, Markdown and XML: all `glyphs`)."""
        origin = origins.get(version.version_id)
        if origin is None and version.media_type != PDF_MEDIA_TYPE:
            origin = TextOrigins.whole(len(version.text))
        return version if origin is None else replace(version, origin=origin)

    @staticmethod
    def _version(row: sqlite3.Row) -> Version:
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
            structure=tuple(map(StructureMark.from_json, json.loads(row["structure"]))),
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

    def version_ids(self) -> tuple[str, ...]:
        rows = self._conn.execute("SELECT version_id FROM versions ORDER BY version_id")
        return tuple(row["version_id"] for row in rows)

    def filing_dates(self) -> dict[str, str | None]:
        """Each held version's `filing_date` as its provenance gives it (None where it has none)."""
        out: dict[str, str | None] = {}
        for row in self._conn.execute(
            "SELECT version_id, provenance FROM versions ORDER BY version_id"
        ):
            value = json.loads(row["provenance"]).get("filing_date")
            out[row["version_id"]] = value if isinstance(value, str) else None
        return out

    def count(self) -> int:
        row = self._conn.execute("SELECT COUNT(*) AS held FROM versions").fetchone()
        return int(row["held"])


def version_from_row(row: CatalogueRow, data: bytes, *, ocr: OcrOptions | None = None) -> Version:
    """Extract a catalogued artefact's bytes into a `Version` (not yet held); a scanned PDF page
    is read by OCR in the provenance's `language` with `ocr`'s cache and engine (default: no
    cache, the engine installed)."""
    from workbench.text.extraction import (
        extract,  # lxml and pypdfium2 load only when a file is read
    )

    named = row.provenance.get("language")
    language = named if isinstance(named, str) else None
    extraction = extract(data, row.media_type, source=row.path, language=language, ocr=ocr)
    return Version(
        version_id=row.path,
        jurisdiction=row.jurisdiction,
        family=row.family,
        version_order=row.version_order,
        version_label=row.version_label,
        media_type=row.media_type,
        artefact_sha256=row.sha256,
        artefact_bytes=row.size,
        extractor=extraction.extractor,
        extractor_version=extraction.extractor_version,
        text_sha256=text_sha256(extraction.text),
        text=extraction.text,
        structure=extraction.structure,
        pages=extraction.pages,
        furniture=extraction.furniture,
        unusable_pages=extraction.unusable_pages,
        origin=extraction.origin or TextOrigins.whole(len(extraction.text)),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class IngestReport:
    added: tuple[str, ...]
    unchanged: tuple[str, ...]
    awaiting: tuple[str, ...]  # artefacts with no extractor yet: counted, not an error (none now)
    refused: tuple[Refusal, ...]


def ingest(
    workspace: Workspace,
    rows: Iterable[CatalogueRow],
    store: Path,
    *,
    progress: bool = False,
    reextract: bool = False,
    ocr_cache: Path | None = None,
) -> IngestReport:
    """Extract and hold every catalogued version; idempotent. Each row's bytes are hash-checked first.

    A version already held under the row's artefact SHA-256, by an extractor whose version is still
    the current one (`extract.CURRENT_EXTRACTORS`), or whose text that version has reproduced (its
    origin record), is not extracted again (C4): extraction is a pure function of the bytes and
    the extractor's version, so it would give the held text. With `reextract`, every version is
    extracted again and its text hash checked against the held one (a difference is refused as
    `corpus_changed`, the held version untouched). Scanned PDF pages are read by OCR, cached in
    `ocr_cache` (default: `ocr.default_cache` for this workspace file).
    """
    added: list[str] = []
    unchanged: list[str] = []
    awaiting: list[str] = []
    refused: list[Refusal] = []
    from workbench.text.extraction import CURRENT_EXTRACTORS, AwaitingExtractor
    from workbench.text.ocr import OcrOptions, default_cache

    options = OcrOptions(cache=ocr_cache or default_cache(workspace.path))
    rows = list(rows)
    for row in bar(rows, desc="ingest", unit="file", enabled=progress):
        try:
            data = read_fetched(row, store)
        except FileNotFoundError:
            refused.append(
                Refusal(
                    path=row.path,
                    reason="missing",
                    detail=f"not held in {store}; run 'workbench corpus fetch'",
                )
            )
            continue
        except (ChecksumMismatch, UnsafePath, FetchError) as exc:
            refused.append(Refusal(path=row.path, reason="sha256_mismatch", detail=str(exc)))
            continue
        held = None if reextract else workspace.held_extractors(row.path)
        if (
            held is not None
            and held[0] == row.sha256
            and any(CURRENT_EXTRACTORS.get(name) == made for name, made in held[1])
        ):
            unchanged.append(row.path)
            continue
        try:
            version = version_from_row(row, data, ocr=options)
        except AwaitingExtractor:
            awaiting.append(row.path)
            continue
        except (ExtractionError, TextDecodeError) as exc:
            refused.append(Refusal(path=row.path, reason="extraction_failed", detail=str(exc)))
            continue
        try:
            (added if workspace.add_version(version, dict(row.provenance)) else unchanged).append(
                row.path
            )
        except CorpusChanged as exc:
            refused.append(Refusal(path=row.path, reason="corpus_changed", detail=str(exc)))
    return IngestReport(
        added=tuple(added),
        unchanged=tuple(unchanged),
        awaiting=tuple(awaiting),
        refused=tuple(refused),
    )


# The listings' queries: each answered from an index of the versions table (`versions_listing`
# covers `families`; `versions_by_family` finds a family's rows), never a scan of every text.
LISTING_SQL = {
    "families": "SELECT jurisdiction, family, COUNT(*), group_concat(DISTINCT media_type) "
    "FROM versions GROUP BY jurisdiction, family ORDER BY jurisdiction, family",
    "versions": "SELECT version_id, version_label, version_order, json_extract(provenance, "
    "'$.filing_date'), media_type, json_array_length(pages), text FROM versions "
    "WHERE family = ? ORDER BY version_order, jurisdiction",
}


def family_listing(workspace: Workspace) -> list[dict[str, Any]]:
    """One row per held family, sorted by jurisdiction then family: what `workbench families`
    prints. Read from an index of the versions table alone (no text is read)."""
    rows = workspace.read(LISTING_SQL["families"])
    return [
        {
            "jurisdiction": jurisdiction,
            "family": family,
            "versions": count,
            "formats": sorted(formats.split(",")),
        }
        for jurisdiction, family, count, formats in rows
    ]


def version_listing(workspace: Workspace, family: str) -> list[dict[str, Any]]:
    """One row per held version of a family, in version order: what `workbench versions` prints
    (its date is the provenance's `filing_date`, None where it has none). `origin` counts the
    text's non-white-space characters per origin (C18; None for a PDF held before origins were
    recorded). Read from the versions table's family index and the family's origin records;
    FamilyNotFound if no version of that family is held."""
    rows = workspace.read(LISTING_SQL["versions"], (family,))
    if not rows:
        raise FamilyNotFound(f"{family}: no such family in {workspace.path}")
    origins = workspace.origins([row[0] for row in rows])

    def origin(version_id: str, media_type: str, text: str) -> dict[str, int] | None:
        held = origins.get(version_id)
        if held is None and media_type != PDF_MEDIA_TYPE:
            held = TextOrigins.whole(len(text))
        return None if held is None else held.characters(text)

    return [
        {
            "version_id": version_id,
            "label": label,
            "order": order,
            "date": date if isinstance(date, str) else None,
            "format": media_type,
            "pages": pages or None,
            "text_length": len(text),
            "origin": origin(version_id, media_type, text),
        }
        for version_id, label, order, date, media_type, pages, text in rows
    ]
