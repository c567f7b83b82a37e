"""Text commands: a held version's exact text, its passages, and how a numbering profile reads it."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from workbench.cli import arguments
from workbench.cli.arguments import Parser
from workbench.cli.common import (
    err,
    family_profile,
    open_held,
    out,
    path_options,
    print_json,
    profiles_option,
)
from workbench.cli.through_time import as_of_option


def cmd_text(args: argparse.Namespace) -> int:
    from workbench.cli.through_time import as_of, named_once

    named_once(args, args.version_id)
    with open_held(args) as workspace:
        dated = as_of(args, workspace)
        text = workspace.version(dated.version_id if dated else args.version_id).text
    if dated is not None:  # stdout holds the exact text alone; which release it is goes beside
        for line in dated.lines():
            err(line)
    out(text)
    return 0


def cmd_passages(args: argparse.Namespace) -> int:
    from workbench.text.segment import segment_version
    from workbench.workspace.parts import held_parts

    with open_held(args) as workspace:
        version = workspace.version(args.version_id)
        choice = family_profile(workspace, version)
        # Footnotes and tables as the workspace keeps them (C20): kinds and parts, no offset moved.
        footnotes, tables = held_parts(workspace, version)
    passages = segment_version(version, choice.profile, footnotes=footnotes, tables=tables)
    from workbench.models import page_for_offset

    page = {p.ordinal: page_for_offset(version.pages, p.char_start) for p in passages}
    if args.json:
        origin = version.origin
        print_json(
            [
                p.as_json(
                    profile=choice.profile.name,
                    page=page[p.ordinal],
                    origin=None
                    if origin is None
                    else origin.characters(version.text, p.char_start, p.char_end),
                )
                for p in passages
            ]
        )
        return 0
    for p in passages:
        first_line = p.text.split("\n", 1)[0][:90]
        on = page[p.ordinal]
        out(
            f"{p.ordinal:5d} [{p.char_start}, {p.char_end}) {p.kind:<12} "
            f"label={p.section_label or '-'} path={'/'.join(p.path) if p.path else '-'}"
            f"{f' page={on}' if on is not None else ''}  {first_line}\n"
        )
    return 0


def cmd_structure(args: argparse.Namespace) -> int:
    from workbench.text.induced_toml import level_evidence
    from workbench.text.lines import read_lines
    from workbench.text.ordinals import InconsistentStep
    from workbench.text.profiles import load_profile
    from workbench.text.segment import segment_version
    from workbench.text.structure import (
        is_marked,
        parse_structure,
        read_text,
        units_from_readings,
    )

    note = None
    with open_held(args) as workspace:
        version = workspace.version(args.version_id)
        if args.profile is not None:
            profile, how = load_profile(args.profile), "file"
        else:
            choice = family_profile(workspace, version)
            profile, how, note = choice.profile, choice.how, choice.note
    parse = parse_structure(version, profile)
    marks = version.structure if is_marked(version) else None
    read = read_lines(version.text, profile, marks)
    readings = [r for r in read if r.label is not None]
    skipped = [
        {
            "line": version.text.count("\n", 0, r.char_start) + 1,
            "char_start": r.char_start,
            "why": r.skipped,
        }
        for r in read
        if r.skipped
    ]
    passages = segment_version(version, profile)
    labelled = sum(p.section_label is not None for p in passages)
    steps: list[InconsistentStep] = []  # an XML version's marks are not checked
    if marks is None:
        units_from_readings(read_text(version.text, profile), len(version.text), steps)
    inconsistent = [
        {"line": version.text.count("\n", 0, step.char_start) + 1, **step.as_json()}
        for step in steps
    ]
    lines: list[dict[str, Any]] = [
        {
            "line": version.text.count("\n", 0, r.char_start) + 1,
            "char_start": r.label_start,
            "level": r.level.name if r.level else "mark",
            "label": r.printed,
            "labels": [r.label, *(i.label for i in r.inner)],
            "path": list(p) if (p := parse.path_at(r.label_start)) is not None else None,
            "text": version.text[r.char_start : r.char_end][:100],
        }
        for r in readings
    ]
    evidence = level_evidence(profile.source.decode("utf-8"))
    summary = {
        "version_id": version.version_id,
        "profile": {**profile.as_json(), "chosen": how, **({"note": note} if note else {})},
        "method": parse.method,
        "refusal": parse.refusal,
        "units": len(parse.units),
        "label_steps_checked": parse.checked,
        "label_steps_inconsistent": parse.inconsistent,
        "passages": len(passages),
        "passages_with_own_label": labelled,
    }
    if args.json:
        shown = [{"level": name, "evidence": list(notes)} for name, notes in evidence]
        print_json(
            {
                **summary,
                "levels": shown,
                "inconsistent_steps": inconsistent,
                "skipped": skipped,
                "labels": lines,
            }
        )
        return 0
    out(
        f"{version.version_id}: profile {profile.name} ({how}, sha256 {profile.sha256[:12]}"
        f"{f'; {note}' if note else ''}), "
        f"{parse.method}, {len(parse.units)} units, {parse.inconsistent} of {parse.checked} "
        f"label steps inconsistent, refusal {parse.refusal or '-'}; "
        f"{labelled} of {len(passages)} passages have their own label\n"
    )
    for name, notes in evidence:
        if notes:  # what the level counted, as its profile file states it
            out(f"level {name}: " + "; ".join(notes) + "\n")
    if inconsistent:
        out(f"inconsistent steps ({len(inconsistent)}):\n")
    for step in inconsistent:
        after = f"after {step['previous']}" if step["previous"] is not None else "first"
        out(
            f"{step['line']:6d} {step['level']:<16} {step['label']!s:<14} "
            f"{after}, expected {step['expected']}\n"
        )
    if skipped:
        out(f"skipped, no label ({len(skipped)}):\n")
    for skip in skipped:
        out(f"{skip['line']:6d} {skip['why']}\n")
    if inconsistent or skipped:
        out("labels:\n")
    for line in lines:
        path = "/".join(line["path"]) if line["path"] else "-"
        out(
            f"{line['line']:6d} {line['level']:<16} {line['label']!s:<14} {path:<30} {line['text']}\n"
        )
    return 0


def span_argument(value: str) -> tuple[int, int]:
    """`START:END`, two character offsets (an argparse `type=`)."""
    start, colon, end = value.partition(":")
    if not colon or not start.isdigit() or not end.isdigit():
        raise argparse.ArgumentTypeError(
            f"{value!r}: expected START:END, two character offsets such as 120:180"
        )
    return arguments.whole_number(start), arguments.whole_number(end)


def png_argument(value: str) -> Path:
    """A PNG file to write: an `out_file` whose name ends in .png."""
    path = arguments.out_file(value)
    if path.suffix.lower() != ".png":
        raise argparse.ArgumentTypeError(
            f"{arguments.shown(path)}: not a .png file name; the image is written as PNG"
        )
    return path


def cmd_show(args: argparse.Namespace) -> int:
    from workbench.cli.common import ocr_cache
    from workbench.exports.crops import show_span
    from workbench.files import replace_file

    start, end = args.span
    with open_held(args) as workspace:
        image = show_span(
            workspace,
            args.version_id,
            start,
            end,
            corpus_dir=workspace.settings.catalogue,
            store=workspace.settings.store,
            ocr_cache=ocr_cache(args),
        )
    args.png.parent.mkdir(parents=True, exist_ok=True)
    replace_file(args.png, image.png, mode=0o644)
    if args.json:
        print_json(image.as_json())
        return 0
    origins = sorted({h.origin for h in image.highlights})
    pages = ", ".join(str(p) for p in image.pages)
    out(
        f"wrote {arguments.shown(args.png)}: [{start}, {end}) of {args.version_id}, page "
        f"{pages}, {len(image.highlights)} boxes highlighted ({', '.join(origins)}), "
        f"{image.width}x{image.height} pixels\n"
    )
    return 0


def text_arguments(parser: Parser) -> None:
    parser.description = (
        "Print a held version's text exactly (UTF-8, no newline translation). Name "
        "it by VERSION_ID, or by --family F --as-of DATE: the family's latest release published "
        "on or before DATE, which stderr names with the held laws effective by DATE it does not "
        "yet reflect."
    )
    parser.add_argument(
        "version_id",
        nargs="?",
        metavar="VERSION_ID",
        help="catalogue path, e.g. ietf/<family>/<file>.txt",
    )
    parser.add_argument("--family", metavar="F", help="with --as-of: the family")
    as_of_option(parser)
    path_options(parser, workspace=True, store=True)
    parser.set_defaults(func=cmd_text)


def passages_arguments(parser: Parser) -> None:
    parser.description = "Split a held version into passages with exact offsets."
    parser.add_argument("version_id", metavar="VERSION_ID")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print [{version_id, ordinal, char_start, char_end, text, section_label, kind, "
        "path, profile, page}]",
    )
    path_options(parser, workspace=True)
    profiles_option(parser)
    parser.set_defaults(func=cmd_passages)


def structure_arguments(parser: Parser) -> None:
    parser.description = (
        "Show how a numbering profile reads a held version: every label line, its "
        "level and structural path, and the parse's summary. Without --profile, the profile "
        "naming the version's family is used, else the automatic choice."
    )
    parser.add_argument("version_id", metavar="VERSION_ID")
    parser.add_argument(
        "--profile",
        type=arguments.text,
        default=None,
        metavar="FILE",
        help="a profile TOML file to try",
    )
    parser.add_argument("--json", action="store_true", help="print the reading as JSON")
    path_options(parser, workspace=True)
    profiles_option(parser)
    parser.set_defaults(func=cmd_structure)


def show_arguments(parser: Parser) -> None:
    parser.description = (
        "Render the page region(s) of a span of a held PDF version as a PNG, with "
        "the boxes of the span's characters highlighted: glyph boxes for text the PDF draws "
        "(origin glyphs or invisible, re-derived from the artefact in the store), the OCR "
        "engine's word boxes for text the workbench read by OCR (origin ocr), so a reviewer "
        "can check a machine-read quote against the image. Refused: a version that is not a "
        "PDF, a span out of range, an output that is not a writable .png file."
    )
    parser.add_argument("version_id", metavar="VERSION_ID")
    # The path options first: an unusable one is named before the span is read.
    path_options(parser, workspace=True, store=True)
    parser.add_argument(
        "--span",
        type=span_argument,
        required=True,
        metavar="START:END",
        help="the characters [START, END) of the version's text",
    )
    parser.add_argument(
        "--png", type=png_argument, required=True, metavar="OUT.png", help="the image to write"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print {version_id, char_start, char_end, pages, width, height, highlights: "
        "[{page, origin, char_start, char_end, box, pixels}]}",
    )
    parser.set_defaults(func=cmd_show)


ARGUMENTS = {
    "text": text_arguments,
    "passages": passages_arguments,
    "structure": structure_arguments,
    "show": show_arguments,
}
