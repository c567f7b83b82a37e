"""Change commands: the typed diff of consecutive versions, and the review of doubtful pairings
(the queue, answers into the hash-chained verdict log, the log and its chain).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from workbench.cli import arguments
from workbench.cli.arguments import Parser
from workbench.cli.common import (
    err,
    open_held,
    out,
    path_options,
    print_json,
    profiles_option,
    progress,
)
from workbench.defaults import DEFAULT_AUDIT_CONFIDENCE, DEFAULT_AUDIT_N
from workbench.models import CHANGE_KINDS
from workbench.tables import EXPORT_FORMATS
from workbench.terminal import visible

if TYPE_CHECKING:
    from workbench.changes.attribution import Attributions
    from workbench.changes.redline import Section
    from workbench.changes.verdict import Verdict
    from workbench.corpus import CorpusSettings


def _colour() -> bool:
    """ANSI colour on stdout: only when it is a terminal and NO_COLOR is unset or empty."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def cmd_diff(args: argparse.Namespace) -> int:
    from workbench.changes import diff_files, pairs, redline
    from workbench.changes.attribution import attribution_counts, section_json
    from workbench.errors import RedlineError

    if args.docx is not None:
        from workbench.cli.redline import diff_docx

        return diff_docx(args, _made_by)
    if (args.export is None) != (args.out is None):
        raise RedlineError(
            "--export FORMAT and --out FILE go together: the table's format and file"
        )
    # Both outputs are checked before anything is computed, so a bad one writes neither.
    if args.html is not None:
        diff_files.writable(args.html, "the redline page")
    if args.export is not None:
        diff_files.export_target(args.export, args.out)
    listing = not (args.json or args.html is not None or args.export is not None)
    kinds = pairs.kinds_shown(args.kind, listing=listing)
    with open_held(args) as workspace:
        # Kept diffs are shown from the versions' texts; only a pair not kept reads whole versions.
        chosen = pairs.text_pairs(workspace, args.family, start=args.start, end=args.end)
        settings = workspace.settings
        sections = pairs.kept_sections(
            chosen,
            workspace,
            kinds=kinds,
            doubtful=args.doubtful,
            listing=listing and not args.laws,
        )
        if sections is None:
            sections = pairs.diff_sections(
                pairs.version_pairs(workspace, args.family, start=args.start, end=args.end),
                kinds=kinds,
                doubtful=args.doubtful,
                workspace=workspace,
            )
        noted = pairs.section_footnotes(sections, workspace)
    if not chosen:
        if args.json:
            print_json([])
        else:
            out(f"{args.family}: only one version is held; nothing to diff\n")
        return 0
    made = _made_by(args, settings, sections) if args.laws else None
    wrote = []
    if args.html is not None:
        from workbench.changes import redline_page as redline_html  # its templates: jinja2

        shown = redline.selection_words(args.kind, args.doubtful)
        page = redline_html.page_html(sections, family=args.family, shown=shown, attributions=made)
        diff_files.write_page(args.html, page)
        pairs_word = "version pair" if len(sections) == 1 else "version pairs"
        wrote.append(f"wrote {args.html}: the redline page of {len(sections)} {pairs_word}")
    if args.export is not None:
        diff_files.write_table(diff_files.change_frame(sections), args.export, args.out)
        rows = sum(len(part.shown) for part in sections)
        wrote.append(f"wrote {args.out}: {rows} changes as {args.export}")
    if args.json:
        shown_json = [
            part.as_json() if made is None else section_json(part, made) for part in sections
        ]
        print_json(
            [
                {**shown, "footnote_changes": [f.as_json() for f in found]} if found else shown
                for shown, found in zip(shown_json, noted, strict=True)
            ]
        )
        return 0
    if wrote:
        out("".join(f"{line}\n" for line in wrote))
        return 0
    colour = _colour()
    for part in sections:
        counts = f"; {attribution_counts(part, made)}" if made is not None else ""
        out(redline.pair_summary(part) + counts + "\n")
        apart = [r for r in part.shown if r.change.front_matter]
        for r in [r for r in part.shown if not r.change.front_matter]:
            out(_listed(redline, r, colour, made), keep=redline.COLOUR_CODES)
        if apart:  # a title page or metadata block changed: listed apart, never reviewed
            out(f"  front-matter edits ({len(apart)}), never reviewed:\n")
            for r in apart:
                out(_listed(redline, r, colour, made), keep=redline.COLOUR_CODES)
        if found := noted[sections.index(part)]:  # C20: words equal, the note they name not
            out(f"  footnotes changed under unchanged clauses ({len(found)}):\n")
            out("".join(f"    {f.line()}\n" for f in found))
    return 0


def _listed(redline: Any, r: Any, colour: bool, made: Attributions | None) -> str:
    """A change's three listing lines, and a fourth saying what made it where `made` holds it."""
    from workbench.changes.attribution import attribution_line

    line = attribution_line(made, r.change.change_id) if made is not None else None
    return (
        f"  {_plain(redline.summary(r), colour)}\n    {_plain(redline.places(r), colour)}\n"
        f"    {redline.marked_text(r, colour=colour)}\n"
    ) + (f"    {_plain(line, colour)}\n" if line is not None else "")


def _plain(text: str, colour: bool) -> str:
    """`text` beside coloured marked text: made visible here, since the line is written keeping
    the colour codes (`redline.COLOUR_CODES`), which only `marked_text` may hold."""
    return visible(text) if colour else text


def _made_by(
    args: argparse.Namespace, settings: CorpusSettings, sections: Sequence[Section]
) -> Attributions:
    """What made each change of `sections`: the amendments verb reconciles the held laws with
    these very changes and hands back its attributions, by change id, as data. The catalogue and
    store are the ones the workspace was opened with (`settings`, overrides already said)."""
    from workbench.amendments.reconcile import family_amendments
    from workbench.workspace import Workspace
    from workbench.workspace.catalogue import read_held

    changes = {(p.before.version_id, p.after.version_id): p.changes for p in sections}
    with Workspace(args.workspace, create=False) as workspace:
        report = family_amendments(
            workspace,
            args.family,
            read_held(workspace, settings.catalogue),
            settings.store,
            changes=changes,
        )
    return report.attributions


def _caution_word(stands: bool) -> str:
    return "caution stands" if stands else "caution lifted"


def _review_pairing_line(change: Any, verdicts: Sequence[Verdict]) -> str:
    """One pairing of `review list`: id, kind, labels, confidence, why doubtful, caution state."""
    from workbench.changes.caution import pairing_caution_stands, standing_verdict
    from workbench.changes.diff import doubt_reasons

    standing = standing_verdict(change, verdicts)
    caution = pairing_caution_stands(change, verdicts)
    state = (
        f"{standing.answer} by {standing.actor} at row {standing.seq}" if standing else "unanswered"
    )
    return (
        f"{change.change_id} {change.kind} labels {change.before_label or '-'}->"
        f"{change.after_label or '-'} conf {change.alignment_confidence:.2f}"
        f"{' capped' if change.capped else ''} ({', '.join(doubt_reasons(change))}): "
        f"{_caution_word(caution)} ({state})"
    )


REVIEW_PAGE = 100  # items per page of `review list`: a screenful of work, read in well under 1 s


def _page_size(text: str) -> int:
    """`--limit`: 0 (every item) or a positive whole number."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected 0 (every item) or a positive whole number"
        )
    return arguments.whole_number(text)


def cmd_review_list(args: argparse.Namespace) -> int:
    from workbench.changes import log, queue, stored

    with open_held(args) as workspace:
        stored.refresh_review_queue(workspace, workspace.profile_registry(), progress=progress())
        page = stored.review_page(workspace, args.family, after=args.after, limit=args.limit)
        items = page.items
        verdicts = log.read_verdicts(workspace)
        summary = (
            None if page.next_after else stored.queue_summary(workspace, args.family, verdicts)
        )
        # The texts the listing shows both sides from (the JSON holds none).
        ids = {i for item in items for p in item.pairings for i in (p.before_id, p.after_id)}
        held = {v: workspace.version(v) for v in sorted(ids)} if not args.json else {}
    if page.next_after:
        err(f"{len(items)} items listed; the next page: --after {page.next_after}")
    if args.json:
        print_json([queue.item_as_json(item, verdicts) for item in items])
        return 0
    from workbench.changes import redline

    colour = _colour()

    def sides(pairing: Any, indent: str) -> str:
        """Both sides of a pairing, as `workbench diff` shows them: places, then marked text."""
        shown = redline.redline(pairing.change, held[pairing.before_id], held[pairing.after_id])
        return (
            f"{indent}{_plain(redline.places(shown), colour)}\n"
            f"{indent}{redline.marked_text(shown, colour=colour)}\n"
        )

    # A page that continues a version pair does not repeat its heading, so the pages of a
    # listing, one after another, are the whole listing.
    pair = page.previous_pair
    for item in items:
        first = item.pairings[0]
        if (first.before_id, first.after_id) != pair:
            pair = (first.before_id, first.after_id)
            out(f"{first.before_id} -> {first.after_id}\n")
        caution = queue.item_caution_stands(item, verdicts)
        if item.group_id is None:
            out(f"  {_review_pairing_line(first.change, verdicts)}\n")
            out(sides(first, "    "), keep=redline.COLOUR_CODES)
            continue
        out(f"  {item.group_id} {item.heading()}: {_caution_word(caution)}\n")
        for pairing in item.pairings:
            out(f"    {_review_pairing_line(pairing.change, verdicts)}\n")
            out(sides(pairing, "      "), keep=redline.COLOUR_CODES)
    if summary is not None:
        s = summary
        machined_line = (
            f"{s.machine} machine-read groups of {s.machined} pairings, " if s.machine else ""
        )
        out(
            f"{s.items} review items ({s.groups} restructure groups of {s.grouped} pairings, "
            f"{machined_line}{s.lone} lone pairings; {s.grouped + s.machined + s.lone} doubtful "
            f"pairings); caution stands on {s.stands}\n"
        )
    return 0


def cmd_review_answer(args: argparse.Namespace) -> int:
    from workbench.changes import log, queue, stored
    from workbench.changes.queue import in_review_queue

    with open_held(args) as workspace:
        registry = workspace.profile_registry()
        # The stored queue finds a queued item by one look-up; any other change is looked for
        # in the diffs, as before.
        stored.refresh_review_queue(workspace, registry, progress=progress())
        item = stored.stored_item(workspace, args.change_id, args.family) or queue.find_item(
            workspace, args.change_id, family=args.family, profiles=registry
        )
        common = {"actor": args.actor, "reason": args.reason, "undoes": args.undoes}
        rows: tuple[Verdict, ...]
        if item.group_id is None:
            change = item.pairings[0].change
            # A confident pairing is answered only as an item of a sample drawn for the audit.
            sampled = None if in_review_queue(change) else log.sample_holding(workspace, change)
            rows = (
                log.append_verdict(workspace, change, args.answer, **common, sample_id=sampled),
            )
        else:
            rows = log.append_group_verdict(workspace, item, args.answer, **common)
        caution = queue.item_caution_stands(item, log.read_verdicts(workspace))
    for verdict in rows:
        out(
            f"row {verdict.seq}: {verdict.answer} {verdict.change_id} by {verdict.actor}"
            + (f" in group {verdict.group_id}" if verdict.group_id else "")
            + (f" in sample {verdict.sample_id}" if verdict.sample_id else "")
            + (f" (undoes row {verdict.undoes})" if verdict.undoes is not None else "")
            # A sampled confident pairing never had caution to lift.
            + (
                f"; {_caution_word(caution)}"
                if item.group_id is None and verdict.sample_id is None
                else ""
            )
            + f"; digest {verdict.digest}\n"
        )
    if item.group_id is not None:
        out(f"group {item.group_id}: {len(rows)} rows; {_caution_word(caution)}\n")
    return 0


def cmd_review_log(args: argparse.Namespace) -> int:
    from workbench.changes import log
    from workbench.changes.orphans import orphaned_verdicts

    with open_held(args) as workspace:
        verdicts = log.read_verdicts(workspace)
        orphans = {
            o.verdict.seq: o
            for o in orphaned_verdicts(workspace, verdicts, profiles=workspace.profile_registry())
        }
    if args.json:
        print_json(
            [
                {
                    **v.as_json(),
                    "orphaned": orphans[v.seq].reason if v.seq in orphans else None,
                }
                for v in verdicts
            ]
        )
        return 0
    for v in verdicts:
        orphan = orphans.get(v.seq)
        out(
            f"{v.seq:5d} {v.answered_at} {v.change_id} {v.answer:<10} {v.actor}"
            f" conf {v.alignment_confidence:.2f}{' capped' if v.capped else ''}"
            + (f" group {v.group_id}" if v.group_id else "")
            + (f" undoes {v.undoes}" if v.undoes is not None else "")
            + (f" reason {v.reason!r}" if v.reason else "")
            + (f" ORPHANED ({orphan.reason}: {orphan.detail})" if orphan else "")
            + "\n"
        )
    out(f"{len(verdicts)} rows; {len(orphans)} orphaned\n")
    return 0


def cmd_review_sample(args: argparse.Namespace) -> int:
    from workbench.changes import audit, sample

    by = sample.parse_axes(args.by) if args.by else ()
    with open_held(args) as workspace:
        drawn = audit.sample_confident(
            workspace, n=args.n, seed=args.seed, by=by, profiles=workspace.profile_registry()
        )
    if args.json:
        print_json({"sample_id": drawn.sample_id, **drawn.record()})
        return 0
    out(
        f"sample {drawn.sample_id}: seed {drawn.seed}, {drawn.n} per stratum, population "
        f"{drawn.population_digest} ({drawn.population_size} confident pairings)\n"
    )
    for stratum in drawn.strata:
        out(f"  {stratum.name}: {stratum.drawn} of {stratum.size} drawn\n")
        for item in drawn.items:
            if item.stratum == stratum.name:
                out(
                    f"    {item.change_id} {item.kind} {item.before.version_id} -> "
                    f"{item.after.version_id}\n"
                )
    out("answer each: workbench review answer ID confirmed|disputed|uncertain --actor NAME\n")
    return 0


def _unit_interval(text: str) -> float:
    """`--confidence`, `--rate`: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number strictly between 0 and 1")
    return value


def cmd_review_audit(args: argparse.Namespace) -> int:
    from workbench.changes import audit

    with open_held(args) as workspace:
        result = audit.audit_confident(
            workspace,
            sample_id=args.sample,
            confidence=args.confidence,
            rate=args.rate,
            stratum=args.stratum,
            profiles=workspace.profile_registry(),
        )
    wrote = audit.write_audit(args.out, result) if args.out is not None else ()
    if args.json:
        print_json(result.as_json())
        return 0
    out(
        f"sample {result.sample_id}; population {result.population_digest}; log head "
        f"{result.log_head}\n"
    )
    for s in result.strata:
        line = (
            f"{s.name}: {s.examined} examined, {s.confirmed} confirmed, {s.disputed} disputed, "
            f"{s.cannot_tell} cannot tell; "
        )
        if s.bound is None:
            line += f"bound refused: {s.refused}"
        else:
            line += f"upper bound {s.bound:.4f} at {result.confidence:g}"
        if s.flagged:
            line += (
                f"; OVER the rate {result.rate:g}: {s.needed} more answers, all confirming, "
                "bring it to the rate"
            )
        out(line + "\n")
    if result.overall is not None:
        out(f"overall: upper bound {result.overall:.4f} (strata weighted, Bonferroni)\n")
    else:
        out(f"overall: bound refused: {result.overall_refused}\n")
    out("".join(f"wrote {path}\n" for path in wrote))
    return 0


def cmd_review_verify_chain(args: argparse.Namespace) -> int:
    from workbench.changes import log

    with open_held(args) as workspace:
        report = log.verify_chain(workspace)
    out(report.line() + "\n")
    return 0 if report.valid else 1


def diff_arguments(parser: Parser) -> None:
    parser.description = (
        "Diff consecutive versions of a family (or --from/--to). Each change is "
        "shown with both sides' text, its changed words marked [-removed-]{+added+}, its kind, "
        "labels, confidence, places (pages for a PDF) and why it is doubtful. Doubtful pairings "
        "are pairings with confidence at or below the restructure ceiling. The listing leaves "
        "unchanged passages out unless --kind names them; --json, --html and --export hold "
        "every change the filters keep."
    )
    parser.add_argument("family", metavar="FAMILY", help="document family, e.g. dc-code-34-306")
    parser.add_argument(
        "--from", dest="start", metavar="V", help="version id to diff from (default: first)"
    )
    parser.add_argument(
        "--to", dest="end", metavar="V", help="version id to diff to (default: last)"
    )
    parser.add_argument(
        "--json", action="store_true", help="print the changes as JSON, with their texts"
    )
    parser.add_argument(
        "--kind",
        action="append",
        choices=CHANGE_KINDS,
        metavar="KIND",
        help=f"only changes of this kind (repeatable): {', '.join(CHANGE_KINDS)}",
    )
    parser.add_argument(
        "--doubtful", action="store_true", help="only doubtful pairings (the review queue's)"
    )
    parser.add_argument(
        "--html",
        type=arguments.out_file,
        metavar="OUT.html",
        help="write a side-by-side redline page to OUT.html (self-contained, no script)",
    )
    parser.add_argument(
        "--export",
        choices=EXPORT_FORMATS,
        metavar="FORMAT",
        help="write the change table as csv or parquet to --out FILE",
    )
    parser.add_argument(
        "--out", type=arguments.out_file, metavar="FILE", help="where --export writes the table"
    )
    parser.add_argument(
        "--docx",
        type=arguments.out_file,
        metavar="OUT.docx",
        help="write one version pair (--from/--to) as a Word redline: tracked changes, moves "
        "only where a reviewer confirmed them, bound to both versions' SHA-256 "
        "(workbench verify-redline reads it back)",
    )
    parser.add_argument(
        "--laws",
        action="store_true",
        help="say what made each change of a Code section's consecutive releases: the held law "
        "instructions (made_by: law, its section, the sentence's offsets), a D.C. Act the new "
        "history note names (history), or unexplained; reads the fetched laws that name the "
        "section (listing, --json and --html)",
    )
    path_options(parser, workspace=True, store=True)
    profiles_option(parser)
    parser.set_defaults(func=cmd_diff)


def review_arguments(parser: Parser) -> None:
    parser.description = (
        "List doubtful pairings, answer one, read the verdict log, verify its chain."
    )
    review_commands = parser.add_subparsers(dest="review_command", required=True, metavar="COMMAND")
    review_list = review_commands.add_parser(
        "list",
        help="doubtful pairings and whether caution stands",
        description="List the review queue a page at a time: "
        "restructure groups (a section renumbered as a whole, its pairings inside), machine-read "
        "groups (the pairings of two machine readings of one version pair, one item) and lone "
        "doubtful pairings, each with kind, labels, confidence, why it is doubtful, its standing "
        "verdict and whether caution stands. The items are stored in the workspace when first "
        "computed (a version pair is diffed again only when one of its versions, its family's "
        "profile or the code changed) and read by a query; the last page ends with the counts "
        "of the whole queue, and the pages one after another are the whole listing.",
    )
    review_list.add_argument("family", nargs="?", metavar="FAMILY", help="only this family")
    review_list.add_argument(
        "--limit",
        type=_page_size,
        default=REVIEW_PAGE,
        metavar="N",
        help=f"items per page (default: {REVIEW_PAGE}; 0 lists every item); a page that is not "
        "the last names the next one's --after on stderr",
    )
    review_list.add_argument(
        "--after",
        default=None,
        metavar="ITEM",
        help="start after this item (a group id or a change id the listing printed)",
    )
    review_list.add_argument("--json", action="store_true", help="print the pairings as JSON")
    path_options(review_list, workspace=True)
    profiles_option(review_list)
    review_list.set_defaults(func=cmd_review_list)
    review_answer = review_commands.add_parser(
        "answer",
        help="append a verdict on one doubtful pairing",
        description="Append one answer to the hash-chained verdict log. A pairing that already "
        "has a verdict is answered again only as a reversal (--undoes ROW).",
    )
    review_answer.add_argument(
        "change_id",
        metavar="ID",
        help="a change id (chg-...) or a restructure group id (grp-...): one answer to a group "
        "writes one row per pairing",
    )
    review_answer.add_argument(
        "answer", choices=("confirmed", "disputed", "uncertain"), help="uncertain: cannot tell"
    )
    review_answer.add_argument("--actor", required=True, metavar="NAME", help="the reviewer's name")
    review_answer.add_argument("--reason", default=None, metavar="TEXT", help="why (optional)")
    review_answer.add_argument(
        "--undoes",
        type=arguments.integer,
        default=None,
        metavar="ROW",
        help="the log row this answer reverses",
    )
    review_answer.add_argument(
        "--family", default=None, metavar="FAMILY", help="look for the change in this family only"
    )
    path_options(review_answer, workspace=True)
    profiles_option(review_answer)
    review_answer.set_defaults(func=cmd_review_answer)
    review_log = review_commands.add_parser(
        "log",
        help="print the verdict log",
        description="Print every row of the verdict log in sequence order, marking each row "
        "whose pairing the current diffs no longer produce as ORPHANED (kept, never re-attached).",
    )
    review_log.add_argument("--json", action="store_true", help="print the rows as JSON")
    path_options(review_log, workspace=True)
    profiles_option(review_log)
    review_log.set_defaults(func=cmd_review_log)
    review_chain = review_commands.add_parser(
        "verify-chain",
        help="re-derive every link and digest of the verdict log",
        description="Report the first gap, broken link, altered row or unknown scheme; exit 1 "
        "if the chain is broken.",
    )
    path_options(review_chain, workspace=True)
    review_chain.set_defaults(func=cmd_review_verify_chain)
    review_sample = review_commands.add_parser(
        "sample",
        help="draw a seeded sample of the confident pairings for the audit",
        description="Draw a stratified simple random sample of the confident pairings (those the "
        "review queue does not hold) and record it in the verdict log with its seed, the "
        "population's digest and each stratum's size. Answer its items with 'review answer'; "
        "'review audit' then states a bound on the confident-error rate.",
    )
    review_sample.add_argument(
        "--confident",
        action="store_true",
        required=True,
        help="sample the confident pairings (the only population sampled)",
    )
    review_sample.add_argument(
        "--n",
        type=arguments.whole_number,
        default=DEFAULT_AUDIT_N,
        metavar="N",
        help=f"pairings per stratum (default: {DEFAULT_AUDIT_N}; all of a smaller stratum)",
    )
    review_sample.add_argument(
        "--seed",
        type=arguments.whole_number,
        required=True,
        metavar="S",
        help="the seed the draw is made from",
    )
    review_sample.add_argument(
        "--by",
        default=None,
        metavar="AXES",
        help="strata: jurisdiction, kind or jurisdiction,kind (default: one stratum)",
    )
    review_sample.add_argument("--json", action="store_true", help="print the sample as JSON")
    path_options(review_sample, workspace=True)
    profiles_option(review_sample)
    review_sample.set_defaults(func=cmd_review_sample)
    review_audit = review_commands.add_parser(
        "audit",
        help="a bound on the confident-error rate from a sample's answers",
        description="Per stratum and overall: examined, disputed, cannot tell, and the "
        "one-sided exact (Clopper-Pearson) upper bound on the share of confident pairings that "
        "are wrong (cannot tell counts as wrong). Refused in one line when the sample is "
        "incomplete, an answer is outside it, a stratum has fewer than 10 items, the stratum is "
        "unknown, or the population changed since the sample was drawn.",
    )
    review_audit.add_argument(
        "--confidence",
        type=_unit_interval,
        default=DEFAULT_AUDIT_CONFIDENCE,
        metavar="C",
        help=f"confidence of the bound (default: {DEFAULT_AUDIT_CONFIDENCE})",
    )
    review_audit.add_argument(
        "--rate",
        type=_unit_interval,
        default=None,
        metavar="R",
        help="flag each stratum whose bound is above R, with the answers that would bring it to R",
    )
    review_audit.add_argument(
        "--stratum", default=None, metavar="NAME", help="only this stratum of the sample"
    )
    review_audit.add_argument(
        "--sample", default=None, metavar="ID", help="this sample (default: the latest drawn)"
    )
    review_audit.add_argument(
        "--out",
        type=arguments.out_folder,
        default=None,
        metavar="DIR",
        help="write the audit as JSON and Markdown into DIR, bound to the log head and the "
        "population digest",
    )
    review_audit.add_argument("--json", action="store_true", help="print the audit as JSON")
    path_options(review_audit, workspace=True)
    profiles_option(review_audit)
    review_audit.set_defaults(func=cmd_review_audit)


ARGUMENTS = {
    "diff": diff_arguments,
    "review": review_arguments,
}
