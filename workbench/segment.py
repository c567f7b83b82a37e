"""Split a version's text into passages with exact offsets and a naive section label.

A passage is a paragraph: a maximal run of non-blank lines (a blank line holds only white space,
form feeds included). Inside a paragraph, a line that opens with a section-like number starts a new
passage, so dense statute text without blank lines still splits at its numbered sections. The
passage's offsets exclude the leading and trailing white space of its lines; inner line breaks stay.

The guarantee: `text[p.char_start:p.char_end] == p.text` for every passage, passages are in text
order and never overlap, and every non-white-space character of the text lies in exactly one
passage.

`section_label` is the passage's leading number ("6.1", "386.050", "2"), after an optional "SEC.",
"Section" or "§". It is naive on purpose: it reads years, gutter line numbers and page headers as
section numbers, and the structure measurements exist to show where that misleads.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from workbench.models import Passage

_LINE = re.compile(r"[^\n]*(?:\n|$)")
_LABEL = re.compile(
    r"(?:§+\s*|(?:SECTION|Section|SEC\.|Sec\.)\s+)?"
    r"(?P<label>[0-9]+(?:[.\-][0-9]+)*)(?=[.\s)\-:]|$)"
)


def section_label(passage_text: str) -> str | None:
    """The leading number of a passage, without its trailing dot, or None.

    Rule: optional "§", "SECTION", "Section", "SEC." or "Sec." then digits with inner dots or
    hyphens, followed by a dot, white space, ")", "-", ":" or the end. "(1)" has no label: a
    parenthesised enumerator is not a section number.
    """
    match = _LABEL.match(passage_text)
    return match.group("label") if match else None


def _opens_section(line: str) -> bool:
    stripped = line.lstrip()
    return bool(stripped) and section_label(stripped) is not None


def _line_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each line's content with surrounding white space trimmed; (-1, -1) if blank."""
    for match in _LINE.finditer(text):
        start, end = match.span()
        if start == end:
            return
        line = text[start:end]
        content = line.strip()
        if not content:
            yield -1, -1
            continue
        lead = len(line) - len(line.lstrip())
        yield start + lead, start + lead + len(content)


def segment(version_id: str, text: str) -> tuple[Passage, ...]:
    """Passages of `text`, in order, ordinals from 0.

    Boundaries: a blank line ends a passage; a line whose trimmed content starts with a section
    label starts a new one. Nothing else splits a paragraph.
    """
    bounds: list[tuple[int, int]] = []
    open_start = open_end = -1
    for start, end in _line_spans(text):
        if start < 0:
            if open_start >= 0:
                bounds.append((open_start, open_end))
            open_start = -1
            continue
        if open_start >= 0 and _opens_section(text[start:end]):
            bounds.append((open_start, open_end))
            open_start = -1
        if open_start < 0:
            open_start = start
        open_end = end
    if open_start >= 0:
        bounds.append((open_start, open_end))
    return tuple(
        Passage(
            version_id=version_id,
            ordinal=ordinal,
            char_start=start,
            char_end=end,
            text=text[start:end],
            section_label=section_label(text[start:end]),
        )
        for ordinal, (start, end) in enumerate(bounds)
    )
