"""The generic table writer: what any stage's CSV or Parquet export is written through."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

from workbench.errors import ExportFormatError
from workbench.tables import flatten, write_frame, write_table

# Keys vary between rows: the columns are their union in first-seen order, a missing key null.
ROWS = ({"family": "a", "count": 2}, {"family": "b", "share": 0.5}, {"count": 1, "family": "c"})


def test_a_format_the_workbench_does_not_write_is_refused(tmp_path: Path) -> None:
    with pytest.raises(
        ExportFormatError, match=r"^xlsx: not an export format; expected one of csv, parquet$"
    ):
        write_table([{"a": 1}], tmp_path / "t.xlsx", "xlsx")
    assert list(tmp_path.iterdir()) == []


def test_rows_are_written_as_the_union_of_their_columns(tmp_path: Path) -> None:
    csv = write_table(ROWS, tmp_path / "t.csv", "csv")
    assert csv.read_bytes() == b"family,count,share\na,2,\nb,,0.5\nc,1,\n"
    parquet = write_table(ROWS, tmp_path / "t.parquet", "parquet")
    assert pl.read_parquet(parquet).to_dicts() == [
        {"family": "a", "count": 2, "share": None},
        {"family": "b", "count": None, "share": 0.5},
        {"family": "c", "count": 1, "share": None},
    ]


def test_a_failed_write_leaves_the_old_file_and_no_other(tmp_path: Path) -> None:
    path = write_table(ROWS, tmp_path / "t.csv", "csv")
    before = path.read_bytes()
    with pytest.raises(pl.exceptions.ComputeError, match="CSV format does not support nested"):
        write_frame(pl.DataFrame({"paths": [["1", "a"]]}), path, "csv")
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["t.csv"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param(3, {"s": 3}, id="a-leaf-is-its-own-column"),
        pytest.param(
            {"b": {"y": 1, "x": None}, "a": 2},
            {"s.b.y": 1, "s.b.x": None, "s.a": 2},
            id="keys-in-their-order-joined-by-dots",
        ),
        pytest.param({}, {}, id="an-empty-mapping-has-no-column"),
    ],
)
def test_flatten_names_each_leaf_by_its_path(value: Any, expected: dict[str, Any]) -> None:
    flat = flatten("s", value)
    assert flat == expected
    assert list(flat) == list(expected)
