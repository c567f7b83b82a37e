"""One home per rule: front matter, the found/ambiguous/missing rule and strict JSON are each
defined in exactly one module of the package, and every other module calls it.

Read off the source with `ast` (nothing is imported), over every module of `workbench/`. Each
check lists the places that define or re-implement its rule and asserts that the list is exactly
the home: a copy elsewhere, or a home that moved, fails.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator

import pytest

from tests.conftest import ROOT, nodes

PACKAGE = ROOT / "workbench"
FRONT_MATTER = "workbench/text/frontmatter.py"
OCCURRENCE_RULE = "workbench/cite/index.py"
STRICT_JSON = "workbench/bounds.py"

Site = tuple[str, int]  # (module path relative to the repository, line)


def _modules() -> Iterator[tuple[str, tuple[ast.AST, ...]]]:
    """Every module of the package, as its path and every node of its tree."""
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(ROOT).as_posix(), nodes(path)


def _defines(names: frozenset[str]) -> Callable[[ast.AST], bool]:
    """A function or class named one of `names`, or a module-level name assigned under it."""

    def found(node: ast.AST) -> bool:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            return node.name in names
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        return any(isinstance(t, ast.Name) and t.id in names for t in targets)

    return found


def _string(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes):
        value = node.value
        return value.decode("latin-1") if isinstance(value, bytes) else value
    return None


def _reads_a_marker(node: ast.AST) -> bool:
    """A line compared with a front-matter marker (`---`, `...`), or a text searched for one
    (`startswith`, `find`, `index` and the like with `---` at the start of a line)."""
    if isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        return any((_string(o) or "").strip() in ("---", "...") for o in operands) or any(
            isinstance(o, ast.Tuple | ast.List | ast.Set)
            and any((_string(e) or "").strip() == "---" for e in o.elts)
            for o in operands
        )
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("startswith", "endswith", "find", "rfind", "index", "split")
        and node.args
    ):
        needle = _string(node.args[0]) or ""
        return needle.startswith("---") or "\n---" in needle
    return False


def _compiles_a_field_line(node: ast.AST) -> bool:
    """A regular expression that reads a header's `field: value` line: it takes the field's name
    and its value from `document_sha256: abc` and accepts `pointer:` with no value."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "compile"
        and node.args
    ):
        return False
    pattern = _string(node.args[0])
    if pattern is None:
        return False
    try:
        compiled = re.compile(pattern)
    except re.error:
        return False
    set_, unset = compiled.fullmatch("document_sha256: abc"), compiled.fullmatch("pointer:")
    return bool(
        set_
        and unset
        and compiled.groups >= 2
        and set_.group(1) == "document_sha256"
        and set_.group(2) == "abc"
        and unset.group(1) == "pointer"
    )


def _spells_the_occurrence_statuses(node: ast.AST) -> bool:
    """A `Literal[...]` holding both `found` and `no_such_occurrence`: the rule's outcomes."""
    if not (isinstance(node, ast.Subscript) and getattr(node.value, "id", None) == "Literal"):
        return False
    inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    spelled = {_string(e) for e in inner}
    return {"found", "no_such_occurrence"} <= spelled


def _passes_a_strict_hook(node: ast.AST) -> bool:
    """A call handing JSON's reader the hooks that make it strict (duplicate keys, NaN)."""
    return isinstance(node, ast.Call) and any(
        k.arg in ("object_pairs_hook", "parse_constant") for k in node.keywords
    )


def _sites(matches: Callable[[ast.AST], bool]) -> list[Site]:
    return [
        (relative, getattr(node, "lineno", 0))
        for relative, nodes in _modules()
        for node in nodes
        if matches(node)
    ]


@pytest.mark.parametrize(
    ("matches", "home"),
    [
        pytest.param(
            _defines(frozenset({"front_matter_end", "read_header", "FIELD_LINE"})),
            FRONT_MATTER,
            id="front-matter-reader-and-field-line-defined-once",
        ),
        pytest.param(_reads_a_marker, FRONT_MATTER, id="front-matter-markers-read-once"),
        pytest.param(_compiles_a_field_line, FRONT_MATTER, id="field-line-regex-compiled-once"),
        pytest.param(
            _defines(frozenset({"find_text", "OccurrenceStatus"})),
            OCCURRENCE_RULE,
            id="occurrence-rule-defined-once",
        ),
        pytest.param(
            _spells_the_occurrence_statuses, OCCURRENCE_RULE, id="occurrence-statuses-spelled-once"
        ),
        pytest.param(_defines(frozenset({"strict_json"})), STRICT_JSON, id="strict-json-once"),
        pytest.param(_passes_a_strict_hook, STRICT_JSON, id="strict-json-hooks-passed-once"),
    ],
)
def test_a_rule_has_one_home(matches: Callable[[ast.AST], bool], home: str) -> None:
    # Found in its home (the matcher sees the rule), and nowhere else.
    sites = _sites(matches)
    assert {module for module, _ in sites} == {home}, sites


def test_the_home_of_front_matter_is_below_every_reader_of_it() -> None:
    # text reads a document's front matter for its passages, so the reader lives in text (not in
    # notes) and every reader imports it from there.
    readers = sorted(
        relative
        for relative, nodes in _modules()
        for node in nodes
        if isinstance(node, ast.ImportFrom) and node.module == "workbench.text.frontmatter"
    )
    assert readers == [
        "workbench/notes/note.py",
        "workbench/notes/report.py",
        "workbench/notes/snapshot.py",
        "workbench/text/induce.py",
        "workbench/text/lines.py",
    ]


def test_each_matcher_sees_a_copy_of_its_rule() -> None:
    # The checks are only as good as their matchers: each recognizes the rule it looks for.
    copies = {
        "field line": "import re\nX = re.compile(r'([A-Za-z0-9_]+):(?:[ ]+(.*))?')\n",
        "marker": "def f(line):\n    return line.strip() == '---'\n",
        "statuses": "from typing import Literal\nS = Literal['found', 'no_such_occurrence']\n",
        "hook": "import json\njson.loads('{}', object_pairs_hook=dict)\n",
    }
    matchers = {
        "field line": _compiles_a_field_line,
        "marker": _reads_a_marker,
        "statuses": _spells_the_occurrence_statuses,
        "hook": _passes_a_strict_hook,
    }
    for name, source in copies.items():
        assert any(matchers[name](node) for node in ast.walk(ast.parse(source))), name
