"""Reviewers' verdicts on doubtful pairings, in an append-only, hash-chained log (DESIGN.md C8).

A doubtful pairing is a change `pairing_is_uncertain` flags (the one doubt predicate, in `diff.py`).
A reviewer answers it: `confirmed` (the two passages really are one passage, edited), `disputed`
(they are not) or `uncertain` (cannot tell), with optional reasoning, their name and the moment. Each
answer is one row of the `verdicts` table in the workspace file. The row quotes the pairing it
judged (change id, both spans) and the computed numbers as they stood (similarity, confidence, cap);
those numbers are never written anywhere else and never overwritten.

The log is append-only and hash-linked. Row `seq` (1, 2, 3, ... with no gaps) holds the digest of
row `seq - 1` (`prev_hash`; the first row holds 64 zeros) and its own `digest`: SHA-256 over the
canonical JSON of the row's fields under a numbered scheme (`scheme` 1: every column but `digest`).
Database triggers abort UPDATE and DELETE; `verify_chain` re-derives every link and digest and
reports the first gap, broken link, altered row or unknown scheme, so an edit made by dropping the
triggers is still caught, with the row's sequence number.

One standing verdict per pairing: the latest row that quotes it. Answering a pairing that already has
one is refused unless the new row names that row in `undoes` (a reversal is a new row naming the row
it undoes; nothing is edited). `pairing_caution_stands` is the one predicate every surface (widget,
CLI, notebooks, reports) uses: caution stands on a doubtful pairing with no standing verdict or a
standing "uncertain", and not on a confirmed or disputed one.

Two kernels may answer at once: each append runs in one `BEGIN IMMEDIATE` transaction (it reads the
chain head and writes the next row under the write lock, so no two rows share a sequence number or
a predecessor), the workspace is in WAL mode with a busy timeout, and a busy database is retried.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast, get_args

from workbench.diff import _change_id_prefix, change_as_json, diff_versions, pairing_is_uncertain
from workbench.errors import ChangeNotFound, VerdictError
from workbench.models import Change, Span, Version, canonical_json
from workbench.profiles import Profile, choose_profile
from workbench.segment import segment_version
from workbench.store import Workspace

if TYPE_CHECKING:
    import polars as pl

Answer = Literal["confirmed", "disputed", "uncertain"]
ANSWERS: tuple[Answer, ...] = get_args(Answer)
SCHEME = 1
KNOWN_SCHEMES = frozenset({SCHEME})
GENESIS = "0" * 64
MAX_ACTOR_CHARS = 200
MAX_REASON_CHARS = 10_000
BUSY_RETRIES = 8
_CHANGE_ID = re.compile(r"chg-[0-9a-f]{20}")

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS verdicts (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        scheme INTEGER NOT NULL,
        change_id TEXT NOT NULL,
        before_id TEXT NOT NULL,
        before_start INTEGER NOT NULL,
        before_end INTEGER NOT NULL,
        after_id TEXT NOT NULL,
        after_start INTEGER NOT NULL,
        after_end INTEGER NOT NULL,
        answer TEXT NOT NULL CHECK (answer IN ('confirmed', 'disputed', 'uncertain')),
        reason TEXT,
        actor TEXT NOT NULL,
        answered_at TEXT NOT NULL,
        similarity REAL NOT NULL,
        alignment_confidence REAL NOT NULL,
        capped INTEGER NOT NULL,
        undoes INTEGER,
        prev_hash TEXT NOT NULL,
        digest TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS verdicts_by_change ON verdicts (change_id, seq)",
    """CREATE TRIGGER IF NOT EXISTS verdicts_append_only_update BEFORE UPDATE ON verdicts
    BEGIN SELECT RAISE(ABORT, 'append-only table verdicts: UPDATE refused'); END""",
    """CREATE TRIGGER IF NOT EXISTS verdicts_append_only_delete BEFORE DELETE ON verdicts
    BEGIN SELECT RAISE(ABORT, 'append-only table verdicts: DELETE refused'); END""",
)
_COLUMNS = (
    "seq, scheme, change_id, before_id, before_start, before_end, after_id, after_start, "
    "after_end, answer, reason, actor, answered_at, similarity, alignment_confidence, capped, "
    "undoes, prev_hash, digest"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """One row of the verdict log: a reviewer's answer to one doubtful pairing."""

    seq: int
    scheme: int
    change_id: str
    before: Span
    after: Span
    answer: Answer
    reason: str | None
    actor: str
    answered_at: str  # ISO 8601, UTC
    similarity: float  # the computed numbers as they stood when the answer was given
    alignment_confidence: float
    capped: bool
    undoes: int | None  # the row this one reverses, or None
    prev_hash: str
    digest: str

    def quotes(self, change: Change) -> bool:
        """True when this row judged exactly `change`: same change id and the same two passages."""
        return (
            self.change_id == change.change_id
            and self.before == change.before
            and self.after == change.after
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Pairing:
    """A doubtful pairing in its context: the change and the family and versions it came from."""

    jurisdiction: str
    family: str
    before_id: str
    after_id: str
    change: Change


@dataclass(frozen=True, slots=True, kw_only=True)
class ChainReport:
    """What `verify_chain` found. `problem` is None for a valid chain, else the first fault's code."""

    rows: int  # rows read
    head: str  # digest of the last row checked to be sound (GENESIS for an empty log)
    problem: Literal["gap", "broken_link", "altered", "unknown_scheme"] | None
    seq: int | None  # the sequence number of the faulty row (for a gap: the first missing one)
    detail: str

    @property
    def valid(self) -> bool:
        return self.problem is None

    def line(self) -> str:
        if self.problem is None:
            return f"chain valid: {self.rows} rows, head {self.head}"
        return f"chain broken at row {self.seq}: {self.problem}: {self.detail}"


# ---------------------------------------------------------------------------------------------
# Doubtful pairings


def _consecutive(versions: Sequence[Version]) -> list[tuple[Version, Version]]:
    return [
        (a, b)
        for a, b in pairwise(versions)
        if (a.jurisdiction, a.family) == (b.jurisdiction, b.family)
    ]


def _held(workspace: Workspace, family: str | None, jurisdiction: str | None) -> list[Version]:
    versions = workspace.versions(family)
    return [v for v in versions if jurisdiction is None or v.jurisdiction == jurisdiction]


def _readers(
    versions: Sequence[Version], profiles: Sequence[Profile] | None
) -> dict[tuple[str, str], Profile]:
    """The profile that reads each family (`profiles.choose_profile`, as `measure` chooses)."""
    groups: dict[tuple[str, str], list[Version]] = {}
    for version in versions:
        groups.setdefault((version.jurisdiction, version.family), []).append(version)
    return {key: choose_profile(group, profiles).profile for key, group in groups.items()}


def doubtful_pairings(
    workspace: Workspace,
    family: str | None = None,
    *,
    jurisdiction: str | None = None,
    profiles: Sequence[Profile] | None = None,
) -> tuple[Pairing, ...]:
    """Every pairing `pairing_is_uncertain` flags, between consecutive held versions.

    The diffs are recomputed from the held versions (change ids are deterministic, so a verdict
    given yesterday names the same change today). Order: jurisdiction, family, version order, then
    the diff's own output order. `family` or `jurisdiction` narrows the set; an unknown family
    raises FamilyNotFound. Each family is segmented through the profile `measure` would choose
    from `profiles` (default: the shipped ones).
    """
    out: list[Pairing] = []
    held = _held(workspace, family, jurisdiction)
    readers = _readers(held, profiles)
    for before, after in _consecutive(held):
        reader = readers[(before.jurisdiction, before.family)]
        for change in diff_versions(before, after, reader):
            if pairing_is_uncertain(change):
                out.append(
                    Pairing(
                        jurisdiction=before.jurisdiction,
                        family=before.family,
                        before_id=before.version_id,
                        after_id=after.version_id,
                        change=change,
                    )
                )
    return tuple(out)


def find_change(
    workspace: Workspace,
    change_id: str,
    *,
    family: str | None = None,
    profiles: Sequence[Profile] | None = None,
) -> Pairing:
    """The change with this id among the diffs of consecutive held versions.

    A change id is a hash of its two version ids and its position in the diff output, and a diff of
    n and m passages has at most n + m entries; so the version pair is found by hashing those
    positions, and only that pair is diffed. ChangeNotFound when the id is malformed or no pair
    produces it.
    """
    if not _CHANGE_ID.fullmatch(change_id):
        raise ChangeNotFound(
            f"{change_id}: not a change id; expected 'chg-' and 20 lowercase hex digits"
        )
    held = workspace.versions(family)
    readers = _readers(held, profiles)
    for before, after in _consecutive(held):
        make = _change_id_prefix(before.version_id, after.version_id)
        reader = readers[(before.jurisdiction, before.family)]
        # The diff segments through the family's profile; the bound must count those passages.
        bound = len(segment_version(before, reader)) + len(segment_version(after, reader))
        if any(make(position) == change_id for position in range(bound)):
            for change in diff_versions(before, after, reader):
                if change.change_id == change_id:
                    return Pairing(
                        jurisdiction=before.jurisdiction,
                        family=before.family,
                        before_id=before.version_id,
                        after_id=after.version_id,
                        change=change,
                    )
    where = f"family {family}" if family is not None else "any family"
    raise ChangeNotFound(
        f"{change_id}: no change with this id in the diffs of {where} held in {workspace.path}; "
        "see 'workbench review list'"
    )


# ---------------------------------------------------------------------------------------------
# The log


def _ensure_schema(conn: sqlite3.Connection) -> None:
    for statement in _SCHEMA:
        conn.execute(statement)


T = TypeVar("T")


def _with_retries(work: Callable[[], T]) -> T:
    """Run `work` (one transaction), retrying while another process holds the database busy.

    The connection already waits up to its busy timeout; this loop covers the cases where SQLite
    answers SQLITE_BUSY at once (a WAL checkpoint or recovery in another process). Backoff doubles
    from 50 ms, BUSY_RETRIES attempts, then the error propagates.
    """
    for attempt in range(BUSY_RETRIES):
        try:
            return work()
        except sqlite3.OperationalError as exc:
            message = str(exc)
            if attempt == BUSY_RETRIES - 1 or ("locked" not in message and "busy" not in message):
                raise
            time.sleep(0.05 * 2**attempt)
    raise AssertionError("unreachable")


def row_digest(payload: dict[str, Any]) -> str:
    """SHA-256 hex of the canonical JSON (sorted keys, no spaces, UTF-8) of a row's payload."""
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def _verdict(row: tuple[Any, ...]) -> Verdict:
    return Verdict(
        seq=row[0],
        scheme=row[1],
        change_id=row[2],
        before=Span(version_id=row[3], char_start=row[4], char_end=row[5]),
        after=Span(version_id=row[6], char_start=row[7], char_end=row[8]),
        answer=cast(Answer, row[9]),
        reason=row[10],
        actor=row[11],
        answered_at=row[12],
        similarity=row[13],
        alignment_confidence=row[14],
        capped=bool(row[15]),
        undoes=row[16],
        prev_hash=row[17],
        digest=row[18],
    )


def _payload_of(v: Verdict) -> dict[str, Any]:
    """Scheme 1's canonical record: every column but the digest itself."""
    return {
        "seq": v.seq,
        "scheme": v.scheme,
        "change_id": v.change_id,
        "before": v.before.as_json(),
        "after": v.after.as_json(),
        "answer": v.answer,
        "reason": v.reason,
        "actor": v.actor,
        "answered_at": v.answered_at,
        "similarity": v.similarity,
        "alignment_confidence": v.alignment_confidence,
        "capped": v.capped,
        "undoes": v.undoes,
        "prev_hash": v.prev_hash,
    }


def _row(v: Verdict) -> tuple[Any, ...]:
    """The verdict as the table's columns, in `_COLUMNS` order."""
    return (
        *(v.seq, v.scheme, v.change_id),
        *(v.before.version_id, v.before.char_start, v.before.char_end),
        *(v.after.version_id, v.after.char_start, v.after.char_end),
        *(v.answer, v.reason, v.actor, v.answered_at),
        *(v.similarity, v.alignment_confidence, int(v.capped), v.undoes, v.prev_hash, v.digest),
    )


def _clean_actor(actor: str) -> str:
    name = actor.strip()
    if not name or len(name) > MAX_ACTOR_CHARS or not name.isprintable():
        raise VerdictError(
            f"actor {actor!r}: expected a reviewer's name of 1 to {MAX_ACTOR_CHARS} printable "
            "characters on one line"
        )
    return name


def _clean_reason(reason: str | None) -> str | None:
    if reason is None or not reason.strip():
        return None
    if len(reason) > MAX_REASON_CHARS:
        raise VerdictError(f"reason: {len(reason)} characters; expected at most {MAX_REASON_CHARS}")
    return reason.strip()


def append_verdict(
    workspace: Workspace,
    change: Change,
    answer: str,
    *,
    actor: str,
    reason: str | None = None,
    undoes: int | None = None,
    at: datetime | None = None,
) -> Verdict:
    """Append one answer to the log and return the row as written.

    Refused with VerdictError: an answer other than confirmed / disputed / uncertain; a change
    `pairing_is_uncertain` does not flag (only doubtful pairings are reviewed); an empty or
    multi-line actor; a reason over MAX_REASON_CHARS; answering a pairing that has a standing
    verdict without naming that row in `undoes`; an `undoes` that is not the pairing's standing
    verdict. A blank reason is stored as None. `at` defaults to now (UTC, microseconds).
    """
    if answer not in ANSWERS:
        raise VerdictError(f"answer {answer!r}: expected one of {', '.join(ANSWERS)}")
    if not pairing_is_uncertain(change):
        raise VerdictError(
            f"{change.change_id}: not a doubtful pairing ({change.kind}, confidence "
            f"{change.alignment_confidence}); only pairings pairing_is_uncertain flags are reviewed"
        )
    # pairing_is_uncertain holds only for modified pairs, which have both spans and both numbers.
    before, after = change.before, change.after
    similarity, confidence = change.similarity, change.alignment_confidence
    assert before is not None and after is not None
    assert similarity is not None and confidence is not None
    name = _clean_actor(actor)
    why = _clean_reason(reason)
    moment = (at or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="microseconds")

    def write() -> Verdict:
        with workspace.transaction() as conn:
            _ensure_schema(conn)
            held = [
                _verdict(r)
                for r in conn.execute(
                    f"SELECT {_COLUMNS} FROM verdicts WHERE change_id = ? ORDER BY seq",
                    (change.change_id,),
                )
            ]
            standing = standing_verdict(change, held)
            if standing is not None and undoes != standing.seq:
                raise VerdictError(
                    f"{change.change_id}: already answered {standing.answer} by {standing.actor} "
                    f"at row {standing.seq}; to change it, answer again naming that row "
                    f"(undoes={standing.seq})"
                )
            if standing is None and undoes is not None:
                raise VerdictError(
                    f"{change.change_id}: undoes={undoes}, but the pairing has no standing verdict"
                )
            last = conn.execute(
                "SELECT seq, digest FROM verdicts ORDER BY seq DESC LIMIT 1"
            ).fetchone()
            seq, prev_hash = (last[0] + 1, last[1]) if last else (1, GENESIS)
            draft = Verdict(
                seq=seq,
                scheme=SCHEME,
                change_id=change.change_id,
                before=before,
                after=after,
                answer=answer,
                reason=why,
                actor=name,
                answered_at=moment,
                similarity=similarity,
                alignment_confidence=confidence,
                capped=change.capped,
                undoes=undoes,
                prev_hash=prev_hash,
                digest="",
            )
            verdict = dataclasses.replace(draft, digest=row_digest(_payload_of(draft)))
            conn.execute(
                f"INSERT INTO verdicts ({_COLUMNS}) VALUES ({', '.join('?' * 19)})", _row(verdict)
            )
            return verdict

    return _with_retries(write)


def read_verdicts(workspace: Workspace, change_id: str | None = None) -> tuple[Verdict, ...]:
    """The log's rows in sequence order (all, or those naming `change_id`)."""

    def read() -> tuple[Verdict, ...]:
        with workspace.transaction() as conn:
            _ensure_schema(conn)
            where, params = ("WHERE change_id = ?", (change_id,)) if change_id else ("", ())
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM verdicts {where} ORDER BY seq", params
            ).fetchall()
        return tuple(_verdict(r) for r in rows)

    return _with_retries(read)


def verify_chain(workspace: Workspace) -> ChainReport:
    """Re-derive the whole chain and report the first fault, in sequence order.

    Per row, in this order: its `seq` must be the previous one plus one, starting at 1 (else
    `gap`, naming the first missing number); its scheme must be known (`unknown_scheme`); its
    `prev_hash` must equal the previous row's stored digest, GENESIS for row 1 (`broken_link`);
    its stored digest must equal the digest recomputed from its fields (`altered`). After the last
    row, SQLite's own high-water mark for the table (`sqlite_sequence`) must not exceed it, else
    rows were cut off the end (`gap`).
    """

    def read() -> tuple[list[tuple[Any, ...]], int]:
        with workspace.transaction() as conn:
            _ensure_schema(conn)
            rows = conn.execute(f"SELECT {_COLUMNS} FROM verdicts ORDER BY seq").fetchall()
            mark = conn.execute(
                "SELECT seq FROM sqlite_sequence WHERE name = 'verdicts'"
            ).fetchone()
        return rows, int(mark[0]) if mark else 0

    rows, high_water = _with_retries(read)
    head, expected = GENESIS, 1

    def fault(problem: Any, seq: int, detail: str, checked: int) -> ChainReport:
        return ChainReport(rows=checked, head=head, problem=problem, seq=seq, detail=detail)

    for index, raw in enumerate(rows):
        verdict = _verdict(raw)
        if verdict.seq != expected:
            return fault(
                "gap",
                expected,
                f"the next row is {verdict.seq}; rows are numbered 1, 2, 3, ...",
                index,
            )
        if verdict.scheme not in KNOWN_SCHEMES:
            return fault(
                "unknown_scheme",
                verdict.seq,
                f"scheme {verdict.scheme}; this workbench knows {sorted(KNOWN_SCHEMES)}",
                index,
            )
        if verdict.prev_hash != head:
            return fault(
                "broken_link",
                verdict.seq,
                f"prev_hash {verdict.prev_hash} is not the digest of row {verdict.seq - 1} ({head})",
                index,
            )
        recomputed = row_digest(_payload_of(verdict))
        if recomputed != verdict.digest:
            return fault(
                "altered",
                verdict.seq,
                f"stored digest {verdict.digest}; its fields hash to {recomputed}",
                index,
            )
        head, expected = verdict.digest, expected + 1
    if high_water >= expected:
        return fault(
            "gap",
            expected,
            f"the log ends at row {expected - 1} but rows up to {high_water} were written",
            len(rows),
        )
    return ChainReport(rows=len(rows), head=head, problem=None, seq=None, detail="")


# ---------------------------------------------------------------------------------------------
# The one caution predicate


def standing_verdict(change: Change, verdicts: Iterable[Verdict]) -> Verdict | None:
    """The latest row (highest seq) that quotes exactly this pairing, or None.

    A row whose change id matches but whose quoted passages differ (the diff was recomputed
    differently) judged another pairing and does not count.
    """
    latest: Verdict | None = None
    for verdict in verdicts:
        if verdict.quotes(change) and (latest is None or verdict.seq > latest.seq):
            latest = verdict
    return latest


def pairing_caution_stands(change: Change, verdicts: Iterable[Verdict]) -> bool:
    """Caution, for every surface: a doubtful pairing that no one has confirmed or disputed.

    True when `pairing_is_uncertain(change)` and its standing verdict is missing or "uncertain";
    False for a pairing that is not doubtful, or whose standing verdict is confirmed or disputed.
    """
    if not pairing_is_uncertain(change):
        return False
    standing = standing_verdict(change, verdicts)
    return standing is None or standing.answer == "uncertain"


# ---------------------------------------------------------------------------------------------
# Shapes for the CLI and notebooks


def verdict_as_json(verdict: Verdict) -> dict[str, Any]:
    """The JSON shape `workbench review log --json` prints for one row."""
    return {**_payload_of(verdict), "digest": verdict.digest}


def pairing_as_json(pairing: Pairing, verdicts: Sequence[Verdict]) -> dict[str, Any]:
    """The JSON shape `workbench review list --json` prints for one doubtful pairing."""
    change = pairing.change
    standing = standing_verdict(change, verdicts)
    described = change_as_json(change)
    return {
        "change_id": described["change_id"],
        "jurisdiction": pairing.jurisdiction,
        "family": pairing.family,
        **{key: described[key] for key in _CHANGE_FIELDS},
        "caution_stands": pairing_caution_stands(change, verdicts),
        "standing_verdict": standing.seq if standing else None,
        "answer": standing.answer if standing else None,
    }


# The fields of `diff.change_as_json` a review row repeats, in the order it prints them.
_CHANGE_FIELDS = (
    "before",
    "after",
    "before_label",
    "after_label",
    "similarity",
    "alignment_confidence",
    "capped",
)


def review_frame(pairings: Sequence[Pairing], verdicts: Sequence[Verdict]) -> pl.DataFrame:
    """One row per doubtful pairing, in the order given, with its caution state (polars)."""
    import polars as pl

    rows = [pairing_as_json(p, verdicts) for p in pairings]
    schema = {
        "change_id": pl.String,
        "jurisdiction": pl.String,
        "family": pl.String,
        "before_id": pl.String,
        "after_id": pl.String,
        "before_label": pl.String,
        "after_label": pl.String,
        "similarity": pl.Float64,
        "alignment_confidence": pl.Float64,
        "capped": pl.Boolean,
        "caution_stands": pl.Boolean,
        "answer": pl.String,
    }
    return pl.DataFrame(
        [
            {
                **{k: r[k] for k in schema if k in r},
                "before_id": p.before_id,
                "after_id": p.after_id,
            }
            for p, r in zip(pairings, rows, strict=True)
        ],
        schema=schema,
    )
