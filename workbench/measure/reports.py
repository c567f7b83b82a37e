"""The reduce of the measurement: every family's rows into the reports (C12, C13).

`reduce_families` sorts the rows of every family and reduces them into the reports; nothing
depends on the order families arrive in. Every report is headed by the corpus digest it was
computed on, holds no timestamps and no floats (shares are printed as text by `rate()`, counts
are integers), and is serialized one way (`report_bytes`), so a re-run writes the same bytes.

The report records per family the profile's name, SHA-256 and origin, how it was chosen, and the
share of its passages that carry their own label. A pairing whose passage on either side is front
matter or furniture is excluded from the "structure known" share (and counted beside it): a title
page or a page footer has no section to know. A pairing is "known" when both passages carry a
structural path; an unknown pairing is counted by its cause (`refused:<code>` when a side's parse
refused, `uncovered` when no numbered unit covers a side). For single-version documents the
report gives the share of body and heading passages that carry a path.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from workbench.changes.diff import RESTRUCTURE_CONFIDENCE_CEILING
from workbench.measure.family import (
    CAP_CAUSES,
    CAUTION_CAUSES,
    EXCLUDED_KINDS,
    CautionRow,
    FamilyMeasurement,
    PairingRow,
    PassageRow,
    TextRow,
)
from workbench.models import (
    PAIRING_KINDS,
    CatalogueRow,
    Refusal,
    content_id,
)

DIGESTS_NAME = "corpus-digests.json"
STRUCTURE_NAME = "structure-measurement.json"
ESCALATION_NAME = "escalation-rates.json"
MIN_SUBJECTS = 10
EXAMPLES_PER_CAUSE = 3
KNOWN_TARGET = 0.9  # the share of pairings (or body passages) the structure should know


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
    return _share(sum(verdicts.values()), len(verdicts))


def _share(count: int, subjects: int) -> Rate:
    """`count` of `subjects` as `rate` prints it (the rule in its docstring)."""
    if subjects < MIN_SUBJECTS:
        return Rate(holds=count, subjects=subjects, text=f"n = {subjects} subjects; no rate")
    hundredths = round(count * 10000 / subjects)
    return Rate(
        holds=count,
        subjects=subjects,
        text=f"{hundredths // 100}.{hundredths % 100:02d}% ({count} of {subjects})",
    )


TEXT_ORIGIN_FIELDS = ("glyphs", "invisible", "ocr", "unrecorded")


def character_shares(rows: Iterable[TextRow]) -> dict[str, Any]:
    """The share of a scope's non-white-space characters per origin (C18), and of those a
    machine read (`invisible` and `ocr`). Here every character is a subject: the counts are
    summed over the versions' rows, one row per version (two rows with one id are an error, as
    in `rate`), and a share is printed as `rate` prints one, never below `MIN_SUBJECTS`."""
    seen: set[str] = set()
    counts = dict.fromkeys(TEXT_ORIGIN_FIELDS, 0)
    machine_versions = 0
    for row in rows:
        if row.evidence_id in seen:
            raise ValueError(f"evidence {row.evidence_id}: two text rows for one version")
        seen.add(row.evidence_id)
        for name in TEXT_ORIGIN_FIELDS:
            counts[name] += getattr(row, name)
        machine_versions += (row.invisible + row.ocr) * 2 > row.glyphs + row.invisible + row.ocr
    total = sum(counts.values())
    return {
        "versions": len(seen),
        "versions_mostly_machine_read": machine_versions,
        "characters": total,
        **{name: _share(counts[name], total).as_json() for name in TEXT_ORIGIN_FIELDS},
        "machine_read": _share(counts["invisible"] + counts["ocr"], total).as_json(),
    }


def _text_origin_report(families: Sequence[FamilyMeasurement]) -> dict[str, Any]:
    by_jurisdiction: dict[str, list[TextRow]] = defaultdict(list)
    for row in (r for f in families for r in f.texts):
        by_jurisdiction[row.jurisdiction].append(row)
    return {
        "rule": "non-white-space characters of every measured version by the origin its extractor "
        "recorded (C18): glyphs the document draws, invisible (someone's OCR layer), ocr (the "
        "workbench's own OCR), unrecorded (a PDF held before origins were recorded); machine_read "
        "is invisible and ocr together; a version is mostly machine-read when they are more than "
        "half of its characters",
        "overall": character_shares(r for f in families for r in f.texts),
        "jurisdictions": {j: character_shares(g) for j, g in sorted(by_jurisdiction.items())},
    }


# ---------------------------------------------------------------------------------------------
# The reduce: reports


def corpus_digest(rows: Iterable[CatalogueRow]) -> str:
    """SHA-256 over the canonical JSON of sorted [path, sha256] pairs."""
    pairs = sorted([row.path, row.sha256] for row in rows)
    return content_id(pairs)


def corpus_digests(
    rows: Iterable[CatalogueRow],
    refusals: Iterable[Refusal] = (),
    not_ingested: Iterable[Refusal] = (),
) -> dict[str, Any]:
    """The corpus-digests report: one digest, per-jurisdiction counts, per-document hashes, and
    every admitted document that was not ingested (`not_ingested`: no text from its bytes, by
    its extractor or by OCR, or bytes missing): listed, and never counted as measured."""
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
    unread = sorted(not_ingested, key=lambda r: (r.path, r.reason))
    return {
        "corpus_digest": corpus_digest(rows),
        "digest_rule": "sha256 of canonical JSON of sorted [path, sha256] pairs of admitted documents",
        "documents": len(rows),
        "documents_measured": len(rows) - len({r.path for r in unread}),
        "not_ingested": [r.as_json() for r in unread],
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
    not_ingested: Iterable[Refusal] = (),
) -> Measurements:
    """Reduce family measurements into the reports; the result does not depend on family order.
    `refusals` are the admission's, `not_ingested` the admitted documents ingest refused."""
    rows = list(rows)
    digests = corpus_digests(rows, refusals, not_ingested)
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
        "text_origins": _text_origin_report(ordered),
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
        "pairings_machine_read": rate(pairings, lambda r: r.machine_read).as_json(),
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
        + ", ".join(CAUTION_CAUSES)
        + "; a pairing of two machine readings (each side touches invisible or ocr text) is "
        "cautioned whatever its confidence and counted in pairings_machine_read",
        "overall": _caution_block(rows),
        "jurisdictions": {j: _caution_block(g) for j, g in sorted(by_jurisdiction.items())},
    }


def induced_profile_file(jurisdiction: str, family: str) -> str:
    """Where, under the reports' folder, the TOML of a profile induced for a family is written."""
    return f"profiles/{jurisdiction}/{family}.toml"


def _profiles_used(families: Sequence[FamilyMeasurement]) -> dict[str, dict[str, Any]]:
    """Per family: the profile that read it, how it was chosen, and its versions' count; an
    induced profile's TOML is named by the file it is written to, not repeated."""
    used = {}
    for f in families:
        record: dict[str, Any] = {k: v for k, v in f.profile.items() if k != "toml"}
        if "toml" in f.profile:
            record["file"] = induced_profile_file(f.jurisdiction, f.family)
        used[f"{f.jurisdiction}/{f.family}"] = {**record, "versions": f.versions}
    return used


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
