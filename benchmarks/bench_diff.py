"""Diff benchmarks: the cost of narrowing per MB, and `diff_versions` beside older code and git.

Run: `make bench` (or `.venv/bin/python benchmarks/bench_diff.py [--write-docs]`). It prints
figures; it asserts nothing about time. With `--write-docs` the output replaces the block between
the `bench:diff` markers in docs/ (`bench_spine.report_to_docs`; other blocks are kept). Set
`WORKBENCH_WORKSPACE` to a workspace that already holds the catalogue to read its versions as held
instead of ingesting into a temporary one.

1. **Narrowing is never quadratic.** Every consecutive pair of held versions of a family is
   diffed, and of the `modified` pairings, up to `SAMPLES_PER_BUCKET` spread evenly by size
   (smallest and largest included) are taken from each size bucket of `BUCKETS` (both passages'
   UTF-8 bytes together). `diff._narrow` is timed on each: the best of `REPEATS` loops, each
   lasting at least `MIN_LOOP_SECONDS`. Per bucket it prints the median time per call and per
   MB. A call has a fixed cost (two `normalize` calls, two spans), so tiny passages cost more per
   MB; and `normalize` switches at `LONG_TEXT` characters to an array pass with a larger fixed
   cost and a smaller cost per byte, so the table says how many timed sides took that pass.
   Real passages are at most tens of kB, so synthetic pairs extend the series: the largest real
   passage repeated (joined by a space) to half of each of `SYNTHETIC_BYTES` per side, against a
   copy with `INSERTED` put in after the space nearest past the middle. Their narrowed spans are
   printed (0 and len(INSERTED) characters, or the narrowing is wrong), and over them the
   exponent k of a least-squares fit of log time on log size (1 is linear, 2 quadratic).
2. **`diff_versions` against ed912a7 and git.** The largest real version pair is the consecutive
   pair with the most passages (this code's segmentation, both sides together; a tie goes to the
   earlier pair in workspace order). Each code's own `diff_versions` runs end to end in its own
   subprocess on the same version-like objects (version_id, text, jurisdiction, family,
   structure, media_type) read from JSON files, with `PYTHONPATH` naming the code to import: this
   worktree, or ed912a7's `workbench/` extracted by `git archive` into a temporary folder
   (ed912a7 segments without profiles, so the two split the texts differently). Each prints the
   best of `DIFF_REPEATS` runs and the file it imported `workbench` from, which is checked.
   `git diff --no-index --minimal` runs on this code's normalized passages written one per line.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

from bench_spine import ROOT, STORE, bench_options, best_of, report_to_docs, store_missing

from workbench.changes.diff import _narrow, diff_passages
from workbench.corpus.catalogue import read_catalogue
from workbench.models import Passage, Version, consecutive_pairs
from workbench.text.normalize import LONG_TEXT, normalized_text
from workbench.text.segment import segment_version
from workbench.workspace import Workspace, ingest

OLD_COMMIT = "ed912a7"
BUCKETS = ((0, 100), (100, 1_000), (1_000, 10_000), (10_000, 100_000))
SAMPLES_PER_BUCKET = 12
REPEATS = 5
MIN_LOOP_SECONDS = 0.02
SLOPE_FROM_BYTES = 1_000
SYNTHETIC_BYTES = (125_000, 250_000, 500_000, 1_000_000)  # both sides together
DIFF_REPEATS = 3
INSERTED = "not "

# Run in a subprocess with PYTHONPATH naming the code under test, so that `workbench` is that
# code's; it imports nothing from this file, which imports this worktree's workbench.
_HARNESS = """
import json, sys, time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
import workbench
from workbench.changes.diff import diff_versions
from workbench.models import StructureMark

@dataclass(frozen=True)
class VersionLike:
    version_id: str
    text: str
    jurisdiction: str
    family: str
    structure: tuple
    media_type: str

def load(path):
    fields = json.loads(Path(path).read_text(encoding="utf-8"))
    marks = tuple(StructureMark(**{**m, "path": tuple(m["path"])}) for m in fields.pop("structure"))
    return VersionLike(structure=marks, **fields)

before, after, repeats = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3])
timings = []
for _ in range(repeats):
    start = time.perf_counter()
    changes = diff_versions(before, after)
    timings.append(time.perf_counter() - start)
print(json.dumps({"imported": workbench.__file__, "seconds": min(timings),
                  "kinds": Counter(c.kind for c in changes)}))
"""


@dataclass(frozen=True, slots=True, kw_only=True)
class Pairing:
    """A modified pairing of real passages, with both passages' UTF-8 bytes together."""

    before: Passage
    after: Passage
    size: int


def _utf8(text: str) -> int:
    return len(text.encode("utf-8"))


def per_call(func: Callable[[], object]) -> float:
    """Seconds per call of `func`: the best of `REPEATS` loops, each lasting `MIN_LOOP_SECONDS`."""
    once = best_of(1, func)
    number = max(1, math.ceil(MIN_LOOP_SECONDS / max(once, 1e-7)))
    return min(timeit.repeat(func, repeat=REPEATS, number=number)) / number


def _versions() -> tuple[Version, ...]:
    """The versions of `$WORKBENCH_WORKSPACE` as held, else of the catalogue ingested afresh."""
    named = os.environ.get("WORKBENCH_WORKSPACE")
    if named:
        with Workspace(Path(named)) as held:
            return held.versions()
    with tempfile.TemporaryDirectory() as tmp, Workspace(Path(tmp) / "w.sqlite") as held:
        ingest(held, read_catalogue(ROOT / "corpus"), STORE)
        return held.versions()


def diff_corpus(
    versions: Sequence[Version],
) -> tuple[list[Pairing], tuple[Version, Version, int, int], float]:
    """Every modified pairing of consecutive versions, the pair with most passages, the time."""
    started = time.perf_counter()
    pairings: list[Pairing] = []
    largest: tuple[Version, Version, int, int] | None = None
    for a, b in consecutive_pairs(versions):
        passages_a, passages_b = segment_version(a), segment_version(b)
        if largest is None or len(passages_a) + len(passages_b) > sum(largest[2:]):
            largest = (a, b, len(passages_a), len(passages_b))
        by_start_a = {p.char_start: p for p in passages_a}
        by_start_b = {p.char_start: p for p in passages_b}
        for change in diff_passages(a.version_id, b.version_id, passages_a, passages_b):
            if change.kind == "modified" and change.before and change.after:
                pa, pb = by_start_a[change.before.char_start], by_start_b[change.after.char_start]
                pairings.append(Pairing(before=pa, after=pb, size=_utf8(pa.text) + _utf8(pb.text)))
    if largest is None:
        raise SystemExit("no two consecutive held versions of one family: nothing to diff")
    return pairings, largest, time.perf_counter() - started


def _spread(items: Sequence[Pairing], count: int) -> list[Pairing]:
    """Up to `count` items evenly spaced by rank, the first and last included."""
    if len(items) <= count:
        return list(items)
    return [items[round(k * (len(items) - 1) / (count - 1))] for k in range(count)]


def _slope(points: Sequence[tuple[int, float]]) -> float:
    """Least-squares slope of log(seconds) on log(bytes)."""
    xs = [math.log(size) for size, _ in points]
    ys = [math.log(seconds) for _, seconds in points]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mean_x) ** 2 for x in xs
    )


def _synthetic(text: str, target: int) -> tuple[Passage, Passage]:
    """`text` repeated to `target` UTF-8 bytes, and a copy with `INSERTED` at the middle space."""
    repeated = " ".join([text] * max(1, round(target / (_utf8(text) + 1))))
    middle = repeated.find(" ", len(repeated) // 2) + 1
    edited = repeated[:middle] + INSERTED + repeated[middle:]
    before, after = (
        Passage(
            version_id=f"synthetic-{side}",
            ordinal=0,
            char_start=0,
            char_end=len(passage_text),
            text=passage_text,
            section_label=None,
        )
        for side, passage_text in (("before", repeated), ("after", edited))
    )
    return before, after


def bench_narrowing(pairings: list[Pairing], diffing: float, pairs: int) -> None:
    pairings.sort(key=lambda p: p.size)
    print(
        f"1. narrowing (diff._narrow): {len(pairings)} modified pairings in {pairs} consecutive "
        f"version pairs (diffed in {diffing:.1f} s); best of {REPEATS}"
    )
    print(
        f"   sides of {LONG_TEXT:,} characters or more are normalized by the array pass "
        "(a larger fixed cost, a smaller cost per byte)"
    )
    print(
        "   | passages' bytes | pairings | timed | array-pass sides | median bytes "
        "| median us/call | median ms/MB |"
    )
    print("   |---|---|---|---|---|---|---|")
    per_mb: list[float] = []
    for low, high in BUCKETS:
        inside = [p for p in pairings if low <= p.size < high]
        if not inside:
            continue
        chosen = _spread(inside, SAMPLES_PER_BUCKET)
        points = [(p.size, per_call(partial(_narrow, p.before, p.after))) for p in chosen]
        long_sides = sum(
            (len(p.before.text) >= LONG_TEXT) + (len(p.after.text) >= LONG_TEXT) for p in chosen
        )
        per_mb.append(statistics.median(t / s * 1e9 for s, t in points))
        print(
            f"   | {low:,} to {high:,} | {len(inside)} | {len(chosen)} | "
            f"{long_sides} of {2 * len(chosen)} | {statistics.median(s for s, _ in points):,.0f} | "
            f"{statistics.median(t for _, t in points) * 1e6:.1f} | {per_mb[-1]:.0f} |"
        )
    text = max((side for p in pairings for side in (p.before.text, p.after.text)), key=_utf8)
    print(
        f"   synthetic: the largest real passage ({_utf8(text):,} bytes) repeated to each size "
        f"per side, one word ({INSERTED!r}) inserted in the middle of the after side"
    )
    print("   | passages' bytes | us/call | ms/MB | narrowed before, after (characters) |")
    print("   |---|---|---|---|")
    synthetic: list[tuple[int, float]] = []
    for target in SYNTHETIC_BYTES:
        a, b = _synthetic(text, target // 2)
        size = _utf8(a.text) + _utf8(b.text)
        seconds = per_call(partial(_narrow, a, b))
        synthetic.append((size, seconds))
        span_a, span_b = _narrow(a, b)
        print(
            f"   | {size:,} | {seconds * 1e6:,.0f} | {seconds / size * 1e9:.0f} | "
            f"{span_a.char_end - span_a.char_start}, {span_b.char_end - span_b.char_start} |"
        )
    costs = [t / s * 1e9 for s, t in synthetic]
    print(
        f"   real pairings, median ms/MB from the smallest bucket to the largest: "
        f"{' -> '.join(f'{c:.0f}' for c in per_mb)}"
    )
    print(
        f"   synthetic: ms/MB from {costs[0]:.0f} to {costs[-1]:.0f} (highest / lowest "
        f"{max(costs) / min(costs):.2f}); time ~ bytes^k with k = {_slope(synthetic):.2f} "
        "(1 is linear, 2 quadratic)"
    )


def _write_version(version: Version, path: Path) -> None:
    fields = {
        "version_id": version.version_id,
        "text": version.text,
        "jurisdiction": version.jurisdiction,
        "family": version.family,
        "media_type": version.media_type,
        "structure": [asdict(mark) for mark in version.structure],
    }
    path.write_text(json.dumps(fields), encoding="utf-8")


@dataclass(frozen=True, slots=True, kw_only=True)
class DiffRun:
    """One code's `diff_versions` on the pair: its best time and its changes counted by kind."""

    seconds: float
    kinds: tuple[tuple[str, int], ...]

    def counts(self) -> str:
        return ", ".join(f"{kind} {count}" for kind, count in self.kinds)


def _timed_in(code: Path, before: Path, after: Path) -> DiffRun:
    """The harness's report, run with `code` first on PYTHONPATH; refused if it imported other code."""
    # `-P` and a cwd outside the repository: otherwise `python -c` puts the current folder first
    # on sys.path and this worktree's workbench shadows the code named by PYTHONPATH.
    ran = subprocess.run(
        [sys.executable, "-P", "-c", _HARNESS, str(before), str(after), str(DIFF_REPEATS)],
        cwd=before.parent,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(code)},
    )
    if ran.returncode != 0:
        raise SystemExit(f"diff_versions in {code} failed: {ran.stderr.strip().splitlines()[-1]}")
    report = json.loads(ran.stdout)
    imported = Path(report["imported"]).resolve()
    if not imported.is_relative_to(code.resolve()):
        raise SystemExit(f"the harness for {code} imported workbench from {imported}")
    return DiffRun(seconds=float(report["seconds"]), kinds=tuple(sorted(report["kinds"].items())))


def _git_diff(left: Path, right: Path) -> None:
    """`git diff --no-index --minimal` of two files; exit 1 means they differ, above it an error."""
    ran = subprocess.run(
        ["git", "diff", "--no-index", "--minimal", "--no-color", str(left), str(right)],
        capture_output=True,
        check=False,
    )
    if ran.returncode > 1:
        raise SystemExit(f"git diff failed: {ran.stderr.decode(errors='replace').strip()}")


def bench_diff_versions(before: Version, after: Version, count_a: int, count_b: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        old = folder / "old"
        old.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", OLD_COMMIT, "workbench"],
            capture_output=True,
            check=True,
        )
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
        files = folder / "before.json", folder / "after.json"
        _write_version(before, files[0])
        _write_version(after, files[1])
        ours = _timed_in(ROOT, *files)
        theirs = _timed_in(old, *files)
        keys = [
            [normalized_text(p.text) for p in segment_version(version)]
            for version in (before, after)
        ]
        lines = folder / "a.txt", folder / "b.txt"
        for path, passage_keys in zip(lines, keys, strict=True):
            path.write_text("\n".join(passage_keys) + "\n", encoding="utf-8")
        git = best_of(DIFF_REPEATS, partial(_git_diff, *lines))
    size = (_utf8(before.text) + _utf8(after.text)) / 1e6
    print(
        f"2. diff_versions on the largest real version pair (most passages), best of {DIFF_REPEATS}"
    )
    print(f"   {before.version_id} -> {after.version_id}")
    print(f"   {count_a} -> {count_b} passages (this code's segmentation), {size:.2f} MB of text")
    for label, seconds in (
        ("git diff --no-index --minimal (normalized passages)", git),
        (f"diff_versions, {OLD_COMMIT}", theirs.seconds),
        ("diff_versions, this code", ours.seconds),
    ):
        print(f"   {label:<52} {seconds * 1000:8.1f} ms")
    print(
        f"   this code / {OLD_COMMIT}: {ours.seconds / theirs.seconds:.2f}x (target at most 3x); "
        f"this code / git: {ours.seconds / git:.1f}x"
    )
    print(f"   changes, {OLD_COMMIT}: {theirs.counts()}")
    print(f"   changes, this code: {ours.counts()}")


def run() -> None:
    versions = _versions()
    pairings, (before, after, count_a, count_b), diffing = diff_corpus(versions)
    pairs = len(consecutive_pairs(versions))
    bench_narrowing(pairings, diffing, pairs)
    print()
    bench_diff_versions(before, after, count_a, count_b)


def main() -> int:
    options = bench_options(__doc__, sys.argv[1:])
    if store_missing():
        return 2
    report_to_docs(run, "bench:diff", options["--write-docs"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
