"""Reviewers' verdicts on doubtful pairings, in an append-only, hash-chained log (DESIGN.md C8).

A doubtful pairing is a change `pairing_is_uncertain` flags (the one doubt predicate, in `diff.py`).
A reviewer answers it: `confirmed` (the two passages really are one passage, edited), `disputed`
(they are not) or `uncertain` (cannot tell), with optional reasoning, their name and the moment. Each
answer is one row of the `verdicts` table in the workspace file. The row quotes the pairing it
judged (change id, both spans) and the computed numbers as they stood (similarity, confidence, cap);
those numbers are never written anywhere else and never overwritten.

The log is append-only and hash-linked. Row `seq` (1, 2, 3, ... with no gaps) holds the digest of
row `seq - 1` (`prev_hash`; the first row holds 64 zeros) and its own `digest`: SHA-256 over the
canonical JSON of the row's fields under a numbered scheme. Scheme 2 (every row written now) covers
every column but `digest`, `group_id` included; scheme 1 (rows written before restructure groups
existed) covers every column but `digest` and `group_id`, and such a row must hold no `group_id`.
Database triggers abort UPDATE and DELETE; `verify_chain` re-derives every link and digest and
reports the first gap, broken link, altered row or unknown scheme, so an edit made by dropping the
triggers is still caught, with the row's sequence number. A log written under scheme 1 alone still
verifies; the `group_id` column is added to it (empty) the first time this code opens it.

**Restructure groups.** A section renumbered or moved as a whole makes a run of capped pairings
whose labels all change the same way (7 -> 6, 8 -> 7, 9 -> 8: the leading number shifted by one).
`review_items` puts such a run in one `ReviewItem` (the rule is in `relabelling` and
`review_items`); one answer to it (`append_group_verdict`) writes one row per pairing, each naming
the group's id. A doubtful pairing outside any group is an item of its own.

**Orphaned verdicts.** A row whose pairing the current diff no longer produces (the diff improved,
or a version was added between the two it compared) is kept and reported by `orphaned_verdicts`,
never dropped and never re-attached to another change.

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
import functools
import re
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast, get_args

from workbench.changes.diff import (
    RESTRUCTURE_CONFIDENCE_CEILING,
    change_as_json,
    diff_versions,
    pairing_is_uncertain,
)
from workbench.changes.diff import (
    change_id as change_id_of,
)
from workbench.errors import ChangeNotFound, VerdictError
from workbench.models import Change, Span, Version, consecutive_pairs, content_id
from workbench.text.profiles import Profile, choose_profile
from workbench.text.segment import segment_version
from workbench.workspace import Workspace

if TYPE_CHECKING:
    import polars as pl

Answer = Literal["confirmed", "disputed", "uncertain"]
ANSWERS: tuple[Answer, ...] = get_args(Answer)
SCHEME = 2  # the scheme every new row is written under (its digest covers group_id)
KNOWN_SCHEMES = frozenset({1, SCHEME})
GENESIS = "0" * 64
MAX_ACTOR_CHARS = 200
MAX_REASON_CHARS = 10_000
BUSY_RETRIES = 8
_CHANGE_ID = re.compile(r"chg-[0-9a-f]{20}")
_GROUP_ID = re.compile(r"grp-[0-9a-f]{20}")

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
        group_id TEXT
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
    "undoes, prev_hash, digest, group_id"
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
    group_id: str | None = None  # the restructure group the answer was given to, or None

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


def _diffs(
    workspace: Workspace,
    family: str | None,
    jurisdiction: str | None,
    profiles: Sequence[Profile] | None,
) -> Iterator[tuple[Version, Version, tuple[Change, ...]]]:
    """Each consecutive held version pair and its whole diff, in the listing's order."""
    held = _held(workspace, family, jurisdiction)
    readers = _readers(held, profiles)
    for before, after in consecutive_pairs(held):
        yield (
            before,
            after,
            diff_versions(before, after, readers[(before.jurisdiction, before.family)]),
        )


def _pairing(before: Version, after: Version, change: Change) -> Pairing:
    return Pairing(
        jurisdiction=before.jurisdiction,
        family=before.family,
        before_id=before.version_id,
        after_id=after.version_id,
        change=change,
    )


def in_review_queue(change: Change) -> bool:
    """A pairing the review queue holds: doubtful (`pairing_is_uncertain`) and not a
    front-matter edit (`Change.front_matter`: a title page or a metadata block changed, which no
    reviewer is asked to pair)."""
    return pairing_is_uncertain(change) and not change.front_matter


def doubtful_pairings(
    workspace: Workspace,
    family: str | None = None,
    *,
    jurisdiction: str | None = None,
    profiles: Sequence[Profile] | None = None,
) -> tuple[Pairing, ...]:
    """Every pairing the review queue holds (`in_review_queue`: doubtful, no front-matter edit),
    between consecutive held versions.

    The diffs are recomputed from the held versions (change ids are deterministic, so a verdict
    given yesterday names the same change today). Order: jurisdiction, family, version order, then
    the diff's own output order. `family` or `jurisdiction` narrows the set; an unknown family
    raises FamilyNotFound. Each family is segmented through the profile `measure` would choose
    from `profiles` (default: the shipped ones).
    """
    return tuple(
        _pairing(before, after, change)
        for before, after, changes in _diffs(workspace, family, jurisdiction, profiles)
        for change in changes
        if in_review_queue(change)
    )


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
    for before, after in consecutive_pairs(held):
        make = functools.partial(change_id_of, before.version_id, after.version_id)
        reader = readers[(before.jurisdiction, before.family)]
        # The diff segments through the family's profile; the bound must count those passages.
        bound = len(segment_version(before, reader)) + len(segment_version(after, reader))
        if any(make(position) == change_id for position in range(bound)):
            for change in diff_versions(before, after, reader):
                if change.change_id == change_id:
                    return _pairing(before, after, change)
    where = f"family {family}" if family is not None else "any family"
    raise ChangeNotFound(
        f"{change_id}: no change with this id in the diffs of {where} held in {workspace.path}; "
        "see 'workbench review list'"
    )


# ---------------------------------------------------------------------------------------------
# Restructure groups, the review queue's items, and why a pairing is doubtful

_LABEL_TOKEN = re.compile(r"[0-9]+|[A-Za-z]+|[^0-9A-Za-z]+")


@dataclass(frozen=True, slots=True, kw_only=True)
class Relabel:
    """How one section label became another: the number standing after `prefix` moved by `shift`.

    `7` -> `6` is (prefix "", shift -1); `3.4` -> `3.5` is (prefix "3.", shift +1); `(a)` -> `(b)`
    is (prefix "(", shift +1).
    """

    prefix: str
    shift: int

    def line(self) -> str:
        where = f"after {self.prefix!r}" if self.prefix else "leading"
        return f"{where} number {self.shift:+d}"


def relabelling(before_label: str | None, after_label: str | None) -> Relabel | None:
    """The one-number renumbering that turns `before_label` into `after_label`, or None.

    Each label is cut into tokens: runs of digits, runs of ASCII letters, runs of anything else.
    The two labels are a renumbering when they have as many tokens, every token is equal but one,
    and that one is a digit run on both sides (the shift is the difference of their values) or a
    single letter of the same case on both sides (the difference of their code points). The
    shift is never 0 (`07` -> `7` is a reprinting, not a renumbering). A missing label, equal
    labels, or labels differing in more than one token or in shape (`6` -> `5.4`, `(2` -> `(2)`)
    give None.
    """
    if before_label is None or after_label is None or before_label == after_label:
        return None
    a, b = _LABEL_TOKEN.findall(before_label), _LABEL_TOKEN.findall(after_label)
    differing = [k for k in range(len(a)) if len(a) == len(b) and a[k] != b[k]]
    if len(differing) != 1:
        return None
    k = differing[0]
    x, y = a[k], b[k]
    if x.isdigit() and y.isdigit():
        shift = int(y) - int(x)
    elif len(x) == len(y) == 1 and x.isalpha() and y.isalpha() and x.islower() == y.islower():
        shift = ord(y) - ord(x)
    else:
        return None
    return Relabel(prefix="".join(a[:k]), shift=shift) if shift else None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReviewItem:
    """One entry of the review queue: a restructure group (`group_id` set, two or more pairings
    of one version pair, `relabel` their shared renumbering) or a lone doubtful pairing
    (`group_id` and `relabel` None, one pairing)."""

    group_id: str | None
    relabel: Relabel | None
    pairings: tuple[Pairing, ...]

    @property
    def is_group(self) -> bool:
        return self.group_id is not None

    @property
    def item_id(self) -> str:
        """What `workbench review answer` takes: the group id, or the lone pairing's change id."""
        return self.group_id or self.pairings[0].change.change_id


def group_id_of(change_ids: Sequence[str]) -> str:
    """ "grp-" and the first 20 hex digits of SHA-256 over the canonical JSON of the change ids,
    in diff order (deterministic, since change ids are)."""
    return "grp-" + content_id(list(change_ids))[:20]


def items_of_pair(before: Version, after: Version, changes: Sequence[Change]) -> list[ReviewItem]:
    """The review items of one version pair's diff, by the rule in `review_items`."""
    items: list[ReviewItem] = []
    run: list[Change] = []
    run_relabel: Relabel | None = None

    def close() -> None:
        if len(run) >= 2:
            pairings = tuple(_pairing(before, after, c) for c in run)
            gid = group_id_of([c.change_id for c in run])
            items.append(ReviewItem(group_id=gid, relabel=run_relabel, pairings=pairings))
        else:
            items.extend(_lone(_pairing(before, after, c)) for c in run)
        run.clear()

    for change in changes:
        if change.front_matter:  # never reviewed, and no part of a section's renumbering
            continue
        relabel = relabelling(change.before_label, change.after_label)
        both_labelled = change.before_label is not None and change.after_label is not None
        paired = change.before is not None and change.after is not None
        if pairing_is_uncertain(change) and relabel is not None:
            if run and relabel != run_relabel:
                close()
            run.append(change)
            run_relabel = relabel
            continue
        # CAUTION: a labelled pairing that maps otherwise (labels kept, or changed another way)
        # ends the run even when it is not doubtful: the section did not move as a whole.
        if run and paired and both_labelled and relabel != run_relabel:
            close()
        if pairing_is_uncertain(change):
            items.append(_lone(_pairing(before, after, change)))
    close()
    position = {c.change_id: k for k, c in enumerate(changes)}
    return sorted(items, key=lambda item: position[item.pairings[0].change.change_id])


def _lone(pairing: Pairing) -> ReviewItem:
    return ReviewItem(group_id=None, relabel=None, pairings=(pairing,))


def review_items(
    workspace: Workspace,
    family: str | None = None,
    *,
    jurisdiction: str | None = None,
    profiles: Sequence[Profile] | None = None,
) -> tuple[ReviewItem, ...]:
    """The review queue: the doubtful pairings of `doubtful_pairings`, restructure groups counted
    once.

    The rule, per consecutive version pair, walking its diff in output order: a doubtful pairing
    whose labels are a renumbering (`relabelling` is not None) joins the current run when the run
    has the same `Relabel` (same prefix, same shift), else starts a new run. A run ends at a
    doubtful pairing with another renumbering, and at any change that pairs two labelled
    passages without that renumbering (its labels kept, or changed otherwise), doubtful or not;
    a front-matter edit (`Change.front_matter`) is never an item and neither joins nor ends a run;
    changes with a side or a label missing (added, removed, unlabelled passages) neither join nor
    end a run. A run of two or more pairings is one group (`group_id_of` its change ids); a run of
    one, and every doubtful pairing with no renumbering, is a lone item. Runs are maximal and
    taken left to right, so no tie arises. Items stand in the order of their first pairing; every
    doubtful pairing is in exactly one item. Narrowing and profiles as in `doubtful_pairings`.
    """
    out: list[ReviewItem] = []
    for before, after, changes in _diffs(workspace, family, jurisdiction, profiles):
        out.extend(items_of_pair(before, after, changes))
    return tuple(out)


def find_item(
    workspace: Workspace,
    item_id: str,
    *,
    family: str | None = None,
    profiles: Sequence[Profile] | None = None,
) -> ReviewItem:
    """The review item named by a group id (`grp-...`) or a change id (`chg-...`).

    A change id gives the lone item of that change (`find_change`), whether or not a group holds
    it: a reviewer may answer one pairing of a group on its own. A group id is looked for in the
    queue of `family` (default: every family). ChangeNotFound when the id is malformed or named
    by nothing held.
    """
    if not _GROUP_ID.fullmatch(item_id):
        return _lone(find_change(workspace, item_id, family=family, profiles=profiles))
    for item in review_items(workspace, family, profiles=profiles):
        if item.group_id == item_id:
            return item
    where = f"family {family}" if family is not None else "any family"
    raise ChangeNotFound(
        f"{item_id}: no restructure group with this id in the diffs of {where} held in "
        f"{workspace.path}; see 'workbench review list'"
    )


def doubt_reasons(change: Change) -> tuple[str, ...]:
    """Why `pairing_is_uncertain` flags `change`, as short phrases, in this order.

    "split or merge" (a split or merged change: always capped); "move across sections" (a moved
    passage whose section labels disagree); "label cap" (any other pairing whose labels
    disagree); "low similarity" (the texts are no more than `RESTRUCTURE_CONFIDENCE_CEILING`
    alike). Empty for a change that is not doubtful.
    """
    if not pairing_is_uncertain(change):
        return ()
    reasons = []
    if change.kind in ("split", "merged"):
        reasons.append("split or merge")
    if change.capped:
        reasons.append("move across sections" if change.kind == "moved" else "label cap")
    if change.similarity is not None and change.similarity <= RESTRUCTURE_CONFIDENCE_CEILING:
        reasons.append("low similarity")
    return tuple(reasons)


# ---------------------------------------------------------------------------------------------
# Orphaned verdicts

OrphanReason = Literal["pair_not_consecutive", "change_gone", "pairing_changed"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Orphan:
    """A row of the log whose pairing the current diffs do not produce, and why.

    `pair_not_consecutive`: its two versions are not consecutive held versions of one family (a
    version was added between them); `change_gone`: the diff of its pair has no change with its
    id; `pairing_changed`: the id now names other passages.
    """

    verdict: Verdict
    reason: OrphanReason
    detail: str


def orphaned_verdicts(
    workspace: Workspace,
    verdicts: Sequence[Verdict] | None = None,
    *,
    profiles: Sequence[Profile] | None = None,
) -> tuple[Orphan, ...]:
    """The rows of the log (or of `verdicts`) that no current change is quoted by, in seq order.

    A row stands on its pairing when the diff of its two versions, recomputed as `review_items`
    does (the same profiles), holds a change with its id and the same two passages
    (`Verdict.quotes`). Otherwise it is an orphan: kept in the log, reported here, never
    re-attached to another change. Each version pair is diffed once.
    """
    rows = read_verdicts(workspace) if verdicts is None else tuple(verdicts)
    held = workspace.versions()
    readers = _readers(held, profiles)
    pairs = {(a.version_id, b.version_id): (a, b) for a, b in consecutive_pairs(held)}
    diffs: dict[tuple[str, str], dict[str, Change]] = {}
    out = []
    for verdict in sorted(rows, key=lambda v: v.seq):
        key = (verdict.before.version_id, verdict.after.version_id)
        if key not in pairs:
            out.append(
                Orphan(
                    verdict=verdict,
                    reason="pair_not_consecutive",
                    detail=f"{key[0]} -> {key[1]} are not consecutive held versions of one family",
                )
            )
            continue
        if key not in diffs:
            before, after = pairs[key]
            reader = readers[(before.jurisdiction, before.family)]
            diffs[key] = {c.change_id: c for c in diff_versions(before, after, reader)}
        change = diffs[key].get(verdict.change_id)
        if change is None:
            out.append(
                Orphan(
                    verdict=verdict,
                    reason="change_gone",
                    detail=f"the diff {key[0]} -> {key[1]} has no change {verdict.change_id}",
                )
            )
        elif not verdict.quotes(change):
            out.append(
                Orphan(
                    verdict=verdict,
                    reason="pairing_changed",
                    detail=f"{verdict.change_id} now pairs other passages ({change.kind})",
                )
            )
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# The log


def _ensure_schema(conn: sqlite3.Connection) -> None:
    """Create the table and triggers, and add `group_id` to a log made before it existed.

    ADD COLUMN rewrites no row (the UPDATE trigger does not fire) and gives every old row NULL,
    which is what scheme 1 requires.
    """
    for statement in _SCHEMA:
        conn.execute(statement)
    columns = {row[1] for row in conn.execute("PRAGMA table_info(verdicts)")}
    if "group_id" not in columns:
        conn.execute("ALTER TABLE verdicts ADD COLUMN group_id TEXT")


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
    return content_id(payload)


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
    )


def _payload_of(v: Verdict) -> dict[str, Any]:
    """The row's canonical record under its scheme: every column but the digest itself, and for
    scheme 1 also without `group_id` (that scheme predates it)."""
    payload = {
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
    if v.scheme != 1:
        payload["group_id"] = v.group_id
    return payload


def _row(v: Verdict) -> tuple[Any, ...]:
    """The verdict as the table's columns, in `_COLUMNS` order."""
    return (
        *(v.seq, v.scheme, v.change_id),
        *(v.before.version_id, v.before.char_start, v.before.char_end),
        *(v.after.version_id, v.after.char_start, v.after.char_end),
        *(v.answer, v.reason, v.actor, v.answered_at),
        *(v.similarity, v.alignment_confidence, int(v.capped), v.undoes, v.prev_hash, v.digest),
        v.group_id,
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
    (verdict,) = _append(
        workspace, (change,), answer, actor=actor, reason=reason, undoes=undoes, at=at
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
        if not pairing_is_uncertain(change):
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
                    undoes=before_verdict.seq if before_verdict is not None else None,
                    prev_hash=prev_hash,
                    digest="",
                    group_id=group_id,
                )
                verdict = dataclasses.replace(draft, digest=row_digest(_payload_of(draft)))
                conn.execute(
                    f"INSERT INTO verdicts ({_COLUMNS}) VALUES ({', '.join('?' * 20)})",
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


def verify_chain(workspace: Workspace) -> ChainReport:
    """Re-derive the whole chain and report the first fault, in sequence order.

    Per row, in this order: its `seq` must be the previous one plus one, starting at 1 (else
    `gap`, naming the first missing number); its scheme must be known (`unknown_scheme`); its
    `prev_hash` must equal the previous row's stored digest, GENESIS for row 1 (`broken_link`);
    its stored digest must equal the digest recomputed from its fields (`altered`). After the last
    row, SQLite's own high-water mark for the table (`sqlite_sequence`) must not exceed it, else
    rows were cut off the end (`gap`).
    """

    def read() -> tuple[list[sqlite3.Row], int]:
        with workspace.transaction() as conn:
            _ensure_schema(conn)
            rows = conn.execute(f"SELECT {_COLUMNS} FROM verdicts ORDER BY seq").fetchall()
            mark = conn.execute(
                "SELECT seq FROM sqlite_sequence WHERE name = 'verdicts'"
            ).fetchone()
        return rows, int(mark["seq"]) if mark else 0

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
        if verdict.scheme == 1 and verdict.group_id is not None:
            # Scheme 1's digest does not cover group_id, so a value there was put in afterwards.
            return fault(
                "altered",
                verdict.seq,
                f"group_id {verdict.group_id!r} on a scheme 1 row, which cannot carry one",
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
        "doubt": list(doubt_reasons(change)),
        "caution_stands": pairing_caution_stands(change, verdicts),
        "standing_verdict": standing.seq if standing else None,
        "answer": standing.answer if standing else None,
        "group_id": standing.group_id if standing else None,
    }


def item_caution_stands(item: ReviewItem, verdicts: Iterable[Verdict]) -> bool:
    """Caution on a review item: `pairing_caution_stands` holds on any of its pairings."""
    held = tuple(verdicts)
    return any(pairing_caution_stands(p.change, held) for p in item.pairings)


def item_as_json(item: ReviewItem, verdicts: Sequence[Verdict]) -> dict[str, Any]:
    """The JSON shape `workbench review list --json` prints for one review item: `item` is
    "group" or "pairing"; a group carries its id, renumbering and pairings, a lone pairing its
    pairing's fields (`pairing_as_json`) at the top level."""
    if item.group_id is None:
        return {"item": "pairing", **pairing_as_json(item.pairings[0], verdicts)}
    assert item.relabel is not None
    return {
        "item": "group",
        "group_id": item.group_id,
        "relabel": {"prefix": item.relabel.prefix, "shift": item.relabel.shift},
        "caution_stands": item_caution_stands(item, verdicts),
        "pairings": [pairing_as_json(p, verdicts) for p in item.pairings],
    }


# The fields of `diff.change_as_json` a review row repeats, in the order it prints them.
_CHANGE_FIELDS = (
    "kind",
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
