"""`terminal.visible`: every character a terminal obeys is shown as an escape, the rest is itself."""

from __future__ import annotations

import io
import json
import os

import pytest

from workbench.terminal import for_stream, visible, visible_name


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
