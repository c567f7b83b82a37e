"""A truth script's output, kept between runs as tests/conftest.py keeps the default workspace
(in `KEPT_WORKSPACES`): under a key of everything its bytes depend on, made again when any of
that changes. Only for a script that imports nothing from `workbench`, so the package's code is
not in the key."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from tests.conftest import KEPT_WORKSPACES, ROOT


def script_sources(script: Path) -> list[Path]:
    """`script` and every module of its own folder it imports, at any depth, in path order.

    Refused (AssertionError) when any of them imports from `workbench`: its output would then
    depend on the package's code, which the key leaves out."""
    found: dict[Path, None] = {}
    todo = [script]
    while todo:
        path = todo.pop()
        if path in found:
            continue
        found[path] = None
        for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                top = name.split(".")[0]
                assert top != "workbench", f"{path.name} imports {name}: its truth is no truth"
                if (sibling := script.parent / f"{top}.py").is_file():
                    todo.append(sibling)
    return sorted(found)


def truth_key(script: Path, inputs: Sequence[Path], lock: Path = ROOT / "uv.lock") -> str:
    """What a truth's bytes depend on, hashed: the script and the modules of its folder it
    imports (names and bytes), its inputs (names and bytes, in order), the lock file (the
    libraries it parses with) and the Python."""
    digest = hashlib.sha256()
    for path in (*script_sources(script), *inputs, lock):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(sys.version.encode())
    return digest.hexdigest()[:16]


def kept_truth(
    script: Path, inputs: Sequence[Path], *, kept: Path = KEPT_WORKSPACES
) -> dict[str, object]:
    """The JSON `script` writes for `inputs` (`script INPUT... --out FILE`), read from `kept`
    when it was made under the same `truth_key`, else made now and kept there (replacing the
    one kept under another key)."""
    path = kept / f"truth-{script.stem}-{truth_key(script, inputs)}.json"
    if not path.exists():
        kept.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.partial")
        command = [sys.executable, str(script), *map(str, inputs), "--out", str(partial)]
        subprocess.run(command, check=True)
        for stale in kept.glob(f"truth-{script.stem}-*.json"):
            if stale != path:  # another worker may have kept this one meanwhile
                stale.unlink(missing_ok=True)
        partial.replace(path)
    truth: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return truth
