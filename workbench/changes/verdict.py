"""One row of the verdict log (C8): a reviewer's answer to one doubtful pairing, its canonical
record under a numbered scheme, and the digest that chains it to the row before."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

from workbench.models import Change, Span, content_id

Answer = Literal["confirmed", "disputed", "uncertain"]
ANSWERS: tuple[Answer, ...] = get_args(Answer)
SCHEME = 2  # the scheme every new row is written under (its digest covers group_id)
SAMPLED_SCHEME = 3  # the scheme of an answer to a sampled item (its digest covers sample_id too)
KNOWN_SCHEMES = frozenset({1, SCHEME, SAMPLED_SCHEME})
GENESIS = "0" * 64  # the `prev_hash` of row 1


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """One row of the verdict log: a reviewer's answer to one doubtful pairing."""

    seq: int
    scheme: int
    change_id: str
    before: Span
    after: Span
    answer: Answer
    reason: str | None
    actor: str
    answered_at: str  # ISO 8601, UTC
    similarity: float  # the computed numbers as they stood when the answer was given
    alignment_confidence: float
    capped: bool
    undoes: int | None  # the row this one reverses, or None
    prev_hash: str
    digest: str
    group_id: str | None = None  # the restructure group the answer was given to, or None
    sample_id: str | None = None  # the confident sample the answered item belongs to, or None

    def quotes(self, change: Change) -> bool:
        """True when this row judged exactly `change`: same change id and the same two passages."""
        return (
            self.change_id == change.change_id
            and self.before == change.before
            and self.after == change.after
        )

    def payload(self) -> dict[str, Any]:
        """The row's canonical record under its scheme: every column but the digest itself, and
        for scheme 1 also without `group_id` (that scheme predates it); `sample_id` only under
        scheme 3."""
        payload = {
            "seq": self.seq,
            "scheme": self.scheme,
            "change_id": self.change_id,
            "before": self.before.as_json(),
            "after": self.after.as_json(),
            "answer": self.answer,
            "reason": self.reason,
            "actor": self.actor,
            "answered_at": self.answered_at,
            "similarity": self.similarity,
            "alignment_confidence": self.alignment_confidence,
            "capped": self.capped,
            "undoes": self.undoes,
            "prev_hash": self.prev_hash,
        }
        if self.scheme != 1:
            payload["group_id"] = self.group_id
        if self.scheme == SAMPLED_SCHEME:
            payload["sample_id"] = self.sample_id
        return payload

    def as_json(self) -> dict[str, Any]:
        """The JSON shape `workbench review log --json` prints for one row: its canonical record
        and its digest."""
        return {**self.payload(), "digest": self.digest}


def row_digest(payload: dict[str, Any]) -> str:
    """SHA-256 hex of the canonical JSON (sorted keys, no spaces, UTF-8) of a row's payload."""
    return content_id(payload)
