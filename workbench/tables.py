"""The measurement tables: what `workbench measure --export csv|parquet` writes beside the JSON.

A researcher who wants the figures in a spreadsheet, R or a data frame gets flat tables, one per
kind of measurement, each a file `table-<kind>.<format>` in the output folder:

- `families`, `jurisdictions`: one row per scope, every figure the JSON reports give for it. A
  column is named by where its value sits in the JSON: the report section, then the keys down to
  the value, joined by "." (`structure.proxy_caps.holds` is
  `structure-measurement.json` → `families` → the family → `proxy_caps` → `holds`). Sections:
  `profile` (`profiles_used`), `passages`, `structure`, `escalation`, and for jurisdictions also
  `versions_parsed` and `caution`. A scope a section does not report (a family with no modified
  pairing has no `structure` block) has no value there (null).
- `documents`: one row per admitted document (`corpus-digests.json` → `rows`).
- `pairings`, `cautions`, `parses`, `passages`: the evidence rows the reports are reduced from
  (`measure.PairingRow`, `CautionRow`, `ParseRow`, `PassageRow`), one column per field
  (`measure.row_as_json`); a structural path is written as its labels joined by "/".

Rows are in the reports' own order (scopes sorted by name; evidence rows by family, then as the
map produced them), columns in the order the JSON builds them, the union over rows where keys vary
(`structure.unknown_by_cause.*`). The same measurement writes the same bytes. In CSV a null is an
empty cell. polars is imported only when a table is written.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.errors import ExportFormatError
from workbench.files import replace_file_with

if TYPE_CHECKING:  # measure (and the diff it runs) and polars load only when tables are made
    import polars as pl

    from workbench.measure import FamilyMeasurement, Measurements

EXPORT_FORMATS = ("csv", "parquet")  # what every exported table is written as

TABLE_KINDS = (
    "families",
    "jurisdictions",
    "documents",
    "pairings",
    "cautions",
    "parses",
    "passages",
)


def flatten(prefix: str, value: Any) -> dict[str, Any]:
    """`value`'s leaves under dotted names below `prefix` (a dict's keys in their order)."""
    if not isinstance(value, Mapping):
        return {prefix: value}
    out: dict[str, Any] = {}
    for key, inner in value.items():
        out.update(flatten(f"{prefix}.{key}", inner))
    return out


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
    from workbench.measure import row_as_json

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
    }


def check_format(fmt: str) -> None:
    """Refuse a format the workbench does not write tables as (`EXPORT_FORMATS`)."""
    if fmt not in EXPORT_FORMATS:
        raise ExportFormatError(
            f"{fmt}: not an export format; expected one of {', '.join(EXPORT_FORMATS)}"
        )


def write_frame(frame: pl.DataFrame, path: Path, fmt: str) -> Path:
    """Write a polars frame at `path` as CSV (UTF-8, a header row) or Parquet: the one writer of
    every exported table (measurements, the diff's change table). The file is written beside
    `path` under a temporary name and renamed over it, so a failed write leaves what was there."""
    check_format(fmt)
    replace_file_with(path, frame.write_csv if fmt == "csv" else frame.write_parquet)
    return path


def write_table(rows: Sequence[Mapping[str, Any]], path: Path, fmt: str) -> Path:
    """Write `rows` as one table at `path` in `fmt` ("csv" or "parquet") through polars.

    Columns are the union of the rows' keys in first-seen order; a missing key is null. Types are
    inferred over every row. An empty table still has its file (no columns, no rows).
    """
    check_format(fmt)
    import polars as pl

    columns = list(dict.fromkeys(name for row in rows for name in row))
    frame = pl.DataFrame(
        [{name: row.get(name) for name in columns} for row in rows], infer_schema_length=None
    )
    return write_frame(frame, path, fmt)


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
