"""An extractor's output (C4): the text that offsets index and what the extraction kept beside it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.models.versions import (
        Furniture,
        PageSpan,
        StructureMark,
        TextOrigins,
        UnusablePage,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Extraction:
    """The text that offsets index, and the extractor that produced it from the artefact."""

    text: str
    extractor: str
    extractor_version: str
    structure: tuple[StructureMark, ...] = ()
    pages: tuple[PageSpan, ...] = ()  # PDF only: the page map
    furniture: tuple[Furniture, ...] = ()  # PDF only: what was taken out of the body
    unusable_pages: tuple[UnusablePage, ...] = ()  # PDF only: pages with no usable text
    origin: TextOrigins | None = None  # None: the whole text is the artefact's own (`glyphs`)
