"""Start-up benchmark: what a researcher waits for before a command does anything.

Run: `.venv/bin/python benchmarks/bench_startup.py [--write-docs]` (part of `make bench`). It
prints wall times and ratios against a baseline run in the same process, and asserts nothing about
time. With `--write-docs` it replaces the `bench:startup` block in docs/benchmarks.md.

- baseline: a fresh interpreter running `import json, sqlite3, argparse` (what any Python command
  line pays before its own code);
- `workbench --help`;
- `workbench verify` of one citation into one held IETF draft (the workspace is made first, so only
  the command's start-up and one verification are timed).

Each figure is the fastest of several runs, so a busy machine moves it less. Every run may read
and write compiled bytecode (`__pycache__`), as Python does on a researcher's machine from the second
run of a command on: the benchmark drops `PYTHONDONTWRITEBYTECODE` for its runs and makes one
untimed run of each command first, so no figure counts compiling source the interpreter would
otherwise have cached (the standard library's bytecode is installed with Python; the workbench's and
its dependencies' is written by that first run).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_spine import STORE, bench_options, best_of, report_to_docs, store_missing

from workbench.corpus.catalogue import read_catalogue
from workbench.workspace import Workspace, ingest

ROOT = Path(__file__).resolve().parents[1]
RUNS = 7


def _timed(argv: list[str]) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def once() -> None:
        subprocess.run(argv, check=True, capture_output=True, env=env)

    once()  # untimed: writes the bytecode caches a second run reads
    return best_of(RUNS, once)


def _one_citation(folder: Path) -> tuple[Path, Path]:
    """A workspace holding the smallest IETF text, and a JSON Lines file citing its first line."""
    rows = [r for r in read_catalogue(ROOT / "corpus") if r.jurisdiction == "ietf"]
    row = min(rows, key=lambda r: r.size)
    workspace = folder / "workspace.sqlite"
    with Workspace(workspace) as held:
        ingest(held, [row], STORE)
        text = held.version(row.path).text
    line = next(line for line in text.split("\n") if len(line.strip()) > 20).strip()
    start = text.index(line)
    citation = {
        "version_id": row.path,
        "char_start": start,
        "char_end": start + len(line),
        "quoted_text": line,
    }
    citations = folder / "one.jsonl"
    citations.write_text(json.dumps(citation) + "\n", encoding="utf-8")
    return workspace, citations


def run() -> None:
    python = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        workspace, citations = _one_citation(Path(tmp))
        baseline = _timed([python, "-c", "import json, sqlite3, argparse"])
        helped = _timed([python, "-m", "workbench", "--help"])
        verified = _timed(
            [python, "-m", "workbench", "verify", str(citations), "--workspace", str(workspace)]
        )
    print(f"fastest of {RUNS} runs, each a fresh interpreter")
    print(f"   baseline: import json, sqlite3, argparse   {baseline:6.3f} s")
    print(
        f"   workbench --help                           {helped:6.3f} s   {helped / baseline:4.1f}x"
    )
    print(
        f"   workbench verify (one citation)            {verified:6.3f} s   "
        f"{verified / baseline:4.1f}x"
    )


def main() -> int:
    options = bench_options(__doc__, sys.argv[1:])
    if store_missing():
        return 2
    report_to_docs(run, "bench:startup", options["--write-docs"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
