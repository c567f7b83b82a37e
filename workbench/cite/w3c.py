"""W3C Web Annotations (C6): every text selector form read as its author meant, and verified
citations written as annotations whose source is the `ni:` name of the text's SHA-256, passing the
W3C suite's required assertions."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from typing import Any

from workbench.cite.alterations import AlteredVerification
from workbench.cite.batch import verify_citations
from workbench.cite.index import SourceIndex, counted_spans, source_index
from workbench.cite.lines import (
    CitationLine,
    LineError,
    LineRefusal,
    UnplacedQuote,
    kind_of,
    offset_field,
    string_field,
)
from workbench.cite.verify import Citation, Verification
from workbench.errors import CitationError
from workbench.models import content_id, text_sha256
from workbench.text.normalize import normalized_text
from workbench.workspace import Workspace

W3C_CONTEXT = "http://www.w3.org/ns/anno.jsonld"
# The terms our annotations add to a source, in a namespace of their own: a JSON-LD reader keeps a
# property only when a context maps it to an IRI. The names need not be dereferenceable.
WORKBENCH_CONTEXT = {
    "version_id": "urn:workbench:version_id",
    "text_sha256": "urn:workbench:text_sha256",
}
# 1: the source id was the version id and the context the W3C one alone (bundle scheme 1).
# 2: the source id is the text's ni: IRI, with the version id and text hash as properties.
ANNOTATION_SCHEME = 2
TEXT_SELECTORS = ("TextPositionSelector", "TextQuoteSelector")
_NI = re.compile(r"ni:///sha-256;(?P<digest>[A-Za-z0-9_-]{43})(?:\?.*)?")


def source_iri(sha256: str) -> str:
    """The RFC 6920 `ni:` IRI of a text whose UTF-8 bytes hash to `sha256` (hex)."""
    digest = base64.urlsafe_b64encode(bytes.fromhex(sha256)).decode("ascii").rstrip("=")
    return f"ni:///sha-256;{digest}?ct=text/plain"


def iri_sha256(iri: str) -> str | None:
    """The hex SHA-256 an `ni:///sha-256;...` IRI names, or None for any other IRI."""
    match = _NI.fullmatch(iri)
    if match is None:
        return None
    return base64.urlsafe_b64decode(match["digest"] + "=").hex()


# ---------------------------------------------------------------------------------------------
# Reading


def _source(target: dict[str, Any]) -> tuple[str, str | None]:
    """The version id and text sha256 (None when not given) a target's source names."""
    source = target.get("source")
    sha = None
    if isinstance(source, dict):
        for name in ("text_sha256", "version_id"):
            if name in source and not isinstance(source[name], str):
                raise LineError(
                    f"field 'target.source.{name}': expected a string, got {kind_of(source[name])}"
                )
        sha = source.get("text_sha256")
        iri = source.get("id")
        if sha is None and isinstance(iri, str):
            sha = iri_sha256(iri)
        source = source.get("version_id", iri)
    if not isinstance(source, str):
        raise LineError(
            "field 'target.source': expected the version id, as a string or an object with 'id'"
        )
    return source, sha


def _chain(selector: dict[str, Any]) -> str:
    """A selector and its refinements, as a person reads them: `FragmentSelector refined by
    TextQuoteSelector` (at most four deep)."""
    kinds: list[str] = []
    while isinstance(selector, dict) and len(kinds) < 4:
        kinds.append(str(selector.get("type")))
        selector = selector.get("refinedBy")  # type: ignore[assignment]
    return " refined by ".join(kinds)


def _unsupported(selectors: list[Any]) -> str | None:
    """Why the selectors cannot be read as given, or None: the text selectors (else, when there
    is none, any selector) are refined (`refinedBy`), or there is no text selector."""
    given = [s for s in selectors if isinstance(s, dict)]
    texts = [s for s in given if s.get("type") in TEXT_SELECTORS]
    refined = next((s for s in (texts or given) if "refinedBy" in s), None)
    if refined is not None:
        return (
            f"the {_chain(refined)} (refinedBy) is a selection inside another selection, which "
            "the workbench does not resolve; give a text selector on the whole text"
        )
    if not texts:
        kinds = ", ".join(str(s.get("type")) for s in given) or "none"
        return (
            f"the target's selectors ({kinds}) hold no TextPositionSelector or TextQuoteSelector; "
            "the workbench reads text selectors only"
        )
    return None


def read_w3c(number: int, record: dict[str, Any]) -> CitationLine:
    """One annotation read as a line (every text selector form, docs/verification.md), or a
    `LineError` naming its field."""
    target = record.get("target")
    if isinstance(target, list):
        if len(target) != 1:
            raise LineError(f"field 'target': expected one target, got {len(target)}")
        target = target[0]
    if isinstance(target, str):
        target = {"source": target}
    if not isinstance(target, dict):
        raise LineError(f"field 'target': expected an object, got {kind_of(target)}")
    version_id, sha = _source(target)
    selectors = target.get("selector", [])
    if isinstance(selectors, dict):
        selectors = [selectors]
    if not isinstance(selectors, list):
        raise LineError(f"field 'target.selector': expected an array, got {kind_of(selectors)}")
    by_type = {s.get("type"): s for s in selectors if isinstance(s, dict)}
    position = by_type.get("TextPositionSelector")
    quote = by_type.get("TextQuoteSelector")
    problem = _unsupported(selectors)
    if problem is not None:
        given = quote.get("exact") if isinstance(quote, dict) else None
        refusal = LineRefusal(
            version_id=version_id,
            quoted_text=given if isinstance(given, str) else "",
            reason="unsupported_selector",
            detail=problem,
        )
        return CitationLine(line=number, citation=None, error=None, refusal=refusal)
    context = {}
    exact = ""
    if quote is not None:
        for name in ("prefix", "suffix"):
            if name in quote:
                context[name] = string_field(quote, name, f"TextQuoteSelector.{name}")
        exact = string_field(quote, "exact", "TextQuoteSelector.exact")
    if position is None:
        unplaced = UnplacedQuote(
            version_id=version_id,
            quoted_text=exact,
            prefix=context.get("prefix"),
            suffix=context.get("suffix"),
            text_sha256=sha,
            locator="w3c",
        )
        return CitationLine(line=number, citation=None, error=None, unplaced=unplaced)
    citation = Citation(
        version_id=version_id,
        char_start=offset_field(position, "start", "TextPositionSelector.start"),
        char_end=offset_field(position, "end", "TextPositionSelector.end"),
        quoted_text=exact,
        prefix=context.get("prefix"),
        suffix=context.get("suffix"),
        text_sha256=sha,
        position_only=quote is None,
        locator="w3c",
    )
    return CitationLine(line=number, citation=citation, error=None)


# ---------------------------------------------------------------------------------------------
# Writing


def minimal_context(index: SourceIndex, verification: Verification) -> tuple[str, str]:
    """Raw prefix and suffix around a verified citation that make its quote unique.

    The smallest n >= 0 such that the n normalized characters right before the occurrence and the
    n right after it (fewer at the text's ends) stand right before and after no other occurrence,
    compared exactly as the rule compares a prefix and suffix (`verify.context_occurrences`); the
    raw text of those characters is returned, so a W3C reader anchors in our stored text. A quote
    that occurs once gets empty context. The occurrences are the quote's; for a quote read with
    its alteration marks, the cited span's own text's (the rule decided the span as a quote of its
    own text, and the annotation's TextQuoteSelector holds that text, not the altered quote).
    """
    citation = verification.citation
    folded = index.normalized
    text = folded.text
    altered = isinstance(verification, AlteredVerification) and bool(verification.alterations)
    quote = normalized_text(verification.actual_text or "" if altered else citation.quoted_text)
    spans = counted_spans(index, quote)
    start, end = spans[(verification.occurrence or 1) - 1]
    others = [s for s in spans if s != (start, end)]
    n = 0
    limit = max(start, len(text) - end)
    while others and n < limit:
        n += 1
        before, after = text[max(0, start - n) : start], text[end : end + n]
        others = [
            (s, e) for s, e in others if text.endswith(before, 0, s) and text.startswith(after, e)
        ]
    if n == 0:
        return "", ""
    raw = index.text
    prefix_start = folded.raw_start(max(0, start - n)) if start else 0
    suffix_end = folded.raw_end(min(len(text), end + n) - 1) if end < len(text) else len(raw)
    return raw[prefix_start : citation.char_start], raw[citation.char_end : suffix_end]


def annotation(
    index: SourceIndex, verification: Verification, *, scheme: int = ANNOTATION_SCHEME
) -> dict[str, Any]:
    """A verified citation as a W3C Web Annotation (motivation `quoting`; see
    docs/verification.md, Export).

    The selectors are a TextQuoteSelector (the stored text at the offsets, with `minimal_context`)
    and a TextPositionSelector (the raw offsets, code points, as W3C counts them). The id is
    `urn:sha256:` over the canonical JSON of [version id, text sha256, start, end]. `scheme` 1
    writes the shape bundles of scheme 1 hold (the source id the version id), so they re-check.
    """
    if not verification.verified:
        raise CitationError("only a verified citation can be exported as an annotation")
    citation = verification.citation
    prefix, suffix = minimal_context(index, verification)
    quote: dict[str, Any] = {"type": "TextQuoteSelector", "exact": verification.actual_text}
    if prefix:
        quote["prefix"] = prefix
    if suffix:
        quote["suffix"] = suffix
    key = [citation.version_id, index.text_sha256, citation.char_start, citation.char_end]
    source: dict[str, Any] = {"id": citation.version_id, "text_sha256": index.text_sha256}
    context: Any = W3C_CONTEXT
    if scheme >= 2:
        source = {
            "id": source_iri(index.text_sha256),
            "type": "Text",
            "version_id": citation.version_id,
            "text_sha256": index.text_sha256,
        }
        context = [W3C_CONTEXT, WORKBENCH_CONTEXT]
    return {
        "@context": context,
        "id": "urn:sha256:" + content_id(key),
        "type": "Annotation",
        "motivation": "quoting",
        "target": {
            "source": source,
            "selector": [
                quote,
                {
                    "type": "TextPositionSelector",
                    "start": citation.char_start,
                    "end": citation.char_end,
                },
            ],
        },
    }


def annotate_verified(
    workspace: Workspace,
    verifications: Iterable[Verification],
    *,
    scheme: int = ANNOTATION_SCHEME,
) -> tuple[dict[str, Any], ...]:
    """The verified ones of `verifications` (with or without caveats: the words are there) as Web
    Annotations (`annotation`), in their order; a refused or resolved one is never exported."""
    indexes: dict[str, SourceIndex] = {}
    annotations = []
    for verification in verifications:
        if not verification.verified:
            continue
        version_id = verification.citation.version_id
        if version_id not in indexes:
            text = workspace.version(version_id).text
            indexes[version_id] = source_index(text, text_sha256(text))
        annotations.append(annotation(indexes[version_id], verification, scheme=scheme))
    return tuple(annotations)


def export_annotations(
    workspace: Workspace, citations: Iterable[Citation]
) -> tuple[tuple[dict[str, Any], ...], tuple[Verification, ...]]:
    """Verify `citations` (through the hash check) and annotate the verified ones, in input order;
    the refused ones are returned with the rest and never exported."""
    verifications = verify_citations(workspace, citations)
    return annotate_verified(workspace, verifications), verifications
