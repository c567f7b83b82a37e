"""The table reader (C20) on real markup: CFR `GPOTABLE`s scored against their own markup (truth
from scripts/table_truth.py), a ragged row refused, held XHTML and CALS tables, and table
passages that keep every offset."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from tests.conftest import ROOT, STORE
from tests.text.truths import kept_truth
from workbench.evals.table_score import exact_share, score_files
from workbench.models import Extraction
from workbench.text.segment import segment
from workbench.text.table_cells import Table, read_tables
from workbench.text.xml import extract_xml

CFR_TABLES = ROOT.parent / "shared" / "external" / "tables-cfr-gpotable"
FR_ISSUE = STORE / "us-federal-register" / "fr-issue-2017-06-07" / "FR-2017-06-07-uslm.xml"
CANADA_REGS = STORE / "ca-federal" / "ca-cer-amp-regs" / "SOR-2013-138@2022-10-05.xml"
MIN_EXACT = 0.98  # the issue's target


@pytest.fixture(scope="module")
def cfr_truth() -> dict[str, object]:
    """The truth script's cells of the CFR tables, kept between runs under its key
    (`kept_truth`)."""
    return kept_truth(ROOT / "scripts" / "table_truth.py", sorted(CFR_TABLES.glob("*.xml")))


def test_cfr_cells_meet_the_markup(cfr_truth: dict[str, object]) -> None:
    scores = score_files(CFR_TABLES, cfr_truth)
    misses = [m for s in scores for m in s.misses]
    assert exact_share(scores) >= MIN_EXACT, misses[:20]
    assert [s.refused_read for s in scores] == [s.ragged_truth for s in scores]


@cache
def _extracted(path: Path) -> tuple[Extraction, tuple[Table, ...]]:
    """A document's extraction and tables, once for the module: two tests read the Federal
    Register issue's (the records are frozen, so they are shared)."""
    data = path.read_bytes()
    extraction = extract_xml(data, source=str(path))
    return extraction, read_tables(data, source=str(path), text=extraction.text)


def test_a_ragged_row_is_refused_not_misaligned() -> None:
    path = CFR_TABLES / "CFR-2015-title40-vol26-part264.xml"
    data = path.read_bytes()
    row = data.index(b"<ROW>")
    ragged = data[: row + 5] + b"<ENT>extra</ENT>" + data[row + 5 :]
    text = extract_xml(ragged, source=str(path)).text
    tables = read_tables(ragged, source=str(path), text=text)
    original = read_tables(data, source=str(path), text=extract_xml(data, source=str(path)).text)
    first = tables[0]
    assert first.refused_rows == (f"row 0: 3 cells for {first.columns} columns",)
    assert {c.row for c in first.cells} == {c.row for c in original[0].cells} - {0}


@pytest.mark.parametrize(
    ("path", "value", "row_header", "column_header"),
    [
        pytest.param(FR_ISSUE, "Late Horizon", ("1440–1532 A.D",), ("Rowe",), id="xhtml-th"),
        pytest.param(
            CANADA_REGS,
            "0 to +2",
            ("1",),
            ("Column 2", "Effect on Gravity\xa0Value"),
            id="cals-two-level-head",
        ),
    ],
)
def test_held_table_cell_headers(
    path: Path, value: str, row_header: tuple[str, ...], column_header: tuple[str, ...]
) -> None:
    extraction, tables = _extracted(path)
    text = extraction.text
    cells = [c for t in tables for c in t.cells]
    found = [c for c in cells if text[c.char_start : c.char_end] == value]
    assert found, value
    cell = found[0]
    assert (cell.row_header, cell.column_header, cell.doubt) == (row_header, column_header, None)
    for words, (start, end) in zip(
        (*cell.row_header, *cell.column_header),
        (*cell.row_header_spans, *cell.column_header_spans),
        strict=True,
    ):
        assert text[start:end] == words  # every header is read at its own raw offsets


def test_table_passages_keep_every_offset() -> None:
    extraction, tables = _extracted(FR_ISSUE)
    plain = segment("fr", extraction.text, marks=extraction.structure)
    with_tables = segment("fr", extraction.text, marks=extraction.structure, tables=tables)
    assert [(p.char_start, p.char_end, p.text) for p in plain] == [
        (p.char_start, p.char_end, p.text) for p in with_tables
    ]
    rows = [p for p in with_tables if p.kind == "table"]
    assert rows and any(p.cells for p in rows)
    for passage in rows:
        assert all(
            passage.char_start <= c.char_start < c.char_end <= passage.char_end
            for c in passage.cells
        )
        printed = passage.as_json(profile="x", page=None)["cells"]
        assert printed == [c.as_json() for c in passage.cells]
