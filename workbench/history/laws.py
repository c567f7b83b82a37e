"""Held laws and held Code releases, as the amendment reader and its verification read them.

A law is a held version of a family the drafting style's jurisdiction names (`dc-law-NN-NNN`),
whose artefact is XML: `held_law` reads its fetched bytes (hash-checked against its catalogue row,
and against the artefact SHA-256 the held version records) for what the extracted text leaves out
or cannot mark: its effective date (the metadata element the style names), its own D.C. Act
number, and the spans of its text that the publisher's markup gave (`element_spans`). A Code
release is a held version of a section family: `held_code` reads each release's numbered units
from its structure marks and, from its bytes, where its notes begin (the style's notes element),
so a unit's extent never runs into the history notes below the last unit.

The guarantee: every span recorded here indexes the held text of its version, and nothing is read
from bytes whose hash is not the one the catalogue and the held version record.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from workbench.corpus import read_fetched
from workbench.errors import AmendmentError, ExtractionError
from workbench.history.style import DraftingStyle
from workbench.models import CatalogueRow, Version
from workbench.text.lines import clean_label
from workbench.text.structure import units_from_marks
from workbench.text.xml import element_spans, parse_xml
from workbench.workspace import Workspace

XML_MEDIA_TYPES = frozenset({"application/xml", "text/xml"})
_ACT_NUMBER = re.compile(r"\d+-\d+")


@dataclass(frozen=True, slots=True, kw_only=True)
class HeldLaw:
    """A held law: its version, effective date, D.C. Act number and the publisher's spans."""

    version: Version
    effective: str  # ISO date, as the law's metadata states it
    act: str | None  # the law's own Act number ("24-742"), None where it prints none
    markup: tuple[tuple[int, int], ...]  # spans of the text the publisher's markup gave
    quotations: tuple[tuple[int, int], ...]  # spans of the law's own quoted matter


@dataclass(frozen=True, slots=True, kw_only=True)
class Release:
    """One held release of a Code section: its version, filing date, units and body's end.

    `units` maps a unit's label path below the section ("(c)", "(13)") to its extent, cut at
    `body_end`, where the release's notes begin (its length where it has none); the section
    itself is the empty path.
    """

    version: Version
    date: str
    body_end: int
    units: Mapping[tuple[str, ...], tuple[int, int]] = field(repr=False)


def _row(rows: Iterable[CatalogueRow], version: Version) -> CatalogueRow:
    for row in rows:
        if row.path == version.version_id:
            if row.sha256 != version.artefact_sha256:
                raise AmendmentError(
                    f"{version.version_id}: catalogue sha256 {row.sha256} is not the held "
                    f"version's artefact sha256 {version.artefact_sha256}; re-run 'workbench ingest'"
                )
            return row
    raise AmendmentError(f"{version.version_id}: not in the catalogue; expected a catalogued law")


def _bytes(rows: Iterable[CatalogueRow], store: Path, version: Version) -> bytes:
    if version.media_type not in XML_MEDIA_TYPES:
        raise AmendmentError(
            f"{version.version_id}: media type {version.media_type}; expected an XML law"
        )
    try:
        return read_fetched(_row(rows, version), store)
    except FileNotFoundError as error:
        raise AmendmentError(
            f"{version.version_id}: not fetched into {store}; run 'workbench corpus fetch'"
        ) from error


def held_law(
    version: Version, style: DraftingStyle, rows: Iterable[CatalogueRow], store: Path
) -> HeldLaw:
    """Read a held law's effective date, Act number and publisher markup from its bytes.

    Refused (`AmendmentError`, one line naming the version): not XML, not catalogued or not
    fetched, a catalogue hash that is not the held one, or no effective date in its metadata.
    """
    data = _bytes(rows, store, version)
    try:
        root = parse_xml(data, source=version.version_id)
        spans = element_spans(
            data,
            source=version.version_id,
            select=lambda el: etree.QName(el).namespace in style.publisher_markup,
        )
        quotations = element_spans(
            data,
            source=version.version_id,
            select=lambda el: etree.QName(el).localname == style.quotation_element,
        )
    except ExtractionError as error:
        raise AmendmentError(str(error)) from error
    effective = next(
        (
            (el.text or "").strip()
            for el in root.iter()
            if isinstance(el.tag, str) and etree.QName(el).localname == style.effective_element
        ),
        "",
    )
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", effective):
        raise AmendmentError(
            f"{version.version_id}: no {style.effective_element} date in its metadata; "
            "expected a law that states when it took effect"
        )
    act = next(
        (
            (el.text or "").strip()
            for el in root
            if isinstance(el.tag, str)
            and etree.QName(el).localname == "num"
            and el.get("type") == "act"
        ),
        None,
    )
    return HeldLaw(
        version=version,
        effective=effective,
        act=act if act and _ACT_NUMBER.fullmatch(act) else None,
        markup=tuple((s.char_start, s.char_end) for s in spans),
        quotations=tuple((s.char_start, s.char_end) for s in quotations),
    )


def release(
    version: Version, date: str, style: DraftingStyle, rows: Iterable[CatalogueRow], store: Path
) -> Release:
    """A Code release's units (from its structure marks) and where its notes begin."""
    data = _bytes(rows, store, version)
    notes = element_spans(
        data,
        source=version.version_id,
        select=lambda el: etree.QName(el).localname == style.notes_element,
    )
    body_end = min((s.char_start for s in notes), default=len(version.text))
    units: dict[tuple[str, ...], tuple[int, int]] = {}
    for unit in units_from_marks(version.structure, len(version.text)):
        path = tuple(clean_label(label) for label in unit.path[1:])
        if path not in units:  # a label printed twice keeps its first unit
            units[path] = (unit.char_start, min(unit.char_end, body_end))
    return Release(version=version, date=date, body_end=body_end, units=units)


class HeldCode:
    """The held releases of a jurisdiction's Code sections, by section number, read on demand.

    A family is a Code section when it is not a law family and its versions carry structure
    marks; its section number is the label of its first release's outermost unit ("34-1432").
    Releases are ordered by filing date, then version order; a release with no filing date is
    left out (it cannot be placed before or after a law).
    """

    def __init__(
        self,
        workspace: Workspace,
        jurisdiction: str,
        style: DraftingStyle,
        rows: Iterable[CatalogueRow],
        store: Path,
        *,
        law_families: frozenset[str],
    ) -> None:
        self.style = style
        self.rows = tuple(rows)
        self.store = store
        self.dates = workspace.filing_dates()
        self.families: dict[str, list[Version]] = {}
        for version in workspace.versions():
            if version.jurisdiction != jurisdiction or version.family in law_families:
                continue
            if version.media_type in XML_MEDIA_TYPES and version.structure:
                self.families.setdefault(version.family, []).append(version)
        self.by_section: dict[str, str] = {}
        for family, versions in sorted(self.families.items()):
            top = units_from_marks(versions[0].structure, len(versions[0].text))
            if top:
                self.by_section.setdefault(clean_label(top[0].label), family)
        self._releases: dict[str, tuple[Release, ...]] = {}

    def releases(self, family: str) -> tuple[Release, ...]:
        """A family's dated releases, oldest first (read once, then kept)."""
        if family not in self._releases:
            dated = [
                (self.dates.get(v.version_id), v.version_order, v)
                for v in self.families.get(family, ())
            ]
            ordered = sorted(((d, o, v) for d, o, v in dated if d), key=lambda t: t[:2])
            self._releases[family] = tuple(
                release(v, str(date), self.style, self.rows, self.store) for date, _, v in ordered
            )
        return self._releases[family]

    def pair(self, family: str, effective: str) -> tuple[Release | None, Release | None]:
        """(before, after): the latest release filed before `effective`, and the first filed on
        or after it; None where the family holds no such release."""
        held = self.releases(family)
        before = [r for r in held if r.date < effective]
        after = [r for r in held if r.date >= effective]
        return (before[-1] if before else None, after[0] if after else None)
