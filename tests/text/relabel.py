"""Real documents' text with only their label marks rewritten into other numbering shapes.

The shapes codes use that the shared corpus does not hold (`§ 5` -> `(1)` -> `1.` -> `a)`, `1°`,
`Art. 5 bis`, `Titre IV`) are tested on real text: a D.C. Code section's labels, which its XML
marks place exactly, are rewritten level by level, and nothing else of the text changes. Each
rewritten label keeps the document's own chain of labels above it, written the new way, so the
document's identifiers still score the paths a profile reads there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from workbench.models import Version, text_sha256
from workbench.text.structure import units_from_marks

# A level's new label from the unit's place among its siblings (1-based; an insertion, as the
# document's (a-1), keeps the place of the one before it), its place counting insertions too, and
# whether it is an insertion.
Writer = Callable[[int, int, bool], str]
_INSERTED = re.compile(r"\(\w+-\w+\)")


@dataclass(frozen=True, slots=True, kw_only=True)
class Relabelled:
    """The rewritten version and, for every rewritten label, where it starts and its new chain."""

    version: Version
    chains: tuple[tuple[int, tuple[str, ...]], ...]


def _letters(place: int) -> str:
    return chr(96 + (place - 1) % 26 + 1) * ((place - 1) // 26 + 1)


WRITERS: dict[str, tuple[Writer, ...]] = {
    # German statutes: § 5 -> (1) Absatz, (1a) inserted -> 1. Nummer -> a) Buchstabe
    "german": (
        lambda k, n, ins: f"§ {k}",
        lambda k, n, ins: f"({k}a)" if ins else f"({k})",
        lambda k, n, ins: f"{k}a." if ins else f"{k}.",
        lambda k, n, ins: f"{_letters(n)})",
    ),
    # French decrees: Art. 1er -> 1°, inserted 1° bis -> a)
    "french": (
        lambda k, n, ins: "Art. 1er" if k == 1 else f"Art. {k}",
        lambda k, n, ins: f"{k}° bis" if ins else f"{k}°",
        lambda k, n, ins: f"{_letters(n)})",
    ),
}


def relabel(version: Version, writers: Sequence[Writer]) -> Relabelled:
    """`version` with each marked label at depth d rewritten by `writers[d]` (deeper marks kept).

    A unit's place counts its siblings under the same parent in text order; a unit the document
    marks as an insertion (`(a-1)`, `(A-i)`) keeps the place of the one before it. The chain of a rewritten label is the new labels of the units above it and its own.
    """
    units = units_from_marks(version.structure, len(version.text))
    marks = sorted(version.structure, key=lambda m: m.char_start)
    by_start = {m.char_start: m for m in marks}
    last: dict[tuple[str, ...], int] = {}
    seen: dict[tuple[str, ...], int] = {}
    new_label: dict[tuple[str, ...], str] = {}
    edits: list[tuple[int, int, str, tuple[str, ...]]] = []
    for unit in units:
        depth = len(unit.path) - 1
        parent = unit.path[:-1]
        inserted = bool(_INSERTED.fullmatch(unit.label))
        count = last.get(parent, 0) + (0 if inserted else 1)
        last[parent] = count
        seen[parent] = seen.get(parent, 0) + 1
        if depth >= len(writers) or any(p not in new_label for p in _prefixes(parent)):
            continue
        written = writers[depth](count, seen[parent], inserted)
        new_label[unit.path] = written
        mark = by_start[unit.char_start]
        chain = tuple(new_label[p] for p in _prefixes(unit.path))
        edits.append((mark.char_start, mark.char_end, written, chain))
    text, shift, chains = version.text, 0, []
    for start, end, written, chain in edits:
        text = text[: start + shift] + written + text[end + shift :]
        chains.append((start + shift, chain))
        shift += len(written) - (end - start)
    altered = replace(
        version,
        jurisdiction="relabelled",
        media_type="text/plain",
        structure=(),
        text=text,
        text_sha256=text_sha256(text),
    )
    return Relabelled(version=altered, chains=tuple(chains))


def _prefixes(path: tuple[str, ...]) -> list[tuple[str, ...]]:
    return [path[: k + 1] for k in range(len(path))]
