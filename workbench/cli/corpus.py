"""Corpus commands: add your own files, admit a mirror folder, fetch and verify the catalogued bytes,
hold every version (`ingest`), and list what is held (`families`, `versions`).
"""

from __future__ import annotations

import argparse
import os
from contextlib import nullcontext
from pathlib import Path

from workbench.cli import arguments
from workbench.cli.arguments import Parser
from workbench.cli.common import (
    exit_for_refusals,
    given,
    list_refusals,
    open_held,
    out,
    path_options,
    print_json,
    progress,
    say_overrides,
)
from workbench.defaults import MIRROR_URL
from workbench.errors import AddError
from workbench.wording import counted


def cmd_add(args: argparse.Namespace) -> int:
    from workbench.corpus import add_files, add_from_manifest

    per_file: tuple[str, ...] = ("jurisdiction", "family", "url", "mirror", "official", "order")
    per_file += ("label", "date", "language", "name")
    git_only = ("paths", "family_from", "family_prefix", "since", "until", "repo_name", "at_head")
    if args.from_git is not None:
        return _add_from_git(args)
    if given := [f"--{name.replace('_', '-')}" for name in git_only if getattr(args, name)]:
        raise AddError(f"{', '.join(given)}: only with --from-git REPO")
    if args.from_csv is not None:
        given = [f"--{name}" for name in (*per_file, "issuer", "docket") if getattr(args, name)]
        if args.files or given or args.line_numbered:
            raise AddError(
                "--from-csv takes the files and their facts from the manifest; do not also give "
                + ", ".join(
                    ["FILE"] * bool(args.files) + given + ["--line-numbered"] * args.line_numbered
                )
            )
        report = add_from_manifest(args.from_csv, args.into)
    else:
        report = add_files(
            args.files,
            args.into,
            jurisdiction=args.jurisdiction,
            family=args.family,
            official=args.official,
            order=args.order,
            url=args.url,
            mirror=args.mirror,
            label=args.label,
            date=args.date,
            issuer=args.issuer,
            docket=args.docket,
            line_numbered=args.line_numbered,
            language=args.language,
            name=args.name,
        )
    if report.refusals:
        out(f"nothing written into {args.into}\n")
        return list_refusals("refused", report.refusals)
    for placement in report.placements:
        what = (
            " and ".join(Path(name).name for name in placement.written)
            or "nothing (already there, equal)"
        )
        out(f"{placement.path}: wrote {what}\n")
    written = sum(bool(p.written) for p in report.placements)
    out(
        f"placed {written} of {len(report.placements)} documents in {args.into}"
        f"; admit them with 'workbench corpus admit {args.into}'\n"
    )
    return 0


def _add_from_git(args: argparse.Namespace) -> int:
    from workbench.corpus import add_from_git

    others: tuple[str, ...] = ("family", "url", "mirror", "order", "label", "date", "docket")
    others += ("from_csv", "language", "name")
    given = [f"--{name.replace('_', '-')}" for name in others if getattr(args, name)]
    if args.files or given or args.line_numbered:
        raise AddError(
            "--from-git takes the files and their facts from the repository's history; do not "
            "also give "
            + ", ".join(
                ["FILE"] * bool(args.files) + given + ["--line-numbered"] * args.line_numbered
            )
        )
    report = add_from_git(
        args.from_git,
        args.into,
        paths=args.paths or (),
        jurisdiction=args.jurisdiction or "",
        official=args.official,
        family_from=args.family_from,
        family_prefix=args.family_prefix or "",
        since=args.since,
        until=args.until,
        at_head=args.at_head,
        repo_name=args.repo_name,
        issuer=args.issuer,
        progress=progress(),
    )
    out(
        f"read {counted(report.commits, 'commit')}: {counted(report.versions, 'version')}; wrote {len(report.written)}, "
        f"{report.already} already there (equal), {len(report.refusals)} refused; admit them "
        f"with 'workbench corpus admit {args.into}'\n"
    )
    return list_refusals("refused", report.refusals)


def cmd_admit(args: argparse.Namespace) -> int:
    from workbench.corpus import admit_corpus, corpus_home, is_project_mirror
    from workbench.corpus.catalogue import CATALOGUE_NAME

    named = given(args, "corpus_dir")
    kept = admit_corpus(args.dir, named, progress=progress())
    admission, merged = kept.admission, kept.catalogue
    if not admission.rows:
        out(
            f"admitted 0 documents from {args.dir}; refused {len(merged.refusals)}; "
            f"nothing written\n"
        )
        list_refusals("refused", merged.refusals)
        out(f"no document admitted from {args.dir}\n")
        return 1
    held = len(merged.rows) - len(admission.rows)
    out(
        f"admitted {len(admission.rows)} documents from {args.dir} into "
        f"{kept.folder / CATALOGUE_NAME}"
        + (f" (kept {held} rows already catalogued)" if held > 0 else "")
        + f"; refused {len(merged.refusals)}\n"
    )
    if named is None and not is_project_mirror(args.dir):
        out(
            f"{corpus_home(args.dir)} is {args.dir}'s own folder (the project's corpus/ is written "
            f"only for its mirror or with --corpus-dir); 'workbench measure --corpus {args.dir}' "
            "keeps its workspace and reports there too\n"
        )
    list_refusals("refused", merged.refusals)
    return exit_for_refusals(merged.refusals)


def cmd_fetch(args: argparse.Namespace) -> int:
    from workbench.corpus import fetch_corpus

    report, extra = fetch_corpus(
        args.corpus_dir,
        args.store,
        args.refused_store,
        mirror=args.mirror,
        url_template=args.mirror_url,
        progress=progress(),
    )
    out(
        f"fetched {len(report.copied)}, already fetched {len(report.already)}, failed {len(report.failed)} "
        f"into {args.store}; refused documents kept for re-checking admission in {args.refused_store}: "
        f"{len(extra.copied) + len(extra.already)}\n"
    )
    return list_refusals("failed", report.failed + extra.failed)


def cmd_verify_store(args: argparse.Namespace) -> int:
    from workbench.corpus import read_catalogue, verify_store
    from workbench.workspace import ingest

    # Only --reextract reads the workspace, and then its remembered catalogue and store.
    with open_held(args) if args.reextract else nullcontext() as held:
        corpus_dir = held.settings.catalogue if held else args.corpus_dir
        store = held.settings.store if held else args.store
        rows = read_catalogue(corpus_dir)
        problems = verify_store(rows, store, progress=progress())
        out(
            f"catalogue checksum ok; {len(rows) - len(problems)} of {len(rows)} fetched files "
            "match the catalogue\n"
        )
        failed = list_refusals("problems", problems)
        if held is not None:
            report = ingest(held, rows, store, progress=progress(), reextract=True)
            out(
                f"re-extracted {counted(len(report.added) + len(report.unchanged), 'version')}: "
                f"{len(report.unchanged)} give their held text hash, {len(report.added)} were "
                "not held yet (now held)\n"
            )
            failed = max(failed, list_refusals("re-extraction refused", report.refused))
    return failed


def cmd_ingest(args: argparse.Namespace) -> int:
    from workbench.corpus import catalogue as corpus_mod
    from workbench.workspace import Workspace, ingest, workspace_settings

    # The settings and the catalogue are read before the workspace is made, so a bad one makes none.
    settings, overrides = workspace_settings(
        args.workspace, corpus_dir=given(args, "corpus_dir"), store=given(args, "store")
    )
    say_overrides(overrides)
    rows = corpus_mod.read_catalogue(settings.catalogue)
    with Workspace(args.workspace) as workspace:
        workspace.remember(settings, by="ingest")
        report = ingest(workspace, rows, settings.store, progress=progress())
        held = workspace.count()
    out(
        f"ingested {len(report.added)} new, {len(report.unchanged)} already held "
        f"({counted(held, 'version')} in {args.workspace})"
        + (f"; awaiting an extractor: {len(report.awaiting)}" if report.awaiting else "")
        + "\n"
    )
    return list_refusals("refused", report.refused)


def cmd_families(args: argparse.Namespace) -> int:
    from workbench.workspace import family_listing, family_numbering

    # The numbering's counts load the measuring code; a plain listing reads the index alone.
    if args.numbering:
        from workbench.measure.summary import (
            add_counts,
            reading_block,
            reading_counts,
            reading_text,
        )

    with open_held(args) as workspace:
        rows = family_listing(workspace)
        if args.numbering:
            for row in rows:
                row.update(family_numbering(workspace, row["jurisdiction"], row["family"]))
    if args.json:
        print_json(rows)
        return 0
    if not rows:
        out(f"no version is held in {args.workspace}; see 'workbench ingest'\n")
        return 0
    counts: dict[str, int] = {}
    for row in rows:
        read = ""
        if args.numbering:
            add_counts(counts, reading_counts(row))
            read = (
                f"  {row['profile']} ({row['chosen']}): {row['reading']}, "
                f"{row['consistent_steps']} consistent and {row['inconsistent_steps']} "
                "inconsistent steps"
            )
        out(
            f"{row['jurisdiction']:<20} {row['family']:<48} "
            f"{counted(row['versions'], 'version'):>12}  {', '.join(row['formats'])}{read}\n"
        )
    if args.numbering:
        out(f"numbering: {reading_text(reading_block(counts))}\n")
    return 0


def cmd_versions(args: argparse.Namespace) -> int:
    from workbench.workspace import version_listing

    with open_held(args) as workspace:
        rows = version_listing(workspace, args.family)
        laws = None
        if args.laws:
            from workbench.amendments.asof import laws_by_release
            from workbench.corpus.catalogue import read_catalogue

            catalogue = read_catalogue(args.corpus_dir)
            laws = laws_by_release(workspace, args.family, catalogue, args.store)
    if laws is not None:  # the laws each release is the first that could reflect, and after
        for row in rows:
            since = laws.since_previous.get(row["version_id"])
            row["laws_since_previous"] = None if since is None else [t.as_json() for t in since]
        if rows:
            rows[-1]["laws_after"] = [t.as_json() for t in laws.after_last]
    if args.json:
        print_json(rows)
        return 0
    for row in rows:
        pages = f"{row['pages']} pages, " if row["pages"] else ""
        for law in laws.since_previous.get(row["version_id"], ()) if laws else ():
            out(f"       took effect since the release before: {law.line()}\n")
        out(
            f"{row['order']:>3}  {row['version_id']}  {row['date'] or '-'}  "
            f"{pages}{row['text_length']} characters  {row['label']}\n"
        )
    for law in laws.after_last if laws else ():
        out(f"       took effect after the last release: {law.line()}\n")
    return 0


def corpus_arguments(parser: Parser) -> None:
    parser.description = (
        "Add your own files, admit a mirror folder, fetch catalogued bytes, re-verify them."
    )
    corpus_commands = parser.add_subparsers(dest="corpus_command", required=True, metavar="COMMAND")
    add = corpus_commands.add_parser(
        "add",
        help="place your own files in mirror layout and write their provenance",
        description="Copy each FILE to DIR/J/F/<name> and write <name>.provenance.json beside "
        "it: sha256, bytes, format (media type sniffed from the bytes), the mirror's git blob "
        "and retrieved_at are computed. Say where the bytes come from (--url and/or --mirror) "
        "and whether they are the issuer's own (--official) or a transcription "
        "(--transcription); there is no default. Or give every file's facts in a CSV manifest "
        "(--from-csv), or take every version of a git repository's files from its history "
        "(--from-git). Everything is checked before anything is written; a file or provenance "
        "already there with other content is refused (exit 1); the same again writes nothing. "
        "Then run 'workbench corpus admit DIR'.",
    )
    add.add_argument(
        "files", nargs="*", type=arguments.document, metavar="FILE", help="documents to add"
    )
    add.add_argument(
        "--into", type=arguments.out_folder, required=True, metavar="DIR", help="mirror folder"
    )
    add.add_argument("--jurisdiction", metavar="J", help="folder and field, e.g. us-dc")
    add.add_argument("--family", metavar="F", help="document family folder, e.g. dc-code-34-306")
    add.add_argument("--url", metavar="URL", help="the issuer's http(s) URL for the artefact")
    add.add_argument(
        "--mirror",
        metavar="REPO@COMMIT:PATH",
        help="where these exact bytes are held: owner/name@<40-hex commit>:<path in the repo>; "
        "a path ending in '/' is the folder holding the FILEs (each file's name is appended)",
    )
    faithful = add.add_mutually_exclusive_group()
    faithful.add_argument(
        "--official",
        dest="official",
        action="store_const",
        const=True,
        help="the bytes are the issuer's official artefact (admitted)",
    )
    faithful.add_argument(
        "--transcription",
        dest="official",
        action="store_const",
        const=False,
        help="the bytes are not byte-faithful to the official filing (refused at admission)",
    )
    add.add_argument(
        "--order",
        type=arguments.integer,
        metavar="N",
        help="version_order of the first FILE; the next get N+1, ... (default: 1)",
    )
    add.add_argument("--label", metavar="L", help="version label, e.g. '-04' or 'as introduced'")
    add.add_argument(
        "--name",
        metavar="NAME",
        help="the copy's file name, for one FILE whose own name a version id cannot carry (a "
        "':' or '?', say; the rule is docs/design.md's) (default: the file's own name)",
    )
    add.add_argument("--date", metavar="YYYY-MM-DD", help="filing or issue date")
    add.add_argument("--issuer", metavar="NAME", help="filer or issuer")
    add.add_argument("--docket", metavar="D", help="docket or bill")
    add.add_argument(
        "--language",
        metavar="TAG",
        help="the documents' language (en, de, fr): OCR reads scanned pages in it (default: en)",
    )
    add.add_argument(
        "--line-numbered", action="store_true", help="the text carries gutter line numbers"
    )
    add.add_argument(
        "--from-csv",
        type=arguments.lines,
        metavar="MANIFEST",
        help="CSV with one row per file; columns file, jurisdiction, family, url, mirror, "
        "official, order, label, date, issuer, docket, language, name, line_numbered (file "
        "relative to the CSV)",
    )
    add.add_argument(
        "--from-git",
        type=arguments.folder,
        metavar="REPO",
        help="take every version of the files --paths names from a git repository's history: "
        "each commit of HEAD's first-parent line that changes a file is a version of its family "
        "(see docs/corpus.md)",
    )
    add.add_argument(
        "--paths",
        action="append",
        metavar="GLOB",
        help="with --from-git: a glob of the repository's paths (* within a folder, ** across "
        "folders); give it again for more",
    )
    add.add_argument(
        "--family-from",
        metavar="REGEX",
        help="with --from-git: a regular expression searched in each path; its first group "
        "(else the whole match) names the family (default: the file name without extension)",
    )
    add.add_argument(
        "--family-prefix",
        metavar="TEXT",
        help="with --from-git: put before every family name, e.g. dc-code-",
    )
    add.add_argument(
        "--since",
        metavar="YYYY-MM-DD",
        help="with --from-git: start at the first commit dated on or after this day, taking "
        "every matching file it holds as a version",
    )
    add.add_argument(
        "--until",
        metavar="YYYY-MM-DD",
        help="with --from-git: stop at the last commit dated on or before this day",
    )
    add.add_argument(
        "--at-head",
        action="store_true",
        help="with --from-git: read HEAD's tree alone, one version of each matching file as the "
        "head holds it (order 1, dated by HEAD's commit), e.g. a code's laws; not with --since "
        "or --until",
    )
    add.add_argument(
        "--repo-name",
        metavar="OWNER/NAME",
        help="with --from-git: the repository's public name for each provenance's mirror "
        "(default: read from the clone's origin remote)",
    )
    add.set_defaults(func=cmd_add)

    admit = corpus_commands.add_parser(
        "admit",
        help="admit a mirror folder into its catalogue, listing refusals",
        description="Read every <jurisdiction>/<family>/<file> and its .provenance.json "
        "under DIR, check hashes, write the catalogue: the project's corpus/ only for the "
        "project's mirror (../shared/corpus) or when --corpus-dir names it; any other folder's "
        "catalogue and refusals go to that corpus's own folder, .workbench/corpora/<name>-<hash>/ "
        "(printed). Exit 0 if every refusal is one the policy requires (transcriptions); 1 if "
        "anything else was refused or nothing was admitted, and then nothing is written.",
    )
    admit.add_argument(
        "dir",
        type=arguments.folder,
        metavar="DIR",
        help="mirror folder in <jurisdiction>/<family>/<file> layout",
    )
    path_options(admit, written=("corpus-dir",))
    admit.set_defaults(func=cmd_admit)

    fetch = corpus_commands.add_parser(
        "fetch",
        help="bring catalogued bytes into the store, hash-checked",
        description="Copy (or, with no --mirror, download from each row's mirror URL) "
        "every catalogued file into the store, checking SHA-256. A mismatch never "
        "replaces a fetched file.",
    )
    fetch.add_argument(
        "--mirror",
        type=arguments.folder,
        default=None,
        help="local mirror folder to copy from instead of downloading",
    )
    fetch.add_argument(
        "--mirror-url",
        default=os.environ.get("WORKBENCH_MIRROR_URL", MIRROR_URL),
        metavar="TEMPLATE",
        help="download URL template with {repo}, {commit} and {path} "
        "(default: $WORKBENCH_MIRROR_URL or %(default)s)",
    )
    fetch.add_argument(
        "--refused-store",
        type=arguments.out_folder,
        default=Path("corpus/refused"),
        help="folder for refused documents kept to re-check admission (default: corpus/refused)",
    )
    path_options(fetch, store=True, written=("store",))
    fetch.set_defaults(func=cmd_fetch)

    verify = corpus_commands.add_parser(
        "verify",
        help="re-hash everything held against the catalogue",
        description="Check the catalogue's own checksum, then re-hash every fetched file. With "
        "--reextract, also run every extractor again on the held bytes and check that each version's "
        "text hash equals the one the workspace holds (a difference is refused, nothing replaced).",
    )
    path_options(verify, store=True, workspace=True)
    verify.add_argument(
        "--reextract",
        action="store_true",
        help="re-run every extractor and check the text hashes against the workspace",
    )
    verify.set_defaults(func=cmd_verify_store)


def ingest_arguments(parser: Parser) -> None:
    parser.description = (
        "Extract every catalogued, fetched file into the workspace. Identical bytes "
        "write nothing; a changed version id is refused. PDFs await their extractor."
    )
    path_options(parser, workspace=True, store=True, written=("workspace",))
    parser.set_defaults(func=cmd_ingest)


def families_arguments(parser: Parser) -> None:
    parser.description = "List every held family: jurisdiction, family, versions held and formats."
    parser.add_argument("--json", action="store_true", help="print the list as JSON")
    parser.add_argument(
        "--numbering",
        action="store_true",
        help="read each family's numbering through its profile (as measure does) and say which "
        "profile read it, how it was chosen, and whether it read it (read, read with "
        "inconsistencies, unread), with the counts at the end; reads every held text",
    )
    path_options(parser, workspace=True)
    parser.set_defaults(func=cmd_families)


def versions_arguments(parser: Parser) -> None:
    parser.description = (
        "List a family's held versions in version order: version id, order, filing "
        "date, pages (PDF), text length and label."
    )
    parser.add_argument("family", metavar="FAMILY", help="a family name, as `families` lists it")
    parser.add_argument("--json", action="store_true", help="print the list as JSON")
    parser.add_argument(
        "--laws",
        action="store_true",
        help="between consecutive releases of a Code section, the held laws amending it that "
        "took effect (after the earlier was published, on or before the later), and those "
        "effective after the last; reads the fetched laws that name the section",
    )
    path_options(parser, workspace=True, store=True)
    parser.set_defaults(func=cmd_versions)


ARGUMENTS = {
    "corpus": corpus_arguments,
    "ingest": ingest_arguments,
    "families": families_arguments,
    "versions": versions_arguments,
}
