"""A version's text split into passages with exact offsets, kinds, labels and paths through its
numbering profile (C1, C15): passages are in text order, never overlap, and every non-white-space
character lies in exactly one, whatever the profile. The kinds and their order: docs/profiles.md."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise
from typing import Protocol

from workbench.models import Passage, PassageKind, StructureMark
from workbench.text.footnotes import FootnoteReading
from workbench.text.lines import LineReading, read_lines, title_like
from workbench.text.profiles import Profile, generic_profile, profile_for
from workbench.text.structure import (
    StructureParse,
    finish_parse,
    is_marked,
    parse_text,
    read_text,
    units_from_marks,
)
from workbench.text.table_cells import Table

XML_HEADING_MAX_WORDS = 15


class _Spanned(Protocol):
    @property
    def char_start(self) -> int: ...
    @property
    def char_end(self) -> int: ...


_LEADING_NUMBER = re.compile(
    r"(?:§+\s*|(?:SECTION|Section|SEC\.|Sec\.)\s+)?"
    r"(?P<label>[0-9]+(?:[.\-][0-9]+)*)(?=[.\s)\-:]|$)"
)


def leading_number(passage_text: str) -> str | None:
    """The seed's section-label proxy: the leading number of a passage, without its trailing dot.

    Rule: optional "§", "SECTION", "Section", "SEC." or "Sec." then digits with inner dots or
    hyphens, followed by a dot, white space, ")", "-", ":" or the end. "(1)" has no label: a
    parenthesised enumerator is not a section number.
    """
    match = _LEADING_NUMBER.match(passage_text)
    return match.group("label") if match else None


def _xml_heading(text: str) -> bool:
    return (
        "\n" not in text
        and len(text.split()) <= XML_HEADING_MAX_WORDS
        and ". " not in text
        and text[-1] not in ",;:"
    )


def _kind(first: LineReading, lines: int, text: str, marked: bool) -> PassageKind:
    if first.kind in ("front_matter", "furniture", "heading"):
        return first.kind
    if lines == 1 and first.label is not None:
        if (first.level is not None and first.level.heading) or not first.title:
            return "heading"
        if title_like(first.title):
            return "heading"
    if marked and first.label is None and _xml_heading(text):
        return "heading"
    return "body"


def passages_from_readings(
    version_id: str,
    text: str,
    readings: Sequence[LineReading],
    parse: StructureParse,
    profile: Profile,
    *,
    marked: bool = False,
    footnotes: FootnoteReading | None = None,
    tables: Sequence[Table] | None = None,
) -> tuple[Passage, ...]:
    """Passages from a text's line readings and its structure parse (docs/text-and-offsets.md)."""
    groups: list[list[LineReading]] = []
    for reading in readings:
        if reading.kind == "blank":
            if groups and groups[-1]:
                groups.append([])
            continue
        if not groups or (groups[-1] and reading.opens):
            groups.append([])
        groups[-1].append(reading)
    groups = [g for g in groups if g]
    out: list[Passage] = []
    preamble = profile.preamble == "front_matter" and any(
        g[0].label is not None and g[0].kind != "front_matter" for g in groups
    )
    for ordinal, group in enumerate(groups):
        first = group[0]
        start, end = first.char_start, group[-1].char_end
        body = text[start:end]
        if preamble and first.label is not None and first.kind != "front_matter":
            preamble = False
        kind: PassageKind = "front_matter" if preamble else _kind(first, len(group), body, marked)
        path = None
        if kind not in ("front_matter", "furniture"):
            path = parse.path_at(first.label_start if first.label is not None else start)
        out.append(
            Passage(
                version_id=version_id,
                ordinal=ordinal,
                char_start=start,
                char_end=end,
                text=body,
                section_label=first.label,
                kind=kind,
                path=path,
            )
        )
    if footnotes is None and tables is None:
        return tuple(out)
    return _with_parts(tuple(out), footnotes or FootnoteReading(), tables or ())


def _holder(spans: Sequence[_Spanned], passage: Passage) -> _Spanned | None:
    """The span (sorted by start, none overlapping) holding `passage` wholly, or None."""
    at = bisect_right([s.char_start for s in spans], passage.char_start) - 1
    if at >= 0 and passage.char_end <= spans[at].char_end:
        return spans[at]
    return None


def _cut_at_notes(passages: tuple[Passage, ...], reading: FootnoteReading) -> list[Passage]:
    """Each passage cut where a note's span (its own or a run-on one) starts or ends inside it,
    the pieces trimmed of white space at both ends (empty ones dropped) and numbered afresh;
    the first piece keeps the label, every piece the kind and path. A passage no span cuts
    keeps its offsets."""
    cuts = sorted({at for note in reading.footnotes for span in note.spans for at in span})
    out: list[Passage] = []
    for passage in passages:
        start, end = passage.char_start, passage.char_end
        inside = cuts[bisect_right(cuts, start) : bisect_left(cuts, end)]
        for k, (a, b) in enumerate(pairwise([start, *inside, end])):
            piece = passage.text[a - start : b - start]
            a += len(piece) - len(piece.lstrip())
            b = a + len(piece.strip())
            if b > a:
                out.append(
                    replace(
                        passage,
                        ordinal=len(out),
                        char_start=a,
                        char_end=b,
                        text=passage.text[a - start : b - start],
                        section_label=passage.section_label if k == 0 else None,
                    )
                )
    return out


def _with_parts(
    passages: tuple[Passage, ...], reading: FootnoteReading, tables: Sequence[Table]
) -> tuple[Passage, ...]:
    """Passages cut at the notes' spans (`_cut_at_notes`); each piece wholly inside a note's
    span made a `footnote` with its anchors; else each wholly inside a table made a `table`
    with the cells inside it."""
    spans = sorted(
        ((a, b, note) for note in reading.footnotes for a, b in note.spans), key=lambda s: s[0]
    )
    starts = [a for a, _, _ in spans]
    held = sorted(tables, key=lambda t: t.char_start)
    out = []
    for passage in _cut_at_notes(passages, reading):
        at = bisect_right(starts, passage.char_start) - 1
        if at >= 0 and passage.char_end <= spans[at][1]:
            passage = replace(passage, kind="footnote", anchors=spans[at][2].anchors)
        elif isinstance(table := _holder(held, passage), Table):
            cells = tuple(
                c
                for c in table.cells
                if passage.char_start <= c.char_start and c.char_end <= passage.char_end
            )
            passage = replace(passage, kind="table", cells=cells)
        out.append(passage)
    return tuple(out)


def segment(
    version_id: str,
    text: str,
    profile: Profile | None = None,
    *,
    marks: Sequence[StructureMark] | None = None,
    footnotes: FootnoteReading | None = None,
    tables: Sequence[Table] | None = None,
) -> tuple[Passage, ...]:
    """Passages of `text`, in order, ordinals from 0, read through `profile` (default: generic).

    With `marks` (an XML version's, possibly empty), labels and paths come from the marks; with
    `footnotes` (a reading of the same text) and `tables`, passages inside a note or a table take
    those kinds.
    """
    profile = profile or generic_profile()
    if marks is not None:
        readings = read_lines(text, profile, marks)
        parse = finish_parse(
            version_id, "xml-marks", profile.name, units_from_marks(marks, len(text)), None
        )
        return passages_from_readings(
            version_id,
            text,
            readings,
            parse,
            profile,
            marked=True,
            footnotes=footnotes,
            tables=tables,
        )
    return passages_from_readings(
        version_id,
        text,
        read_text(text, profile),
        parse_text(version_id, text, profile),
        profile,
        footnotes=footnotes,
        tables=tables,
    )


def segment_version(
    version: object,
    profile: Profile | None = None,
    *,
    footnotes: FootnoteReading | None = None,
    tables: Sequence[Table] | None = None,
) -> tuple[Passage, ...]:
    """Passages of a version-like object (`version_id`, `text`, optionally `jurisdiction`,
    `family`, `structure`, `media_type`); `profile` defaults to the shipped profile naming its
    jurisdiction and family, else generic. An XML version is read through its marks."""
    version_id: str = getattr(version, "version_id")  # noqa: B009
    text: str = getattr(version, "text")  # noqa: B009
    if profile is None:
        profile = profile_for(
            getattr(version, "jurisdiction", None), getattr(version, "family", None)
        )
    marks = tuple(getattr(version, "structure", ())) if is_marked(version) else None
    return segment(version_id, text, profile, marks=marks, footnotes=footnotes, tables=tables)
