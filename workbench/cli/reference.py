"""The command-line reference page (docs/cli.md), made from the parser's own help: exactly what
`workbench ... --help` prints in a terminal `COLUMNS` wide, and nothing written by hand."""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import cast

from workbench.cli import build_parser
from workbench.files import replace_file
from workbench.terminal import write

COLUMNS = 100  # the terminal width the help is formatted for (argparse wraps at COLUMNS - 2)
TARGET = Path("docs/cli.md")
COMMAND = "python -m workbench.cli.reference --write docs/cli.md"


def parsers() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every parser of the command line, as (its full command, the parser), in parser order: the
    top-level parser, then depth first, each command before its own subcommands."""

    def walk(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
        yield parser.prog, parser
        for action in parser._actions:  # argparse keeps subcommands only here
            if isinstance(action, argparse._SubParsersAction):
                for sub in dict.fromkeys(action.choices.values()):  # once each, in added order
                    yield from walk(sub)

    yield from walk(build_parser())


def help_text(parser: argparse.ArgumentParser) -> str:
    """`parser`'s `--help` text as a terminal `COLUMNS` wide shows it. The parser's formatter is
    given that width, so build it for the page alone (`parsers` builds a fresh command line)."""
    # typeshed types `formatter_class` as a factory taking `prog` only; it is a formatter class
    formatter = cast("type[argparse.HelpFormatter]", parser.formatter_class)
    parser.formatter_class = functools.partial(formatter, width=COLUMNS - 2)
    return parser.format_help()


def _anchor(command: str) -> str:
    """GitHub's anchor for a heading `` `command` ``: lower case, spaces to hyphens."""
    return command.lower().replace(" ", "-")


def reference_page() -> str:
    """The whole page, as Markdown: a title, how it is made, an index, then each command's help."""
    found = list(parsers())
    lines = [
        "# Command-line reference",
        "",
        f"Every command's `--help`, as the parser prints it in a terminal {COLUMNS} columns",
        "wide, in the order the parser adds them. Written by",
        f"`{COMMAND}`; `tests/cli/test_reference.py`",
        "fails when this page and the parser differ. What each command's output and JSON shape",
        "mean is on its stage's page: see the [command reference](commands.md).",
        "",
        *(f"- [`{command}`](#{_anchor(command)})" for command, _ in found),
    ]
    for command, parser in found:
        lines += ["", f"## `{command}`", "", "```text", help_text(parser).rstrip("\n"), "```"]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m workbench.cli.reference",
        description="Print the command-line reference page, or write it.",
    )
    parser.add_argument(
        "--write",
        type=Path,
        metavar="PATH",
        help=f"write the page at PATH (the committed page is {TARGET})",
    )
    args = parser.parse_args(argv)
    page = reference_page().encode("utf-8")
    if args.write is None:
        write(page.decode("utf-8"), sys.stdout)
    elif not args.write.is_file() or args.write.read_bytes() != page:
        replace_file(args.write, page)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
