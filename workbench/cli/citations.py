"""Citation commands: verify citations exactly against held versions, export the verified ones
as W3C Web Annotations, and write and re-check bundles of citations, verdicts and versions.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from workbench.cli import arguments
from workbench.cli.common import PROG, open_held, out, path_options


def _citation_lines(args: argparse.Namespace) -> tuple[Any, ...]:
    from workbench.cite import read_citations, read_documents

    data = sys.stdin.buffer.read() if str(args.file) == "-" else args.file.read_bytes()
    documents = None
    if getattr(args, "documents", None) is not None:
        documents = read_documents(args.documents.read_bytes(), str(args.documents))
    fmt: Any = getattr(args, "format", "workbench")  # argparse choices hold it to FORMATS
    return read_citations(data, fmt, documents=documents, source=str(args.file))


def cmd_verify(args: argparse.Namespace) -> int:
    from workbench.cite import (
        VERIFIED_MEANS,
        verdict_pages,
        verification_as_json,
        verification_text,
        verify_lines,
        with_alterations,
    )

    lines = _citation_lines(args)
    if args.alterations:
        lines = with_alterations(lines)
    with open_held(args) as workspace:
        results = verify_lines(workspace, lines)
        spanned = verdict_pages(workspace, results)
    counts = {"verified": 0, "refused": 0, "malformed": 0}
    for line, result, pages in zip(lines, results, spanned, strict=True):
        if result is None:
            counts["malformed"] += 1
            out(
                json.dumps({"line": line.line, "error": line.error}, ensure_ascii=False) + "\n"
                if args.json
                else f"{line.error}\n"
            )
            continue
        counts[result.outcome] += 1
        if args.json:
            shape = verification_as_json(line.line, result, spanned=pages, named=line.pages)
            out(json.dumps(shape, ensure_ascii=False) + "\n")
        else:
            out(verification_text(line.line, result, spanned=pages, named=line.pages))
    if not args.json:
        out(
            f"{counts['verified']} verified, {counts['refused']} refused, "
            f"{counts['malformed']} malformed lines; {VERIFIED_MEANS}\n"
        )
    if counts["malformed"]:
        return 2
    return 1 if counts["refused"] else 0


def cmd_export_annotations(args: argparse.Namespace) -> int:
    from workbench.cite import export_annotations

    with open_held(args) as workspace:  # a missing workspace is refused before any line is read
        lines = _citation_lines(args)
        for line in lines:
            if line.error is not None:
                print(f"{PROG}: {line.error}", file=sys.stderr)
        annotations, verifications = export_annotations(
            workspace, (line.citation for line in lines if line.citation is not None)
        )
    body = "".join(json.dumps(a, ensure_ascii=False) + "\n" for a in annotations)
    if args.out is None:
        out(body)
    else:
        args.out.write_bytes(body.encode("utf-8"))
    refused = [v for v in verifications if not v.verified]
    for v in refused:
        c = v.citation
        print(
            f"{PROG}: not exported: {c.version_id} [{c.char_start}, {c.char_end}): "
            f"{v.reason}: {v.detail}",
            file=sys.stderr,
        )
    if any(line.error is not None for line in lines):
        return 2
    return 1 if refused else 0


def cmd_bundle(args: argparse.Namespace) -> int:
    from workbench.cite import read_documents
    from workbench.exports.bundle import write_bundle

    documents = None
    if args.documents is not None:
        documents = read_documents(args.documents.read_bytes(), str(args.documents))
    citations = None
    if args.citations is not None:
        citations = (
            sys.stdin.buffer.read() if str(args.citations) == "-" else args.citations.read_bytes()
        )
    with open_held(args) as workspace:
        report = write_bundle(
            args.out,
            workspace,
            workspace.settings.catalogue,
            citations=citations,
            fmt=args.format,
            documents=documents,
            source=str(args.citations),
            notes=args.notes,
            store=workspace.settings.store if args.with_documents else None,
        )
    verified = sum(v.verification.verified for v in report.verdicts)
    out(
        f"wrote {report.path}: {len(report.verdicts)} citations ({verified} verified, "
        f"{len(report.verdicts) - verified} refused) into {len(report.versions)} versions"
        f"{', documents inside' if args.with_documents else ''}; datapackage.json sha256 "
        f"{report.digest}\n"
    )
    return 0


def cmd_verify_bundle(args: argparse.Namespace) -> int:
    from workbench.cite import VERIFIED_MEANS, verification_text
    from workbench.exports.bundle_check import verify_bundle

    report = verify_bundle(args.bundle, mirror=args.mirror)
    out(f"{report.path}: datapackage.json sha256 {report.digest}\n")
    for verdict in report.verdicts:
        out(
            verification_text(
                verdict.line.line,
                verdict.verification,
                spanned=verdict.pages,
                named=verdict.line.pages,
            )
        )
    head = report.log_head
    if head:
        out(
            f"verdict log head when written: {head.get('rows')} rows, head {head.get('head')}"
            f"{'' if head.get('chain_valid') else ' (chain broken when written)'}\n"
        )
    verified = sum(v.verification.verified for v in report.verdicts)
    out(
        f"{len(report.versions)} versions re-read; {verified} verified, "
        f"{len(report.verdicts) - verified} refused; {VERIFIED_MEANS}\n"
    )
    if report.problems:
        out(f"\nproblems: the bundle does not re-check ({len(report.problems)}):\n")
        out("".join(f"  {problem.line()}\n" for problem in report.problems))
        return 1
    out("the bundle re-checks: every hash matches and every verdict is the one it holds\n")
    return 0


def add_commands(commands: Any) -> None:
    verify_p = commands.add_parser(
        "verify",
        help="verify citations exactly; one outcome line each",
        description="Check each citation of a JSON Lines FILE ('-' for stdin) against its held "
        "version: the text hash first, then the quote at the offsets, then its occurrences. "
        "Prints outcome, reason and the text actually at the offsets. Exit 0 only if every "
        "citation verified; 1 if any was refused; 2 if any line was malformed (the rest are "
        "still checked). Verified means the words are there, not that a reading of them is right.",
    )
    verify_p.add_argument(
        "file", type=arguments.lines_or_stdin, metavar="FILE", help="JSON Lines of citations"
    )
    verify_p.add_argument(
        "--format",
        choices=("workbench", "w3c", "anthropic"),
        default="workbench",
        help="workbench {version_id, char_start, char_end, quoted_text, occurrence?, page?}; "
        "w3c Web Annotations (TextPositionSelector + TextQuoteSelector); anthropic "
        "char_location or page_location citations (default: workbench)",
    )
    verify_p.add_argument(
        "--documents",
        type=arguments.text,
        default=None,
        help="for --format anthropic: JSON array of version ids in document_index order",
    )
    verify_p.add_argument(
        "--alterations",
        action="store_true",
        help="read every quote's marked omissions (..., . . ., …) and bracketed insertions "
        "([T]he) and verify it fragment by fragment, as the citation's own "
        '"alterations": true does (default: a quote is compared as it stands)',
    )
    verify_p.add_argument(
        "--json", action="store_true", help="print one JSON object per input line"
    )
    path_options(verify_p, workspace=True)
    verify_p.set_defaults(func=cmd_verify)

    export_p = commands.add_parser(
        "export-annotations",
        help="write verified citations as W3C Web Annotations",
        description="Verify a JSON Lines FILE of citations (workbench format) and write each "
        "verified one as a W3C Web Annotation (JSON Lines): source = version id and text "
        "sha256, a TextQuoteSelector with the minimal prefix/suffix that makes the quote "
        "unique, and a TextPositionSelector. Refused citations are listed on stderr (exit 1).",
    )
    export_p.add_argument(
        "file", type=arguments.lines_or_stdin, metavar="FILE", help="JSON Lines of citations"
    )
    export_p.add_argument(
        "--out", type=arguments.out_file, default=None, help="write here instead of stdout"
    )
    path_options(export_p, workspace=True)
    export_p.set_defaults(func=cmd_export_annotations)

    bundle_p = commands.add_parser(
        "bundle",
        help="write citations, their verdicts and the versions they cite as a re-checkable zip",
        description="Verify citations (--citations FILE, '-' for stdin, in any 'verify' format) "
        "or every note quote (--notes DIR) and write OUT.zip, a Frictionless Data Package: "
        "datapackage.json, the catalogue rows and provenance of every version cited, how each "
        "was read, the citations, the verified ones as W3C Web Annotations, every verdict, and "
        "the head of the verdict log; with --with-documents, the artefact bytes too. Exit 0 when "
        "written (refused citations are recorded, not failures); 2 when a line cannot be read "
        "or a cited version's catalogue row does not match.",
    )
    bundle_p.add_argument(
        "out", type=arguments.out_file, metavar="OUT.zip", help="the bundle to write"
    )
    source = bundle_p.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--citations", type=arguments.lines_or_stdin, metavar="FILE", help="JSON Lines of citations"
    )
    source.add_argument("--notes", type=arguments.folder, metavar="DIR", help="a folder of notes")
    bundle_p.add_argument(
        "--format",
        choices=("workbench", "w3c", "anthropic"),
        default="workbench",
        help="the --citations file's format, as for 'workbench verify' (default: workbench)",
    )
    bundle_p.add_argument(
        "--documents",
        type=arguments.text,
        default=None,
        help="for --format anthropic: JSON array of version ids in document_index order",
    )
    bundle_p.add_argument(
        "--with-documents",
        action="store_true",
        help="put each cited version's artefact bytes inside (read from --store, hash-checked)",
    )
    path_options(bundle_p, workspace=True, store=True)
    bundle_p.set_defaults(func=cmd_bundle)

    verify_bundle_p = commands.add_parser(
        "verify-bundle",
        help="re-check a bundle offline: every hash, every citation, the same verdicts",
        description="Re-check BUNDLE.zip with no workspace and no network: every member against "
        "its hash in datapackage.json, every artefact (inside the bundle, else in --mirror DIR) "
        "against its catalogue row, every re-extraction against its text hash; then verify every "
        "citation again and compare the verdicts and annotations byte for byte. Prints each "
        "verdict as 'workbench verify' does. Exit 0 when it re-checks; 1 when anything differs "
        "(each problem named); 2 when the file is not a bundle (not a zip, an unsafe member "
        "name, no descriptor).",
    )
    verify_bundle_p.add_argument(
        "bundle", type=arguments.document, metavar="BUNDLE.zip", help="the bundle"
    )
    verify_bundle_p.add_argument(
        "--mirror",
        type=arguments.folder,
        default=None,
        metavar="DIR",
        help="a folder holding the artefacts in mirror layout, for a bundle without documents",
    )
    verify_bundle_p.set_defaults(func=cmd_verify_bundle)
