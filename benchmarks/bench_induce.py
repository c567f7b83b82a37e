"""Induced profiles scored against the documents' own identifiers, per jurisdiction.

Run: `make bench` (or `.venv/bin/python benchmarks/bench_induce.py [--write-docs]`). For every
jurisdiction whose documents carry their own identifiers (the truth `scripts/alignment_truth.py`
reads, imports nothing from the workbench: D.C. `<num>` chains, USLM `identifier`, Justice Canada
`lims:fid` units with their `Label`s, IETF section numbers, NERC requirement numbers), each family
with versions of odd and even `version_order` gets a profile induced from its odd versions alone
(`induce.induce_profile`, which reads no profile and no jurisdiction name); each even version's
truth units are placed in its text (`evals.paths.locate`) and the path the induced profile reads
there is compared with the document's label chain (`evals.paths.agreement`). Beside it: the shipped
profile that names the jurisdiction, read on the same text the same way (XML versions too: the
profiles read text, the extractor's marks are not used), and, for XML, the marks themselves as the
workbench reads those versions today. Printed per jurisdiction: units placed, agreement of each,
and the induced profile's points against the shipped one. With `--write-docs` the output replaces
the block between the `bench:induce` markers in docs/. Set `WORKBENCH_WORKSPACE` to a workspace
that holds the catalogue to skip the ingest into a temporary one. It asserts nothing.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from collections import defaultdict
from types import ModuleType

from bench_profiles import _versions
from bench_spine import ROOT, STORE, bench_options, report_to_docs

from workbench.evals.paths import Agreement, FamilyScore, Rule, TruthUnit, score_family
from workbench.models import Version
from workbench.text.profiles import named_profile, shipped_profiles

RULES: dict[str, Rule] = {
    "us-dc": "marks",
    "us-federal": "marks",
    "us-federal-register": "marks",
    "ca-federal": "marks",
    "ietf": "headings",
    "us-nerc": "requirements",
}
TARGET = 0.9  # the induced profile's agreement the issue asks for, per jurisdiction
WITHIN = 5.0  # points, at most, below the shipped profile's


def load_truth_script() -> ModuleType:
    path = ROOT / "scripts" / "alignment_truth.py"
    spec = importlib.util.spec_from_file_location("alignment_truth", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["alignment_truth"] = module
    spec.loader.exec_module(module)
    return module


def truth_units(script: ModuleType, version: Version) -> list[TruthUnit]:
    """The truth script's units of one version, read from the fetched bytes."""
    read = script.READERS[version.jurisdiction]
    units = read((STORE / version.version_id).read_bytes(), version.version_id)
    return [
        TruthUnit(unit_id=u.unit_id, path=u.path, heading=u.heading, text=u.text) for u in units
    ]


def readable(version: Version) -> bool:
    """The versions the truth script reads for the jurisdiction (`alignment_truth.version_pairs`)."""
    suffix = {"us-nerc": ".pdf", "ietf": ".txt"}.get(version.jurisdiction, ".xml")
    return version.version_id.lower().endswith(suffix)


def _pct(a: Agreement) -> str:
    return f"{100 * a.agree / a.placed:6.2f}%" if a.placed else "    n/a"


def run() -> None:
    script = load_truth_script()
    families: dict[str, dict[str, list[Version]]] = defaultdict(lambda: defaultdict(list))
    for version in _versions():
        if version.jurisdiction in RULES and readable(version):
            families[version.jurisdiction][version.family].append(version)
    print(
        "| jurisdiction | families | units placed | induced | shipped profile | points | "
        "extractor's marks | meets 90% and within 5 points |"
    )
    print("|---|---|---|---|---|---|---|---|")
    started = time.perf_counter()
    for jurisdiction in sorted(families):
        shipped_profile = named_profile(shipped_profiles(), jurisdiction, "")
        assert shipped_profile is not None
        scored = [
            score_family(f, RULES[jurisdiction], lambda v: truth_units(script, v), shipped_profile)
            for f in families[jurisdiction].values()
        ]
        kept: list[FamilyScore] = [s for s in scored if s is not None]
        zero = Agreement(agree=0, placed=0)
        induced = sum((s.induced for s in kept), zero)
        shipped = sum((s.shipped for s in kept), zero)
        marks = sum((s.marks for s in kept), zero)
        if not induced.placed:
            print(
                f"| {jurisdiction} | {len(kept)} | 0 | n/a | n/a | n/a | n/a | no even versions |"
            )
            continue
        points = 100 * (induced.agree / induced.placed - shipped.agree / shipped.placed)
        meets = induced.agree >= TARGET * induced.placed and points >= -WITHIN
        print(
            f"| {jurisdiction} | {len(kept)} | {induced.placed} | {_pct(induced)} | "
            f"{_pct(shipped)} | {points:+6.1f} | "
            f"{_pct(marks) if RULES[jurisdiction] == 'marks' else '    n/a'} | "
            f"{'yes' if meets else 'no'} |"
        )
    print(f"\n{time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    options = bench_options(__doc__, sys.argv[1:])
    report_to_docs(run, "bench:induce", options["--write-docs"])
