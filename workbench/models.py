"""Frozen records that travel between the stages (C1, C2): immutable, holding tuples, with offsets
half-open `[char_start, char_end)` indices into the version's text; and the rules with one home
beside them (content ids, page look-up)."""

from __future__ import annotations

import hashlib
import json
import sys
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from operator import attrgetter
from typing import Any, Literal, TypeVar, get_args

from workbench.bounds import strict_json as strict_json  # its home; read through models too
from workbench.cells import TableCell, parts_json


def canonical_json(value: Any) -> str:
    """The one serialization that content ids, digests and catalogue lines are computed over."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_id(value: Any) -> str:
    """SHA-256 hex of `canonical_json(value)` in UTF-8: the one way a content id, digest or cache
    key is made from structured data (never from `str()` of an object)."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def text_sha256(text: str | bytes) -> str:
    """SHA-256 of the text's UTF-8 bytes (a str, or those bytes): what citations are checked on."""
    return hashlib.sha256(text.encode("utf-8") if isinstance(text, str) else text).hexdigest()


@dataclass(frozen=True, slots=True, kw_only=True)
class Refusal:
    """Why one file of a mirror folder was not admitted (or not ingested)."""

    path: str
    reason: str  # a stable code, e.g. "transcription", "sha256_mismatch"
    detail: str  # one line for a person
    provenance: Mapping[str, Any] | None = None  # kept when it parsed, so the file can be fetched

    def line(self) -> str:
        return f"{self.path}: {self.reason}: {self.detail}"

    def as_json(self) -> dict[str, Any]:
        """The refusal as the measurement reports and the refusals file list it (no provenance)."""
        return {"path": self.path, "reason": self.reason, "detail": self.detail}


ROW_FIELDS = ("sha256", "bytes", "jurisdiction", "document_family", "version_order", "format")


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogueRow:
    """One admitted document: its path, its provenance record as canonical JSON (parsed where a
    field is read) and the `ROW_FIELDS` every row is read for. Made by `of`."""

    path: str
    text: str = field(repr=False)  # `canonical_json` of the record, as its catalogue line holds it
    fields: tuple[Any, ...] = field(repr=False, compare=False)  # None where the record has none

    @classmethod
    def of(cls, path: str, record: Mapping[str, Any], *, text: str | None = None) -> CatalogueRow:
        """The row of `record`; `text`, its canonical JSON where the caller holds it already."""
        values = (sys.intern(v) if isinstance(v, str) else v for v in map(record.get, ROW_FIELDS))
        made = canonical_json(dict(record)) if text is None else text
        return cls(path=path, text=made, fields=tuple(values))

    @property
    def provenance(self) -> dict[str, Any]:  # the record, parsed: a fresh dictionary
        return dict(json.loads(self.text))

    @property
    def sha256(self) -> str:
        return str(self.fields[0] or self.provenance["sha256"])

    @property
    def size(self) -> int:
        return int(self.fields[1] or self.provenance["bytes"])

    @property
    def jurisdiction(self) -> str:
        return str(self.fields[2] or self.provenance["jurisdiction"])

    @property
    def family(self) -> str:
        return str(self.fields[3] or self.provenance["document_family"])

    @property
    def version_order(self) -> int:
        return int(self.fields[4] or self.provenance["version_order"])

    @property
    def media_type(self) -> str:  # the first word of the provenance `format` (`text/plain`)
        return str(self.fields[5] or self.provenance["format"]).split()[0].strip(",;").lower()


@dataclass(frozen=True, slots=True, kw_only=True)
class StructureMark:
    """A numbering element the extractor carried through from markup (an XML `<num>`)."""

    label: str  # the number as printed, e.g. "SEC. 2." or "34-306"
    value: str | None  # the markup's own value attribute, where it has one
    char_start: int
    char_end: int
    path: tuple[str, ...]  # enclosing structural element names, outermost first

    def as_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "value": self.value,
            "char_start": self.char_start,
            "char_end": self.char_end,
            "path": list(self.path),
        }

    @classmethod
    def from_json(cls, m: dict[str, Any]) -> StructureMark:
        return cls(
            label=m["label"],
            value=m["value"],
            char_start=m["char_start"],
            char_end=m["char_end"],
            path=tuple(m["path"]),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class PageSpan:
    """Where one page of a PDF lies in the extracted text: `text[char_start:char_end]` is its body.

    Pages are numbered from 1 as a reader counts them (the PDF's page order, not printed folios).
    A page with no usable body text has an empty span at the place it would have stood.
    """

    page: int
    char_start: int
    char_end: int

    def as_json(self) -> list[int]:
        return [self.page, self.char_start, self.char_end]

    @classmethod
    def from_json(cls, p: list[int]) -> PageSpan:
        return cls(page=p[0], char_start=p[1], char_end=p[2])


@dataclass(frozen=True, slots=True, kw_only=True)
class Furniture:
    """A line the PDF extractor took out of the body text, kept so nothing is silently lost.

    `position` says why: "top" or "bottom" (a running header or footer, recognised by repetition
    across pages), "margin" (a repeated line set in another direction, e.g. a printer's slug) or
    "outside" (text drawn outside the page's visible area). The box is in PDF points, in the
    page's own (unrotated) coordinates, y upwards, rounded to 0.1.
    """

    page: int
    text: str
    position: Literal["top", "bottom", "margin", "outside"]
    x0: float
    y0: float
    x1: float
    y1: float

    def as_json(self) -> dict[str, Any]:
        return {
            "page": self.page,
            "text": self.text,
            "position": self.position,
            "box": [self.x0, self.y0, self.x1, self.y1],
        }

    @classmethod
    def from_json(cls, f: dict[str, Any]) -> Furniture:
        x0, y0, x1, y1 = f["box"]
        return cls(
            page=f["page"], text=f["text"], position=f["position"], x0=x0, y0=y0, x1=x1, y1=y1
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class UnusablePage:
    """A PDF page whose text layer gave no usable body text, and why ("no_text" or "garbage")."""

    page: int
    reason: Literal["no_text", "garbage"]
    detail: str

    def as_json(self) -> dict[str, Any]:
        return {"page": self.page, "reason": self.reason, "detail": self.detail}

    @classmethod
    def from_json(cls, u: dict[str, Any]) -> UnusablePage:
        return cls(page=u["page"], reason=u["reason"], detail=u["detail"])


TextOrigin = Literal["glyphs", "invisible", "ocr", "none"]
TEXT_ORIGINS: tuple[TextOrigin, ...] = get_args(TextOrigin)
MACHINE_READ: frozenset[TextOrigin] = frozenset({"invisible", "ocr"})  # a machine's reading (C18)
LOW_CONFIDENCE = 70.0  # OCR confidence (0 to 100) below which a word, or a page's mean, is low


@dataclass(frozen=True, slots=True, kw_only=True)
class OriginRun:
    """A stretch `text[char_start:char_end]` of one origin (DESIGN.md C18).

    `glyphs`: text the document draws visibly (and every character of a plain-text or XML
    artefact); `invisible`: text drawn in an invisible render mode or under a page-sized image
    (someone's OCR layer); `ocr`: the workbench's own OCR; `none`: white space the extractor
    wrote between text of two different origins, and the text's closing line break.
    """

    char_start: int
    char_end: int
    origin: TextOrigin


@dataclass(frozen=True, slots=True, kw_only=True)
class OcrWord:
    """One word the workbench's OCR read: `text[char_start:char_end]`, the engine's confidence
    (0 to 100) and its box in PDF points in the page's own (unrotated) coordinates, y upwards,
    rounded to 0.1, as `Furniture` boxes are."""

    char_start: int
    char_end: int
    confidence: float
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass(frozen=True, slots=True, kw_only=True)
class OcrReading:
    """How the OCR extractor read one page: the engine build, languages and settings (the named
    extractor's full identity), the quarter turn that set the page upright, the mean word
    confidence, whether it fell below the stated threshold, and every word kept in the text."""

    extractor: str  # "tesseract-ocr" and its rule version, e.g. "tesseract-ocr 1"
    engine: str  # the engine build, e.g. "tesseract 5.3.0 leptonica-1.82.0"
    languages: str  # the engine's language codes, e.g. "eng"
    settings: tuple[tuple[str, str], ...]
    rotation: int  # degrees clockwise the page image was turned to read upright
    mean_confidence: float
    low_confidence: bool
    words: tuple[OcrWord, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class PageOrigin:
    """A PDF page's origin summary: `origin` is the origin of most of its body's non-white-space
    characters (`none` when it has none; a tie goes to the earlier of `TEXT_ORIGINS`),
    `characters` counts them per origin (origins with none left out, in `TEXT_ORIGINS` order),
    and `ocr` is the OCR extractor's reading where the page was read by OCR."""

    page: int
    origin: TextOrigin
    characters: tuple[tuple[TextOrigin, int], ...]
    ocr: OcrReading | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TextOrigins:
    """Where every character of a version's text came from (C18): `runs` partition the text in
    order, adjacent runs of different origins; `pages` (PDF only) summarise each page."""

    runs: tuple[OriginRun, ...]
    pages: tuple[PageOrigin, ...] = ()

    @staticmethod
    def whole(length: int, origin: TextOrigin = "glyphs") -> TextOrigins:
        """One run over a whole text of `length` characters (plain text, Markdown, XML)."""
        return TextOrigins(runs=(OriginRun(char_start=0, char_end=length, origin=origin),))

    def touched(self, char_start: int, char_end: int) -> tuple[TextOrigin, ...]:
        """The origins of the characters of `[char_start, char_end)`, in `TEXT_ORIGINS` order; an
        empty span touches the origin of the run it stands in (the last run at the text's end)."""
        end = max(char_end, char_start + 1)
        start_of = attrgetter("char_start")  # runs partition the text, in order
        first = max(bisect_right(self.runs, char_start, key=start_of) - 1, 0)
        last = bisect_left(self.runs, end, key=start_of)
        found = {r.origin for r in self.runs[first:last] if r.char_end > char_start}
        if not found and self.runs:
            found = {self.runs[-1].origin}
        return tuple(o for o in TEXT_ORIGINS if o in found)

    def characters(
        self, text: str, char_start: int = 0, char_end: int | None = None
    ) -> dict[str, int]:
        """Non-white-space characters of `text[char_start:char_end]` per origin (zero counts left
        out, `TEXT_ORIGINS` order): the summary `versions --json` and `passages --json` print."""
        stop = len(text) if char_end is None else char_end
        counts = dict.fromkeys(TEXT_ORIGINS, 0)
        for run in self.runs:
            lo, hi = max(run.char_start, char_start), min(run.char_end, stop)
            if lo < hi:
                # `str.split()` splits at exactly the characters `str.isspace()` holds for.
                counts[run.origin] += len("".join(text[lo:hi].split()))
        return {origin: n for origin, n in counts.items() if n}

    def as_json(self) -> dict[str, Any]:
        """The stored shape: runs as `[start, end, origin]`, pages with their OCR readings, each
        word as `[start, end, confidence, x0, y0, x1, y1]`. `origins_from_json` reads it back."""
        return {
            "runs": [[r.char_start, r.char_end, r.origin] for r in self.runs],
            "pages": [_page_origin_json(p) for p in self.pages],
        }


def _page_origin_json(page: PageOrigin) -> dict[str, Any]:
    reading = page.ocr
    return {
        "page": page.page,
        "origin": page.origin,
        "characters": dict(page.characters),
        "ocr": None
        if reading is None
        else {
            "extractor": reading.extractor,
            "engine": reading.engine,
            "languages": reading.languages,
            "settings": dict(reading.settings),
            "rotation": reading.rotation,
            "mean_confidence": reading.mean_confidence,
            "low_confidence": reading.low_confidence,
            "words": [
                [w.char_start, w.char_end, w.confidence, w.x0, w.y0, w.x1, w.y1]
                for w in reading.words
            ],
        },
    }


def origins_from_json(data: Any) -> TextOrigins:
    """The record `TextOrigins.as_json` wrote (the workspace holds only what the workbench wrote,
    so values are not checked one by one)."""

    def reading(o: Any) -> OcrReading | None:
        if o is None:
            return None
        return OcrReading(
            extractor=o["extractor"],
            engine=o["engine"],
            languages=o["languages"],
            settings=tuple(o["settings"].items()),
            rotation=o["rotation"],
            mean_confidence=o["mean_confidence"],
            low_confidence=o["low_confidence"],
            words=tuple(
                OcrWord(char_start=s, char_end=e, confidence=c, x0=a, y0=b, x1=x, y1=y)
                for s, e, c, a, b, x, y in o["words"]
            ),
        )

    return TextOrigins(
        runs=tuple(OriginRun(char_start=s, char_end=e, origin=o) for s, e, o in data["runs"]),
        pages=tuple(
            PageOrigin(
                page=p["page"],
                origin=p["origin"],
                characters=tuple(p["characters"].items()),
                ocr=reading(p["ocr"]),
            )
            for p in data["pages"]
        ),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Extraction:
    """The text that offsets index, and the extractor that produced it from the artefact."""

    text: str
    extractor: str
    extractor_version: str
    structure: tuple[StructureMark, ...] = ()
    pages: tuple[PageSpan, ...] = ()  # PDF only: the page map
    furniture: tuple[Furniture, ...] = ()  # PDF only: what was taken out of the body
    unusable_pages: tuple[UnusablePage, ...] = ()  # PDF only: pages with no usable text
    origin: TextOrigins | None = None  # None: the whole text is the artefact's own (`glyphs`)


@dataclass(frozen=True, slots=True, kw_only=True)
class Version:
    """A held, immutable version: its text and the hashes that pin it."""

    version_id: str
    jurisdiction: str
    family: str
    version_order: int
    version_label: str
    media_type: str
    artefact_sha256: str
    artefact_bytes: int
    extractor: str
    extractor_version: str
    text_sha256: str
    text: str = field(repr=False)
    structure: tuple[StructureMark, ...] = field(default=(), repr=False)
    pages: tuple[PageSpan, ...] = field(default=(), repr=False)
    furniture: tuple[Furniture, ...] = field(default=(), repr=False)
    unusable_pages: tuple[UnusablePage, ...] = field(default=(), repr=False)
    # Where each character came from (C18); None for a PDF held before origins were recorded
    # and not re-extracted since (`Workspace` reads it from its side record).
    origin: TextOrigins | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class VersionText:
    """A held version's identity, text and (a PDF's) page map, without its structure, furniture,
    unusable pages or origins: what showing a kept diff reads (`Workspace.version_texts`). A
    command that segments, pairs or reads parts reads the whole `Version`."""

    version_id: str
    jurisdiction: str
    family: str
    version_order: int
    version_label: str
    media_type: str
    artefact_sha256: str
    text_sha256: str
    text: str = field(repr=False)
    pages: tuple[PageSpan, ...] = field(default=(), repr=False)


HeldVersion = TypeVar("HeldVersion", Version, VersionText)


def consecutive_pairs(
    versions: Iterable[HeldVersion],
) -> tuple[tuple[HeldVersion, HeldVersion], ...]:
    """Each (before, after) pair of versions adjacent in the order given and of one family.

    A family is a (jurisdiction, family) pair; two adjacent versions of different families are not
    a pair. The order is the caller's: give versions in version order within each family, as
    `Workspace.versions()` returns them (jurisdiction, family, version_order). Every surface that
    diffs "consecutive versions" (diff, review, measure) pairs through this one function.
    """
    return tuple(
        (a, b)
        for a, b in pairwise(versions)
        if (a.jurisdiction, a.family) == (b.jurisdiction, b.family)
    )


PassageKind = Literal["front_matter", "heading", "body", "furniture", "footnote", "table"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Passage:
    """A passage: an exact slice `text[char_start:char_end]` of one version.

    `section_label` its own label, `path` its structural path, `kind` what it is (`segment.py`
    states the rules); a footnote's `anchors` are its markers, a table's `cells` its cells (C20).
    """

    version_id: str
    ordinal: int
    char_start: int
    char_end: int
    text: str
    section_label: str | None
    kind: PassageKind = "body"
    path: tuple[str, ...] | None = None
    anchors: tuple[tuple[int, int], ...] = ()
    cells: tuple[TableCell, ...] = ()

    def as_json(
        self, *, profile: str, page: int | None, origin: Mapping[str, int] | None = None
    ) -> dict[str, Any]:
        """`passages --json`'s line: fields, profile, page (None: no PDF), origins (None: unread)."""
        return {
            "version_id": self.version_id,
            "ordinal": self.ordinal,
            "char_start": self.char_start,
            "char_end": self.char_end,
            "text": self.text,
            "section_label": self.section_label,
            "kind": self.kind,
            "path": list(self.path) if self.path is not None else None,
            "profile": profile,
            "page": page,
            "origin": None if origin is None else dict(origin),
            **parts_json(self.kind, self.anchors, self.cells),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Span:
    """A character range of one version, in raw (stored-text) coordinates."""

    version_id: str
    char_start: int
    char_end: int

    def as_json(self) -> dict[str, Any]:
        return {
            "version_id": self.version_id,
            "char_start": self.char_start,
            "char_end": self.char_end,
        }


ChangeKind = Literal["unchanged", "modified", "moved", "split", "merged", "added", "removed"]
CHANGE_KINDS: tuple[str, ...] = get_args(ChangeKind)
PAIRING_KINDS = frozenset({"modified", "moved", "split", "merged"})  # a pairing of unequal text


@dataclass(frozen=True, slots=True, kw_only=True)
class Change:
    """One entry of a diff: a passage pairing (or a lone passage) between two versions.

    `similarity` is the computed text similarity of a modified pair and is never overwritten;
    `alignment_confidence` is that number after the restructure cap; `capped` says whether the cap
    applied (the two section labels disagree). `span_before`/`span_after` narrow a modified or
    moved pair to the changed characters on each side. A `split` (one passage before, two or more
    consecutive ones after) or a `merged` change (the reverse) lists every passage of its many
    side in `before_spans` or `after_spans`, in text order; its `before`/`after` on that side runs
    from the first passage's start to the last one's end. The lists are empty for other kinds.
    `front_matter` marks a front-matter edit: both sides hold passages of kind `front_matter`
    only (a title page, a Markdown `---` block); it is listed apart and never reviewed.
    `before_cells`/`after_cells` are the cells of a side that is a table row (a split or merge:
    of each of its rows), as its table records them (C20); empty for a side that is not.
    """

    change_id: str
    kind: ChangeKind
    before: Span | None
    after: Span | None
    before_label: str | None
    after_label: str | None
    similarity: float | None
    alignment_confidence: float | None
    capped: bool
    span_before: Span | None
    span_after: Span | None
    before_spans: tuple[Span, ...] = ()
    after_spans: tuple[Span, ...] = ()
    front_matter: bool = False  # every passage on both sides is front matter: a front-matter edit
    # The origins (C18) each side's passages touch, `TEXT_ORIGINS` order (empty: none recorded),
    # and whether every changed character lies in an OCR word read below `LOW_CONFIDENCE`.
    before_origin: tuple[TextOrigin, ...] = ()
    after_origin: tuple[TextOrigin, ...] = ()
    low_confidence: bool = False
    before_cells: tuple[TableCell, ...] = ()
    after_cells: tuple[TableCell, ...] = ()

    @property
    def machine_read(self) -> bool:
        """A pairing (`PAIRING_KINDS`) both of whose sides touch machine-read text (C18)."""
        return (
            self.kind in PAIRING_KINDS
            and not MACHINE_READ.isdisjoint(self.before_origin)
            and not MACHINE_READ.isdisjoint(self.after_origin)
        )


def page_for_offset(pages: Sequence[PageSpan], offset: int) -> int | None:
    """The page whose body holds text offset `offset`, or None for a version with no page map.

    An offset in the white space between two pages belongs to the later page; an offset past the
    last page's body belongs to the last page.
    """
    if not pages:
        return None
    starts = [span.char_start for span in pages]
    index = bisect_right(starts, offset) - 1
    if index >= 0 and offset >= pages[index].char_end and index + 1 < len(pages):
        index += 1
    return pages[max(index, 0)].page


def span_pages(pages: Sequence[PageSpan], char_start: int, char_end: int) -> tuple[int, int] | None:
    """The first and last page of the span `[char_start, char_end)`: the pages of its first and
    its last character by `page_for_offset` (an empty span's both at `char_start`), or None for a
    version with no page map. Every surface that names a span's pages (history, the verifier's
    page check, the redline) asks this one function."""
    first = page_for_offset(pages, char_start)
    last = page_for_offset(pages, max(char_start, char_end - 1))
    if first is None or last is None:
        return None
    return first, last
