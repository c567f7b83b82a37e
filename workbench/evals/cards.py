"""How every scorecard is written: one JSON serialization and one pair of files.

The demonstration scorecard (`scorecard`), the alignment scorecard (`alignment`) and the
amendment scorecard (`amendments`) each build their own card and Markdown; this module turns a
card into bytes by one rule and writes a card's two files by one rule. The guarantee: the same
card gives the same bytes, and a file whose bytes would not change is not rewritten.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.files import replace_file


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
