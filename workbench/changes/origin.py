"""What a change's text is made of (C18): the origins each side touches, read from the versions' own
records, and whether its changed characters lie only in words our OCR read with low confidence."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import Any

from workbench.models import (
    LOW_CONFIDENCE,
    MACHINE_READ,
    PAIRING_KINDS,
    TEXT_ORIGINS,
    Passage,
    Span,
    TextOrigin,
    TextOrigins,
)


class OriginReader:
    """One version's origins, read for a change's passages: what they touch, and which of their
    characters lie in low-confidence OCR words. `origins` None: nothing is recorded."""

    def __init__(self, origins: TextOrigins | None) -> None:
        self.origins = origins
        # Every word the workbench's OCR read, as sorted [start, end) offsets, each cut at the
        # next word's start: a character belongs to the last word starting at or before it.
        words = sorted(
            (w.char_start, w.char_end, w.confidence < LOW_CONFIDENCE)
            for page in (origins.pages if origins is not None else ())
            if page.ocr is not None
            for w in page.ocr.words
        )
        self._starts = [start for start, _, _ in words]
        self._words = [
            (start, min(end, self._starts[k + 1]) if k + 1 < len(words) else end, low)
            for k, (start, end, low) in enumerate(words)
        ]
        # A text of one origin (plain text, Markdown, XML): every passage touches that one.
        runs = origins.runs if origins is not None else ()
        self._only = (runs[0].origin,) if len(runs) == 1 else None

    def touched(self, passages: Sequence[Passage]) -> tuple[TextOrigin, ...]:
        """The origins the passages' characters have, `TEXT_ORIGINS` order (empty: none known)."""
        if self.origins is None or not passages:
            return ()
        if self._only is not None:
            return self._only
        found = {o for p in passages for o in self.origins.touched(p.char_start, p.char_end)}
        return tuple(o for o in TEXT_ORIGINS if o in found)

    def low_confidence(self, text: str, start: int) -> bool | None:
        """Of the non-white-space characters of `text` (which stands at `start` in the version)
        that lie in a word the workbench's OCR read: True when every one lies in a word read
        below `LOW_CONFIDENCE`, False when one does not, None when there is none. Read word by
        word: only the words that overlap `text` are looked at, never each character."""
        end = start + len(text)
        seen = False
        first = max(bisect_right(self._starts, start) - 1, 0)
        for word_start, word_end, low in self._words[first : bisect_left(self._starts, end)]:
            # Characters outside every word were not read by our OCR: no confidence to judge.
            lo, hi = max(word_start, start), min(word_end, end)
            if lo >= hi or text[lo - start : hi - start].isspace():
                continue
            if not low:
                return False
            seen = True
        return True if seen else None


def _changed(passages: Sequence[Passage], narrowed: Span | None) -> list[tuple[str, int]]:
    """The changed characters of one side, as (text, start) pieces: the narrowed span where the
    change has one, else every passage whole (a split or a merge)."""
    if narrowed is None:
        return [(p.text, p.char_start) for p in passages]
    passage = passages[0]
    offset = narrowed.char_start - passage.char_start
    return [
        (
            passage.text[offset : offset + narrowed.char_end - narrowed.char_start],
            narrowed.char_start,
        )
    ]


def change_origins(
    kind: str,
    before: Sequence[Passage],
    after: Sequence[Passage],
    narrowed: tuple[Span | None, Span | None],
    readers: tuple[OriginReader, OriginReader],
) -> dict[str, Any]:
    """The origin fields of one change (`Change.before_origin`, `after_origin`,
    `low_confidence`), as keyword arguments.

    `low_confidence` holds for a pairing (`PAIRING_KINDS`) whose changed characters that the
    workbench's OCR read, on both sides together, are at least one and all lie in words it read
    below `LOW_CONFIDENCE`: the changed characters are the narrowed spans of a modified or moved
    pairing, every passage of a split or merge. Characters of another origin carry no confidence
    (someone else's invisible layer has none) and are not judged. An equal move has no changed
    character, so it never holds.
    """
    reader_b, reader_a = readers
    low = False
    if kind in PAIRING_KINDS:
        verdicts = [
            reader.low_confidence(text, start)
            for reader, side, span in (
                (reader_b, before, narrowed[0]),
                (reader_a, after, narrowed[1]),
            )
            for text, start in _changed(side, span)
        ]
        low = True in verdicts and False not in verdicts
    return {
        "before_origin": reader_b.touched(before),
        "after_origin": reader_a.touched(after),
        "low_confidence": low,
    }


def machine_label(origin: Sequence[str]) -> str:
    """ " machine-read: invisible" (the machine-read origins among `origin`, joined by "+"), or ""
    for a side of none: what a change's place says of it on every surface that shows one."""
    machine = "+".join(o for o in origin if o in MACHINE_READ)
    return f" machine-read: {machine}" if machine else ""
