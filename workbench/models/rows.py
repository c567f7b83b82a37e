"""A catalogue row and a refusal (C3): one admitted document as its catalogue line holds it, and
why a file was not admitted."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from workbench.models.ids import canonical_json


@dataclass(frozen=True, slots=True, kw_only=True)
class Refusal:
    """Why one file of a mirror folder was not admitted (or not ingested)."""

    path: str
    reason: str  # a stable code, e.g. "transcription", "sha256_mismatch"
    detail: str  # one line for a person
    provenance: Mapping[str, Any] | None = None  # kept when it parsed, so the file can be fetched

    def line(self) -> str:
        return f"{self.path}: {self.reason}: {self.detail}"

    def as_json(self) -> dict[str, Any]:
        """The refusal as the measurement reports and the refusals file list it (no provenance)."""
        return {"path": self.path, "reason": self.reason, "detail": self.detail}


ROW_FIELDS = ("sha256", "bytes", "jurisdiction", "document_family", "version_order", "format")


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogueRow:
    """One admitted document: its path, its provenance record as canonical JSON (parsed where a
    field is read) and the `ROW_FIELDS` every row is read for. Made by `of`."""

    path: str
    text: str = field(repr=False)  # `canonical_json` of the record, as its catalogue line holds it
    fields: tuple[Any, ...] = field(repr=False, compare=False)  # None where the record has none

    @classmethod
    def of(cls, path: str, record: Mapping[str, Any], *, text: str | None = None) -> CatalogueRow:
        """The row of `record`; `text`, its canonical JSON where the caller holds it already."""
        values = (sys.intern(v) if isinstance(v, str) else v for v in map(record.get, ROW_FIELDS))
        made = canonical_json(dict(record)) if text is None else text
        return cls(path=path, text=made, fields=tuple(values))

    @property
    def provenance(self) -> dict[str, Any]:  # the record, parsed: a fresh dictionary
        return dict(json.loads(self.text))

    @property
    def sha256(self) -> str:
        return str(self.fields[0] or self.provenance["sha256"])

    @property
    def size(self) -> int:
        return int(self.fields[1] or self.provenance["bytes"])

    @property
    def jurisdiction(self) -> str:
        return str(self.fields[2] or self.provenance["jurisdiction"])

    @property
    def family(self) -> str:
        return str(self.fields[3] or self.provenance["document_family"])

    @property
    def version_order(self) -> int:
        return int(self.fields[4] or self.provenance["version_order"])

    @property
    def media_type(self) -> str:
        return media_type_of(str(self.fields[5] or self.provenance["format"]))


def media_type_of(format_: str) -> str:
    """The first word of a provenance `format`, lower case (`text/plain`)."""
    return format_.split()[0].strip(",;").lower()
