"""The notebooks' test run: nbval executes every notebook with its writing parameters overridden.

Each notebook's first code cell is tagged `parameters` (papermill's convention) and holds every
setting as a plain assignment. A run that must not touch the project's own files (nbval in the
suite, `scripts/execute_notebooks.py` when the committed outputs are re-made, the browser test)
overrides parameters the way papermill does: assignments appended after the cell's own, so a
notebook carries no test switch and reads no environment variable. `overrides_for` names them:
every file a notebook would write in the project (a workspace, and the verdict log inside it) goes
to a fresh temporary folder instead; every other parameter keeps the value the notebook shows.
A notebook that measures the whole corpus opens, there, a copy of the whole-corpus workspace the
run's tests hold, measured, with its measure cache beside it (tests/conftest.py ingests and
measures it once per run), as a researcher's notebook opens the workspace `make measure` filled,
instead of ingesting and measuring every document again.

Every notebook cell is marked `slow`: `make check` leaves the notebook runs out, `make test` runs
them.

This file is not a notebook; it is loaded by pytest for `notebooks/`, and by path by the script
and the browser test, so the overrides have one home.
"""

from __future__ import annotations

import copy
import functools
import os
import runpy
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from workbench.exports.lab import (  # one home: the package
    PARAMETERS_TAG,
    with_parameters,
)

ROOT = Path(__file__).resolve().parents[1]
# The kernels read scanned pages through the OCR cache `make measure` and the test suite use, so
# a notebook that ingests the corpus into a fresh workspace does not read the scans again.
os.environ.setdefault("WORKBENCH_OCR_CACHE", str(ROOT / ".workbench" / "ocr-cache"))


TEST_RUN_COMMENT = "# Overridden for this run (notebooks/conftest.py)"
# The notebooks whose overridden WORKSPACE starts as a copy of the run's whole-corpus workspace.
OPEN_THE_CORPUS_WORKSPACE = frozenset({"02-structure-measurement"})
_OPENED = pytest.StashKey[Path]()  # on a parameters cell: the copy made before it runs


def overrides_for(notebook: str, scratch: Path) -> dict[str, object]:
    """The parameters a test run of `notebook` (its file stem) overrides, each under `scratch`.

    Only files the notebook writes in the project are overridden; a notebook that writes only to
    its own temporary folder gets no override.
    """
    writes = {
        "02-structure-measurement": {"WORKSPACE": scratch / "workspace.sqlite"},
        "03-alignment-review": {"WORKSPACE": scratch / "review-workspace.sqlite"},
        "06-candidate-search": {"WORKSPACE": scratch / "notebook-06.sqlite"},
    }
    return {name: str(path) for name, path in writes.get(notebook, {}).items()}


@pytest.hookimpl(tryfirst=True)  # before `-m` selects: the notebook runs are marked slow
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every notebook cell (an nbval item) slow, and give each notebook's parameters cell its
    overrides and a scratch folder."""
    for item in items:
        if Path(str(item.path)).suffix == ".ipynb":
            item.add_marker(pytest.mark.slow)
        cell = getattr(item, "cell", None)
        if cell is None or PARAMETERS_TAG not in cell.metadata.get("tags", []):
            continue
        notebook = Path(str(item.path)).stem
        scratch = Path(tempfile.mkdtemp(prefix=f"wb-nbval-{notebook}-"))
        config.add_cleanup(functools.partial(shutil.rmtree, scratch, ignore_errors=True))
        overrides = overrides_for(notebook, scratch)
        overridden = copy.deepcopy(cell)
        overridden.source = with_parameters(cell.source, overrides, TEST_RUN_COMMENT)
        item.cell = overridden  # type: ignore[attr-defined]
        if notebook in OPEN_THE_CORPUS_WORKSPACE:
            item.stash[_OPENED] = Path(str(overrides["WORKSPACE"]))


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before a parameters cell whose notebook opens the whole-corpus workspace runs, copy that
    workspace, measured, where the cell's WORKSPACE points, and its measure cache beside it (the
    first worker to need it builds it; tests/conftest.py, as this run loaded it or else by path,
    is its one home)."""
    target = item.stash.get(_OPENED, None)
    if target is None:
        return
    loaded = sys.modules.get("tests.conftest")  # loaded when the run collects tests/ too
    shared = (
        vars(loaded) if loaded is not None else runpy.run_path(str(ROOT / "tests" / "conftest.py"))
    )
    shared["corpus_measured_copy"](item.config._tmp_path_factory, target)  # type: ignore[attr-defined]
