"""The stage packages name their verbs: each resolves to its home module, none is spelled like a
module of its package (importing the module would hide it), and importing a package loads no heavy
library (the verbs that need one load it when first asked for)."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import pytest

from tests.cli.test_startup import HEAVY, _loaded

PACKAGES = [
    pytest.param("workbench.corpus", id="corpus"),
    pytest.param("workbench.text", id="text"),
    pytest.param("workbench.exports", id="exports"),
    pytest.param("workbench.evals", id="evals"),
]


@pytest.mark.parametrize("name", PACKAGES)
def test_every_verb_is_its_home_modules_and_no_module_hides_one(name: str) -> None:
    package = importlib.import_module(name)
    modules = sorted(m.name for m in pkgutil.iter_modules(package.__path__))
    for module in modules:  # every submodule imported, so a verb it shadowed would show
        importlib.import_module(f"{name}.{module}")
    assert package.__all__ == sorted(package.__all__)
    assert sorted(set(package.__all__) & set(modules)) == []
    for verb in package.__all__:
        value = getattr(package, verb)
        assert not isinstance(value, ModuleType), verb
        home = importlib.import_module(value.__module__)
        assert value.__module__.startswith(name + ".") and getattr(home, verb) is value, verb


@pytest.mark.parametrize("name", PACKAGES)
def test_importing_a_package_loads_no_heavy_library(name: str) -> None:
    loaded = _loaded(f"import {name}\n{name}.__all__")
    assert sorted(loaded & {*HEAVY, "lxml"}) == []
