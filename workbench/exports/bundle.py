"""A bundle anyone can re-check (the Bundles contract of docs/design.md): citations, their verdicts
and the versions they cite in one Frictionless Data Package zip, written whole or not at all, each
member derived by one function the re-check calls too. The members are in docs/bundle.md."""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.cite import VERIFIED_MEANS, SourceIndex, Verification, find_text, index_text
from workbench.cite.formats import Format, read_citations
from workbench.cite.lines import CitationLine, PageRange
from workbench.cite.pages import verdict_pages
from workbench.cite.placing import verify_lines
from workbench.cite.responses import Document, documents_as_json
from workbench.cite.verdicts import tally, verification_as_json
from workbench.cite.w3c import annotate_verified
from workbench.corpus import read_catalogue, read_fetched
from workbench.errors import (
    BundleError,
    ChecksumMismatch,
    ExtractionError,
    NoteError,
    ShowError,
    TextDecodeError,
    UnsafePath,
)
from workbench.exports.crops import (
    PDF,
    PlacedText,
    needs_glyphs,
    placed_text,
    render_span,
    row_mismatch,
)
from workbench.files import replace_file_with
from workbench.models import CatalogueRow, Version, canonical_json, content_id
from workbench.notes.note import notes_in, parse_note
from workbench.text.normalize import SCHEME, SCHEME_VERSION
from workbench.workspace import Workspace, version_from_row

if TYPE_CHECKING:
    from workbench.text.pdf import Placed

# 1: verdicts without caveats, annotations whose source id is the version id.
# 2: verdicts with their caveats, annotations whose source id is the text's ni: IRI (`cite.w3c`).
BUNDLE_SCHEME = 2
READ_SCHEMES = (1, 2)
DESCRIPTOR = "datapackage.json"
# Resources every bundle holds, by name and member path; `notes` and documents are optional.
REQUIRED = {
    "catalogue": "catalogue.jsonl",
    "versions": "versions.jsonl",
    "citations": "citations.jsonl",
    "annotations": "annotations.jsonl",
    "verdicts": "verdicts.jsonl",
    "verdict-log-head": "verdict-log-head.json",
}
NOTES = ("notes", "notes.jsonl")
DOCUMENTS = "documents/"
CROPS = "crops/"
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed member times: the same content gives the same members


@dataclass(frozen=True, slots=True, kw_only=True)
class BundleProblem:
    """One thing a re-check found wrong, named by the member, version or line at fault."""

    where: str
    reason: str  # a stable code: missing, unexpected_member, sha256_mismatch, text_changed, ...
    detail: str

    def line(self) -> str:
        return f"{self.where}: {self.reason}: {self.detail}"


@dataclass(frozen=True, slots=True, kw_only=True)
class BundleVerdict:
    """One citation's verdict as re-derived, its line (with the pages it named) and the PDF pages
    its span lies on (None without a page map)."""

    line: CitationLine
    verification: Verification
    pages: PageRange | None


@dataclass(frozen=True, slots=True, kw_only=True)
class BundleReport:
    """What writing or re-checking a bundle gave. `digest` is the sha256 of `datapackage.json`:
    the one value a sender publishes so a recipient knows the bundle is the one sent."""

    path: Path
    digest: str
    versions: tuple[str, ...]
    verdicts: tuple[BundleVerdict, ...]
    log_head: Mapping[str, Any]
    problems: tuple[BundleProblem, ...] = ()


# ---------------------------------------------------------------------------------------------
# What a bundle holds, derived the same way when writing and when re-checking


def _jsonl(items: Sequence[Mapping[str, Any]]) -> bytes:
    return "".join(canonical_json(item) + "\n" for item in items).encode("utf-8")


def version_record(version: Version) -> dict[str, Any]:
    """A version's line in `versions.jsonl`: how it was read (artefact, extractor, text hash)."""
    return {
        "version_id": version.version_id,
        "media_type": version.media_type,
        "artefact_sha256": version.artefact_sha256,
        "artefact_bytes": version.artefact_bytes,
        "extractor": version.extractor,
        "extractor_version": version.extractor_version,
        "text_sha256": version.text_sha256,
        "pages": len(version.pages),
    }


def verdict_members(
    workspace: Workspace, lines: Sequence[CitationLine], *, scheme: int = BUNDLE_SCHEME
) -> tuple[tuple[BundleVerdict, ...], bytes, bytes]:
    """Every line's verdict, and the verdicts and annotations members' bytes, in the shapes a
    bundle of `scheme` holds (so a bundle written before a later scheme re-checks as written)."""
    verified = verify_lines(workspace, lines)
    spanned = verdict_pages(workspace, verified)
    verdicts = tuple(
        BundleVerdict(line=line, verification=v, pages=pages)
        for line, v, pages in zip(lines, verified, spanned, strict=True)
        if v is not None
    )
    rows = [
        verification_as_json(
            v.line.line, v.verification, spanned=v.pages, named=v.line.pages, scheme=scheme
        )
        for v in verdicts
    ]
    annotations = annotate_verified(workspace, (v.verification for v in verdicts), scheme=scheme)
    return verdicts, _jsonl(rows), _jsonl(annotations)


def crop_members(
    verdicts: Sequence[BundleVerdict],
    versions: Mapping[str, tuple[Version, bytes, str | None]],
    ocr_cache: Path | None = None,
    placed: Mapping[str, PlacedText] | None = None,
) -> list[tuple[str, bytes, dict[str, Any]]]:
    """With `--with-crops`: for each verified verdict (its number in input order, from 1) into a
    PDF version held in `versions` (the version, its artefact bytes and provenance language), the
    member `crops/<number>.png`, the page region of its span with its characters' boxes
    highlighted (`crops.render_span`), and what its resource records (`workbench:crop`).

    A version's glyph boxes are read off one extraction for all its crops: the caller's
    (`placed`, by version id), else one made at its first crop that needs them."""
    read = dict(placed or {})
    out: list[tuple[str, bytes, dict[str, Any]]] = []
    for number, verdict in enumerate(verdicts, start=1):
        citation = verdict.verification.citation
        held = versions.get(citation.version_id)
        if not verdict.verification.verified or held is None or held[0].media_type != PDF:
            continue
        version, data, language = held
        start, end = citation.char_start, citation.char_end
        try:
            if needs_glyphs(version, start, end) and version.version_id not in read:
                read[version.version_id] = placed_text(
                    version, data, language=language, ocr_cache=ocr_cache
                )
            image = render_span(
                version,
                data,
                start,
                end,
                language=language,
                ocr_cache=ocr_cache,
                placed=read.get(version.version_id),
            )
        except ShowError:  # a span of white space alone has no box to show
            continue
        out.append((f"{CROPS}{number}.png", image.png, {"verdict": number, **image.as_json()}))
    return out


def note_members(workspace: Workspace, quotes: Sequence[Mapping[str, Any]]) -> tuple[bytes, bytes]:
    """The notes and citations members for note quotes (each a `notes.jsonl` line's facts: note,
    note sha256, quote line, quoted text, occurrence, version id).

    A quote is looked up in its version by the verifier's exact search under the note occurrence
    rule (`quotes.find_text`): `found` becomes one citation in our JSON at the occurrence's raw
    offsets, naming the occurrence when the note names one; `missing`, `ambiguous` and
    `no_such_occurrence` stay in `notes.jsonl` with every occurrence's span and no citation; a
    version the workspace does not hold is `unknown_version`.
    """
    held = set(workspace.version_ids())
    rows: list[dict[str, Any]] = []
    citations: list[dict[str, Any]] = []
    indexes: dict[str, SourceIndex] = {}  # each version's text read and indexed once
    for quote in quotes:
        version_id, text, occurrence = (
            quote["version_id"],
            quote["quoted_text"],
            quote["occurrence"],
        )
        row = {k: quote[k] for k in ("note", "note_sha256", "quote_line", "quoted_text")}
        row |= {"occurrence": occurrence, "version_id": version_id}
        if version_id not in held:
            rows.append(row | {"status": "unknown_version", "spans": [], "citation_line": None})
            continue
        if version_id not in indexes:
            indexes[version_id] = index_text(workspace.version(version_id).text)
        status, spans = find_text(indexes[version_id], text, occurrence)
        line = None
        if status == "found":
            start, end = spans[(occurrence or 1) - 1]
            citation = {
                "version_id": version_id,
                "char_start": start,
                "char_end": end,
                "quoted_text": text,
            }
            if occurrence is not None:
                citation["occurrence"] = occurrence
            citations.append(citation)
            line = len(citations)
        rows.append(
            row | {"status": status, "spans": [list(s) for s in spans], "citation_line": line}
        )
    return _jsonl(rows), _jsonl(citations)


def note_quotes(folder: Path) -> tuple[dict[str, Any], ...]:
    """Every document quote of every note under `folder` (`claims.notes_in`), in note then quote
    order: the note's path relative to `folder`, the sha256 of its bytes, the quote's line, its
    text and occurrence, and the version it is checked against (the note's `pointer`, else its
    `document`; a note naming neither is refused, since its quotes cite nothing)."""
    out: list[dict[str, Any]] = []
    for path in notes_in(folder):
        note = parse_note(path)
        version_id = note.pointer or note.get("document")
        if version_id is None:
            raise NoteError(f"{path}: names no document (pointer or document); nothing to bundle")
        for quote in note.document_quotes:
            out.append(
                {
                    "note": path.relative_to(folder).as_posix(),
                    "note_sha256": hashlib.sha256(note.data).hexdigest(),
                    "quote_line": quote.line,
                    "quoted_text": quote.text,
                    "occurrence": quote.occurrence,
                    "version_id": version_id,
                }
            )
    if not out:
        raise NoteError(f"{folder}: no note quotes a document; nothing to bundle")
    return tuple(out)


def _log_head(workspace: Workspace) -> dict[str, Any]:
    from workbench.changes.log import verify_chain

    report = verify_chain(workspace)
    return {
        "rows": report.rows,
        "head": report.head,
        "chain_valid": report.valid,
        "problem": report.problem,
        "seq": report.seq,
    }


def reread_version(
    row: CatalogueRow,
    recorded: Mapping[str, Any] | None,
    folder: Path,
    ocr_cache: Path | None = None,
    trace: list[Placed] | None = None,
) -> Version | BundleProblem:
    """The version re-extracted from its artefact in `folder`, checked against its catalogue row
    and against how the bundle says it was read; or the problem that stopped it. A scanned
    page's words come from the OCR cache `ocr_cache` where it holds them. With `trace`, a PDF's
    placed runs are appended there (`workspace.version_from_row`)."""
    from workbench.text.ocr import OcrOptions  # pypdfium2 loads only when a file is read

    try:
        data = read_fetched(row, folder)
        version = version_from_row(row, data, ocr=OcrOptions(cache=ocr_cache), trace=trace)
    except FileNotFoundError:
        return BundleProblem(
            where=row.path, reason="missing", detail=f"no artefact at {folder / row.path}"
        )
    except (ChecksumMismatch, UnsafePath, ExtractionError, TextDecodeError) as exc:
        return BundleProblem(where=row.path, reason="sha256_mismatch", detail=str(exc))
    expected = version_record(version)
    if recorded != expected:
        fields = sorted(
            k for k in expected if recorded is None or recorded.get(k) != expected.get(k)
        )
        return BundleProblem(
            where=row.path,
            reason="text_changed",
            detail=f"re-extraction differs from {REQUIRED['versions']} in "
            + ", ".join(f"{k} ({expected[k]!r})" for k in fields),
        )
    return version


# ---------------------------------------------------------------------------------------------
# Writing


def _resource(name: str, path: str, data: bytes, **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "path": path,
        "bytes": len(data),
        "hash": "sha256:" + hashlib.sha256(data).hexdigest(),
        **more,
    }


_DESCRIPTIONS = {
    "catalogue": "catalogue rows (path and provenance) of every version cited",
    "versions": "how each cited version was read: artefact and text sha256, extractor, pages",
    "citations": "the citations as given",
    "annotations": "every verified citation as a W3C Web Annotation",
    "verdicts": "every citation's verdict, in input order, as 'workbench verify --json' prints it; "
    "workbench:counts keeps the plainly verified, the verified with caveats, the resolved and the "
    "refused apart",
    "verdict-log-head": "the head of the verdict log when the bundle was written",
    "notes": "every note quote, its status in its version and the citation it became",
}


def write_bundle(
    out: Path,
    workspace: Workspace,
    corpus_dir: Path,
    *,
    citations: bytes | None = None,
    fmt: Format = "workbench",
    documents: Sequence[Document] | None = None,
    source: str = "-",
    notes: Path | None = None,
    store: Path | None = None,
    crops: Path | None = None,
    ocr_cache: Path | None = None,
) -> BundleReport:
    """Verify and write a bundle at `out` (its members: docs/bundle.md), whole or not at all (a
    temporary file moved into place); exactly one of `citations` (a JSON
    Lines file's bytes in `fmt`) or `notes` (a folder). With `store` (the fetched corpus folder),
    each cited version's artefact bytes go inside, read hash-checked from there. With `crops` (the
    fetched corpus folder), each verified citation of a PDF version gets its page image
    (`crop_members`), a scanned page re-read through `ocr_cache`.

    Refused with `BundleError` (nothing written): a line that cannot be read (a bundle holds only
    citations a recipient can re-read), no citation at all, a cited version whose catalogue row is
    missing or hashes other bytes than the workspace's version. The zip is written to a temporary
    file beside `out` and moved into place, so a failure leaves no half bundle.
    """
    if (citations is None) == (notes is None):
        raise BundleError("a bundle is written from --citations FILE or from --notes DIR, not both")
    members: dict[str, bytes] = {}
    extra: dict[str, Any] = {}
    if notes is not None:
        notes_bytes, citations = note_members(workspace, note_quotes(notes))
        members[NOTES[1]] = notes_bytes
        fmt, documents, source = "workbench", None, str(notes)
    assert citations is not None
    lines = read_citations(citations, fmt, documents=documents, source=source)
    bad = next((line for line in lines if line.error is not None), None)
    if bad is not None:
        raise BundleError(f"{source}: {bad.error}; a bundle holds only citations it can re-read")
    claim = next((line for line in lines if line.claim is not None), None)
    if claim is not None:
        raise BundleError(
            f"{source}: line {claim.line} is an absence or count claim; a bundle holds citations "
            "('workbench verify' decides claims)"
        )
    if not lines:
        raise BundleError(f"{source}: no citation to bundle")
    verdicts, verdict_bytes, annotation_bytes = verdict_members(workspace, lines)
    held = set(workspace.version_ids())
    cited = sorted({c.version_id for c in (v.verification.citation for v in verdicts)} & held)
    catalogue = {row.path: row for row in read_catalogue(corpus_dir)}
    versions = [workspace.version(version_id) for version_id in cited]
    rows: list[CatalogueRow] = []
    for version in versions:
        row = catalogue.get(version.version_id)
        unlike = row_mismatch(version, row, corpus_dir)
        if unlike is not None or row is None:
            raise BundleError(unlike)
        rows.append(row)
    members[REQUIRED["catalogue"]] = _jsonl(
        [{"path": r.path, "provenance": r.provenance} for r in rows]
    )
    members[REQUIRED["versions"]] = _jsonl([version_record(v) for v in versions])
    members[REQUIRED["citations"]] = citations
    extra["citations"] = {
        "workbench:format": fmt,
        "workbench:documents": documents_as_json(documents or ()),
    }
    extra["verdicts"] = {"workbench:counts": tally(v.verification for v in verdicts)}
    members[REQUIRED["annotations"]] = annotation_bytes
    members[REQUIRED["verdicts"]] = verdict_bytes
    log_head = _log_head(workspace)
    members[REQUIRED["verdict-log-head"]] = (canonical_json(log_head) + "\n").encode("utf-8")
    resources = [
        _resource(
            name,
            path,
            members[path],
            format=path.rsplit(".", 1)[1],
            mediatype="application/json",
            encoding="utf-8",
            description=_DESCRIPTIONS[name],
            # CAUTION: the Frictionless reader cannot read a JSON Lines table with no row (it
            # calls the member invalid); an empty member is declared a file, whose bytes and hash
            # it still checks.
            **({"type": "file"} if not members[path] else {}),
            **extra.get(name, {}),
        )
        for name, path in (*REQUIRED.items(), NOTES)
        if path in members
    ]
    if crops is not None:
        artefacts = {
            v.version_id: (v, read_fetched(r, crops), provenance_language(r))
            for v, r in zip(versions, rows, strict=True)
            if v.media_type == PDF
        }
        for path, png, crop in crop_members(verdicts, artefacts, ocr_cache):
            members[path] = png
            resources.append(
                _resource(
                    f"crop-{crop['verdict']}",
                    path,
                    png,
                    mediatype="image/png",
                    description=f"the page region of verdict {crop['verdict']}'s span, its "
                    "characters' boxes highlighted",
                    **{"workbench:crop": crop},
                )
            )
    if store is not None:
        for number, row in enumerate(rows, start=1):
            data = read_fetched(row, store)
            path = DOCUMENTS + row.path
            members[path] = data
            resources.append(
                _resource(
                    f"document-{number}",
                    path,
                    data,
                    mediatype=row.media_type,
                    description=f"the artefact bytes of {row.path}",
                )
            )
    descriptor = {
        "$schema": "https://datapackage.org/profiles/2.0/datapackage.json",
        "name": "workbench-citations",
        "id": "urn:sha256:" + content_id([[r["name"], r["hash"]] for r in resources]),
        "title": "Citations, their verdicts, and the versions they cite",
        "description": "Re-check offline with `workbench verify-bundle BUNDLE.zip --mirror DIR` "
        f"(or with no mirror when the documents are inside). {VERIFIED_MEANS}.",
        "created": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "sources": [
            {"title": row.path, "path": row.provenance["source_url"]}
            for row in rows
            if isinstance(row.provenance.get("source_url"), str)
        ],
        "workbench:bundle_scheme": BUNDLE_SCHEME,
        "workbench:normalizer": f"{SCHEME} v{SCHEME_VERSION}",
        "resources": resources,
    }
    descriptor_bytes = (json.dumps(descriptor, ensure_ascii=False, indent=2) + "\n").encode()
    _write_zip(out, {DESCRIPTOR: descriptor_bytes, **members})
    return BundleReport(
        path=out,
        digest=hashlib.sha256(descriptor_bytes).hexdigest(),
        versions=tuple(cited),
        verdicts=verdicts,
        log_head=log_head,
    )


def provenance_language(row: CatalogueRow) -> str | None:
    """The provenance's `language` (what a scanned page is read in), None when absent."""
    named = row.provenance.get("language")
    return named if isinstance(named, str) else None


def _write_zip(out: Path, members: Mapping[str, bytes]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)

    def write(temporary: Path) -> None:
        with zipfile.ZipFile(temporary, "x", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, data in members.items():
                info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
                info.external_attr = 0o644 << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, data)

    replace_file_with(out, write, mode=0o644)


__all__ = [
    "BUNDLE_SCHEME",
    "READ_SCHEMES",
    "BundleProblem",
    "BundleReport",
    "BundleVerdict",
    "crop_members",
    "note_quotes",
    "provenance_language",
    "write_bundle",
]
