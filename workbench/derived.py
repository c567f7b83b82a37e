"""Derived state (C13): the one key rule (`derived_key`), the one invalidation rule (what was kept
is taken only under the key computed now) and the watermark a kept view records (`DerivedState`)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from workbench.models import content_id

TABLE = "derived_state"
_SCHEMA = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (kind TEXT NOT NULL, name TEXT NOT NULL, "
    "key TEXT NOT NULL, watermark INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (kind, name))"
)


def derived_key(kind: str, inputs: Any, code: str) -> str:
    """The key of a piece of derived state: SHA-256 of the canonical JSON of its kind, the
    digests of its inputs (any JSON value: a list keeps its order, a dict is sorted by key)
    and the digest of the code that derives it. Equal keys mean equal derived state; this is
    the only place a derived table's key is made."""
    return content_id({"kind": kind, "inputs": inputs, "code": code})


@dataclass(frozen=True, slots=True, kw_only=True)
class Kept:
    """What a view recorded when it was last brought up to date: its key, the watermark (the
    last version row it consumed) and a JSON value of its own (e.g. its outputs' SHA-256)."""

    key: str
    watermark: int
    value: Any


class Held(Protocol):
    """What `DerivedState` asks of a workspace (`workspace.Workspace`)."""

    def read(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]: ...

    def tables(self) -> frozenset[str]: ...

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]: ...


class DerivedState:
    """The keys of the views kept in a workspace (`derived_state` table)."""

    def __init__(self, workspace: Held) -> None:
        self.workspace = workspace

    def kept(self, kind: str, name: str) -> Kept | None:
        """What was recorded for the view (kind, name), or None."""
        if TABLE not in self.workspace.tables():
            return None
        rows = self.workspace.read(
            f"SELECT key, watermark, value FROM {TABLE} WHERE kind = ? AND name = ?", (kind, name)
        )
        if not rows:
            return None
        key, watermark, value = rows[0]
        return Kept(key=key, watermark=watermark, value=json.loads(value))

    def holds(self, kind: str, name: str, key: str) -> Kept | None:
        """The view's record when it may be taken as it is: recorded under `key` with no version
        admitted since its watermark (the one invalidation rule); else None."""
        kept = self.kept(kind, name)
        if kept is None or kept.key != key or self.admitted_since(kept.watermark):
            return None
        return kept

    def keep(self, kind: str, name: str, key: str, value: Any = None) -> None:
        """Record that the view (kind, name) is up to date under `key`, at today's watermark."""
        with self.workspace.transaction() as conn:
            conn.execute(_SCHEMA)
            conn.execute(
                f"INSERT OR REPLACE INTO {TABLE} VALUES (?, ?, ?, ?, ?)",
                (kind, name, key, self.watermark(), json.dumps(value, sort_keys=True)),
            )

    def watermark(self) -> int:
        """The last version row held (0 when none): versions are appended, never changed."""
        return int(self.workspace.read("SELECT coalesce(max(rowid), 0) FROM versions")[0][0])

    def admitted_since(self, watermark: int) -> tuple[str, ...]:
        """The ids of the versions held after `watermark`, in the order they were added."""
        rows = self.workspace.read(
            "SELECT version_id FROM versions WHERE rowid > ? ORDER BY rowid", (watermark,)
        )
        return tuple(version_id for (version_id,) in rows)


def digests(named: Mapping[str, bytes]) -> dict[str, str]:
    """SHA-256 of each named input's bytes, by name."""
    return {name: hashlib.sha256(data).hexdigest() for name, data in sorted(named.items())}


def outputs_of(out: Path, names: Sequence[str]) -> dict[str, str]:
    """The SHA-256 of each named file in `out` (a path relative to it), by name: what a kept
    view's files must still hold for the view to be taken as it is."""
    return digests({name: (out / name).read_bytes() for name in names})


def outputs_hold(out: Path, kept: Mapping[str, str]) -> bool:
    """True when every file `kept` names is in `out` with the bytes it had."""
    try:
        return outputs_of(out, list(kept)) == dict(kept)
    except OSError:
        return False
