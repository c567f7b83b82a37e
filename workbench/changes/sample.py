"""The confident audit's sample (C21): a seeded, stratified simple random sample of the pairings the
review queue does not hold, naming the digest of the population it was drawn from."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from workbench.changes.diff import pairing_is_uncertain
from workbench.changes.pairs import held_diffs
from workbench.changes.queue import Pairing
from workbench.changes.verdict import Verdict
from workbench.errors import AuditError
from workbench.models import PAIRING_KINDS, Change, Span, content_id
from workbench.text.profiles import Profile
from workbench.workspace import Workspace

STRATA_AXES = ("jurisdiction", "kind")  # what `--by` may name, in the order a stratum spells them
WHOLE = "all"  # the one stratum of a sample drawn with no axes


def is_confident_pairing(change: Change) -> bool:
    """A pairing nobody is asked about: a pairing kind (`PAIRING_KINDS`, unequal text on both
    sides), not doubtful (`pairing_is_uncertain`) and not a front-matter edit."""
    return (
        change.kind in PAIRING_KINDS
        and change.before is not None
        and change.after is not None
        and not change.front_matter
        and not pairing_is_uncertain(change)
    )


def confident_pairings(
    workspace: Workspace, *, profiles: Sequence[Profile] | None = None
) -> tuple[Pairing, ...]:
    """Every confident pairing (`is_confident_pairing`) between consecutive held versions, in the
    order of `pairs.held_diffs` (jurisdiction, family, version order, then the diff's order)."""
    return tuple(
        Pairing(
            jurisdiction=before.jurisdiction,
            family=before.family,
            before_id=before.version_id,
            after_id=after.version_id,
            change=change,
        )
        for before, after, changes in held_diffs(workspace, profiles=profiles, unchanged=False)
        for change in changes
        if is_confident_pairing(change)
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class SampleItem:
    """One sampled pairing: where it stands (stratum, family, versions) and what it pairs."""

    stratum: str
    jurisdiction: str
    family: str
    change_id: str
    kind: str
    before: Span
    after: Span

    def quotes(self, change: Change) -> bool:
        """True when this item is exactly `change`: same change id and the same two passages."""
        return (
            self.change_id == change.change_id
            and self.before == change.before
            and self.after == change.after
        )

    def quoted_by(self, verdict: Verdict) -> bool:
        """True when the log row judged exactly this item (its change id and both passages)."""
        return (
            verdict.change_id == self.change_id
            and verdict.before == self.before
            and verdict.after == self.after
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "stratum": self.stratum,
            "jurisdiction": self.jurisdiction,
            "family": self.family,
            "change_id": self.change_id,
            "kind": self.kind,
            "before": self.before.as_json(),
            "after": self.after.as_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SampleItem:
        return cls(
            stratum=data["stratum"],
            jurisdiction=data["jurisdiction"],
            family=data["family"],
            change_id=data["change_id"],
            kind=data["kind"],
            before=Span(**data["before"]),
            after=Span(**data["after"]),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Stratum:
    """One stratum of a sample: its name, how many confident pairings it holds, how many drawn."""

    name: str
    size: int
    drawn: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Sample:
    """A drawn sample, as the verdict log records it. `sample_id` is "smp-" and the first 20 hex
    digits of SHA-256 over the canonical JSON of `record()`, so an edited record no longer
    hashes to its id."""

    seed: int
    n: int  # items asked for per stratum
    by: tuple[str, ...]
    population_digest: str
    population_size: int
    strata: tuple[Stratum, ...]
    items: tuple[SampleItem, ...]
    drawn_at: str  # ISO 8601, UTC
    log_head: str  # the verdict log's head digest when the sample was drawn

    def record(self) -> dict[str, Any]:
        """The canonical record the log stores and the id is computed from."""
        return {
            "seed": self.seed,
            "n": self.n,
            "by": list(self.by),
            "population_digest": self.population_digest,
            "population_size": self.population_size,
            "strata": [{"name": s.name, "size": s.size, "drawn": s.drawn} for s in self.strata],
            "items": [item.as_json() for item in self.items],
            "drawn_at": self.drawn_at,
            "log_head": self.log_head,
        }

    @property
    def sample_id(self) -> str:
        return sample_id_of(self.record())

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Sample:
        return cls(
            seed=record["seed"],
            n=record["n"],
            by=tuple(record["by"]),
            population_digest=record["population_digest"],
            population_size=record["population_size"],
            strata=tuple(Stratum(**s) for s in record["strata"]),
            items=tuple(SampleItem.from_json(i) for i in record["items"]),
            drawn_at=record["drawn_at"],
            log_head=record["log_head"],
        )

    def item_for(self, change: Change) -> SampleItem | None:
        """The item that is exactly `change` (`SampleItem.quotes`), or None."""
        return next((item for item in self.items if item.quotes(change)), None)


def sample_id_of(record: dict[str, Any]) -> str:
    return "smp-" + content_id(record)[:20]


def parse_axes(text: str) -> tuple[str, ...]:
    """`--by`: axes of `STRATA_AXES`, comma-separated, each once; returned in `STRATA_AXES`
    order. AuditError names an unknown or repeated axis."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    for name in names:
        if name not in STRATA_AXES:
            raise AuditError(f"--by {text!r}: {name!r} is not one of {', '.join(STRATA_AXES)}")
    if len(set(names)) != len(names):
        raise AuditError(f"--by {text!r}: an axis is named twice")
    return tuple(axis for axis in STRATA_AXES if axis in names)


def stratum_of(pairing: Pairing, by: Sequence[str]) -> str:
    """The stratum's name: the values of `by` joined by "/" ("us-dc/modified"), or `WHOLE`."""
    values = {"jurisdiction": pairing.jurisdiction, "kind": pairing.change.kind}
    return "/".join(values[axis] for axis in by) or WHOLE


def population_digest(pairings: Iterable[Pairing]) -> str:
    """SHA-256 over the canonical JSON of every confident pairing (jurisdiction, family, change
    id, kind, both spans), sorted: a version admitted, or a diff that pairs otherwise, changes it."""
    rows = sorted(
        [
            p.jurisdiction,
            p.family,
            p.change.change_id,
            p.change.kind,
            p.change.before.as_json() if p.change.before else None,
            p.change.after.as_json() if p.change.after else None,
        ]
        for p in pairings
    )
    return content_id(rows)


def _stratum_random(seed: int, stratum: str) -> random.Random:
    """Each stratum's own generator, seeded from the seed and the stratum's name, so one
    stratum's draw does not depend on which other strata exist."""
    digest = hashlib.sha256(f"{seed}\x00{stratum}".encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


def draw_sample(
    population: Sequence[Pairing],
    *,
    n: int,
    seed: int,
    by: Sequence[str] = (),
    drawn_at: str,
    log_head: str,
) -> Sample:
    """A simple random sample without replacement of `n` pairings from each stratum of
    `population` (all of a stratum holding fewer), drawn by `random.Random.sample` seeded per
    stratum (`_stratum_random`) over the stratum's pairings in population order; the items stand
    in stratum-name order, then population order. `n` below 1 is refused (AuditError)."""
    if n < 1:
        raise AuditError(f"--n {n}: expected a positive number of pairings per stratum")
    strata: dict[str, list[Pairing]] = {}
    for pairing in population:
        strata.setdefault(stratum_of(pairing, by), []).append(pairing)
    items: list[SampleItem] = []
    counts: list[Stratum] = []
    for name in sorted(strata):
        members = strata[name]
        chosen = sorted(
            _stratum_random(seed, name).sample(range(len(members)), min(n, len(members)))
        )
        counts.append(Stratum(name=name, size=len(members), drawn=len(chosen)))
        for index in chosen:
            p = members[index]
            assert p.change.before is not None and p.change.after is not None
            items.append(
                SampleItem(
                    stratum=name,
                    jurisdiction=p.jurisdiction,
                    family=p.family,
                    change_id=p.change.change_id,
                    kind=p.change.kind,
                    before=p.change.before,
                    after=p.change.after,
                )
            )
    return Sample(
        seed=seed,
        n=n,
        by=tuple(by),
        population_digest=population_digest(population),
        population_size=len(population),
        strata=tuple(counts),
        items=tuple(items),
        drawn_at=drawn_at,
        log_head=log_head,
    )
