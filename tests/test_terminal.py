"""`terminal.visible`: every character a terminal obeys is shown as an escape, the rest is itself;
`terminal.write`, the one writer of stdout and stderr, which the package is read for."""

from __future__ import annotations

import ast
import io
import json
import os
from pathlib import Path

import pytest

from tests.conftest import parsed
from workbench.progress import bar
from workbench.terminal import for_stream, visible, visible_name, write


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        pytest.param("Sec. 5.4 (a)\tTab\nNext", "Sec. 5.4 (a)\tTab\nNext", id="plain-tab-newline"),
        pytest.param("Ünïcödé § ¶ — “x” 条", "Ünïcödé § ¶ — “x” 条", id="letters-and-marks"),
        pytest.param("\x1b[2Jcleared", "\\u001b[2Jcleared", id="csi-clear-screen"),
        pytest.param("\x1b]0;title\x07", "\\u001b]0;title\\u0007", id="osc-window-title"),
        pytest.param(
            "\x1b]8;;http://elsewhere\x1b\\here\x1b]8;;\x1b\\",
            "\\u001b]8;;http://elsewhere\\u001b\\here\\u001b]8;;\\u001b\\",
            id="osc8-link",
        ),
        pytest.param("kept\roverwritten", "kept\\u000doverwritten", id="carriage-return"),
        pytest.param("a\bb\x00c", "a\\u0008b\\u0000c", id="backspace-and-nul"),
        pytest.param("del\x7f", "del\\u007f", id="del"),
        pytest.param("\x9b31mred\x85", "\\u009b31mred\\u0085", id="c1-csi-and-nel"),
        pytest.param("file\u202etxt.exe", "file\\u202etxt.exe", id="right-to-left-override"),
        pytest.param("\u202a\u202b\u202c\u202d", "\\u202a\\u202b\\u202c\\u202d", id="embeddings"),
        pytest.param(
            "\u2066a\u2067b\u2068c\u2069", "\\u2066a\\u2067b\\u2068c\\u2069", id="isolates"
        ),
        pytest.param("\u200f\u200e\u061c", "\u200f\u200e\u061c", id="implicit-marks-stay"),
        pytest.param(os.fsdecode(b"name\x9b\xff.txt"), "name\\x9b\\xff.txt", id="bytes-not-utf8"),
    ],
)
def test_visible_shows_what_a_terminal_would_obey(text: str, shown: str) -> None:
    assert visible(text) == shown
    assert all(ord(c) >= 0x20 or c in "\t\n" for c in visible(text))


def test_json_on_a_terminal_reads_as_the_same_value() -> None:
    """Characters are shown as JSON escapes, so JSON made visible parses to the exact text."""
    value = {"label": "first\x1b[31m\x9b\u202e\x7f", "text": "a\rb"}
    assert json.loads(visible(json.dumps(value, ensure_ascii=False))) == value


@pytest.mark.parametrize(
    ("text", "keep", "shown"),
    [
        pytest.param(
            "\x1b[31m[-old\x1b[2J-]\x1b[m",
            ("\x1b[31m", "\x1b[m"),
            "\x1b[31m[-old\\u001b[2J-]\x1b[m",
            id="own-colour-kept-other-escapes-shown",
        ),
        pytest.param("\x1b[32m", ("\x1b[31m",), "\\u001b[32m", id="only-the-named-codes"),
    ],
)
def test_keep_passes_only_the_named_sequences(text: str, keep: tuple[str, ...], shown: str) -> None:
    assert visible(text, keep=keep) == shown


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("stream", "shown"),
    [
        pytest.param(_Terminal(), "\\u001b[31m", id="terminal-shown"),
        pytest.param(io.StringIO(), "\x1b[31m", id="pipe-exact"),
    ],
)
def test_for_stream_shows_only_on_a_terminal(stream: io.StringIO, shown: str) -> None:
    assert for_stream("\x1b[31m", stream) == shown


def test_a_name_stays_on_one_line() -> None:
    assert visible_name("docs/new\nline\t.txt\x1b") == "docs/new\\u000aline\\u0009.txt\\u001b"


PACKAGE = Path(__file__).resolve().parents[1] / "workbench"
# The one writer of stdout and stderr (`terminal.write`), where a raw write belongs.
WRITER = PACKAGE / "terminal.py"
_STREAMS = ("stdout", "stderr", "__stdout__", "__stderr__")


def _raw_writes(tree: ast.AST) -> list[int]:
    """The lines of a module's `tree` that write to a standard stream other than through
    `terminal.write`: a `print` call, `sys.stdout.write` or `.buffer` (stderr alike), or
    `os.write` (to a descriptor such as 1 or 2)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "print":
                found.append(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr in ("write", "writelines", "buffer"):
            owner = node.value
            stream = (
                isinstance(owner, ast.Attribute)
                and owner.attr in _STREAMS
                and isinstance(owner.value, ast.Name)
                and owner.value.id == "sys"
            )
            descriptor = isinstance(owner, ast.Name) and owner.id == "os" and node.attr == "write"
            if stream or descriptor:
                found.append(node.lineno)
    return sorted(found)


@pytest.mark.parametrize(
    ("source", "lines"),
    [
        pytest.param("print(x)\n", [1], id="print"),
        pytest.param("import sys\nprint(x, file=sys.stderr)\n", [2], id="print-to-stderr"),
        pytest.param("import sys\nsys.stdout.write(x)\n", [2], id="stdout-write"),
        pytest.param("import sys\nsys.stdout.buffer.write(x)\n", [2], id="stdout-buffer"),
        pytest.param("import sys\nsys.stderr.writelines(x)\n", [2], id="stderr-writelines"),
        pytest.param("import os\nos.write(1, x)\n", [2], id="descriptor"),
        pytest.param("import sys\nwrite(x, sys.stdout)\nsys.stdout.isatty()\n", [], id="through"),
        pytest.param("handle.write(x)\nself.print(x)\n", [], id="a-file-or-a-method"),
    ],
)
def test_a_raw_write_is_found(source: str, lines: list[int]) -> None:
    assert _raw_writes(ast.parse(source)) == lines


def test_only_the_terminal_writer_writes_to_a_standard_stream() -> None:
    """Every line a person reads passes through `terminal.write` (C14): any other write to
    stdout or stderr in the package is a way around it."""
    raw = {
        str(path.relative_to(PACKAGE)): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != WRITER and (lines := _raw_writes(parsed(path)))
    }
    assert raw == {}


@pytest.mark.parametrize(
    ("stream", "written"),
    [
        pytest.param(_Terminal(), "\\u001b[31m\\x9b\n", id="terminal-shown"),
        pytest.param(io.StringIO(), "\x1b[31m\udc9b\n", id="text-stream-exact"),
    ],
)
def test_write_shows_only_on_a_terminal(stream: io.StringIO, written: str) -> None:
    write("\x1b[31m\udc9b\n", stream)
    assert stream.getvalue() == written


def test_write_gives_a_byte_stream_the_exact_bytes() -> None:
    """A pipe gets UTF-8 bytes, a file name's byte that is not UTF-8 as itself (PEP 383)."""
    buffer = io.BytesIO()
    stream = io.TextIOWrapper(buffer, encoding="ascii")
    write("\x1b[31m§ " + os.fsdecode(b"\xff") + "\n", stream)
    assert buffer.getvalue() == "\x1b[31m§ ".encode() + b"\xff\n"


def test_a_progress_bar_label_is_shown() -> None:
    """A bar draws only on a terminal, so its label is made visible there."""
    drawn = bar([1], desc="family \x1b]0;t\x07", unit="file\u202e", enabled=True)
    assert (drawn.desc, drawn.unit) == ("family \\u001b]0;t\\u0007", "file\\u202e")  # type: ignore[attr-defined]
    drawn.close()  # type: ignore[attr-defined]
