"""A line read through its inline markup (C15): `inline_view` leaves out emphasis delimiters and
HTML-like tags so a label inside them is read, and maps each character of the view back to its
offset in the line (docs/profiles.md, rule 3)."""

from __future__ import annotations

import re

_MARKUP = re.compile(r"</?[A-Za-z][A-Za-z0-9]*>|\*{1,3}|_{1,3}")
_STRETCH = re.compile(rf"(?:{_MARKUP.pattern})+")
_LONGEST_DELIMITER = 3  # `***`: a longer stretch of delimiters closes one run and opens another
_CLOSE_THEN_OPEN = re.compile(r"</[A-Za-z][A-Za-z0-9]*>.*<[A-Za-z][A-Za-z0-9]*>")


def has_markup(text: str) -> bool:
    """True if `text` holds an emphasis delimiter or an HTML-like tag."""
    return _MARKUP.search(text) is not None


def inline_view(text: str) -> tuple[str, tuple[int, ...]]:
    """(the text without its inline markup, each view character's offset in `text`, then
    `len(text)`).

    Every view character is the character of `text` at its offset, but one: where markup that
    closes one emphasis run and opens the next stands between a letter and a digit (a stretch of
    delimiters longer than `_LONGEST_DELIMITER` or mixing `*` and `_`, `**ARTICULO****66**`; a
    closing tag then an opening one), the view holds a space at the stretch's first offset: a
    word and a number in two runs are two words (`ARTICULO 66`). Digits on both sides stay one
    number (`**ARTICULO 6****7**` is 67), letters on both sides one word, and one run between a
    number and a letter joins them (`14*bis*`, `1<sup>er`).
    """
    view: list[str] = []
    positions: list[int] = []
    at = 0
    for found in _STRETCH.finditer(text):
        view.append(text[at : found.start()])
        positions.extend(range(at, found.start()))
        if _two_runs(text, found.start(), found.end()):
            view.append(" ")
            positions.append(found.start())
        at = found.end()
    view.append(text[at:])
    positions.extend(range(at, len(text)))
    positions.append(len(text))
    return "".join(view), tuple(positions)


def _two_runs(text: str, start: int, end: int) -> bool:
    """True if the markup `text[start:end]` closes one emphasis run and opens another between a
    letter and a digit (`inline_view`)."""
    if start == 0 or end == len(text):
        return False
    before, after = text[start - 1], text[end]
    if not ((before.isalpha() and after.isdigit()) or (before.isdigit() and after.isalpha())):
        return False
    markup = text[start:end]
    if set(markup) <= {"*", "_"}:
        return len(markup) > _LONGEST_DELIMITER or len(set(markup)) > 1
    return _CLOSE_THEN_OPEN.search(markup) is not None
