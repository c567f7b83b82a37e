"""Citation verification report and benchmark: hyphen census, corruption suite, batch speed.

Run: `.venv/bin/python benchmarks/bench_cite.py [--write-docs]`. It ingests the fetched corpus
into a temporary workspace, prints figures (speed as ratios against a baseline run in the same
process; nothing is asserted about time) and, with `--write-docs`, replaces the block between the
`bench:cite` markers in docs/ with what it printed.

1. Line-break hyphens in held text, by the reading their own document supports.
2. The corruption suite: probes by kind, and how many got the right outcome for the right reason,
   plus the altered-stored-text probe on a copy of the workspace.
3. In a fresh process that only opens the workspace (as `workbench verify` does), on the largest
   held version and 10,000 real citations (word-aligned slices of its passages,
   40 to 300 characters): the cold cache build (what a cache miss adds: normalize + skeleton +
   q-gram index; median of five builds; the text's SHA-256, which every batch computes to check
   the version whether the cache is warm or cold, is timed on its own), the batch path
   (`verify_citations`: stored text hashed once, copied quotes decided by array passes, occurrences
   looked up in one array pass, qualifier scan included), the general path alone on the same
   citations (what a quote that is not the raw text at its offsets gets), and the baseline — per
   citation, normalize the slice and the quote and `str.count` the quote in the cached normalized
   text. The batch and the scan take turns (seven of each), and the ratio is the median of the
   seven paired ratios, so that each compares runs made at the same time. Pages faulted in are
   counted per call (`ru_minflt`).
"""

from __future__ import annotations

import contextlib
import io
import os
import platform
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from bench_spine import replace_docs_block

from workbench.cite import Citation, verify_citations
from workbench.cite.index import build_index, clear_cache, source_index
from workbench.cite.probes import corruption_probes, hyphen_census
from workbench.cite.verify import _verify_general, qualifier_matches
from workbench.corpus import read_catalogue
from workbench.normalize import Segments, normalize, normalized_text
from workbench.segment import segment
from workbench.store import Workspace, ingest, text_sha256

ROOT = Path(__file__).resolve().parents[1]
STORE = ROOT / "corpus" / "real"


def census(held: Workspace) -> None:
    versions = held.versions()
    counts = hyphen_census(versions)
    print(f"1. line-break hyphens in {len(versions)} held versions: {sum(counts.values())}")
    for name, count in counts.most_common():
        print(f"   {name:<32} {count:6d}")


def corruption(held: Workspace, tmp: Path) -> None:
    probes = corruption_probes(held.versions())
    results = verify_citations(held, [p.citation for p in probes])
    total: Counter[str] = Counter()
    right: Counter[str] = Counter()
    for probe, result in zip(probes, results, strict=True):
        total[probe.kind] += 1
        right[probe.kind] += (result.reason or "verified") == probe.expected
    copy = tmp / "altered.sqlite"
    with sqlite3.connect(held.path) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    honest = [p.citation for p in probes if p.kind == "honest quote"][:50]
    with sqlite3.connect(copy) as raw:
        raw.execute("DROP TRIGGER versions_append_only_update")
        for version_id in {c.version_id for c in honest}:
            raw.execute(
                "UPDATE versions SET text = text || ' ' WHERE version_id = ?", (version_id,)
            )
    with Workspace(copy) as altered:
        changed = verify_citations(altered, honest)
    total["stored text altered"] = len(changed)
    right["stored text altered"] = sum(r.reason == "source_changed" for r in changed)
    print(f"2. corruption suite: {sum(total.values())} probes, {sum(right.values())} right")
    print(f"   {'kind':<40} {'probes':>7} {'right':>7}")
    for kind in sorted(total):
        print(f"   {kind:<40} {total[kind]:7d} {right[kind]:7d}")


def real_citations(version_id: str, text: str, count: int) -> list[Citation]:
    rng = random.Random(20261130)
    passages = [p for p in segment(version_id, text) if len(p.text) >= 60]
    citations = []
    while len(citations) < count:
        p = rng.choice(passages)
        spaces = [i for i, ch in enumerate(p.text) if ch == " "]
        if len(spaces) < 4:
            continue
        a, b = sorted(rng.sample(spaces, 2))
        if not 40 <= b - a <= 300:
            continue
        start, end = p.char_start + a + 1, p.char_start + b
        citations.append(
            Citation(
                version_id=version_id,
                char_start=start,
                char_end=end,
                quoted_text=text[start:end],
                occurrence=1,
            )
        )
    return citations


def _faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _seconds(work: Callable[[], object], runs: int = 5) -> tuple[float, float, int]:
    """Median and best wall time of `runs` calls (the best shows what the machine's neighbours
    took from the median), and the median count of pages faulted in per call. What a call returns
    is held until the clock stops: freeing it is its receiver's, whenever that drops it."""
    times = []
    faults = []
    for _ in range(runs):
        before = _faults()
        started = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - started)
        faults.append(_faults() - before)
        del result
    return statistics.median(times), min(times), int(statistics.median(faults))


def _median_seconds(work: Callable[[], object], runs: int = 5) -> float:
    """Median wall time of `runs` calls (a build in each: nothing is cached between them)."""
    return _seconds(work, runs)[0]


# Batches timed, each next to a scan: the ratio printed is the median of as many.
PAIRS = 11


def speed(held: Workspace, kept: bool) -> None:
    version = max(held.versions(), key=lambda v: len(v.text))
    text = version.text
    citations = real_citations(version.version_id, text, 10_000)
    megabytes = len(text.encode("utf-8")) / 1e6
    normalizing = _median_seconds(lambda: normalize(text))
    hashing = _median_seconds(lambda: text_sha256(held.text_bytes(version.version_id)[0]))
    sha256 = text_sha256(text)
    cold, cold_best, cold_faults = _seconds(lambda: build_index(text, sha256), runs=15)
    index = build_index(text, sha256)
    clear_cache()
    qualifiers = _median_seconds(lambda: (index.derived.clear(), qualifier_matches(index)))
    lookups = _median_seconds(
        lambda: (index.derived.clear(), index.norm_lookup(), index.raw_lookup())
    )
    as_tuples = _median_seconds(lambda: Segments(arrays=index.normalized.segments.arrays).tuples)
    verify_citations(held, citations[:1])  # warm the cache: the batch path runs on a held version
    results = verify_citations(held, citations)
    cached = source_index(text, sha256)
    general = _median_seconds(lambda: _verify_general(cached, citations), runs=3)
    folded = index.normalized.text
    sample = citations[:1000]

    def per_citation_scan() -> None:
        for c in sample:
            quote = normalized_text(c.quoted_text)
            _ = normalized_text(text[c.char_start : c.char_end]) == quote and folded.count(quote)

    # The batch and the scan take turns, so that each ratio compares runs made at the same time
    # (this machine's speed drifts over seconds).
    batches, scans, faults = [], [], []
    for _ in range(PAIRS):
        batch_once, _, batch_faults = _seconds(lambda: verify_citations(held, citations), runs=1)
        batches.append(batch_once)
        faults.append(batch_faults)
        scans.append(_seconds(per_citation_scan, runs=1)[0] / len(sample) * len(citations))
    ratios = [scan_once / batch_once for scan_once, batch_once in zip(scans, batches, strict=True)]
    batch, scan = statistics.median(batches), statistics.median(scans)
    cold_line = (
        f"   cold cache build:           {cold * 1e3:7.1f} ms  {megabytes / cold:6.1f} MB/s "
        f"(median of 15 builds; best {megabytes / cold_best:.1f} MB/s; {cold_faults} pages "
        "faulted in per build)"
    )
    scan_line = (
        f"   per-citation str.count scan: {len(citations) / scan:9.0f} citations/s "
        f"(median of {PAIRS} runs on {len(sample)})"
    )
    batch_line = (
        f"   batch path (hash once):      {len(citations) / batch:9.0f} citations/s "
        f"(median of {PAIRS} batches, each run next to a scan; {statistics.median(ratios):.1f}x "
        f"the scan, median of the {PAIRS} ratios, which run from {min(ratios):.1f}x to "
        f"{max(ratios):.1f}x; "
        f"{int(statistics.median(faults))} pages faulted in per batch)"
    )
    if not kept:
        print(
            "   the same in a process with the C library's default allocator (a program that "
            "did not call keep_freed_memory):"
        )
        print(cold_line, scan_line, batch_line, sep="\n")
        return
    outcomes = Counter(r.reason or "verified" for r in results)
    print(f"3. batch verification, {version.version_id}")
    print(f"   {len(text)} characters, {megabytes:.2f} MB; {len(citations)} real citations")
    print(f"   outcomes: {', '.join(f'{k} {v}' for k, v in sorted(outcomes.items()))}")
    print("   in a process that keeps freed memory for reuse, as `workbench` runs:")
    print(cold_line + f"; normalize() alone {normalizing * 1e3:.1f} ms")
    print(
        f"   qualifier word list:        {qualifiers * 1e3:7.1f} ms  {megabytes / qualifiers:6.1f} MB/s "
        "(with the sentence ends near its words; built on a version's first verified quote, "
        "cached with its index)"
    )
    print(
        f"   segment start look-ups:     {lookups * 1e3:7.1f} ms  {megabytes / lookups:6.1f} MB/s "
        "(normalized and raw; built on a version's first batch, cached with its index)"
    )
    print(
        f"   segment map as tuples:      {as_tuples * 1e3:7.1f} ms  {megabytes / as_tuples:6.1f} MB/s "
        "(for the per-citation path's binary searches; made on first use, kept with the map)"
    )
    print(
        f"   stored bytes read and hashed (every batch): {hashing * 1e3:5.1f} ms  "
        f"{megabytes / hashing:6.1f} MB/s"
    )
    print(scan_line, batch_line, sep="\n")
    print(
        f"   general path alone:          {len(citations) / general:9.0f} citations/s "
        f"({scan / general:.1f}x the scan; median of 3; what a quote not copied from the text gets)"
    )


def run() -> None:
    print(
        f"python {sys.version.split()[0]}, {platform.machine()}, {os.cpu_count()} cores; one run\n"
    )
    with tempfile.TemporaryDirectory() as tmp, Workspace(Path(tmp) / "w.sqlite") as held:
        ingest(held, read_catalogue(ROOT / "corpus"), STORE)
        census(held)
        print()
        corruption(held, Path(tmp))
        print()
        # Section 3 runs in a fresh process that only opens the workspace, as `workbench verify`
        # does; the cold build is timed again here, in the process that ran sections 1 and 2
        # (a long session's state), and printed after it.
        for mode in ("--default-allocator",):
            fresh = subprocess.run(
                [sys.executable, __file__, "--speed", str(held.path), mode],
                capture_output=True,
                text=True,
                check=True,
            )
            print(fresh.stdout, end="")
        version = max(held.versions(), key=lambda v: len(v.text))
        sha256 = text_sha256(version.text)
        megabytes = len(version.text.encode("utf-8")) / 1e6
        cold = _median_seconds(lambda: build_index(version.text, sha256))
        print(
            f"   cold cache build in the process that ran sections 1 and 2: {cold * 1e3:.1f} ms, "
            f"{megabytes / cold:.1f} MB/s (median of 5; default allocator)"
        )


def main() -> int:
    if sys.argv[1:2] == ["--speed"]:
        kept = False  # the workbench sets no allocator option: every run uses the defaults
        with Workspace(Path(sys.argv[2])) as held:
            speed(held, kept)
        return 0
    if not STORE.is_dir():
        print("corpus/real is missing: run 'make fetch' first", file=sys.stderr)
        return 2
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        run()
    print(buffer.getvalue(), end="")
    if "--write-docs" in sys.argv[1:]:
        replace_docs_block(
            "bench:cite",
            ".venv/bin/python benchmarks/bench_cite.py --write-docs",
            buffer.getvalue(),
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
