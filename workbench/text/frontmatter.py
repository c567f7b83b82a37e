"""Front matter (the `---` block of `field: value` lines atop a Markdown text), read here and
nowhere else: strictly for a header the workbench reads fields from, leniently for a held document.
The caller's lines are never re-split, and a problem is reported, never skipped."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

# A header line: a field name, a colon, then (after white space) its value, white space at the end
# not included; a name followed by nothing is unset.
FIELD_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):(?:[ \t]+(.*?))?[ \t]*")

ProblemKind = Literal["byte_order_mark", "not_opened", "not_a_field", "repeated", "not_closed"]


def front_matter_end(lines: Sequence[str], *, lenient: bool = False) -> int | None:
    """The index in `lines` of the line closing the front-matter block at the top, or None when
    there is no block (none opened, or one opened and never closed).

    Strict: `lines[0]` is exactly `---`, and the block closes at the first later line that is
    exactly `---`. Lenient: the first line holding more than white space is `---` once stripped,
    and the block closes at the first later line that is `---` or `...` once stripped.
    """
    if lenient:
        first = next((k for k, line in enumerate(lines) if line.strip()), None)
        if first is None or lines[first].strip() != "---":
            return None
        return next(
            (k for k in range(first + 1, len(lines)) if lines[k].strip() in ("---", "...")), None
        )
    if not lines or lines[0] != "---":
        return None
    return next((k for k in range(1, len(lines)) if lines[k] == "---"), None)


@dataclass(frozen=True, slots=True, kw_only=True)
class HeaderLine:
    """One `field: value` line of a header: the field, its value (None: unset), its line (1-based)."""

    name: str
    value: str | None
    line: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HeaderProblem:
    """One thing wrong with a header. `line` is 1-based, None for the header as a whole; for a
    `repeated` field, `name` is the field and `first` the line it first stood on."""

    kind: ProblemKind
    line: int | None
    name: str | None = None
    first: int | None = None

    @property
    def message(self) -> str:
        """The problem in words, without the file or the line (callers say those their way)."""
        if self.kind == "byte_order_mark":
            return "front matter: starts with a byte order mark; expected '---'"
        if self.kind == "not_opened":
            return "front matter: line 1 must be '---' to open the header"
        if self.kind == "not_a_field":
            return "front matter: expected 'field: value'"
        if self.kind == "repeated":
            return f"field {self.name}: appears twice (lines {self.first} and {self.line})"
        return "front matter: no closing '---' line"


@dataclass(frozen=True, slots=True, kw_only=True)
class Header:
    """A header read strictly. `fields` in line order, each field once (a repeat is a problem, not
    a field); `close` the 1-based line of the closing `---` (None: not closed); `problems` in line
    order, a header that is not closed last."""

    fields: tuple[HeaderLine, ...]
    close: int | None
    problems: tuple[HeaderProblem, ...]

    def get(self, name: str) -> str | None:
        return next((f.value for f in self.fields if f.name == name), None)


def read_header(lines: Sequence[str]) -> Header:
    """Read the strict header at the top of `lines` (each line without its ending).

    A first line opening with a byte order mark, or that is not `---`, is the one problem (nothing
    else is read). Otherwise every line up to the closing `---` (to the end when there is none) is
    read: a blank line or one whose first non-blank character is `#` is skipped; a line
    `FIELD_LINE` does not match in full is `not_a_field`; a field seen before is `repeated` (the
    first stands). A block never closed adds `not_closed` last.
    """
    if lines and lines[0].startswith("\ufeff"):
        return Header(
            fields=(), close=None, problems=(HeaderProblem(kind="byte_order_mark", line=None),)
        )
    if not lines or lines[0] != "---":
        return Header(fields=(), close=None, problems=(HeaderProblem(kind="not_opened", line=1),))
    end = front_matter_end(lines)
    fields: list[HeaderLine] = []
    seen: dict[str, int] = {}
    problems: list[HeaderProblem] = []
    for number in range(2, (len(lines) if end is None else end) + 1):
        line = lines[number - 1]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = FIELD_LINE.fullmatch(line)
        if match is None:
            problems.append(HeaderProblem(kind="not_a_field", line=number))
            continue
        name = match.group(1)
        if name in seen:
            problems.append(
                HeaderProblem(kind="repeated", line=number, name=name, first=seen[name])
            )
            continue
        seen[name] = number
        fields.append(HeaderLine(name=name, value=match.group(2) or None, line=number))
    if end is None:
        problems.append(HeaderProblem(kind="not_closed", line=None))
    return Header(
        fields=tuple(fields),
        close=None if end is None else end + 1,
        problems=tuple(problems),
    )
