"""Opening an SQLite file without writing it (C14): `check_marker` refuses a file that lacks the
workspace's own schema marker, leaving it byte-identical; `unwritable` says why a file cannot be
written, and such a file is read through an immutable connection, which leaves no `-wal` or `-shm`
file beside it."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from workbench.errors import WorkspaceError


def unwritable(path: Path) -> str | None:
    """Why the workspace at `path` cannot be written, or None if it can: SQLite writes the file
    and, beside it, its journal, so both the file and its folder must be writable."""
    for target, what in ((path, "the file"), (path.parent, "its folder")):
        if not os.access(target, os.W_OK):
            try:
                read_only_system = os.statvfs(target).f_flag & os.ST_RDONLY
            except OSError:
                read_only_system = 0
            return (
                "it is on a read-only file system" if read_only_system else f"{what} is read-only"
            )
    return None


def read_only_connection(path: Path, *, immutable: bool) -> sqlite3.Connection:
    """A connection that cannot write `path`; `immutable` (a file nobody may write) also takes no
    lock and makes no `-wal` or `-shm` file."""
    uri = path.resolve().as_uri() + "?mode=ro" + ("&immutable=1" if immutable else "")
    return sqlite3.connect(uri, uri=True, timeout=30.0, isolation_level=None)


def check_marker(path: Path, *, immutable: bool) -> None:
    """Refuse, with a `WorkspaceError`, a non-empty file at `path` that is not a workspace: not an
    SQLite file, or one with no `workspace_meta` row `schema_version`. Read only; writes nothing."""
    try:
        conn = read_only_connection(path, immutable=immutable)
        try:
            marker = conn.execute(
                "SELECT value FROM workspace_meta WHERE key = 'schema_version'"
            ).fetchone()
        finally:
            conn.close()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            raise WorkspaceError(
                f"{path}: not a workbench workspace (an SQLite file without its workspace_meta "
                "table); left as it was"
            ) from exc
        raise WorkspaceError(f"{path}: not a workbench workspace ({exc})") from exc
    except sqlite3.DatabaseError as exc:
        raise WorkspaceError(f"{path}: not a workbench workspace ({exc})") from exc
    if marker is None:
        raise WorkspaceError(
            f"{path}: not a workbench workspace (its workspace_meta table holds no "
            "schema_version); left as it was"
        )


def refuse_writing(path: Path, reason: str) -> WorkspaceError:
    """The one-line refusal of a command that must write a workspace it cannot."""
    return WorkspaceError(f"{path}: cannot write the workspace: {reason}")
