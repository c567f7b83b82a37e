"""Exact citation verification (DESIGN.md C5, C6, C14): verified, or refused with a reason.

A citation names a version, half-open raw offsets `[char_start, char_end)`, the quoted words, and
optionally which occurrence of them it relied on. It is verified only when the text at those
offsets, normalized, equals the normalized quote — by equality over the three readings of a
line-break hyphen, never by similarity — and the quote's occurrences in the version leave no doubt
which one is meant. No threshold, no re-anchoring, no stored verdict: every call re-reads the text.
The guarantee: `verified` means these words are at these offsets in this version. It does not mean
that a reading drawn from them is right; the qualifier scan flags a negation or condition the quote
leaves out, and never changes the verdict.

One function, `decide`, reaches every verdict, and reads like the contract from top to bottom:
the version's text hash, the offsets, the slice, its readings, the quote's occurrences (counted by
the one occurrence rule in `index`), the decision, the qualifiers. Checks run in that order, and
the first that fails is the reason: `unknown_version`, `source_changed`, `bad_offsets`,
`bad_occurrence`, `empty_quote`, `quote_mismatch`, `context_mismatch`, `ambiguous_occurrence`,
`wrong_occurrence`. `held_text` reads and hashes a version's stored text once and takes its index
from the cache (keyed by that hash). This module is the foundation of `cite` and imports nothing
built on it: the entry points that route a citation to the alteration rule or the section check
(`verify_citation`, `verify_citations`, `verify_for_version`) are in `cite.batch`, which only
shares work and hands every citation to `decide`.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from workbench.cite.hints import listed, mismatch_hint
from workbench.cite.index import (
    DELETABLE,
    SourceIndex,
    counted_spans,
    interior_points,
    reads_as,
    source_index,
)
from workbench.cite.qualifiers import QualifierFlag, qualifiers_near
from workbench.errors import CitationError, VersionNotFound
from workbench.models import text_sha256
from workbench.text.normalize import Normalized, normalize, normalized_text

if TYPE_CHECKING:  # the workspace is only read through the object a caller hands in
    from workbench.workspace import Workspace

REASONS: dict[str, str] = {
    "unknown_version": "no version with that id is held",
    "source_changed": "the stored text no longer hashes to the version's recorded text sha256, "
    "or the citation names a text sha256 other than the version's",
    "bad_offsets": "offsets are not integers, negative, reversed, or past the end of the text",
    "bad_occurrence": "the occurrence named is not a positive integer",
    "empty_quote": "the quote holds nothing but white space and hyphens once normalized",
    "quote_mismatch": "the text at the offsets, normalized, is not the quote under any reading",
    "context_mismatch": "the prefix/suffix given (W3C TextQuoteSelector) surround no occurrence",
    "ambiguous_occurrence": "the quote occurs more than once and no occurrence is named",
    "wrong_occurrence": "the occurrence named is not the one at the offsets",
}
VERIFIED_MEANS = (
    "verified means the quoted words are at these offsets in this version; "
    "it does not mean that a reading drawn from them is right"
)
Outcome = Literal["verified", "refused"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Citation:
    """A claim that `quoted_text` stands at raw `[char_start, char_end)` of `version_id`.

    `occurrence` (1-based) names which occurrence of the quote the claim relied on. `prefix` and
    `suffix` (from a W3C TextQuoteSelector) name it by its surroundings instead. `text_sha256`, when
    the producer recorded it (our W3C export does), is the text the citation was made against.
    `alterations` reads the quote's marked omissions and bracketed insertions (`cite.alterations`);
    `section` names the section the quote must lie in, read through the version's numbering
    profile (`cite.pincites`).
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


@dataclass(frozen=True, slots=True, kw_only=True)
class Verification:
    """The outcome for one citation. `actual_text` is the raw text at the offsets, when they are
    valid, so a reader sees a mismatch itself; `occurrences` are the raw spans of every counted
    occurrence (empty when counting was not reached); `occurrence` is the 1-based index of the one
    at the offsets."""

    citation: Citation
    outcome: Outcome
    reason: str | None
    detail: str
    actual_text: str | None
    text_sha256: str | None
    occurrences: tuple[tuple[int, int], ...] = ()
    occurrence: int | None = None
    qualifiers: tuple[QualifierFlag, ...] = ()

    @property
    def verified(self) -> bool:
        return self.outcome == "verified"


@dataclass(frozen=True, slots=True, kw_only=True)
class HeldText:
    """What the workspace holds for one version id, read once per batch: the hash it recorded
    (None: no such version), the hash of the text it stores now, and that text's index (None
    unless the two hashes agree, or no hash was recorded: a bare text given to `verify_citation`)."""

    version_id: str
    recorded_sha256: str | None
    stored_sha256: str | None
    index: SourceIndex | None


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
        return refused("unknown_version", f"{citation.version_id}: no such version is held")
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
            + mismatch_hint(index, quote, actual),
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
        before = normalized_text(citation.prefix or "").rstrip(" ")
        after = normalized_text(citation.suffix or "").lstrip(" ")
        around = [
            i
            for i, (s, e) in enumerate(counted, 1)
            if _context_matches(folded.text, s, e, before, after)
        ]
        if not around:
            return refused(
                "context_mismatch",
                f"prefix {citation.prefix!r} and suffix {citation.suffix!r} surround none of "
                f"the quote's {len(counted)} occurrence(s)",
                actual=actual,
                occurrences=spans,
                occurrence=cited,
            )
        if len(around) == 1:
            named = around[0]
    # 6. The decision.
    if named is None and len(spans) > 1:
        return refused(
            "ambiguous_occurrence",
            f"the quote occurs {len(spans)} times; the offsets are occurrence {cited}, "
            f"and no occurrence is named; it occurs at {listed(spans)}: name the one meant "
            f'with "occurrence": N (these offsets are "occurrence": {cited})',
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
    # 7. The qualifiers left out of the quote, which never change the verdict.
    return Verification(
        citation=citation,
        outcome="verified",
        reason=None,
        detail=f"occurrence {cited} of {len(spans)}",
        actual_text=actual,
        text_sha256=index.text_sha256,
        occurrences=spans,
        occurrence=cited,
        qualifiers=qualifiers_near(index, *image),
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


def _context_matches(text: str, start: int, end: int, before: str, after: str) -> bool:
    """True if `before` (a normalized prefix, without trailing spaces) ends just before `start` in
    the normalized `text` and `after` (a normalized suffix, without leading spaces) begins at
    `end`; white space at the two joins is not compared (a quote may begin or end inside a folded
    run). Compared in place: nothing is copied, however long the text."""
    while start and text[start - 1] == " ":
        start -= 1
    while end < len(text) and text[end] == " ":
        end += 1
    return text.endswith(before, 0, start) and text.startswith(after, end)


# ---------------------------------------------------------------------------------------------
# The text a verdict is decided against


def held_text(workspace: Workspace, version_id: str) -> HeldText:
    """The version's stored text, hashed once against its recorded hash, and its cached index."""
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
    )
