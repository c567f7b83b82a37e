"""The verdict log (C8, C21): reviewers' answers and drawn samples in append-only, hash-chained
tables of the workspace file, appended under the write lock and re-derived by `verify_chain`."""

from __future__ import annotations

import dataclasses
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar, cast

from workbench.changes.caution import standing_verdict
from workbench.changes.diff import pairing_is_uncertain
from workbench.changes.queue import ReviewItem
from workbench.changes.sample import Sample, sample_id_of
from workbench.changes.verdict import (
    ANSWERS,
    GENESIS,
    KNOWN_SCHEMES,
    SAMPLED_SCHEME,
    SCHEME,
    Answer,
    Verdict,
    row_digest,
)
from workbench.errors import VerdictError
from workbench.models import Change, Span, canonical_json, strict_json
from workbench.workspace import Workspace

MAX_ACTOR_CHARS = 200
MAX_REASON_CHARS = 10_000
BUSY_RETRIES = 8

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
        digest TEXT NOT NULL,
        group_id TEXT,
        sample_id TEXT
    )""",
    "CREATE INDEX IF NOT EXISTS verdicts_by_change ON verdicts (change_id, seq)",
    """CREATE TRIGGER IF NOT EXISTS verdicts_append_only_update BEFORE UPDATE ON verdicts
    BEGIN SELECT RAISE(ABORT, 'append-only table verdicts: UPDATE refused'); END""",
    """CREATE TRIGGER IF NOT EXISTS verdicts_append_only_delete BEFORE DELETE ON verdicts
    BEGIN SELECT RAISE(ABORT, 'append-only table verdicts: DELETE refused'); END""",
    """CREATE TABLE IF NOT EXISTS samples (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        sample_id TEXT NOT NULL UNIQUE,
        record TEXT NOT NULL
    )""",
    """CREATE TRIGGER IF NOT EXISTS samples_append_only_update BEFORE UPDATE ON samples
    BEGIN SELECT RAISE(ABORT, 'append-only table samples: UPDATE refused'); END""",
    """CREATE TRIGGER IF NOT EXISTS samples_append_only_delete BEFORE DELETE ON samples
    BEGIN SELECT RAISE(ABORT, 'append-only table samples: DELETE refused'); END""",
)
_COLUMNS = (
    "seq, scheme, change_id, before_id, before_start, before_end, after_id, after_start, "
    "after_end, answer, reason, actor, answered_at, similarity, alignment_confidence, capped, "
    "undoes, prev_hash, digest, group_id, sample_id"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ChainReport:
    """What `verify_chain` found. `problem` is None for a valid chain, else the first fault's code."""

    rows: int  # rows read
    head: str  # digest of the last row checked to be sound (GENESIS for an empty log)
    problem: Literal["gap", "broken_link", "altered", "unknown_scheme"] | None
    seq: int | None  # the sequence number of the faulty row (for a gap: the first missing one)
    detail: str
    samples: int = 0  # samples read (checked, when the chain is valid)
    sample_id: str | None = None  # the faulty sample, when the fault is a sample's

    @property
    def valid(self) -> bool:
        return self.problem is None

    def line(self) -> str:
        if self.problem is None:
            samples = f", {self.samples} samples" if self.samples else ""
            return f"chain valid: {self.rows} rows{samples}, head {self.head}"
        if self.sample_id is not None:
            return f"chain broken at sample {self.sample_id}: {self.problem}: {self.detail}"
        return f"chain broken at row {self.seq}: {self.problem}: {self.detail}"


def _ensure_schema(conn: sqlite3.Connection) -> None:
    """Create the tables and triggers, and add `group_id` and `sample_id` to a log made before
    they existed.

    ADD COLUMN rewrites no row (the UPDATE trigger does not fire) and gives every old row NULL,
    which is what schemes 1 and 2 require.
    """
    for statement in _SCHEMA:
        conn.execute(statement)
    columns = {row[1] for row in conn.execute("PRAGMA table_info(verdicts)")}
    for column in ("group_id", "sample_id"):
        if column not in columns:
            conn.execute(f"ALTER TABLE verdicts ADD COLUMN {column} TEXT")


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


def _verdict(row: sqlite3.Row) -> Verdict:
    """A verdict from its log row, read by column name (the workspace reads rows as `sqlite3.Row`)."""
    return Verdict(
        seq=row["seq"],
        scheme=row["scheme"],
        change_id=row["change_id"],
        before=Span(
            version_id=row["before_id"], char_start=row["before_start"], char_end=row["before_end"]
        ),
        after=Span(
            version_id=row["after_id"], char_start=row["after_start"], char_end=row["after_end"]
        ),
        answer=cast(Answer, row["answer"]),
        reason=row["reason"],
        actor=row["actor"],
        answered_at=row["answered_at"],
        similarity=row["similarity"],
        alignment_confidence=row["alignment_confidence"],
        capped=bool(row["capped"]),
        undoes=row["undoes"],
        prev_hash=row["prev_hash"],
        digest=row["digest"],
        group_id=row["group_id"],
        sample_id=row["sample_id"],
    )


def _row(v: Verdict) -> tuple[Any, ...]:
    """The verdict as the table's columns, in `_COLUMNS` order."""
    return (
        *(v.seq, v.scheme, v.change_id),
        *(v.before.version_id, v.before.char_start, v.before.char_end),
        *(v.after.version_id, v.after.char_start, v.after.char_end),
        *(v.answer, v.reason, v.actor, v.answered_at),
        *(v.similarity, v.alignment_confidence, int(v.capped), v.undoes, v.prev_hash, v.digest),
        v.group_id,
        v.sample_id,
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
    sample_id: str | None = None,
) -> Verdict:
    """Append one answer to the log and return the row as written.

    Refused with VerdictError: an answer other than confirmed / disputed / uncertain; a change
    `pairing_is_uncertain` does not flag (only doubtful pairings are reviewed), unless
    `sample_id` names a recorded sample that holds exactly this pairing (C21: the row is then
    written under scheme 3, carrying the sample's id); a `sample_id` the log does not hold, or
    whose sample does not hold the pairing; an empty or
    multi-line actor; a reason over MAX_REASON_CHARS; answering a pairing that has a standing
    verdict without naming that row in `undoes`; an `undoes` that is not the pairing's standing
    verdict. A blank reason is stored as None. `at` defaults to now (UTC, microseconds).
    """
    (verdict,) = _append(
        workspace,
        (change,),
        answer,
        actor=actor,
        reason=reason,
        undoes=undoes,
        at=at,
        sample_id=sample_id,
    )
    return verdict


def append_group_verdict(
    workspace: Workspace,
    item: ReviewItem,
    answer: str,
    *,
    actor: str,
    reason: str | None = None,
    undoes: int | None = None,
    at: datetime | None = None,
) -> tuple[Verdict, ...]:
    """One answer to a restructure group: one row per pairing, in the group's order, each naming
    the group in `group_id`, all written in one transaction (all rows or none).

    The refusals of `append_verdict` apply to every pairing. A reversal: when any pairing of the
    group has a standing verdict, `undoes` must name the latest of those rows (the highest seq),
    and each new row then names its own pairing's standing row (None where a pairing had none).
    The rows share one moment. A lone item (no group) is refused: answer its pairing instead.
    """
    if item.group_id is None:
        raise VerdictError(
            f"{item.pairings[0].change.change_id}: a lone pairing, not a restructure group; "
            "answer it with append_verdict"
        )
    changes = tuple(p.change for p in item.pairings)
    return _append(
        workspace,
        changes,
        answer,
        actor=actor,
        reason=reason,
        undoes=undoes,
        at=at,
        group_id=item.group_id,
    )


def _append(
    workspace: Workspace,
    changes: Sequence[Change],
    answer: str,
    *,
    actor: str,
    reason: str | None,
    undoes: int | None,
    at: datetime | None,
    group_id: str | None = None,
    sample_id: str | None = None,
) -> tuple[Verdict, ...]:
    """Write one row per change in one transaction; the checks of `append_verdict` for each."""
    if answer not in ANSWERS:
        raise VerdictError(f"answer {answer!r}: expected one of {', '.join(ANSWERS)}")
    for change in changes:
        if change.front_matter:
            raise VerdictError(
                f"{change.change_id}: a front-matter edit; front-matter edits are listed apart "
                "and never reviewed"
            )
        if sample_id is None and not pairing_is_uncertain(change):
            raise VerdictError(
                f"{change.change_id}: not a doubtful pairing ({change.kind}, confidence "
                f"{change.alignment_confidence}); only pairings pairing_is_uncertain flags are "
                "reviewed"
            )
    name = _clean_actor(actor)
    why = _clean_reason(reason)
    moment = (at or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="microseconds")
    subject = group_id or changes[0].change_id

    def write() -> tuple[Verdict, ...]:
        with workspace.transaction() as conn:
            _ensure_schema(conn)
            if sample_id is not None:
                _check_sampled(conn, sample_id, changes)
            standing: list[Verdict | None] = []
            for change in changes:
                held = [
                    _verdict(r)
                    for r in conn.execute(
                        f"SELECT {_COLUMNS} FROM verdicts WHERE change_id = ? ORDER BY seq",
                        (change.change_id,),
                    )
                ]
                standing.append(standing_verdict(change, held))
            answered = [v for v in standing if v is not None]
            latest = max(answered, key=lambda v: v.seq) if answered else None
            if latest is not None and undoes != latest.seq:
                rows = ", ".join(str(v.seq) for v in sorted(answered, key=lambda v: v.seq))
                where = (
                    f"row {rows}; to change it, answer again naming that row"
                    if len(answered) == 1
                    else f"rows {rows}; to change it, answer again naming the latest, row "
                    f"{latest.seq}"
                )
                raise VerdictError(
                    f"{subject}: already answered {latest.answer} by {latest.actor} at {where} "
                    f"(undoes={latest.seq})"
                )
            if latest is None and undoes is not None:
                what = "group" if group_id else "pairing"
                raise VerdictError(
                    f"{subject}: undoes={undoes}, but the {what} has no standing verdict"
                )
            last = conn.execute(
                "SELECT seq, digest FROM verdicts ORDER BY seq DESC LIMIT 1"
            ).fetchone()
            seq, prev_hash = (last["seq"] + 1, last["digest"]) if last else (1, GENESIS)
            written = []
            for change, before_verdict in zip(changes, standing, strict=True):
                # A doubtful pairing is a pairing kind, which has both spans and both numbers.
                before, after = change.before, change.after
                similarity, confidence = change.similarity, change.alignment_confidence
                assert before is not None and after is not None
                assert similarity is not None and confidence is not None
                draft = Verdict(
                    seq=seq,
                    scheme=SCHEME if sample_id is None else SAMPLED_SCHEME,
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
                    undoes=before_verdict.seq if before_verdict is not None else None,
                    prev_hash=prev_hash,
                    digest="",
                    group_id=group_id,
                    sample_id=sample_id,
                )
                verdict = dataclasses.replace(draft, digest=row_digest(draft.payload()))
                conn.execute(
                    f"INSERT INTO verdicts ({_COLUMNS}) VALUES ({', '.join('?' * 21)})",
                    _row(verdict),
                )
                written.append(verdict)
                seq, prev_hash = seq + 1, verdict.digest
            return tuple(written)

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


def _check_sampled(conn: sqlite3.Connection, sample_id: str, changes: Sequence[Change]) -> None:
    """Refuse an answer given to a sample unless the log holds the sample and it holds exactly
    each pairing (`Sample.item_for`)."""
    row = conn.execute("SELECT record FROM samples WHERE sample_id = ?", (sample_id,)).fetchone()
    if row is None:
        raise VerdictError(f"{sample_id}: no sample with this id in the verdict log")
    sample = Sample.from_record(_sample_record(row["record"], sample_id))
    for change in changes:
        if sample.item_for(change) is None:
            raise VerdictError(f"{change.change_id}: not an item of sample {sample_id}")


def _sample_record(text: str, sample_id: str) -> dict[str, Any]:
    record = strict_json(text, lambda why: VerdictError(f"sample {sample_id}: not JSON: {why}"))
    if not isinstance(record, dict):
        raise VerdictError(f"sample {sample_id}: not JSON: not an object")
    return record


def record_sample(workspace: Workspace, draw: Callable[[str], Sample]) -> Sample:
    """Record a sample in the log and return it. `draw(head)` makes the sample from the log's
    head digest (GENESIS for an empty log), read in the same transaction as the sample is
    written, so the sample names the log it was drawn beside."""

    def write() -> Sample:
        with workspace.transaction() as conn:
            _ensure_schema(conn)
            last = conn.execute("SELECT digest FROM verdicts ORDER BY seq DESC LIMIT 1").fetchone()
            sample = draw(last["digest"] if last else GENESIS)
            conn.execute(
                "INSERT INTO samples (sample_id, record) VALUES (?, ?)",
                (sample.sample_id, canonical_json(sample.record())),
            )
            return sample

    return _with_retries(write)


def read_samples(workspace: Workspace) -> tuple[Sample, ...]:
    """Every recorded sample, in the order drawn (VerdictError for a record that is not JSON)."""

    def read() -> list[sqlite3.Row]:
        with workspace.transaction() as conn:
            _ensure_schema(conn)
            return conn.execute("SELECT sample_id, record FROM samples ORDER BY seq").fetchall()

    return tuple(
        Sample.from_record(_sample_record(r["record"], r["sample_id"])) for r in _with_retries(read)
    )


def sample_holding(workspace: Workspace, change: Change) -> str | None:
    """The id of the latest recorded sample holding exactly `change` (`Sample.item_for`), or
    None: what `review answer` answers a confident pairing under."""
    held = [s for s in read_samples(workspace) if s.item_for(change) is not None]
    return held[-1].sample_id if held else None


def verify_chain(workspace: Workspace) -> ChainReport:
    """Re-derive the whole chain and report the first fault, in sequence order.

    Per row, in this order: its `seq` must be the previous one plus one, starting at 1 (else
    `gap`, naming the first missing number); its scheme must be known (`unknown_scheme`); its
    `prev_hash` must equal the previous row's stored digest, GENESIS for row 1 (`broken_link`);
    its stored digest must equal the digest recomputed from its fields (`altered`); a row under
    scheme 1 or 2 must hold no `sample_id`, and a scheme 3 row must name a recorded sample
    (`altered`). After the last row, SQLite's own high-water mark for the table
    (`sqlite_sequence`) must not exceed it, else rows were cut off the end (`gap`). Then each
    sample, in the order drawn: its record must hash to its id (`altered`) and the log head it
    names must be GENESIS or a row's digest (`broken_link`).
    """

    def read() -> tuple[list[sqlite3.Row], int, list[sqlite3.Row]]:
        with workspace.transaction() as conn:
            _ensure_schema(conn)
            rows = conn.execute(f"SELECT {_COLUMNS} FROM verdicts ORDER BY seq").fetchall()
            mark = conn.execute(
                "SELECT seq FROM sqlite_sequence WHERE name = 'verdicts'"
            ).fetchone()
            samples = conn.execute("SELECT sample_id, record FROM samples ORDER BY seq").fetchall()
        return rows, int(mark["seq"]) if mark else 0, samples

    rows, high_water, samples = _with_retries(read)
    sample_ids = {s["sample_id"] for s in samples}
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
        if verdict.scheme == 1 and verdict.group_id is not None:
            # Scheme 1's digest does not cover group_id, so a value there was put in afterwards.
            return fault(
                "altered",
                verdict.seq,
                f"group_id {verdict.group_id!r} on a scheme 1 row, which cannot carry one",
                index,
            )
        if verdict.scheme != SAMPLED_SCHEME and verdict.sample_id is not None:
            return fault(
                "altered",
                verdict.seq,
                f"sample_id {verdict.sample_id!r} on a scheme {verdict.scheme} row, which cannot "
                "carry one",
                index,
            )
        if verdict.scheme == SAMPLED_SCHEME and verdict.sample_id not in sample_ids:
            return fault(
                "altered",
                verdict.seq,
                f"names sample {verdict.sample_id!r}, which the log does not hold",
                index,
            )
        recomputed = row_digest(verdict.payload())
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
    digests = {GENESIS} | {raw["digest"] for raw in rows}
    for stored in samples:
        stored_id = stored["sample_id"]
        try:
            record = _sample_record(stored["record"], stored_id)
        except VerdictError as exc:
            problem: Any = ("altered", str(exc))
        else:
            problem = None
            if sample_id_of(record) != stored_id:
                problem = ("altered", f"its record hashes to {sample_id_of(record)}")
            elif record.get("log_head") not in digests:
                problem = (
                    "broken_link",
                    f"log_head {record.get('log_head')} is the digest of no row of the log",
                )
        if problem is not None:
            return ChainReport(
                rows=len(rows),
                head=head,
                problem=problem[0],
                seq=None,
                detail=problem[1],
                sample_id=stored_id,
            )
    return ChainReport(
        rows=len(rows), head=head, problem=None, seq=None, detail="", samples=len(samples)
    )
