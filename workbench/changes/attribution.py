"""What made each change, as a later stage says it, shown beside the diff (C19): the shape a surface
asks of a handed-in record (`Attributed`). Nothing here infers what made a change."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from workbench.changes.redline import Section
from workbench.terminal import CONTROLS


class Attributed(Protocol):
    """What made one change (`history.reconcile.Attribution` is one): its kind (`made_by`,
    `history`, `unexplained`), one line saying it, and its JSON shape."""

    @property
    def kind(self) -> str: ...
    def line(self) -> str: ...
    def as_json(self) -> dict[str, Any]: ...


Attributions = Mapping[str, Attributed]


def section_json(part: Section, attributions: Attributions) -> dict[str, Any]:
    """`Section.as_json` with each shown change's `attribution`: its record's JSON, or null
    where none was handed in for it (an unchanged passage is attributed to nothing)."""
    shown = part.as_json()
    for entry in shown["changes"]:
        made = attributions.get(entry["change_id"])
        entry["attribution"] = made.as_json() if made is not None else None
    return shown


def attribution_line(attributions: Attributions, change_id: str) -> str | None:
    """The record's line for a terminal (white space folded, control characters shown), or None
    where none was handed in for `change_id`."""
    made = attributions.get(change_id)
    return None if made is None else " ".join(made.line().split()).translate(CONTROLS)


def attribution_counts(part: Section, attributions: Attributions) -> str:
    """How many of the pair's changes each kind accounts for, kinds in sorted order:
    "attributed: 2 history, 19 made_by" ("attributed: none" where no record was handed in)."""
    kinds = [m.kind for c in part.changes if (m := attributions.get(c.change_id)) is not None]
    counts = ", ".join(f"{kinds.count(k)} {k}" for k in sorted(set(kinds)))
    return f"attributed: {counts or 'none'}"
