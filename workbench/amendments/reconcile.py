"""The diff reconciled with the laws (C19): which instruction made each change, else the Act a new
history note names, else unexplained; an instruction is named only where its located unit overlaps
the change. The rules and the pairs each verb chooses are in docs/amendments.md."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from workbench.amendments.enactment import Check
from workbench.amendments.instructions import Instruction
from workbench.amendments.lawbook import LawBook, LawReport
from workbench.amendments.laws import HeldCode, Release
from workbench.amendments.style import DraftingStyle, style_for
from workbench.bounds import BudgetedPattern
from workbench.changes.diff import diff_versions
from workbench.errors import AmendmentError
from workbench.models import CatalogueRow, Change, Span
from workbench.workspace import Workspace

if TYPE_CHECKING:
    import polars as pl

AttributionKind = Literal["made_by", "history", "unexplained"]
FRAME_CONTEXT_CHARS = 20  # unchanged characters `law_frame` keeps beside a change's marks
ATTRIBUTION_KINDS: tuple[str, ...] = ("made_by", "history", "unexplained")
_MADE_BY_FIELDS = ("instruction_id", "law", "law_section", "char_start", "char_end", "occurrence")


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

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MadeBy:
        return cls(**{name: data[name] for name in _MADE_BY_FIELDS})

    def line(self) -> str:
        """The law, its section and the sentence's offsets: an exact citation into the law."""
        return f"{self.law} {self.law_section} [{self.char_start}, {self.char_end})"


@dataclass(frozen=True, slots=True, kw_only=True)
class Attribution:
    """What accounts for one change of a release pair (docs/amendments.md)."""

    change_id: str
    kind: AttributionKind
    family: str
    before: str
    after: str
    in_notes: bool
    made_by: tuple[MadeBy, ...] = ()
    acts: tuple[str, ...] = ()

    @property
    def evidence_id(self) -> str:
        """The subject a share counts it under (`measure.rate`): its change."""
        return self.change_id

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

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Attribution:
        """The attribution `as_json` wrote."""
        return cls(
            change_id=data["change_id"],
            kind=data["kind"],
            family=data["family"],
            before=data["before"],
            after=data["after"],
            in_notes=data["in_notes"],
            made_by=tuple(MadeBy.from_json(m) for m in data["made_by"]),
            acts=tuple(data["acts"]),
        )

    def line(self) -> str:
        """One line for a listing or a page: who made the change, or that nothing here says."""
        notes = " (in the notes)" if self.in_notes else ""
        if self.kind == "made_by":
            return f"made by {'; '.join(m.line() for m in self.made_by)}{notes}"
        if self.kind == "history":
            acts = ", ".join(f"D.C. Act {a}" for a in self.acts)
            return f"history: {acts}, named in the new history note (not held){notes}"
        return f"unexplained: no held law's instruction, no new Act in the history note{notes}"


@dataclass(frozen=True, slots=True, kw_only=True)
class AmendmentReport:
    """The held laws read and checked (`laws`: every one, or those a verb needed), and each
    reconciled pair's changes attributed (`attributions`, keyed by change id; `changes`, the
    changes themselves); `not_reflected` lists the instruction ids whose unit no change of their
    pair touches."""

    jurisdiction: str
    style: DraftingStyle
    laws: tuple[LawReport, ...]
    attributions: Mapping[str, Attribution]
    not_reflected: tuple[str, ...]
    held_sections: frozenset[str]  # the Code sections whose releases are held
    changes: Mapping[str, Change] = field(default_factory=dict, repr=False)  # attributed ones

    def law(self, version_id: str) -> LawReport:
        for report in self.laws:
            if report.law.version_id == version_id:
                return report
        raise AmendmentError(
            f"{version_id}: not a held law of {self.jurisdiction}; expected one of "
            f"{', '.join(r.law.version_id for r in self.laws)}"
        )


def _overlaps(extent: tuple[int, int] | None, spans: Iterable[Span]) -> bool:
    return extent is not None and any(
        s.char_start < extent[1] and extent[0] < s.char_end for s in spans
    )


def _acts(release: Release, pattern: BudgetedPattern) -> set[str]:
    notes = release.version.text[release.body_end :]
    return {m.group("number") for m in pattern.finditer(notes)}


def reconcile(
    pairs: Mapping[tuple[str, str, str], Sequence[tuple[Instruction, Check]]],
    code: HeldCode,
    *,
    held_acts: frozenset[str],
    act_citation: BudgetedPattern,
    changes: Mapping[tuple[str, str], Sequence[Change]] | None = None,
) -> tuple[dict[str, Attribution], tuple[str, ...], dict[str, Change]]:
    """Attribute every change of each (family, before id, after id) pair to the instructions
    checked against it (docs/amendments.md); returns (attributions by change id, not reflected,
    the changes attributed by change id).

    `changes`, when given, holds pairs' diffs by (before id, after id), as a surface computed or
    the workspace kept them (`diffs.KeptDiffs`): those changes are attributed; a pair it does not
    hold is diffed here.
    """
    attributions: dict[str, Attribution] = {}
    not_reflected: list[str] = []
    attributed: dict[str, Change] = {}
    for (family, before_id, after_id), checked in sorted(pairs.items()):
        before = code.release_by_id(family, before_id)
        after = code.release_by_id(family, after_id)
        diffed = (changes or {}).get((before_id, after_id))
        if diffed is None:
            diffed = diff_versions(before.version, after.version)
        shown: list[Change] = [c for c in diffed if c.kind != "unchanged"]
        new_acts = tuple(
            sorted(_acts(after, act_citation) - _acts(before, act_citation) - held_acts)
        )
        touched: set[str] = set()
        for change in shown:
            attributed[change.change_id] = change
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
    return attributions, tuple(not_reflected), attributed


def _assembled(
    book: LawBook,
    keys: Iterable[tuple[str, str, str]],
    changes: Mapping[tuple[str, str], Sequence[Change]] | None = None,
) -> AmendmentReport:
    """The report over the release pairs `keys`: each pair's instructions (`checked_against`,
    which reads the laws it needs), its changes attributed, and every law the book read."""
    pairs = {
        (family, b, a): list(
            book.checked_against(
                family,
                book.code.release_by_id(family, b),
                book.code.release_by_id(family, a),
            )
        )
        for family, b, a in sorted(set(keys))
    }
    attributions, not_reflected, attributed = reconcile(
        pairs,
        book.code,
        held_acts=book.held_acts,
        act_citation=book.style.act_citation_pattern,
        changes=changes,
    )
    return AmendmentReport(
        jurisdiction=book.jurisdiction,
        style=book.style,
        laws=book.reported,
        attributions=attributions,
        not_reflected=not_reflected,
        held_sections=frozenset(book.code.by_section),
        changes=attributed,
    )


def _pair_keys(report: LawReport) -> set[tuple[str, str, str]]:
    return {
        (c.family, c.before.version_id, c.after.version_id)
        for c in report.checks
        if c.family and c.before and c.after
    }


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
    book = LawBook(workspace, jurisdiction, rows, store)
    keys: set[tuple[str, str, str]] = set()
    targeted: set[str] = set()
    for law in book.versions:
        report = book.report(law)
        keys |= _pair_keys(report)
        targeted.update(c.family for c in report.checks if c.family)
    # Every consecutive release pair of a targeted section is reconciled, laws in its gap or
    # not: a pair no held law took effect in shows what else changes the Code (Acts, editors).
    for family in sorted(targeted):
        for before, after in itertools.pairwise(book.code.dated(family)):
            keys.add((family, before[1].version_id, after[1].version_id))
    return _assembled(book, keys)


def _law_jurisdiction(workspace: Workspace, version_id: str) -> str:
    """The jurisdiction of the held law `version_id`; refused (`AmendmentError`, or
    `VersionNotFound`) when it is not a held law, that is, when its family is not one the
    jurisdiction's drafting style calls a law."""
    version = workspace.version(version_id)
    style = style_for(version.jurisdiction)
    if not style.law_families_pattern.search(version.family):
        raise AmendmentError(
            f"{version_id}: family {version.family} is not a law of the {style.name} drafting "
            f"style (families matching {style.law_families!r}); expected a held law"
        )
    return version.jurisdiction


def law_amendments(
    workspace: Workspace, version_id: str, rows: Iterable[CatalogueRow], store: Path
) -> AmendmentReport:
    """The held law `version_id` read and checked, and each release pair its instructions were
    checked against reconciled (with every instruction of the other laws effective in that gap:
    several laws may take effect between two releases). Refused first (`AmendmentError`, or
    `VersionNotFound`) when the version is not a held law."""
    book = LawBook(workspace, _law_jurisdiction(workspace, version_id), rows, store)
    return _assembled(book, _pair_keys(book.report(version_id)))


def family_amendments(
    workspace: Workspace,
    family: str,
    rows: Iterable[CatalogueRow],
    store: Path,
    *,
    changes: Mapping[tuple[str, str], Sequence[Change]] | None = None,
) -> AmendmentReport:
    """Every consecutive release pair of the Code section `family` reconciled, reading only
    the held laws whose text names its section (`LawBook.effective_between`).

    `changes`, when given, is the diff a surface shows, by (before id, after id): exactly those
    pairs are reconciled and those changes attributed, and each pair must be two consecutive
    dated releases of the family. Refused (`AmendmentError`): no drafting style names the
    family's jurisdiction; the family is not a held Code section; a pair of `changes` is not
    consecutive. `FamilyNotFound` for a family not held.
    """
    jurisdiction = workspace.versions(family)[0].jurisdiction
    book = LawBook(workspace, jurisdiction, rows, store)
    if book.code.section_of(family) is None:
        raise AmendmentError(
            f"{family}: not a Code section of {jurisdiction} whose releases are held; expected "
            f"one of {', '.join(sorted(book.code.by_section.values()))}"
        )
    consecutive = [
        (before[1].version_id, after[1].version_id)
        for before, after in itertools.pairwise(book.code.dated(family))
    ]
    for pair in changes or {}:
        if pair not in consecutive:
            raise AmendmentError(
                f"{pair[0]} -> {pair[1]}: not two consecutive dated releases of {family}; the "
                "laws are reconciled with the changes between consecutive releases"
            )
    chosen = consecutive if changes is None else list(changes)
    return _assembled(book, [(family, b, a) for b, a in chosen], changes)


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


def _spans(found: Iterable[tuple[int, int]]) -> str:
    return "; ".join(f"[{s}, {e})" for s, e in found)


def law_frame(report: AmendmentReport, version_id: str, workspace: Workspace) -> pl.DataFrame:
    """One law's instructions, each with its check, beside the changes it made (polars).

    One row per instruction and change it made (`made_by`), in the law's text order and then
    the diff's order; an instruction that made no change has one row, its change columns null.
    Columns: the instruction's `law_section`, its sentence's `char_start`/`char_end` in the law,
    `action`, `target` (its citation), `old_text`, `new_text`; the check's `outcome`, `before`
    and `after` releases, `struck_at` (the struck text's offsets in the before release's unit)
    and `inserted_at` (the inserted text's or quoted lines' offsets after), as "[s, e)" joined by
    "; "; `not_reflected`; the change's `change_id`, `change_kind` and `change` (its marked text,
    `[-removed-]{+added+}`, as `workbench diff` prints it with `FRAME_CONTEXT_CHARS` unchanged
    characters beside each mark).
    """
    import polars as pl

    from workbench.changes.redline import marked_text, redline

    law = report.law(version_id)
    made = _changes_by_instruction(report)
    reflected = set(report.not_reflected)
    order = {change_id: k for k, change_id in enumerate(report.changes)}
    held: dict[str, Any] = {}

    def text_of(change: Change) -> str:
        pair = report.attributions[change.change_id]
        for vid in {pair.before, pair.after} - held.keys():
            held[vid] = workspace.version(vid)
        shown = redline(change, held[pair.before], held[pair.after])
        return marked_text(shown, context=FRAME_CONTEXT_CHARS)

    rows = []
    for ins, check in zip(law.reading.instructions, law.checks, strict=True):
        base = {
            "law_section": ins.law_section,
            "char_start": ins.char_start,
            "char_end": ins.char_end,
            "action": ins.action,
            "target": ins.target.citation(),
            "old_text": ins.old_text,
            "new_text": ins.new_text,
            "outcome": check.outcome,
            "before": check.before.version_id if check.before else None,
            "after": check.after.version_id if check.after else None,
            "struck_at": _spans(check.before.old) if check.before else None,
            "inserted_at": _spans(check.after.new) if check.after else None,
            "not_reflected": ins.instruction_id in reflected,
        }
        ids = sorted(made.get(ins.instruction_id, []), key=order.__getitem__)
        changes: list[Change | None] = [report.changes[c] for c in ids]
        for change in changes or [None]:
            rows.append(
                base
                | {
                    "change_id": change.change_id if change else None,
                    "change_kind": change.kind if change else None,
                    "change": text_of(change) if change else None,
                }
            )
    text, number = pl.String, pl.Int64
    schema: dict[str, Any] = {
        "law_section": text,
        "char_start": number,
        "char_end": number,
        **{name: text for name in ("action", "target", "old_text", "new_text", "outcome")},
        **{name: text for name in ("before", "after", "struck_at", "inserted_at")},
        "not_reflected": pl.Boolean,
        **{name: text for name in ("change_id", "change_kind", "change")},
    }
    return pl.DataFrame(rows, schema=schema)
