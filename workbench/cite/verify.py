"""Exact citation verification (C5, C6, C14): `decide`, the one function that reaches every verdict,
reads like the contract from top to bottom: verified (plainly or with caveats), refused with the
first reason that fails, or resolved. It imports nothing built on it; docs/verification.md states
the checks, their order and the caveats."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from workbench.cite.hints import Locator, listed, mismatch_hint, occurrence_step
from workbench.cite.index import (
    DELETABLE,
    SourceIndex,
    counted_spans,
    interior_points,
    reads_as,
    source_index,
)
from workbench.cite.qualifiers import QualifierFlag, qualifiers_inside, qualifiers_near
from workbench.errors import CitationError, VersionNotFound
from workbench.models import MACHINE_READ, TextOrigins, text_sha256
from workbench.text.normal_form import Normalized
from workbench.text.normalize import normalize, normalized_text

if TYPE_CHECKING:  # read from the held artefact only where a version has them (C20)
    from workbench.text.footnotes import FootnoteReading
    from workbench.text.table_cells import Table

if TYPE_CHECKING:  # the workspace is only read through the object a caller hands in
    from workbench.workspace import Workspace

REASONS: dict[str, str] = {
    "unknown_version": "no version with that id is held (the detail names the command that lists "
    "the family's held versions)",
    "source_changed": "the stored text no longer hashes to the version's recorded text sha256, "
    "or the citation names a text sha256 other than the version's",
    "bad_offsets": "offsets are not integers, negative, reversed, or past the end of the text",
    "bad_occurrence": "the occurrence named is not a positive integer",
    "empty_quote": "the quote holds nothing but white space and hyphens once normalized",
    "quote_mismatch": "the text at the offsets, normalized, is not the quote under any reading",
    "context_mismatch": "the prefix/suffix given (W3C TextQuoteSelector) are not the text right "
    "before and after any occurrence",
    "ambiguous_occurrence": "the quote occurs more than once (after its prefix/suffix, if given) "
    "and no occurrence is named",
    "wrong_occurrence": "the occurrence named is not the one at the offsets",
    "cell_ambiguous": "the citation names a table cell's headers, and the span is not one cell's "
    "whole value, the cell's header is in doubt (a span or merged header), or no table is read",
    "header_mismatch": "a header the citation names is not the cell's header at its offsets",
}
CAVEATS: dict[str, str] = {
    "qualifier_omitted": "a marked omission (or a bracket) of the quote stands for source text "
    "holding a qualifier (not, unless, except, ...): the words quoted are there, the qualifier is not",
    "footnote_unquoted": "the quoted span holds (or ends right at) a footnote marker whose note it "
    "does not quote: the note may hold the exception (unless, except) that qualifies the words",
    "machine_read": "the quoted span touches text a machine read off a scanned image (origin "
    "invisible: an OCR layer under the scan; ocr: the workbench's own OCR): the words are in the "
    "text, but they are a reading of the image, not the filing's own words",
}
VERIFIED_MEANS = (
    "verified means the quoted words are at these offsets in this version; "
    "it does not mean that a reading drawn from them is right"
)
Outcome = Literal["verified", "refused", "resolved"]
OUTCOMES: tuple[Outcome, ...] = ("verified", "refused", "resolved")


@dataclass(frozen=True, slots=True, kw_only=True)
class Citation:
    """A claim that `quoted_text` stands at raw `[char_start, char_end)` of `version_id`.

    `occurrence` (1-based) names which occurrence of the quote the claim relied on. `prefix` and
    `suffix` (from a W3C TextQuoteSelector) name it by its surroundings instead. `text_sha256`, when
    the producer recorded it (our W3C export does), is the text the citation was made against.
    `alterations` reads the quote's marked omissions and bracketed insertions (`cite.alterations`);
    `section` names the section the quote must lie in, read through the version's numbering
    profile (`cite.pincites`). `position_only` marks a target that claims no quote (a W3C
    TextPositionSelector alone; `quoted_text` is then empty): it is resolved, never verified.
    `locator` says how the producer located the quote (`hints.Locator`), so a refusal's next step
    speaks its terms; it never changes the verdict.
    `row_header` and `column_header` name a table cell's headers (`cite.cell_headers`).
    """

    version_id: str
    char_start: int
    char_end: int
    quoted_text: str
    occurrence: int | None = None
    prefix: str | None = None
    suffix: str | None = None
    text_sha256: str | None = None
    alterations: bool = False
    section: str | None = None
    position_only: bool = False
    locator: Locator = "offsets"
    row_header: str | None = None
    column_header: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CaveatEvidence:
    """One piece of a caveat's evidence: a raw span of the version's text, the text there, what
    it shows (`note`, one line), and the caveat kind's own facts, as (name, value) pairs."""

    char_start: int
    char_end: int
    text: str
    note: str
    facts: tuple[tuple[str, str | int | float | None], ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {
            "char_start": self.char_start,
            "char_end": self.char_end,
            "text": self.text,
            "note": self.note,
            **({"facts": dict(self.facts)} if self.facts else {}),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Caveat:
    """Why a verified quote may not say what a reader takes it to say (`kind`, one of `CAVEATS`),
    with its evidence, in text order."""

    kind: str
    evidence: tuple[CaveatEvidence, ...]

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "evidence": [e.as_json() for e in self.evidence]}

    def line(self) -> str:
        """The caveat as `workbench verify` prints it under its verdict."""
        return f"caveat {self.kind}: " + "; ".join(e.note for e in self.evidence)


@dataclass(frozen=True, slots=True, kw_only=True)
class Verification:
    """The outcome for one citation. `actual_text` is the raw text at the offsets, when they are
    valid, so a reader sees a mismatch itself; `occurrences` are the raw spans of every counted
    occurrence (empty when counting was not reached); `occurrence` is the 1-based index of the one
    at the offsets. `caveats` are a verified verdict's (always empty otherwise)."""

    citation: Citation
    outcome: Outcome
    reason: str | None
    detail: str
    actual_text: str | None
    text_sha256: str | None
    occurrences: tuple[tuple[int, int], ...] = ()
    occurrence: int | None = None
    qualifiers: tuple[QualifierFlag, ...] = ()
    caveats: tuple[Caveat, ...] = ()

    @property
    def verified(self) -> bool:
        """Verified, with or without caveats: the words are at the offsets."""
        return self.outcome == "verified"

    @property
    def plainly_verified(self) -> bool:
        """Verified and carrying no caveat: the only verdict any count calls plainly verified."""
        return self.outcome == "verified" and not self.caveats

    @property
    def standing(self) -> str:
        """The verdict as counts keep it apart: `refused`, `resolved`, `verified` (plainly) or
        `verified with caveats`."""
        if self.outcome == "verified" and self.caveats:
            return "verified with caveats"
        return self.outcome


@dataclass(frozen=True, slots=True, kw_only=True)
class HeldText:
    """What the workspace holds for one version id, read once per batch: the hash it recorded
    (None: no such version), the hash of the text it stores now, and that text's index (None
    unless the two hashes agree, or no hash was recorded: a bare text given to `verify_citation`).
    `origins` are the version's recorded text origins (C18; None: none recorded, as for a bare
    text), which the `machine_read` caveat is read from; `footnotes` the version's footnote
    reading (C20; None: none read), which the `footnote_unquoted` caveat is read from; `tables`
    its tables (None: none read), against which a cell citation's headers are checked."""

    version_id: str
    recorded_sha256: str | None
    stored_sha256: str | None
    index: SourceIndex | None
    origins: TextOrigins | None = None
    footnotes: FootnoteReading | None = None
    tables: tuple[Table, ...] | None = None


# ---------------------------------------------------------------------------------------------
# The rule


def decide(held: HeldText, citation: Citation) -> Verification:
    """The verdict on `citation` against the version text `held`, by contract C6, in this order."""

    def refused(
        reason: str,
        detail: str,
        actual: str | None = None,
        occurrences: tuple[tuple[int, int], ...] = (),
        occurrence: int | None = None,
    ) -> Verification:
        return Verification(
            citation=citation,
            outcome="refused",
            reason=reason,
            detail=detail,
            actual_text=actual,
            text_sha256=held.stored_sha256,
            occurrences=occurrences,
            occurrence=occurrence,
        )

    # 1. The version's text hash: the text held now is the text the version was recorded with,
    # and the one the citation was made against, if it names one.
    if held.recorded_sha256 is None and held.index is None:
        return refused("unknown_version", unknown_version_detail(citation.version_id))
    if held.index is None:
        return refused(
            "source_changed",
            f"{citation.version_id}: stored text hashes to {held.stored_sha256}; the version was "
            f"recorded with text sha256 {held.recorded_sha256}",
        )
    index = held.index
    if citation.text_sha256 is not None and citation.text_sha256 != index.text_sha256:
        return refused(
            "source_changed",
            f"the citation was made against text sha256 {citation.text_sha256}; "
            f"{citation.version_id} holds {index.text_sha256}",
        )
    if not isinstance(citation.quoted_text, str) or not isinstance(citation.version_id, str):
        raise CitationError(
            f"{citation.version_id!r}: version_id and quoted_text must be strings, got "
            f"{type(citation.version_id).__name__} and {type(citation.quoted_text).__name__}"
        )
    # 2. The offsets.
    problem = _offsets_problem(citation, len(index.text))
    if problem:
        return refused("bad_offsets", problem)
    # 3. The slice: the raw text at the offsets, which every later refusal shows.
    start, end = citation.char_start, citation.char_end
    actual = index.text[start:end]
    if citation.position_only:  # a target that claims no quote: read and shown, nothing verified
        return Verification(
            citation=citation,
            outcome="resolved",
            reason=None,
            detail=f"[{start}, {end}) read ({end - start} characters); the target claims no "
            "quote, so nothing is verified",
            actual_text=actual,
            text_sha256=index.text_sha256,
        )
    named = citation.occurrence
    if named is not None and (type(named) is not int or named < 1):
        return refused(
            "bad_occurrence", f"occurrence {named!r} is not a positive integer", actual=actual
        )
    quote = normalized_text(citation.quoted_text)
    if not quote.strip(DELETABLE):
        return refused(
            "empty_quote",
            f"quoted_text {citation.quoted_text[:40]!r} holds no words once normalized",
            actual=actual,
        )
    # 4. The readings: the slice, normalized on its own, reads as the quote.
    sliced = quote if actual == citation.quoted_text else _reading(actual, quote)
    if sliced is None:
        return refused(
            "quote_mismatch",
            f"the text at [{start}, {end}) does not read as the quote"
            + mismatch_hint(
                index, quote, actual, marks_read=citation.alterations, locator=citation.locator
            ),
            actual=actual,
        )
    # 5. The occurrences: every place the quote occurs in the version, the cited one among them.
    folded = index.normalized
    counted = counted_spans(index, quote)
    image = _image(folded, start, end, sliced)
    if image not in counted:  # pragma: no cover - guarded by the property tests
        raise AssertionError(
            f"{citation.version_id}: verified span [{start}, {end}) missing from its own occurrences"
        )
    cited = counted.index(image) + 1
    spans = folded.raw_spans(counted)
    if named is None and (citation.prefix is not None or citation.suffix is not None):
        around = context_occurrences(folded.text, counted, citation.prefix, citation.suffix)
        if not around:
            return refused(
                "context_mismatch",
                f"prefix {citation.prefix!r} and suffix {citation.suffix!r} are not the text "
                f"right before and after any of the quote's {len(counted)} occurrence(s)",
                actual=actual,
                occurrences=spans,
                occurrence=cited,
            )
        if len(around) == 1:
            named = around[0]
        else:  # the context narrowed the count: a refusal reports the occurrences it leaves
            spans = tuple(spans[i - 1] for i in around)
    # 5b. A cell citation (C20): the headers it names, checked at their offsets, leave as the
    # occurrences the cells of that value under them.
    headers = ""
    if citation.row_header is not None or citation.column_header is not None:
        from workbench.cite.cell_headers import check_cell  # loaded with the first cell citation

        cell = check_cell(
            held.tables, index.text, start, end, quote, citation.row_header, citation.column_header
        )
        if cell.reason is not None or cell.cell is None:
            return refused(cell.reason or "cell_ambiguous", cell.detail, actual, spans, cited)
        spans = cell.occurrences
        cited = spans.index((cell.cell.char_start, cell.cell.char_end)) + 1
        headers = f"; the cell stands under {cell.detail}"
    # 6. The decision.
    if named is None and len(spans) > 1:
        return refused(
            "ambiguous_occurrence",
            f"the quote occurs {len(spans)} times"
            + (
                f" with that prefix and suffix (of {len(counted)} in the version)"
                if len(spans) < len(counted)
                else ""
            )
            + f"; the offsets are occurrence {cited}, and no occurrence is named; it occurs at "
            f"{listed(spans)}: {occurrence_step(citation.locator, cited)}",
            actual,
            spans,
            cited,
        )
    if named is not None and named != cited:
        return refused(
            "wrong_occurrence",
            f"occurrence {named} is named; the offsets are occurrence {cited} of {len(spans)}"
            + (
                f"; occurrence {named} is at {listed(spans[named - 1 : named])}"
                if named <= len(spans)
                else f"; there is no occurrence {named}"
            )
            + f': cite those offsets, or name "occurrence": {cited} for these',
            actual,
            spans,
            cited,
        )
    # 7. The qualifiers left out of the quote, and whether a machine read its words: neither ever
    # changes the verdict.
    machine = machine_read_caveat(held.origins, index.text, start, end)
    unquoted = footnote_unquoted_caveat(held.footnotes, index, start, end)
    return Verification(
        citation=citation,
        outcome="verified",
        reason=None,
        detail=f"occurrence {cited} of {len(spans)}{headers}",
        actual_text=actual,
        text_sha256=index.text_sha256,
        occurrences=spans,
        occurrence=cited,
        qualifiers=qualifiers_near(index, *image),
        caveats=tuple(c for c in (machine, unquoted) if c is not None),
    )


def _reading(actual: str, quote: str) -> str | None:
    """The raw slice `actual`, normalized on its own, if some reading of it equals the normalized
    `quote` (as written, which is always one, or another at a line-break hyphen); else None."""
    written = normalized_text(actual)
    if written == quote:
        return written
    sliced = normalize(actual)
    points = interior_points(sliced.line_break_hyphens, 0, len(sliced.text))
    return written if points and reads_as(sliced.text, points, quote) else None


def _offsets_problem(citation: Citation, length: int) -> str | None:
    start, end = citation.char_start, citation.char_end
    for name, value in (("char_start", start), ("char_end", end)):
        if type(value) is not int:
            return f"{name} {value!r} is not an integer"
    if start < 0:
        return f"char_start {start} is negative"
    if start > end:
        return f"char_start {start} is after char_end {end}"
    if end > length:
        return f"char_end {end} is past the end of the text ({length} characters)"
    return None


def _image(normalized: Normalized, char_start: int, char_end: int, sliced: str) -> tuple[int, int]:
    """Normalized span standing for raw `[char_start, char_end)` whose slice normalized to
    `sliced`: the characters produced from raw characters inside it, and a folded space only where
    the slice itself kept one (a slice may cut a white-space run down to removed characters)."""
    raw_starts, raw_lens, norm_starts = (
        normalized.raw_starts,
        normalized.raw_lens,
        normalized.norm_starts,
    )
    total = len(normalized.text)
    k = bisect_right(raw_starts, char_start) - 1
    if k >= 0 and char_start < raw_starts[k] + raw_lens[k]:
        if normalized.identity[k]:
            start = norm_starts[k] + (char_start - raw_starts[k])
        else:
            start = norm_starts[k]
            if raw_starts[k] < char_start and not sliced.startswith(" "):
                start += 1
    else:
        start = norm_starts[k + 1] if k + 1 < len(norm_starts) else total
    k = bisect_right(raw_starts, char_end - 1) - 1
    segment_end = norm_starts[k + 1] if k + 1 < len(norm_starts) else total
    if char_end - 1 < raw_starts[k] + raw_lens[k]:
        if normalized.identity[k]:
            end = norm_starts[k] + (char_end - 1 - raw_starts[k]) + 1
        else:
            end = segment_end
            if char_end < raw_starts[k] + raw_lens[k] and not sliced.endswith(" "):
                end -= 1
    else:
        end = segment_end
    return start, end


def context_occurrences(
    text: str, counted: list[tuple[int, int]], prefix: str | None, suffix: str | None
) -> list[int]:
    """The 1-based numbers of the occurrences (normalized spans `counted` of the normalized
    `text`) that `prefix` and `suffix` surround: the normalized prefix must be the text immediately
    before the occurrence and the normalized suffix the text immediately after it, compared
    exactly (W3C TextQuoteSelector): no white space is skipped at either join, so on `lorem ipsum
    dolor amet` the quote `dolor` with suffix `a` is not surrounded, and with suffix ` a` it is.
    A missing prefix or suffix, or an empty one, matches anything. Compared in place: nothing is
    copied, however long the text."""
    before = normalized_text(prefix or "")
    after = normalized_text(suffix or "")
    return [
        number
        for number, (start, end) in enumerate(counted, 1)
        if text.endswith(before, 0, start) and text.startswith(after, end)
    ]


def unknown_version_detail(version_id: str) -> str:
    """What an `unknown_version` refusal says: that no such version is held, and the command that
    lists what is (`workbench versions FAMILY` for an id in catalogue form
    `jurisdiction/family/file`, else `workbench families`). It depends on the id alone, so a
    bundle's verdict re-checks the same wherever it is re-read."""
    parts = version_id.split("/") if isinstance(version_id, str) else []
    if len(parts) == 3 and all(parts):
        return (
            f"{version_id}: no such version is held; the held versions of its family are listed "
            f"by 'workbench versions {parts[1]}'"
        )
    return f"{version_id}: no such version is held; the held families are listed by 'workbench families'"


# ---------------------------------------------------------------------------------------------
# The text a verdict is decided against


def machine_read_caveat(
    origins: TextOrigins | None, text: str, char_start: int, char_end: int
) -> Caveat | None:
    """The `machine_read` caveat of the span `[char_start, char_end)` of `text`, or None when the
    span touches no machine-read text (or no origins are recorded).

    One piece of evidence per machine-read origin the span touches (`invisible`, then `ocr`): the
    stretch of the span from its first to its last character of that origin, and the origin named.
    For `ocr` it names the engine build(s) and languages of the pages read, and the mean
    confidence (0 to 100, to one decimal) of the OCR words the span touches, with their count.
    """
    if origins is None:
        return None
    evidence = []
    for origin in origins.touched(char_start, char_end):
        if origin not in MACHINE_READ:
            continue
        runs = [
            r
            for r in origins.runs
            if r.origin == origin and r.char_start < char_end and r.char_end > char_start
        ]
        a, b = max(runs[0].char_start, char_start), min(runs[-1].char_end, char_end)
        if origin == "invisible":
            note = (
                f"[{a}, {b}) is invisible text: an OCR layer under a scanned image, someone "
                "else's machine reading (it carries no confidences)"
            )
            facts: tuple[tuple[str, str | int | float | None], ...] = (("origin", origin),)
        else:
            read = [
                (word.confidence, page.ocr)
                for page in origins.pages
                if page.ocr is not None
                for word in page.ocr.words
                if word.char_start < char_end and word.char_end > char_start
            ]
            engines = ", ".join(sorted({f"{o.engine} ({o.languages})" for _, o in read}))
            mean = round(sum(c for c, _ in read) / len(read), 1) if read else None
            note = (
                f"[{a}, {b}) is the workbench's own OCR of a scanned image, read by "
                f"{engines or 'an engine not recorded'}; mean confidence {mean} over the "
                f"{len(read)} words the span touches"
            )
            facts = (
                ("origin", origin),
                ("engine", engines or None),
                ("mean_confidence", mean),
                ("words", len(read)),
            )
        evidence.append(
            CaveatEvidence(char_start=a, char_end=b, text=text[a:b], note=note, facts=facts)
        )
    return Caveat(kind="machine_read", evidence=tuple(evidence)) if evidence else None


def footnote_unquoted_caveat(
    footnotes: FootnoteReading | None, index: SourceIndex, char_start: int, char_end: int
) -> Caveat | None:
    """The `footnote_unquoted` caveat of `[char_start, char_end)`, or None: one piece of evidence
    per note that qualifies the span (`FootnoteReading.notes_qualifying`: a marker inside it or
    right at its end) and is not wholly inside it, in text order: its raw span and words, label,
    marker and the qualifier words (`qualifiers_inside`) its text holds."""
    evidence = []
    for note in footnotes.notes_qualifying(char_start, char_end) if footnotes else ():
        a, b = note.char_start, note.char_end
        if all(char_start <= x < y <= char_end for x, y in note.spans):
            continue
        marker = next(f"[{m}, {n})" for m, n in note.anchors if char_start <= m <= char_end)
        spans = [(x, y, normalized_text(index.text[x:y])) for x, y in note.spans]
        images = (_image(index.normalized, *span) for span in spans)
        found = ", ".join(
            dict.fromkeys(w.word for i in images for w in qualifiers_inside(index, *i))
        )
        words = " ".join(" ".join(index.text[x:y] for x, y, _ in spans).split())
        runs_on = ", ".join(f"[{x}, {y})" for x, y in note.continued)
        note_line = (
            f"[{a}, {b}) is footnote {note.label or '(unlabelled)'}"
            + (f" (run on at {runs_on})" if runs_on else "")
            + f", whose marker at {marker} the quote holds, unquoted: {words[:80]!r}"
            + (f"; it holds {found}" if found else "")
        )
        more = (("continued", runs_on),) if runs_on else ()
        facts = (("label", note.label), ("marker", marker), ("qualifiers", found or None), *more)
        evidence.append(
            CaveatEvidence(
                char_start=a, char_end=b, text=index.text[a:b], note=note_line, facts=facts
            )
        )
    return Caveat(kind="footnote_unquoted", evidence=tuple(evidence)) if evidence else None


def held_text(workspace: Workspace, version_id: str) -> HeldText:
    """The version's stored text, hashed once against its recorded hash, its cached index, and
    its recorded text origins."""
    try:
        stored_bytes, recorded = workspace.text_bytes(version_id)
    except VersionNotFound:
        return HeldText(version_id=version_id, recorded_sha256=None, stored_sha256=None, index=None)
    stored = text_sha256(stored_bytes)
    return HeldText(
        version_id=version_id,
        recorded_sha256=recorded,
        stored_sha256=stored,
        index=source_index(stored_bytes, stored) if stored == recorded else None,
        origins=workspace.text_origins(version_id),
    )
