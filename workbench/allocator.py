"""The C heap's freed memory: kept for reuse (the command line) or handed back (Dask workers).

The verifier's cold index build and its batch path each make and drop a few megabytes of numpy
arrays and strings. With glibc's default settings a block of 128 KB or more is mapped on its own
and handed back to the operating system when freed, and the heap's free top is trimmed; the next
block of that size is fresh memory, faulted in one 4 KB page at a time. On a virtual machine a
page fault costs microseconds, so a build of a few milliseconds can spend as long again faulting.
`keep_freed_memory` asks the allocator to serve blocks up to `MAPPED_FROM` from the heap and to
keep up to `KEPT` bytes of free heap, so the next build reuses the pages of the last.

The other way round, `release_freed_memory` hands every free chunk's pages back at once: a Dask
worker does so after each family (see `engine`), so that its resident size does not creep up with
the number of families it has run.

The guarantee: nothing but the allocator's thresholds and free pages changes, and only where the C
library is glibc (`mallopt`, `malloc_trim`); elsewhere each call does nothing and says so.
`keep_freed_memory` is process-wide and cannot be undone, so the library never calls it on its
own: `workbench` (the command line) calls it at start, and a notebook or program that verifies at
scale may call it.
"""

from __future__ import annotations

import ctypes
import functools
import sys
from collections.abc import Callable

# glibc's `mallopt` parameter numbers (malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
# glibc refuses an mmap threshold above 32 MB on 64-bit systems.
MAPPED_FROM = 32 << 20
KEPT = 64 << 20


@functools.cache
def _glibc(name: str) -> Callable[..., int] | None:
    """The C library's function `name` (int arguments, int result), or None where the C library
    is not glibc (macOS, Windows, musl)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError):
        return None
    function.restype = ctypes.c_int
    return function  # type: ignore[no-any-return]


def keep_freed_memory() -> bool:
    """Serve blocks under `MAPPED_FROM` bytes from the heap and keep up to `KEPT` bytes of free
    heap instead of returning it; True if the C library took both settings, False where it is not
    glibc (nothing is changed there)."""
    mallopt = _glibc("mallopt")
    if mallopt is None:
        return False
    return bool(mallopt(ctypes.c_int(_M_MMAP_THRESHOLD), ctypes.c_int(MAPPED_FROM))) and bool(
        mallopt(ctypes.c_int(_M_TRIM_THRESHOLD), ctypes.c_int(KEPT))
    )


def release_freed_memory() -> bool:
    """Give the pages of every free C-heap chunk back to the system; True if any were given back.

    glibc's `malloc_trim(0)`, over every malloc arena; elsewhere a no-op returning False. A family's
    extraction and diff free a few tens of MB of large blocks that glibc keeps in the arena of the
    thread that ran it (a Dask worker runs tasks in its own thread, whose arena is trimmed only from
    the top); held across tasks, that free memory fragments and the next large family's peak lands
    on top of it, so a worker's resident size crept up with the number of families it had run.
    """
    trim = _glibc("malloc_trim")
    return bool(trim(ctypes.c_size_t(0))) if trim is not None else False
