"""A line read through its inline markup (C15): `inline_view` leaves out emphasis delimiters and
HTML-like tags so a label inside them is read, and maps each character of the view back to its
offset in the line."""

from __future__ import annotations

import re

_MARKUP = re.compile(r"</?[A-Za-z][A-Za-z0-9]*>|\*{1,3}|_{1,3}")


def has_markup(text: str) -> bool:
    """True if `text` holds an emphasis delimiter or an HTML-like tag."""
    return _MARKUP.search(text) is not None


def inline_view(text: str) -> tuple[str, tuple[int, ...]]:
    """(the text without its inline markup, each view character's offset in `text`, then
    `len(text)`)."""
    view: list[str] = []
    positions: list[int] = []
    at = 0
    for found in _MARKUP.finditer(text):
        view.append(text[at : found.start()])
        positions.extend(range(at, found.start()))
        at = found.end()
    view.append(text[at:])
    positions.extend(range(at, len(text)))
    positions.append(len(text))
    return "".join(view), tuple(positions)
