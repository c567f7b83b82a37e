"""A source report's snapshot (C10): the exact bytes every retained extract was found in, written
only when they hash to the report's `snapshot_sha256` and read only while they still do; every other
case fails closed with its own status."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from workbench.corpus import read_catalogue, read_fetched
from workbench.errors import QuotesRegisterError
from workbench.files import replace_file
from workbench.models import CatalogueRow
from workbench.notes.report import Report, parse_report
from workbench.text.frontmatter import read_header
from workbench.workspace import version_from_row

SNAPSHOT_FIELDS = ("canonical_source", "document_sha256", "extractor")

FailClosed = Literal[
    "snapshot_missing",
    "snapshot_unreadable",
    "snapshot_sha256_mismatch",
    "snapshot_source_mismatch",
]
SnapshotStatus = Literal["ok", FailClosed]


@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot:
    """What reading a report's snapshot found. `text` (the extracted text after the front matter)
    is set only when `status` is `ok`; `detail` says what failed, in words."""

    path: Path
    status: SnapshotStatus
    sha256: str | None
    text: str | None
    detail: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SnapshotWrite:
    path: Path
    sha256: str
    written: bool


def catalogue_row(canonical_source: str, corpus_dir: Path) -> CatalogueRow:
    row = next((r for r in read_catalogue(corpus_dir) if r.path == canonical_source), None)
    if row is None:
        raise QuotesRegisterError(
            f"canonical_source {canonical_source}: not in the catalogue of {corpus_dir}"
        )
    return row


def snapshot_bytes(row: CatalogueRow, store: Path, ocr_cache: Path | None = None) -> bytes:
    """The snapshot of a catalogued document: front matter, then its extracted text exactly.

    The fetched file is checked against its catalogue row first (C3), then extracted by the same
    path the claims check uses (`version_from_row`), so the text is the text offsets index; a
    scanned page's words come from the OCR cache `ocr_cache` where it holds them.
    """
    try:
        data = read_fetched(row, store)
    except FileNotFoundError:
        raise QuotesRegisterError(
            f"canonical_source {row.path}: not held in {store} (fetch the corpus?)"
        ) from None
    from workbench.text.ocr import OcrOptions  # pypdfium2 loads only when a file is read

    version = version_from_row(row, data, ocr=OcrOptions(cache=ocr_cache))
    head = (
        "---\n"
        f"canonical_source: {row.path}\n"
        f"document_sha256: {row.sha256}\n"
        f"extractor: {version.extractor} {version.extractor_version}\n"
        "---\n"
    )
    return (head + version.text).encode("utf-8")


def write_snapshot(
    report_path: Path, *, corpus_dir: Path, store: Path, ocr_cache: Path | None = None
) -> SnapshotWrite:
    """Write the report's snapshot from the fetched corpus, or refuse.

    Refused (`QuotesRegisterError`, nothing written): the report's `document_sha256` is not the
    catalogued hash (changed bytes are a new observation, with a new report), or the bytes built
    hash differently from the recorded `snapshot_sha256`, which is never rewritten. A snapshot
    already holding those bytes is left alone (`written` False).
    """
    report = parse_report(report_path)
    row = catalogue_row(report.canonical_source, corpus_dir)
    if row.sha256 != report.document_sha256:
        raise QuotesRegisterError(
            f"{report_path}: field document_sha256: {report.document_sha256} is not the catalogued "
            f"{row.sha256} of {row.path}; changed source bytes are a new observation and need a "
            "new report"
        )
    data = snapshot_bytes(row, store, ocr_cache)
    digest = hashlib.sha256(data).hexdigest()
    if digest != report.snapshot_sha256:
        raise QuotesRegisterError(
            f"{report_path}: field snapshot_sha256: the snapshot built from "
            f"{report.canonical_source} hashes to {digest}, not the recorded "
            f"{report.snapshot_sha256}; the recorded value is immutable, nothing written"
        )
    target = report.snapshot_path
    if target.is_file() and target.read_bytes() == data:
        return SnapshotWrite(path=target, sha256=digest, written=False)
    target.parent.mkdir(parents=True, exist_ok=True)
    replace_file(target, data)
    return SnapshotWrite(path=target, sha256=digest, written=True)


def _snapshot_fields(text: str) -> tuple[dict[str, str], str] | None:
    """A snapshot's fields (exactly `SNAPSHOT_FIELDS`, in order, each set, one a line with nothing
    between them) and the text after the header; None when the front matter is not that.

    The header is read by the one front-matter reader (`read_header`, where an empty value is
    unset), on the first lines that `\\n` ends, as many as such a header has (the closing `---`
    must be followed by one; the document's text is never split).
    """
    header = read_header(text.split("\n", len(SNAPSHOT_FIELDS) + 2)[:-1])
    if header.problems or header.close is None or len(header.fields) != header.close - 2:
        return None
    fields = {f.name: f.value for f in header.fields if f.value is not None}
    if tuple(fields) != SNAPSHOT_FIELDS or len(fields) != len(header.fields):
        return None
    return fields, text.split("\n", header.close)[header.close]


def read_snapshot(report: Report) -> Snapshot:
    """Read a report's name-paired snapshot, failing closed. Checked in this order, the first
    failure deciding the status: the file exists (`snapshot_missing`); its bytes can be read
    (`snapshot_unreadable`); their SHA-256 is the report's `snapshot_sha256`
    (`snapshot_sha256_mismatch`); they decode as UTF-8 and open with the snapshot's front matter
    (`snapshot_unreadable`); its `canonical_source` and `document_sha256` are the report's
    (`snapshot_source_mismatch`: equal bytes do not bind a path to the report citing it). No other
    copy is ever consulted."""
    path = report.snapshot_path

    def failed(status: SnapshotStatus, detail: str, sha256: str | None = None) -> Snapshot:
        return Snapshot(path=path, status=status, sha256=sha256, text=None, detail=detail)

    if not path.exists():
        return failed(
            "snapshot_missing", f"{path} does not exist (run 'workbench quotes snapshot')"
        )
    try:
        data = path.read_bytes()
    except OSError as exc:
        return failed("snapshot_unreadable", f"{path} cannot be read ({exc.strerror or exc})")
    digest = hashlib.sha256(data).hexdigest()
    if digest != report.snapshot_sha256:
        return failed(
            "snapshot_sha256_mismatch",
            f"{path} hashes to {digest}; the report records {report.snapshot_sha256}",
            digest,
        )
    try:
        parsed = _snapshot_fields(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return failed("snapshot_unreadable", f"{path}: byte {exc.start}: not UTF-8", digest)
    if parsed is None:
        return failed(
            "snapshot_unreadable",
            f"{path} does not open with the front matter {', '.join(SNAPSHOT_FIELDS)}",
            digest,
        )
    fields, text = parsed
    held = (fields["canonical_source"], fields["document_sha256"])
    if held != (report.canonical_source, report.document_sha256):
        return failed(
            "snapshot_source_mismatch",
            f"{path} is a snapshot of {held[0]} (sha256 {held[1]}); the report's source is "
            f"{report.canonical_source} (sha256 {report.document_sha256})",
            digest,
        )
    return Snapshot(path=path, status="ok", sha256=digest, text=text, detail="")
