"""Holding catalogued versions: `version_from_row` extracts an artefact's bytes into a `Version`,
`ingest` holds every catalogued version in a workspace (idempotent, C4) and keeps each PDF's parts
from its one extraction (C13)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.corpus import read_fetched
from workbench.errors import (
    ChecksumMismatch,
    CorpusChanged,
    ExtractionError,
    FetchError,
    TextDecodeError,
    UnsafePath,
)
from workbench.models import CatalogueRow, Refusal, TextOrigins, Version, text_sha256
from workbench.progress import bar
from workbench.workspace.held import Workspace

if TYPE_CHECKING:
    from workbench.text.ocr import OcrOptions
    from workbench.text.pdf import Placed


def version_from_row(
    row: CatalogueRow,
    data: bytes,
    *,
    ocr: OcrOptions | None = None,
    trace: list[Placed] | None = None,
) -> Version:
    """Extract a catalogued artefact's bytes into a `Version` (not yet held); a scanned PDF page
    is read by OCR in the provenance's `language` with `ocr`'s cache and engine (default: no
    cache, the engine installed). With `trace`, a PDF's placed runs are appended there
    (`extraction.extract`)."""
    from workbench.text.extraction import (
        extract,  # lxml and pypdfium2 load only when a file is read
    )

    record = row.provenance
    named = record.get("language")
    language = named if isinstance(named, str) else None
    extraction = extract(
        data, row.media_type, source=row.path, language=language, ocr=ocr, trace=trace
    )
    return Version(
        version_id=row.path,
        jurisdiction=row.jurisdiction,
        family=row.family,
        version_order=row.version_order,
        version_label=str(record.get("version_label") or ""),
        media_type=row.media_type,
        artefact_sha256=row.sha256,
        artefact_bytes=row.size,
        extractor=extraction.extractor,
        extractor_version=extraction.extractor_version,
        text_sha256=text_sha256(extraction.text),
        text=extraction.text,
        structure=extraction.structure,
        pages=extraction.pages,
        furniture=extraction.furniture,
        unusable_pages=extraction.unusable_pages,
        origin=extraction.origin or TextOrigins.whole(len(extraction.text)),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class IngestReport:
    added: tuple[str, ...]
    unchanged: tuple[str, ...]
    awaiting: tuple[str, ...]  # artefacts with no extractor yet: counted, not an error (none now)
    refused: tuple[Refusal, ...]


def ingest(
    workspace: Workspace,
    rows: Iterable[CatalogueRow],
    store: Path,
    *,
    progress: bool = False,
    reextract: bool = False,
    ocr_cache: Path | None = None,
) -> IngestReport:
    """Extract and hold every catalogued version; idempotent. Each row's bytes are hash-checked first.

    A version already held under the row's artefact SHA-256, by an extractor whose version is still
    the current one (`extract.CURRENT_EXTRACTORS`), or whose text that version has reproduced (its
    origin record), is not extracted again (C4): extraction is a pure function of the bytes and
    the extractor's version, so it would give the held text. With `reextract`, every version is
    extracted again and its text hash checked against the held one (a difference is refused as
    `corpus_changed`, the held version untouched). Scanned PDF pages are read by OCR, cached in
    `ocr_cache` (default: `ocr.default_cache` for this workspace file). A PDF extracted here
    has its parts (footnotes, tables, heading lines) read off the same extraction and kept
    (`parts.keep_pdf_parts`), where `held_parts` finds them.
    """
    added: list[str] = []
    unchanged: list[str] = []
    awaiting: list[str] = []
    refused: list[Refusal] = []
    from workbench.text.extraction import CURRENT_EXTRACTORS, AwaitingExtractor
    from workbench.text.ocr import OcrOptions, default_cache

    options = OcrOptions(cache=ocr_cache or default_cache(workspace.path))
    rows = list(rows)
    for row in bar(rows, desc="ingest", unit="file", enabled=progress):
        try:
            data = read_fetched(row, store)
        except FileNotFoundError:
            refused.append(
                Refusal(
                    path=row.path,
                    reason="missing",
                    detail=f"not held in {store}; run 'workbench corpus fetch'",
                )
            )
            continue
        except (ChecksumMismatch, UnsafePath, FetchError) as exc:
            refused.append(Refusal(path=row.path, reason="sha256_mismatch", detail=str(exc)))
            continue
        held = None if reextract else workspace.held_extractors(row.path)
        if (
            held is not None
            and held[0] == row.sha256
            and any(CURRENT_EXTRACTORS.get(name) == made for name, made in held[1])
        ):
            unchanged.append(row.path)
            continue
        # A PDF's parts are read off this one extraction's trace and kept (C13: nothing derived
        # twice), so no later command extracts it again to read its notes, tables and headings.
        trace: list[Placed] | None = [] if row.media_type == "application/pdf" else None
        try:
            version = version_from_row(row, data, ocr=options, trace=trace)
        except AwaitingExtractor:
            awaiting.append(row.path)
            continue
        except (ExtractionError, TextDecodeError) as exc:
            refused.append(Refusal(path=row.path, reason="extraction_failed", detail=str(exc)))
            continue
        try:
            (added if workspace.add_version(version, row.provenance) else unchanged).append(
                row.path
            )
        except CorpusChanged as exc:
            refused.append(Refusal(path=row.path, reason="corpus_changed", detail=str(exc)))
            continue
        if trace is not None:
            from workbench.workspace.parts import keep_pdf_parts  # only where a PDF was read

            keep_pdf_parts(workspace, version, data, trace)
    return IngestReport(
        added=tuple(added),
        unchanged=tuple(unchanged),
        awaiting=tuple(awaiting),
        refused=tuple(refused),
    )
