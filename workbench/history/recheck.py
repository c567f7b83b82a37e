"""Recorded quotes re-searched in the versions held after theirs (C16): `still_present`, `gone`,
`now_ambiguous` or `still_ambiguous`, each found by exact search in that version's own text. The
only thing taken from the alignment is a suggestion, never evidence."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from workbench.cite.index import occurrence_spans
from workbench.cite.verify import Citation
from workbench.errors import ChecksumMismatch, CitationError, NoteError, VersionNotFound
from workbench.history.dating import (
    Occurrence,
    check_quote,
    family_versions,
    held_index,
    located,
    qualifying_notes,
    where_phrase,
)
from workbench.models import Change, Version
from workbench.wording import counted
from workbench.workspace import Workspace

if TYPE_CHECKING:
    from workbench.notes.ledger import Ledger, Run

RecheckStatus = Literal["still_present", "gone", "now_ambiguous", "still_ambiguous"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Suggestion:
    """The newest version's passage the alignment paired with a gone quote's old passage: a place
    to look, never evidence (`is_evidence` is always False), with the pairing's kind and
    similarity as the diff computed them."""

    version_id: str
    char_start: int
    char_end: int
    text: str
    change_kind: str
    similarity: float | None
    is_evidence: Literal[False] = False

    def as_json(self) -> dict[str, Any]:
        return {
            "version_id": self.version_id,
            "char_start": self.char_start,
            "char_end": self.char_end,
            "text": self.text,
            "change_kind": self.change_kind,
            "similarity": self.similarity,
            "is_evidence": self.is_evidence,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One recorded quote searched in one newer version.

    `subject` names where the quote was recorded (a note's path and quote line, or a citations
    file's line); `base_version` is the version it was recorded against. `status`:
    `still_present` (one occurrence in `version_id`, at `occurrences[0]`), `gone` (none),
    `now_ambiguous` (more than one where the base version held it once: which one the record
    meant cannot be carried over, since offsets are never projected), `still_ambiguous` (more
    than one, and the base version held it more than once too: the record was already ambiguous
    there and named its occurrence, so nothing became ambiguous; every occurrence is listed). `suggestion` is set only beside a gone quote in the newest
    version, when the alignment paired its old passage with one there. `footnotes_before` and
    `footnotes_after` are the words of the notes qualifying the quote in its base version and,
    when still present, in this one (`dating.qualifying_notes`, C20).
    """

    subject: str
    kind: Literal["note", "citation"]
    quoted_text: str
    base_version: str
    version_id: str
    status: RecheckStatus
    occurrences: tuple[Occurrence, ...]
    suggestion: Suggestion | None = None
    footnotes_before: tuple[str, ...] = ()
    footnotes_after: tuple[str, ...] = ()

    @property
    def footnote_changed(self) -> bool:
        """Still present, and the notes qualifying it are not those of its base version."""
        return self.status == "still_present" and self.footnotes_before != self.footnotes_after

    def as_json(self) -> dict[str, Any]:
        changed = {
            "footnote_changed": True,
            "footnotes_before": list(self.footnotes_before),
            "footnotes_after": list(self.footnotes_after),
        }
        return {
            "subject": self.subject,
            "kind": self.kind,
            "quoted_text": self.quoted_text,
            "base_version": self.base_version,
            "version_id": self.version_id,
            "status": self.status,
            "occurrences": [o.as_json() for o in self.occurrences],
            "suggestion": self.suggestion.as_json() if self.suggestion else None,
            **(changed if self.footnote_changed else {}),  # otherwise printed as it always was
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class RecheckReport:
    """Every finding (subjects in input order, then each quote, then newer versions in version
    order), the ledger runs `recheck` wrote (one per note and newer version), and the subjects it
    could not recheck, each with why (its version is the newest held, or it names none)."""

    findings: tuple[Finding, ...]
    runs: tuple[Run, ...]
    skipped: tuple[str, ...]

    @property
    def gone(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.status == "gone")

    def as_json(self) -> dict[str, Any]:
        """What `workbench recheck --json` prints."""
        return {
            "findings": [f.as_json() for f in self.findings],
            "runs": [r.run for r in self.runs],
            "skipped": list(self.skipped),
        }


# ---------------------------------------------------------------------------------------------
# recheck


def _newer(workspace: Workspace, base: Version) -> tuple[Version, ...]:
    """The versions of the base's jurisdiction and family with a higher version order."""
    return tuple(
        v
        for v in family_versions(workspace, base.family)
        if v.jurisdiction == base.jurisdiction and v.version_order > base.version_order
    )


def _status(spans: Sequence[object], base_count: int) -> RecheckStatus:
    """No occurrence: gone; one: still present; more: now ambiguous, or still ambiguous when the
    base version held the quote more than once too (`base_count`)."""
    if not spans:
        return "gone"
    if len(spans) == 1:
        return "still_present"
    return "still_ambiguous" if base_count > 1 else "now_ambiguous"


class _Aligner:
    """The suggestion beside a gone quote: the change of the pair's one diff (`pairs
    .pair_changes` of (base, newest) in the workspace: the diff `workbench diff --from base --to
    newest` prints, tables paired by rows, kept) whose old passage holds the quote's first
    occurrence in the base, if it pairs it with a passage of the newest version. Each pair of
    versions is read once per recheck."""

    def __init__(self, workspace: Workspace) -> None:
        self._workspace = workspace
        self._diffs: dict[tuple[str, str], tuple[Change, ...]] = {}

    def suggest(
        self, base: Version, newest: Version, base_span: tuple[int, int] | None
    ) -> Suggestion | None:
        if base_span is None:
            return None
        from workbench.changes.pairs import pair_changes

        key = (base.version_id, newest.version_id)
        if key not in self._diffs:
            self._diffs[key] = pair_changes(((base, newest),), workspace=self._workspace)[0]
        at = base_span[0]
        for change in self._diffs[key]:
            before, after = change.before, change.after
            if before is None or after is None or change.kind == "unchanged":
                continue
            if before.char_start <= at < before.char_end:
                return Suggestion(
                    version_id=newest.version_id,
                    char_start=after.char_start,
                    char_end=after.char_end,
                    text=newest.text[after.char_start : after.char_end],
                    change_kind=change.kind,
                    similarity=change.similarity,
                )
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
class _Recorded:
    """A quote recorded against a version: where it was recorded, and its words."""

    subject: str
    kind: Literal["note", "citation"]
    base_version: str
    quoted_text: str


def _findings(
    workspace: Workspace,
    recorded: _Recorded,
    newer: Sequence[Version],
    spans_in: Mapping[str, Sequence[tuple[int, int]]],
    aligner: _Aligner,
) -> list[Finding]:
    """The findings of one recorded quote in each newer version, from its spans there."""
    out = []
    base = workspace.version(recorded.base_version)
    base_spans = occurrence_spans(held_index(workspace, base.version_id), recorded.quoted_text)
    base_notes = qualifying_notes(workspace, base, base_spans)
    for version in newer:
        spans = spans_in[version.version_id]
        status = _status(spans, len(base_spans))
        notes = (
            qualifying_notes(workspace, version, spans) if status == "still_present" else base_notes
        )
        suggestion = None
        if status == "gone" and version is newer[-1]:
            suggestion = aligner.suggest(base, version, base_spans[0] if base_spans else None)
        out.append(
            Finding(
                subject=recorded.subject,
                kind=recorded.kind,
                quoted_text=recorded.quoted_text,
                base_version=recorded.base_version,
                version_id=version.version_id,
                status=status,
                occurrences=located(version, spans),
                suggestion=suggestion,
                footnotes_before=base_notes,
                footnotes_after=notes,
            )
        )
    return out


def recheck_quotes(
    workspace: Workspace,
    *,
    citations: Iterable[tuple[str, Citation]] = (),
    notes: Iterable[Path] = (),
    family: str | None = None,
    ledger: Ledger | None = None,
    corpus_dir: Path | None = None,
    store: Path | None = None,
) -> RecheckReport:
    """Search every recorded quote into a version that has newer held versions in each of them.

    `citations` are (subject, citation) pairs (the subject names the file and line); `notes` are
    note files, each recorded against its `pointer`, else its `document`. With `family`, only
    quotes into that family are rechecked. A citation's quote is searched in each newer version
    in this process; a note is checked against each newer version's catalogued file by
    `notes.check.recheck_note` (a separate process, checksum first, the run appended to `ledger`,
    the note never written), and its findings are read off that run's spans. A subject whose version
    is the newest held, or a note that names no version, is listed in `skipped`. Findings are in
    input order (citations, then notes; a note's quotes in note order), then version order.
    """
    from workbench.notes.check import recheck_note
    from workbench.notes.note import parse_note
    from workbench.text.ocr import default_cache

    aligner = _Aligner(workspace)
    findings: list[Finding] = []
    runs: list[Run] = []
    skipped: list[str] = []

    def wanted(version_id: str, subject: str) -> tuple[Version, ...] | None:
        try:
            base = workspace.version(version_id)
        except VersionNotFound as exc:
            raise CitationError(f"{subject}: {exc}") from exc
        if family is not None and base.family != family:
            return None
        newer = _newer(workspace, base)
        if not newer:
            skipped.append(f"{subject}: {version_id} is the newest held version of its family")
            return None
        return newer

    for subject, citation in citations:
        newer = wanted(citation.version_id, subject)
        if newer is None:
            continue
        check_quote(citation.quoted_text)
        spans_in = {
            v.version_id: occurrence_spans(
                held_index(workspace, v.version_id), citation.quoted_text
            )
            for v in newer
        }
        recorded = _Recorded(
            subject=subject,
            kind="citation",
            base_version=citation.version_id,
            quoted_text=citation.quoted_text,
        )
        findings += _findings(workspace, recorded, newer, spans_in, aligner)
    note_paths = tuple(notes)
    if note_paths and (ledger is None or corpus_dir is None or store is None):
        raise NoteError("recheck: notes need a ledger, a corpus folder and a store")
    for path in note_paths:
        if not path.is_file():
            skipped.append(f"{path}: no such note (the ledger names it)")
            continue
        note = parse_note(path)
        base_id = note.pointer or note.get("document")
        if base_id is None:
            skipped.append(f"{path}: names no pointer or document")
            continue
        newer = wanted(base_id, str(path))
        if newer is None or not note.document_quotes:
            continue
        assert ledger is not None and corpus_dir is not None and store is not None
        note_runs = []
        for version in newer:
            run = recheck_note(
                path,
                version.version_id,
                corpus_dir=corpus_dir,
                store=store,
                ledger=ledger,
                ocr_cache=default_cache(workspace.path),  # the cache `ingest` read it through
            )
            runs.append(run)
            if run.outcome == "checksum_mismatch":
                # Recorded in the ledger as that run; no word is compared against such bytes.
                raise ChecksumMismatch(
                    f"{path}: {store / run.document}: the fetched file does not match its "
                    f"catalogue sha256 (run {run.run}); fetch the corpus again"
                )
            note_runs.append(run)
        entries = [{q["line"]: q for q in run.quotes} for run in note_runs]
        for quote in note.document_quotes:
            recorded = _Recorded(
                subject=f"{path}:{quote.line}",
                kind="note",
                base_version=base_id,
                quoted_text=quote.text,
            )
            spans_in = {
                v.version_id: tuple(tuple(s) for s in by_line[quote.line]["spans"])
                for v, by_line in zip(newer, entries, strict=True)
            }
            findings += _findings(workspace, recorded, newer, spans_in, aligner)
    return RecheckReport(findings=tuple(findings), runs=tuple(runs), skipped=tuple(skipped))


def ledger_notes(ledger: Ledger) -> tuple[Path, ...]:
    """Every note the ledger holds a run for, by the path it was recorded under (relative to the
    working folder, or absolute), in order of its first run."""
    seen: dict[str, None] = {}
    for run in ledger.runs():
        seen.setdefault(run.note)
    return tuple(map(Path, seen))


def recorded_quotes(
    ledger: Ledger, *, notes: Path | None = None, citations: Path | None = None
) -> tuple[list[tuple[str, Citation]], tuple[Path, ...]]:
    """What `workbench recheck` rechecks: the citations of a JSON Lines file (each labelled
    `FILE:LINE`), and the notes of a folder; with neither named, every note the ledger holds a run
    for (`ledger_notes`), and with only citations named, no note. A citation line that does not
    read raises `CitationError` naming the file and the line's problem."""
    from workbench.cite.formats import read_citations
    from workbench.notes.note import notes_in

    labelled: list[tuple[str, Citation]] = []
    if citations is not None:
        lines = read_citations(citations.read_bytes(), "workbench", source=str(citations))
        bad = next((line for line in lines if line.error is not None), None)
        if bad is not None:
            raise CitationError(f"{citations}: {bad.error}")
        labelled = [
            (f"{citations}:{line.line}", line.citation)
            for line in lines
            if line.citation is not None  # every line read: a bad one was refused above
        ]
    if notes is not None:
        return labelled, notes_in(notes)
    return labelled, (ledger_notes(ledger) if citations is None else ())


# ---------------------------------------------------------------------------------------------
# Printout


def recheck_lines(report: RecheckReport) -> tuple[str, ...]:
    """`workbench recheck`'s text printout: one line per finding (a gone quote's suggestion
    beside it, marked as no evidence), the skipped subjects, then the counts."""
    out = []
    for f in report.findings:
        where = f" at {where_phrase(f.occurrences[0])}" if f.status == "still_present" else ""
        if f.status in ("now_ambiguous", "still_ambiguous"):
            where = " at " + ", ".join(f"[{o.char_start}, {o.char_end})" for o in f.occurrences)
        out.append(f"{f.subject}: {f.status} in {f.version_id}{where} (from {f.base_version})")
        if f.footnote_changed:
            shown = [
                "; ".join(repr(w[:60]) for w in side) or "no note"
                for side in (f.footnotes_before, f.footnotes_after)
            ]
            out.append(f"  its footnote changed: {shown[0]} -> {shown[1]}")
        if f.suggestion is not None:
            s = f.suggestion
            excerpt = " ".join(s.text.split())[:120]
            out.append(
                f"  aligned passage ({s.change_kind}, is_evidence: false): "
                f"[{s.char_start}, {s.char_end}) {excerpt!r}"
            )
    out += [f"skipped: {line}" for line in report.skipped]
    counts = {s: sum(f.status == s for f in report.findings) for s in _RECHECK_STATUSES}
    out.append(
        f"{counted(len(report.findings), 'finding')}: "
        + ", ".join(f"{counts[s]} {s}" for s in _RECHECK_STATUSES)
        + f"; {counted(len(report.runs), 'run')} recorded in the ledger"
    )
    return tuple(out)


_RECHECK_STATUSES: tuple[RecheckStatus, ...] = (
    "still_present",
    "gone",
    "now_ambiguous",
    "still_ambiguous",
)
