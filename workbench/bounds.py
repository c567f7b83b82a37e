"""How large a number, how deep a nesting and how long a pattern read as data may run (C14): the one
reader of bounded integers, the nesting depth of JSON and TOML measured before a recursive reader,
`strict_json`, and `compile_budgeted`. Every bound and why: docs/security.md."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:  # the engine is imported where a pattern is compiled (start-up, C6's path)
    import regex

# The largest integer SQLite holds (a signed 64-bit integer): every offset, count, size and order
# the workbench stores fits, and an integer of thousands of digits is refused before Python's
# own limit (4,300 digits) answers with a traceback.
MAX_INTEGER = 2**63 - 1
MAX_INTEGER_DIGITS = len(str(MAX_INTEGER))
# Arrays and objects (JSON), arrays and inline tables (TOML) inside one another. The deepest file
# the workbench writes or reads (a W3C annotation's selector refined by another) nests under ten;
# Python's readers recurse once a level and stop with a RecursionError near a thousand.
MAX_NESTING = 64
# One match (or one scan for every match) of one pattern read as data on one text. A numbering
# profile's pattern anchored at a line's start answers in microseconds; a pattern that backtracks
# without bound (`(a|aa)+$` on forty letters) needs minutes. The engine checks the clock as it
# backtracks, so a refusal comes within about a second of the budget (benchmarks/bench_hostile.py).
MATCH_BUDGET_SECONDS = 0.25

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


Matched: TypeAlias = "regex.Match[str]"  # what a match found: `re.Match`'s methods
Found: TypeAlias = "regex.Match[str] | None"


@dataclass(frozen=True, slots=True, kw_only=True)
class BudgetedPattern:
    """A compiled pattern with `re.Pattern`'s `match`, `fullmatch`, `search` and `finditer`, each
    under `MATCH_BUDGET_SECONDS`; over it, `error(...)` names `origin` (where the pattern came
    from: a file and its key, an option) and the pattern, in one line."""

    compiled: regex.Pattern[str]
    origin: str
    error: Callable[[str], Exception]

    @property
    def pattern(self) -> str:
        return self.compiled.pattern

    @property
    def groupindex(self) -> Mapping[str, int]:
        return self.compiled.groupindex

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Found:
        return self._run(self.compiled.match, string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Found:
        return self._run(self.compiled.fullmatch, string, pos, endpos)

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Found:
        return self._run(self.compiled.search, string, pos, endpos)

    def finditer(self, string: str, pos: int = 0) -> Iterator[regex.Match[str]]:
        """Every match, found one `search` at a time, each under the budget (the engine's own
        `finditer` gives its budget to the whole scan)."""
        while pos <= len(string):
            found = self.search(string, pos)
            if found is None:
                return
            yield found
            pos = found.end() if found.end() > found.start() else found.end() + 1

    def _run(self, method: Callable[..., Found], string: str, pos: int, endpos: int) -> Found:
        try:
            return method(string, pos, min(endpos, len(string)), timeout=MATCH_BUDGET_SECONDS)
        except TimeoutError:
            raise self.error(
                f"{self.origin}: the pattern {self.pattern!r} took more than "
                f"{MATCH_BUDGET_SECONDS} s on a text of {len(string)} characters; a pattern "
                "must not backtrack without bound (a repeated group that can match the same "
                "text in more than one way, such as (a+)+ or (a|aa)+)"
            ) from None


def compile_budgeted(
    pattern: str, origin: str, error: Callable[[str], Exception]
) -> BudgetedPattern:
    """`pattern` compiled in the standard syntax, or `error(...)` naming `origin` and the pattern.
    The syntax is the `re` module's: a pattern it refuses is refused in its words; the `regex`
    engine (its `VERSION0`, made to read patterns as `re` does) runs the match, under a budget."""
    import regex

    try:
        re.compile(pattern)
        compiled = regex.compile(pattern, flags=regex.VERSION0)
    except (re.error, regex.error, OverflowError, RecursionError) as exc:
        raise error(f"{origin}: bad regular expression {pattern!r}: {exc}") from exc
    return BudgetedPattern(compiled=compiled, origin=origin, error=error)
