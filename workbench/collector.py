"""The cyclic garbage collector during a command: what a command loads to hold for its whole run
is kept out of the collector's reach.

A command (`cli.main`) is a batch run: it reads stored state (a catalogue's rows, a workspace's
stored records, a corpus's version facts) that lives until it ends, works, and exits. Python
frees almost everything by reference counting; the cyclic collector exists for reference cycles,
and it finds them by tracing every container object it tracks. While a command reads millions of
such objects, each young collection traces the newest and moves them on, and a full collection
traces all of them: on the whole D.C. Code's reconciliation, half a second of a four-second run
went to tracing records that were never garbage.

So a command runs in *batch* mode (`batch`, entered by `cli.main`, which owns the process for
the command's length and already sets the collector's thresholds), and a loader that builds what
the run holds, and makes no reference cycle (parsed JSON, records built from it), runs inside
`loading()`: in batch mode the collector is paused while it runs, and what is then tracked is
frozen (`gc.freeze`), out of reach of every later collection, until the command ends and `batch`
gives it back (`gc.unfreeze`). Outside batch mode (a notebook or a test calling a library
function) `loading()` does nothing: the library never changes the collector's state for a
process it does not own.

The guarantee: nothing is freed later than the command's end, no collection is skipped for
objects made outside a `loading()` block, and outside a command the collector is left alone.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_batch: list[bool] = []  # one entry per `batch` entered, innermost last: whether it froze any


@contextmanager
def batch() -> Iterator[None]:
    """Run a command: `loading()` freezes what it loads until this ends, then everything it froze
    is given back to the collector (its oldest generation)."""
    _batch.append(False)
    try:
        yield
    finally:
        froze = _batch.pop()
        if _batch:
            _batch[-1] = _batch[-1] or froze
        elif froze:  # what this command froze, never what its caller had frozen before
            gc.unfreeze()


@contextmanager
def loading() -> Iterator[None]:
    """Load what the run holds (module docstring): in batch mode the collector is paused
    meanwhile and what is tracked when the block ends is frozen; outside it, nothing changes."""
    if not _batch or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        _batch[-1] = True
        gc.enable()
