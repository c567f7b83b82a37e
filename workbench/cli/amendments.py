"""Amendment instructions: a held law's instructions read from its prose, each verified against
the releases before and after the law took effect, and the changes they made (`amendments`);
the whole held code reconciled with every held law, written as a report (`reconcile`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.cli import arguments
from workbench.cli.arguments import Parser
from workbench.cli.common import open_held, out, path_options, print_json, progress

if TYPE_CHECKING:
    from workbench.amendments.whole_code import CodeReconciliation


def cmd_amendments(args: argparse.Namespace) -> int:
    from workbench.amendments import reconcile
    from workbench.workspace.catalogue import read_held

    with open_held(args) as workspace:
        settings = workspace.settings
        report = reconcile.law_amendments(
            workspace, args.law, read_held(workspace, settings.catalogue), settings.store
        )
    if args.json:
        print_json(reconcile.law_json(report, args.law))
    else:
        out("".join(line + "\n" for line in reconcile.law_lines(report, args.law)))
    return 0


def cmd_reconcile(args: argparse.Namespace) -> int:
    from workbench.amendments.whole_code import reconcile_code
    from workbench.workspace.catalogue import read_held

    with open_held(args) as workspace:
        settings = workspace.settings
        rows = read_held(workspace, settings.catalogue)
        done = reconcile_code(
            workspace, args.jurisdiction, rows, settings.store, stored=True, progress=progress()
        )
    from workbench.measure import corpus_digest

    report, lines = write_reconciled(done, corpus_digest(rows), args.out)
    if args.json:
        print_json(report)
    else:
        out("".join(line + "\n" for line in lines))
    return 0


def write_reconciled(
    done: CodeReconciliation, digest: str, folder: Path
) -> tuple[dict[str, Any], list[str]]:
    """Write the reconciliation report of `done` into `folder`, naming the corpus digest
    `digest` of the catalogue it read: the report, and the summary lines `reconcile` prints
    (with how much a stored run took from the workspace)."""
    from workbench.evals.reconciliation import (
        reconciliation_report,
        report_lines,
        write_reconciliation,
    )

    report = reconciliation_report(done, corpus_digest=digest)
    names = write_reconciliation(folder, report)
    reused = (
        f"taken from the workspace (unchanged since a run kept them): "
        f"{done.reused.get('instructions', 0)} of {report['instructions']} checks, "
        f"{done.reused.get('sections', 0)} of {report['sections']} sections"
        + (
            f", and {done.reused['pairs']} release pairs of the sections whose other pairs changed"
            if done.reused.get("pairs")
            else ""
        )
    )
    return report, [*report_lines(report), reused, f"wrote {', '.join(names)} into {folder}"]


def amendments_arguments(parser: Parser) -> None:
    parser.description = (
        "Read LAW_VERSION_ID's prose (never the publisher's codify: markup) into "
        "instructions: target, action, struck and inserted text, count, and the sentence's own "
        "offsets and occurrence in the law. Each is checked by exact search against the held "
        "releases of its target filed before and on or after the law's effective date "
        "(applied, created, not_applied, target_missing, count_mismatch, no_versions), and each "
        "change of those release pairs is attributed to the instructions that made it (with "
        "those of the other held laws effective in the same gaps that name the same sections; "
        "no other law is read). Sentences that read like instructions but do not parse are "
        "listed as unread. Exit 0."
    )
    parser.add_argument(
        "law", metavar="LAW_VERSION_ID", help="a held law, e.g. us-dc/dc-law-24-314/24-314.xml"
    )
    parser.add_argument("--json", action="store_true", help="print the law's report as JSON")
    path_options(parser, workspace=True, store=True)
    parser.set_defaults(func=cmd_amendments)


def reconcile_arguments(parser: Parser) -> None:
    parser.description = (
        "Read every held law of the jurisdiction and check each instruction as "
        "'workbench amendments' does, then diff every consecutive release pair of every held "
        "Code section and attribute each change: made_by the instructions of the laws "
        "effective in its gap, history (a D.C. Act its new history note names), or "
        "unexplained. Writes into --out: reconciliation.json and .md (shares per title and "
        "overall, for the sections some law targets and for every section; each instruction "
        "outcome by title; every instruction neither applied nor created), titles.csv and "
        "not-applied.csv; prints a summary. Each law's checks and each section's attributions "
        "are kept in the workspace under the key of what they read, so a later run reads again "
        "only the laws and sections a new release or law touched, and writes the same report. "
        "Refused (exit 2) when the workspace holds no law "
        "or no Code section of the jurisdiction. Exit 0."
    )
    parser.add_argument(
        "--out",
        type=arguments.out_folder,
        default=Path(".workbench") / "reconciliation",
        metavar="DIR",
        help="folder the report is written into (default: .workbench/reconciliation)",
    )
    parser.add_argument(
        "--jurisdiction",
        default="us-dc",
        metavar="J",
        help="the jurisdiction whose drafting style reads the laws (default: us-dc)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the whole report as JSON, not the summary"
    )
    path_options(parser, workspace=True, store=True)
    parser.set_defaults(func=cmd_reconcile)


ARGUMENTS = {
    "amendments": amendments_arguments,
    "reconcile": reconcile_arguments,
}
