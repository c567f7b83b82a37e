"""Frozen records that travel between the stages.

Every record is immutable (`frozen=True, slots=True, kw_only=True`) and holds tuples, not lists, so a
value handed to a caller can never be changed behind the store's back. Offsets are half-open
`[char_start, char_end)` indices into the version's text (DESIGN.md C1).
"""

from __future__ import annotations

import functools
import hashlib
import json
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any, Literal, get_args


def canonical_json(value: Any) -> str:
    """The one serialization that content ids, digests and catalogue lines are computed over."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_id(value: Any) -> str:
    """SHA-256 hex of `canonical_json(value)` in UTF-8: the one way a content id, digest or cache
    key is made from structured data (never from `str()` of an object)."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def strict_json(text: str, error: Callable[[str], Exception]) -> Any:
    """`json.loads(text)`, refusing what Python's reader accepts and strict JSON does not: a key
    that appears twice in one object (`error("field 'k' appears twice")`) and NaN, Infinity or
    -Infinity (`error("NaN is not a JSON number")`). Malformed JSON still raises
    `json.JSONDecodeError`; every reader of JSON a person or another program wrote calls this."""

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, value in pairs:
            if key in seen:
                raise error(f"field {key!r} appears twice")
            seen[key] = value
        return seen

    def constant(name: str) -> Any:
        raise error(f"{name} is not a JSON number")

    return json.loads(text, object_pairs_hook=unique, parse_constant=constant)


def text_sha256(text: str | bytes) -> str:
    """SHA-256 of the text's UTF-8 bytes (given as a str, or as those bytes): the hash every
    citation is checked against."""
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


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogueRow:
    """One admitted document: its path under the corpus root and its provenance, every field kept."""

    path: str
    provenance: Mapping[str, Any]

    @property
    def sha256(self) -> str:
        return str(self.provenance["sha256"])

    @property
    def size(self) -> int:
        return int(self.provenance["bytes"])

    @property
    def jurisdiction(self) -> str:
        return str(self.provenance["jurisdiction"])

    @property
    def family(self) -> str:
        return str(self.provenance["document_family"])

    @property
    def version_order(self) -> int:
        return int(self.provenance["version_order"])

    @property
    def version_label(self) -> str:
        return str(self.provenance.get("version_label") or "")

    @property
    def media_type(self) -> str:
        """The media type: the first word of the provenance `format` field (`text/plain`, ...)."""
        return str(self.provenance["format"]).split()[0].strip(",;").lower()


@dataclass(frozen=True, slots=True, kw_only=True)
class StructureMark:
    """A numbering element the extractor carried through from markup (an XML `<num>`)."""

    label: str  # the number as printed, e.g. "SEC. 2." or "34-306"
    value: str | None  # the markup's own value attribute, where it has one
    char_start: int
    char_end: int
    path: tuple[str, ...]  # enclosing structural element names, outermost first


@dataclass(frozen=True, slots=True, kw_only=True)
class PageSpan:
    """Where one page of a PDF lies in the extracted text: `text[char_start:char_end]` is its body.

    Pages are numbered from 1 as a reader counts them (the PDF's page order, not printed folios).
    A page with no usable body text has an empty span at the place it would have stood.
    """

    page: int
    char_start: int
    char_end: int


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


@dataclass(frozen=True, slots=True, kw_only=True)
class UnusablePage:
    """A PDF page whose text layer gave no usable body text, and why ("no_text" or "garbage")."""

    page: int
    reason: Literal["no_text", "garbage"]
    detail: str


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


def consecutive_pairs(versions: Iterable[Version]) -> tuple[tuple[Version, Version], ...]:
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


PassageKind = Literal["front_matter", "heading", "body", "furniture"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Passage:
    """A passage: an exact slice `text[char_start:char_end]` of one version.

    `section_label` is the passage's own label as its numbering profile reads it (None if it opens
    with none); `path` is the structural path it lies in (its own unit's for a labelled passage,
    the unit above it for a body passage; None where no numbered unit covers it or the numbering
    was refused); `kind` is what the passage is (`segment.py` states the rules).
    """

    version_id: str
    ordinal: int
    char_start: int
    char_end: int
    text: str
    section_label: str | None
    kind: PassageKind = "body"
    path: tuple[str, ...] | None = None

    def as_json(self, *, profile: str, page: int | None) -> dict[str, Any]:
        """What `workbench passages --json` prints for it: its fields, the name of the profile that
        read it and the PDF page holding its start (None for other formats)."""
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


@functools.cache
def code_digest() -> str:
    """SHA-256 over every source file of the workbench package (sorted paths and bytes).

    It travels with every Dask task (`engine.py`), so a worker with other workbench code refuses
    the task instead of returning other results, and it names the code a note check ran (the
    ledger's `checker_sha256`, `claims.py`). Computed once per process, at first use (a worker's
    first task, the client's first `family_tasks`), so it describes the code the process loaded,
    not a file edited later on disk; `code_digest.cache_clear()` forgets it.
    """
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        name = path.relative_to(package).as_posix()
        digest.update(name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


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
