"""What a diff reads and writes (C7): consecutive versions paired (as whole versions, or as the
text-only view a kept diff is shown from), and each entry, a passage pairing or a lone passage
between two versions, with the spans of each side in raw coordinates."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Literal, TypeVar, get_args

from workbench.models.versions import MACHINE_READ, Version

if TYPE_CHECKING:
    from workbench.cells import TableCell
    from workbench.models.versions import PageSpan, TextOrigin


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
