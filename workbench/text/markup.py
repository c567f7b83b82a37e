"""A line read through its inline markup (C15): labels inside emphasis or superscript.

Markdown renderings put a label inside emphasis or a superscript (`**Art. 3.**`, `_§ 4_`,
`Art. 1<sup>er</sup>.`, `**Chapitre II**. **Titre**`). `inline_view` gives the line's text with
emphasis delimiters (`*`, `_`, one to three) and HTML-like tags (`<sup>`, `</sup>`) left out, and
for each character of the view its offset in the line, so a label read in the view is placed in
the line exactly. A profile reads lines so with `inline_markup = true`; the inducer sets it when
labels stand inside such markup.

The guarantee: the view holds every other character of the line, in order, and `positions` maps
each to its offset (one more entry for the line's end).
"""

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
