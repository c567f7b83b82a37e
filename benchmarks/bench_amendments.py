"""Amendments: every held D.C. Law read, every instruction checked, every targeted pair reconciled.

Run: `.venv/bin/python benchmarks/bench_amendments.py [--workspace PATH] [--write-docs]`. Without
`--workspace` it ingests the fetched corpus into a temporary workspace (as `bench_search` does).
It prints figures; it asserts nothing about time. `--write-docs` replaces the block between the
`bench:amendments` markers in docs/ with what it printed.

1. `amendment_report` over the seven laws, from a cold index cache (as a fresh process runs
   it): every law's facts read from its bytes, its prose read, each instruction checked against
   its release pair, every consecutive release pair of each targeted section diffed and its
   changes attributed. Printed beside the 10 s the issue allows, as a share of it; median of
   three runs.
2. The reading alone (a law's facts and its prose, no release read), per law, cold cache.
3. `law_amendments` per law (what `workbench amendments LAW` computes: that law read and checked,
   its pairs reconciled with the laws effective in their gaps that name the section), cold
   cache, median of three, with the laws it read.
4. `family_amendments` per reconciled section (what `diff FAMILY --laws` adds to the diff: the
   section's consecutive pairs reconciled, reading only the laws that name it), cold cache,
   median of three, with the laws it read.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from bench_search import bench_workspace
from bench_spine import STORE, bench_options, report_to_docs, store_missing

from workbench.amendments.instructions import read_instructions
from workbench.amendments.laws import by_path, held_law
from workbench.amendments.reconcile import (
    AmendmentReport,
    amendment_report,
    family_amendments,
    law_amendments,
)
from workbench.amendments.style import style_for
from workbench.cite.index import clear_cache
from workbench.corpus.catalogue import read_catalogue
from workbench.text.profiles import profile_for
from workbench.workspace import Workspace

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[1]
BUDGET_SECONDS = (
    10.0  # what the issue allows `amendments` over all seven laws and the reconciliation
)
RUNS = 3


def _median(call: Callable[[], T]) -> tuple[float, T]:
    """The median wall time of `RUNS` calls of `call`, each from a cold index cache, and what
    the last call returned."""
    seconds = []
    for _ in range(RUNS):
        clear_cache()
        started = time.perf_counter()
        result = call()
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds), result


def _laws_read(report: AmendmentReport) -> str:
    return ", ".join(r.law.version_id.rsplit("/", 1)[-1] for r in report.laws) or "none"


def run(workspace: Workspace) -> None:
    rows = read_catalogue(ROOT / "corpus")
    median, report = _median(lambda: amendment_report(workspace, "us-dc", rows, STORE))
    instructions = sum(len(law.reading.instructions) for law in report.laws)
    outcomes = Counter(c.outcome for law in report.laws for c in law.checks)
    kinds = Counter(a.kind for a in report.attributions.values())
    pairs = {(a.family, a.before, a.after) for a in report.attributions.values()}
    print(f"laws: {len(report.laws)}, instructions: {instructions}")
    print(f"1. amendment_report, cold index cache, median of {RUNS}: {median:.2f} s")
    print(f"   {median / BUDGET_SECONDS:.0%} of the {BUDGET_SECONDS:.0f} s budget")
    print("   outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    print(
        f"   {len(report.attributions)} changes over {len(pairs)} release pairs: "
        + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
    )
    style, indexed = style_for("us-dc"), by_path(rows)
    profile = profile_for("us-dc", None)
    print("2. reading alone (facts from the bytes, then the prose), cold index cache")
    for law in report.laws:
        clear_cache()
        version = workspace.version(law.law.version_id)
        started = time.perf_counter()
        facts = held_law(version, style, indexed, STORE)
        reading = read_instructions(version, facts.markup, facts.quotations, style, profile)
        took = time.perf_counter() - started
        print(
            f"   {version.version_id}: {len(version.text):>7} characters, "
            f"{len(reading.instructions):>4} instructions in {took * 1000:.0f} ms"
        )
    print(f"3. law_amendments per law (workbench amendments LAW), cold cache, median of {RUNS}")
    for law in report.laws:
        law_id = law.law.version_id
        took, alone = _median(lambda law_id=law_id: law_amendments(workspace, law_id, rows, STORE))
        print(f"   {law_id}: {took:.2f} s, read {_laws_read(alone)}")
    print(f"4. family_amendments per section (diff FAMILY --laws), cold cache, median of {RUNS}")
    for family in sorted({a.family for a in report.attributions.values()}):
        took, section = _median(
            lambda family=family: family_amendments(workspace, family, rows, STORE)
        )
        print(
            f"   {family}: {took:.2f} s, {len(section.attributions)} changes, "
            f"read {_laws_read(section)}"
        )


def main() -> int:
    options = bench_options(__doc__, sys.argv[1:], valued=("--workspace",))
    if store_missing():
        return 2
    with bench_workspace(sys.argv[1:]) as held:
        report_to_docs(lambda: run(held), "bench:amendments", options["--write-docs"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
