"""The one caution predicate (C8): whether caution still stands on a doubtful pairing, read off the
verdict log's standing verdict on every read and stored nowhere."""

from __future__ import annotations

from collections.abc import Iterable

from workbench.changes.diff import pairing_is_uncertain
from workbench.changes.verdict import Verdict
from workbench.models import Change


def standing_verdict(change: Change, verdicts: Iterable[Verdict]) -> Verdict | None:
    """The latest row (highest seq) that quotes exactly this pairing, or None.

    A row whose change id matches but whose quoted passages differ (the diff was recomputed
    differently) judged another pairing and does not count.
    """
    latest: Verdict | None = None
    for verdict in verdicts:
        if verdict.quotes(change) and (latest is None or verdict.seq > latest.seq):
            latest = verdict
    return latest


def pairing_caution_stands(change: Change, verdicts: Iterable[Verdict]) -> bool:
    """Caution, for every surface: a doubtful pairing that no one has confirmed or disputed.

    True when `pairing_is_uncertain(change)` and its standing verdict is missing or "uncertain";
    False for a pairing that is not doubtful, or whose standing verdict is confirmed or disputed.
    """
    if not pairing_is_uncertain(change):
        return False
    standing = standing_verdict(change, verdicts)
    return standing is None or standing.answer == "uncertain"
