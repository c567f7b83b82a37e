"""Citation verification report and benchmark: hyphen census, corruption suite, batch speed.

Run: `.venv/bin/python benchmarks/bench_cite.py [--write-docs]`. It ingests the fetched corpus
into a temporary workspace, prints figures (speed as ratios against a baseline run in the same
process; nothing is asserted about time) and, with `--write-docs`, replaces the block between the
`bench:cite` markers in docs/ with what it printed.

1. Line-break hyphens in held text, by the reading their own document supports.
2. The corruption suite: probes by kind, and how many got the right outcome for the right reason,
   plus the altered-stored-text probe on a copy of the workspace.
3. In a fresh process that only opens the workspace (as `workbench verify` does), on the largest
   held version and 10,000 real citations (word-aligned slices of its passages, 40 to 300
   characters): the cold index build (what a cache miss adds: normalize, skeleton and the anchor
   table; median of five builds), the stored text read and hashed (every batch does it), the batch
   (`verify_citations`: the text hashed once, the cached index, then the one rule per citation,
   qualifier scan included), and the baseline: per citation, normalize the slice and the quote
   and `str.count` the quote in the cached normalized text. The batch and the scan take turns,
   and the ratio printed is the median of the paired ratios, so that each compares runs made at
   the same time.
"""

from __future__ import annotations

import contextlib
import io
import os
import platform
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from bench_spine import bench_options, replace_docs_block, store_missing

from workbench.cite import Citation, verify_citations
from workbench.cite.index import build_index
from workbench.corpus.catalogue import read_catalogue
from workbench.evals.probes import corruption_probes, held_markers, hyphen_census, outcome
from workbench.models import text_sha256
from workbench.text.normalize import normalize, normalized_text
from workbench.text.segment import segment
from workbench.workspace import Workspace, ingest

ROOT = Path(__file__).resolve().parents[1]
STORE = ROOT / "corpus" / "real"


def census(held: Workspace) -> None:
    versions = held.versions()
    counts = hyphen_census(versions)
    print(f"1. line-break hyphens in {len(versions)} held versions: {sum(counts.values())}")
    for name, count in counts.most_common():
        print(f"   {name:<32} {count:6d}")


def corruption(held: Workspace, tmp: Path) -> None:
    versions = held.versions()
    probes = corruption_probes(versions, markers=held_markers(held, versions))
    results = verify_citations(held, [p.citation for p in probes])
    total: Counter[str] = Counter()
    right: Counter[str] = Counter()
    for probe, result in zip(probes, results, strict=True):
        total[probe.kind] += 1
        right[probe.kind] += outcome(result) == probe.expected
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


def _seconds(work: Callable[[], object], runs: int = 5) -> float:
    """Median wall time of `runs` calls."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


# Batches timed, each next to a scan: the ratio printed is the median of as many.
PAIRS = 7


def speed(held: Workspace) -> None:
    version = max(held.versions(), key=lambda v: len(v.text))
    text = version.text
    citations = real_citations(version.version_id, text, 10_000)
    megabytes = len(text.encode("utf-8")) / 1e6
    normalizing = _seconds(lambda: normalize(text))
    hashing = _seconds(lambda: text_sha256(held.text_bytes(version.version_id)[0]))
    cold = _seconds(lambda: build_index(text, text_sha256(text)))
    results = verify_citations(held, citations)  # builds and caches the index
    folded = normalize(text).text
    sample = citations[:1000]

    def per_citation_scan() -> None:
        for c in sample:
            quote = normalized_text(c.quoted_text)
            _ = normalized_text(text[c.char_start : c.char_end]) == quote and folded.count(quote)

    batches, scans = [], []
    for _ in range(PAIRS):
        batches.append(_seconds(lambda: verify_citations(held, citations), runs=1))
        scans.append(_seconds(per_citation_scan, runs=1) / len(sample) * len(citations))
    ratios = [scan / batch for scan, batch in zip(scans, batches, strict=True)]
    batch, scan = statistics.median(batches), statistics.median(scans)
    outcomes = Counter(r.reason or "verified" for r in results)
    print(f"3. batch verification, {version.version_id}")
    print(f"   {len(text)} characters, {megabytes:.2f} MB; {len(citations)} real citations")
    print(f"   outcomes: {', '.join(f'{k} {v}' for k, v in sorted(outcomes.items()))}")
    print(
        f"   cold index build:             {cold * 1e3:7.1f} ms  {megabytes / cold:6.1f} MB/s "
        f"(median of 5; normalize() alone {normalizing * 1e3:.1f} ms)"
    )
    print(
        f"   stored bytes read and hashed: {hashing * 1e3:7.1f} ms  {megabytes / hashing:6.1f} MB/s "
        "(every batch)"
    )
    print(
        f"   per-citation str.count scan:  {len(citations) / scan:9.0f} citations/s "
        f"(median of {PAIRS} runs on {len(sample)})"
    )
    print(
        f"   batch (hash once, the rule per citation): {len(citations) / batch:9.0f} citations/s "
        f"(median of {PAIRS} batches, each next to a scan)"
    )
    print(
        f"   batch / scan: {statistics.median(ratios):.1f}x (median of the {PAIRS} paired ratios, "
        f"which run from {min(ratios):.1f}x to {max(ratios):.1f}x)"
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
        # does (a cold cache, no state left by sections 1 and 2).
        fresh = subprocess.run(
            [sys.executable, __file__, "--speed", str(held.path)],
            capture_output=True,
            text=True,
            check=True,
        )
        print(fresh.stdout, end="")


def main() -> int:
    if sys.argv[1:2] == ["--speed"]:
        with Workspace(Path(sys.argv[2])) as held:
            speed(held)
        return 0
    options = bench_options(__doc__, sys.argv[1:])
    if store_missing():
        return 2
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        run()
    print(buffer.getvalue(), end="")
    if options["--write-docs"]:
        replace_docs_block(
            "bench:cite",
            ".venv/bin/python benchmarks/bench_cite.py --write-docs",
            buffer.getvalue(),
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
