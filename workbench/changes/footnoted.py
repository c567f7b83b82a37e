"""A clause unchanged between two versions whose footnote changed (C7, C20): `footnote_changes`
compares, for each unchanged pairing, the notes its markers name on each side, handed in as data
(a held version's reading as the workspace keeps it: `workspace.parts.held_parts`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workbench.models import Change, Span

if TYPE_CHECKING:
    from workbench.text.footnotes import Footnote, FootnoteReading


@dataclass(frozen=True, slots=True, kw_only=True)
class FootnoteChange:
    """An unchanged clause (`before`, `after`: the diff's spans) and the notes its markers name on
    each side, in marker order: their raw spans (a note's own; words run on across a PDF page are
    in its words) and their words."""

    change_id: str
    before: Span
    after: Span
    notes_before: tuple[tuple[int, int], ...]
    notes_after: tuple[tuple[int, int], ...]
    words_before: tuple[str, ...]
    words_after: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "change_id": self.change_id,
            "before": self.before.as_json(),
            "after": self.after.as_json(),
            "notes_before": [list(s) for s in self.notes_before],
            "notes_after": [list(s) for s in self.notes_after],
            "words_before": list(self.words_before),
            "words_after": list(self.words_after),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FootnoteChange:
        """The record `as_json` wrote."""
        return cls(
            change_id=data["change_id"],
            before=Span(**data["before"]),
            after=Span(**data["after"]),
            notes_before=tuple((start, end) for start, end in data["notes_before"]),
            notes_after=tuple((start, end) for start, end in data["notes_after"]),
            words_before=tuple(data["words_before"]),
            words_after=tuple(data["words_after"]),
        )

    def line(self) -> str:
        """One line of `workbench diff`'s listing."""
        before = "; ".join(repr(" ".join(w.split())[:60]) for w in self.words_before) or "no note"
        after = "; ".join(repr(" ".join(w.split())[:60]) for w in self.words_after) or "no note"
        return (
            f"{self.change_id} clause unchanged [{self.before.char_start}, {self.before.char_end}) "
            f"-> [{self.after.char_start}, {self.after.char_end}), its footnote changed: "
            f"{before} -> {after}"
        )


def _notes(reading: FootnoteReading, span: Span) -> list[Footnote]:
    """The notes whose markers lie in `span`, in the order of their first marker there."""

    def first(note: Footnote) -> int:
        return min(a for a, _ in note.anchors if span.char_start <= a < span.char_end)

    return sorted(reading.notes_in(span.char_start, span.char_end), key=first)


def _printed(note: Footnote, text: str) -> str:
    """A note's words as printed: its own span, then each run-on span after a space."""
    return " ".join(text[a:b] for a, b in note.spans)


def footnote_changes(
    changes: Sequence[Change],
    texts: tuple[str, str],
    readings: tuple[FootnoteReading | None, FootnoteReading | None],
) -> tuple[FootnoteChange, ...]:
    """Each `unchanged` change whose notes (by `_notes`, compared by `footnotes.note_words`) differ between
    the two sides, in the diff's order: a note's words rewritten, a note added to or taken from
    the clause. None when either side has no footnote reading."""
    (before_text, after_text), (before_notes, after_notes) = texts, readings
    if before_notes is None or after_notes is None:
        return ()
    if not before_notes.footnotes and not after_notes.footnotes:
        return ()  # no note on either side: no clause's notes can differ
    from workbench.text.footnotes import note_words  # the reader's module loads only here

    found = []
    for change in changes:
        if change.kind != "unchanged" or change.before is None or change.after is None:
            continue
        old, new = _notes(before_notes, change.before), _notes(after_notes, change.after)
        if [note_words(n, before_text) for n in old] == [note_words(n, after_text) for n in new]:
            continue
        found.append(
            FootnoteChange(
                change_id=change.change_id,
                before=change.before,
                after=change.after,
                notes_before=tuple((n.char_start, n.char_end) for n in old),
                notes_after=tuple((n.char_start, n.char_end) for n in new),
                words_before=tuple(_printed(n, before_text) for n in old),
                words_after=tuple(_printed(n, after_text) for n in new),
            )
        )
    return tuple(found)
