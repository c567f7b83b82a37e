"""Measurement benchmark: the whole `workbench measure` chain on the real corpus, per stage, and
the command itself cold and warm.

Run: `make bench` (or `.venv/bin/python benchmarks/bench_measure.py [--write-docs]`). Prints
seconds and seconds per MB of catalogued bytes for each stage of one full re-derivation into a
fresh workspace — ingest (extraction of every version), the map (structure parse and diff of every
family), the reduce and the report writing (including chart rendering) — beside
`hashlib.sha256` over the same bytes as the floor. Then the wall time of `workbench measure` as a
researcher runs it, in a fresh process: cold (a new workspace and an empty measurement cache) and
warm (the same command again: nothing is extracted, every family's measurement is reused), the
warm/cold ratio, and whether the two runs wrote the same bytes. It asserts nothing about time.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_spine import ROOT, STORE, bench_options, compile_workbench, report_to_docs, store_missing

from workbench.corpus import read_catalogue, read_refusals
from workbench.measure import map_families, reduce_families
from workbench.measure.html import write_reports
from workbench.workspace import Workspace, ingest


def run() -> None:
    rows = read_catalogue(ROOT / "corpus")
    refusals = read_refusals(ROOT / "corpus")
    megabytes = sum(r.size for r in rows) / 1e6
    start = time.perf_counter()
    for row in rows:
        hashlib.sha256((STORE / row.path).read_bytes()).hexdigest()
    floor = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp, Workspace(Path(tmp) / "w.sqlite") as held:
        t0 = time.perf_counter()
        ingest(held, rows, STORE)
        versions = held.versions()
        t1 = time.perf_counter()
        families = map_families(versions)
        t2 = time.perf_counter()
        measurements = reduce_families(families, rows, refusals)
        t3 = time.perf_counter()
        write_reports(Path(tmp) / "out", measurements)
        t4 = time.perf_counter()
    total = t4 - t0
    print(
        f"whole measurement, {len(rows)} documents, {megabytes:.1f} MB, {len(families)} families with held versions"
    )
    print(f"   read + sha256 floor:        {floor:7.2f} s")
    for name, seconds in (
        ("ingest (extract all)", t1 - t0),
        ("map: parse + diff", t2 - t1),
        ("reduce", t3 - t2),
        ("write reports + charts", t4 - t3),
    ):
        print(f"   {name:<27} {seconds:7.2f} s  {seconds / megabytes:6.3f} s/MB")
    print(
        f"   total                       {total:7.2f} s  {total / megabytes:6.3f} s/MB  ({total / floor:.0f}x the floor)"
    )
    print()
    cold_and_warm()


def _measure_command(folder: Path, out: str) -> float:
    """Wall seconds of `workbench measure` in a fresh process, its workspace in `folder`."""
    command = [sys.executable, "-m", "workbench", "measure", "--out", str(folder / out)]
    command += ["--workspace", str(folder / "w.sqlite")]
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def cold_and_warm() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cold = _measure_command(folder, "cold")
        warm = _measure_command(folder, "warm")
        same = all(
            (folder / "warm" / p.name).read_bytes() == p.read_bytes()
            for p in (folder / "cold").iterdir()
        )
    print("`workbench measure`, a fresh process each time, the catalogue above")
    print(f"   cold (new workspace, empty measurement cache)  {cold:7.2f} s")
    print(f"   warm (the same command again)                  {warm:7.2f} s")
    print(
        f"   warm / cold: {warm / cold:.2f} (target at most 0.30); "
        f"the two runs wrote {'the same' if same else 'DIFFERENT'} bytes"
    )


def main() -> int:
    options = bench_options(__doc__, sys.argv[1:])
    if store_missing():
        return 2
    compile_workbench()
    report_to_docs(run, "bench:measure", options["--write-docs"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
