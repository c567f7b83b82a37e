"""Text for a terminal (C14): `visible`, the one function every human-readable line passes through
so that a filing, label, file name or commit subject is shown, never obeyed, and `write`, the one
writer of the output streams, which applies it only to a terminal. The threat model is in
docs/security.md."""

from __future__ import annotations

from typing import Protocol, TextIO

# What a terminal obeys rather than shows: C0 controls but tab and newline (carriage return,
# backspace and ESC among them, so no escape sequence survives its introducer), DEL, the C1
# controls (0x9B is a one-byte CSI to many terminals), and the bidirectional embeddings, overrides
# and isolates (U+202A-U+202E, U+2066-U+2069) that reorder what follows them on the line. The
# implicit marks (LRM, RLM, ALM) reorder nothing beyond their neighbours and stay.
_OBEYED = (
    *(code for code in range(0x20) if code not in (0x09, 0x0A)),
    0x7F,
    *range(0x80, 0xA0),
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
)
# Each shown as a JSON escape (`\u001b`), so JSON text on a terminal still reads as the same
# value; a byte of a file name that was not UTF-8 (a surrogate escape, PEP 383) as `\xNN`, as
# `workbench.cli.arguments.shown` writes it.
_SHOWN = {
    **{code: f"\\u{code:04x}" for code in _OBEYED},
    **{0xDC00 + byte: f"\\x{byte:02x}" for byte in range(0x80, 0x100)},
}


# A name (a path, a label) stands on one line: its tab and newline are shown too.
_SHOWN_IN_A_NAME = {**_SHOWN, 0x09: "\\u0009", 0x0A: "\\u000a"}


class Stream(Protocol):
    def isatty(self) -> bool: ...


# C0 controls, DEL and C1 controls: shown as the Unicode control pictures (U+2400 + code, U+2421
# for DEL) and U+FFFD for C1, so a control character in a filing can neither drive a terminal
# (an escape sequence) nor make an HTML parse error. Tab, line feed, form feed and carriage
# return stay as they are in HTML (white space there) and fold to one space on a terminal.
CONTROLS = {
    **{code: 0x2400 + code for code in range(0x20)},
    0x7F: 0x2421,
    **{code: 0xFFFD for code in range(0x80, 0xA0)},
}
HTML_CONTROLS = {k: v for k, v in CONTROLS.items() if k not in (0x09, 0x0A, 0x0C, 0x0D)}


def visible(text: str, *, keep: tuple[str, ...] = ()) -> str:
    """`text` with every character a terminal would obey shown as a backslash escape; every other
    character, tab and newline included, is itself. `keep` names exact sequences the workbench
    itself wrote (its own colour codes, around text already made visible) that pass unchanged."""
    if not keep:
        return text.translate(_SHOWN)
    parts = [text]
    for sequence in keep:
        parts = [piece for part in parts for piece in _split_keeping(part, sequence)]
    return "".join(part if part in keep else part.translate(_SHOWN) for part in parts)


def visible_name(name: str) -> str:
    """`name` as `visible` shows text, its tab and newline shown too, so it stays on one line."""
    return name.translate(_SHOWN_IN_A_NAME)


def _split_keeping(text: str, sequence: str) -> list[str]:
    pieces = text.split(sequence)
    joined = [sequence] * (2 * len(pieces) - 1)
    joined[::2] = pieces
    return joined


def for_stream(text: str, stream: Stream) -> str:
    """`text` made `visible` when `stream` is a terminal; exact otherwise (a pipe or a file)."""
    return visible(text) if stream.isatty() else text


def write(text: str, stream: TextIO, *, keep: tuple[str, ...] = ()) -> None:
    """Write `text` to `stream`: made `visible` when the stream is a terminal (`keep` as there),
    exact otherwise. Written as UTF-8 bytes, whatever the locale, with no newline translation, so
    a file name's bytes that are not UTF-8 (PEP 383) go back out as those bytes; a stream with no
    byte layer (a notebook's) is given the text. The one place the workbench writes to stdout or
    stderr (tests/test_terminal.py reads the package for any other)."""
    shown = visible(text, keep=keep) if stream.isatty() else text
    stream.flush()  # what the text layer holds goes first
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        stream.write(shown)
        stream.flush()
        return
    buffer.write(shown.encode("utf-8", "surrogateescape"))
    buffer.flush()
