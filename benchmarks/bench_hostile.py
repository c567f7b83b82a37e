"""Hostile-input benchmark: the worst case of each kind the workbench bounds, beside a benign
control of the same size, each in a fresh process.

Run: `.venv/bin/python benchmarks/bench_hostile.py [--write-docs]`. For each case it prints the
wall-clock time, the peak memory of the process that ran it (its own maximum resident set, the
interpreter included) and what came of it (a refusal, or the work done), for the hostile input and
then for its control. The limits are in docs/security.md. With `--write-docs` the output replaces
the block between the `bench:hostile` markers in docs/ (`bench_spine.report_to_docs`). It asserts
nothing: it measures and prints. (`--case NAME` runs one case's side in this process, as the
benchmark runs it in each child.)
"""

from __future__ import annotations

import atexit
import io
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

from bench_spine import ROOT, bench_options, report_to_docs

sys.path.insert(0, str(ROOT))  # tests.hostile: the PDFs the tests build

TEXT = "1. Scope\n\n" + "a" * 40 + "!\n"  # the line of forty letters
PROFILE = "name = 'p'\ndescription = 'd'\n[[levels]]\nname = 's'\npattern = '{pattern}'\n"


Run = Callable[[], str]


def _pattern(pattern: str) -> Run:
    from workbench.text.lines import read_lines
    from workbench.text.profiles import parse_profile

    profile = parse_profile(PROFILE.format(pattern=pattern).encode(), "bench.toml")
    return lambda: f"{len(read_lines(TEXT, profile))} lines read"


def _json(text: str) -> Run:
    from workbench.bounds import strict_json

    return lambda: f"read a {type(strict_json(text, ValueError)).__name__}"


def _toml(array: str) -> Run:
    from workbench.text.profiles import parse_profile

    source = "name = 'p'\ndescription = 'd'\napplies_to = " + array + "\n"
    source += PROFILE.format(pattern="(?P<number>\\d+)").split("\n", 2)[2]
    return lambda: f"read profile {parse_profile(source.encode(), 'bench.toml').name}"


def _members(count: int) -> Run:
    from workbench.exports.bundle_check import verify_bundle

    folder = Path(tempfile.mkdtemp())
    atexit.register(shutil.rmtree, folder)
    path = folder / "b.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for k in range(count):
            archive.writestr(f"m/{k}", b"")
    return lambda: str(verify_bundle(path))


def _member(data: bytes, declared: int) -> Run:
    from workbench.exports.bundle_check import MAX_MEMBER_BYTES, _read_member

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("m", data)
    del data

    def read() -> str:
        with zipfile.ZipFile(buffer) as archive:
            got = _read_member(archive, "m", min(declared, MAX_MEMBER_BYTES))
        return f"read {len(got)} bytes"

    return read


def _pdf(data: bytes) -> Run:
    from workbench.text.pdf import extract_pdf

    return lambda: f"read {len(extract_pdf(data, source='bench.pdf').text)} characters"


def _terminal(text: str) -> Run:
    from workbench.terminal import visible

    return lambda: f"shown {len(visible(text))} characters"


def _hostile_pdf(k: int) -> Run:
    from tests.hostile import BENIGN, SELF_HOLDING, scan

    return _pdf((SELF_HOLDING, BENIGN, scan(20_000), scan(612))[k])


ZEROS = 1 << 30  # the member: a gibibyte of zeros, deflated to about a megabyte
ESCAPES = "\x1b[2J\x1b]0;t\x07\u202e\r" * (1 << 20)
# Each case: its name, then (label, prepare) for the hostile input and for its control of that
# size; `prepare` builds the input (not timed) and gives the work that is timed.
CASES: dict[str, tuple[tuple[str, Callable[[], Run]], tuple[str, Callable[[], Run]]]] = {
    "profile pattern": (
        ("(a|aa)+ on 40 letters", lambda: _pattern("(?P<number>(a|aa)+)")),
        ("a+ on 40 letters", lambda: _pattern("(?P<number>a+)")),
    ),
    "JSON nesting": (
        ("100,000 '['", lambda: _json("[" * 100_000)),
        ("100,000-char flat array", lambda: _json("[" + "0," * 49_999 + "0]")),
    ),
    "JSON integer": (
        ("5,000 digits", lambda: _json("9" * 5000)),
        ("5,000-char string", lambda: _json('"' + "9" * 4998 + '"')),
    ),
    "TOML nesting": (
        ("50,000 deep", lambda: _toml("[" * 50_000 + "]" * 50_000)),
        ("100,000-char flat", lambda: _toml("[" + "'a'," * 24_999 + "'a']")),
    ),
    "bundle members": (
        ("100,000 members", lambda: _members(100_000)),
        ("20,000 members (the limit)", lambda: _members(20_000)),
    ),
    "bundle member": (
        ("1 GiB zeros, declared 2^40", lambda: _member(bytes(ZEROS), 2**40)),
        ("1 MiB random, declared", lambda: _member(random.Random(0).randbytes(1 << 20), 1 << 20)),
    ),
    "PDF page tree": (
        ("page tree holds itself", lambda: _hostile_pdf(0)),
        ("one text page", lambda: _hostile_pdf(1)),
    ),
    "OCR page": (
        ("20,000 pt scan", lambda: _hostile_pdf(2)),
        ("612 pt scan (OCR'd)", lambda: _hostile_pdf(3)),
    ),
    "terminal": (
        (f"{len(ESCAPES) // 10**6} M chars of escapes", lambda: _terminal(ESCAPES)),
        (f"{len(ESCAPES) // 10**6} M plain chars", lambda: _terminal("a" * len(ESCAPES))),
    ),
}


def run_side(name: str) -> None:
    """Run one side (`case:0` hostile, `case:1` control) here and print its JSON figures."""
    case, _, side = name.rpartition(":")
    label, prepare = CASES[case][int(side)]
    work = prepare()
    start = time.perf_counter()
    try:
        outcome = work()
    except Exception as exc:  # a refusal is the outcome measured
        reason = str(exc).rpartition(": ")[2] if ": " in str(exc) else str(exc)
        outcome = f"refused ({type(exc).__name__}): {reason[:60]}"
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({"label": label, "seconds": seconds, "peak_mb": peak, "outcome": outcome}))


def run() -> None:
    print("each side in a fresh process; peak is its maximum resident set, interpreter included\n")
    print(f"{'case':<16} {'input':<30} {'time':>8} {'peak':>9}  outcome")
    for case in CASES:
        for side in (0, 1):
            done = subprocess.run(
                [sys.executable, __file__, "--case", f"{case}:{side}"],
                capture_output=True,
                text=True,
                check=True,
                cwd=ROOT,
            )
            row = json.loads(done.stdout.strip().splitlines()[-1])
            shown = case if side == 0 else "  control"
            print(
                f"{shown:<16} {row['label']:<30} {row['seconds']:7.2f}s {row['peak_mb']:7.0f}MB"
                f"  {row['outcome']}"
            )


def main() -> int:
    options = bench_options(__doc__, sys.argv[1:], valued=("--case",))
    if options["--case"] is not None:
        run_side(options["--case"])
        return 0
    report_to_docs(run, "bench:hostile", options["--write-docs"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
