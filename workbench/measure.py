"""Measurements re-derived from the corpus, written deterministically to `measurements/` (C12).

Every report is a pure function of its inputs: rows sorted, keys sorted, no timestamps, one JSON
serialization (`canonical` for digests, indented with sorted keys for the files people read). Each
report is headed by the corpus digest it was computed on, so a report can be matched to its corpus.

The corpus digest is SHA-256 over the canonical JSON of the sorted `[path, sha256]` pairs of the
admitted documents: a renamed, added, removed or changed document changes it.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from workbench.models import CatalogueRow, Refusal, canonical_json

DIGESTS_NAME = "corpus-digests.json"


def corpus_digest(rows: Iterable[CatalogueRow]) -> str:
    """SHA-256 over the canonical JSON of sorted [path, sha256] pairs."""
    pairs = sorted([row.path, row.sha256] for row in rows)
    return hashlib.sha256(canonical_json(pairs).encode("utf-8")).hexdigest()


def corpus_digests(
    rows: Iterable[CatalogueRow], refusals: Iterable[Refusal] = ()
) -> dict[str, Any]:
    """The corpus-digests report: one digest, per-jurisdiction counts, per-document hashes."""
    rows = sorted(rows, key=lambda r: r.path)
    per: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"documents": 0, "bytes": 0, "families": set(), "media_types": Counter()}
    )
    for row in rows:
        entry = per[row.jurisdiction]
        entry["documents"] += 1
        entry["bytes"] += row.size
        entry["families"].add(row.family)
        entry["media_types"][row.media_type] += 1
    refused = Counter(r.reason for r in refusals)
    return {
        "corpus_digest": corpus_digest(rows),
        "digest_rule": "sha256 of canonical JSON of sorted [path, sha256] pairs of admitted documents",
        "documents": len(rows),
        "bytes": sum(r.size for r in rows),
        "families": len({(r.jurisdiction, r.family) for r in rows}),
        "refused": dict(sorted(refused.items())),
        "jurisdictions": {
            name: {
                "documents": e["documents"],
                "bytes": e["bytes"],
                "families": len(e["families"]),
                "media_types": dict(sorted(e["media_types"].items())),
            }
            for name, e in sorted(per.items())
        },
        "rows": [{"path": r.path, "sha256": r.sha256, "bytes": r.size} for r in rows],
    }


def report_bytes(report: dict[str, Any]) -> bytes:
    """The bytes a report is written as: indented, keys in build order, UTF-8, one trailing newline."""
    # CAUTION: not sort_keys: the corpus digest stays at the head; every dict is built in a fixed order.
    return (json.dumps(report, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def write_measurements(
    out: Path, rows: Iterable[CatalogueRow], refusals: Iterable[Refusal] = ()
) -> dict[str, Path]:
    """Write every report into `out`; returns report name -> path. Unchanged files keep their bytes."""
    out.mkdir(parents=True, exist_ok=True)
    target = out / DIGESTS_NAME
    data = report_bytes(corpus_digests(rows, refusals))
    if not target.is_file() or target.read_bytes() != data:
        target.write_bytes(data)
    return {"corpus-digests": target}
