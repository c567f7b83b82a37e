"""A bundle anyone can re-check: citations, their verdicts and the versions they cite, in one zip.

`write_bundle` verifies a file of citations (or the quotes of a folder of notes) against the
workspace and writes a Frictionless Data Package (https://datapackage.org/standard/data-package/)
as a zip: `datapackage.json` at the top, and one resource per member, each with its byte count
and `sha256:` hash (the Data Resource `hash` property, algorithm prefixed):

* `catalogue.jsonl`: the catalogue row (path and full provenance: source URL, mirror, hashes) of
  every version a citation names and the workspace holds, one canonical JSON line each, by path;
* `versions.jsonl`: how each of those versions was read: artefact sha256 and size, media type,
  extractor name and version, text sha256, page count;
* `citations.jsonl`: the citations exactly as given (their format and `--documents` list are in
  the resource's `workbench:format` and `workbench:documents`); from notes, one citation in our
  JSON per note quote found in its document, and `notes.jsonl` beside it, one line per quote;
* `annotations.jsonl`: every verified citation as a W3C Web Annotation (`formats.annotation`);
  a refused one is never exported as an annotation, since it would assert a quote that is not
  there;
* `verdicts.jsonl`: every verdict, in input order, as `workbench verify --json` prints it, in
  canonical JSON: the bytes a re-check must reproduce;
* `verdict-log-head.json`: the head of the workspace's verdict log (C8) when the bundle was
  written: rows, head digest, whether its chain verified;
* with `with_documents`, `documents/<version id>`: each cited version's artefact bytes.

`verify_bundle` re-checks a bundle offline with nothing but the zip and a mirror folder (or the
bytes inside): every member against its hash, every artefact against its catalogue row, every
re-extraction against its recorded text hash, then it rebuilds a workspace holding only those
versions (in a temporary folder), verifies the citations again through the same functions, and
compares the verdicts, annotations and note lines byte for byte. The guarantee: a bundle re-checks
clean only if every member is the one its descriptor hashes, every artefact is the one its
catalogue row hashes, and the verdicts it holds are the ones the rule gives today; anything else
is reported as a problem naming the member, the version or the line. Reading never writes outside
a temporary folder: member names are checked (relative POSIX paths, no `..`, no hidden or empty
parts, no duplicates) before any member is read, and a member is read no further than the size its
descriptor declares.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from workbench.cite import VERIFIED_MEANS, SourceIndex, Verification, index_text
from workbench.cite.formats import (
    FORMATS,
    CitationLine,
    Format,
    PageRange,
    annotate_verified,
    read_citations,
    verification_as_json,
)
from workbench.cite.pages import verdict_pages, verify_lines
from workbench.corpus.catalogue import (
    check_relative_path,
    parse_provenance,
    read_catalogue,
    read_fetched,
)
from workbench.errors import (
    BundleError,
    ChecksumMismatch,
    ExtractionError,
    NoteError,
    ProvenanceError,
    TextDecodeError,
    UnsafePath,
)
from workbench.files import replace_file_with
from workbench.models import CatalogueRow, Version, canonical_json, content_id, strict_json
from workbench.notes.claims import notes_in, parse_note
from workbench.notes.register import find_text
from workbench.workspace import Workspace, version_from_row

BUNDLE_SCHEME = 1
DESCRIPTOR = "datapackage.json"
MAX_DESCRIPTOR_BYTES = 16 * 1024 * 1024
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
_SHA256 = re.compile(r"sha256:[0-9a-f]{64}")
_RESOURCE_NAME = re.compile(r"[a-z0-9._-]+")
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


def _version_record(version: Version) -> dict[str, Any]:
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


def _verdicts(
    workspace: Workspace, lines: Sequence[CitationLine]
) -> tuple[tuple[BundleVerdict, ...], bytes, bytes]:
    """Every line's verdict, and the verdicts and annotations members' bytes."""
    verified = verify_lines(workspace, lines)
    spanned = verdict_pages(workspace, verified)
    verdicts = tuple(
        BundleVerdict(line=line, verification=v, pages=pages)
        for line, v, pages in zip(lines, verified, spanned, strict=True)
        if v is not None
    )
    rows = [
        verification_as_json(v.line.line, v.verification, spanned=v.pages, named=v.line.pages)
        for v in verdicts
    ]
    annotations = annotate_verified(workspace, (v.verification for v in verdicts))
    return verdicts, _jsonl(rows), _jsonl(annotations)


def _note_citations(
    workspace: Workspace, quotes: Sequence[Mapping[str, Any]]
) -> tuple[bytes, bytes]:
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
    "verdicts": "every citation's verdict, in input order, as 'workbench verify --json' prints it",
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
    documents: Sequence[str] | None = None,
    source: str = "-",
    notes: Path | None = None,
    store: Path | None = None,
) -> BundleReport:
    """Verify and write a bundle at `out` (module docstring); exactly one of `citations` (a JSON
    Lines file's bytes in `fmt`) or `notes` (a folder). With `store` (the fetched corpus folder),
    each cited version's artefact bytes go inside, read hash-checked from there.

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
        notes_bytes, citations = _note_citations(workspace, note_quotes(notes))
        members[NOTES[1]] = notes_bytes
        fmt, documents, source = "workbench", None, str(notes)
    assert citations is not None
    lines = read_citations(citations, fmt, documents=documents, source=source)
    bad = next((line for line in lines if line.error is not None), None)
    if bad is not None:
        raise BundleError(f"{source}: {bad.error}; a bundle holds only citations it can re-read")
    if not lines:
        raise BundleError(f"{source}: no citation to bundle")
    verdicts, verdict_bytes, annotation_bytes = _verdicts(workspace, lines)
    held = set(workspace.version_ids())
    cited = sorted({c.version_id for c in (v.verification.citation for v in verdicts)} & held)
    catalogue = {row.path: row for row in read_catalogue(corpus_dir)}
    versions = [workspace.version(version_id) for version_id in cited]
    rows: list[CatalogueRow] = []
    for version in versions:
        row = catalogue.get(version.version_id)
        if row is None or row.sha256 != version.artefact_sha256:
            raise BundleError(
                f"{version.version_id}: "
                + ("not in the catalogue" if row is None else f"catalogue sha256 {row.sha256}")
                + f" in {corpus_dir}; the workspace holds artefact sha256 "
                f"{version.artefact_sha256}"
            )
        rows.append(row)
    members[REQUIRED["catalogue"]] = _jsonl(
        [{"path": r.path, "provenance": dict(r.provenance)} for r in rows]
    )
    members[REQUIRED["versions"]] = _jsonl([_version_record(v) for v in versions])
    members[REQUIRED["citations"]] = citations
    extra["citations"] = {"workbench:format": fmt, "workbench:documents": list(documents or [])}
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
            **extra.get(name, {}),
        )
        for name, path in (*REQUIRED.items(), NOTES)
        if path in members
    ]
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


# ---------------------------------------------------------------------------------------------
# Reading


def _safe_member_name(name: str) -> str | None:
    """Why `name` cannot be a member, or None: it must be a relative POSIX path whose parts are
    neither empty, `.`, `..` nor hidden (the Data Package rule for resource paths), with no
    backslash, NUL or drive colon."""
    if not name or name.startswith("/") or any(c in name for c in "\\\0:"):
        return "is not a relative POSIX path"
    if any(part in ("", ".", "..") or part.startswith(".") for part in name.split("/")):
        return "has an empty, '.', '..' or hidden part"
    return None


def _open(path: Path) -> zipfile.ZipFile:
    """The bundle's zip, after every member name is checked (module docstring)."""
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise BundleError(f"{path}: not a zip archive ({exc}); expected a bundle") from exc
    names = archive.namelist()
    for name in names:
        if problem := _safe_member_name(name):
            archive.close()
            raise BundleError(f"{path}: member {name!r} {problem}; nothing was read")
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        archive.close()
        raise BundleError(f"{path}: member {duplicated[0]!r} appears twice; nothing was read")
    return archive


def _read_member(archive: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """A member's bytes, reading at most `limit` + 1 (a member longer than declared is caught
    without inflating it whole)."""
    info = archive.getinfo(name)
    if info.flag_bits & 0x1:
        raise BundleError(f"{archive.filename}: member {name!r} is encrypted")
    try:
        with archive.open(info) as member:
            return member.read(limit + 1)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise BundleError(f"{archive.filename}: member {name!r} cannot be read ({exc})") from exc


def _strict_json(data: bytes, where: str) -> Any:
    """JSON with no duplicate key and no NaN or Infinity, or `BundleError` naming `where`."""
    try:
        return strict_json(data.decode("utf-8"), ValueError)
    except (UnicodeDecodeError, ValueError) as exc:
        raise BundleError(f"{where}: not strict UTF-8 JSON ({exc})") from exc


def _descriptor(archive: zipfile.ZipFile) -> tuple[dict[str, Any], bytes]:
    where = f"{archive.filename}: {DESCRIPTOR}"
    if DESCRIPTOR not in archive.namelist():
        raise BundleError(f"{where}: missing; expected a Data Package descriptor at the top")
    data = _read_member(archive, DESCRIPTOR, MAX_DESCRIPTOR_BYTES)
    if len(data) > MAX_DESCRIPTOR_BYTES:
        raise BundleError(f"{where}: over {MAX_DESCRIPTOR_BYTES} bytes")
    descriptor = _strict_json(data, where)
    if not isinstance(descriptor, dict):
        raise BundleError(f"{where}: expected a JSON object")
    if descriptor.get("workbench:bundle_scheme") != BUNDLE_SCHEME:
        raise BundleError(
            f"{where}: workbench:bundle_scheme {descriptor.get('workbench:bundle_scheme')!r}; "
            f"this workbench reads scheme {BUNDLE_SCHEME}"
        )
    resources = descriptor.get("resources")
    if not isinstance(resources, list) or not resources:
        raise BundleError(f"{where}: 'resources' must be a non-empty array")
    names: set[str] = set()
    for number, resource in enumerate(resources):
        at = f"{where}: resources[{number}]"
        if not isinstance(resource, dict):
            raise BundleError(f"{at}: expected an object")
        name, path = resource.get("name"), resource.get("path")
        if not isinstance(name, str) or not _RESOURCE_NAME.fullmatch(name) or name in names:
            raise BundleError(f"{at}: 'name' {name!r} is not a unique lower-case name")
        names.add(name)
        if not isinstance(path, str) or _safe_member_name(path):
            raise BundleError(f"{at}: 'path' {path!r} is not a relative POSIX path")
        if not isinstance(resource.get("hash"), str) or not _SHA256.fullmatch(resource["hash"]):
            raise BundleError(f"{at}: 'hash' must be 'sha256:' and 64 hex digits")
        if type(resource.get("bytes")) is not int or resource["bytes"] < 0:
            raise BundleError(f"{at}: 'bytes' must be a byte count")
    for name, path in REQUIRED.items():
        if not any(r["name"] == name and r["path"] == path for r in resources):
            raise BundleError(f"{where}: no resource {name!r} at {path!r}")
    return descriptor, data


def _members(
    archive: zipfile.ZipFile, resources: Sequence[Mapping[str, Any]]
) -> tuple[dict[str, bytes], list[BundleProblem]]:
    """Every resource's bytes that match its descriptor entry, and a problem for each that is
    missing, a different size, or hashes otherwise; and for each member no resource names."""
    present = set(archive.namelist()) - {DESCRIPTOR}
    problems: list[BundleProblem] = []
    good: dict[str, bytes] = {}
    for resource in resources:
        path, size, expected = resource["path"], resource["bytes"], resource["hash"]
        if path not in present:
            problems.append(BundleProblem(where=path, reason="missing", detail="not in the zip"))
            continue
        data = _read_member(archive, path, size)
        actual = "sha256:" + hashlib.sha256(data).hexdigest()
        if len(data) != size or actual != expected:
            shown = f"over {size}" if len(data) > size else str(len(data))
            problems.append(
                BundleProblem(
                    where=path,
                    reason="sha256_mismatch",
                    detail=f"{shown} bytes hashing to {actual}; {DESCRIPTOR} says {size} bytes, "
                    f"{expected}",
                )
            )
        good[path] = data
    for path in sorted(present - {r["path"] for r in resources}):
        problems.append(
            BundleProblem(where=path, reason="unexpected_member", detail="no resource names it")
        )
    return good, problems


def _catalogue_rows(data: bytes, where: str) -> tuple[CatalogueRow, ...]:
    rows: list[CatalogueRow] = []
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
        item = _strict_json(line.encode("utf-8"), f"{where}: line {number}")
        rel = item.get("path") if isinstance(item, dict) else None
        if not isinstance(rel, str) or not isinstance(item.get("provenance"), dict):
            raise BundleError(f"{where}: line {number}: expected {{'path', 'provenance'}}")
        if check_relative_path(rel, field="path") or rel.count("/") != 2:
            raise BundleError(f"{where}: line {number}: path {rel!r} is not a catalogue path")
        if any(row.path == rel for row in rows):
            raise BundleError(f"{where}: line {number}: path {rel!r} appears twice")
        try:
            parse_provenance(canonical_json(item["provenance"]).encode("utf-8"), source=rel)
        except ProvenanceError as exc:
            raise BundleError(f"{where}: line {number}: {exc}") from exc
        rows.append(CatalogueRow(path=rel, provenance=item["provenance"]))
    return tuple(rows)


def _reread(
    row: CatalogueRow, recorded: Mapping[str, Any] | None, folder: Path
) -> Version | BundleProblem:
    """The version re-extracted from its artefact in `folder`, checked against its catalogue row
    and against how the bundle says it was read; or the problem that stopped it."""
    try:
        data = read_fetched(row, folder)
        version = version_from_row(row, data)
    except FileNotFoundError:
        return BundleProblem(
            where=row.path, reason="missing", detail=f"no artefact at {folder / row.path}"
        )
    except (ChecksumMismatch, UnsafePath, ExtractionError, TextDecodeError) as exc:
        return BundleProblem(where=row.path, reason="sha256_mismatch", detail=str(exc))
    expected = _version_record(version)
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


def _compare(where: str, bundled: bytes, derived: bytes) -> list[BundleProblem]:
    if bundled == derived:
        return []
    old, new = bundled.split(b"\n"), derived.split(b"\n")
    differing = [i + 1 for i in range(max(len(old), len(new))) if old[i : i + 1] != new[i : i + 1]]
    return [
        BundleProblem(
            where=where,
            reason="differs",
            detail=f"the re-check gives other bytes at line {', '.join(map(str, differing[:5]))}"
            + (f" and {len(differing) - 5} more" if len(differing) > 5 else ""),
        )
    ]


def verify_bundle(path: Path, *, mirror: Path | None = None) -> BundleReport:
    """Re-check a bundle offline (module docstring); documents come from the bundle when it holds
    them, else from `mirror` (a folder in mirror layout, `<jurisdiction>/<family>/<file>`).

    Raises `BundleError` for a file that is not a bundle at all (not a zip, an unsafe member
    name, no or a malformed descriptor). Everything else found wrong is a `BundleProblem` in the
    report; verdicts are re-derived for every citation that can still be read.
    """
    with _open(path) as archive:
        descriptor, descriptor_bytes = _descriptor(archive)
        resources = descriptor["resources"]
        members, problems = _members(archive, resources)
    digest = hashlib.sha256(descriptor_bytes).hexdigest()
    by_name = {r["name"]: r for r in resources}
    needed = [REQUIRED[n] for n in ("catalogue", "versions", "citations")]
    if any(p not in members for p in needed):
        return BundleReport(
            path=path,
            digest=digest,
            versions=(),
            verdicts=(),
            log_head={},
            problems=tuple(problems),
        )
    rows = _catalogue_rows(members[needed[0]], needed[0])
    recorded = {}
    for number, raw in enumerate(members[needed[1]].splitlines(), start=1):
        item = _strict_json(raw, f"{needed[1]}: line {number}")
        if isinstance(item, dict) and isinstance(item.get("version_id"), str):
            recorded[item["version_id"]] = item
    citations = by_name["citations"]
    fmt, documents = citations.get("workbench:format"), citations.get("workbench:documents")
    if fmt not in FORMATS or not isinstance(documents, list):
        raise BundleError(f"{DESCRIPTOR}: the citations resource names no readable format")
    with tempfile.TemporaryDirectory(prefix="workbench-bundle-") as scratch:
        inside = Path(scratch) / "documents"
        for row in rows:
            data = members.get(DOCUMENTS + row.path)
            if data is not None:
                target = inside / row.path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
        versions: list[Version] = []
        for row in rows:
            folder = inside if (DOCUMENTS + row.path) in members else mirror
            if folder is None:
                problems.append(
                    BundleProblem(
                        where=row.path,
                        reason="missing",
                        detail="the bundle holds no documents; give --mirror DIR",
                    )
                )
                continue
            version = _reread(row, recorded.get(row.path), folder)
            if isinstance(version, BundleProblem):
                problems.append(version)
            else:
                versions.append(version)
        by_path = {r.path: r for r in rows}
        with Workspace(Path(scratch) / "workspace.sqlite") as workspace:
            for version in versions:
                workspace.add_version(version, dict(by_path[version.version_id].provenance))
            if NOTES[1] in members:
                facts = [
                    _strict_json(raw, f"{NOTES[1]}: line {n}")
                    for n, raw in enumerate(members[NOTES[1]].splitlines(), start=1)
                ]
                notes_bytes, citation_bytes = _note_citations(workspace, facts)
                problems += _compare(NOTES[1], members[NOTES[1]], notes_bytes)
                problems += _compare(REQUIRED["citations"], members[needed[2]], citation_bytes)
            lines = read_citations(members[needed[2]], fmt, documents=documents, source=needed[2])
            for line in lines:
                if line.error is not None:
                    problems.append(
                        BundleProblem(where=needed[2], reason="unreadable", detail=line.error)
                    )
            verdicts, verdict_bytes, annotation_bytes = _verdicts(workspace, lines)
    for name in ("verdicts", "annotations"):
        member = REQUIRED[name]
        if member in members:
            derived = verdict_bytes if name == "verdicts" else annotation_bytes
            problems += _compare(member, members[member], derived)
    log_head: Mapping[str, Any] = {}
    if REQUIRED["verdict-log-head"] in members:
        head = _strict_json(members[REQUIRED["verdict-log-head"]], REQUIRED["verdict-log-head"])
        log_head = head if isinstance(head, dict) else {}
    return BundleReport(
        path=path,
        digest=digest,
        versions=tuple(v.version_id for v in versions),
        verdicts=verdicts,
        log_head=log_head,
        problems=tuple(problems),
    )


__all__ = [
    "BUNDLE_SCHEME",
    "BundleProblem",
    "BundleReport",
    "BundleVerdict",
    "note_quotes",
    "verify_bundle",
    "write_bundle",
]
