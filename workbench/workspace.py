"""The workspace: an embedded SQLite file of immutable versions, and ingest into it.

A version row holds the extracted text that every offset indexes, the artefact's SHA-256 and byte
count, the extractor's name and version, the text's SHA-256, the structure the extractor carried
through, for a PDF its page map, the page furniture taken out of the body and the pages with no
usable text, and the provenance it was admitted with. The table is append-only, enforced by triggers
that abort any UPDATE or DELETE, so no caller (not even raw SQL through this connection) can move a
held version. Re-ingesting a version id with identical bytes writes nothing; with different bytes,
or bytes whose re-extraction gives a different text hash, it raises `CorpusChanged` and leaves the
held row as it was.

The workspace runs in WAL mode with a busy timeout so that two processes (two notebook kernels) can
read and append at once.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

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
    UnusablePage,
    Version,
    canonical_json,
    text_sha256,
)
from workbench.progress import bar

SCHEMA_VERSION = "2"

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


def _structure_json(marks: Iterable[StructureMark]) -> str:
    return canonical_json(
        [
            {
                "label": m.label,
                "value": m.value,
                "char_start": m.char_start,
                "char_end": m.char_end,
                "path": list(m.path),
            }
            for m in marks
        ]
    )


def _structure_from_json(data: str) -> tuple[StructureMark, ...]:
    return tuple(
        StructureMark(
            label=m["label"],
            value=m["value"],
            char_start=m["char_start"],
            char_end=m["char_end"],
            path=tuple(m["path"]),
        )
        for m in json.loads(data)
    )


def _pages_json(pages: Iterable[PageSpan]) -> str:
    return canonical_json([[p.page, p.char_start, p.char_end] for p in pages])


def _pages_from_json(data: str) -> tuple[PageSpan, ...]:
    return tuple(PageSpan(page=p, char_start=s, char_end=e) for p, s, e in json.loads(data))


def _furniture_json(lines: Iterable[Furniture]) -> str:
    return canonical_json(
        [
            {
                "page": f.page,
                "text": f.text,
                "position": f.position,
                "box": [f.x0, f.y0, f.x1, f.y1],
            }
            for f in lines
        ]
    )


def _furniture_from_json(data: str) -> tuple[Furniture, ...]:
    return tuple(
        Furniture(
            page=f["page"],
            text=f["text"],
            position=f["position"],
            x0=f["box"][0],
            y0=f["box"][1],
            x1=f["box"][2],
            y1=f["box"][3],
        )
        for f in json.loads(data)
    )


def _unusable_json(pages: Iterable[UnusablePage]) -> str:
    return canonical_json([{"page": u.page, "reason": u.reason, "detail": u.detail} for u in pages])


def _unusable_from_json(data: str) -> tuple[UnusablePage, ...]:
    return tuple(
        UnusablePage(page=u["page"], reason=u["reason"], detail=u["detail"])
        for u in json.loads(data)
    )


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

    def held_extraction(self, version_id: str) -> tuple[str, str, str] | None:
        """(artefact sha256, extractor, extractor version) of a held version, or None."""
        with self.transaction() as conn:
            row = conn.execute(
                "SELECT artefact_sha256, extractor, extractor_version FROM versions "
                "WHERE version_id = ?",
                (version_id,),
            ).fetchone()
        if row is None:
            return None
        return row["artefact_sha256"], row["extractor"], row["extractor_version"]

    def add_version(self, version: Version, provenance: dict[str, Any]) -> bool:
        """Hold `version`; True if written, False if the same bytes were already held.

        Raises CorpusChanged when the id is held with a different artefact hash or text hash.
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
                        f"has {text_hash}"
                    )
                return False
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
                    _structure_json(version.structure),
                    _pages_json(version.pages),
                    _furniture_json(version.furniture),
                    _unusable_json(version.unusable_pages),
                    canonical_json(provenance),
                    datetime.now(UTC).isoformat(timespec="seconds"),
                ),
            )
            return True

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
            structure=_structure_from_json(row["structure"]),
            pages=_pages_from_json(row["pages"]),
            furniture=_furniture_from_json(row["furniture"]),
            unusable_pages=_unusable_from_json(row["unusable_pages"]),
        )

    def version(self, version_id: str) -> Version:
        """The held version; VersionNotFound if no such id is held."""
        row = self._conn.execute(
            f"SELECT {_VERSION_COLUMNS} FROM versions WHERE version_id = ?", (version_id,)
        ).fetchone()
        if row is None:
            raise self._not_found(version_id)
        return self._version(row)

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
        return _pages_from_json(row["pages"])

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
        return tuple(self._version(r) for r in rows)

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


def version_from_row(row: CatalogueRow, data: bytes) -> Version:
    """Extract a catalogued artefact's bytes into a `Version` (not yet held)."""
    # lxml and pypdfium2 load only when a file is read
    from workbench.text.extraction import extract

    extraction = extract(data, row.media_type, source=row.path)
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
) -> IngestReport:
    """Extract and hold every catalogued version; idempotent. Each row's bytes are hash-checked first.

    A version already held under the row's artefact SHA-256, by an extractor whose version is still
    the current one (`extract.CURRENT_EXTRACTORS`), is not extracted again (C4): extraction is a
    pure function of the bytes and the extractor's version, so it would give the held text. With
    `reextract`, every version is extracted again and its text hash checked against the held one
    (a difference is refused as `corpus_changed`, the held version untouched).
    """
    added: list[str] = []
    unchanged: list[str] = []
    awaiting: list[str] = []
    refused: list[Refusal] = []
    from workbench.text.extraction import CURRENT_EXTRACTORS, AwaitingExtractor

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
        held = None if reextract else workspace.held_extraction(row.path)
        if (
            held is not None
            and held[0] == row.sha256
            and CURRENT_EXTRACTORS.get(held[1]) == held[2]
        ):
            unchanged.append(row.path)
            continue
        try:
            version = version_from_row(row, data)
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


def family_listing(workspace: Workspace) -> list[dict[str, Any]]:
    """One row per held family, sorted by jurisdiction then family: what `workbench families`
    prints. Read from an index of the versions table alone (no text is read)."""
    rows = workspace.read(
        "SELECT jurisdiction, family, COUNT(*), group_concat(DISTINCT media_type) FROM versions "
        "GROUP BY jurisdiction, family ORDER BY jurisdiction, family"
    )
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
    (its date is the provenance's `filing_date`, None where it has none). FamilyNotFound if no
    version of that family is held."""
    rows = workspace.read(
        "SELECT version_id, version_label, version_order, json_extract(provenance, "
        "'$.filing_date'), media_type, json_array_length(pages), text FROM versions "
        "WHERE family = ? ORDER BY version_order, jurisdiction",
        (family,),
    )
    if not rows:
        raise FamilyNotFound(f"{family}: no such family in {workspace.path}")
    return [
        {
            "version_id": version_id,
            "label": label,
            "order": order,
            "date": date if isinstance(date, str) else None,
            "format": media_type,
            "pages": pages or None,
            "text_length": len(text),
        }
        for version_id, label, order, date, media_type, pages, text in rows
    ]
