"""Held laws and held Code releases as the amendment reader and its verification read them (C19):
every span indexes its version's held text, and no bytes are read whose hash is not the recorded
one."""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar, runtime_checkable

from lxml import etree

from workbench.amendments.style import DraftingStyle
from workbench.cite.index import text_skeleton
from workbench.corpus import read_fetched
from workbench.derived import code_digest, derived_key
from workbench.errors import AmendmentError, ExtractionError
from workbench.models import CatalogueRow, Version
from workbench.progress import bar
from workbench.text.lines import clean_label
from workbench.text.structure import units_from_marks
from workbench.text.xml import element_spans, parse_xml, spans_of
from workbench.workspace import Workspace

XML_MEDIA_TYPES = frozenset({"application/xml", "text/xml"})
_ACT_NUMBER = re.compile(r"\d+-\d+")


@dataclass(frozen=True, slots=True, kw_only=True)
class LawFacts:
    """What a held law's metadata states: when it took effect, and its own D.C. Act number."""

    version_id: str
    effective: str  # ISO date, as the law's metadata states it
    act: str | None  # the law's own Act number ("24-742"), None where it prints none


@dataclass(frozen=True, slots=True, kw_only=True)
class HeldLaw:
    """A held law: its version's id and hashes (its text is the held version's, loaded where it
    is read: `lawbook.LawBook.versions`), effective date, D.C. Act number and the publisher's
    spans."""

    version_id: str
    artefact_sha256: str
    text_sha256: str
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


@runtime_checkable
class Catalogued(Protocol):
    """The catalogue rows a law book reads: a row looked up by its path (a version id), and a
    jurisdiction's rows listed by family, version order, path and media type, never read whole.
    One seam for both kinds of catalogue, so the law book and the Code sections read rows one
    way: rows a caller read whole (the catalogue file, checked against its SHA-256: C3) are
    looked up in a dict (`RowsByPath`), and a workspace's table is queried where it is looked
    up (`workspace.catalogue.TableRows`: `update` reads no row it does not need)."""

    def get(self, path: str) -> CatalogueRow | None: ...

    def entries(self, jurisdiction: str) -> Iterable[tuple[str, int, str, str]]: ...


class RowsByPath(dict[str, CatalogueRow]):
    """Catalogue rows read whole, by their path (`Catalogued`)."""

    def entries(self, jurisdiction: str) -> Iterator[tuple[str, int, str, str]]:
        """(family, version order, path, media type) of each row of `jurisdiction`."""
        for row in self.values():
            if row.jurisdiction == jurisdiction:
                yield row.family, row.version_order, row.path, row.media_type


def by_path(rows: Iterable[CatalogueRow] | Catalogued) -> Catalogued:
    """What `law_facts`, `held_law` and `release` look a held version's row up in: `rows` when
    it is a `Catalogued` already (a workspace's `TableRows`), else the rows by their path."""
    if isinstance(rows, Catalogued):
        return rows
    return RowsByPath((row.path, row) for row in rows)


def code_families(
    entries: Iterable[tuple[str, int, str, str]], law_families: Collection[str]
) -> set[str]:
    """The families of a jurisdiction's catalogue `entries` (`Catalogued.entries`) that may be
    Code sections: listed as XML, not law families (`HeldCode` keeps those holding marks)."""
    return {
        family
        for family, _, _, media_type in entries
        if family not in law_families and media_type in XML_MEDIA_TYPES
    }


def _row(rows: Catalogued, version: Version) -> CatalogueRow:
    row = rows.get(version.version_id)
    if row is None:
        raise AmendmentError(
            f"{version.version_id}: not in the catalogue; expected a catalogued law"
        )
    if row.sha256 != version.artefact_sha256:
        raise AmendmentError(
            f"{version.version_id}: catalogue sha256 {row.sha256} is not the held "
            f"version's artefact sha256 {version.artefact_sha256}; re-run 'workbench ingest'"
        )
    return row


def _bytes(rows: Catalogued, store: Path, version: Version) -> bytes:
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


def _facts(root: etree._Element, version_id: str, style: DraftingStyle) -> LawFacts:
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
            f"{version_id}: no {style.effective_element} date in its metadata; "
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
    return LawFacts(
        version_id=version_id,
        effective=effective,
        act=act if act and _ACT_NUMBER.fullmatch(act) else None,
    )


def law_facts(version: Version, style: DraftingStyle, rows: Catalogued, store: Path) -> LawFacts:
    """A held law's effective date and Act number, read from its bytes by parsing alone.

    Refused (`AmendmentError`, one line naming the version): not XML, not catalogued or not
    fetched, a catalogue hash that is not the held one, or no effective date in its metadata.
    """
    data = _bytes(rows, store, version)
    try:
        root = parse_xml(data, source=version.version_id)
    except ExtractionError as error:
        raise AmendmentError(str(error)) from error
    return _facts(root, version.version_id, style)


def held_law(version: Version, style: DraftingStyle, rows: Catalogued, store: Path) -> HeldLaw:
    """A held law's facts (`law_facts`) and the spans of its publisher markup and quoted matter,
    from one parse and one render of its bytes.

    Refused as `law_facts` refuses.
    """
    data = _bytes(rows, store, version)
    try:
        root = parse_xml(data, source=version.version_id)
        spans, quotations = spans_of(
            root,
            version.version_id,
            (
                lambda el: etree.QName(el).namespace in style.publisher_markup,
                lambda el: etree.QName(el).localname == style.quotation_element,
            ),
        )
    except ExtractionError as error:
        raise AmendmentError(str(error)) from error
    facts = _facts(root, version.version_id, style)
    return HeldLaw(
        version_id=version.version_id,
        artefact_sha256=version.artefact_sha256,
        text_sha256=version.text_sha256,
        effective=facts.effective,
        act=facts.act,
        markup=tuple((s.char_start, s.char_end) for s in spans),
        quotations=tuple((s.char_start, s.char_end) for s in quotations),
    )


def notes_start(version: Version, style: DraftingStyle, rows: Catalogued, store: Path) -> int:
    """Where a Code release's notes begin (the style's notes element), read from its bytes;
    its text's length where it has none."""
    data = _bytes(rows, store, version)
    notes = element_spans(
        data,
        source=version.version_id,
        select=lambda el: etree.QName(el).localname == style.notes_element,
    )
    return min((s.char_start for s in notes), default=len(version.text))


def release(
    version: Version,
    date: str,
    style: DraftingStyle,
    rows: Catalogued,
    store: Path,
    *,
    body_end: int | None = None,
) -> Release:
    """A Code release's units (from its structure marks) and where its notes begin (`body_end`
    when known, else read from its bytes by `notes_start`)."""
    if body_end is None:
        body_end = notes_start(version, style, rows, store)
    units: dict[tuple[str, ...], tuple[int, int]] = {}
    for unit in units_from_marks(version.structure, len(version.text)):
        path = tuple(clean_label(label) for label in unit.path[1:])
        if path not in units:  # a label printed twice keeps its first unit
            units[path] = (unit.char_start, min(unit.char_end, body_end))
    return Release(version=version, date=date, body_end=body_end, units=units)


class _Ordered(Protocol):
    @property
    def version_id(self) -> str: ...

    @property
    def version_order(self) -> int: ...


_V = TypeVar("_V", bound=_Ordered)


def dated_versions(
    versions: Iterable[_V], dates: Mapping[str, str | None]
) -> tuple[tuple[str, _V], ...]:
    """The versions (or their facts) that carry a filing date (`dates`, by version id), as
    (date, version), ordered by date and then version order; a version with none is left out
    (it cannot be placed before or after a date)."""
    dated = [(dates.get(v.version_id), v.version_order, v) for v in versions]
    ordered = sorted(((d, o, v) for d, o, v in dated if d), key=lambda t: t[:2])
    return tuple((str(date), v) for date, _, v in ordered)


@dataclass(frozen=True, slots=True, kw_only=True)
class HeldFact:
    """What the versions table says of a held Code release, read without its text: enough to
    order it, and to key anything computed from it (its text, its bytes and what extracted it)."""

    version_id: str
    version_order: int
    text_sha256: str
    artefact_sha256: str
    extractor: str
    extractor_version: str


def _held_facts(workspace: Workspace, jurisdiction: str) -> dict[str, list[HeldFact]]:
    """Every held XML version of `jurisdiction` with structure marks, by family, in version
    order: one query, no text read."""
    facts: dict[str, list[HeldFact]] = {}
    for family, *fields in workspace.read(
        "SELECT family, version_id, version_order, text_sha256, artefact_sha256, extractor, "
        "extractor_version FROM versions WHERE jurisdiction = ? AND media_type IN (?, ?) "
        "AND structure != '[]' ORDER BY family, version_order",
        (jurisdiction, *sorted(XML_MEDIA_TYPES)),
    ):
        version_id, order, text_sha256, artefact_sha256, extractor, extractor_version = fields
        facts.setdefault(family, []).append(
            HeldFact(
                version_id=version_id,
                version_order=order,
                text_sha256=text_sha256,
                artefact_sha256=artefact_sha256,
                extractor=extractor,
                extractor_version=extractor_version,
            )
        )
    return facts


NOTES_TABLE = "release_notes"  # where each Code release's notes begin, derived from its bytes


def notes_key(version: Version, style: DraftingStyle) -> str:
    """The key of where a release's notes begin: its artefact and text, the style's notes
    element and the code that reads them (`derived.derived_key`)."""
    inputs = [version.artefact_sha256, version.text_sha256, style.notes_element]
    return derived_key("release-notes", inputs, code_digest())


class HeldCode:
    """The held releases of a jurisdiction's Code sections, by section number, read on demand.

    A family is a Code section when it is one of `families` (`code_families`: the catalogue
    lists it in the jurisdiction as XML and it is not a law family) and its held versions carry
    structure marks; its section number is the
    label of its first release's outermost unit ("34-1432"). Releases are ordered by filing
    date, then version order; a release with no filing date is left out (it cannot be placed
    before or after a law).

    What is known of every family up front is what the versions table says without the texts
    (`families`: each one's `HeldFact`s, in version order); a family's versions are loaded when
    first asked for (`dated`). `sections` may name, for a family, the first version id and text
    hash its section number was read from before, with that number (`first_sections` gives them
    back): where both still hold, the number is not read again. `codified` may name, for an Act,
    the last version row held when a run looked it up and the releases whose notes credited one
    of its sections then (`codified_read` gives this run's back): only versions held since are
    searched.
    """

    def __init__(
        self,
        workspace: Workspace,
        jurisdiction: str,
        style: DraftingStyle,
        rows: Iterable[CatalogueRow] | Catalogued,
        store: Path,
        *,
        families: Collection[str],
        sections: Mapping[str, tuple[str, str, str | None]] | None = None,
        codified: Mapping[str, tuple[int, Sequence[str]]] | None = None,
        progress: bool = False,
    ) -> None:
        self.workspace = workspace
        self.style = style
        self.rows = by_path(rows)
        self.store = store
        self.dates = workspace.filing_dates()
        held = _held_facts(workspace, jurisdiction)
        self.families: dict[str, tuple[HeldFact, ...]] = {
            family: tuple(held[family]) for family in sorted(families) if family in held
        }
        known = sections or {}
        self.first_sections: dict[str, tuple[str, str, str | None]] = {}
        self.by_section: dict[str, str] = {}
        for family in bar(self.families, desc="code sections", unit="section", enabled=progress):
            first = self.families[family][0]
            section = known.get(family, ("", "", None))
            if section[:2] != (first.version_id, first.text_sha256):
                version = workspace.version(first.version_id)
                top = units_from_marks(version.structure, len(version.text))
                number = clean_label(top[0].label) if top else None
                section = (first.version_id, first.text_sha256, number)
            self.first_sections[family] = section
            if section[2] is not None:
                self.by_section.setdefault(section[2], family)
        self._read: dict[str, Release] = {}
        self._notes_held = NOTES_TABLE in workspace.tables()
        # version id -> (key, where its notes begin), for each release read from its bytes here
        self.notes_read: dict[str, tuple[str, int]] = {}
        self._codified: dict[str, dict[str, frozenset[str]]] = {}
        self._known_codified = codified or {}
        # Act -> (the last version row held, the latest releases whose notes credit one of its
        # sections), for each Act looked up this run
        self.codified_read: dict[str, tuple[int, tuple[str, ...]]] = {}
        self._latest: dict[str, str] | None = None
        self._latest_ids = "[]"  # `_latest`'s version ids, a JSON list SQLite reads
        self._first_skeletons: dict[str, str] = {}
        self._dated: dict[str, tuple[tuple[str, Version], ...]] = {}
        self._dated_facts: dict[str, tuple[tuple[str, HeldFact], ...]] = {}
        self._by_first: list[tuple[str, str, HeldFact]] | None = None

    def section_of(self, family: str) -> str | None:
        """The section number of a Code section family, or None for any other family."""
        return next((s for s, f in self.by_section.items() if f == family), None)

    def dated_facts(self, family: str) -> tuple[tuple[str, HeldFact], ...]:
        """`dated`'s releases as the versions table states them, no version loaded (ordered
        once per family: a run asks for them once per section and once per check reading it)."""
        if family not in self._dated_facts:
            self._dated_facts[family] = dated_versions(self.families.get(family, ()), self.dates)
        return self._dated_facts[family]

    def by_first_release(self) -> list[tuple[str, str, HeldFact]]:
        """Every family with a dated release as (its first release's date, family, that release's
        facts), in (date, family) order; made once, from the versions table alone."""
        if self._by_first is None:
            self._by_first = sorted(
                (dated[0][0], family, dated[0][1])
                for family in self.families
                if (dated := self.dated_facts(family))
            )
        return self._by_first

    def first_released_since(self, date: str) -> list[str]:
        """The families whose first dated release was filed on or after `date`, in family
        order: one bisection, no version loaded."""
        entries = self.by_first_release()
        start = bisect_left(entries, (date,))
        return sorted(family for _, family, _ in entries[start:])

    def dated(self, family: str) -> tuple[tuple[str, Version], ...]:
        """A family's versions that carry a filing date, as (date, version), ordered by date and
        then version order; its versions are loaded once, nothing is read from their bytes."""
        if family not in self._dated:
            facts = self.dated_facts(family)
            loaded = {v.version_id: v for v in self.workspace.versions(family)} if facts else {}
            self._dated[family] = tuple((date, loaded[f.version_id]) for date, f in facts)
        return self._dated[family]

    def forget(self, family: str) -> None:
        """Let go of `family`'s loaded versions and releases (read again if asked for)."""
        self._dated.pop(family, None)
        for _, fact in self.dated_facts(family):
            self._read.pop(fact.version_id, None)

    def release_of(self, date: str, version: Version) -> Release:
        """The release of `version` filed on `date` (read once, then kept)."""
        if version.version_id not in self._read:
            self._read[version.version_id] = release(
                version, date, self.style, self.rows, self.store, body_end=self._notes(version)
            )
        return self._read[version.version_id]

    def _notes(self, version: Version) -> int:
        """Where `version`'s notes begin: kept in the workspace (`NOTES_TABLE`, written by a
        stored reconciliation) under `notes_key`, else read from its bytes now."""
        key = notes_key(version, self.style)
        if self._notes_held:
            for (body_end,) in self.workspace.read(
                f"SELECT body_end FROM {NOTES_TABLE} WHERE version_id = ? AND key = ?",
                (version.version_id, key),
            ):
                return int(body_end)
        body_end = notes_start(version, self.style, self.rows, self.store)
        self.notes_read[version.version_id] = (key, body_end)
        return body_end

    def first_skeleton(self, family: str) -> str:
        """The search skeleton (`cite.index.text_skeleton`) of the text of `family`'s first dated
        release, computed from the held text alone (no bytes read, no index built) and kept: a
        heading whose `quote_skeleton` it does not contain cannot stand in that release. Only
        that release's text is read: the family's versions are not loaded (a whole section
        added by a law older than every held release tests every family by it)."""
        if family not in self._first_skeletons:
            dated = self.dated_facts(family)
            texts = (
                self.workspace.read(
                    "SELECT text FROM versions WHERE version_id = ?", (dated[0][1].version_id,)
                )
                if dated
                else []
            )
            self._first_skeletons[family] = text_skeleton(texts[0][0]) if texts else ""
        return self._first_skeletons[family]

    def act_codified_in(self, release: Release) -> str | None:
        """The Act whose section `release` codifies: the first Act section its notes credit (the
        style's `cross_references.source_note`, read after `body_end`; a credit line names the
        enacting law first, the laws that amended it after); None without that table or note."""
        refs = self.style.cross_references
        if refs is None:
            return None
        found = refs.source_note.search(release.version.text, release.body_end)
        return found["law"] if found is not None else None

    def codified_as(self, act: str, section: str) -> str | None:
        """The Code section number that codifies `section` of `act`: the one held Code section
        whose latest release's notes credit that Act section (the style's `source_note`); None
        when none does, or more than one. The latest releases are found by the Act's number in
        their text (SQLite's `instr`, over the families' latest releases only), then read and
        their notes matched, once per Act, in the order they were held. Where a
        run before found them (`codified`), only its releases still latest and the versions
        held since it are looked at: a release that is not its family's latest never becomes
        it again (versions are appended in order), and a held text never changes."""
        refs = self.style.cross_references
        if refs is None:
            return None
        if act not in self._codified:
            if self._latest is None:
                self._latest = {facts[-1].version_id: f for f, facts in self.families.items()}
                self._latest_ids = json.dumps(sorted(self._latest))
            since, known = self._known_codified.get(act, (0, ()))
            mark = int(self.workspace.read("SELECT coalesce(max(rowid), 0) FROM versions")[0][0])
            # Only a family's latest release counts: the others' texts are not searched at all.
            named = self.workspace.read(
                "SELECT version_id FROM versions WHERE version_id IN (SELECT value FROM "
                "json_each(?)) AND rowid > ? AND instr(text, ?) > 0 ORDER BY rowid",
                (self._latest_ids, since, act),
            )
            hits: dict[str, set[str]] = {}
            crediting: list[str] = []
            for version_id in dict.fromkeys([*known, *(v for (v,) in named)]):
                family = self._latest.get(version_id)
                if family is None or (number := self.first_sections[family][2]) is None:
                    continue
                date = self.dates.get(version_id)
                if date is None:
                    continue
                held = self.release_of(date, self.workspace.version(version_id))
                credits = [
                    m["section"]
                    for m in refs.source_note.finditer(held.version.text[held.body_end :])
                    if m["law"] == act
                ]
                for credited in credits:
                    hits.setdefault(credited, set()).add(number)
                if credits:
                    crediting.append(version_id)
            self._codified[act] = {k: frozenset(v) for k, v in hits.items()}
            self.codified_read[act] = (mark, tuple(crediting))
        found = self._codified[act].get(section, frozenset())
        return next(iter(found)) if len(found) == 1 else None

    def release_by_id(self, family: str, version_id: str) -> Release:
        """The dated release `version_id` of `family`; `KeyError` if the family has none such.
        Only that version is loaded, unless the family's versions already are (`dated`)."""
        for date, fact in self.dated_facts(family):
            if fact.version_id == version_id:
                return self._release(family, date, fact)
        raise KeyError(version_id)

    def _release(self, family: str, date: str, fact: HeldFact) -> Release:
        """The release of one dated version of `family`, its version loaded alone (one row)
        unless the family's are loaded already."""
        if fact.version_id not in self._read:
            loaded = {v.version_id: v for _, v in self._dated.get(family, ())}
            version = loaded.get(fact.version_id) or self.workspace.version(fact.version_id)
            return self.release_of(date, version)
        return self._read[fact.version_id]

    def releases(self, family: str) -> tuple[Release, ...]:
        """A family's dated releases, oldest first (each read once, then kept)."""
        return tuple(self.release_of(date, v) for date, v in self.dated(family))

    def pair(self, family: str, effective: str) -> tuple[Release | None, Release | None]:
        """(before, after): the latest release filed before `effective`, and the first filed on
        or after it; None where the family holds no such release. Only those two are loaded."""
        held = self.dated_facts(family)
        before = [t for t in held if t[0] < effective]
        after = [t for t in held if t[0] >= effective]
        return (
            self._release(family, *before[-1]) if before else None,
            self._release(family, *after[0]) if after else None,
        )
