"""The one writer of exported tables (C12): rows or a polars frame to CSV or Parquet, replaced
whole; the same rows write the same bytes."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.errors import ExportFormatError
from workbench.files import replace_file_with

if TYPE_CHECKING:  # polars loads only when a table is written
    import polars as pl

EXPORT_FORMATS = ("csv", "parquet")  # what every exported table is written as


def flatten(prefix: str, value: Any) -> dict[str, Any]:
    """`value`'s leaves under dotted names below `prefix` (a dict's keys in their order); a value
    that is not a mapping is one leaf named `prefix`."""
    if not isinstance(value, Mapping):
        return {prefix: value}
    out: dict[str, Any] = {}
    for key, inner in value.items():
        out.update(flatten(f"{prefix}.{key}", inner))
    return out


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


def _dtype(kinds: set[type]) -> pl.DataType:
    import polars as pl

    if not kinds:
        return pl.Null()
    if kinds == {bool}:
        return pl.Boolean()
    if kinds <= {int}:
        return pl.Int64()
    if kinds <= {int, float}:
        return pl.Float64()
    return pl.String()


def write_streamed_table(rows: Iterable[Mapping[str, Any]], path: Path, fmt: str) -> Path:
    """`write_table` for rows read once, as they come, never held together: each is written to
    a file of JSON lines beside `path` as it arrives, then polars' lazy scan writes the table
    from it. Columns are the union of the rows' keys in first-seen order, a missing key null;
    a column's type is the one of its values (booleans, integers, numbers, else text; null when
    every value is), as `write_table` infers it."""
    check_format(fmt)
    import polars as pl

    spill = path.with_name(f".{path.name}.{os.getpid()}.jsonl")
    kinds: dict[str, set[type]] = {}
    try:
        with spill.open("w", encoding="utf-8") as handle:
            for row in rows:
                for name, value in row.items():
                    seen = kinds.setdefault(name, set())
                    if value is not None:
                        seen.add(type(value))
                handle.write(json.dumps(dict(row), ensure_ascii=False) + "\n")
        if not kinds:
            return write_frame(pl.DataFrame(), path, fmt)
        scan = pl.scan_ndjson(spill, schema={name: _dtype(k) for name, k in kinds.items()})
        replace_file_with(path, scan.sink_csv if fmt == "csv" else scan.sink_parquet)
        return path
    finally:
        spill.unlink(missing_ok=True)
