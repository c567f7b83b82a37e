"""Grades and the census (C9): a note's grade read off its header, the catalogue and the run ledger,
never stored; a ground held only with caveats is never graded top. Nothing here reads a document,
writes or gates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from workbench.errors import NoteError
from workbench.models import CatalogueRow
from workbench.notes.figures import unbound_percentages
from workbench.notes.ledger import Ledger, Run
from workbench.notes.note import (
    Note,
    catalogue_index,
    check_pointer,
    note_key,
    notes_in,
    parse_note,
    quotes_sha256,
)

EVIDENCE_FIELDS = ("validated_by", "validated_at")

Grade = Literal["floor", "middle", "top"]


@dataclass(frozen=True, slots=True, kw_only=True)
class NoteGrade:
    """A grade read off a note's header and the ledger, with why.

    `backing_run` is the confirmed run matching the pointer, the document's catalogued hash and
    the note's current quotes hash (the latest such run); None when the pointer has none behind it.
    `evidence_missing` lists the empty evidence fields of a validated note. `caveats` are the
    caveat kinds the backing run found on the note's quotes (sorted, each once).
    """

    note: Path
    grade: Grade
    pointer: str | None
    backing_run: int | None
    evidence_missing: tuple[str, ...]
    why: tuple[str, ...]
    last_run: Run | None
    caveats: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        """What `workbench grade --json` prints."""
        return {
            "note": str(self.note),
            "grade": self.grade,
            "pointer": self.pointer,
            "backing_run": self.backing_run,
            "evidence_missing": list(self.evidence_missing),
            "caveats": list(self.caveats),
            "why": list(self.why),
        }


def caveat_kinds(run: Run | None) -> tuple[str, ...]:
    """The caveat kinds a run found on its quotes (each quote entry's `caveats`, objects with a
    `kind`), sorted, each once; none for a run recorded before caveats existed."""
    if run is None:
        return ()
    kinds = {
        caveat["kind"]
        for quote in run.quotes
        for caveat in quote.get("caveats", ())
        if isinstance(caveat, dict) and isinstance(caveat.get("kind"), str)
    }
    return tuple(sorted(kinds))


def grade_note(note: Note, catalogue: Mapping[str, CatalogueRow], runs: Sequence[Run]) -> NoteGrade:
    """Grade a note: top when its status is validated (and it names who and when, else the
    missing field is listed), middle when it carries a pointer, floor otherwise. `runs` are the
    note's ledger rows."""
    check_pointer(note, catalogue)
    pointer = note.pointer
    current = quotes_sha256(note.quotes)
    why: list[str] = []
    backing: Run | None = None
    if pointer is not None:
        sha = catalogue[pointer].sha256
        backing = next(
            (
                r
                for r in reversed(runs)
                if r.outcome == "confirmed"
                and r.document == pointer
                and r.document_sha256 == sha
                and r.quotes_sha256 == current
            ),
            None,
        )
        if backing is not None:
            why.append(
                f"pointer {pointer} backed by run {backing.run} "
                f"({len(backing.quotes)} quotes confirmed at {backing.checked_at})"
            )
        else:
            older = [r.run for r in runs if r.outcome == "confirmed" and r.document == pointer]
            why.append(
                f"pointer {pointer}: evidence missing: no confirmed run matches the note's "
                f"current quotes (sha256 {current[:12]})"
                + (f"; confirmed runs for other quotes: {older}" if older else "")
            )
    missing = tuple(f for f in EVIDENCE_FIELDS if note.get(f) is None)
    caveats = caveat_kinds(backing)
    if caveats:
        why.append(f"quotes found only with caveats ({', '.join(caveats)}): never plainly verified")
    grade: Grade
    if note.status == "validated" and caveats:
        grade = "middle"
        why.insert(0, "status validated, but a caveated ground cannot make a top grade")
    elif note.status == "validated":
        grade = "top"
        why.insert(0, "status validated")
        if missing:
            why.append(f"evidence field missing: {', '.join(missing)}")
        else:
            why.append(f"validated by {note.get('validated_by')} at {note.get('validated_at')}")
    elif pointer is not None:
        grade = "middle"
    else:
        grade = "floor"
        why.append(f"no pointer (origin {note.get('origin')})")
        last = runs[-1] if runs else None
        if last is not None and last.outcome == "missing":
            gaps = sum(q["status"] != "found" for q in last.quotes)
            why.append(f"run {last.run} found {gaps} of {len(last.quotes)} quotes missing")
    return NoteGrade(
        note=note.path,
        grade=grade,
        pointer=pointer,
        backing_run=backing.run if backing else None,
        evidence_missing=missing if grade == "top" else (),
        why=tuple(why),
        last_run=runs[-1] if runs else None,
        caveats=caveats,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Census:
    """The state of a notes folder. `unreadable` holds the one-line error of each note whose
    header could not be read; such notes are counted nowhere else."""

    folder: Path
    grades: tuple[NoteGrade, ...]
    unreadable: tuple[str, ...]
    # (note, latest version) for each middle-grade note whose last run into the latest version of
    # its pointer's family (a recheck, or a check against it) found one of its quotes missing.
    gone_from_latest: tuple[tuple[Path, str], ...] = ()
    # (note, line, text) of each percentage in the prose of a fact-carrying note (one naming a
    # document or holding a quote) that is not a bound figure (`notes.figures`).
    unbound_figures: tuple[tuple[Path, int, str], ...] = ()

    def count(self, grade: Grade) -> int:
        return sum(g.grade == grade for g in self.grades)

    @property
    def top_missing_evidence(self) -> tuple[NoteGrade, ...]:
        return tuple(g for g in self.grades if g.grade == "top" and g.evidence_missing)

    @property
    def middle_without_run(self) -> tuple[NoteGrade, ...]:
        return tuple(g for g in self.grades if g.grade == "middle" and g.backing_run is None)

    @property
    def caveated(self) -> tuple[NoteGrade, ...]:
        return tuple(g for g in self.grades if g.caveats)

    @property
    def floor_with_gaps(self) -> tuple[NoteGrade, ...]:
        return tuple(
            g
            for g in self.grades
            if g.grade == "floor" and g.last_run is not None and g.last_run.outcome == "missing"
        )

    def lines(self) -> tuple[str, ...]:
        """The printout, in a fixed order; notes listed by path. The lines on notes grounded only
        with caveats, on middle-grade notes whose quote the latest version no longer holds, and
        on unreadable headers, are printed only when they count something."""
        out = [f"census of {self.folder}: {len(self.grades) + len(self.unreadable)} notes"]
        out += [f"  {grade}: {self.count(grade)}" for grade in ("top", "middle", "floor")]
        out.append(f"top-grade notes missing an evidence field: {len(self.top_missing_evidence)}")
        out += [f"  {g.note}: {', '.join(g.evidence_missing)}" for g in self.top_missing_evidence]
        out.append(
            "middle-grade pointers with no recorded run behind them (evidence missing): "
            f"{len(self.middle_without_run)}"
        )
        out += [f"  {g.note} -> {g.pointer}" for g in self.middle_without_run]
        out.append(
            f"floor notes whose last check found quotes missing: {len(self.floor_with_gaps)}"
        )
        out += [f"  {g.note}" for g in self.floor_with_gaps]
        if self.caveated:
            out.append(
                "notes whose quotes were found only with caveats (never plainly verified; never "
                f"top): {len(self.caveated)}"
            )
            out += [f"  {g.note}: {', '.join(g.caveats)}" for g in self.caveated]
        if self.gone_from_latest:
            out.append(
                "middle-grade notes whose quote the latest version of their document no longer "
                f"holds, by their last recheck: {len(self.gone_from_latest)}"
            )
            out += [f"  {note} -> {latest}" for note, latest in self.gone_from_latest]
        if self.unbound_figures:
            out.append(
                "figures (percentages) in fact-carrying notes that name no measurement: "
                f"{len(self.unbound_figures)}"
            )
            out += [f"  {note}: line {line}: {text}" for note, line, text in self.unbound_figures]
        if self.unreadable:
            out.append(f"notes whose header could not be read: {len(self.unreadable)}")
            out += [f"  {line}" for line in self.unreadable]
        return tuple(out)


def latest_in_family(catalogue: Mapping[str, CatalogueRow], path: str) -> str:
    """The catalogue path of the latest version (highest version order; on a tie, the greatest
    path) of the jurisdiction and family that catalogue path `path` belongs to."""
    row = catalogue[path]
    kin = [
        r
        for r in catalogue.values()
        if (r.jurisdiction, r.family) == (row.jurisdiction, row.family)
    ]
    return max(kin, key=lambda r: (r.version_order, r.path)).path


def gone_from_latest(
    grade: NoteGrade, catalogue: Mapping[str, CatalogueRow], runs: Sequence[Run]
) -> str | None:
    """The latest version of a middle-grade note's family when the note's last run into it found a
    quote missing (the quote is gone there, by that run), else None. A note pointing at the latest
    version is never listed: its own check is that run."""
    if grade.grade != "middle" or grade.pointer is None:
        return None
    latest = latest_in_family(catalogue, grade.pointer)
    if latest == grade.pointer:
        return None
    last = next((r for r in reversed(runs) if r.document == latest), None)
    if last is None or not any(q["status"] == "missing" for q in last.quotes):
        return None
    return latest


def census(folder: Path, *, corpus_dir: Path, ledger: Ledger) -> Census:
    """Grade every note in `folder` (see `notes_in`). Runs no check and writes nothing."""
    catalogue = catalogue_index(corpus_dir)
    grades: list[NoteGrade] = []
    unreadable: list[str] = []
    gone: list[tuple[Path, str]] = []
    unbound: list[tuple[Path, int, str]] = []
    for path in notes_in(folder):
        try:
            note = parse_note(path)
            runs = ledger.runs(note_key(path))
            grades.append(grade_note(note, catalogue, runs))
        except NoteError as exc:
            unreadable.append(str(exc))
            continue
        if note.get("document") is not None or note.quotes:
            unbound += [(path, line, text) for line, text in unbound_percentages(note)]
        latest = gone_from_latest(grades[-1], catalogue, runs)
        if latest is not None:
            gone.append((path, latest))
    return Census(
        folder=folder,
        grades=tuple(grades),
        unreadable=tuple(unreadable),
        gone_from_latest=tuple(gone),
        unbound_figures=tuple(unbound),
    )
