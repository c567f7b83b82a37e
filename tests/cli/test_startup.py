"""Start-up: building the command line loads no heavy library.

A fresh interpreter imports `workbench.cli` (what `workbench --help` does before parsing) and
lists every module it loaded; none of the libraries only some commands need may be among them.
The speed itself is a benchmark's business (benchmarks/bench_startup.py), not a test's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, FreshWorkspace
from workbench.corpus import read_catalogue
from workbench.history.dating import cite_quote
from workbench.text.normalize import LONG_TEXT

HEAVY = ("numpy", "polars", "altair", "pypdfium2", "rapidfuzz", "dask", "ipywidgets")


def _loaded(code: str) -> set[str]:
    listing = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport json, sys; print(json.dumps(sorted(sys.modules)))"],
        check=True,
        capture_output=True,
        text=True,
    )
    return {name.split(".")[0] for name in json.loads(listing.stdout.splitlines()[-1])}


def test_importing_the_command_line_loads_no_heavy_library() -> None:
    loaded = _loaded("import workbench.cli\nworkbench.cli.build_parser()")
    assert "workbench" in loaded
    assert sorted(loaded & set(HEAVY)) == []


def test_importing_the_package_loads_no_heavy_library() -> None:
    loaded = _loaded("import workbench\nworkbench.__all__")
    assert sorted(loaded & set(HEAVY)) == []


def test_the_guard_sees_a_heavy_library_when_one_loads() -> None:
    # The listing is real: asking for a verb that needs rapidfuzz loads it.
    assert "rapidfuzz" in _loaded("import workbench\nworkbench.diff_versions")


def test_every_package_verb_resolves_to_its_home() -> None:
    import importlib

    import workbench

    for name, home in workbench._HOME.items():
        module, _, attribute = home.partition(":")
        assert getattr(workbench, name) is getattr(
            importlib.import_module(module), attribute or name
        )
    assert set(workbench.__all__) == set(workbench._HOME) <= set(dir(workbench))
    with pytest.raises(AttributeError, match="no attribute 'segment_versions'"):
        getattr(workbench, "segment_versions")  # noqa: B009


def test_a_plain_verification_loads_no_numpy(
    fresh_workspace: FreshWorkspace, tmp_path: Path
) -> None:
    """One citation verified by the command in a fresh interpreter: the normalizer's array pass
    (numpy) stays out of a single verification, however long the version it counts in."""
    rows = [r for r in read_catalogue(ROOT / "corpus") if r.jurisdiction == "ietf"]
    row = max(rows, key=lambda r: r.size)
    held = tmp_path / "workspace.sqlite"
    with fresh_workspace([row], held) as workspace:
        text = workspace.version(row.path).text
        line = next(line for line in text.split("\n") if len(line.strip()) > 20).strip()
        citation = cite_quote(workspace, line, row.path, occurrence=1).citation_json()
    citations = tmp_path / "one.jsonl"
    citations.write_text(json.dumps(citation) + "\n", encoding="utf-8")
    assert len(text) >= 10 * LONG_TEXT  # a whole version the array pass would once have read
    argv = ["verify", str(citations), "--workspace", str(held)]
    loaded = _loaded(f"from workbench.cli import main\nassert main({argv!r}) == 0")
    assert "workbench" in loaded and "numpy" not in loaded
