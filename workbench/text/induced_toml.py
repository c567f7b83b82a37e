"""An induced profile's levels and the commented TOML a researcher edits (C15): each key with a
comment saying what in the texts gave it, `applies_to` left to fill in; the same levels give the
same bytes, and the text loads as a profile."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from workbench.text.shapes import Shape, level_pattern

NAME = "induced"
NEVER = "(?P<number>(?!))"  # a pattern that matches nothing: texts that number nothing

_PLACE = {"heading": "heading-", "margin": "margin-", "body": ""}
_CLOSE = {"": "", ")": "-close", ".": "-dot", ".?": "-dot", ":": "-colon", ").": "-close-dot"}


@dataclass(frozen=True, slots=True, kw_only=True)
class InducedLevel:
    """One level the texts show: its shape, the evidence for it, and its profile settings."""

    shape: Shape
    words: tuple[str, ...]
    rank: int
    sequence: str
    title: str
    latin: bool
    decimal: bool  # decimal insertions (`2.1`, `(b.1)`) among its labels
    labels: int
    texts: int
    counting: float  # share of its labels that count on or start at the first, of those that count
    inside: Shape | None  # the shape it most often opens right after
    nesting: str | None = None  # what its rank counted (`nesting.nest`), the document's none
    document_number: bool = False
    unchecked_because: float | None = None  # inconsistent share under parents, if unchecked
    through_because: float | None = None  # inconsistent share under parents, if counted through
    dash: bool = False  # a dash stands right after some of its labels (`ARTICULO 18.—`)
    in_body: bool = False  # a heading shape some of whose labels stand outside headings
    typeset: int = 0  # labels read alone on lines a PDF sets as headings (`shapes.alone_label`)

    @property
    def name(self) -> str:
        """A name unique to the shape: place, word, fused letters, kind, marks (`sec-digits-dot`)."""
        shape = self.shape
        word = f"{_named(shape.word)}-" if shape.word else ""
        after = f"-{_named(shape.after)}" if shape.after else ""
        return (
            f"{_PLACE[shape.place]}{word}{'paren-' if shape.open else ''}"
            f"{shape.prefix.lower()}{shape.kind}{_CLOSE.get(shape.close, '')}{after}"
        )

    @property
    def pattern(self) -> str:
        return level_pattern(self.shape, self.latin, self.decimal, alone=self.title == "forbidden")


def _named(word: str) -> str:
    return word.replace("§", "paragraph-sign")


def _string(value: str) -> str:
    """A TOML string: literal ('...') where it can be, else basic with JSON's escapes."""
    if "'" not in value and "\n" not in value:
        return f"'{value}'"
    return json.dumps(value, ensure_ascii=False)


def _level_lines(level: InducedLevel) -> list[str]:
    shape = level.shape
    evidence = (
        f"# {shape.describe()}: {level.labels} labels in {level.texts} text(s), "
        f"{100 * level.counting:.1f}% count on or start at the first"
    )
    lines = ["", evidence]
    if level.typeset:
        lines.append(f"# from PDF headings: {level.typeset} labels alone on lines set as headings")
    if level.inside is not None:
        lines.append(f"# opens most often right after {level.inside.describe()}")
    if level.nesting is not None:
        lines.append(f"# {level.nesting}")
    if level.document_number:
        lines.append("# the document's own number: the first label of every text, once")
    if level.unchecked_because is not None:
        lines.append(
            f"# not checked: {100 * level.unchecked_because:.1f}% of its steps do not count on "
            "under their parents (numbered on across them, or lists starting again)"
        )
    if level.through_because is not None:
        lines.append(
            f"# counted through the text: {100 * level.through_because:.1f}% of its steps do not "
            "count on under their parents, and it counts on across them"
        )
    lines += ["[[levels]]", f"name = {_string(level.name)}"]
    if level.words:
        lines.append("words = [" + ", ".join(_string(w) for w in level.words) + "]")
    lines += [f"pattern = {_string(level.pattern)}", f"rank = {level.rank}"]
    if shape.kind in ("dotted", "letter-dotted"):
        lines.append("dotted = true")
    if level.sequence != "numeric":
        lines.append(f"sequence = {_string(level.sequence)}")
    if level.through_because is not None and level.sequence != "none":
        lines.append('counts = "through"')
    if level.title != "optional":
        lines.append(f"title = {_string(level.title)}")
    if level.dash:
        lines.append("dash = true  # a dash may follow the label directly")
    if shape.place == "margin":
        lines += ["heading = true", "indent_max = 0"]
    if shape.place == "heading" and not level.in_body:
        lines.append("only_in_headings = true")
    return lines


def render_profile(
    *,
    texts: int,
    levels: Sequence[InducedLevel],
    furniture: Sequence[str],
    gutter: bool,
    front_matter: bool,
    markdown_headings: bool,
    preamble: str,
    inline_markup: bool = False,
    skipped: Sequence[str] = (),
) -> str:
    """The commented TOML of an induced profile (docs/profiles.md)."""
    if levels:
        summary = ", ".join(level.shape.describe() for level in sorted(levels, key=_by_rank))
        description = f"Induced from {texts} text(s): {summary}"
    else:
        description = f"Induced from {texts} text(s): no numbering"
    lines = [
        "# Induced by `workbench profile suggest` from the texts alone: no profile and no",
        "# jurisdiction was read. Check it with `workbench structure VERSION_ID --profile FILE`,",
        "# edit it, and name what it reads in applies_to (docs/profiles.md describes every key).",
        f"name = {_string(NAME)}",
        f"description = {_string(description)}",
        '# applies_to = ["JURISDICTION", "JURISDICTION/FAMILY"]',
        f"preamble = {_string(preamble)}"
        + ("  # many lines before the first label in every text" if preamble != "body" else ""),
        f"front_matter = {str(front_matter).lower()}",
        f"markdown_headings = {str(markdown_headings).lower()}",
        *(
            ["inline_markup = true  # labels inside emphasis or superscript"]
            if inline_markup
            else []
        ),
        f"gutter = {str(gutter).lower()}",
    ]
    if furniture:
        lines.append("furniture = [  # lines that repeat on the pages")
        lines += [f"    {_string(p)}," for p in furniture]
        lines.append("]")
    else:
        lines.append("furniture = []")
    if skipped:
        lines += ["", "# Skipped (no level):"] + [f"# {note}" for note in skipped]
    if not levels:
        lines += [
            "",
            "# No label shape opens at least 3 lines and counts: these texts number nothing.",
            "# The one level below matches nothing, so no passage gets an invented label.",
            "[[levels]]",
            'name = "none"',
            f"pattern = {_string(NEVER)}",
            'sequence = "none"',
        ]
    for level in levels:
        lines += _level_lines(level)
    return "\n".join(lines) + "\n"


def _by_rank(level: InducedLevel) -> tuple[int, Shape]:
    return level.rank, level.shape


def level_evidence(source: str) -> list[tuple[str, tuple[str, ...]]]:
    """(level name, the comment lines above its `[[levels]]` table) for every level of a profile
    file: for an induced profile, the evidence each level counted (`render_profile` writes it);
    for a hand-written one, whatever its author wrote there. Comment lines lose their `# `."""
    out: list[tuple[str, tuple[str, ...]]] = []
    comments: list[str] = []
    in_level = False
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            comments.append(stripped.lstrip("#").strip())
        elif stripped == "[[levels]]":
            in_level = True
        elif in_level and stripped.startswith("name"):
            name = stripped.split("=", 1)[1].strip().strip("'\"")
            out.append((name, tuple(comments)))
            comments, in_level = [], False
        elif not stripped:
            comments = []
    return out
