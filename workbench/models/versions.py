"""A held version and the records it carries (C1, C2, C18): its page map, the numbering marks,
furniture and unusable pages its extraction kept, where each character came from; and the page
look-up every surface asks. Offsets are half-open `[char_start, char_end)` into the version's text."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Literal, get_args

if TYPE_CHECKING:  # an OCR reading's records load with the first page the OCR read
    from workbench.models.ocr import OcrReading


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


def marks_json(marks: Sequence[StructureMark]) -> list[Any]:
    """A version's marks as the workspace stores them (schema 3): `[paths, rows]`, each distinct
    enclosing path once, in the order of its first mark, and each mark as `[label, value,
    char_start, char_end, index of its path]`: a path is named once however many marks it
    holds. `marks_from_json` reads it back."""
    paths: dict[tuple[str, ...], int] = {}
    rows = [
        [m.label, m.value, m.char_start, m.char_end, paths.setdefault(m.path, len(paths))]
        for m in marks
    ]
    return [[list(path) for path in paths], rows]


def marks_from_json(data: Sequence[Any]) -> tuple[StructureMark, ...]:
    """The marks `marks_json` stored; the marks of one path share its tuple."""
    stored, rows = data
    paths = [tuple(path) for path in stored]
    return tuple(
        StructureMark(label=label, value=value, char_start=start, char_end=end, path=paths[at])
        for label, value, start, end, at in rows
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
class PageOrigin:
    """A PDF page's origin summary: `origin` is the origin of most of its body's non-white-space
    characters (`none` when it has none; a tie goes to the earlier of `TEXT_ORIGINS`),
    `characters` counts them per origin (origins with none left out, in `TEXT_ORIGINS` order),
    and `ocr` is the OCR extractor's reading where the page was read by OCR."""

    page: int
    origin: TextOrigin
    characters: tuple[tuple[TextOrigin, int], ...]
    ocr: OcrReading | None = None

    def as_json(self) -> dict[str, Any]:
        """The stored shape of the page's summary (`TextOrigins.as_json`)."""
        reading = self.ocr
        return {
            "page": self.page,
            "origin": self.origin,
            "characters": dict(self.characters),
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
            "pages": [p.as_json() for p in self.pages],
        }


def origins_from_json(data: Any) -> TextOrigins:
    """The record `TextOrigins.as_json` wrote (the workspace holds only what the workbench wrote,
    so values are not checked one by one)."""

    def reading(o: Any) -> OcrReading | None:
        if o is None:
            return None
        from workbench.models.ocr import OcrReading, OcrWord  # only a page the OCR read

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
