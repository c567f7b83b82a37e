"""Leave-one-out benchmark of the automatic profile choice, on the real corpus.

Run: `make bench` (or `.venv/bin/python benchmarks/bench_profiles.py [--write-docs]`). For each
jurisdiction that a shipped profile names, the families are measured twice: once through the
profile that names them, and once with that profile withheld, so that `profiles.choose_profile`
must pick among the other shipped profiles, `generic` and the profile induced from the family's
texts, from the family's first and last version ("induced" where the induced one won, "unread"
where no candidate read a consistent step).
It prints per jurisdiction the profile the choice fell on (most families), the share of modified
pairings outside front matter and furniture whose structure is known, and the share of passages
carrying their own label, with the named profile and left out, and the difference in points.
With `--write-docs` the output replaces the block between the `bench:profiles` markers in docs/
(`bench_spine.report_to_docs`; other blocks are kept). Set `WORKBENCH_WORKSPACE` to a workspace
that holds the catalogue to skip the ingest into a temporary one. It asserts nothing: it measures
and prints.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

from bench_spine import ROOT, STORE, bench_options, report_to_docs, store_missing

from workbench.corpus.catalogue import read_catalogue
from workbench.measure import FamilyMeasurement, measure_family
from workbench.models import Version
from workbench.text.profiles import named_profile, shipped_profiles
from workbench.workspace import Workspace, ingest


def _shares(measured: list[FamilyMeasurement]) -> tuple[int, int, int, int]:
    """(known, counted pairings, labelled, passages) over the families."""
    counted = [p for f in measured for p in f.pairings if not p.excluded]
    passages = [p for f in measured for p in f.passages]
    return (
        sum(p.known for p in counted),
        len(counted),
        sum(p.labelled for p in passages),
        len(passages),
    )


def _pct(holds: int, subjects: int) -> str:
    return f"{100 * holds / subjects:6.2f}%" if subjects else "    n/a"


def _points(a: tuple[int, int], b: tuple[int, int]) -> str:
    if not a[1] or not b[1]:
        return "  n/a"
    return f"{100 * (b[0] / b[1] - a[0] / a[1]):+6.1f}"


def _versions() -> tuple[Version, ...]:
    rows = read_catalogue(ROOT / "corpus")
    named = os.environ.get("WORKBENCH_WORKSPACE")
    with (
        tempfile.TemporaryDirectory() as tmp,
        Workspace(Path(named) if named else Path(tmp) / "w.sqlite") as held,
    ):
        ingest(held, rows, STORE)
        return held.versions()


def run() -> None:
    versions = _versions()
    families: dict[str, dict[str, list[Version]]] = defaultdict(lambda: defaultdict(list))
    for version in versions:
        families[version.jurisdiction][version.family].append(version)
    shipped = shipped_profiles()
    print(
        "| jurisdiction | named profile | left-out choice | known (named) | known (left out) | "
        "points | own label (named) | own label (left out) | points |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    within = 0
    started = time.perf_counter()
    for jurisdiction, by_family in sorted(families.items()):
        named = named_profile(shipped, jurisdiction, "")
        if named is None:
            continue
        others = tuple(p for p in shipped if p is not named)
        groups = [sorted(g, key=lambda v: v.version_order) for _, g in sorted(by_family.items())]
        with_named = [measure_family(g, shipped) for g in groups]
        left_out = [measure_family(g, others) for g in groups]
        # The profile most families fell on, and how: an induced profile that won ("induced"), or
        # the one that reads a family no candidate read a consistent step of ("unread").
        picked = Counter(
            f.profile["name"] if f.profile["chosen"] == "automatic" else f.profile["chosen"]
            for f in left_out
        ).most_common(1)[0][0]
        a, b = _shares(with_named), _shares(left_out)
        known_points = _points(a[:2], b[:2])
        label_points = _points(a[2:], b[2:])
        close = known_points.strip() != "n/a" and abs(float(known_points)) <= 10
        close = close and abs(float(label_points)) <= 10
        within += close
        print(
            f"| {jurisdiction} | {named.name} | {picked} | {_pct(*a[:2])} ({a[0]} of {a[1]}) | "
            f"{_pct(*b[:2])} ({b[0]} of {b[1]}) | {known_points} | {_pct(*a[2:])} | "
            f"{_pct(*b[2:])} | {label_points} |",
            flush=True,
        )
    print(
        f"\njurisdictions whose left-out structure-known and own-label shares are both within 10 "
        f"points of the named profile's: {within} ({time.perf_counter() - started:.0f} s)"
    )


def main() -> int:
    options = bench_options(__doc__, sys.argv[1:])
    if store_missing():
        return 2
    report_to_docs(run, "bench:profiles", options["--write-docs"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
