"""The confident audit (C21): from a recorded sample's answers, per stratum and overall, a one-sided
exact (Clopper–Pearson) upper bound on the share of confident pairings that are wrong, stated only
for answers to the sample drawn from the population it was drawn from."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from workbench.changes.log import read_samples, read_verdicts, record_sample, verify_chain
from workbench.changes.queue import Pairing
from workbench.changes.sample import (
    Sample,
    confident_pairings,
    draw_sample,
    population_digest,
    stratum_of,
)
from workbench.changes.verdict import Verdict
from workbench.defaults import DEFAULT_AUDIT_CONFIDENCE
from workbench.errors import AuditError
from workbench.files import replace_file
from workbench.text.profiles import Profile
from workbench.workspace import Workspace

MIN_ITEMS = 10  # `measure.rate()`'s rule: no share is stated over fewer subjects


def upper_bound(errors: int, answers: int, confidence: float) -> float:
    """The exact one-sided upper confidence bound on a binomial rate (Clopper–Pearson): the
    `confidence` quantile of Beta(errors + 1, answers - errors), and 1 when every answer is an
    error. `answers` must be positive and `errors` within [0, answers]."""
    from scipy.stats import beta  # type: ignore[import-untyped]  # loaded only where a bound is

    if not 0 <= errors <= answers or answers < 1:
        raise AuditError(f"{errors} errors of {answers} answers: expected 0 <= errors <= answers")
    if errors == answers:
        return 1.0
    return float(beta.ppf(confidence, errors + 1, answers - errors))


def answers_needed(errors: int, answers: int, confidence: float, rate: float) -> int:
    """How many more answers, every one confirming, bring `upper_bound` to `rate` or below: the
    least m >= 0 with upper_bound(errors, answers + m) <= rate (the bound falls as m grows, so
    the search doubles m, then bisects). 0 when the bound is already at or under `rate`."""
    if upper_bound(errors, answers, confidence) <= rate:
        return 0
    high = 1
    while upper_bound(errors, answers + high, confidence) > rate:
        high *= 2
    low = high // 2  # the bound is above `rate` at `low` (or `low` is 0)
    while high - low > 1:
        middle = (low + high) // 2
        if upper_bound(errors, answers + middle, confidence) > rate:
            low = middle
        else:
            high = middle
    return high


@dataclass(frozen=True, slots=True, kw_only=True)
class StratumAudit:
    """One stratum's answers and bound. `bound` is None and `refused` says why when the stratum
    has fewer than `MIN_ITEMS` items; `flagged` and `needed` are None when no rate was named."""

    name: str
    size: int  # confident pairings in the stratum
    examined: int  # items answered
    confirmed: int
    disputed: int
    cannot_tell: int
    bound: float | None
    refused: str | None
    flagged: bool | None  # the bound is above the named rate
    needed: int | None  # more answers, all confirming, that bring the bound to the rate

    @property
    def errors(self) -> int:
        """Disputed and cannot-tell answers: a pairing nobody can confirm counts against it."""
        return self.disputed + self.cannot_tell

    def as_json(self) -> dict[str, Any]:
        return {
            "stratum": self.name,
            "size": self.size,
            "examined": self.examined,
            "confirmed": self.confirmed,
            "disputed": self.disputed,
            "cannot_tell": self.cannot_tell,
            "errors": self.errors,
            "upper_bound": None if self.bound is None else round(self.bound, 6),
            "refused": self.refused,
            "flagged": self.flagged,
            "answers_needed": self.needed,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Audit:
    """A sample's audit: every stratum asked for, and the overall bound (`overall`; None with
    `overall_refused` saying why when a stratum has no bound)."""

    sample_id: str
    population_digest: str
    log_head: str
    confidence: float
    rate: float | None
    strata: tuple[StratumAudit, ...]
    overall: float | None
    overall_refused: str | None

    def as_json(self) -> dict[str, Any]:
        return {
            "sample_id": self.sample_id,
            "population_digest": self.population_digest,
            "log_head": self.log_head,
            "confidence": self.confidence,
            "rate": self.rate,
            "errors_counted": "disputed and cannot tell",
            "strata": [s.as_json() for s in self.strata],
            "overall_upper_bound": None if self.overall is None else round(self.overall, 6),
            "overall_refused": self.overall_refused,
        }


def _refused_stratum(name: str, items: int) -> str:
    return f"stratum {name}: {items} items; a bound needs at least {MIN_ITEMS} (rate()'s rule)"


def _check_unit(value: float, what: str) -> None:
    if not 0 < value < 1:
        raise AuditError(f"{what} {value}: expected a number strictly between 0 and 1")


def audit_sample(
    sample: Sample,
    verdicts: Sequence[Verdict],
    *,
    population_digest: str,
    population_sizes: dict[str, int],
    log_head: str,
    confidence: float = DEFAULT_AUDIT_CONFIDENCE,
    rate: float | None = None,
    stratum: str | None = None,
) -> Audit:
    """The audit of `sample` from the log's rows, refused (AuditError, one line) when:

    - the population now held (`population_digest`, its strata's sizes) is not the sample's;
    - a row carrying the sample's id quotes a pairing that is no item of it;
    - `stratum` is named and is not one of the sample's;
    - an item of a stratum audited has no standing answer given to the sample (the shortfall
      named per stratum);
    - `stratum` is named and holds fewer than `MIN_ITEMS` items.

    An item's answer is its standing verdict among the rows carrying the sample's id. Per
    stratum: errors are disputed and cannot-tell answers; `upper_bound` at `confidence`; with a
    `rate`, flagged when the bound is above it, and `answers_needed`. Overall: `_overall`.
    """
    _check_unit(confidence, "confidence")
    if rate is not None:
        _check_unit(rate, "rate")
    sid = sample.sample_id
    if population_digest != sample.population_digest:
        drawn = {s.name: s.size for s in sample.strata}
        moved = [
            f"{name} {drawn.get(name, 0)} -> {population_sizes.get(name, 0)}"
            for name in sorted(set(drawn) | set(population_sizes))
            if drawn.get(name, 0) != population_sizes.get(name, 0)
        ]
        what = f"strata {', '.join(moved)}" if moved else "same stratum sizes, other pairings"
        raise AuditError(
            f"sample {sid}: the population changed since it was drawn (digest "
            f"{sample.population_digest[:12]} -> {population_digest[:12]}; {what}); a version "
            "admitted or a diff that pairs otherwise; draw a new sample, none is redrawn silently"
        )
    mine = [v for v in verdicts if v.sample_id == sid]
    outside = [v for v in mine if not any(item.quoted_by(v) for item in sample.items)]
    if outside:
        raise AuditError(
            f"sample {sid}: {len(outside)} answers outside the sample (first: row "
            f"{outside[0].seq}, {outside[0].change_id}); a bound needs the answers to be the "
            "sample drawn"
        )
    names = [s.name for s in sample.strata]
    if stratum is not None and stratum not in names:
        raise AuditError(
            f"stratum {stratum!r}: not a stratum of sample {sid}; its strata are {', '.join(names)}"
        )
    audited = [s for s in sample.strata if stratum is None or s.name == stratum]
    answers: dict[str, list[Verdict | None]] = {s.name: [] for s in audited}
    for item in sample.items:
        if item.stratum in answers:
            answers[item.stratum].append(
                max((v for v in mine if item.quoted_by(v)), key=lambda v: v.seq, default=None)
            )
    short = {name: sum(v is None for v in got) for name, got in answers.items()}
    if any(short.values()):
        missing = sum(short.values())
        total = sum(len(got) for got in answers.values())
        where = ", ".join(f"{name} {n}" for name, n in short.items() if n)
        raise AuditError(
            f"sample {sid} is incomplete: {missing} of {total} items unanswered ({where}); "
            "a bound is stated only when every item is answered"
        )
    rows = []
    for s in audited:
        got = [v.answer for v in answers[s.name] if v is not None]
        if stratum is not None and len(got) < MIN_ITEMS:
            raise AuditError(_refused_stratum(s.name, len(got)))
        errors = got.count("disputed") + got.count("uncertain")
        bound = upper_bound(errors, len(got), confidence) if len(got) >= MIN_ITEMS else None
        rows.append(
            StratumAudit(
                name=s.name,
                size=s.size,
                examined=len(got),
                confirmed=got.count("confirmed"),
                disputed=got.count("disputed"),
                cannot_tell=got.count("uncertain"),
                bound=bound,
                refused=None if bound is not None else _refused_stratum(s.name, len(got)),
                flagged=None if rate is None or bound is None else bound > rate,
                needed=(
                    None
                    if rate is None or bound is None
                    else answers_needed(errors, len(got), confidence, rate)
                ),
            )
        )
    overall, overall_refused = _overall(rows, confidence)
    return Audit(
        sample_id=sid,
        population_digest=population_digest,
        log_head=log_head,
        confidence=confidence,
        rate=rate,
        strata=tuple(rows),
        overall=overall,
        overall_refused=overall_refused,
    )


def _overall(rows: Sequence[StratumAudit], confidence: float) -> tuple[float | None, str | None]:
    """The overall bound: each stratum weighted by its size. A stratum drawn whole (a census:
    every pairing answered) adds its errors exactly; each of the k others adds its bound at
    confidence 1 - (1 - confidence) / k (Bonferroni: all k under their bounds at once with
    probability at least `confidence`). A single stratum is its own bound. Refused when a
    sampled stratum's bound is, or when the strata hold fewer than `MIN_ITEMS` pairings."""
    if len(rows) == 1:
        return rows[0].bound, rows[0].refused
    sampled = [r for r in rows if r.examined < r.size]
    refused = [r.refused for r in sampled if r.refused is not None]
    total = sum(r.size for r in rows)
    if refused:
        return None, refused[0]
    if total < MIN_ITEMS:
        return None, f"overall: {total} pairings; a bound needs at least {MIN_ITEMS}"
    each = 1 - (1 - confidence) / max(len(sampled), 1)
    weighted = [
        r.size * upper_bound(r.errors, r.examined, each) if r.examined < r.size else r.errors
        for r in rows
    ]
    return sum(weighted) / total, None


# ---------------------------------------------------------------------------------------------
# The verbs: draw a sample into the log, audit the latest one


def sample_confident(
    workspace: Workspace,
    *,
    n: int,
    seed: int,
    by: Sequence[str] = (),
    profiles: Sequence[Profile] | None = None,
    at: datetime | None = None,
    reuse: bool = False,
) -> Sample:
    """Draw a sample of the confident pairings held (`sample.draw_sample`) and record it in the
    verdict log (`log.record_sample`); `at` defaults to now (UTC). With `reuse`, the latest
    recorded sample of the same seed, size, axes and population is returned instead, when there
    is one (a notebook re-run answers the same sample rather than drawing another)."""
    population = confident_pairings(workspace, profiles=profiles)
    if reuse:
        digest = population_digest(population)
        for held in reversed(read_samples(workspace)):
            if (held.seed, held.n, held.by, held.population_digest) == (seed, n, tuple(by), digest):
                return held
    moment = (at or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="microseconds")
    return record_sample(
        workspace,
        lambda head: draw_sample(population, n=n, seed=seed, by=by, drawn_at=moment, log_head=head),
    )


def latest_sample(workspace: Workspace, sample_id: str | None = None) -> Sample:
    """The sample named, or the latest drawn; AuditError when there is none."""
    samples = read_samples(workspace)
    if sample_id is not None:
        for sample in samples:
            if sample.sample_id == sample_id:
                return sample
        raise AuditError(f"{sample_id}: no sample with this id in the verdict log")
    if not samples:
        raise AuditError(
            "no sample in the verdict log; draw one with 'workbench review sample --confident'"
        )
    return samples[-1]


def sample_pairings(sample: Sample, population: Sequence[Pairing]) -> tuple[Pairing, ...]:
    """The population's pairings that are the sample's items, in the sample's order (what the
    widget and `review answer` answer)."""
    by_id = {p.change.change_id: p for p in population}
    return tuple(
        by_id[item.change_id]
        for item in sample.items
        if item.change_id in by_id and item.quotes(by_id[item.change_id].change)
    )


def audit_confident(
    workspace: Workspace,
    *,
    sample_id: str | None = None,
    confidence: float = DEFAULT_AUDIT_CONFIDENCE,
    rate: float | None = None,
    stratum: str | None = None,
    profiles: Sequence[Profile] | None = None,
) -> Audit:
    """The audit of a recorded sample (the latest, unless named) against the confident pairings
    held now (`audit_sample` for every refusal), bound to the log's head."""
    sample = latest_sample(workspace, sample_id)
    population = confident_pairings(workspace, profiles=profiles)
    sizes: dict[str, int] = {}
    for pairing in population:
        name = stratum_of(pairing, sample.by)
        sizes[name] = sizes.get(name, 0) + 1
    chain = verify_chain(workspace)
    if not chain.valid:
        raise AuditError(f"the verdict log does not verify: {chain.line()}")
    return audit_sample(
        sample,
        read_verdicts(workspace),
        population_digest=population_digest(population),
        population_sizes=sizes,
        log_head=chain.head,
        confidence=confidence,
        rate=rate,
        stratum=stratum,
    )


def audit_markdown(audit: Audit) -> str:
    """The audit as a Markdown page: what it is bound to, one table, the rule."""
    share = f"{audit.confidence:g}"
    lines = [
        f"# Confident audit of sample {audit.sample_id}",
        "",
        f"Population digest: `{audit.population_digest}`",
        f"Verdict log head: `{audit.log_head}`",
        "",
        f"One-sided exact (Clopper–Pearson) upper bound at confidence {share} on the share of "
        "confident pairings that are wrong; disputed and cannot-tell answers both count as wrong.",
        "",
        "| stratum | confident pairings | examined | confirmed | disputed | cannot tell | "
        "upper bound | over the rate | answers needed |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in audit.strata:
        bound = "refused" if s.bound is None else f"{s.bound:.4f}"
        flagged = "" if s.flagged is None else ("yes" if s.flagged else "no")
        needed = "" if s.needed is None else str(s.needed)
        lines.append(
            f"| {s.name} | {s.size} | {s.examined} | {s.confirmed} | {s.disputed} | "
            f"{s.cannot_tell} | {bound} | {flagged} | {needed} |"
        )
    lines.append("")
    if audit.overall is not None:
        lines.append(
            f"Overall upper bound: {audit.overall:.4f} (strata weighted by size; a stratum drawn "
            "whole counts its errors exactly, each other its bound at Bonferroni-adjusted "
            "confidence)."
        )
    else:
        lines.append(f"Overall bound refused: {audit.overall_refused}.")
    if audit.rate is not None:
        lines.append(
            f"Rate named: {audit.rate:g}; answers needed assume every further answer confirms."
        )
    return "\n".join(lines) + "\n"


AUDIT_JSON = "confident-audit.json"
AUDIT_MD = "confident-audit.md"


def write_audit(out: Path, audit: Audit) -> tuple[Path, Path]:
    """Write the audit into the folder `out` (made if missing) as JSON (indented, keys in build
    order, the sample, population digest and log head first) and Markdown; returns both paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = (out / AUDIT_JSON, out / AUDIT_MD)
    replace_file(
        paths[0], (json.dumps(audit.as_json(), indent=2, ensure_ascii=False) + "\n").encode()
    )
    replace_file(paths[1], audit_markdown(audit).encode("utf-8"))
    return paths
