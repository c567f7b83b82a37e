"""The `workbench` command: a thin layer that parses arguments, calls the library and prints.

Exit codes, one meaning in every command:

- 2: an argument cannot be used (missing, a folder where a file goes or a file where a folder goes,
  unreadable, not the expected kind of file, malformed), reported as one line on stderr, never a
  traceback; nothing is written.
- 1: the command ran, but something it was asked to use was refused or failed (a document that
  did not ingest, a file `corpus add` would not place, a folder in which admission admitted no
  document: "no document admitted"); the refusals are listed at the end of its output.
- 0: it ran, and everything it was asked to use was used, or refused only because the admission
  policy itself requires it (a transcription, `byte_faithful_to_official_filing: false`): such
  refusals are listed, not failures.
Progress bars go to stderr and only when stderr is a terminal. Text and JSON go to stdout as UTF-8
bytes, whatever the locale, with no newline translation.

Each command group lives in its own module, its arguments beside its `cmd_*` functions; the
command table (`commands.py`) names every command with its help and its module, and a run imports
only the chosen command's module. A command imports the library stages it uses inside its
function, so `workbench --help` and a command that needs no numpy, polars, altair, pypdfium2,
rapidfuzz or dask never load them.
"""

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
    except sqlite3.OperationalError as exc:
        workspace = getattr(args, "workspace", None)
        reason = unwritable(workspace) if workspace is not None else None
        if "readonly" not in str(exc) or workspace is None or reason is None:
            raise
        # A write on a connection of its own (the search index's) met a workspace nobody may
        # write: refused as the workspace's own transactions refuse it, with the reason.
        err(f"{PROG}: error: {refuse_writing(workspace, reason)}")
        return 2
    except KeyboardInterrupt:
        err(f"{PROG}: interrupted")
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
