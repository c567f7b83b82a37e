"""The notebooks as committed: a parameters cell first, charts as images, no run writing the project.

These read the `.ipynb` files and their jupytext twins without running them (nbval runs them in
the suite, and the browser test opens one in JupyterLab). The overrides a test run applies come
from `notebooks/conftest.py`, loaded here by path as the script that re-makes outputs loads it.
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from workbench.exports import lab

from .conftest import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
# A parameter naming a file the notebook writes: a workspace (verdicts live in it) or a ledger.
WRITES = ("WORKSPACE", "LEDGER")


# notebooks/conftest.py run as a module of its own (the overrides' one home).
PARAMETERS = SimpleNamespace(**runpy.run_path(str(ROOT / "notebooks" / "conftest.py")))


def _read(path: Path) -> dict[str, Any]:
    notebook: dict[str, Any] = json.loads(path.read_bytes())
    return notebook


def _source(cell: dict[str, Any]) -> str:
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else str(source)


def _parameters(path: Path) -> tuple[str, dict[str, object]]:
    cells = _read(path)["cells"]
    source = _source(cells[lab.parameters_cell_index(cells)])
    values: dict[str, object] = {}
    exec(source, {}, values)
    return source, values


def test_all_six_notebooks_are_here() -> None:
    assert [p.stem[:2] for p in NOTEBOOKS] == ["01", "02", "03", "04", "05", "06"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_first_code_cell_holds_every_setting_and_nothing_reads_the_environment(
    path: Path,
) -> None:
    source, values = _parameters(path)
    assert lab.parameter_names(source) == list(values)
    assert {"ROOT", "INTERACTIVE_CHARTS"} <= set(values)
    assert values["INTERACTIVE_CHARTS"] is False  # committed outputs hold images only
    for cell in _read(path)["cells"]:
        assert "environ" not in _source(cell), f"{path.name}: settings come from the parameters"
    # The jupytext twin's first code cell is the same cell, tag and lines.
    twin = path.with_suffix(".py").read_text(encoding="utf-8").split("\n# %%")[1:]
    (first,) = [c for c in twin if not c.startswith(" [markdown]")][:1]
    header, _, body = first.partition("\n")
    assert header == ' tags=["parameters"]' and body.strip() == source.strip()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_charts_are_svg_and_png_and_no_output_loads_a_script(path: Path) -> None:
    charts = 0
    for cell in _read(path)["cells"]:
        outputs = cell.get("outputs", [])
        text = json.dumps(outputs)
        assert "vnd.vegalite" not in text and "cdn.jsdelivr" not in text
        assert "<script" not in text, f"{path.name}: an output carries a script"
        if "render_chart(" in _source(cell):
            (shown,) = [
                o for o in outputs if o["output_type"] in {"display_data", "execute_result"}
            ]
            assert set(shown["data"]) == {"image/svg+xml", "image/png", "text/plain"}
            assert "".join(shown["data"]["image/svg+xml"]).startswith("<svg")
            charts += 1
        else:
            assert "alt.Chart(" not in _source(cell), f"{path.name}: a chart not drawn offline"
    assert charts >= 1


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_test_run_sends_every_file_a_notebook_writes_to_its_scratch_folder(
    path: Path, tmp_path: Path
) -> None:
    source, defaults = _parameters(path)
    overrides = PARAMETERS.overrides_for(path.stem, tmp_path)
    writing = {name for name in defaults if name.endswith(WRITES)}
    assert set(overrides) == writing
    run: dict[str, object] = {}
    exec(lab.with_parameters(source, overrides), {}, run)
    for name in writing:
        assert Path(str(run[name])).parent == tmp_path
        assert not Path(str(run[name])).is_relative_to(ROOT)
    assert {k: v for k, v in run.items() if k not in writing} == {
        k: v for k, v in defaults.items() if k not in writing
    }


@pytest.mark.parametrize(
    ("source", "overrides", "error", "message"),
    [
        pytest.param(
            'WORKSPACE = "a.sqlite"\n',
            {"WORKSPAСE": "/tmp/x"},  # a Cyrillic С: not the parameter's name
            KeyError,
            "no parameter named WORKSPAСE (the cell defines ['WORKSPACE'])",
            id="unknown-name",
        ),
        pytest.param(
            'import os\nWORKSPACE = "a"\n',
            {},
            ValueError,
            "parameters cell line 1: only `NAME = literal` assignments belong here",
            id="a-statement-that-is-no-assignment",
        ),
        pytest.param(
            'WORKSPACE = os.environ["W"]\n',
            {},
            ValueError,
            "parameters cell line 1: WORKSPACE is not set to a literal value",
            id="a-value-that-is-no-literal",
        ),
    ],
)
def test_a_parameters_cell_that_cannot_be_overridden_safely_is_refused(
    source: str, overrides: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as refused:
        lab.with_parameters(source, overrides)
    assert refused.value.args[0] == message


def test_a_notebook_whose_first_code_cell_is_not_the_parameters_cell_is_refused() -> None:
    cells = [
        {"cell_type": "markdown", "metadata": {"tags": ["parameters"]}, "source": "# title"},
        {"cell_type": "code", "metadata": {}, "source": "import polars"},
        {"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": "A = 1"},
    ]
    with pytest.raises(ValueError) as refused:
        lab.parameters_cell_index(cells)
    assert str(refused.value) == "the first code cell is not tagged 'parameters'"
    assert lab.parameters_cell_index(cells[2:]) == 0
