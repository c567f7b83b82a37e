"""PDF tables by geometry (C20) on others' PDFs: camelot's expected grids (truth read by
scripts/table_truth.py --camelot, no workbench import) reproduced from our own text's offsets,
ruled and unruled, upright and rotated; every cell's offsets index the version's text; a merged
head states its doubt; a held PDF's table passages keep every offset; a cell of the held E-PRTR
threshold table checked under its pollutant and its medium, refused under another medium, and
refused as ambiguous where its text is in doubt; the D.P.U. order's page-foot notes are read as
no table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, STORE, FreshWorkspace
from workbench.cells import TableCell
from workbench.cite.cell_headers import check_cell
from workbench.errors import ExtractionError
from workbench.evals.table_score import grid_share, table_grid
from workbench.models import CatalogueRow
from workbench.text.normalize import normalized_text
from workbench.text.pdf import extract_pdf
from workbench.text.pdf_tables import read_pdf_tables
from workbench.text.segment import segment
from workbench.text.table_cells import Table
from workbench.workspace.parts import held_parts

CAMELOT = ROOT.parent / "shared" / "external" / "tables-camelot-expected-grids"
FILES = CAMELOT / "tests" / "files"
MIN_SHARE = 0.9  # of camelot's expected cells reproduced on the grids below
RATE_CASE = STORE / "us-tx" / "puct-49595-puc01-01-rate-case-expense-update"


@pytest.fixture(scope="module")
def grids(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Any]:
    out = tmp_path_factory.mktemp("truth") / "grids.json"
    script = ROOT / "scripts" / "table_truth.py"
    subprocess.run(
        [sys.executable, str(script), "--camelot", str(CAMELOT), "--out", str(out)], check=True
    )
    truth = json.loads(out.read_text(encoding="utf-8"))
    return {(g["grid"], g["pdf"]): g["rows"] for g in truth["grids"]}


def _read(path: Path) -> tuple[str, tuple[Table, ...]]:
    data = path.read_bytes()
    text = extract_pdf(data, source=str(path)).text
    return text, read_pdf_tables(data, source=str(path), text=text)


@pytest.mark.parametrize(
    ("grid", "pdf"),
    [
        pytest.param("data_stream", "health.pdf", id="stream"),
        pytest.param("data_stream_table_rotated", "clockwise_table_2.pdf", id="stream-rotated"),
        pytest.param("data_stream_flag_size", "superscript.pdf", id="stream-superscripts"),
        pytest.param("data_lattice_table_rotated", "anticlockwise_table_1.pdf", id="ruled-rotated"),
        pytest.param("data_lattice_two_tables_1", "twotables_2.pdf", id="ruled-first-of-two"),
        pytest.param("data_lattice_two_tables_2", "twotables_2.pdf", id="ruled-second-of-two"),
    ],
)
def test_camelots_expected_cells_are_reproduced(
    grids: dict[tuple[str, str], Any], grid: str, pdf: str
) -> None:
    text, tables = _read(FILES / pdf)
    expected = _scored_rows(grids[(grid, pdf)])
    wanted = sum(1 for row in expected for c in row if c)
    found = [table_grid(t.head, t.cells, t.columns, text) for t in tables]
    assert grid_share(expected, found) >= MIN_SHARE * wanted


def _figures(row: list[str]) -> bool:
    values = [c for c in row[1:] if c]
    return (
        bool(row[0])
        and bool(values)
        and 2 * sum(c[0] in "-0123456789" for c in values) >= len(values)
    )


def _scored_rows(grid: list[list[str]]) -> list[list[str]]:
    """Camelot's grid, its head left out where a head cell wraps over lines: camelot's stream
    reader gives each line of a wrapped head a row, where ours reads the head cell whole (C20);
    the head is the rows before the first row of figures (a first cell, and at least half of the
    others opening with a digit or a dash)."""
    first = next((k for k, row in enumerate(grid) if _figures(row)), 0)
    wraps = any(sum(1 for row in grid[:first] if row[c]) > 1 for c in range(len(grid[0])))
    return [[""] * len(row) for row in grid[:first]] + grid[first:] if wraps else grid


@pytest.mark.parametrize(
    "pdf", ["health.pdf", "twotables_2.pdf", "column_span_2.pdf", "clockwise_table_1.pdf"]
)
def test_every_cell_is_its_words_in_the_text(pdf: str) -> None:
    text, tables = _read(FILES / pdf)
    assert tables
    for table in tables:
        for cell in (*table.head, *table.cells):
            value = text[cell.char_start : cell.char_end]
            assert value and value == value.strip(), (cell, value)
            assert table.char_start <= cell.char_start < cell.char_end <= table.char_end
        # A header's span is its cell's first piece; its words are that cell's whole value.
        values = {(c.char_start, c.char_end): c.value(text) for c in (*table.head, *table.cells)}
        for cell in table.cells:
            assert tuple(values[s] for s in cell.column_header_spans) == cell.column_header
            assert tuple(values[s] for s in cell.row_header_spans) == cell.row_header
            first = table.rows()[cell.row][0]
            if first.column == 0:
                assert cell.row_header == (first.value(text),)


def test_a_merged_head_is_stated_as_doubt_never_guessed() -> None:
    _, tables = _read(FILES / "column_span_2.pdf")
    doubts = [c.doubt for t in tables for c in t.cells if c.doubt is not None]
    assert doubts
    assert all(
        d.endswith("has no header")
        or " spans " in d
        or d == "the cell's text is not contiguous in the text"
        for d in doubts
    )
    spanning = [c for t in tables for c in t.cells if c.column_span > 1]
    assert all(c.doubt is not None for c in spanning)


def test_other_text_is_refused() -> None:
    data = (FILES / "health.pdf").read_bytes()
    text = extract_pdf(data, source="health.pdf").text
    with pytest.raises(ExtractionError) as error:
        read_pdf_tables(data, source="health.pdf", text=text + " ")
    assert str(error.value) == "health.pdf: the PDF re-extracted is not the version's text"


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(next(RATE_CASE.glob("v1_*.PDF")), id="us-tx-ocr-layer"),
        pytest.param(
            STORE / "eu" / "eprtr-pollutant-thresholds-guidance-excerpt" / "eu-001.pdf",
            id="eu-ruled",
        ),
        pytest.param(STORE / "us-nerc" / "nerc-cip-012" / "cip-012-1.pdf", id="nerc"),
        pytest.param(
            STORE
            / "us-federal-register"
            / "fr-2020-17221-faa-boeing-737max-nprm"
            / "federal-register-2020-17221.pdf",
            id="federal-register-columns",
        ),
    ],
)
def test_table_passages_of_a_held_pdf_keep_every_offset(path: Path) -> None:
    text, tables = _read(path)
    assert tables
    plain = segment("v", text)
    parted = segment("v", text, tables=tables)
    assert [(p.char_start, p.char_end, p.text) for p in parted] == [
        (p.char_start, p.char_end, p.text) for p in plain
    ]
    kinds = {p.kind for p in parted}
    assert "table" in kinds
    for passage in parted:
        for cell in passage.cells:
            assert passage.char_start <= cell.char_start < cell.char_end <= passage.char_end


EPRTR = STORE / "eu" / "eprtr-pollutant-thresholds-guidance-excerpt" / "eu-001.pdf"


def test_an_eprtr_threshold_cell_is_checked_under_its_headers() -> None:
    text, tables = _read(EPRTR)
    cells = [c for t in tables for c in t.cells]
    values = [text[c.char_start : c.char_end] for c in cells]
    cell = next(
        c
        for c, v in zip(cells, values, strict=True)
        if c.doubt is None and c.row_header and c.column > 0 and values.count(v) == 1
    )
    other = next(h for c in cells if (h := c.column_header[-1:]) and h != cell.column_header[-1:])
    row, column = cell.row_header[0], cell.column_header[-1]

    def check(row_header: str, column_header: str, at: TableCell = cell) -> Any:
        return check_cell(
            tables,
            text,
            at.char_start,
            at.char_end,
            normalized_text(text[at.char_start : at.char_end]),
            row_header,
            column_header,
        )

    verified = check(row, column)
    assert verified.reason is None and verified.occurrences == ((cell.char_start, cell.char_end),)
    assert check(row, other[0]).reason == "header_mismatch"
    doubtful = next(c for c in cells if c.doubt is not None and c.column > 0)
    assert check(doubtful.row_header[0], doubtful.column_header[-1], doubtful).reason == (
        "cell_ambiguous"
    )


def test_a_held_table_reads_the_same_on_its_rotated_copy() -> None:
    """The FBI's NICS table and the same page set rotated: the same grid from both (no truth of
    its own, but a reading that depended on the page's direction would differ)."""
    folder = STORE / "us-federal" / "fbi-nics-firearm-checks-2015-11"
    upright = _read(folder / "nics-background-checks-2015-11.pdf")
    rotated = _read(folder / "nics-background-checks-2015-11-rotated.pdf")
    grids = [
        [table_grid(t.head, t.cells, t.columns, text) for t in tables]
        for text, tables in (upright, rotated)
    ]
    assert grids[0] and grids[0] == grids[1]


DPU = "us-ma/dpu-18-150-national-grid-base-rate-order/dpu-18-150_order_2019-09-30.pdf"


@pytest.mark.slow
def test_notes_at_a_page_foot_are_no_table(
    catalogue: tuple[CatalogueRow, ...], fresh_workspace: FreshWorkspace, tmp_path: Path
) -> None:
    """The D.P.U. order's notes, found by the footnote reader (which reads no table), wrap over
    lines hanging from their numbers, as a list item does: no table cell stands in one. Both
    readings are those ingest made off the order's one extraction (`footnotes_from_trace` and
    `tables_from_trace`, through `text.parts.pdf_parts`) and kept in the order's workspace,
    which is built once per run for the tests that read it."""
    (row,) = [r for r in catalogue if r.path == DPU]
    with fresh_workspace([row], tmp_path / "workspace.sqlite") as held:
        text = held.version(DPU).text
        footnotes, tables = held_parts(held, held.version(DPU))
    assert footnotes is not None and tables
    notes = [(n.char_start, n.char_end) for n in footnotes.footnotes]
    assert notes
    inside = [c for t in tables for c in t.cells if any(a <= c.char_start < b for a, b in notes)]
    assert not inside, [text[c.char_start : c.char_end] for c in inside[:5]]
