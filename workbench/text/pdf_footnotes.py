"""Footnotes read off a PDF's glyphs (C20), in raw offsets of the extracted text, which must be the
version's; a page's last note run on at the next page's foot is joined. Markers, notes and what is
not joined are in docs/pdf.md."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from statistics import median
from typing import TYPE_CHECKING

from workbench.errors import ExtractionError
from workbench.text.footnotes import Footnote, FootnoteMarker, FootnoteReading

if TYPE_CHECKING:
    from workbench.text.ocr import OcrOptions
    from workbench.text.pdf import Placed

MARKER_SIZE = 0.8  # a marker's glyphs: at most this share of its neighbour letter's height
MAX_LABEL_DIGITS = 3
# A note's lines stand at most this many times the notes' usual line pitch apart; a run-on note's
# first line at the next page's foot stands more than this many times both pitches below the body.
PITCH_SLACK = 1.25
NOTE_HEIGHT_SLACK = 1.05  # a run-on line's letters: at most this many times the notes' height
_CLOSING = frozenset(".,;:)]”’\"'")  # punctuation a marker may follow, as after a sentence
_IN_NUMBER = frozenset(",./:-–⁄")  # between two digits, these make one number ("1/2", "37,499")

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
      (else right after; across one space either way), their centres above its centre; a marker
      set right after a number's digits is the tail of the digit run set that way against the
      digit before it. A run not set right after its letter (across a space, glued to digits,
      or read against what follows it) that is part of a longer number (`_number_goes_on`:
      "1/2", "37,499.96") is no marker.
    - A note opens where a line starts with such a number, then a space, set the same way
      against the character after the space (a letter, or "$", "(" and the like); it runs to
      the next note's opening or the page's last glyph, or to a line set larger than its first,
      white space at its end left out. The
      page's last note runs on at the next page's foot (`_runs_on`): those words are its
      `continued` spans.
    - A marker links to the note of its number on its page, else on the next page; none is
      `unlinked`, two or more `ambiguous`.

    Refused (`ExtractionError`) when the re-extraction's text is not `text`.
    """
    from workbench.text.pdf import extract_pdf

    trace: list[Placed] = []
    extraction = extract_pdf(data, source=source, language=language, ocr=ocr, trace=trace)
    if extraction.text != text:
        raise ExtractionError(f"{source}: the PDF re-extracted is not the version's text")
    return footnotes_from_trace(trace, text)


def footnotes_from_trace(trace: Sequence[Placed], text: str) -> FootnoteReading:
    """The footnotes of the extraction whose trace is `trace` and text `text` (the rules are
    `read_pdf_footnotes`')."""
    pages: dict[int, list[_Glyph]] = defaultdict(list)
    for offset, page, run in trace:
        for i, (char, box) in enumerate(zip("".join(run.parts), run.boxes or (), strict=False)):
            if box is not None:
                pages[page].append(_Glyph(offset + i, char, box))
    for glyphs in pages.values():
        glyphs.sort(key=lambda g: g.offset)
    lines = {page: _lines(glyphs, text) for page, glyphs in pages.items()}
    opened = {page: _notes(glyphs, text) for page, glyphs in pages.items()}
    run_on = _runs_on(opened, lines, text)
    notes: list[tuple[int, Footnote]] = []
    markers: list[tuple[int, FootnoteMarker]] = []
    for page in sorted(pages):
        for k, note in enumerate(opened[page]):
            if k == len(opened[page]) - 1:
                note = replace(note, continued=_continuation(page, opened, run_on))
            notes.append((page, note))
        in_notes = [s for n in opened[page] for s in n.spans]
        in_notes += [run_on[page]] if page in run_on else []
        markers += [
            (page, m)
            for m in _markers(pages[page], text)
            if not any(a <= m.char_start < b for a, b in in_notes)
        ]
    return _linked(markers, notes)


def _lines(glyphs: list[_Glyph], text: str) -> list[list[_Glyph]]:
    """A page's glyphs (in text order) cut into its lines, where the text breaks a line."""
    out: list[list[_Glyph]] = []
    for g in glyphs:
        if not out or "\n" in text[out[-1][-1].offset : g.offset]:
            out.append([])
        out[-1].append(g)
    return out


def _pitch(upper: list[_Glyph], lower: list[_Glyph]) -> float:
    """How far `lower`'s foot stands below `upper`'s (page units; a raised marker aside)."""
    return min(g.box[1] for g in upper) - min(g.box[1] for g in lower)


def _runs_on(
    opened: dict[int, list[Footnote]], lines: dict[int, list[list[_Glyph]]], text: str
) -> dict[int, tuple[int, int]]:
    """Per page, the span of its foot that continues the note left open at the previous page's
    end (that page's last note, or its own run-on when it opened none): the lines just before
    the page's first note opening (or ending the page, when it opens none) that stand at most
    `PITCH_SLACK` times the notes' usual line pitch apart, their letters no taller than the
    notes' (by `NOTE_HEIGHT_SLACK`), the first of them more than `PITCH_SLACK` times both that
    pitch and the page's usual body pitch below the line above it, and every line above them
    standing wholly above their highest glyph's centre (the page's foot, not a column's: a page
    set in columns joins none). The notes' pitch and letter height are the medians over every
    note's lines; with no note of two lines none is joined."""
    each_note = [
        [kept for line in lines[page] if (kept := [g for g in line if a <= g.offset < b])]
        for page, found in opened.items()
        for a, b in (n.spans[0] for n in found)
    ]
    pitches = [_pitch(u, v) for note in each_note for u, v in pairwise(note)]
    heights = [g.height for note in each_note for line in note for g in line if g.char.isalpha()]
    if not pitches or not heights:
        return {}
    pitch, height = median(pitches), median(heights)
    out: dict[int, tuple[int, int]] = {}
    for page in sorted(lines):
        if not (opened.get(page - 1) or page - 1 in out):  # no note left open above
            continue
        before = opened[page][0].char_start if opened.get(page) else len(text)
        foot = [line for line in lines[page] if line[0].offset < before]
        k = len(foot) - 1
        while k > 0 and _pitch(foot[k - 1], foot[k]) <= PITCH_SLACK * pitch:
            k -= 1
        if k <= 0:
            continue
        body = [_pitch(u, v) for u, v in pairwise(foot[:k])]
        band = _pitch(foot[k - 1], foot[k])
        letters = [g.height for line in foot[k:] for g in line if g.char.isalpha()]
        top = max(g.centre for line in foot[k:] for g in line)
        if (
            band > PITCH_SLACK * max(pitch, median(body) if body else 0.0)
            and all(min(g.box[1] for g in line) > top for line in foot[:k])
            and letters
            and median(letters) <= NOTE_HEIGHT_SLACK * height
        ):
            start = foot[k][0].offset
            out[page] = (start, start + len(text[start : foot[-1][-1].offset + 1].rstrip()))
    return out


def _continuation(
    page: int, opened: dict[int, list[Footnote]], run_on: dict[int, tuple[int, int]]
) -> tuple[tuple[int, int], ...]:
    """The run-on spans of `page`'s last note: the next page's, and on while a page opens none."""
    spans = []
    while (page := page + 1) in run_on:
        spans.append(run_on[page])
        if opened.get(page):
            break
    return tuple(spans)


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
        # The glyph right before (else right after), across one space the layout wrote there.
        beside = [
            at.get(o) or (at.get(o + step) if text[o : o + 1] == " " else None)
            for o, step in ((first.offset - 1, -1), (run[-1].offset + 1, 1))
        ]
        neighbour = next(
            (g for g in beside if g is not None and (g.char.isalpha() or g.char in _CLOSING)), None
        )
        # A marker set right after a number ("Account 144" then a raised "67") reads as one run:
        # its tail is the marker when set smaller and raised against the digit before it.
        glued = next((k for k in range(1, len(run)) if _raised(run[k:], run[k - 1])), None)
        if glued is not None:
            run, neighbour, first = run[glued:], run[glued - 1], run[glued]
        # Not right after the letter it qualifies (glued to digits, across a space, or read
        # against what follows it), a number that goes on is a number set small ("1/2",
        # "37,499.96"), not a marker; right after a letter or a full stop, "29,30" are two.
        after_letter = (
            glued is None and neighbour is not None and neighbour.offset == first.offset - 1
        )
        if not after_letter and _number_goes_on(text, run):
            continue
        if neighbour is not None and _raised(run, neighbour):
            label = "".join(d.char for d in run)
            found.append(
                FootnoteMarker(label=label, char_start=first.offset, char_end=run[-1].offset + 1)
            )
    return found


def _number_goes_on(text: str, run: list[_Glyph]) -> bool:
    """Whether the digits `run` are part of a longer number: followed by one of `_IN_NUMBER` and a
    digit ("1/2", "37,499.96"), or after a slash that follows a digit (the "21" of "3/21")."""
    after = text[run[-1].offset + 1 : run[-1].offset + 3]
    before = text[max(run[0].offset - 2, 0) : run[0].offset]
    return (len(after) == 2 and after[0] in _IN_NUMBER and after[1].isdigit()) or (
        len(before) == 2 and before[0].isdigit() and before[1] in "/⁄"
    )


def _raised(run: list[_Glyph], neighbour: _Glyph) -> bool:
    """Whether the digits `run` are set as a marker against `neighbour`: at most
    `MAX_LABEL_DIGITS`, each at most `MARKER_SIZE` of its height, each centre above its centre."""
    return (
        len(run) <= MAX_LABEL_DIGITS
        and all(d.height <= MARKER_SIZE * neighbour.height for d in run)
        and all(d.centre > neighbour.centre for d in run)
    )


def _notes(glyphs: list[_Glyph], text: str) -> list[Footnote]:
    """Notes: each opens a line with a number set as a marker (smaller than the character after the
    space that follows it, and raised), and runs to the next note's opening or the page's last
    glyph (the layout reads a page's notes after its body), or to the first line whose letters
    are taller than its first line's by more than `NOTE_HEIGHT_SLACK` (a column's body read after
    a note at another column's foot)."""
    at = {g.offset: g for g in glyphs}
    openings = []
    for g in glyphs:
        if not g.char.isdigit() or text[g.offset - 1 : g.offset] not in ("", "\n"):
            continue
        digits = 0
        while text[g.offset + digits : g.offset + digits + 1].isdigit():
            digits += 1
        after = text[g.offset + digits : g.offset + digits + 2]
        letter = at.get(g.offset + digits + 1) if after[:1] == " " and after.strip() else None
        run = [at.get(g.offset + k) for k in range(digits)]
        if (
            digits <= MAX_LABEL_DIGITS
            and letter is not None
            and all(d is not None and d.height <= MARKER_SIZE * letter.height for d in run)
            and all(d is not None and d.centre > letter.centre for d in run)
        ):
            openings.append((g.offset, digits))
    page_end = max(g.offset for g in glyphs) + 1
    lines = _lines(glyphs, text)
    notes = []
    for k, (start, digits) in enumerate(openings):
        stop = openings[k + 1][0] if k + 1 < len(openings) else page_end
        own = [line for line in lines if start <= line[0].offset < stop]
        size = _letter_height(own[0][digits:]) if own else None
        # Words set larger than the note's first line are not the note's (a column's body).
        stop = next(
            (
                line[0].offset
                for line in own[1:]
                if size and (h := _letter_height(line)) and h > NOTE_HEIGHT_SLACK * size
            ),
            stop,
        )
        end = len(text[start:stop].rstrip()) + start
        notes.append(Footnote(label=text[start : start + digits], char_start=start, char_end=end))
    return notes


def _letter_height(glyphs: list[_Glyph]) -> float | None:
    """The median height of the letters among `glyphs` (None: no letter)."""
    heights = [g.height for g in glyphs if g.char.isalpha()]
    return median(heights) if heights else None


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
            replace(n, anchors=tuple(sorted(anchors.get(k, ())))) for k, (_, n) in enumerate(notes)
        ),
        markers=tuple(m for _, m in markers),
        unlinked=tuple(unlinked),
        ambiguous=tuple(ambiguous),
    )
