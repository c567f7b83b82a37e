"""The measurement tables `workbench measure --export csv|parquet` writes beside the JSON (C12): one
flat table per kind, in the reports' order; the same measurement writes the same bytes. The tables
and their columns are in docs/measurements.md."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from workbench.errors import FamilyTaskFailed
from workbench.measure.cache import MeasurementCache, row_as_json
from workbench.measure.family import FamilyMeasurement
from workbench.measure.index import SummaryIndex
from workbench.measure.reports import Measurements
from workbench.measure.summary import escalation_block, passage_block, structure_block
from workbench.tables import check_format, flatten, write_streamed_table, write_table

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


def _jurisdiction_rows(m: Measurements) -> list[dict[str, Any]]:
    """The jurisdictions table: one row per jurisdiction any section names."""
    structure, escalation = m.structure, m.escalation
    sections = (
        ("versions_parsed", structure["versions_parsed"]),
        ("passages", structure["passages"]["jurisdictions"]),
        ("structure", structure["jurisdictions"]),
        ("escalation", escalation["jurisdictions"]),
        ("caution", escalation["caution"]["jurisdictions"]),
        ("text_origins", structure["text_origins"]["jurisdictions"]),
    )
    jurisdictions = sorted({name for _, blocks in sections for name in blocks})
    return _scope_rows(jurisdictions, sections, "jurisdiction")


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
    pairings = sorted(
        (p for f in ordered for p in f.pairings),
        key=lambda p: (p.before_id, p.after_id, p.evidence_id),
    )
    return {
        "families": _scope_rows(structure["profiles_used"], family_sections, "family"),
        "jurisdictions": _jurisdiction_rows(m),
        "documents": [dict(row) for row in m.digests["rows"]],
        "pairings": [_evidence_row(r) for r in pairings],
        "cautions": [_evidence_row(r) for f in ordered for r in f.cautions],
        "parses": [_evidence_row(r) for f in ordered for r in f.parses],
        "passages": [_evidence_row(r) for f in ordered for r in f.passages],
        "texts": [_evidence_row(r) for f in ordered for r in f.texts],
    }


def write_measurement_tables_from(
    out: Path,
    shards: MeasurementCache,
    keys: Collection[str],
    index: SummaryIndex,
    m: Measurements,
    fmt: str,
) -> list[Path]:
    """`write_measurement_tables` for a run whose measurements stay in their shards: the same
    tables, each written as it is read (the families' rows from the summary index, the evidence
    rows from each family's shard in turn, spilled as JSON lines and written by polars' lazy
    scan), so no table is held whole. `keys` are the run's shard keys."""
    check_format(fmt)
    out.mkdir(parents=True, exist_ok=True)
    wanted = set(keys)
    order = [(j, f, k) for j, f, k in index.families() if k in wanted]
    # The pairings table is sorted by before id, a path: families in the order of "j/f/".
    by_path = sorted(order, key=lambda t: f"{t[0]}/{t[1]}/")

    def family_rows() -> Iterator[dict[str, Any]]:
        for summary in index.summaries():
            name = f"{summary['jurisdiction']}/{summary['family']}"
            row: dict[str, Any] = {"family": name}
            row.update(flatten("profile", {**summary["profile"], "versions": summary["versions"]}))
            row.update(flatten("passages", passage_block(summary["passages"])))
            if summary["pairings"] is not None:
                row.update(flatten("structure", structure_block(summary["pairings"])))
                row.update(flatten("escalation", escalation_block(summary["pairings"])))
            yield row

    def evidence(kind: str, families: Sequence[tuple[str, str, str]]) -> Iterator[dict[str, Any]]:
        for _, _, key in families:
            measured = shards.get(key)
            if measured is None:
                raise FamilyTaskFailed(
                    f"{shards.folder / (key + '.json')}: this run's shard is missing or damaged; "
                    "measure again"
                )
            rows = getattr(measured, kind)
            if kind == "pairings":
                rows = sorted(rows, key=lambda p: (p.before_id, p.after_id, p.evidence_id))
            yield from (_evidence_row(r) for r in rows)

    tables: dict[str, Callable[[], Iterable[Mapping[str, Any]]]] = {
        "families": family_rows,
        "jurisdictions": lambda: _jurisdiction_rows(m),
        "documents": lambda: (dict(row) for row in m.digests["rows"]),
        "pairings": lambda: evidence("pairings", by_path),
        "cautions": lambda: evidence("cautions", order),
        "parses": lambda: evidence("parses", order),
        "passages": lambda: evidence("passages", order),
        "texts": lambda: evidence("texts", order),
    }
    return [
        write_streamed_table(rows(), out / f"table-{kind}.{fmt}", fmt)
        for kind, rows in tables.items()
    ]


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
