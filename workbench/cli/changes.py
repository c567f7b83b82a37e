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
from workbench.cli.common import (
    open_held,
    out,
    path_options,
    print_json,
    profiles_option,
    progress,
)
from workbench.models import CHANGE_KINDS
from workbench.tables import EXPORT_FORMATS

if TYPE_CHECKING:
    from workbench.changes.attribution import Attributions
    from workbench.changes.redline import Section
    from workbench.changes.verdict import Verdict
    from workbench.corpus import CorpusSettings


def _colour() -> bool:
    """ANSI colour on stdout: only when it is a terminal and NO_COLOR is unset or empty."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def cmd_diff(args: argparse.Namespace) -> int:
    from workbench.changes import pairs, redline
    from workbench.changes import redline_page as redline_html
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
        redline.writable(args.html, "the redline page")
    if args.export is not None:
        redline.export_target(args.export, args.out)
    with open_held(args) as workspace:
        chosen = pairs.version_pairs(workspace, args.family, start=args.start, end=args.end)
        readers = workspace.profile_registry()
        settings = workspace.settings
    if not chosen:
        if args.json:
            print_json([])
        else:
            out(f"{args.family}: only one version is held; nothing to diff\n")
        return 0
    listing = not (args.json or args.html is not None or args.export is not None)
    sections = pairs.diff_sections(
        chosen,
        profiles=readers,
        kinds=pairs.kinds_shown(args.kind, listing=listing),
        doubtful=args.doubtful,
    )
    made = _made_by(args, settings, sections) if args.laws else None
    wrote = []
    if args.html is not None:
        shown = redline.selection_words(args.kind, args.doubtful)
        page = redline_html.page_html(sections, family=args.family, shown=shown, attributions=made)
        redline.write_page(args.html, page)
        pairs_word = "version pair" if len(sections) == 1 else "version pairs"
        wrote.append(f"wrote {args.html}: the redline page of {len(sections)} {pairs_word}")
    if args.export is not None:
        redline.write_table(redline.change_frame(sections), args.export, args.out)
        rows = sum(len(part.shown) for part in sections)
        wrote.append(f"wrote {args.out}: {rows} changes as {args.export}")
    if args.json:
        print_json(
            [part.as_json() if made is None else section_json(part, made) for part in sections]
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
            out(_listed(redline, r, colour, made))
        if apart:  # a title page or metadata block changed: listed apart, never reviewed
            out(f"  front-matter edits ({len(apart)}), never reviewed:\n")
            for r in apart:
                out(_listed(redline, r, colour, made))
    return 0


def _listed(redline: Any, r: Any, colour: bool, made: Attributions | None) -> str:
    """A change's three listing lines, and a fourth saying what made it where `made` holds it."""
    from workbench.changes.attribution import attribution_line

    line = attribution_line(made, r.change.change_id) if made is not None else None
    return (
        f"  {redline.summary(r)}\n    {redline.places(r)}\n"
        f"    {redline.marked_text(r, colour=colour)}\n"
    ) + (f"    {line}\n" if line is not None else "")


def _made_by(
    args: argparse.Namespace, settings: CorpusSettings, sections: Sequence[Section]
) -> Attributions:
    """What made each change of `sections`: the amendments verb reconciles the held laws with
    these very changes and hands back its attributions, by change id, as data. The catalogue and
    store are the ones the workspace was opened with (`settings`, overrides already said)."""
    from workbench.history.reconcile import family_amendments
    from workbench.workspace import Workspace
    from workbench.workspace.catalogue import read_checked

    changes = {(p.before.version_id, p.after.version_id): p.changes for p in sections}
    with Workspace(args.workspace, create=False) as workspace:
        report = family_amendments(
            workspace,
            args.family,
            read_checked(workspace, settings.catalogue),
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
    return int(text)


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
        print(
            f"{len(items)} items listed; the next page: --after {page.next_after}", file=sys.stderr
        )
    if args.json:
        print_json([queue.item_as_json(item, verdicts) for item in items])
        return 0
    from workbench.changes import redline

    colour = _colour()

    def sides(pairing: Any, indent: str) -> str:
        """Both sides of a pairing, as `workbench diff` shows them: places, then marked text."""
        shown = redline.redline(pairing.change, held[pairing.before_id], held[pairing.after_id])
        return (
            f"{indent}{redline.places(shown)}\n"
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
            out(sides(first, "    "))
            continue
        out(f"  {item.group_id} {item.heading()}: {_caution_word(caution)}\n")
        for pairing in item.pairings:
            out(f"    {_review_pairing_line(pairing.change, verdicts)}\n")
            out(sides(pairing, "      "))
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
            rows = (log.append_verdict(workspace, item.pairings[0].change, args.answer, **common),)
        else:
            rows = log.append_group_verdict(workspace, item, args.answer, **common)
        caution = queue.item_caution_stands(item, log.read_verdicts(workspace))
    for verdict in rows:
        out(
            f"row {verdict.seq}: {verdict.answer} {verdict.change_id} by {verdict.actor}"
            + (f" in group {verdict.group_id}" if verdict.group_id else "")
            + (f" (undoes row {verdict.undoes})" if verdict.undoes is not None else "")
            + (f"; {_caution_word(caution)}" if item.group_id is None else "")
            + f"; digest {verdict.digest}\n"
        )
    if item.group_id is not None:
        out(f"group {item.group_id}: {len(rows)} rows; {_caution_word(caution)}\n")
    return 0


def cmd_review_log(args: argparse.Namespace) -> int:
    from workbench.changes import log

    with open_held(args) as workspace:
        verdicts = log.read_verdicts(workspace)
        orphans = {
            o.verdict.seq: o
            for o in log.orphaned_verdicts(
                workspace, verdicts, profiles=workspace.profile_registry()
            )
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


def cmd_review_verify_chain(args: argparse.Namespace) -> int:
    from workbench.changes import log

    with open_held(args) as workspace:
        report = log.verify_chain(workspace)
    out(report.line() + "\n")
    return 0 if report.valid else 1


def add_commands(commands: Any) -> None:
    diff = commands.add_parser(
        "diff",
        help="typed changes with both sides' text marked; a redline page; the change table",
        description="Diff consecutive versions of a family (or --from/--to). Each change is "
        "shown with both sides' text, its changed words marked [-removed-]{+added+}, its kind, "
        "labels, confidence, places (pages for a PDF) and why it is doubtful. Doubtful pairings "
        "are pairings with confidence at or below the restructure ceiling. The listing leaves "
        "unchanged passages out unless --kind names them; --json, --html and --export hold "
        "every change the filters keep.",
    )
    diff.add_argument("family", metavar="FAMILY", help="document family, e.g. dc-code-34-306")
    diff.add_argument(
        "--from", dest="start", metavar="V", help="version id to diff from (default: first)"
    )
    diff.add_argument("--to", dest="end", metavar="V", help="version id to diff to (default: last)")
    diff.add_argument(
        "--json", action="store_true", help="print the changes as JSON, with their texts"
    )
    diff.add_argument(
        "--kind",
        action="append",
        choices=CHANGE_KINDS,
        metavar="KIND",
        help=f"only changes of this kind (repeatable): {', '.join(CHANGE_KINDS)}",
    )
    diff.add_argument(
        "--doubtful", action="store_true", help="only doubtful pairings (the review queue's)"
    )
    diff.add_argument(
        "--html",
        type=arguments.out_file,
        metavar="OUT.html",
        help="write a side-by-side redline page to OUT.html (self-contained, no script)",
    )
    diff.add_argument(
        "--export",
        choices=EXPORT_FORMATS,
        metavar="FORMAT",
        help="write the change table as csv or parquet to --out FILE",
    )
    diff.add_argument(
        "--out", type=arguments.out_file, metavar="FILE", help="where --export writes the table"
    )
    diff.add_argument(
        "--docx",
        type=arguments.out_file,
        metavar="OUT.docx",
        help="write one version pair (--from/--to) as a Word redline: tracked changes, moves "
        "only where a reviewer confirmed them, bound to both versions' SHA-256 "
        "(workbench verify-redline reads it back)",
    )
    diff.add_argument(
        "--laws",
        action="store_true",
        help="say what made each change of a Code section's consecutive releases: the held law "
        "instructions (made_by: law, its section, the sentence's offsets), a D.C. Act the new "
        "history note names (history), or unexplained; reads the fetched laws that name the "
        "section (listing, --json and --html)",
    )
    path_options(diff, workspace=True, store=True)
    profiles_option(diff)
    diff.set_defaults(func=cmd_diff)

    review_p = commands.add_parser(
        "review",
        help="doubtful pairings and the verdict log",
        description="List doubtful pairings, answer one, read the verdict log, verify its chain.",
    )
    review_commands = review_p.add_subparsers(
        dest="review_command", required=True, metavar="COMMAND"
    )
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
        "--undoes", type=int, default=None, metavar="ROW", help="the log row this answer reverses"
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
