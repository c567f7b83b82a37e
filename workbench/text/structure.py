"""A version's own numbering read into a tree through a numbering profile, or refused with a reason
(C15): a refusal is never a path, and `path_at`'s None means unknown, never "same section". The
tree, consistency and refusal codes: docs/profiles.md, "The tree and its consistency"."""

from __future__ import annotations

import functools
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

from workbench.models import StructureMark, Version
from workbench.text import ordinals
from workbench.text.lines import LineReading, clean_label, read_lines
from workbench.text.profiles import Level, Profile, profile_for

INCONSISTENT_SHARE = 0.1
XML_MEDIA_TYPES = frozenset({"application/xml", "text/xml"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Unit:
    """One numbered unit: its own label, its path from the outermost unit, and its extent."""

    label: str
    path: tuple[str, ...]
    char_start: int
    char_end: int


@dataclass(frozen=True, slots=True, kw_only=True)
class StructureParse:
    """A version's numbering: units in text order, or the reason it could not be read.

    `checked` and `inconsistent` count the label steps the consistency rule looked at and the ones
    it found inconsistent (both 0 for XML marks, which are not checked). `profile` names the
    profile that read the text.
    """

    version_id: str
    method: str  # "xml-marks" or "labels"
    refusal: str | None
    profile: str = ""
    units: tuple[Unit, ...] = ()
    checked: int = 0
    inconsistent: int = 0
    _starts: tuple[int, ...] = field(default=(), repr=False)

    def path_at(self, char_offset: int) -> tuple[str, ...] | None:
        """Path of the innermost unit covering `char_offset`; None if refused or uncovered.

        Units are nested intervals sorted by start; the innermost cover is the last unit starting
        at or before the offset whose end is past it.
        """
        if self.refusal is not None:
            return None
        k = bisect_right(self._starts, char_offset) - 1
        while k >= 0:
            unit = self.units[k]
            if unit.char_start <= char_offset < unit.char_end:
                return unit.path
            k -= 1
        return None


def finish_parse(
    version_id: str,
    method: str,
    profile: str,
    units: list[Unit],
    refusal: str | None,
    checked: int = 0,
    inconsistent: int = 0,
) -> StructureParse:
    if refusal is None and not units:
        refusal = "no_numbering"
    units.sort(key=lambda u: (u.char_start, -u.char_end))
    kept = tuple(units) if refusal is None else ()
    return StructureParse(
        version_id=version_id,
        method=method,
        refusal=refusal,
        profile=profile,
        units=kept,
        checked=checked,
        inconsistent=inconsistent,
        _starts=tuple(u.char_start for u in kept),
    )


def _closed(unit: Unit, end: int) -> Unit:
    return Unit(label=unit.label, path=unit.path, char_start=unit.char_start, char_end=end)


def units_from_marks(marks: Sequence[StructureMark], text_end: int) -> list[Unit]:
    """Units from `<num>` marks: extent to the next mark at the same or a shallower depth."""
    units: list[Unit] = []
    stack: list[tuple[int, str, int]] = []  # (depth, label, index into units)
    for mark in sorted(marks, key=lambda m: m.char_start):
        depth = len(mark.path)
        while stack and stack[-1][0] >= depth:
            closed = stack.pop()
            units[closed[2]] = _closed(units[closed[2]], mark.char_start)
        label = clean_label(mark.value or mark.label)
        path = (*(entry[1] for entry in stack), label)
        units.append(Unit(label=label, path=path, char_start=mark.char_start, char_end=text_end))
        stack.append((depth, label, len(units) - 1))
    return units


def ordinal(component: str, sequence: str = "numeric") -> tuple[int, str] | None:
    """A label component's place in its sequence and its insertion suffix (`ordinals.ordinal`)."""
    return ordinals.ordinal(component, sequence)


def units_from_readings(
    readings: Sequence[LineReading],
    text_end: int,
    steps: list[ordinals.InconsistentStep] | None = None,
) -> tuple[list[Unit], int, int]:
    """Units nested by depth (docs/profiles.md), and (checked, inconsistent) steps.

    With `steps`, every inconsistent step is appended to it, with the label expected there
    (`ordinals.expected_label`): `workbench structure` lists them."""
    units: list[Unit] = []
    stack: list[
        tuple[tuple[int, int], tuple[str, ...], int, Level]
    ] = []  # depth, parts, unit, level
    last: dict[tuple[tuple[str, ...], str, int], tuple[int, str] | None] = {}
    last_label: dict[tuple[tuple[str, ...], str, int], str] = {}
    checked = inconsistent = 0
    labels: list[tuple[int, str, Level, tuple[int, int]]] = []
    for reading in readings:
        if reading.label is not None and reading.level is not None:
            labels.append((reading.label_start, reading.label, reading.level, reading.depth))
            labels.extend((i.label_start, i.label, i.level, i.depth) for i in reading.inner)
    for label_start, number, level, depth in labels:
        parts = tuple(number.split(".")) if level.dotted else (number,)
        while stack and (
            stack[-1][0] >= depth
            or (
                level.dotted
                and stack[-1][3].dotted
                and stack[-1][0][0] == depth[0]
                and parts[: len(stack[-1][1])] != stack[-1][1]
            )
        ):
            closed = stack.pop()
            units[closed[2]] = _closed(units[closed[2]], label_start)
        parent = units[stack[-1][2]].path if stack else ()
        if level.sequence != "none":
            # A level numbered through the text counts on across its parents (`counts`).
            # A number with a letter prefix counts in its prefix's run (`ordinals.run_of`).
            run = ordinals.run_of(parts[-1], level.sequence)
            key = (() if level.through else parent, f"{level.name}\n{run}", len(parts))
            current = ordinal(parts[-1], level.sequence)
            checked += 1
            consistent = ordinals.step_consistent(last.get(key), current)
            inconsistent += not consistent
            if not consistent and steps is not None:
                steps.append(
                    ordinals.inconsistent_step(
                        char_start=label_start,
                        level=level.name,
                        label=number,
                        previous=last_label.get(key),
                        sequence=level.sequence,
                        dotted=level.dotted,
                    )
                )
            last[key] = current
            last_label[key] = number
        path = (*parent, number)
        units.append(Unit(label=number, path=path, char_start=label_start, char_end=text_end))
        stack.append((depth, parts, len(units) - 1, level))
    return units, checked, inconsistent


@functools.lru_cache(maxsize=64)
def _read_text(
    text: str, profile: Profile
) -> tuple[tuple[LineReading, ...], tuple[Unit, ...], int, int]:
    """Cached line reading and tree of one text under one profile (measure reads each twice)."""
    readings = read_lines(text, profile)
    units, checked, inconsistent = units_from_readings(readings, len(text))
    return readings, tuple(units), checked, inconsistent


def read_text(text: str, profile: Profile) -> tuple[LineReading, ...]:
    """`read_lines`, cached per (text, profile)."""
    return _read_text(text, profile)[0]


def parse_text(version_id: str, text: str, profile: Profile) -> StructureParse:
    """The numbering of a text version read through `profile` (no marks)."""
    readings, units, checked, inconsistent = _read_text(text, profile)
    refusal = None
    if checked >= 2 and inconsistent > INCONSISTENT_SHARE * checked:
        refusal = "inconsistent_numbering"
    elif not units and profile.gutter and any(r.label_start != r.char_start for r in readings):
        refusal = "gutter_ambiguous"
    return finish_parse(
        version_id, "labels", profile.name, list(units), refusal, checked, inconsistent
    )


def is_marked(version: object) -> bool:
    """True if a version's numbering comes from its extractor's marks (an XML version)."""
    return bool(getattr(version, "structure", ())) or (
        getattr(version, "media_type", "") in XML_MEDIA_TYPES
    )


def parse_structure(version: Version, profile: Profile | None = None) -> StructureParse:
    """The version's own numbering: an XML version's marks (none: `no_numbering`), else its text's
    read through `profile` (default: the shipped profile naming its jurisdiction, else generic)."""
    if profile is None:
        profile = profile_for(version.jurisdiction, version.family)
    if is_marked(version):
        units = units_from_marks(version.structure, len(version.text))
        return finish_parse(version.version_id, "xml-marks", profile.name, units, None)
    return parse_text(version.version_id, version.text, profile)
