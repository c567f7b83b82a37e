"""The next step a refusal gives: what a refused citation's detail adds so the researcher can fix
the citation (the verdict and its reason code stand; nothing here ever passes a quote).

`mismatch_hint` says where a quote that does not read at its offsets does occur exactly, or that
the difference is only white space at an end or a line-break hyphen read in a way the rule does
not allow; `listed` writes occurrences as a person reads them.
"""

from __future__ import annotations

import re

from workbench.cite.index import SourceIndex, counted_spans
from workbench.text.normalize import Normalized, normalize

_LISTED = 10  # occurrences a refusal lists before it says how many more there are


def listed(spans: tuple[tuple[int, int], ...]) -> str:
    """Raw spans as a person reads them: `[a, b), [c, d)`, the first `_LISTED` and a count."""
    shown = ", ".join(f"[{a}, {b})" for a, b in spans[:_LISTED])
    return shown + (f" and {len(spans) - _LISTED} more" if len(spans) > _LISTED else "")


def mismatch_hint(index: SourceIndex, quote: str, actual: str) -> str:
    """What a refused quote's detail adds as a next step (the refusal stands): where the quote
    does occur exactly in the version, if anywhere (the offsets must be corrected; nothing
    passed); else whether the slice differs only by white space at an end, or only at a
    line-break hyphen read in a way the rule does not allow."""
    folded = index.normalized
    found = tuple(folded.raw_span(s, e) for s, e in counted_spans(index, quote))
    if found:
        return (
            f"; the quote does occur exactly at {listed(found)} in this version: correct the "
            "citation's offsets (it is refused as cited)"
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
