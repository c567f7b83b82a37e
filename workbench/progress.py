"""Progress bars for long work: tqdm on stderr when asked for, and nothing loaded when not.

Every stage that loops over files or families takes `progress: bool` (the command line passes
"stderr is a terminal"); `bar` wraps the loop. tqdm is imported only when a bar is drawn, so a
command run from a script or a test never pays for it. A bar's label is shown as every line on a
terminal is (`terminal.visible`), since a bar is drawn only there.
"""

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
