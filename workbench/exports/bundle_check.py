"""Re-checking a bundle offline with nothing but the zip and the documents: every member, artefact,
re-extraction and verdict against what the bundle records, any difference named, and no byte written
outside a temporary folder. The order of checks is in docs/bundle.md, the bounds in
docs/security.md."""

from __future__ import annotations

import hashlib
import re
import tempfile
import zipfile
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.cite.formats import FORMATS, read_citations
from workbench.cite.responses import documents_from_json
from workbench.corpus import check_relative_path, parse_provenance, read_fetched
from workbench.corpus.catalogue import json_lines
from workbench.errors import BundleError, ProvenanceError
from workbench.exports.bundle import (
    BUNDLE_SCHEME,
    DESCRIPTOR,
    DOCUMENTS,
    NOTES,
    READ_SCHEMES,
    REQUIRED,
    BundleProblem,
    BundleReport,
    BundleVerdict,
    crop_members,
    note_members,
    provenance_language,
    reread_version,
    verdict_members,
)
from workbench.exports.crops import PDF, PlacedText
from workbench.models import CatalogueRow, Version, canonical_json, strict_json
from workbench.workspace import Workspace
from workbench.workspace.parts import keep_pdf_parts

if TYPE_CHECKING:
    from workbench.text.pdf import Placed

MAX_DESCRIPTOR_BYTES = 16 * 1024 * 1024
# A bundle is read whole into memory to be re-checked; these keep the worst one a hostile author
# can build under a gigabyte and a linear amount of work (docs/security.md): a member is read no
# further than the lesser of its declared size and MAX_MEMBER_BYTES, the declared sizes add up to
# at most MAX_TOTAL_BYTES, a member inflates at most MAX_RATIO times its stored size (the zip's
# own entry, checked before inflating), and the zip holds at most MAX_MEMBERS members.
MAX_MEMBERS = 20_000
MAX_MEMBER_BYTES = 256 * 1024 * 1024
MAX_TOTAL_BYTES = 768 * 1024 * 1024
MAX_RATIO = 200
_SHA256 = re.compile(r"sha256:[0-9a-f]{64}")
_RESOURCE_NAME = re.compile(r"[a-z0-9._-]+")


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
    """The bundle's zip, after every member name is checked: relative POSIX paths, no `..`, no
    hidden or empty parts, no duplicates, at most `MAX_MEMBERS`."""
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise BundleError(f"{path}: not a zip archive ({exc}); expected a bundle") from exc
    names = archive.namelist()
    if len(names) > MAX_MEMBERS:
        archive.close()
        raise BundleError(
            f"{path}: {len(names)} members; a bundle holds at most {MAX_MEMBERS}; nothing was read"
        )
    for name in names:
        if problem := _safe_member_name(name):
            archive.close()
            raise BundleError(f"{path}: member {name!r} {problem}; nothing was read")
    duplicated = sorted(n for n, count in Counter(names).items() if count > 1)
    if duplicated:
        archive.close()
        raise BundleError(f"{path}: member {duplicated[0]!r} appears twice; nothing was read")
    return archive


def _read_member(archive: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """A member's bytes, reading at most `limit` + 1 (a member longer than declared is caught
    without inflating it whole); refused when it would inflate more than `MAX_RATIO` times its
    stored size."""
    info = archive.getinfo(name)
    if info.flag_bits & 0x1:
        raise BundleError(f"{archive.filename}: member {name!r} is encrypted")
    if min(info.file_size, limit) > MAX_RATIO * max(info.compress_size, 1):
        raise BundleError(
            f"{archive.filename}: member {name!r} inflates {info.compress_size} bytes to "
            f"{info.file_size}; at most {MAX_RATIO} times"
        )
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
    if descriptor.get("workbench:bundle_scheme") not in READ_SCHEMES:
        raise BundleError(
            f"{where}: workbench:bundle_scheme {descriptor.get('workbench:bundle_scheme')!r}; "
            f"this workbench reads schemes {', '.join(map(str, READ_SCHEMES))}"
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
    declared = sum(min(r["bytes"], MAX_MEMBER_BYTES) for r in resources)
    if declared > MAX_TOTAL_BYTES:
        raise BundleError(
            f"{archive.filename}: {DESCRIPTOR} declares {declared} bytes of members; a bundle "
            f"holds at most {MAX_TOTAL_BYTES}; nothing was read"
        )
    problems: list[BundleProblem] = []
    good: dict[str, bytes] = {}
    for resource in resources:
        path, size, expected = resource["path"], resource["bytes"], resource["hash"]
        if path not in present:
            problems.append(BundleProblem(where=path, reason="missing", detail="not in the zip"))
            continue
        if size > MAX_MEMBER_BYTES:
            problems.append(
                BundleProblem(
                    where=path,
                    reason="too_large",
                    detail=f"{DESCRIPTOR} says {size} bytes; a member holds at most "
                    f"{MAX_MEMBER_BYTES}; not read",
                )
            )
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
    seen: set[str] = set()
    for number, line in enumerate(json_lines(data.decode("utf-8", errors="replace")), start=1):
        item = _strict_json(line.encode("utf-8"), f"{where}: line {number}")
        rel = item.get("path") if isinstance(item, dict) else None
        if not isinstance(rel, str) or not isinstance(item.get("provenance"), dict):
            raise BundleError(f"{where}: line {number}: expected {{'path', 'provenance'}}")
        if check_relative_path(rel, field="path") or rel.count("/") != 2:
            raise BundleError(f"{where}: line {number}: path {rel!r} is not a catalogue path")
        if rel in seen:
            raise BundleError(f"{where}: line {number}: path {rel!r} appears twice")
        seen.add(rel)
        try:
            parse_provenance(canonical_json(item["provenance"]).encode("utf-8"), source=rel)
        except ProvenanceError as exc:
            raise BundleError(f"{where}: line {number}: {exc}") from exc
        rows.append(CatalogueRow.of(rel, item["provenance"]))
    return tuple(rows)


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


# What a later scheme may word or show differently without deciding otherwise: a refusal's
# explanation, and where a quote found nowhere is shown.
_REWORDED = ("detail",)
_SHOWN = ("char_start", "char_end", "actual_text")


def _decisions(data: bytes) -> bytes:
    """Verdict lines of an older bundle scheme, as what they decide: every key but the reworded
    ones (`_REWORDED`, and `_SHOWN` of a `quote_not_found` refusal), canonical JSON per line;
    a line that is not a JSON object is kept as it is, so it still differs."""
    out = []
    for raw in data.splitlines():
        try:
            row = strict_json(raw.decode("utf-8"), ValueError)
        except (UnicodeDecodeError, ValueError):
            row = None
        if not isinstance(row, dict):
            out.append(raw)
            continue
        dropped = _REWORDED + (_SHOWN if row.get("reason") == "quote_not_found" else ())
        out.append(canonical_json({k: v for k, v in row.items() if k not in dropped}).encode())
    return b"".join(line + b"\n" for line in out)


def _check_crops(
    bundled: Sequence[Mapping[str, Any]],
    members: Mapping[str, bytes],
    verdicts: Sequence[BundleVerdict],
    held: Mapping[str, tuple[Version, bytes, str | None]],
    placed: Mapping[str, PlacedText],
    ocr_cache: Path | None,
) -> list[BundleProblem]:
    """The page images drawn again (`bundle.crop_members`) from the re-read PDF versions `held`
    (each with its artefact's bytes and provenance language), their glyph boxes read off the
    re-extraction's trace (`placed`), and compared byte for byte; a crop of a version that could
    not be re-read is left unchecked beyond its hash (a problem already names that version)."""
    derived = {path: png for path, png, _ in crop_members(verdicts, held, ocr_cache, placed)}
    problems: list[BundleProblem] = []
    for resource in bundled:
        path, crop = resource["path"], resource["workbench:crop"]
        if path not in members or not isinstance(crop, dict) or crop.get("version_id") not in held:
            continue
        drawn = derived.get(path, b"")
        if members[path] != drawn:
            problems.append(
                BundleProblem(
                    where=path,
                    reason="differs",
                    detail=f"the re-check draws another image ({len(drawn)} bytes, sha256 "
                    f"{hashlib.sha256(drawn).hexdigest()})",
                )
            )
    named = {r["path"] for r in bundled}
    for path in sorted(set(derived) - named):
        problems.append(
            BundleProblem(where=path, reason="missing", detail="a verified quote's crop is absent")
        )
    return problems


def verify_bundle(
    path: Path, *, mirror: Path | None = None, ocr_cache: Path | None = None
) -> BundleReport:
    """Re-check a bundle offline (the checks, in order: docs/bundle.md); documents come from the
    bundle when it holds them, else from `mirror` (a folder in mirror layout,
    `<jurisdiction>/<family>/<file>`); a scanned page is read through the OCR cache `ocr_cache`
    (None: by the engine again).

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
    fmt, listed = citations.get("workbench:format"), citations.get("workbench:documents")
    if fmt not in FORMATS or not isinstance(listed, list):
        raise BundleError(f"{DESCRIPTOR}: the citations resource names no readable format")
    documents = documents_from_json(listed, f"{DESCRIPTOR}: workbench:documents")
    scheme = descriptor["workbench:bundle_scheme"]
    with tempfile.TemporaryDirectory(prefix="workbench-bundle-") as scratch:
        inside = Path(scratch) / "documents"
        for row in rows:
            data = members.get(DOCUMENTS + row.path)
            if data is not None:
                target = inside / row.path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
        versions: list[Version] = []
        # A PDF re-read once: its parts (what the verifier reads) and its crops' glyph boxes
        # are read off this extraction's trace, as ingest keeps a PDF's parts off its own.
        pdfs: dict[str, tuple[Version, bytes, str | None]] = {}
        placed: dict[str, PlacedText] = {}
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
            trace: list[Placed] | None = [] if row.media_type == PDF else None
            version = reread_version(row, recorded.get(row.path), folder, ocr_cache, trace)
            if isinstance(version, BundleProblem):
                problems.append(version)
                continue
            versions.append(version)
            if trace is not None and version.origin is not None:
                data = read_fetched(row, folder)
                pdfs[row.path] = (version, data, provenance_language(row))
                placed[row.path] = PlacedText(trace=tuple(trace), origin=version.origin)
        by_path = {r.path: r for r in rows}
        with Workspace(Path(scratch) / "workspace.sqlite") as workspace:
            for version in versions:
                workspace.add_version(version, by_path[version.version_id].provenance)
                if version.version_id in pdfs:
                    data = pdfs[version.version_id][1]
                    keep_pdf_parts(workspace, version, data, placed[version.version_id].trace)
            if NOTES[1] in members:
                facts = [
                    _strict_json(raw, f"{NOTES[1]}: line {n}")
                    for n, raw in enumerate(members[NOTES[1]].splitlines(), start=1)
                ]
                notes_bytes, citation_bytes = note_members(workspace, facts)
                problems += _compare(NOTES[1], members[NOTES[1]], notes_bytes)
                problems += _compare(REQUIRED["citations"], members[needed[2]], citation_bytes)
            lines = read_citations(members[needed[2]], fmt, documents=documents, source=needed[2])
            for line in lines:
                if line.error is not None:
                    problems.append(
                        BundleProblem(where=needed[2], reason="unreadable", detail=line.error)
                    )
            verdicts, verdict_bytes, annotation_bytes = verdict_members(
                workspace, lines, scheme=scheme
            )
        bundled_crops = [r for r in resources if "workbench:crop" in r]
        if bundled_crops:
            problems += _check_crops(bundled_crops, members, verdicts, pdfs, placed, ocr_cache)
    for name in ("verdicts", "annotations"):
        member = REQUIRED[name]
        if member in members:
            bundled, derived = members[member], annotation_bytes
            if name == "verdicts":
                derived = verdict_bytes
                if scheme != BUNDLE_SCHEME:
                    bundled, derived = _decisions(bundled), _decisions(derived)
            problems += _compare(member, bundled, derived)
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
