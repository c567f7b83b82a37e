"""Two commands beside the plainest tool for the same job, each run as a command (start-up in).

Run: `.venv/bin/python benchmarks/bench_commands.py [--write-docs]` (part of `make bench`). It
prints wall times side by side and their ratio; it asserts nothing about time. With
`--write-docs` it replaces the `bench:commands` block in docs/benchmarks.md.

- `workbench diff FAMILY` on the largest held version pair (`bench_spine.largest_pair`, the two
  alone in a workspace; its first run, timed alone and printed apart, keeps their diff, as
  `measure` keeps every consecutive pair's; the untimed run keeps the word pieces shown)
  beside `git diff --no-index --word-diff` on the same two texts written to files;
- `workbench verify` of one citation into one held IETF draft (`bench_startup`'s) beside a
  five-line Python script that reads the citation and the version's text, slices and compares.

Below each, where its time goes: the steps the command takes, each timed in a fresh process
that takes them one after the other through the same library calls (`DIFF_STEPS`,
`VERIFY_STEPS`; the median of each over the same number of runs).

Each side is a fresh process; the two sides alternate, seven runs each, and the median is
printed with the minimum and maximum beside it. One untimed run of each goes first, so bytecode
is written as on a researcher's second run (`PYTHONDONTWRITEBYTECODE` is dropped).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_spine import STORE, bench_options, largest_pair, report_to_docs, store_missing
from bench_startup import _one_citation

from workbench.corpus.catalogue import read_catalogue
from workbench.models import CatalogueRow
from workbench.workspace import Workspace, ingest

ROOT = Path(__file__).resolve().parents[1]
RUNS = 7
SLICE_AND_COMPARE = """\
import json, sys
citation = json.loads(open(sys.argv[1], encoding="utf-8").readline())
text = open(sys.argv[2], encoding="utf-8", newline="").read()
held = text[citation["char_start"] : citation["char_end"]]
print("verified" if held == citation["quoted_text"] else "refused")
"""


# What each step script opens with: `step(name)` records the seconds since the last step, and the
# workspace is opened as the command line opens it.
STEPS = """\
import json, sys, time
start = time.perf_counter()
spent = {}
def step(name):
    global start
    now = time.perf_counter()
    spent[name] = now - start
    start = now
import argparse
from pathlib import Path
from workbench.cli.common import open_held
"""

# The steps of `workbench diff FAMILY` on a held pair whose diff is kept (cli/changes.cmd_diff's
# library calls, in its order), each timed; run as `python -c DIFF_STEPS WORKSPACE FAMILY`, it
# prints one JSON object of seconds.
DIFF_STEPS = (
    STEPS
    + """\
from workbench.cli.changes import _listed
from workbench.changes import kept, pairs, redline
from workbench.derived import code_digest
step("imports of the command and the redline")
held = argparse.Namespace(workspace=Path(sys.argv[1]), corpus_dir=None, store=None, profiles=None)
with open_held(held) as workspace:
    chosen = pairs.text_pairs(workspace, sys.argv[2])
    step("reading the two versions' texts (no structure decoded)")
    code = code_digest()
    step("the code digest (derived state's keys)")
    keys = kept.pair_keys(workspace, chosen, code)
    step("the kept diff's key (version lines, profile files)")
    kinds = pairs.kinds_shown(None, listing=True)
    changes, left_out = kept.read_listed(workspace, keys, kinds)[keys[0]]
    marks = redline.marks_from_json(kept.read_marks(workspace, keys)[keys[0]])
    step("reading the kept diff (changes shown built, unchanged counted, word pieces)")
    shown = redline.section(*chosen[0], changes, kinds=kinds, left_out=left_out, marks=marks)
    step("the redline of the changes shown (kept word pieces, no matcher)")
    pairs.section_footnotes((shown,), workspace)
    step("the footnote changes under unchanged clauses, kept with the diff")
listing = [redline.pair_summary(shown), *(_listed(redline, r, False, None) for r in shown.shown)]
step("the listing")
print(json.dumps(spent))
"""
)


# The steps of `workbench verify CITATIONS` (cli/citations.cmd_verify's library calls, in its
# order), each timed; run as `python -c VERIFY_STEPS CITATIONS WORKSPACE`, it prints one JSON
# object of seconds.
VERIFY_STEPS = (
    STEPS
    + """\
from workbench.cite import read_citations, verdict_pages, verification_text, verify_lines
step("imports of the command and the rule")
lines = read_citations(Path(sys.argv[1]).read_bytes(), "workbench", source=sys.argv[1])
step("reading the citation line")
held = argparse.Namespace(workspace=Path(sys.argv[2]), corpus_dir=None, store=None, profiles=None)
with open_held(held) as workspace:
    step("opening the workspace")
    results = verify_lines(workspace, lines)
    step("verifying (the version read, its hash checked, the rule)")
    spanned = verdict_pages(workspace, results)
shown = [verification_text(l.line, r, spanned=p) for l, r, p in zip(lines, results, spanned)]
step("the verdict's pages and text")
print(json.dumps(spent))
"""
)


def _bytecode_kept() -> dict[str, str]:
    """This environment without `PYTHONDONTWRITEBYTECODE`: bytecode is read as a researcher's
    second run reads it."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _once(argv: list[str]) -> float:
    """The wall time of one run of `argv`."""
    start = time.perf_counter()
    subprocess.run(argv, check=False, capture_output=True, env=_bytecode_kept(), cwd=ROOT)
    return time.perf_counter() - start


def _alternating(*commands: list[str]) -> list[list[float]]:
    """Wall times of `RUNS` runs of each command, alternating, after one untimed run of each."""
    for argv in commands:
        _once(argv)
    timed: list[list[float]] = [[] for _ in commands]
    for _ in range(RUNS):
        for argv, times in zip(commands, timed, strict=True):
            times.append(_once(argv))
    return timed


# Run as `python -c LIBRARIES ARGV...`: runs the command `ARGV` in-process and prints the
# top-level modules it loaded that are not the workbench's (the standard library and any
# third-party library; a module only its parent creates, such as Cython's runtime, left out),
# as one `import` statement.
LIBRARIES = """\
import contextlib, io, sys
from workbench.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main(sys.argv[1:])
names = {name.split(".")[0] for name in sys.modules} - {"workbench"}
found = (n for n in names if n[0] != "_" and getattr(sys.modules.get(n), "__spec__", None))
print("import " + ", ".join(sorted(found)))
"""


def _libraries(argv: list[str]) -> list[str]:
    """A command that imports the libraries `workbench ARGV` loads and nothing of the workbench:
    the floor under the command's start-up that no layout of the workbench can lower."""
    done = subprocess.run(
        [sys.executable, "-c", LIBRARIES, *argv],
        check=True,
        capture_output=True,
        text=True,
        env=_bytecode_kept(),
        cwd=ROOT,
    )
    floor = [sys.executable, "-c", done.stdout.strip()]
    subprocess.run(floor, check=True, env=_bytecode_kept(), cwd=ROOT)  # every name imports
    return floor


def _line(name: str, times: list[float], against: list[float] | None = None) -> str:
    median = statistics.median(times)
    ratio = f"   {median / statistics.median(against):5.1f}x" if against else ""
    return f"   {name:<44} {median:7.3f} s  (min {min(times):.3f}, max {max(times):.3f}){ratio}"


def _largest_pair(folder: Path) -> tuple[CatalogueRow, CatalogueRow]:
    """The catalogue rows of the largest held version pair (`bench_spine.largest_pair`: the two
    consecutive versions whose texts are longest together), found in the checkout's workspace
    (`.workbench/workspace.sqlite`, `make measure`'s), or in one made here of the whole corpus."""
    kept = ROOT / ".workbench" / "workspace.sqlite"
    rows = {row.path: row for row in read_catalogue(ROOT / "corpus")}
    if not kept.is_file():
        kept = folder / "whole.sqlite"
        with Workspace(kept) as held:
            ingest(held, list(rows.values()), STORE)
    with Workspace(kept) as held:
        before, after = largest_pair(held)
    return rows[before.version_id], rows[after.version_id]


def bench_diff(folder: Path) -> None:
    before, after = _largest_pair(folder)
    workspace = folder / "diff.sqlite"
    with Workspace(workspace) as held:
        ingest(held, [before, after], STORE)
        texts = [held.version(row.path).text for row in (before, after)]
    left, right = folder / "before.txt", folder / "after.txt"
    for path, text in zip((left, right), texts, strict=True):
        path.write_text(text, encoding="utf-8", newline="")
    argv = ["diff", before.family, "--workspace", str(workspace)]
    first = _once([sys.executable, "-m", "workbench", *argv])  # chooses, pairs and keeps
    ours, git, floor = _alternating(
        [sys.executable, "-m", "workbench", *argv],
        ["git", "diff", "--no-index", "--word-diff", "--no-color", str(left), str(right)],
        _libraries(argv),
    )
    size = sum(len(text) for text in texts) / 1e6
    print(f"1. diff of the largest held pair ({size:.2f} M characters of text together)")
    print(f"   {before.path} -> {after.path}")
    print(_line("git diff --no-index --word-diff", git))
    print(_line(f"workbench diff {before.family}", ours, git))
    print(_line("python importing the libraries it loads", floor, git))
    print(f"   (its first run, which chose the profile, paired and kept the diff: {first:.3f} s)")
    _print_steps(DIFF_STEPS, str(workspace), before.family)


def _print_steps(steps: str, *argv: str) -> None:
    """The median time of each step of `steps` (`DIFF_STEPS`, `VERIFY_STEPS`), over `RUNS` fresh
    processes, one line each."""
    runs = []
    for _ in range(RUNS):
        done = subprocess.run(
            [sys.executable, "-c", steps, *argv],
            check=True,
            capture_output=True,
            env=_bytecode_kept(),
            cwd=ROOT,
        )
        runs.append(json.loads(done.stdout))
    print("   where the time goes (its steps, each timed in a fresh process; median):")
    for step in runs[0]:
        print(f"     {statistics.median(run[step] for run in runs):7.3f} s  {step}")


def bench_verify(folder: Path) -> None:
    workspace, citations = _one_citation(folder)
    with Workspace(workspace) as held:
        (version,) = held.versions()
        text = folder / "version.txt"
        text.write_text(version.text, encoding="utf-8", newline="")
    script = folder / "slice_and_compare.py"
    script.write_text(SLICE_AND_COMPARE, encoding="utf-8")
    argv = ["verify", str(citations), "--workspace", str(workspace)]
    ours, plain, floor = _alternating(
        [sys.executable, "-m", "workbench", *argv],
        [sys.executable, str(script), str(citations), str(text)],
        _libraries(argv),
    )
    print(f"2. one citation verified ({len(version.text)} characters in its version)")
    print(_line("five-line slice-and-compare script", plain))
    print(_line("workbench verify", ours, plain))
    print(_line("python importing the libraries it loads", floor, plain))
    _print_steps(VERIFY_STEPS, str(citations), str(workspace))


def run() -> None:
    print(f"median of {RUNS} runs of each command, alternating; ratio to the plain tool")
    print(f"the machine's load average over the last minute: {os.getloadavg()[0]:.1f}\n")
    with tempfile.TemporaryDirectory() as tmp:
        bench_diff(Path(tmp))
        bench_verify(Path(tmp))


def main() -> int:
    options = bench_options(__doc__, sys.argv[1:])
    if store_missing():
        return 2
    report_to_docs(run, "bench:commands", options["--write-docs"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
