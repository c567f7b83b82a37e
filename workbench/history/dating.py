"""Citations through time (C16): `cite_quote` makes a quote into a citation, verified by the rule
before it is returned, and `quote_history` dates it across a family's versions, each occurrence
found by the verifier's exact search and placed in its passage and pages."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from workbench.cells import TableCell
from workbench.cite import Citation, Verification, verify_citations
from workbench.cite.index import (
    DELETABLE,
    OccurrenceStatus,
    SourceIndex,
    find_text,
    occurrence_spans,
    source_index,
)
from workbench.errors import CitationError, CorpusChanged
from workbench.history.nearest import MachineReadNearest, machine_read_nearest
from workbench.models import Version, span_pages, text_sha256
from workbench.text.footnotes import note_words
from workbench.text.normalize import normalized_text
from workbench.text.segment import segment_version
from workbench.wording import counted
from workbench.workspace import Workspace
from workbench.workspace.parts import held_footnotes, held_tables

CONTEXT_CHARS = 60  # raw characters of context shown on each side of an occurrence

CiteStatus = Literal["cited", "ambiguous", "not_found", "no_such_occurrence"]
# The occurrence rule's outcomes, named as a citation made of the quote reads them.
_CITE_STATUS: dict[OccurrenceStatus, CiteStatus] = {
    "found": "cited",
    "ambiguous": "ambiguous",
    "missing": "not_found",
    "no_such_occurrence": "no_such_occurrence",
}


# ---------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True, slots=True, kw_only=True)
class Occurrence:
    """One occurrence of a quote in one version: its number (1-based, in text order), raw offsets,
    the passage it starts in (section label and structure path, through the family's numbering
    profile; None and () where the passage has none), the PDF page it starts and ends on (None for
    a version with no page map), and the raw text just before and after it (`CONTEXT_CHARS` each,
    white space folded for display)."""

    version_id: str
    occurrence: int
    char_start: int
    char_end: int
    section_label: str | None
    section_path: tuple[str, ...]
    page: int | None
    end_page: int | None
    before: str
    after: str

    def as_json(self) -> dict[str, Any]:
        return {
            "occurrence": self.occurrence,
            "char_start": self.char_start,
            "char_end": self.char_end,
            "section_label": self.section_label,
            "section_path": list(self.section_path),
            "page": self.page,
            "end_page": self.end_page,
            "before": self.before,
            "after": self.after,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class QuoteCitation:
    """What `cite_quote` made of a quote in a version.

    `status`: `cited` (one occurrence, or the named one exists: `citation` and its `verification`
    are set), `ambiguous` (several occurrences and none named), `no_such_occurrence` (the named
    occurrence is past the last), `not_found` (none). `occurrences` lists every one, in text order.
    `cell` is the table cell whose whole value the cited span is (C20); `by_headers` says the
    rule verified the citation naming its headers instead of an occurrence, which is then printed.
    """

    version_id: str
    quoted_text: str
    status: CiteStatus
    named: int | None
    occurrences: tuple[Occurrence, ...]
    citation: Citation | None
    verification: Verification | None
    nearest: MachineReadNearest | None = None
    cell: TableCell | None = None
    by_headers: bool = False

    def as_json(self) -> dict[str, Any]:
        """What `workbench cite --json` prints: the citation when cited, else the status and every
        occurrence."""
        if self.status == "cited":
            return self.citation_json()
        shown: dict[str, Any] = {
            "status": self.status,
            "version_id": self.version_id,
            "occurrences": [o.as_json() for o in self.occurrences],
        }
        if self.nearest is not None:
            shown["nearest_machine_read"] = self.nearest.as_json()
        return shown

    def citation_json(self) -> dict[str, Any]:
        """The citation in the workbench JSON format `workbench verify` reads (no other field: that
        reader refuses unknown ones). `occurrence` is given only when the quote occurs more than
        once, where the verifier needs it."""
        if self.citation is None:
            raise CitationError(f"{self.version_id}: the quote was not cited ({self.status})")
        c = self.citation
        record: dict[str, Any] = {
            "version_id": c.version_id,
            "char_start": c.char_start,
            "char_end": c.char_end,
            "quoted_text": c.quoted_text,
        }
        if self.by_headers and self.cell is not None:  # the headers name the cell, not a count
            record |= _header_fields(self.cell)
        elif c.occurrence is not None:
            record["occurrence"] = c.occurrence
        return record


def _header_fields(cell: TableCell) -> dict[str, str]:
    """A certain cell's innermost headers, as a citation names them (`cite.cell_headers`)."""
    fields = {"row_header": cell.row_header[-1:], "column_header": cell.column_header[-1:]}
    return {name: words[0] for name, words in fields.items() if words}


@dataclass(frozen=True, slots=True, kw_only=True)
class Holding:
    """One version of a family and the quote's occurrences in it (empty: it does not hold it);
    `footnotes`, the words of the notes that qualify them (C20), in text order, each once."""

    version_id: str
    version_label: str
    version_order: int
    occurrences: tuple[Occurrence, ...]
    footnotes: tuple[str, ...] = ()

    @property
    def holds(self) -> bool:
        return bool(self.occurrences)


@dataclass(frozen=True, slots=True, kw_only=True)
class QuoteHistory:
    """A quote's life in a family: every held version, in version order, with its occurrences."""

    family: str
    quoted_text: str
    versions: tuple[Holding, ...]

    @property
    def holding(self) -> tuple[Holding, ...]:
        return tuple(h for h in self.versions if h.holds)

    @property
    def first_holding(self) -> str | None:
        """The earliest version (by version order) that holds the quote, or None."""
        return self.holding[0].version_id if self.holding else None

    @property
    def last_holding(self) -> str | None:
        """The latest version that holds the quote, or None."""
        return self.holding[-1].version_id if self.holding else None

    @property
    def latest_holds(self) -> bool:
        """Whether the family's latest held version holds the quote."""
        return bool(self.versions) and self.versions[-1].holds

    def footnote_changed(self, holding: Holding) -> bool:
        """Whether `holding` holds the quote and the notes qualifying it differ from those of the
        previous version that holds it (the quote unchanged, its footnote not)."""
        before = [h for h in self.holding if h.version_order < holding.version_order]
        return holding.holds and bool(before) and before[-1].footnotes != holding.footnotes

    def as_json(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "quoted_text": self.quoted_text,
            "first_holding": self.first_holding,
            "last_holding": self.last_holding,
            "latest_holds": self.latest_holds,
            "versions": [
                {
                    "version_id": h.version_id,
                    "version_label": h.version_label,
                    "version_order": h.version_order,
                    "holds": h.holds,
                    "occurrences": [o.as_json() for o in h.occurrences],
                    # A quote no note qualifies prints as it always did.
                    **({"footnotes": list(h.footnotes)} if h.footnotes else {}),
                    **({"footnote_changed": True} if self.footnote_changed(h) else {}),
                }
                for h in self.versions
            ],
        }


# ---------------------------------------------------------------------------------------------
# The search and where an occurrence stands


def check_quote(quote: str) -> None:
    if not isinstance(quote, str) or not normalized_text(quote).strip(DELETABLE):
        raise CitationError(
            f"quote {str(quote)[:40]!r}: holds no words once normalized; expected verbatim words"
        )


def held_index(workspace: Workspace, version_id: str) -> SourceIndex:
    """The version's index, after its stored text is hashed against the recorded text sha256."""
    stored, recorded = workspace.text_bytes(version_id)
    sha = text_sha256(stored)
    if sha != recorded:
        raise CorpusChanged(
            f"{version_id}: stored text hashes to {sha}; the version was recorded with text "
            f"sha256 {recorded}"
        )
    return source_index(stored, sha)


class _Places:
    """Where raw offsets stand in one version: its passages (read through the shipped profile of
    its jurisdiction and family, segmented on first use) and its pages (`models.span_pages`)."""

    def __init__(self, version: Version) -> None:
        self.version = version
        self._passages: tuple[Any, ...] | None = None

    def occurrence(self, number: int, span: tuple[int, int]) -> Occurrence:
        start, end = span
        text = self.version.text
        label, path = self._section(start)
        page, end_page = span_pages(self.version.pages, start, end) or (None, None)
        return Occurrence(
            version_id=self.version.version_id,
            occurrence=number,
            char_start=start,
            char_end=end,
            section_label=label,
            section_path=path,
            page=page,
            end_page=end_page,
            before=" ".join(text[max(0, start - CONTEXT_CHARS) : start].split()),
            after=" ".join(text[end : end + CONTEXT_CHARS].split()),
        )

    def _section(self, at: int) -> tuple[str | None, tuple[str, ...]]:
        """The passage holding offset `at` (or, in the white space between two passages, the
        next one): its own label, else the nearest labelled passage before it, and its path."""
        if self._passages is None:
            self._passages = segment_version(self.version)
        passages = self._passages
        if not passages:
            return None, ()
        k = bisect_right([p.char_start for p in passages], at) - 1
        if k < 0 or at >= passages[k].char_end:
            k = min(k + 1, len(passages) - 1)
        passage = passages[k]
        label = passage.section_label
        j = k
        while label is None and j > 0:
            j -= 1
            label = passages[j].section_label
        return label, tuple(passage.path or ())


def located(version: Version, spans: Sequence[tuple[int, int]]) -> tuple[Occurrence, ...]:
    places = _Places(version)
    return tuple(places.occurrence(n, span) for n, span in enumerate(spans, start=1))


# ---------------------------------------------------------------------------------------------
# cite


def cite_quote(
    workspace: Workspace, quote: str, version_id: str, *, occurrence: int | None = None
) -> QuoteCitation:
    """Make `quote` into a citation of `version_id`.

    The quote is searched exactly in the version (after its text hash is checked). One
    occurrence, or a named `occurrence` (1-based) that exists: a citation of its raw offsets,
    carrying the quote as given and the occurrence number whenever the quote occurs more than
    once; it is then verified by the rule (`verify_citations`), and a citation the rule refuses is
    never returned as cited. Several occurrences and none named: `ambiguous`, every one listed
    with offsets, section and context. Raises `CitationError` for an empty quote or an occurrence
    that is not a positive integer, `VersionNotFound` for a version not held.
    """
    check_quote(quote)
    if occurrence is not None and (type(occurrence) is not int or occurrence < 1):
        raise CitationError(f"occurrence {occurrence!r}: expected a positive integer")
    index = held_index(workspace, version_id)
    rule, spans = find_text(index, quote, occurrence)  # the occurrence rule (C6), in cite
    version = workspace.version(version_id)
    found = located(version, spans)
    status: CiteStatus = _CITE_STATUS[rule]
    citation = verification = cell = None
    by_headers = False
    if status == "cited":
        chosen = occurrence or 1
        start, end = spans[chosen - 1]
        citation = Citation(
            version_id=version_id,
            char_start=start,
            char_end=end,
            quoted_text=quote,
            occurrence=chosen if len(spans) > 1 else None,
        )
        (verification,) = verify_citations(workspace, (citation,))
        if not verification.verified:  # pragma: no cover - the search and the rule agree
            raise AssertionError(f"{version_id}: a found quote was refused: {verification.detail}")
        cell = cell_at(workspace, version, start, end)
        if cell is not None and cell.doubt is None and _header_fields(cell):
            named_cell = Citation(
                version_id=version_id,
                char_start=start,
                char_end=end,
                quoted_text=quote,
                row_header=_header_fields(cell).get("row_header"),
                column_header=_header_fields(cell).get("column_header"),
            )
            (by_cell,) = verify_citations(workspace, (named_cell,))
            by_headers = by_cell.verified
    return QuoteCitation(
        version_id=version_id,
        quoted_text=quote,
        status=status,
        named=occurrence,
        occurrences=found,
        citation=citation,
        verification=verification,
        nearest=machine_read_nearest(workspace, version, quote) if status == "not_found" else None,
        cell=cell,
        by_headers=by_headers,
    )


def cell_at(
    workspace: Workspace, version: Version, char_start: int, char_end: int
) -> TableCell | None:
    """The table cell of `version` whose whole value is `[char_start, char_end)` (white space at
    either end aside), or None (no table read, or no such cell); its tables as `workspace` keeps
    them (`workspace.parts.held_tables`)."""
    tables = held_tables(workspace, version)
    text = version.text
    span = text[char_start:char_end].strip()
    at = char_start + len(text[char_start:char_end]) - len(text[char_start:char_end].lstrip())
    return next(
        (
            c
            for t in tables or ()
            for c in t.cells
            if (c.char_start, c.char_end) == (at, at + len(span))
        ),
        None,
    )


def annotation_of(workspace: Workspace, cited: QuoteCitation) -> dict[str, Any]:
    """A cited quote as a W3C Web Annotation, by the citation formats' own writer."""
    from workbench.cite.w3c import annotation

    if cited.verification is None:
        raise CitationError(f"{cited.version_id}: the quote was not cited ({cited.status})")
    return annotation(held_index(workspace, cited.version_id), cited.verification)


# ---------------------------------------------------------------------------------------------
# history


def family_versions(workspace: Workspace, family: str) -> tuple[Version, ...]:
    """The family's held versions in version order (FamilyNotFound when none is held)."""
    return workspace.versions(family)


def quote_history(
    workspace: Workspace, quote: str, family: str, *, among: Collection[str] | None = None
) -> QuoteHistory:
    """The quote's occurrences in every held version of `family` (only those `among` names,
    when given: the releases published by a date, `asof.AsOf.releases`), in version order.

    Each version's text hash is checked, then the quote is searched in it exactly; a version that
    does not hold it is listed with no occurrences. First and last holding version are by version
    order; whether the latest holds it is read off the last version listed. Raises
    `CitationError` for an empty quote and `FamilyNotFound` for a family not held.
    """
    check_quote(quote)
    holdings = []
    for version in family_versions(workspace, family):
        if among is not None and version.version_id not in among:
            continue
        spans = occurrence_spans(held_index(workspace, version.version_id), quote)
        holdings.append(
            Holding(
                version_id=version.version_id,
                version_label=version.version_label,
                version_order=version.version_order,
                occurrences=located(version, spans),
                footnotes=qualifying_notes(workspace, version, spans),
            )
        )
    return QuoteHistory(family=family, quoted_text=quote, versions=tuple(holdings))


def qualifying_notes(
    workspace: Workspace, version: Version, spans: Sequence[tuple[int, int]]
) -> tuple[str, ...]:
    """The words of the notes qualifying any of `spans` (`notes_qualifying`), each once, from the
    footnote reading `workspace` keeps (`workspace.parts.held_footnotes`)."""
    reading = held_footnotes(workspace, version) if spans else None
    if reading is None:
        return ()
    notes = dict.fromkeys(n for a, b in spans for n in reading.notes_qualifying(a, b))
    return tuple(note_words(n, version.text) for n in notes)


# ---------------------------------------------------------------------------------------------
# Printouts (the command line prints these; a notebook may too)


def where_phrase(o: Occurrence) -> str:
    """An occurrence's offsets, section and page, as one phrase."""
    section = o.section_label or "-"
    if o.section_path:
        section += f" (in {' > '.join(o.section_path)})"
    pages = ""
    if o.page is not None:
        pages = f", page {o.page}" + (f"-{o.end_page}" if o.end_page != o.page else "")
    return f"[{o.char_start}, {o.char_end}) section {section}{pages}"


# `workbench cite` lists at most this many occurrences of an unnamed quote in text (all in --json).
LISTED_OCCURRENCES = 10


def cite_lines(cited: QuoteCitation) -> tuple[str, ...]:
    """`workbench cite`'s text printout: the outcome, then the occurrences with their context:
    the named one alone when `--occurrence` chose it, else the first `LISTED_OCCURRENCES` and how
    many more."""
    n = len(cited.occurrences)
    head = {
        "cited": f"cited: {cited.version_id}",
        "ambiguous": f"refused: the quote occurs {n} times in {cited.version_id}; name one with "
        "--occurrence N",
        "no_such_occurrence": f"refused: occurrence {cited.named} is named; {cited.version_id} "
        f"holds the quote {counted(n, 'time')}",
        "not_found": f"refused: {cited.version_id} does not hold the quote (exact search, after "
        "the one normalization); to find where similar words stand, try "
        f"'workbench search QUOTE' (candidates, never evidence)",
    }[cited.status]
    if cited.nearest is not None:
        near = cited.nearest
        where = ""
        if near.pages:
            first, last = near.pages
            where = f", page {first}" + (f"-{last}" if last != first else "")
        head = (
            f"refused: {cited.version_id} does not hold the quote (exact search, after the one "
            f"normalization); its text there was read by a machine ({', '.join(near.origins)}), "
            f"not drawn by the filing: the nearest words, at [{near.char_start}, "
            f"{near.char_end}){where}, read {' '.join(near.text.split())[:160]!r} (a suggestion, "
            f"never evidence); compare them with the page image: {near.next_step(cited.version_id)}"
        )
    caveats = cited.verification.caveats if cited.verification is not None else ()
    if caveats:  # verified, never plainly: each caveat on a line of its own (C6)
        head += ", verified with caveats"
    out = [head, *(f"  {caveat.line()}" for caveat in caveats)]
    if cited.cell is not None:
        out.append(f"  {cell_line(cited.cell)}")
    shown = cited.occurrences
    if cited.named is not None and cited.citation is not None:  # the one asked for, alone
        shown = tuple(o for o in shown if o.char_start == cited.citation.char_start)
    for o in shown[:LISTED_OCCURRENCES]:
        chosen = cited.citation is not None and cited.citation.char_start == o.char_start
        mark = "*" if chosen else " "
        out.append(f" {mark}occurrence {o.occurrence} of {n}: {where_phrase(o)}")
        out.append(f"    …{o.before} [quote] {o.after}…")
    if len(shown) > LISTED_OCCURRENCES:
        out.append(
            f"  … and {len(shown) - LISTED_OCCURRENCES} more (every one: --json); "
            "name one with --occurrence N"
        )
    return tuple(out)


def cell_line(cell: TableCell) -> str:
    """A cited table cell's headers, each at its raw offsets, or why they are in doubt."""
    if cell.doubt is not None:
        return f"table cell, header in doubt: {cell.doubt}"

    def shown(words: tuple[str, ...], spans: tuple[tuple[int, int], ...]) -> str:
        return (
            " / ".join(f"{w!r} [{a}, {b})" for w, (a, b) in zip(words, spans, strict=True))
            or "none"
        )

    return (
        f"table cell row {cell.row}, column {cell.column}: row header "
        f"{shown(cell.row_header, cell.row_header_spans)}, column header "
        f"{shown(cell.column_header, cell.column_header_spans)}"
    )


def history_lines(life: QuoteHistory) -> tuple[str, ...]:
    """`workbench history`'s text printout: one line per version, then the summary."""
    out = []
    for h in life.versions:
        if not h.holds:
            out.append(f"  -  {h.version_id}  does not hold it")
            continue
        for o in h.occurrences:
            out.append(f"  +  {h.version_id}  {where_phrase(o)}")
        if life.footnote_changed(h):
            notes = "; ".join(repr(w[:60]) for w in h.footnotes) or "no note"
            out.append(f"     the quote's footnote changed here: {notes}")
    out.append(
        f"{life.family}: {len(life.holding)} of {len(life.versions)} versions hold the quote; "
        f"first {life.first_holding or '-'}, last {life.last_holding or '-'}; "
        f"the latest {'holds' if life.latest_holds else 'does not hold'} it"
    )
    return tuple(out)
