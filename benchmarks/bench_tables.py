"""Table cells scored against others' markup, and read on the held markup documents.

Run: `.venv/bin/python benchmarks/bench_tables.py [--write-docs]`. It prints figures; it asserts
nothing. `--write-docs` replaces the block between the `bench:tables` markers in docs/.

1. The three CFR parts in `../shared/external/tables-cfr-gpotable/`: the cells
   `scripts/table_truth.py` (no workbench import) reads off their `GPOTABLE` markup against the
   cells `text.table_cells` reads, per file: truth cells, cells read, cells exact in value, row
   header and column header, each miss, and the rows each side refused.
2. Every held XML version of the fetched corpus with a table: tables, cells, cells whose header
   is in doubt (by reason), rows refused.
"""

from __future__ import annotations

import sys
from collections import Counter

from bench_spine import ROOT, STORE, bench_options, report_to_docs, truth_from_script

from workbench.evals.table_score import exact_share, score_files
from workbench.text.table_cells import read_tables
from workbench.text.xml import extract_xml

CFR_TABLES = ROOT.parent / "shared" / "external" / "tables-cfr-gpotable"


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


def main() -> int:
    options = bench_options(__doc__, sys.argv[1:])
    if not STORE.is_dir():
        print("corpus/real is missing: run 'make fetch' first", file=sys.stderr)
        return 2

    def run() -> None:
        _external()
        _held()

    report_to_docs(run, "bench:tables", options["--write-docs"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
