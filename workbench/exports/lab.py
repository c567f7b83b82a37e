"""A researcher's own copies of the notebooks (C23): templates copied once into their corpus's
folder, each copy's `parameters` cell pointed at that corpus and workspace, never written again."""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.errors import LabError
from workbench.files import replace_file

PARAMETERS_TAG = "parameters"
SET_BY_LAB = "# Set by `workbench lab` for this copy"


@dataclass(frozen=True, slots=True, kw_only=True)
class NotebookCopy:
    """One template and the researcher's copy of it: `made` when this run wrote it."""

    template: Path
    copy: Path
    made: bool


def parameter_names(source: str) -> list[str]:
    """The names a parameters cell assigns, in order; `ValueError` for anything but assignments.

    A parameters cell holds only `NAME = literal` lines (with comments), so an override is an
    assignment after them and the cell can be read without running it.
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


def with_parameters(source: str, overrides: Mapping[str, object], comment: str = SET_BY_LAB) -> str:
    """A parameters cell's source with `overrides` assigned after its own lines, under `comment`.

    Raises `KeyError` for an override the cell does not define, so a renamed parameter cannot
    leave a run writing where the new name points.
    """
    known = parameter_names(source)
    unknown = sorted(set(overrides) - set(known))
    if unknown:
        raise KeyError(f"no parameter named {', '.join(unknown)} (the cell defines {known})")
    if not overrides:
        return source
    lines = [f"{name} = {value!r}" for name, value in overrides.items()]
    return "\n".join([source.rstrip("\n"), comment, *lines])


def parameters_cell_index(cells: Sequence[Mapping[str, Any]]) -> int:
    """The index of the notebook's first code cell, which must carry the `parameters` tag."""
    code = [i for i, cell in enumerate(cells) if cell["cell_type"] == "code"]
    metadata = cells[code[0]]["metadata"] if code else {}
    tags = metadata.get("tags", []) if isinstance(metadata, Mapping) else []
    if not code or PARAMETERS_TAG not in tags:
        raise ValueError(f"the first code cell is not tagged {PARAMETERS_TAG!r}")
    return code[0]


def lab_parameters(
    names: Sequence[str], *, root: Path, workspace: Path, corpus: Path | None
) -> dict[str, object]:
    """The parameters a copy gets, among those its cell defines: `ROOT` the repository, every
    `*WORKSPACE` the researcher's workspace, and with a corpus of their own its folder where a
    notebook names the folders it reads (`CORPUS_FOLDERS`, `STORE`). Paths are absolute, so a
    copy runs from any working folder."""
    wanted: dict[str, object] = {"ROOT": str(root.resolve())}
    for name in names:
        if name.endswith("WORKSPACE"):
            wanted[name] = str(workspace.resolve())
    if corpus is not None:
        wanted["CORPUS_FOLDERS"] = [str(corpus.resolve())]
        wanted["STORE"] = str(corpus.resolve())
    return {name: value for name, value in wanted.items() if name in names}


def copy_notebooks(
    templates: Path, dest: Path, *, root: Path, workspace: Path, corpus: Path | None = None
) -> tuple[NotebookCopy, ...]:
    """Copy every `*.ipynb` of `templates` into `dest` where no copy exists, with its parameters
    set (`lab_parameters`); a copy already there is kept as the researcher left it.

    Refused (`LabError`, one line): no notebook in `templates`; a template that is not a notebook
    with a tagged parameters cell; `dest` inside the folder of the templates.
    """
    found = sorted(templates.glob("*.ipynb"))
    if not found:
        raise LabError(f"{templates}: no notebook (*.ipynb) to copy")
    if dest.resolve().is_relative_to(templates.resolve()):
        raise LabError(f"{dest}: copies must live outside the templates' folder {templates}")
    dest.mkdir(parents=True, exist_ok=True)
    copies = []
    for template in found:
        copy = dest / template.name
        if copy.exists():
            copies.append(NotebookCopy(template=template, copy=copy, made=False))
            continue
        replace_file(copy, _parametrized(template, root=root, workspace=workspace, corpus=corpus))
        copies.append(NotebookCopy(template=template, copy=copy, made=True))
    return tuple(copies)


def _parametrized(template: Path, *, root: Path, workspace: Path, corpus: Path | None) -> bytes:
    try:
        notebook = json.loads(template.read_bytes())
        cells = notebook["cells"]
        cell = cells[parameters_cell_index(cells)]
        source = cell["source"]
        source = "".join(source) if isinstance(source, list) else source
        overrides = lab_parameters(
            parameter_names(source), root=root, workspace=workspace, corpus=corpus
        )
        cell["source"] = with_parameters(source, overrides)
    except (ValueError, KeyError, TypeError) as exc:
        raise LabError(f"{template}: not a notebook with a parameters cell ({exc})") from exc
    # nbformat's own layout (one-space indent, keys sorted), so the copy opens as written
    return (json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()
