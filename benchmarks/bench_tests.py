"""Test-suite benchmark: how long `make check` and `make test` take here, and what is slowest.

Run: `.venv/bin/python benchmarks/bench_tests.py [--write-docs]` (part of `make bench`; it runs
the whole suite, so it takes minutes). It prints wall times beside their targets (`make check`
90 s, `make test` 5 minutes, on a 2-core machine) and asserts nothing about time. With
`--write-docs` it replaces the `bench:tests` block in docs/benchmarks.md.

- The split: how many collected tests `make check` runs (every test not marked `slow`), and how
  many from each test package, so the page shows that the inner loop covers every package.
- `make check` and `make test`, each run once as a developer runs them, with
  `PYTEST_ARGS=--durations=0` (every test phase, setup included, as pytest reports it); the ten
  slowest phases are printed. One untimed `make check` first warms what a developer's second run
  finds warm: the bytecode caches and mypy's cache.
- The critical path of each run: `--dist loadscope` runs a test module whole on one worker, so
  the wall time is at least the longest module's phases summed, and at least all phases summed
  over the workers (`WORKERS`, the Makefile's default); the five longest modules are printed
  beside both bounds (a phase spent waiting for a shared fixture another worker builds counts).
- The machine's load beside each figure: the 1-minute load average when the command started, and
  its mean and maximum while it ran (sampled every 2 s), since other work on the machine stretches
  wall time and a figure means little without it; and the CPU seconds the command's processes
  spent (user and system, every process it waited for), which other work stretches far less.

A failed command's figures are printed all the same, with the exit status, pytest's summary line
and the failing tests' ids, so a failing test shows in the page instead of hiding the timing.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass

from bench_spine import ROOT, bench_options, report_to_docs, store_missing

TARGETS = {"check": 90.0, "test": 300.0}  # seconds, on a 2-core machine
SLOWEST = 10
LONGEST_MODULES = 5
WORKERS = 2  # the Makefile's default: pytest -n 2 --dist loadscope
DURATION = re.compile(r"^(\d+\.\d+)s (?:setup|call|teardown) +([^:\s]+)")  # seconds, file
SAMPLE_SECONDS = 2.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Timed:
    """One `make` run: wall seconds, exit status, its output, and the load while it ran."""

    seconds: float
    cpu: float  # user and system seconds of every process the command waited for
    status: int
    output: str
    load_start: float
    load_mean: float
    load_max: float

    def summary(self) -> str:
        """pytest's last line ("N passed, M deselected in S s"), or a note that none was printed."""
        lines = [line.strip("= ") for line in self.output.splitlines() if " in " in line]
        found = [line for line in lines if re.search(r"\d+ (passed|failed|error)", line)]
        return found[-1] if found else "(no pytest summary printed)"

    def failures(self) -> list[str]:
        """The FAILED and ERROR lines of pytest's short summary (`-ra`), without their messages."""
        found = re.findall(r"^(?:FAILED|ERROR) (\S+)", self.output, flags=re.MULTILINE)
        return sorted(set(found))

    def durations(self) -> list[str]:
        """The lines of pytest's `--durations` section, slowest first."""
        lines = self.output.splitlines()
        start = next(
            (i for i, line in enumerate(lines) if "slowest" in line and "==" in line), None
        )
        if start is None:
            return []
        return [line for line in lines[start + 1 :] if re.match(r"\d+\.\d+s ", line)]

    def slowest(self) -> list[str]:
        """The `SLOWEST` slowest test phases."""
        return self.durations()[:SLOWEST]

    def modules(self) -> list[tuple[str, float]]:
        """Each test module's (or notebook's) phases summed, in seconds, longest first."""
        summed: dict[str, float] = {}
        for line in self.durations():
            found = DURATION.match(line)
            if found:
                summed[found[2]] = summed.get(found[2], 0.0) + float(found[1])
        return sorted(summed.items(), key=lambda item: (-item[1], item[0]))


def _environment() -> dict[str, str]:
    # Run from `make bench`, the inner `make` must not inherit the outer one's flags.
    return {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL")}


def timed_make(target: str) -> Timed:
    """Run `make TARGET PYTEST_ARGS=--durations=0` once, sampling the load average meanwhile."""
    samples: list[float] = []
    done = threading.Event()

    def sample() -> None:
        while not done.wait(SAMPLE_SECONDS):
            samples.append(os.getloadavg()[0])

    load_start = os.getloadavg()[0]
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(
        # -k: the tests run even when lint fails, so the figure is the whole loop's.
        ["make", "-k", "--no-print-directory", target, "PYTEST_ARGS=--durations=0"],
        cwd=ROOT,
        env=_environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (used.ru_utime + used.ru_stime)
    done.set()
    sampler.join()
    samples = samples or [load_start]
    return Timed(
        seconds=seconds,
        cpu=cpu,
        status=result.returncode,
        output=result.stdout + result.stderr,
        load_start=load_start,
        load_mean=sum(samples) / len(samples),
        load_max=max(samples),
    )


# What `make test` and `make check` add to pytest's own options (the Makefile's NOTEBOOKS, and
# check's leaving nbval out).
MAKE_TEST = ("--nbval", "--nbval-sanitize-with", "notebooks/nbval-sanitize.cfg")
MAKE_CHECK = ("-m", "not slow", "-p", "no:nbval")


def collected(*options: str) -> list[str]:
    """The node ids pytest collects with `options`, as `make` would run them."""
    argv = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    argv += options
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if "::" in line]


def package_of(node_id: str) -> str:
    """The test package a node id belongs to: `tests/<package>/`, `tests` for its top level,
    `notebooks` for the notebook runs."""
    parts = node_id.split("::")[0].split("/")
    if parts[0] == "tests" and len(parts) > 2:
        return parts[1]
    return parts[0]


def run() -> None:
    every, quick = collected(*MAKE_TEST), collected(*MAKE_CHECK)
    share = len(quick) / len(every)
    print(
        f"collected {len(every)} tests: {len(quick)} not slow ({share:.1%}), "
        f"{len(every) - len(quick)} slow (whole corpus, notebook runs)"
    )
    totals, runs = Counter(map(package_of, every)), Counter(map(package_of, quick))
    print("not slow / collected, by test package:")
    for package in sorted(totals):
        print(f"   {package:<12} {runs[package]:4d} / {totals[package]:4d}")

    timed_make("check")  # untimed: warms the bytecode and mypy caches
    print("\neach timed once, after one untimed make check; load = 1-minute load average")
    results = {target: timed_make(target) for target in ("check", "test")}
    for target, result in results.items():
        status = "" if result.status == 0 else f", exit {result.status}"
        print(
            f"\nmake {target:<6} {result.seconds:7.1f} s  "
            f"({result.seconds / TARGETS[target]:.2f}x the {TARGETS[target]:.0f} s target{status})"
            f"   load {result.load_start:.1f} at start, mean {result.load_mean:.1f}, "
            f"max {result.load_max:.1f}; {result.cpu:.1f} CPU seconds"
        )
        print(f"   pytest: {result.summary()}")
        for failure in result.failures():
            print(f"   failed: {failure}")
    for target, result in results.items():
        print(f"\nten slowest phases in make {target} (pytest --durations=0)")
        for line in result.slowest():
            print(f"   {line}")
    for target, result in results.items():
        modules = result.modules()
        summed = sum(seconds for _, seconds in modules)
        print(
            f"\ncritical path of make {target}: all phases {summed:.1f} s, "
            f"{summed / WORKERS:.1f} s on each of {WORKERS} workers at best; "
            f"the longest module runs whole on one ({result.seconds:.1f} s wall)"
        )
        for module, seconds in modules[:LONGEST_MODULES]:
            print(f"   {seconds:7.1f} s  {module}")


def main() -> int:
    options = bench_options(__doc__, sys.argv[1:])
    if store_missing():
        return 2
    report_to_docs(run, "bench:tests", options["--write-docs"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
