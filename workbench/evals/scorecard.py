"""The eval scorecard (C7, C12): the diff, its caution and the verifier scored on the demonstration
corpus's known edits, bound to its digest and the manifest's SHA-256. The questions asked are in
docs/eval.md."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from workbench.changes.diff import diff_versions, pairing_is_uncertain
from workbench.cite import Citation, verify_citation
from workbench.evals.cards import write_card
from workbench.evals.demo import DemoCorpus
from workbench.evals.probes import altered_quotes, occurrence_probes, shifted_probes
from workbench.measure import Rate, rate
from workbench.models import Change, content_id

SCORECARD_JSON = "eval-scorecard.json"
SCORECARD_MD = "eval-scorecard.md"
COMMAND = "workbench eval --out measurements"


@dataclass(frozen=True, slots=True, kw_only=True)
class ChangeRow:
    """One change the diff reported (not `unchanged`), with the three answers about it."""

    evidence_id: str  # the change id
    before_version: str
    after_version: str
    kind: str
    edit_id: str | None  # the manifest edit it matches, if any
    exact: bool
    cautioned: bool
    caution_expected: bool | None  # None when it matches no edit: no label
    before: tuple[int, int] | None
    after: tuple[int, int] | None
    span_before: tuple[int, int] | None
    span_after: tuple[int, int] | None


@dataclass(frozen=True, slots=True, kw_only=True)
class LabelRow:
    """One manifest edit or non-edit, and whether the diff reported it as the manifest says."""

    evidence_id: str
    holds: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ProbeRow:
    """One verifier probe: what the manifest says the outcome must be, and what the verifier said."""

    evidence_id: str
    kind: str
    version_id: str
    char_start: int
    char_end: int
    quoted_text: str
    occurrence: int | None
    expected: str  # "verified" or the reason it must be refused with
    got: str  # "verified" or the reason the verifier gave

    @property
    def right(self) -> bool:
        return self.expected == self.got


# ---------------------------------------------------------------------------------------------
# Scoring the diff


def _pair(record: Mapping[str, Any] | None) -> tuple[int, int] | None:
    return None if record is None else (int(record["start"]), int(record["end"]))


def _span_pair(span: Any) -> tuple[int, int] | None:
    return None if span is None else (span.char_start, span.char_end)


def _expected_changes(
    demo: DemoCorpus, before: str, after: str
) -> list[tuple[str, Mapping[str, Any]]]:
    return [
        (str(edit["id"]), change)
        for edit in demo.manifest["edits"]
        if edit["before_version"] == before and edit["after_version"] == after
        for change in edit["changes"]
    ]


def _row(
    change: Change, before_id: str, after_id: str, expected: list[tuple[str, Mapping[str, Any]]]
) -> ChangeRow:
    """Match one diff change to the first expected change (manifest order) sharing a passage."""
    before, after = _span_pair(change.before), _span_pair(change.after)
    narrowed = (_span_pair(change.span_before), _span_pair(change.span_after))
    match = next(
        (
            (edit_id, exp)
            for edit_id, exp in expected
            if (before is not None and before == _pair(exp["before"]))
            or (after is not None and after == _pair(exp["after"]))
        ),
        None,
    )
    exact = match is not None and (
        change.kind == match[1]["kind"]
        and (before, after) == (_pair(match[1]["before"]), _pair(match[1]["after"]))
        and narrowed == (_pair(match[1]["span_before"]), _pair(match[1]["span_after"]))
        and all(
            [_span_pair(s) for s in getattr(change, side)]
            == [_pair(record) for record in match[1].get(side, [])]
            for side in ("before_spans", "after_spans")
        )
    )
    return ChangeRow(
        evidence_id=change.change_id,
        before_version=before_id,
        after_version=after_id,
        kind=change.kind,
        edit_id=match[0] if match else None,
        exact=exact,
        cautioned=pairing_is_uncertain(change),
        caution_expected=bool(match[1]["caution"]) if match else None,
        before=before,
        after=after,
        span_before=narrowed[0],
        span_after=narrowed[1],
    )


def score_diff(
    demo: DemoCorpus,
) -> tuple[list[ChangeRow], list[LabelRow], list[LabelRow]]:
    """Rows for every reported change, every manifest edit and every non-edit, in manifest order
    of version pairs and diff output order within a pair."""
    change_rows: list[ChangeRow] = []
    reported: dict[tuple[str, str], list[Change]] = {}
    for before_id, after_id in demo.manifest["version_pairs"]:
        changes = diff_versions(demo.versions[before_id], demo.versions[after_id])
        reported[(before_id, after_id)] = list(changes)
        expected = _expected_changes(demo, before_id, after_id)
        change_rows += [
            _row(c, before_id, after_id, expected) for c in changes if c.kind != "unchanged"
        ]
    edit_rows = []
    for edit in demo.manifest["edits"]:
        held = reported.get((edit["before_version"], edit["after_version"]), [])
        found = all(
            any(
                c.kind == exp["kind"]
                and _span_pair(c.before) == _pair(exp["before"])
                and _span_pair(c.after) == _pair(exp["after"])
                for c in held
            )
            for exp in edit["changes"]
        )
        edit_rows.append(LabelRow(evidence_id=str(edit["id"]), holds=found))
    non_edit_rows = []
    for item in demo.manifest["non_edits"]:
        held = reported.get((item["before_version"], item["after_version"]), [])
        left = any(
            c.kind == "unchanged"
            and _span_pair(c.before) == _pair(item["before"])
            and _span_pair(c.after) == _pair(item["after"])
            for c in held
        )
        non_edit_rows.append(LabelRow(evidence_id=str(item["id"]), holds=left))
    return change_rows, edit_rows, non_edit_rows


# ---------------------------------------------------------------------------------------------
# Scoring the verifier


def probe_set(demo: DemoCorpus) -> list[tuple[str, Citation, str]]:
    """(kind, citation, expected) for every probe; the expected outcome comes from the manifest.

    Order: the manifest's quotes (honest, then each shift, then the corruptions built from them),
    then the boilerplate by version and occurrence (no occurrence, right, wrong).
    CAUTION: nothing here may call the verifier: the expected answers must not come from the code
    being scored.
    """
    out: list[tuple[str, Citation, str]] = []
    quotes = demo.manifest["quotes"]
    by_note = {q["note"]: q for q in quotes}
    for q in quotes:
        version_id, start, end = q["version"], int(q["start"]), int(q["end"])
        text = demo.versions[version_id].text

        def cite(s: int, e: int, quote: str, vid: str = version_id) -> Citation:
            return Citation(version_id=vid, char_start=s, char_end=e, quoted_text=quote)

        out.append((f"honest quote ({q['note']})", cite(start, end, q["quoted_text"]), "verified"))
        shifted = shifted_probes(partial(cite, quote=q["quoted_text"]), text, start, end)
        out += [(p.kind, p.citation, p.expected) for p in shifted]
        # Marked alterations built from the quote's own words (evals.probes: no verifier asked).
        out += [
            (kind, replace(cite(start, end, altered), alterations=True), expected)
            for kind, altered, expected in altered_quotes(text, start, end)
        ]
    # A numeral changed: each version's cost floor quoted with the other version's number.
    old, new = by_note["the cost floor as v1 states it"], by_note["the cost floor as v2 states it"]
    for q, other in ((old, new), (new, old)):
        out.append(
            (
                "numeral changed (the other version's cost floor)",
                Citation(
                    version_id=q["version"],
                    char_start=int(q["start"]),
                    char_end=int(q["end"]),
                    quoted_text=other["quoted_text"],
                ),
                "quote_mismatch",
            )
        )
    # A removed qualifier quoted as if it were still there.
    bare = by_note["the refund clause without its qualifier"]
    qualifier = by_note["the qualifier v3 removes"]
    out.append(
        (
            "removed qualifier quoted as present",
            Citation(
                version_id=bare["version"],
                char_start=int(bare["start"]),
                char_end=int(bare["end"]),
                quoted_text=bare["quoted_text"][:-1] + ", " + qualifier["quoted_text"] + ".",
            ),
            "quote_mismatch",
        )
    )
    boiler = demo.manifest["boilerplate"]
    typed = " ".join(boiler["text"].split())
    for version_id, spans in sorted(boiler["occurrences"].items()):
        for k, (start, end) in enumerate(spans):
            cite_at = partial(
                Citation, version_id=version_id, char_start=start, char_end=end, quoted_text=typed
            )
            probes = occurrence_probes("boilerplate", cite_at, k, len(spans))
            out += [(p.kind, p.citation, p.expected) for p in probes]
    return out


def score_verifier(demo: DemoCorpus) -> list[ProbeRow]:
    rows = []
    for kind, citation, expected in probe_set(demo):
        result = verify_citation(citation, demo.versions[citation.version_id].text)
        got = "verified" if result.outcome == "verified" else str(result.reason)
        probe_id = content_id(
            [
                kind,
                citation.version_id,
                citation.char_start,
                citation.char_end,
                citation.quoted_text,
                citation.occurrence,
            ]
        )
        rows.append(
            ProbeRow(
                evidence_id="probe-" + probe_id[:16],
                kind=kind,
                version_id=citation.version_id,
                char_start=citation.char_start,
                char_end=citation.char_end,
                quoted_text=citation.quoted_text,
                occurrence=citation.occurrence,
                expected=expected,
                got=got,
            )
        )
    return rows


# ---------------------------------------------------------------------------------------------
# The scorecard


def _figure(rows: Sequence[Any], holds: Callable[[Any], bool], question: str) -> dict[str, Any]:
    measured: Rate = rate(rows, holds)
    return {"question": question, **measured.as_json()}


def _span_json(pair: tuple[int, int] | None) -> list[int] | None:
    return None if pair is None else [pair[0], pair[1]]


def scorecard(demo: DemoCorpus) -> dict[str, Any]:
    """The scorecard as one JSON-ready dict, in a fixed key order, headed by the demo digest."""
    change_rows, edit_rows, non_edit_rows = score_diff(demo)
    probes = score_verifier(demo)
    matched = [r for r in change_rows if r.edit_id is not None]
    unlabelled = [r for r in change_rows if r.edit_id is None]
    diff_figures = {
        "changes_matching_an_edit": _figure(
            change_rows,
            lambda r: r.edit_id is not None,
            "of the changes the diff reports, how many match a manifest edit",
        ),
        "offsets_exact": _figure(
            matched,
            lambda r: r.exact,
            "of those, how many have the manifest's kind, passages and narrowed spans on both sides",
        ),
        "caution_right": _figure(
            matched,
            lambda r: r.cautioned == r.caution_expected,
            "of those, how many are cautioned exactly when the manifest says a reader should be",
        ),
        "restructures_cautioned": _figure(
            [r for r in matched if r.caution_expected],
            lambda r: r.cautioned,
            "of the changes the manifest says need caution, how many are cautioned",
        ),
        "word_edits_not_cautioned": _figure(
            [r for r in matched if r.caution_expected is False],
            lambda r: not r.cautioned,
            "of the changes the manifest says need no caution, how many are left uncautioned",
        ),
        "edits_found": _figure(
            edit_rows,
            lambda r: r.holds,
            "of the manifest's edits, how many the diff reports with the right kind and passages",
        ),
        "non_edits_left_unchanged": _figure(
            non_edit_rows,
            lambda r: r.holds,
            "of the byte differences that change no text, how many the diff calls unchanged",
        ),
    }
    verifier_figures = {
        "probes_right": _figure(
            probes, lambda r: r.right, "of all probes, how many got the manifest's outcome"
        ),
        "honest_quotes_verified": _figure(
            [r for r in probes if r.expected == "verified"],
            lambda r: r.right,
            "of the probes that must verify, how many did",
        ),
        "corruptions_refused_for_the_right_reason": _figure(
            [r for r in probes if r.expected != "verified"],
            lambda r: r.right,
            "of the probes that must be refused, how many were, with the manifest's reason",
        ),
    }
    by_kind: dict[str, dict[str, int]] = {}
    for r in probes:
        entry = by_kind.setdefault(r.kind, {"probes": 0, "right": 0})
        entry["probes"] += 1
        entry["right"] += int(r.right)
    return {
        "demo_corpus_digest": demo.digest,
        "digest_rule": "sha256 of canonical JSON of sorted [path, sha256] pairs of the demo files",
        "manifest_sha256": demo.manifest_sha256,
        "command": COMMAND,
        "files": [
            {"path": v.version_id, "sha256": v.artefact_sha256, "bytes": v.artefact_bytes}
            for v in sorted(demo.versions.values(), key=lambda v: v.version_id)
        ],
        "diff": {
            "figures": diff_figures,
            "changes": [
                {
                    "change_id": r.evidence_id,
                    "before_version": r.before_version,
                    "after_version": r.after_version,
                    "kind": r.kind,
                    "edit": r.edit_id,
                    "exact": r.exact,
                    "cautioned": r.cautioned,
                    "caution_expected": r.caution_expected,
                    "before": _span_json(r.before),
                    "after": _span_json(r.after),
                    "span_before": _span_json(r.span_before),
                    "span_after": _span_json(r.span_after),
                }
                for r in change_rows
            ],
            "edits": [{"edit": r.evidence_id, "found": r.holds} for r in edit_rows],
            "non_edits": [{"non_edit": r.evidence_id, "unchanged": r.holds} for r in non_edit_rows],
        },
        "verifier": {
            "figures": verifier_figures,
            "by_kind": dict(sorted(by_kind.items())),
            "wrong": [
                {
                    "probe": r.evidence_id,
                    "kind": r.kind,
                    "version_id": r.version_id,
                    "char_start": r.char_start,
                    "char_end": r.char_end,
                    "occurrence": r.occurrence,
                    "expected": r.expected,
                    "got": r.got,
                }
                for r in probes
                if not r.right
            ],
        },
        "not_computed": [
            {
                "figure": "caution on changes that match no edit",
                "subjects": len(unlabelled),
                "why": "the manifest states caution only for its own edits; a change that "
                "matches none has no label, so whether its caution is right is not scored",
            },
            {
                "figure": "diff and caution precision on the real corpus",
                "subjects": None,
                "why": "the real corpus has no manifest, so it has no negative labels; every "
                "figure here holds for the demonstration corpus only",
            },
        ],
    }


def scorecard_markdown(card: Mapping[str, Any]) -> bytes:
    """The scorecard as Markdown: the digest first, then each figure beside its question."""
    lines = [
        "# Eval scorecard",
        "",
        f"Demo corpus digest: `{card['demo_corpus_digest']}`",
        f"Manifest SHA-256: `{card['manifest_sha256']}`",
        "",
        f"Written by `{card['command']}` from `corpus/demo/` and its manifest (computed by "
        "`scripts/demo_manifest.py`, which imports nothing from the workbench). A changed demo "
        "file or manifest changes the digest and expires every verdict below.",
        "",
    ]
    for title, section in (("Diff", card["diff"]), ("Verifier", card["verifier"])):
        lines += [f"## {title}", "", "| figure | question | result |", "|---|---|---|"]
        for name, fig in section["figures"].items():
            lines.append(f"| `{name}` | {fig['question']} | {fig['rate']} |")
        lines.append("")
    lines += ["### Changes the diff reports", ""]
    lines += [
        "| pair | kind | edit | exact | cautioned | caution expected |",
        "|---|---|---|---|---|---|",
    ]
    for c in card["diff"]["changes"]:
        pair = f"{Path(c['before_version']).stem} → {Path(c['after_version']).stem}"
        expected = "no label" if c["caution_expected"] is None else str(c["caution_expected"])
        lines.append(
            f"| {pair} | {c['kind']} | {c['edit'] or 'none'} | {c['exact']} | {c['cautioned']} "
            f"| {expected} |"
        )
    lines += ["", "### Verifier probes by kind", "", "| kind | probes | right |", "|---|---|---|"]
    for kind, entry in card["verifier"]["by_kind"].items():
        lines.append(f"| {kind} | {entry['probes']} | {entry['right']} |")
    wrong = card["verifier"]["wrong"]
    lines += ["", f"Probes with the wrong outcome: {len(wrong)}."]
    for w in wrong:
        lines.append(
            f"- {w['kind']}: {w['version_id']} [{w['char_start']}, {w['char_end']}) "
            f"expected {w['expected']}, got {w['got']}"
        )
    lines += ["", "## Not computed", ""]
    for item in card["not_computed"]:
        count = "" if item["subjects"] is None else f" ({item['subjects']} subjects)"
        lines.append(f"- {item['figure']}{count}: {item['why']}.")
    return ("\n".join(lines) + "\n").encode("utf-8")


def write_scorecard(out: Path, card: Mapping[str, Any]) -> tuple[str, str]:
    """Write both files into `out` (`cards.write_card`). Returns the two file names."""
    return write_card(out, card, (SCORECARD_JSON, SCORECARD_MD), scorecard_markdown(card))
