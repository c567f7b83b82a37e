"""Marked alterations (C17): a quote with omissions and bracketed insertions, verified fragment by
fragment by the rule (`decide_altered`), recording what each mark stands for. The marks, the rule's
order and its reasons are in docs/verification.md."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from typing import Literal

from workbench.cite.hints import ALTERATION_MARK
from workbench.cite.index import DELETABLE, SourceIndex, build_index, counted_spans
from workbench.cite.qualifiers import QualifierFlag, qualifiers_inside
from workbench.cite.verify import (
    Caveat,
    CaveatEvidence,
    Citation,
    HeldText,
    Outcome,
    Verification,
    decide,
)
from workbench.text.normalize import normalized_text

ALTERATION_REASONS: dict[str, str] = {
    "bad_alteration": "the quote's brackets do not pair up (with alterations on, every [ needs "
    "its ] and no bracket holds another)",
    "fragment_not_found": "a fragment of the altered quote occurs nowhere in the cited span",
    "fragment_out_of_order": "a fragment occurs in the cited span only before the end of the "
    "fragment the quote puts before it",
    "bracket_over_nothing": "a bracketed insertion stands where the source has no text between "
    "the fragments either side of it",
}
_FROM_THE_SPAN = ("actual_text", "text_sha256", "occurrences", "occurrence")
GapKind = Literal["omission", "insertion", "omission and insertion"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Alteration:
    """One gap of an altered quote: its marks as quoted (`marks`, e.g. `("…",)` or `("[T]",)`),
    the bracketed text it inserts (None for a bare omission), and the raw span of the source text it
    stands for, with that text."""

    kind: GapKind
    marks: tuple[str, ...]
    inserted: str | None
    char_start: int
    char_end: int
    source_text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class AlteredVerification(Verification):
    """A verdict on a citation with alterations on: the rule's fields, plus the raw spans of the
    fragments placed (in the quote's order) and the alterations, both empty when refused before
    the fragments were placed."""

    fragments: tuple[tuple[int, int], ...] = ()
    alterations: tuple[Alteration, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class _Gap:
    marks: tuple[str, ...]
    inserted: tuple[str, ...]
    omits: bool

    @property
    def kind(self) -> GapKind:
        if self.inserted and self.omits:
            return "omission and insertion"
        return "insertion" if self.inserted else "omission"


@dataclass(frozen=True, slots=True, kw_only=True)
class MarkedQuote:
    """A quote read for its marks: `fragments[i]` stands between `gaps[i]` and `gaps[i + 1]`;
    `gaps[0]` and `gaps[-1]` are None when the quote opens or closes with words."""

    fragments: tuple[str, ...]
    gaps: tuple[_Gap | None, ...]


def _gap(marks: list[re.Match[str]]) -> _Gap | None:
    if not marks:
        return None
    inserted = tuple(m.group("inserted") for m in marks if m.group("inserted") is not None)
    return _Gap(
        marks=tuple(m.group() for m in marks),
        inserted=inserted,
        omits=len(inserted) < len(marks),
    )


def read_marks(quote: str) -> MarkedQuote | str:
    """The normalized `quote` cut at its marks (docs/verification.md, The marks), or the detail of a
    `bad_alteration` when a bracket is left unpaired."""
    text = normalized_text(quote)
    pieces: list[str | re.Match[str]] = []
    at = 0
    for match in ALTERATION_MARK.finditer(text):
        pieces += [text[at : match.start()], match]
        at = match.end()
    pieces.append(text[at:])
    fragments: list[str] = []
    gaps: list[_Gap | None] = []
    marks: list[re.Match[str]] = []
    for piece in pieces:
        if not isinstance(piece, str):
            marks.append(piece)
            continue
        stray = re.search(r"[\[\]]", piece)
        if stray:
            return f"the quote's {stray.group()!r} in {piece.strip()[:40]!r} has no partner"
        words = piece.strip(" ")
        if words:
            gaps.append(_gap(marks))
            fragments.append(words)
            marks = []
    gaps.append(_gap(marks))
    return MarkedQuote(fragments=tuple(fragments), gaps=tuple(gaps))


def decide_altered(held: HeldText, citation: Citation) -> AlteredVerification:
    """The verdict on a citation with alterations on, against the version text `held`, by the
    module's rule in its order; a quote with no mark is decided by `decide` as it stands (its
    verdict carries no fragments and no alterations)."""
    index = held.index
    start, end = citation.char_start, citation.char_end
    spanned = (
        index is not None
        and isinstance(citation.quoted_text, str)
        and type(start) is int
        and type(end) is int
        and 0 <= start <= end <= len(index.text)
    )
    marked = read_marks(citation.quoted_text) if isinstance(citation.quoted_text, str) else ""
    unmarked = isinstance(marked, MarkedQuote) and marked.gaps == (None, None)
    if not spanned or unmarked:
        # The rule refuses a citation it cannot slice; an unmarked quote is the rule's alone.
        plain = decide(held, citation)
        return AlteredVerification(**{f.name: getattr(plain, f.name) for f in fields(plain)})
    assert index is not None
    actual = index.text[start:end]
    # 1. The cited span as a quote of itself.
    base = decide(held, replace(citation, quoted_text=actual))

    def verdict(
        reason: str | None,
        detail: str,
        fragments: tuple[tuple[int, int], ...] = (),
        alterations: tuple[Alteration, ...] = (),
        qualifiers: tuple[QualifierFlag, ...] = (),
        caveats: tuple[Caveat, ...] = (),
    ) -> AlteredVerification:
        # The span's hash, slice and occurrences are the rule's, read off its verdict.
        span = {name: getattr(base, name) for name in _FROM_THE_SPAN}
        outcome: Outcome = "verified" if reason is None else "refused"
        return AlteredVerification(
            citation=citation,
            outcome=outcome,
            reason=reason,
            detail=detail,
            **span,
            qualifiers=qualifiers,
            caveats=caveats,
            fragments=fragments,
            alterations=alterations,
        )

    if not base.verified:
        return verdict(base.reason, base.detail)
    # 2. The marks.
    if isinstance(marked, str):
        return verdict("bad_alteration", marked)
    if not any(f.strip(DELETABLE) for f in marked.fragments):
        return verdict("empty_quote", "the altered quote holds no words between its marks")
    # 3. The fragments, in the slice normalized on its own (as the rule reads a slice).
    sliced = build_index(actual)
    length = len(sliced.normalized.text)
    raw_span = sliced.normalized.raw_span
    placed: list[tuple[int, int]] = []
    cursor = 0
    last = len(marked.fragments) - 1
    for i, fragment in enumerate(marked.fragments):
        spans = counted_spans(sliced, fragment)
        anchor_start = i == 0 and marked.gaps[0] is None
        anchor_end = i == last and marked.gaps[-1] is None
        fits = [
            (s, e)
            for s, e in spans
            if s >= cursor and (not anchor_start or s == 0) and (not anchor_end or e == length)
        ]
        if fits:
            placed.append(fits[0])
            cursor = fits[0][1]
            continue
        where = _where(sliced, start, spans)
        if not spans:
            return verdict(
                "fragment_not_found",
                f"fragment {i + 1} of {last + 1}, {_short(fragment)}, occurs nowhere in "
                f"[{start}, {end})",
            )
        edge = "begin at the span's start" if anchor_start else "end at the span's end"
        if any(s >= cursor for s, _ in spans):  # in order, so only an anchor failed
            return verdict(
                "quote_mismatch",
                f"fragment {i + 1} of {last + 1}, {_short(fragment)}, does not {edge} (the quote "
                f"has no mark there); it stands at {where}",
            )
        return verdict(
            "fragment_out_of_order",
            f"fragment {i + 1} of {last + 1}, {_short(fragment)}, stands at {where}, none of "
            f"them after fragment {i}, which ends at {start + raw_span(*placed[-1])[1]}",
        )
    # 4. The gaps: what each stands for, and the brackets over it.
    raw = [(start + a, start + b) for a, b in (raw_span(s, e) for s, e in placed)]
    alterations: list[Alteration] = []
    flags = list(base.qualifiers)
    omitted: list[CaveatEvidence] = []
    for k, gap in enumerate(marked.gaps):
        if gap is None:
            continue
        gap_start = raw[k - 1][1] if k else start
        gap_end = raw[k][0] if k < len(raw) else end
        source = index.text[gap_start:gap_end]
        if gap.inserted and not source.strip():
            return verdict(
                "bracket_over_nothing",
                f"{' '.join(gap.marks)} stands at [{gap_start}, {gap_end}), where the source holds "
                f"{'nothing' if not source else 'only white space'} between the fragments",
            )
        alterations.append(
            Alteration(
                kind=gap.kind,
                marks=gap.marks,
                inserted=" ".join(gap.inserted) if gap.inserted else None,
                char_start=gap_start,
                char_end=gap_end,
                source_text=source,
            )
        )
        norm_start = placed[k - 1][1] if k else 0
        norm_end = placed[k][0] if k < len(placed) else length
        inside = [
            replace(flag, char_start=start + flag.char_start, char_end=start + flag.char_end)
            for flag in qualifiers_inside(sliced, norm_start, norm_end)
        ]
        flags += inside
        omitted += [_omitted(flag, alterations[-1], index.text) for flag in inside]
    return verdict(
        None,
        f"{base.detail}; {len(raw)} fragments, {len(alterations)} alterations",
        fragments=tuple(raw),
        alterations=tuple(alterations),
        qualifiers=tuple(sorted(flags, key=lambda f: (f.char_start, f.char_end))),
        # The span's own caveats (`machine_read`) first, then the alterations' own.
        caveats=base.caveats
        + ((Caveat(kind="qualifier_omitted", evidence=tuple(omitted)),) if omitted else ()),
    )


def _omitted(flag: QualifierFlag, gap: Alteration, text: str) -> CaveatEvidence:
    """A qualifier word inside the source text a gap stands for, as a caveat's evidence."""
    return CaveatEvidence(
        char_start=flag.char_start,
        char_end=flag.char_end,
        text=text[flag.char_start : flag.char_end],
        note=f"{flag.word!r} at [{flag.char_start}, {flag.char_end}) lies in what "
        f"{' '.join(gap.marks)} stands for, [{gap.char_start}, {gap.char_end})",
        facts=(
            ("word", flag.word),
            ("marks", " ".join(gap.marks)),
            ("omission_start", gap.char_start),
            ("omission_end", gap.char_end),
        ),
    )


def _short(fragment: str) -> str:
    return repr(fragment if len(fragment) <= 40 else fragment[:37] + "...")


def _where(sliced: SourceIndex, start: int, spans: list[tuple[int, int]]) -> str:
    """Where a fragment stands in the version, as raw spans (the first five)."""
    raw_span = sliced.normalized.raw_span
    shown = [raw_span(s, e) for s, e in spans[:5]]
    listed = ", ".join(f"[{start + a}, {start + b})" for a, b in shown)
    return listed + (f" and {len(spans) - 5} more" if len(spans) > 5 else "")
