"""JSON text as `json.dumps(value, indent=2, ensure_ascii=False)` writes it, made faster.

With `indent`, the standard library encodes in Python generators, value by value; the whole
code's reports and its reconciliation hold millions of values. `indented_json` gives the same
characters by one recursive join, strings escaped by json's own C escaper (tests/test_jsontext.py
compares it with `json.dumps` on every report and card the workbench writes).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any

_escape: Callable[[str], str] = encode_basestring  # json's C escaper, as ensure_ascii=False uses


def indented_json(value: Any, indent: str = "") -> str:
    """`json.dumps(value, indent=2, ensure_ascii=False)` with every line after the first indented
    by `indent`, the same characters, made by one recursive join instead of json's generators (a
    whole code's reports are millions of values). Strings go through json's own C escaper; a
    float, a key that is not a string and any type JSON has no form for are left to `json.dumps`
    (its text, its TypeError)."""
    if isinstance(value, str):
        return _escape(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        return int.__repr__(value)
    inner = indent + "  "
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        items = [indented_json(v, inner) for v in value]
        return "[\n" + inner + (",\n" + inner).join(items) + "\n" + indent + "]"
    if isinstance(value, dict) and all(type(k) is str for k in value):
        if not value:
            return "{}"
        items = [_escape(k) + ": " + indented_json(v, inner) for k, v in value.items()]
        return "{\n" + inner + (",\n" + inner).join(items) + "\n" + indent + "}"
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + indent)
