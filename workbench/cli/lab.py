"""The lab command: a researcher's own copies of the notebooks, opened in JupyterLab."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from workbench.cli import arguments
from workbench.cli.arguments import Parser
from workbench.cli.common import PROG, err, out
from workbench.defaults import DEFAULT_WORKSPACE

NOTEBOOKS_DIR_NAME = "notebooks"


def templates_folder() -> Path:
    """The committed notebooks: `notebooks/` beside the package, in the repository it runs from."""
    return Path(__file__).resolve().parents[2] / NOTEBOOKS_DIR_NAME


def cmd_lab(args: argparse.Namespace) -> int:
    from workbench.corpus.home import corpus_home
    from workbench.errors import LabError
    from workbench.exports.lab import copy_notebooks

    templates = templates_folder()
    root = templates.parent
    if args.corpus is not None:
        home = corpus_home(args.corpus)
        workspace = home / "workspace.sqlite"
    else:
        home = root / ".workbench"
        workspace = root / DEFAULT_WORKSPACE
    dest = (args.dest or home / NOTEBOOKS_DIR_NAME).resolve()
    copies = copy_notebooks(templates, dest, root=root, workspace=workspace, corpus=args.corpus)
    made = sum(c.made for c in copies)
    out(
        f"notebooks in {dest}: {made} copied from {templates}, {len(copies) - made} kept as you "
        f"left them; workspace {workspace.resolve()}\n"
    )
    if args.copy_only:
        return 0
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        f"--ServerApp.root_dir={dest}",
        f"--port={args.port}",
        "--LabApp.news_url=",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    if os.geteuid() == 0:
        # JupyterLab refuses to run as root unless told; in a container root is the only user.
        command.append("--allow-root")
        err(f"{PROG}: running as root (a container?): passing --allow-root")
    err(f"{PROG}: starting {' '.join(command[2:])}")
    try:
        return subprocess.call(command, cwd=dest)
    except FileNotFoundError as exc:
        raise LabError(f"{sys.executable}: cannot start JupyterLab ({exc})") from exc
    except KeyboardInterrupt:
        return 130


def lab_arguments(parser: Parser) -> None:
    parser.description = (
        "Copy the committed notebooks (templates and regression tests, never edited "
        "by use) into your corpus's folder, each copy's parameters pointed at its workspace, and "
        "start JupyterLab there. A copy already made is kept as you left it. Without --corpus the "
        "copies go to .workbench/notebooks/ and read the project's workspace."
    )
    parser.add_argument(
        "--corpus",
        type=arguments.folder,
        metavar="DIR",
        help="your corpus folder (as given to `measure --corpus`): copies in its own folder",
    )
    parser.add_argument(
        "--dest",
        type=arguments.out_folder,
        metavar="DIR",
        help="put the copies here instead (outside the repository's notebooks/)",
    )
    parser.add_argument(
        "--port",
        type=arguments.whole_number,
        default=8888,
        help="JupyterLab's port (default: 8888)",
    )
    parser.add_argument(
        "--copy-only", action="store_true", help="make the copies and print where; start nothing"
    )
    parser.set_defaults(func=cmd_lab)


ARGUMENTS = {
    "lab": lab_arguments,
}
