"""The review queue as the workspace stores it (C8 at scale): each version pair's review items kept
under the pair's content key, and the queue read a page at a time, giving exactly
`queue.review_items`' items in its order. The tables and keys are in docs/review.md."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from workbench.changes.kept import (
    KeptChanges,
    change_from_row,
    change_row,
    changes_json,
    keep,
    measured_diffs,
    profile_sources,
    version_lines,
)
from workbench.changes.pairs import some_family_changes
from workbench.changes.queue import Pairing, Relabel, ReviewItem, item_caution_stands, items_of_pair
from workbench.changes.verdict import Verdict
from workbench.derived import DerivedState, Kept, code_digest, derived_key
from workbench.errors import ChangeNotFound, FamilyNotFound
from workbench.models import Change, Version, consecutive_pairs
from workbench.progress import bar
from workbench.text.choice import choose_profile
from workbench.text.profiles import Profile, registry_digest
from workbench.workspace import Workspace
from workbench.workspace.parts import family_headings

_SCHEMA = """
CREATE TABLE IF NOT EXISTS review_pairs (
    pair_key TEXT PRIMARY KEY, jurisdiction TEXT NOT NULL, family TEXT NOT NULL, items TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS review_pairs_by_family ON review_pairs (jurisdiction, family);
CREATE TABLE IF NOT EXISTS review_families (
    jurisdiction TEXT NOT NULL, family TEXT NOT NULL, family_key TEXT NOT NULL,
    PRIMARY KEY (jurisdiction, family)
);
CREATE TABLE IF NOT EXISTS review_queue (
    jurisdiction TEXT NOT NULL,
    family TEXT NOT NULL,
    pair_index INTEGER NOT NULL,
    item_index INTEGER NOT NULL,
    item_id TEXT NOT NULL UNIQUE,
    before_id TEXT NOT NULL,
    after_id TEXT NOT NULL,
    group_id TEXT,
    cause TEXT,
    pairings INTEGER NOT NULL,
    change_ids TEXT NOT NULL,
    item TEXT NOT NULL,
    PRIMARY KEY (jurisdiction, family, pair_index, item_index)
);
CREATE INDEX IF NOT EXISTS review_queue_by_family ON review_queue (family);
-- the refresh's state is its record in derived_state (`REFRESHED`)
DROP TABLE IF EXISTS review_meta;
"""

_ORDER = "jurisdiction, family, pair_index, item_index"
REFRESHED = "review-queue"  # the refresh's record in `derived.DerivedState`


@dataclass(frozen=True, slots=True, kw_only=True)
class Refreshed:
    """What `refresh_review_queue` did: families read again; of their pairs, those diffed from
    the versions, those whose kept diff was taken, and those whose stored items were read back."""

    families: int
    diffed: int
    taken: int
    reused: int


@dataclass(frozen=True, slots=True, kw_only=True)
class QueuePage:
    """One page of the review queue: its items, in queue order; the version pair of the item
    just before the page (None on the first page), so a listing does not repeat a pair heading a
    page continues; and the cursor for the next page (the last item's id; None on the last page)."""

    items: tuple[ReviewItem, ...]
    previous_pair: tuple[str, str] | None
    next_after: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class QueueSummary:
    """Counts over the whole queue (or one family's), as the listing's last line gives them."""

    items: int
    groups: int  # restructure groups
    grouped: int  # their pairings
    machine: int  # machine-read groups
    machined: int  # their pairings
    stands: int  # items on which caution stands (`queue.item_caution_stands`)

    @property
    def lone(self) -> int:
        return self.items - self.groups - self.machine


# ---------------------------------------------------------------------------------------------
# Storage shape of a pair's items


def _items_json(items: Sequence[ReviewItem]) -> str:
    """The storage form of one pair's items: each item's group, renumbering and cause, and
    each pairing's change in the one stored shape of a change (`kept.change_row`), so reading
    it back gives equal records."""
    return json.dumps(
        [
            {
                "group_id": item.group_id,
                "relabel": None
                if item.relabel is None
                else [item.relabel.prefix, item.relabel.shift],
                "cause": item.cause,
                "changes": [change_row(p.change) for p in item.pairings],
            }
            for item in items
        ],
        ensure_ascii=False,
        separators=(",", ":"),
    )


def _item(
    stored: dict[str, Any], jurisdiction: str, family: str, pair: tuple[str, str]
) -> ReviewItem:
    relabel = stored["relabel"]
    return ReviewItem(
        group_id=stored["group_id"],
        relabel=None if relabel is None else Relabel(prefix=relabel[0], shift=relabel[1]),
        cause=stored["cause"],
        pairings=tuple(
            Pairing(
                jurisdiction=jurisdiction,
                family=family,
                before_id=pair[0],
                after_id=pair[1],
                change=change_from_row(change, *pair),
            )
            for change in stored["changes"]
        ),
    )


# ---------------------------------------------------------------------------------------------
# Keys and refresh


def _family_keys(
    workspace: Workspace,
    registry_key: str,
    code: str,
    only: tuple[str, str] | None = None,
) -> dict[tuple[str, str], tuple[str, tuple[str, ...]]]:
    """Each held family's key and its version ids in version order (of the family `only`
    names, when given): the key is SHA-256 over the registry's key and its versions' lines
    (`kept.version_lines`: ids, orders, text hashes and origin records) and the code digest.
    Read from the versions table's `versions_content` index and the origin records alone (no
    text is read)."""
    return {
        key: _family_key(lines, registry_key, code)
        for key, lines in version_lines(workspace, only).items()
    }


def _family_key(
    lines: Mapping[str, str], registry_key: str, code: str
) -> tuple[str, tuple[str, ...]]:
    return derived_key("review-family", [registry_key, *lines.values()], code), tuple(lines)


def _touched(workspace: Workspace, kept: Kept) -> list[tuple[str, str]]:
    """The families whose key may differ from the one stored when the refresh recorded `kept`
    (its watermark, the versions' last row it consumed, and the origin records' last row in its
    value): those of the versions admitted since, and of the versions with an origin record
    added since. No other family's key can differ, as both tables are append-only (their
    triggers refuse UPDATE and DELETE)."""
    # CAUTION: sound only while `versions` and `text_origins` are append-only.
    return workspace.read(
        "SELECT DISTINCT jurisdiction, family FROM versions WHERE rowid > ? OR version_id IN "
        "(SELECT version_id FROM text_origins WHERE rowid > ?) ORDER BY jurisdiction, family",
        (kept.watermark, kept.value["origins"]),
    )


def _last_origin(workspace: Workspace) -> int:
    return int(workspace.read("SELECT coalesce(max(rowid), 0) FROM text_origins")[0][0])


def pair_key(before: Version, after: Version, profile: Profile, code: str) -> str:
    """The content key of one pair's review items (docs/review.md)."""
    return _pair_key(before, after, (profile.name, profile.sha256), code)


def _pair_key(before: Version, after: Version, profile: tuple[str, str], code: str) -> str:
    def side(version: Version) -> list[Any]:
        origin = None if version.origin is None else version.origin.as_json()
        return [version.version_id, version.text_sha256, origin]

    return derived_key("review-pair", [side(before), side(after), list(profile)], code)


# pair key, before id, after id, items JSON, and the pair's whole diff (`kept.changes_json`)
StoredPair = tuple[str, str, str, str, KeptChanges]


def measured_pairs(
    pairs: Sequence[tuple[Version, Version, Sequence[Change], Sequence[ReviewItem]]],
    profile: tuple[str, str],
    code: str,
) -> tuple[StoredPair, ...]:
    """The stored rows of a family's consecutive pairs whose diffs and items were computed
    elsewhere (by `measure`'s map, which diffs every pair through the family's profile and calls
    `items_of_pair`, as `refresh_review_queue` does): each pair's content key, for `profile`
    (name, SHA-256) and `code`, its version ids, its items in their storage form and its whole
    diff in its kept form."""
    return tuple(
        (
            _pair_key(before, after, profile, code),
            before.version_id,
            after.version_id,
            _items_json(items),
            changes_json(changes),
        )
        for before, after, changes, items in pairs
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class MeasuredQueue:
    """Where `measure` stores the review items and diffs its map computed (`measured_queue`)."""

    workspace: Workspace
    registry_key: str
    code: str
    sources: list[list[str]] | None  # `kept.profile_sources` (None: no diff is kept)

    def store(
        self,
        jurisdiction: str,
        family: str,
        version_ids: Sequence[str],
        pairs: Sequence[StoredPair],
        code: str,
    ) -> bool:
        """Store one family's review items and diffs as the map computed them (`measured_pairs`,
        under `code`), so that `refresh_review_queue` reads the items back and diffs nothing,
        and `workbench diff` reads the diffs (`kept`). Written only when they are what the
        refresh would compute: `code` is this process's code digest and `version_ids` (the
        versions measured, in order) are the family's held versions, paired consecutively by
        `pairs`; otherwise nothing is written (the refresh computes the family when a listing
        asks) and False is returned. The family's key is the refresh's (`_family_keys`), so the
        refresh, seeing it, does not read the family again."""
        if code != self.code:
            return False
        lines = version_lines(self.workspace, (jurisdiction, family)).get((jurisdiction, family))
        if lines is None or tuple(lines) != tuple(version_ids):
            return False
        if [(b, a) for _, b, a, _, _ in pairs] != list(pairwise(version_ids)):
            return False
        family_key = _family_key(lines, self.registry_key, code)[0]
        _write_family(self.workspace, jurisdiction, family, family_key, pairs)
        if self.sources is not None:
            diffs = [(b, a, changes) for _, b, a, _, changes in pairs]
            kept = measured_diffs(lines, self.sources, diffs, code)
            keep(self.workspace, (jurisdiction, family), kept, whole=True)
        return True


def measured_queue(workspace: Workspace, profiles: Sequence[Profile]) -> MeasuredQueue | None:
    """The writer of the map's review items and diffs into `workspace`, for a map that chose
    each family's profile from `profiles`; None when `profiles` is not the registry the
    workspace reads (`Workspace.profile_registry`), since the refresh would choose from another."""
    registry_key = registry_digest(profiles)
    if registry_key != registry_digest(workspace.profile_registry()):
        return None
    _create_schema(workspace)
    return MeasuredQueue(
        workspace=workspace,
        registry_key=registry_key,
        code=code_digest(),
        sources=profile_sources(workspace.settings.profile_folders()),
    )


def _create_schema(workspace: Workspace) -> None:
    with workspace.transaction() as conn:
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)


def refresh_review_queue(
    workspace: Workspace, profiles: Sequence[Profile], *, progress: bool = False
) -> Refreshed:
    """Bring the stored queue up to date with the held versions, read through `profiles` (the
    registry `measure` chooses from, `Workspace.profile_registry()`).

    The refresh records its watermark (`derived.DerivedState`, kind "review-queue": the
    versions' last row and the origin records' last row it consumed, under a key of the
    registry and the code). Under that key, only the families of versions admitted or given an
    origin record since (`_touched`) are keyed again, and none when there are none; under
    another (other code or profiles, or no record), every family's key is read. A family whose
    key (docs/review.md) is the stored one is not read. Every other family is read, its
    profile chosen as `queue.review_items` chooses it, each of its consecutive pairs'
    items read from `review_pairs` by the pair's key or, when none is stored, computed by
    `items_of_pair` over the pair's one diff and stored: the diff kept under the key computed
    now, else diffed from the versions and kept (`pairs.some_family_changes`), and only for
    those pairs. Its queue rows are then replaced, and its pair rows no longer used are
    dropped, in one transaction per family. Families no longer held lose their rows. Returns
    how many families were read and pairs diffed, taken kept or read back. A workspace
    nobody may write is read as it is when its stored queue is up to date, else refused (the
    first write names the reason)."""
    if workspace.read_only is None:
        _create_schema(workspace)
    code = code_digest()
    registry_key = registry_digest(profiles)
    record = derived_key(REFRESHED, [registry_key], code)
    derived = DerivedState(workspace)
    kept = derived.kept(REFRESHED, "queue")
    touched = _touched(workspace, kept) if kept is not None and kept.key == record else None
    if touched == []:
        return Refreshed(families=0, diffed=0, taken=0, reused=0)
    held = {
        (j, f): k
        for j, f, k in workspace.read(
            "SELECT jurisdiction, family, family_key FROM review_families"
        )
    }
    if touched is not None:
        wanted = {
            family: key
            for only in touched
            for family, (key, _) in _family_keys(workspace, registry_key, code, only).items()
        }
        gone = []
    else:  # other code or profiles, or never refreshed: every family's key is read
        wanted = {
            family: key for family, (key, _) in _family_keys(workspace, registry_key, code).items()
        }
        gone = sorted(set(held) - set(wanted))
    stale = sorted(key for key, value in wanted.items() if held.get(key) != value)
    diffed = taken = reused = 0
    for jurisdiction, family in bar(stale, desc="review queue", unit="family", enabled=progress):
        versions = [v for v in workspace.versions(family) if v.jurisdiction == jurisdiction]
        profile = choose_profile(
            versions, profiles, headings=family_headings(workspace, versions)
        ).profile
        stored = dict(
            workspace.read(
                "SELECT pair_key, items FROM review_pairs WHERE jurisdiction = ? AND family = ?",
                (jurisdiction, family),
            )
        )
        chosen = consecutive_pairs(versions)
        keys = [pair_key(before, after, profile, code) for before, after in chosen]
        # Only the pairs with no stored items need their diff: the kept one under the key
        # computed now, else diffed and kept (`pairs.some_family_changes`).
        missing = [k for k, key in enumerate(keys) if key not in stored]
        found = some_family_changes(workspace, chosen, profiles, missing, profile=profile)
        pairs: list[tuple[str, str, str, str]] = []  # key, before id, after id, items JSON
        for k, (key, (before, after)) in enumerate(zip(keys, chosen, strict=True)):
            items = stored.get(key) or _items_json(items_of_pair(before, after, found.changes[k]))
            pairs.append((key, before.version_id, after.version_id, items))
        diffed, taken = diffed + found.diffed, taken + len(missing) - found.diffed
        reused += len(keys) - len(missing)
        _write_family(workspace, jurisdiction, family, wanted[(jurisdiction, family)], pairs)
    for jurisdiction, family in gone:
        _write_family(workspace, jurisdiction, family, None, [])
    if workspace.read_only is None:
        derived.keep(REFRESHED, "queue", record, {"origins": _last_origin(workspace)})
    return Refreshed(families=len(stale), diffed=diffed, taken=taken, reused=reused)


def _write_family(
    workspace: Workspace,
    jurisdiction: str,
    family: str,
    family_key: str | None,
    pairs: Sequence[tuple[str, str, str, str]] | Sequence[StoredPair],
) -> None:
    """Replace one family's stored rows by `pairs` (None key: the family is no longer held)."""
    where = "WHERE jurisdiction = ? AND family = ?"
    with workspace.transaction() as conn:
        for table in ("review_queue", "review_pairs", "review_families"):
            conn.execute(f"DELETE FROM {table} {where}", (jurisdiction, family))
        if family_key is None:
            return
        conn.executemany(
            "INSERT OR REPLACE INTO review_pairs VALUES (?, ?, ?, ?)",
            [(pair[0], jurisdiction, family, pair[3]) for pair in pairs],
        )
        conn.executemany(
            "INSERT INTO review_queue VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            list(_queue_rows(jurisdiction, family, pairs)),
        )
        conn.execute(
            "INSERT INTO review_families VALUES (?, ?, ?)", (jurisdiction, family, family_key)
        )


def _queue_rows(
    jurisdiction: str,
    family: str,
    pairs: Sequence[tuple[str, str, str, str]] | Sequence[StoredPair],
) -> Iterator[tuple[Any, ...]]:
    for pair_index, pair in enumerate(pairs):
        before_id, after_id, items = pair[1], pair[2], str(pair[3])
        for item_index, stored in enumerate(json.loads(items)):
            changes = [c[0] for c in stored["changes"]]  # a change's id leads its row
            item_id = stored["group_id"] or changes[0]
            yield (
                jurisdiction,
                family,
                pair_index,
                item_index,
                item_id,
                before_id,
                after_id,
                stored["group_id"],
                stored["cause"],
                len(changes),
                " ".join(changes),
                json.dumps(stored, ensure_ascii=False, separators=(",", ":")),
            )


# ---------------------------------------------------------------------------------------------
# Reading


def _family_where(workspace: Workspace, family: str | None) -> tuple[str, tuple[Any, ...]]:
    if family is None:
        return "", ()
    if not workspace.read("SELECT 1 FROM versions WHERE family = ? LIMIT 1", (family,)):
        raise FamilyNotFound(f"{family}: no such family in {workspace.path}")
    return " AND family = ?", (family,)


def review_page(
    workspace: Workspace, family: str | None = None, *, after: str | None = None, limit: int = 0
) -> QueuePage:
    """Up to `limit` items of the stored queue (0: every one), in queue order, starting after the
    item `after` names (None: at the first). Read by one query on `review_queue`'s primary key;
    call `refresh_review_queue` first. FamilyNotFound for a family not held; ChangeNotFound when
    `after` is not an item of the queue (of `family`, when named)."""
    where, params = _family_where(workspace, family)
    start = "1"
    start_params: tuple[Any, ...] = ()
    previous: tuple[str, str] | None = None
    if after is not None:
        found = workspace.read(
            f"SELECT {_ORDER}, before_id, after_id FROM review_queue WHERE item_id = ?{where}",
            (after, *params),
        )
        if not found:
            scope = f"family {family}" if family is not None else "the review queue"
            raise ChangeNotFound(
                f"{after}: not an item of {scope} in {workspace.path}; "
                "--after takes an item id 'workbench review list' printed"
            )
        *order, before_id, after_id = found[0]
        start_params = tuple(order)
        start, previous = f"({_ORDER}) > (?, ?, ?, ?)", (before_id, after_id)
    bound = " LIMIT ?" if limit else ""
    rows = workspace.read(
        f"SELECT jurisdiction, family, before_id, after_id, item FROM review_queue "
        f"WHERE {start}{where} ORDER BY {_ORDER}{bound}",
        (*start_params, *params, *((limit + 1,) if limit else ())),
    )
    more = bool(limit) and len(rows) > limit
    rows = rows[:limit] if limit else rows
    items = tuple(_item(json.loads(item), j, f, (b, a)) for j, f, b, a, item in rows)
    return QueuePage(
        items=items,
        previous_pair=previous,
        next_after=items[-1].item_id if more and items else None,
    )


def queue_summary(
    workspace: Workspace, family: str | None, verdicts: Sequence[Verdict]
) -> QueueSummary:
    """The counts of the whole stored queue (of `family`, when named). Caution is decided by
    `queue.item_caution_stands` on every item some verdict names (its pairings read back); an
    item no verdict names stands, as every pairing of the queue is doubtful."""
    where, params = _family_where(workspace, family)
    named = {v.change_id for v in verdicts}
    items = groups = grouped = machine = machined = stands = 0
    for (
        jurisdiction,
        fam,
        before_id,
        after_id,
        group_id,
        cause,
        count,
        change_ids,
    ) in workspace.read(
        "SELECT jurisdiction, family, before_id, after_id, group_id, cause, pairings, change_ids "
        f"FROM review_queue WHERE 1{where}",
        params,
    ):
        items += 1
        if group_id is not None and cause == "machine_read":
            machine, machined = machine + 1, machined + count
        elif group_id is not None:
            groups, grouped = groups + 1, grouped + count
        if named.isdisjoint(change_ids.split()):
            stands += 1
            continue
        (stored,) = workspace.read(
            "SELECT item FROM review_queue WHERE jurisdiction = ? AND family = ? "
            "AND change_ids = ?",
            (jurisdiction, fam, change_ids),
        )
        item = _item(json.loads(stored[0]), jurisdiction, fam, (before_id, after_id))
        stands += item_caution_stands(item, verdicts)
    return QueueSummary(
        items=items,
        groups=groups,
        grouped=grouped,
        machine=machine,
        machined=machined,
        stands=stands,
    )


def stored_item(workspace: Workspace, item_id: str, family: str | None = None) -> ReviewItem | None:
    """The item a group id names, or the lone item of the queued pairing a change id names (as
    `queue.find_item` gives it: no group, no cause), read from the stored queue (of `family`, when
    named); None when the stored queue holds no such id (a change outside the queue may still be
    found by `queue.find_item`). Call `refresh_review_queue` first."""
    where, params = _family_where(workspace, family)
    column = "item_id = ?" if item_id.startswith("grp-") else "instr(change_ids, ?) > 0"
    for jurisdiction, fam, before_id, after_id, item in workspace.read(
        f"SELECT jurisdiction, family, before_id, after_id, item FROM review_queue "
        f"WHERE {column}{where}",
        (item_id, *params),
    ):
        found = _item(json.loads(item), jurisdiction, fam, (before_id, after_id))
        if found.group_id == item_id:
            return found
        for pairing in found.pairings:
            if pairing.change.change_id == item_id:
                return ReviewItem(group_id=None, relabel=None, pairings=(pairing,))
    return None
