"""The Markdown a note and a source report are written in, as the notes stage reads it (C9, C10):
lines with their byte offsets, and which lines are fenced code, never read as a quote or heading."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

# The opening of a fenced code block (up to three spaces, then ``` or ~~~); the same fence closes it.
CODE_FENCE = re.compile(r" {0,3}(```|~~~)")


def byte_lines(data: bytes) -> list[tuple[int, bytes, bytes]]:
    """(byte offset, line without its ending, the ending) for every line; `\\n` and `\\r\\n` both
    end one (a lone `\\r` ends a line too, as `bytes.splitlines` reads it, and stays in it)."""
    out: list[tuple[int, bytes, bytes]] = []
    at = 0
    for raw in data.splitlines(keepends=True):
        body = raw.rstrip(b"\r\n") if raw.endswith(b"\n") else raw
        out.append((at, body, raw[len(body) :]))
        at += len(raw)
    return out


def in_code(lines: Iterable[str]) -> Iterator[bool]:
    """For each line, whether it belongs to fenced code: the opening fence, the lines inside and
    the fence that closes it (the same marker, ``` or ~~~). A fence never closed runs to the end."""
    fence: str | None = None
    for line in lines:
        opened = CODE_FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1) == fence:
                fence = None
            yield True
        elif opened:
            fence = opened.group(1)
            yield True
        else:
            yield False
