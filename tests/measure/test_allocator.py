"""The measuring client's allocator: after a large buffer is freed, the next one is still mapped
on its own (and so unmapped when freed), where glibc's own rule would carve it from the heap."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

PROBE = textwrap.dedent(
    """
    import ctypes, sys
    from workbench.measure.allocator import keep_large_buffers_mapped

    class MallInfo2(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd",
            "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = MallInfo2
    fixed = keep_large_buffers_mapped() if sys.argv[1] == "fixed" else None
    freed = b"w" * (8 << 20)  # mapped on its own, and freed: glibc raises its threshold to 8 MB
    del freed
    before = libc.mallinfo2().hblks
    buffer = b"x" * (1 << 20)
    print(fixed, libc.mallinfo2().hblks - before)
    """
)


def _probe(mode: str) -> str:
    # glibc's rule as a process starts with it: a MALLOC_*_ setting in the environment (Dask's
    # nanny sets MALLOC_TRIM_THRESHOLD_ for its workers, in this process's environment too once
    # a test has started one) turns the rising threshold off.
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True, env=env
    )
    return done.stdout.strip()


def test_a_large_buffer_stays_mapped_on_its_own_after_a_larger_one_was_freed() -> None:
    assert _probe("glibc") == "None 0"  # glibc's own rule: the 1 MB buffer comes from the heap
    assert _probe("fixed") == "True 1"  # fixed threshold: it is a mapping of its own
