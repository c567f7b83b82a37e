"""The `workbench` command (C14): a thin layer that parses arguments, calls the library and prints,
a run importing only its command's module, with one meaning per exit code (2: an argument cannot be
used; 1: something asked for was refused or failed; 0: all used). The rules and how the command
table is built are in docs/commands.md."""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from collections.abc import Callable, Sequence
from functools import cache

from workbench.cli.arguments import shown
from workbench.cli.commands import command_parser
from workbench.cli.common import PROG, err
from workbench.database import refuse_writing, unwritable
from workbench.errors import WorkbenchError


def build_parser() -> argparse.ArgumentParser:
    """The whole command line, every command's parser filled (the reference page and the tests
    that walk every argument read it; a run fills only the command it runs)."""
    return command_parser(every=True)


@cache
def _parser(settings: tuple[tuple[str, str], ...]) -> argparse.ArgumentParser:
    """The parser for these `WORKBENCH_*` environment settings (some defaults read them), built
    once for each (a notebook or a test calls `main` many times; parsing leaves it as it was, and
    a command's parser, once filled, stays filled)."""
    return command_parser()


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command and return its exit status."""
    return _run(argv)


def _run(argv: Sequence[str] | None) -> int:
    settings = tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("WORKBENCH_")))
    args = _parser(settings).parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except BrokenPipeError:
        # The reader went away (`workbench ... | head`): stop quietly, as Unix tools do. Caught
        # before OSError, of which it is one.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (WorkbenchError, OSError) as exc:
        # An argument that cannot be used (exit 2): a typed error, or a path the system refused
        # (no such file, a folder where a file goes, no permission), named with the system's words.
        if isinstance(exc, WorkbenchError) or not exc.filename:
            message = " ".join(str(exc).split())
        else:
            message = f"{shown(exc.filename)}: {exc.strerror}"
        err(f"{PROG}: error: {message}")
        return 2
    except sqlite3.Error as exc:
        workspace = getattr(args, "workspace", None)
        reason = unwritable(workspace) if workspace is not None else None
        if "readonly" in str(exc) and workspace is not None and reason is not None:
            # A write on a connection of its own (the search index's) met a workspace nobody
            # may write: refused as the workspace's own transactions refuse it, with the reason.
            err(f"{PROG}: error: {refuse_writing(workspace, reason)}")
            return 2
        # Any other fault of the database (a page damaged after its header was checked, a lock
        # held past SQLite's wait) is named with SQLite's words, on one line, never a traceback.
        where = shown(str(workspace)) if workspace is not None else "the workspace"
        err(f"{PROG}: error: {where}: SQLite: {' '.join(str(exc).split())}")
        return 2
    except KeyboardInterrupt:
        err(f"{PROG}: interrupted")
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
