"""Derived state (C13): the one key rule (`derived_key`), the code digest every key names
(`code_digest`), the one invalidation rule (what was kept is taken only under the key computed
now, so `keep_row` drops a row's other keys) and the watermark a kept view records
(`DerivedState`). docs/design.md says how the code digest is kept between runs."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sqlite3
import sys
import time
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from workbench.files import replace_file
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


CODE_SUFFIXES = (".py", ".toml", ".html")  # the package's Python, TOML data and HTML templates
KEPT_DIGEST = "code-digest.json"  # beside the package's bytecode (`kept_digest_path`)
# A source changed this close (in nanoseconds) before its stat was read might change again without
# moving its stamp (a file system's timestamps are coarse: FAT's 2 s); such a digest is not kept.
RACY_NS = 2_000_000_000


@functools.cache
def code_digest() -> str:
    """SHA-256 over the package's sources (`CODE_SUFFIXES`; sorted paths, bytes): the code every
    derived key names (`source_digest` of the package, kept beside its bytecode).

    It travels with every measuring task (`measure/tasks.py`), so a worker with other code refuses
    the task, and it names the code a note check ran (the ledger's `checker_sha256`). Computed
    once per process, at first use, so it describes the code the process loaded, not a file
    edited later on disk; `code_digest.cache_clear()` forgets it."""
    package = Path(__file__).resolve().parent
    return source_digest(package, kept_digest_path(package))


def kept_digest_path(package: Path) -> Path:
    """Where the code digest of `package` is kept: in its `__pycache__`, or where bytecode goes
    under `sys.pycache_prefix` (`PYTHONPYCACHEPREFIX`), the package's path mirrored below it."""
    if sys.pycache_prefix:
        return Path(sys.pycache_prefix, str(package).lstrip(os.sep), KEPT_DIGEST)
    return package / "__pycache__" / KEPT_DIGEST


def source_digest(package: Path, kept: Path) -> str:
    """SHA-256 over every source under `package` (`CODE_SUFFIXES`): for each, in the order of its
    path's parts, its POSIX path below `package`, a NUL, its bytes and a NUL.

    The sources are read and hashed only when their stamp (each one's path, size, modification
    and change times and inode, as git's index keeps them) is not the one `kept` holds; the digest
    is then kept under the new stamp, unless a source changed within `RACY_NS` of the stamp
    being taken, or bytecode is not written (`sys.dont_write_bytecode`), or `kept` cannot be
    written (the digest is then computed on every run)."""
    now = time.time_ns()
    sources = _sources(package)
    stamp = content_id(sources)
    try:
        held = json.loads(kept.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        held = None
    if isinstance(held, dict) and held.get("stamp") == stamp:
        return str(held["digest"])
    digest = hashlib.sha256()
    for name, *_ in sources:
        digest.update(name.encode("utf-8") + b"\0" + (package / name).read_bytes() + b"\0")
    made = digest.hexdigest()
    racy = any(now - changed < RACY_NS for *_, changed, _ in sources)
    if not racy and not sys.dont_write_bytecode:
        _keep(kept, {"stamp": stamp, "digest": made})
    return made


def _sources(package: Path) -> list[tuple[str, int, int, int, int]]:
    """(POSIX path below `package`, size, mtime_ns, ctime_ns, inode) of each source, sorted by the
    path's parts (as `sorted` orders `Path`s)."""
    found: list[tuple[str, int, int, int, int]] = []
    folders = [""]  # POSIX paths below `package`, "" for itself
    while folders:
        below = folders.pop()
        with os.scandir(package / below) as entries:
            for entry in entries:
                name = f"{below}{entry.name}"
                if entry.is_dir(follow_symlinks=False):
                    folders.append(f"{name}/")
                elif entry.name.endswith(CODE_SUFFIXES):
                    st = entry.stat()
                    found.append((name, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
    return sorted(found, key=lambda source: source[0].split("/"))


def _keep(kept: Path, value: dict[str, str]) -> None:
    """Write `value` to `kept` whole, where it can be written (else the digest is not kept)."""
    with contextlib.suppress(OSError):
        kept.parent.mkdir(parents=True, exist_ok=True)
        replace_file(kept, json.dumps(value).encode("utf-8"))


def keep_row(
    conn: sqlite3.Connection,
    table: str,
    key: tuple[str, str],
    name: Mapping[str, Any],
    values: Mapping[str, Any],
) -> None:
    """Keep one row of the derived `table` under `key` (its key column and the key), named by
    the columns and values of `name` (what the row is of: a version, a version and a profile,
    a version pair), with the other columns' `values`. The rows of the same name under other
    keys are deleted first: a kept row is taken only under the key computed now, so they
    could never be read again (the one invalidation rule), and a table keeps one row per name."""
    column, value = key
    # The rows of a name are found through an index, so keeping a table's rows one by one
    # (a measure of the whole code) does not scan it for each.
    conn.execute(f"CREATE INDEX IF NOT EXISTS {table}_by_name ON {table} ({', '.join(name)})")
    same = " AND ".join(f"{c} = ?" for c in name)
    conn.execute(f"DELETE FROM {table} WHERE {same} AND {column} != ?", (*name.values(), value))
    row = {column: value, **name, **values}
    conn.execute(
        f"INSERT OR REPLACE INTO {table} ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
        tuple(row.values()),
    )


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
    view's files must still hold for the view to be taken as it is. Each file is hashed as it
    is read, one at a time (a measure's reports of the whole D.C. Code are tens of MB)."""
    hashed = {}
    for name in sorted(names):
        with (out / name).open("rb") as handle:
            hashed[name] = hashlib.file_digest(handle, "sha256").hexdigest()
    return hashed


def outputs_hold(out: Path, kept: Mapping[str, str]) -> bool:
    """True when every file `kept` names is in `out` with the bytes it had."""
    try:
        return outputs_of(out, list(kept)) == dict(kept)
    except OSError:
        return False
