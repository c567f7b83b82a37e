"""Every command's output on a terminal, from a hostile corpus built here: a document whose text
clears the screen, sets the window title, hides a link, overwrites its line and reverses itself;
a version label and a commit subject holding escape sequences; a file name holding one. Read
through a pseudo-terminal, no byte a terminal would obey arrives; through a pipe the text is exact.
"""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
import tty
from pathlib import Path

import pytest

from workbench.changes.redline import COLOUR_CODES
from workbench.cli import main

HOSTILE_TEXT = (
    "Sec. 1. Scope\n\nThe \x1b[2J\x1b]0;pwned\x07 rule \u202eapplies\u202c. "
    "\x1b]8;;http://elsewhere\x1b\\here\x1b]8;;\x1b\\\rOVERWRITTEN\n\n"
    "Sec. 2. More\n\nText \x9b31m here \u2067isolated\u2069.\n"
)
LATER_TEXT = "Sec. 1. Scope\n\nThe rule now applies \x1b[31m red.\n\nSec. 2. More\n\nText.\n"
LABEL = "first\x1b[31m\u202e"
SUBJECT = "release \x1b]0;title\x07 one"
BAD_NAME = "bad\x1b[31mname.txt"
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
    return root


def _on_terminal(
    args: list[str], cwd: Path, *, stderr_too: bool, colour: bool = False
) -> tuple[bytes, int]:
    """What `workbench ARGS` writes to a pseudo-terminal on stdout (and stderr with
    `stderr_too`; else stderr is a pipe, so no progress bar draws), and its exit code; colour
    only with `colour` (else NO_COLOR is set)."""
    leader, follower = pty.openpty()
    tty.setraw(follower)  # no newline translation: a carriage return read came from the command
    done = subprocess.Popen(
        [sys.executable, "-m", "workbench", *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower if stderr_too else subprocess.PIPE,
        env={**os.environ, "NO_COLOR": "" if colour else "1"},
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 1 << 16)
        except OSError:  # EIO: every writer of the follower side has closed it
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    done.communicate(timeout=120)
    return b"".join(chunks), done.returncode


WORKSPACE = ["--workspace", "ws.sqlite"]


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        pytest.param(["text", FIRST], "\\u001b[2J", id="text"),
        pytest.param(["passages", FIRST], "\\u001b]0;pwned\\u0007", id="passages"),
        pytest.param(["passages", FIRST, "--json"], "\\u202eapplies", id="passages-json"),
        pytest.param(["structure", FIRST], "Sec. 1.", id="structure"),
        pytest.param(["families"], "fam-1", id="families"),
        pytest.param(["versions", "fam-1"], "first\\u001b[31m\\u202e", id="versions-label"),
        pytest.param(["versions", "one"], "release \\u001b]0;title\\u0007 one", id="commit"),
        pytest.param(["search", "rule"], "\\u001b[2J", id="search"),
        pytest.param(["diff", "fam-1"], "\\u202e", id="diff"),
        pytest.param(["cite", "Text", "--version", FIRST], "\\u009b31m", id="cite"),
        pytest.param(["history", "--family", "fam-1", "Sec. 1."], FIRST, id="history"),
        pytest.param(["review", "list"], "review items", id="review-list"),
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
    own = [code.encode() for code in COLOUR_CODES]
    assert all(code in written for code in own)
    for code in own:
        written = written.replace(code, b"")
    assert OBEYED.findall(written) == []


def test_a_pipe_gets_the_exact_text(hostile: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "text", FIRST, *WORKSPACE],
        cwd=hostile,
        capture_output=True,
        check=True,
    )
    assert done.stdout == HOSTILE_TEXT.encode("utf-8")
