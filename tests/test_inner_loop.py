"""The split between `make check` and `make test`, read from the tests' source (docs/development.md).

`make check` runs every test not marked `slow`; it must still fail when a package breaks, so every
package of `workbench/` keeps a test outside the slow set, in a module that imports the package,
that reads real documents: through a fixture that holds real ones (`REAL_DATA`, followed through
the fixtures it depends on) or the fetched store's paths (`REAL_PATHS`). A test is slow when it, its
class or its module carries `pytest.mark.slow`; collection marks more (tests/conftest.py), never
fewer, so what this finds outside the slow set may be more than `make check` runs, never less.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import CORPUS_FIXTURES, ROOT, nodes, parsed
from tests.test_layers import LAYERS

TESTS = ROOT / "tests"
PACKAGE = ROOT / "workbench"
# The fixtures of tests/conftest.py that hold real documents (not the whole corpus: those are
# CORPUS_FIXTURES, whose tests are slow), and the names of the fetched store's folders.
REAL_DATA = frozenset({"workspace", "document_workspace", "fresh_workspace", "catalogue"})
REAL_PATHS = frozenset({"STORE", "CORPUS_DIR", "REFUSED_STORE"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Found:
    """One test function: where it is, whether it is marked slow, whether it reads real data."""

    module: str  # its path below the repository
    name: str
    slow: bool
    real: bool


def _marks_slow(decorators: list[ast.expr]) -> bool:
    """Whether a decorator list holds `pytest.mark.slow` (called or not)."""
    for decorator in decorators:
        node = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(node, ast.Attribute) and node.attr == "slow":
            return True
    return False


def _fixture_arguments(tree: ast.Module) -> dict[str, frozenset[str]]:
    """Each fixture the module defines (a function decorated `pytest.fixture`), by name: the
    names of its arguments (the fixtures it depends on)."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(
            "fixture" in ast.unparse(d) for d in node.decorator_list
        ):
            found[node.name] = frozenset(a.arg for a in node.args.args)
    return found


def _reaches(names: frozenset[str], fixtures: dict[str, frozenset[str]]) -> bool:
    """Whether these fixture names, or any fixture they depend on, hold real documents."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in REAL_DATA or name in CORPUS_FIXTURES:
            return True
        todo += fixtures.get(name, ())
    return False


def _uses_paths(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and n.id in REAL_PATHS for n in ast.walk(node))


def _module_slow(tree: ast.Module) -> bool:
    """Whether the module sets `pytestmark` to (a list holding) `pytest.mark.slow`."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            value = node.value
            marks = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
            return _marks_slow(marks)
    return False


def read_tests(path: Path, shared: dict[str, frozenset[str]]) -> Iterator[Found]:
    """The test functions of one module (top level and in `Test` classes)."""
    tree = parsed(path)
    fixtures = {**shared, **_fixture_arguments(tree)}
    module_slow = _module_slow(tree)
    module = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    for node in tree.body:
        owners: list[tuple[ast.stmt, bool]]
        if isinstance(node, ast.ClassDef):
            owners = [(item, _marks_slow(node.decorator_list)) for item in node.body]
        else:
            owners = [(node, False)]
        for item, class_slow in owners:
            if not isinstance(item, ast.FunctionDef) or not item.name.startswith("test"):
                continue
            arguments = frozenset(a.arg for a in item.args.args)
            yield Found(
                module=module,
                name=item.name,
                slow=module_slow or class_slow or _marks_slow(item.decorator_list),
                real=_reaches(arguments, fixtures) or _uses_paths(item),
            )


def imported_packages(path: Path) -> frozenset[str]:
    """The packages of `workbench/` a test module imports (anywhere in it)."""
    found = set()
    for node in nodes(path):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "workbench" and len(parts) > 1:
                found.add(parts[1])
    return frozenset(found)


def packages() -> list[str]:
    """Every package directly under `workbench/` (a folder with an `__init__.py`)."""
    return sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))


def inner_loop_coverage() -> dict[str, list[str]]:
    """Each package of `workbench/`: the modules holding a test outside the slow set that reads
    real documents and whose module imports the package."""
    shared = _fixture_arguments(parsed(TESTS / "conftest.py"))
    covered: dict[str, list[str]] = {name: [] for name in packages()}
    for path in sorted(TESTS.rglob("test_*.py")):
        quick_real = [t for t in read_tests(path, shared) if t.real and not t.slow]
        if not quick_real:
            continue
        for package in sorted(imported_packages(path) & covered.keys()):
            covered[package].append(quick_real[0].module)
    return covered


def test_every_package_keeps_real_data_tests_in_the_inner_loop() -> None:
    covered = inner_loop_coverage()
    stages = {stage for _, names in LAYERS for stage in names}
    assert set(covered) == {name for name in stages if (PACKAGE / name).is_dir()}
    assert {name: modules for name, modules in covered.items() if not modules} == {}


@pytest.mark.parametrize(
    ("source", "slow", "real"),
    [
        pytest.param(
            "def test_a(workspace):\n    pass\n", False, True, id="real-data fixture, not slow"
        ),
        pytest.param(
            "import pytest\n@pytest.mark.slow\ndef test_a(workspace):\n    pass\n",
            True,
            True,
            id="marked slow",
        ),
        pytest.param(
            "import pytest\npytestmark = [pytest.mark.slow]\ndef test_a(catalogue):\n    pass\n",
            True,
            True,
            id="module marked slow",
        ),
        pytest.param(
            "import pytest\n@pytest.fixture\ndef held(workspace):\n    return workspace\n"
            "def test_a(held):\n    pass\n",
            False,
            True,
            id="through a fixture of its module",
        ),
        pytest.param(
            "from tests.conftest import STORE\ndef test_a():\n    assert STORE.is_dir()\n",
            False,
            True,
            id="the fetched store's path",
        ),
        pytest.param("def test_a(tmp_path):\n    pass\n", False, False, id="no real data"),
        pytest.param(
            "import pytest\nclass TestA:\n    def test_a(self, workspace):\n        pass\n",
            False,
            True,
            id="in a class",
        ),
    ],
)
def test_the_reading_sees_each_kind_of_test(
    source: str, slow: bool, real: bool, tmp_path: Path
) -> None:
    path = tmp_path / "test_made_up.py"
    path.write_text(source, encoding="utf-8")
    shared = _fixture_arguments(parsed(TESTS / "conftest.py"))
    (found,) = read_tests(path, shared)
    assert (found.slow, found.real) == (slow, real)
