"""The held laws of one jurisdiction, each read only when a verb needs it (C19): a release pair
reads the laws effective in its gap whose text names its section (`names_section`), exactly the laws
whose instructions reading every held law would check against it."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.amendments.enactment import Check, check_instruction
from workbench.amendments.instructions import Instruction, Reading
from workbench.amendments.laws import (
    Catalogued,
    HeldCode,
    HeldLaw,
    LawFacts,
    Release,
    by_path,
    code_families,
    law_facts,
)
from workbench.amendments.readings import kept_facts, law_reading, reading_key
from workbench.amendments.style import DraftingStyle, style_for
from workbench.models import CatalogueRow, Version
from workbench.progress import bar
from workbench.text.profiles import profile_for
from workbench.workspace import Workspace


@dataclass(frozen=True, slots=True, kw_only=True)
class LawReport:
    """One held law: its facts, its reading and a check per instruction (in the same order)."""

    law: HeldLaw
    reading: Reading
    checks: tuple[Check, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "law": self.law.version_id,
            "effective": self.law.effective,
            "act": self.law.act,
            "instructions": [
                {**i.as_json(), "check": c.as_json()}
                for i, c in zip(self.reading.instructions, self.checks, strict=True)
            ],
            "unread": [u.as_json() for u in self.reading.unread],
        }


@functools.cache
def _naming(section: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.-]){re.escape(section)}(?![\w-]|\.\d)")


def names_section(text: str, section: str) -> bool:
    """Whether `text` prints the section number `section` as a whole number: not preceded by
    a letter, digit, point or hyphen, and not followed by a letter, digit, hyphen, or a point
    and a digit ("34-1436" is not named by "§ 34-1436.01", and is by "section 34-1436.")."""
    return _naming(section).search(text) is not None


class HeldVersions(Mapping[str, Version]):
    """The held versions of the ids given, in their order, each loaded from the workspace at
    first use (a stored run reads again only the laws a release touched)."""

    def __init__(self, workspace: Workspace, version_ids: Sequence[str]) -> None:
        self._workspace = workspace
        self._ids = dict.fromkeys(version_ids)
        self._loaded: dict[str, Version] = {}

    def __getitem__(self, version_id: str) -> Version:
        if version_id not in self._ids:
            raise KeyError(version_id)
        if version_id not in self._loaded:
            self._loaded[version_id] = self._workspace.version(version_id)
        return self._loaded[version_id]

    def __contains__(self, version_id: object) -> bool:
        return version_id in self._ids  # nothing loaded to say so

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)


class LawBook:
    """Every held law of `jurisdiction` (the families its drafting style calls laws, in family
    then version order) and the Code sections they amend (`code`), read at first use. `rows`:
    the catalogue, as rows read whole or as a `laws.Catalogued` (a workspace's `TableRows`, whose
    rows are read only where a law's or release's bytes are).

    Refused (`AmendmentError`) when no drafting style names the jurisdiction, or when a held
    law's bytes cannot be read for its facts (`laws.law_facts`).
    """

    def __init__(
        self,
        workspace: Workspace,
        jurisdiction: str,
        rows: Iterable[CatalogueRow] | Catalogued,
        store: Path,
        *,
        known: Mapping[str, tuple[str, LawFacts]] | None = None,
        sections: Mapping[str, tuple[str, str, str | None]] | None = None,
        codified: Mapping[str, tuple[int, Sequence[str]]] | None = None,
        progress: bool = False,
    ) -> None:
        self.jurisdiction = jurisdiction
        self.style: DraftingStyle = style_for(jurisdiction)
        self.profile = profile_for(jurisdiction, None)
        self.rows = by_path(rows)
        self.store = store
        pattern = self.style.law_families_pattern
        entries = list(self.rows.entries(jurisdiction))  # read once: laws, then Code sections
        candidates = sorted(
            (family, order, path) for family, order, path, _ in entries if pattern.search(family)
        )
        # Each held law's artefact and text SHA-256, by id: one query, no text read.
        self.hashes: dict[str, tuple[str, str]] = {
            version_id: (artefact, text)
            for version_id, artefact, text in workspace.read(
                "SELECT version_id, artefact_sha256, text_sha256 FROM versions "
                "WHERE version_id IN (SELECT value FROM json_each(?))",
                (json.dumps([path for _, _, path in candidates]),),
            )
        }
        self.versions = HeldVersions(
            workspace, [path for _, _, path in candidates if path in self.hashes]
        )
        # `known`: facts read before, each under the artefact SHA-256 of the bytes read; else
        # those of a reading the workspace keeps; else read from the law's bytes.
        seen = known or {}
        kept = kept_facts(
            workspace,
            {
                law: reading_key(self.hashes[law], self.style, self.profile)
                for law in self.versions
                if not (law in seen and seen[law][0] == self.hashes[law][0])
            },
        )
        self.facts: dict[str, LawFacts] = {
            law: seen[law][1]
            if law in seen and seen[law][0] == self.hashes[law][0]
            else kept[law]
            if law in kept
            else law_facts(self.versions[law], self.style, self.rows, store)
            for law in bar(self.versions, desc="law dates", unit="law", enabled=progress)
        }
        self.code = HeldCode(
            workspace,
            jurisdiction,
            self.style,
            self.rows,
            store,
            families=code_families(
                entries, {family for family, _, law in candidates if law in self.hashes}
            ),
            sections=sections,
            codified=codified,
            progress=progress,
        )
        self._readings: dict[str, tuple[HeldLaw, Reading]] = {}
        self._reports: dict[str, LawReport] = {}

    @property
    def held_acts(self) -> frozenset[str]:
        """The held laws' own D.C. Act numbers (a history note naming one names a held law)."""
        return frozenset(f.act for f in self.facts.values() if f.act)

    @property
    def reported(self) -> tuple[LawReport, ...]:
        """The reports made so far, in the book's law order."""
        return tuple(self._reports[law] for law in self.versions if law in self._reports)

    def reading(self, law: str) -> tuple[HeldLaw, Reading]:
        """The law's markup and quoted matter and its prose read into instructions, taken where
        the workspace keeps them, else read and kept (`readings.law_reading`); `KeyError` for a
        law the book does not hold."""
        if law not in self._readings:
            self._readings[law] = law_reading(
                self.code.workspace,
                self.versions,
                law,
                self.hashes[law],
                self.style,
                self.profile,
                self.rows,
                self.store,
            )
        return self._readings[law]

    def report(self, law: str) -> LawReport:
        """The law's reading with each instruction checked against its release pair."""
        if law not in self._reports:
            held, reading = self.reading(law)
            checks = tuple(
                check_instruction(i, self.code, held.effective) for i in reading.instructions
            )
            self._reports[law] = LawReport(law=held, reading=reading, checks=checks)
        return self._reports[law]

    def keep(self, report: LawReport) -> None:
        """Hold `report` as its law's (one made before from the same inputs: the caller checked
        that they are; `stored.py`), so `report` returns it and `reported` lists it."""
        self._reports[report.law.version_id] = report

    def names(self, law: str, section: str) -> bool:
        """Whether the law's held text prints the section number `section` (docs/amendments.md)."""
        return names_section(self.versions[law].text, section)

    def effective_between(self, family: str, after: str | None, until: str) -> tuple[str, ...]:
        """The held laws effective after the date `after` (None: at any date before) and on or
        before `until` whose text names `family`'s section number, in the book's order; none for
        a family that is not a held Code section."""
        section = self.code.section_of(family)
        if section is None:
            return ()
        return tuple(
            law
            for law, facts in self.facts.items()
            if (after is None or after < facts.effective)
            and facts.effective <= until
            and self.names(law, section)
        )

    def amending(self, law: str, family: str) -> tuple[Instruction, ...]:
        """The law's instructions whose target is `family`'s Code section (read, not checked)."""
        section = self.code.section_of(family)
        return tuple(
            i
            for i in self.reading(law)[1].instructions
            if section is not None and i.target.document == "code" and i.target.section == section
        )

    def checked_against(
        self, family: str, before: Release, after: Release
    ) -> Iterator[tuple[Instruction, Check]]:
        """Every instruction checked against the pair (`before`, `after`) of `family`, with its
        check: the instructions of the laws `effective_between` the two releases' dates."""
        key = (family, before.version.version_id, after.version.version_id)
        for law in self.effective_between(family, before.date, after.date):
            report = self.report(law)
            for ins, check in zip(report.reading.instructions, report.checks, strict=True):
                if (
                    check.before is not None
                    and check.after is not None
                    and (check.family, check.before.version_id, check.after.version_id) == key
                ):
                    yield ins, check
