"""Profile commands: a numbering profile induced from held versions' texts (`profile suggest`)."""

from __future__ import annotations

import argparse
from typing import Any

from workbench.cli import arguments
from workbench.cli.arguments import Parser
from workbench.cli.common import open_held, out, path_options, print_json
from workbench.wording import counted


def cmd_profile_suggest(args: argparse.Namespace) -> int:
    from workbench.files import replace_file
    from workbench.text.induce import induce_profile
    from workbench.text.structure import parse_text
    from workbench.workspace.parts import held_headings

    with open_held(args) as workspace:
        if args.family is not None:
            versions = workspace.versions(args.family)
        else:
            versions = tuple(workspace.version(v) for v in args.version_ids)
        headings = [held_headings(workspace, v) for v in versions]
    induction = induce_profile([v.text for v in versions], headings)
    profile = induction.profile()
    readings = [
        {
            "version_id": v.version_id,
            **_reading(parse_text(v.version_id, v.text, profile)),
        }
        for v in versions
    ]
    if args.out is not None:
        replace_file(args.out, induction.source.encode("utf-8"))
    if args.json:
        print_json(
            {
                "sha256": profile.sha256,
                "numbers_nothing": induction.numbers_nothing,
                "levels": [level.name for level in induction.levels],
                "furniture": list(induction.furniture),
                "versions": readings,
                "toml": induction.source,
                "written_to": str(args.out) if args.out is not None else None,
            }
        )
        return 0
    if args.out is None:
        out(induction.source)
        return 0
    if induction.numbers_nothing:
        out(
            f"these {counted(len(versions), 'version')} number nothing: no label shape opens lines and counts\n"
        )
    out(
        f"wrote {args.out} (sha256 {profile.sha256[:12]}): "
        f"{counted(len(induction.levels), 'level')} from {counted(len(versions), 'version')}\n"
    )
    for reading in readings:
        out(
            f"  {reading['version_id']}: {reading['units']} units, {reading['inconsistent']} of "
            f"{reading['checked']} label steps inconsistent, refusal {reading['refusal'] or '-'}\n"
        )
    return 0


def _reading(parse: Any) -> dict[str, Any]:
    return {
        "units": len(parse.units),
        "checked": parse.checked,
        "inconsistent": parse.inconsistent,
        "refusal": parse.refusal,
    }


def profile_arguments(parser: Parser) -> None:
    parser.description = "Numbering profiles (docs/profiles.md)."
    verbs = parser.add_subparsers(dest="profile_command", required=True, metavar="COMMAND")
    suggest = verbs.add_parser(
        "suggest",
        help="induce a numbering profile from held versions' texts",
        description="Induce a numbering profile from the texts of held versions alone (no "
        "profile and no jurisdiction name is read): the label shapes that open lines and count, "
        "nested by what the text shows, and the page furniture. Prints the commented TOML, or "
        "writes it to --out and says how it reads each version.",
    )
    which = suggest.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "version_ids", metavar="VERSION_ID", nargs="*", default=[], help="held versions to read"
    )
    which.add_argument("--family", metavar="F", default=None, help="every held version of F")
    suggest.add_argument(
        "--out",
        type=arguments.out_file,
        default=None,
        metavar="FILE",
        help="write the TOML here (replaced whole) instead of printing it",
    )
    suggest.add_argument("--json", action="store_true", help="print the result as JSON")
    path_options(suggest, workspace=True)
    suggest.set_defaults(func=cmd_profile_suggest)


ARGUMENTS = {
    "profile": profile_arguments,
}
