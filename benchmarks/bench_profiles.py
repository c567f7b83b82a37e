"""Leave-one-out benchmark of the automatic profile choice, on the real corpus.

Run: `.venv/bin/python benchmarks/bench_profiles.py [--workspace PATH] [--write-docs]`. For each
jurisdiction that a shipped profile names, the families are measured twice: once through the
profile that names them, and once with that profile withheld, so that `profiles.choose_profile`
must pick among the other shipped profiles and `generic` from the family's first and last version.
It prints per jurisdiction the profile the choice fell on (most families), the share of modified
pairings outside front matter and furniture whose structure is known, and the share of passages
carrying their own label, with the named profile and left out, and the difference in points.
With `--write-docs` the table replaces the block between the markers in docs/benchmarks.md
(created if absent; other blocks are kept). It asserts nothing: it measures and prints.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from workbench.corpus import read_catalogue
from workbench.measure import FamilyMeasurement, measure_family
from workbench.models import Version
from workbench.profiles import named_profile, shipped_profiles
from workbench.store import DEFAULT_WORKSPACE, Workspace, ingest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "benchmarks.md"
START = "<!-- bench_profiles: start -->"
END = "<!-- bench_profiles: end -->"


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


def run(workspace: Path) -> list[str]:
    rows = read_catalogue(ROOT / "corpus")
    with Workspace(workspace) as held:
        ingest(held, rows, ROOT / "corpus" / "real")
        versions = held.versions()
    families: dict[str, dict[str, list[Version]]] = defaultdict(lambda: defaultdict(list))
    for version in versions:
        families[version.jurisdiction][version.family].append(version)
    shipped = shipped_profiles()
    lines = [
        "| jurisdiction | named profile | left-out choice | known (named) | known (left out) | "
        "points | own label (named) | own label (left out) | points |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
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
        picked = Counter(f.profile["name"] for f in left_out).most_common(1)[0][0]
        a, b = _shares(with_named), _shares(left_out)
        known_points = _points(a[:2], b[:2])
        label_points = _points(a[2:], b[2:])
        close = known_points.strip() != "n/a" and abs(float(known_points)) <= 10
        close = close and abs(float(label_points)) <= 10
        within += close
        lines.append(
            f"| {jurisdiction} | {named.name} | {picked} | {_pct(*a[:2])} ({a[0]} of {a[1]}) | "
            f"{_pct(*b[:2])} ({b[0]} of {b[1]}) | {known_points} | {_pct(*a[2:])} | "
            f"{_pct(*b[2:])} | {label_points} |"
        )
        print(lines[-1], flush=True)
    lines.append("")
    lines.append(
        f"Jurisdictions whose left-out structure-known and own-label shares are both within 10 "
        f"points of the named profile's: {within}. ({time.perf_counter() - started:.0f} s)"
    )
    return lines


def write_docs(lines: list[str]) -> None:
    block = "\n".join([START, *lines, END])
    if DOCS.is_file():
        text = DOCS.read_text(encoding="utf-8")
        if START in text and END in text:
            head, rest = text.split(START, 1)
            text = head + block + rest.split(END, 1)[1]
        else:
            text = text.rstrip("\n") + "\n\n## Profiles: leave-one-out\n\n" + block + "\n"
    else:
        DOCS.parent.mkdir(parents=True, exist_ok=True)
        text = "# Benchmarks\n\n## Profiles: leave-one-out\n\n" + block + "\n"
    DOCS.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workspace", type=Path, default=ROOT / DEFAULT_WORKSPACE)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    lines = run(args.workspace)
    print(lines[-1])
    if args.write_docs:
        write_docs(lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
