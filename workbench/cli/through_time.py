"""Citations through time: make a quote into a citation of one version (`cite`), find which
versions of a family hold it (`history`), and re-search recorded quotes in every newer version
(`recheck`).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from workbench.cli import arguments
from workbench.cli.common import ledger_option, open_held, out, path_options, print_json


def _quote_argument(quote: str) -> str:
    """The QUOTE argument, or with `-` the quote read from stdin (UTF-8; one final line ending,
    which a shell adds, is dropped)."""
    from workbench.errors import CitationError

    if quote != "-":
        return quote
    data = sys.stdin.buffer.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CitationError(f"stdin: byte {exc.start}: the quote is not UTF-8") from exc
    return text.removesuffix("\n").removesuffix("\r")


def cmd_cite(args: argparse.Namespace) -> int:
    from workbench.history import dating as timeline

    with open_held(args) as workspace:
        cited = timeline.cite_quote(
            workspace, _quote_argument(args.quote), args.version, occurrence=args.occurrence
        )
        if cited.status == "cited" and args.format == "w3c":
            out(json.dumps(timeline.annotation_of(workspace, cited), ensure_ascii=False) + "\n")
            return 0
    if args.json:
        out(json.dumps(cited.as_json(), ensure_ascii=False) + "\n")
    else:
        out("".join(line + "\n" for line in timeline.cite_lines(cited)))
        if cited.status == "cited":
            out(json.dumps(cited.citation_json(), ensure_ascii=False) + "\n")
    return 0 if cited.status == "cited" else 1


def cmd_history(args: argparse.Namespace) -> int:
    from workbench.history import dating as timeline

    with open_held(args) as workspace:
        life = timeline.quote_history(workspace, _quote_argument(args.quote), args.family)
    if args.json:
        print_json(life.as_json())
    else:
        out("".join(line + "\n" for line in timeline.history_lines(life)))
    return 0


def cmd_recheck(args: argparse.Namespace) -> int:
    from workbench.history import recheck
    from workbench.notes.ledger import Ledger

    # The workspace first: one that does not exist is refused before the ledger is made.
    with open_held(args) as workspace, Ledger(args.ledger) as ledger:
        citations, notes = recheck.recorded_quotes(
            ledger, notes=args.notes, citations=args.citations
        )
        report = recheck.recheck_quotes(
            workspace,
            citations=citations,
            notes=notes,
            family=args.family,
            ledger=ledger,
            corpus_dir=workspace.settings.catalogue,
            store=workspace.settings.store,
        )
    if args.json:
        print_json(report.as_json())
    else:
        out("".join(line + "\n" for line in recheck.recheck_lines(report)))
    return 1 if report.gone else 0


def add_commands(commands: Any) -> None:
    cite_p = commands.add_parser(
        "cite",
        help="make a quote into a citation of one version (raw offsets)",
        description="Search QUOTE ('-' reads it from stdin) exactly in VERSION, after the one "
        "normalization. One occurrence, or the one named by --occurrence: print the citation "
        "(workbench JSON, which 'workbench verify' reads back; --format w3c: a W3C Web "
        "Annotation), exit 0. Several and none named, a named one past the last, or none: "
        "refused, every occurrence listed with offsets, section and context, exit 1.",
    )
    cite_p.add_argument("quote", metavar="QUOTE", help="the verbatim words, or - for stdin")
    cite_p.add_argument("--version", required=True, metavar="V", help="the version id")
    cite_p.add_argument("--occurrence", type=int, default=None, metavar="N", help="1-based")
    cite_p.add_argument("--json", action="store_true", help="print one JSON object")
    cite_p.add_argument(
        "--format", choices=("workbench", "w3c"), default="workbench", help="citation format"
    )
    path_options(cite_p, workspace=True)
    cite_p.set_defaults(func=cmd_cite)
    history_p = commands.add_parser(
        "history",
        help="which versions of a family hold a quote, and where",
        description="Search QUOTE ('-' reads it from stdin) exactly in every held version of "
        "FAMILY: offsets, section and page in each, the first and last version holding it, and "
        "whether the latest holds it. Exit 0 whether or not any version holds it.",
    )
    history_p.add_argument("quote", metavar="QUOTE", help="the verbatim words, or - for stdin")
    history_p.add_argument("--family", required=True, metavar="F", help="the family")
    history_p.add_argument("--json", action="store_true", help="print the history as JSON")
    path_options(history_p, workspace=True)
    history_p.set_defaults(func=cmd_history)
    recheck_p = commands.add_parser(
        "recheck",
        help="re-search recorded quotes in every newer version: still present, gone, ambiguous",
        description="Every note the ledger holds a run for (or every note under --notes), and "
        "every citation of --citations FILE (workbench JSON Lines), whose version has newer "
        "held versions in its family, is searched exactly in each of them: still_present (with "
        "its offsets there), gone, or now_ambiguous. Offsets are never projected; beside a gone "
        "quote the newest version's aligned passage is shown, marked is_evidence: false. Each "
        "note's check against each newer version runs in a separate process and is recorded "
        "in the ledger. Exit 1 when any quote is gone.",
    )
    recheck_p.add_argument(
        "--notes", type=arguments.folder, default=None, metavar="DIR", help="notes folder"
    )
    recheck_p.add_argument(
        "--citations",
        type=arguments.lines,
        default=None,
        metavar="FILE",
        help="JSON Lines of citations",
    )
    recheck_p.add_argument("--family", default=None, metavar="F", help="only this family")
    recheck_p.add_argument("--json", action="store_true", help="print the findings as JSON")
    ledger_option(recheck_p)
    path_options(recheck_p, workspace=True, store=True)
    recheck_p.set_defaults(func=cmd_recheck)
