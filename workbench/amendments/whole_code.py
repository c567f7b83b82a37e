"""The whole code reconciled (C19, `workbench reconcile`): every release pair of every held Code
section, each change attributed by `reconcile`'s rule and kept with its Code title."""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from workbench.amendments.diffs import KeptDiffs
from workbench.amendments.enactment import Check
from workbench.amendments.instructions import Instruction
from workbench.amendments.lawbook import LawBook, LawReport
from workbench.amendments.laws import Catalogued, HeldCode
from workbench.amendments.reconcile import Attribution, reconcile
from workbench.amendments.store import (
    Moved,
    StoredReconciliation,
    release_key,
    run_key,
    section_key,
)
from workbench.amendments.style import style_for
from workbench.amendments.tally import Tally
from workbench.derived import DerivedState
from workbench.errors import AmendmentError
from workbench.models import CatalogueRow
from workbench.progress import bar
from workbench.text.normalize import load_array_pass
from workbench.text.profiles import profile_for
from workbench.workspace import Workspace

NOT_THE_CODE = "(not the Code)"  # the title of an instruction whose target is not a Code section


def title_of(section: str | None) -> str:
    """A Code section number's title: the text before its first hyphen ("34-1432" is title 34,
    "28:1-101" title 28:1); `NOT_THE_CODE` for None."""
    return NOT_THE_CODE if section is None else section.split("-", 1)[0]


@dataclass(frozen=True, slots=True, kw_only=True)
class CodeReconciliation:
    """Every held law read and checked (`laws`), every change of every consecutive release pair
    of every held Code section attributed (`attributions`, by change id), the instructions no
    change of their pair touches (`not_reflected`), each section family's number (`sections`)
    and the families some instruction targets (`targeted`); `reused`, how many laws and
    sections a stored run took from the workspace (not part of what it found). A report needs
    only each family's `tallies`; the attributions a stored run took from the workspace are
    parsed when first asked for (`Attributions`)."""

    jurisdiction: str
    laws: tuple[LawReport, ...]
    attributions: Mapping[str, Attribution]
    tallies: Mapping[str, Tally]  # family -> the tally of its attributions (`tally.py`)
    not_reflected: tuple[str, ...]
    sections: Mapping[str, str]  # family -> its Code section number
    targeted: frozenset[str]
    pairs: int
    reused: Mapping[str, int] = field(default_factory=dict, compare=False)

    def instructions(self) -> Iterable[tuple[Instruction, Check]]:
        """Every instruction of every law with its check, in law order, then text order."""
        for law in self.laws:
            yield from zip(law.reading.instructions, law.checks, strict=True)


RECONCILED = "reconciliation"  # the stored run's record in `derived.DerivedState`


def _touched(
    workspace: Workspace,
    jurisdiction: str,
    run: str,
    targeted: set[str],
    rechecked: frozenset[str] | None,
) -> set[str] | None:
    """The section families a stored run must key again, or None (all of them): those with a
    version admitted, or an origin recorded, since the last stored run's watermark, and those
    whose checks moved (`rechecked`: `StoredReconciliation.rechecked`), or, where that is not
    known, every family some instruction is checked against now or was then. None when there
    was no stored run, or it ran under another `run_key` (rules, held Acts, Act citation)."""
    kept = DerivedState(workspace).kept(RECONCILED, jurisdiction)
    if kept is None or kept.key != run or not isinstance(kept.value, dict):
        return None
    admitted = workspace.read(
        "SELECT family FROM versions WHERE rowid > ? AND jurisdiction = ?",
        (kept.watermark, jurisdiction),
    )
    recorded = workspace.read(
        "SELECT v.family FROM text_origins AS o JOIN versions AS v USING (version_id) "
        "WHERE o.rowid > ? AND v.jurisdiction = ?",
        (int(kept.value.get("origins", 0)), jurisdiction),
    )
    checked = (
        targeted | {str(family) for family in kept.value.get("targeted", ())}
        if rechecked is None
        else rechecked
    )
    return {family for (family,) in (*admitted, *recorded)} | checked


def _moved(workspace: Workspace, jurisdiction: str, code: HeldCode) -> Moved | None:
    """What the versions held since the last stored run's watermark moved of what a check
    reads, or None (everything) when there was no stored run."""
    state = DerivedState(workspace)
    kept = state.kept(RECONCILED, jurisdiction)
    return None if kept is None else Moved.since(code, state.admitted_since(kept.watermark))


def _origins_mark(workspace: Workspace) -> int:
    """The last origin record held (origins are appended, never changed)."""
    return int(workspace.read("SELECT coalesce(max(rowid), 0) FROM text_origins")[0][0])


class Attributions(Mapping[str, Attribution]):
    """Every change's attribution by change id, a family at a time in family order: those made
    this run, and those a stored run kept (JSON text, checked against its SHA-256 when the run
    took it: `StoredReconciliation.section`), parsed at first use."""

    def __init__(self) -> None:
        self._parts: list[Mapping[str, Attribution] | str] = []
        self._whole: dict[str, Attribution] | None = None

    def add(self, part: Mapping[str, Attribution] | str) -> None:
        self._parts.append(part)
        self._whole = None

    def _all(self) -> dict[str, Attribution]:
        if self._whole is None:
            whole: dict[str, Attribution] = {}
            for part in self._parts:
                if isinstance(part, str):
                    found = (Attribution.from_json(a) for a in json.loads(part))
                    whole.update((a.change_id, a) for a in found)
                else:
                    whole.update(part)
            self._whole = whole
        return self._whole

    def __getitem__(self, change_id: str) -> Attribution:
        return self._all()[change_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


def reconcile_code(
    workspace: Workspace,
    jurisdiction: str,
    rows: Iterable[CatalogueRow] | Catalogued,
    store: Path,
    *,
    stored: bool = False,
    progress: bool = False,
) -> CodeReconciliation:
    """Every held law of `jurisdiction` read and checked, and every consecutive release pair of
    every held Code section reconciled (docs/amendments.md).

    With `stored`, what an earlier run kept in the workspace is used wherever everything it was
    computed from is unchanged, and what this run computed is kept (`stored.py`): the result is
    the same, and after one more release only the laws and sections it touched are read again:
    a section with no version admitted and no origin recorded since the stored run's watermark,
    and no check of it made otherwise than the stored run made it, keeps its stored key without
    being keyed again (`derived.DerivedState`, kind "reconciliation").

    Refused (`AmendmentError`, one line): no drafting style names the jurisdiction; the
    workspace holds no law of it, or no Code section of it with releases.
    """
    load_array_pass()  # every section's releases are normalized: the array pass pays
    style = style_for(jurisdiction)
    kept = (
        StoredReconciliation(workspace, style, profile_for(jurisdiction, None)) if stored else None
    )
    book = LawBook(
        workspace,
        jurisdiction,
        rows,
        store,
        known=kept.known_facts() if kept else None,
        sections=kept.known_sections() if kept else None,
        codified=kept.codified if kept else None,
        progress=progress,
    )
    if not book.versions:
        raise AmendmentError(
            f"{workspace.path}: no held law of {jurisdiction} (families matching "
            f"{style.law_families!r}); admit and ingest the laws, e.g. with "
            "'workbench corpus add --from-git REPO --at-head'"
        )
    if not book.code.families:
        raise AmendmentError(
            f"{workspace.path}: no held Code section of {jurisdiction} (XML families with "
            "structure marks that are not laws); admit and ingest the Code's section files"
        )
    checked: dict[tuple[str, str, str], list[tuple[Instruction, Check]]] = defaultdict(list)
    targeted: set[str] = set()
    moved = _moved(workspace, jurisdiction, book.code) if kept else None
    for law in bar(book.versions, desc="laws", unit="law", enabled=progress):
        report = kept.report(book, law, moved) if kept else book.report(law)
        for ins, check in zip(report.reading.instructions, report.checks, strict=True):
            if check.family:
                targeted.add(check.family)
            if check.family and check.before and check.after:
                key = (check.family, check.before.version_id, check.after.version_id)
                checked[key].append((ins, check))
    attributions = Attributions()
    tallies: dict[str, Tally] = {}
    not_reflected: list[str] = []
    pairs = 0
    act_citation = book.style.act_citation_pattern
    held_acts = book.held_acts
    origins = workspace.origin_lines() if kept else {}
    diffs = KeptDiffs(workspace, jurisdiction)
    run = run_key(kept.rules, held_acts, book.style.act_citation) if kept else ""
    now_targeted = {family for family, _, _ in checked}
    touched = (
        _touched(workspace, jurisdiction, run, now_targeted, kept.rechecked()) if kept else None
    )
    for family in bar(
        sorted(book.code.families), desc="sections", unit="section", enabled=progress
    ):
        dated = book.code.dated_facts(family)
        keys = [
            (family, b.version_id, a.version_id) for (_, b), (_, a) in itertools.pairwise(dated)
        ]
        pairs += len(keys)
        here = {key: checked.get(key, []) for key in keys}
        if not kept:
            book.code.dated(family)  # every pair is attributed: its versions loaded in one query
            made, unreflected, _ = reconcile(
                here, book.code, held_acts=held_acts, act_citation=act_citation
            )
            attributions.add(made)
            not_reflected.extend(unreflected)
            tallies[family] = Tally.of(made.values())
            book.code.forget(family)
            continue
        # Nothing an untouched family was reconciled from has moved since: its key holds, unread.
        untouched = touched is not None and family not in touched and family in kept.sections
        family_key = (
            kept.sections[family][0].key
            if untouched
            else section_key(run, family, dated, origins, here)
        )
        found = kept.section(family, family_key)
        if found is not None:
            tallies[family], stored_unreflected, text = found
            attributions.add(text)
            not_reflected.extend(stored_unreflected)
            book.code.forget(family)
            continue
        if untouched:  # its stored record did not hold (damaged): keyed now
            family_key = section_key(run, family, dated, origins, here)
        # Pair by pair: a pair whose own key is unchanged is taken from the stored run (after one
        # more release, every pair but the new one), any other is attributed now.
        now = {
            (b[1].version_id, a[1].version_id): release_key(
                run, family, b, a, origins, here[(family, b[1].version_id, a[1].version_id)]
            )
            for b, a in itertools.pairwise(dated)
        }
        earlier = kept.pairs(family, now)
        # The pairs attributed now are read over the diffs `measure` kept, where those are theirs.
        new_pairs = [
            (
                book.code.release_by_id(family, b).version,
                book.code.release_by_id(family, a).version,
            )
            for _, b, a in sorted(here)
            if (b, a) not in earlier
        ]
        changes = diffs.of(family, new_pairs)
        made_pairs = []
        for key in sorted(here):
            pair = (key[1], key[2])
            if pair in earlier:
                found_here, unreflected_here = earlier[pair]
            else:
                made, unreflected, _ = reconcile(
                    {key: here[key]},
                    book.code,
                    held_acts=held_acts,
                    act_citation=act_citation,
                    changes=changes,
                )
                found_here, unreflected_here = list(made.values()), list(unreflected)
            attributions.add({a.change_id: a for a in found_here})
            not_reflected.extend(unreflected_here)
            made_pairs.append((*pair, now[pair], found_here, unreflected_here))
        tallies[family] = kept.keep_section(
            family, book.code.first_sections[family], family_key, made_pairs
        )
        book.code.forget(family)
    if kept:
        kept.write(book.code.notes_read, book.code.codified_read)
        DerivedState(workspace).keep(
            RECONCILED,
            jurisdiction,
            run,
            {"targeted": sorted(now_targeted), "origins": _origins_mark(workspace)},
        )
    sections = {family: section for section, family in book.code.by_section.items()}
    return CodeReconciliation(
        jurisdiction=jurisdiction,
        laws=book.reported,
        attributions=attributions,
        tallies=tallies,
        not_reflected=tuple(not_reflected),
        sections=sections,
        targeted=frozenset(targeted),
        pairs=pairs,
        reused=dict(kept.reused) if kept else {},
    )
