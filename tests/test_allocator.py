from __future__ import annotations

import ctypes
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench import allocator, cli
from workbench.store import Workspace

# Builds the index of a text five times and prints the page faults of the last (the steady state a
# long run reaches), with or without `keep_freed_memory` first.
_FAULTS = """
import resource, sys
from pathlib import Path
from workbench.allocator import keep_freed_memory
from workbench.cite.index import build_index
if sys.argv[2] == "kept":
    assert keep_freed_memory()
text = Path(sys.argv[1]).read_text(encoding="utf-8")
for _ in range(5):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    build_index(text)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
print(faults)
"""


def _faults(path: Path, mode: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _FAULTS, str(path), mode],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mallopt is glibc's")
def test_kept_memory_is_reused_by_the_next_build(workspace: Workspace, tmp_path: Path) -> None:
    """With the setting, a repeated index build of the largest held text reuses the last one's
    pages; with the C library's defaults it faults fresh ones in (each mode in its own process,
    since the setting is process-wide)."""
    path = tmp_path / "text.txt"
    path.write_text(max((v.text for v in workspace.versions()), key=len), encoding="utf-8")
    default, kept = _faults(path, "default"), _faults(path, "kept")
    assert kept * 10 < default, (kept, default)


@pytest.fixture
def fresh_lookup() -> Iterator[None]:
    """Forget the looked-up C functions before and after the test (the look-up is cached)."""
    allocator._glibc.cache_clear()
    yield
    allocator._glibc.cache_clear()


@pytest.mark.usefixtures("fresh_lookup")
def test_without_glibc_nothing_is_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(allocator.sys, "platform", "darwin")
    assert allocator.keep_freed_memory() is False
    assert allocator.release_freed_memory() is False
    allocator._glibc.cache_clear()

    def no_library(name: object) -> object:
        raise OSError("no C library")

    monkeypatch.setattr(allocator.sys, "platform", "linux")
    monkeypatch.setattr(ctypes, "CDLL", no_library)
    assert allocator.keep_freed_memory() is False
    assert allocator.release_freed_memory() is False


def test_the_command_line_keeps_freed_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[bool] = []
    monkeypatch.setattr(cli, "keep_freed_memory", lambda: calls.append(True) or True)
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert calls == [True]
