"""Every benchmark script answers `--help` with its own docstring before it does anything, and
refuses an option it does not know in one line, without a traceback (`bench_spine.bench_options`).

Each script is run as `__main__` with its arguments, from a fresh interpreter whose path starts at
benchmarks/ as `python benchmarks/bench_x.py` sets it, so one that no longer imports (a module it
reads from was moved) fails here rather than the next time someone benchmarks. One interpreter
answers every script in turn: each answer stops before any work, so what one script's imports
leave loaded changes nothing another script does, and the suite starts one interpreter, not one
per script and option."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

SCRIPTS = sorted((ROOT / "benchmarks").glob("bench_*.py"))
# Each (script, arguments) asked: run as `__main__` with that argv, its exit status, what it
# printed, and any exception it raised (its traceback, on its stderr, as the interpreter prints it).
_ASK = """
import contextlib, io, json, runpy, sys, traceback
sys.path[0] = sys.argv[1]
answers = []
for script, args in json.loads(sys.argv[2]):
    sys.argv = [script, *args]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            runpy.run_path(script, run_name="__main__")
            status = 0
        except SystemExit as stopped:
            code = stopped.code
            status = code if isinstance(code, int) else 0 if code is None else 1
            if not isinstance(code, int | None):
                print(code, file=sys.stderr)
        except BaseException:
            traceback.print_exc()
            status = 1
    answers.append([status, out.getvalue(), err.getvalue()])
print(json.dumps(answers))
"""
# the option without its value, and with one the script cannot read
VALUE_CASES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("bench_scale.py", ("--scales",)),
    ("bench_scale.py", ("--scales", "ten")),
)

Answers = dict[tuple[str, tuple[str, ...]], subprocess.CompletedProcess[str]]


@pytest.fixture(scope="module")
def answers() -> Answers:
    asked: list[tuple[str, tuple[str, ...]]] = [
        (script.name, (arg,)) for script in SCRIPTS for arg in ("--help", "--no-such-option")
    ]
    asked += VALUE_CASES
    jobs = [(str(ROOT / "benchmarks" / name), args) for name, args in asked]
    child = subprocess.run(
        [sys.executable, "-c", _ASK, str(ROOT / "benchmarks"), json.dumps(jobs)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=True,
    )
    said = json.loads(child.stdout.splitlines()[-1])
    return {
        job: subprocess.CompletedProcess(list(job[1]), status, out, err)
        for job, (status, out, err) in zip(asked, said, strict=True)
    }


def test_the_benchmarks_are_found() -> None:
    assert len(SCRIPTS) >= 10
    assert ROOT / "benchmarks" / "bench_code.py" in SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.stem)
def test_help_prints_the_scripts_docstring_and_runs_nothing(script: Path, answers: Answers) -> None:
    answer = answers[(script.name, ("--help",))]
    docstring = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8")))
    assert docstring
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.strip() == docstring.strip()
    assert "--write-docs" in docstring  # the docstring names the options


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.stem)
def test_an_unknown_option_is_refused_in_one_line(script: Path, answers: Answers) -> None:
    answer = answers[(script.name, ("--no-such-option",))]
    assert answer.returncode == 2
    assert answer.stdout == ""
    assert answer.stderr.strip().splitlines() == [
        f"{script.name}: unknown option --no-such-option (see --help)"
    ]


def test_an_option_without_its_value_is_refused_in_one_line(answers: Answers) -> None:
    answer = answers[VALUE_CASES[0]]
    assert answer.returncode == 2
    assert answer.stderr.strip().splitlines() == [
        "bench_scale.py: --scales needs a value (see --help)"
    ]
    answer = answers[VALUE_CASES[1]]
    assert answer.returncode == 2
    assert answer.stderr.strip().splitlines() == ["--scales ten: expected numbers, e.g. 1,10"]
