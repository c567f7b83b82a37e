"""The search command: candidate passages for a quote or paraphrase, never evidence."""

from __future__ import annotations

import argparse

from workbench.cli import arguments
from workbench.cli.arguments import Parser
from workbench.cli.common import (
    open_held,
    out,
    path_options,
    print_json,
    profiles_option,
    progress,
)
from workbench.wording import counted


def cmd_search(args: argparse.Namespace) -> int:
    from workbench import search as search_mod
    from workbench.errors import SearchQueryError
    from workbench.workspace import researcher_profiles

    if args.query is None and not args.reindex:
        raise SearchQueryError("query: missing; give QUERY, or --reindex to build the index only")
    with open_held(args) as workspace:
        own = researcher_profiles(workspace.settings)
        if args.reindex:
            done = search_mod.update_index(workspace, own, progress=progress())
            held = done.status
            if done.built:
                what = "built in"
            elif done.added or done.dropped:
                what = (
                    f"updated ({counted(done.added, 'version')} added, {done.dropped} dropped) in"
                )
            else:
                what = "up to date in"
            if not args.json:
                out(
                    f"search index {what} {args.workspace}: {held.texts} distinct texts, "
                    f"{held.passages} passages\n"
                )
        if args.query is None:
            return 0
        scope = search_mod.SearchScope(
            workspace=workspace, jurisdiction=args.jurisdiction, family=args.family, profiles=own
        )
        result = search_mod.find_candidates(args.query, scope, args.k)
        texts = {v: workspace.version(v).text for v in {c.version_id for c in result.candidates}}
    passages = [texts[c.version_id][c.char_start : c.char_end] for c in result.candidates]
    if args.json:
        print_json(result.as_json(passages))
        return 0
    out(f"{result.note}; candidates are never evidence: verify a quote before citing it\n")
    for c, text in zip(result.candidates, passages, strict=True):
        snippet = " ".join(text.split())[:80]
        out(
            f"{c.score:6.1f} {c.match:<9} {c.version_id} [{c.char_start}, {c.char_end}) "
            f"label={c.section_label or '-'}  {snippet}\n"
        )
    return 0


def search_arguments(parser: Parser) -> None:
    parser.description = (
        "Suggest passages where QUERY (a quote or a paraphrase) might be found. "
        "Every passage that contains the query after normalization is listed, then the best "
        "rapidfuzz-ranked others up to -k. Candidates are never evidence; verify quotes. A missing "
        "or stale index falls back to a full scan and says so; --reindex updates it in place."
    )
    parser.add_argument("query", nargs="?", metavar="QUERY", help="text to look for")
    parser.add_argument("--jurisdiction", metavar="J", help="only versions of this jurisdiction")
    parser.add_argument("--family", metavar="F", help="only versions of this document family")
    parser.add_argument(
        "-k",
        type=arguments.integer,
        default=10,
        help="candidates wanted (default: 10; substring ones can add more)",
    )
    parser.add_argument(
        "--reindex",
        action="store_true",
        help="bring the search index up to date first: only versions it does not hold are "
        "indexed and those no longer held dropped (built whole when there is none, or its "
        "normalizer, format, rapidfuzz or profiles changed)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    path_options(parser, workspace=True)
    profiles_option(parser)
    parser.set_defaults(func=cmd_search)


ARGUMENTS = {
    "search": search_arguments,
}
