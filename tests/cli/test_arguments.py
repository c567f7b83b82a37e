"""Every path argument of every command refuses every kind of bad path as one line, exit 2.

The matrix is read off the parser itself: each leaf command, each argument that takes a path,
and each bad path that applies to the argument's declared kind (`workbench.cli.arguments`). A new
command or argument is covered without editing this file; a path argument that declares no kind
fails the first test. For each case the test asserts exit 2, exactly one line on stderr naming the
argument, no traceback, and nothing written anywhere under the test's folder.

A workspace that does not exist is one of those bad paths for every command that reads one (the
`workspace` kind); only the commands that make one (`ingest`, `measure`) take a `database`. The
default workspace ($WORKBENCH_WORKSPACE, else `.workbench/workspace.sqlite`) is not checked while
parsing, so a missing one is refused when the command opens it: the last test runs every command
that reads a workspace with $WORKBENCH_WORKSPACE naming one that does not exist.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench.cli import build_parser, main
from workbench.cli.arguments import MAX_LINE, PathKind
from workbench.workspace import Workspace

# Which bad paths apply to which kind of argument.
APPLIES = {
    "document": ("folder", "missing", "unreadable", "empty", "fifo", "non_utf8_name"),
    "text": ("folder", "missing", "unreadable", "empty", "fifo", "binary", "non_utf8_name"),
    "lines": (
        "folder",
        "missing",
        "unreadable",
        "empty",
        "fifo",
        "binary",
        "huge_line",
        "non_utf8_name",
    ),
    "folder": ("missing", "file", "fifo", "non_utf8_name"),
    "out_folder": ("file", "fifo"),
    "out_file": ("folder", "fifo"),
    "database": ("folder", "fifo", "binary", "huge_line"),
    "workspace": ("missing", "folder", "fifo", "binary", "huge_line", "non_utf8_name"),
}
# The commands that make a workspace; every other command that takes one only reads it.
MAKE_A_WORKSPACE = [("ingest",), ("measure",), ("update",)]


def _leaves(
    parser: argparse.ArgumentParser, words: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    subcommands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subcommands:
        yield words, parser
        return
    for name, child in subcommands[0].choices.items():
        yield from _leaves(child, (*words, name))


def _path_arguments() -> list[tuple[tuple[str, ...], str]]:
    found = []
    for words, parser in _leaves(build_parser()):
        for action in parser._actions:
            if isinstance(action.type, PathKind):
                found.append((words, action.dest))
    return found


COMMANDS = list(_leaves(build_parser()))
PATH_ARGUMENTS = _path_arguments()


def _action(words: tuple[str, ...], dest: str) -> tuple[argparse.ArgumentParser, argparse.Action]:
    parser = dict(COMMANDS)[words]
    return parser, next(a for a in parser._actions if a.dest == dest)


def test_every_path_argument_declares_its_kind() -> None:
    untyped = [
        f"{' '.join(words)} {action.dest}"
        for words, parser in COMMANDS
        for action in parser._actions
        if not isinstance(action.type, PathKind)
        and (action.type is Path or isinstance(action.default, Path))
    ]
    assert untyped == []
    assert len(PATH_ARGUMENTS) >= len(COMMANDS)  # every command takes at least one path


def _good(kind: str, folder: Path) -> str:
    """A path of `kind` that the parser accepts."""
    good = folder / "good"
    good.mkdir(exist_ok=True)
    if kind == "document":
        (good / "doc.pdf").write_bytes(b"%PDF-1.7\n")
        return str(good / "doc.pdf")
    if kind in ("text", "lines"):
        (good / "text.txt").write_text("{}\n", encoding="utf-8")
        return str(good / "text.txt")
    if kind == "folder":
        return str(good)
    if kind == "workspace":  # one that exists, holding nothing
        Workspace(good / "workspace.sqlite").close()
        return str(good / "workspace.sqlite")
    return str(folder / f"new-{kind}")  # out_folder, out_file, database: made when written


def _bad(case: str, folder: Path) -> str:
    bad = folder / "bad"
    bad.mkdir(exist_ok=True)
    path = bad / case
    if case == "folder":
        path.mkdir(exist_ok=True)
    elif case == "missing":
        return str(bad / "no-such-path")
    elif case in ("empty", "file"):
        path.write_bytes(b"" if case == "empty" else b"a file\n")
    elif case == "unreadable":
        if os.geteuid() == 0:  # root reads any file it may open; this one no reader can read
            return "/proc/self/mem"
        path.write_text("{}\n", encoding="utf-8")
        path.chmod(0)
    elif case == "fifo":
        if not path.exists():
            os.mkfifo(path)
    elif case == "binary":
        path.write_bytes(bytes(range(256)) * 8)
    elif case == "huge_line":
        path.write_bytes(b'{"quoted_text": "' + b"x" * (MAX_LINE + 16) + b'"}\n')
    elif case == "non_utf8_name":
        return os.fsdecode(bytes(bad) + b"/\xff\xfe-not-utf8")
    return str(path)


# A usable value for a required option whose type reads more than a word.
USABLE = {"span": "0:1", "png": "never-written.png", "seed": "1", "n": "10"}


def _argv(words: tuple[str, ...], dest: str, value: str, folder: Path) -> list[str]:
    """`words` with a usable value for every required argument and `value` for `dest`."""
    parser, target = _action(words, dest)
    argv = list(words)
    for action in parser._actions:
        if action.dest in ("help", "version") or (
            action.option_strings and not action.required and action is not target
        ):
            continue
        if action is target:
            given = value
        elif isinstance(action.type, PathKind):
            given = _good(action.type.kind, folder)
        elif action.choices:
            given = str(next(iter(action.choices)))
        else:
            given = USABLE.get(action.dest, "x")
        if action.nargs == "?" and action is not target and not action.option_strings:
            continue
        if action.nargs == 0:  # a required flag (`review sample --confident`) takes no value
            argv.append(action.option_strings[0])
            continue
        argv += [action.option_strings[0], given] if action.option_strings else [given]
    return argv


def _tree(folder: Path) -> list[tuple[str, int]]:
    return sorted(
        (os.fsencode(p).hex(), p.lstat().st_size) for p in folder.rglob("*") if not p.is_fifo()
    )


def _cases(words: tuple[str, ...], dest: str) -> tuple[str, ...]:
    _, action = _action(words, dest)
    assert isinstance(action.type, PathKind)
    return APPLIES[action.type.kind]


@pytest.mark.parametrize(
    ("words", "dest"), PATH_ARGUMENTS, ids=lambda v: "-".join(v) if isinstance(v, tuple) else v
)
def test_a_bad_path_is_one_line_exit_2_and_nothing_written(
    words: tuple[str, ...], dest: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, action = _action(words, dest)
    name = action.option_strings[0] if action.option_strings else (action.metavar or dest)
    for case in _cases(words, dest):
        argv = _argv(words, dest, _bad(case, tmp_path), tmp_path)
        before = _tree(tmp_path)
        with pytest.raises(SystemExit) as exited:
            main(argv)
        _, err = capsys.readouterr()
        assert exited.value.code == 2, (case, argv)
        assert len(err.splitlines()) == 1, (case, err)
        assert f"argument {name}" in err and "Traceback" not in err, (case, err)
        assert len(err) < 400, (case, len(err))
        assert _tree(tmp_path) == before, case


def _workspace_kinds() -> dict[tuple[str, ...], str]:
    found = {}
    for words, parser in COMMANDS:
        for action in parser._actions:
            if action.dest == "workspace" and isinstance(action.type, PathKind):
                found[words] = action.type.kind
    return found


def test_only_the_commands_that_make_a_workspace_may_create_one() -> None:
    kinds = _workspace_kinds()
    assert sorted(words for words, kind in kinds.items() if kind == "database") == MAKE_A_WORKSPACE
    assert {kind for words, kind in kinds.items() if words not in MAKE_A_WORKSPACE} == {"workspace"}


# Options without which a command does not read its workspace at all (and `cite`'s own --version,
# which `_argv` leaves out with the top-level --version; `text`'s version id, optional beside
# --family F --as-of DATE).
READS_WITH = {
    ("cite",): ["--version", "x"],
    ("text",): ["x"],
    ("corpus", "verify"): ["--reextract"],
    ("eval",): ["--truth", "{text}"],
    ("bundle",): ["--citations", "{text}"],
}
READERS = sorted(words for words, kind in _workspace_kinds().items() if kind == "workspace")


@pytest.mark.parametrize("words", READERS, ids="-".join)
def test_a_missing_default_workspace_is_one_line_exit_2_and_nothing_made(
    words: tuple[str, ...],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    missing = tmp_path / "no-such" / "workspace.sqlite"
    monkeypatch.setenv("WORKBENCH_WORKSPACE", str(missing))
    monkeypatch.setenv("WORKBENCH_LEDGER", str(tmp_path / "ledger.sqlite"))
    argv = [a for a in _argv(words, "workspace", "", tmp_path) if a not in ("--workspace", "")]
    text = _good("text", tmp_path)
    argv += [a.format(text=text) for a in READS_WITH.get(words, [])]
    if words == ("search",):
        argv.append("a query")
    before = _tree(tmp_path)
    assert main(argv) == 2, argv
    _, err = capsys.readouterr()
    assert err == (
        f"workbench: error: {missing}: no such workspace; 'workbench measure' or "
        "'workbench ingest' makes one\n"
    )
    assert _tree(tmp_path) == before and not missing.parent.exists()


# ---------------------------------------------------------------------------------------------
# Integers: every argument that takes a number reads it through the one bounded reader
# (`bounds.read_integer`), so a value past 2^63 is one line, exit 2, never an OverflowError.

PAST_2_63 = str(2**63)


def _number_arguments() -> list[tuple[tuple[str, ...], str]]:
    found = []
    for words, parser in COMMANDS:
        for action in parser._actions:
            if action.type is int:
                raise AssertionError(f"{' '.join(words)} {action.dest}: type=int is unbounded")
            probe = (
                action.type
                if callable(action.type) and not isinstance(action.type, PathKind)
                else None
            )
            if probe is None or action.dest in ("help", "version"):
                continue
            try:
                probe("1")  # type: ignore[misc]
            except (argparse.ArgumentTypeError, ValueError, TypeError):
                continue
            else:
                try:
                    probe(PAST_2_63)  # type: ignore[misc]
                except argparse.ArgumentTypeError:
                    found.append((words, action.dest))
                except (ValueError, TypeError) as exc:
                    raise AssertionError(f"{' '.join(words)} {action.dest}: {exc!r}") from exc
    return found


NUMBER_ARGUMENTS = _number_arguments()


def test_every_command_takes_numbers_through_the_bounded_reader() -> None:
    named = {(" ".join(w), d) for w, d in NUMBER_ARGUMENTS}
    # the numbers a researcher types: limits, offsets, pages, counts, seeds, ports
    assert {("review list", "limit"), ("cite", "occurrence"), ("review sample", "seed")} <= named
    assert ("lab", "port") in named


@pytest.mark.parametrize(
    ("words", "dest"), NUMBER_ARGUMENTS, ids=lambda v: "-".join(v) if isinstance(v, tuple) else v
)
def test_a_number_past_2_63_is_one_line_exit_2(
    words: tuple[str, ...], dest: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, action = _action(words, dest)
    name = action.option_strings[0] if action.option_strings else (action.metavar or dest)
    argv = _argv(words, dest, PAST_2_63, tmp_path)
    before = _tree(tmp_path)
    with pytest.raises(SystemExit) as exited:
        main(argv)
    _, err = capsys.readouterr()
    assert exited.value.code == 2, argv
    assert len(err.splitlines()) == 1 and f"argument {name}" in err, err
    assert "Traceback" not in err and _tree(tmp_path) == before
