"""The demonstration corpus (C12): three versions of one document with known edits, returned as a
`DemoCorpus` only after its manifest was checked against the bytes."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.errors import EvalManifestError
from workbench.models import Version, content_id, text_sha256
from workbench.text.extraction import extract

DEMO_DIR = Path("corpus/demo")
MANIFEST_NAME = "manifest.json"


@dataclass(frozen=True, slots=True, kw_only=True)
class DemoCorpus:
    """The demo versions, built in memory from their bytes, and the manifest checked against them."""

    root: Path
    digest: str
    manifest_sha256: str
    manifest: Mapping[str, Any]
    versions: Mapping[str, Version]  # by version id: the file's path under the demo folder


def demo_digest(files: Iterable[tuple[str, str]]) -> str:
    """SHA-256 over the canonical JSON of sorted [path, sha256] pairs (as `corpus_digest`)."""
    return content_id(sorted([p, s] for p, s in files))


def _field(value: Any, where: str, kind: type) -> Any:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise EvalManifestError(f"{where}: expected {kind.__name__}, got {type(value).__name__}")
    return value


def _get(record: Any, key: str, where: str, kind: type) -> Any:
    if not isinstance(record, dict) or key not in record:
        raise EvalManifestError(f"{where}.{key}: missing")
    return _field(record[key], f"{where}.{key}", kind)


def _check_span(
    versions: Mapping[str, Version], version_id: str, record: Any, where: str
) -> tuple[int, int]:
    start = _get(record, "start", where, int)
    end = _get(record, "end", where, int)
    recorded = _get(record, "text", where, str)
    version = versions.get(version_id)
    if version is None:
        raise EvalManifestError(f"{where}: version {version_id!r} is not a demo file")
    if not 0 <= start <= end <= len(version.text):
        raise EvalManifestError(
            f"{where}: [{start}, {end}) is not a span of {version_id} (length {len(version.text)})"
        )
    actual = version.text[start:end]
    if actual != recorded:
        raise EvalManifestError(
            f"{where}: {version_id} holds {actual!r} at [{start}, {end}), manifest says {recorded!r}"
        )
    return start, end


def load_demo(root: Path = DEMO_DIR) -> DemoCorpus:
    """Build the demo versions from their bytes and check the manifest against them.

    Checks, in order, each failing with `EvalManifestError` naming the file and field: the manifest
    is a JSON object; every listed file exists and its bytes hash to the listed SHA-256; the corpus
    digest recomputed from the files equals the manifest's; every span the manifest names holds
    the text it records.
    """
    path = root / MANIFEST_NAME
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise EvalManifestError(f"{path}: cannot read the manifest ({exc.strerror})") from exc
    try:
        manifest = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EvalManifestError(f"{path}: not UTF-8 JSON ({exc})") from exc
    if not isinstance(manifest, dict):
        raise EvalManifestError(f"{path}: expected a JSON object")
    versions: dict[str, Version] = {}
    pairs = []
    for n, entry in enumerate(_get(manifest, "files", str(path), list)):
        where = f"{path}: files[{n}]"
        rel = _get(entry, "path", where, str)
        sha = _get(entry, "sha256", where, str)
        file = root / rel
        try:
            raw = file.read_bytes()
        except OSError as exc:
            raise EvalManifestError(f"{file}: cannot read a demo file ({exc.strerror})") from exc
        if hashlib.sha256(raw).hexdigest() != sha:
            raise EvalManifestError(
                f"{file}: sha256 {hashlib.sha256(raw).hexdigest()} does not match the manifest's "
                f"{sha}; re-run scripts/demo_manifest.py"
            )
        extraction = extract(raw, "text/plain", source=str(file))
        versions[rel] = Version(
            version_id=rel,
            jurisdiction="demo",
            family=rel.split("/")[0],
            version_order=n + 1,
            version_label=Path(rel).stem,
            media_type="text/plain",
            artefact_sha256=sha,
            artefact_bytes=len(raw),
            extractor=extraction.extractor,
            extractor_version=extraction.extractor_version,
            text_sha256=text_sha256(extraction.text),
            text=extraction.text,
        )
        pairs.append((rel, sha))
    digest = demo_digest(pairs)
    recorded = _get(manifest, "corpus_digest", str(path), str)
    if digest != recorded:
        raise EvalManifestError(
            f"{path}: corpus_digest {recorded} does not match the files' digest {digest}"
        )
    _check_manifest_spans(path, manifest, versions)
    return DemoCorpus(
        root=root,
        digest=digest,
        manifest_sha256=hashlib.sha256(data).hexdigest(),
        manifest=manifest,
        versions=versions,
    )


def _check_manifest_spans(
    path: Path, manifest: Mapping[str, Any], versions: Mapping[str, Version]
) -> None:
    for n, edit in enumerate(_get(manifest, "edits", str(path), list)):
        where = f"{path}: edits[{n}]"
        before = _get(edit, "before_version", where, str)
        after = _get(edit, "after_version", where, str)
        _get(edit, "id", where, str)
        for k, change in enumerate(_get(edit, "changes", where, list)):
            at = f"{where}.changes[{k}]"
            _get(change, "kind", at, str)
            _get(change, "caution", at, bool)
            for side, version_id in (
                ("before", before),
                ("after", after),
                ("span_before", before),
                ("span_after", after),
            ):
                if _get(change, side, at, object) is not None:
                    _check_span(versions, version_id, change[side], f"{at}.{side}")
    for n, item in enumerate(_get(manifest, "non_edits", str(path), list)):
        where = f"{path}: non_edits[{n}]"
        _get(item, "id", where, str)
        for side in ("before", "after"):
            version_id = _get(item, f"{side}_version", where, str)
            _check_span(versions, version_id, _get(item, side, where, dict), f"{where}.{side}")
    boiler = _get(manifest, "boilerplate", str(path), dict)
    text = _get(boiler, "text", f"{path}: boilerplate", str)
    occurrences = _get(boiler, "occurrences", f"{path}: boilerplate", dict)
    for version_id, spans in sorted(occurrences.items()):
        for k, pair in enumerate(_field(spans, f"{path}: boilerplate.{version_id}", list)):
            where = f"{path}: boilerplate.occurrences.{version_id}[{k}]"
            if not (isinstance(pair, list) and len(pair) == 2):
                raise EvalManifestError(f"{where}: expected [start, end]")
            record = {"start": pair[0], "end": pair[1], "text": text}
            _check_span(versions, version_id, record, where)
    for n, quote in enumerate(_get(manifest, "quotes", str(path), list)):
        where = f"{path}: quotes[{n}]"
        _get(quote, "quoted_text", where, str)
        _check_span(versions, _get(quote, "version", where, str), quote, where)
