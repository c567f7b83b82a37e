"""A profile's patterns, compiled so that none can hang a run (C14): `compile_profile_pattern` is
the one place a numbering profile's level or furniture pattern is compiled, and every match it
makes runs under `MATCH_BUDGET_SECONDS`; a match over budget is refused naming the profile file,
the key and the pattern. Why a budget and not a linear-time engine: docs/security.md.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from workbench.errors import ProfileError

if TYPE_CHECKING:  # the engine is imported where a pattern is compiled (start-up, C6's path)
    import regex

LabelMatch: TypeAlias = "regex.Match[str]"  # what a match found: `re.Match`'s methods
Found: TypeAlias = "regex.Match[str] | None"

# One match of one pattern on one line. A label or furniture pattern anchored at a line's start
# answers in microseconds; a pattern that backtracks without bound (`(a|aa)+$` on forty letters)
# needs minutes. The engine checks the clock as it backtracks, so a refusal comes within about
# a second of the budget (measured by benchmarks/bench_hostile.py).
MATCH_BUDGET_SECONDS = 0.25


@dataclass(frozen=True, slots=True, kw_only=True)
class ProfilePattern:
    """A compiled profile pattern, with `re.Pattern`'s `match`, `fullmatch` and `search`; `origin`
    and `key` (the profile file and, e.g., `levels[2].pattern`) name it when a match is refused."""

    compiled: regex.Pattern[str]
    origin: str
    key: str

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

    def _run(self, method: Callable[..., Found], string: str, pos: int, endpos: int) -> Found:
        try:
            return method(string, pos, min(endpos, len(string)), timeout=MATCH_BUDGET_SECONDS)
        except TimeoutError:
            raise ProfileError(
                f"{self.origin}: {self.key}: the pattern {self.pattern!r} took more than "
                f"{MATCH_BUDGET_SECONDS} s on one line of {len(string)} characters; a pattern "
                "must not backtrack without bound (a repeated group that can match the same "
                "text in more than one way, such as (a+)+ or (a|aa)+)"
            ) from None


def compile_profile_pattern(pattern: str, origin: str, key: str) -> ProfilePattern:
    """`pattern` compiled in the standard syntax, or a `ProfileError` naming `origin`, `key` and
    the pattern. The syntax is the `re` module's: a pattern it refuses is refused in its words;
    the `regex` engine (its `VERSION0`, made to read patterns as `re` does) runs the match."""
    import regex

    try:
        re.compile(pattern)
        compiled = regex.compile(pattern, flags=regex.VERSION0)
    except (re.error, regex.error, OverflowError, RecursionError) as exc:
        raise ProfileError(f"{origin}: {key}: bad regular expression {pattern!r}: {exc}") from exc
    return ProfilePattern(compiled=compiled, origin=origin, key=key)
