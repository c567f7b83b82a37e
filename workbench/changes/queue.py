"""The review queue (C8): the doubtful pairings of the held versions as items (restructure groups,
machine-read groups, lone pairings) and the shapes they are shown in. Every doubtful pairing is in
exactly one item; the grouping rules are in docs/review.md."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from workbench.changes.caution import pairing_caution_stands, standing_verdict
from workbench.changes.diff import (
    change_as_json,
    doubt_reasons,
    pairing_is_uncertain,
)
from workbench.changes.pairs import families_holding, held_diffs
from workbench.changes.verdict import Verdict
from workbench.errors import ChangeNotFound
from workbench.models import TEXT_ORIGINS, Change, Version, content_id
from workbench.text.profiles import Profile
from workbench.workspace import Workspace

if TYPE_CHECKING:
    import polars as pl

_CHANGE_ID = re.compile(r"chg-[0-9a-f]{20}")
_GROUP_ID = re.compile(r"grp-[0-9a-f]{20}")
_LABEL_TOKEN = re.compile(r"[0-9]+|[A-Za-z]+|[^0-9A-Za-z]+")


@dataclass(frozen=True, slots=True, kw_only=True)
class Pairing:
    """A doubtful pairing in its context: the change and the family and versions it came from."""

    jurisdiction: str
    family: str
    before_id: str
    after_id: str
    change: Change


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


ItemCause = Literal["restructure", "machine_read"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ReviewItem:
    """One entry of the review queue: a restructure group (`group_id` set, two or more pairings
    of one version pair, `relabel` their shared renumbering, `cause` "restructure"), a
    machine-read group (`group_id` set, the machine-read pairings of one version pair, `relabel`
    None, `cause` "machine_read") or a lone doubtful pairing (`group_id` and `relabel` None, one
    pairing; `cause` "machine_read" when it is the one machine-read pairing of its pair)."""

    group_id: str | None
    relabel: Relabel | None
    pairings: tuple[Pairing, ...]
    cause: ItemCause | None = None

    @property
    def is_group(self) -> bool:
        return self.group_id is not None

    @property
    def item_id(self) -> str:
        """What `workbench review answer` takes: the group id, or the lone pairing's change id."""
        return self.group_id or self.pairings[0].change.change_id

    def heading(self) -> str:
        """What the group is, in words, for every surface that lists the queue: "restructure
        group of 3 pairings, labels 7->6 ... 9->8 (leading number -1)" or "machine-read group of
        57 pairings (invisible -> invisible)"; a lone pairing's kind."""
        changes = [p.change for p in self.pairings]
        if self.relabel is not None:
            return (
                f"restructure group of {len(changes)} pairings, labels "
                f"{changes[0].before_label}->{changes[0].after_label} ... "
                f"{changes[-1].before_label}->{changes[-1].after_label} ({self.relabel.line()})"
            )
        if self.cause == "machine_read":
            return f"machine-read group of {len(changes)} pairings ({self.origins_line()})"
        return changes[0].kind

    def origins_line(self) -> str:
        """The origins the item's pairings touch on each side (C18), `TEXT_ORIGINS` order, joined
        by "+": "invisible -> invisible", "ocr -> invisible"."""
        sides = [
            [o for o in TEXT_ORIGINS if any(o in getattr(p.change, side) for p in self.pairings)]
            for side in _SIDES
        ]
        return f"{'+'.join(sides[0])} -> {'+'.join(sides[1])}"


_SIDES = ("before_origin", "after_origin")


# ---------------------------------------------------------------------------------------------
# Doubtful pairings


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
        for before, after, changes in held_diffs(
            workspace, family, jurisdiction=jurisdiction, profiles=profiles, unchanged=False
        )
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
    """The change with this id among the diffs of consecutive held versions (`held_diffs`:
    the one diff of each pair, as the queue and `workbench diff` read it). ChangeNotFound when
    the id is malformed or no pair's diff holds it.
    """
    if not _CHANGE_ID.fullmatch(change_id):
        raise ChangeNotFound(
            f"{change_id}: not a change id; expected 'chg-' and 20 lowercase hex digits"
        )
    # Only the families whose kept diffs hold the id's JSON are read, when every diff is kept.
    found = families_holding(workspace, f'"{change_id}"', family, profiles)
    for jurisdiction, name in [(None, family)] if found is None else found:
        for before, after, changes in held_diffs(
            workspace, name, jurisdiction=jurisdiction, profiles=profiles
        ):
            for change in changes:
                if change.change_id == change_id:
                    return _pairing(before, after, change)
    where = f"family {family}" if family is not None else "any family"
    raise ChangeNotFound(
        f"{change_id}: no change with this id in the diffs of {where} held in {workspace.path}; "
        "see 'workbench review list'"
    )


# ---------------------------------------------------------------------------------------------
# Restructure groups and the review queue's items


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


def group_id_of(change_ids: Sequence[str]) -> str:
    """ "grp-" and the first 20 hex digits of SHA-256 over the canonical JSON of the change ids,
    in diff order (deterministic, since change ids are)."""
    return "grp-" + content_id(list(change_ids))[:20]


def items_of_pair(before: Version, after: Version, changes: Sequence[Change]) -> list[ReviewItem]:
    """The review items of one version pair's diff, by the rule in `review_items`."""
    items: list[ReviewItem] = []
    run: list[Change] = []
    run_relabel: Relabel | None = None
    machine = [c for c in changes if in_review_queue(c) and c.machine_read]

    def close() -> None:
        if len(run) >= 2:
            pairings = tuple(_pairing(before, after, c) for c in run)
            gid = group_id_of([c.change_id for c in run])
            items.append(
                ReviewItem(
                    group_id=gid, relabel=run_relabel, pairings=pairings, cause="restructure"
                )
            )
        else:
            items.extend(_lone(_pairing(before, after, c)) for c in run)
        run.clear()

    for change in changes:
        if change.front_matter:  # never reviewed, and no part of a section's renumbering
            continue
        relabel = relabelling(change.before_label, change.after_label)
        both_labelled = change.before_label is not None and change.after_label is not None
        paired = change.before is not None and change.after is not None
        if pairing_is_uncertain(change) and relabel is not None and not change.machine_read:
            if run and relabel != run_relabel:
                close()
            run.append(change)
            run_relabel = relabel
            continue
        # CAUTION: a labelled pairing that maps otherwise (labels kept, or changed another way)
        # ends the run even when it is not doubtful: the section did not move as a whole.
        if run and paired and both_labelled and relabel != run_relabel:
            close()
        if pairing_is_uncertain(change) and not change.machine_read:
            items.append(_lone(_pairing(before, after, change)))
    close()
    if machine:
        pairings = tuple(_pairing(before, after, c) for c in machine)
        gid = group_id_of([c.change_id for c in machine]) if len(machine) >= 2 else None
        items.append(
            ReviewItem(group_id=gid, relabel=None, pairings=pairings, cause="machine_read")
        )
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
    taken left to right, so no tie arises. Every machine-read pairing (`Change.machine_read`) is
    taken out first: they are one machine-read group per version pair (a lone item with cause
    "machine_read" when there is one), whatever their labels, and none joins a run (one that
    pairs two labelled passages still ends a run whose renumbering it does not share, as any
    labelled pairing does). Items stand in the order of their first pairing; every doubtful
    pairing is in exactly one item. Narrowing and profiles as in `doubtful_pairings`.
    """
    out: list[ReviewItem] = []
    for before, after, changes in held_diffs(
        workspace, family, jurisdiction=jurisdiction, profiles=profiles
    ):
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


def item_caution_stands(item: ReviewItem, verdicts: Iterable[Verdict]) -> bool:
    """Caution on a review item: `pairing_caution_stands` holds on any of its pairings."""
    held = tuple(verdicts)
    return any(pairing_caution_stands(p.change, held) for p in item.pairings)


# ---------------------------------------------------------------------------------------------
# Shapes for the CLI and notebooks

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
    "origin",
    "machine_read",
    "low_confidence",
)


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


def item_as_json(item: ReviewItem, verdicts: Sequence[Verdict]) -> dict[str, Any]:
    """The JSON shape `workbench review list --json` prints for one review item: `item` is
    "group" or "pairing"; a group carries its id, cause ("restructure" or "machine_read"),
    renumbering (None for a machine-read group) and pairings, a lone pairing its pairing's fields
    (`pairing_as_json`) at the top level."""
    if item.group_id is None:
        return {"item": "pairing", **pairing_as_json(item.pairings[0], verdicts)}
    relabel = item.relabel
    return {
        "item": "group",
        "group_id": item.group_id,
        "cause": item.cause,
        "relabel": None if relabel is None else {"prefix": relabel.prefix, "shift": relabel.shift},
        "caution_stands": item_caution_stands(item, verdicts),
        "pairings": [pairing_as_json(p, verdicts) for p in item.pairings],
    }


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
