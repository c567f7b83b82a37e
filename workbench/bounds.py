"""How large a number and how deep a nesting the workbench reads (C14): the one reader of bounded
integers, the nesting depth of JSON and TOML measured before a recursive reader, and `strict_json`.
Every bound and why: docs/security.md."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

# The largest integer SQLite holds (a signed 64-bit integer): every offset, count, size and order
# the workbench stores fits, and an integer of thousands of digits is refused before Python's
# own limit (4,300 digits) answers with a traceback.
MAX_INTEGER = 2**63 - 1
MAX_INTEGER_DIGITS = len(str(MAX_INTEGER))
# Arrays and objects (JSON), arrays and inline tables (TOML) inside one another. The deepest file
# the workbench writes or reads (a W3C annotation's selector refined by another) nests under ten;
# Python's readers recurse once a level and stop with a RecursionError near a thousand.
MAX_NESTING = 64

_DIGITS = re.compile(r"-?[0-9]+")
# What may hold a bracket without opening anything: a string (and, in TOML, a comment).
_JSON_SKIPPED = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
_TOML_SKIPPED = re.compile(
    r'"""(?:[^\\]|\\.)*?"""|\'\'\'.*?\'\'\'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|\'[^\'\n]*\'|#[^\n]*'
    r"|[\[\]{}]",
    re.DOTALL,
)


def read_integer(text: str, error: Callable[[str], Exception], *, least: int = 0) -> int:
    """`text` as an integer: an optional `-`, then ASCII digits, from `least` to `MAX_INTEGER`;
    else `error(...)` saying what was expected. The digits are counted before they are read."""
    expected = (
        f"expected a whole number of at least {least}"
        if least >= 0
        else f"expected an integer from {least} to {MAX_INTEGER}"
    )
    if not _DIGITS.fullmatch(text):
        raise error(f"{_shown(text)}: {expected}")
    if len(text.lstrip("-")) > MAX_INTEGER_DIGITS or not least <= int(text) <= MAX_INTEGER:
        raise error(
            f"{_shown(text)}: expected {'a whole number' if least >= 0 else 'an integer'} from {least} to {MAX_INTEGER}"
        )
    return int(text)


def _shown(text: str) -> str:
    """`text` quoted, its middle left out past 40 characters (an integer of 5,000 digits)."""
    return repr(text) if len(text) <= 40 else f"{text[:20]!r}…{text[-10:]!r} ({len(text)} chars)"


def check_json_nesting(text: str, error: Callable[[str], Exception]) -> None:
    """`error(...)` naming the line and column where `text`'s JSON nests deeper than
    `MAX_NESTING`; nothing otherwise. Brackets inside strings do not count."""
    _check_nesting(text, _JSON_SKIPPED, error)


def check_toml_nesting(text: str, error: Callable[[str], Exception]) -> None:
    """As `check_json_nesting`, for TOML: brackets in strings and comments do not count; a table
    header (`[[levels]]`) counts while it is open, so it never reaches the bound."""
    _check_nesting(text, _TOML_SKIPPED, error)


def _check_nesting(text: str, tokens: re.Pattern[str], error: Callable[[str], Exception]) -> None:
    if text.count("[") + text.count("{") <= MAX_NESTING:
        return  # cannot nest deeper than the brackets it holds
    depth = 0
    for token in tokens.finditer(text):
        bracket = token.group()
        if bracket in "[{":
            depth += 1
            if depth > MAX_NESTING:
                at = token.start()
                line = text.count("\n", 0, at) + 1
                column = at - (text.rfind("\n", 0, at) + 1) + 1
                raise error(f"line {line} column {column}: nested deeper than {MAX_NESTING} levels")
        elif bracket in "]}":
            depth -= 1


def strict_json(text: str, error: Callable[[str], Exception]) -> Any:
    """`json.loads(text)`, refusing what Python's reader accepts and strict JSON does not: a key
    that appears twice in one object (`error("field 'k' appears twice")`) and NaN, Infinity or
    -Infinity (`error("NaN is not a JSON number")`); and, by `error`, nesting deeper than
    `MAX_NESTING` and an integer beyond `MAX_INTEGER` either way (`read_integer`). Malformed JSON
    still raises `json.JSONDecodeError`; every reader of JSON a person or another program wrote
    calls this."""
    check_json_nesting(text, error)

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, value in pairs:
            if key in seen:
                raise error(f"field {key!r} appears twice")
            seen[key] = value
        return seen

    def constant(name: str) -> Any:
        raise error(f"{name} is not a JSON number")

    def integer(digits: str) -> int:
        return read_integer(digits, error, least=-MAX_INTEGER)

    return json.loads(text, object_pairs_hook=unique, parse_constant=constant, parse_int=integer)
