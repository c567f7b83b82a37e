"""`workbench.measure` names every public name of its modules and loads each at first use."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys

import workbench.measure
from tests.cli.test_startup import HEAVY
from tests.conftest import ROOT


def _typed_names() -> dict[str, str]:
    """The names the package imports for the type checker, each with its module."""
    tree = ast.parse((ROOT / "workbench" / "measure" / "__init__.py").read_bytes())
    return {
        alias.name: node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module
        and node.module.startswith("workbench.measure.")
        for alias in node.names
    }


def test_every_name_is_listed_once_and_resolves_to_its_home() -> None:
    homes = workbench.measure._HOME
    names = workbench.measure.__all__
    assert len(names) == len(set(names)) and set(names) == set(homes)
    assert _typed_names() == homes
    for name, home in homes.items():
        assert getattr(workbench.measure, name) is getattr(importlib.import_module(home), name)


def test_importing_the_package_or_a_light_module_loads_nothing_heavy() -> None:
    code = (
        "import sys, json, workbench.measure, workbench.measure.charts\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    listing = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=ROOT
    )
    loaded = {name.split(".")[0] for name in json.loads(listing.stdout)}
    assert sorted(loaded & set(HEAVY)) == []
    assert "workbench.changes.diff" not in json.loads(listing.stdout)
