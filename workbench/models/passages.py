"""A passage (C1, C20): an exact slice of one version, with its label, path and kind, and a
footnote's anchors or a table's cells."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from workbench.cells import parts_json

if TYPE_CHECKING:
    from workbench.cells import TableCell


PassageKind = Literal["front_matter", "heading", "body", "furniture", "footnote", "table"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Passage:
    """A passage: an exact slice `text[char_start:char_end]` of one version.

    `section_label` its own label, `path` its structural path, `kind` what it is (`segment.py`
    states the rules); a footnote's `anchors` are its markers, a table's `cells` its cells (C20).
    """

    version_id: str
    ordinal: int
    char_start: int
    char_end: int
    text: str
    section_label: str | None
    kind: PassageKind = "body"
    path: tuple[str, ...] | None = None
    anchors: tuple[tuple[int, int], ...] = ()
    cells: tuple[TableCell, ...] = ()

    def as_json(
        self, *, profile: str, page: int | None, origin: Mapping[str, int] | None = None
    ) -> dict[str, Any]:
        """`passages --json`'s line: fields, profile, page (None: no PDF), origins (None: unread)."""
        return {
            "version_id": self.version_id,
            "ordinal": self.ordinal,
            "char_start": self.char_start,
            "char_end": self.char_end,
            "text": self.text,
            "section_label": self.section_label,
            "kind": self.kind,
            "path": list(self.path) if self.path is not None else None,
            "profile": profile,
            "page": page,
            "origin": None if origin is None else dict(origin),
            **parts_json(self.kind, self.anchors, self.cells),
        }
