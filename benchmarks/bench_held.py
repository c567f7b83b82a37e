"""Held state decoded: what reading a measured workspace's versions, kept parts and kept diffs
costs the code that runs this script.

Run: `.venv/bin/python benchmarks/bench_held.py [--workspace PATH] [--write-docs]`. Without
`--workspace`, it first measures the fetched corpus into a workspace of its own, in a temporary
folder (`workbench measure --workspace ... --out ...`: measurements/ is not touched); with it,
PATH is a workspace `workbench measure` made. It prints figures and asserts nothing; with
`--write-docs` it replaces the `bench:held` block in docs/benchmarks.md. Each time is CPU time
(`time.process_time`, so other processes on a shared machine move it less), the median of 9
runs, printed as a ratio to an anchor (a fixed pure-Python loop) timed in the same process:

- `Workspace.versions()` (every held version) and `Workspace.version()` of the version whose
  stored structure is the longest;
- `held_parts` of the version whose kept parts are the longest (the parts decoded once per
  process are forgotten before each run, so each run decodes them);
- `read_kept` of every kept diff of the family whose kept diffs are the longest;

and the bytes the workspace stores for each: the versions' structure, the kept parts, the kept
diffs, the review queue's pair items. To compare two commits, run each one's code on a workspace
its own `workbench measure` made: put the other commit's package first on the path
(`git archive COMMIT workbench | tar -x -C DIR`, then `PYTHONPATH=DIR` for both).
"""

from __future__ import annotations

import gc
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_spine import bench_options, report_to_docs, store_missing

from workbench.changes import kept
from workbench.workspace import Workspace
from workbench.workspace import parts as kept_parts

RUNS = 9


def _cpu(func: Callable[[], object]) -> float:
    """The median CPU seconds of `RUNS` calls of `func`, each after a full collection (so no run
    pays for what an earlier one left to collect)."""
    times = []
    for _ in range(RUNS):
        gc.collect()
        start = time.process_time()
        func()
        times.append(time.process_time() - start)
    return statistics.median(times)


def _stored(held: Workspace, table: str, columns: tuple[str, ...] = ()) -> int:
    """The bytes `columns` of `table` hold (by default every column but its key and the
    version it is of: the kept parts' one JSON column, or their three); 0 for no table."""
    held_columns = [row[1] for row in held.read(f"PRAGMA table_info({table})")]
    columns = columns or tuple(c for c in held_columns if c not in ("key", "version_id"))
    if not held_columns:
        return 0
    sums = " + ".join(f"coalesce(sum(length(CAST({c} AS BLOB))), 0)" for c in columns)
    return int(held.read(f"SELECT {sums} FROM {table}")[0][0])


def run(path: Path) -> None:
    with Workspace(path, create=False) as held:
        anchor = _cpu(lambda: sum(i * i for i in range(300_000)))
        ((marked,),) = held.read(
            "SELECT version_id FROM versions ORDER BY length(structure) DESC LIMIT 1"
        )
        parted = max(held.rows(f"SELECT * FROM {kept_parts.TABLE}"), key=lambda row: len(str(row)))
        version = held.version(parted[1])
        (family,) = held.read(
            f"SELECT jurisdiction, family FROM {kept.TABLE} GROUP BY jurisdiction, family "
            "ORDER BY sum(length(changes) + length(unchanged)) DESC LIMIT 1"
        )
        keys = [
            key
            for (key,) in held.read(
                f"SELECT diff_key FROM {kept.TABLE} WHERE jurisdiction = ? AND family = ?", family
            )
        ]

        def parts() -> object:
            kept_parts._decoded.cache_clear()
            return kept_parts.held_parts(held, version)

        timed = {
            "versions()": _cpu(held.versions),
            f"version({marked})": _cpu(lambda: held.version(marked)),
            f"held_parts({version.version_id})": _cpu(parts),
            f"read_kept({family[1]}, {len(keys)} pairs)": _cpu(lambda: kept.read_kept(held, keys)),
        }
        print(f"anchor: {anchor * 1000:.1f} ms CPU (median of {RUNS})")
        for name, seconds in timed.items():
            print(f"{name}: {seconds / anchor:.2f} anchors ({seconds * 1000:.1f} ms)")
        stored = {
            "versions' structure": _stored(held, "versions", ("structure",)),
            "kept parts": _stored(held, kept_parts.TABLE),
            "kept diffs": _stored(held, kept.TABLE, ("changes", "unchanged")),
            "review queue's pair items": _stored(held, "review_pairs", ("items",)),
        }
        for name, size in stored.items():
            print(f"stored {name}: {size} bytes")


def measured(folder: Path) -> Path:
    """A workspace in `folder` holding the fetched corpus as `workbench measure` leaves it."""
    workspace, out = folder / "workspace.sqlite", folder / "measurements"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench",
            "measure",
            "--workspace",
            str(workspace),
            "--out",
            str(out),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return workspace


def main() -> int:
    options = bench_options(__doc__, sys.argv[1:], flags=("--write-docs",), valued=("--workspace",))
    if options["--workspace"] is not None:
        report_to_docs(
            lambda: run(Path(options["--workspace"])), "bench:held", options["--write-docs"]
        )
        return 0
    if store_missing():
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        workspace = measured(Path(tmp))
        report_to_docs(lambda: run(workspace), "bench:held", options["--write-docs"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
