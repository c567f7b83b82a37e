"""The confident audit's bound, tested against the documents' own identifiers (DESIGN.md C21).

Run: `.venv/bin/python benchmarks/bench_audit.py [--truth PATH] [--samples K] [--write-docs]`
after `python scripts/alignment_truth.py` has written the truth (default
`benchmarks/out/alignment-truth.json`). It prints figures and asserts nothing. `--write-docs`
replaces the block between the `bench:audit` markers in docs/ with what it printed.

The versions the truth pairs are ingested into a temporary workspace and diffed as the audit's
population is (`sample.confident_pairings`: every family through its profile). A confident pairing
is *judged* by the truth when it touches a passage the alignment scorecard scores
(`evals.alignment.score_pair`); it is wrong when any of its judged passage pairings is not a truth
pairing. Per jurisdiction (the strata of `--by jurisdiction`), over the judged confident pairings:
the true confident-error rate, then, at the default sample size and at 20, K seeded samples (seeds 0 .. K-1, default 1,000) drawn by the
workbench's own `draw_sample` at the default size, each answered by the truth (wrong: disputed,
else confirmed), each bound stated by `audit.upper_bound` at 0.95. Coverage is the share of samples
whose bound is at or above the true rate; the median bound says how tight it is. A stratum no
larger than the sample size is drawn whole every time (a census: covered by construction).
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from bench_spine import ROOT, STORE, bench_options, report_to_docs, store_missing

from workbench.changes.audit import upper_bound
from workbench.changes.diff import diff_passages
from workbench.changes.pairs import family_readers
from workbench.changes.queue import Pairing
from workbench.changes.sample import draw_sample, is_confident_pairing
from workbench.corpus import read_catalogue
from workbench.defaults import DEFAULT_AUDIT_CONFIDENCE, DEFAULT_AUDIT_N
from workbench.evals.alignment import PairView, score_pair
from workbench.text.segment import segment_version
from workbench.workspace import Workspace, ingest

TRUTH = ROOT / "benchmarks" / "out" / "alignment-truth.json"
MIN_STRATUM = 30  # coverage is claimed only for strata of at least this many judged pairings
SMALL_N = 20  # a second, smaller sample size, so that no stratum of 30 or more is drawn whole


def judged_pairings(
    held: Workspace, truth: dict[str, Any], confident: Counter[str]
) -> dict[str, list[tuple[Pairing, bool]]]:
    """Per jurisdiction, every confident pairing the truth judges, with whether it is wrong;
    `confident` counts every confident pairing of the truth's pairs, judged or not."""
    readers = family_readers(held.versions(), None)
    out: dict[str, list[tuple[Pairing, bool]]] = defaultdict(list)
    for pair in sorted(truth["pairs"], key=lambda p: (p["before"], p["after"])):
        before, after = held.version(pair["before"]), held.version(pair["after"])
        reader = readers[(before.jurisdiction, before.family)]
        passages_a, passages_b = segment_version(before, reader), segment_version(after, reader)
        changes = diff_passages(before.version_id, after.version_id, passages_a, passages_b)
        _, rows, _ = score_pair(
            pair["jurisdiction"], pair, PairView.of(passages_a, passages_b, changes)
        )
        right: dict[str, list[bool]] = defaultdict(list)
        for row in rows:
            right[row.evidence_id.split("|")[0]].append(row.right)
        confident[before.jurisdiction] += sum(is_confident_pairing(c) for c in changes)
        for change in changes:
            if is_confident_pairing(change) and change.change_id in right:
                pairing = Pairing(
                    jurisdiction=before.jurisdiction,
                    family=before.family,
                    before_id=before.version_id,
                    after_id=after.version_id,
                    change=change,
                )
                out[before.jurisdiction].append((pairing, not all(right[change.change_id])))
    return out


def run(truth_path: Path, samples: int) -> None:
    truth = json.loads(truth_path.read_text(encoding="utf-8"))
    wanted = {p for pair in truth["pairs"] for p in (pair["before"], pair["after"])}
    rows = [r for r in read_catalogue(ROOT / "corpus") if r.path in wanted]
    with tempfile.TemporaryDirectory() as tmp, Workspace(Path(tmp) / "w.sqlite") as held:
        ingest(held, rows, STORE)
        confident: Counter[str] = Counter()
        strata = judged_pairings(held, truth, confident)
    for size in (DEFAULT_AUDIT_N, SMALL_N):
        coverage_table(strata, confident, samples, size)


def coverage_table(
    strata: dict[str, list[tuple[Pairing, bool]]], confident: Counter[str], samples: int, size: int
) -> None:
    """One table: per stratum, the true rate and the coverage and median of `samples` bounds."""
    confidence = DEFAULT_AUDIT_CONFIDENCE
    print(
        f"{samples} seeded samples of {size} per jurisdiction, each answered by the identifier "
        f"truth; bound: one-sided exact, confidence {confidence:g}\n"
    )
    print(
        f"{'stratum':<12} {'confident':>9} {'judged':>7} {'wrong':>6} {'true rate':>10} "
        f"{'coverage':>9} {'median bound':>13}  note"
    )
    for name in sorted(strata):
        population = [p for p, _ in strata[name]]
        wrong = {p.change.change_id for p, bad in strata[name] if bad}
        true_rate = len(wrong) / len(population)
        bounds = []
        for seed in range(samples):
            drawn = draw_sample(population, n=size, seed=seed, drawn_at="", log_head="")
            errors = sum(item.change_id in wrong for item in drawn.items)
            bounds.append(upper_bound(errors, len(drawn.items), confidence))
        covered = sum(b >= true_rate for b in bounds) / samples
        note = []
        if len(population) <= size:
            note.append("census: every sample is the whole stratum")
        if len(population) < MIN_STRATUM:
            note.append(f"under {MIN_STRATUM} pairings")
        print(
            f"{name:<12} {confident[name]:>9} {len(population):>7} {len(wrong):>6} "
            f"{true_rate:>10.4f} {covered:>8.1%} {statistics.median(bounds):>13.4f}  "
            f"{'; '.join(note)}"
        )
    print()


def main() -> int:
    options = bench_options(__doc__, sys.argv[1:], valued=("--truth", "--samples"))
    truth = Path(options["--truth"]) if options["--truth"] else TRUTH
    if store_missing():
        return 2
    if not truth.is_file():
        print(f"{truth}: missing; run 'python scripts/alignment_truth.py' first", file=sys.stderr)
        return 2
    samples = int(options["--samples"] or 1000)
    report_to_docs(lambda: run(truth, samples), "bench:audit", options["--write-docs"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
