"""Keep freed memory for reuse: the process-wide allocator setting the command line runs with.

The verifier's cold index build and its batch path each make and drop a few megabytes of numpy
arrays and strings. With glibc's default settings a block of 128 KB or more is mapped on its own
and handed back to the operating system when freed, and the heap's free top is trimmed; the next
block of that size is fresh memory, faulted in one 4 KB page at a time. On a virtual machine a
page fault costs microseconds, so a build of a few milliseconds can spend as long again faulting.
`keep_freed_memory` asks the allocator to serve blocks up to `MAPPED_FROM` from the heap and to
keep up to `KEPT` bytes of free heap, so the next build reuses the pages of the last.

The guarantee: nothing but the allocator's thresholds changes, and only where the C library is
glibc (the settings are `mallopt` parameters); elsewhere the call does nothing and says so. It is
process-wide and cannot be undone, so the library never makes it on its own: `workbench` (the
command line) makes it at start, and a notebook or program that verifies at scale may call it.
"""

from __future__ import annotations

import ctypes
import sys

# glibc's `mallopt` parameter numbers (malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
# glibc refuses an mmap threshold above 32 MB on 64-bit systems.
MAPPED_FROM = 32 << 20
KEPT = 64 << 20


def keep_freed_memory() -> bool:
    """Serve blocks under `MAPPED_FROM` bytes from the heap and keep up to `KEPT` bytes of free
    heap instead of returning it; True if the C library took both settings, False where it is not
    glibc (nothing is changed there)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MAPPED_FROM)) and bool(mallopt(_M_TRIM_THRESHOLD, KEPT))
