"""The `workbench` command: a thin layer that parses arguments, calls the library and prints.

Exit codes: 0 success; 1 the command ran but found refusals, mismatches or failures (listed at the
end of its output); 2 bad input or misuse, reported as one line on stderr, never a traceback.
Progress bars go to stderr and only when stderr is a terminal. Text and JSON go to stdout as UTF-8
bytes, whatever the locale, with no newline translation.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

from workbench import corpus as corpus_mod
from workbench.diff import change_as_json, diff_versions, pairing_is_uncertain
from workbench.errors import VersionNotFound, WorkbenchError
from workbench.measure import measure_families, measure_workspace
from workbench.models import CatalogueRow, Refusal
from workbench.report import write_reports
from workbench.segment import segment
from workbench.store import DEFAULT_WORKSPACE, Workspace, ingest

PROG = "workbench"


def _out(text: str) -> None:
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.buffer.flush()


def _json(value: Any) -> None:
    _out(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def _progress() -> bool:
    return sys.stderr.isatty()


def _refusals(title: str, refusals: Sequence[Refusal]) -> int:
    if not refusals:
        return 0
    _out(f"\n{title} ({len(refusals)}):\n")
    for refusal in refusals:
        _out(f"  {refusal.line()}\n")
    return 1


# ---------------------------------------------------------------------------------------------
# Commands


def cmd_admit(args: argparse.Namespace) -> int:
    admission = corpus_mod.admit(args.dir, progress=_progress())
    existing: tuple[CatalogueRow, ...] = ()
    if (args.corpus_dir / corpus_mod.CATALOGUE_NAME).is_file():
        existing = corpus_mod.read_catalogue(args.corpus_dir)
    merged = corpus_mod.merge_admission(existing, admission)
    corpus_mod.write_catalogue(merged, args.corpus_dir)
    kept = len(merged.rows) - len(admission.rows)
    _out(
        f"admitted {len(admission.rows)} documents from {args.dir} into "
        f"{args.corpus_dir / corpus_mod.CATALOGUE_NAME}"
        + (f" (kept {kept} rows already catalogued)" if kept > 0 else "")
        + f"; refused {len(merged.refusals)}\n"
    )
    return _refusals("refused", merged.refusals)


def cmd_fetch(args: argparse.Namespace) -> int:
    mirror = args.mirror
    if mirror is not None and not mirror.is_dir():
        raise FileNotFoundError(f"{mirror}: mirror folder does not exist")
    rows = corpus_mod.read_catalogue(args.corpus_dir)
    report = corpus_mod.fetch(
        rows, args.store, mirror=mirror, url_template=args.mirror_url, progress=_progress()
    )
    refused = corpus_mod.read_refused(args.corpus_dir)
    extra = corpus_mod.fetch(
        refused, args.refused_store, mirror=mirror, url_template=args.mirror_url, progress=_progress()
    )
    _out(
        f"fetched {len(report.copied)}, already held {len(report.held)}, failed {len(report.failed)} "
        f"into {args.store}; refused documents kept for re-checking admission in {args.refused_store}: "
        f"{len(extra.copied) + len(extra.held)}\n"
    )
    return _refusals("failed", report.failed + extra.failed)


def cmd_verify_store(args: argparse.Namespace) -> int:
    rows = corpus_mod.read_catalogue(args.corpus_dir)
    problems = corpus_mod.verify_store(rows, args.store, progress=_progress())
    _out(
        f"catalogue checksum ok; {len(rows) - len(problems)} of {len(rows)} held files match the catalogue\n"
    )
    return _refusals("problems", problems)


def cmd_ingest(args: argparse.Namespace) -> int:
    rows = corpus_mod.read_catalogue(args.corpus_dir)
    with Workspace(args.workspace) as workspace:
        report = ingest(workspace, rows, args.store, progress=_progress())
        held = workspace.count()
    _out(
        f"ingested {len(report.added)} new, {len(report.unchanged)} already held "
        f"({held} versions in {args.workspace}); awaiting an extractor: {len(report.awaiting)} (PDF)\n"
    )
    return _refusals("refused", report.refused)


def cmd_text(args: argparse.Namespace) -> int:
    with Workspace(args.workspace) as workspace:
        _out(workspace.version(args.version_id).text)
    return 0


def cmd_passages(args: argparse.Namespace) -> int:
    with Workspace(args.workspace) as workspace:
        version = workspace.version(args.version_id)
    passages = segment(version.version_id, version.text)
    if args.json:
        _json(
            [
                {
                    "version_id": p.version_id,
                    "ordinal": p.ordinal,
                    "char_start": p.char_start,
                    "char_end": p.char_end,
                    "text": p.text,
                    "section_label": p.section_label,
                }
                for p in passages
            ]
        )
        return 0
    for p in passages:
        first_line = p.text.split("\n", 1)[0][:90]
        _out(
            f"{p.ordinal:5d} [{p.char_start}, {p.char_end}) label={p.section_label or '-'}  {first_line}\n"
        )
    return 0


def _pairs(
    workspace: Workspace, family: str, start: str | None, end: str | None
) -> list[tuple[Any, Any]]:
    versions = list(workspace.versions(family))
    if start is not None or end is not None:
        ids = [v.version_id for v in versions]
        for name in (start, end):
            if name is not None and name not in ids:
                raise VersionNotFound(
                    f"{name}: not a version of family {family}; its versions are {', '.join(ids)}"
                )
        before = workspace.version(start) if start else versions[0]
        after = workspace.version(end) if end else versions[-1]
        return [(before, after)]
    return list(pairwise(versions))


def cmd_diff(args: argparse.Namespace) -> int:
    with Workspace(args.workspace) as workspace:
        pairs = _pairs(workspace, args.family, args.start, args.end)
    if not pairs:
        if args.json:
            _json([])
        else:
            _out(f"{args.family}: only one version is held; nothing to diff\n")
        return 0
    results = [(before, after, diff_versions(before, after)) for before, after in pairs]
    if args.json:
        _json(
            [
                {
                    "before": b.version_id,
                    "after": a.version_id,
                    "changes": [change_as_json(c) for c in changes],
                }
                for b, a, changes in results
            ]
        )
        return 0
    for before, after, changes in results:
        counts = {
            k: sum(c.kind == k for c in changes)
            for k in ("unchanged", "modified", "added", "removed")
        }
        doubtful = sum(pairing_is_uncertain(c) for c in changes)
        _out(
            f"{before.version_id} -> {after.version_id}: "
            + ", ".join(f"{v} {k}" for k, v in counts.items())
            + f"; {doubtful} doubtful\n"
        )
        for c in changes:
            if c.kind == "unchanged":
                continue
            span = c.span_after or c.after or c.before
            source = after if c.after else before
            snippet = (
                source.text[span.char_start : span.char_end][:70].replace("\n", " ") if span else ""
            )
            score = (
                f" conf {c.alignment_confidence:.2f}{' capped' if c.capped else ''}"
                if c.kind == "modified"
                else ""
            )
            flag = " DOUBTFUL" if pairing_is_uncertain(c) else ""
            _out(
                f"  {c.change_id} {c.kind:<8}{score}{flag} labels {c.before_label or '-'}->{c.after_label or '-'}: {snippet!r}\n"
            )
    return 0


def cmd_measure(args: argparse.Namespace) -> int:
    if args.corpus is not None:
        admission = corpus_mod.admit(args.corpus, progress=_progress())
        rows, refusals, store = admission.rows, admission.refusals, args.corpus
    else:
        rows = corpus_mod.read_catalogue(args.corpus_dir)
        refusals, store = corpus_mod.read_refusals(args.corpus_dir), args.store
    wanted = {row.path for row in rows}
    with Workspace(args.workspace) as workspace:
        report = ingest(workspace, rows, store, progress=_progress())
        versions = [v for v in workspace.versions() if v.version_id in wanted]
    families = measure_workspace(versions, progress=_progress())
    written = write_reports(args.out, measure_families(families, rows, refusals))
    _out(f"wrote {len(written)} files into {args.out} ({len(rows)} documents, {len(families)} families)\n")
    failed = _refusals("not ingested", report.refused)
    _refusals("refused at admission (listed in the report, not fatal)", refusals)
    return failed


# @@ commands: verify, export-annotations (issue 3) @@
# @@ commands: review (issue 5) @@
# @@ commands: grade, check, runs, census, quotes (issue 6) @@
# @@ commands: search (issue 7) @@
# @@ commands: eval (issue 10) @@

# ---------------------------------------------------------------------------------------------
# Parser


def _paths(
    parser: argparse.ArgumentParser, *, workspace: bool = False, store: bool = False
) -> None:
    parser.add_argument(
        "--corpus-dir",
        type=Path,
        default=Path("corpus"),
        help="folder holding catalogue.jsonl and its checksum (default: corpus)",
    )
    if store:
        parser.add_argument(
            "--store",
            type=Path,
            default=Path("corpus/real"),
            help="folder the catalogued bytes are fetched into (default: corpus/real)",
        )
    if workspace:
        parser.add_argument(
            "--workspace",
            type=Path,
            default=Path(os.environ.get("WORKBENCH_WORKSPACE", DEFAULT_WORKSPACE)),
            help=f"workspace file (default: $WORKBENCH_WORKSPACE or {DEFAULT_WORKSPACE})",
        )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Regulatory-text workbench: immutable versions, exact offsets, diffs.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    corpus = commands.add_parser(
        "corpus",
        help="admit, fetch and verify the catalogued corpus",
        description="Admit a mirror folder, fetch catalogued bytes, re-verify them.",
    )
    corpus_commands = corpus.add_subparsers(dest="corpus_command", required=True, metavar="COMMAND")
    admit = corpus_commands.add_parser(
        "admit",
        help="admit a mirror folder into the catalogue, listing refusals",
        description="Read every <jurisdiction>/<family>/<file> and its .provenance.json "
        "under DIR, check hashes, write the catalogue. Exit 1 if anything was refused.",
    )
    admit.add_argument(
        "dir",
        type=Path,
        metavar="DIR",
        help="mirror folder in <jurisdiction>/<family>/<file> layout",
    )
    _paths(admit)
    admit.set_defaults(func=cmd_admit)

    fetch = corpus_commands.add_parser(
        "fetch",
        help="bring catalogued bytes into the store, hash-checked",
        description="Copy (or, with no --mirror, download from each row's mirror URL) "
        "every catalogued file into the store, checking SHA-256. A mismatch never "
        "replaces a held file.",
    )
    fetch.add_argument(
        "--mirror",
        type=Path,
        default=None,
        help="local mirror folder to copy from instead of downloading",
    )
    fetch.add_argument(
        "--mirror-url",
        default=os.environ.get("WORKBENCH_MIRROR_URL", corpus_mod.MIRROR_URL),
        metavar="TEMPLATE",
        help="download URL template with {repo}, {commit} and {path} "
        "(default: $WORKBENCH_MIRROR_URL or %(default)s)",
    )
    fetch.add_argument(
        "--refused-store",
        type=Path,
        default=Path("corpus/refused"),
        help="folder for refused documents kept to re-check admission (default: corpus/refused)",
    )
    _paths(fetch, store=True)
    fetch.set_defaults(func=cmd_fetch)

    verify = corpus_commands.add_parser(
        "verify",
        help="re-hash everything held against the catalogue",
        description="Check the catalogue's own checksum, then re-hash every held file.",
    )
    _paths(verify, store=True)
    verify.set_defaults(func=cmd_verify_store)

    ingest_p = commands.add_parser(
        "ingest",
        help="extract and hold every catalogued version (idempotent)",
        description="Extract every catalogued, held file into the workspace. Identical bytes "
        "write nothing; a changed version id is refused. PDFs await their extractor.",
    )
    _paths(ingest_p, workspace=True, store=True)
    ingest_p.set_defaults(func=cmd_ingest)

    text = commands.add_parser(
        "text",
        help="print the exact text offsets index",
        description="Print a held version's text exactly (UTF-8, no newline translation).",
    )
    text.add_argument(
        "version_id", metavar="VERSION_ID", help="catalogue path, e.g. ietf/<family>/<file>.txt"
    )
    _paths(text, workspace=True)
    text.set_defaults(func=cmd_text)

    passages = commands.add_parser(
        "passages",
        help="passages with offsets and section labels",
        description="Split a held version into passages with exact offsets.",
    )
    passages.add_argument("version_id", metavar="VERSION_ID")
    passages.add_argument(
        "--json",
        action="store_true",
        help="print [{version_id, ordinal, char_start, char_end, text, section_label}]",
    )
    _paths(passages, workspace=True)
    passages.set_defaults(func=cmd_passages)

    diff = commands.add_parser(
        "diff",
        help="typed changes with confidence, cap and narrowed spans",
        description="Diff consecutive versions of a family (or --from/--to). Doubtful pairings "
        "are modified pairs with confidence at or below the restructure ceiling.",
    )
    diff.add_argument("family", metavar="FAMILY", help="document family, e.g. dc-code-34-306")
    diff.add_argument(
        "--from", dest="start", metavar="V", help="version id to diff from (default: first)"
    )
    diff.add_argument("--to", dest="end", metavar="V", help="version id to diff to (default: last)")
    diff.add_argument("--json", action="store_true", help="print the changes as JSON")
    _paths(diff, workspace=True)
    diff.set_defaults(func=cmd_diff)

    measure = commands.add_parser(
        "measure",
        help="re-derive measurements/ from the corpus",
        description="Ingest (idempotent) and write measurements/. With --corpus DIR, runs "
        "the whole chain on any mirror-layout folder: admission refusals are listed, not fatal.",
    )
    measure.add_argument(
        "--corpus",
        type=Path,
        default=None,
        help="mirror-layout folder to admit and measure instead of the catalogue",
    )
    measure.add_argument(
        "--out",
        type=Path,
        default=Path("measurements"),
        help="output folder (default: measurements)",
    )
    _paths(measure, workspace=True, store=True)
    measure.set_defaults(func=cmd_measure)
    # @@ parser: verify, export-annotations (issue 3) @@
    # @@ parser: review (issue 5) @@
    # @@ parser: grade, check, runs, census, quotes (issue 6) @@
    # @@ parser: search (issue 7) @@
    # @@ parser: eval (issue 10) @@
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except (WorkbenchError, FileNotFoundError) as exc:
        message = str(exc) if isinstance(exc, WorkbenchError) else " ".join(str(exc).split())
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`workbench ... | head`): stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
