"""The diff reconciled with the laws: which instruction made each change (DESIGN.md C19).

Every held law of a jurisdiction is read (`amendments.read_instructions`) and each instruction
checked against its release pair (`enactment.check_instruction`). Then each release pair some
instruction was checked against is diffed (`diff_versions`, the diff every surface shows), and
every change of the pair is attributed, keyed by its change id:

* `made_by` — the instructions whose target unit, located in the release on either side, overlaps
  the change's passages on that side (every instruction of every held law effective in that gap:
  several laws may take effect between two releases). An instruction whose struck text the unit
  does not hold still made the change in its unit, and is named.
* `history` — no instruction accounts for it, and the after release's notes name a D.C. Act that
  its before release's notes do not, other than the held laws' own Acts (an emergency or temporary
  Act, not held): the change is attributed to those Acts.
* `unexplained` — neither: an editorial or codification change, shown as such.

Each attribution says whether the change lies wholly in the release's notes (history and
editor's notes below the last unit). An instruction whose located unit no change of its pair
touches is `not_reflected`. The diff never imports this module: a surface that shows `made_by`
is handed these records as data.

The guarantee: an instruction is named for a change only where its unit's extent, found by exact
lookup in that very release, overlaps the change's passages there.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from workbench.changes.diff import diff_versions
from workbench.errors import AmendmentError
from workbench.history.amendments import Instruction, Reading, read_instructions
from workbench.history.enactment import Check, check_instruction
from workbench.history.laws import HeldCode, HeldLaw, Release, held_law
from workbench.history.style import DraftingStyle, style_for
from workbench.models import CatalogueRow, Change, Span
from workbench.text.profiles import profile_for
from workbench.workspace import Workspace

AttributionKind = Literal["made_by", "history", "unexplained"]
ATTRIBUTION_KINDS: tuple[str, ...] = ("made_by", "history", "unexplained")


@dataclass(frozen=True, slots=True, kw_only=True)
class MadeBy:
    """An instruction named for a change: its law, the law's section and its sentence's offsets."""

    instruction_id: str
    law: str
    law_section: str
    char_start: int
    char_end: int
    occurrence: int

    def as_json(self) -> dict[str, Any]:
        return {
            "instruction_id": self.instruction_id,
            "law": self.law,
            "law_section": self.law_section,
            "char_start": self.char_start,
            "char_end": self.char_end,
            "occurrence": self.occurrence,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Attribution:
    """What accounts for one change of a release pair (see the module docstring)."""

    change_id: str
    kind: AttributionKind
    family: str
    before: str
    after: str
    in_notes: bool
    made_by: tuple[MadeBy, ...] = ()
    acts: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {
            "change_id": self.change_id,
            "kind": self.kind,
            "family": self.family,
            "before": self.before,
            "after": self.after,
            "in_notes": self.in_notes,
            "made_by": [m.as_json() for m in self.made_by],
            "acts": list(self.acts),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class LawReport:
    """One held law: its facts, its reading and a check per instruction (in the same order)."""

    law: HeldLaw
    reading: Reading
    checks: tuple[Check, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "law": self.law.version.version_id,
            "effective": self.law.effective,
            "act": self.law.act,
            "instructions": [
                {**i.as_json(), "check": c.as_json()}
                for i, c in zip(self.reading.instructions, self.checks, strict=True)
            ],
            "unread": [u.as_json() for u in self.reading.unread],
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class AmendmentReport:
    """Every held law of a jurisdiction read and checked, and each checked pair's changes
    attributed (`attributions`, keyed by change id); `not_reflected` lists the instruction ids
    whose unit no change of their pair touches."""

    jurisdiction: str
    style: DraftingStyle
    laws: tuple[LawReport, ...]
    attributions: Mapping[str, Attribution]
    not_reflected: tuple[str, ...]
    held_sections: frozenset[str]  # the Code sections whose releases are held

    def law(self, version_id: str) -> LawReport:
        for report in self.laws:
            if report.law.version.version_id == version_id:
                return report
        raise AmendmentError(
            f"{version_id}: not a held law of {self.jurisdiction}; expected one of "
            f"{', '.join(r.law.version.version_id for r in self.laws)}"
        )


def _overlaps(extent: tuple[int, int] | None, spans: Iterable[Span]) -> bool:
    return extent is not None and any(
        s.char_start < extent[1] and extent[0] < s.char_end for s in spans
    )


def _acts(release: Release, pattern: re.Pattern[str]) -> set[str]:
    notes = release.version.text[release.body_end :]
    return {m.group("number") for m in pattern.finditer(notes)}


def reconcile(
    pairs: Mapping[tuple[str, str, str], Sequence[tuple[Instruction, Check]]],
    code: HeldCode,
    *,
    held_acts: frozenset[str],
    act_citation: re.Pattern[str],
) -> tuple[dict[str, Attribution], tuple[str, ...]]:
    """Attribute every change of each (family, before id, after id) pair to the instructions
    checked against it (module docstring); returns (attributions by change id, not reflected)."""
    attributions: dict[str, Attribution] = {}
    not_reflected: list[str] = []
    for (family, before_id, after_id), checked in sorted(pairs.items()):
        releases = {r.version.version_id: r for r in code.releases(family)}
        before, after = releases[before_id], releases[after_id]
        changes: list[Change] = [
            c for c in diff_versions(before.version, after.version) if c.kind != "unchanged"
        ]
        new_acts = tuple(
            sorted(_acts(after, act_citation) - _acts(before, act_citation) - held_acts)
        )
        touched: set[str] = set()
        for change in changes:
            side_b = change.before_spans or ((change.before,) if change.before else ())
            side_a = change.after_spans or ((change.after,) if change.after else ())
            made = [
                (ins, check)
                for ins, check in checked
                if _overlaps(check.before.unit if check.before else None, side_b)
                or _overlaps(check.after.unit if check.after else None, side_a)
            ]
            touched.update(ins.instruction_id for ins, _ in made)
            in_notes = all(s.char_start >= before.body_end for s in side_b) and all(
                s.char_start >= after.body_end for s in side_a
            )
            kind: AttributionKind = "made_by" if made else "history" if new_acts else "unexplained"
            attributions[change.change_id] = Attribution(
                change_id=change.change_id,
                kind=kind,
                family=family,
                before=before_id,
                after=after_id,
                in_notes=in_notes,
                made_by=tuple(
                    MadeBy(
                        instruction_id=ins.instruction_id,
                        law=ins.law,
                        law_section=ins.law_section,
                        char_start=ins.char_start,
                        char_end=ins.char_end,
                        occurrence=ins.occurrence,
                    )
                    for ins, _ in made
                ),
                acts=new_acts if kind == "history" else (),
            )
        not_reflected.extend(
            ins.instruction_id
            for ins, check in checked
            if ins.instruction_id not in touched
            and ((check.before and check.before.unit) or (check.after and check.after.unit))
        )
    return attributions, tuple(not_reflected)


def amendment_report(
    workspace: Workspace,
    jurisdiction: str,
    rows: Iterable[CatalogueRow],
    store: Path,
) -> AmendmentReport:
    """Read and check every held law of `jurisdiction`, and reconcile every consecutive release
    pair of each Code section an instruction targets.

    Laws are the held families the jurisdiction's drafting style calls laws (`law_families`),
    in family order; each is read through the style and the jurisdiction's numbering profile.
    """
    style = style_for(jurisdiction)
    rows = tuple(rows)
    law_pattern = re.compile(style.law_families)
    versions = [
        v
        for v in workspace.versions()
        if v.jurisdiction == jurisdiction and law_pattern.search(v.family)
    ]
    code = HeldCode(
        workspace,
        jurisdiction,
        style,
        rows,
        store,
        law_families=frozenset(v.family for v in versions),
    )
    profile = profile_for(jurisdiction, None)
    reports = []
    pairs: dict[tuple[str, str, str], list[tuple[Instruction, Check]]] = defaultdict(list)
    targeted: set[str] = set()
    for version in versions:
        law = held_law(version, style, rows, store)
        reading = read_instructions(version, law.markup, law.quotations, style, profile)
        checks = tuple(check_instruction(i, code, law.effective) for i in reading.instructions)
        reports.append(LawReport(law=law, reading=reading, checks=checks))
        for ins, check in zip(reading.instructions, checks, strict=True):
            if check.family and check.before and check.after:
                key = (check.family, check.before.version_id, check.after.version_id)
                pairs[key].append((ins, check))
            elif check.family:
                targeted.add(check.family)
    # Every consecutive release pair of a targeted section is reconciled, laws in its gap or
    # not: a pair no held law took effect in shows what else changes the Code (Acts, editors).
    for family in sorted(targeted | {family for family, _, _ in pairs}):
        held = code.releases(family)
        for before, after in itertools.pairwise(held):
            pairs.setdefault((family, before.version.version_id, after.version.version_id), [])
    attributions, not_reflected = reconcile(
        pairs,
        code,
        held_acts=frozenset(r.law.act for r in reports if r.law.act),
        act_citation=re.compile(style.act_citation),
    )
    return AmendmentReport(
        jurisdiction=jurisdiction,
        style=style,
        laws=tuple(reports),
        attributions=attributions,
        not_reflected=not_reflected,
        held_sections=frozenset(code.by_section),
    )


def amendments(
    workspace: Workspace, version_id: str, rows: Iterable[CatalogueRow], store: Path
) -> AmendmentReport:
    """`amendment_report` for the jurisdiction of the held law `version_id`: refused first
    (`AmendmentError`, or `VersionNotFound`) when the version is not a held law, that is, when its
    family is not one the jurisdiction's drafting style calls a law."""
    version = workspace.version(version_id)
    style = style_for(version.jurisdiction)
    if not re.search(style.law_families, version.family):
        raise AmendmentError(
            f"{version_id}: family {version.family} is not a law of the {style.name} drafting "
            f"style (families matching {style.law_families!r}); expected a held law"
        )
    return amendment_report(workspace, version.jurisdiction, rows, store)


def _changes_by_instruction(report: AmendmentReport) -> dict[str, list[str]]:
    made: dict[str, list[str]] = defaultdict(list)
    for change_id, attribution in sorted(report.attributions.items()):
        for made_by in attribution.made_by:
            made[made_by.instruction_id].append(change_id)
    return made


def law_json(report: AmendmentReport, version_id: str) -> dict[str, Any]:
    """What `workbench amendments --json` prints for one law: its instructions, each with its
    check and the ids of the changes it made (`made_changes`) or `not_reflected`; its unread
    sentences; and the attributions of every change of the release pairs its instructions were
    checked against, keyed by change id."""
    law = report.law(version_id)
    made = _changes_by_instruction(report)
    reflected = set(report.not_reflected)
    pairs = {
        (c.family, c.before.version_id, c.after.version_id)
        for c in law.checks
        if c.family and c.before and c.after
    }
    shown = law.as_json()
    for entry in shown["instructions"]:
        entry["made_changes"] = made.get(entry["instruction_id"], [])
        entry["not_reflected"] = entry["instruction_id"] in reflected
    shown["style"] = report.style.as_json()
    shown["changes"] = {
        change_id: a.as_json()
        for change_id, a in sorted(report.attributions.items())
        if (a.family, a.before, a.after) in pairs
    }
    return shown


def law_lines(report: AmendmentReport, version_id: str) -> list[str]:
    """The listing `workbench amendments` prints for one law: a head line, then per instruction
    its law section, sentence offsets and occurrence, action, target and texts, and on a second
    line its outcome, release pair, why, and the changes it made."""
    law = report.law(version_id)
    made = _changes_by_instruction(report)
    reflected = set(report.not_reflected)
    act = f", D.C. Act {law.law.act}" if law.law.act else ""
    lines = [
        f"{version_id}: effective {law.law.effective}{act}; "
        f"{len(law.reading.instructions)} instructions, {len(law.reading.unread)} unread"
    ]
    for ins, check in zip(law.reading.instructions, law.checks, strict=True):
        texts = ""
        if ins.old_text is not None:
            texts = f" {ins.old_text!r} -> {ins.new_text!r} (count {ins.count})"
        elif ins.new_label is not None:
            texts = f" as {ins.new_label}"
        elif ins.new_lines:
            texts = f" {len(ins.new_lines)} quoted lines"
        lines.append(
            f"  {ins.law_section} [{ins.char_start}, {ins.char_end}) occurrence {ins.occurrence}: "
            f"{ins.action} {ins.target.citation()}{texts}"
        )
        pair = ""
        if check.before or check.after:
            ids = [f.version_id for f in (check.before, check.after) if f]
            pair = " " + " -> ".join(ids) + ";"
        changes = made.get(ins.instruction_id, [])
        tail = (
            f"; made {', '.join(changes)}"
            if changes
            else "; not reflected by any change"
            if ins.instruction_id in reflected
            else ""
        )
        lines.append(f"    {check.outcome}:{pair} {check.detail}{tail}")
    lines.extend(
        f"  unread {u.law_section} [{u.char_start}, {u.char_end}): {u.text}"
        for u in law.reading.unread
    )
    return lines
