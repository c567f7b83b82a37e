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


def _pages(pages: Any, citation: Any) -> list[int] | None:
    """The first and last PDF page the cited span touches, or None (no page map, bad offsets)."""
    from workbench.models import page_for_offset

    start, end = citation.char_start, citation.char_end
    if not pages or not isinstance(start, int) or not isinstance(end, int) or end <= start:
        return None
    first, last = page_for_offset(pages, start), page_for_offset(pages, end - 1)
    return None if first is None or last is None else [first, last]


def _page_words(pages: list[int] | None) -> str:
    if pages is None:
        return ""
    first, last = pages
    return f" p. {first}" if first == last else f" pp. {first}-{last}"


def _verification_json(line: int, verification: Any, pages: list[int] | None) -> dict[str, Any]:
    citation = verification.citation
    return {
        "line": line,
        "outcome": verification.outcome,
        "reason": verification.reason,
        "detail": verification.detail,
        "version_id": citation.version_id,
        "char_start": citation.char_start,
        "char_end": citation.char_end,
        "quoted_text": citation.quoted_text,
        "actual_text": verification.actual_text,
        "text_sha256": verification.text_sha256,
        "occurrence": verification.occurrence,
        "occurrence_count": len(verification.occurrences),
        "occurrences": [list(span) for span in verification.occurrences[:20]],
        "pages": pages,
        "qualifiers": [
            {"word": q.word, "char_start": q.char_start, "char_end": q.char_end, "side": q.side}
            for q in verification.qualifiers
        ],
    }


def cmd_verify(args: argparse.Namespace) -> int:
    from workbench.cite import VERIFIED_MEANS, verify_citations
    from workbench.store import Workspace

    lines = _citation_lines(args)
    good = [line for line in lines if line.citation is not None]
    with Workspace(args.workspace) as workspace:
        results = dict(
            zip(
                (line.line for line in good),
                verify_citations(workspace, (line.citation for line in good)),
                strict=True,
            )
        )
        page_maps = {
            v: workspace.version(v).pages
            for v in {r.citation.version_id for r in results.values() if r.text_sha256}
        }
    counts = {"verified": 0, "refused": 0, "malformed": 0}
    for line in lines:
        if line.error is not None:
            counts["malformed"] += 1
            out(
                json.dumps({"line": line.line, "error": line.error}, ensure_ascii=False) + "\n"
                if args.json
                else f"{line.error}\n"
            )
            continue
        result = results[line.line]
        counts[result.outcome] += 1
        c = result.citation
        pages = _pages(page_maps.get(c.version_id), c)
        if args.json:
            out(json.dumps(_verification_json(line.line, result, pages), ensure_ascii=False) + "\n")
            continue
        where = f"{c.version_id} [{c.char_start}, {c.char_end}){_page_words(pages)}"
        reason = f" {result.reason}" if result.reason else ""
        out(
            f"line {line.line}: {result.outcome}{reason}: {where}: {result.detail}; "
            f"text at offsets: {json.dumps(result.actual_text, ensure_ascii=False)}\n"
        )
        for q in result.qualifiers:
            out(
                f"  qualifier {q.side} the quote, left out of it: {q.word!r} at "
                f"[{q.char_start}, {q.char_end})\n"
            )
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
        help="workbench {version_id, char_start, char_end, quoted_text, occurrence?}; "
        "w3c Web Annotations (TextPositionSelector + TextQuoteSelector); anthropic "
        "char_location citations (default: workbench)",
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
