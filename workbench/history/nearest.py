"""Where a quote refused in machine-read text comes closest (C18): the words a person compares
with the page image. A suggestion, never evidence (C11); the refusal stands either way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench.models import MACHINE_READ, Version, span_pages
from workbench.workspace import Workspace


@dataclass(frozen=True, slots=True, kw_only=True)
class MachineReadNearest:
    """Where a quote not found in a machine-read version comes closest: a suggestion, never
    evidence (`is_evidence` false). `[char_start, char_end)` is the stretch of the version's text
    rapidfuzz aligns best with the quote, widened to whole words; `origins` what read it (C18),
    `pages` its first and last page where the version has a page map."""

    char_start: int
    char_end: int
    text: str
    origins: tuple[str, ...]
    pages: tuple[int, int] | None

    def as_json(self) -> dict[str, Any]:
        return {
            "char_start": self.char_start,
            "char_end": self.char_end,
            "text": self.text,
            "origins": list(self.origins),
            "pages": list(self.pages) if self.pages else None,
            "is_evidence": False,
        }

    def next_step(self, version_id: str) -> str:
        """The command that shows this stretch on its page image."""
        return (
            f"workbench show {version_id} --span {self.char_start}:{self.char_end} "
            "--png nearest.png"
        )


def machine_read_nearest(
    workspace: Workspace, version: Version, quote: str
) -> MachineReadNearest | None:
    """Where `quote` comes closest in `version`, when that stretch touches machine-read text
    (origin `invisible` or `ocr`, C18): the misreading a person checks on the page image. None
    when the version records no machine-read text, or the closest stretch touches none. The
    stretch is rapidfuzz's best partial alignment of the quote (its `partial_ratio_alignment`,
    ties to the earliest), widened to whole words; it is shown, never passed (C11)."""
    origins = workspace.text_origins(version.version_id)
    if origins is None or not any(r.origin in MACHINE_READ for r in origins.runs):
        return None
    from rapidfuzz import fuzz

    text = version.text
    aligned = fuzz.partial_ratio_alignment(quote, text)
    if aligned is None or aligned.dest_end <= aligned.dest_start:
        return None
    start, end = aligned.dest_start, aligned.dest_end
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while end < len(text) and not text[end].isspace():
        end += 1
    touched = tuple(o for o in origins.touched(start, end) if o in MACHINE_READ)
    if not touched:
        return None
    return MachineReadNearest(
        char_start=start,
        char_end=end,
        text=text[start:end],
        origins=touched,
        pages=span_pages(version.pages, start, end),
    )
