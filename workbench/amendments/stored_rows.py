"""The stored reconciliation's typed rows (C19): a section family's head and a law's row, the
columns and schema of their tables, and the JSON text they keep, each read back as absent where a
column is not of its type."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from workbench.amendments.enactment import Check
from workbench.amendments.instructions import Reading
from workbench.amendments.lawbook import LawReport
from workbench.amendments.laws import NOTES_TABLE
from workbench.amendments.reconcile import ATTRIBUTION_KINDS, Attribution
from workbench.amendments.tally import Tally
from workbench.models import canonical_json

FIRSTS = "first released on or after"  # a check's read of the families first held after it
# A release pair a stored run attributed: its attributions and its unreflected instructions.
Pair = tuple[list[Attribution], list[str]]


@dataclass(frozen=True, slots=True, kw_only=True)
class SectionHead:
    """What a family's stored row states beside its attributions: the key it was kept under,
    the rules it was made by, its first release (id, text hash) and section number, its
    unreflected instructions, its tally and the SHA-256 of its attributions' JSON text."""

    key: str
    rules: str
    first: tuple[str, str, str | None]
    not_reflected: tuple[str, ...]
    tally: Tally
    attributions_sha256: str

    def row(self) -> tuple[Any, ...]:
        """The head's columns, in `_HEAD_COLUMNS` order."""
        t = self.tally
        return (
            self.key,
            self.rules,
            *self.first,
            canonical_json(list(self.not_reflected)),
            t.changes,
            t.pairs,
            *t.kinds,
            *t.in_notes,
            canonical_json(sorted(t.acts)),
            self.attributions_sha256,
        )

    @classmethod
    def of_row(cls, row: Sequence[Any]) -> SectionHead | None:
        """The head a row of `typed_sections` states (its columns' types checked there), or
        None where a list column does not parse (read as absent)."""
        kinds = len(ATTRIBUTION_KINDS)
        key, rules, first, sha, section, unreflected, changes, pairs, *rest = row
        counts, (acts, made_sha256) = rest[: 2 * kinds], rest[2 * kinds :]
        listed = [parsed_list(unreflected), parsed_list(acts)]
        if listed[0] is None or listed[1] is None:
            return None
        return cls(
            key=key,
            rules=rules,
            first=(first, sha, section),
            not_reflected=tuple(listed[0]),
            tally=Tally(
                changes, pairs, tuple(counts[:kinds]), tuple(counts[kinds:]), frozenset(listed[1])
            ),
            attributions_sha256=made_sha256,
        )


# A section's row: its key, what its head states as typed columns (the rules, its first release
# and number, its unreflected instructions, its tally: counts in `ATTRIBUTION_KINDS` order, then
# the Acts), the SHA-256 of its attributions, and its attributions and pairs as JSON text.
_TALLY_COLUMNS = (
    "changes",
    "pairs_attributed",
    *ATTRIBUTION_KINDS,
    *(f"{kind}_in_notes" for kind in ATTRIBUTION_KINDS),
    "acts",
)
_HEAD_COLUMNS = (
    "key",
    "rules",
    "first_version",
    "first_text_sha256",
    "section",
    "not_reflected",
    *_TALLY_COLUMNS,
    "attributions_sha256",
)
SECTION_COLUMNS = ("family", *_HEAD_COLUMNS, "attributions", "pairs")
_INTEGERS = frozenset(_TALLY_COLUMNS) - {"acts"}


def typed_sections() -> str:
    """The query of the rows of `reconcile_sections` whose every column is of its type (any
    other is read as absent): SQLite checks the types, row by row, not Python."""
    typed = [
        f"typeof({name}) IN ('text', 'null')"
        if name == "section"
        else f"typeof({name}) = '{'integer' if name in _INTEGERS else 'text'}'"
        for name in SECTION_COLUMNS
    ]
    return (
        f"SELECT {', '.join(SECTION_COLUMNS)} FROM reconcile_sections WHERE {' AND '.join(typed)}"
    )


# A law's row: what its record was read under, its facts, what its checks read (the families,
# the section numbers they looked up, whether the families first released after it), its
# checks, by instruction id (`record`, JSON; the reading is `readings.py`'s) and each check's
# reads (JSON).
LAW_COLUMNS = (
    "law",
    "rules",
    "artefact_sha256",
    "text_sha256",
    "effective",
    "act",
    "families",
    "sections",
    "firsts",
    "record",
    "reads",
)
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS reconcile_laws (law TEXT PRIMARY KEY, "
    + ", ".join(
        f"{name} {'INTEGER' if name == 'firsts' else 'TEXT'}{'' if name == 'act' else ' NOT NULL'}"
        for name in LAW_COLUMNS[1:]
    )
    + ")",
    "CREATE TABLE IF NOT EXISTS reconcile_sections (family TEXT PRIMARY KEY, "
    + ", ".join(
        f"{name} {'INTEGER' if name in _INTEGERS else 'TEXT'}"
        + ("" if name == "section" else " NOT NULL")
        for name in SECTION_COLUMNS[1:]
    )
    + ")",
    f"CREATE TABLE IF NOT EXISTS {NOTES_TABLE} (version_id TEXT PRIMARY KEY, key TEXT NOT NULL, "
    "body_end INTEGER NOT NULL) WITHOUT ROWID",
    # per Act a run looked up (`laws.HeldCode.codified_as`): the last version row held then and
    # the latest releases whose notes credited one of its sections, a JSON list of version ids
    "CREATE TABLE IF NOT EXISTS reconcile_codified (act TEXT PRIMARY KEY, rules TEXT NOT NULL, "
    "watermark INTEGER NOT NULL, versions TEXT NOT NULL) WITHOUT ROWID",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class LawRow:
    """A law's stored row (`LAW_COLUMNS`): `record` and `reads` stay JSON text until used."""

    rules: str
    artefact_sha256: str
    text_sha256: str
    effective: str
    act: str | None
    families: frozenset[str]
    sections: frozenset[str]
    firsts: bool
    record: str
    reads: str

    def row(self) -> tuple[Any, ...]:
        return (
            self.rules,
            self.artefact_sha256,
            self.text_sha256,
            self.effective,
            self.act,
            canonical_json(sorted(self.families)),
            canonical_json(sorted(self.sections)),
            int(self.firsts),
            self.record,
            self.reads,
        )

    @classmethod
    def of_row(cls, row: Sequence[Any]) -> LawRow | None:
        """The row's law, or None where a column is not of its type (read as absent)."""
        rules, artefact, text, effective, act, families, sections, firsts, record, reads = row
        texts = (rules, artefact, text, effective, families, sections, record, reads)
        if not all(isinstance(v, str) for v in texts) or not isinstance(act, str | None):
            return None
        listed = [parsed_list(families), parsed_list(sections)]
        if listed[0] is None or listed[1] is None or firsts not in (0, 1):
            return None
        return cls(
            rules=rules,
            artefact_sha256=artefact,
            text_sha256=text,
            effective=effective,
            act=act,
            families=frozenset(listed[0]),
            sections=frozenset(listed[1]),
            firsts=bool(firsts),
            record=record,
            reads=reads,
        )

    @classmethod
    def of(cls, report: LawReport, rules_key: str, reads: Sequence[Sequence[Any]]) -> LawRow:
        """The row of `report` made under `rules_key`, whose checks read `reads`."""
        law = report.law
        return cls(
            rules=rules_key,
            artefact_sha256=law.artefact_sha256,
            text_sha256=law.text_sha256,
            effective=law.effective,
            act=law.act,
            families=frozenset(r[1] for r in reads if len(r) == 3 and r[0] != FIRSTS),
            sections=frozenset(r[0] for r in reads if r and r[0] != FIRSTS),
            firsts=any(r and r[0] == FIRSTS for r in reads),
            record=canonical_json(_law_record(report)),
            reads=canonical_json([list(r) for r in reads]),
        )


def parsed_list(text: str) -> list[str] | None:
    """A stored JSON list of strings, or None for anything else."""
    if text == "[]":  # most sections' lists: nothing to parse
        return []
    try:
        found = json.loads(text)
    except ValueError:
        return None
    ok = isinstance(found, list) and all(isinstance(i, str) for i in found)
    return found if ok else None


def _law_record(report: LawReport) -> dict[str, Any]:
    """What a law's `record` column holds: each instruction's check, under the instruction's id
    (the reading itself is kept apart, `readings.py`)."""
    return {
        "checks": [
            {"instruction_id": i.instruction_id, "check": c.as_json()}
            for i, c in zip(report.reading.instructions, report.checks, strict=True)
        ]
    }


def law_checks(row: LawRow, reading: Reading) -> tuple[Check, ...]:
    """The checks a law's row holds, one per instruction of `reading` (the law's reading under
    the row's rules: `readings.law_reading`); `ValueError` where the row's checks are not of
    those instructions, in their order, and `KeyError` or `TypeError` where it is damaged."""
    checks = json.loads(row.record)["checks"]
    ids = [e["instruction_id"] for e in checks]
    if ids != [i.instruction_id for i in reading.instructions]:
        raise ValueError("the stored checks are not the reading's instructions")
    return tuple(Check.from_json(e["check"]) for e in checks)
