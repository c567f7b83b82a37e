"""PDF tables read cell by cell under both headers (C20), scored against government-style PDFs whose
every cell is known from the document that generated them (tests/text/table_documents.py, no
workbench import): ruled and unruled tables, multi-level and spanning heads, wrapped cells, numbers
set right, empty cells, two typefaces, and tables continued over pages with their head repeated or
not, a head over a table of words set apart by a double rule. Each cell is
exact when its value, its row-header path and its column-header path, white space collapsed, equal
the generator's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.text.table_documents import build
from workbench.evals.table_score import score_tables
from workbench.text.pdf import extract_pdf
from workbench.text.pdf_tables import read_pdf_tables
from workbench.text.table_cells import Table

MIN_EXACT = 0.95  # the target: cells exact in value and both headers


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("government-tables")
    return folder, build(folder)


def _read(path: Path) -> tuple[str, tuple[Table, ...]]:
    data = path.read_bytes()
    text = extract_pdf(data, source=str(path)).text
    return text, read_pdf_tables(data, source=str(path), text=text)


def _document(
    generated: tuple[Path, dict[str, Any]], name: str
) -> tuple[dict[str, Any], str, tuple[Table, ...]]:
    """The generated document `name`'s truth, its text and the tables read from it."""
    folder, report = generated
    document = next(d for d in report["documents"] if d["pdf"] == f"{name}.pdf")
    return (document, *_read(folder / document["pdf"]))


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        pytest.param("thresholds-and-applications", id="ruled-two-level-and-unruled-wrapped-head"),
        pytest.param("fee-schedule", id="ruled-over-pages-head-repeated"),
        pytest.param("cases-and-duties", id="unruled-spanning-head-and-ruled-wrapped-cells"),
        pytest.param("inspection-offices", id="unruled-over-pages-head-repeated"),
        pytest.param("programme-budget", id="unruled-wrapped-body-cells-sans"),
        pytest.param("permit-register", id="ruled-over-pages-head-not-repeated"),
        pytest.param("duties-by-role", id="ruled-words-only-head-over-double-rule"),
        pytest.param("licence-list", id="rules-under-rows-only-wrapped-cells"),
    ],
)
def test_cells_are_exact_with_both_headers(
    generated: tuple[Path, dict[str, Any]], name: str
) -> None:
    document, text, tables = _document(generated, name)
    score = score_tables(document["pdf"], document["tables"], tables, text)
    assert score.exact >= MIN_EXACT * score.truth, score.misses[:5]


@pytest.mark.slow
def test_a_table_over_pages_is_one_table_its_repeated_head_no_rows(
    generated: tuple[Path, dict[str, Any]],
) -> None:
    document, text, tables = _document(generated, "fee-schedule")
    (wanted,) = document["tables"]
    rows = 1 + max(c["row"] for c in wanted["cells"])
    assert len(tables) == 1
    assert len(tables[0].rows()) == rows
    head = {" ".join(text[h.char_start : h.char_end].split()) for h in tables[0].head}
    assert not [c for c in tables[0].cells if " ".join(c.value(text).split()) in head]


@pytest.mark.slow
def test_a_wrapped_cell_keeps_every_piece_at_its_offsets(
    generated: tuple[Path, dict[str, Any]],
) -> None:
    document, text, tables = _document(generated, "thresholds-and-applications")
    wrapped = [c for t in tables for c in t.cells if c.spans]
    assert wrapped
    for cell in wrapped:
        assert (cell.char_start, cell.char_end) == cell.spans[0]
        assert all(text[a:b] == text[a:b].strip() and a < b for a, b in cell.spans)
        assert all(b1 < a2 for (_, b1), (a2, _) in zip(cell.spans, cell.spans[1:], strict=False))
        assert cell.doubt == "the cell's text is not contiguous in the text"
    values = {" ".join(c.value(text).split()) for c in wrapped}
    truth = {c["value"] for t in document["tables"] for c in t["cells"]}
    assert values <= truth


@pytest.mark.slow
def test_the_truth_is_written_beside_the_pdfs(generated: tuple[Path, dict[str, Any]]) -> None:
    folder, report = generated
    assert json.loads((folder / "truth.json").read_text(encoding="utf-8")) == report
    assert all((folder / d["pdf"]).read_bytes().startswith(b"%PDF") for d in report["documents"])
