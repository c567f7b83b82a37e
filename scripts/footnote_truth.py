"""Derive footnote links from the Federal Register's own GPO markup, to score the workbench's reader.

It imports nothing from `workbench`. A reference is `<SU>n</SU>` followed, with only white space
between, by `<FTREF/>`; a note is an `<FTNT>` whose first `<P>` opens with `<SU>n</SU>`; a reference
links to the note of its number in the same file. For each link it writes the reference's number,
the last `CONTEXT` non-white-space characters before it inside its paragraph, and the first
`CONTEXT` non-white-space characters of the note after its number: keys that name a marker and a
note without any offset of the workbench's. References whose number has no note, notes no
reference names, `FTNT` elements that open with no number and numbers two notes share are
listed apart, never linked.

Usage: `python scripts/footnote_truth.py FILE.xml ... [--out FILE]` (JSON on stdout without --out).
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from lxml import etree

CONTEXT = 40
_SPACE = re.compile(r"\s+")


def _squeeze(text: str) -> str:
    return _SPACE.sub("", text)


def _text_before(paragraph: etree._Element, stop: etree._Element) -> str:
    pieces: list[str] = []

    def walk(el: etree._Element) -> bool:
        if el is stop:
            return True
        if el.text:
            pieces.append(el.text)
        for child in el:
            if walk(child):
                return True
            if child.tail:
                pieces.append(child.tail)
        return False

    walk(paragraph)
    return _squeeze("".join(pieces))[-CONTEXT:]


def _paragraph(el: etree._Element) -> etree._Element:
    parent = el.getparent()
    while parent is not None and parent.tag not in ("P", "FP"):
        parent = parent.getparent()
    return parent if parent is not None else el.getparent()


def truth_for(path: Path) -> dict[str, object]:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    root = etree.fromstring(path.read_bytes(), parser)
    notes: dict[str, list[str]] = defaultdict(list)
    unnumbered = 0
    for note in root.iter("FTNT"):
        first = note.find("P")
        label = first.find("SU") if first is not None else None
        if first is None or label is None or (first.text or "").strip() or first[0] is not label:
            unnumbered += 1
            continue
        words = (label.tail or "") + "".join(
            "".join(el.itertext()) + (el.tail or "") for el in label.itersiblings()
        )
        words += "".join("".join(p.itertext()) for p in first.itersiblings())
        notes[(label.text or "").strip()].append(_squeeze(words)[:CONTEXT])
    links: list[dict[str, str]] = []
    without_note: list[str] = []
    used: set[str] = set()
    for mark in root.iter("FTREF"):
        reference = mark.getprevious()
        if reference is None or reference.tag != "SU" or (reference.tail or "").strip():
            continue
        number = (reference.text or "").strip()
        if len(notes.get(number, ())) != 1:
            without_note.append(number)
            continue
        used.add(number)
        links.append(
            {
                "label": number,
                "before": _text_before(_paragraph(reference), reference),
                "note": notes[number][0],
            }
        )
    return {
        "file": path.name,
        "links": links,
        "references_without_note": without_note,
        "notes_without_reference": sorted(
            (n for n in notes if n not in used), key=lambda n: (len(n), n)
        ),
        "numbers_shared_by_notes": sorted(n for n, found in notes.items() if len(found) > 1),
        "unnumbered_notes": unnumbered,
    }


def write_report(argv: list[str], doc: str, truth_for: Callable[[Path], object]) -> int:
    """Each file of `argv` read by `truth_for`, under the rules (`doc`'s second paragraph), as
    JSON to `--out FILE` or stdout. The table oracle (`table_truth.py`) writes through it too."""
    out = None
    if "--out" in argv:
        at = argv.index("--out")
        out = Path(argv[at + 1])
        argv = argv[:at] + argv[at + 2 :]
    report = {
        "rules": " ".join(doc.split("\n\n")[1].split()),
        "files": [truth_for(Path(p)) for p in argv],
    }
    text = json.dumps(report, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    if out is None:
        sys.stdout.write(text)
    else:
        out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(write_report(sys.argv[1:], __doc__ or "", truth_for))
