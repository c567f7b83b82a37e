"""A family's measurement kept between runs as JSON, under exactly the inputs it depends on (C4,
C13): any change to one is another key, so an entry is never stale, and one that cannot be read is
measured again."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from workbench.derived import derived_key
from workbench.files import replace_file
from workbench.measure.family import (
    CautionRow,
    FamilyMeasurement,
    PairingRow,
    ParseRow,
    PassageRow,
    TextRow,
)
from workbench.measure.summary import family_summary
from workbench.models import Version
from workbench.text.profiles import (
    Profile,
    candidate_profiles,
)
from workbench.workspace import Workspace

# ---------------------------------------------------------------------------------------------
# A family measurement as JSON (the cache's entries, the exported tables' rows)

_ROWS: dict[str, type[Any]] = {
    "pairings": PairingRow,
    "parses": ParseRow,
    "passages": PassageRow,
    "cautions": CautionRow,
    "texts": TextRow,
}


def row_as_json(row: PairingRow | ParseRow | PassageRow | CautionRow | TextRow) -> dict[str, Any]:
    """One evidence row as JSON: every field under its own name, in declaration order; a
    structural path (a tuple) becomes a list."""
    return {
        f.name: list(value) if isinstance(value := getattr(row, f.name), tuple) else value
        for f in fields(row)
    }


def family_measurement_as_json(family: FamilyMeasurement) -> dict[str, Any]:
    """A family's measurement as JSON; `family_measurement_from_json` gives back an equal record."""
    return {
        "jurisdiction": family.jurisdiction,
        "family": family.family,
        "versions": family.versions,
        "profile": dict(family.profile),
        **{kind: [row_as_json(r) for r in getattr(family, kind)] for kind in _ROWS},
    }


def family_measurement_from_json(data: Any) -> FamilyMeasurement:
    """The record `family_measurement_as_json` wrote. Raises ValueError on any other shape: a
    missing or unknown field, or rows that are not a list of objects. (Field values are not
    type-checked one by one: the cache holds only what the workbench wrote, like the workspace.)"""
    try:
        if set(data) != _FAMILY_FIELDS:
            raise ValueError(f"fields {sorted(set(data) ^ _FAMILY_FIELDS)} missing or unknown")
        rows = {kind: _rows_from_json(cls, data[kind]) for kind, cls in _ROWS.items()}
        return FamilyMeasurement(
            jurisdiction=data["jurisdiction"],
            family=data["family"],
            versions=data["versions"],
            profile=dict(data["profile"]),
            **rows,
        )
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise ValueError(f"not a family measurement: {type(exc).__name__}: {exc}") from exc


_FAMILY_FIELDS = frozenset({"jurisdiction", "family", "versions", "profile", *_ROWS})
# The fields a row holds as a tuple (a structural path), written as a list.
_TUPLE_FIELDS = {
    cls: tuple(f.name for f in fields(cls) if str(f.type).startswith("tuple"))
    for cls in _ROWS.values()
}


def _rows_from_json(cls: type[Any], items: Any) -> tuple[Any, ...]:
    if not isinstance(items, list):
        raise TypeError(f"{cls.__name__} rows: expected a list, found {type(items).__name__}")
    paths = _TUPLE_FIELDS[cls]
    if not paths:
        return tuple(cls(**item) for item in items)
    out = []
    for item in items:
        row = dict(item)
        for name in paths:
            if row.get(name) is not None:
                row[name] = tuple(row[name])
        out.append(cls(**row))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# The measurement cache: a family measured before is not measured again

CACHE_SCHEME = 1
CACHE_DIR_NAME = "measure-cache"
# What a family's measurement depends on, per version. Each is a column of the workspace's versions
# table and an attribute of `Version`, so the key is computed the same way from either. The text
# enters by its SHA-256; the structure marks and page map by the artefact SHA-256 and the extractor
# name and version, which determine them (DESIGN.md C4).
VERSION_FACTS = (
    "version_id",
    "jurisdiction",
    "family",
    "version_order",
    "version_label",
    "media_type",
    "artefact_sha256",
    "artefact_bytes",
    "extractor",
    "extractor_version",
    "text_sha256",
)


def version_facts(version: Version) -> tuple[Any, ...]:
    """The `VERSION_FACTS` of one version, in that order."""
    return tuple(getattr(version, name) for name in VERSION_FACTS)


def family_cache_key(facts: Sequence[Sequence[Any]], profiles: Sequence[Profile], code: str) -> str:
    """SHA-256 naming exactly what `measure_family` computes from: the cache scheme, the workbench
    code digest (`derived.code_digest`), every version's `VERSION_FACTS` in version order, and the
    origin and SHA-256 of each profile the family may be read through
    (`profiles.candidate_profiles`), in registry order. Equal keys mean equal measurements."""
    candidates = candidate_profiles(profiles, facts[0][1], facts[0][2])
    inputs = [CACHE_SCHEME, [list(f) for f in facts], [[p.origin, p.sha256] for p in candidates]]
    return derived_key("family-summary", inputs, code)


@dataclass(frozen=True, slots=True, kw_only=True)
class MeasurementCache:
    """A folder of family measurements, one JSON file per `family_cache_key`.

    `get` returns a measurement only from a file that holds its own key and a well-formed
    measurement; anything else (missing, unreadable, truncated, another key) is a miss, measured
    again and overwritten: the cache can make a run faster, never change its figures. Files are
    written whole (a temporary file renamed into place), so a run killed mid-write leaves no
    partial entry.
    """

    folder: Path

    def get(self, key: str) -> FamilyMeasurement | None:
        try:
            data = json.loads((self.folder / f"{key}.json").read_bytes())
            if data.get("key") != key or data.get("scheme") != CACHE_SCHEME:
                return None
            return family_measurement_from_json(data["measurement"])
        except (OSError, ValueError, AttributeError, KeyError):
            return None

    def summary(self, key: str) -> dict[str, Any] | None:
        """The summary the entry holds (`summary.family_summary` of its measurement), or None
        for a miss, as `get` decides one."""
        try:
            data = json.loads((self.folder / f"{key}.json").read_bytes())
            if data.get("key") != key or data.get("scheme") != CACHE_SCHEME:
                return None
            if isinstance(data.get("summary"), dict):
                return data["summary"]  # type: ignore[no-any-return]
            return family_summary(family_measurement_from_json(data["measurement"]))
        except (OSError, ValueError, AttributeError, KeyError):
            return None

    def put(
        self, key: str, family: FamilyMeasurement, summary: dict[str, Any] | None = None
    ) -> None:
        """Write the entry (the shard) of `key`: the measurement and its summary."""
        self.folder.mkdir(parents=True, exist_ok=True)
        entry = {
            "scheme": CACHE_SCHEME,
            "key": key,
            "measurement": family_measurement_as_json(family),
            "summary": summary if summary is not None else family_summary(family),
        }
        # CAUTION: not canonical_json: the profile record's key order is part of the report.
        data = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        replace_file(self.folder / f"{key}.json", data)


def held_version_facts(held: Workspace) -> tuple[tuple[Any, ...], ...]:
    """`VERSION_FACTS` of every held version, in the workspace's order (jurisdiction, family,
    version order), read without the texts."""
    return tuple(
        tuple(row)
        for row in held.execute(
            f"SELECT {', '.join(VERSION_FACTS)} FROM versions "
            "ORDER BY jurisdiction, family, version_order"
        )
    )
