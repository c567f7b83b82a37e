"""The additive counts a reconciliation's shares are made from (C19), kept once per section family
so the tally of a title or of the whole code is the sum of its families' tallies."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from workbench.amendments.reconcile import ATTRIBUTION_KINDS, Attribution

_ZERO = (0,) * len(ATTRIBUTION_KINDS)


@dataclass(frozen=True, slots=True)
class Tally:
    """The counts of some attributions (docs/amendments.md); `kinds` and `in_notes` are counts in
    `ATTRIBUTION_KINDS` order."""

    changes: int = 0
    pairs: int = 0
    kinds: tuple[int, ...] = _ZERO
    in_notes: tuple[int, ...] = _ZERO
    acts: frozenset[str] = frozenset()

    @classmethod
    def of(cls, attributions: Iterable[Attribution]) -> Tally:
        """The tally of `attributions`, each change counted once (by its change id, as a share
        counts its subjects); two attributions of one change that differ are an error."""
        changes: dict[str, Attribution] = {}
        for a in attributions:
            if changes.setdefault(a.change_id, a) != a:
                raise ValueError(f"change {a.change_id}: two attributions that differ")
        kinds, in_notes = [0] * len(_ZERO), [0] * len(_ZERO)
        for a in changes.values():
            k = ATTRIBUTION_KINDS.index(a.kind)
            kinds[k] += 1
            in_notes[k] += a.in_notes
        return cls(
            changes=len(changes),
            pairs=len({(a.family, a.before, a.after) for a in changes.values()}),
            kinds=tuple(kinds),
            in_notes=tuple(in_notes),
            acts=frozenset(act for a in changes.values() for act in a.acts),
        )

    def as_json(self) -> list[Any]:
        return [self.changes, self.pairs, list(self.kinds), list(self.in_notes), sorted(self.acts)]

    @classmethod
    def from_json(cls, data: Any) -> Tally:
        """The tally `as_json` wrote; ValueError for anything else."""
        if not isinstance(data, list) or len(data) != 5:
            raise ValueError(f"not a tally: {data!r}")
        changes, pairs, kinds, in_notes, acts = data
        tally = cls(
            changes=int(changes),
            pairs=int(pairs),
            kinds=tuple(int(n) for n in kinds),
            in_notes=tuple(int(n) for n in in_notes),
            acts=frozenset(str(a) for a in acts),
        )
        if len(tally.kinds) != len(_ZERO) or len(tally.in_notes) != len(_ZERO):
            raise ValueError(f"not a tally: {data!r}")
        return tally


def total(tallies: Iterable[Tally]) -> Tally:
    """The sum of `tallies` (the empty tally for none)."""
    changes = pairs = 0
    kinds, in_notes = [0] * len(_ZERO), [0] * len(_ZERO)
    acts: set[str] = set()
    for tally in tallies:
        changes += tally.changes
        pairs += tally.pairs
        for k in range(len(_ZERO)):
            kinds[k] += tally.kinds[k]
            in_notes[k] += tally.in_notes[k]
        acts |= tally.acts
    return Tally(changes, pairs, tuple(kinds), tuple(in_notes), frozenset(acts))


def by_kind(counts: tuple[int, ...]) -> Mapping[str, int]:
    """Counts in `ATTRIBUTION_KINDS` order, by kind name."""
    return dict(zip(ATTRIBUTION_KINDS, counts, strict=True))
