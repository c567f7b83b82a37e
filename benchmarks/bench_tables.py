"""Table cells scored against others' markup, and read on the held markup documents.

Run: `.venv/bin/python benchmarks/bench_tables.py [--write-docs]`. It prints figures; it asserts
nothing. `--write-docs` replaces the block between the `bench:tables` markers in docs/.

1. The three CFR parts in `../shared/external/tables-cfr-gpotable/`: the cells
   `scripts/table_truth.py` (no workbench import) reads off their `GPOTABLE` markup against the
   cells `text.table_cells` reads, per file: truth cells, cells read, cells exact in value, row
   header and column header, each miss, and the rows each side refused.
2. Every held XML version of the fetched corpus with a table: tables, cells, cells whose header
   is in doubt (by reason), rows refused.
3. PDF tables against camelot's expected grids (`../shared/external/tables-camelot-expected-
   grids/`, read by `scripts/table_truth.py --camelot`, no workbench import): per grid, the
   expected non-empty cells and how many of them each reader reproduces on the same page
   (`evals.table_score.grid_share`): the workbench (`text.pdf_tables`, no hint), camelot with the
   call its own tests make (flavor, and the table areas, columns or tolerances they pass), and
   pdfplumber's `extract_tables` (its lines strategy for a lattice grid, its text strategy for a
   stream grid). A reader that is not installed prints n/a with the reason.
4. Every held PDF version of the fetched corpus: tables the workbench reads, cells, cells whose
   header is in doubt. No truth is derived for them (no held PDF carries its table's cells in
   markup), so nothing there is scored.
5. Government-style PDFs generated with their truth by `tests/text/table_documents.py` (no
   workbench import; python-docx, then LibreOffice to PDF): ruled and unruled tables, multi-level
   and spanning heads, wrapped cells, figures set right, empty cells, tables continued over pages
   with their head repeated. Per document: truth cells, cells read, cells exact in value, row
   header and column header (`evals.table_score.score_tables`), each miss; then the share.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

from bench_spine import ROOT, STORE, bench_options, report_to_docs, store_missing, truth_from_script

from workbench.evals.table_score import (
    exact_share,
    grid_share,
    score_files,
    score_tables,
    table_grid,
)
from workbench.text.ocr import CACHE_ENV, OcrOptions
from workbench.text.pdf import extract_pdf
from workbench.text.pdf_tables import read_pdf_tables
from workbench.text.table_cells import read_tables
from workbench.text.xml import extract_xml

CFR_TABLES = ROOT.parent / "shared" / "external" / "tables-cfr-gpotable"
OCR_CACHE = Path(os.environ[CACHE_ENV]) if os.environ.get(CACHE_ENV) else None
CAMELOT = ROOT.parent / "shared" / "external" / "tables-camelot-expected-grids"


def _external() -> None:
    truth = truth_from_script("table_truth.py", sorted(str(p) for p in CFR_TABLES.glob("*.xml")))
    scores = score_files(CFR_TABLES, truth)
    print("1. CFR GPOTABLE cells against the markup (value, row header, column header)")
    for s in scores:
        print(f"   {s.file}: truth {s.truth}, read {s.read}, exact {s.exact}")
        for table, row, column, expected, found in s.misses:
            print(f"      miss table {table} row {row} column {column}: {expected} read {found}")
        print(f"      rows refused: truth {list(s.ragged_truth)}, read {list(s.refused_read)}")
    print(f"   all: {exact_share(scores):.4f} of cells exact")


def _doubt(reason: str | None) -> str:
    """A cell's header certainty, by the kind of doubt `table_cells` states."""
    if reason is None:
        return "certain"
    if reason.endswith("has no header"):
        return "no header"
    return "head spans columns" if reason.startswith("the header over") else "cell spans heads"


def _held() -> None:
    print("2. held XML versions with tables (tables, cells, headers by certainty, rows refused)")
    for path in sorted(STORE.rglob("*.xml")):
        data = path.read_bytes()
        text = extract_xml(data, source=str(path)).text
        tables = read_tables(data, source=str(path), text=text)
        if not tables:
            continue
        doubts = Counter(_doubt(c.doubt) for t in tables for c in t.cells)
        refused = sum(len(t.refused_rows) for t in tables)
        print(
            f"   {path.relative_to(STORE)}: {len(tables)}, {sum(doubts.values())}, "
            f"{dict(sorted(doubts.items()))}, {refused}"
        )


def _ours(path: Path, page: int) -> list[list[list[str]]]:
    data = path.read_bytes()
    extraction = extract_pdf(data, source=str(path))
    span = next(p for p in extraction.pages if p.page == page)
    return [
        table_grid(t.head, t.cells, t.columns, extraction.text)
        for t in read_pdf_tables(data, source=str(path), text=extraction.text)
        if span.char_start <= t.char_start < span.char_end
    ]


def _camelot_reader(path: Path, page: int, flavor: str, options: dict[str, Any]) -> Any:
    from camelot.io import read_pdf

    tables = read_pdf(str(path), pages=str(page), flavor=flavor, **options)
    return [t.df.astype(str).values.tolist() for t in tables]


def _pdfplumber_reader(path: Path, page: int, flavor: str) -> Any:
    import pdfplumber

    strategy = "lines" if flavor == "lattice" else "text"
    settings = {"vertical_strategy": strategy, "horizontal_strategy": strategy}
    with pdfplumber.open(path) as pdf:
        found = pdf.pages[page - 1].extract_tables(settings)
    return [[[c or "" for c in row] for row in table] for table in found]


def _scored(grid: Any, reader: Any, *arguments: Any) -> int:
    return grid_share(grid, reader(*arguments))


def _share(read: Any) -> str:
    """A reader's count, or n/a with the reason it could not run."""
    try:
        return str(read())
    except ImportError as error:
        return f"n/a ({error.name} is not installed)"
    except Exception as error:  # another reader's failure is printed, not raised
        return f"n/a ({type(error).__name__}: {' '.join(str(error).split())[:60]})"


def _camelot() -> None:
    truth = truth_from_script("table_truth.py", ["--camelot", str(CAMELOT)])
    print("3. PDF tables against camelot's expected grids: expected cells; reproduced by the")
    print("   workbench (no hint), camelot (its tests' call), pdfplumber")
    totals = {"expected": 0, "workbench": 0, "camelot": 0, "pdfplumber": 0}
    for g in truth["grids"]:
        path = CAMELOT / "tests" / "files" / g["pdf"]
        expected = sum(1 for row in g["rows"] for c in row if c)
        grid, page, flavor = g["rows"], g["page"], g["flavor"]
        shares = {
            "workbench": _share(partial(_scored, grid, _ours, path, page)),
            "camelot": _share(
                partial(_scored, grid, _camelot_reader, path, page, flavor, g["options"])
            ),
            "pdfplumber": _share(partial(_scored, grid, _pdfplumber_reader, path, page, flavor)),
        }
        totals["expected"] += expected
        for name, share in shares.items():
            totals[name] += int(share) if share.isdigit() else 0
        print(
            f"   {g['grid']} ({g['pdf']} p{g['page']}, {g['flavor']}): {expected}; "
            f"{shares['workbench']}, {shares['camelot']}, {shares['pdfplumber']}"
        )
    for m in truth["missing"]:
        print(f"   {m['grid']} ({m['pdf']}): the PDF is not in the folder, not scored")
    print(
        f"   all: {totals['expected']} expected cells; workbench "
        f"{totals['workbench'] / totals['expected']:.3f}, camelot "
        f"{totals['camelot'] / totals['expected']:.3f}, pdfplumber "
        f"{totals['pdfplumber'] / totals['expected']:.3f} reproduced"
    )


def _held_pdfs() -> None:
    print("4. held PDF versions (tables, cells, cells whose header is in doubt); nothing scored")
    for path in sorted(p for p in STORE.rglob("*") if p.suffix.lower() == ".pdf"):
        data = path.read_bytes()
        try:
            text = extract_pdf(data, source=str(path), ocr=OcrOptions(cache=OCR_CACHE)).text
            tables = read_pdf_tables(
                data, source=str(path), text=text, ocr=OcrOptions(cache=OCR_CACHE)
            )
        except Exception as error:  # a refused PDF is listed, not raised
            print(f"   {path.relative_to(STORE)}: not read ({type(error).__name__})")
            continue
        if tables:
            cells = [c for t in tables for c in t.cells]
            doubt = sum(c.doubt is not None for c in cells)
            print(f"   {path.relative_to(STORE)}: {len(tables)}, {len(cells)}, {doubt}")


def _generated() -> None:
    print("5. generated government-style PDFs: truth cells, read, exact (value and both headers)")
    with tempfile.TemporaryDirectory() as folder:
        generator = ROOT / "tests" / "text" / "table_documents.py"
        subprocess.run([sys.executable, str(generator), folder], check=True)
        truth = json.loads((Path(folder) / "truth.json").read_text(encoding="utf-8"))
        scores = []
        for document in truth["documents"]:
            data = (Path(folder) / document["pdf"]).read_bytes()
            text = extract_pdf(data, source=document["pdf"]).text
            tables = read_pdf_tables(data, source=document["pdf"], text=text)
            s = score_tables(document["pdf"], document["tables"], tables, text)
            scores.append(s)
            print(f"   {s.file}: truth {s.truth}, read {s.read}, exact {s.exact}")
            for table, row, column, expected, found in s.misses:
                print(
                    f"      miss table {table} row {row} column {column}: {expected} read {found}"
                )
    print(f"   all: {exact_share(scores):.4f} of cells exact")


def main() -> int:
    options = bench_options(__doc__, sys.argv[1:])
    if store_missing():
        return 2

    def run() -> None:
        _external()
        _held()
        _camelot()
        _held_pdfs()
        _generated()

    report_to_docs(run, "bench:tables", options["--write-docs"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
