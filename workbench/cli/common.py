"""What every command shares: printing, progress, refusal lists and the common path options.

Nothing here imports beyond the standard library and the workbench's light modules (errors,
models, store), so building the parser costs no heavy import.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.cli import arguments
from workbench.defaults import DEFAULT_LEDGER, DEFAULT_WORKSPACE

if TYPE_CHECKING:
    from workbench.models import Refusal, Version
    from workbench.text.choice import Choice
    from workbench.text.profiles import Profile
    from workbench.workspace import Workspace

PROG = "workbench"


def out(text: str) -> None:
    """Write `text` to stdout as UTF-8 bytes, whatever the locale, with no newline translation; a
    file name given in bytes that are not UTF-8 is written back as those bytes (PEP 383)."""
    sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))
    sys.stdout.buffer.flush()


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
    the folders the command writes into ("corpus-dir", "store"), which may not exist yet."""
    parser.add_argument(
        "--corpus-dir",
        type=arguments.out_folder if "corpus-dir" in written else arguments.folder,
        default=Path("corpus"),
        help="folder holding catalogue.jsonl and its checksum (default: corpus)",
    )
    if store:
        parser.add_argument(
            "--store",
            type=arguments.out_folder if "store" in written else arguments.folder,
            default=Path("corpus/real"),
            help="folder the catalogued bytes are fetched into (default: corpus/real)",
        )
    if workspace:
        parser.add_argument(
            "--workspace",
            type=arguments.database,
            default=Path(os.environ.get("WORKBENCH_WORKSPACE", DEFAULT_WORKSPACE)),
            help=f"workspace file (default: $WORKBENCH_WORKSPACE or {DEFAULT_WORKSPACE})",
        )


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
        help="folder of your own numbering profiles (*.toml); they win over the shipped ones",
    )


def own_profiles(args: argparse.Namespace, corpus: Path | None = None) -> tuple[Profile, ...]:
    """The researcher's profiles: `--profiles DIR`, then `CORPUS/profiles/*.toml` if present."""
    from workbench.text.profiles import read_profile_dir

    own: list[Profile] = []
    if getattr(args, "profiles", None) is not None:
        own.extend(read_profile_dir(args.profiles))
    if corpus is not None and (corpus / "profiles").is_dir():
        own.extend(read_profile_dir(corpus / "profiles"))
    return tuple(own)


def family_profile(args: argparse.Namespace, workspace: Workspace, version: Version) -> Choice:
    """The profile that reads `version`'s family: named, else the automatic choice (C15)."""
    from workbench.text.choice import choose_profile
    from workbench.text.profiles import registry

    family = [
        v for v in workspace.versions(version.family) if v.jurisdiction == version.jurisdiction
    ]
    return choose_profile(family or [version], registry(own_profiles(args)))
