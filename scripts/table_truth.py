"""Derive table cells from GPO `GPOTABLE` markup, to score the workbench's table reader.

It imports nothing from `workbench` (it writes its report as `footnote_truth.py` does). For each `GPOTABLE` (in document order) it lists every
non-empty `ENT` with its row index (the `ROW`'s place among the table's rows), its column index
(the `ENT`'s place in its row), its value, its column header and its row header, all with white
space collapsed. The column header is the chain of `CHED` heads over the column, outermost first:
the columns are the heads with no deeper-level head right after them, and a head of level H sits
under the nearest earlier head of a lower level. The row header is the row's first `ENT` (its
stub) with the stubs it is a sub-row of (a stub of higher `I` indent sits under the nearest
earlier stub of lower indent), outermost first. Empty heads and stubs are left out of a chain.
A row with more `ENT`s than the table's `COLS` is listed under `ragged_rows` and none of its
cells is kept: no column can be given to them without a guess.

Usage: `python scripts/table_truth.py FILE.xml ... [--out FILE]` (JSON on stdout without --out).
"""

from __future__ import annotations

import sys
from pathlib import Path

from footnote_truth import write_report
from lxml import etree


def _words(el: etree._Element) -> str:
    return " ".join("".join(el.itertext()).split())


def _table(table: etree._Element) -> dict[str, object]:
    heads = list(table.iter("CHED"))
    levels = [int(h.get("H", "1")) for h in heads]
    leaves = [i for i, level in enumerate(levels) if i + 1 == len(levels) or levels[i + 1] <= level]
    columns = []
    for i in leaves:
        chain, level = [i], levels[i]
        for k in range(i - 1, -1, -1):
            if levels[k] < level:
                chain.append(k)
                level = levels[k]
        columns.append([w for k in reversed(chain) if (w := _words(heads[k]))])
    cols = int(table.get("COLS", str(len(leaves))))
    cells, ragged = [], []
    stack: list[tuple[int, str]] = []
    for r, row in enumerate(table.findall("ROW")):
        entries = row.findall("ENT")
        if len(entries) > cols:
            ragged.append({"row": r, "cells": len(entries), "columns": cols})
            continue
        if entries:
            indent = int(entries[0].get("I", "0"))
            while stack and stack[-1][0] >= indent:
                stack.pop()
            stack.append((indent, _words(entries[0])))
        row_header = [w for _, w in stack if w]
        for c, entry in enumerate(entries):
            if value := _words(entry):
                cells.append(
                    {
                        "row": r,
                        "column": c,
                        "value": value,
                        "row_header": row_header,
                        "column_header": columns[c] if len(columns) == cols else [],
                    }
                )
    return {"columns": cols, "cells": cells, "ragged_rows": ragged}


def truth_for(path: Path) -> dict[str, object]:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    root = etree.fromstring(path.read_bytes(), parser)
    return {"file": path.name, "tables": [_table(t) for t in root.iter("GPOTABLE")]}


if __name__ == "__main__":
    raise SystemExit(write_report(sys.argv[1:], __doc__ or "", truth_for))
