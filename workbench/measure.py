"""Measurements re-derived from the corpus, written deterministically to `measurements/` (C12).

Corpus-wide work is a map over document families and a deterministic reduce (C13): for each family
`measure_family` parses every version's structure and diffs every consecutive version pair; it
returns one evidence row per modified pairing and one per version parse. `reduce_families`
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

`measure_corpus` is the whole chain `workbench measure` runs (admit or read the catalogue, ingest,
the map in-process or on Dask, the reduce, the reports, the optional tables). A family whose
inputs are unchanged reuses its earlier result from a cache keyed on exactly those inputs
(`family_cache_key`: its versions' facts and text hashes, the profiles it may be read through, the
code digest); the reduce always runs over every family, so a warm run writes the cold run's bytes.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from workbench.corpus import admit, read_catalogue, read_refusals
from workbench.diff import RESTRUCTURE_CONFIDENCE_CEILING, diff_passages, pairing_is_uncertain
from workbench.files import replace_file
from workbench.models import (
    PAIRING_KINDS,
    CatalogueRow,
    Change,
    Passage,
    Refusal,
    Version,
    canonical_json,
    code_digest,
    consecutive_pairs,
)
from workbench.profiles import (
    Choice,
    Profile,
    candidate_profiles,
    choose_profile,
    read_profile_dir,
    registry,
)
from workbench.progress import bar
from workbench.review import items_of_pair
from workbench.segment import leading_number, segment_version
from workbench.structure import StructureParse, gutter_line_starts, parse_structure
from workbench.workspace import Workspace, ingest

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
    for before, after in consecutive_pairs(versions):
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
        "refusals": [r.as_json() for r in sorted(refusals, key=lambda r: (r.path, r.reason))],
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


def reduce_families(
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


def map_families(
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
    for key in bar(sorted(families), desc="measure", unit="family", enabled=progress):
        group = sorted(families[key], key=lambda v: v.version_order)
        out.append(measure_family(group, profiles))
    return out


# ---------------------------------------------------------------------------------------------
# A family measurement as JSON (the cache's entries, the exported tables' rows)

_ROWS: dict[str, type[Any]] = {
    "pairings": PairingRow,
    "parses": ParseRow,
    "passages": PassageRow,
    "cautions": CautionRow,
}


def row_as_json(row: PairingRow | ParseRow | PassageRow | CautionRow) -> dict[str, Any]:
    """One evidence row as JSON: every field under its own name, in declaration order; a
    structural path (a tuple) becomes a list."""
    return {
        f.name: list(value) if isinstance(value := getattr(row, f.name), tuple) else value
        for f in fields(row)
    }


def family_measurement_as_json(family: FamilyMeasurement) -> dict[str, Any]:
    """A family's measurement as JSON; `family_measurement_from_json` gives back an equal record."""
    return {
        "jurisdiction": family.jurisdiction,
        "family": family.family,
        "versions": family.versions,
        "profile": dict(family.profile),
        **{kind: [row_as_json(r) for r in getattr(family, kind)] for kind in _ROWS},
    }


def family_measurement_from_json(data: Any) -> FamilyMeasurement:
    """The record `family_measurement_as_json` wrote. Raises ValueError on any other shape: a
    missing or unknown field, or rows that are not a list of objects. (Field values are not
    type-checked one by one: the cache holds only what the workbench wrote, like the workspace.)"""
    try:
        if set(data) != _FAMILY_FIELDS:
            raise ValueError(f"fields {sorted(set(data) ^ _FAMILY_FIELDS)} missing or unknown")
        rows = {kind: _rows_from_json(cls, data[kind]) for kind, cls in _ROWS.items()}
        return FamilyMeasurement(
            jurisdiction=data["jurisdiction"],
            family=data["family"],
            versions=data["versions"],
            profile=dict(data["profile"]),
            **rows,
        )
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise ValueError(f"not a family measurement: {type(exc).__name__}: {exc}") from exc


_FAMILY_FIELDS = frozenset({"jurisdiction", "family", "versions", "profile", *_ROWS})
# The fields a row holds as a tuple (a structural path), written as a list.
_TUPLE_FIELDS = {
    cls: tuple(f.name for f in fields(cls) if str(f.type).startswith("tuple"))
    for cls in _ROWS.values()
}


def _rows_from_json(cls: type[Any], items: Any) -> tuple[Any, ...]:
    if not isinstance(items, list):
        raise TypeError(f"{cls.__name__} rows: expected a list, found {type(items).__name__}")
    paths = _TUPLE_FIELDS[cls]
    if not paths:
        return tuple(cls(**item) for item in items)
    out = []
    for item in items:
        row = dict(item)
        for name in paths:
            if row.get(name) is not None:
                row[name] = tuple(row[name])
        out.append(cls(**row))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# The measurement cache: a family measured before is not measured again

CACHE_SCHEME = 1
CACHE_DIR_NAME = "measure-cache"
# What a family's measurement depends on, per version. Each is a column of the workspace's versions
# table and an attribute of `Version`, so the key is computed the same way from either. The text
# enters by its SHA-256; the structure marks and page map by the artefact SHA-256 and the extractor
# name and version, which determine them (DESIGN.md C4).
VERSION_FACTS = (
    "version_id",
    "jurisdiction",
    "family",
    "version_order",
    "version_label",
    "media_type",
    "artefact_sha256",
    "artefact_bytes",
    "extractor",
    "extractor_version",
    "text_sha256",
)


def version_facts(version: Version) -> tuple[Any, ...]:
    """The `VERSION_FACTS` of one version, in that order."""
    return tuple(getattr(version, name) for name in VERSION_FACTS)


def family_cache_key(facts: Sequence[Sequence[Any]], profiles: Sequence[Profile], code: str) -> str:
    """SHA-256 naming exactly what `measure_family` computes from: the cache scheme, the workbench
    code digest (`models.code_digest`), every version's `VERSION_FACTS` in version order, and the
    origin and SHA-256 of each profile the family may be read through
    (`profiles.candidate_profiles`), in registry order. Equal keys mean equal measurements."""
    candidates = candidate_profiles(profiles, facts[0][1], facts[0][2])
    token = canonical_json(
        [
            CACHE_SCHEME,
            code,
            [list(f) for f in facts],
            [[p.origin, p.sha256] for p in candidates],
        ]
    )
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True, kw_only=True)
class MeasurementCache:
    """A folder of family measurements, one JSON file per `family_cache_key`.

    `get` returns a measurement only from a file that holds its own key and a well-formed
    measurement; anything else (missing, unreadable, truncated, another key) is a miss, measured
    again and overwritten: the cache can make a run faster, never change its figures. Files are
    written whole (a temporary file renamed into place), so a run killed mid-write leaves no
    partial entry.
    """

    folder: Path

    def get(self, key: str) -> FamilyMeasurement | None:
        try:
            data = json.loads((self.folder / f"{key}.json").read_bytes())
            if data.get("key") != key or data.get("scheme") != CACHE_SCHEME:
                return None
            return family_measurement_from_json(data["measurement"])
        except (OSError, ValueError, AttributeError, KeyError):
            return None

    def put(self, key: str, family: FamilyMeasurement) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        entry = {
            "scheme": CACHE_SCHEME,
            "key": key,
            "measurement": family_measurement_as_json(family),
        }
        # CAUTION: not canonical_json: the profile record's key order is part of the report.
        data = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        replace_file(self.folder / f"{key}.json", data)


# ---------------------------------------------------------------------------------------------
# The whole chain: admit or read the catalogue, ingest, map, reduce, write


@dataclass(frozen=True, slots=True, kw_only=True)
class MeasureRun:
    """What `measure_corpus` did. `written` is empty when a mirror folder admitted nothing."""

    documents: int  # catalogue rows (or admitted rows) measured
    extracted: tuple[str, ...]  # version ids extracted and held by this run's ingest
    families: tuple[str, ...]  # "jurisdiction/family", sorted
    reused: tuple[str, ...]  # families whose cached measurement was reused
    written: tuple[Path, ...]
    not_ingested: tuple[Refusal, ...]
    admission_refusals: tuple[Refusal, ...]
    results: tuple[FamilyMeasurement, ...] = ()  # the map's output, family by family
    measurements: Measurements | None = None  # the reduce, as written (None: nothing admitted)


def measure_corpus(
    *,
    out: Path,
    workspace: Path,
    corpus_dir: Path = Path("corpus"),
    store: Path = Path("corpus/real"),
    mirror: Path | None = None,
    profiles: Sequence[Profile] = (),
    workers: int | None = None,
    scheduler: str | None = None,
    cache: Path | None = None,
    use_cache: bool = True,
    export: str | None = None,
    progress: bool = False,
) -> MeasureRun:
    """Re-derive every measurement report into `out`: what `workbench measure` runs.

    1. The documents: with `mirror`, that mirror-layout folder is admitted (`corpus.admit`; not
       written into any catalogue) and its profiles (`MIRROR/profiles/*.toml`) join `profiles`;
       if it admits nothing, nothing is ingested or written. Without it, the catalogue in
       `corpus_dir` and the refusals recorded beside it.
    2. Ingest into the workspace file `workspace` (idempotent; a version already held under the
       same artefact SHA-256 and current extractor version is not extracted again, C4).
    3. The map, per family with held versions: a family whose `family_cache_key` has an entry in
       the cache (`cache`, default `measure-cache/` beside the workspace file) reuses it; every
       other family is measured (in-process, or on Dask with `workers` / `scheduler`, C13) and
       stored there. `use_cache=False` measures every family and stores nothing.
    4. The reduce (`reduce_families`) and the reports (`report.write_reports`); with `export`
       ("csv" or "parquet") the measurement tables too (`tables.write_measurement_tables`).

    The reports are the same bytes whichever families came from the cache and whatever ran the
    map. The researcher's `profiles` come before the shipped ones (`profiles.registry`).
    """
    if export is not None:
        from workbench.tables import check_format  # refused before anything is read or written

        check_format(export)
    if workers is not None or scheduler is not None:
        from workbench.engine import check_engine_options

        check_engine_options(workers, scheduler)
    own = tuple(profiles)
    if mirror is not None:
        admission = admit(mirror, progress=progress)
        rows, refusals, store = admission.rows, admission.refusals, mirror
        if not rows:
            return MeasureRun(
                documents=0,
                extracted=(),
                families=(),
                reused=(),
                written=(),
                not_ingested=(),
                admission_refusals=refusals,
            )
        if (mirror / "profiles").is_dir():
            own += read_profile_dir(mirror / "profiles")
    else:
        rows, refusals = read_catalogue(corpus_dir), read_refusals(corpus_dir)
    readers = registry(own)
    folder = cache if cache is not None else workspace.parent / CACHE_DIR_NAME
    held_cache = MeasurementCache(folder=folder) if use_cache else None
    with Workspace(workspace) as held:
        report = ingest(held, rows, store, progress=progress)
        groups = _held_families(held, {row.path for row in rows})
        keys = {
            key: family_cache_key(facts, readers, code_digest()) for key, facts in groups.items()
        }
        found = {
            key: hit
            for key in groups
            if held_cache is not None and (hit := held_cache.get(keys[key])) is not None
        }
        missing = [key for key in groups if key not in found]
        measured = _measure_missing(
            held, rows, store, missing, readers, workers, scheduler, progress
        )
    if held_cache is not None:
        for key, family in measured.items():
            held_cache.put(keys[key], family)
    results = [found[key] if key in found else measured[key] for key in groups]
    measurements = reduce_families(results, rows, refusals)
    from workbench.report import write_reports  # altair loads only when reports are written

    written = list(write_reports(out, measurements).values())
    if export is not None:
        from workbench.tables import write_measurement_tables

        written += write_measurement_tables(out, results, measurements, export)
    return MeasureRun(
        documents=len(rows),
        extracted=report.added,
        families=tuple(f"{j}/{f}" for j, f in groups),
        reused=tuple(f"{j}/{f}" for j, f in groups if (j, f) in found),
        written=tuple(written),
        not_ingested=report.refused,
        admission_refusals=refusals,
        results=tuple(results),
        measurements=measurements,
    )


def held_version_facts(held: Workspace) -> tuple[tuple[Any, ...], ...]:
    """`VERSION_FACTS` of every held version, in the workspace's order (jurisdiction, family,
    version order), read without the texts."""
    return tuple(
        tuple(row)
        for row in held.execute(
            f"SELECT {', '.join(VERSION_FACTS)} FROM versions "
            "ORDER BY jurisdiction, family, version_order"
        )
    )


def _held_families(
    held: Workspace, wanted: set[str]
) -> dict[tuple[str, str], list[tuple[Any, ...]]]:
    """(jurisdiction, family) to the facts of its held versions among `wanted` (version ids), in
    sorted (jurisdiction, family) order, versions in version order."""
    groups: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
    for facts in held_version_facts(held):
        if facts[0] in wanted:
            groups.setdefault((facts[1], facts[2]), []).append(facts)
    return dict(sorted(groups.items()))


def _measure_missing(
    held: Workspace,
    rows: Sequence[CatalogueRow],
    store: Path,
    missing: Sequence[tuple[str, str]],
    readers: Sequence[Profile],
    workers: int | None,
    scheduler: str | None,
    progress: bool,
) -> dict[tuple[str, str], FamilyMeasurement]:
    """Measure the `missing` families, in-process or on the cluster the options name."""
    if not missing:
        return {}
    if workers is None and scheduler is None:
        wanted = {row.path for row in rows}
        out = {}
        for jurisdiction, family in bar(missing, desc="measure", unit="family", enabled=progress):
            versions = [
                v
                for v in held.versions(family)
                if v.jurisdiction == jurisdiction and v.version_id in wanted
            ]
            out[(jurisdiction, family)] = measure_family(versions, readers)
        return out
    from workbench.engine import map_families_on_cluster

    # The workers read and hash-check the bytes themselves; only rows and hashes travel.
    names = set(missing)
    chosen = [row for row in rows if (row.jurisdiction, row.family) in names]
    families = map_families_on_cluster(
        held,
        chosen,
        store,
        workers=workers,
        scheduler=scheduler,
        progress=progress,
        profiles=readers,
    )
    return {(f.jurisdiction, f.family): f for f in families}
