"""The store (C3): catalogued bytes fetched into a folder, hash-checked, re-verified and read back
checksum first. A bad download never replaces a fetched file."""

from __future__ import annotations

import hashlib
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from workbench.corpus.catalogue import read_catalogue, read_refused
from workbench.corpus.provenance import (
    PROVENANCE_SUFFIX,
    check_relative_path,
    provenance_file_bytes,
    sha256_file,
)
from workbench.defaults import MIRROR_URL
from workbench.errors import ChecksumMismatch, FetchError, UnsafePath
from workbench.files import replace_file
from workbench.models import CatalogueRow, Refusal
from workbench.progress import bar


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


def fetch_corpus(
    corpus_dir: Path,
    store: Path,
    refused_store: Path,
    *,
    mirror: Path | None,
    url_template: str = MIRROR_URL,
    progress: bool = False,
) -> tuple[FetchReport, FetchReport]:
    """Fetch the catalogue in `corpus_dir` into `store`, and its refused documents into
    `refused_store`; returns (the catalogue's report, the refused documents' report).

    The refused documents are those `read_refused` lists (refusals whose provenance parsed, such as
    transcriptions): they are kept only so that admission's refusals can be re-checked on a machine
    with no mirror, and never enter the workspace. A `mirror` that is not a folder is refused
    (FileNotFoundError) before anything is read; then the catalogue is read (its checksum checked),
    its rows fetched, and the refused rows fetched, each as `fetch` does.
    """
    if mirror is not None and not mirror.is_dir():
        raise FileNotFoundError(f"{mirror}: mirror folder does not exist")
    rows = read_catalogue(corpus_dir)
    report = fetch(rows, store, mirror=mirror, url_template=url_template, progress=progress)
    refused = fetch(
        read_refused(corpus_dir),
        refused_store,
        mirror=mirror,
        url_template=url_template,
        progress=progress,
    )
    return report, refused


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
