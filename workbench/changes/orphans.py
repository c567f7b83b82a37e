"""Orphaned verdicts (C8): rows of the verdict log whose pairing the current diffs no longer
produce, kept in the log and reported, never dropped and never re-attached to another change."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from workbench.changes.log import read_verdicts
from workbench.changes.pairs import held_diffs
from workbench.changes.verdict import Verdict
from workbench.models import Change, consecutive_pairs
from workbench.text.profiles import Profile
from workbench.workspace import Workspace

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
    re-attached to another change. Each pair's diff is its one diff (`pairs.held_diffs`), read
    once per family a row names.
    """
    rows = read_verdicts(workspace) if verdicts is None else tuple(verdicts)
    held = workspace.versions()
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
            before = pairs[key][0]
            for a, b, changes in held_diffs(
                workspace, before.family, jurisdiction=before.jurisdiction, profiles=profiles
            ):
                diffs[(a.version_id, b.version_id)] = {c.change_id: c for c in changes}
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
