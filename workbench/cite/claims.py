"""Absence and count claims (C22), decided by exact search under the one normalization (C5), each
verdict carrying the scope's text hashes and every occurrence's raw offsets. Rules and examples:
docs/verification.md."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from workbench.cite.index import DELETABLE, counted_spans
from workbench.cite.verify import held_text, unknown_version_detail
from workbench.errors import CitationError, FamilyNotFound
from workbench.text.normalize import SCHEME, SCHEME_VERSION, normalized_text

if TYPE_CHECKING:  # the workspace is only read through the object a caller hands in
    from workbench.workspace import Workspace

MatchUnit = Literal["substring", "word"]
MATCH_UNITS: tuple[MatchUnit, ...] = ("word", "substring")
BOUNDARY_RULES: dict[MatchUnit, str] = {
    "substring": "any occurrence counts, inside a word too",
    "word": "where the quote begins (ends) with a letter or digit, the character before (after) "
    "the occurrence must not be one (str.isalnum); the text's edges count as boundaries",
}
OVERLAP_RULE = "overlapping occurrences each count (in 'aaa', 'aa' occurs twice)"
NORMALIZATION = f"{SCHEME} v{SCHEME_VERSION}"
CLAIM_REASONS: dict[str, str] = {
    "found": "the quote an absence claim says occurs nowhere occurs in the scope (each occurrence "
    "listed with its raw offsets)",
    "control_failed": "the positive control is not found in every version of the scope, so the "
    "search is not shown to find what is there; the claim is never passed as absent",
    "count_mismatch": "the quote occurs another number of times than claimed (each occurrence "
    "listed with its raw offsets)",
    "unknown_version": "the scope names a version or family that is not held",
    "source_changed": "a version of the scope no longer hashes to its recorded text sha256",
    "empty_quote": "the quote holds no words once normalized",
}
# A function a later stage hands in: the nearest candidate passages to a term in a scope, each one
# line (the candidate index lives in `search`, which `cite` does not import).
Nearest = Callable[[str, Sequence[str]], Sequence[str]]


@dataclass(frozen=True, slots=True, kw_only=True)
class Scope:
    """The versions a claim is about, in the order the claim or the family gives them, and how
    the claim named them (`label`)."""

    version_ids: tuple[str, ...]
    label: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Claim:
    """An absence claim (`count` None) or a count claim of `quote` over `scope` as given (a
    version id, a list of them, or an object with `version`, `family`, or `family` with `from`
    and `to`). `control` is the absence claim's positive control."""

    quote: str
    scope: Any
    match: MatchUnit = "word"
    count: int | None = None
    control: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Found:
    """One occurrence: the version, its raw span and the raw text there."""

    version_id: str
    char_start: int
    char_end: int
    text: str

    def as_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True, kw_only=True)
class ClaimVerdict:
    """The verdict on one claim. `outcome` is `absent`, `count_verified` or `refused` (with
    `reason`, one of `CLAIM_REASONS`). `texts` are the scope's (version id, text sha256) pairs as
    searched; `occurrences` the quote's, `control_found` the control's, `nearest` the candidate
    passages shown when the control fails (never evidence)."""

    claim: Claim
    outcome: Literal["absent", "count_verified", "refused"]
    reason: str | None
    detail: str
    texts: tuple[tuple[str, str], ...] = ()
    occurrences: tuple[Found, ...] = ()
    control_found: tuple[Found, ...] = ()
    nearest: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return self.outcome != "refused"

    def as_json(self) -> dict[str, Any]:
        c = self.claim
        return {
            "claim": "count" if c.count is not None else "absent",
            "quote": c.quote,
            "outcome": self.outcome,
            "reason": self.reason,
            "detail": self.detail,
            "scope": [{"version_id": v, "text_sha256": s} for v, s in self.texts],
            "match": c.match,
            "boundary": BOUNDARY_RULES[c.match],
            "overlaps": OVERLAP_RULE,
            "normalization": NORMALIZATION,
            "claimed": c.count,
            "found": len(self.occurrences),
            "occurrences": [o.as_json() for o in self.occurrences],
            "control": c.control,
            "control_found": [o.as_json() for o in self.control_found],
            "nearest": list(self.nearest),
        }


def claim_from_json(record: dict[str, Any]) -> Claim:
    """A claim line: `{"absent": QUOTE, "scope": ..., "control": TERM, "match"?}` or `{"count":
    N, "of": QUOTE, "scope": ..., "match"?}`; a bad field raises `CitationError` naming it."""
    kind = "absent" if "absent" in record else "count"
    allowed = (
        {"absent", "scope", "control", "match"}
        if kind == "absent"
        else {"count", "of", "scope", "match"}
    )
    unknown = sorted(set(record) - allowed)
    if unknown:
        raise CitationError(
            f"field {unknown[0]!r}: unknown in an {kind} claim ({', '.join(sorted(allowed))})"
        )
    for name in sorted(allowed - {"match"}):
        if name not in record:
            raise CitationError(f"field {name!r} missing from an {kind} claim")
    quote = record["absent"] if kind == "absent" else record["of"]
    if not isinstance(quote, str):
        raise CitationError(f"field {'absent' if kind == 'absent' else 'of'!r}: expected a string")
    match = record.get("match", "word")
    if match not in MATCH_UNITS:
        raise CitationError(f"field 'match': expected 'word' or 'substring', got {match!r}")
    count = record.get("count")
    if kind == "count" and (type(count) is not int or count < 0):
        raise CitationError(f"field 'count': expected a whole number from 0, got {count!r}")
    control = record.get("control")
    if kind == "absent" and not isinstance(control, str):
        raise CitationError("field 'control': expected a string (a term the scope holds)")
    if not _scope_shaped(record["scope"]):
        raise CitationError(SCOPE_SHAPES)
    return Claim(quote=quote, scope=record["scope"], match=match, count=count, control=control)


SCOPE_SHAPES = (
    "field 'scope': expected a version id, a list of them, or an object with 'version', or "
    "'family' (with 'from' and 'to' for a release range)"
)


def _scope_shaped(scope: Any) -> bool:
    """True when `scope` has one of the shapes `resolve_scope` reads (held or not)."""
    if isinstance(scope, str):
        return True
    if isinstance(scope, list):
        return bool(scope) and all(isinstance(v, str) for v in scope)
    if not isinstance(scope, dict):
        return False
    if set(scope) == {"version"}:
        return isinstance(scope["version"], str)
    return (
        "family" in scope
        and set(scope) <= {"family", "from", "to"}
        and all(isinstance(v, str) for v in scope.values())
    )


def resolve_scope(workspace: Workspace, scope: Any) -> Scope | str:
    """The versions `scope` names, or why it names none that is held (one line).

    A string or `{"version": ID}`: that version. A list: those versions, in the order given. `{"family": F}`:
    every held version of F in version order; with `from` and `to` (version ids of F), the versions
    from the one to the other, both included.
    """
    if not _scope_shaped(scope):
        raise CitationError(SCOPE_SHAPES)
    if isinstance(scope, str):
        scope = {"version": scope}
    if isinstance(scope, list):
        ids, label = tuple(scope), f"the {len(scope)} versions listed"
    elif "version" in scope:
        ids, label = (scope["version"],), scope["version"]
    else:
        try:
            ids = tuple(v.version_id for v in workspace.versions(scope["family"]))
        except FamilyNotFound:
            return f"family {scope['family']!r} is not held; the held families are listed by 'workbench families'"
        label = f"every held version of {scope['family']}"
        if "from" in scope or "to" in scope:
            first, last = scope.get("from", ids[0]), scope.get("to", ids[-1])
            for end in (first, last):
                if end not in ids:
                    return (
                        unknown_version_detail(end)
                        if end not in workspace.version_ids()
                        else (f"{end} is not a version of {scope['family']}")
                    )
            ids = ids[ids.index(first) : ids.index(last) + 1]
            label = f"{scope['family']} from {first} to {last}"
    held = set(workspace.version_ids())
    for version_id in ids:
        if version_id not in held:
            return unknown_version_detail(version_id)
    if not ids:
        return "the scope names no version"
    return Scope(version_ids=ids, label=label)


def _bounded(text: str, start: int, end: int, quote: str) -> bool:
    """The word rule of `BOUNDARY_RULES`, on the normalized text."""
    before = quote[0].isalnum() and start > 0 and text[start - 1].isalnum()
    after = quote[-1].isalnum() and end < len(text) and text[end].isalnum()
    return not before and not after


def search_scope(
    workspace: Workspace, scope: Scope, term: str, match: MatchUnit
) -> tuple[tuple[tuple[str, str], ...], tuple[Found, ...]] | str:
    """Every occurrence of `term` in the scope's versions, in scope then text order, with the
    (version id, text sha256) pairs searched; or why a version could not be searched. Each text
    is read and hashed against its recorded hash first (`verify.held_text`)."""
    quote = normalized_text(term)
    texts, found = [], []
    for version_id in scope.version_ids:
        held = held_text(workspace, version_id)
        if held.index is None:
            return (
                f"{version_id}: stored text hashes to {held.stored_sha256}; the version was "
                f"recorded with text sha256 {held.recorded_sha256}"
            )
        index = held.index
        spans = counted_spans(index, quote)
        if match == "word":
            spans = [s for s in spans if _bounded(index.normalized.text, s[0], s[1], quote)]
        texts.append((version_id, index.text_sha256))
        found += [
            Found(version_id=version_id, char_start=a, char_end=b, text=index.text[a:b])
            for a, b in index.normalized.raw_spans(spans)
        ]
    return tuple(texts), tuple(found)


def _times(n: int) -> str:
    return f"{n} time{'' if n == 1 else 's'}"


def decide_claim(
    workspace: Workspace, claim: Claim, nearest: Nearest | None = None
) -> ClaimVerdict:
    """The verdict on `claim`, in this order: the quote holds words; the scope is held; each
    version's text hash; the quote's occurrences; for an absence claim, none found and then the
    control found in every version of the scope (else `control_failed`, with `nearest(control,
    scope)` shown when given); for a count claim, the count."""

    def refused(reason: str, detail: str, **found: Any) -> ClaimVerdict:
        return ClaimVerdict(claim=claim, outcome="refused", reason=reason, detail=detail, **found)

    if not normalized_text(claim.quote).strip(DELETABLE):
        return refused("empty_quote", f"quote {claim.quote[:40]!r} holds no words once normalized")
    scope = resolve_scope(workspace, claim.scope)
    if isinstance(scope, str):
        return refused("unknown_version", scope)
    searched = search_scope(workspace, scope, claim.quote, claim.match)
    if isinstance(searched, str):
        return refused("source_changed", searched)
    texts, found = searched
    unit = f"as a {claim.match}"
    where = f"{scope.label} ({len(texts)} version{'s' if len(texts) > 1 else ''})"
    if claim.count is not None:
        if len(found) == claim.count:
            return ClaimVerdict(
                claim=claim,
                outcome="count_verified",
                reason=None,
                detail=f"{claim.quote!r} occurs {_times(len(found))} {unit} in {where}",
                texts=texts,
                occurrences=found,
            )
        return refused(
            "count_mismatch",
            f"claimed {claim.count}, found {len(found)}: {claim.quote!r} {unit} in {where}",
            texts=texts,
            occurrences=found,
        )
    if found:
        first = found[0]
        return refused(
            "found",
            f"{claim.quote!r} occurs {_times(len(found))} {unit} in {where}, first in "
            f"{first.version_id} at [{first.char_start}, {first.char_end})",
            texts=texts,
            occurrences=found,
        )
    assert claim.control is not None  # claim_from_json requires it of an absence claim
    controlled = search_scope(workspace, scope, claim.control, claim.match)
    assert not isinstance(controlled, str)  # the same texts were just read and hashed
    control_found = controlled[1]
    missing = [v for v in scope.version_ids if v not in {o.version_id for o in control_found}]
    if missing:
        shown = tuple(nearest(claim.control, missing)) if nearest is not None else ()
        return refused(
            "control_failed",
            f"the control {claim.control!r} is not found {unit} in {len(missing)} of the "
            f"{len(texts)} versions searched (first: {missing[0]}); the search is not shown to "
            f"find what is there, so {claim.quote!r} is not passed as absent",
            texts=texts,
            control_found=control_found,
            nearest=shown,
        )
    return ClaimVerdict(
        claim=claim,
        outcome="absent",
        reason=None,
        detail=f"{claim.quote!r} occurs nowhere {unit} in {where}; the control "
        f"{claim.control!r} is found {_times(len(control_found))}, in every version",
        texts=texts,
        control_found=control_found,
    )
