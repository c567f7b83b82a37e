"""Amendment instructions: a held law's instructions read from its prose, each verified against
the releases before and after the law took effect, and the changes they made (`amendments`).
"""

from __future__ import annotations

import argparse
from typing import Any

from workbench.cli.common import open_held, out, path_options, print_json


def cmd_amendments(args: argparse.Namespace) -> int:
    from workbench.corpus.catalogue import read_catalogue
    from workbench.history import reconcile

    with open_held(args) as workspace:
        settings = workspace.settings
        report = reconcile.law_amendments(
            workspace, args.law, read_catalogue(settings.catalogue), settings.store
        )
    if args.json:
        print_json(reconcile.law_json(report, args.law))
    else:
        out("".join(line + "\n" for line in reconcile.law_lines(report, args.law)))
    return 0


def add_commands(commands: Any) -> None:
    amendments = commands.add_parser(
        "amendments",
        help="a law's amendment instructions, each verified against the releases around it",
        description="Read LAW_VERSION_ID's prose (never the publisher's codify: markup) into "
        "instructions: target, action, struck and inserted text, count, and the sentence's own "
        "offsets and occurrence in the law. Each is checked by exact search against the held "
        "releases of its target filed before and on or after the law's effective date "
        "(applied, created, not_applied, target_missing, count_mismatch, no_versions), and each "
        "change of those release pairs is attributed to the instructions that made it (with "
        "those of the other held laws effective in the same gaps that name the same sections; "
        "no other law is read). Sentences that read like instructions but do not parse are "
        "listed as unread. Exit 0.",
    )
    amendments.add_argument(
        "law", metavar="LAW_VERSION_ID", help="a held law, e.g. us-dc/dc-law-24-314/24-314.xml"
    )
    amendments.add_argument("--json", action="store_true", help="print the law's report as JSON")
    path_options(amendments, workspace=True, store=True)
    amendments.set_defaults(func=cmd_amendments)
