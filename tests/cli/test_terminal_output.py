"""Every command's output on a terminal, from a hostile corpus built here: a document whose text
clears the screen, sets the window title, hides a link, overwrites its line and reverses itself;
a version label and a commit subject holding escape sequences; a file name holding one. Read
through a pseudo-terminal, no byte a terminal would obey arrives; through a pipe the text is exact.
Every command is read off the parser and run on that corpus, stdout and stderr each on a terminal
of its own; a command the parser gains fails until it is given arguments here.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import selectors
import shutil
import struct
import subprocess
import sys
import termios
import tty
from pathlib import Path

import pytest

from tests.conftest import ROOT
from workbench.changes.redline import COLOUR_CODES
from workbench.cli import main
from workbench.cli.common import PROG
from workbench.cli.reference import parsers

HOSTILE_TEXT = (
    "Sec. 1. Scope\n\nThe \x1b[2J\x1b]0;pwned\x07 rule \u202eapplies\u202c. "
    "\x1b]8;;http://elsewhere\x1b\\here\x1b]8;;\x1b\\\rOVERWRITTEN\n\n"
    "Sec. 2. More\n\nText \x9b31m here \u2067isolated\u2069.\n"
)
LATER_TEXT = "Sec. 1. Scope\n\nThe rule now applies \x1b[31m red.\n\nSec. 2. More\n\nText.\n"
LABEL = "first\x1b[31m\u202e"
SUBJECT = "release \x1b]0;title\x07 one"
BAD_NAME = "bad\x1b[31mname.txt"
QUOTE = "rule \u202eapplies\u202c. \x1b]8;;http://elsewhere\x1b\\here"
FIRST = "xx/fam-1/a.txt"
# What a terminal obeys, as UTF-8 bytes: C0 but tab and newline, DEL, C1, bidi controls.
OBEYED = re.compile(
    rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]"
)


def _git(repo: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "test",
        "GIT_AUTHOR_EMAIL": "test@example.org",
        "GIT_COMMITTER_NAME": "test",
        "GIT_COMMITTER_EMAIL": "test@example.org",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding `ws.sqlite`: family fam-1 (two added versions, a hostile label) and
    family one (from a git commit with a hostile subject), and `repo`, the repository."""
    root = tmp_path_factory.mktemp("hostile")
    for name, text in (("a.txt", HOSTILE_TEXT), ("b.txt", LATER_TEXT)):
        (root / name).write_text(text, encoding="utf-8", newline="")
    add = ["corpus", "add", "--into", str(root / "mirror"), "--jurisdiction", "xx"]
    facts = ["--family", "fam-1", "--official", "--issuer", "X"]
    for order, (name, label) in enumerate((("a.txt", LABEL), ("b.txt", "second")), start=1):
        url = f"https://example.org/{name}"
        dated = ["--order", str(order), "--label", label, "--date", f"202{order}-01-01"]
        assert main([*add, *facts, "--url", url, *dated, str(root / name)]) == 0
    repo = root / "repo"
    (repo / "docs").mkdir(parents=True)
    _git(repo, "init", "--quiet")
    (repo / "docs" / "one.txt").write_text("Sec. 1. A\n\nText.\n", encoding="utf-8")
    (repo / "docs" / BAD_NAME).write_text("Sec. 1. A\n\nOther.\n", encoding="utf-8")
    _git(repo, "add", "--all")
    _git(repo, "commit", "--quiet", "-m", SUBJECT)
    from_git = ["--from-git", str(repo), "--paths", "docs/*.txt", "--repo-name", "o/n"]
    assert main([*add, *from_git, "--official"]) == 1  # the bad name is refused, the rest added
    corpus = ["--corpus-dir", str(root / "corpus")]
    assert main(["corpus", "admit", str(root / "mirror"), *corpus]) == 0
    store = ["--store", str(root / "mirror")]
    assert main(["ingest", *corpus, *store, "--workspace", str(root / "ws.sqlite")]) == 0
    _citing_files(root)
    return root


def _citing_files(root: Path) -> None:
    """What the commands that read a citation, a note, a source report or a bundle are given: each
    quoting the hostile text, the note and the report with hostile words of their own."""
    start = HOSTILE_TEXT.index(QUOTE)
    citation = {
        "version_id": FIRST,
        "char_start": start,
        "char_end": start + len(QUOTE),
        "quoted_text": QUOTE,
    }
    (root / "cites.jsonl").write_text(json.dumps(citation) + "\n", encoding="utf-8")
    (root / "notes").mkdir()
    (root / "notes" / "hostile.md").write_text(
        f"---\ntitle: A note \x1b]0;title\x07 here\nstatus: draft\norigin: document\n"
        f"document: {FIRST}\n---\n\n# Heading \x1b[2J\n\nA claim \u202ereversed.\n\n"
        f"> quote: {QUOTE}\n> locator: Sec. 1 \x9b31m\n",
        encoding="utf-8",
    )
    paths = ["--corpus-dir", str(root / "corpus"), "--store", str(root / "mirror")]
    ledger = ["--ledger", str(root / "ledger.sqlite")]
    assert main(["check", str(root / "notes" / "hostile.md"), *ledger, *paths]) == 0
    report = ["quotes", "new", "hostile", "--source", FIRST, "--folder", str(root / "reports")]
    assert main([*report, *paths]) == 0
    citations = ["bundle", "--citations", str(root / "cites.jsonl"), str(root / "cited.zip")]
    assert main([*citations, *paths, "--workspace", str(root / "ws.sqlite")]) == 0


def _terminal(columns: int | None = None) -> tuple[int, int]:
    """A pseudo-terminal (leader, follower), raw so that no newline is translated (a carriage
    return read came from the command); given `columns`, that wide, so a progress bar draws
    (on one left at the size the system gives, none does)."""
    leader, follower = pty.openpty()
    tty.setraw(follower)
    if columns is not None:
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    return leader, follower


def _run(
    args: list[str], cwd: Path, stdout: int, stderr: int, colour: bool
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "workbench", *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        env={**os.environ, "NO_COLOR": "" if colour else "1"},
    )


def _read_until_closed(leaders: list[int]) -> list[bytes]:
    """Everything each leader reads until every writer of its follower has closed it, read
    side by side so that neither terminal's buffer fills while the other is read."""
    read: dict[int, list[bytes]] = {fd: [] for fd in leaders}
    with selectors.DefaultSelector() as selector:
        for fd in leaders:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            for key, _ in selector.select():
                try:
                    chunk = os.read(key.fd, 1 << 16)
                except OSError:  # EIO: every writer of the follower side has closed it
                    chunk = b""
                if chunk:
                    read[key.fd].append(chunk)
                else:
                    selector.unregister(key.fd)
    for fd in leaders:
        os.close(fd)
    return [b"".join(read[fd]) for fd in leaders]


def _on_terminal(
    args: list[str], cwd: Path, *, stderr_too: bool, colour: bool = False
) -> tuple[bytes, int]:
    """What `workbench ARGS` writes to a pseudo-terminal on stdout (and stderr with
    `stderr_too`; else a pipe; no progress bar draws on either), and its exit code; colour
    only with `colour` (else NO_COLOR is set)."""
    leader, follower = _terminal()
    done = _run(args, cwd, follower, follower if stderr_too else subprocess.PIPE, colour)
    os.close(follower)
    (written,) = _read_until_closed([leader])
    done.communicate(timeout=120)
    return written, done.returncode


def _on_two_terminals(args: list[str], cwd: Path) -> tuple[bytes, bytes, int]:
    """What `workbench ARGS` writes to stdout and to stderr, each a terminal of its own (so
    progress bars draw), and its exit code."""
    (out_leader, out_follower), (err_leader, err_follower) = _terminal(80), _terminal(80)
    done = _run(args, cwd, out_follower, err_follower, colour=False)
    os.close(out_follower)
    os.close(err_follower)
    written, said = _read_until_closed([out_leader, err_leader])
    done.wait(timeout=300)
    return written, said, done.returncode


WORKSPACE = ["--workspace", "ws.sqlite"]


# Arguments other than the ones every command is run with below (`ARGUMENTS`), and what stdout
# shows of the hostile input; the commands run there are checked there (`SHOWN`), one process
# each.
@pytest.mark.parametrize(
    ("args", "shown"),
    [
        pytest.param(["passages", FIRST, "--json"], "\\u202eapplies", id="passages-json"),
        pytest.param(["versions", "one"], "release \\u001b]0;title\\u0007 one", id="commit"),
        pytest.param(["diff", "fam-1", "--json"], "\\u202e", id="diff-json"),
    ],
)
def test_no_command_drives_the_terminal(hostile: Path, args: list[str], shown: str) -> None:
    written, code = _on_terminal([*args, *WORKSPACE], hostile, stderr_too=False)
    assert code == 0, written
    assert OBEYED.findall(written) == []
    assert shown in written.decode("utf-8")


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        pytest.param(
            ["versions", "fam\x1b]0;x\x07", *WORKSPACE],
            "fam\\u001b]0;x\\u0007: no such family in ws.sqlite",
            id="unknown-family",
        ),
        pytest.param(
            ["text", "xx/\u202eexe.txt", *WORKSPACE], "xx/\\u202eexe.txt", id="unknown-version"
        ),
        pytest.param(
            ["families", "--workspace", "no\x1b[2Jsuch.sqlite"],
            "no\\u001b[2Jsuch.sqlite",
            id="missing-workspace-argument",
        ),
        pytest.param(
            [
                "corpus",
                "add",
                "--from-git",
                "repo",
                "--paths",
                "docs/*.txt",
                "--into",
                "m2",
                "--jurisdiction",
                "xx",
                "--repo-name",
                "o/n",
                "--official",
            ],
            "docs/bad\\u001b[31mname.txt: bad_name",
            id="from-git-refusal-list",
        ),
    ],
)
def test_refusals_on_a_terminal_are_shown(hostile: Path, args: list[str], shown: str) -> None:
    written, _ = _on_terminal(args, hostile, stderr_too=True)
    assert OBEYED.findall(written) == []
    assert shown in written.decode("utf-8")


def test_diff_in_colour_writes_no_escape_but_its_own(hostile: Path) -> None:
    written, code = _on_terminal(
        ["diff", "fam-1", *WORKSPACE], hostile, stderr_too=False, colour=True
    )
    assert code == 0
    own = [sequence.encode() for sequence in COLOUR_CODES]
    assert all(sequence in written for sequence in own)
    for sequence in own:
        written = written.replace(sequence, b"")
    assert OBEYED.findall(written) == []


def test_a_pipe_gets_the_exact_text(hostile: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "text", FIRST, *WORKSPACE],
        cwd=hostile,
        capture_output=True,
        check=True,
    )
    assert done.stdout == HOSTILE_TEXT.encode("utf-8")


# Every command the parser holds, named as typed (`review answer`), read off the parser itself.
COMMANDS = [
    prog.removeprefix(f"{PROG} ") for prog, parser in parsers() if parser._subparsers is None
]
PATHS = ["--corpus-dir", "corpus", "--store", "mirror"]
LEDGER = ["--ledger", "ledger.sqlite"]
NOTE = "notes/hostile.md"
REPORT = "reports/hostile.ingest.md"
# For each command: arguments that make it read the hostile corpus (or refuse a hostile argument
# of its own), and the exit code that shows it ran as meant. A command added to the parser and
# not here fails the test that runs it.
ARGUMENTS: dict[str, tuple[list[str], int]] = {
    "corpus add": (
        [
            "--into",
            "m3",
            "--jurisdiction",
            "xx",
            "--family",
            "fam-2",
            "--official",
            "--url",
            "https://example.org/a.txt",
            "--label",
            LABEL,
            "a.txt",
        ],
        0,
    ),
    "corpus admit": (["mirror", "--corpus-dir", "corpus2"], 0),
    "corpus fetch": (PATHS, 0),
    "corpus verify": ([*PATHS, *WORKSPACE, "--reextract"], 0),
    "ingest": ([*PATHS, "--workspace", "new.sqlite"], 0),
    "families": (WORKSPACE, 0),
    "versions": (["fam-1", *WORKSPACE], 0),
    "text": ([FIRST, *WORKSPACE], 0),
    "passages": ([FIRST, *WORKSPACE], 0),
    "structure": ([FIRST, *WORKSPACE], 0),
    "show": ([FIRST, "--span", "15:60", "--png", "s.png", *WORKSPACE], 2),  # not a PDF
    "profile suggest": ([FIRST, *WORKSPACE], 0),
    "diff": (["fam-1", *WORKSPACE], 0),
    "review list": (WORKSPACE, 0),
    "review answer": (["chg-\x1b[2J", "confirmed", "--actor", "me\x1b]0;x\x07", *WORKSPACE], 2),
    "review log": (WORKSPACE, 0),
    "review verify-chain": (WORKSPACE, 0),
    "review sample": (["--confident", "--seed", "1", *WORKSPACE], 0),
    "review audit": (WORKSPACE, 2),  # no sample drawn
    "verify-redline": (["cited.zip", *WORKSPACE], 2),  # a zip, not a Word document
    "measure": (["--out", "measured", *WORKSPACE], 0),
    "update": (["--out", "measured", *WORKSPACE], 0),
    "eval": (["--demo", str(ROOT / "corpus" / "demo")], 0),
    "verify": (["cites.jsonl", *WORKSPACE], 0),
    "absent": (["applies", "--family", "fam-1", "--control", "rule", *WORKSPACE], 1),
    "export-annotations": (["cites.jsonl", *WORKSPACE], 0),
    "bundle": (["--citations", "cites.jsonl", "b.zip", *WORKSPACE], 0),
    "verify-bundle": (["cited.zip", "--mirror", "mirror"], 0),
    "blocks": ([FIRST, *WORKSPACE], 0),
    "cite": (["Text", "--version", FIRST, *WORKSPACE], 0),
    "history": (["--family", "fam-1", "Sec. 1.", *WORKSPACE], 0),
    "recheck": (["--citations", "cites.jsonl", *LEDGER, *WORKSPACE], 1),  # the quote is gone
    "amendments": ([FIRST, *WORKSPACE], 2),  # no drafting style reads xx
    "reconcile": (["--out", "reconciled", *WORKSPACE], 2),  # no law held
    "check": ([NOTE, *LEDGER, *PATHS], 0),
    "grade": ([NOTE, *LEDGER, "--corpus-dir", "corpus"], 0),
    "runs": ([NOTE, *LEDGER], 0),
    "census": (["notes", *LEDGER, "--corpus-dir", "corpus"], 0),
    "quotes new": (["again", "--source", FIRST, "--folder", "reports", *PATHS], 0),
    "quotes add": ([REPORT, "--extract", "rule \u202eapplies", "--location", "Sec. \x1b[2J1"], 0),
    "quotes validate": ([REPORT, "--corpus-dir", "corpus"], 0),
    "quotes snapshot": ([REPORT, *PATHS], 0),
    "search": (["rule", *WORKSPACE], 0),
    "lab": (["--copy-only", "--dest", "notebooks"], 0),
}
# What stdout shows of the hostile input, escaped, for the commands given it above.
SHOWN = {
    "text": "\\u001b[2J",
    "passages": "\\u001b]0;pwned\\u0007",
    "structure": "Sec. 1.",
    "families": "fam-1",
    "versions": "first\\u001b[31m\\u202e",
    "search": "\\u001b[2J",
    "diff": "\\u202e",
    "cite": "\\u009b31m",
    "history": FIRST,
    "review list": "review items",
}
# The one byte a terminal obeys that a command writes of its own: a progress bar's carriage
# return, on stderr, redrawing its line. Every hostile input also holds an ESC or a bidi control,
# so one that reached stderr unshown would still be found.
PROGRESS_REDRAW = b"\r"


def test_every_command_run_here_is_a_command_of_the_parser() -> None:
    assert sorted(ARGUMENTS) == sorted(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_on_a_terminal_shows_what_it_reads(
    hostile: Path, tmp_path: Path, command: str
) -> None:
    """Each command reads the hostile corpus with stdout and stderr each on a terminal of its
    own: no byte a terminal would obey arrives but a progress bar's own redraw."""
    assert command in ARGUMENTS, f"{command}: give it arguments here that read the hostile corpus"
    arguments, code = ARGUMENTS[command]
    work = tmp_path / "hostile"
    # Every command here reads the corpus, the workspace and the files beside them, none the
    # repository the hostile commit was added from (its .git is most of the folder's files).
    shutil.copytree(hostile, work, ignore=shutil.ignore_patterns("repo"))
    written, said, exit_code = _on_two_terminals([*command.split(), *arguments], work)
    assert (exit_code, b"Traceback" in said) == (code, False), said
    assert OBEYED.findall(written) == []
    assert OBEYED.findall(said.replace(PROGRESS_REDRAW, b"")) == []
    assert written or said
    if command in SHOWN:
        assert SHOWN[command] in written.decode("utf-8")
