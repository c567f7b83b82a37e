"""The command table: each command's name, its one-line help and the module that holds its
arguments and handler. The top-level parser is built from the table alone, and a command's module
is imported when that command is chosen (to run it or print its help), so `workbench verify`
loads no other command's module and `workbench --help` loads none.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from workbench.cli.arguments import Parser
from workbench.cli.common import PROG, out


@dataclass(frozen=True, slots=True, kw_only=True)
class Command:
    """One command: `module` (in `workbench.cli`) holds `ARGUMENTS[name]`, which fills the
    command's parser with its description, arguments and handler."""

    name: str
    module: str
    help: str


# In data-flow order, the order `workbench --help` and docs/cli.md list them: the corpus, the
# texts, their changes, measurements, citations, citations through time, notes, search.
_BY_MODULE = {
    "corpus": (
        ("corpus", "add, admit, fetch and verify the catalogued corpus"),
        ("ingest", "extract and hold every catalogued version (idempotent)"),
        ("families", "the held families, to name them in other commands"),
        ("versions", "the held versions of one family, to name them in other commands"),
    ),
    "texts": (
        ("text", "print the exact text offsets index"),
        ("passages", "passages with offsets and section labels"),
        ("structure", "which lines a numbering profile reads as labels, and their paths"),
        ("show", "a span's page region as a PNG, its characters' boxes highlighted"),
    ),
    "profiles": (("profile", "numbering profiles: suggest one from the texts"),),
    "changes": (
        ("diff", "typed changes with both sides' text marked; a redline page; the change table"),
        ("review", "doubtful pairings and the verdict log"),
    ),
    "redline": (("verify-redline", "check a Word redline against the held versions it names"),),
    "measurements": (
        ("measure", "re-derive measurements/ from the corpus"),
        (
            "update",
            "after new files or commits: measure, search --reindex and reconcile, in one run",
        ),
        ("eval", "the scorecard on the demonstration corpus"),
    ),
    "citations": (
        ("verify", "verify citations exactly; one outcome line each"),
        ("absent", "check that a quote occurs nowhere in a family, against a positive control"),
        ("export-annotations", "write verified citations as W3C Web Annotations"),
        (
            "bundle",
            "write citations, their verdicts and the versions they cite as a re-checkable zip",
        ),
        (
            "verify-bundle",
            "re-check a bundle offline: every hash, every citation, the same verdicts",
        ),
        (
            "blocks",
            "a version's passages as an Anthropic custom-content document, with its block map",
        ),
    ),
    "through_time": (
        ("cite", "make a quote into a citation of one version (raw offsets)"),
        ("history", "which versions of a family hold a quote, and where"),
        (
            "recheck",
            "re-search recorded quotes in every newer version: still present, gone, ambiguous",
        ),
    ),
    "amendments": (
        (
            "amendments",
            "a law's amendment instructions, each verified against the releases around it",
        ),
        ("reconcile", "every release gap of the held code matched with the held laws, as a report"),
    ),
    "notes": (
        ("grade", "a note's grade (floor, middle, top) and why"),
        ("check", "check a note's quotes in a separate process; set the pointer if all are found"),
        ("runs", "a note's runs in the ledger"),
        ("census", "counts per grade and the staleness lines for a notes folder"),
        ("quotes", "a source report's quotes register and its snapshot"),
    ),
    "search": (("search", "candidate passages for a query, never evidence"),),
    "lab": (("lab", "your own copies of the notebooks, opened in JupyterLab"),),
}
COMMANDS = tuple(
    Command(name=name, module=module, help=help_)
    for module, rows in _BY_MODULE.items()
    for name, help_ in rows
)


def fill(parser: Parser, command: Command) -> None:
    """Import `command`'s module and fill `parser`, the command's own parser, from it."""
    module = importlib.import_module(f"workbench.cli.{command.module}")
    arguments: dict[str, Callable[[Parser], None]] = module.ARGUMENTS
    arguments[command.name](parser)


class _Commands(argparse._SubParsersAction):  # type: ignore[type-arg]
    """The commands of the table, each named with its help; a command's own parser is made and
    filled from its module only when the command line chooses it (argparse calls this action
    with the command's name and the rest of the line). Until then its entry in `choices` is its
    `Command` row: the name is a valid choice, and nothing of its module is loaded."""

    def add_command(self, command: Command) -> None:
        # what `add_parser(name, help=...)` records for the listing, without making the parser
        self._choices_actions.append(self._ChoicesPseudoAction(command.name, (), command.help))
        self._name_parser_map[command.name] = command

    def make(self, name: str) -> None:
        """Make and fill the parser of the command `name` (nothing for a name not in the table,
        argparse's to refuse, or a parser made already)."""
        command = self._name_parser_map.get(name)
        if isinstance(command, Command):
            # as `add_parser` makes it, in the row's place (`choices` keeps the table's order)
            made = self._parser_class(prog=f"{self._prog_prefix} {name}")
            self._name_parser_map[name] = made
            fill(made, command)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        assert isinstance(values, list)  # nargs=PARSER: the command's name, then the rest
        self.make(values[0])
        super().__call__(parser, namespace, values, option_string)


class _Version(argparse.Action):
    """`--version`: the installed package's version, looked up only when asked for (reading the
    package metadata costs more than building the whole parser)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("workbench")
        except PackageNotFoundError:  # run from a source tree that was never installed
            found = "unknown (not installed)"
        out(f"{PROG} {found}\n")
        parser.exit()


def command_parser(*, every: bool = False) -> Parser:
    """The `workbench` parser, every command of the table named with its help; a command's own
    parser is made when chosen, or all of them now with `every`, in the table's order (the
    reference page and the tests that walk every argument)."""
    parser = Parser(
        prog=PROG,
        description="Regulatory-text workbench: immutable versions, exact offsets, diffs.",
    )
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(
        action=_Commands, dest="command", required=True, metavar="COMMAND"
    )
    assert isinstance(commands, _Commands)
    for command in COMMANDS:
        commands.add_command(command)
    if every:
        for command in COMMANDS:
            commands.make(command.name)
    return parser
