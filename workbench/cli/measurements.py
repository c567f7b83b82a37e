"""Measurement commands: re-derive `measurements/` from a corpus (`measure`) and score the workbench
on the demonstration corpus and the alignment truth (`eval`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from workbench.cli import arguments
from workbench.cli.common import (
    exit_for_refusals,
    list_refusals,
    out,
    own_profiles,
    path_options,
    profiles_option,
    progress,
)


def cmd_measure(args: argparse.Namespace) -> int:
    from workbench import corpus as corpus_mod
    from workbench.engine import check_engine_options, measure_held
    from workbench.measure import measure_families, measure_workspace
    from workbench.profiles import registry
    from workbench.report import write_reports  # altair loads only when reports are written
    from workbench.store import Workspace, ingest

    check_engine_options(args.workers, args.scheduler)
    if args.corpus is not None:
        admission = corpus_mod.admit(args.corpus, progress=progress())
        rows, refusals, store = admission.rows, admission.refusals, args.corpus
        if not rows:
            list_refusals("refused at admission", refusals)
            out(f"no document admitted from {args.corpus}; nothing measured\n")
            return 1
    else:
        rows = corpus_mod.read_catalogue(args.corpus_dir)
        refusals, store = corpus_mod.read_refusals(args.corpus_dir), args.store
    wanted = {row.path for row in rows}
    own = own_profiles(args, args.corpus)
    with Workspace(args.workspace) as workspace:
        report = ingest(workspace, rows, store, progress=progress())
        if args.workers is None and args.scheduler is None:
            versions = [v for v in workspace.versions() if v.version_id in wanted]
            families = measure_workspace(versions, progress=progress(), profiles=registry(own))
        else:
            # The workers read and hash-check the bytes themselves; only rows and hashes travel.
            families = measure_held(
                workspace,
                rows,
                store,
                workers=args.workers,
                scheduler=args.scheduler,
                progress=progress(),
                profiles=registry(own),
            )
    written = write_reports(args.out, measure_families(families, rows, refusals))
    out(
        f"wrote {len(written)} files into {args.out} ({len(rows)} documents, {len(families)} families)\n"
    )
    failed = list_refusals("not ingested", report.refused)
    list_refusals("refused at admission (listed in the report)", refusals)
    return max(failed, exit_for_refusals(refusals))


def cmd_eval(args: argparse.Namespace) -> int:
    from workbench import corpus as corpus_mod
    from workbench import evals
    from workbench.store import Workspace

    card = evals.scorecard(evals.load_demo(args.demo))
    if args.out is not None:
        for name in evals.write_scorecard(args.out, card):
            print(f"wrote {args.out / name}", file=sys.stderr)
    if args.truth is not None:
        from workbench import alignment_score
        from workbench.measure import corpus_digest

        truth = alignment_score.read_truth(args.truth)
        with Workspace(args.workspace) as workspace:
            alignment = alignment_score.alignment_scorecard(
                truth,
                workspace.version,
                corpus_digest=corpus_digest(corpus_mod.read_catalogue(args.corpus_dir)),
                truth_sha256=alignment_score.file_sha256(args.truth),
            )
        if args.out is not None:
            for name in alignment_score.write_alignment_scorecard(args.out, alignment):
                print(f"wrote {args.out / name}", file=sys.stderr)
        if not args.json:
            sys.stdout.buffer.write(alignment_score.scorecard_markdown(alignment))
    if args.json:
        sys.stdout.buffer.write(evals.scorecard_bytes(card))
    else:
        sys.stdout.buffer.write(evals.scorecard_markdown(card))
    sys.stdout.buffer.flush()
    return 0


def add_commands(commands: Any) -> None:
    measure = commands.add_parser(
        "measure",
        help="re-derive measurements/ from the corpus",
        description="Ingest (idempotent) and write measurements/. With --corpus DIR, runs "
        "the whole chain on any mirror-layout folder: admission refusals are listed, not fatal.",
    )
    measure.add_argument(
        "--corpus",
        type=arguments.folder,
        default=None,
        help="mirror-layout folder to admit and measure instead of the catalogue",
    )
    measure.add_argument(
        "--out",
        type=arguments.out_folder,
        default=Path("measurements"),
        help="output folder (default: measurements)",
    )
    engine = measure.add_mutually_exclusive_group()
    engine.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="run the map on a local Dask cluster of N worker processes (default: in-process)",
    )
    engine.add_argument(
        "--scheduler",
        default=None,
        metavar="tcp://HOST:PORT",
        help="run the map on an existing Dask cluster; every worker must see the store at the "
        "same path and run the same workbench",
    )
    path_options(measure, workspace=True, store=True)
    profiles_option(measure)
    measure.set_defaults(func=cmd_measure)
    eval_ = commands.add_parser(
        "eval",
        help="the scorecard on the demonstration corpus",
        description="Score the diff (does each change match a manifest edit, are its offsets "
        "exact, is its caution right) and the verifier (a probe set whose outcomes the manifest "
        "decides) on the demonstration corpus, after checking its manifest against the bytes. "
        "Prints the scorecard; with --out, also writes eval-scorecard.json and .md there.",
    )
    eval_.add_argument(
        "--demo",
        type=arguments.folder,
        default=Path("corpus/demo"),
        help="demonstration corpus folder holding manifest.json (default: corpus/demo)",
    )
    eval_.add_argument(
        "--out",
        type=arguments.out_folder,
        help="write eval-scorecard.json and eval-scorecard.md into this folder",
    )
    eval_.add_argument("--json", action="store_true", help="print the scorecard as JSON")
    eval_.add_argument(
        "--truth",
        type=arguments.text,
        help="also score the real corpus's pairings against this alignment truth (written by "
        "scripts/alignment_truth.py) and, with --out, write alignment-scorecard.json and .md",
    )
    path_options(eval_, workspace=True)
    eval_.set_defaults(func=cmd_eval)
