"""Scale benchmark: the measurement map on a corpus replicated 1x, 10x and 50x, serial vs 2 workers.

Run: `make bench` (or `.venv/bin/python benchmarks/bench_scale.py [--scales 1,10,50]
[--write-docs]`). For each scale it builds a synthetic mirror-layout corpus in a temporary folder
by replicating every catalogued family of the fetched corpus under new family names
(`<family>-r00`, `<family>-r01`, ...): the documents are hard links (same bytes, same SHA-256), the
provenance is rewritten with the new family name. It then times the map (read, hash-check,
extract, parse and diff every family: `cluster.map_tasks`) serially in a fresh process and on a
fresh local Dask cluster of 2 single-threaded workers, and prints seconds, seconds per MB, the peak
resident memory of the serial process and the largest peak among the workers, and the workers'
largest resident memory once the map is done ("steady"). Cluster start-up is timed apart from the
map. It also prints the pickled size of all the families' results (their summaries: what the
client receives; `workbench measure` spills each as it arrives and holds none) and whether the
two runs' results are equal. It asserts nothing about time.

A peak is the kernel's high water mark of the process's own memory (`VmHWM` in
`/proc/self/status`; `ru_maxrss` where there is no /proc). Not `ru_maxrss` on Linux: it survives
fork and exec, so a process spawned by a larger one (each Dask worker is spawned by its nanny in
this process, the serial run by a process pool here) reports its parent's peak when that is higher,
and this process grows with the scale (it holds both runs' results).

The held text hashes the workers check against come from one ingest of the real corpus: a replica
has the same bytes, so the same text.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import resource
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench_spine import ROOT, STORE, bench_options, report_to_docs, store_missing

from workbench.corpus import read_catalogue
from workbench.corpus.provenance import PROVENANCE_SUFFIX
from workbench.derived import code_digest
from workbench.measure.cluster import dask_client, map_tasks
from workbench.measure.tasks import FamilyTask, TaskResult, family_tasks, held_text_hashes
from workbench.models import CatalogueRow
from workbench.workspace import Workspace, ingest

SCALES = (1, 10, 50)


def _proc_status_mb(field: str) -> float | None:
    """A memory field of /proc/self/status (reported in kB), in MB; None without /proc."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(field.encode("ascii") + b":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def peak_rss_mb() -> float:
    """This process's own peak resident memory, in MB (see the module docstring on ru_maxrss)."""
    peak = _proc_status_mb("VmHWM")
    if peak is not None:
        return peak
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux and BSD


def resident_mb() -> float:
    """This process's resident memory now, in MB (0 where there is no /proc)."""
    return _proc_status_mb("VmRSS") or 0.0


def replicate(rows: tuple[CatalogueRow, ...], scale: int, root: Path) -> list[CatalogueRow]:
    """Hard-link every row's file `scale` times under new family names; the replicas' rows."""
    replicas = []
    for k in range(scale):
        for row in rows:
            family = f"{row.family}-r{k:02d}"
            path = f"{row.jurisdiction}/{family}/{row.path.rsplit('/', 1)[1]}"
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            os.link(STORE / row.path, target)
            provenance = {**row.provenance, "document_family": family}
            sidecar = json.dumps(provenance, indent=2, ensure_ascii=False) + "\n"
            target.with_name(target.name + PROVENANCE_SUFFIX).write_bytes(sidecar.encode("utf-8"))
            replicas.append(CatalogueRow.of(path, provenance))
    return replicas


def _collect(tasks: tuple[FamilyTask, ...], client: Any = None) -> list[TaskResult]:
    """The map's results, in task order (the benchmark holds them to compare; a run does not)."""
    results: list[TaskResult] = []
    map_tasks(tasks, results.append, client=client)
    return sorted(results, key=lambda r: (r.jurisdiction, r.family))


def serial_map(tasks: tuple[FamilyTask, ...]) -> tuple[float, float, list[TaskResult]]:
    """Run in a fresh process: seconds, peak MB and the results of the in-process map."""
    start = time.perf_counter()
    results = _collect(tasks)
    return time.perf_counter() - start, peak_rss_mb(), results


def run(scales: tuple[int, ...]) -> None:
    rows = read_catalogue(ROOT / "corpus")
    with tempfile.TemporaryDirectory() as tmp, Workspace(Path(tmp) / "w.sqlite") as held:
        ingest(held, rows, STORE)
        hashes = held_text_hashes(held)
        text_by_artefact = {row.sha256: hashes[row.path] for row in rows if row.path in hashes}
    rows = tuple(r for r in rows if r.sha256 in text_by_artefact)
    print(
        f"the map (read + sha256 check + extract + parse + diff) on the real corpus replicated; "
        f"{len(rows)} held documents per replica"
    )
    print(
        f"{'scale':>5} {'docs':>6} {'MB':>7} | {'serial s':>8} {'s/MB':>6} {'peak MB':>7} "
        f"{'results MB':>10} | {'2 workers s':>11} {'s/MB':>6} {'peak MB/worker':>14} "
        f"{'steady MB':>9} {'start s':>7} | speed-up  same"
    )
    for scale in scales:
        with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
            replicas = replicate(rows, scale, Path(tmp))
            held_map = {r.path: text_by_artefact[r.sha256] for r in replicas}
            tasks = family_tasks(replicas, Path(tmp), held_map)
            megabytes = sum(r.size for r in replicas) / 1e6
            spawn = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as pool:
                serial_s, serial_peak, serial = pool.submit(serial_map, tasks).result()
            t0 = time.perf_counter()
            with dask_client(workers=2) as client:
                t1 = time.perf_counter()
                # The digest of the code as installed now, as a fresh `workbench measure` would send.
                code_digest.cache_clear()
                digest = code_digest()
                tasks = tuple(replace(task, code_digest=digest) for task in tasks)
                results = _collect(tasks, client)
                t2 = time.perf_counter()
                peaks = client.run(peak_rss_mb)
                steady = client.run(resident_mb)
            held = sum(len(pickle.dumps(result)) for result in serial) / 1e6
            print(
                f"{scale:>4}x {len(replicas):>6} {megabytes:>7.1f} | {serial_s:>8.1f} "
                f"{serial_s / megabytes:>6.3f} {serial_peak:>7.0f} {held:>10.1f} | "
                f"{t2 - t1:>11.1f} {(t2 - t1) / megabytes:>6.3f} {max(peaks.values()):>14.0f} "
                f"{max(steady.values()):>9.0f} {t1 - t0:>7.1f} | "
                f"{serial_s / (t2 - t1):>7.2f}x  {'yes' if results == serial else 'NO'}"
            )


def main() -> int:
    options = bench_options(__doc__, sys.argv[1:], valued=("--scales",))
    scales = SCALES
    if options["--scales"]:
        try:
            scales = tuple(int(s) for s in options["--scales"].split(","))
        except ValueError:
            print(f"--scales {options['--scales']}: expected numbers, e.g. 1,10", file=sys.stderr)
            return 2
    if store_missing():
        return 2
    report_to_docs(lambda: run(scales), "bench:scale", options["--write-docs"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
