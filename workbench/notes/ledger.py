"""The run ledger (C2, C9): one row per check of a note, in an SQLite file apart from the notes,
append-only by triggers in the file itself, with CHECK constraints holding each outcome to its
meaning."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from workbench.errors import LedgerError
from workbench.models import canonical_json

Outcome = Literal["confirmed", "missing", "checksum_mismatch", "no_quotes"]

_LEDGER_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run INTEGER PRIMARY KEY AUTOINCREMENT,
    note TEXT NOT NULL,
    quotes_sha256 TEXT NOT NULL,
    document TEXT NOT NULL,
    document_sha256 TEXT NOT NULL,
    text_sha256 TEXT,
    extractor TEXT,
    quotes TEXT NOT NULL,
    quote_count INTEGER NOT NULL,
    missing_count INTEGER NOT NULL,
    outcome TEXT NOT NULL
        CHECK (outcome IN ('confirmed', 'missing', 'checksum_mismatch', 'no_quotes')),
    checked_at TEXT NOT NULL,
    checker_pid INTEGER NOT NULL,
    checker_executable TEXT NOT NULL,
    workbench_version TEXT NOT NULL,
    checker_sha256 TEXT NOT NULL,
    CHECK (quote_count = json_array_length(quotes)),
    CHECK (outcome != 'confirmed' OR (quote_count > 0 AND missing_count = 0))
);
CREATE INDEX IF NOT EXISTS runs_by_note ON runs (note);
CREATE TRIGGER IF NOT EXISTS runs_no_update BEFORE UPDATE ON runs
BEGIN SELECT RAISE(ABORT, 'the run ledger is append-only'); END;
CREATE TRIGGER IF NOT EXISTS runs_no_delete BEFORE DELETE ON runs
BEGIN SELECT RAISE(ABORT, 'the run ledger is append-only'); END;
"""


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """One ledger row: which note (and the hash of its quotes), which file and its hash, which
    quotes with what status, the outcome, when (UTC), and the checking process's identity."""

    run: int
    note: str
    quotes_sha256: str
    document: str
    document_sha256: str
    text_sha256: str | None
    extractor: str | None
    quotes: tuple[Mapping[str, Any], ...]
    outcome: Outcome
    checked_at: str
    checker_pid: int
    checker_executable: str
    workbench_version: str
    checker_sha256: str

    @property
    def missing(self) -> tuple[Mapping[str, Any], ...]:
        return tuple(q for q in self.quotes if q["status"] != "found")

    def as_json(self) -> dict[str, Any]:
        """What `workbench runs --json` prints for the row: every field, by name."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


class Ledger:
    """The run ledger: an SQLite file apart from the notes, append-only by its own triggers."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(path, timeout=30.0, isolation_level=None)
            # One transaction: a new ledger is made with one journalled commit, not six.
            self._conn.executescript(f"BEGIN;\n{_LEDGER_SCHEMA}\nCOMMIT;")
        except sqlite3.DatabaseError as exc:
            raise LedgerError(f"{path}: not a workbench run ledger ({exc})") from exc

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._conn.close()

    def append(self, note: str, result: Mapping[str, Any], checked_at: str) -> Run:
        checker = result["checker"]
        quotes = list(result["quotes"])
        cursor = self._conn.execute(
            "INSERT INTO runs (note, quotes_sha256, document, document_sha256, text_sha256, "
            "extractor, quotes, quote_count, missing_count, outcome, checked_at, checker_pid, "
            "checker_executable, workbench_version, checker_sha256) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                note,
                result["quotes_sha256"],
                result["document"],
                result["document_sha256"],
                result["text_sha256"],
                result["extractor"],
                canonical_json(quotes),
                len(quotes),
                sum(q["status"] != "found" for q in quotes),
                result["outcome"],
                checked_at,
                checker["pid"],
                checker["executable"],
                checker["workbench_version"],
                checker["checker_sha256"],
            ),
        )
        return self.runs(run=cursor.lastrowid)[0]

    def runs(self, note: str | None = None, *, run: int | None = None) -> tuple[Run, ...]:
        """Rows in run order, all or one note's (by `note_key`) or one run's."""
        sql, params = "SELECT * FROM runs", ()  # type: tuple[str, tuple[Any, ...]]
        if note is not None:
            sql, params = sql + " WHERE note = ?", (note,)
        elif run is not None:
            sql, params = sql + " WHERE run = ?", (run,)
        cursor = self._conn.execute(sql + " ORDER BY run", params)
        names = [d[0] for d in cursor.description]
        out = []
        for values in cursor.fetchall():
            row = dict(zip(names, values, strict=True))
            row["quotes"] = tuple(json.loads(row["quotes"]))
            del row["quote_count"], row["missing_count"]
            out.append(Run(**row))
        return tuple(out)
