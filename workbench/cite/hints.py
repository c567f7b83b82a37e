"""The next step a refusal gives (C6): where a mismatched quote does occur, what small difference
refused it, and the held versions nearest an unknown id. Nothing here ever passes a quote."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from workbench.cite.index import SourceIndex, counted_spans
from workbench.text.normal_form import Normalized
from workbench.text.normalize import normalize

_LISTED = 10  # occurrences a refusal lists before it says how many more there are

# How a citation's producer located its quote: raw offsets (our JSON Lines, a model's character
# index), a W3C selector, or a block range of a document `workbench blocks` wrote. A refusal's next
# step is written in the locator's own terms.
Locator = Literal["offsets", "w3c", "blocks"]

_CORRECT = {
    "offsets": "correct the citation's offsets",
    "w3c": "correct the TextPositionSelector's start and end (or drop it: the quote alone places it)",
    "blocks": "cite the blocks that hold it (start_block_index, end_block_index)",
}


def occurrence_step(locator: Locator, cited: int) -> str:
    """The next step of an `ambiguous_occurrence` refusal, in the locator's terms: name the
    occurrence (offsets), narrow it by the TextQuoteSelector's context (W3C), or cite only the
    blocks that hold the one meant (blocks)."""
    if locator == "w3c":
        return (
            "give the TextQuoteSelector a prefix or suffix that only the one meant has (these "
            f"offsets are occurrence {cited})"
        )
    if locator == "blocks":
        return (
            "cite a block range that holds only the one meant, or quote more of its words (the "
            f"blocks cited hold occurrence {cited})"
        )
    return f'name the one meant with "occurrence": N (these offsets are "occurrence": {cited})'


# An ellipsis: "..." or ". . ." not followed by a further period (a fourth period before one stays
# with the words before it), or the one character "…"; either alone in brackets.
_ELLIPSIS = r"(?:\.\.\.(?!\.)|\. \. \.(?! ?\.)|…)"
# A mark of an altered quote: a bracketed ellipsis, a bracketed insertion (`inserted`), an ellipsis.
ALTERATION_MARK = re.compile(rf"\[ ?{_ELLIPSIS} ?\]|\[(?P<inserted>[^\[\]]*)\]|{_ELLIPSIS}")


def listed(spans: tuple[tuple[int, int], ...]) -> str:
    """Raw spans as a person reads them: `[a, b), [c, d)`, the first `_LISTED` and a count."""
    shown = ", ".join(f"[{a}, {b})" for a, b in spans[:_LISTED])
    return shown + (f" and {len(spans) - _LISTED} more" if len(spans) > _LISTED else "")


def mismatch_hint(
    index: SourceIndex,
    quote: str,
    actual: str,
    *,
    marks_read: bool = False,
    locator: Locator = "offsets",
) -> str:
    """What a refused quote's detail adds as a next step (the refusal stands): where the quote
    does occur exactly in the version, if anywhere (the offsets must be corrected; nothing
    passed); else, when the marks were not read (`marks_read` false) and the quote holds an
    alteration mark (`ALTERATION_MARK`: an ellipsis or a bracket), that `--alterations` reads
    them; else whether the slice differs only by white space at an end, or only at a line-break
    hyphen read in a way the rule does not allow."""
    folded = index.normalized
    found = tuple(folded.raw_span(s, e) for s, e in counted_spans(index, quote))
    if found:
        return (
            f"; the quote does occur exactly at {listed(found)} in this version: "
            f"{_CORRECT[locator]} (it is refused as cited)"
        )
    mark = None if marks_read else ALTERATION_MARK.search(quote)
    if mark is not None:
        return (
            f"; the quote holds {mark.group()!r}, an alteration mark the plain rule compares as "
            'written: to read its omissions and insertions, pass --alterations (or "alterations": '
            "true in the citation)"
        )
    written = normalize(actual)
    if written.text.strip(" ") == quote.strip(" "):
        return "; the two differ only by white space at an end"
    if written.line_break_hyphens and _any_hyphen_reading(written, quote):
        return (
            "; the two differ only at a line-break hyphen, which reads only joined, hyphen kept, "
            "or hyphen and space"
        )
    return ""


def _any_hyphen_reading(written: Normalized, quote: str) -> bool:
    """Whether `quote` is the normalized slice `written` read at its line-break hyphens in any of
    four ways (joined, hyphen kept, hyphen and space, space only), edges included."""
    pieces, at = [], 0
    for h in written.line_break_hyphens:
        pieces += [re.escape(written.text[at:h]), "-? ?"]
        at = h + 2
    pieces.append(re.escape(written.text[at:]))
    return re.fullmatch("".join(pieces), quote) is not None


NEAREST = 3  # held versions an unknown_version refusal names


def nearest_versions(version_id: str, held: Iterable[str]) -> tuple[str, ...]:
    """The held versions of `version_id`'s family nearest it by name, the next step after an
    `unknown_version` refusal: held ids in the same `jurisdiction/family/` folder, the ones whose
    file name shares the longest beginning with the requested one first, then by id; at most
    `NEAREST`. None for an id not in catalogue form."""
    folder, _, name = version_id.rpartition("/")
    if not folder or not name:
        return ()
    kin = [v for v in held if v.rpartition("/")[0] == folder and v != version_id]
    return tuple(
        sorted(
            kin,
            key=lambda v: (-_shared_start(v.rpartition("/")[2], name), v),
        )[:NEAREST]
    )


def _shared_start(a: str, b: str) -> int:
    """How many characters `a` and `b` share from their start."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n
