"""Citation commands: verify citations exactly against held versions, export the verified ones
as W3C Web Annotations, write a version as Anthropic custom-content blocks, and write and re-check
bundles of citations, verdicts and versions.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from workbench.cli import arguments
from workbench.cli.arguments import Parser
from workbench.cli.common import PROG, err, ocr_cache, open_held, out, path_options
from workbench.wording import counted

# The input formats of `cite.formats.FORMATS`, spelled here so the parser builds without
# importing the verifier (tests/cli check the two agree).
FORMAT_CHOICES = ("workbench", "w3c", "anthropic", "gemini", "openai", "cohere", "bedrock", "auto")


def _citation_lines(args: argparse.Namespace) -> tuple[Any, ...]:
    from workbench.cite import read_citations

    data = sys.stdin.buffer.read() if str(args.file) == "-" else args.file.read_bytes()
    documents = None
    if getattr(args, "documents", None) is not None:
        from workbench.cite import read_documents  # a provider's documents, where given

        documents = read_documents(args.documents.read_bytes(), str(args.documents))
    fmt: Any = getattr(args, "format", "workbench")  # argparse choices hold it to FORMATS
    return read_citations(data, fmt, documents=documents, source=str(args.file))


def cmd_verify(args: argparse.Namespace) -> int:
    from workbench.cite import (
        summary,
        tally,
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
        held = workspace.version_ids()
        claims = {
            line.line: _decided(workspace, line.claim) for line in lines if line.claim is not None
        }
    for line, result, pages in zip(lines, results, spanned, strict=True):
        if line.line in claims:
            out(_claim_out(claims[line.line], args.json, line.line))
            continue
        if result is None:
            out(
                json.dumps({"line": line.line, "error": line.error}, ensure_ascii=False) + "\n"
                if args.json
                else f"{line.error}\n"
            )
            continue
        if args.json:
            shape = verification_as_json(line.line, result, spanned=pages, named=line.pages)
            out(json.dumps(shape, ensure_ascii=False) + "\n")
            continue
        out(verification_text(line.line, result, spanned=pages, named=line.pages))
        if result.reason == "unknown_version":
            out(_nearest_held(result.citation.version_id, held))
    counts = tally(r for line, r in zip(lines, results, strict=True) if line.claim is None)
    if not args.json:
        out(summary(counts) + "\n")
        if claims:
            out(_claims_summary(tuple(claims.values())) + "\n")
    if counts["malformed"]:
        return 2
    return 1 if counts["refused"] or any(not c.passed for c in claims.values()) else 0


NEAREST_ASKED = 100  # candidates asked of a family's index for a control term not found
NEAREST_SHOWN = 3  # shown for each version the control is missing from


def _nearest(workspace: Any) -> Any:
    """The candidate passages nearest a control term in the versions it was not found in (the
    candidate search of `search`, handed to `cite.claims`, which does not import it; a full scan
    of the family, since the index offers only passages that hold one of the term's words, and the
    control is missing from these versions): of each family's `NEAREST_ASKED` best candidates, the first `NEAREST_SHOWN` in each of those versions
    (the versions that do hold the term rank first, so few would be left for the others), each
    `version [start, end) text`."""

    def nearest(term: str, version_ids: Any) -> list[str]:
        from workbench.search import SearchScope, find_candidates

        wanted, shown = set(version_ids), []
        taken: dict[str, int] = {}
        for family in dict.fromkeys(v.split("/")[1] for v in wanted if v.count("/") == 2):
            scope = SearchScope(workspace=workspace, family=family)
            for c in find_candidates(term, scope, NEAREST_ASKED, scan=True).candidates:
                if c.version_id in wanted and taken.get(c.version_id, 0) < NEAREST_SHOWN:
                    taken[c.version_id] = taken.get(c.version_id, 0) + 1
                    text = workspace.version(c.version_id).text[c.char_start : c.char_end]
                    excerpt = " ".join(text.split())[:70]
                    shown.append(f"{c.version_id} [{c.char_start}, {c.char_end}) {excerpt}")
        return shown

    return nearest


def _decided(workspace: Any, claim: Any) -> Any:
    from workbench.cite.claims import decide_claim

    return decide_claim(workspace, claim, _nearest(workspace))


def _claim_out(verdict: Any, as_json: bool, line: int | None = None) -> str:
    """A claim's verdict as `verify` and `absent` print it: the outcome line, what was searched,
    then every occurrence (the quote's, or the control's when it failed) and nearest candidate."""
    if as_json:
        shape = verdict.as_json() | ({"line": line} if line is not None else {})
        return json.dumps(shape, ensure_ascii=False) + "\n"
    shape = verdict.as_json()
    outcome = verdict.outcome + (f" {verdict.reason}" if verdict.reason else "")
    head = f"line {line}: " if line is not None else ""
    lines = [
        f"{head}{outcome}: {verdict.detail}\n",
        f"  searched: match {shape['match']} ({shape['boundary']}); {shape['overlaps']}; "
        f"normalization {shape['normalization']}\n",
    ]
    lines += [f"  text {v} sha256 {s}\n" for v, s in verdict.texts]
    lines += [
        f"  occurrence {o.version_id} [{o.char_start}, {o.char_end}) {json.dumps(o.text, ensure_ascii=False)}\n"
        for o in verdict.occurrences
    ]
    if verdict.claim.control is not None and verdict.reason in (None, "control_failed"):
        lines.append(
            f"  control {verdict.claim.control!r} found {len(verdict.control_found)} times\n"
        )
    lines += [f"  nearest (a place to look, not evidence): {n}\n" for n in verdict.nearest]
    return "".join(lines)


def _claims_summary(verdicts: tuple[Any, ...]) -> str:
    from collections import Counter

    counts = Counter(v.reason or v.outcome for v in verdicts)
    return "claims: " + ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))


def cmd_absent(args: argparse.Namespace) -> int:
    from workbench.cite.claims import Claim

    scope: Any = {"family": args.family}
    if args.first is not None:
        scope["from"] = args.first
    if args.last is not None:
        scope["to"] = args.last
    claim = Claim(quote=args.quote, scope=scope, match=args.match, control=args.control)
    with open_held(args) as workspace:
        verdict = _decided(workspace, claim)
    out(_claim_out(verdict, args.json))
    return 0 if verdict.passed else 1


def _nearest_held(version_id: str, held: Any) -> str:
    """The line under an `unknown_version` refusal naming the family's nearest held versions."""
    from workbench.cite.hints import nearest_versions

    nearest = nearest_versions(version_id, held)
    if not nearest:
        return ""
    return f"  held in its family, nearest by name: {', '.join(nearest)}\n"


def cmd_export_annotations(args: argparse.Namespace) -> int:
    from workbench.cite import export_annotations

    with open_held(args) as workspace:  # a missing workspace is refused before any line is read
        lines = _citation_lines(args)
        for line in lines:
            if line.error is not None:
                err(f"{PROG}: {line.error}")
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
        err(
            f"{PROG}: not exported: {c.version_id} [{c.char_start}, {c.char_end}): "
            f"{v.reason}: {v.detail}"
        )
    if any(line.error is not None for line in lines):
        return 2
    return 1 if refused else 0


def cmd_bundle(args: argparse.Namespace) -> int:
    from workbench.cite import read_documents, summary, tally
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
            crops=workspace.settings.store if args.with_crops else None,
            ocr_cache=ocr_cache(args),
        )
    counts = tally(v.verification for v in report.verdicts)
    out(
        f"wrote {report.path}: {counted(len(report.verdicts), 'citation')} into "
        f"{counted(len(report.versions), 'version')}{', documents inside' if args.with_documents else ''}"
        f"{', crops inside' if args.with_crops else ''}; datapackage.json sha256 "
        f"{report.digest}\n{summary(counts, malformed=False)}\n"
    )
    return 0


def cmd_verify_bundle(args: argparse.Namespace) -> int:
    from workbench.cite import summary, tally, verification_text
    from workbench.exports.bundle_check import verify_bundle

    report = verify_bundle(args.bundle, mirror=args.mirror, ocr_cache=ocr_cache(args))
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
    counts = tally(v.verification for v in report.verdicts)
    out(f"{counted(len(report.versions), 'version')} re-read; {summary(counts, malformed=False)}\n")
    if report.problems:
        out(f"\nproblems: the bundle does not re-check ({len(report.problems)}):\n")
        out("".join(f"  {problem.line()}\n" for problem in report.problems))
        return 1
    out("the bundle re-checks: every hash matches and every verdict is the one it holds\n")
    return 0


def cmd_blocks(args: argparse.Namespace) -> int:
    from workbench.cite import version_blocks

    with open_held(args) as workspace:
        blocks = version_blocks(workspace.version(args.version_id), workspace)
    if args.json:
        out(json.dumps(blocks.as_json(), ensure_ascii=False) + "\n")
        return 0
    for number, ((start, end), text) in enumerate(zip(blocks.map.spans, blocks.texts, strict=True)):
        excerpt = " ".join(text.split())
        excerpt = excerpt if len(excerpt) <= 80 else excerpt[:77] + "..."
        out(f"{number:>5}  [{start}, {end})  {excerpt}\n")
    out(
        f"{len(blocks.texts)} blocks of {args.version_id} (text sha256 {blocks.map.text_sha256}); "
        f"blocks_sha256 {blocks.map.blocks_sha256}; --json writes the document and its map\n"
    )
    return 0


def verify_arguments(parser: Parser) -> None:
    parser.description = (
        "Check each citation of a JSON Lines FILE ('-' for stdin) against its held "
        "version: the text hash first, then the quote at the offsets, then its occurrences. "
        "Prints outcome, reason and the text actually at the offsets, then the counts: plainly "
        "verified, verified with caveats (e.g. qualifier_omitted: a marked omission removed a "
        "'not'), resolved (a span that claimed no quote), refused. Exit 0 when nothing was "
        "refused; 1 if any was refused; 2 if any line was malformed (the rest are still "
        'checked). A line may instead claim absence ({"absent": QUOTE, "scope": ..., '
        '"control": TERM}) or a count ({"count": N, "of": QUOTE, "scope": ...}); '
        "each is searched exactly and printed with every occurrence's offsets. Verified means "
        "the words are there, not that a reading of them is right."
    )
    parser.add_argument(
        "file", type=arguments.lines_or_stdin, metavar="FILE", help="JSON Lines of citations"
    )
    parser.add_argument(
        "--format",
        choices=FORMAT_CHOICES,
        default="workbench",
        help="workbench {version_id, char_start, char_end, quoted_text, occurrence?, page?}; "
        "w3c Web Annotations (TextPositionSelector and/or TextQuoteSelector; a position alone "
        "is resolved, not verified); anthropic citations (char_location, page_location, "
        "content_block_location, search_result_location, web_search_result_location), as JSON "
        "Lines or a whole Messages response or stream; gemini, a generateContent response or "
        "stream (groundingSupports, UTF-8 byte offsets) or an Interactions response "
        "(url_citation); openai, a Responses API response (url_citation, file_citation); cohere, "
        "a Chat v2 response (document sources); bedrock, a Converse response (documentChar, "
        "documentPage, documentChunk); auto tells them apart (default: workbench)",
    )
    parser.add_argument(
        "--documents",
        type=arguments.text,
        default=None,
        help="JSON array, in document (or Gemini chunk) index order, of version ids, the maps "
        "'workbench blocks VERSION_ID --json' writes (for block and search-result citations), "
        "or null for a document sent and never recorded",
    )
    parser.add_argument(
        "--alterations",
        action="store_true",
        help="read every quote's marked omissions (..., . . ., …) and bracketed insertions "
        "([T]he) and verify it fragment by fragment, as the citation's own "
        '"alterations": true does (default: a quote is compared as it stands)',
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object per input line")
    path_options(parser, workspace=True)
    parser.set_defaults(func=cmd_verify)


def absent_arguments(parser: Parser) -> None:
    parser.description = (
        "Search every held version of FAMILY (or the releases from --from to --to) "
        "for QUOTE under the one normalization, as a word (default) or a substring. Prints "
        "'absent' only when QUOTE occurs in no version and the --control term, one the claim "
        "says is there, is found in every version; each version's text sha256 is listed. A "
        "found occurrence refuses with its offsets ('refused found'); a control not found "
        "refuses as control_failed, with the nearest candidate passages (never evidence). The "
        'same claim as a line of \'workbench verify\': {"absent": QUOTE, "scope": '
        '{"family": F}, "control": TERM}. Exit 0 when absent, 1 when refused.'
    )
    parser.add_argument("quote", metavar="QUOTE", help="the words said to occur nowhere")
    parser.add_argument("--family", required=True, help="the family searched")
    parser.add_argument(
        "--control", required=True, help="a term the family holds: the positive control"
    )
    parser.add_argument(
        "--from",
        dest="first",
        default=None,
        metavar="VERSION_ID",
        help="the first release searched",
    )
    parser.add_argument(
        "--to", dest="last", default=None, metavar="VERSION_ID", help="the last release searched"
    )
    parser.add_argument(
        "--match",
        choices=("word", "substring"),
        default="word",
        help="word: no letter or digit may adjoin a quote's letter or digit edge; substring: "
        "inside words too (default: word)",
    )
    parser.add_argument("--json", action="store_true", help="print the verdict as JSON")
    path_options(parser, workspace=True)
    parser.set_defaults(func=cmd_absent)


def export_annotations_arguments(parser: Parser) -> None:
    parser.description = (
        "Verify a JSON Lines FILE of citations (workbench format) and write each "
        "verified one as a W3C Web Annotation (JSON Lines): source id = the ni: IRI of the "
        "version's text sha256, with the version id and text sha256 as properties; a "
        "TextQuoteSelector with the minimal prefix/suffix that makes the quote unique, and a "
        "TextPositionSelector. Refused citations are listed on stderr (exit 1)."
    )
    parser.add_argument(
        "file", type=arguments.lines_or_stdin, metavar="FILE", help="JSON Lines of citations"
    )
    parser.add_argument(
        "--out", type=arguments.out_file, default=None, help="write here instead of stdout"
    )
    path_options(parser, workspace=True)
    parser.set_defaults(func=cmd_export_annotations)


def bundle_arguments(parser: Parser) -> None:
    parser.description = (
        "Verify citations (--citations FILE, '-' for stdin, in any 'verify' format) "
        "or every note quote (--notes DIR) and write OUT.zip, a Frictionless Data Package: "
        "datapackage.json, the catalogue rows and provenance of every version cited, how each "
        "was read, the citations, the verified ones as W3C Web Annotations, every verdict, and "
        "the head of the verdict log; with --with-documents, the artefact bytes too. Exit 0 when "
        "written (refused citations are recorded, not failures); 2 when a line cannot be read "
        "or a cited version's catalogue row does not match."
    )
    parser.add_argument(
        "out", type=arguments.out_file, metavar="OUT.zip", help="the bundle to write"
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--citations", type=arguments.lines_or_stdin, metavar="FILE", help="JSON Lines of citations"
    )
    source.add_argument("--notes", type=arguments.folder, metavar="DIR", help="a folder of notes")
    parser.add_argument(
        "--format",
        choices=FORMAT_CHOICES,
        default="workbench",
        help="the --citations file's format, as for 'workbench verify' (default: workbench)",
    )
    parser.add_argument(
        "--documents",
        type=arguments.text,
        default=None,
        help="for --format anthropic: JSON array, in document_index order, of version ids or "
        "blocks maps, as for 'workbench verify'",
    )
    parser.add_argument(
        "--with-documents",
        action="store_true",
        help="put each cited version's artefact bytes inside (read from --store, hash-checked)",
    )
    parser.add_argument(
        "--with-crops",
        action="store_true",
        help="put inside, for each verified citation of a PDF version, its span's page region "
        "as a PNG with its characters' boxes highlighted, as 'workbench show' draws it",
    )
    path_options(parser, workspace=True, store=True)
    parser.set_defaults(func=cmd_bundle)


def verify_bundle_arguments(parser: Parser) -> None:
    parser.description = (
        "Re-check BUNDLE.zip with no workspace and no network: every member against "
        "its hash in datapackage.json, every artefact (inside the bundle, else in --mirror DIR) "
        "against its catalogue row, every re-extraction against its text hash; then verify every "
        "citation again and compare the verdicts and annotations byte for byte. Prints each "
        "verdict as 'workbench verify' does. Exit 0 when it re-checks; 1 when anything differs "
        "(each problem named); 2 when the file is not a bundle (not a zip, an unsafe member "
        "name, no descriptor)."
    )
    parser.add_argument("bundle", type=arguments.document, metavar="BUNDLE.zip", help="the bundle")
    parser.add_argument(
        "--mirror",
        type=arguments.folder,
        default=None,
        metavar="DIR",
        help="a folder holding the artefacts in mirror layout, for a bundle without documents",
    )
    parser.set_defaults(func=cmd_verify_bundle)


def blocks_arguments(parser: Parser) -> None:
    parser.description = (
        "Write VERSION_ID's passages as the text blocks of an Anthropic "
        "custom-content document (one block per passage, each the version's own text at the "
        "passage's offsets) and the map from block index to those raw offsets, bound to the "
        "version's text sha256 (blocks_sha256). With --json, one object: the map's fields "
        "(version_id, text_sha256, blocks, blocks_sha256), the document to send, and the same "
        "blocks as a search_result block whose source is the ni: IRI of the version's text; "
        "give that object in the --documents list of 'workbench verify --format anthropic' to "
        "verify the model's content_block_location and search_result_location citations. "
        "Without --json, one line per block."
    )
    parser.add_argument("version_id", metavar="VERSION_ID", help="a held version id")
    parser.add_argument(
        "--json", action="store_true", help="print the document and its block map as JSON"
    )
    path_options(parser, workspace=True)
    parser.set_defaults(func=cmd_blocks)


ARGUMENTS = {
    "verify": verify_arguments,
    "absent": absent_arguments,
    "export-annotations": export_annotations_arguments,
    "bundle": bundle_arguments,
    "verify-bundle": verify_bundle_arguments,
    "blocks": blocks_arguments,
}
