"""One line of a citations file as read: a `CitationLine` holds exactly one of a citation, an
unplaced quote, a refusal by name or an error, and the field readers every format shares name a bad
field the same way (C14)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workbench.cite.hints import Locator
from workbench.cite.verify import Citation

if TYPE_CHECKING:  # a claim line's record; the claim rule loads with the first claim read
    from workbench.cite.claims import Claim

LINE_REASONS: dict[str, str] = {
    "unsupported_selector": "a W3C target holds no text selector, or a refined one (refinedBy), "
    "which the workbench does not resolve",
    "blocks_not_written": "a content_block_location citation names a document given as a version "
    "id, or as a blocks map that is not as 'workbench blocks' wrote it",
    "block_out_of_range": "a content_block_location citation names a block past the last one "
    "written for its document",
    "quote_not_found": "the citation names no offsets (pages, or a W3C quote alone), and the quote "
    "occurs nowhere in the version; a few lines around its best place are shown",
}


class LineError(Exception):
    """Raised inside one line's parser; becomes that line's error message."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PageRange:
    """Pages `first` to `last` of a PDF version, both included, numbered from 1 as a reader counts
    them (the PDF's page order, as `models.PageSpan` numbers them)."""

    first: int
    last: int

    def label(self) -> str:
        return (
            f"page {self.first}" if self.first == self.last else f"pages {self.first}-{self.last}"
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class UnplacedQuote:
    """A quote said to stand in `version_id` with no offsets given: on the line's pages (an
    Anthropic page_location citation), or where its W3C `prefix` and `suffix` say (a
    TextQuoteSelector alone). `text_sha256`, when the producer recorded it, is the text the quote
    was made against. `source_url` names the page instead of a version (a web search result):
    the held version whose provenance gives that `source_url` is the one searched."""

    version_id: str
    quoted_text: str
    prefix: str | None = None
    suffix: str | None = None
    text_sha256: str | None = None
    source_url: str | None = None
    locator: Locator = "offsets"


@dataclass(frozen=True, slots=True, kw_only=True)
class LineRefusal:
    """A well-formed line the workbench cannot decide as given: refused with `reason` (a code of
    `LINE_REASONS`) and a one-line `detail`, about `version_id` (as the line names it)."""

    version_id: str
    quoted_text: str
    reason: str
    detail: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CitationLine:
    """One input line: what it claims (a `citation`, an `unplaced` quote, a `refusal` by name or a
    `claim`), or the `error` that stopped it being read.

    `pages` are the pages the line names, if any (with a `citation`, they are checked after the
    rule; with an `unplaced` quote, the quote is placed inside them). `claim` is an absence or
    count claim (`cite.claims`), decided apart from citations.
    """

    line: int
    citation: Citation | None
    error: str | None
    pages: PageRange | None = None
    unplaced: UnplacedQuote | None = None
    refusal: LineRefusal | None = None
    claim: Claim | None = None


def kind_of(value: Any) -> str:
    """A JSON value's kind, as a field error names it."""
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number"
    )


def string_field(record: dict[str, Any], name: str, label: str) -> str:
    """A string field: missing, or of another kind, is a `LineError` naming `label`."""
    if name not in record:
        raise LineError(f"field {label!r} missing")
    value = record[name]
    if not isinstance(value, str):
        raise LineError(f"field {label!r}: expected a string, got {kind_of(value)}")
    return value


def offset_field(record: dict[str, Any], name: str, label: str) -> Any:
    """An offset as given: missing is a format error, a non-integer is left for `bad_offsets`."""
    if name not in record:
        raise LineError(f"field {label!r} missing")
    return record[name]


def count_field(record: dict[str, Any], name: str, what: str, lowest: int) -> int:
    """A page number or block index: an integer from `lowest`, or a `LineError` naming it."""
    if name not in record:
        raise LineError(f"field {name!r} missing")
    value = record[name]
    if type(value) is not int or value < lowest:
        raise LineError(
            f"field {name!r}: expected {what} (an integer from {lowest}), got {value!r}"
        )
    return value
