"""Footnotes read off a PDF's glyphs (C20), in raw offsets of the extracted text, which must be the
version's; markers, notes and what is not joined are in docs/pdf.md."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.errors import ExtractionError
from workbench.text.footnotes import Footnote, FootnoteMarker, FootnoteReading

if TYPE_CHECKING:
    from workbench.text.ocr import OcrOptions

MARKER_SIZE = 0.8  # a marker's glyphs: at most this share of its neighbour letter's height
MAX_LABEL_DIGITS = 3
_CLOSING = frozenset(".,;:)]”’\"'")  # punctuation a marker may follow, as after a sentence

Box = tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class _Glyph:
    offset: int
    char: str
    box: Box

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]

    @property
    def centre(self) -> float:
        return (self.box[1] + self.box[3]) / 2


def read_pdf_footnotes(
    data: bytes,
    *,
    source: str,
    text: str,
    language: str | None = None,
    ocr: OcrOptions | None = None,
) -> FootnoteReading:
    """The footnotes of a PDF whose extracted text is `text`, by these rules, page by page:

    - A marker is a run of 1 to `MAX_LABEL_DIGITS` digits, not at a line's start, whose glyphs are
      at most `MARKER_SIZE` of the height of the letter (or closing punctuation) right before them
      (else right after), their centres above its centre.
    - A note opens where a line starts with such a number set the same way against the letter
      after it; it runs to the next note's opening or the page's last glyph, white space at its
      end left out.
    - A marker links to the note of its number on its page, else on the next page; none is
      `unlinked`, two or more `ambiguous`.

    Refused (`ExtractionError`) when the re-extraction's text is not `text`.
    """
    from workbench.text.pdf import Placed, extract_pdf

    trace: list[Placed] = []
    extraction = extract_pdf(data, source=source, language=language, ocr=ocr, trace=trace)
    if extraction.text != text:
        raise ExtractionError(f"{source}: the PDF re-extracted is not the version's text")
    pages: dict[int, list[_Glyph]] = defaultdict(list)
    for offset, page, run in trace:
        for i, (char, box) in enumerate(zip("".join(run.parts), run.boxes or (), strict=False)):
            if box is not None:
                pages[page].append(_Glyph(offset + i, char, box))
    markers: list[tuple[int, FootnoteMarker]] = []
    notes: list[tuple[int, Footnote]] = []
    for page in sorted(pages):
        glyphs = sorted(pages[page], key=lambda g: g.offset)
        opened = _notes(glyphs, text)
        notes += [(page, n) for n in opened]
        in_notes = [(n.char_start, n.char_end) for n in opened]
        markers += [
            (page, m)
            for m in _markers(glyphs, text)
            if not any(a <= m.char_start < b for a, b in in_notes)
        ]
    return _linked(markers, notes)


def _markers(glyphs: list[_Glyph], text: str) -> list[FootnoteMarker]:
    """Markers: digit runs (not opening a line) smaller than, and raised above, the letter or
    closing punctuation set right before them (else right after them)."""
    found = []
    at = {g.offset: g for g in glyphs}
    i = 0
    while i < len(glyphs):
        first = glyphs[i]
        if not first.char.isdigit():
            i += 1
            continue
        j = i
        while (
            j + 1 < len(glyphs)
            and glyphs[j + 1].char.isdigit()
            and glyphs[j + 1].offset == glyphs[j].offset + 1
        ):
            j += 1
        run, i = glyphs[i : j + 1], j + 1
        if text[first.offset - 1 : first.offset] in ("", "\n"):
            continue
        beside = [at.get(first.offset - 1), at.get(run[-1].offset + 1)]
        neighbour = next(
            (g for g in beside if g is not None and (g.char.isalpha() or g.char in _CLOSING)), None
        )
        if (
            neighbour is not None
            and len(run) <= MAX_LABEL_DIGITS
            and all(d.height <= MARKER_SIZE * neighbour.height for d in run)
            and all(d.centre > neighbour.centre for d in run)
        ):
            label = "".join(d.char for d in run)
            found.append(
                FootnoteMarker(label=label, char_start=first.offset, char_end=run[-1].offset + 1)
            )
    return found


def _notes(glyphs: list[_Glyph], text: str) -> list[Footnote]:
    """Notes: each opens a line with a number set as a marker (smaller than the letter after it,
    and raised), and runs to the next note's opening or the page's last glyph (the layout reads a
    page's notes after its body)."""
    at = {g.offset: g for g in glyphs}
    openings = []
    for g in glyphs:
        if not g.char.isdigit() or text[g.offset - 1 : g.offset] not in ("", "\n"):
            continue
        digits = 0
        while text[g.offset + digits : g.offset + digits + 1].isdigit():
            digits += 1
        after = text[g.offset + digits : g.offset + digits + 2].lstrip(" ")[:1]
        letter = at.get(text.find(after, g.offset + digits)) if after.isalpha() else None
        run = [at.get(g.offset + k) for k in range(digits)]
        if (
            digits <= MAX_LABEL_DIGITS
            and letter is not None
            and all(d is not None and d.height <= MARKER_SIZE * letter.height for d in run)
            and all(d is not None and d.centre > letter.centre for d in run)
        ):
            openings.append((g.offset, digits))
    page_end = max(g.offset for g in glyphs) + 1
    notes = []
    for k, (start, digits) in enumerate(openings):
        stop = openings[k + 1][0] if k + 1 < len(openings) else page_end
        end = len(text[start:stop].rstrip()) + start
        notes.append(Footnote(label=text[start : start + digits], char_start=start, char_end=end))
    return notes


def _linked(
    markers: list[tuple[int, FootnoteMarker]], notes: list[tuple[int, Footnote]]
) -> FootnoteReading:
    by_page: dict[tuple[int, str], list[int]] = defaultdict(list)
    for k, (page, note) in enumerate(notes):
        by_page[(page, note.label)].append(k)
    anchors: dict[int, list[tuple[int, int]]] = defaultdict(list)
    unlinked, ambiguous = [], []
    for page, marker in markers:
        found = by_page.get((page, marker.label)) or by_page.get((page + 1, marker.label), [])
        if not found:
            unlinked.append(marker)
        elif len(found) > 1:
            ambiguous.append(marker)
        else:
            anchors[found[0]].append((marker.char_start, marker.char_end))
    return FootnoteReading(
        footnotes=tuple(
            Footnote(
                label=n.label,
                char_start=n.char_start,
                char_end=n.char_end,
                anchors=tuple(sorted(anchors.get(k, ()))),
            )
            for k, (_, n) in enumerate(notes)
        ),
        markers=tuple(m for _, m in markers),
        unlinked=tuple(unlinked),
        ambiguous=tuple(ambiguous),
    )
