"""Measurement commands: re-derive `measurements/` from a corpus (`measure`) and score the workbench
on the demonstration corpus and the alignment truth (`eval`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.cli import arguments
from workbench.cli.arguments import Parser
from workbench.cli.common import (
    err,
    exit_for_refusals,
    given,
    list_refusals,
    open_held,
    out,
    out_bytes,
    path_options,
    profiles_option,
    progress,
    say_overrides,
)
from workbench.defaults import MIN_CLUSTER_FAMILIES
from workbench.tables import EXPORT_FORMATS

if TYPE_CHECKING:
    from workbench.measure.run import MeasurePlan, MeasureRun
    from workbench.search.index import IndexUpdate


def cmd_measure(args: argparse.Namespace) -> int:
    from workbench.measure.run import measure_planned

    plan = _plan(args)
    run = measure_planned(
        plan,
        workers=args.workers,
        scheduler=args.scheduler,
        export=args.export,
        progress=progress(),
        min_cluster_families=args.min_cluster_families,
    )
    if not run.written or run.settings is None:
        return _nothing_admitted(run, plan, "measured")
    out(f"{_measured(run, plan)}\n")
    if run.numbering is not None:
        out(numbering_summary(run.numbering))
    if not run.settings.is_project():
        out(
            f"the workspace {plan.workspace.resolve()} remembers this corpus (catalogue and "
            f"refusals in {run.settings.catalogue.resolve()}): give other commands "
            f"--workspace {plan.workspace.resolve()}, or\n"
            f"export WORKBENCH_WORKSPACE={plan.workspace.resolve()}\n"
        )
    return _refusals(run)


def cmd_update(args: argparse.Namespace) -> int:
    from workbench.cli.amendments import write_reconciled
    from workbench.measure.update import update_corpus

    plan = _plan(args)
    done = update_corpus(
        plan,
        workers=args.workers,
        scheduler=args.scheduler,
        min_cluster_families=args.min_cluster_families,
        jurisdiction=args.jurisdiction,
        progress=progress(),
    )
    run = done.measured
    if done.index is None:
        return _nothing_admitted(run, plan, "updated")
    held = done.index.status
    lines = [
        f"measured: {_measured(run, plan)}",
        f"search index: {_index_change(done.index)} ({held.texts} distinct texts, "
        f"{held.passages} passages)",
    ]
    if done.reconciled is None:
        lines.append(f"not reconciled: {done.not_reconciled}")
    else:
        lines += write_reconciled(done.reconciled, run.corpus_digest, args.reconciliation)[1]
    out("".join(line + "\n" for line in lines))
    return _refusals(run)


def _plan(args: argparse.Namespace) -> MeasurePlan:
    """What `measure` or `update` measures, and where, from the options given; which given
    option wins over what the workspace remembers is said on stderr."""
    from workbench.measure.run import plan_measure

    plan = plan_measure(
        workspace=given(args, "workspace"),
        out=args.out,
        corpus=args.corpus,
        corpus_dir=given(args, "corpus_dir"),
        store=given(args, "store"),
        profiles=args.profiles,
    )
    say_overrides(plan.overrides)
    return plan


def _measured(run: MeasureRun, plan: MeasurePlan) -> str:
    """What the run wrote: "wrote N files into OUT", "wrote K of N files into OUT, the others
    up to date" or, when every file held its bytes already, "N files up to date in OUT"."""
    files, changed = len(run.written), len(run.changed)
    if not changed:
        wrote = f"{files} files up to date in {plan.out.resolve()}"
    elif changed == files:
        wrote = f"wrote {files} files into {plan.out.resolve()}"
    else:
        wrote = f"wrote {changed} of {files} files into {plan.out.resolve()}, the others up to date"
    return (
        f"{wrote} ({run.documents} documents, "
        f"{len(run.families)} families; {len(run.reused)} reused unchanged from the cache, "
        f"{len(run.families) - len(run.reused)} measured {run.engine})"
    )


def _nothing_admitted(run: MeasureRun, plan: MeasurePlan, what: str) -> int:
    list_refusals("refused at admission", run.admission_refusals)
    out(f"no document admitted from {plan.mirror}; nothing {what}\n")
    return 1


def _refusals(run: MeasureRun) -> int:
    """Each document not ingested and each refused at admission listed; the exit code."""
    failed = list_refusals("not ingested", run.not_ingested)
    list_refusals("refused at admission (listed in the report)", run.admission_refusals)
    return max(failed, exit_for_refusals(run.admission_refusals))


def _index_change(done: IndexUpdate) -> str:
    if done.built:
        return "built"
    if done.added or done.dropped:
        return f"{done.added} versions added, {done.dropped} dropped"
    return "up to date"


def _family_count(text: str) -> int:
    """`--min-cluster-families`: a whole number of at least 0."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number of at least 0")
    return arguments.whole_number(text)


def cmd_eval(args: argparse.Namespace) -> int:
    if args.out is None or (args.truth is None and args.amendment_truth is None):
        return _eval(args)
    from workbench.derived import DerivedState, outputs_hold, outputs_of
    from workbench.evals.cards import SCORECARDS_KIND, scorecards_key

    # Scorecards written into a folder are derived state: kept under their key, taken while it
    # holds and no version was admitted since (`workbench.derived`), their files unchanged.
    with open_held(args) as workspace:  # one that does not exist is refused before any work
        key = scorecards_key(workspace, args.demo, args.truth, args.amendment_truth)
        kept = DerivedState(workspace).holds(SCORECARDS_KIND, str(args.out.resolve()), key)
    printed = _printed(args)
    if kept is not None and outputs_hold(args.out, kept.value):
        err(f"{args.out}: the scorecards' key holds; nothing derived")
        for name in printed:
            out_bytes((args.out / name).read_bytes())
        return 0
    status = _eval(args)
    with open_held(args) as workspace:
        DerivedState(workspace).keep(
            SCORECARDS_KIND, str(args.out.resolve()), key, outputs_of(args.out, _written(args))
        )
    return status


def _written(args: argparse.Namespace) -> list[str]:
    """The scorecard files `eval --out` writes."""
    from workbench.evals import alignment, amendments, scorecard

    names = [scorecard.SCORECARD_JSON, scorecard.SCORECARD_MD]
    if args.truth is not None:
        names += [alignment.SCORECARD_JSON, alignment.SCORECARD_MD]
    if args.amendment_truth is not None:
        names += [amendments.SCORECARD_JSON, amendments.SCORECARD_MD]
    return names


def _printed(args: argparse.Namespace) -> list[str]:
    """The scorecard files whose bytes `eval` prints, in its order."""
    from workbench.evals import alignment, amendments, scorecard

    names = []
    if args.truth is not None and not args.json:
        names.append(alignment.SCORECARD_MD)
    if args.amendment_truth is not None and not args.json:
        names.append(amendments.SCORECARD_MD)
    names.append(scorecard.SCORECARD_JSON if args.json else scorecard.SCORECARD_MD)
    return names


def _eval(args: argparse.Namespace) -> int:
    from workbench.corpus import catalogue as corpus_mod
    from workbench.evals import scorecard as evals
    from workbench.evals.cards import scorecard_bytes
    from workbench.evals.demo import load_demo

    if args.truth is not None or args.amendment_truth is not None:
        open_held(args).close()  # a workspace that does not exist is refused before any work
    card = evals.scorecard(load_demo(args.demo))
    if args.out is not None:
        for name in evals.write_scorecard(args.out, card):
            err(f"wrote {args.out / name}")
    if args.truth is not None:
        from workbench.evals import alignment as alignment_score
        from workbench.evals.truth import file_sha256, read_truth
        from workbench.measure import corpus_digest

        truth = read_truth(args.truth, alignment_score.ALIGNMENT_TRUTH)
        with open_held(args) as workspace:
            alignment = alignment_score.alignment_scorecard(
                truth,
                workspace,
                corpus_digest=corpus_digest(
                    corpus_mod.read_catalogue(workspace.settings.catalogue)
                ),
                truth_sha256=file_sha256(args.truth),
            )
        if args.out is not None:
            for name in alignment_score.write_alignment_scorecard(args.out, alignment):
                err(f"wrote {args.out / name}")
        if not args.json:
            out_bytes(alignment_score.scorecard_markdown(alignment))
    if args.amendment_truth is not None:
        _amendment_scorecard(args)
    out_bytes(scorecard_bytes(card) if args.json else evals.scorecard_markdown(card))
    return 0


def _amendment_scorecard(args: argparse.Namespace) -> None:
    from workbench.amendments.reconcile import amendment_report
    from workbench.corpus import catalogue as corpus_mod
    from workbench.evals import amendments as amendment_score
    from workbench.evals.truth import file_sha256, read_truth
    from workbench.measure import corpus_digest

    truth = read_truth(args.amendment_truth, amendment_score.AMENDMENT_TRUTH)
    with open_held(args) as workspace:
        rows = corpus_mod.read_catalogue(workspace.settings.catalogue)
        report = amendment_report(
            workspace, str(truth.get("jurisdiction")), rows, workspace.settings.store
        )
    card = amendment_score.amendment_scorecard(
        truth,
        report,
        corpus_digest=corpus_digest(rows),
        truth_sha256=file_sha256(args.amendment_truth),
    )
    if args.out is not None:
        for name in amendment_score.write_amendment_scorecard(args.out, card):
            err(f"wrote {args.out / name}")
    if not args.json:
        out_bytes(amendment_score.scorecard_markdown(card))


def numbering_summary(numbering: dict[str, Any]) -> str:
    """The terminal's lines on the families whose numbering was read: overall, then each
    jurisdiction (`summary.reading_text`)."""
    from workbench.measure.summary import reading_text

    lines = [f"numbering: {reading_text(numbering['overall'])}"]
    lines += [f"  {j}: {reading_text(b)}" for j, b in numbering["jurisdictions"].items()]
    return "\n".join(lines) + "\n"


def engine_options(parser: argparse.ArgumentParser) -> None:
    """--workers, --scheduler and --min-cluster-families: where the map of families runs."""
    engine = parser.add_mutually_exclusive_group()
    engine.add_argument(
        "--workers",
        type=arguments.integer,
        default=None,
        metavar="N",
        help="run the map on a local Dask cluster of N worker processes, started only when at "
        "least --min-cluster-families families are to be measured; fewer are measured "
        "in-process (default: in-process)",
    )
    engine.add_argument(
        "--scheduler",
        default=None,
        metavar="tcp://HOST:PORT",
        help="run the map on an existing Dask cluster; every worker must see the store at the "
        "same path and run the same workbench",
    )
    parser.add_argument(
        "--min-cluster-families",
        type=_family_count,
        default=MIN_CLUSTER_FAMILIES,
        metavar="N",
        help="with --workers: start the local cluster only when at least N families are to be "
        f"measured, since starting one takes seconds (default: {MIN_CLUSTER_FAMILIES}; 0: always)",
    )


def measure_arguments(parser: Parser) -> None:
    parser.description = (
        "Ingest (idempotent) and write measurements/. With --corpus DIR, runs "
        "the whole chain on any mirror-layout folder: admission refusals are listed, not fatal. "
        "The workspace remembers the corpus, catalogue, store and profiles it was measured with; "
        "every other command on it reads them, and measure itself when run on it again."
    )
    parser.add_argument(
        "--corpus",
        type=arguments.folder,
        default=None,
        help="mirror-layout folder to admit and measure instead of the catalogue (default: the "
        "one the workspace remembers); its catalogue, workspace and reports go to its own folder, "
        ".workbench/corpora/<name>-<hash>/, unless named",
    )
    parser.add_argument(
        "--out",
        type=arguments.out_folder,
        default=None,
        help="output folder (default: measurements for the project's corpus; for any other, "
        "measurements/ beside the workspace)",
    )
    engine_options(parser)
    parser.add_argument(
        "--export",
        choices=EXPORT_FORMATS,
        default=None,
        help="also write the measurement tables (table-<kind>.csv or .parquet) into --out",
    )
    path_options(parser, workspace=True, store=True, written=("workspace",))
    profiles_option(parser)
    parser.set_defaults(func=cmd_measure)


def update_arguments(parser: Parser) -> None:
    parser.description = (
        "What 'measure', 'search --reindex' and 'reconcile' do one after the other, "
        "in one process that reads the catalogue once: admit what is new (with --corpus DIR, "
        "or the mirror the workspace remembers), ingest and measure the families it touched, "
        "add the new versions to the search index, and reconcile the sections and laws it "
        "touched, writing the reconciliation report. A workspace holding no law or no Code "
        "section of --jurisdiction is not reconciled, and says so. The separate commands stay. "
        "Exit as measure."
    )
    parser.add_argument(
        "--corpus",
        type=arguments.folder,
        default=None,
        help="mirror-layout folder to admit (default: the one the workspace remembers)",
    )
    parser.add_argument(
        "--out",
        type=arguments.out_folder,
        default=None,
        help="measurement reports folder (default: as measure's)",
    )
    parser.add_argument(
        "--reconciliation",
        type=arguments.out_folder,
        default=Path(".workbench") / "reconciliation",
        metavar="DIR",
        help="folder the reconciliation report is written into (default: "
        ".workbench/reconciliation)",
    )
    parser.add_argument(
        "--jurisdiction",
        default="us-dc",
        metavar="J",
        help="the jurisdiction whose drafting style reads the laws (default: us-dc)",
    )
    engine_options(parser)
    path_options(parser, workspace=True, store=True, written=("workspace",))
    profiles_option(parser)
    parser.set_defaults(func=cmd_update)


def eval_arguments(parser: Parser) -> None:
    parser.description = (
        "Score the diff (does each change match a manifest edit, are its offsets "
        "exact, is its caution right) and the verifier (a probe set whose outcomes the manifest "
        "decides) on the demonstration corpus, after checking its manifest against the bytes. "
        "Prints the scorecard; with --out, also writes eval-scorecard.json and .md there."
    )
    parser.add_argument(
        "--demo",
        type=arguments.folder,
        default=Path("corpus/demo"),
        help="demonstration corpus folder holding manifest.json (default: corpus/demo)",
    )
    parser.add_argument(
        "--out",
        type=arguments.out_folder,
        help="write eval-scorecard.json and eval-scorecard.md into this folder",
    )
    parser.add_argument("--json", action="store_true", help="print the scorecard as JSON")
    parser.add_argument(
        "--truth",
        type=arguments.text,
        help="also score the real corpus's pairings against this alignment truth (written by "
        "scripts/alignment_truth.py) and, with --out, write alignment-scorecard.json and .md",
    )
    parser.add_argument(
        "--amendment-truth",
        type=arguments.text,
        help="also score the D.C. Laws' amendment instructions against this truth (written by "
        "scripts/amendment_truth.py) and, with --out, write amendment-scorecard.json and .md",
    )
    path_options(parser, workspace=True, store=True)
    parser.set_defaults(func=cmd_eval)


ARGUMENTS = {
    "measure": measure_arguments,
    "update": update_arguments,
    "eval": eval_arguments,
}
