"""Admission (C3): which documents of a mirror folder may enter the catalogue, and a reason code for
each one that may not. A row is admitted only if its provenance pins its exact bytes as the issuer's
official artefact; the rules are in docs/corpus.md."""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from workbench.corpus.provenance import (
    PROVENANCE_SUFFIX,
    file_name_problem,
    name_problem,
    parse_provenance,
    sha256_file,
)
from workbench.errors import ProvenanceError
from workbench.models import CatalogueRow, Refusal
from workbench.progress import bar

# Refusal reasons the admission policy itself requires: a transcription is refused from the store
# by design (DESIGN.md C3), so its refusal is reported, not a failure. Every other reason is.
POLICY_REFUSALS = frozenset({"transcription"})


def refusal_is_policy(refusal: Refusal) -> bool:
    """True if the admission policy requires this refusal (see `POLICY_REFUSALS`), not a failure."""
    return refusal.reason in POLICY_REFUSALS


@dataclass(frozen=True, slots=True, kw_only=True)
class Admission:
    """What `admit` found: admitted rows sorted by path, and refusals sorted by path then reason;
    `stamps`, each admitted document's `file_stamp` as it was before its bytes were read."""

    rows: tuple[CatalogueRow, ...]
    refusals: tuple[Refusal, ...]
    stamps: Mapping[str, str] = field(default_factory=dict)


def file_stamp(document: str) -> str | None:
    """What the file system says of a document and of its provenance file beside it, without
    reading either: byte count, modification and change times (ns) and inode of each. A file
    written again, copied over, touched, or given its old modification time back has another
    stamp (its change time moved); None when either cannot be read."""
    try:
        own, beside = os.stat(document), os.stat(document + PROVENANCE_SUFFIX)
    except OSError:
        return None
    return " ".join(
        f"{s.st_size}:{s.st_mtime_ns}:{s.st_ctime_ns}:{s.st_ino}" for s in (own, beside)
    )


def _walk(root: Path) -> tuple[list[str], list[Refusal]]:
    """Relative POSIX paths of the regular files under `root`, and refusals for links and odd names.

    Symlinks are never followed: one that resolves outside `root` is refused as `path_escapes`,
    any other as `symlink`. Entries are classified as `os.walk` classifies them (a name whose
    target is a folder is a folder), from the directory listing's own types (`os.scandir`: no
    `stat` per file on tens of thousands of files); a folder that cannot be listed is skipped,
    as `os.walk` skips it.
    """
    files: list[str] = []
    refusals: list[Refusal] = []
    real_root = root.resolve()
    pending = [(os.fspath(root), "")]
    while pending:
        folder, prefix = pending.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            continue
        for entry in entries:
            rel = prefix + entry.name
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
                if _is_folder(entry) and not entry.is_symlink():
                    pending.append((entry.path, rel + "/"))  # as os.walk, its files are seen
                continue
            if entry.is_symlink():
                target = Path(entry.path).resolve()
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
            elif _is_folder(entry):
                pending.append((entry.path, rel + "/"))
            elif _CONTROL.search(rel):
                refusals.append(
                    Refusal(path=repr(rel), reason="bad_path", detail="control character in name")
                )
            elif entry.is_file(follow_symlinks=False):
                files.append(rel)
    return sorted(files), refusals


_CONTROL = re.compile("[\x00-\x1f]")


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _name_problem(rel: str) -> str | None:
    """Why `rel` (`<jurisdiction>/<family>/<file>`) cannot be a version id, or None (the rule
    is `provenance.name_problem`'s, one name at a time from the left)."""
    *folders, name = rel.split("/")
    for part, problem in [(f, name_problem(f)) for f in folders] + [
        (name, file_name_problem(name))
    ]:
        if problem:
            return f"{part!r} cannot be one name of a version id ({problem})"
    return None


def _admit_one(root: str, rel: str, provenance_bytes: bytes) -> CatalogueRow | Refusal:
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
    digest, size = sha256_file(os.path.join(root, rel))
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
    return CatalogueRow.of(rel, record)


def admit(
    mirror: Path,
    *,
    progress: bool = False,
    known: Mapping[str, tuple[str, CatalogueRow]] | None = None,
) -> Admission:
    """Admit every document of a mirror folder, reading no network and writing nothing into it
    (the rules: docs/corpus.md, Admission).

    `known` maps a path to the `file_stamp` its document had when it was admitted and the row
    it was admitted as (`measure` keeps them in its workspace): a document whose stamp is still
    that one is that row again, its provenance not re-read and its bytes not hashed again. Every
    other document is read and checked whole; `workbench corpus admit` always checks them all.

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
    stamps: dict[str, str] = {}
    known = known or {}
    documents = [f for f in files if not f.endswith(PROVENANCE_SUFFIX)]
    # CAUTION: paths joined as strings: pathlib interns every part of every path it makes, a
    # table that outlived the admission and grew with the corpus.
    root = os.fspath(mirror)
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
        stamp = file_stamp(os.path.join(root, rel)) if rel in known else None
        if stamp is not None and known[rel][0] == stamp:  # admitted as this row, and unmoved
            rows.append(known[rel][1])
            stamps[rel] = stamp
            continue
        if problem := _name_problem(rel):
            refusals.append(Refusal(path=rel, reason="bad_name", detail=problem))
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
        stamp = stamp or file_stamp(os.path.join(root, rel))  # taken before any byte is read
        with open(os.path.join(root, rel + PROVENANCE_SUFFIX), "rb") as sidecar:
            outcome = _admit_one(root, rel, sidecar.read())
        if isinstance(outcome, CatalogueRow):
            rows.append(outcome)
            if stamp is not None:
                stamps[rel] = stamp
        else:
            refusals.append(outcome)
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
    return Admission(
        rows=kept,
        refusals=tuple(sorted(refusals, key=lambda r: (r.path, r.reason))),
        stamps={r.path: stamps[r.path] for r in kept if r.path in stamps},
    )


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
        elif old is not row and old.text != row.text:  # a reused row is itself
            held[row.path] = row  # same bytes, provenance corrected: the row follows the mirror
    return Admission(
        rows=tuple(sorted(held.values(), key=lambda r: r.path)),
        refusals=tuple(sorted(refusals, key=lambda r: (r.path, r.reason))),
    )
