"""The measuring client's allocator: large buffers go back to the system when they are freed.

The client receives every extracted version's text from the map (to hold it in the workspace),
reads summaries back and writes reports: many large buffers, each freed soon after. glibc serves
a buffer of at least its mmap threshold with a mapping of its own, unmapped when freed, but it
raises that threshold each time such a buffer is freed (up to 32 MB on 64-bit), so later large
buffers come from the heap, and a heap shrinks only from its top: freed buffers below a live
allocation stay resident. On the whole D.C. Code that held about 25 MB more at the client's peak
than a fixed threshold does, memory that grew with the corpus (docs/scale-out.md). Fixing the
threshold at glibc's own starting value keeps every large buffer mapped on its own; nothing
else changes, and elsewhere than glibc nothing is done.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

M_MMAP_THRESHOLD = -3  # glibc's <malloc.h>
MMAP_THRESHOLD = 128 * 1024  # glibc's starting threshold, kept fixed


def keep_large_buffers_mapped(threshold: int = MMAP_THRESHOLD) -> bool:
    """Fix glibc's mmap threshold at `threshold` bytes for this process (module docstring).
    True if it was set; False where the C library is not glibc or refused it."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, threshold))
