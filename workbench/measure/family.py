"""The map of the measurement: one document family measured alone (C13, C15), through one numbering
profile, into evidence rows, off each pair's one diff (C7: tables paired by rows); it reads nothing
but the versions, their tables and the profiles it is given. The cap causes and the structure rule
are in docs/measurements.md."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from workbench.cells import TableCell
from workbench.changes.diff import (
    RESTRUCTURE_CONFIDENCE_CEILING,
    diff_passages,
    pairing_is_uncertain,
)
from workbench.changes.queue import ReviewItem, items_of_pair
from workbench.changes.sample import is_confident_pairing
from workbench.models import (
    PAIRING_KINDS,
    Change,
    Passage,
    Version,
    consecutive_pairs,
)
from workbench.text.choice import Choice, Headings, Reading, family_reading, read_family
from workbench.text.lines import gutter_line_starts
from workbench.text.profiles import Profile
from workbench.text.segment import leading_number, segment_version
from workbench.text.structure import StructureParse, is_marked, parse_structure

if TYPE_CHECKING:
    from workbench.text.table_cells import Table

CAP_CAUSES = ("year_like", "page_or_gutter", "renumbered", "structure_refused", "structure_agrees")
EXCLUDED_KINDS = frozenset({"front_matter", "furniture"})

_YEAR = re.compile(r"1[89]\d\d|20\d\d")
_PAGE_FURNITURE = re.compile(
    r"\d+\s+STAT\.\s+\d+|\[Page \d+\]|.*\[Page \d+\]|Page \d+ of \d+|\d+", re.DOTALL
)


# ---------------------------------------------------------------------------------------------
# The map: one family


@dataclass(frozen=True, slots=True, kw_only=True)
class PairingRow:
    """One modified pairing, with what the proxy and the structure say about it."""

    evidence_id: str  # the change id
    jurisdiction: str
    family: str
    before_id: str
    after_id: str
    before_label: str | None
    after_label: str | None
    proxy_capped: bool
    proxy_cautioned: bool
    structure_status: str  # "agree", "disagree", "refused", "uncovered", "unread"
    before_path: tuple[str, ...] | None
    after_path: tuple[str, ...] | None
    cap_cause: str | None
    structure_capped: bool
    structure_cautioned: bool
    before_excerpt: str
    after_excerpt: str
    before_kind: str
    after_kind: str
    unknown_cause: str | None  # None when known; "refused:<code>", "uncovered" or "unread"

    @property
    def excluded(self) -> bool:
        """Front matter or furniture on either side: outside the "structure known" share."""
        return self.before_kind in EXCLUDED_KINDS or self.after_kind in EXCLUDED_KINDS

    @property
    def known(self) -> bool:
        return self.unknown_cause is None


@dataclass(frozen=True, slots=True, kw_only=True)
class ParseRow:
    """How the structure parser read one version."""

    evidence_id: str  # the version id
    jurisdiction: str
    family: str
    method: str
    refusal: str | None
    units: int
    profile: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PassageRow:
    """One passage of one version: its kind, whether it has its own label and a structural path."""

    evidence_id: str  # version id "#" ordinal
    kind: str
    labelled: bool
    has_path: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class TextRow:
    """Where one version's text came from (C18): its non-white-space characters per origin, and
    those of a version whose origins are not recorded (a PDF held before they were)."""

    evidence_id: str  # the version id
    jurisdiction: str
    family: str
    glyphs: int
    invisible: int
    ocr: int
    unrecorded: int


def text_row(version: Version) -> TextRow:
    """The `TextRow` of one version, read off its recorded origins (`TextOrigins.characters`)."""
    counts = version.origin.characters(version.text) if version.origin is not None else {}
    unrecorded = 0 if version.origin is not None else len("".join(version.text.split()))
    return TextRow(
        evidence_id=version.version_id,
        jurisdiction=version.jurisdiction,
        family=version.family,
        glyphs=counts.get("glyphs", 0),
        invisible=counts.get("invisible", 0),
        ocr=counts.get("ocr", 0),
        unrecorded=unrecorded,
    )


CAUTION_CAUSES = (
    "split_or_merge",
    "move_across_sections",
    "label_cap",
    "low_similarity",
    "machine_read",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class CautionRow:
    """One change that is not `unchanged`, and whether (and why) the diff cautions it."""

    evidence_id: str  # the change id
    jurisdiction: str
    kind: str
    cause: str | None  # None: not cautioned (or not a pairing)
    low_similarity: bool  # a pairing (modified, moved, split, merged) at most half alike
    opens_review_item: bool  # the first change of a review item (a group or a lone pairing)
    machine_read: bool = False  # a pairing of two machine readings (`Change.machine_read`, C18)
    confident: bool = False  # a pairing no reviewer is asked about (`is_confident_pairing`, C21)


def caution_cause(change: Change) -> str | None:
    """Why `pairing_is_uncertain` holds for a change, in this order of precedence, or None.

    `split_or_merge` (a restructure, always capped); `move_across_sections` (a moved pairing whose
    labels disagree); `label_cap` (any other pairing whose labels disagree); `low_similarity` (an
    uncapped pairing no more than half alike); `machine_read` (a pairing of two machine readings
    that no other cause cautions; `CautionRow.machine_read` counts every such pairing apart).
    """
    if not pairing_is_uncertain(change):
        return None
    if change.kind in ("split", "merged"):
        return "split_or_merge"
    if change.capped:
        return "move_across_sections" if change.kind == "moved" else "label_cap"
    if change.similarity is not None and change.similarity <= RESTRUCTURE_CONFIDENCE_CEILING:
        return "low_similarity"
    return "machine_read"


@dataclass(frozen=True, slots=True, kw_only=True)
class FamilyMeasurement:
    jurisdiction: str
    family: str
    versions: int
    profile: dict[str, Any]  # chosen_profile_record: name, sha256, origin, chosen, reading, ...
    pairings: tuple[PairingRow, ...]
    parses: tuple[ParseRow, ...]
    passages: tuple[PassageRow, ...]
    cautions: tuple[CautionRow, ...] = ()
    texts: tuple[TextRow, ...] = ()  # one per version: its characters by origin


def _label_is_furniture(label: str | None, text: str, start: int, gutter: frozenset[int]) -> bool:
    if label is None:
        return False
    line_start = text.rfind("\n", 0, start) + 1
    if line_start in gutter and text[line_start:start].strip() == "":
        return True
    line_end = text.find("\n", start)
    passage_head = text[start : line_end if line_end >= 0 else len(text)]
    return bool(_PAGE_FURNITURE.fullmatch(passage_head.strip()))


def _cap_cause(change: Change, status: str, furniture: bool) -> str | None:
    if not change.capped:
        return None
    if any(
        label is not None and _YEAR.fullmatch(label)
        for label in (change.before_label, change.after_label)
    ):
        return "year_like"
    if furniture:
        return "page_or_gutter"
    return {"disagree": "renumbered", "agree": "structure_agrees"}.get(status, "structure_refused")


def _excerpt(text: str, start: int, end: int, cells: Sequence[TableCell] = ()) -> str:
    """The side's text, white space folded, its first 120 characters; a table row's is its
    cells' text in order, " | " between them (its span runs over other rows' cells in a PDF
    read column by column)."""
    if cells:
        return " | ".join(" ".join(text[c.char_start : c.char_end].split()) for c in cells)[:120]
    return " ".join(text[start:end].split())[:120]


def _holding(passages: Sequence[Passage], starts: Sequence[int], at: int) -> Passage:
    """The passage of `passages` (in text order, `starts` theirs) that holds offset `at`: the
    last one starting at or before it (a table row's unit starts inside its passage)."""
    return passages[max(bisect_right(starts, at) - 1, 0)]


def _pairing_row(
    change: Change,
    before: Version,
    after: Version,
    passages: Mapping[str, tuple[Sequence[Passage], Sequence[int]]],
    parses: dict[str, StructureParse],
    gutters: dict[str, frozenset[int]],
    unread: bool,
) -> PairingRow:
    assert change.before is not None and change.after is not None and change.similarity is not None
    parse_a, parse_b = parses[before.version_id], parses[after.version_id]
    passage_a = _holding(*passages[before.version_id], change.before.char_start)
    passage_b = _holding(*passages[after.version_id], change.after.char_start)
    path_a, path_b = passage_a.path, passage_b.path
    unknown_cause = None
    if unread:
        status = unknown_cause = "unread"
    elif parse_a.refusal or parse_b.refusal:
        status = "refused"
        unknown_cause = f"refused:{parse_a.refusal or parse_b.refusal}"
    elif path_a is None or path_b is None:
        status = "uncovered"
        unknown_cause = "uncovered"
    else:
        status = "agree" if path_a == path_b else "disagree"
    # The proxy is the seed's leading number, whatever the profile reads (the comparison's point).
    label_a, label_b = leading_number(passage_a.text), leading_number(passage_b.text)
    proxy_capped = label_a != label_b
    proxy_change = _with_labels(change, label_a, label_b, proxy_capped)
    furniture = _label_is_furniture(
        label_a, before.text, change.before.char_start, gutters[before.version_id]
    ) or (
        _label_is_furniture(label_b, after.text, change.after.char_start, gutters[after.version_id])
    )
    structure_capped = status == "disagree" or (unknown_cause is not None and proxy_capped)
    confidence = _capped_confidence(change.similarity, structure_capped)
    return PairingRow(
        evidence_id=change.change_id,
        jurisdiction=before.jurisdiction,
        family=before.family,
        before_id=before.version_id,
        after_id=after.version_id,
        before_label=label_a,
        after_label=label_b,
        proxy_capped=proxy_capped,
        proxy_cautioned=pairing_is_uncertain(proxy_change),
        structure_status=status,
        before_path=path_a,
        after_path=path_b,
        cap_cause=_cap_cause(proxy_change, status, furniture),
        structure_capped=structure_capped,
        # Both rules keep the diff's doubt of two machine readings: they differ in labels only.
        structure_cautioned=change.machine_read or confidence <= RESTRUCTURE_CONFIDENCE_CEILING,
        before_excerpt=_excerpt(
            before.text, change.before.char_start, change.before.char_end, change.before_cells
        ),
        after_excerpt=_excerpt(
            after.text, change.after.char_start, change.after.char_end, change.after_cells
        ),
        before_kind=passage_a.kind,
        after_kind=passage_b.kind,
        unknown_cause=unknown_cause,
    )


def _capped_confidence(similarity: float, capped: bool) -> float:
    return min(similarity, RESTRUCTURE_CONFIDENCE_CEILING) if capped else similarity


def _with_labels(change: Change, before: str | None, after: str | None, capped: bool) -> Change:
    """The change as the proxy sees it: its labels and cap replaced by the leading numbers'."""
    assert change.similarity is not None
    return replace(
        change,
        before_label=before,
        after_label=after,
        alignment_confidence=_capped_confidence(change.similarity, capped),
        capped=capped,
    )


def chosen_profile_record(choice: Choice, reading: Reading) -> dict[str, Any]:
    """What a measurement records of the profile that read a family: name, SHA-256, origin, how
    it was chosen, how well it read the family (`reading`: read, read with inconsistencies or
    unread, and its consistent and inconsistent steps over every version), the choice's note and
    contest where it has them (`Choice.note`, `Choice.contest`), and for a profile induced from
    the family's texts its TOML (`toml`), which `measure_corpus` writes beside the reports."""
    record: dict[str, Any] = {
        **choice.profile.as_json(),
        "chosen": choice.how,
        "reading": reading.status,
        "consistent_steps": reading.consistent,
        "inconsistent_steps": reading.inconsistent,
    }
    if choice.note is not None:
        record["note"] = choice.note
    if choice.contest is not None:
        record["contest"] = choice.contest
    if choice.how in ("induced", "unread"):
        record["toml"] = choice.profile.source.decode("utf-8")
    return record


# a consecutive pair, its whole diff and its review items
PairItems = tuple[Version, Version, tuple[Change, ...], list[ReviewItem]]


def measure_family(
    versions: Sequence[Version],
    profiles: Sequence[Profile] | None = None,
    *,
    tables: Mapping[str, Sequence[Table] | None] | None = None,
    review: list[PairItems] | None = None,
    headings: Headings = None,
) -> FamilyMeasurement:
    """Parse every version of one family and measure every consecutive pair's modified pairings.

    `versions` must be one family in version order (as `Workspace.versions(family)` returns them).
    The family's profile is chosen from `profiles` (default: the shipped ones) by
    `choice.read_family`: a profile refused over its pattern budget leaves the family unread, the
    refusal its reason, and the run goes on. `tables`, by version id, are each version's tables
    (`text.parts.version_parts`; none where missing): each pair is diffed as `workbench diff`
    diffs it (`diff_passages` with both versions' tables, rows paired row by row), and that
    diff is the one its figures, its review items and its kept diff read. `headings` are the
    lines the PDFs among them set as headings (`choice.Headings`), read where the profile is
    induced. A pure function of the versions' texts, their artefacts, their tables and the
    profiles' bytes: the map step of corpus-wide work.
    """
    if not versions:
        raise ValueError("measure_family needs at least one version")
    choice, (parses, segments) = read_family(
        versions,
        profiles,
        lambda profile: (
            {v.version_id: parse_structure(v, profile) for v in versions},
            {v.version_id: segment_version(v, profile) for v in versions},
        ),
        headings=headings,
    )
    tables = tables or {}
    by_start = {vid: (ps, [p.char_start for p in ps]) for vid, ps in segments.items()}
    gutters = {v.version_id: gutter_line_starts(v.text) for v in versions}
    marked = all(is_marked(v) for v in versions)
    reading = family_reading(choice, list(parses.values()), marked=marked)
    unread = reading.status == "unread"
    pairings = []
    cautions = []
    for before, after in consecutive_pairs(versions):
        changes = diff_passages(
            before.version_id,
            after.version_id,
            segments[before.version_id],
            segments[after.version_id],
            (before.origin, after.origin),
            (tables.get(before.version_id), tables.get(after.version_id)),
        )
        items = items_of_pair(before, after, changes)
        if review is not None:
            review.append((before, after, changes, items))
        opening = {item.pairings[0].change.change_id for item in items}
        for change in changes:
            if change.kind == "modified":
                pairings.append(
                    _pairing_row(change, before, after, by_start, parses, gutters, unread)
                )
            if change.kind != "unchanged":
                cautions.append(
                    CautionRow(
                        evidence_id=change.change_id,
                        jurisdiction=before.jurisdiction,
                        kind=change.kind,
                        cause=caution_cause(change),
                        low_similarity=change.kind in PAIRING_KINDS
                        and change.similarity is not None
                        and change.similarity <= RESTRUCTURE_CONFIDENCE_CEILING,
                        opens_review_item=change.change_id in opening,
                        machine_read=change.machine_read,
                        confident=is_confident_pairing(change),
                    )
                )
    parse_rows = [
        ParseRow(
            evidence_id=v.version_id,
            jurisdiction=v.jurisdiction,
            family=v.family,
            method=parses[v.version_id].method,
            refusal=parses[v.version_id].refusal,
            units=len(parses[v.version_id].units),
            profile=choice.profile.name,
        )
        for v in versions
    ]
    passage_rows = [
        PassageRow(
            evidence_id=f"{p.version_id}#{p.ordinal}",
            kind=p.kind,
            labelled=p.section_label is not None,
            has_path=p.path is not None,
        )
        for v in versions
        for p in segments[v.version_id]
    ]
    return FamilyMeasurement(
        jurisdiction=versions[0].jurisdiction,
        family=versions[0].family,
        versions=len(versions),
        profile=chosen_profile_record(choice, reading),
        pairings=tuple(pairings),
        parses=tuple(parse_rows),
        passages=tuple(passage_rows),
        cautions=tuple(cautions),
        texts=tuple(text_row(v) for v in versions),
    )
