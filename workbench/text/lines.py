"""Reading a text's lines through a numbering profile (C15): what each line is and the label it
opens with, never in a wrapped sentence; a profile that loads reads every text without raising. The
rule: docs/profiles.md, "How a line is read"."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from workbench.models import StructureMark
from workbench.text.frontmatter import front_matter_end
from workbench.text.markup import inline_view
from workbench.text.patterns import LabelMatch
from workbench.text.profiles import Level, Profile

MIN_GUTTER_RUN = 5
TITLE_MAX = 60  # characters: a line at most this long in title case reads as a heading

_TOC_LINE = re.compile(r"(?:\.\s?){3,}\s*\d+\s*$|\S\s{2,}\d+\s*$")
_GUTTER = re.compile(r"(?P<n>\d{1,3})(?:[ \t]+|$)")
_LABEL_NOISE = re.compile(r"^(?:SECTION|Section|SEC\.|Sec\.|§+)\s*|[\s.]+$")
_MARKDOWN_HEADING = re.compile(r"(?P<marks>#{1,6})(?:[ \t]+(?P<title>.*?))?[ \t#]*$")
_LIST_BULLET = re.compile(r"[-*+][ \t]+(?=\S)")
_SENTENCE_END = re.compile(r"(?:[.:;?!—–]|;[ \t]+(?:and|or|but))[\"'”’)\]]*$")

LineKind = Literal["blank", "body", "heading", "furniture", "front_matter"]


@dataclass(frozen=True, slots=True, kw_only=True)
class LineReading:
    """What a profile reads on one line.

    `char_start`/`char_end` bound the line's content (surrounding white space trimmed; a gutter
    number included). `label_start` is where the label would begin (after a gutter number).
    `opens` says the line starts a passage; `label` is the label as a path element (the level's
    `number` group) and `printed` the label as printed, both None for a line with no label.
    `skipped` says why a line opening with a number read no label (a footnote numbered like a
    paragraph, `footnotes.footnote_lookalikes`), else "".
    """

    char_start: int
    char_end: int
    kind: LineKind
    opens: bool
    label_start: int
    label: str | None = None
    printed: str | None = None
    level: Level | None = None
    depth: tuple[int, int] = (0, 0)
    title: str = ""
    inner: tuple[InnerLabel, ...] = ()
    skipped: str = ""  # why a line opening with a number is no label (a footnote's), else ""


@dataclass(frozen=True, slots=True, kw_only=True)
class InnerLabel:
    """A further label right after a line's first one ("137.077. 1. (1) Beginning": 1 and (1))."""

    label_start: int
    label: str
    level: Level
    depth: tuple[int, int]


def _lines(text: str) -> Iterator[tuple[int, str]]:
    start = 0
    for line in text.split("\n"):
        yield start, line
        start += len(line) + 1


def gutter_line_starts(text: str) -> frozenset[int]:
    """Offsets of lines whose leading integer continues a run counting up by one (gutter numbers).

    A run must reach `MIN_GUTTER_RUN` lines; blank lines and page breaks do not end a run, a line
    without a leading integer does not either (the first line of a page is often unnumbered), but
    a number that does not continue the run starts a new candidate run.
    """
    found: set[int] = set()
    run: list[int] = []
    previous = None
    for start, line in _lines(text):
        match = _GUTTER.match(line.lstrip(" \t\f"))
        if not match:
            continue
        number = int(match.group("n"))
        if previous is not None and number == previous + 1:
            run.append(start)
        else:
            if len(run) >= MIN_GUTTER_RUN:
                found.update(run)
            run = [start]
        previous = number
    if len(run) >= MIN_GUTTER_RUN:
        found.update(run)
    return frozenset(found)


def list_bullet(content: str) -> int:
    """How many characters of `content` (a line, white space trimmed) are a Markdown list bullet
    before its text (`- a) ...`, `* 1. ...`: `-`, `*` or `+` and white space), 0 for none: a
    label may stand after a bullet as at a line's start."""
    match = _LIST_BULLET.match(content)
    return match.end() if match else 0


@functools.lru_cache(maxsize=64)
def footnote_notes(text: str) -> Mapping[int, str]:
    """The starts of `text`'s lines that are footnotes numbered like paragraphs, each with why
    (`footnotes.footnote_lookalikes`): noise to every numbering reader, never a label. Read once
    per text: they depend on the text alone, and the choice reads each text through every
    profile of the registry and the inducer's."""
    # Imported here: the footnote module loads lxml, which a plain verify never needs.
    from workbench.text.footnotes import footnote_lookalikes

    return MappingProxyType({note.line_start: note.why for note in footnote_lookalikes(text)})


def clean_label(label: str) -> str:
    """A label as a path element: "SEC. 2." -> "2", "§ 34-306" -> "34-306", "(a)" stays."""
    return _LABEL_NOISE.sub("", label.strip()) or label.strip()


def ends_sentence(line: str) -> bool:
    """True if `line` ends a sentence or a clause a new label may follow.

    Rule: its last character (closing quotes, brackets and parentheses aside) is `.`, `:`, `;`,
    `?`, `!`, an em or en dash, or the line ends in `; and`, `; or`, `; but`.
    """
    return bool(_SENTENCE_END.search(line.rstrip()))


def title_like(line: str) -> bool:
    """True if `line` reads as a heading ("Balancing Authority", "B. Requirements and Measures").

    Rule: at most `TITLE_MAX` characters, not ending in a comma, a hyphen or an opening
    parenthesis, and every word longer than three characters starts with a capital letter or a
    character that is not a letter.
    """
    line = line.strip()
    if not line or len(line) > TITLE_MAX or line[-1] in ",-‐‑(":
        return False
    return all(not w[0].isalpha() or w[0].isupper() for w in line.split() if len(w) > 3)


def heading_title(title: str) -> bool:
    """True if the text after a label reads as a heading's title ("Analysis and findings").

    Rule: at most `TITLE_MAX` characters, its first letter a capital, no sentence end inside it
    (". " after a word of more than two letters), and not ending in `,`, `;`, `:`, `-` or `(`.
    """
    title = title.strip()
    letters = [c for c in title if c.isalpha()]
    if not title or len(title) > TITLE_MAX or not letters or not letters[0].isupper():
        return False
    if title[-1] in ",;:-(":
        return False
    return not re.search(r"[A-Za-z]{3,}\. ", title)


def label_may_open(previous: str | None, previous_bare_label: bool, heading_position: bool) -> bool:
    """The continuation rule: may a line that opens with a label start a passage here?

    Yes when it is the first line of a paragraph (`previous` is None: after a blank line, the start
    of the text, furniture or a heading), when the label is at a heading position its profile
    declares (`heading_position`: a level with `heading = true` whose indentation is within its
    `indent_max`), when the previous line is a bare label ("SEC. 2.", "R1."), when the previous line
    ends a sentence (`ends_sentence`), or when it reads as a heading (`title_like`). Otherwise the
    line continues the previous line's sentence: it is no label and starts no passage.
    """
    if previous is None or heading_position or previous_bare_label:
        return True
    return ends_sentence(previous) or title_like(previous)


def _match_label(
    profile: Profile, body: str, indent: int | None, *, in_heading: bool = False
) -> tuple[Level, LabelMatch] | None:
    """The first level (in profile order) whose label opens `body` and whose rules it meets.

    Rules: a level `only_in_headings` reads Markdown headings only (`in_heading`); the indentation
    is within the level's `indent_max` (`indent` None: not checked, as on gutter lines, in
    headings and after a first label); the title rule (`required`: text after the label;
    `forbidden`: none; `heading`: a title that reads as a heading, `heading_title`); and the line
    is not a table-of-contents line (dot leaders or a trailing page number after two spaces).
    A line that opens with one of the profile's `noise` patterns (a footnote number) is no label.
    """
    if any(p.match(body) for p in profile.noise):
        return None
    for level in profile.levels:
        if level.only_in_headings and not in_heading:
            continue
        match = level.regex.match(body)
        if not match:
            continue
        limit = level.indent_max
        if indent is not None and limit is not None and indent > limit:
            continue
        rest = body[match.end() :].strip()
        if (level.title in ("required", "heading") and not rest) or (
            level.title == "forbidden" and rest
        ):
            continue
        if level.title == "heading" and not heading_title(rest):
            continue
        if _TOC_LINE.search(body):
            continue
        return level, match
    return None


def _at_heading(level: Level, indent: int) -> bool:
    """True if `level` has `heading = true` and admits a line at `indent` (-1: after a gutter
    number, never a heading position): its label may open the line whatever the line before it
    (`label_may_open`)."""
    return (
        level.heading and indent >= 0 and (level.indent_max is None or indent <= level.indent_max)
    )


def _depth(level: Level, number: str) -> tuple[int, int]:
    return (level.rank, len(number.split(".")) if level.dotted else 1)


def read_lines(
    text: str, profile: Profile, marks: Sequence[StructureMark] | None = None
) -> tuple[LineReading, ...]:
    """Read every line of `text` through `profile`; see `label_may_open` for the continuation rule.

    In order of precedence, a line is: blank (white space only); front matter (with
    `front_matter = true`, a `---` line as the text's first non-blank line, through the next `---`
    or `...` line; an unclosed block is not front matter); furniture (a gutter number alone, or
    content matching one of the profile's `furniture` patterns in full); a Markdown heading (with
    `markdown_headings = true`: one to six `#` then white space or the end; its label is read from
    its title by the levels); else body, opening with a label when a level matches and the
    continuation rule lets it, its label read after a Markdown list bullet (`list_bullet`: `- a)`,
    `* 1.`) as at the line's start. A furniture line, a heading or a bare label (a label with no text
    after it) is a passage of its own: it opens, and the line after it opens as a first line. A
    footnote numbered like a paragraph (`footnotes.footnote_lookalikes`, read when there are no
    `marks`) is body with no label that opens, its `skipped` saying why, and the next line opens.

    With `marks` (an XML version), labels are the extractor's marks, not the profile's levels: a
    line opens with a label where a mark starts at its content's first character (the first mark
    there, the outermost), under the same continuation rule.
    """
    by_start: dict[int, StructureMark] = {}
    for mark in sorted(marks or (), key=lambda m: (m.char_start, len(m.path))):
        by_start.setdefault(mark.char_start, mark)
    gutter = gutter_line_starts(text) if profile.gutter else frozenset()
    raw = list(_lines(text))
    out: list[LineReading] = []
    front_end = (
        front_matter_end([line for _, line in raw], lenient=True) if profile.front_matter else None
    )
    notes: Mapping[int, str] = {} if marks is not None else footnote_notes(text)
    previous: str | None = None  # the previous content line of the paragraph, or None
    previous_bare = False
    for index, (line_start, line) in enumerate(raw):
        content = line.strip()
        if not content:
            out.append(_blank(line_start))
            previous, previous_bare = None, False
            continue
        start = line_start + (len(line) - len(line.lstrip()))
        end = start + len(content)
        if front_end is not None and index <= front_end:
            out.append(
                LineReading(
                    char_start=start,
                    char_end=end,
                    kind="front_matter",
                    opens=not out or out[-1].kind != "front_matter",
                    label_start=start,
                )
            )
            previous, previous_bare = None, False
            continue
        if line_start in notes:
            out.append(
                LineReading(
                    char_start=start, char_end=end, kind="body", opens=True, label_start=start,
                    skipped=notes[line_start],
                )
            )  # fmt: skip
            previous, previous_bare = None, False
            continue
        label_start, body, indent = start, content, start - line_start
        if line_start in gutter:
            match = _GUTTER.match(content)
            assert match is not None
            label_start, body, indent = start + match.end(), content[match.end() :], -1
        if not body or any(p.fullmatch(body) for p in profile.furniture):
            out.append(
                LineReading(
                    char_start=start, char_end=end, kind="furniture", opens=True, label_start=start
                )
            )
            previous, previous_bare = None, False
            continue
        heading = _MARKDOWN_HEADING.fullmatch(body) if profile.markdown_headings else None
        if heading:
            title = heading.group("title") or ""
            offset = label_start + (heading.start("title") if heading.group("title") else 0)
            view, positions = inline_view(title) if profile.inline_markup else (title, None)
            found = _match_label(profile, view, None, in_heading=True)
            out.append(
                _labelled(
                    start, end, "heading", offset, found, view, profile=profile,
                    positions=positions,
                )
            )  # fmt: skip
            previous, previous_bare = None, False
            continue
        if marks is not None:
            reading = _marked(
                content, start, label_start, by_start.get(label_start), previous, previous_bare
            )
            out.append(reading)
            previous = content
            previous_bare = reading.label is not None and not reading.title
            continue
        bullet = list_bullet(body)
        label_start, body = label_start + bullet, body[bullet:]
        positions = None
        found = None
        # A line the continuation rule keeps from opening, where no level stands at a heading
        # position, opens with no label whatever level it matches: its levels are not tried.
        if label_may_open(previous, previous_bare, False) or any(
            _at_heading(level, indent) for level in profile.levels
        ):
            if profile.inline_markup:
                body, positions = inline_view(body)
            found = _match_label(profile, body, indent if indent >= 0 else None)
        if found is not None and not label_may_open(
            previous, previous_bare, _at_heading(found[0], indent)
        ):
            found = None
        reading = _labelled(
            start, end, "body", label_start, found, body, opens=previous is None,
            profile=profile, positions=positions,
        )  # fmt: skip
        out.append(reading)
        previous = content
        previous_bare = reading.label is not None and not reading.title
        if previous_bare:
            # A bare label ("SEC. 2.", "R1.") is a heading of its own: the next line opens.
            previous = None
    return tuple(out)


def _marked(
    content: str,
    start: int,
    label_start: int,
    mark: StructureMark | None,
    previous: str | None,
    previous_bare: bool,
) -> LineReading:
    end = start + len(content)
    if mark is None or not label_may_open(previous, previous_bare, False):
        return LineReading(
            char_start=start, char_end=end, kind="body", opens=previous is None, label_start=start
        )
    return LineReading(
        char_start=start,
        char_end=end,
        kind="body",
        opens=True,
        label_start=label_start,
        label=clean_label(mark.value or mark.label),
        printed=mark.label,
        depth=(len(mark.path), 1),
        title=content[max(mark.char_end - start, 0) :].strip(),
    )


def _blank(start: int) -> LineReading:
    return LineReading(
        char_start=start, char_end=start, kind="blank", opens=False, label_start=start
    )


def _labelled(
    start: int,
    end: int,
    kind: LineKind,
    label_start: int,
    found: tuple[Level, LabelMatch] | None,
    body: str,
    *,
    opens: bool = True,
    profile: Profile | None = None,
    positions: tuple[int, ...] | None = None,
) -> LineReading:
    """The reading of a line whose label `found` matched `body` (a line's content, or its inline
    view with `positions`: each view character's offset in the content)."""

    def place(offset: int) -> int:
        return label_start + (offset if positions is None else positions[offset])

    if found is None:
        return LineReading(
            char_start=start, char_end=end, kind=kind, opens=opens, label_start=label_start
        )
    level, match = found
    number = match.group("number")
    depth = _depth(level, number)
    inner: list[InnerLabel] = []
    at = match.end()
    # A run of labels opens nested units at once; each must be deeper than the one before it.
    while profile is not None:
        rest = body[at:]
        skip = len(rest) - len(rest.lstrip(" \t"))
        more = _match_label(profile, rest[skip:], None, in_heading=kind == "heading")
        if more is None or skip == 0 or _depth(more[0], more[1].group("number")) <= depth:
            break
        number_inner = more[1].group("number")
        depth = _depth(more[0], number_inner)
        inner.append(
            InnerLabel(
                label_start=place(at + skip + more[1].start("label")),
                label=number_inner,
                level=more[0],
                depth=depth,
            )
        )
        at += skip + more[1].end()
    return LineReading(
        char_start=start,
        char_end=end,
        kind=kind,
        opens=True,
        label_start=place(match.start("label")),
        label=number,
        printed=match.group("label"),
        level=level,
        depth=_depth(level, number),
        title=body[at:].strip(),
        inner=tuple(inner),
    )
