"""A second `make measure` with nothing changed against the first: the `measure` and `eval` steps
as a new machine runs them (issue 46).

Run: `.venv/bin/python benchmarks/bench_make_measure.py [--write-docs]`. Runs `make measure`
(`workbench measure`, then `make eval`: the demonstration manifest, `workbench ingest`, the two
truths, `workbench eval`) in this checkout, with its workspace and measurement cache in a fresh
temporary folder (`WORKBENCH_WORKSPACE`) and the truths written there too (`TRUTH`,
`AMENDMENT_TRUTH`), so the first run is cold: nothing derived is there to take. Then the same
command again `WARM_RUNS` times. Printed: the cold run's seconds, each warm run's, their median and
its share of the cold run, the machine's load average after each run (a loaded machine's figures
are not an idle one's), and whether `measurements/` is as git holds it after the runs (the
reports are byte-identical). It asserts nothing about time.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_spine import ROOT, bench_options, compile_workbench, report_to_docs, store_missing

WARM_RUNS = 3  # the second run, timed this many times


def make_measure(folder: Path) -> float:
    """Wall seconds of `make measure` in ROOT, its workspace and truths in `folder`."""
    env = {**os.environ, "WORKBENCH_WORKSPACE": str(folder / "ws.sqlite")}
    truths = [f"TRUTH={folder / 'alignment.json'}", f"AMENDMENT_TRUTH={folder / 'amendment.json'}"]
    start = time.perf_counter()
    done = subprocess.run(
        ["make", "--no-print-directory", "measure", *truths],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"make measure: exit {done.returncode}\n{done.stderr[-2000:]}")
    return seconds


def run() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cold = make_measure(folder)
        print(
            f"`make measure`, cold (fresh workspace, no measurement cache, no truths): {cold:.1f} s"
        )
        print(f"   the machine's load average over the last minute: {os.getloadavg()[0]:.1f}")
        warm = []
        for number in range(1, WARM_RUNS + 1):
            warm.append(make_measure(folder))
            print(
                f"run {number} again, nothing changed: {warm[-1]:.1f} s "
                f"(load average {os.getloadavg()[0]:.1f})"
            )
    median = statistics.median(warm)
    status = subprocess.run(
        ["git", "status", "--porcelain", "measurements/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    print(
        f"again: median {median:.1f} s (min {min(warm):.1f}, max {max(warm):.1f}), "
        f"{100 * median / cold:.1f}% of the cold run (target at most 10%)"
    )
    print(
        "measurements/ as git holds it: "
        + ("yes" if not status else "NO, changed:\n" + status.rstrip())
    )


def main() -> int:
    options = bench_options(__doc__, sys.argv[1:])
    if store_missing():
        return 2
    compile_workbench()
    report_to_docs(run, "bench:make-measure", options["--write-docs"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
