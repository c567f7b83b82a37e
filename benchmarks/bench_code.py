"""The whole D.C. Code from git: admission, measure at 1/8, 1/4, 1/2 and the whole, the last
release's increment, the listings, and three engines writing the same bytes (issue 35).

Run: `.venv/bin/python benchmarks/bench_code.py [--quick | --increment] [--write-docs]`. It clones
`../shared/external/dc-law-xml-codified.bundle` into `benchmarks/out/code/law-xml-codified`
(ignored; an existing clone is reused) and runs every step as a user types it, each a fresh
`workbench` process:

1. **Admission**: one `workbench corpus add --from-git` of every release's section files
   (`us/dc/council/code/titles/*/sections/*.xml`) into a fresh mirror folder, timed apart.
2. **Size**: slices by title, in title order (1, 2, ... 27, 27A, 28 ...), each the shortest run of
   titles holding at least 1/8, 1/4 and 1/2 of the versions, and the whole code; each slice is a
   hard-linked copy of its families' folders. Each is measured cold with `workbench measure
   --corpus SLICE --workers 2` into a fresh workspace (admission of the folder, extraction, the
   map, the reduce and the reports: ingest included). Printed: seconds, milliseconds per version,
   the client's peak memory and the largest worker's, each above the interpreter's baseline.
   The whole code is then measured once more, warm (same command, same workspace).
3. **Increment**: the releases up to the one before the last admitted into a fresh mirror
   (`corpus add --from-git ... --until DATE`) with the laws at the head, measured cold on a Dask
   scheduler and two workers started as separate processes (`dask scheduler`, `dask worker`, as
   docs/scale-out.md shows) with `--scheduler tcp://...`: the started cluster, end to end; then
   the search index built and the code reconciled. Then, three times from that state, the same
   `corpus add` without `--until` adds the last release's versions and one `workbench update
   --workers 2` brings the workspace up to date (admission, ingest, measure, search index and
   reconciliation in one process); printed: each run's seconds with the machine's load average
   (a loaded machine's figures are not an idle one's), and the median of the three with the min
   and max.
4. **Listings** on the whole code's workspace: `families`, `versions F`, `review list`, `history
   QUOTE --family F`, `search QUERY` (F the family with the most versions, QUOTE eight words of
   its newest text as it holds them, QUERY the same words); the search index is built first (`search --reindex`,
   timed apart).
5. **Reconciliation**: the laws of Council periods 23-25 as the head holds them (`corpus add
   --from-git --at-head`) beside every release's sections, measured once (admission and ingest),
   then `workbench reconcile` timed; its summary (the share of changes `made_by` a law, each
   outcome's count, the instructions not applied) printed as the command prints it.
6. **Engines**: the 1/8 slice measured serially (no option) and on a started cluster
   (`--scheduler tcp://...`), each compared with the slice's `--workers 2` run by the SHA-256 of
   every file of the output folders.

**Memory.** The client's peak is the kernel's high-water mark of the `workbench measure` process
(`VmHWM` of /proc/PID/status, read by that process as it exits); a worker's peak is its own
`VmHWM`, polled every 0.2 s from /proc while the run lasts (psutil lists the processes: the
client's child processes for `--workers 2`; the started `dask worker` processes and theirs for
`--scheduler`). Each is printed above its **interpreter's baseline**: for the client, the resident
memory of the same process after `import`ing the modules a measure loads (workbench's CLI and
measure packages, distributed, polars, vl_convert, which draws the charts), before the command runs; for a worker, the resident
memory of a fresh interpreter that imported what a worker loads (distributed and
`workbench.measure.tasks`). `--quick` runs only the 1/8
slice's steps (reusing the admitted mirror if there is one), to try the benchmark out;
`--increment` runs only step 3 (its figures are printed, never written into the docs); `--size` runs
only steps 1 and 2, without the warm run (whole code cold and the client's peaks, to follow a change
of the map; printed, never written into the docs).

With `--write-docs` it writes its block into docs/benchmarks.md and the plot of cost against size
into docs/img/bench-code-cost.svg. It asserts nothing about time.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench_spine import ROOT, bench_options, compile_workbench, report_to_docs

BUNDLE = ROOT.parent / "shared" / "external" / "dc-law-xml-codified.bundle"
OUT = ROOT / "benchmarks" / "out" / "code"
CLONE = OUT / "law-xml-codified"
SVG = ROOT / "docs" / "img" / "bench-code-cost.svg"
SECTIONS = "us/dc/council/code/titles/*/sections/*.xml"
ADD = [
    "corpus",
    "add",
    "--from-git",
    str(CLONE),
    "--paths",
    SECTIONS,
    "--family-prefix",
    "dc-code-",
    "--jurisdiction",
    "us-dc",
    "--official",
    "--repo-name",
    "DCCouncil/law-xml-codified",
]
LAWS = [  # the laws of Council periods 23-25 as the head holds them, as docs/amendments.md says
    "corpus",
    "add",
    "--from-git",
    str(CLONE),
    "--at-head",
    "--paths",
    "us/dc/council/periods/2[345]/laws/*.xml",
    "--family-prefix",
    "dc-law-",
    "--jurisdiction",
    "us-dc",
    "--official",
    "--issuer",
    "Council of the District of Columbia",
    "--repo-name",
    "DCCouncil/law-xml-codified",
]
SHARES = ((1, 8), (1, 4), (1, 2), (1, 1))
INCREMENT_RUNS = 3  # the last release's increment is timed this many times, from one state
WORKER_ENV = {"DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False"}  # as docs/scale-out.md says


# ---------------------------------------------------------------------------------------------
# Processes and their memory


def _status_mb(pid: int | str, field: str) -> float:
    """A memory field of /proc/PID/status, in MB (0 when the process is gone)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if line.startswith(field.encode("ascii") + b":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class PeakWatch:
    """The largest `VmHWM` seen among `roots`' descendants (and `roots` themselves with
    `include_roots`), polled every 0.2 s on a thread."""

    def __init__(self, roots: Sequence[int], *, include_roots: bool) -> None:
        self.roots, self.include_roots = list(roots), include_roots
        self.peaks: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def poll(self) -> None:
        import psutil

        for root in self.roots:
            try:
                procs = psutil.Process(root).children(recursive=True)
            except psutil.Error:
                continue
            pids = [p.pid for p in procs] + ([root] if self.include_roots else [])
            for pid in pids:
                self.peaks[pid] = max(self.peaks.get(pid, 0.0), _status_mb(pid, "VmHWM"))

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            self.poll()

    def __enter__(self) -> PeakWatch:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def largest(self) -> float:
        return max(self.peaks.values(), default=0.0)


def client_main(stats: Path, args: list[str]) -> int:
    """Run `workbench ARGS` in this process; write its baseline, peak and its children's peaks."""
    import distributed  # noqa: F401
    import polars  # noqa: F401
    import vl_convert  # noqa: F401

    import workbench.measure.cluster
    import workbench.measure.html
    import workbench.measure.run  # noqa: F401
    from workbench.cli import main

    baseline = _status_mb("self", "VmRSS")
    with PeakWatch([os.getpid()], include_roots=False) as workers:
        code = main(args)
        workers.poll()
    record = {
        "baseline": baseline,
        "peak": _status_mb("self", "VmHWM"),
        "workers": workers.largest(),
    }
    stats.write_text(json.dumps(record), encoding="utf-8")
    return code


# Every command runs as on a researcher's second run: bytecode read, not compiled again
# (`PYTHONDONTWRITEBYTECODE` dropped, as benchmarks/bench_commands.py and bench_tests.py do).
BYTECODE_KEPT = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    seconds: float
    client_mb: float  # above the baseline
    workers_mb: float  # above the baseline (0: none in the process tree)
    stdout: str


def workbench(*args: str, check: bool = True) -> tuple[float, str]:
    """Run `workbench ARGS` as a user would; its wall-clock seconds and standard output (with
    `check=False`, an exit other than 0 or 1 is named on the output's first line)."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "workbench", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=BYTECODE_KEPT,
    )
    seconds = time.perf_counter() - start
    if check and done.returncode not in (0, 1):
        raise SystemExit(f"workbench {' '.join(args)}: exit {done.returncode}\n{done.stderr}")
    if done.returncode not in (0, 1):
        last = (done.stderr.strip().splitlines() or [""])[-1]
        return seconds, f"exit {done.returncode}: {last}\n"
    return seconds, done.stdout


def measured(*args: str, watch: Sequence[int] = ()) -> Run:
    """`workbench measure ARGS` in a fresh client process, with its memory; `watch`: the started
    worker processes whose peaks count as the workers'."""
    stats = OUT / "client-stats.json"
    stats.unlink(missing_ok=True)
    command = [sys.executable, __file__, "--client", str(stats), "measure", *args]
    start = time.perf_counter()
    with PeakWatch(watch, include_roots=True) as started:
        done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=BYTECODE_KEPT)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(
            f"workbench measure {' '.join(args)}: exit {done.returncode}\n{done.stderr}"
        )
    record = json.loads(stats.read_text(encoding="utf-8"))
    workers = max(record["workers"], started.largest())
    return Run(
        seconds=seconds,
        client_mb=record["peak"] - record["baseline"],
        workers_mb=workers - worker_baseline() if workers else 0.0,
        stdout=done.stdout,
    )


@functools.cache
def worker_baseline() -> float:
    """The resident MB of a fresh interpreter that imported what a worker loads (distributed and
    the measure's tasks, with the extraction they import)."""
    code = (
        "import distributed, workbench.measure.tasks; "
        "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmRSS:')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(done.stdout) / 1024


def folder_digest(folder: Path) -> str:
    """SHA-256 over every file's relative path and bytes, in sorted order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode("utf-8") + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


@contextmanager
def started_cluster(folder: Path) -> Iterator[tuple[str, list[int]]]:
    """`dask scheduler` and two `dask worker` processes, each under its nanny, started as
    docs/scale-out.md shows (on loopback, the workers with `WORKER_ENV`): the scheduler's address
    and the `dask worker` processes' ids. The processes are started by the cluster tests' own
    helper (`tests/measure/test_cluster.py`), imported here only, so that a client run of this
    script does not load the tests."""
    sys.path.insert(0, str(ROOT))
    from tests.measure.test_cluster import dask_processes

    with dask_processes(folder, 2, nanny=True, env=WORKER_ENV) as (address, workers):
        yield address, sorted({proc.pid for proc in workers.values()})


# ---------------------------------------------------------------------------------------------
# The corpus: clone, admission, slices


def clone() -> None:
    if not (CLONE / ".git").is_dir():
        OUT.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["git", "clone", "--quiet", "--branch", "codified", str(BUNDLE), str(CLONE)], check=True
        )


def release_dates() -> list[str]:
    """The first-parent line's commit dates, newest first."""
    log = subprocess.run(
        ["git", "-C", str(CLONE), "log", "--first-parent", "--format=%cs"],
        capture_output=True,
        text=True,
        check=True,
    )
    return log.stdout.split()


def admit_mirror(mirror: Path, *extra: str, fresh: bool = True) -> float:
    if fresh and mirror.exists():
        shutil.rmtree(mirror)
    seconds, _ = workbench(*ADD, "--into", str(mirror), *extra)
    return seconds


def title_key(title: str) -> tuple[int, str]:
    match = re.match(r"(\d+)(.*)", title)
    return (int(match.group(1)), match.group(2)) if match else (10**6, title)


def families_by_title(mirror: Path) -> dict[str, list[tuple[Path, int]]]:
    """Each title's family folders and their version counts (the title read from the path in
    the repository that each family's first provenance names)."""
    out: dict[str, list[tuple[Path, int]]] = defaultdict(list)
    for family in sorted((mirror / "us-dc").iterdir()):
        sidecars = sorted(family.glob("*.provenance.json"))
        path = json.loads(sidecars[0].read_bytes())["mirror"]["path"]
        out[path.split("/")[5]].append((family, len(sidecars)))
    return out


def slices(by_title: dict[str, list[tuple[Path, int]]]) -> list[tuple[list[str], int]]:
    """For each share, the shortest run of titles (in title order) holding at least that share
    of the versions, and its versions."""
    titles = sorted(by_title, key=title_key)
    total = sum(n for fams in by_title.values() for _, n in fams)
    out = []
    for num, den in SHARES:
        held, chosen = 0, []
        for title in titles:
            if held * den >= total * num:
                break
            chosen.append(title)
            held += sum(n for _, n in by_title[title])
        out.append((chosen, held))
    return out


def link_slice(
    root: Path, titles: Sequence[str], by_title: dict[str, list[tuple[Path, int]]]
) -> Path:
    if root.exists():
        shutil.rmtree(root)
    for title in titles:
        for family, _ in by_title[title]:
            target = root / "us-dc" / family.name
            target.mkdir(parents=True)
            for path in family.iterdir():
                os.link(path, target / path.name)
    return root


def fresh(folder: Path) -> Path:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    return folder


def measure_args(corpus: Path, folder: Path, *engine: str) -> list[str]:
    return [
        "--corpus",
        str(corpus),
        *engine,
        "--workspace",
        str(folder / "w.sqlite"),
        "--out",
        str(folder / "out"),
    ]


# ---------------------------------------------------------------------------------------------
# The benchmark


def say(line: str) -> None:
    """Print a line of the report, and echo it on standard error to follow a long run."""
    print(line)
    print(line, file=sys.stderr, flush=True)


def plot(points: Sequence[tuple[int, float]]) -> None:
    import altair as alt
    import polars as pl

    from workbench.measure.charts import chart_svg

    data = pl.DataFrame(
        {"versions": [v for v, _ in points], "seconds": [s for _, s in points]}
    ).to_dicts()
    base = alt.Chart(alt.Data(values=data)).encode(
        x=alt.X("versions:Q", title="section versions measured"),
        y=alt.Y("seconds:Q", title="cold measure, --workers 2 (s)"),
    )
    chart = (base.mark_line() + base.mark_point(filled=True)).properties(
        title="workbench measure: cost against size (bench_code.py)", width=420, height=260
    )
    SVG.parent.mkdir(parents=True, exist_ok=True)
    SVG.write_text(chart_svg(chart), encoding="utf-8")


def run(quick: bool, write: bool, size: bool = False) -> None:
    clone()
    dates = release_dates()
    mirror = OUT / "mirror"
    if quick and mirror.is_dir():
        say("admission: the mirror admitted before is reused (--quick)")
    else:
        seconds = admit_mirror(mirror)
        versions = sum(1 for _ in mirror.glob("us-dc/*/*.provenance.json"))
        say(
            f"admission: one `workbench corpus add --from-git` of {SECTIONS}, every release: "
            f"{versions} versions in {seconds:.1f} s"
        )
    by_title = families_by_title(mirror)
    total = sum(n for fams in by_title.values() for _, n in fams)
    cuts = slices(by_title)[:1] if quick else slices(by_title)
    say(
        f"\nsize: `workbench measure --corpus SLICE --workers 2`, cold (ingest included); {total} versions in all"
    )
    say(
        f"{'slice':>5} {'titles':>10} {'versions':>8} {'share':>6} | {'cold s':>7} "
        f"{'ms/version':>10} {'client MB':>9} {'worker MB':>9}"
    )
    points, peaks, local = [], [], {}
    for (num, den), (titles, versions) in zip(SHARES, cuts, strict=False):
        name = f"{num}/{den}" if den > 1 else "whole"
        corpus = link_slice(OUT / "slices" / f"{num}-{den}", titles, by_title)
        folder = fresh(OUT / "runs" / f"local-{num}-{den}")
        result = measured(*measure_args(corpus, folder, "--workers", "2"))
        local[name] = (corpus, folder)
        points.append((versions, result.seconds))
        peaks.append(result.client_mb)
        span = f"{titles[0]}-{titles[-1]}"
        say(
            f"{name:>5} {span:>10} {versions:>8} {versions / total:>6.1%} | {result.seconds:>7.1f} "
            f"{1000 * result.seconds / versions:>10.2f} {result.client_mb:>9.0f} "
            f"{result.workers_mb:>9.0f}"
        )
    say(
        f"client peak above the baseline, largest / smallest: {max(peaks) / min(peaks):.2f}x (target <= 1.5x)"
    )
    if size:  # admission and the size step alone
        if "whole" in local:
            say(f"whole code: cold {points[-1][1]:.1f} s (target <= 60 s)")
        return
    if "whole" in local:
        corpus, folder = local["whole"]
        cold = points[-1][1]
        warm = measured(*measure_args(corpus, folder, "--workers", "2"))
        say(
            f"whole code: cold {cold:.1f} s (target <= 60 s); warm {warm.seconds:.1f} s, "
            f"{warm.seconds / cold:.0%} of cold (target <= 30%)"
        )
        increment(dates)
        listings(folder / "w.sqlite")
        reconciliation(mirror)
    engines(local)
    if write and not quick:
        plot(points)
        say(f"\nplot: docs/img/{SVG.name}")


def increment(dates: Sequence[str]) -> None:
    """The last release's increment. The releases before it and the laws (at the head) are
    admitted and measured cold on the started cluster (`--scheduler`: the documented cluster,
    end to end), the search index built and the code reconciled, and that state kept. Then,
    `INCREMENT_RUNS` times from that state (the last release's files removed from the mirror,
    the run folder put back), the last release is added and the workspace brought up to date as
    a user would: `corpus add`, then one `workbench update --workers 2` (admission, ingest,
    measure, search index and reconciliation in one process). Printed: the median of the runs'
    totals with the min and max beside it."""
    last, before = dates[0], dates[1]
    mirror = OUT / "increment" / "mirror"
    folder = fresh(OUT / "increment" / "run")
    admit_s = admit_mirror(mirror, "--until", before)
    workbench(*LAWS, "--into", str(mirror))
    held = set(mirror.rglob("*"))
    versions = sum(1 for _ in mirror.glob("us-dc/*/*.provenance.json"))
    with started_cluster(OUT / "dask-increment") as (address, pids):
        cold = measured(*measure_args(mirror, folder, "--scheduler", address), watch=pids)
    w = ["--workspace", str(folder / "w.sqlite")]
    built_s, _ = workbench("search", "--reindex", *w)
    report = ["--reconciliation", str(folder / "report")]
    reconciled_s, _ = workbench("reconcile", "--out", str(folder / "report"), *w)
    kept = OUT / "increment" / "kept"
    if kept.exists():
        shutil.rmtree(kept)
    shutil.copytree(folder, kept)
    say(
        f"\nincrement: the releases up to {before} admitted with `corpus add --from-git ... --until "
        f"{before}` ({admit_s:.1f} s) and the laws at the head ({versions} versions in all), measured cold on "
        f"the started cluster (`dask scheduler` + 2 `dask worker`, `--scheduler`): "
        f"{cold.seconds:.1f} s, client {cold.client_mb:.0f} MB, workers {cold.workers_mb:.0f} MB "
        f"above the baseline; the index built in {built_s:.1f} s, the code reconciled in "
        f"{reconciled_s:.1f} s"
    )
    totals = []
    for number in range(1, INCREMENT_RUNS + 1):
        for path in sorted(set(mirror.rglob("*")) - held, reverse=True):  # the last release's
            if path.is_dir():
                path.rmdir()
            else:
                path.unlink()
        shutil.rmtree(folder)
        shutil.copytree(kept, folder)
        add_s = admit_mirror(mirror, fresh=False)
        added = sum(1 for _ in mirror.glob("us-dc/*/*.provenance.json")) - versions
        update_s, said = workbench(
            "update", *measure_args(mirror, folder, "--workers", "2"), *report
        )
        totals.append(add_s + update_s)
        say(
            f"run {number}: the release of {last} ({added} versions): `corpus add` {add_s:.1f} s "
            f"+ `update --workers 2` {update_s:.1f} s = {add_s + update_s:.1f} s (the machine's "
            f"load average over the last minute: {os.getloadavg()[0]:.1f})"
        )
        for line in said.splitlines():
            if line.startswith(("measured:", "search index:", "taken from")):
                say(f"  {line}")
    say(
        f"increment (`corpus add` + `update`), {len(totals)} runs: median "
        f"{statistics.median(totals):.1f} s (min {min(totals):.1f}, max {max(totals):.1f}; "
        "targets: median <= 10 s, max <= 12 s)"
    )


def listings(workspace: Path) -> None:
    import sqlite3

    with sqlite3.connect(workspace) as conn:
        (family,) = conn.execute(
            "SELECT family FROM versions GROUP BY family ORDER BY COUNT(*) DESC, family LIMIT 1"
        ).fetchone()
        version = conn.execute(
            "SELECT version_id FROM versions WHERE family = ? ORDER BY version_order DESC LIMIT 1",
            (family,),
        ).fetchone()[0]
        text = (
            conn.execute("SELECT CAST(text AS BLOB) FROM versions WHERE version_id = ?", (version,))
            .fetchone()[0]
            .decode("utf-8")
        )
    # Eight words as the text holds them: the third to the tenth of its first line of twelve.
    line = next(line for line in text.splitlines() if len(line.split()) >= 12)
    spans = [m.span() for m in re.finditer(r"\S+", line)]
    quote = line[spans[2][0] : spans[9][1]]
    w = ["--workspace", str(workspace)]
    say(f"\nlistings on the whole code's workspace (F = {family}, QUOTE = {quote!r}):")
    index_s, _ = workbench("search", "--reindex", *w, check=False)
    commands = [
        ("families", ["families", *w]),
        ("versions F", ["versions", family, *w]),
        ("review list", ["review", "list", *w]),
        ("history QUOTE --family F", ["history", quote, "--family", family, *w]),
        ("search QUOTE", ["search", quote, *w]),
    ]
    say(f"  {'search --reindex (building the index)':<40} {index_s:>6.2f} s")
    for label, args in commands:
        seconds, out = workbench(*args, check=False)
        shown = out.splitlines()[0] if out.startswith("exit ") else f"{len(out.splitlines())} lines"
        say(f"  {label:<40} {seconds:>6.2f} s  ({shown}; target <= 1 s)")


def reconciliation(mirror: Path) -> None:
    """The whole code reconciled with the laws: the sections' mirror hard-linked beside the laws
    of periods 23-25 (`corpus add --from-git --at-head`), measured once (which admits and
    ingests both), then `workbench reconcile` timed and its summary printed as it prints it."""
    both = OUT / "reconcile" / "mirror"
    if both.exists():
        shutil.rmtree(both)
    shutil.copytree(mirror, both, copy_function=os.link)
    laws_s, _ = workbench(*LAWS, "--into", str(both))
    laws = sum(1 for _ in both.glob("us-dc/dc-law-*/*.provenance.json"))
    folder = fresh(OUT / "reconcile" / "run")
    ingest = measured(*measure_args(both, folder, "--workers", "2"))
    report = folder / "report"
    seconds, out = workbench(
        "reconcile", "--workspace", str(folder / "w.sqlite"), "--out", str(report)
    )
    say(
        f"\nreconciliation: the laws of periods 23-25 added at the head ({laws} laws, "
        f"{laws_s:.1f} s) beside every release's sections; `measure --workers 2` (admission and "
        f"ingest of both) {ingest.seconds:.1f} s; `workbench reconcile --out DIR` "
        f"{seconds:.1f} s, which printed:"
    )
    for line in out.splitlines():
        say(f"  {line.replace(str(report), 'DIR')}")


def engines(local: dict[str, tuple[Path, Path]]) -> None:
    say("\nengines: the SHA-256 of every output file, compared with the `--workers 2` run")
    corpus, folder = local["1/8"]
    serial_folder = fresh(OUT / "runs" / "serial-1-8")
    serial = measured(*measure_args(corpus, serial_folder))
    runs = [("1/8", "serial (in-process)", serial, serial_folder, folder)]
    with started_cluster(OUT / "dask") as (address, pids):
        started_folder = fresh(OUT / "runs" / "started-1-8")
        started = measured(
            *measure_args(corpus, started_folder, "--scheduler", address), watch=pids
        )
        runs.append(("1/8", "dask scheduler + 2 dask workers", started, started_folder, folder))
    for name, engine, result, out, against in runs:
        same = folder_digest(out / "out") == folder_digest(against / "out")
        say(
            f"  {name:>5} {engine:<32} {result.seconds:>7.1f} s  client {result.client_mb:>4.0f} MB "
            f"workers {result.workers_mb:>4.0f} MB  identical: {'yes' if same else 'NO'}"
        )


def main() -> int:
    args = sys.argv[1:]
    if args[:1] == ["--client"]:
        return client_main(Path(args[1]), args[2:])
    options = bench_options(
        __doc__, args, flags=("--quick", "--increment", "--size", "--write-docs")
    )
    if not BUNDLE.is_file():
        print(f"{BUNDLE}: missing (the D.C. Council's repository bundle)", file=sys.stderr)
        return 2
    quick, write = options["--quick"], options["--write-docs"]
    compile_workbench()
    if options["--increment"]:  # the increment alone: its figures are printed, never written
        clone()
        report_to_docs(lambda: increment(release_dates()), "bench:code", False)
        return 0
    if options["--size"]:  # admission and the size step: printed, never written
        report_to_docs(lambda: run(False, False, size=True), "bench:code", False)
        return 0
    report_to_docs(lambda: run(quick, write), "bench:code", write and not quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
