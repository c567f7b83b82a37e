"""OCR benchmark: the engine's throughput, and what the filer's scan costs at ingest, cold and warm.

Run: `make bench` (or `.venv/bin/python benchmarks/bench_ocr.py [--write-docs]`). The us-tx
filer's scan (23 pages: a drawn cover page and 22 scanned pages, several of them landscape
tables) is ingested three times, each timed in CPU seconds (process time of the workbench and of
the tesseract child processes it runs, since this machine is shared and CPU time is what OCR
costs) and in wall seconds:

1. cold: a new workspace and an empty OCR cache (every scanned page rendered, set upright by
   tesseract's orientation detection and read);
2. warm cache: a new workspace, the OCR cache the cold run filled (what a re-check, a bundle
   check or a Dask worker pays: the PDF is extracted again, no page is read by the engine);
3. warm ingest: the same workspace again (nothing is extracted: the version is held).

The engine's throughput is the scanned pages over the engine processes' CPU seconds in the cold
run, pages per CPU second, which is per core: the engine runs single-threaded
(`OMP_THREAD_LIMIT=1`). Beside it, the commission's copy of the same response (24 pages with the
commission's own OCR layer, no page read by us) extracted once. It asserts nothing about time.
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_spine import ROOT, STORE, bench_options, report_to_docs, store_missing

from workbench.corpus.catalogue import read_catalogue
from workbench.models import CatalogueRow
from workbench.text.ocr import engine_build
from workbench.workspace import Workspace, ingest

TX = "us-tx/puct-49421-item80-cehe-response-to-tiec-rfi-set1/"
SCAN = TX + "v1_cehe-filer-copy_D49421-CEHE-Response-to-TIEC-1st-RFIs.pdf"
COMMISSION = TX + "v2_puct-interchange_49421_80_1016841.PDF"


def _timed(work: Callable[[], object]) -> tuple[float, float, float]:
    """(CPU seconds of this process, CPU seconds of its finished children, wall seconds)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    own, wall = time.process_time(), time.perf_counter()
    work()
    done = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = (done.ru_utime + done.ru_stime) - (children.ru_utime + children.ru_stime)
    return time.process_time() - own, child, time.perf_counter() - wall


def run() -> None:
    rows = {r.path: r for r in read_catalogue(ROOT / "corpus")}
    scan, commission = rows[SCAN], rows[COMMISSION]
    print(f"engine: {engine_build().identity('eng')}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cache = folder / "ocr-cache"

        def ingest_into(workspace: Path, row: CatalogueRow) -> Callable[[], object]:
            def work() -> object:
                with Workspace(workspace) as held:
                    report = ingest(held, [row], STORE, ocr_cache=cache)
                    assert not report.refused, report.refused
                    return report

            return work

        cold = _timed(ingest_into(folder / "cold.sqlite", scan))
        with Workspace(folder / "cold.sqlite") as held:
            version = held.version(SCAN)
        assert version.origin is not None
        scanned = sum(p.ocr is not None for p in version.origin.pages)
        warm_cache = _timed(ingest_into(folder / "warm.sqlite", scan))
        warm = _timed(ingest_into(folder / "warm.sqlite", scan))
        layer = _timed(ingest_into(folder / "commission.sqlite", commission))
        with Workspace(folder / "commission.sqlite") as held:
            layer_pages = len(held.version(COMMISSION).pages)
        pages = len(version.pages)
    print(
        f"\nthe filer's scan: {pages} pages, {scanned} read by OCR; "
        f"{scan.size / 1e6:.1f} MB; CPU seconds (workbench + engine) and wall seconds"
    )
    for name, (own, child, wall) in (
        ("cold (new workspace, empty OCR cache)", cold),
        ("warm cache (new workspace, cache full)", warm_cache),
        ("warm ingest (the same workspace again)", warm),
    ):
        print(
            f"   {name:<40} {own:6.2f} + {child:6.2f} = {own + child:6.2f} s CPU  {wall:6.2f} s wall"
        )
    print(
        f"   warm cache / cold: {(warm_cache[0] + warm_cache[1]) / (cold[0] + cold[1]):.3f}; "
        f"the engine {'did not run' if warm_cache[1] < 0.05 * cold[1] else 'RAN AGAIN'} "
        "on a warm cache"
    )
    print(
        f"\nOCR throughput: {scanned} pages in {cold[1]:.2f} engine CPU seconds = "
        f"{scanned / cold[1]:.2f} pages per CPU second (one core each: single-threaded); "
        f"rendering and reading the words back add {cold[0] - warm_cache[0]:.2f} s in the workbench"
    )
    own, child, wall = layer
    print(
        f"the commission's copy ({layer_pages} pages, its own OCR layer, no page read by us): "
        f"{own + child:.2f} s CPU, {wall:.2f} s wall"
    )


def main() -> int:
    options = bench_options(__doc__, sys.argv[1:])
    if store_missing():
        return 2
    report_to_docs(run, "bench:ocr", options["--write-docs"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
