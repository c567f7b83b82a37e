"""Measurements re-derived from the corpus, written deterministically to `measurements/` (C12).

Corpus-wide work is a map over document families and a deterministic reduce (C13): for each family
`measure_family` parses every version's structure and diffs every consecutive version pair; it
returns one evidence row per modified pairing and one per version parse. `measure_families`
reduces those rows, sorted, into the reports. Nothing depends on the order families arrive in.

Every report is headed by the corpus digest it was computed on, holds no timestamps and no floats
(shares are printed as text by `rate()`, counts are integers), and is serialized one way
(`report_bytes`), so a re-run writes the same bytes.

The section-label proxy caps a pairing when the two passages' leading numbers differ. For each cap
the measurement states a cause, in this order of precedence:

1. `year_like` — either label is a year (1800–2099);
2. `page_or_gutter` — either passage is page furniture ("127 STAT. 1165", "[Page 5]", a bare number)
   or opens on a gutter line number;
3. `renumbered` — the structure parser reads different paths on the two sides (it confirms a
   restructure);
4. `structure_refused` — the structure is unknown on a side (parse refused, or no numbered unit
   covers the passage);
5. `structure_agrees` — both sides parse to the same path: the cap is not confirmed.

The counterfactual "structure" rule caps a pairing when the two structural paths differ, and, where
the structure is unknown on either side, keeps the proxy's verdict: a parse refusal never lifts a
cap, because absence does not license certainty.

Profiles (C15): each family is segmented and parsed through one numbering profile, the one that
names it or, where none does, the one `profiles.choose_profile` finds reads its numbering best. The
report records per family the profile's name, SHA-256 and origin, how it was chosen, and the share
of its passages that carry their own label. A pairing whose passage on either side is front matter
or furniture is excluded from the "structure known" share (and counted beside it): a title page or
a page footer has no section to know. A pairing is "known" when both passages carry a structural
path; an unknown pairing is counted by its cause (`refused:<code>` when a side's parse refused,
`uncovered` when no numbered unit covers a side). For single-version documents the report gives
the share of body and heading passages that carry a path.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Any, Protocol, TypeVar

from tqdm import tqdm

from workbench.diff import RESTRUCTURE_CONFIDENCE_CEILING, diff_passages, pairing_is_uncertain
from workbench.models import (
    PAIRING_KINDS,
    CatalogueRow,
    Change,
    Passage,
    Refusal,
    Version,
    canonical_json,
)
from workbench.profiles import Choice, Profile, choose_profile
from workbench.review import items_of_pair
from workbench.segment import leading_number, segment_version
from workbench.structure import StructureParse, gutter_line_starts, parse_structure

DIGESTS_NAME = "corpus-digests.json"
STRUCTURE_NAME = "structure-measurement.json"
ESCALATION_NAME = "escalation-rates.json"
MIN_SUBJECTS = 10
EXAMPLES_PER_CAUSE = 3
CAP_CAUSES = ("year_like", "page_or_gutter", "renumbered", "structure_refused", "structure_agrees")
EXCLUDED_KINDS = frozenset({"front_matter", "furniture"})
KNOWN_TARGET = 0.9  # the share of pairings (or body passages) the structure should know

_YEAR = re.compile(r"1[89]\d\d|20\d\d")
_PAGE_FURNITURE = re.compile(
    r"\d+\s+STAT\.\s+\d+|\[Page \d+\]|.*\[Page \d+\]|Page \d+ of \d+|\d+", re.DOTALL
)


# ---------------------------------------------------------------------------------------------
# rate(): shares only over enough distinct subjects


class Evidence(Protocol):
    @property
    def evidence_id(self) -> str: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Rate:
    """A share of distinct subjects; `text` is "n = X subjects; no rate" below `MIN_SUBJECTS`."""

    holds: int
    subjects: int
    text: str

    def as_json(self) -> dict[str, Any]:
        return {"holds": self.holds, "subjects": self.subjects, "rate": self.text}


E = TypeVar("E", bound=Evidence)


def rate(rows: Iterable[E], holds: Callable[[E], bool]) -> Rate:
    """The share of distinct subjects for which `holds` is true.

    Subjects are counted from the rows' own `evidence_id`, never passed in: a row repeated counts
    once, and two rows with one id that disagree on `holds` are an error. Below `MIN_SUBJECTS`
    distinct subjects no percentage is printed at all. The percentage has two decimals, rounded
    half to even on the exact fraction.
    """
    verdicts: dict[str, bool] = {}
    for row in rows:
        verdict = bool(holds(row))
        if verdicts.setdefault(row.evidence_id, verdict) != verdict:
            raise ValueError(f"evidence {row.evidence_id}: rows with one id disagree")
    subjects, count = len(verdicts), sum(verdicts.values())
    if subjects < MIN_SUBJECTS:
        return Rate(holds=count, subjects=subjects, text=f"n = {subjects} subjects; no rate")
    hundredths = round(count * 10000 / subjects)
    return Rate(
        holds=count,
        subjects=subjects,
        text=f"{hundredths // 100}.{hundredths % 100:02d}% ({count} of {subjects})",
    )


# ---------------------------------------------------------------------------------------------
# The map: one family


@dataclass(frozen=True, slots=True, kw_only=True)
class PairingRow:
    """One modified pairing, with what the proxy and the structure say about it."""

    evidence_id: str  # the change id
    jurisdiction: str
    family: str
    before_id: str
    after_id: str
    before_label: str | None
    after_label: str | None
    proxy_capped: bool
    proxy_cautioned: bool
    structure_status: str  # "agree", "disagree", "refused", "uncovered"
    before_path: tuple[str, ...] | None
    after_path: tuple[str, ...] | None
    cap_cause: str | None
    structure_capped: bool
    structure_cautioned: bool
    before_excerpt: str
    after_excerpt: str
    before_kind: str
    after_kind: str
    unknown_cause: str | None  # None when known; "refused:<code>" or "uncovered"

    @property
    def excluded(self) -> bool:
        """Front matter or furniture on either side: outside the "structure known" share."""
        return self.before_kind in EXCLUDED_KINDS or self.after_kind in EXCLUDED_KINDS

    @property
    def known(self) -> bool:
        return self.unknown_cause is None


@dataclass(frozen=True, slots=True, kw_only=True)
class ParseRow:
    """How the structure parser read one version."""

    evidence_id: str  # the version id
    jurisdiction: str
    family: str
    method: str
    refusal: str | None
    units: int
    profile: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PassageRow:
    """One passage of one version: its kind, whether it has its own label and a structural path."""

    evidence_id: str  # version id "#" ordinal
    kind: str
    labelled: bool
    has_path: bool


CAUTION_CAUSES = ("split_or_merge", "move_across_sections", "label_cap", "low_similarity")


@dataclass(frozen=True, slots=True, kw_only=True)
class CautionRow:
    """One change that is not `unchanged`, and whether (and why) the diff cautions it."""

    evidence_id: str  # the change id
    jurisdiction: str
    kind: str
    cause: str | None  # None: not cautioned (or not a pairing)
    low_similarity: bool  # a pairing (modified, moved, split, merged) at most half alike
    opens_review_item: bool  # the first change of a restructure group, or a lone doubtful one


def caution_cause(change: Change) -> str | None:
    """Why `pairing_is_uncertain` holds for a change, in this order of precedence, or None.

    `split_or_merge` (a restructure, always capped); `move_across_sections` (a moved pairing whose
    labels disagree); `label_cap` (any other pairing whose labels disagree); `low_similarity` (an
    uncapped pairing no more than half alike).
    """
    if not pairing_is_uncertain(change):
        return None
    if change.kind in ("split", "merged"):
        return "split_or_merge"
    if change.capped:
        return "move_across_sections" if change.kind == "moved" else "label_cap"
    return "low_similarity"


@dataclass(frozen=True, slots=True, kw_only=True)
class FamilyMeasurement:
    jurisdiction: str
    family: str
    versions: int
    profile: dict[str, str]  # name, sha256, origin, chosen ("named" or "automatic")
    pairings: tuple[PairingRow, ...]
    parses: tuple[ParseRow, ...]
    passages: tuple[PassageRow, ...]
    cautions: tuple[CautionRow, ...] = ()


def _label_is_furniture(label: str | None, text: str, start: int, gutter: frozenset[int]) -> bool:
    if label is None:
        return False
    line_start = text.rfind("\n", 0, start) + 1
    if line_start in gutter and text[line_start:start].strip() == "":
        return True
    line_end = text.find("\n", start)
    passage_head = text[start : line_end if line_end >= 0 else len(text)]
    return bool(_PAGE_FURNITURE.fullmatch(passage_head.strip()))


def _cap_cause(change: Change, status: str, furniture: bool) -> str | None:
    if not change.capped:
        return None
    if any(
        label is not None and _YEAR.fullmatch(label)
        for label in (change.before_label, change.after_label)
    ):
        return "year_like"
    if furniture:
        return "page_or_gutter"
    return {"disagree": "renumbered", "agree": "structure_agrees"}.get(status, "structure_refused")


def _excerpt(text: str, start: int, end: int) -> str:
    return " ".join(text[start:end].split())[:120]


def _pairing_row(
    change: Change,
    before: Version,
    after: Version,
    passages: dict[str, dict[int, Passage]],
    parses: dict[str, StructureParse],
    gutters: dict[str, frozenset[int]],
) -> PairingRow:
    assert change.before is not None and change.after is not None and change.similarity is not None
    parse_a, parse_b = parses[before.version_id], parses[after.version_id]
    passage_a = passages[before.version_id][change.before.char_start]
    passage_b = passages[after.version_id][change.after.char_start]
    path_a, path_b = passage_a.path, passage_b.path
    unknown_cause = None
    if parse_a.refusal or parse_b.refusal:
        status = "refused"
        unknown_cause = f"refused:{parse_a.refusal or parse_b.refusal}"
    elif path_a is None or path_b is None:
        status = "uncovered"
        unknown_cause = "uncovered"
    else:
        status = "agree" if path_a == path_b else "disagree"
    # The proxy is the seed's leading number, whatever the profile reads (the comparison's point).
    label_a, label_b = leading_number(passage_a.text), leading_number(passage_b.text)
    proxy_capped = label_a != label_b
    proxy_change = _with_labels(change, label_a, label_b, proxy_capped)
    furniture = _label_is_furniture(
        label_a, before.text, change.before.char_start, gutters[before.version_id]
    ) or (
        _label_is_furniture(label_b, after.text, change.after.char_start, gutters[after.version_id])
    )
    structure_capped = status == "disagree" or (status in ("refused", "uncovered") and proxy_capped)
    confidence = _capped_confidence(change.similarity, structure_capped)
    return PairingRow(
        evidence_id=change.change_id,
        jurisdiction=before.jurisdiction,
        family=before.family,
        before_id=before.version_id,
        after_id=after.version_id,
        before_label=label_a,
        after_label=label_b,
        proxy_capped=proxy_capped,
        proxy_cautioned=pairing_is_uncertain(proxy_change),
        structure_status=status,
        before_path=path_a,
        after_path=path_b,
        cap_cause=_cap_cause(proxy_change, status, furniture),
        structure_capped=structure_capped,
        structure_cautioned=confidence <= RESTRUCTURE_CONFIDENCE_CEILING,
        before_excerpt=_excerpt(before.text, change.before.char_start, change.before.char_end),
        after_excerpt=_excerpt(after.text, change.after.char_start, change.after.char_end),
        before_kind=passage_a.kind,
        after_kind=passage_b.kind,
        unknown_cause=unknown_cause,
    )


def _capped_confidence(similarity: float, capped: bool) -> float:
    return min(similarity, RESTRUCTURE_CONFIDENCE_CEILING) if capped else similarity


def _with_labels(change: Change, before: str | None, after: str | None, capped: bool) -> Change:
    """The change as the proxy sees it: its labels and cap replaced by the leading numbers'."""
    assert change.similarity is not None
    return replace(
        change,
        before_label=before,
        after_label=after,
        alignment_confidence=_capped_confidence(change.similarity, capped),
        capped=capped,
    )


def measure_family(
    versions: Sequence[Version], profiles: Sequence[Profile] | None = None
) -> FamilyMeasurement:
    """Parse every version of one family and measure every consecutive pair's modified pairings.

    `versions` must be one family in version order (as `Workspace.versions(family)` returns them).
    The family's profile is chosen from `profiles` (default: the shipped ones) by
    `profiles.choose_profile`. A pure function of the versions' texts and the profiles' bytes: the
    map step of corpus-wide work.
    """
    if not versions:
        raise ValueError("measure_family needs at least one version")
    choice: Choice = choose_profile(versions, profiles)
    profile = choice.profile
    parses = {v.version_id: parse_structure(v, profile) for v in versions}
    segments = {v.version_id: segment_version(v, profile) for v in versions}
    by_start = {vid: {p.char_start: p for p in ps} for vid, ps in segments.items()}
    gutters = {v.version_id: gutter_line_starts(v.text) for v in versions}
    pairings = []
    cautions = []
    for before, after in pairwise(versions):
        changes = diff_passages(
            before.version_id,
            after.version_id,
            segments[before.version_id],
            segments[after.version_id],
        )
        opening = {
            item.pairings[0].change.change_id for item in items_of_pair(before, after, changes)
        }
        for change in changes:
            if change.kind == "modified":
                pairings.append(_pairing_row(change, before, after, by_start, parses, gutters))
            if change.kind != "unchanged":
                cautions.append(
                    CautionRow(
                        evidence_id=change.change_id,
                        jurisdiction=before.jurisdiction,
                        kind=change.kind,
                        cause=caution_cause(change),
                        low_similarity=change.kind in PAIRING_KINDS
                        and change.similarity is not None
                        and change.similarity <= RESTRUCTURE_CONFIDENCE_CEILING,
                        opens_review_item=change.change_id in opening,
                    )
                )
    parse_rows = [
        ParseRow(
            evidence_id=v.version_id,
            jurisdiction=v.jurisdiction,
            family=v.family,
            method=parses[v.version_id].method,
            refusal=parses[v.version_id].refusal,
            units=len(parses[v.version_id].units),
            profile=profile.name,
        )
        for v in versions
    ]
    passage_rows = [
        PassageRow(
            evidence_id=f"{p.version_id}#{p.ordinal}",
            kind=p.kind,
            labelled=p.section_label is not None,
            has_path=p.path is not None,
        )
        for v in versions
        for p in segments[v.version_id]
    ]
    return FamilyMeasurement(
        jurisdiction=versions[0].jurisdiction,
        family=versions[0].family,
        versions=len(versions),
        profile={**profile.as_json(), "chosen": choice.how},
        pairings=tuple(pairings),
        parses=tuple(parse_rows),
        passages=tuple(passage_rows),
        cautions=tuple(cautions),
    )


# ---------------------------------------------------------------------------------------------
# The reduce: reports


def corpus_digest(rows: Iterable[CatalogueRow]) -> str:
    """SHA-256 over the canonical JSON of sorted [path, sha256] pairs."""
    pairs = sorted([row.path, row.sha256] for row in rows)
    return hashlib.sha256(canonical_json(pairs).encode("utf-8")).hexdigest()


def corpus_digests(
    rows: Iterable[CatalogueRow], refusals: Iterable[Refusal] = ()
) -> dict[str, Any]:
    """The corpus-digests report: one digest, per-jurisdiction counts, per-document hashes."""
    rows = sorted(rows, key=lambda r: r.path)
    per: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"documents": 0, "bytes": 0, "families": set(), "media_types": Counter()}
    )
    for row in rows:
        entry = per[row.jurisdiction]
        entry["documents"] += 1
        entry["bytes"] += row.size
        entry["families"].add(row.family)
        entry["media_types"][row.media_type] += 1
    refused = Counter(r.reason for r in refusals)
    return {
        "corpus_digest": corpus_digest(rows),
        "digest_rule": "sha256 of canonical JSON of sorted [path, sha256] pairs of admitted documents",
        "documents": len(rows),
        "bytes": sum(r.size for r in rows),
        "families": len({(r.jurisdiction, r.family) for r in rows}),
        "refused": dict(sorted(refused.items())),
        "refusals": [
            {"path": r.path, "reason": r.reason, "detail": r.detail}
            for r in sorted(refusals, key=lambda r: (r.path, r.reason))
        ],
        "jurisdictions": {
            name: {
                "documents": e["documents"],
                "bytes": e["bytes"],
                "families": len(e["families"]),
                "media_types": dict(sorted(e["media_types"].items())),
            }
            for name, e in sorted(per.items())
        },
        "rows": [{"path": r.path, "sha256": r.sha256, "bytes": r.size} for r in rows],
    }


def _scopes(rows: Sequence[PairingRow]) -> dict[str, dict[str, list[PairingRow]]]:
    by_jurisdiction: dict[str, list[PairingRow]] = defaultdict(list)
    by_family: dict[str, list[PairingRow]] = defaultdict(list)
    for row in rows:
        by_jurisdiction[row.jurisdiction].append(row)
        by_family[f"{row.jurisdiction}/{row.family}"].append(row)
    return {
        "overall": {"all": list(rows)},
        "jurisdictions": dict(sorted(by_jurisdiction.items())),
        "families": dict(sorted(by_family.items())),
    }


def _meets(holds: int, subjects: int) -> str:
    """ "yes" / "no" against `KNOWN_TARGET` on the exact counts; "n/a" below `MIN_SUBJECTS`."""
    if subjects < MIN_SUBJECTS:
        return "n/a"
    return "yes" if holds * 10 >= round(KNOWN_TARGET * 10) * subjects else "no"


def _known_block(rows: Sequence[PairingRow]) -> dict[str, Any]:
    """Structure known over the pairings outside front matter and furniture, unknown by cause."""
    counted = [r for r in rows if not r.excluded]
    known = rate(counted, lambda r: r.known)
    return {
        "structure_known": known.as_json(),
        "meets_target": _meets(known.holds, known.subjects),
        "excluded_front_matter_or_furniture": len(rows) - len(counted),
        "unknown_by_cause": dict(
            sorted(Counter(r.unknown_cause for r in counted if r.unknown_cause).items())
        ),
    }


def _structure_block(rows: Sequence[PairingRow]) -> dict[str, Any]:
    capped = [r for r in rows if r.proxy_capped]
    causes = Counter(r.cap_cause for r in capped)
    return {
        "modified_pairings": len(rows),
        **_known_block(rows),
        "proxy_caps": rate(rows, lambda r: r.proxy_capped).as_json(),
        "cap_causes": {cause: causes.get(cause, 0) for cause in CAP_CAUSES},
        "structure_status": dict(sorted(Counter(r.structure_status for r in rows).items())),
        "structure_contradicts_agreeing_labels": sum(
            1 for r in rows if r.before_label == r.after_label and r.structure_status == "disagree"
        ),
        "structure_confirms_disagreeing_labels": sum(
            1 for r in rows if r.before_label != r.after_label and r.structure_status == "disagree"
        ),
    }


def _escalation_block(rows: Sequence[PairingRow]) -> dict[str, Any]:
    return {
        "modified_pairings": len(rows),
        "proxy": rate(rows, lambda r: r.proxy_cautioned).as_json(),
        "structure": rate(rows, lambda r: r.structure_cautioned).as_json(),
        "caps_lifted_by_structure": sum(
            1 for r in rows if r.proxy_capped and not r.structure_capped
        ),
        "caps_added_by_structure": sum(
            1 for r in rows if r.structure_capped and not r.proxy_capped
        ),
    }


def _examples(rows: Sequence[PairingRow]) -> dict[str, list[dict[str, Any]]]:
    chosen: dict[str, list[dict[str, Any]]] = {cause: [] for cause in CAP_CAUSES}
    for row in sorted(rows, key=lambda r: (r.jurisdiction, r.family, r.before_id, r.evidence_id)):
        if row.cap_cause and len(chosen[row.cap_cause]) < EXAMPLES_PER_CAUSE:
            chosen[row.cap_cause].append(
                {
                    "change_id": row.evidence_id,
                    "before": row.before_id,
                    "after": row.after_id,
                    "labels": [row.before_label, row.after_label],
                    "paths": [
                        list(row.before_path) if row.before_path else None,
                        list(row.after_path) if row.after_path else None,
                    ],
                    "before_excerpt": row.before_excerpt,
                    "after_excerpt": row.after_excerpt,
                }
            )
    return chosen


@dataclass(frozen=True, slots=True, kw_only=True)
class Measurements:
    """Every report `workbench measure` writes, as JSON-ready dicts."""

    digests: dict[str, Any]
    structure: dict[str, Any]
    escalation: dict[str, Any]


def measure_families(
    families: Iterable[FamilyMeasurement],
    rows: Iterable[CatalogueRow],
    refusals: Iterable[Refusal] = (),
) -> Measurements:
    """Reduce family measurements into the reports; the result does not depend on family order."""
    rows = list(rows)
    digests = corpus_digests(rows, refusals)
    digest = digests["corpus_digest"]
    ordered = sorted(families, key=lambda f: (f.jurisdiction, f.family))
    pairings = sorted(
        (p for f in ordered for p in f.pairings),
        key=lambda p: (p.before_id, p.after_id, p.evidence_id),
    )
    parses = sorted((p for f in ordered for p in f.parses), key=lambda p: p.evidence_id)
    scopes = _scopes(pairings)
    parse_outcomes: dict[str, Counter[str]] = defaultdict(Counter)
    for p in parses:
        parse_outcomes[p.jurisdiction][p.refusal or f"parsed:{p.method}"] += 1
    structure = {
        "corpus_digest": digest,
        "rules": {
            "proxy": "a passage's leading number (segment.leading_number); capped where the two labels differ",
            "profiles": "each family is read through the profile naming it (applies_to), else the one "
            "profiles.choose_profile finds reads the most consistent numbering",
            "structure_known": "both passages of a modified pairing carry a structural path; pairings with "
            "front matter or furniture on either side are excluded and counted beside",
            "known_target": f"{KNOWN_TARGET:.2f}",
            "structure": "the document's own numbering (structure.parse_structure); capped where the two paths "
            "differ, and where either path is unknown the proxy's verdict stands",
            "cap_causes_in_order": list(CAP_CAUSES),
            "min_subjects_for_a_rate": MIN_SUBJECTS,
        },
        "versions_parsed": {j: dict(sorted(c.items())) for j, c in sorted(parse_outcomes.items())},
        "profiles_used": _profiles_used(ordered),
        "passages": _passage_blocks(ordered),
        "overall": _structure_block(pairings),
        "jurisdictions": {
            name: _structure_block(group) for name, group in scopes["jurisdictions"].items()
        },
        "families": {name: _structure_block(group) for name, group in scopes["families"].items()},
        "examples": _examples(pairings),
    }
    lifted = structure["overall"]["cap_causes"]
    escalation = {
        "corpus_digest": digest,
        "rule": "share of modified pairings left cautioned (confidence at or below "
        f"{RESTRUCTURE_CONFIDENCE_CEILING}) under the proxy and under the structure rule",
        "overall": _escalation_block(pairings),
        "jurisdictions": {
            name: _escalation_block(group) for name, group in scopes["jurisdictions"].items()
        },
        "families": {name: _escalation_block(group) for name, group in scopes["families"].items()},
        "wiring": wiring_decision(pairings, lifted),
        "caution": _caution_report(ordered),
    }
    return Measurements(digests=digests, structure=structure, escalation=escalation)


def _caution_block(rows: Sequence[CautionRow]) -> dict[str, Any]:
    pairings = [r for r in rows if r.kind in PAIRING_KINDS]
    causes = Counter(r.cause for r in rows if r.cause)
    return {
        "non_equal_changes": len(rows),
        "by_kind": dict(sorted(Counter(r.kind for r in rows).items())),
        "pairings_cautioned": rate(pairings, lambda r: r.cause is not None).as_json(),
        "pairings_at_most_half_alike": rate(pairings, lambda r: r.low_similarity).as_json(),
        "review_queue_items_per_non_equal_change": rate(
            rows, lambda r: r.opens_review_item
        ).as_json(),
        "cautioned_by_cause": {cause: causes.get(cause, 0) for cause in CAUTION_CAUSES},
    }


def _caution_report(families: Iterable[FamilyMeasurement]) -> dict[str, Any]:
    """Every non-equal change of the diff as it pairs passages (modified, moved, split, merged,
    added, removed): the share of pairings it cautions, and every caution by cause."""
    rows = sorted((r for f in families for r in f.cautions), key=lambda r: r.evidence_id)
    by_jurisdiction: dict[str, list[CautionRow]] = defaultdict(list)
    for row in rows:
        by_jurisdiction[row.jurisdiction].append(row)
    return {
        "rule": "a pairing is cautioned when pairing_is_uncertain holds; causes in order: "
        + ", ".join(CAUTION_CAUSES),
        "overall": _caution_block(rows),
        "jurisdictions": {j: _caution_block(g) for j, g in sorted(by_jurisdiction.items())},
    }


def _profiles_used(families: Sequence[FamilyMeasurement]) -> dict[str, dict[str, Any]]:
    """Per family: the profile that read it, how it was chosen, and its versions' count."""
    return {f"{f.jurisdiction}/{f.family}": {**f.profile, "versions": f.versions} for f in families}


def _passage_block(rows: Sequence[PassageRow], versions: int) -> dict[str, Any]:
    content = [r for r in rows if r.kind not in EXCLUDED_KINDS]
    with_path = rate(content, lambda r: r.has_path)
    return {
        "versions": versions,
        "passages": len(rows),
        "kinds": dict(sorted(Counter(r.kind for r in rows).items())),
        "own_label": rate(rows, lambda r: r.labelled).as_json(),
        "body_with_path": with_path.as_json(),
        "body_with_path_meets_target": _meets(with_path.holds, with_path.subjects),
    }


def _passage_blocks(families: Sequence[FamilyMeasurement]) -> dict[str, Any]:
    """Passage shares per jurisdiction and per family (body = body and heading passages)."""
    by_jurisdiction: dict[str, list[FamilyMeasurement]] = defaultdict(list)
    for f in families:
        by_jurisdiction[f.jurisdiction].append(f)
    return {
        "jurisdictions": {
            j: _passage_block(
                [r for f in group for r in f.passages], sum(f.versions for f in group)
            )
            for j, group in sorted(by_jurisdiction.items())
        },
        "families": {
            f"{f.jurisdiction}/{f.family}": _passage_block(f.passages, f.versions) for f in families
        },
    }


WIRING_MIN_KNOWN_SHARE = 0.9


def wiring_decision(pairings: Sequence[PairingRow], causes: dict[str, int]) -> dict[str, Any]:
    """What wiring the structure into `pairing_is_uncertain` would change, and whether to.

    Rule: wire it in only if the structure is known (parsed and covering) on both sides of at least
    `WIRING_MIN_KNOWN_SHARE` of the modified pairings outside front matter and furniture in every
    jurisdiction that has them; otherwise
    most decisions would still fall back to the proxy and the two rules would disagree mainly by
    omission. The workbench keeps the proxy unless this says "justified".
    """
    known: dict[str, list[bool]] = defaultdict(list)
    for row in pairings:
        if not row.excluded:
            known[row.jurisdiction].append(row.known)
    shares = {j: f"{sum(v)} of {len(v)}" for j, v in sorted(known.items())}
    justified = bool(known) and all(
        sum(v) >= WIRING_MIN_KNOWN_SHARE * len(v) for v in known.values()
    )
    return {
        "structure_known_share": shares,
        "min_known_share": f"{WIRING_MIN_KNOWN_SHARE:.2f}",
        "caps_the_structure_would_lift": sum(
            1 for r in pairings if r.proxy_capped and not r.structure_capped
        ),
        "caps_the_structure_would_add": sum(
            1 for r in pairings if r.structure_capped and not r.proxy_capped
        ),
        "proxy_caps_by_cause": causes,
        "decision": "justified: the structure is known for enough pairings in every jurisdiction"
        if justified
        else "not justified: the workbench keeps the section-label proxy",
    }


def report_bytes(report: dict[str, Any]) -> bytes:
    """The bytes a report is written as: indented, keys in build order, UTF-8, one trailing newline."""
    # CAUTION: not sort_keys: the corpus digest stays at the head; every dict is built in a fixed order.
    return (json.dumps(report, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def measure_workspace(
    versions: Iterable[Version],
    *,
    progress: bool = False,
    profiles: Sequence[Profile] | None = None,
) -> list[FamilyMeasurement]:
    """Map `measure_family` over the families of `versions`, serially, in sorted family order,
    choosing each family's profile from `profiles` (default: the shipped ones)."""
    families: dict[tuple[str, str], list[Version]] = defaultdict(list)
    for version in versions:
        families[(version.jurisdiction, version.family)].append(version)
    out = []
    for key in tqdm(sorted(families), desc="measure", unit="family", disable=not progress):
        group = sorted(families[key], key=lambda v: v.version_order)
        out.append(measure_family(group, profiles))
    return out
