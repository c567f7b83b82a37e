"""Derive a truth of unit pairings between consecutive versions from the documents' own identifiers.

The diff pairs passages of one version with passages of the next; to score its precision and recall
we need pairings that the workbench did not compute. This script is that oracle, so it deliberately
imports nothing from `workbench`: it reads the catalogue rows, checks every mirror file's SHA-256
against its row, parses the bytes itself (lxml for XML, pypdfium2's text layer for PDF, strict UTF-8
for plain text) and pairs the **units** of two consecutive versions (same jurisdiction and family,
ordered by the provenance's `version_order`) whose identifier is the same on both sides. Its
guarantee: every pairing it lists rests on an identifier the two documents themselves print or carry,
occurring exactly once in each version; everything else is counted by reason, never guessed.

Rules shared by every jurisdiction (each jurisdiction's own rule is in `RULES`, and in the output):

* A unit's **own text** is its text outside its child units, with its own label (number) and its
  own heading (title, marginal note) left out and given apart; white space is collapsed to single
  spaces and stripped. In XML an element boundary counts as white space unless the element is
  inline (a cross-reference, an emphasis, a defined term: `INLINE` per schema), so "241(1)" stays
  whole and two text blocks never run together.
* A pairing is listed when the identifier occurs exactly once in each version and the own text is
  non-empty on both sides. Otherwise the identifier is counted once under the first reason that
  holds, in this order: `not_unique` (occurs more than once in either version), `before_only` /
  `after_only` (added or removed), `title_changed` (ietf only) and `renumbered` (ietf and us-nerc:
  see their rules),
  `empty_own_text` (no own text on one side or both).
* Restructures (ietf and us-nerc, see `restructures_of`) are listed apart: a unit under one number
  before and another after, which a reviewer should be shown.
* Pairings are listed in the before version's document order. Files are listed by catalogue path.
* A missing mirror file, or one whose SHA-256 is not the catalogue's, stops the run with one line
  naming it (exit status 2). Output is canonical JSON (sorted keys, `ensure_ascii=False`), so the
  same bytes in give the same bytes out.

Usage: `python scripts/alignment_truth.py [--mirror DIR] [--catalogue FILE] [--out FILE]`
(defaults `../shared/corpus`, `corpus/catalogue.jsonl`, `benchmarks/out/alignment-truth.json`).
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from lxml import etree

JURISDICTIONS = ("ca-federal", "ietf", "us-dc", "us-federal", "us-federal-register", "us-nerc")

RULES = {
    "us-dc": "D.C. Council XML: a unit is a section or para element with a num child; its "
    "identifier is the chain of num values of it and its enclosing units joined by ' › ' "
    "(34-1432 › (c) › (2)). The heading is given apart; the annotations element (history notes, "
    "rewritten by the Council with every amendment) is no unit's text.",
    "us-federal": "USLM XML: a unit is an element with an identifier attribute; the identifier is "
    "that attribute's value. Its num and heading children are given apart. Files whose elements "
    "carry no identifier attribute (the 113th-115th Congress conversions) contribute no units, so "
    "their units count as before_only or after_only.",
    "us-federal-register": "USLM XML, the same rule as us-federal (identifier attribute).",
    "ca-federal": "Justice Canada XML: a unit is a Section, Subsection, Paragraph, Subparagraph, "
    "Clause, Subclause, Definition or Provision element; its identifier is its lims:fid attribute. "
    "lims:fid is the stable one: compared over every consecutive pair of the held versions, every "
    "lims:fid held on both sides stands on the same element kind and label, while lims:id is "
    "reissued when an element is amended (fewer units keep their lims:id than their lims:fid across "
    "a consolidation). "
    "Label and MarginalNote are given apart; HistoricalNote (amendment citations) is no unit's text.",
    "us-nerc": "PDF text layer read by pypdfium2, page by page, lines that are page furniture "
    "dropped (a running header 'CIP-NNN-V - Cyber Security - ...' and 'Page N of M'). Only the "
    "text between the 'B. Requirements and Measures' heading and the 'C. Compliance' heading is "
    "read. A requirement starts at a line 'R<n>. <Capital letter>...' and is keyed R<n>; a part "
    "starts at a line '<n>.<m>[.<k>...][.] <Capital letter>...' whose first number is the current "
    "requirement's, and is keyed R<n>.<m>...; a unit's own text runs to the next line that starts "
    "a requirement, a part or a measure ('M<n>. '). Keys occurring more than once are not_unique.",
    "ietf": "Paginated Internet-Draft text: a section starts at a line at the left margin "
    "'<n>[.<m>...][.]  <Title>' or 'Appendix <X>[.<m>...][.]  <Title>' (table-of-contents lines "
    "with dot leaders are not headings); the identifier is its number, the title is given apart. "
    "Page furniture is dropped (a line ending '[Page N]', and the first non-blank line after a form "
    "feed). A number held on both sides is paired only when its title, white space collapsed, is "
    "the same on both sides: a title changed under the same number is title_changed, and a number "
    "held on one side only whose title stands under another number on the other side is "
    "renumbered (the truth itself is uncertain there: which number is the same section?).",
}
RULES["us-nerc"] += (
    " A number held on both sides is left out as renumbered when another unit of the other side is "
    "more alike to its text (difflib ratio) than its namesake: a part inserted before it renumbers "
    "the rest, and the truth cannot say which unit is the same."
)

TEXT_RULE = (
    "own text: the unit's text outside its child units, its own label and heading given apart, "
    "white space collapsed to single spaces and stripped; XML element boundaries are white space "
    "unless the element is inline for its schema"
)

INLINE = {
    "us-dc": frozenset({"cite", "codify:insert", "codify:temporary"}),
    "uslm": frozenset(
        {
            "b",
            "i",
            "sup",
            "sub",
            "ref",
            "date",
            "term",
            "inline",
            "shortTitle",
            "quotedText",
            "addedText",
            "foreign",
            "entity",
            "span",
        }
    ),
    "ca-federal": frozenset(
        {
            "XRefExternal",
            "XRefInternal",
            "DefinedTermEn",
            "DefinedTermFr",
            "DefinitionRef",
            "Emphasis",
            "Language",
            "Sup",
            "Sub",
            "FootnoteRef",
            "Repealed",
        }
    ),
}
CA_UNITS = frozenset(
    {
        "Section",
        "Subsection",
        "Paragraph",
        "Subparagraph",
        "Clause",
        "Subclause",
        "Definition",
        "Provision",
    }
)
LIMS_FID = "{http://justice.gc.ca/lims}fid"
PATH_JOIN = " › "
REASONS = (
    "not_unique",
    "before_only",
    "after_only",
    "title_changed",
    "renumbered",
    "empty_own_text",
)


class TruthError(Exception):
    """A catalogue row, mirror file or document cannot be read as the rules require."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Unit:
    """One unit of one version: identifier, label path, heading and own text (see the rules)."""

    unit_id: str
    path: str
    heading: str
    text: str


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def collapse(text: str) -> str:
    return " ".join(text.split())


def local_name(element: Any) -> str:
    """The tag as the schema's documents write it: a prefix kept for the D.C. codify namespace."""
    tag = element.tag
    if not isinstance(tag, str):
        return ""
    qname = etree.QName(tag)
    if qname.namespace == "https://code.dccouncil.us/schemas/codify":
        return f"codify:{qname.localname}"
    return qname.localname


# --- XML ------------------------------------------------------------------------------------------


def own_pieces(element: Any, skip: Any, inline: frozenset[str]) -> Iterator[str]:
    """Text of `element` in document order, leaving out every descendant for which `skip` holds.

    A boundary of a non-inline element yields a space, so blocks never run together."""
    yield element.text or ""
    for child in element:
        if isinstance(child.tag, str) and not skip(child):
            is_inline = local_name(child) in inline
            if not is_inline:
                yield " "
            yield from own_pieces(child, skip, inline)
            if not is_inline:
                yield " "
        yield child.tail or ""


def never(_node: Any) -> bool:
    return False


def parse_xml(data: bytes, where: str) -> Any:
    try:
        return etree.fromstring(
            data, parser=etree.XMLParser(resolve_entities=False, no_network=True)
        )
    except etree.XMLSyntaxError as exc:
        raise TruthError(f"{where}: not well-formed XML: {exc}") from exc


def xml_units(
    root: Any,
    *,
    unit_id: Any,
    label_of: Any,
    is_label: Any,
    is_heading: Any,
    is_dropped: Any,
    inline: frozenset[str],
) -> list[Unit]:
    """Units of an XML tree in document order; `unit_id(element, labels)` is None for a non-unit."""
    units: list[Unit] = []

    def walk(element: Any, labels: tuple[str, ...]) -> None:
        for child in element:
            if not isinstance(child.tag, str):
                continue
            label = label_of(child)
            chain = (*labels, label) if label else labels
            ident = unit_id(child, chain)
            if ident is None:
                walk(child, labels)
                continue

            # Label and heading are the unit's own direct children; a nested unit at any depth
            # (also one inside a wrapper such as USLM content) has its own pairing.
            apart = [node for node in child if is_label(node) or is_heading(node)]

            def skipped(
                node: Any, apart: list[Any] = apart, chain: tuple[str, ...] = chain
            ) -> bool:
                return bool(
                    any(node is kept for kept in apart)
                    or is_dropped(node)
                    or unit_id(node, (*chain, label_of(node) or "")) is not None
                )

            heading = "".join(
                "".join(own_pieces(node, never, inline)) for node in apart if is_heading(node)
            )
            units.append(
                Unit(
                    unit_id=ident,
                    path=PATH_JOIN.join(chain),
                    heading=collapse(heading),
                    text=collapse("".join(own_pieces(child, skipped, inline))),
                )
            )
            walk(child, chain)

    walk(root, ())
    return units


def dc_units(data: bytes, where: str) -> list[Unit]:
    def label_of(node: Any) -> str | None:
        if local_name(node) not in ("section", "para"):
            return None
        for child in node:
            if isinstance(child.tag, str) and local_name(child) == "num":
                return collapse("".join(own_pieces(child, never, frozenset())))
        return None

    root = parse_xml(data, where)
    top = [root] if local_name(root) == "section" else list(root)
    wrapper = etree.Element("wrapper")
    wrapper.extend(top)
    return xml_units(
        wrapper,
        unit_id=lambda node, chain: PATH_JOIN.join(chain) if label_of(node) else None,
        label_of=label_of,
        is_label=lambda node: local_name(node) == "num",
        is_heading=lambda node: local_name(node) == "heading",
        is_dropped=lambda node: local_name(node) == "annotations",
        inline=INLINE["us-dc"],
    )


def uslm_units(data: bytes, where: str) -> list[Unit]:
    def label_of(node: Any) -> str | None:
        for child in node:
            if isinstance(child.tag, str) and local_name(child) == "num":
                return collapse("".join(own_pieces(child, never, frozenset())))
        return None

    return xml_units(
        parse_xml(data, where),
        unit_id=lambda node, _chain: node.get("identifier"),
        label_of=label_of,
        is_label=lambda node: local_name(node) == "num",
        is_heading=lambda node: local_name(node) == "heading",
        is_dropped=never,
        inline=INLINE["uslm"],
    )


def ca_units(data: bytes, where: str) -> list[Unit]:
    def label_of(node: Any) -> str | None:
        if local_name(node) not in CA_UNITS:
            return None
        for child in node:
            if isinstance(child.tag, str) and local_name(child) == "Label":
                return collapse("".join(own_pieces(child, never, frozenset())))
        return None

    return xml_units(
        parse_xml(data, where),
        unit_id=lambda node, _chain: node.get(LIMS_FID) if local_name(node) in CA_UNITS else None,
        label_of=label_of,
        is_label=lambda node: local_name(node) == "Label",
        is_heading=lambda node: local_name(node) == "MarginalNote",
        is_dropped=lambda node: local_name(node) == "HistoricalNote",
        inline=INLINE["ca-federal"],
    )


# --- PDF (NERC) -----------------------------------------------------------------------------------

NERC_FURNITURE = re.compile(r"^(CIP-\d{3}-[\w.]+\s+\S\s+Cyber Security\b.*|Page \d+ of \d+)$")
NERC_START = re.compile(r"^B\.\s+Requirements and Measures\b")
NERC_STOP = re.compile(r"^C\.\s+Compliance\b")
NERC_REQUIREMENT = re.compile(r"^R(\d+)\.\s+([A-Z].*)$")
NERC_PART = re.compile(r"^(\d+)((?:\.\d+)+)\.?\s+([A-Z].*)$")
NERC_MEASURE = re.compile(r"^M\d+\.\s")


def nerc_lines(data: bytes, where: str) -> list[str]:
    import pypdfium2  # type: ignore[import-untyped]  # the PDF reader is needed for NERC only

    try:
        pdf = pypdfium2.PdfDocument(data)
    except pypdfium2.PdfiumError as exc:
        raise TruthError(f"{where}: not a readable PDF: {exc}") from exc
    lines: list[str] = []
    try:
        for index in range(len(pdf)):
            page = pdf[index]
            textpage = page.get_textpage()
            text = textpage.get_text_range()
            textpage.close()
            page.close()
            for raw in re.split(r"\r\n|\r|\n", text):
                line = collapse(raw)
                if line and not NERC_FURNITURE.match(line):
                    lines.append(line)
    finally:
        pdf.close()
    return lines


def nerc_units(data: bytes, where: str) -> list[Unit]:
    units: list[Unit] = []
    reading = False
    current: int | None = None
    key = ""
    body: list[str] = []

    def close() -> None:
        if key:
            units.append(Unit(unit_id=key, path=key, heading="", text=collapse(" ".join(body))))

    for line in nerc_lines(data, where):
        if not reading:
            reading = bool(NERC_START.match(line))
            continue
        if NERC_STOP.match(line):
            break
        requirement = NERC_REQUIREMENT.match(line)
        part = NERC_PART.match(line)
        if requirement:
            close()
            current = int(requirement.group(1))
            key, body = f"R{current}", [requirement.group(2)]
        elif part and current is not None and int(part.group(1)) == current:
            close()
            key, body = f"R{part.group(1)}{part.group(2)}", [part.group(3)]
        elif NERC_MEASURE.match(line):
            close()
            key, body = "", []
        elif key:
            body.append(line)
    close()
    return units


# --- plain text (IETF) ----------------------------------------------------------------------------

IETF_HEADING = re.compile(r"^((?:Appendix\s+[A-Z]|\d+)(?:\.\d+)*)\.?\s+(\S.*)$")
IETF_DOT_LEADER = re.compile(r"(\.\s?){3,}\s*\d+\s*$")
IETF_FOOTER = re.compile(r"\[Page \d+\]\s*$")


def ietf_units(data: bytes, where: str) -> list[Unit]:
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise TruthError(f"{where}: not UTF-8 at byte {exc.start}") from exc
    units: list[Unit] = []
    key, title, body = "", "", list[str]()
    after_feed = False
    for raw in re.split(r"\r\n|\n", text):
        if "\f" in raw:
            after_feed = True
            raw = raw.replace("\f", "")
        if not raw.strip():
            continue
        if after_feed:
            after_feed = False
            continue
        if IETF_FOOTER.search(raw):
            continue
        heading = IETF_HEADING.match(raw) if not raw[0].isspace() else None
        if heading and not IETF_DOT_LEADER.search(raw):
            if key:
                units.append(
                    Unit(unit_id=key, path=key, heading=title, text=collapse(" ".join(body)))
                )
            key, title, body = collapse(heading.group(1)), collapse(heading.group(2)), []
        elif key:
            body.append(raw)
    if key:
        units.append(Unit(unit_id=key, path=key, heading=title, text=collapse(" ".join(body))))
    return units


READERS = {
    "us-dc": dc_units,
    "us-federal": uslm_units,
    "us-federal-register": uslm_units,
    "ca-federal": ca_units,
    "us-nerc": nerc_units,
    "ietf": ietf_units,
}


# --- pairing --------------------------------------------------------------------------------------


def side(unit: Unit) -> dict[str, str]:
    return {"id": unit.unit_id, "path": unit.path, "heading": unit.heading, "text": unit.text}


def renumbered(a: Unit, b: Unit, before: list[Unit], after: list[Unit]) -> bool:
    """A requirement number whose text stands, more alike, under another number on the other side.

    NERC renumbers requirement parts when one is inserted (CIP-012-1 1.3 is CIP-012-2 1.5): the
    number then names different text on the two sides, and which unit is "the same" is exactly
    what the truth cannot say. Likeness is difflib's ratio of the own texts; a unit is renumbered
    when some other unit of the other side is strictly more alike to it than its namesake.
    """

    def more_alike(x: str, y: str, than: float) -> bool:
        matcher = difflib.SequenceMatcher(None, x, y, autojunk=False)
        # The quick ratios are upper bounds of the ratio: most candidates stop there.
        return (
            matcher.real_quick_ratio() > than
            and matcher.quick_ratio() > than
            and matcher.ratio() > than
        )

    own = difflib.SequenceMatcher(None, a.text, b.text, autojunk=False).ratio()
    return any(
        more_alike(a.text, other.text, own) for other in after if other.unit_id != b.unit_id
    ) or any(more_alike(other.text, b.text, own) for other in before if other.unit_id != a.unit_id)


def restructures_of(
    jurisdiction: str, before: list[Unit], after: list[Unit]
) -> list[dict[str, Any]]:
    """The renumberings the documents themselves show, as (before unit, after unit) under two numbers.

    ietf: a section held on the before side only whose title stands, once, under another number on
    the after side (and nowhere else on the before side). us-nerc: a requirement number left out as
    renumbered, with the unit of the other side most alike to its text (ties to the first in
    document order), unless that unit is at least as alike to its own namesake (it was kept, and the
    requirement was removed). Each is a restructure a reviewer should be shown.
    """
    out: list[dict[str, Any]] = []
    ids_b = Counter(u.unit_id for u in after)
    if jurisdiction == "ietf":
        by_title_a = Counter(u.heading for u in before)
        by_title_b: dict[str, list[Unit]] = {}
        for unit in after:
            by_title_b.setdefault(unit.heading, []).append(unit)
        for a in before:
            moved = by_title_b.get(a.heading, [])
            if a.unit_id in ids_b or by_title_a[a.heading] != 1 or len(moved) != 1 or not a.heading:
                continue
            if moved[0].unit_id != a.unit_id:
                out.append({"before": side(a), "after": side(moved[0])})
    elif jurisdiction == "us-nerc":
        by_b = {u.unit_id: u for u in after}
        by_a = {u.unit_id: u for u in before}
        for a in before:
            b = by_b.get(a.unit_id)
            if b is None or ids_b[a.unit_id] != 1 or not renumbered(a, b, before, after):
                continue
            best = max(
                (u for u in after if u.unit_id != a.unit_id),
                key=lambda u: difflib.SequenceMatcher(None, a.text, u.text, autojunk=False).ratio(),
            )
            # The unit it went to must not be better explained by its own namesake (kept as it was).
            namesake = by_a.get(best.unit_id)
            to_best = difflib.SequenceMatcher(None, a.text, best.text, autojunk=False).ratio()
            if namesake is not None and (
                difflib.SequenceMatcher(None, namesake.text, best.text, autojunk=False).ratio()
                >= to_best
            ):
                continue
            out.append({"before": side(a), "after": side(best)})
    return out


def pair_units(jurisdiction: str, before: list[Unit], after: list[Unit]) -> dict[str, Any]:
    """Pairings and counts by reason for one version pair (rules in the module docstring)."""
    count_a = Counter(u.unit_id for u in before)
    count_b = Counter(u.unit_id for u in after)
    by_a = {u.unit_id: u for u in before}
    by_b = {u.unit_id: u for u in after}
    titles_a = {u.heading for u in before}
    titles_b = {u.heading for u in after}
    left_out: Counter[str] = Counter()
    pairings: list[dict[str, Any]] = []
    seen: set[str] = set()
    for ident in [u.unit_id for u in before] + [u.unit_id for u in after]:
        if ident in seen:
            continue
        seen.add(ident)
        a, b = by_a.get(ident), by_b.get(ident)
        if count_a[ident] > 1 or count_b[ident] > 1:
            left_out["not_unique"] += 1
        elif a is None or b is None:
            lone = a or b
            assert lone is not None
            other_titles = titles_b if a else titles_a
            if jurisdiction == "ietf" and lone.heading in other_titles:
                left_out["renumbered"] += 1
            else:
                left_out["before_only" if b is None else "after_only"] += 1
        elif jurisdiction == "ietf" and a.heading != b.heading:
            left_out["title_changed"] += 1
        elif jurisdiction == "us-nerc" and renumbered(a, b, before, after):
            left_out["renumbered"] += 1
        elif not a.text or not b.text:
            left_out["empty_own_text"] += 1
        else:
            pairings.append({"before": side(a), "after": side(b)})
    return {
        "paired": len(pairings),
        "left_out": {reason: left_out[reason] for reason in REASONS},
        "units_before": len(before),
        "units_after": len(after),
        "pairings": pairings,
        "restructures": restructures_of(jurisdiction, before, after),
    }


def read_catalogue(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_bytes().decode("utf-8", errors="strict").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise TruthError(f"{path}: cannot read the catalogue: {exc}") from exc
    rows = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            provenance = row["provenance"]
            row = {
                "path": str(row["path"]),
                "jurisdiction": str(provenance["jurisdiction"]),
                "family": str(provenance["document_family"]),
                "order": int(provenance["version_order"]),
                "sha256": str(provenance["sha256"]),
            }
        except (ValueError, KeyError, TypeError) as exc:
            raise TruthError(f"{path}:{number}: not a catalogue row ({exc!r})") from exc
        rows.append(row)
    return rows


def read_checked(mirror: Path, row: dict[str, Any]) -> bytes:
    file = mirror / str(row["path"])
    try:
        data = file.read_bytes()
    except FileNotFoundError as exc:
        raise TruthError(f"{file}: missing from the mirror") from exc
    except OSError as exc:
        raise TruthError(f"{file}: cannot be read: {exc.strerror}") from exc
    actual = hashlib.sha256(data).hexdigest()
    if actual != row["sha256"]:
        raise TruthError(f"{file}: sha256 {actual} is not the catalogue's {row['sha256']}; refused")
    return data


def version_pairs(rows: Iterable[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Consecutive (before, after) rows per (jurisdiction, family), by version_order then path.

    Only documents a jurisdiction's reader can parse take part: XML for the XML jurisdictions,
    PDF for us-nerc, text for ietf (a family's PDF copies in us-federal are not USLM)."""
    suffix = {"us-nerc": (".pdf",), "ietf": (".txt",)}
    families: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        jurisdiction = row["jurisdiction"]
        wanted = suffix.get(jurisdiction, (".xml",))
        if jurisdiction in READERS and row["path"].lower().endswith(wanted):
            families[(jurisdiction, row["family"])].append(row)
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for key in sorted(families):
        ordered = sorted(families[key], key=lambda r: (r["order"], r["path"]))
        pairs.extend(pairwise(ordered))
    return pairs


def alignment_truth(mirror: Path, catalogue: Path) -> dict[str, Any]:
    rows = read_catalogue(catalogue)
    pairs = version_pairs(rows)
    cache: dict[str, list[Unit]] = {}
    files: dict[str, dict[str, Any]] = {}

    def units_of(row: dict[str, Any]) -> list[Unit]:
        if row["path"] not in cache:
            data = read_checked(mirror, row)
            files[row["path"]] = {"path": row["path"], "sha256": row["sha256"], "bytes": len(data)}
            cache[row["path"]] = READERS[row["jurisdiction"]](data, str(mirror / row["path"]))
        return cache[row["path"]]

    out_pairs = []
    summary: dict[str, dict[str, Any]] = {
        j: {"pairs": 0, "paired": 0, "left_out": dict.fromkeys(REASONS, 0)} for j in JURISDICTIONS
    }
    for before, after in pairs:
        jurisdiction = before["jurisdiction"]
        result = pair_units(jurisdiction, units_of(before), units_of(after))
        total = summary[jurisdiction]
        total["pairs"] += 1
        total["paired"] += result["paired"]
        for reason, count in result["left_out"].items():
            total["left_out"][reason] += count
        out_pairs.append(
            {
                "jurisdiction": jurisdiction,
                "family": before["family"],
                "before": before["path"],
                "after": after["path"],
                **result,
            }
        )
    return {
        "computed_by": "scripts/alignment_truth.py (imports nothing from workbench)",
        "rules": RULES,
        "text_rule": TEXT_RULE,
        "reasons": list(REASONS),
        "files": [files[path] for path in sorted(files)],
        "jurisdictions": summary,
        "pairs": out_pairs,
    }


# A truth is derived state (C13): kept with the key it was derived under, in a file beside it
# (`OUT.key`), so that a run whose key holds checks the key and does nothing else. The key rule
# is the workbench's (kind, the digests of the inputs, the code digest), written out here
# because this script imports nothing from the workbench.


def truth_key(kind: str, catalogue: Path, scripts: Iterable[Path]) -> str:
    """The key of a truth derived from `catalogue` by `scripts`: SHA-256 of the canonical JSON of
    the kind, the catalogue's SHA-256 (every mirror file read is checked against its row, so the
    catalogue names the corpus read), and the code: each script's SHA-256 and the versions of
    the parsers (lxml, pypdfium2). A catalogue that cannot be read gives the empty key, which
    never holds."""
    from importlib.metadata import version

    try:
        inputs = {"catalogue": hashlib.sha256(catalogue.read_bytes()).hexdigest()}
    except OSError:
        return ""
    code = {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in scripts}
    code |= {name: version(name) for name in ("lxml", "pypdfium2")}
    return hashlib.sha256(
        canonical({"kind": kind, "inputs": inputs, "code": code}).encode("utf-8")
    ).hexdigest()


def key_holds(out: Path, key: str) -> bool:
    """True when `out` was written under `key` and holds the bytes written then."""
    try:
        kept = json.loads(out.with_name(out.name + ".key").read_bytes())
        data = out.read_bytes()
    except (OSError, ValueError):
        return False
    return bool(key) and kept == {"key": key, "sha256": hashlib.sha256(data).hexdigest()}


def write_truth(out: Path, truth: dict[str, Any], key: str) -> None:
    """Write `truth` (canonical JSON) to `out` and its key beside it, the key last (a run stopped
    between the two leaves a key that does not hold)."""
    data = (canonical(truth) + "\n").encode("utf-8")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_name(out.name + ".key").unlink(missing_ok=True)
    out.write_bytes(data)
    kept = {"key": key, "sha256": hashlib.sha256(data).hexdigest()}
    out.with_name(out.name + ".key").write_bytes((canonical(kept) + "\n").encode("utf-8"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=Path("../shared/corpus"))
    parser.add_argument("--catalogue", type=Path, default=Path("corpus/catalogue.jsonl"))
    parser.add_argument("--out", type=Path, default=Path("benchmarks/out/alignment-truth.json"))
    args = parser.parse_args(argv)
    started = time.perf_counter()
    key = truth_key("alignment-truth", args.catalogue, [Path(__file__).resolve()])
    if key_holds(args.out, key):
        print(f"{args.out}: its key holds (same catalogue, same script); nothing derived")
        return 0
    try:
        truth = alignment_truth(args.mirror, args.catalogue)
        write_truth(args.out, truth, key)
    except (TruthError, OSError) as exc:
        print(f"alignment_truth: error: {exc}", file=sys.stderr)
        return 2
    for jurisdiction, total in truth["jurisdictions"].items():
        left = ", ".join(f"{r} {n}" for r, n in total["left_out"].items() if n)
        print(
            f"{jurisdiction}: {total['pairs']} pairs, {total['paired']} paired; left out: {left or 'none'}"
        )
    print(f"wrote {args.out} in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
