"""Replacing a file whole (C14): the one way the workbench writes a file a reader may be looking at,
so a failed write leaves the old file standing, never a half-written one."""

from __future__ import annotations

import filecmp
import os
from collections.abc import Callable
from pathlib import Path


def replace_file_with(
    path: Path,
    write: Callable[[Path], object],
    *,
    mode: int | None = None,
    keep_if_equal: bool = False,
) -> bool:
    """Replace `path` by what `write(temporary)` writes at a new path beside it; with `mode`, the
    new file gets that permission mode (else the one it was created with). With `keep_if_equal`,
    a file that already holds exactly the new bytes is left as it was (not rewritten). Returns
    True when `path` was replaced, False when it was left as it was."""
    # eight random bytes name the temporary file, as `secrets.token_hex(8)` would draw them
    temporary = path.with_name(f".{path.name}.{os.urandom(8).hex()}.tmp")
    try:
        write(temporary)
        if keep_if_equal and path.is_file() and filecmp.cmp(temporary, path, shallow=False):
            temporary.unlink()
            return False
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
        return True
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def replace_file(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Replace `path` by `data` (`replace_file_with`)."""

    def write(temporary: Path) -> None:
        with temporary.open("xb") as handle:
            handle.write(data)

    replace_file_with(path, write, mode=mode)
