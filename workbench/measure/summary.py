"""A family's measurement summed up (C13): the additive counts the reports are built from, as plain
JSON, so the blocks of any set of families are made from the sum of their counts in any order."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from workbench.measure.family import CAP_CAUSES, CAUTION_CAUSES, EXCLUDED_KINDS
from workbench.models import PAIRING_KINDS

if TYPE_CHECKING:  # the evidence rows are only named here, never built
    from workbench.measure.family import (
        CautionRow,
        FamilyMeasurement,
        PairingRow,
        PassageRow,
        TextRow,
    )

MIN_SUBJECTS = 10
EXAMPLES_PER_CAUSE = 3
KNOWN_TARGET = 0.9  # the share of pairings (or body passages) the structure should know

Share = list[int]  # [holds, distinct subjects]
E = TypeVar("E")


def share(rows: Iterable[E], holds: Callable[[E], bool]) -> Share:
    """[holds, subjects]: the distinct subjects (`evidence_id`) for which `holds` is true, and
    all of them. A row repeated counts once; two rows with one id that disagree are an error."""
    verdicts: dict[str, bool] = {}
    for row in rows:
        verdict = bool(holds(row))
        if verdicts.setdefault(row.evidence_id, verdict) != verdict:  # type: ignore[attr-defined]
            raise ValueError(f"evidence {row.evidence_id}: rows with one id disagree")  # type: ignore[attr-defined]
    return [sum(verdicts.values()), len(verdicts)]


def rate_text(holds: int, subjects: int) -> str:
    """The share printed: below `MIN_SUBJECTS` distinct subjects no percentage at all; else two
    decimals, rounded half to even on the exact fraction, and the counts."""
    if subjects < MIN_SUBJECTS:
        return f"n = {subjects} subjects; no rate"
    hundredths = round(holds * 10000 / subjects)
    return f"{hundredths // 100}.{hundredths % 100:02d}% ({holds} of {subjects})"


def rate_json(counted: Sequence[int]) -> dict[str, Any]:
    """A share as the reports print it: holds, subjects and `rate_text`."""
    holds, subjects = counted
    return {"holds": holds, "subjects": subjects, "rate": rate_text(holds, subjects)}


def meets(counted: Sequence[int]) -> str:
    """ "yes" / "no" against `KNOWN_TARGET` on the exact counts; "n/a" below `MIN_SUBJECTS`."""
    holds, subjects = counted
    if subjects < MIN_SUBJECTS:
        return "n/a"
    return "yes" if holds * 10 >= round(KNOWN_TARGET * 10) * subjects else "no"


# ---------------------------------------------------------------------------------------------
# Counts of one family's rows


def pairing_counts(rows: Sequence[PairingRow]) -> dict[str, Any]:
    """Every figure the structure and escalation blocks give, over modified pairings."""
    counted = [r for r in rows if not r.excluded]
    capped = [r for r in rows if r.proxy_capped]
    return {
        "modified": len(rows),
        "known": share(counted, lambda r: r.known),
        "known_rows": [sum(r.known for r in counted), len(counted)],
        "excluded": len(rows) - len(counted),
        "unknown_by_cause": dict(Counter(r.unknown_cause for r in counted if r.unknown_cause)),
        "proxy_caps": share(rows, lambda r: r.proxy_capped),
        "cap_causes": dict(Counter(r.cap_cause for r in capped)),
        "structure_status": dict(Counter(r.structure_status for r in rows)),
        "contradicts": sum(
            1 for r in rows if r.before_label == r.after_label and r.structure_status == "disagree"
        ),
        "confirms": sum(
            1 for r in rows if r.before_label != r.after_label and r.structure_status == "disagree"
        ),
        "proxy_cautioned": share(rows, lambda r: r.proxy_cautioned),
        "structure_cautioned": share(rows, lambda r: r.structure_cautioned),
        "caps_lifted": sum(1 for r in rows if r.proxy_capped and not r.structure_capped),
        "caps_added": sum(1 for r in rows if r.structure_capped and not r.proxy_capped),
    }


def caution_counts(rows: Sequence[CautionRow]) -> dict[str, Any]:
    """Every figure of a caution block, over the non-equal changes."""
    pairings = [r for r in rows if r.kind in PAIRING_KINDS]
    return {
        "non_equal": len(rows),
        "by_kind": dict(Counter(r.kind for r in rows)),
        "cautioned": share(pairings, lambda r: r.cause is not None),
        "half_alike": share(pairings, lambda r: r.low_similarity),
        "opens_item": share(rows, lambda r: r.opens_review_item),
        "by_cause": dict(Counter(r.cause for r in rows if r.cause)),
        "machine_read": share(pairings, lambda r: r.machine_read),
        "confident": sum(1 for r in rows if r.confident),
    }


def passage_counts(rows: Sequence[PassageRow], versions: int) -> dict[str, Any]:
    """Every figure of a passage block (body = every kind but front matter and furniture)."""
    content = [r for r in rows if r.kind not in EXCLUDED_KINDS]
    return {
        "versions": versions,
        "passages": len(rows),
        "kinds": dict(Counter(r.kind for r in rows)),
        "own_label": share(rows, lambda r: r.labelled),
        "body_with_path": share(content, lambda r: r.has_path),
    }


TEXT_ORIGIN_FIELDS = ("glyphs", "invisible", "ocr", "unrecorded")


def text_counts(rows: Sequence[TextRow]) -> dict[str, Any]:
    """Every figure of a text-origin block (C18): versions, those mostly machine-read (`invisible`
    and `ocr` more than half of their characters), and the characters per origin. One row per
    version: two rows with one id are an error."""
    seen: set[str] = set()
    for row in rows:
        if row.evidence_id in seen:
            raise ValueError(f"evidence {row.evidence_id}: two text rows for one version")
        seen.add(row.evidence_id)
    return {
        "versions": len(seen),
        "mostly_machine_read": sum(
            (r.invisible + r.ocr) * 2 > r.glyphs + r.invisible + r.ocr for r in rows
        ),
        **{name: sum(getattr(r, name) for r in rows) for name in TEXT_ORIGIN_FIELDS},
    }


def _examples(rows: Sequence[PairingRow]) -> dict[str, list[dict[str, Any]]]:
    """The first `EXAMPLES_PER_CAUSE` capped pairings of each cause, ordered by (jurisdiction,
    family, before id, change id)."""
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
    return {cause: found for cause, found in chosen.items() if found}


def reading_counts(profile: Mapping[str, Any]) -> dict[str, int]:
    """A family's numbering as counts that add: one family read, read with inconsistencies or
    unread (`choice.family_reading`, recorded beside its profile), and the inconsistent steps of
    a family read with inconsistencies (an unread family's steps were not read: none counted)."""
    status = profile["reading"]
    mixed = status == "read with inconsistencies"
    return {
        "families_read": int(status == "read"),
        "families_read_with_inconsistencies": int(mixed),
        "families_unread": int(status == "unread"),
        "inconsistent_steps": profile["inconsistent_steps"] if mixed else 0,
    }


READING_FIELDS = (
    "families_read",
    "families_read_with_inconsistencies",
    "families_unread",
    "inconsistent_steps",
)


def reading_block(c: Mapping[str, int]) -> dict[str, int]:
    """Families read, read with inconsistencies and unread, and their inconsistent steps (each
    0 where none was counted: a scope with no family)."""
    return {name: c.get(name, 0) for name in READING_FIELDS}


NUMBERING_RULE = (
    "a family is read when its profile read at least one consistent label step (or its "
    "extractor's marks number every version), read with inconsistencies when it also read an "
    "inconsistent step (inconsistent_steps counts those families' steps), and unread otherwise; "
    "an unread family's pairings are never counted as known (unknown_by_cause: unread)"
)


def numbering_report(
    overall: Mapping[str, int], jurisdictions: Mapping[str, Mapping[str, int]]
) -> dict[str, Any]:
    """The reports' `numbering_read` section: its rule, then `reading_block` overall and per
    jurisdiction, in name order."""
    return {
        "rule": NUMBERING_RULE,
        "overall": reading_block(overall),
        "jurisdictions": {j: reading_block(c) for j, c in sorted(jurisdictions.items())},
    }


def reading_text(block: Mapping[str, int]) -> str:
    """A `reading_block` as every output says it: "N families read, M read with inconsistencies
    (S inconsistent steps), U unread"."""
    return (
        f"{block['families_read']} families read, {block['families_read_with_inconsistencies']} "
        f"read with inconsistencies ({block['inconsistent_steps']} inconsistent steps), "
        f"{block['families_unread']} unread"
    )


def family_summary(family: FamilyMeasurement) -> dict[str, Any]:
    """One family's counts, profile and first examples, as JSON (docs/measurements.md).

    `pairings` is None for a family with no modified pairing: such a family has no block of its
    own in the structure and escalation reports. `parses` counts its versions' parse outcomes
    (`refusal` code, or `parsed:<method>`).
    """
    return {
        "jurisdiction": family.jurisdiction,
        "family": family.family,
        "versions": family.versions,
        "profile": dict(family.profile),
        "reading": reading_counts(family.profile),
        "pairings": pairing_counts(family.pairings) if family.pairings else None,
        "cautions": caution_counts(family.cautions),
        "passages": passage_counts(family.passages, family.versions),
        "parses": dict(Counter(p.refusal or f"parsed:{p.method}" for p in family.parses)),
        "texts": text_counts(family.texts),
        "examples": _examples(family.pairings),
    }


def add_counts(total: Any, more: Any) -> Any:
    """`more` added into `total` (a dict of counts, possibly empty): numbers and lists of numbers
    add element by element, dicts key by key, recursively; returns the sum (`total`, updated)."""
    if isinstance(more, (int, float)):  # most members: tested first, and cheaply
        return total + more
    if isinstance(more, list):
        return [a + b for a, b in zip(total, more, strict=True)]
    if isinstance(more, Mapping):
        for key, value in more.items():
            total[key] = add_counts(total[key], value) if key in total else _copy(value)
        return total
    return total + more


def _copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    return list(value) if isinstance(value, list) else value


# ---------------------------------------------------------------------------------------------
# Blocks built from counts: one function for a family, a jurisdiction and the whole corpus


def structure_block(c: Mapping[str, Any]) -> dict[str, Any]:
    """Structure known (outside front matter and furniture, unknown by cause), proxy caps and
    their causes, what the structure says of each pairing."""
    causes = c["cap_causes"]
    return {
        "modified_pairings": c["modified"],
        "structure_known": rate_json(c["known"]),
        "meets_target": meets(c["known"]),
        "excluded_front_matter_or_furniture": c["excluded"],
        "unknown_by_cause": dict(sorted(c["unknown_by_cause"].items())),
        "proxy_caps": rate_json(c["proxy_caps"]),
        "cap_causes": {cause: causes.get(cause, 0) for cause in CAP_CAUSES},
        "structure_status": dict(sorted(c["structure_status"].items())),
        "structure_contradicts_agreeing_labels": c["contradicts"],
        "structure_confirms_disagreeing_labels": c["confirms"],
    }


def escalation_block(c: Mapping[str, Any]) -> dict[str, Any]:
    """Pairings left cautioned under the proxy and under the structure rule."""
    return {
        "modified_pairings": c["modified"],
        "proxy": rate_json(c["proxy_cautioned"]),
        "structure": rate_json(c["structure_cautioned"]),
        "caps_lifted_by_structure": c["caps_lifted"],
        "caps_added_by_structure": c["caps_added"],
    }


def caution_block(c: Mapping[str, Any]) -> dict[str, Any]:
    """Non-equal changes by kind, the share of pairings cautioned, and every caution by cause."""
    causes = c["by_cause"]
    return {
        "non_equal_changes": c["non_equal"],
        "by_kind": dict(sorted(c["by_kind"].items())),
        "pairings_cautioned": rate_json(c["cautioned"]),
        "pairings_at_most_half_alike": rate_json(c["half_alike"]),
        "review_queue_items_per_non_equal_change": rate_json(c["opens_item"]),
        "cautioned_by_cause": {cause: causes.get(cause, 0) for cause in CAUTION_CAUSES},
        "pairings_machine_read": rate_json(c["machine_read"]),
        "confident_pairings_unexamined": c["confident"],
    }


def text_block(c: Mapping[str, Any]) -> dict[str, Any]:
    """The share of a scope's non-white-space characters per origin, and of those a machine read
    (`invisible` and `ocr`). Every character is a subject, so a share is printed as `rate_text`
    prints one, never below `MIN_SUBJECTS` characters."""
    total = sum(c[name] for name in TEXT_ORIGIN_FIELDS)
    return {
        "versions": c["versions"],
        "versions_mostly_machine_read": c["mostly_machine_read"],
        "characters": total,
        **{name: rate_json([c[name], total]) for name in TEXT_ORIGIN_FIELDS},
        "machine_read": rate_json([c["invisible"] + c["ocr"], total]),
    }


def passage_block(c: Mapping[str, Any]) -> dict[str, Any]:
    """Passages by kind, with their own label, and body passages with a structural path."""
    return {
        "versions": c["versions"],
        "passages": c["passages"],
        "kinds": dict(sorted(c["kinds"].items())),
        "own_label": rate_json(c["own_label"]),
        "body_with_path": rate_json(c["body_with_path"]),
        "body_with_path_meets_target": meets(c["body_with_path"]),
    }


# ---------------------------------------------------------------------------------------------
# A summary's counts as rows: what the reduce adds up, summed by the index without parsing a part

# The parts the reduce adds up, each with its counts when no family gave any (the sum's start).
COUNTED_PARTS: dict[str, Callable[[], dict[str, Any]]] = {
    "pairings": lambda: pairing_counts(()),
    "cautions": lambda: caution_counts(()),
    "passages": lambda: passage_counts((), 0),
    "reading": lambda: dict.fromkeys(READING_FIELDS, 0),
    "parses": dict,
    "texts": lambda: text_counts(()),
}

CountRow = tuple[str, str, int]  # (part, path: the JSON list of keys and list places, count)


def summary_counts(summary: Mapping[str, Any]) -> list[CountRow]:
    """The counts of `summary` the reduce adds up, one row per number: (part, the JSON text of
    its path within the part, count). A number, and each member of a list, is a row even when 0;
    a dict of counts (kinds, causes, statuses) has a row per key it holds. A part is left out
    where the reduce does not add it: `pairings` of a family with no modified pairing (None),
    `cautions` of one with no non-equal change, `texts` of one with no text version (their counts
    would all be 0). Summed by (jurisdiction, part, path) and laid back (`counts_of`), they give
    what `add_counts` gives over the summaries themselves."""
    rows: list[CountRow] = []
    for part in COUNTED_PARTS:
        value = summary[part]
        if (
            value is None
            or (part == "cautions" and not value["non_equal"])
            or (part == "texts" and not value["versions"])
        ):
            continue
        _flatten(part, value, [], rows)
    return rows


def _flatten(part: str, value: Any, path: list[Any], rows: list[CountRow]) -> None:
    if isinstance(value, Mapping):
        for key, member in value.items():
            _flatten(part, member, [*path, key], rows)
    elif isinstance(value, list):
        for place, member in enumerate(value):
            _flatten(part, member, [*path, place], rows)
    else:
        rows.append((part, json.dumps(path, ensure_ascii=False, separators=(",", ":")), value))


def counts_of(part: str, rows: Iterable[tuple[str, int]]) -> dict[str, Any]:
    """`part`'s counts with the summed `rows` (path, count) laid in, from its start
    (`COUNTED_PARTS`): a path's last key is added to the dict or list place it names."""
    total = COUNTED_PARTS[part]()
    for path, count in rows:
        *outer, last = json.loads(path)
        node = total
        for key in outer:
            node = node.setdefault(key, {}) if isinstance(node, dict) else node[key]
        node[last] = node.get(last, 0) + count if isinstance(node, dict) else node[last] + count
    return total
