"""The OOXML of a Word redline (C23): `redline_docx`'s runs and marks laid out as WordprocessingML
paragraphs, every character written so a word processor reads back the same text, or the version
refused (`check_writable`)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from workbench.changes.redline import Held
from workbench.errors import RedlineError

if TYPE_CHECKING:
    from lxml.etree import _Element

AUTHOR = "workbench"
PROPERTY_PREFIX = "workbench."
CUSTOM_PROPERTIES = "application/vnd.openxmlformats-officedocument.custom-properties+xml"
CUSTOM_NS = "http://schemas.openxmlformats.org/officeDocument/2006/custom-properties"
VT_NS = "http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes"
# Comments are numbered from 0 by python-docx; revisions and move ranges count from these, so no
# two annotations of the document share an id.
REVISION_IDS, MOVE_IDS = 500_000, 1_000_000
PROPERTY_FMTID = "{D5CDD505-2E9C-101B-9397-08002B2CF9AE}"  # the user-defined property set

Mode = Literal["equal", "ins", "del", "moveFrom", "moveTo"]
# Characters XML 1.0 cannot hold that are white space: each is written as a line break (`w:br`),
# which the one normalization reads as the same white space. U+0085, U+2028 and U+2029 are legal
# XML but a word processor reads the last two as breaks of its own, so they are breaks here too.
_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x1f\x85\u2028\u2029")
# Characters XML 1.0 cannot hold at all: a version holding one is refused (`check_writable`).
_UNWRITABLE = re.compile("[\x00-\x08\x0e-\x1b\ud800-\udfff\ufffe\uffff]")
_TEXT_PARTS = re.compile(
    "[\t\n\r\v\f\x1c-\x1f\x85\u2028\u2029]|[^\t\n\r\v\f\x1c-\x1f\x85\u2028\u2029]+"
)


@dataclass(frozen=True, slots=True)
class Run:
    mode: Mode
    text: str


@dataclass(frozen=True, slots=True)
class Mark:
    """A range marker: a comment's start or end, or a move range's start or end."""

    kind: Literal["comment_start", "comment_end", "move_start", "move_end"]
    ident: int
    side: Literal["", "From", "To"] = ""
    name: str = ""


Token = Run | Mark


# ---------------------------------------------------------------------------------------------
# OOXML


def _w(tag: str) -> str:
    from docx.oxml.ns import qn

    return qn(f"w:{tag}")


def _element(tag: str, **attributes: str) -> _Element:
    from docx.oxml import OxmlElement

    element = OxmlElement(f"w:{tag}")
    for name, value in attributes.items():
        element.set(_w(name), value)
    return element


def _run_element(text: str, *, deleted: bool) -> _Element:
    """One `w:r`: text as `w:t` (`w:delText` when deleted), tabs as `w:tab`, breaks as `w:br`."""
    run = _element("r")
    for part in _TEXT_PARTS.findall(text):
        if part == "\t":
            run.append(_element("tab"))
        elif part in _BREAKS:
            run.append(_element("br"))
        else:
            node = _element("delText" if deleted else "t")
            node.text = part
            node.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
            run.append(node)
    return run


class Revisions:
    """Numbers the tracked changes (`w:id`), one counter for the document."""

    def __init__(self) -> None:
        self.count = REVISION_IDS
        self.insertions = 0
        self.deletions = 0

    def wrapped(self, mode: Mode, text: str) -> _Element:
        if mode == "equal":
            return _run_element(text, deleted=False)
        self.count += 1
        self.insertions += mode == "ins"
        self.deletions += mode == "del"
        wrapper = _element(mode, id=str(self.count), author=AUTHOR)
        wrapper.append(_run_element(text, deleted=mode == "del"))
        return wrapper


def _mark_element(mark: Mark) -> list[_Element]:
    if mark.kind == "comment_start":
        return [_element("commentRangeStart", id=str(mark.ident))]
    if mark.kind == "comment_end":
        reference = _element("r")
        reference.append(_element("commentReference", id=str(mark.ident)))
        return [_element("commentRangeEnd", id=str(mark.ident)), reference]
    side = f"move{mark.side}Range"
    if mark.kind == "move_start":
        return [_element(f"{side}Start", id=str(mark.ident), author=AUTHOR, name=mark.name)]
    return [_element(f"{side}End", id=str(mark.ident))]


def _tracked_neighbours(tokens: Sequence[Token]) -> list[tuple[bool, bool]]:
    """For each token, whether the nearest run before it and the nearest run after it (range
    marks skipped) is marked (not "equal")."""
    runs = [(k, t.mode != "equal") for k, t in enumerate(tokens) if isinstance(t, Run)]
    flags = [(False, False)] * len(tokens)
    for j, (k, _) in enumerate(runs):
        flags[k] = (j > 0 and runs[j - 1][1], j + 1 < len(runs) and runs[j + 1][1])
    return flags


def layout(tokens: Sequence[Token], revisions: Revisions) -> list[_Element]:
    """The stream as paragraphs: a line feed of unmarked text ends a paragraph (both sides hold
    it); a line break inside a marked run is a `w:br`, so no paragraph mark is ever marked.

    CAUTION: a line feed with only line feeds between it and a marked run on each side is an
    unmarked space (the same white space under the one normalization), not a paragraph end nor a
    `w:br` (LibreOffice 7.4 hung on a file holding such breaks). LibreOffice joins two marked runs of one kind
    that meet across a paragraph mark into one change, and accepting or rejecting it takes the
    paragraph mark with it (an insertion ending one paragraph and one opening the next, rejected,
    leave the two paragraphs joined with no white space between them).
    """
    paragraphs = [_element("p")]
    neighbours = _tracked_neighbours(tokens)
    for token, (marked_before, marked_after) in zip(tokens, neighbours, strict=True):
        if isinstance(token, Mark):
            paragraphs[-1].extend(_mark_element(token))
            continue
        if token.mode != "equal":
            paragraphs[-1].append(revisions.wrapped(token.mode, token.text))
            continue
        lines = token.text.split("\n")
        for k, line in enumerate(lines):
            if k:
                flanked = (
                    marked_before and marked_after and not any(lines[:k]) and not any(lines[k:])
                )
                if flanked:
                    paragraphs[-1].append(revisions.wrapped("equal", " "))
                else:
                    paragraphs.append(_element("p"))
            if line:
                paragraphs[-1].append(revisions.wrapped("equal", line))
    return paragraphs


def check_writable(version: Held) -> None:
    """Refuse a version whose text holds a character XML cannot carry (not white space)."""
    found = _UNWRITABLE.search(version.text)
    if found is not None:
        raise RedlineError(
            f"{version.version_id}: character U+{ord(found.group()):04X} at offset "
            f"{found.start()} cannot be held in a Word document"
        )


def custom_properties_xml(properties: Mapping[str, str]) -> bytes:
    from lxml import etree

    # The default namespace, as Word writes this part (lxml-stubs do not allow the None key).
    namespaces = {None: CUSTOM_NS, "vt": VT_NS}
    root = etree.Element(f"{{{CUSTOM_NS}}}Properties", nsmap=namespaces)  # type: ignore[arg-type]
    for pid, (name, value) in enumerate(properties.items(), start=2):
        prop = etree.SubElement(
            root, f"{{{CUSTOM_NS}}}property", fmtid=PROPERTY_FMTID, pid=str(pid), name=name
        )
        etree.SubElement(prop, f"{{{VT_NS}}}lpwstr").text = value
    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True))
