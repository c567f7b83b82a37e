"""Citation commands: verify citations exactly against held versions, and export the verified ones
as W3C Web Annotations.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from workbench.cli import arguments
from workbench.cli.common import PROG, out, path_options


def _citation_lines(args: argparse.Namespace) -> tuple[Any, ...]:
    from workbench.cite.formats import read_citations, read_documents

    data = sys.stdin.buffer.read() if str(args.file) == "-" else args.file.read_bytes()
    documents = None
    if getattr(args, "documents", None) is not None:
        documents = read_documents(args.documents.read_bytes(), str(args.documents))
    fmt: Any = getattr(args, "format", "workbench")  # argparse choices hold it to FORMATS
    return read_citations(data, fmt, documents=documents, source=str(args.file))


def cmd_verify(args: argparse.Namespace) -> int:
    from workbench.cite import VERIFIED_MEANS
    from workbench.cite.formats import verification_as_json, verification_text
    from workbench.cite.pages import verdict_pages, verify_lines
    from workbench.store import Workspace

    lines = _citation_lines(args)
    with Workspace(args.workspace) as workspace:
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
    from workbench.cite.formats import export_annotations
    from workbench.store import Workspace

    lines = _citation_lines(args)
    for line in lines:
        if line.error is not None:
            print(f"{PROG}: {line.error}", file=sys.stderr)
    with Workspace(args.workspace) as workspace:
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
