"""Note commands: grade a note, check its quotes in a separate process, its runs in the ledger, the
census of a notes folder, and a source report's quotes register.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from workbench.cli import arguments
from workbench.cli.arguments import Parser
from workbench.cli.common import PROG, err, ledger_option, ocr_cache, out, path_options, print_json
from workbench.wording import counted


def cmd_grade(args: argparse.Namespace) -> int:
    from workbench.notes.grade import grade_note
    from workbench.notes.ledger import Ledger
    from workbench.notes.note import catalogue_index, note_key, parse_note

    note = parse_note(args.note)
    catalogue = catalogue_index(args.corpus_dir)
    with Ledger(args.ledger) as ledger:
        grade = grade_note(note, catalogue, ledger.runs(note_key(args.note)))
    if args.json:
        print_json(grade.as_json())
        return 0
    out(f"{args.note}: {grade.grade}\n" + "".join(f"  {line}\n" for line in grade.why))
    return 0


def _check_lines(report: Any) -> str:
    run = report.run
    head = f"{report.note}: {run.outcome} against {run.document} (run {run.run})"
    if report.pointer_after != report.pointer_before:
        head += (
            f"; pointer set to {report.pointer_after}"
            if report.pointer_after
            else f"; pointer {report.pointer_before} cleared"
        )
    lines = [head]
    if run.outcome == "checksum_mismatch":
        lines.append(f"  held sha256 {run.document_sha256} does not match the catalogue")
    for q in run.missing:
        excerpt = " ".join(q["quote"].split())
        route = f" via the {q['route']} route of {q['report']}" if "route" in q else ""
        lines.append(f"  {q['status']}: line {q['line']}: {excerpt!r} ({q['locator']}){route}")
    return "".join(line + "\n" for line in lines)


def cmd_check(args: argparse.Namespace) -> int:
    from workbench.errors import NoteError
    from workbench.notes.check import check_note, check_notes
    from workbench.notes.ledger import Ledger

    if (args.note is None) == (args.all is None):
        raise NoteError("check: give one NOTE or --all DIR")
    if args.all is not None and args.against is not None:
        raise NoteError("check: --against goes with one NOTE, not with --all")
    with Ledger(args.ledger) as ledger:
        if args.all is not None:
            reports = check_notes(
                args.all,
                corpus_dir=args.corpus_dir,
                store=args.store,
                ledger=ledger,
                ocr_cache=ocr_cache(args),
            )
        else:
            reports = (
                check_note(
                    args.note,
                    against=args.against,
                    corpus_dir=args.corpus_dir,
                    store=args.store,
                    ledger=ledger,
                    ocr_cache=ocr_cache(args),
                ),
            )
    unbound = 0
    for report in reports:
        out(_check_lines(report))
        checks = _figure_checks(report.note, args.root)
        out("".join(check.line() + "\n" for check in checks))
        unbound += any(check.outcome != "bound" for check in checks)
    failed = sum(not r.confirmed for r in reports)
    if args.all is not None:
        out(f"{len(reports)} notes checked: {len(reports) - failed} confirmed, {failed} not\n")
    return 1 if failed or unbound else 0


def _figure_checks(note: Path, root: Path) -> tuple[Any, ...]:
    """The note's bound figures, each checked against its measurement file under `root`."""
    from workbench.notes.figures import check_figure, parse_figures
    from workbench.notes.note import parse_note

    return tuple(check_figure(figure, root) for figure in parse_figures(parse_note(note)))


def cmd_runs(args: argparse.Namespace) -> int:
    from workbench.notes.ledger import Ledger
    from workbench.notes.note import note_key

    with Ledger(args.ledger) as ledger:
        runs = ledger.runs(note_key(args.note))
    if args.json:
        print_json([r.as_json() for r in runs])
        return 0
    for r in runs:
        found = sum(q["status"] == "found" for q in r.quotes)
        out(
            f"run {r.run} {r.checked_at} {r.outcome}: {found}/{len(r.quotes)} quotes found in "
            f"{r.document} (sha256 {r.document_sha256[:12]}); quotes sha256 {r.quotes_sha256[:12]}; "
            f"checker pid {r.checker_pid} workbench {r.workbench_version} "
            f"module {r.checker_sha256[:12]}\n"
        )
    out(f"{counted(len(runs), 'run')}\n")
    return 0


def cmd_census(args: argparse.Namespace) -> int:
    from workbench.notes.grade import census
    from workbench.notes.ledger import Ledger

    with Ledger(args.ledger) as ledger:
        result = census(args.dir, corpus_dir=args.corpus_dir, ledger=ledger)
    out("".join(line + "\n" for line in result.lines()))
    return 0


def cmd_quotes_new(args: argparse.Namespace) -> int:
    from workbench.notes.register import new_report

    report = new_report(
        args.folder,
        args.slug,
        args.source,
        corpus_dir=args.corpus_dir,
        store=args.store,
        ocr_cache=ocr_cache(args),
    )
    out(
        f"{report.path}: new source report of {report.canonical_source}; snapshot "
        f"{report.snapshot_path} (sha256 {report.snapshot_sha256})\n"
    )
    return 0


def cmd_quotes_add(args: argparse.Namespace) -> int:
    from workbench.errors import ExtractNotFound
    from workbench.notes.register import add_quote
    from workbench.notes.report import LOCATION_LABEL

    try:
        added = add_quote(args.report, args.extract, args.location)
    except ExtractNotFound as exc:  # refused, not unusable (the README's exit-code rule)
        err(f"{PROG}: refused: {exc}")
        return 1
    excerpt = " ".join(added.text.split())
    out(
        f"{args.report}: line {added.line}: retained {excerpt[:80]!r} "
        f"({LOCATION_LABEL} {added.location})\n"
    )
    return 0


def cmd_quotes_validate(args: argparse.Namespace) -> int:
    from workbench.notes.note import catalogue_index
    from workbench.notes.register import validate_report
    from workbench.notes.report import parse_report

    catalogue = catalogue_index(args.corpus_dir)
    failed = 0
    for path in args.reports:
        problems = validate_report(path, corpus_dir=args.corpus_dir, catalogue=catalogue)
        if problems:
            failed += 1
            out("".join(f"{problem}\n" for problem in problems))
        else:
            report = parse_report(path)
            held = len(report.extracts)
            out(
                f"{path}: valid: {held} source extract{'s' * (held != 1)}; snapshot "
                f"{report.snapshot_path} matches (sha256 {report.snapshot_sha256[:12]})\n"
            )
    return 1 if failed else 0


def cmd_quotes_snapshot(args: argparse.Namespace) -> int:
    from workbench.notes.snapshot import write_snapshot

    done = write_snapshot(
        args.report, corpus_dir=args.corpus_dir, store=args.store, ocr_cache=ocr_cache(args)
    )
    said = "wrote" if done.written else "already holds the recorded bytes:"
    out(f"{args.report}: {said} {done.path} (sha256 {done.sha256})\n")
    return 0


def grade_arguments(parser: Parser) -> None:
    parser.description = "Read a note's grade off its header and the run ledger; nothing is stored."
    parser.add_argument("note", type=arguments.lines, metavar="NOTE")
    parser.add_argument("--json", action="store_true", help="print the grade as JSON")
    ledger_option(parser)
    path_options(parser)
    parser.set_defaults(func=cmd_grade)


def check_arguments(parser: Parser) -> None:
    parser.description = (
        "Spawn a checking process given only the note and the document: checksum "
        "against the catalogue first, then every quote (normalized, exact, occurrence rule). "
        "All found: the pointer is written and the run recorded. Any missing: no pointer, the "
        "missing quotes listed, exit 1. Without --against, the note's pointer or document field "
        "names the file (under --store). Then each bound figure ('> figure:' with 'from: "
        "measurements/FILE#/pointer' and 'digest:') is read again: a changed value or a stale "
        "digest is named with both values, exit 1."
    )
    parser.add_argument("note", nargs="?", type=arguments.lines, metavar="NOTE")
    parser.add_argument(
        "--against", type=arguments.document, metavar="PATH", help="the held document's file"
    )
    parser.add_argument(
        "--all", type=arguments.folder, metavar="DIR", help="check every note in DIR"
    )
    parser.add_argument(
        "--root",
        type=arguments.folder,
        default=Path("."),
        metavar="DIR",
        help="the folder a bound figure's 'from: measurements/FILE#/pointer' is read under "
        "(default: the current folder)",
    )
    ledger_option(parser)
    path_options(parser, store=True)
    parser.set_defaults(func=cmd_check)


def runs_arguments(parser: Parser) -> None:
    parser.description = "List every recorded check of NOTE, oldest first."
    parser.add_argument("note", type=arguments.lines, metavar="NOTE")
    parser.add_argument("--json", action="store_true", help="print the runs as JSON")
    ledger_option(parser)
    parser.set_defaults(func=cmd_runs)


def census_arguments(parser: Parser) -> None:
    parser.description = (
        "Grade every note in DIR from its header and the ledger: counts per grade, "
        "top-grade notes missing an evidence field, middle-grade pointers with no recorded run "
        "behind them (evidence missing), and percentages in a fact-carrying note's prose that "
        "neither a bound figure nor one of its quotes grounds. Gates nothing; exits 0."
    )
    parser.add_argument("dir", type=arguments.folder, metavar="DIR")
    ledger_option(parser)
    path_options(parser)
    parser.set_defaults(func=cmd_census)


def quotes_arguments(parser: Parser) -> None:
    parser.description = (
        "Keep the verbatim extracts a source report retains (notes/reports/"
        "<slug>.ingest.md), each checked against the exact snapshot bytes the report records."
    )
    quotes_commands = parser.add_subparsers(dest="quotes_command", required=True, metavar="COMMAND")
    quotes_new = quotes_commands.add_parser(
        "new",
        help="write a report skeleton and its snapshot",
        description="Write FOLDER/SLUG.ingest.md with an empty Quotes section, and its snapshot "
        "FOLDER/.snapshots/SLUG.md built from the fetched, hash-checked document; the report "
        "records the snapshot's SHA-256. Never overwrites a report.",
    )
    quotes_new.add_argument("slug", metavar="SLUG", help="lowercase letters, digits, . _ -")
    quotes_new.add_argument(
        "--source", required=True, metavar="CATALOGUE_PATH", help="the document's catalogue path"
    )
    quotes_new.add_argument(
        "--folder",
        type=arguments.out_folder,
        default=Path("notes/reports"),
        help="where the report goes (default: notes/reports)",
    )
    path_options(quotes_new, store=True)
    quotes_new.set_defaults(func=cmd_quotes_new)
    quotes_add = quotes_commands.add_parser(
        "add",
        help="retain one verbatim extract, found in the snapshot",
        description="Read the report's snapshot (its SHA-256 and canonical source checked), "
        "search the extract in it (normalized, exact), and append the extract and its location "
        "at the end of the Quotes section, every other byte kept. A refused extract writes "
        "nothing.",
    )
    quotes_add.add_argument("report", type=arguments.lines, metavar="REPORT")
    quotes_add.add_argument("--extract", required=True, metavar="TEXT", help="the verbatim words")
    quotes_add.add_argument(
        "--location", required=True, metavar="TEXT", help="where they stand (one line)"
    )
    quotes_add.set_defaults(func=cmd_quotes_add)
    quotes_validate = quotes_commands.add_parser(
        "validate",
        help="check reports' structure and that every extract is in the snapshot",
        description="List every problem of each REPORT, one line each: structure, canonical "
        "source against the catalogue, the snapshot (missing, unreadable or mismatched bytes "
        "fail closed), each extract not found in it. Exit 1 on any problem.",
    )
    quotes_validate.add_argument("reports", nargs="+", type=arguments.lines, metavar="REPORT")
    path_options(quotes_validate)
    quotes_validate.set_defaults(func=cmd_quotes_validate)
    quotes_snapshot = quotes_commands.add_parser(
        "snapshot",
        help="write a report's ignored snapshot from the fetched corpus",
        description="Build REPORT's snapshot from the hash-checked corpus file and write it to "
        ".snapshots/<slug>.md beside the report; refused if it would hash differently from the "
        "recorded snapshot_sha256, which is never rewritten.",
    )
    quotes_snapshot.add_argument("report", type=arguments.lines, metavar="REPORT")
    path_options(quotes_snapshot, store=True)
    quotes_snapshot.set_defaults(func=cmd_quotes_snapshot)


ARGUMENTS = {
    "grade": grade_arguments,
    "check": check_arguments,
    "runs": runs_arguments,
    "census": census_arguments,
    "quotes": quotes_arguments,
}
