"""Footnote links scored against the Federal Register's own markup (C20), through the text the
workbench's offsets index: a link is keyed by the marker's label, the words before it and the note's
first words."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from workbench.text.footnotes import FootnoteReading, read_markup_footnotes
from workbench.text.xml import extract_xml

CONTEXT = 40  # the truth script's CONTEXT: characters of each key, white space removed


@dataclass(frozen=True, slots=True, kw_only=True)
class FootnoteScore:
    """One file's links: how many the truth holds, the reader reports and both agree on, the links
    each side holds alone, and the markers each side leaves unlinked (labels, text order)."""

    file: str
    truth: int
    read: int
    agreed: int
    missed: tuple[tuple[str, str, str], ...]
    extra: tuple[tuple[str, str, str], ...]
    unlinked_truth: tuple[str, ...]
    unlinked_read: tuple[str, ...]
    unanchored_truth: tuple[str, ...]
    unanchored_read: tuple[str, ...]


def _squeeze(text: str) -> str:
    return "".join(text.split())


def _before(text: str, start: int) -> str:
    """The last `CONTEXT` characters of `_squeeze(text[:start])`, squeezed from a window before
    `start` that doubles until it holds them (or reaches the text's start), not from the whole
    text before each marker."""
    width = 4 * CONTEXT
    while True:
        low = max(0, start - width)
        squeezed = _squeeze(text[low:start])
        if len(squeezed) >= CONTEXT or low == 0:
            return squeezed[-CONTEXT:]
        width *= 2


def _keys(text: str, reading: FootnoteReading) -> list[tuple[str, str, str]]:
    keys = []
    for note in reading.footnotes:
        words = _squeeze(text[note.char_start : note.char_end]).removeprefix(note.label)
        for start, end in note.anchors:
            keys.append((text[start:end], _before(text, start), words[:CONTEXT]))
    return keys


def score_file(path: Path, truth: Mapping[str, object]) -> FootnoteScore:
    """Score the reader on one GPO XML file against its truth record.

    A read link agrees with a truth link when the labels and note words are equal and the words
    the reader sees before its marker end with the truth's (the truth stops at its paragraph's
    start). Each truth link is matched at most once, in text order.
    """
    data = path.read_bytes()
    text = extract_xml(data, source=str(path)).text
    reading = read_markup_footnotes(data, source=str(path))
    read = _keys(text, reading)
    links = truth["links"]
    assert isinstance(links, list)
    wanted = Counter((t["label"], t["note"]) for t in links)
    pending = {k: [t["before"] for t in links if (t["label"], t["note"]) == k] for k in wanted}
    agreed, extra = 0, []
    for key in read:
        befores = pending.get((key[0], key[2]), [])
        hit = next((b for b in befores if key[1].endswith(b)), None)
        if hit is None:
            extra.append(key)
            continue
        befores.remove(hit)
        agreed += 1
    missed = tuple((k[0], b, k[1]) for k, bs in pending.items() for b in bs)
    return FootnoteScore(
        file=path.name,
        truth=len(links),
        read=len(read),
        agreed=agreed,
        missed=missed,
        extra=tuple(extra),
        unlinked_truth=tuple(truth["references_without_note"]),  # type: ignore[arg-type]
        unlinked_read=tuple(m.label for m in (*reading.unlinked, *reading.ambiguous)),
        unanchored_truth=tuple(truth["notes_without_reference"]),  # type: ignore[arg-type]
        unanchored_read=tuple(f.label for f in reading.unanchored),
    )


def score_files(folder: Path, truth: Mapping[str, object]) -> tuple[FootnoteScore, ...]:
    """Every file of a truth report (`files`, each named by `file`), read from `folder`."""
    files = truth["files"]
    assert isinstance(files, Sequence)
    return tuple(score_file(folder / f["file"], f) for f in files)


def precision_recall(scores: Sequence[FootnoteScore]) -> tuple[float, float]:
    """Agreed links over links read, and over links in the truth, summed over files."""
    agreed = sum(s.agreed for s in scores)
    read = sum(s.read for s in scores)
    truth = sum(s.truth for s in scores)
    return (agreed / read if read else 0.0, agreed / truth if truth else 0.0)
