"""Read a version's own numbering into a tree, or refuse with a stated reason.

The section-label proxy (`segment.section_label`) reads whatever number opens a passage. The
structure parser reads the numbering the document itself declares:

* XML versions (USLM bills and laws, D.C. Council code, Federal Register): the `<num>` elements the
  extractor carried through as `StructureMark`s. A mark's unit runs from its label to the next mark
  at the same or a shallower element depth; its path is the chain of enclosing marks' labels.
* Paginated RFC-style text (IETF, NERC standards): headings at the start of a line with no
  indentation, `6.1.  Title` or `Appendix A.  Title`, and requirement labels `R1.`; table-of-
  contents lines (dot leaders or a trailing page number) are not headings. A dotted label nests
  under the nearest earlier unit whose label is its prefix (`6.1.2` under `6.1` under `6`); a
  requirement `R1.` restarts the numbering, so the `1.1` that follows it nests under it.
* Line-numbered bills (gutter line numbers 1..N on every page): gutter numbers are recognised as a
  run of lines whose leading integers count up by one, set aside, and statute sections such as
  `386.050.` are read from what remains.

Refusal codes, when the numbering cannot be read:

* `no_numbering` — no heading, section or mark at all;
* `inconsistent_numbering` — more than `INCONSISTENT_SHARE` of the dotted headings (and at least
  two) are neither the first child of the previous heading nor the next sibling of one of its
  ancestors;
* `gutter_ambiguous` — a gutter-numbered text in which no statute section can be told apart from
  the gutter numbers.

The guarantee: a refusal is never a path. `path_at` answers None for a refused parse and for text no
numbered unit covers, and callers must treat None as "unknown", never as "same section".
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field

from workbench.models import StructureMark, Version

INCONSISTENT_SHARE = 0.1
XML_MEDIA_TYPES = frozenset({"application/xml", "text/xml"})
MIN_GUTTER_RUN = 5

_HEADING = re.compile(
    r"(?P<label>(?:Appendix|APPENDIX|Annex)\s+[A-Z](?:\.\d+)*\.?|[A-Z]\.\d+(?:\.\d+)*\.?"
    r"|R\d+\.|\d+(?:\.\d+)+\.?|\d+\.)[ \t]+(?P<title>\S.*)"
)
_TOC_LINE = re.compile(r"(?:\.\s?){3,}\s*\d+\s*$|\S\s{2,}\d+\s*$")
_STATUTE = re.compile(r"(?P<label>\d{1,4}\.\d{2,4})\.\s")
_GUTTER = re.compile(r"(?P<n>\d{1,3})(?:[ \t]+|$)")
_LABEL_NOISE = re.compile(r"^(?:SECTION|Section|SEC\.|Sec\.|§+)\s*|[\s.]+$")


@dataclass(frozen=True, slots=True, kw_only=True)
class Unit:
    """One numbered unit: its own label, its path from the outermost unit, and its extent."""

    label: str
    path: tuple[str, ...]
    char_start: int
    char_end: int


@dataclass(frozen=True, slots=True, kw_only=True)
class StructureParse:
    """A version's numbering: units in text order, or the reason it could not be read."""

    version_id: str
    method: str  # "xml-marks", "headings", "statute-sections"
    refusal: str | None
    units: tuple[Unit, ...] = ()
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


def clean_label(label: str) -> str:
    """A label as a path element: "SEC. 2." -> "2", "§ 34-306" -> "34-306", "(a)" stays."""
    return _LABEL_NOISE.sub("", label.strip()) or label.strip()


def _finish(version_id: str, method: str, units: list[Unit], refusal: str | None) -> StructureParse:
    if refusal is None and not units:
        refusal = "no_numbering"
    units.sort(key=lambda u: (u.char_start, -u.char_end))
    return StructureParse(
        version_id=version_id,
        method=method,
        refusal=refusal,
        units=tuple(units) if refusal is None else (),
        _starts=tuple(u.char_start for u in units) if refusal is None else (),
    )


# ---------------------------------------------------------------------------------------------
# XML: the marks the extractor carried through


def _from_marks(version: Version) -> StructureParse:
    """Units from `<num>` marks: extent to the next mark at the same or a shallower depth."""
    marks: list[StructureMark] = sorted(version.structure, key=lambda m: m.char_start)
    units: list[Unit] = []
    stack: list[tuple[int, str, int]] = []  # (depth, label, index into units)
    text_end = len(version.text)
    for mark in marks:
        depth = len(mark.path)
        while stack and stack[-1][0] >= depth:
            closed = stack.pop()
            units[closed[2]] = _closed(units[closed[2]], mark.char_start)
        label = clean_label(mark.value or mark.label)
        path = (*(entry[1] for entry in stack), label)
        units.append(Unit(label=label, path=path, char_start=mark.char_start, char_end=text_end))
        stack.append((depth, label, len(units) - 1))
    return _finish(version.version_id, "xml-marks", units, None)


def _closed(unit: Unit, end: int) -> Unit:
    return Unit(label=unit.label, path=unit.path, char_start=unit.char_start, char_end=end)


# ---------------------------------------------------------------------------------------------
# Text: headings, requirement labels, statute sections


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
        match = _GUTTER.match(line)
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


def _dotted_parts(label: str) -> tuple[str, ...] | None:
    core = label.rstrip(".")
    if re.fullmatch(r"\d+(?:\.\d+)*", core):
        return tuple(core.split("."))
    return None


def _consistent(previous: tuple[str, ...] | None, current: tuple[str, ...]) -> bool:
    """True if `current` is the first child of `previous` or the next sibling of it or an ancestor."""
    if previous is None:
        return True
    if current == (*previous, "1"):
        return True
    for depth in range(len(previous), 0, -1):
        head, last = previous[: depth - 1], previous[depth - 1]
        if current == (*head, str(int(last) + 1)):
            return True
    return False


def _from_headings(version: Version) -> StructureParse:
    text = version.text
    gutter = gutter_line_starts(text)
    units: list[Unit] = []
    checked = inconsistent = 0
    previous_dotted: tuple[str, ...] | None = None
    open_paths: list[tuple[str, ...]] = []
    if gutter:
        method = "statute-sections"
        for start, line in _lines(text):
            content = line
            offset = start
            if start in gutter:
                match = _GUTTER.match(line)
                assert match is not None
                offset, content = start + match.end(), line[match.end() :]
            statute = _STATUTE.match(content)
            if statute:
                label = statute.group("label")
                units.append(
                    Unit(label=label, path=(label,), char_start=offset, char_end=len(text))
                )
        if not units:
            return _finish(version.version_id, method, [], "gutter_ambiguous")
    else:
        method = "headings"
        for start, line in _lines(text):
            match = _HEADING.fullmatch(line.rstrip())
            if not match or _TOC_LINE.search(line):
                continue
            label = clean_label(match.group("label"))
            dotted = _dotted_parts(match.group("label"))
            if re.fullmatch(r"R\d+", label):
                # A requirement restarts the dotted numbering under its own number (NERC: R1, 1.1).
                previous_dotted = (label[1:],)
            elif dotted is not None:
                checked += 1
                inconsistent += not _consistent(previous_dotted, dotted)
                previous_dotted = dotted
            while open_paths and not _is_prefix(open_paths[-1], label):
                open_paths.pop()
            path = (*open_paths[-1], label) if open_paths else (label,)
            open_paths.append(path)
            units.append(Unit(label=label, path=path, char_start=start, char_end=len(text)))
        if checked >= 2 and inconsistent > INCONSISTENT_SHARE * checked:
            return _finish(version.version_id, method, [], "inconsistent_numbering")
    # A unit ends where the next unit at its own depth or shallower begins.
    for k, unit in enumerate(units):
        for later in units[k + 1 :]:
            if len(later.path) <= len(unit.path):
                units[k] = _closed(unit, later.char_start)
                break
    return _finish(version.version_id, method, units, None)


def _is_prefix(parent: tuple[str, ...], label: str) -> bool:
    """A dotted label nests under a unit whose label is its dotted prefix ("6.1" under "6")."""
    own = parent[-1]
    return label.startswith(own + ".") or (own.startswith("R") and label.split(".")[0] == own[1:])


def parse_structure(version: Version) -> StructureParse:
    """The version's own numbering: an XML version's marks (none: `no_numbering`), else its text's."""
    if version.structure or version.media_type in XML_MEDIA_TYPES:
        return _from_marks(version)
    return _from_headings(version)
