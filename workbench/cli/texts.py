"""Text commands: a held version's exact text, its passages, and how a numbering profile reads it."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from workbench.cli import arguments
from workbench.cli.common import family_profile, out, path_options, print_json, profiles_option
from workbench.cli.through_time import as_of_option


def cmd_text(args: argparse.Namespace) -> int:
    from workbench.cli.through_time import as_of, named_once
    from workbench.workspace import Workspace

    named_once(args, args.version_id)
    with Workspace(args.workspace) as workspace:
        dated = as_of(args, workspace)
        text = workspace.version(dated.version_id if dated else args.version_id).text
    if dated is not None:  # stdout holds the exact text alone; which release it is goes beside
        print("".join(line + "\n" for line in dated.lines()), end="", file=sys.stderr)
    out(text)
    return 0


def cmd_passages(args: argparse.Namespace) -> int:
    from workbench.text.segment import segment_version
    from workbench.workspace import Workspace

    with Workspace(args.workspace) as workspace:
        version = workspace.version(args.version_id)
        choice = family_profile(args, workspace, version)
    passages = segment_version(version, choice.profile)
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
    from workbench.workspace import Workspace

    note = None
    with Workspace(args.workspace) as workspace:
        version = workspace.version(args.version_id)
        if args.profile is not None:
            profile, how = load_profile(args.profile), "file"
        else:
            choice = family_profile(args, workspace, version)
            profile, how, note = choice.profile, choice.how, choice.note
    parse = parse_structure(version, profile)
    marks = version.structure if is_marked(version) else None
    readings = [r for r in read_lines(version.text, profile, marks) if r.label is not None]
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
        print_json({**summary, "inconsistent_steps": inconsistent, "labels": lines})
        return 0
    out(
        f"{version.version_id}: profile {profile.name} ({how}, sha256 {profile.sha256[:12]}"
        f"{f'; {note}' if note else ''}), "
        f"{parse.method}, {len(parse.units)} units, {parse.inconsistent} of {parse.checked} "
        f"label steps inconsistent, refusal {parse.refusal or '-'}; "
        f"{labelled} of {len(passages)} passages have their own label\n"
    )
    if inconsistent:
        out(f"inconsistent steps ({len(inconsistent)}):\n")
    for step in inconsistent:
        after = f"after {step['previous']}" if step["previous"] is not None else "first"
        out(
            f"{step['line']:6d} {step['level']:<16} {step['label']!s:<14} "
            f"{after}, expected {step['expected']}\n"
        )
    if inconsistent:
        out("labels:\n")
    for line in lines:
        path = "/".join(line["path"]) if line["path"] else "-"
        out(
            f"{line['line']:6d} {line['level']:<16} {line['label']!s:<14} {path:<30} {line['text']}\n"
        )
    return 0


def add_commands(commands: Any) -> None:
    text = commands.add_parser(
        "text",
        help="print the exact text offsets index",
        description="Print a held version's text exactly (UTF-8, no newline translation). Name "
        "it by VERSION_ID, or by --family F --as-of DATE: the family's latest release published "
        "on or before DATE, which stderr names with the held laws effective by DATE it does not "
        "yet reflect.",
    )
    text.add_argument(
        "version_id",
        nargs="?",
        metavar="VERSION_ID",
        help="catalogue path, e.g. ietf/<family>/<file>.txt",
    )
    text.add_argument("--family", metavar="F", help="with --as-of: the family")
    as_of_option(text)
    path_options(text, workspace=True, store=True)
    text.set_defaults(func=cmd_text)

    passages = commands.add_parser(
        "passages",
        help="passages with offsets and section labels",
        description="Split a held version into passages with exact offsets.",
    )
    passages.add_argument("version_id", metavar="VERSION_ID")
    passages.add_argument(
        "--json",
        action="store_true",
        help="print [{version_id, ordinal, char_start, char_end, text, section_label, kind, "
        "path, profile, page}]",
    )
    path_options(passages, workspace=True)
    profiles_option(passages)
    passages.set_defaults(func=cmd_passages)

    structure = commands.add_parser(
        "structure",
        help="which lines a numbering profile reads as labels, and their paths",
        description="Show how a numbering profile reads a held version: every label line, its "
        "level and structural path, and the parse's summary. Without --profile, the profile "
        "naming the version's family is used, else the automatic choice.",
    )
    structure.add_argument("version_id", metavar="VERSION_ID")
    structure.add_argument(
        "--profile",
        type=arguments.text,
        default=None,
        metavar="FILE",
        help="a profile TOML file to try",
    )
    structure.add_argument("--json", action="store_true", help="print the reading as JSON")
    path_options(structure, workspace=True)
    profiles_option(structure)
    structure.set_defaults(func=cmd_structure)
