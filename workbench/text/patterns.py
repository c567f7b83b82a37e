"""A profile's patterns, compiled so that none can hang a run (C14): `compile_profile_pattern` is
the one place a numbering profile's level or furniture pattern is compiled, through the budget
every pattern read as data keeps (`bounds.compile_budgeted`); a match over budget is refused
naming the profile file, the key and the pattern. Why a budget and not a linear-time engine:
docs/security.md.
"""

from __future__ import annotations

from typing import TypeAlias

from workbench.bounds import MATCH_BUDGET_SECONDS, BudgetedPattern, Matched, compile_budgeted
from workbench.errors import ProfileError

__all__ = ["MATCH_BUDGET_SECONDS", "LabelMatch", "ProfilePattern", "compile_profile_pattern"]

LabelMatch: TypeAlias = Matched
ProfilePattern: TypeAlias = BudgetedPattern  # a profile's compiled level or furniture pattern


def compile_profile_pattern(pattern: str, origin: str, key: str) -> ProfilePattern:
    """`pattern` compiled (`bounds.compile_budgeted`), or a `ProfileError` naming `origin` (the
    profile file), `key` (`levels[2].pattern`, `furniture[0]`) and the pattern."""
    return compile_budgeted(pattern, f"{origin}: {key}", ProfileError)
