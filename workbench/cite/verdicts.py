"""Verdicts as printed and stored (C6): one text line or JSON object per citation, and the counts
that keep plainly verified, caveated, resolved and refused citations apart."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

from workbench.cite.lines import PageRange
from workbench.cite.verify import VERIFIED_MEANS, Verification

# 1: verdicts as bundles of scheme 1 hold them (no `caveats` key); 2: with `caveats`.
VERDICT_SCHEME = 2
STANDINGS = ("verified", "verified with caveats", "resolved", "refused")


def verification_as_json(
    line: int,
    verification: Verification,
    *,
    spanned: PageRange | None = None,
    named: PageRange | None = None,
    scheme: int = VERDICT_SCHEME,
) -> dict[str, Any]:
    """One verdict as `workbench verify --json` prints it and a bundle stores it: the outcome, the
    citation as read, the text at its offsets, the occurrences (the first 20 spans and the count),
    the qualifier flags, the caveats (each kind with its evidence; empty unless verified), the PDF
    pages the span lies on (`pages`, null without a page map) and the pages the line named
    (`pages_named`, null when it named none). `scheme` 1 leaves out `caveats`."""
    citation = verification.citation
    shape: dict[str, Any] = {
        "line": line,
        "outcome": verification.outcome,
        "reason": verification.reason,
        "detail": verification.detail,
        "version_id": citation.version_id,
        "char_start": citation.char_start,
        "char_end": citation.char_end,
        "quoted_text": citation.quoted_text,
        "actual_text": verification.actual_text,
        "text_sha256": verification.text_sha256,
        "occurrence": verification.occurrence,
        "occurrence_count": len(verification.occurrences),
        "occurrences": [list(span) for span in verification.occurrences[:20]],
        "pages": None if spanned is None else [spanned.first, spanned.last],
        "pages_named": None if named is None else [named.first, named.last],
        "qualifiers": [
            {"word": q.word, "char_start": q.char_start, "char_end": q.char_end, "side": q.side}
            for q in verification.qualifiers
        ],
        **_asked_for(verification),
    }
    if scheme >= 2:
        shape["caveats"] = [c.as_json() for c in verification.caveats]
    return shape


def _asked_for(verification: Verification) -> dict[str, Any]:
    """The keys a citation's own requests add to its verdict's JSON: `section` when it names one;
    `alterations` (each gap's kind, marks, bracketed text, raw span and source text) and
    `fragments` (raw spans) when it has alterations on."""
    citation = verification.citation
    added: dict[str, Any] = {}
    if citation.section is not None:
        added["section"] = citation.section
    if citation.alterations:
        from workbench.cite.alterations import AlteredVerification  # only such a verdict has them

        altered = verification if isinstance(verification, AlteredVerification) else None
        added["fragments"] = [list(span) for span in altered.fragments] if altered else []
        added["alterations"] = [
            {
                "kind": a.kind,
                "marks": list(a.marks),
                "inserted": a.inserted,
                "char_start": a.char_start,
                "char_end": a.char_end,
                "source_text": a.source_text,
            }
            for a in (altered.alterations if altered else ())
        ]
    return added


def verification_text(
    line: int,
    verification: Verification,
    *,
    spanned: PageRange | None = None,
    named: PageRange | None = None,
) -> str:
    """One verdict as `workbench verify` prints it: an outcome line (`verified`, `verified with
    caveats KIND`, `refused REASON` or `resolved`, with ` p. N` or ` pp. N-M` where the span lies
    in a PDF, and the pages the line named), then one line per caveat, per alteration of an
    altered quote, and per qualifier."""
    c = verification.citation
    where = f"{c.version_id} [{c.char_start}, {c.char_end})"
    if spanned is not None:
        where += (
            f" p. {spanned.first}"
            if spanned.first == spanned.last
            else f" pp. {spanned.first}-{spanned.last}"
        )
    if named is not None:
        where += f" ({named.label()} named)"
    outcome = verification.standing
    if verification.caveats:
        outcome += " " + ", ".join(k.kind for k in verification.caveats)
    if verification.reason:
        outcome += f" {verification.reason}"
    out = [
        f"line {line}: {outcome}: {where}: {verification.detail}; "
        f"text at offsets: {json.dumps(verification.actual_text, ensure_ascii=False)}\n"
    ]
    out += [f"  {caveat.line()}\n" for caveat in verification.caveats]
    shape = _asked_for(verification)
    out += [
        f"  alteration: {a['kind']} {' '.join(a['marks'])} stands for [{a['char_start']}, "
        f"{a['char_end']}): {json.dumps(a['source_text'], ensure_ascii=False)}\n"
        for a in shape.get("alterations", ())
    ]
    out += [
        f"  qualifier {'inside an omission' if q.side == 'omitted' else q.side + ' the quote'}, "
        f"left out of it: {q.word!r} at [{q.char_start}, {q.char_end})\n"
        for q in verification.qualifiers
    ]
    return "".join(out)


def tally(verifications: Iterable[Verification | None]) -> dict[str, int]:
    """Verdicts counted apart, in `STANDINGS` order (None, a line that could not be read, counts
    as `malformed`), then each caveat kind (`caveat KIND`: the caveated verdicts carrying it,
    kinds in sorted order)."""
    counts = dict.fromkeys((*STANDINGS, "malformed"), 0)
    kinds: Counter[str] = Counter()
    for verification in verifications:
        if verification is None:
            counts["malformed"] += 1
            continue
        counts[verification.standing] += 1
        kinds.update({caveat.kind for caveat in verification.caveats})
    return counts | {f"caveat {kind}": kinds[kind] for kind in sorted(kinds)}


def summary(counts: dict[str, int], *, malformed: bool = True) -> str:
    """The count line printed after the verdicts: plainly verified, verified with caveats (each
    kind's count in brackets), resolved, refused, and (when `malformed`) malformed lines, then
    what verified means."""
    kinds = [
        f"{name.removeprefix('caveat ')} {n}" for name, n in counts.items() if "caveat " in name
    ]
    parts = [
        f"{counts['verified']} verified",
        f"{counts['verified with caveats']} verified with caveats"
        + (f" ({', '.join(kinds)})" if kinds else ""),
        f"{counts['resolved']} resolved",
        f"{counts['refused']} refused",
    ]
    if malformed:
        parts.append(f"{counts['malformed']} malformed lines")
    return ", ".join(parts) + f"; {VERIFIED_MEANS}"
