"""The whole code's reconciliation kept in the workspace (C19), each piece under the key of what it
read, so a run after one more release equals a fresh one and reads again only what it touched."""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from workbench.amendments.enactment import Check, check_instruction
from workbench.amendments.instructions import Instruction, Reading, Unread
from workbench.amendments.lawbook import LawBook, LawReport
from workbench.amendments.laws import NOTES_TABLE, HeldCode, HeldFact, HeldLaw, LawFacts
from workbench.amendments.reconcile import Attribution
from workbench.amendments.style import DraftingStyle
from workbench.amendments.tally import Tally
from workbench.derived import code_digest, derived_key
from workbench.models import canonical_json, content_id
from workbench.text.profiles import Profile, registry, registry_digest
from workbench.workspace import Workspace

# A release pair a stored run attributed: its attributions and its unreflected instructions.
Pair = tuple[list[Attribution], list[str]]

_SECTION_COLUMNS = ("family", "key", "head", "attributions", "pairs")
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS reconcile_laws (law TEXT PRIMARY KEY, record TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS reconcile_sections (family TEXT PRIMARY KEY, key TEXT NOT NULL, "
    "head TEXT NOT NULL, attributions TEXT NOT NULL, pairs TEXT NOT NULL)",
    f"CREATE TABLE IF NOT EXISTS {NOTES_TABLE} (version_id TEXT PRIMARY KEY, key TEXT NOT NULL, "
    "body_end INTEGER NOT NULL) WITHOUT ROWID",
)


def rules(style: DraftingStyle, profile: Profile) -> str:
    """What every stored piece was computed under: the code, the style, the law profile and the
    shipped profile registry."""
    return derived_key(
        "reconcile-rules",
        [style.sha256, profile.name, profile.sha256, registry_digest(registry())],
        code_digest(),
    )


def _fact(fact: HeldFact) -> list[Any]:
    return [
        fact.version_id,
        fact.version_order,
        fact.text_sha256,
        fact.artefact_sha256,
        fact.extractor,
        fact.extractor_version,
    ]


class Firsts:
    """Every held section's first dated release, in (date, family) order, with a digest chained
    from the last: `since(date)` is the digest of every family first released on or after
    `date` (what a whole section added without its number is looked for among), in one look-up."""

    def __init__(self, code: HeldCode) -> None:
        entries = sorted(
            (held[0][0], family, held[0][1])
            for family in code.families
            if (held := code.dated_facts(family))
        )
        self.dates = [date for date, _, _ in entries]
        self.chain = [""] * (len(entries) + 1)
        for k in range(len(entries) - 1, -1, -1):
            date, family, fact = entries[k]
            self.chain[k] = content_id([self.chain[k + 1], date, family, *_fact(fact)])

    def since(self, date: str) -> str:
        return self.chain[bisect_left(self.dates, date)]


class StoredReconciliation:
    """The two tables of one workspace, read once; `write` stores what this run computed."""

    def __init__(self, workspace: Workspace, style: DraftingStyle, profile: Profile) -> None:
        self.workspace = workspace
        self.rules = rules(style, profile)
        tables = workspace.tables()
        self.laws = (
            _records(workspace.read("SELECT law, record FROM reconcile_laws"))
            if "reconcile_laws" in tables
            else {}
        )
        # A family's head is parsed; its attributions stay text until someone asks for them.
        self._old_sections = (
            "reconcile_sections" in tables
            and tuple(
                str(row[1]) for row in workspace.read("PRAGMA table_info(reconcile_sections)")
            )
            != _SECTION_COLUMNS
        )
        self.sections: dict[str, tuple[str, dict[str, Any], str, str]] = (
            {
                family: (key, head, made, pairs)
                for family, key, text, made, pairs in workspace.read(
                    "SELECT family, key, head, attributions, pairs FROM reconcile_sections"
                )
                if (head := _parsed(text)) is not None
            }
            if "reconcile_sections" in tables and not self._old_sections
            else {}
        )
        self._laws: dict[str, dict[str, Any]] = {}
        # family -> (key, head, attributions text, pairs text) made this run, or None: the
        # stored one kept
        self._sections: dict[str, tuple[str, dict[str, Any], str, str] | None] = {}
        self._firsts: Firsts | None = None
        self._releases: dict[str, list[list[Any]]] = {}
        self.reused = {"instructions": 0, "sections": 0, "pairs": 0}

    def firsts(self, code: HeldCode) -> Firsts:
        if self._firsts is None:
            self._firsts = Firsts(code)
        return self._firsts

    def _released(self, code: HeldCode, family: str) -> list[list[Any]]:
        """A family's dated releases as a check's reads state them, made once per run (every
        instruction naming the family reads the same list; nothing changes it)."""
        if family not in self._releases:
            self._releases[family] = [[d, *_fact(fact)] for d, fact in code.dated_facts(family)]
        return self._releases[family]

    def _reads(self, ins: Instruction, check: Check, code: HeldCode, effective: str) -> list[Any]:
        """What `enactment.check_instruction` read to give `check` (docs/amendments.md, "What a run keeps"), from the
        versions table alone."""
        target = ins.target
        whole = ins.action == "add_unit" and not target.path
        if target.document != "code":
            return []
        if whole and target.section is None:
            return ["first released on or after", effective, self.firsts(code).since(effective)]
        if target.section is None:
            return []
        family = code.by_section.get(target.section)
        if family is None:
            return [target.section, None]
        released = self._released(code, family)
        if check.outcome == "applied" and not whole:
            before = [r for r in released if r[0] < effective][-1:]
            released = [*before, *[r for r in released if r[0] >= effective][:1]]
        return [target.section, family, released]

    def _law_reads(self, report: LawReport, code: HeldCode, effective: str) -> list[Any]:
        return [
            self._reads(i, c, code, effective)
            for i, c in zip(report.reading.instructions, report.checks, strict=True)
        ]

    def _current(self, record: Mapping[str, Any] | None) -> bool:
        return record is not None and record.get("rules") == self.rules

    def known_facts(self) -> dict[str, tuple[str, LawFacts]]:
        """Each stored law's facts, under the artefact SHA-256 they were read from."""
        return {
            law: (
                r["artefact_sha256"],
                LawFacts(version_id=law, effective=r["effective"], act=r["act"]),
            )
            for law, r in self.laws.items()
            if self._current(r)
        }

    def known_sections(self) -> dict[str, tuple[str, str, str | None]]:
        """Each stored family's section number, under its first release's id and text hash."""
        return {
            family: (head["first"][0], head["first"][1], head["first"][2])
            for family, (_, head, _, _) in self.sections.items()
            if self._current(head)
        }

    def report(self, book: LawBook, law: str) -> LawReport:
        """The law's report: its stored reading where its hashes hold, with each stored check
        whose reads are unchanged and each other instruction checked again; else made now."""
        version = book.versions[law]
        effective = book.facts[law].effective
        record = self.laws.get(law)
        stored = None
        if (
            self._current(record)
            and record is not None
            and record["artefact_sha256"] == version.artefact_sha256
            and record["text_sha256"] == version.text_sha256
            and record["effective"] == effective
        ):
            try:
                stored = _report(record, book, law)
                was = [list(r) for r in record["reads"]]
            except (KeyError, TypeError, ValueError):
                stored = None
        if stored is None or len(was) != len(stored.checks):
            report = book.report(law)
            self._laws[law] = _law_record(report, self.rules) | {
                "reads": self._law_reads(report, book.code, effective)
            }
            return report
        checks, reads = [], []
        for ins, check, read in zip(stored.reading.instructions, stored.checks, was, strict=True):
            now = self._reads(ins, check, book.code, effective)
            if now == read:
                self.reused["instructions"] += 1
            else:
                check = check_instruction(ins, book.code, effective)
                now = self._reads(ins, check, book.code, effective)
            checks.append(check)
            reads.append(now)
        report = replace(stored, checks=tuple(checks))
        book.keep(report)
        self._laws[law] = (
            record
            if record is not None and reads == was
            else _law_record(report, self.rules) | {"reads": reads}
        )
        return report

    def section(self, family: str, key: str) -> tuple[Tally, list[str], str] | None:
        """The family's stored tally, unreflected instructions and attributions (JSON text,
        checked against its SHA-256 and parsed only when asked for) under `key`, or None."""
        stored = self.sections.get(family)
        if stored is None or stored[0] != key or not self._current(stored[1]):
            return None
        head, made = stored[1], stored[2]
        try:
            tally = Tally.from_json(head["tally"])
            unreflected = [str(i) for i in head["not_reflected"]]
            if head["attributions_sha256"] != _sha256(made):
                return None
        except (KeyError, TypeError, ValueError):
            return None
        self.reused["sections"] += 1
        self._sections[family] = None  # kept as it is
        return tally, unreflected, made

    def pairs(
        self, family: str, keys: Mapping[tuple[str, str], str]
    ) -> dict[tuple[str, str], Pair]:
        """The release pairs of `family` a stored run attributed under the pair keys `keys`
        holds for them now (`release_key`), by (before id, after id): each one's attributions, in
        the order that run made them, and its unreflected instructions. A family whose stored
        row is of other rules, or whose attributions are not the text its head's SHA-256 names,
        gives none."""
        stored = self.sections.get(family)
        if stored is None or not self._current(stored[1]):
            return {}
        head, made, listed = stored[1], stored[2], stored[3]
        try:
            if head["attributions_sha256"] != _sha256(made):
                return {}
            kept = {
                (str(before), str(after)): [str(i) for i in unreflected]
                for before, after, key, unreflected in json.loads(listed)
                if keys.get((before, after)) == key
            }
            found: dict[tuple[str, str], Pair] = {pair: ([], kept[pair]) for pair in kept}
            for item in json.loads(made):
                attribution = Attribution.from_json(item)
                pair = (attribution.before, attribution.after)
                if pair in found:
                    found[pair][0].append(attribution)
        except (KeyError, TypeError, ValueError):
            return {}
        self.reused["pairs"] += len(found)
        return found

    def keep_section(
        self,
        family: str,
        first: tuple[str, str, str | None],
        key: str,
        pairs: Sequence[tuple[str, str, str, Sequence[Attribution], Sequence[str]]],
    ) -> Tally:
        """Keep what this run made for the family, pair by pair in pair order: (before id,
        after id, pair key, attributions, unreflected instructions); returns its tally."""
        found = [a for *_, made, _ in pairs for a in made]
        tally = Tally.of(found)
        made = canonical_json([a.as_json() for a in found])
        head = {
            "rules": self.rules,
            "first": list(first),
            "not_reflected": [i for *_, unreflected in pairs for i in unreflected],
            "tally": tally.as_json(),
            "attributions_sha256": _sha256(made),
        }
        listed = canonical_json(
            [
                [before, after, key, list(unreflected)]
                for before, after, key, _, unreflected in pairs
            ]
        )
        self._sections[family] = (key, head, made, listed)
        return tally

    def write(self, notes: Mapping[str, tuple[str, int]] = {}) -> None:
        """Store every record this run used or made, and drop those of laws and families no
        longer held, in one transaction (a sections table of an earlier layout is replaced);
        `notes`: where the releases read from their bytes this run begin their notes, by
        version id, under their key (`laws.HeldCode.notes_read`)."""
        with self.workspace.transaction() as conn:
            if self._old_sections:
                conn.execute("DROP TABLE reconcile_sections")
            for statement in _SCHEMA:
                conn.execute(statement)
            conn.executemany(
                f"INSERT OR REPLACE INTO {NOTES_TABLE} VALUES (?, ?, ?)",
                [(version_id, key, end) for version_id, (key, end) in sorted(notes.items())],
            )
            conn.executemany(
                "DELETE FROM reconcile_laws WHERE law = ?",
                [(law,) for law in self.laws if law not in self._laws],
            )
            conn.executemany(
                "INSERT OR REPLACE INTO reconcile_laws VALUES (?, ?)",
                [
                    (law, canonical_json(record))
                    for law, record in self._laws.items()
                    if self.laws.get(law) != record
                ],
            )
            conn.executemany(
                "DELETE FROM reconcile_sections WHERE family = ?",
                [(family,) for family in self.sections if family not in self._sections],
            )
            conn.executemany(
                "INSERT OR REPLACE INTO reconcile_sections VALUES (?, ?, ?, ?, ?)",
                [
                    (family, made[0], canonical_json(made[1]), made[2], made[3])
                    for family, made in self._sections.items()
                    if made is not None
                ],
            )


def run_key(rules_key: str, held_acts: Iterable[str], act_citation: str) -> str:
    """What every family's attributions of one run read alike: the rules, the held laws' Act
    numbers and the style's Act citation, digested once for all its `section_key`s (each had
    sorted and written the run's Act numbers again)."""
    return derived_key("reconcile-run", [rules_key, sorted(held_acts), act_citation], code_digest())


def section_key(
    run: str,
    family: str,
    dated: Sequence[tuple[str, HeldFact]],
    origins: Mapping[str, str],
    checked: Mapping[tuple[str, str, str], Sequence[tuple[Instruction, Check]]],
) -> str:
    """The key of a family's attributions (docs/amendments.md, "What a run keeps"), under the run's `run_key`."""
    return derived_key(
        "reconcile-section",
        [
            run,
            family,
            [[d, *_fact(f), origins.get(f.version_id, "")] for d, f in dated],
            [
                [list(key), [[i.as_json(), c.as_json()] for i, c in pair]]
                for key, pair in sorted(checked.items())
            ],
        ],
        code_digest(),
    )


def release_key(
    run: str,
    family: str,
    before: tuple[str, HeldFact],
    after: tuple[str, HeldFact],
    origins: Mapping[str, str],
    checked: Sequence[tuple[Instruction, Check]],
) -> str:
    """The key of one release pair's attributions (docs/amendments.md, "What a run keeps"): what `reconcile` reads
    for that pair alone, under the run's `run_key`."""
    return derived_key(
        "reconcile-release",
        [
            run,
            family,
            [[d, *_fact(f), origins.get(f.version_id, "")] for d, f in (before, after)],
            [[i.as_json(), c.as_json()] for i, c in checked],
        ],
        code_digest(),
    )


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _parsed(text: Any) -> dict[str, Any] | None:
    """A stored JSON object, or None for anything else (treated as absent)."""
    try:
        record = json.loads(text)
    except (TypeError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _records(rows: Iterable[tuple[Any, ...]]) -> dict[str, dict[str, Any]]:
    return {str(name): record for name, text in rows if (record := _parsed(text)) is not None}


def _law_record(report: LawReport, rules_key: str) -> dict[str, Any]:
    law = report.law
    return {
        "rules": rules_key,
        "artefact_sha256": law.version.artefact_sha256,
        "text_sha256": law.version.text_sha256,
        "effective": law.effective,
        "act": law.act,
        "markup": [list(s) for s in law.markup],
        "quotations": [list(s) for s in law.quotations],
        "instructions": [
            {"instruction": i.as_json(), "check": c.as_json()}
            for i, c in zip(report.reading.instructions, report.checks, strict=True)
        ],
        "unread": [u.as_json() for u in report.reading.unread],
    }


def _report(record: Mapping[str, Any], book: LawBook, law: str) -> LawReport:
    """The report a law record holds, over the law's held version."""
    held = HeldLaw(
        version=book.versions[law],
        effective=record["effective"],
        act=record["act"],
        markup=tuple((a, b) for a, b in record["markup"]),
        quotations=tuple((a, b) for a, b in record["quotations"]),
    )
    pairs = [
        (Instruction.from_json(e["instruction"]), Check.from_json(e["check"]))
        for e in record["instructions"]
    ]
    reading = Reading(
        law=law,
        instructions=tuple(i for i, _ in pairs),
        unread=tuple(Unread.from_json(u) for u in record["unread"]),
    )
    return LawReport(law=held, reading=reading, checks=tuple(c for _, c in pairs))
