"""How every scorecard is written (C12): one JSON serialization and one pair of files, so the same
card gives the same bytes and an unchanged file is not rewritten."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.corpus.catalogue import CATALOGUE_NAME
from workbench.derived import code_digest, derived_key, digests
from workbench.files import replace_file
from workbench.workspace import Workspace

SCORECARDS_KIND = "scorecards"  # the derived state's kind of the scorecards `eval --out` writes


def scorecard_bytes(card: Mapping[str, Any]) -> bytes:
    """The JSON bytes: indented, keys in build order (a digest first), UTF-8, one newline."""
    # CAUTION: not sort_keys: each card keeps its digest at the head; every dict is built in order.
    return (json.dumps(card, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def write_card(
    out: Path, card: Mapping[str, Any], names: tuple[str, str], markdown: bytes
) -> tuple[str, str]:
    """Write `card` as JSON and its `markdown` into `out` (created if missing) under `names`
    (JSON name, Markdown name); a file whose bytes would not change is not rewritten. Returns
    the two names."""
    out.mkdir(parents=True, exist_ok=True)
    for name, data in zip(names, (scorecard_bytes(card), markdown), strict=True):
        path = out / name
        if not path.is_file() or path.read_bytes() != data:
            replace_file(path, data)
    return names


def scorecards_key(
    workspace: Workspace, demo: Path, truth: Path | None, amendment_truth: Path | None
) -> str:
    """The key of the scorecards (`workbench.derived`): the demonstration corpus's files, the
    truth files, the catalogue and the profiles the workspace reads, and the code. The held
    versions are the watermark's part (`DerivedState.holds`)."""
    demo_files = {
        p.relative_to(demo).as_posix(): p.read_bytes() for p in demo.rglob("*") if p.is_file()
    }
    named = {"truth": truth, "amendment_truth": amendment_truth}
    files = {name: path.read_bytes() for name, path in named.items() if path is not None}
    files["catalogue"] = (workspace.settings.catalogue / CATALOGUE_NAME).read_bytes()
    inputs = {
        "demo": digests(demo_files),
        "files": digests(files),
        "profiles": [[p.origin, p.sha256] for p in workspace.profile_registry()],
    }
    return derived_key(SCORECARDS_KIND, inputs, code_digest())
