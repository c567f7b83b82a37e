"""Word redline commands: `workbench diff FAMILY --docx OUT.docx` writes one version pair's
tracked-change redline, and `workbench verify-redline OUT.docx` reads one back (C23).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from workbench.cli import arguments
from workbench.cli.arguments import Parser
from workbench.cli.common import open_held, out, path_options, profiles_option


def diff_docx(args: argparse.Namespace, made_by: Callable[..., Any]) -> int:
    """`workbench diff FAMILY --docx OUT.docx`: one version pair (--from/--to, or a family of two
    versions), with the law comments of `--laws`. Refused before anything is computed: --docx
    with another output, or an unwritable path; after the pairs are chosen: more than one pair."""
    from workbench.changes import diff_files, pairs
    from workbench.errors import RedlineError
    from workbench.exports.redline_docx import redline_section_docx

    others = [f"--{name}" for name in ("json", "html", "export") if getattr(args, name)]
    if others or args.kind or args.doubtful:
        named = (
            others + (["--kind"] if args.kind else []) + (["--doubtful"] if args.doubtful else [])
        )
        raise RedlineError(
            f"--docx writes the whole diff of one version pair and goes without {', '.join(named)}"
        )
    diff_files.writable(args.docx, "the Word redline")
    with open_held(args) as workspace:
        chosen = pairs.version_pairs(workspace, args.family, start=args.start, end=args.end)
        if len(chosen) != 1:
            raise RedlineError(
                f"{args.family}: {len(chosen)} version pairs; --docx writes one: name it with "
                "--from V --to V"
            )
        # The pair's one diff, kept or computed and kept under its key (the researcher's
        # `--profiles` files among its inputs), as `workbench diff` reads and keeps it. No kind
        # is shown: the redline lays out every change itself (`write_redline_docx`).
        sections = pairs.diff_sections(chosen, workspace=workspace, kinds=())
        made = made_by(args, workspace.settings, sections) if args.laws else None
        written = redline_section_docx(workspace, sections[0], args.docx, attributions=made)
    out(written.line() + "\n")
    return 0


def cmd_verify_redline(args: argparse.Namespace) -> int:
    from workbench.exports.redline_docx_check import verify_redline_docx

    with open_held(args) as workspace:
        verified = verify_redline_docx(args.redline, workspace.version)
    out(verified.line() + "\n")
    return 0


def verify_redline_arguments(parser: Parser) -> None:
    parser.description = (
        "Read a Word redline written by `workbench diff --docx` back: its versions "
        "must be held with the SHA-256 it records, rejecting every tracked change must give the "
        "before text and accepting every one the after text (under the one normalization). An "
        "edited redline is refused naming the first paragraph that differs; exit 2."
    )
    parser.add_argument(
        "redline", type=arguments.document, metavar="OUT.docx", help="the redline to check"
    )
    path_options(parser, workspace=True)
    profiles_option(parser)
    parser.set_defaults(func=cmd_verify_redline)


ARGUMENTS = {
    "verify-redline": verify_redline_arguments,
}
