"""Hostile-input benchmark: the worst case of each kind the workbench bounds, each run by the
workbench command that reads it beside a benign control of the same size run by the same command.

Run: `.venv/bin/python benchmarks/bench_hostile.py [--write-docs] [--runs N]`. It builds every
input in a temporary folder (a small workspace, profiles, citation files, bundles, PDFs: not
timed), then runs `python -m workbench ...` on each hostile input and on its control, each run a
fresh process, N times (default 3). For each it prints the median wall-clock time of the command
(interpreter start-up included: what a person waits for), the peak memory of its process (its
maximum resident set), the ratio of the hostile time to the control's, and the command's last
line. A control holds the same number of bytes as its hostile input and lacks only the hostile
feature. The first row is the anchor: `workbench --version`, the start-up every command pays.
The issue's bound: hostile at most 10 times its control, peak under 1.5 GB. The limits are in
docs/security.md. With `--write-docs` the output replaces the block between the `bench:hostile`
markers in docs/ (`bench_spine.report_to_docs`). It asserts nothing: it measures and prints.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import pty
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import tty
import zipfile
from dataclasses import dataclass
from pathlib import Path

from bench_spine import ROOT, bench_options, report_to_docs

sys.path.insert(0, str(ROOT))  # tests.hostile: the PDFs the tests build

from tests.hostile import BENIGN, SELF_HOLDING, scan
from workbench.cli import main

LETTERS = "a" * 40 + "!"  # the line of forty letters
PROFILE = "name = 'p'\ndescription = 'd'\napplies_to = {applies}\n[[levels]]\nname = 's'\n"
PROFILE += "pattern = '{pattern}'\n"
ESCAPES = "\x1b[2J\x1b]0;t\x07\u202e\r"  # a cleared screen, a window title, an override, a CR
TERMINAL_BYTES = 4 << 20  # a 4 MiB document shown on a terminal
ZEROS = 1 << 30  # the member: a gibibyte of zeros, deflated to about a megabyte


@dataclass(frozen=True, slots=True, kw_only=True)
class Side:
    label: str
    args: tuple[str, ...]  # after `python -m workbench`
    on_terminal: bool = False  # stdout a pseudo-terminal (read and dropped), else a pipe
    made: Path | None = None  # a workspace the command makes: removed before each run


@dataclass(frozen=True, slots=True, kw_only=True)
class Case:
    name: str
    hostile: Side
    control: Side


def _same_size(data: bytes, size: int, filler: bytes = b" ") -> bytes:
    """`data` padded with `filler` at the end to `size` bytes (it must not be longer)."""
    if len(data) > size:
        raise ValueError(f"control of {len(data)} bytes is longer than its hostile {size}")
    return data + filler * (size - len(data))


def _pdf_same_size(pdf: bytes, size: int) -> bytes:
    """`pdf` padded to `size` bytes with a PDF comment before its end (readers skip it)."""
    return _same_size(pdf, size, b"%")


def _workspace(folder: Path, documents: dict[str, bytes], suffix: str) -> tuple[str, ...]:
    """Add each document as a family of its own, admit them, and give the paths options that
    read them (the timed command ingests or reads)."""
    mirror, corpus = folder / "mirror", folder / "corpus"
    folder.mkdir(exist_ok=True)
    for name, data in documents.items():
        path = folder / f"{name}{suffix}"
        path.write_bytes(data)
        add = ["corpus", "add", "--into", str(mirror), "--jurisdiction", "xx", "--family", name]
        add += ["--official", "--issuer", "X", "--url", f"https://example.org/{name}{suffix}"]
        assert main([*add, str(path)]) in (0, 1)
    assert main(["corpus", "admit", str(mirror), "--corpus-dir", str(corpus)]) in (0, 1)
    return ("--corpus-dir", str(corpus), "--store", str(mirror))


def _zip(path: Path, members: dict[str, bytes], method: int) -> int:
    with zipfile.ZipFile(path, "w", compression=method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path.stat().st_size


def build(root: Path) -> list[Case]:
    """Every input, written under `root`, and the cases that read them."""
    # One workspace of texts: the forty letters, and a document of escapes beside a plain one.
    # Lines of 1 KiB (a line is at most a million characters): escapes, and letters to fill.
    line = (ESCAPES * 100).encode()[:1000].decode("utf-8", "ignore").encode()
    escapes = _same_size(line, 1023, b"a") + b"\n"
    escapes *= TERMINAL_BYTES // len(escapes)
    texts = {
        "letters": f"1. Scope\n\n{LETTERS}\n".encode(),
        "escapes": escapes,
        "plain": (b"a" * 1023 + b"\n") * (TERMINAL_BYTES // 1024),
    }
    paths = _workspace(root / "texts", texts, ".txt")
    ws = ("--workspace", str(root / "texts" / "ws.sqlite"))
    assert main(["ingest", *paths, *ws]) == 0

    def profile(name: str, applies: str, pattern: str) -> Path:
        path = root / f"{name}.toml"
        path.write_text(PROFILE.format(applies=applies, pattern=pattern), encoding="utf-8")
        return path

    structure = ("structure", "xx/letters/letters.txt", *ws, "--profile")
    # (a|aa)+ backtracks without bound; (a|ab)+, as long, cannot (no b follows an a here).
    hostile_pattern = profile("hostile-pattern", "[]", "(?P<number>(a|aa)+)")
    benign_pattern = profile("benign-pattern", "[]", "(?P<number>(a|ab)+)")
    deep = "[" * 50_000 + "]" * 50_000
    flat = "['" + "a" * (len(deep) - 4) + "']"
    hostile_toml = profile("hostile-nesting", deep, r"(?P<number>\d+)\.")
    benign_toml = profile("benign-nesting", flat, r"(?P<number>\d+)\.")

    # Citation files: a line nested 100,000 deep, an offset of 5,000 digits; each control the
    # same bytes, flat (a string where the brackets were, a long quote where the digits were).
    def citations(name: str, line: str) -> Path:
        path = root / f"{name}.jsonl"
        path.write_text(line + "\n", encoding="utf-8")
        return path

    nested = "[" * 100_000
    version = '{"version_id": "xx/letters/letters.txt", '
    digits = version + '"char_start": ' + "9" * 5000 + ', "char_end": 1, "quoted_text": "a"}'
    quoted = version + '"char_start": 0, "char_end": 1, "quoted_text": "' + "a" * 5000 + '"}'
    assert len(digits) == len(quoted)
    verify = ("verify", *ws)

    # Bundles: 100,000 members against 20,000 (the limit) padded to the same bytes; a descriptor
    # that inflates from about a megabyte to a gibibyte (declared 2^40 by the zip it sits in is
    # past every limit too) against a megabyte of random bytes, stored, the same size.
    many = root / "many.zip"
    size = _zip(many, {f"m/{k}": b"" for k in range(100_000)}, zipfile.ZIP_STORED)
    limit = root / "limit.zip"
    per = (size - _zip(limit, {f"m/{k}": b"" for k in range(20_000)}, zipfile.ZIP_STORED)) // 20_000
    _zip(limit, {f"m/{k}": b"x" * per for k in range(20_000)}, zipfile.ZIP_STORED)
    bomb = root / "bomb.zip"
    size = _zip(bomb, {"datapackage.json": bytes(ZEROS)}, zipfile.ZIP_DEFLATED)
    noise = root / "noise.zip"
    overhead = _zip(noise, {"datapackage.json": b""}, zipfile.ZIP_STORED)
    data = random.Random(0).randbytes(size - overhead)
    _zip(noise, {"datapackage.json": data}, zipfile.ZIP_STORED)

    # PDFs, each ingested from a catalogue of its own: a page tree that holds itself against one
    # text page; a 20,000 pt scan against a letter-sized one (OCR'd), each pair the same bytes.
    pdfs = {}
    for name, pdf, control in (
        ("tree", SELF_HOLDING, BENIGN),
        ("scan", scan(20_000), scan(612)),
    ):
        width = max(len(pdf), len(control))
        for side, data in (("hostile", pdf), ("control", control)):
            folder = root / f"{name}-{side}"
            folder.mkdir()
            pdfs[name, side] = (
                "ingest",
                *_workspace(folder, {name: _pdf_same_size(data, width)}, ".pdf"),
                "--workspace",
                str(folder / "ws.sqlite"),
            )
    made = {key: Path(args[-1]) for key, args in pdfs.items()}
    text = ("text", *ws)
    return [
        Case(
            name="profile pattern",
            hostile=Side(label="(a|aa)+ on 40 letters", args=(*structure, str(hostile_pattern))),
            control=Side(label="(a|ab)+ on 40 letters", args=(*structure, str(benign_pattern))),
        ),
        Case(
            name="TOML nesting",
            hostile=Side(label="50,000 deep", args=(*structure, str(hostile_toml))),
            control=Side(label="a flat string, same bytes", args=(*structure, str(benign_toml))),
        ),
        Case(
            name="JSON nesting",
            hostile=Side(
                label="100,000 '['",
                args=(*verify, str(citations("nested", nested))),
            ),
            control=Side(
                label="a flat string, same bytes",
                args=(*verify, str(citations("flat", json.dumps("a" * (len(nested) - 2))))),
            ),
        ),
        Case(
            name="JSON integer",
            hostile=Side(label="5,000 digits", args=(*verify, str(citations("digits", digits)))),
            control=Side(
                label="a 5,000-letter quote",
                args=(*verify, str(citations("quoted", quoted))),
            ),
        ),
        Case(
            name="bundle members",
            hostile=Side(label="100,000 members", args=("verify-bundle", str(many))),
            control=Side(label="20,000 (the limit), padded", args=("verify-bundle", str(limit))),
        ),
        Case(
            name="bundle member",
            hostile=Side(label="1 GiB of zeros, deflated", args=("verify-bundle", str(bomb))),
            control=Side(label="random bytes, same size", args=("verify-bundle", str(noise))),
        ),
        Case(
            name="PDF page tree",
            hostile=Side(
                label="page tree holds itself",
                args=pdfs["tree", "hostile"],
                made=made["tree", "hostile"],
            ),
            control=Side(
                label="one text page", args=pdfs["tree", "control"], made=made["tree", "control"]
            ),
        ),
        Case(
            name="OCR page",
            hostile=Side(
                label="20,000 pt scan", args=pdfs["scan", "hostile"], made=made["scan", "hostile"]
            ),
            control=Side(
                label="612 pt scan (OCR'd)",
                args=pdfs["scan", "control"],
                made=made["scan", "control"],
            ),
        ),
        Case(
            name="terminal",
            hostile=Side(
                label=f"{len(escapes) >> 20} MiB of escapes",
                args=(*text, "xx/escapes/escapes.txt"),
                on_terminal=True,
            ),
            control=Side(
                label=f"{len(escapes) >> 20} MiB of letters",
                args=(*text, "xx/plain/plain.txt"),
                on_terminal=True,
            ),
        ),
    ]


@dataclass(frozen=True, slots=True, kw_only=True)
class Ran:
    seconds: float  # median wall-clock time
    peak_mb: float  # the largest maximum resident set of the runs
    said: str  # the command's last line, stdout else stderr, cut short


def _drain(fd: int, read: list[int]) -> None:
    """Read the terminal until the command closes it, counting the bytes in `read[0]`."""
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:  # EIO: the command closed the terminal
            return
        if not chunk:
            return
        read[0] += len(chunk)


# Runs the command as its own child and reports that child's time, peak and exit: a process
# forked from this one would count this process's memory in its peak (Linux keeps the largest
# resident set across exec), and this one has built a gibibyte of zeros.
LAUNCHER = """
import json, os, sys, time
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
seconds = time.perf_counter() - start
figures = {"seconds": seconds, "peak_kb": usage.ru_maxrss, "code": os.waitstatus_to_exitcode(status)}
with open(sys.argv[1], "w") as report:
    json.dump(figures, report)
"""


def run_once(side: Side, cwd: Path) -> tuple[float, float, str]:
    """One fresh process: (wall seconds, peak resident MB, its exit code and last line)."""
    report = cwd / "launched.json"
    if side.made is not None:  # every run makes the workspace afresh, doing the whole work
        for suffix in ("", "-wal", "-shm"):
            Path(f"{side.made}{suffix}").unlink(missing_ok=True)
    command = [sys.executable, "-c", LAUNCHER, str(report), sys.executable, "-m", "workbench"]
    leader = follower = None
    if side.on_terminal:
        leader, follower = pty.openpty()
        tty.setraw(follower)
    process = subprocess.Popen(
        [*command, *side.args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=follower if follower is not None else subprocess.PIPE,
        stderr=subprocess.PIPE,
        # A fresh OCR cache each run, so the scanned control is read by OCR every time.
        env={**os.environ, "NO_COLOR": "1", "WORKBENCH_OCR_CACHE": tempfile.mkdtemp(dir=cwd)},
    )
    shown = [0]
    reader = None
    if leader is not None and follower is not None:
        os.close(follower)
        reader = threading.Thread(target=_drain, args=(leader, shown))
        reader.start()
    out, err = process.communicate()
    if reader is not None and leader is not None:
        reader.join()
        os.close(leader)
        said = f"{shown[0]:,} bytes shown on the terminal"
    else:
        lines = (out or err).decode("utf-8", "replace").strip().splitlines()
        said = lines[-1] if lines else ""
    said = said.replace(f"{cwd}/", "")  # the temporary folder's name changes every run
    figures = json.loads(report.read_text(encoding="utf-8"))
    return figures["seconds"], figures["peak_kb"] / 1024, f"exit {figures['code']}: {said}"


def run_side(side: Side, cwd: Path, runs: int) -> Ran:
    results = [run_once(side, cwd) for _ in range(runs)]
    return Ran(
        seconds=statistics.median(r[0] for r in results),
        peak_mb=max(r[1] for r in results),
        said=results[0][2],
    )


def _cut(text: str, width: int = 96) -> str:
    one = " ".join(text.split())
    return one if len(one) <= width else one[: width - 1] + "…"


def run(runs: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    atexit.register(shutil.rmtree, root, True)
    with contextlib.redirect_stdout(io.StringIO()):  # what building the inputs prints
        cases = build(root)
    print(
        f"each command a fresh process, {runs} runs, median wall time (start-up included); "
        "peak: its largest maximum resident set; ratio: hostile time / control time\n"
    )
    anchor = run_side(Side(label="workbench --version", args=("--version",)), root, runs)
    print(f"{'case':<15} {'command':<14} {'input':<27} {'time':>6} {'peak':>7} {'ratio':>6}  said")
    print(
        f"{'anchor':<15} {'--version':<14} {'(start-up)':<27} {anchor.seconds:5.2f}s "
        f"{anchor.peak_mb:5.0f}MB"
    )
    for case in cases:
        hostile = run_side(case.hostile, root, runs)
        control = run_side(case.control, root, runs)
        ratio = f"{hostile.seconds / control.seconds:5.2f}x"
        command = case.hostile.args[0]
        for name, side, ran, shown in (
            (case.name, case.hostile, hostile, ratio),
            ("  control", case.control, control, ""),
        ):
            print(
                f"{name:<15} {command:<14} {side.label:<27} {ran.seconds:5.2f}s "
                f"{ran.peak_mb:5.0f}MB {shown:>6}  {_cut(ran.said, 72)}"
            )


def main_() -> int:
    options = bench_options(__doc__, sys.argv[1:], valued=("--runs",))
    runs = int(options["--runs"] or 3)
    report_to_docs(lambda: run(runs), "bench:hostile", options["--write-docs"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main_())
