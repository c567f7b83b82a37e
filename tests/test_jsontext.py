"""`jsontext.indented_json` writes the characters `json.dumps(indent=2, ensure_ascii=False)`
writes: on every JSON report and card `make measure` committed, and on the values JSON treats
specially (empty containers, escapes, line separators, floats, keys that are not strings)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from workbench.evals.cards import scorecard_bytes
from workbench.jsontext import indented_json

COMMITTED = sorted((ROOT / "measurements").glob("*.json"))


def _dumps(value: Any, indent: str = "") -> str:
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + indent)


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.name)
def test_every_committed_report_is_written_as_json_dumps_writes_it(path: Path) -> None:
    data = path.read_bytes()
    value = json.loads(data)
    assert indented_json(value) == _dumps(value)
    assert scorecard_bytes(value) == data


EDGES: list[Any] = [
    [],
    {},
    [[], {}, [[]], {"a": {}}],
    {'é\u2028\u0085"\\\n\t\x00': ["\u2029", "😀", ""]},
    [1.5, -0.0, 1e300, 10**30, -7, True, False, None],
    {1: "int key", 2.5: "float key", None: "none key", False: "bool key"},
    ("a", ("b",)),
]


@pytest.mark.parametrize("value", EDGES, ids=range(len(EDGES)))
def test_edge_values_match_json_dumps_at_any_indent(value: Any) -> None:
    assert indented_json(value) == _dumps(value)
    assert indented_json(value, "    ") == _dumps(value, "    ")


def test_what_json_cannot_write_is_its_own_type_error() -> None:
    with pytest.raises(TypeError):
        indented_json({"a": {1, 2}})
