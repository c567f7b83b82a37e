"""Progress bars for long work: `bar` draws tqdm on stderr when a stage is asked for progress, its
label made visible as every terminal line is, and tqdm is imported only when a bar is drawn."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from workbench.terminal import visible

_T = TypeVar("_T")


def bar(items: Iterable[_T], *, desc: str, unit: str, enabled: bool) -> Iterable[_T]:
    """`items`, counted by a tqdm bar labelled `desc` (made `visible`) in `unit`s when
    `enabled`."""
    if not enabled:
        return items
    from tqdm import tqdm

    return tqdm(items, desc=visible(desc), unit=visible(unit))
