"""The notebooks' test run: nbval executes every notebook with its writing parameters overridden.

Each notebook's first code cell is tagged `parameters` (papermill's convention) and holds every
setting as a plain assignment. A run that must not touch the project's own files (nbval in the
suite, `scripts/execute_notebooks.py` when the committed outputs are re-made, the browser test)
overrides parameters the way papermill does: assignments appended after the cell's own, so a
notebook carries no test switch and reads no environment variable. `overrides_for` names them:
every file a notebook would write in the project (a workspace, and the verdict log inside it) goes
to a fresh temporary folder instead; every other parameter keeps the value the notebook shows.

Every notebook cell is marked `slow`: `make check` leaves the notebook runs out, `make test` runs
them.

This file is not a notebook; it is loaded by pytest for `notebooks/`, and by path by the script
and the browser test, so the overrides have one home.
"""

from __future__ import annotations

import ast
import copy
import functools
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

import pytest

PARAMETERS_TAG = "parameters"
# The kernels read scanned pages through the OCR cache `make measure` and the test suite use, so
# a notebook that ingests the corpus into a fresh workspace does not read the scans again.
os.environ.setdefault(
    "WORKBENCH_OCR_CACHE", str(Path(__file__).resolve().parents[1] / ".workbench" / "ocr-cache")
)


def overrides_for(notebook: str, scratch: Path) -> dict[str, object]:
    """The parameters a test run of `notebook` (its file stem) overrides, each under `scratch`.

    Only files the notebook writes in the project are overridden; a notebook that writes only to
    its own temporary folder gets no override.
    """
    writes = {
        "03-alignment-review": {"WORKSPACE": scratch / "review-workspace.sqlite"},
        "06-candidate-search": {"WORKSPACE": scratch / "notebook-06.sqlite"},
    }
    return {name: str(path) for name, path in writes.get(notebook, {}).items()}


def parameter_names(source: str) -> list[str]:
    """The names a parameters cell assigns, in order; `ValueError` for anything but assignments.

    A parameters cell holds only `NAME = literal` lines (with comments), so that an override is
    an assignment after them and the cell can be read without running it.
    """
    names = []
    for statement in ast.parse(source).body:
        if not (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            raise ValueError(
                f"parameters cell line {statement.lineno}: only `NAME = literal` assignments belong here"
            )
        name = statement.targets[0].id
        try:
            ast.literal_eval(statement.value)
        except ValueError:
            raise ValueError(
                f"parameters cell line {statement.lineno}: {name} is not set to a literal value"
            ) from None
        names.append(name)
    return names


def with_parameters(source: str, overrides: Mapping[str, object]) -> str:
    """A parameters cell's source with `overrides` assigned after its own lines.

    Raises `KeyError` for an override the cell does not define, so a renamed parameter cannot
    leave a test run writing where the new name points.
    """
    known = parameter_names(source)
    unknown = sorted(set(overrides) - set(known))
    if unknown:
        raise KeyError(f"no parameter named {', '.join(unknown)} (the cell defines {known})")
    if not overrides:
        return source
    lines = [f"{name} = {value!r}" for name, value in overrides.items()]
    return "\n".join(
        [source.rstrip("\n"), "# Overridden for this run (notebooks/conftest.py)", *lines]
    )


def parameters_cell_index(cells: list[Mapping[str, object]]) -> int:
    """The index of the notebook's first code cell, which must carry the `parameters` tag."""
    code = [i for i, cell in enumerate(cells) if cell["cell_type"] == "code"]
    metadata = cells[code[0]]["metadata"] if code else {}
    tags = metadata.get("tags", []) if isinstance(metadata, Mapping) else []
    if not code or PARAMETERS_TAG not in tags:
        raise ValueError(f"the first code cell is not tagged {PARAMETERS_TAG!r}")
    return code[0]


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
        overridden = copy.deepcopy(cell)
        overridden.source = with_parameters(cell.source, overrides_for(notebook, scratch))
        item.cell = overridden  # type: ignore[attr-defined]
