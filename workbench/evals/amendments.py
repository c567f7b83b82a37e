"""Score the amendment reader, its verification and its reconciliation against the truth derived
from the Council's `codify:` markup (C19). The scorecard is a pure function of the truth file and
the amendment report; what counts as found is in docs/eval.md."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.amendments.enactment import Check
from workbench.amendments.instructions import Instruction
from workbench.amendments.reconcile import AmendmentReport, Attribution
from workbench.amendments.tally import Tally, by_kind
from workbench.evals.cards import write_card
from workbench.evals.truth import TruthKind
from workbench.measure import rate
from workbench.measure.summary import rate_json

SCORECARD_JSON = "amendment-scorecard.json"
SCORECARD_MD = "amendment-scorecard.md"
KINDS = ("strike_and_insert", "insert", "repeal", "redesignate", "amend_to_read")
KIND_OF_ACTION = {
    "strike_and_insert": "strike_and_insert",
    "strike": "strike_and_insert",
    "add_unit": "insert",
    "repeal": "repeal",
    "redesignate": "redesignate",
    "amend_to_read": "amend_to_read",
}

AMENDMENT_TRUTH = TruthKind(
    name="amendment",
    script="scripts/amendment_truth.py",
    field="instructions",
    subjects="instructions",
)

__all__ = [
    "AMENDMENT_TRUTH",
    "amendment_scorecard",
    "reconciliation_shares",
    "write_amendment_scorecard",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class _Row:
    """One subject of a rate: its evidence id and whether it holds."""

    evidence_id: str
    holds: bool


def _norm(text: str | None) -> str:
    return " ".join((text or "").split())


def _path(entry: Mapping[str, Any]) -> tuple[str, ...]:
    # The codifier writes a level it supplies in brackets, "[(c-2)]": the label is the same.
    return tuple(label.strip("[]") for label in entry["target"]["path"])


def _section(entry: Mapping[str, Any]) -> str | None:
    section = entry["target"]["section"]
    return section.strip("[]") if section else None


def _evidence(entry: Mapping[str, Any]) -> str:
    return f"{entry['law']}|{entry['line']}|{entry['element']}|{entry['target']['raw']}"


def finds(entry: Mapping[str, Any], ins: Instruction) -> bool:
    """Whether the reader's instruction finds this truth instruction (the rule: docs/eval.md)."""
    if entry["law"] != ins.law or entry["kind"] != KIND_OF_ACTION[ins.action]:
        return False
    target, path = ins.target, _path(entry)
    if entry["kind"] == "insert" and target.section is None and not target.path:
        heading = _norm(entry.get("inserted_heading"))
        return bool(heading) and heading in _norm(ins.new_text)
    if target.document != "code" or target.section != _section(entry):
        return False
    if entry["kind"] == "redesignate":
        return target.names(path) or (
            bool(path)
            and path[-1] == ins.new_label
            and target.names((*path[:-1], *target.path[-1:]))
        )
    if entry["kind"] == "strike_and_insert":
        encloses = target.names(path) or tuple(target.path[: len(path)]) == path
        return (
            encloses
            and _norm(entry["find"]) in _norm(ins.old_text)
            and _norm(entry["replace"]) in _norm(ins.new_text)
        )
    return target.names(path)


def _headless(ins: Instruction) -> bool:
    """An added unit that names no section nor unit: `finds` looks for it by the heading alone."""
    return (
        KIND_OF_ACTION[ins.action] == "insert"
        and ins.target.section is None
        and not ins.target.path
    )


def _agrees(entry: Mapping[str, Any], ins: Instruction) -> bool:
    """Law, kind, section and unit agree (no text compared): for precision and departures."""
    if finds(entry, ins):
        return True
    if entry["law"] != ins.law or entry["kind"] != KIND_OF_ACTION[ins.action]:
        return False
    if ins.target.section != _section(entry):
        return False
    path = _path(entry)
    return ins.target.names(path) or tuple(ins.target.path[: len(path)]) == path


def _truth_line(entry: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "law": entry["law"],
        "line": entry["line"],
        "element": entry["element"],
        "target": entry["target"]["raw"],
        "find": entry["find"],
        "replace": entry["replace"],
        "prose": entry["holder_prose"][:200],
    }


def reader_line(ins: Instruction) -> dict[str, Any]:
    """An instruction as a scorecard lists it: its law, section, offsets, action, target and
    the first 200 characters of its sentence."""
    return {
        "law": ins.law,
        "law_section": ins.law_section,
        "char_start": ins.char_start,
        "char_end": ins.char_end,
        "action": ins.action,
        "target": ins.target.citation(),
        "sentence": ins.sentence[:200],
    }


def explain(entry: Mapping[str, Any], ins: Instruction | None, check: Check | None) -> str:
    """Why a truth instruction is not `applied` or `created`, read off the evidence in order: no
    reading found it; the before release already read as instructed (an earlier Act, not held,
    made the change); a later release reads so (the codifier applied it late); the unit's text
    holds words the codifier prints otherwise; the codifier's replacement text is not the law's
    inserted text; otherwise no held release reads as instructed."""
    if ins is None or check is None:
        return "no reading of the prose found it (see the misses)"
    later = check.reads_as_instructed_in
    before = check.before.version_id if check.before else None
    if before and before in later:
        return f"the before release {before} already read as instructed: an earlier Act made it"
    if later:
        return f"codified late: {later[0]} is the first held release that reads as instructed"
    rewrites = entry.get("codifier_rewrites") or []
    if rewrites:
        first = rewrites[0]
        return (
            f"the Code prints the codifier's {first['code']!r} for the law's words "
            f"{first['text']!r} ({len(rewrites)} such)"
        )
    if entry["kind"] == "strike_and_insert" and (
        _norm(entry["find"]) not in _norm(ins.old_text)
        or _norm(entry["replace"]) != _norm(ins.new_text)
    ):
        return (
            f"the codifier's markup strikes {entry['find']!r} and inserts {entry['replace']!r}, "
            f"not the law's {ins.old_text!r} and {ins.new_text!r}"
        )
    return "no held release reads as instructed"


def _explanation(
    entry: Mapping[str, Any], ins: Instruction | None, check: Check | None, made: set[str]
) -> str:
    """Empty for an instruction applied (or created) and made by a change; else why not."""
    if check is None or ins is None or check.outcome not in ("applied", "created"):
        return explain(entry, ins, check)
    if ins.instruction_id in made or check.outcome == "created":
        return ""
    if "already" in check.detail:
        return "no change of its pair: the before release already read as instructed"
    return "no change of its pair touches its unit"


def tally_shares(tally: Tally, not_reflected: int) -> dict[str, Any]:
    """The reconciliation's figures over the attributions `tally` counts (the scorecard's, and
    each scope and title of `workbench reconcile`'s report): the changes, the release pairs they
    fall in, the share of each attribution kind (each change one subject, printed as `rate`
    prints it), how many of each lie wholly in the notes, the Acts history notes name, and
    `not_reflected` as given."""
    return {
        "changes": tally.changes,
        "pairs": tally.pairs,
        **{kind: rate_json([n, tally.changes]) for kind, n in by_kind(tally.kinds).items()},
        "in_notes": dict(by_kind(tally.in_notes)),
        "acts_named": sorted(tally.acts),
        "not_reflected": not_reflected,
    }


def reconciliation_shares(
    attributions: Iterable[Attribution], not_reflected: int
) -> dict[str, Any]:
    """`tally_shares` over `attributions` (each change counted once)."""
    return tally_shares(Tally.of(attributions), not_reflected)


def amendment_scorecard(
    truth: Mapping[str, Any],
    report: AmendmentReport,
    *,
    corpus_digest: str,
    truth_sha256: str,
) -> dict[str, Any]:
    """The scorecard: recall and precision per kind, verification, reconciliation (docs/eval.md)."""
    held_sections = report.held_sections
    pairs = [
        (ins, check)
        for law in report.laws
        for ins, check in zip(law.reading.instructions, law.checks, strict=True)
    ]
    # Only the reader's instructions into the entry's law, kind and section can find or agree
    # with it, and those adding a unit by its heading alone (`_headless`): each entry is tried on
    # those, taken in the report's order (the first one found is the entry's reading).
    by_section: dict[tuple[str, str, str | None], list[int]] = defaultdict(list)
    headless: dict[tuple[str, str], list[int]] = defaultdict(list)
    for k, (ins, _) in enumerate(pairs):
        kind = KIND_OF_ACTION[ins.action]
        by_section[(ins.law, kind, ins.target.section)].append(k)
        if _headless(ins):
            headless[(ins.law, kind)].append(k)

    def candidates(entry: Mapping[str, Any]) -> list[tuple[Instruction, Check]]:
        law, kind = entry["law"], entry["kind"]
        ks = {*by_section.get((law, kind, _section(entry)), ()), *headless.get((law, kind), ())}
        return [pairs[k] for k in sorted(ks)]

    marked = {law["law"]: [_norm(p) for p in law["marked_units"]] for law in truth["laws"]}
    made = {m.instruction_id for a in report.attributions.values() for m in a.made_by}

    recall_rows: dict[str, list[_Row]] = defaultdict(list)
    misses: dict[str, list[dict[str, Any]]] = defaultdict(list)
    verification: list[dict[str, Any]] = []
    for entry in truth["instructions"]:
        hit = next(((i, c) for i, c in candidates(entry) if finds(entry, i)), None)
        recall_rows[entry["kind"]].append(_Row(evidence_id=_evidence(entry), holds=hit is not None))
        if hit is None:
            misses[entry["kind"]].append(_truth_line(entry))
        if _section(entry) in held_sections:
            reader: Instruction | None = hit[0] if hit else None
            verdict: Check | None = hit[1] if hit else None
            outcome = verdict.outcome if verdict else "not_read"
            verification.append(
                {
                    **_truth_line(entry),
                    "kind": entry["kind"],
                    "outcome": outcome,
                    "family": verdict.family if verdict else None,
                    "before": verdict.before.version_id if verdict and verdict.before else None,
                    "after": verdict.after.version_id if verdict and verdict.after else None,
                    "made_by_a_change": bool(reader and reader.instruction_id in made),
                    "instruction_id": reader.instruction_id if reader else None,
                    "explanation": _explanation(entry, reader, verdict, made),
                }
            )

    by_key: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
    by_key_section: dict[tuple[str, str, str | None], list[Mapping[str, Any]]] = defaultdict(list)
    for entry in truth["instructions"]:
        by_key[(entry["law"], entry["kind"])].append(entry)
        by_key_section[(entry["law"], entry["kind"], _section(entry))].append(entry)
    precision_rows: dict[str, list[_Row]] = defaultdict(list)
    wrong: dict[str, list[dict[str, Any]]] = defaultdict(list)
    unjudged: dict[str, list[dict[str, Any]]] = defaultdict(list)
    apart: Counter[str] = Counter()
    for ins, _ in pairs:
        kind = KIND_OF_ACTION[ins.action]
        if ins.target.document != "code":
            apart[ins.target.document] += 1
            continue
        sentence = _norm(ins.sentence)
        if not any(sentence in unit for unit in marked.get(ins.law, ())):
            unjudged[kind].append(reader_line(ins))
            continue
        # An entry agrees only in the instruction's section, or by its heading (`_headless`).
        if _headless(ins):
            entries = by_key.get((ins.law, kind), [])
        else:
            entries = by_key_section.get((ins.law, kind, ins.target.section), [])
        right = any(_agrees(entry, ins) for entry in entries)
        evidence = f"{ins.instruction_id}"
        precision_rows[kind].append(_Row(evidence_id=evidence, holds=right))
        if not right:
            wrong[kind].append(reader_line(ins))

    departures = []
    for entry in truth.get("departures", []):
        hit = next(((i, c) for i, c in candidates(entry) if _agrees(entry, i)), None)
        departures.append(
            {
                **_truth_line(entry),
                "reason": entry["reason"],
                "outcome": hit[1].outcome if hit else "not_read",
                "detail": hit[1].detail if hit else "",
            }
        )

    reconciliation = reconciliation_shares(report.attributions.values(), len(report.not_reflected))
    extraction = {
        kind: {
            "truth_instructions": len(recall_rows[kind]),
            "recall": rate(recall_rows[kind], lambda r: r.holds).as_json(),
            "precision": rate(precision_rows[kind], lambda r: r.holds).as_json(),
            "unjudged": len(unjudged[kind]),
            "misses": misses[kind],
            "wrong": wrong[kind],
        }
        for kind in KINDS
    }
    outcomes = Counter(v["outcome"] for v in verification)
    return {
        "corpus_digest": corpus_digest,
        "truth_sha256": truth_sha256,
        "truth_computed_by": truth.get("computed_by"),
        "style": report.style.as_json(),
        "laws": [
            {
                "law": law.law.version_id,
                "effective": law.law.effective,
                "instructions": len(law.reading.instructions),
                "unread": len(law.reading.unread),
            }
            for law in report.laws
        ],
        "extraction": extraction,
        "not_the_code": dict(sorted(apart.items())),
        "unjudged": {kind: unjudged[kind] for kind in KINDS},
        "verification": {
            "instructions_into_held_sections": len(verification),
            "outcomes": dict(sorted(outcomes.items())),
            "made_by_a_change": sum(1 for v in verification if v["made_by_a_change"]),
            "rows": verification,
        },
        "departures": departures,
        "reconciliation": reconciliation,
        "rules": {
            "found": "same law and kind; same Code section and unit (across a gap the law leaves "
            "unstated); a strike and insert's struck and inserted text holding the markup's find "
            "and replace; a whole section added found by the markup's heading",
            "precision": "over the reader's Code instructions in a unit holding a kept truth "
            "instruction: the share agreeing with a truth instruction on law, kind, section and unit",
            "verification": "the outcome of the reader's instruction that found each truth "
            "instruction into a held section, against the releases around the law's effective date",
            "reconciliation": "each change of every consecutive release pair of a targeted section, "
            "made by the instructions whose located unit it overlaps, else attributed to an Act a "
            "new history note names, else unexplained",
        },
    }


def scorecard_markdown(card: Mapping[str, Any]) -> bytes:
    """The scorecard as a Markdown page: extraction, verification, reconciliation, the rules."""
    lines = [
        "# Amendment scorecard",
        "",
        f"Corpus digest: `{card['corpus_digest']}`",
        f"Truth SHA-256: `{card['truth_sha256']}`",
        "",
        "Written by `workbench eval --amendment-truth benchmarks/out/amendment-truth.json --out "
        "measurements`; the truth is computed by `scripts/amendment_truth.py`, which imports "
        "nothing from the workbench, from the D.C. Council's codify: markup.",
        "",
        "## Extraction",
        "",
        "| kind | truth instructions | recall | precision | unjudged | misses | wrong |",
        "|---|---|---|---|---|---|---|",
    ]
    for kind, entry in card["extraction"].items():
        lines.append(
            f"| {kind} | {entry['truth_instructions']} | {entry['recall']['rate']} | "
            f"{entry['precision']['rate']} | {entry['unjudged']} | {len(entry['misses'])} | "
            f"{len(entry['wrong'])} |"
        )
    apart = ", ".join(f"{k} {v}" for k, v in card["not_the_code"].items()) or "none"
    lines += [
        "",
        f"Instructions whose target is not the Code (scored apart): {apart}.",
        "",
        "### Misses (truth instructions no reading found)",
        "",
    ]
    for kind, entry in card["extraction"].items():
        lines += [
            f"- {kind}: {m['law']} line {m['line']} {m['target']}: {m['prose'][:140]}"
            for m in entry["misses"]
        ]
    lines += ["", "### Wrong (readings no truth instruction agrees with)", ""]
    for kind, entry in card["extraction"].items():
        lines += [
            f"- {kind}: {w['law']} {w['law_section']} [{w['char_start']}, {w['char_end']}) "
            f"{w['target']}: {w['sentence'][:140]}"
            for w in entry["wrong"]
        ]
    verification = card["verification"]
    outcomes = ", ".join(f"{k} {v}" for k, v in verification["outcomes"].items())
    lines += [
        "",
        "## Verification",
        "",
        f"Truth instructions into held sections: {verification['instructions_into_held_sections']} "
        f"({outcomes}); made by a change of their release pair: {verification['made_by_a_change']}.",
        "",
        "| law | target | kind | outcome | made by a change | explanation |",
        "|---|---|---|---|---|---|",
    ]
    for row in verification["rows"]:
        lines.append(
            f"| {row['law']} | {row['target']} | {row['kind']} | {row['outcome']} | "
            f"{'yes' if row['made_by_a_change'] else 'no'} | {row['explanation']} |"
        )
    departures = card["departures"]
    reasons = Counter(d["reason"] for d in departures)
    lines += [
        "",
        "## The codifier's departures",
        "",
        f"{len(departures)} markup instructions depart from the enacted words ("
        + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items()))
        + "), each with the outcome of the reading at its unit:",
        "",
    ]
    lines += [
        f"- {d['law']} line {d['line']} {d['target']} ({d['reason']}, find {d['find']!r}): "
        f"{d['outcome']}"
        for d in departures
    ]
    rec = card["reconciliation"]
    lines += [
        "",
        "## Reconciliation",
        "",
        f"{rec['changes']} changes over {rec['pairs']} release pairs: made by an instruction "
        f"{rec['made_by']['rate']}; attributed to an Act by a history note {rec['history']['rate']}; "
        f"unexplained {rec['unexplained']['rate']}. In the notes: "
        + ", ".join(f"{k} {v}" for k, v in rec["in_notes"].items())
        + f". Acts named: {', '.join(rec['acts_named']) or 'none'}. "
        f"Instructions no change reflects: {rec['not_reflected']}.",
        "",
        "## Rules",
        "",
    ]
    lines += [f"- **{key}**: {text}" for key, text in card["rules"].items()]
    return ("\n".join(lines) + "\n").encode("utf-8")


def write_amendment_scorecard(out: Path, card: Mapping[str, Any]) -> tuple[str, str]:
    """Write the JSON and Markdown scorecards into `out` (`cards.write_card`); returns their
    names."""
    return write_card(out, card, (SCORECARD_JSON, SCORECARD_MD), scorecard_markdown(card))
