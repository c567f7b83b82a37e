"""Frozen records that travel between the stages (C1, C2): immutable, holding tuples, with offsets
half-open `[char_start, char_end)` indices into the version's text; and the rules with one home
beside them (content ids, page look-up). Each record lives in the module of its concern and is
loaded at first use (`workbench.lazy`), so a command loads only the records it uses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.lazy import lazy_names

if TYPE_CHECKING:  # the type checker reads each name where it lives
    from workbench.bounds import strict_json
    from workbench.models.diffs import (
        CHANGE_KINDS,
        PAIRING_KINDS,
        Change,
        ChangeKind,
        HeldVersion,
        Span,
        VersionText,
        consecutive_pairs,
    )
    from workbench.models.extraction import Extraction
    from workbench.models.ids import canonical_json, content_id, text_sha256
    from workbench.models.ocr import OcrReading, OcrWord
    from workbench.models.passages import Passage, PassageKind
    from workbench.models.rows import ROW_FIELDS, CatalogueRow, Refusal
    from workbench.models.versions import (
        LOW_CONFIDENCE,
        MACHINE_READ,
        TEXT_ORIGINS,
        Furniture,
        OriginRun,
        PageOrigin,
        PageSpan,
        StructureMark,
        TextOrigin,
        TextOrigins,
        UnusablePage,
        Version,
        origins_from_json,
        page_for_offset,
        span_pages,
    )

# Each name and the module that holds it, in the order of imports above.
_HOME = {
    "strict_json": "workbench.bounds",
    "CHANGE_KINDS": "workbench.models.diffs",
    "PAIRING_KINDS": "workbench.models.diffs",
    "Change": "workbench.models.diffs",
    "ChangeKind": "workbench.models.diffs",
    "HeldVersion": "workbench.models.diffs",
    "Span": "workbench.models.diffs",
    "VersionText": "workbench.models.diffs",
    "consecutive_pairs": "workbench.models.diffs",
    "Extraction": "workbench.models.extraction",
    "canonical_json": "workbench.models.ids",
    "content_id": "workbench.models.ids",
    "text_sha256": "workbench.models.ids",
    "OcrReading": "workbench.models.ocr",
    "OcrWord": "workbench.models.ocr",
    "Passage": "workbench.models.passages",
    "PassageKind": "workbench.models.passages",
    "ROW_FIELDS": "workbench.models.rows",
    "CatalogueRow": "workbench.models.rows",
    "Refusal": "workbench.models.rows",
    "LOW_CONFIDENCE": "workbench.models.versions",
    "MACHINE_READ": "workbench.models.versions",
    "TEXT_ORIGINS": "workbench.models.versions",
    "Furniture": "workbench.models.versions",
    "OriginRun": "workbench.models.versions",
    "PageOrigin": "workbench.models.versions",
    "PageSpan": "workbench.models.versions",
    "StructureMark": "workbench.models.versions",
    "TextOrigin": "workbench.models.versions",
    "TextOrigins": "workbench.models.versions",
    "UnusablePage": "workbench.models.versions",
    "Version": "workbench.models.versions",
    "origins_from_json": "workbench.models.versions",
    "page_for_offset": "workbench.models.versions",
    "span_pages": "workbench.models.versions",
}

__all__ = [
    "CHANGE_KINDS",
    "LOW_CONFIDENCE",
    "MACHINE_READ",
    "PAIRING_KINDS",
    "ROW_FIELDS",
    "TEXT_ORIGINS",
    "CatalogueRow",
    "Change",
    "ChangeKind",
    "Extraction",
    "Furniture",
    "HeldVersion",
    "OcrReading",
    "OcrWord",
    "OriginRun",
    "PageOrigin",
    "PageSpan",
    "Passage",
    "PassageKind",
    "Refusal",
    "Span",
    "StructureMark",
    "TextOrigin",
    "TextOrigins",
    "UnusablePage",
    "Version",
    "VersionText",
    "canonical_json",
    "consecutive_pairs",
    "content_id",
    "origins_from_json",
    "page_for_offset",
    "span_pages",
    "strict_json",
    "text_sha256",
]


__getattr__, __dir__ = lazy_names(globals(), _HOME)
