"""The whole code's reconciliation kept in the workspace (C19), each piece under the key of what it
read, so a run after one more release equals a fresh one and reads again only what it touched."""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from workbench.amendments.enactment import Check, check_instruction, checked_with_later
from workbench.amendments.instructions import Instruction
from workbench.amendments.lawbook import LawBook, LawReport
from workbench.amendments.laws import NOTES_TABLE, HeldCode, HeldFact, LawFacts
from workbench.amendments.reconcile import Attribution
from workbench.amendments.stored_rows import (
    FIRSTS,
    LAW_COLUMNS,
    SCHEMA,
    SECTION_COLUMNS,
    LawRow,
    Pair,
    SectionHead,
    law_checks,
    parsed_list,
    typed_sections,
)
from workbench.amendments.style import DraftingStyle
from workbench.amendments.tally import Tally
from workbench.derived import code_digest, derived_key
from workbench.models import canonical_json, content_id
from workbench.text.profiles import Profile, registry, registry_digest
from workbench.workspace import Workspace


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
    `date` (what a whole section added without its number is looked for among), in one look-up.
    The chain is digested from the last entry back only as far as a look-up has asked (laws
    look for sections first released after them: the newest few)."""

    def __init__(self, code: HeldCode) -> None:
        self.entries = code.by_first_release()
        self.dates = [date for date, _, _ in self.entries]
        self.chain = [""]  # the digests from the last entry back: chain[-1] is the earliest made

    def since(self, date: str) -> str:
        start = bisect_left(self.dates, date)
        for k in range(len(self.entries) - len(self.chain), start - 1, -1):
            found, family, fact = self.entries[k]
            self.chain.append(content_id([self.chain[-1], found, family, *_fact(fact)]))
        return self.chain[len(self.entries) - start]


@dataclass(frozen=True, slots=True, kw_only=True)
class Moved:
    """What the versions held since the last stored run changed of what a check reads: the
    families given a version (`families`), the section numbers of the families first held
    since (`numbers`: one may now hold a number no family held, or come first of two that
    print it), whether some family's first dated release is one of them (`refirsted`), and the
    families held now (`held`)."""

    families: frozenset[str]
    numbers: frozenset[str]
    refirsted: bool
    held: frozenset[str]

    @classmethod
    def since(cls, code: HeldCode, admitted: Iterable[str]) -> Moved:
        """What the versions `admitted` (ids) moved of `code`."""
        new = set(admitted)
        families = frozenset(
            f for f, facts in code.families.items() if any(x.version_id in new for x in facts)
        )
        firsts = [code.first_sections[f] for f in families if code.families[f][0].version_id in new]
        return cls(
            families=families,
            numbers=frozenset(n for _, _, n in firsts if n is not None),
            refirsted=any(
                (dated := code.dated_facts(f)) and dated[0][1].version_id in new for f in families
            ),
            held=frozenset(code.families),
        )

    def touches(self, law: LawRow) -> bool:
        """Whether any check of `law` may read otherwise now."""
        return bool(
            law.families & self.families
            or law.sections & self.numbers
            or (law.firsts and self.refirsted)
            or not law.families <= self.held
        )


class StoredReconciliation:
    """The two tables of one workspace, read once; `write` stores what this run computed."""

    def __init__(self, workspace: Workspace, style: DraftingStyle, profile: Profile) -> None:
        self.workspace = workspace
        self.rules = rules(style, profile)
        tables = workspace.tables()
        self._old_laws = "reconcile_laws" in tables and _columns(
            workspace, "reconcile_laws"
        ) != list(LAW_COLUMNS)
        self.laws: dict[str, LawRow] = (
            {
                row[0]: law
                for row in workspace.read(f"SELECT {', '.join(LAW_COLUMNS)} FROM reconcile_laws")
                if (law := LawRow.of_row(row[1:])) is not None
            }
            if "reconcile_laws" in tables and not self._old_laws
            else {}
        )
        # A family's head is read from its columns; its attributions stay text until someone
        # asks for them.
        self._old_sections = "reconcile_sections" in tables and _columns(
            workspace, "reconcile_sections"
        ) != list(SECTION_COLUMNS)
        self.sections: dict[str, tuple[SectionHead, str, str]] = (
            {
                row[0]: (head, row[-2], row[-1])
                for row in workspace.read(typed_sections())
                if (head := SectionHead.of_row(row[1:-2])) is not None
            }
            if "reconcile_sections" in tables and not self._old_sections
            else {}
        )
        self.codified: dict[str, tuple[int, list[str]]] = (
            {
                act: (mark, versions)
                for act, kept_rules, mark, text in workspace.read(
                    "SELECT act, rules, watermark, versions FROM reconcile_codified"
                )
                if kept_rules == self.rules
                and type(mark) is int
                and (versions := parsed_list(text)) is not None
            }
            if "reconcile_codified" in tables
            else {}
        )
        self._laws: dict[str, LawRow] = {}
        # family -> (head, attributions text, pairs text) made this run, or None: the stored
        # one kept
        self._sections: dict[str, tuple[SectionHead, str, str] | None] = {}
        self._firsts: Firsts | None = None
        self._releases: dict[str, list[list[Any]]] = {}
        self.reused = {"instructions": 0, "sections": 0, "pairs": 0}
        # The families of the checks this run made otherwise than the stored rows state them,
        # before and after; None once a stored check could not be read (any may have moved).
        self._rechecked: set[str] | None = set()

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
            return [FIRSTS, effective, self.firsts(code).since(effective)]
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

    def known_facts(self) -> dict[str, tuple[str, LawFacts]]:
        """Each stored law's facts, under the artefact SHA-256 they were read from."""
        return {
            law: (r.artefact_sha256, LawFacts(version_id=law, effective=r.effective, act=r.act))
            for law, r in self.laws.items()
            if r.rules == self.rules
        }

    def known_sections(self) -> dict[str, tuple[str, str, str | None]]:
        """Each stored family's section number, under its first release's id and text hash."""
        return {
            family: head.first
            for family, (head, _, _) in self.sections.items()
            if head.rules == self.rules
        }

    def report(self, book: LawBook, law: str, moved: Moved | None = None) -> LawReport:
        """The law's report: its reading (`LawBook.reading`, kept apart) and, where its row's
        hashes hold, each stored check whose reads are unchanged and each other instruction
        checked again; else made now.
        Where `moved` (what the versions held since the last stored run changed) touches none
        of its checks' reads, its checks are taken as stored, their reads not stated again."""
        artefact_sha256, text_sha256 = book.hashes[law]
        effective = book.facts[law].effective
        row = self.laws.get(law)
        stored, untouched = None, False
        if (
            row is not None
            and row.rules == self.rules
            and row.artefact_sha256 == artefact_sha256
            and row.text_sha256 == text_sha256
            and row.effective == effective
        ):
            held, reading = book.reading(law)  # kept in the workspace: no law read again
            try:
                stored = LawReport(law=held, reading=reading, checks=law_checks(row, reading))
                untouched = moved is not None and not moved.touches(row)
                was = [] if untouched else [list(r) for r in json.loads(row.reads)]
            except (KeyError, TypeError, ValueError):
                stored = None
        if stored is not None and row is not None and untouched:
            self.reused["instructions"] += len(stored.checks)
            book.keep(stored)
            self._laws[law] = row
            return stored
        if stored is None or len(was) != len(stored.checks):
            report = book.report(law)
            self._laws[law] = LawRow.of(
                report, self.rules, self._law_reads(report, book.code, effective)
            )
            self._moved_checks(law, report.checks)
            return report
        checks, reads = [], []
        for ins, old, read in zip(stored.reading.instructions, stored.checks, was, strict=True):
            check = old
            # A whole section found among the families first released after the law reads none
            # of the others: where no family's first release is new, what it read stands.
            firsts_held = moved is not None and not moved.refirsted and read[:1] == [FIRSTS]
            now = read if firsts_held else self._reads(ins, check, book.code, effective)
            if now == read:
                self.reused["instructions"] += 1
            elif (later := _later(read, now)) is not None and (
                extended := checked_with_later(ins, check, book.code, later)
            ):
                check = extended
            else:
                check = check_instruction(ins, book.code, effective)
                now = self._reads(ins, check, book.code, effective)
            if check != old and self._rechecked is not None:
                self._rechecked.update(c.family for c in (old, check) if c.family)
            checks.append(check)
            reads.append(now)
        report = replace(stored, checks=tuple(checks))
        book.keep(report)
        self._laws[law] = (
            row if row is not None and reads == was else LawRow.of(report, self.rules, reads)
        )
        return report

    def _moved_checks(self, law: str, checks: Sequence[Check] = ()) -> None:
        """Note the families of `checks` (made now) and of the law's stored checks, all of them
        moved; where its stored row does not read back, any family may have."""
        if self._rechecked is None:
            return
        self._rechecked.update(c.family for c in checks if c.family)
        row = self.laws.get(law)
        if row is None:
            return
        try:
            kept = json.loads(row.record)["checks"]
            self._rechecked.update(f for e in kept if (f := Check.from_json(e["check"]).family))
        except (KeyError, TypeError, ValueError):
            self._rechecked = None

    def rechecked(self) -> frozenset[str] | None:
        """The families some check of this run reads otherwise than the stored run's did (made
        again and not equal, or of a law held then and not now, or now and not then), or None
        where a stored check did not read back. A family none of them names has the same
        checks in its release pairs as the stored run gave it."""
        for law in self.laws.keys() - self._laws.keys():
            self._moved_checks(law)
        return None if self._rechecked is None else frozenset(self._rechecked)

    def section(self, family: str, key: str) -> tuple[Tally, list[str], str] | None:
        """The family's stored tally, unreflected instructions and attributions (JSON text,
        checked against its SHA-256 and parsed only when asked for) under `key`, or None."""
        stored = self.sections.get(family)
        if stored is None:
            return None
        head, made, _ = stored
        if head.key != key or head.rules != self.rules or head.attributions_sha256 != _sha256(made):
            return None
        self.reused["sections"] += 1
        self._sections[family] = None  # kept as it is
        return head.tally, list(head.not_reflected), made

    def pairs(
        self, family: str, keys: Mapping[tuple[str, str], str]
    ) -> dict[tuple[str, str], Pair]:
        """The release pairs of `family` a stored run attributed under the pair keys `keys`
        holds for them now (`release_key`), by (before id, after id): each one's attributions, in
        the order that run made them, and its unreflected instructions. A family whose stored
        row is of other rules, or whose attributions are not the text its head's SHA-256 names,
        gives none."""
        stored = self.sections.get(family)
        if stored is None:
            return {}
        head, made, listed = stored
        if head.rules != self.rules or head.attributions_sha256 != _sha256(made):
            return {}
        try:
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
        head = SectionHead(
            key=key,
            rules=self.rules,
            first=first,
            not_reflected=tuple(i for *_, unreflected in pairs for i in unreflected),
            tally=tally,
            attributions_sha256=_sha256(made),
        )
        listed = canonical_json(
            [
                [before, after, key, list(unreflected)]
                for before, after, key, _, unreflected in pairs
            ]
        )
        self._sections[family] = (head, made, listed)
        return tally

    def write(
        self,
        notes: Mapping[str, tuple[str, int]] = {},
        codified: Mapping[str, tuple[int, Sequence[str]]] = {},
    ) -> None:
        """Store every record this run used or made, and drop those of laws and families no
        longer held, in one transaction (a sections table of an earlier layout is replaced);
        `notes`: where the releases read from their bytes this run begin their notes, by
        version id, under their key (`laws.HeldCode.notes_read`); `codified`: the releases
        whose notes credit each Act looked up this run (`laws.HeldCode.codified_read`)."""
        with self.workspace.transaction() as conn:
            if self._old_sections:
                conn.execute("DROP TABLE reconcile_sections")
            if self._old_laws:
                conn.execute("DROP TABLE reconcile_laws")
            for statement in SCHEMA:
                conn.execute(statement)
            conn.executemany(
                f"INSERT OR REPLACE INTO {NOTES_TABLE} VALUES (?, ?, ?)",
                [(version_id, key, end) for version_id, (key, end) in sorted(notes.items())],
            )
            conn.executemany(
                "INSERT OR REPLACE INTO reconcile_codified VALUES (?, ?, ?, ?)",
                [
                    (act, self.rules, mark, canonical_json(list(versions)))
                    for act, (mark, versions) in sorted(codified.items())
                ],
            )
            conn.executemany(
                "DELETE FROM reconcile_laws WHERE law = ?",
                [(law,) for law in self.laws if law not in self._laws],
            )
            conn.executemany(
                f"INSERT OR REPLACE INTO reconcile_laws VALUES "
                f"({', '.join('?' * len(LAW_COLUMNS))})",
                [(law, *row.row()) for law, row in self._laws.items() if self.laws.get(law) != row],
            )
            conn.executemany(
                "DELETE FROM reconcile_sections WHERE family = ?",
                [(family,) for family in self.sections if family not in self._sections],
            )
            conn.executemany(
                f"INSERT OR REPLACE INTO reconcile_sections VALUES "
                f"({', '.join('?' * len(SECTION_COLUMNS))})",
                [
                    (family, *made[0].row(), made[1], made[2])
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


def _later(read: Sequence[Any], now: Sequence[Any]) -> list[str] | None:
    """The version ids of the releases a check's reads gained after every release it read
    (its family's dated releases, stated by `_reads`, grew only at their end), or None where its
    reads moved otherwise (its target, its family, or a release it read)."""
    if len(read) != 3 or len(now) != 3 or read[:2] != now[:2]:
        return None
    was, held = read[2], now[2]
    if not isinstance(was, list) or not isinstance(held, list) or len(held) <= len(was):
        return None
    if held[: len(was)] != was:
        return None
    return [str(release[1]) for release in held[len(was) :]]


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _columns(workspace: Workspace, table: str) -> list[str]:
    return [str(row[1]) for row in workspace.read(f"PRAGMA table_info({table})")]
