"""The changes package names its verbs (`workbench.changes`), each the object its home module
holds, loaded at first use; no verb is spelled like a module of the package, and importing the
package loads no heavy library. `check_stage_package` serves every stage package's test."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys

import workbench

HEAVY = ("numpy", "polars", "altair", "pypdfium2", "rapidfuzz", "dask", "ipywidgets", "scipy")


def check_stage_package(name: str) -> None:
    """The rules above for the package `name` (e.g. "workbench.changes")."""
    loaded = subprocess.run(
        [sys.executable, "-c", f"import json, sys, {name}; print(json.dumps(sorted(sys.modules)))"],
        check=True,
        capture_output=True,
        text=True,
    )
    heavy = {m.split(".")[0] for m in json.loads(loaded.stdout)} & set(HEAVY)
    assert sorted(heavy) == []
    package = importlib.import_module(name)
    homes: dict[str, str] = package._HOME
    modules = {m.name for m in pkgutil.iter_modules(package.__path__)}
    assert sorted(set(homes) & modules) == []
    assert package.__all__ == sorted(homes)
    for verb, home in homes.items():
        module, _, attribute = home.partition(":")
        assert module.startswith(f"{name}.")
        assert getattr(package, verb) is getattr(importlib.import_module(module), attribute or verb)
    # A verb the top-level package names from this stage is the same object.
    for verb, home in workbench._HOME.items():
        if home.startswith(f"{name}.") and verb in homes:
            assert getattr(workbench, verb) is getattr(package, verb)


def test_the_changes_package_names_its_verbs() -> None:
    check_stage_package("workbench.changes")
