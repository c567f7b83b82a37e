"""The measurement tables: what `workbench measure --export csv|parquet` writes beside the JSON.

A researcher who wants the figures in a spreadsheet, R or a data frame gets flat tables, one per
kind of measurement, each a file `table-<kind>.<format>` in the output folder:

- `families`, `jurisdictions`: one row per scope, every figure the JSON reports give for it. A
  column is named by where its value sits in the JSON: the report section, then the keys down to
  the value, joined by "." (`structure.proxy_caps.holds` is
  `structure-measurement.json` → `families` → the family → `proxy_caps` → `holds`). Sections:
  `profile` (`profiles_used`), `passages`, `structure`, `escalation`, and for jurisdictions also
  `versions_parsed`, `caution` and `text_origins`. A scope a section does not report (a family
  with no modified pairing has no `structure` block) has no value there (null).
- `documents`: one row per admitted document (`corpus-digests.json` → `rows`).
- `pairings`, `cautions`, `parses`, `passages`, `texts`: the evidence rows the reports are
  reduced from (`family.PairingRow`, `CautionRow`, `ParseRow`, `PassageRow`, `TextRow`: a
  version's characters by origin), one column per field
  (`cache.row_as_json`); a structural path is written as its labels joined by "/".

Rows are in the reports' own order (scopes sorted by name; evidence rows by family, then as the
map produced them), columns in the order the JSON builds them, the union over rows where keys vary
(`structure.unknown_by_cause.*`). The guarantee: the same measurement writes the same bytes. The
files are written by the generic writer (`workbench.tables`); in CSV a null is an empty cell, and
polars is imported only when a table is written.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from workbench.measure.cache import row_as_json
from workbench.measure.family import FamilyMeasurement
from workbench.measure.reports import Measurements
from workbench.tables import check_format, flatten, write_table

TABLE_KINDS = (
    "families",
    "jurisdictions",
    "documents",
    "pairings",
    "cautions",
    "parses",
    "passages",
    "texts",
)


def _scope_rows(
    names: Iterable[str], sections: Sequence[tuple[str, Mapping[str, Any]]], key: str
) -> list[dict[str, Any]]:
    """One row per scope name: `key` holds the name, then every section's figures for it."""
    rows = []
    for name in names:
        row: dict[str, Any] = {key: name}
        for section, blocks in sections:
            if name in blocks:
                row.update(flatten(section, blocks[name]))
        rows.append(row)
    return rows


def _evidence_row(row: Any) -> dict[str, Any]:
    return {
        name: "/".join(value) if isinstance(value, list) else value
        for name, value in row_as_json(row).items()
    }


def measurement_tables(
    families: Sequence[FamilyMeasurement], m: Measurements
) -> dict[str, list[dict[str, Any]]]:
    """Every table `TABLE_KINDS` names, as rows of column name to value (see the module text)."""
    structure, escalation = m.structure, m.escalation
    ordered = sorted(families, key=lambda f: (f.jurisdiction, f.family))
    family_sections = (
        ("profile", structure["profiles_used"]),
        ("passages", structure["passages"]["families"]),
        ("structure", structure["families"]),
        ("escalation", escalation["families"]),
    )
    jurisdiction_sections = (
        ("versions_parsed", structure["versions_parsed"]),
        ("passages", structure["passages"]["jurisdictions"]),
        ("structure", structure["jurisdictions"]),
        ("escalation", escalation["jurisdictions"]),
        ("caution", escalation["caution"]["jurisdictions"]),
        ("text_origins", structure["text_origins"]["jurisdictions"]),
    )
    jurisdictions = sorted({name for _, blocks in jurisdiction_sections for name in blocks})
    pairings = sorted(
        (p for f in ordered for p in f.pairings),
        key=lambda p: (p.before_id, p.after_id, p.evidence_id),
    )
    return {
        "families": _scope_rows(structure["profiles_used"], family_sections, "family"),
        "jurisdictions": _scope_rows(jurisdictions, jurisdiction_sections, "jurisdiction"),
        "documents": [dict(row) for row in m.digests["rows"]],
        "pairings": [_evidence_row(r) for r in pairings],
        "cautions": [_evidence_row(r) for f in ordered for r in f.cautions],
        "parses": [_evidence_row(r) for f in ordered for r in f.parses],
        "passages": [_evidence_row(r) for f in ordered for r in f.passages],
        "texts": [_evidence_row(r) for f in ordered for r in f.texts],
    }


def write_measurement_tables(
    out: Path, families: Sequence[FamilyMeasurement], m: Measurements, fmt: str
) -> list[Path]:
    """Write every measurement table into `out` as `table-<kind>.<fmt>`; returns their paths."""
    check_format(fmt)
    out.mkdir(parents=True, exist_ok=True)
    return [
        write_table(rows, out / f"table-{kind}.{fmt}", fmt)
        for kind, rows in measurement_tables(families, m).items()
    ]
