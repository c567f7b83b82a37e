"""Spine benchmarks: admission + ingest throughput, passage diff, and change narrowing.

Run: `make bench` (or `.venv/bin/python benchmarks/bench_spine.py [--write-docs]`). It prints
figures and ratios against a baseline run in the same process; it asserts nothing about time. With
`--write-docs` it also replaces the block between the `bench:spine` markers in docs/ with what
it printed, so the docs' figures are always the code's own output.

1. Admission + ingest of the whole fetched corpus, MB/s, beside `hashlib.sha256` over the same bytes
   (the floor: admission must at least hash every byte).
2. The passage diff of the largest real version pair, beside `git diff --no-index --minimal` over
   the same normalized passage lists (one passage per line), and beside a single plain difflib run.
3. Narrowing every modified pair of that diff to its changed characters: rapidfuzz Indel opcodes
   beside difflib `SequenceMatcher(autojunk=False)` on the same pairs, with the edit characters
   each reports (fewer is more minimal).
"""

from __future__ import annotations

import compileall
import contextlib
import hashlib
import importlib.util
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from difflib import SequenceMatcher
from pathlib import Path
from types import ModuleType
from typing import Any

from rapidfuzz.distance import Indel

from workbench.changes.diff import _matching_pairs, diff_versions
from workbench.corpus import admit, read_catalogue
from workbench.models import Version, consecutive_pairs
from workbench.text.normalize import normalized_text
from workbench.text.segment import segment
from workbench.workspace import Workspace, ingest

ROOT = Path(__file__).resolve().parents[1]
STORE = ROOT / "corpus" / "real"


def best_of(runs: int, func: Callable[[], object]) -> float:
    """Fastest of `runs` wall-clock timings, in seconds."""
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        func()
        timings.append(time.perf_counter() - start)
    return min(timings)


def bench_admission_and_ingest() -> None:
    rows = read_catalogue(ROOT / "corpus")
    data = [(STORE / r.path).read_bytes() for r in rows]
    megabytes = sum(map(len, data)) / 1e6
    floor = best_of(3, lambda: [hashlib.sha256(d).hexdigest() for d in data])

    def admit_and_ingest(media: str | None = None) -> None:
        with tempfile.TemporaryDirectory() as tmp, Workspace(Path(tmp) / "w.sqlite") as held:
            admission = admit(STORE)
            chosen = [
                r
                for r in admission.rows
                if media is None or (r.media_type == "application/pdf") == (media == "pdf")
            ]
            ingest(held, chosen, STORE)

    whole = best_of(3, admit_and_ingest)
    text_only = best_of(3, lambda: admit_and_ingest("text"))
    text_mb = sum(r.size for r in rows if r.media_type != "application/pdf") / 1e6
    print("1. admission + ingest, whole fetched corpus")
    print(f"   corpus: {len(rows)} documents, {megabytes:.1f} MB")
    print(f"   hashlib.sha256 floor:   {floor:7.3f} s  {megabytes / floor:8.1f} MB/s")
    print(
        f"   admit + ingest:         {whole:7.3f} s  {megabytes / whole:8.1f} MB/s  ({whole / floor:.1f}x the floor)"
    )
    print(
        f"   of which text and XML:  {text_only:7.3f} s  {text_mb / text_only:8.1f} MB/s  "
        "(admission of every file, extraction of the non-PDF ones)"
    )


def largest_pair(held: Workspace) -> tuple[Version, Version]:
    versions = held.versions()
    pairs = consecutive_pairs(versions)
    return max(pairs, key=lambda p: len(p[0].text) + len(p[1].text))


def bench_diff_and_narrowing(held: Workspace) -> None:
    before, after = largest_pair(held)
    keys_a = [normalized_text(p.text) for p in segment(before.version_id, before.text)]
    keys_b = [normalized_text(p.text) for p in segment(after.version_id, after.text)]
    with tempfile.TemporaryDirectory() as tmp:
        left, right = Path(tmp) / "a", Path(tmp) / "b"
        left.write_text("\n".join(keys_a) + "\n", encoding="utf-8")
        right.write_text("\n".join(keys_b) + "\n", encoding="utf-8")
        git = best_of(
            5,
            lambda: subprocess.run(
                ["git", "diff", "--no-index", "--minimal", "--no-color", str(left), str(right)],
                capture_output=True,
                check=False,
            ),
        )
    ours = best_of(5, lambda: diff_versions(before, after))
    matching = best_of(5, lambda: _matching_pairs(keys_a, keys_b))
    plain = best_of(3, lambda: SequenceMatcher(None, keys_a, keys_b, autojunk=False).get_opcodes())
    size = (len(before.text) + len(after.text)) / 1e6
    print("2. passage diff, largest real version pair")
    print(f"   {before.version_id} -> {after.version_id}")
    print(f"   {len(keys_a)} -> {len(keys_b)} passages, {size:.2f} MB of text")
    print(f"   git diff --no-index --minimal:       {git * 1000:8.1f} ms")
    print(
        f"   one plain difflib run (keys only):    {plain * 1000:8.1f} ms  ({plain / git:.2f}x git)"
    )
    print(
        f"   our passage matching (same keys):     {matching * 1000:8.1f} ms  ({matching / git:.2f}x git)"
    )
    print(
        f"   diff_versions (segment, normalize, symmetric match, score, narrow): "
        f"{ours * 1000:8.1f} ms  ({ours / git:.2f}x git)"
    )

    changes = diff_versions(before, after)
    pairs = []
    for change in changes:
        if change.kind == "modified" and change.before and change.after:
            a = normalized_text(before.text[change.before.char_start : change.before.char_end])
            b = normalized_text(after.text[change.after.char_start : change.after.char_end])
            pairs.append((a, b))
    if not pairs:
        print("3. narrowing: no modified pairs in this version pair")
        return

    def difflib_edits() -> list[int]:
        out = []
        for a, b in pairs:
            ops = SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
            out.append(sum((i2 - i1) + (j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal"))
        return out

    def rapidfuzz_edits() -> list[int]:
        out = []
        for a, b in pairs:
            ops = Indel.opcodes(a, b)
            out.append(
                sum(
                    (o.src_end - o.src_start) + (o.dest_end - o.dest_start)
                    for o in ops
                    if o.tag != "equal"
                )
            )
        return out

    slow = best_of(3, difflib_edits)
    fast = best_of(3, rapidfuzz_edits)
    edits_difflib, edits_rf = difflib_edits(), rapidfuzz_edits()
    worse = sum(r > d for r, d in zip(edits_rf, edits_difflib, strict=True))
    print(f"3. narrowing {len(pairs)} modified pairs of that diff to their changed characters")
    print(
        f"   difflib SequenceMatcher(autojunk=False): {slow * 1000:8.1f} ms, {sum(edits_difflib)} edit characters"
    )
    print(
        f"   rapidfuzz Indel.opcodes:                 {fast * 1000:8.1f} ms, {sum(edits_rf)} edit characters"
    )
    print(
        f"   rapidfuzz is {slow / fast:.1f}x faster; pairs where it needs more edits than difflib: {worse}"
    )
    ratios = [d / r for r, d in zip(edits_rf, edits_difflib, strict=True) if r]
    if ratios:
        print(
            f"   difflib edit characters / rapidfuzz edit characters: median {statistics.median(ratios):.2f}, "
            f"max {max(ratios):.2f}"
        )


def script_module(name: str) -> ModuleType:
    """The script `scripts/<name>.py` (a truth script: it imports nothing from the workbench),
    loaded as the module `name`."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


def bench_options(
    doc: str | None,
    argv: Sequence[str],
    *,
    flags: Sequence[str] = ("--write-docs",),
    valued: Sequence[str] = (),
) -> dict[str, Any]:
    """A benchmark's options from `argv`, read before it does anything: `-h`/`--help` prints the
    module docstring (`doc`, which names the options) and exits 0; an option that is neither one
    of `flags` nor one of `valued`, or a valued one without its value, stops it with one line
    naming the option (exit 2). Each flag maps to whether it was given, each valued option to its
    value or None."""
    name = Path(sys.argv[0]).name
    if {"-h", "--help"} & set(argv):
        print(doc or name)
        raise SystemExit(0)
    found: dict[str, Any] = {flag: False for flag in flags} | {option: None for option in valued}
    args = iter(argv)
    for arg in args:
        if arg in flags:
            found[arg] = True
        elif arg in valued:
            value = next(args, None)
            if value is None or value.startswith("-"):
                print(f"{name}: {arg} needs a value (see --help)", file=sys.stderr)
                raise SystemExit(2)
            found[arg] = value
        else:
            print(f"{name}: unknown option {arg} (see --help)", file=sys.stderr)
            raise SystemExit(2)
    return found


def compile_workbench() -> None:
    """Write the workbench's bytecode before anything is timed, so that each command a benchmark
    starts loads it as a user's second run of a command does (where PYTHONDONTWRITEBYTECODE is
    set, every command would otherwise compile each module it imports again)."""
    compileall.compile_dir(ROOT / "workbench", quiet=1)


def truth_from_script(script: str, inputs: Sequence[str]) -> Any:
    """The truth `scripts/SCRIPT` derives from `inputs` (it imports nothing from the workbench),
    run as its own process into a temporary file and read back."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "truth.json"
        command = [sys.executable, str(ROOT / "scripts" / script), *inputs, "--out", str(out)]
        subprocess.run(command, check=True)
        return json.loads(out.read_text(encoding="utf-8"))


def store_missing() -> bool:
    """True, having said so on stderr in one line, when the real corpus has not been fetched."""
    if STORE.is_dir():
        return False
    print("corpus/real is missing: run 'make fetch' first", file=sys.stderr)
    return True


def report_to_docs(run: Callable[[], None], marker: str, write: bool) -> None:
    """Run `run`, print what it printed, and with `write` put it in docs/ between the markers.

    The block sits between `<!-- {marker} begin -->` and `<!-- {marker} end -->`, so the docs'
    figures are always a benchmark's own output, never typed by hand.
    """
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        print(f"python {sys.version.split()[0]}, {platform.machine()}, {os.cpu_count()} cores\n")
        run()
    output = buffer.getvalue()
    print(output, end="")
    if not write:
        return
    replace_docs_block(marker, f"python benchmarks/{Path(sys.argv[0]).name}", output)


def replace_docs_block(marker: str, command: str, output: str) -> None:
    """Put `output` between `<!-- {marker} begin -->` and `<!-- {marker} end -->` in docs/.

    The block is looked for in every page under docs/ (most are in docs/benchmarks.md); exactly
    one page must hold it. Every benchmark writes its figures through this one function, so the
    figures in the docs are always a benchmark's own output, shown beside the command that
    printed them.
    """
    begin, end = f"<!-- {marker} begin -->", f"<!-- {marker} end -->"
    holders = [
        page
        for page in sorted((ROOT / "docs").glob("*.md"))
        if begin in (text := page.read_text(encoding="utf-8")) and end in text
    ]
    if len(holders) != 1:
        raise SystemExit(
            f"docs/: expected one page with a {begin} ... {end} block, found {len(holders)}"
        )
    page = holders[0]
    head, rest = page.read_text(encoding="utf-8").split(begin, 1)
    _, tail = rest.split(end, 1)
    block = f"{begin}\n```text\n$ {command}\n{output.rstrip()}\n```\n{end}"
    page.write_text(head + block + tail, encoding="utf-8")


def run() -> None:
    print("figures are best of several runs on this machine\n")
    bench_admission_and_ingest()
    with tempfile.TemporaryDirectory() as tmp, Workspace(Path(tmp) / "w.sqlite") as held:
        ingest(held, read_catalogue(ROOT / "corpus"), STORE)
        print()
        bench_diff_and_narrowing(held)


def main() -> int:
    options = bench_options(__doc__, sys.argv[1:])
    if store_missing():
        return 2
    report_to_docs(run, "bench:spine", options["--write-docs"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
