"""Score the diff's pairings against the alignment truth (C7): per jurisdiction, recall and
precision over the truth pairings whose units name one passage on each side, the rest counted by
reason. The score is a pure function of the truth file, the held versions and the diff."""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.changes.diff import diff_passages, pairing_is_uncertain
from workbench.evals.cards import write_card
from workbench.evals.truth import TruthKind
from workbench.measure import rate
from workbench.models import Change, Passage
from workbench.text.normalize import normalized_text
from workbench.text.profiles import profile_for
from workbench.workspace import Workspace
from workbench.workspace.passages import held_passages

SCORECARD_JSON = "alignment-scorecard.json"
SCORECARD_MD = "alignment-scorecard.md"
LEFT_OUT_REASONS = ("not_in_one_passage", "several_passages", "shared_passage")
ALIGNMENT_TRUTH = TruthKind(
    name="alignment",
    script="scripts/alignment_truth.py",
    field="pairs",
    subjects="version pairs",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class TruthRow:
    """One scored truth pairing and whether the diff pairs it the same way."""

    evidence_id: str
    jurisdiction: str
    found: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class PairingRow:
    """One pairing of the diff that touches a scored passage, and whether the truth holds it."""

    evidence_id: str
    jurisdiction: str
    kind: str
    right: bool


class _PassageIndex:
    """Which passage of a version holds a normalized text, by one search over all of them."""

    def __init__(self, passages: Sequence[Passage]) -> None:
        keys = [normalized_text(p.text) for p in passages]
        self.ordinals_by_key: dict[str, list[int]] = defaultdict(list)
        for ordinal, key in enumerate(keys):
            self.ordinals_by_key[key].append(ordinal)
        self.haystack = "\n".join(keys)
        self.starts: list[int] = []
        at = 0
        for key in keys:
            self.starts.append(at)
            at += len(key) + 1

    def holder(self, text: str) -> int | str:
        """The ordinal of the one passage holding `text`, or the reason there is none."""
        first = self.haystack.find(text)
        if first < 0:
            return "not_in_one_passage"
        if self.haystack.find(text, first + 1) >= 0:
            return "several_passages"
        return bisect_right(self.starts, first) - 1


def _diff_pairs(
    changes: Iterable[Change], before: Sequence[Passage], after: Sequence[Passage]
) -> list[tuple[str, str, int, int]]:
    """(change id, kind, before ordinal, after ordinal) for every pairing the diff makes."""
    start_a = {p.char_start: p.ordinal for p in before}
    start_b = {p.char_start: p.ordinal for p in after}
    out: list[tuple[str, str, int, int]] = []
    for change in changes:
        sides_a = change.before_spans or ((change.before,) if change.before else ())
        sides_b = change.after_spans or ((change.after,) if change.after else ())
        for span_a in sides_a:
            for span_b in sides_b:
                out.append(
                    (
                        change.change_id,
                        change.kind,
                        start_a[span_a.char_start],
                        start_b[span_b.char_start],
                    )
                )
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class RestructureRow:
    """One renumbering the truth knows, and whether the diff puts it in the review queue."""

    evidence_id: str
    jurisdiction: str
    in_queue: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class PairView:
    """One version pair as the scorer reads it, built once: each side's passage index and every
    (change id, kind, before ordinal, after ordinal) pairing of the diff."""

    before: _PassageIndex
    after: _PassageIndex
    pairs: tuple[tuple[str, str, int, int], ...]
    doubtful: frozenset[str]  # ids of the changes `pairing_is_uncertain` flags

    @classmethod
    def of(
        cls, before: Sequence[Passage], after: Sequence[Passage], changes: Sequence[Change]
    ) -> PairView:
        return cls(
            before=_PassageIndex(before),
            after=_PassageIndex(after),
            pairs=tuple(_diff_pairs(changes, before, after)),
            doubtful=frozenset(c.change_id for c in changes if pairing_is_uncertain(c)),
        )


def _heading_passage(index: _PassageIndex, side: Mapping[str, Any]) -> int | None:
    """The one passage that is a section's heading line, "<number>. <title>" or "<number> <title>"."""
    found = [
        ordinal
        for line in (f"{side['id']}. {side['heading']}", f"{side['id']} {side['heading']}")
        for ordinal in index.ordinals_by_key.get(normalized_text(line), ())
    ]
    return found[0] if len(found) == 1 else None


def score_restructures(
    jurisdiction: str, pair: Mapping[str, Any], view: PairView
) -> tuple[list[RestructureRow], int]:
    """Rows for the truth's restructures of one pair, and how many could not be located.

    A restructure is located at its heading line on each side (ietf, whose units are sections
    with titles) or, failing that, at the one passage holding its own text (us-nerc requirements).
    It is in the queue when a change the diff doubts (`pairing_is_uncertain`) holds either place:
    the reviewer is shown the renumbered unit, even where the diff paired it with a neighbour.
    """
    index_a, index_b = view.before, view.after
    doubted = [(a, b) for cid, _, a, b in view.pairs if cid in view.doubtful]
    doubted_a, doubted_b = {a for a, _ in doubted}, {b for _, b in doubted}
    rows, unlocated = [], 0
    for unit in pair.get("restructures", ()):
        at_a = _heading_passage(index_a, unit["before"])
        at_b = _heading_passage(index_b, unit["after"])
        if at_a is None or at_b is None:
            held_a = index_a.holder(normalized_text(unit["before"]["text"]))
            held_b = index_b.holder(normalized_text(unit["after"]["text"]))
            at_a = held_a if isinstance(held_a, int) else None
            at_b = held_b if isinstance(held_b, int) else None
        if at_a is None or at_b is None:
            unlocated += 1
            continue
        rows.append(
            RestructureRow(
                evidence_id=f"{pair['before']}|{pair['after']}|{unit['before']['id']}",
                jurisdiction=jurisdiction,
                in_queue=at_a in doubted_a or at_b in doubted_b,
            )
        )
    return rows, unlocated


def score_pair(
    jurisdiction: str, pair: Mapping[str, Any], view: PairView
) -> tuple[list[TruthRow], list[PairingRow], Counter[str]]:
    """Rows for one version pair of the truth (every rule: docs/eval.md, Scoring the pairings)."""
    index_a, index_b = view.before, view.after
    left_out: Counter[str] = Counter()
    located: list[tuple[str, int, int]] = []
    for unit in pair["pairings"]:
        held_a = index_a.holder(normalized_text(unit["before"]["text"]))
        held_b = index_b.holder(normalized_text(unit["after"]["text"]))
        if isinstance(held_a, str) or isinstance(held_b, str):
            left_out[held_a if isinstance(held_a, str) else str(held_b)] += 1
            continue
        located.append((unit["before"]["id"], held_a, held_b))
    uses_a = Counter(a for _, a, _ in located)
    uses_b = Counter(b for _, _, b in located)
    truth: dict[int, int] = {}
    truth_b: dict[int, int] = {}
    for _, a, b in located:
        if uses_a[a] > 1 or uses_b[b] > 1:
            left_out["shared_passage"] += 1
            continue
        truth[a], truth_b[b] = b, a
    pairs = view.pairs
    partners: dict[int, set[int]] = defaultdict(set)
    for _, _, a, b in pairs:
        partners[a].add(b)
    stem = f"{pair['before']}|{pair['after']}"
    truth_rows = [
        TruthRow(evidence_id=f"{stem}|{a}", jurisdiction=jurisdiction, found=b in partners[a])
        for a, b in sorted(truth.items())
    ]
    pairing_rows = [
        PairingRow(
            evidence_id=f"{change_id}|{a}|{b}",
            jurisdiction=jurisdiction,
            kind=kind,
            right=truth.get(a) == b,
        )
        for change_id, kind, a, b in pairs
        if a in truth or b in truth_b
    ]
    return truth_rows, pairing_rows, left_out


def _passages(workspace: Workspace, version_id: str) -> tuple[Passage, ...]:
    """The held version's passages through its shipped profile, as `segment_version` reads them."""
    version = workspace.version(version_id)
    return held_passages(workspace, version, profile_for(version.jurisdiction, version.family))


def alignment_scorecard(
    truth: Mapping[str, Any],
    workspace: Workspace,
    *,
    corpus_digest: str,
    truth_sha256: str,
) -> dict[str, Any]:
    """The scorecard: recall and precision per jurisdiction, units left out by reason.

    Each version of a pair is read from `workspace` with its passages through its shipped
    profile (`workspace.passages.held_passages`: kept once, so a version in two pairs is
    segmented once, and one kept before is not segmented at all), and each pair is diffed with
    `diff_passages` over its passages alone: a table stays one passage here, where `workbench
    diff` pairs its rows (docs/diff.md), since the truth's units are the documents' own
    identified units, not table rows.
    """
    truth_rows: dict[str, list[TruthRow]] = defaultdict(list)
    pairing_rows: dict[str, list[PairingRow]] = defaultdict(list)
    left_out: dict[str, Counter[str]] = defaultdict(Counter)
    truth_left_out: dict[str, Counter[str]] = defaultdict(Counter)
    restructure_rows: dict[str, list[RestructureRow]] = defaultdict(list)
    restructures_unlocated: Counter[str] = Counter()
    for pair in sorted(truth["pairs"], key=lambda p: (p["before"], p["after"])):
        jurisdiction = pair["jurisdiction"]
        before, after = _passages(workspace, pair["before"]), _passages(workspace, pair["after"])
        changes = diff_passages(pair["before"], pair["after"], before, after)
        view = PairView.of(before, after, changes)
        rows, pairings, out = score_pair(jurisdiction, pair, view)
        moved, unlocated = score_restructures(jurisdiction, pair, view)
        restructure_rows[jurisdiction].extend(moved)
        restructures_unlocated[jurisdiction] += unlocated
        truth_rows[jurisdiction].extend(rows)
        pairing_rows[jurisdiction].extend(pairings)
        left_out[jurisdiction].update(out)
        truth_left_out[jurisdiction].update({k: v for k, v in pair["left_out"].items() if v})
    jurisdictions = {}
    for name in sorted(set(truth_rows) | set(left_out)):
        rows, pairings = truth_rows[name], pairing_rows[name]
        jurisdictions[name] = {
            "scored_truth_pairings": len(rows),
            "recall": rate(rows, lambda r: r.found).as_json(),
            "precision": rate(pairings, lambda r: r.right).as_json(),
            "diff_pairings_by_kind": dict(sorted(Counter(r.kind for r in pairings).items())),
            "units_left_out_of_the_score": {r: left_out[name].get(r, 0) for r in LEFT_OUT_REASONS},
            "units_the_truth_itself_leaves_out": dict(sorted(truth_left_out[name].items())),
            "restructures_in_the_review_queue": rate(
                restructure_rows[name], lambda r: r.in_queue
            ).as_json(),
            "restructures_not_located": restructures_unlocated[name],
        }
    return {
        "corpus_digest": corpus_digest,
        "truth_sha256": truth_sha256,
        "truth_computed_by": truth.get("computed_by"),
        "rules": {
            "scored": "a truth unit whose own text occurs in exactly one passage on each side, "
            "neither passage holding another unit's own text",
            "recall": "share of scored truth pairings the diff pairs the same way",
            "precision": "share of the diff's pairings touching a scored passage that are truth pairings",
            "restructures": "share of the truth's renumberings (a unit under one number before and "
            "another after) of which a change the diff doubts holds either place",
        },
        "jurisdictions": jurisdictions,
    }


def scorecard_markdown(card: Mapping[str, Any]) -> bytes:
    """The scorecard as a Markdown page: one table, the rules, and where the truth came from."""
    lines = [
        "# Alignment scorecard",
        "",
        f"Corpus digest: `{card['corpus_digest']}`",
        f"Truth SHA-256: `{card['truth_sha256']}`",
        "",
        "Written by `workbench eval --truth benchmarks/out/alignment-truth.json --out measurements`; "
        "the truth is computed by `scripts/alignment_truth.py`, which imports nothing from the "
        "workbench, from identifiers the documents carry.",
        "",
        "| jurisdiction | scored truth pairings | recall | precision | units left out (not in one passage / several passages / shared passage) | restructures in the review queue (not located) |",
        "|---|---|---|---|---|---|",
    ]
    for name, entry in card["jurisdictions"].items():
        out = entry["units_left_out_of_the_score"]
        lines.append(
            f"| {name} | {entry['scored_truth_pairings']} | {entry['recall']['rate']} | "
            f"{entry['precision']['rate']} | "
            + " / ".join(str(out[r]) for r in LEFT_OUT_REASONS)
            + f" | {entry['restructures_in_the_review_queue']['rate']} "
            f"({entry['restructures_not_located']}) |"
        )
    lines += ["", "## Rules", ""]
    lines += [f"- **{key}**: {text}" for key, text in card["rules"].items()]
    return ("\n".join(lines) + "\n").encode("utf-8")


def write_alignment_scorecard(out: Path, card: Mapping[str, Any]) -> tuple[str, str]:
    """Write the JSON and Markdown scorecards into `out` (`cards.write_card`); returns their
    names."""
    return write_card(out, card, (SCORECARD_JSON, SCORECARD_MD), scorecard_markdown(card))
