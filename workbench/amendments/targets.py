"""Where an amendment instruction points (C19): its target composed from the law's words, the style
and the profile; a subject that cannot be placed is `unresolved`, never guessed."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from workbench.amendments.style import DraftingStyle
from workbench.text.profiles import Profile

TargetDocument = Literal["code", "law", "table_of_contents", "unresolved"]
Scope = Literal["unit", "lead_in", "heading"]

_LABEL = re.compile(r"\(([^()\s]+)\)")
_LAW_NUMBER = re.compile(r"\bD\.C\. Law (\d+-\d+)")
_UNIT_WORDS = (
    r"(?:[Tt]he |[Ee]xisting |[Nn]ewly designated |[Nn]ew |[Ss]econd |[Aa]mendatory )*"
    r"(?P<word>{words})s?"
    r'(?: designated as (?:(?:{words}) )?"?(?P<quoted>\([^()]+\))"?'
    r"| (?P<labels>\(.*\)|\S+(?: (?:and|through) \S+)?))"
)
_LEAD_IN = re.compile(r"(?:[Tt]he )?lead-in language(?: of (?P<rest>.+))?")
_HEADING = re.compile(
    r"(?:[Tt]he |[Aa] )?(?:amendatory )?(?:section )?heading(?: of (?P<rest>.+))?"
)
_TOC = re.compile(r"table of contents|(?:sub)?chapter heading|section designation")
_OF = re.compile(
    r"(?P<unit>(?:[Tt]he )?(?:sub-)*(?:sub)?(?:section|paragraph|subparagraph)s? \([^()\s]+\)"
    r"(?:\([^()\s]+\))*) of (?P<rest>.+)"
)
_LAW_SECTION = re.compile(
    r"(?:[Aa]mendatory )?[Ss]ection (?P<n>\d+[a-z]?)(?P<units>(?:\([^()\s]+\))*)"
)
_OWN_TITLE = re.compile(r"(?:Title|Chapter) \w+(?: of Title \w+)?")


# ---------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True, slots=True, kw_only=True)
class Target:
    """What an instruction amends.

    `document` is `code` (the Code: `section` its section number, or None where the sentence
    names only an act or a title the Code holds), `law` (an uncodified law: `section` the law's own
    section, `law` the law as the sentence names it), `table_of_contents` (a table of contents or a
    chapter heading: not a section's text) or `unresolved` (no unit the sentence names could be
    placed). `path` holds the unit labels below the section ("(c)", "(13)"); `scope` narrows the
    unit to its lead-in language or its section heading.
    """

    document: TargetDocument
    section: str | None = None
    path: tuple[str, ...] = ()
    scope: Scope = "unit"
    law: str | None = None
    gap_at: int | None = None

    def below(self, depth: int, labels: Sequence[str]) -> Target:
        """The unit `labels` names at `depth` (1: a subsection) inside this target's section.

        Where the enclosing target names fewer levels than `depth` implies ("Paragraph (4)" of a
        section, whose subsection the sentence does not say), `gap_at` marks where units the law
        leaves unstated may stand (none, if the section numbers its paragraphs directly)."""
        kept = self.path[: max(depth - 1, 0)]
        gap = len(kept) if len(kept) < depth - 1 else None
        return Target(
            document=self.document,
            section=self.section,
            path=(*kept, *labels),
            law=self.law,
            gap_at=gap,
        )

    def names(self, path: Sequence[str]) -> bool:
        """Whether a unit at `path` (labels below the section) is the one this target names: the
        same labels, or, across a gap, the stated labels before and after it with any between."""
        path = tuple(path)
        if self.gap_at is None:
            return path == self.path
        head, tail = self.path[: self.gap_at], self.path[self.gap_at :]
        return (
            len(path) >= len(self.path)
            and path[: len(head)] == head
            and path[len(path) - len(tail) :] == tail
        )

    def citation(self) -> str:
        """As a reader writes it: "§ 34-1432(c)(13)", "D.C. Law 24-314 § 3", "table of contents"."""
        shown = list(self.path)
        if self.gap_at is not None:
            shown.insert(self.gap_at, "…")  # units the law leaves unstated may stand here
        units = "".join(shown)
        where = f"§ {self.section}{units}" if self.section else units or "(no section named)"
        if self.document == "law":
            where = f"{self.law or 'a law'} {where}"
        elif self.document == "table_of_contents":
            where = f"table of contents ({where})"
        elif self.document == "unresolved":
            where = f"unresolved ({where})"
        return where if self.scope == "unit" else f"{where}, {self.scope.replace('_', '-')}"

    def as_json(self) -> dict[str, Any]:
        return {
            "document": self.document,
            "section": self.section,
            "path": list(self.path),
            "scope": self.scope,
            "law": self.law,
            "gap_at": self.gap_at,
            "citation": self.citation(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Target:
        """The target `as_json` wrote (its `citation` is derived, not read)."""
        return cls(
            document=data["document"],
            section=data["section"],
            path=tuple(data["path"]),
            scope=data["scope"],
            law=data["law"],
            gap_at=data["gap_at"],
        )


# ---------------------------------------------------------------------------------------------
# Targets


class Targets:
    """Turns a sentence's subject into targets, through the style's words and the profile."""

    def __init__(self, style: DraftingStyle, profile: Profile) -> None:
        self.style = style
        self.section_levels = [level for level in profile.levels if level.rank == 0]
        words = "|".join(sorted((re.escape(w) for w in style.units), key=len, reverse=True))
        self.unit_words = re.compile(_UNIT_WORDS.format(words=words), re.IGNORECASE)
        self.code_section = re.compile(
            r"(?:^|\b)[Ss]ections? (?P<n>\d+[A-Za-z]?-[\w.:-]*\w)(?P<units>(?:\([^()\s]+\))*)"
        )

    def section_number(self, candidate: str) -> str | None:
        """`candidate` read as a section number by the profile's section level, else None."""
        for level in self.section_levels:
            match = level.regex.fullmatch(f"§ {candidate}")
            if match and match.group("number"):
                return match.group("number")
        return None

    def code_cited(self, subject: str) -> Target | None:
        """The Code unit a subject cites ("D.C. Official Code § 34-1432(c)", "Section 25-112(i)")."""
        cite = self.style.code_citation.search(subject)
        if cite is not None:
            rest = subject[cite.end() :]
            number = re.match(r"[^\s(),;]+", rest)
            if number is not None:
                section = self.section_number(number.group(0).rstrip("."))
                after = rest[number.end() :]
                units = re.match(r"(?:\([^()\s]+\))*", after)
                labels = tuple(_LABEL.findall(units.group(0))) if units else ()
                if after[units.end() if units else 0 :].lstrip().startswith("et seq"):
                    return Target(document="code")
                if section is not None:
                    return Target(document="code", section=section, path=_parens(labels))
        match = self.code_section.search(subject)
        if match is not None:
            section = self.section_number(match.group("n"))
            if section is not None:
                return Target(
                    document="code",
                    section=section,
                    path=_parens(_LABEL.findall(match.group("units"))),
                )
        if self.style.code_of_pattern and self.style.code_of_pattern.search(subject):
            return Target(document="code")
        return None

    def resolve(self, subject: str | None, parent: Target | None) -> tuple[Target, ...]:
        """The targets a subject names (several for "Paragraphs (22) and (23)"), given the target
        of the enclosing "is amended as follows:" (`parent`). The order of the rules: a table of
        contents; a Code citation; lead-in language or a section heading (of the unit named after
        "of", else the parent); unit words with labels, inside the parent's section; a law's own
        section of a named act (an uncodified law) or of the parent law; the parent itself for an
        act's name; otherwise `unresolved`."""
        if subject is None:
            return (parent or Target(document="unresolved"),)
        subject = subject.strip()
        base = parent or Target(document="unresolved")
        if _TOC.search(subject):
            return (
                Target(
                    document="table_of_contents",
                    section=base.section,
                    path=base.path,
                    law=base.law,
                ),
            )
        cited = self.code_cited(subject)
        lead = _LEAD_IN.fullmatch(subject)
        heading = _HEADING.fullmatch(subject)
        if lead or heading:
            scope: Scope = "lead_in" if lead else "heading"
            rest = (lead or heading).group("rest")  # type: ignore[union-attr]
            inner = self.resolve(rest, parent) if rest else (base,)
            return tuple(
                Target(
                    document=t.document,
                    section=t.section,
                    path=t.path,
                    scope=scope,
                    law=t.law,
                    gap_at=t.gap_at,
                )
                for t in inner
            )
        if cited is not None:
            return (cited,)
        of = _OF.fullmatch(subject)
        if of is not None:
            # "Subsection (b) of the first section designated as section 47-1099.12": the unit
            # named first, inside the one named after "of".
            inner = self.resolve(of.group("rest"), parent)
            unit = self.unit_words.match(of.group("unit"))
            if unit is not None and inner[0].document != "unresolved":
                depth = self.style.units[unit.group("word").lower()]
                groups = label_groups(unit.group("labels") or unit.group("quoted") or "")
                if groups:
                    return tuple(inner[0].below(depth, group) for group in groups)
        words = self.unit_words.match(subject)
        if words is not None and words.group("word").lower() != "section":
            depth = self.style.units[words.group("word").lower()]
            listed = words.group("quoted") or words.group("labels") or ""
            groups = label_groups(listed)
            if groups and base.document != "unresolved":
                return tuple(base.below(depth, group) for group in groups)
            return (Target(document="unresolved", path=tuple(g[0] for g in groups if g)),)
        own = _LAW_SECTION.match(subject)
        law_number = _LAW_NUMBER.search(subject)
        names_act = law_number is not None or " Act" in subject
        if own is not None and (names_act or base.document == "law"):
            law = (
                f"D.C. Law {law_number.group(1)}"
                if law_number
                else (base.law if not names_act else subject)
            )
            return (
                Target(
                    document="law",
                    section=own.group("n"),
                    path=_parens(_LABEL.findall(own.group("units"))),
                    law=law,
                ),
            )
        if names_act:
            law = f"D.C. Law {law_number.group(1)}" if law_number else subject
            return (Target(document="law", law=law),)
        if _OWN_TITLE.fullmatch(subject) and base.document == "code":
            return (Target(document="code"),)
        return (Target(document="unresolved", path=base.path, law=base.law),)


def _parens(labels: Sequence[str]) -> tuple[str, ...]:
    return tuple(f"({label})" for label in labels)


def _range(first: str, last: str) -> list[str] | None:
    """The labels from `first` through `last` ("(I)".."(K)", "(RR)".."(WW)", "(4)".."(7)")."""
    a, b = first.strip("()"), last.strip("()")
    if a.isdigit() and b.isdigit() and int(a) <= int(b):
        return [f"({n})" for n in range(int(a), int(b) + 1)]
    same_shape = a.isalpha() and b.isalpha() and len(a) == len(b) and a.isupper() == b.isupper()
    if same_shape and len(set(a)) == len(set(b)) == 1 and ord(a[0]) <= ord(b[0]):
        return [f"({chr(c) * len(a)})" for c in range(ord(a[0]), ord(b[0]) + 1)]
    return None


def label_groups(listed: str) -> list[tuple[str, ...]]:
    """The units a list of labels names, one label path each: "(22) and (23)" -> [("(22)",),
    ("(23)",)]; "(d)(2)" -> [("(d)", "(2)")]; "(I) through (K)" -> (I), (J), (K); "8a" -> [("8a",)]."""
    parts = [p for p in re.split(r",? and |, |,$", listed.strip()) if p.strip()]
    groups: list[tuple[str, ...]] = []
    for part in parts:
        through = part.split(" through ")
        if len(through) == 2:
            expanded = _range(through[0].strip(), through[1].strip())
            if expanded is not None:
                groups.extend((label,) for label in expanded)
                continue
        labels = _LABEL.findall(part)
        if labels:
            groups.append(_parens(labels))
        elif part.strip():
            groups.append((part.strip().rstrip("."),))
    return groups
