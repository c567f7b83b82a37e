"""Path arguments of declared kinds, checked while the command line is parsed (C14): a path that
cannot be used as its kind is one line naming the argument, exit 2, nothing written. The kinds and
what each refuses are in docs/commands.md, "Path arguments"."""

from __future__ import annotations

import argparse
import os
import sqlite3
import stat
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any, NoReturn

from workbench.bounds import MAX_INTEGER, read_integer
from workbench.database import read_only_connection, unwritable
from workbench.terminal import for_stream

# A longer line in a line-oriented input is not a citation, a CSV row or a note line anyone wrote:
# it is refused whole instead of being echoed back or parsed for minutes.
MAX_LINE = 1 << 20
_PROBE = 1 << 16  # bytes read to tell a text file from a binary one before the whole is decoded


class PathKind:
    """An argparse `type=` that checks a path is usable as `kind`; `kind` is read by the tests."""

    def __init__(self, kind: str, check: Callable[[Path], None], *, stdin: bool = False) -> None:
        self.kind = kind
        self._check = check
        self.stdin = stdin
        self.__name__ = kind  # argparse names the type in its own messages

    def __call__(self, value: str) -> Path:
        path = Path(value)
        if self.stdin and value == "-":
            return path
        try:
            self._check(path)
        except OSError as exc:
            raise argparse.ArgumentTypeError(f"{shown(path)}: {exc.strerror or exc}") from None
        return path


def shown(path: object) -> str:
    """`path` as printable text: bytes that were not UTF-8 as backslash escapes."""
    if not isinstance(path, str | bytes | os.PathLike):
        return str(path)
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _refuse(path: Path, why: str) -> argparse.ArgumentTypeError:
    return argparse.ArgumentTypeError(f"{shown(path)}: {why}")


def _regular(path: Path) -> os.stat_result:
    try:
        info = path.stat()
    except FileNotFoundError:
        raise _refuse(path, "no such file") from None
    if stat.S_ISDIR(info.st_mode):
        raise _refuse(path, "is a folder; a file is expected")
    if not stat.S_ISREG(info.st_mode):
        raise _refuse(path, "is not a regular file (a FIFO, socket or device); a file is expected")
    return info


def _document(path: Path) -> None:
    _regular(path)
    with path.open("rb") as handle:  # readable: the system's own refusal is reported as it is
        if not handle.read(1):
            raise _refuse(path, "is empty")


def _text(path: Path, *, lines: bool = False) -> None:
    _document(path)
    data = path.read_bytes()
    at = data.find(b"\x00", 0, _PROBE)
    if at >= 0:
        raise _refuse(
            path, f"is not text (a NUL byte at offset {at}); a UTF-8 text file is expected"
        )
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _refuse(path, f"is not UTF-8 text (byte offset {exc.start})") from None
    if lines:
        for number, line in enumerate(data.split(b"\n"), 1):
            if len(line) > MAX_LINE:
                raise _refuse(
                    path, f"line {number} is {len(line)} bytes, longer than {MAX_LINE} allowed"
                )


def _folder(path: Path) -> None:
    if not path.exists():
        raise _refuse(path, "no such folder")
    if not path.is_dir():
        raise _refuse(path, "is not a folder")
    os.listdir(path)  # readable


def _out_folder(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise _refuse(path, "exists and is not a folder; give a folder or a new path")


def _out_file(path: Path) -> None:
    if path.is_dir():
        raise _refuse(path, "is a folder; give a file name")
    if path.exists() and not path.is_file():
        raise _refuse(path, "is not a regular file (a FIFO, socket or device)")


def _database(path: Path) -> None:
    if not path.exists():
        return  # made when first opened
    _regular(path)
    # CAUTION: the header is read through SQLite, never a plain open(): closing any other file
    # descriptor on a database drops every POSIX lock this process holds on it, so a workspace
    # open elsewhere in the process (a notebook, a test) would look unused to another process,
    # which would then delete its WAL and shared-memory files from under it.
    immutable = unwritable(path) is not None  # read-only: no -wal or -shm can be made beside it
    try:
        with closing(read_only_connection(path, immutable=immutable)) as conn:
            conn.execute("PRAGMA schema_version").fetchone()
    except sqlite3.DatabaseError as exc:
        raise _refuse(path, "is not an SQLite database") from exc


def _workspace(path: Path) -> None:
    if not path.exists():
        raise _refuse(
            path, "no such workspace; 'workbench measure' or 'workbench ingest' makes one"
        )
    _database(path)


document = PathKind("document", _document)
text = PathKind("text", _text)
lines = PathKind("lines", lambda path: _text(path, lines=True))
lines_or_stdin = PathKind("lines", lambda path: _text(path, lines=True), stdin=True)
folder = PathKind("folder", _folder)
out_folder = PathKind("out_folder", _out_folder)
out_file = PathKind("out_file", _out_file)
database = PathKind("database", _database)
workspace = PathKind("workspace", _workspace)


class Parser(argparse.ArgumentParser):
    """An argument parser whose every refusal is one line: `workbench CMD: error: ...`."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())}\n")

    def _print_message(self, message: str, file: Any = None) -> None:
        """Help and refusals, shown on a terminal as every line is (`terminal.for_stream`): an
        argument echoed back cannot drive it."""
        stream = file if file is not None else sys.stderr
        super()._print_message(for_stream(message, stream), stream)


def integer(text: str) -> int:
    """An integer argument (an argparse `type=`), either sign, within `bounds.MAX_INTEGER`."""
    return read_integer(text, argparse.ArgumentTypeError, least=-MAX_INTEGER)


def whole_number(text: str) -> int:
    """A whole number argument of at least 0, at most `bounds.MAX_INTEGER`."""
    return read_integer(text, argparse.ArgumentTypeError)
