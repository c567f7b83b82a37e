"""A researcher's own notebook copies (`workbench lab`, workbench/exports/lab.py): made outside the
tracked tree, parameters pointed at the workspace, kept across runs, and running one leaves the
repository as it was."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from workbench.errors import LabError
from workbench.exports.lab import copy_notebooks, parameter_names, parameters_cell_index

TEMPLATES = ROOT / "notebooks"


def _parameters(path: Path) -> dict[str, object]:
    cells = json.loads(path.read_bytes())["cells"]
    source = "".join(cells[parameters_cell_index(cells)]["source"])
    values: dict[str, object] = {}
    exec(source, {}, values)
    assert list(values) == list(dict.fromkeys(parameter_names(source)))
    return values


def _git_status(repository: Path = ROOT) -> str:
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=repository,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_copies_point_at_the_workspace_and_are_kept_as_left(tmp_path: Path) -> None:
    dest, workspace = tmp_path / "lab", tmp_path / "mine.sqlite"
    made = copy_notebooks(TEMPLATES, dest, root=ROOT, workspace=workspace)
    assert sorted(c.copy.name for c in made) == sorted(p.name for p in TEMPLATES.glob("*.ipynb"))
    assert all(c.made for c in made)
    review = _parameters(dest / "03-alignment-review.ipynb")
    assert review["ROOT"] == str(ROOT) and review["WORKSPACE"] == str(workspace.resolve())
    assert _parameters(TEMPLATES / "03-alignment-review.ipynb")["WORKSPACE"] != review["WORKSPACE"]
    edited = dest / "02-structure-measurement.ipynb"
    edited.write_bytes(edited.read_bytes() + b"\n")  # the researcher's own change
    before = edited.read_bytes()
    again = copy_notebooks(TEMPLATES, dest, root=ROOT, workspace=workspace)
    assert not any(c.made for c in again) and edited.read_bytes() == before


def test_a_corpus_of_ones_own_is_read_by_the_copies(tmp_path: Path) -> None:
    mine = tmp_path / "mycorpus"
    mine.mkdir()
    copy_notebooks(
        TEMPLATES, tmp_path / "lab", root=ROOT, workspace=tmp_path / "w.sqlite", corpus=mine
    )
    assert _parameters(tmp_path / "lab" / "01-explore-a-jurisdiction.ipynb")["CORPUS_FOLDERS"] == [
        str(mine.resolve())
    ]
    assert _parameters(tmp_path / "lab" / "06-candidate-search.ipynb")["STORE"] == str(
        mine.resolve()
    )


@pytest.mark.parametrize(
    ("templates", "dest", "message"),
    [
        pytest.param("empty", "out", "no notebook (*.ipynb) to copy", id="no-templates"),
        pytest.param(
            "notebooks",
            "notebooks/mine",
            "copies must live outside the templates' folder",
            id="inside-templates",
        ),
    ],
)
def test_copies_are_refused(tmp_path: Path, templates: str, dest: str, message: str) -> None:
    (tmp_path / "empty").mkdir()
    source = TEMPLATES if templates == "notebooks" else tmp_path / templates
    target = TEMPLATES / "mine" if dest == "notebooks/mine" else tmp_path / dest
    with pytest.raises(
        LabError, match=message.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")
    ):
        copy_notebooks(source, target, root=ROOT, workspace=tmp_path / "w.sqlite")
    assert not (TEMPLATES / "mine").exists()


def test_a_template_without_parameters_is_refused(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "source": "x = 1"}]}
    (tmp_path / "t" / "bad.ipynb").write_text(json.dumps(notebook))
    with pytest.raises(LabError, match=r"bad.ipynb: not a notebook with a parameters cell"):
        copy_notebooks(tmp_path / "t", tmp_path / "out", root=ROOT, workspace=tmp_path / "w")


@pytest.mark.slow
def test_the_readme_flow_in_a_fresh_clone_runs_a_copy_and_leaves_it_clean(tmp_path: Path) -> None:
    """`workbench lab` as the README runs it, in a fresh clone of this repository (the fetched
    corpus linked in, as `make` would fetch it): the copies go to the clone's ignored
    .workbench/notebooks/, a copy runs in a kernel, and `git status` of the clone stays clean."""
    # imported here, not at collection: nbformat's schema validator takes each worker a second
    import nbformat
    from nbclient import NotebookClient

    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    (clone / "corpus" / "real").symlink_to(ROOT / "corpus" / "real")
    (clone / ".git" / "info" / "exclude").write_text("/corpus/real\n", encoding="utf-8")
    before = _git_status(clone)
    lab = [sys.executable, "-m", "workbench", "lab", "--copy-only"]
    made = subprocess.run(lab, cwd=clone, capture_output=True, text=True, check=True)
    dest = clone / ".workbench" / "notebooks"
    assert made.stdout.startswith(f"notebooks in {dest}: ")
    copy = dest / "05-grounded-claims.ipynb"
    notebook = nbformat.read(copy, as_version=4)  # type: ignore[no-untyped-call]
    NotebookClient(notebook, timeout=600, resources={"metadata": {"path": str(dest)}}).execute()
    nbformat.write(notebook, copy)  # type: ignore[no-untyped-call]
    ran = copy.read_bytes()
    again = subprocess.run(lab, cwd=clone, capture_output=True, text=True, check=True)
    assert again.stdout.startswith(f"notebooks in {dest}: 0 copied from {clone / 'notebooks'}")
    assert copy.read_bytes() == ran  # a restart keeps the outputs
    assert sum(len(c.get("outputs", ())) for c in json.loads(ran)["cells"]) > 0
    assert _git_status(clone) == before == ""
