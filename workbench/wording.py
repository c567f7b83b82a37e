"""Counts in words: `counted(1, "version")` is "1 version", `counted(2, "version")` "2 versions"."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and the noun, singular for exactly one, else `plural` (default: the noun and "s")."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
