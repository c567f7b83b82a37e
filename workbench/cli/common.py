"""What every command shares: printing, progress, refusal lists, the common path options, and
opening the workspace a command reads with the settings it remembers; light imports only, so
building the parser loads nothing heavy."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.cli import arguments
from workbench.defaults import DEFAULT_CORPUS_DIR, DEFAULT_LEDGER, DEFAULT_STORE, DEFAULT_WORKSPACE
from workbench.terminal import write

if TYPE_CHECKING:
    from workbench.models import Refusal, Version
    from workbench.text.choice import Choice
    from workbench.workspace import Workspace

PROG = "workbench"


def out(text: str, *, keep: tuple[str, ...] = ()) -> None:
    """Write `text` to stdout (`terminal.write`): as UTF-8 bytes; on a terminal every control
    character shown, never obeyed (`keep`: the command's own colour codes); exact to a pipe."""
    write(text, sys.stdout, keep=keep)


def out_bytes(data: bytes) -> None:
    """Write UTF-8 `data` (a scorecard file's bytes) to stdout as `out` writes text: exact to a
    pipe, byte for byte."""
    out(data.decode("utf-8", "surrogateescape"))


def err(line: str) -> None:
    """Write `line` and a newline to stderr, as `out` writes stdout."""
    write(line + "\n", sys.stderr)


def print_json(value: Any) -> None:
    out(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def progress() -> bool:
    """Progress bars go to stderr, and only when stderr is a terminal."""
    return sys.stderr.isatty()


def list_refusals(title: str, refusals: Sequence[Refusal]) -> int:
    """Print the refusals under `title`; 1 if there are any, else 0."""
    if not refusals:
        return 0
    out(f"\n{title} ({len(refusals)}):\n")
    for refusal in refusals:
        out(f"  {refusal.line()}\n")
    return 1


def exit_for_refusals(refusals: Sequence[Refusal]) -> int:
    """1 if any refusal is a failure, 0 if every one is required by the admission policy."""
    from workbench.corpus import refusal_is_policy

    return int(any(not refusal_is_policy(r) for r in refusals))


def path_options(
    parser: argparse.ArgumentParser,
    *,
    workspace: bool = False,
    store: bool = False,
    written: tuple[str, ...] = (),
) -> None:
    """--corpus-dir always; --store and --workspace where the command uses them. `written` names
    what the command writes into ("corpus-dir", "store": folders; "workspace": the command makes
    the workspace), which may not exist yet; any other workspace must exist (`arguments.workspace`).

    CAUTION: each default is the very object `defaults` holds (or, for the workspace, the one
    made from $WORKBENCH_WORKSPACE), never a copy: `given` tells a value left at its default from
    one given on the command line by identity, so that a workspace's remembered settings give way
    only to what was given.
    """
    remembered = "what the workspace remembers, else " if workspace else ""
    parser.add_argument(
        "--corpus-dir",
        type=arguments.out_folder if "corpus-dir" in written else arguments.folder,
        default=DEFAULT_CORPUS_DIR,
        help=f"folder holding catalogue.jsonl and its checksum (default: {remembered}corpus)",
    )
    if store:
        parser.add_argument(
            "--store",
            type=arguments.out_folder if "store" in written else arguments.folder,
            default=DEFAULT_STORE,
            help=f"folder the catalogued bytes are fetched into (default: {remembered}corpus/real)",
        )
    if workspace:
        named = os.environ.get("WORKBENCH_WORKSPACE")
        parser.add_argument(
            "--workspace",
            type=arguments.database if "workspace" in written else arguments.workspace,
            default=Path(named) if named else DEFAULT_WORKSPACE,
            help=f"workspace file (default: $WORKBENCH_WORKSPACE or {DEFAULT_WORKSPACE})",
        )


def given(args: argparse.Namespace, dest: str) -> Path | None:
    """The path option `dest` as the command line gave it, or None where it was left at its
    default (see `path_options`); $WORKBENCH_WORKSPACE counts as given."""
    value: Path | None = getattr(args, dest, None)
    defaults = {"corpus_dir": DEFAULT_CORPUS_DIR, "store": DEFAULT_STORE}
    default = defaults.get(dest, DEFAULT_WORKSPACE if dest == "workspace" else None)
    return None if value is default else value


def say_overrides(lines: Sequence[str]) -> None:
    """Each given option that replaced a remembered setting, one line each on stderr."""
    for line in lines:
        err(f"{PROG}: {line}")


def open_held(args: argparse.Namespace) -> Workspace:
    """The workspace the command reads (`workspace.open_workspace`: a missing one is refused,
    nothing made), with the settings it remembers, the options given on the command line winning
    and saying so on stderr."""
    from workbench.workspace import open_workspace

    held = open_workspace(
        args.workspace,
        corpus_dir=given(args, "corpus_dir"),
        store=given(args, "store"),
        profiles=getattr(args, "profiles", None),
    )
    say_overrides(held.overrides)
    return held


def ocr_cache(args: argparse.Namespace) -> Path:
    """The OCR cache a command reads scanned pages through (`ocr.default_cache`): its
    --workspace's, else that of the workspace the command line uses by default, so `ingest`, note
    checks, source reports and bundle re-checks read each scanned page once on a machine."""
    from workbench.text.ocr import default_cache

    named = getattr(args, "workspace", None)
    return default_cache(named or Path(os.environ.get("WORKBENCH_WORKSPACE", DEFAULT_WORKSPACE)))


def ledger_option(parser: argparse.ArgumentParser) -> None:
    """--ledger: the run ledger of note checks (default: $WORKBENCH_LEDGER or DEFAULT_LEDGER)."""
    parser.add_argument(
        "--ledger",
        type=arguments.database,
        default=Path(os.environ.get("WORKBENCH_LEDGER", DEFAULT_LEDGER)),
        metavar="PATH",
        help=f"run ledger file (default: $WORKBENCH_LEDGER or {DEFAULT_LEDGER})",
    )


def profiles_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--profiles",
        type=arguments.folder,
        default=None,
        metavar="DIR",
        help="folder of your own numbering profiles (*.toml); they win over the shipped ones "
        "(default: the folders the workspace remembers)",
    )


def family_profile(workspace: Workspace, version: Version) -> Choice:
    """The profile that reads `version`'s family, from the workspace's registry: named, else the
    automatic choice (C15), as `measure` chose it."""
    from workbench.text.choice import choose_profile
    from workbench.workspace.parts import family_headings

    family = [
        v for v in workspace.versions(version.family) if v.jurisdiction == version.jurisdiction
    ] or [version]
    return choose_profile(
        family, workspace.profile_registry(), headings=family_headings(workspace, family)
    )
