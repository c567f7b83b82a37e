"""Score a structure parse's paths against the documents' own identifiers (C15): each truth unit
placed in the version's text, agreeing when the path the parse reads there ends with the unit's
chain of labels. The placing and the key rule are in docs/eval.md."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from workbench.models import StructureMark, Version
from workbench.text.induce import induce_profile
from workbench.text.profiles import Profile
from workbench.text.structure import (
    StructureParse,
    finish_parse,
    is_marked,
    parse_text,
    units_from_marks,
)

Rule = Literal["marks", "headings", "requirements"]
TITLE_WORDS = 4  # words of a title or text that follow the number on its line, to place a unit
CHAIN_JOIN = " › "  # how alignment_truth.py joins a unit's label chain


@dataclass(frozen=True, slots=True, kw_only=True)
class TruthUnit:
    """A unit as the truth script reads it: its label chain, heading and own text."""

    unit_id: str
    path: str
    heading: str
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Placed:
    """A truth unit placed in a version's text: where its label starts, and its chain of keys."""

    unit_id: str
    char_start: int
    chain: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Agreement:
    """How many placed units a parse reads the document's path for, of how many placed."""

    agree: int
    placed: int

    def __add__(self, other: Agreement) -> Agreement:
        return Agreement(agree=self.agree + other.agree, placed=self.placed + other.placed)


def label_key(label: str) -> str:
    """A label's key: its last word, without a trailing `.` or `:` and without the parentheses
    or brackets around it (`SEC. 2.` -> `2`, `(a)` -> `a`, as a USLM `value` writes it)."""
    words = label.split()
    return words[-1].rstrip(".:").strip("()[]") if words else ""


def _dotted_chain(number: str) -> tuple[str, ...]:
    parts = number.split(".")
    return tuple(".".join(parts[: k + 1]) for k in range(len(parts)))


def chain_of(rule: Rule, unit: TruthUnit) -> tuple[str, ...]:
    """The keys of the labels the document prints for `unit`, outermost first (docs/eval.md)."""
    if rule == "marks":
        return tuple(label_key(label) for label in unit.path.split(CHAIN_JOIN))
    if rule == "headings":
        return _dotted_chain(label_key(unit.unit_id))
    requirement, _, rest = unit.unit_id.partition(".")
    number = requirement.removeprefix("R")
    return (requirement, *(_dotted_chain(f"{number}.{rest}")[1:] if rest else ()))


def _first_words(text: str) -> str:
    return r"\s+".join(re.escape(w) for w in text.split()[:TITLE_WORDS])


def _line_starts(text: str, pattern: str, margin: bool) -> list[int]:
    indent = "" if margin else r"[ \t]*"
    return [m.start(1) for m in re.finditer(rf"(?m)^{indent}({pattern})", text)]


def locate(
    rule: Rule,
    text: str,
    units: Sequence[TruthUnit],
    marks: Sequence[StructureMark] = (),
) -> list[Placed]:
    """The truth units placed in `text` by `rule`, in the units' order; a unit placed
    nowhere, or in more than one place, is left out (the rules by kind: docs/eval.md)."""
    chains = [chain_of(rule, u) for u in units]
    unique = Counter(chains)
    placed = []
    if rule == "marks":
        marked: dict[tuple[str, ...], list[int]] = {}
        for marked_unit in units_from_marks(marks, len(text)):
            key = tuple(label_key(p) for p in marked_unit.path)
            marked.setdefault(key, []).append(marked_unit.char_start)
        for unit, chain in zip(units, chains, strict=True):
            starts = marked.get(chain, [])
            if unique[chain] == 1 and len(starts) == 1:
                placed.append(Placed(unit_id=unit.unit_id, char_start=starts[0], chain=chain))
        return placed
    for unit, chain in zip(units, chains, strict=True):
        if unique[chain] != 1:
            continue
        if rule == "headings":
            number = re.escape(unit.unit_id).replace(r"\ ", r"\s+")
            pattern = rf"{number}\.?\s+{_first_words(unit.heading)}"
            starts = _line_starts(text, pattern, margin=True)
        else:
            requirement, _, rest = unit.unit_id.partition(".")
            number = (
                f"{requirement}\\."
                if not rest
                else re.escape(f"{requirement.removeprefix('R')}.{rest}") + r"\.?"
            )
            starts = _line_starts(text, rf"{number}\s+{_first_words(unit.text)}", margin=False)
        if len(starts) == 1:
            placed.append(Placed(unit_id=unit.unit_id, char_start=starts[0], chain=chain))
    return placed


def agrees(path: tuple[str, ...] | None, chain: tuple[str, ...]) -> bool:
    """True if `path` ends with `chain`, key for key (None, a refused or uncovered path, never)."""
    if path is None or len(path) < len(chain):
        return False
    return tuple(label_key(p) for p in path[len(path) - len(chain) :]) == chain


def agreement(parse: StructureParse, placed: Sequence[Placed]) -> Agreement:
    """How many of the `placed` units `parse` reads the document's own path for."""
    return Agreement(
        agree=sum(agrees(parse.path_at(p.char_start), p.chain) for p in placed),
        placed=len(placed),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class FamilyScore:
    """A family's even versions scored three ways: the profile induced from its odd versions and
    the shipped profile, both reading the text, and the extractor's marks (XML versions)."""

    induced: Agreement
    shipped: Agreement
    marks: Agreement


def score_family(
    family: Sequence[Version],
    rule: Rule,
    truth_of: Callable[[Version], Sequence[TruthUnit]],
    shipped: Profile,
) -> FamilyScore | None:
    """Induce a profile from the family's versions of odd `version_order`, and score the paths it
    reads on the even ones against their own identifiers (`truth_of`, placed by `rule`); None when
    the family has no odd or no even version. Profiles read the text alone (an XML version's marks
    are scored apart, as `marks`), so the induced and the shipped profile are read alike."""
    odd = [v for v in family if v.version_order % 2 == 1]
    even = [v for v in family if v.version_order % 2 == 0]
    if not odd or not even:
        return None
    induced = induce_profile([v.text for v in odd]).profile()
    totals = [Agreement(agree=0, placed=0)] * 3
    for version in even:
        placed = locate(rule, version.text, truth_of(version), version.structure)
        if is_marked(version):
            units = units_from_marks(version.structure, len(version.text))
            marks = finish_parse(version.version_id, "xml-marks", "", units, None)
        else:
            marks = parse_text(version.version_id, version.text, shipped)
        parses = (
            parse_text(version.version_id, version.text, induced),
            parse_text(version.version_id, version.text, shipped),
            marks,
        )
        totals = [t + agreement(p, placed) for t, p in zip(totals, parses, strict=True)]
    return FamilyScore(induced=totals[0], shipped=totals[1], marks=totals[2])
