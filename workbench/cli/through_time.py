"""Citations through time: make a quote into a citation of one version (`cite`), find which
versions of a family hold it (`history`), and re-search recorded quotes in every newer version
(`recheck`). `--as-of DATE` (here and in `text`) names a version by its family and a date: the
latest release published on or before it, and the held laws it does not yet reflect.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from workbench.cli import arguments
from workbench.cli.arguments import Parser
from workbench.cli.common import err, ledger_option, open_held, out, path_options, print_json

if TYPE_CHECKING:
    from workbench.amendments.asof import AsOf
    from workbench.workspace import Workspace


def as_of_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--as-of",
        dest="as_of",
        default=None,
        metavar="DATE",
        help="YYYY-MM-DD: use the family's latest release published on or before DATE, and name "
        "the held laws effective by DATE that it does not yet reflect (no such release: refused, "
        "exit 2)",
    )


def named_once(args: argparse.Namespace, version: str | None) -> None:
    """A version is named one way: by its id (`version`), or by --family F with --as-of DATE;
    `AsOfError` for both or neither."""
    from workbench.errors import AsOfError

    by_id = version is not None and args.as_of is None and args.family is None
    by_date = version is None and args.as_of is not None and args.family is not None
    if not (by_id or by_date):
        raise AsOfError(
            "name the version by its id, or by --family F with --as-of DATE; not both, not neither"
        )


def as_of(args: argparse.Namespace, workspace: Workspace) -> AsOf | None:
    """The release `--family F --as-of DATE` names and the laws it does not yet reflect
    (`asof.release_as_of`), or None without --as-of."""
    if args.as_of is None:
        return None
    from workbench.amendments.asof import release_as_of
    from workbench.workspace.catalogue import read_held

    settings = workspace.settings
    rows = read_held(workspace, settings.catalogue)
    return release_as_of(workspace, args.family, args.as_of, rows, settings.store)


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
        named_once(args, args.version)
        dated = as_of(args, workspace)
        version = dated.version_id if dated is not None else args.version
        cited = timeline.cite_quote(
            workspace, _quote_argument(args.quote), version, occurrence=args.occurrence
        )
        if cited.status == "cited" and args.format == "w3c":
            if dated is not None:
                for line in dated.lines():
                    err(line)
            out(json.dumps(timeline.annotation_of(workspace, cited), ensure_ascii=False) + "\n")
            return 0
    if args.json:
        shown = cited.as_json() | ({"as_of": dated.as_json()} if dated is not None else {})
        out(json.dumps(shown, ensure_ascii=False) + "\n")
    else:
        if dated is not None:
            out("".join(line + "\n" for line in dated.lines()))
        out("".join(line + "\n" for line in timeline.cite_lines(cited)))
        if cited.status == "cited":
            out(json.dumps(cited.citation_json(), ensure_ascii=False) + "\n")
    return 0 if cited.status == "cited" else 1


def cmd_history(args: argparse.Namespace) -> int:
    from workbench.history import dating as timeline

    with open_held(args) as workspace:
        dated = as_of(args, workspace)
        life = timeline.quote_history(
            workspace,
            _quote_argument(args.quote),
            args.family,
            among=dated.releases if dated is not None else None,
        )
    if args.json:
        print_json(life.as_json() | ({"as_of": dated.as_json()} if dated is not None else {}))
    else:
        if dated is not None:
            out("".join(line + "\n" for line in dated.lines()))
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


def cite_arguments(parser: Parser) -> None:
    parser.description = (
        "Search QUOTE ('-' reads it from stdin) exactly in VERSION, after the one "
        "normalization. One occurrence, or the one named by --occurrence: print the citation "
        "(workbench JSON, which 'workbench verify' reads back; --format w3c: a W3C Web "
        "Annotation), exit 0. Several and none named, a named one past the last, or none: "
        "refused, every occurrence listed with offsets, section and context, exit 1."
    )
    parser.add_argument("quote", metavar="QUOTE", help="the verbatim words, or - for stdin")
    parser.add_argument("--version", metavar="V", help="the version id (or --family and --as-of)")
    parser.add_argument("--family", metavar="F", help="with --as-of: the family")
    as_of_option(parser)
    parser.add_argument(
        "--occurrence", type=arguments.integer, default=None, metavar="N", help="1-based"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--format", choices=("workbench", "w3c"), default="workbench", help="citation format"
    )
    path_options(parser, workspace=True, store=True)
    parser.set_defaults(func=cmd_cite)


def history_arguments(parser: Parser) -> None:
    parser.description = (
        "Search QUOTE ('-' reads it from stdin) exactly in every held version of "
        "FAMILY: offsets, section and page in each, the first and last version holding it, and "
        "whether the latest holds it. Exit 0 whether or not any version holds it."
    )
    parser.add_argument("quote", metavar="QUOTE", help="the verbatim words, or - for stdin")
    parser.add_argument("--family", required=True, metavar="F", help="the family")
    parser.add_argument("--json", action="store_true", help="print the history as JSON")
    as_of_option(parser)
    path_options(parser, workspace=True, store=True)
    parser.set_defaults(func=cmd_history)


def recheck_arguments(parser: Parser) -> None:
    parser.description = (
        "Every note the ledger holds a run for (or every note under --notes), and "
        "every citation of --citations FILE (workbench JSON Lines), whose version has newer "
        "held versions in its family, is searched exactly in each of them: still_present (with "
        "its offsets there), gone, now_ambiguous, or still_ambiguous (held more than once there as in "
        "its own version). Offsets are never projected; beside a gone "
        "quote the newest version's aligned passage is shown, marked is_evidence: false. Each "
        "note's check against each newer version runs in a separate process and is recorded "
        "in the ledger. Exit 1 when any quote is gone."
    )
    parser.add_argument(
        "--notes", type=arguments.folder, default=None, metavar="DIR", help="notes folder"
    )
    parser.add_argument(
        "--citations",
        type=arguments.lines,
        default=None,
        metavar="FILE",
        help="JSON Lines of citations",
    )
    parser.add_argument("--family", default=None, metavar="F", help="only this family")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    ledger_option(parser)
    path_options(parser, workspace=True, store=True)
    parser.set_defaults(func=cmd_recheck)


ARGUMENTS = {
    "cite": cite_arguments,
    "history": history_arguments,
    "recheck": recheck_arguments,
}
