"""The catalogue: admission of a mirror folder, fetching catalogued bytes, and re-verifying them.

A mirror folder holds `<jurisdiction>/<family>/<file>` with `<file>.provenance.json` beside each
document. `admit` reads every file, checks each provenance record and each document's SHA-256 and
byte count, and returns the admitted rows and one refusal per file it would not admit. Admission
never reads the network and never writes into the mirror.

The catalogue (`corpus/catalogue.jsonl`) is one canonical JSON line per admitted document, sorted by
path, holding its path and its provenance object with every field kept, unknown fields too; beside
it, `catalogue.jsonl.sha256` (in `sha256sum` format) pins the catalogue's own bytes, so an edited
row is detected; `refusals.jsonl` lists what was refused and why. Writing the same admission twice
gives the same bytes.

The guarantee: a byte is trusted only after its SHA-256 was checked against the catalogue, and a
bad download never replaces a fetched file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import urllib.parse
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.defaults import MIRROR_URL
from workbench.errors import (
    CatalogueError,
    ChecksumMismatch,
    FetchError,
    ProvenanceError,
    UnsafePath,
)
from workbench.files import replace_file
from workbench.models import CatalogueRow, Refusal, canonical_json, strict_json
from workbench.progress import bar

CATALOGUE_NAME = "catalogue.jsonl"
CHECKSUM_NAME = "catalogue.jsonl.sha256"
REFUSALS_NAME = "refusals.jsonl"
PROVENANCE_SUFFIX = ".provenance.json"
MAX_PROVENANCE_BYTES = 1 << 20

_SHA256 = re.compile(r"[0-9a-f]{64}")
_COMMIT = re.compile(r"[0-9a-f]{40}")
_REPO = re.compile(r"[A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-]+")


def sha256_file(path: Path) -> tuple[str, int]:
    """SHA-256 hex digest and byte count of a file, read in binary."""
    with path.open("rb") as handle:
        digest = hashlib.file_digest(handle, "sha256")
    return digest.hexdigest(), path.stat().st_size


# Refusal reasons the admission policy itself requires: a transcription is refused from the store
# by design (DESIGN.md C3), so its refusal is reported, not a failure. Every other reason is.
POLICY_REFUSALS = frozenset({"transcription"})


def refusal_is_policy(refusal: Refusal) -> bool:
    """True if the admission policy requires this refusal (see `POLICY_REFUSALS`), not a failure."""
    return refusal.reason in POLICY_REFUSALS


@dataclass(frozen=True, slots=True, kw_only=True)
class Admission:
    """What `admit` found: admitted rows sorted by path, and refusals sorted by path then reason."""

    rows: tuple[CatalogueRow, ...]
    refusals: tuple[Refusal, ...]


# ---------------------------------------------------------------------------------------------
# Provenance


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_source_url(url: Any) -> str | None:
    """None if `url` is an absolute http(s) URL with a host and no white space, else why not."""
    if not isinstance(url, str):
        return "expected an absolute http(s) URL or null"
    if any(ch.isspace() or ord(ch) < 32 for ch in url):
        return "expected an absolute http(s) URL without white space or control characters"
    parts = urllib.parse.urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return "expected an absolute http(s) URL"
    return None


def check_relative_path(path: str, *, field: str) -> str | None:
    """None if `path` is a plain relative POSIX path that cannot climb out of its root."""
    if not path or path.startswith(("/", "\\")) or "\\" in path or "\x00" in path:
        return f"{field} {path[:80]!r} must be a relative POSIX path"
    if any(part in ("", ".", "..") for part in path.split("/")):
        return f"{field} {path[:80]!r} must not hold empty, '.' or '..' parts"
    if re.match(r"[A-Za-z]:", path):
        return f"{field} {path[:80]!r} must not name a drive"
    return None


def shown(value: Any) -> str:
    """A provenance value as JSON, cut to 80 characters: what "got ..." quotes in a problem."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def parse_provenance(data: bytes, *, source: str) -> dict[str, Any]:
    """Parse and check one provenance record; ProvenanceError names `source` and every problem.

    Refused as a whole: more than 1 MiB, not UTF-8, not JSON, not a JSON object, a duplicate
    field, NaN/Infinity. Otherwise every field is checked (see `provenance_problems`) and all the
    problems found are listed in one error, in `PROVENANCE_FIELDS` order. The transcription flag's
    value is checked by `admit`, not here, so its refusal carries its own reason code.
    """
    if len(data) > MAX_PROVENANCE_BYTES:
        raise ProvenanceError(f"{source}: provenance is {len(data)} bytes; expected at most 1 MiB")
    try:
        record = strict_json(data.decode("utf-8"), ProvenanceError)
    except UnicodeDecodeError as exc:
        raise ProvenanceError(f"{source}: provenance is not UTF-8 (byte {exc.start})") from exc
    except json.JSONDecodeError as exc:
        raise ProvenanceError(
            f"{source}: malformed provenance JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from exc
    except ProvenanceError as exc:
        raise ProvenanceError(f"{source}: {exc}") from exc
    if not isinstance(record, dict):
        raise ProvenanceError(f"{source}: provenance must be a JSON object")
    problems = provenance_problems(record)
    if len(problems) == 1:
        raise ProvenanceError(f"{source}: {problems[0]}")
    if problems:
        raise ProvenanceError(f"{source}: {len(problems)} problems: " + "; ".join(problems))
    return record


# The provenance schema's fields in the order a record is written and its problems are listed
# (the order of the mirror's own provenance files). Unknown fields are allowed and kept.
PROVENANCE_FIELDS = (
    "source_url",
    "mirror",
    "jurisdiction",
    "docket_or_bill",
    "document_family",
    "version_label",
    "version_order",
    "filer_or_issuer",
    "filing_date",
    "retrieved_at",
    "sha256",
    "bytes",
    "format",
    "line_numbered",
    "byte_faithful_to_official_filing",
    "license_note",
    "extraction_note",
)
_PARTIAL_DATE = re.compile(r"\d{4}(-\d{2}(-\d{2})?)?")
_RETRIEVED_AT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")
_BLOB = re.compile(r"[0-9a-f]{40}")


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _optional_text(value: Any) -> bool:
    return value is None or isinstance(value, str)


# What each field must hold: (predicate, what is expected, required). A required field that is
# absent is "missing"; an optional one may be absent or null.
_FIELD_RULES: dict[str, tuple[Any, str, bool]] = {
    "jurisdiction": (_text, "a non-empty string", True),
    "docket_or_bill": (_optional_text, "a string or null", False),
    "document_family": (_text, "a non-empty string", True),
    "version_label": (_optional_text, "a string or null", False),
    "version_order": (lambda v: _is_int(v) and v >= 1, "an integer of at least 1", True),
    "filer_or_issuer": (_optional_text, "a string or null", False),
    "filing_date": (
        lambda v: v is None or (isinstance(v, str) and bool(_PARTIAL_DATE.fullmatch(v))),
        "an ISO date (YYYY, YYYY-MM or YYYY-MM-DD) or null",
        False,
    ),
    "retrieved_at": (
        lambda v: v is None or (isinstance(v, str) and bool(_RETRIEVED_AT.fullmatch(v))),
        "an ISO date-time with its UTC offset (YYYY-MM-DDTHH:MM:SS+00:00) or null",
        False,
    ),
    "sha256": (
        lambda v: isinstance(v, str) and bool(_SHA256.fullmatch(v)),
        "64 lowercase hex digits",
        True,
    ),
    "bytes": (lambda v: _is_int(v) and v >= 0, "a non-negative integer", True),
    "format": (_text, "a non-empty string starting with a media type", True),
    "line_numbered": (lambda v: isinstance(v, bool), "true or false", False),
    "byte_faithful_to_official_filing": (lambda v: isinstance(v, bool), "true or false", True),
    "license_note": (_optional_text, "a string or null", False),
    "extraction_note": (_optional_text, "a string or null", False),
}


def provenance_problems(record: Mapping[str, Any]) -> tuple[str, ...]:
    """Every problem of a parsed provenance record, in `PROVENANCE_FIELDS` order; empty if none.

    Each problem is `<field>: missing` for an absent required field, or `<field>: expected ...,
    got <the value as JSON>` for a present one of the wrong kind or value. Required: jurisdiction,
    document_family, version_order, sha256, bytes, format, byte_faithful_to_official_filing, and
    at least one of source_url (an absolute http(s) URL) and mirror (repo `owner/name`, a 40-hex
    commit, a relative path, and optionally a 40-hex `blob` or null). The other schema fields may
    be absent or null, but a present value must be of its kind (see `_FIELD_RULES`).
    """
    problems: list[str] = []
    source_url, mirror = record.get("source_url"), record.get("mirror")
    for name in PROVENANCE_FIELDS:
        if name == "source_url":
            if source_url is None and mirror is None:
                problems.append(
                    "source_url or mirror: missing (one of them must name where the bytes come from)"
                )
            elif source_url is not None and (problem := check_source_url(source_url)):
                problems.append(f"source_url: {problem}, got {shown(source_url)}")
        elif name == "mirror":
            if mirror is not None:
                problems.extend(_mirror_problems(mirror))
        elif name not in record:
            if _FIELD_RULES[name][2]:
                problems.append(f"{name}: missing")
        elif not _FIELD_RULES[name][0](record[name]):
            problems.append(f"{name}: expected {_FIELD_RULES[name][1]}, got {shown(record[name])}")
    return tuple(problems)


def _mirror_problems(mirror: Any) -> list[str]:
    if not isinstance(mirror, dict):
        return [f"mirror: expected an object {{repo, commit, path}} or null, got {shown(mirror)}"]
    problems = []
    repo, commit, path = mirror.get("repo"), mirror.get("commit"), mirror.get("path")
    if "repo" not in mirror:
        problems.append("mirror.repo: missing")
    elif not isinstance(repo, str) or not _REPO.fullmatch(repo):
        problems.append(f"mirror.repo: expected 'owner/name', got {shown(repo)}")
    if "path" not in mirror:
        problems.append("mirror.path: missing")
    elif not isinstance(path, str) or check_relative_path(path, field="mirror.path"):
        problems.append(
            "mirror.path: expected a relative POSIX path with no empty, '.' or '..' part, "
            f"got {shown(path)}"
        )
    if "commit" not in mirror:
        problems.append("mirror.commit: missing")
    elif not isinstance(commit, str) or not _COMMIT.fullmatch(commit):
        problems.append(f"mirror.commit: expected 40 lowercase hex digits, got {shown(commit)}")
    blob = mirror.get("blob")
    if blob is not None and not (isinstance(blob, str) and _BLOB.fullmatch(blob)):
        problems.append(f"mirror.blob: expected 40 lowercase hex digits or null, got {shown(blob)}")
    return problems


def provenance_file_bytes(record: Mapping[str, Any]) -> bytes:
    """The bytes of a `.provenance.json` file as the workbench writes one: indented JSON, UTF-8."""
    return (json.dumps(dict(record), indent=2, ensure_ascii=False) + "\n").encode("utf-8")


# ---------------------------------------------------------------------------------------------
# Admission


def _walk(root: Path) -> tuple[list[str], list[Refusal]]:
    """Relative POSIX paths of the regular files under `root`, and refusals for links and odd names.

    Symlinks are never followed: one that resolves outside `root` is refused as `path_escapes`,
    any other as `symlink`.
    """
    files: list[str] = []
    refusals: list[Refusal] = []
    real_root = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        for name in sorted(dirnames) + sorted(filenames):
            full = here / name
            rel = full.relative_to(root).as_posix()
            try:
                rel.encode("utf-8")
            except UnicodeEncodeError:
                refusals.append(
                    Refusal(
                        path=rel.encode("utf-8", "replace").decode(),
                        reason="bad_path",
                        detail="file name is not valid UTF-8",
                    )
                )
                continue
            if full.is_symlink():
                target = full.resolve()
                escapes = real_root != target and real_root not in target.parents
                refusals.append(
                    Refusal(
                        path=rel,
                        reason="path_escapes",
                        detail=f"symlink points outside the corpus to {target}",
                    )
                    if escapes
                    else Refusal(path=rel, reason="symlink", detail="symlinks are not followed")
                )
                if name in dirnames:
                    dirnames.remove(name)
            elif name in filenames:
                if any(ord(ch) < 32 for ch in rel):
                    refusals.append(
                        Refusal(
                            path=repr(rel), reason="bad_path", detail="control character in name"
                        )
                    )
                elif stat.S_ISREG(full.stat().st_mode):
                    files.append(rel)
    return sorted(files), refusals


def _admit_one(root: Path, rel: str, provenance_bytes: bytes) -> CatalogueRow | Refusal:
    jurisdiction, family, _ = rel.split("/")
    try:
        record = parse_provenance(provenance_bytes, source=rel + PROVENANCE_SUFFIX)
    except ProvenanceError as exc:
        return Refusal(path=rel, reason="malformed_provenance", detail=str(exc))
    if record["byte_faithful_to_official_filing"] is not True:
        return Refusal(
            path=rel,
            reason="transcription",
            detail="provenance says byte_faithful_to_official_filing: false; not the official artefact",
            provenance=record,
        )
    if (record["jurisdiction"], record["document_family"]) != (jurisdiction, family):
        return Refusal(
            path=rel,
            reason="layout_mismatch",
            detail=f"provenance names {record['jurisdiction']}/{record['document_family']}; "
            f"file lies in {jurisdiction}/{family}",
        )
    digest, size = sha256_file(root / rel)
    if size != record["bytes"]:
        return Refusal(
            path=rel,
            reason="size_mismatch",
            detail=f"{size} bytes on disk; provenance says {record['bytes']}",
        )
    if digest != record["sha256"]:
        return Refusal(
            path=rel,
            reason="sha256_mismatch",
            detail=f"sha256 {digest}; provenance says {record['sha256']}",
        )
    return CatalogueRow(path=rel, provenance=record)


def admit(mirror: Path, *, progress: bool = False) -> Admission:
    """Admit every document of a mirror folder; see the module docstring for the rules.

    Files directly in the mirror root named README* are documentation, and `profiles/*.toml` are
    the researcher's numbering profiles (read by `measure`, C15): both are skipped silently; any
    other file outside `<jurisdiction>/<family>/` is refused as `layout`. Two admitted rows of
    one family with the same version_order are both refused as `duplicate_version_order`.
    """
    if not mirror.is_dir():
        raise FileNotFoundError(f"{mirror}: no such corpus folder")
    files, refusals = _walk(mirror)
    present = set(files)
    rows: list[CatalogueRow] = []
    documents = [f for f in files if not f.endswith(PROVENANCE_SUFFIX)]
    for rel in bar(documents, desc="admit", unit="file", enabled=progress):
        if rel.count("/") != 2:
            if "/" not in rel and rel.upper().startswith("README"):
                continue
            if rel.startswith("profiles/") and rel.count("/") == 1 and rel.endswith(".toml"):
                continue
            refusals.append(
                Refusal(path=rel, reason="layout", detail="not at <jurisdiction>/<family>/<file>")
            )
            continue
        if rel + PROVENANCE_SUFFIX not in present:
            refusals.append(
                Refusal(
                    path=rel,
                    reason="no_provenance",
                    detail=f"no {Path(rel).name}{PROVENANCE_SUFFIX} beside it",
                )
            )
            continue
        outcome = _admit_one(mirror, rel, (mirror / (rel + PROVENANCE_SUFFIX)).read_bytes())
        (rows if isinstance(outcome, CatalogueRow) else refusals).append(outcome)  # type: ignore[arg-type]
    for rel in files:
        if rel.endswith(PROVENANCE_SUFFIX) and rel[: -len(PROVENANCE_SUFFIX)] not in present:
            refusals.append(
                Refusal(
                    path=rel,
                    reason="orphan_provenance",
                    detail="provenance with no document beside it",
                )
            )
    by_order: dict[tuple[str, str, int], list[CatalogueRow]] = defaultdict(list)
    for row in rows:
        by_order[(row.jurisdiction, row.family, row.version_order)].append(row)
    clashes = {row.path for group in by_order.values() if len(group) > 1 for row in group}
    for key, group in by_order.items():
        if len(group) > 1:
            names = ", ".join(r.path for r in group)
            refusals.extend(
                Refusal(
                    path=r.path,
                    reason="duplicate_version_order",
                    detail=f"version_order {key[2]} shared by {names}",
                )
                for r in group
            )
    kept = tuple(sorted((r for r in rows if r.path not in clashes), key=lambda r: r.path))
    return Admission(rows=kept, refusals=tuple(sorted(refusals, key=lambda r: (r.path, r.reason))))


def merge_admission(existing: Iterable[CatalogueRow], admission: Admission) -> Admission:
    """Fold a new admission into an existing catalogue without moving any held version.

    Every existing row is kept. A newly admitted path that is already catalogued with other bytes
    is refused as `corpus_changed` (a corrected document is a new version under a new path); one
    with the same bytes is the same row.
    """
    held = {row.path: row for row in existing}
    refusals = list(admission.refusals)
    for row in admission.rows:
        old = held.get(row.path)
        if old is None:
            held[row.path] = row
        elif old.sha256 != row.sha256:
            refusals.append(
                Refusal(
                    path=row.path,
                    reason="corpus_changed",
                    detail=f"catalogued with sha256 {old.sha256}; these bytes hash to {row.sha256}; "
                    "the catalogued row is kept (admit a corrected document under a new path)",
                )
            )
        elif old.provenance != row.provenance:
            held[row.path] = row  # same bytes, provenance corrected: the row follows the mirror
    return Admission(
        rows=tuple(sorted(held.values(), key=lambda r: r.path)),
        refusals=tuple(sorted(refusals, key=lambda r: (r.path, r.reason))),
    )


def admit_into_catalogue(
    mirror: Path, corpus_dir: Path, *, progress: bool = False
) -> tuple[Admission, Admission]:
    """Admit `mirror` and fold it into the catalogue in `corpus_dir`, written back.

    Returns (this admission, the merged catalogue). The catalogue there, if any, is read (and its
    checksum checked) first; `merge_admission` keeps every row it holds; unchanged files are not
    rewritten (`write_catalogue`).
    """
    admission = admit(mirror, progress=progress)
    existing: tuple[CatalogueRow, ...] = ()
    if (corpus_dir / CATALOGUE_NAME).is_file():
        existing = read_catalogue(corpus_dir)
    merged = merge_admission(existing, admission)
    write_catalogue(merged, corpus_dir)
    return admission, merged


# ---------------------------------------------------------------------------------------------
# The catalogue files


def catalogue_bytes(rows: Iterable[CatalogueRow]) -> bytes:
    lines = (
        canonical_json({"path": r.path, "provenance": dict(r.provenance)}) + "\n" for r in rows
    )
    return "".join(sorted(lines)).encode("utf-8")


def refusals_bytes(refusals: Iterable[Refusal]) -> bytes:
    lines = []
    for r in refusals:
        item = r.as_json()
        if r.provenance is not None:
            item["provenance"] = dict(r.provenance)
        lines.append(canonical_json(item) + "\n")
    return "".join(sorted(lines)).encode("utf-8")


def read_refusals(corpus_dir: Path) -> tuple[Refusal, ...]:
    """The refusals recorded beside the catalogue (empty if none were recorded)."""
    path = corpus_dir / REFUSALS_NAME
    if not path.is_file():
        return ()
    refusals = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            item = json.loads(line)
            refusals.append(
                Refusal(
                    path=item["path"],
                    reason=item["reason"],
                    detail=item["detail"],
                    provenance=item.get("provenance"),
                )
            )
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise CatalogueError(f"{path}: line {number}: {exc}") from exc
    return tuple(refusals)


def read_refused(corpus_dir: Path) -> tuple[CatalogueRow, ...]:
    """Refused documents whose provenance parsed (transcriptions), as rows `fetch` can bring in.

    They are fetched into their own folder so that admission's refusals can be re-checked on a
    machine that has no mirror; they never enter the workspace.
    """
    return tuple(
        CatalogueRow(path=r.path, provenance=r.provenance)
        for r in read_refusals(corpus_dir)
        if isinstance(r.provenance, dict)
        and check_relative_path(r.path, field="path") is None
        and r.path.count("/") == 2
    )


def _write_if_changed(path: Path, data: bytes) -> None:
    if path.exists() and path.read_bytes() == data:
        return
    replace_file(path, data, mode=0o644)


def write_catalogue(admission: Admission, corpus_dir: Path) -> None:
    """Write catalogue, its checksum and the refusals list; unchanged files are not rewritten."""
    corpus_dir.mkdir(parents=True, exist_ok=True)
    data = catalogue_bytes(admission.rows)
    _write_if_changed(corpus_dir / CATALOGUE_NAME, data)
    _write_if_changed(
        corpus_dir / CHECKSUM_NAME,
        f"{hashlib.sha256(data).hexdigest()}  {CATALOGUE_NAME}\n".encode(),
    )
    _write_if_changed(corpus_dir / REFUSALS_NAME, refusals_bytes(admission.refusals))


def read_catalogue(corpus_dir: Path) -> tuple[CatalogueRow, ...]:
    """The catalogue's rows, after checking its bytes against its checksum file."""
    path, checksum_path = corpus_dir / CATALOGUE_NAME, corpus_dir / CHECKSUM_NAME
    if not path.is_file():
        raise CatalogueError(f"{path}: no catalogue; run 'workbench corpus admit DIR' first")
    data = path.read_bytes()
    try:
        expected = checksum_path.read_text(encoding="ascii").split()[0]
    except (OSError, UnicodeDecodeError, IndexError) as exc:
        raise CatalogueError(f"{checksum_path}: missing or unreadable catalogue checksum") from exc
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise CatalogueError(
            f"{path}: sha256 {actual} does not match {checksum_path.name} ({expected}); the catalogue was edited"
        )
    rows: list[CatalogueRow] = []
    for number, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        try:
            item = json.loads(line)
            rel, record = item["path"], item["provenance"]
            if problem := check_relative_path(rel, field="path"):
                raise CatalogueError(problem)
            if rel.count("/") != 2:
                raise CatalogueError(f"path {rel!r} is not <jurisdiction>/<family>/<file>")
            parse_provenance(json.dumps(record).encode(), source=rel)
        except (ValueError, KeyError, TypeError) as exc:
            raise CatalogueError(f"{path}: line {number}: {exc}") from exc
        rows.append(CatalogueRow(path=rel, provenance=record))
    return tuple(rows)


# ---------------------------------------------------------------------------------------------
# Fetch and verify


@dataclass(frozen=True, slots=True, kw_only=True)
class FetchReport:
    copied: tuple[str, ...]
    already: tuple[str, ...]  # fetched before, with the right hash: not copied again
    failed: tuple[Refusal, ...]


def _inside(root: Path, rel: str) -> Path:
    if problem := check_relative_path(rel, field="path"):
        raise UnsafePath(f"{rel}: {problem}")
    target = root / rel
    real_root = root.resolve()
    if real_root not in target.resolve().parents:
        raise UnsafePath(f"{rel}: resolves outside {root}")
    return target


def _source_bytes(row: CatalogueRow, mirror: Path | None, url_template: str) -> bytes:
    if mirror is not None:
        source = _inside(mirror, row.path)
        if not source.is_file():
            raise FetchError(f"{row.path}: not in mirror {mirror}")
        return source.read_bytes()
    info = row.provenance.get("mirror")
    if not isinstance(info, Mapping):
        raise FetchError(f"{row.path}: no mirror in provenance and no --mirror folder given")
    url = url_template.format(
        repo=info["repo"], commit=info["commit"], path=urllib.parse.quote(str(info["path"]))
    )
    from urllib.request import urlopen  # http.client and ssl load only for a download

    try:
        with urlopen(url, timeout=60) as response:
            return bytes(response.read(row.size + 1))
    except OSError as exc:
        raise FetchError(f"{row.path}: download from {url} failed: {exc}") from exc


def _check_bytes(row: CatalogueRow, data: bytes, *, what: str = "fetched") -> None:
    if len(data) != row.size:
        raise ChecksumMismatch(f"{row.path}: {what} {len(data)} bytes; catalogue says {row.size}")
    digest = hashlib.sha256(data).hexdigest()
    if digest != row.sha256:
        raise ChecksumMismatch(f"{row.path}: {what} sha256 {digest}; catalogue says {row.sha256}")


def _place(target: Path, data: bytes) -> None:
    """Write `data` at `target` atomically and read-only: a held version is not edited in place."""
    target.parent.mkdir(parents=True, exist_ok=True)
    replace_file(target, data, mode=0o444)


def fetch(
    rows: Iterable[CatalogueRow],
    store: Path,
    *,
    mirror: Path | None,
    url_template: str = MIRROR_URL,
    progress: bool = False,
) -> FetchReport:
    """Bring each row's bytes into `store/<path>`, with its provenance beside it, hash-checked.

    Bytes come from `mirror/<path>` when a mirror folder is given, else from `url_template`
    filled with the row's provenance `mirror` repo, commit and (URL-quoted) path.

    A file already held with the right hash is left alone. A fetched file with the wrong hash is
    reported and left in place (remove it to fetch again). Bytes that fail the check are reported
    and never written. `store` ends up in mirror layout, so `admit(store)` reproduces the catalogue.
    """
    copied: list[str] = []
    held: list[str] = []
    failed: list[Refusal] = []
    rows = list(rows)
    store.mkdir(parents=True, exist_ok=True)
    for row in bar(rows, desc="fetch", unit="file", enabled=progress):
        try:
            target = _inside(store, row.path)
            if target.is_file():
                if sha256_file(target) == (row.sha256, row.size):
                    held.append(row.path)
                    _place_provenance(target, row)
                    continue
                failed.append(
                    Refusal(
                        path=row.path,
                        reason="held_mismatch",
                        detail="fetched file does not match the catalogue; left as is (remove it to fetch again)",
                    )
                )
                continue
            data = _source_bytes(row, mirror, url_template)
            _check_bytes(row, data)
            _place(target, data)
            _place_provenance(target, row)
            copied.append(row.path)
        except (UnsafePath, FetchError, ChecksumMismatch) as exc:
            reason = {
                UnsafePath: "path_escapes",
                FetchError: "unavailable",
                ChecksumMismatch: "sha256_mismatch",
            }[type(exc)]
            failed.append(Refusal(path=row.path, reason=reason, detail=str(exc)))
    return FetchReport(copied=tuple(copied), already=tuple(held), failed=tuple(failed))


def _place_provenance(target: Path, row: CatalogueRow) -> None:
    sidecar = target.with_name(target.name + PROVENANCE_SUFFIX)
    data = provenance_file_bytes(row.provenance)
    if not sidecar.is_file() or sidecar.read_bytes() != data:
        _place(sidecar, data)


def verify_store(
    rows: Iterable[CatalogueRow], store: Path, *, progress: bool = False
) -> tuple[Refusal, ...]:
    """Re-hash every fetched file against its catalogue row; one refusal per missing or changed file."""
    problems: list[Refusal] = []
    rows = list(rows)
    for row in bar(rows, desc="verify", unit="file", enabled=progress):
        target = _inside(store, row.path)
        if not target.is_file():
            problems.append(Refusal(path=row.path, reason="missing", detail=f"not held in {store}"))
            continue
        digest, size = sha256_file(target)
        if (digest, size) != (row.sha256, row.size):
            problems.append(
                Refusal(
                    path=row.path,
                    reason="sha256_mismatch",
                    detail=f"held sha256 {digest} ({size} bytes); catalogue says {row.sha256} ({row.size} bytes)",
                )
            )
    return tuple(problems)


def read_fetched(row: CatalogueRow, store: Path) -> bytes:
    """A held document's bytes, after checking them against the catalogue row (C3: checksum first)."""
    data = _inside(store, row.path).read_bytes()
    _check_bytes(row, data, what="fetched")
    return data
