"""The one reader of footnote markers and their notes (C20), in raw offsets of a version's text: a
marker is linked by its markup's id or label, and one with no note or a shared number is reported,
never linked. The markups: docs/extraction.md, "Footnotes"."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from lxml import etree

from workbench.text.normalize import normalized_text
from workbench.text.xml import chooses_any, chosen_element_spans, parse_xml

# Case-folded local names. A note element holds a footnote's words; a reference element names
# its note by id; an empty `FTREF` makes the element just before it a reference by label.
NOTE_ELEMENTS = frozenset({"ftnt", "footnote", "authorialnote"})
REFERENCE_ELEMENTS = frozenset({"ref", "footnoteref", "noteref"})
# Elements that only ever refer to a note: a marker even when the note they name is missing. A
# generic `ref` is a marker only when its target is a note (USLM notes link back with `ref`s).
NOTE_REFERENCE_ELEMENTS = frozenset({"footnoteref", "noteref"})
LABEL_REFERENCE_MARK = "ftref"
# A note's label is the text of its first element of these names, when no text stands before it.
NOTE_LABEL_ELEMENTS = frozenset({"su", "sup", "label", "ref", "num"})
_ID_ATTRIBUTES = ("id", "eId", "{http://www.w3.org/XML/1998/namespace}id")

# Markdown (CommonMark's footnote extension): a definition starts a line, "[^label]:"; its
# continuation lines are indented; a reference is "[^label]" anywhere else.
_MARKDOWN_NOTE = re.compile(r"^\[\^([^\]\s]+)\]:[ \t]*", re.MULTILINE)
_MARKDOWN_REFERENCE = re.compile(r"\[\^([^\]\s]+)\](?!:)")
_MARKDOWN_CONTINUATION = re.compile(r"\n(?:[ \t]*\n)*(?:    |\t)[^\n]*")


@dataclass(frozen=True, slots=True, kw_only=True)
class FootnoteMarker:
    """A marker in the body: its label as printed ("1", "*") and its raw offsets."""

    label: str
    char_start: int
    char_end: int

    def as_json(self) -> dict[str, object]:
        return {"label": self.label, "char_start": self.char_start, "char_end": self.char_end}


@dataclass(frozen=True, slots=True, kw_only=True)
class Footnote:
    """A note: its label, the raw offsets of its words (label included), `anchors`, the raw
    offsets of every marker that refers to it, in text order (empty: a note no marker names),
    and `continued`, the raw offsets of its words printed further on (a PDF note run on at the
    next page's foot), in text order."""

    label: str
    char_start: int
    char_end: int
    anchors: tuple[tuple[int, int], ...] = ()
    continued: tuple[tuple[int, int], ...] = ()

    @property
    def spans(self) -> tuple[tuple[int, int], ...]:
        """Every span of the note's words: its own, then its continuations."""
        return ((self.char_start, self.char_end), *self.continued)

    def as_json(self) -> dict[str, object]:
        return {
            "label": self.label,
            "char_start": self.char_start,
            "char_end": self.char_end,
            "anchors": [list(a) for a in self.anchors],
            **({"continued": [list(c) for c in self.continued]} if self.continued else {}),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class FootnoteReading:
    """Every note and marker of one version's text, in text order, with what could not be linked:
    `unlinked` markers name no note there, `ambiguous` markers name a label two notes share."""

    footnotes: tuple[Footnote, ...] = ()
    markers: tuple[FootnoteMarker, ...] = ()
    unlinked: tuple[FootnoteMarker, ...] = ()
    ambiguous: tuple[FootnoteMarker, ...] = ()

    @property
    def marker_spans(self) -> tuple[tuple[int, int], ...]:
        """The raw offsets of every marker, linked or not: text a numbering reader must not take
        for a label."""
        return tuple((m.char_start, m.char_end) for m in self.markers)

    @property
    def unanchored(self) -> tuple[Footnote, ...]:
        """Notes no marker refers to."""
        return tuple(f for f in self.footnotes if not f.anchors)

    def notes_in(self, char_start: int, char_end: int) -> tuple[Footnote, ...]:
        """The notes with a marker inside `[char_start, char_end)`, in text order, each once."""
        return tuple(
            f for f in self.footnotes if any(char_start <= a < char_end for a, _ in f.anchors)
        )

    def notes_qualifying(self, char_start: int, char_end: int) -> tuple[Footnote, ...]:
        """The notes that qualify the words `[char_start, char_end)`: a marker of theirs starts
        inside it or exactly at its end (printed right after the last word), in text order."""
        return tuple(
            f for f in self.footnotes if any(char_start <= a <= char_end for a, _ in f.anchors)
        )


def note_words(note: Footnote, text: str) -> str:
    """A note's words after its label, its continuations joined by a space, normalized (C5):
    what two versions' notes are compared by, so a note relabelled because one was inserted
    before it ("a" now "b") has not changed."""
    words = " ".join(text[a:b] for a, b in note.spans).lstrip()
    return normalized_text(words.removeprefix(note.label)).strip()


def read_footnotes(data: bytes, *, source: str, media_type: str, text: str) -> FootnoteReading:
    """The footnotes of a version from its artefact `data` and its extracted `text`.

    XML is read from its markup (`read_markup_footnotes`), Markdown from its text
    (`read_markdown_footnotes`); any other media type gives an empty reading."""
    if "xml" in media_type:
        return read_markup_footnotes(data, source=source)
    if "markdown" in media_type:
        return read_markdown_footnotes(text)
    return FootnoteReading()


def _local(el: etree._Element) -> str:
    tag = el.tag
    return tag.rpartition("}")[2].casefold() if isinstance(tag, str) else ""


def _words(el: etree._Element) -> str:
    return "".join(str(piece) for piece in el.itertext(etree.Element)).strip()


def _element_id(el: etree._Element) -> str | None:
    return next((el.get(a) for a in _ID_ATTRIBUTES if el.get(a)), None)


def _target(el: etree._Element) -> str | None:
    target = el.get("idref") or el.get("href")
    return target.removeprefix("#") if target else None


def _labelled_reference(el: etree._Element) -> bool:
    following = el.getnext()
    return (
        following is not None
        and _local(following) == LABEL_REFERENCE_MARK
        and not (el.tail or "").strip()
    )


def _note_label(note: etree._Element) -> str | None:
    if (note.text or "").strip():
        return None
    for child in note.iter(etree.Element):
        if child is note:
            continue
        if _local(child) in NOTE_LABEL_ELEMENTS:
            label = _words(child)
            return label or None
        if (child.text or "").strip():
            return None
    return None


def read_markup_footnotes(data: bytes, *, source: str) -> FootnoteReading:
    """The footnotes an XML artefact's markup links, in raw offsets of `extract_xml`'s text
    (`NoteMarkup`'s rules, one render of the text where the markup has a note, marker or
    entity reference; none otherwise)."""
    root = parse_xml(data, source=source)
    markup = NoteMarkup(root)
    # No note, marker or entity: nothing is read, so the text is not rendered again.
    found = chooses_any(root, markup.chooses)
    return markup.reading(chosen_element_spans(root, source, markup.chooses) if found else ())


class NoteMarkup:
    """The footnote markup of one parsed XML document: which elements `chooses` (notes and
    markers, whose spans a render gives) and the `reading` those spans make.

    A note is an element named in `NOTE_ELEMENTS` that gives text. A marker is a reference element
    (`REFERENCE_ELEMENTS`) whose `idref` or `href` names a note's id, or an element followed,
    with only white space between, by an empty `FTREF`. An id marker links to the note with that
    id. A label marker links by label (`_note_label`: the note's first label element): the marker's
    nearest ancestor that holds a note of that label decides; one such note is linked, two or more
    make the marker `ambiguous`. A marker whose id or label names no note giving text is `unlinked`.
    A reference naming an id that is no note (a note's link back to its marker) is no marker.
    Markers inside a note are not read (only the outermost chosen element has a span). A note no
    marker names that carries a `marker` attribute and sits in running text (Akoma Ntoso's
    `authorialNote`, printed at its marker's place) is anchored there: an empty span at its start,
    labelled by that attribute.
    """

    __slots__ = ("notes_by_id",)

    def __init__(self, root: etree._Element) -> None:
        self.notes_by_id: dict[str, list[etree._Element]] = defaultdict(list)
        for el in root.iter(etree.Element):
            if _local(el) in NOTE_ELEMENTS and (note_id := _element_id(el)):
                self.notes_by_id[note_id].append(el)

    def chooses(self, el: etree._Element) -> bool:
        """Whether `el` is a note or a marker (its span is read)."""
        name = _local(el)
        if name in NOTE_ELEMENTS:
            return True
        if name in NOTE_REFERENCE_ELEMENTS or (
            name in REFERENCE_ELEMENTS and _target(el) in self.notes_by_id
        ):
            return True
        return _labelled_reference(el)

    def reading(self, spans: Sequence[tuple[etree._Element, int, int]]) -> FootnoteReading:
        """The reading of the elements `chooses` chose, each with its span
        (`xml.chosen_element_spans`), in text order."""
        notes = [(el, start, end) for el, start, end in spans if _local(el) in NOTE_ELEMENTS]
        note_span = {id(el): (start, end) for el, start, end in notes}
        labels = {id(el): _note_label(el) for el, _, _ in notes}
        anchors: dict[int, list[tuple[int, int]]] = defaultdict(list)
        markers: list[FootnoteMarker] = []
        unlinked: list[FootnoteMarker] = []
        ambiguous: list[FootnoteMarker] = []
        for el, start, end in spans:
            if _local(el) in NOTE_ELEMENTS:
                continue
            marker = FootnoteMarker(label=_words(el), char_start=start, char_end=end)
            markers.append(marker)
            if (target := _target(el)) is not None and _local(el) in REFERENCE_ELEMENTS:
                candidates = [n for n in self.notes_by_id.get(target, ()) if id(n) in note_span]
            else:
                candidates = _notes_in_scope(el, marker.label, notes, labels)
            if not candidates:
                unlinked.append(marker)
            elif len(candidates) > 1:
                ambiguous.append(marker)
            else:
                anchors[id(candidates[0])].append((start, end))
        for el, start, _ in notes:
            # A note set in running text with a `marker` (Akoma Ntoso's authorialNote) stands
            # where its marker is printed: its anchor is that place, an empty span at its start.
            if not anchors.get(id(el)) and el.get("marker") and _in_running_text(el):
                anchors[id(el)].append((start, start))
                labels[id(el)] = labels[id(el)] or el.get("marker", "").strip()
        return FootnoteReading(
            footnotes=tuple(
                Footnote(
                    label=labels[id(el)] or "",
                    char_start=start,
                    char_end=end,
                    anchors=tuple(sorted(anchors.get(id(el), ()))),
                )
                for el, start, end in notes
            ),
            markers=tuple(markers),
            unlinked=tuple(unlinked),
            ambiguous=tuple(ambiguous),
        )


def _in_running_text(el: etree._Element) -> bool:
    """Whether words stand beside `el` in its parent: text before it, or after it."""
    parent = el.getparent()
    if parent is None:
        return False
    pieces = [parent.text, *(c.tail for c in parent)]
    return any(p is not None and p.strip() for p in pieces)


def _notes_in_scope(
    marker: etree._Element,
    label: str,
    notes: list[tuple[etree._Element, int, int]],
    labels: dict[int, str | None],
) -> list[etree._Element]:
    """The notes labelled `label` inside the marker's nearest ancestor that holds any."""
    labelled = [el for el, _, _ in notes if labels[id(el)] == label]
    if not labelled:
        return []
    for ancestor in marker.iterancestors():
        inside = [n for n in labelled if any(a is ancestor for a in n.iterancestors())]
        if inside:
            return inside
    return []


def read_markdown_footnotes(text: str) -> FootnoteReading:
    """The footnotes of a Markdown text: a note is a line opening "[^label]:" with its indented
    continuation lines (a blank line may sit between); a marker is "[^label]" elsewhere, linked to
    the note of the same label. Two notes of one label make their markers `ambiguous`."""
    notes: list[tuple[str, int, int]] = []
    for match in _MARKDOWN_NOTE.finditer(text):
        end = text.find("\n", match.start())
        end = len(text) if end < 0 else end
        while (more := _MARKDOWN_CONTINUATION.match(text, end)) is not None:
            end = more.end()
        notes.append((match.group(1), match.start(), len(text[:end].rstrip())))
    by_label: dict[str, list[int]] = defaultdict(list)
    for i, (label, _, _) in enumerate(notes):
        by_label[label].append(i)
    note_heads = {start for _, start, _ in notes}
    anchors: dict[int, list[tuple[int, int]]] = defaultdict(list)
    markers: list[FootnoteMarker] = []
    unlinked: list[FootnoteMarker] = []
    ambiguous: list[FootnoteMarker] = []
    for match in _MARKDOWN_REFERENCE.finditer(text):
        if match.start() in note_heads:
            continue
        marker = FootnoteMarker(
            label=match.group(1), char_start=match.start(), char_end=match.end()
        )
        markers.append(marker)
        found = by_label.get(marker.label, [])
        if not found:
            unlinked.append(marker)
        elif len(found) > 1:
            ambiguous.append(marker)
        else:
            anchors[found[0]].append((match.start(), match.end()))
    return FootnoteReading(
        footnotes=tuple(
            Footnote(label=label, char_start=start, char_end=end, anchors=tuple(anchors[i]))
            for i, (label, start, end) in enumerate(notes)
        ),
        markers=tuple(markers),
        unlinked=tuple(unlinked),
        ambiguous=tuple(ambiguous),
    )


# Footnote look-alikes in plain text: a marker is a number of at most three digits (one lower-case
# letter may follow: `2a`) closed by `)`, glued to the word before it or to the punctuation right
# after that word, bare or after `^` or inside `<sup>`; a note is a line opening with a number
# closed by `)` or `.` (bare, after `^` or inside `<sup>`).
_LOOKALIKE_MARKER = re.compile(
    r"(?<=[^\W\d_])[.,;:]?(?P<mark>(?P<caret>\^|<sup>)?(?P<label>\d{1,3}[a-z]?)\)(?:</sup>)?)"
)
_LOOKALIKE_NOTE = re.compile(
    r"[ \t]*(?P<open>\^|<sup>)?(?P<label>\d{1,3}[a-z]?)(?P<close>\)|\.)(?:</sup>)?\s"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class LookalikeNote:
    """A line opening with a footnote's number written as a paragraph number (`1)`, `^1)`, `1.`):
    the raw offset of its line's start, its number, and the raw offsets of the marker naming it
    (None: a note no marker names, read as one because it stands among notes that are named)."""

    line_start: int
    label: str
    marker: tuple[int, int] | None

    @property
    def why(self) -> str:
        """Why the line is no label, as `workbench structure` says it."""
        if self.marker is None:
            return f"footnote {self.label}: a superscript number, or among notes markers name"
        return f"footnote {self.label}: its number is the marker's at offset {self.marker[0]}"


def footnote_lookalikes(text: str) -> tuple[LookalikeNote, ...]:
    """The lines of `text` that are footnotes numbered like paragraphs, in text order.

    A marker (`_LOOKALIKE_MARKER`) stands inside a line, never at its start; a bare one (no `^`,
    no `<sup>`) must pass `_bare_marker`. A run is a stretch of lines opening with numbers in one
    form (`_LOOKALIKE_NOTE`: the same `^` or `<sup>` or none, the same closing sign), only blank
    lines between. A run names a marker when one of its lines opens with the marker's number
    (letter included) and the marker stands before the run, each marker named once, the first
    that stands before taken. Notes follow the body: from the text's last run back, a run is notes
    through when at least half its lines name a marker no later run named and every later run of
    its form was notes; the first run of a form that is not closes that form (a paragraph `1)`
    in the body is no note). A note's line naming no marker is a note no marker names (a version
    that dropped a marker keeps its note). A line opening with a superscript number (`^` or
    `<sup>`) is a note, named or not: no paragraph number is written raised. A number read as a
    note this way is noise to a numbering reader, never a label."""
    lines: list[tuple[int, str]] = []
    start = 0
    for line in text.split("\n"):
        lines.append((start, line))
        start += len(line) + 1
    notes = {i: m for i, (_, line) in enumerate(lines) if (m := _LOOKALIKE_NOTE.match(line))}
    if not notes:
        return ()
    markers: list[tuple[int, str, tuple[int, int]]] = []  # (line index, number, raw offsets)
    for index, (line_start, line) in enumerate(lines):
        for match in _LOOKALIKE_MARKER.finditer(line):
            at = match.start("mark")
            if match.group("caret") or _bare_marker(line, match.start(), at):
                markers.append(
                    (index, match.group("label"), (line_start + at, line_start + match.end("mark")))
                )
    found: dict[int, LookalikeNote] = {}
    named: set[int] = set()  # markers (by index into `markers`) a run taken names
    closed: set[tuple[str, str]] = set()  # forms with a run that is no notes after it
    for run in reversed(_note_runs(lines, notes) if markers else []):
        form = _form(notes[run[0]])
        names = {} if form in closed else _run_names(run, notes, markers, named)
        if not names or 2 * len(names) < len(run):
            closed.add(form)
            continue
        for index in run:
            marker = markers[names[index]][2] if index in names else None
            found[index] = LookalikeNote(
                line_start=lines[index][0], label=notes[index].group("label"), marker=marker
            )
        named.update(names.values())
    for index, note in notes.items():
        if note.group("open") and index not in found:
            found[index] = LookalikeNote(
                line_start=lines[index][0], label=note.group("label"), marker=None
            )
    return tuple(found[i] for i in sorted(found))


def _note_runs(lines: list[tuple[int, str]], notes: dict[int, re.Match[str]]) -> list[list[int]]:
    """The runs of `footnote_lookalikes`: line indexes opening with numbers in one form, only
    blank lines between, in text order."""
    runs: list[list[int]] = []
    for index in sorted(notes):
        if runs:
            previous = runs[-1][-1]
            between = all(not lines[i][1].strip() for i in range(previous + 1, index))
            if between and _form(notes[previous]) == _form(notes[index]):
                runs[-1].append(index)
                continue
        runs.append([index])
    return runs


def _form(note: re.Match[str]) -> tuple[str, str]:
    """A note's form: what raises its number (`^`, `<sup>` or nothing) and its closing sign."""
    return note.group("open") or "", note.group("close")


def _run_names(
    run: list[int],
    notes: dict[int, re.Match[str]],
    markers: list[tuple[int, str, tuple[int, int]]],
    named: set[int],
) -> dict[int, int]:
    """Which marker each line of `run` names (line index -> index into `markers`): the first
    marker of its number standing before the run that no chosen run and no earlier line named."""
    names: dict[int, int] = {}
    for index in run:
        label = notes[index].group("label")
        for m, (line, number, _) in enumerate(markers):
            if line >= run[0]:
                break
            if number == label and m not in named and m not in names.values():
                names[index] = m
                break
    return names


def _bare_marker(line: str, word_end: int, at: int) -> bool:
    """A number glued to a word with no `^` or `<sup>` is a marker when the word before it has at
    least two letters and does not end in a capital (`R2`, `A.1`, `CO2` are names or labels), and
    its `)` closes no parenthesis opened before it on its line (`(IPv6)`)."""
    word = re.search(r"[^\W\d_]+$", line[:word_end])
    if word is None or len(word.group()) < 2 or word.group()[-1].isupper():
        return False
    return line.count("(", 0, at) <= line.count(")", 0, at)
