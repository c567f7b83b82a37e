"""Every benchmark script answers `--help` with its own docstring before it does anything, and
refuses an option it does not know in one line, without a traceback (`bench_spine.bench_options`).

Each script is run as a user runs it, so one that no longer imports (a module it reads from was
moved) fails here rather than the next time someone benchmarks."""

from __future__ import annotations

import ast
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import ROOT

SCRIPTS = sorted((ROOT / "benchmarks").glob("bench_*.py"))


def _run(script: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


@pytest.fixture(scope="module")
def answers() -> dict[tuple[str, str], subprocess.CompletedProcess[str]]:
    asked = [(script, arg) for script in SCRIPTS for arg in ("--help", "--no-such-option")]
    with ThreadPoolExecutor(max_workers=4) as pool:
        done = list(pool.map(lambda job: _run(*job), asked))
    return {(script.name, arg): answer for (script, arg), answer in zip(asked, done, strict=True)}


def test_the_benchmarks_are_found() -> None:
    assert len(SCRIPTS) >= 10
    assert ROOT / "benchmarks" / "bench_code.py" in SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.stem)
def test_help_prints_the_scripts_docstring_and_runs_nothing(
    script: Path, answers: dict[tuple[str, str], subprocess.CompletedProcess[str]]
) -> None:
    answer = answers[(script.name, "--help")]
    docstring = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8")))
    assert docstring
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.strip() == docstring.strip()
    assert "--write-docs" in docstring  # the docstring names the options


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.stem)
def test_an_unknown_option_is_refused_in_one_line(
    script: Path, answers: dict[tuple[str, str], subprocess.CompletedProcess[str]]
) -> None:
    answer = answers[(script.name, "--no-such-option")]
    assert answer.returncode == 2
    assert answer.stdout == ""
    assert answer.stderr.strip().splitlines() == [
        f"{script.name}: unknown option --no-such-option (see --help)"
    ]


def test_an_option_without_its_value_is_refused_in_one_line() -> None:
    answer = _run(ROOT / "benchmarks" / "bench_scale.py", "--scales")
    assert answer.returncode == 2
    assert answer.stderr.strip().splitlines() == [
        "bench_scale.py: --scales needs a value (see --help)"
    ]
    answer = _run(ROOT / "benchmarks" / "bench_scale.py", "--scales", "ten")
    assert answer.returncode == 2
    assert answer.stderr.strip().splitlines() == ["--scales ten: expected numbers, e.g. 1,10"]
