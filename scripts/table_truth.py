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

With `--camelot FOLDER` (camelot's expected grids, `../shared/external/tables-camelot-expected-
grids/`) it lists instead each expected grid with the PDF and page it is read from and the call
camelot's tests make: the grids are the values of `tests/data.py` (executed as the plain Python
data it is; a later assignment of a name wins), the map from grid to PDF is the table in the
folder's `README.md` (a row naming `_2` after `data_x_1` names `data_x_2`; a name ending in `*`
names every grid it opens; "page N" names the page, else page 1, camelot's default; a PDF the
folder does not hold is listed under `missing`). Each cell's string has its white space collapsed.

Usage: `python scripts/table_truth.py FILE.xml ... [--out FILE]` (JSON on stdout without --out),
`python scripts/table_truth.py --camelot FOLDER [--out FILE]`.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from collections.abc import Mapping
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


_CODE = re.compile(r"`([^`]+)`")
_PAGE = re.compile(r"page (\d+)")


def _names(cell: str, grids: Mapping[str, object]) -> list[str]:
    names: list[str] = []
    for name in _CODE.findall(cell):
        if name.endswith("*"):
            names += sorted(n for n in grids if n.startswith(name[:-1]))
        elif name.startswith("_") and names:
            names.append(names[-1].rsplit("_", 1)[0] + name)
        else:
            names.append(name)
    return names


def _call(cell: str) -> dict[str, object]:
    """The flavor and keyword arguments of the README's camelot call, where they parse."""
    flavor = "lattice" if "lattice" in cell else "stream"
    options: dict[str, object] = {}
    for code in _CODE.findall(cell):
        try:
            call = ast.parse(f"f({code})", mode="eval").body
        except SyntaxError:
            continue
        if isinstance(call, ast.Call):
            for keyword in call.keywords:
                if keyword.arg is not None and keyword.arg != "flavor":
                    options[keyword.arg] = ast.literal_eval(keyword.value)
    return {"flavor": flavor, "options": options}


def camelot_grids(folder: Path) -> dict[str, object]:
    """Camelot's expected grids with their PDFs, pages and calls (the rules above)."""
    namespace: dict[str, object] = {}
    exec(
        compile((folder / "tests" / "data.py").read_text(encoding="utf-8"), "data.py", "exec"),
        namespace,
    )
    grids = {k: v for k, v in namespace.items() if k.startswith("data_") and isinstance(v, list)}
    found, missing = [], []
    for line in (folder / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`data_"):
            continue
        page = int(m.group(1)) if (m := _PAGE.search(cells[1])) else 1
        call = _call(cells[2])
        for name in _names(cells[0], grids):
            for pdf in _CODE.findall(cells[1]):
                entry = {"grid": name, "pdf": pdf, "page": page, **call}
                if not (folder / "tests" / "files" / pdf).is_file():
                    missing.append(entry)
                    continue
                rows = grids[name]
                entry["rows"] = [[" ".join(str(c).split()) for c in row] for row in rows]
                found.append(entry)
    return {"grids": found, "missing": missing}


if __name__ == "__main__":
    if sys.argv[1:2] == ["--camelot"]:
        report = json.dumps(camelot_grids(Path(sys.argv[2])), ensure_ascii=False, indent=1)
        if "--out" in sys.argv:
            Path(sys.argv[sys.argv.index("--out") + 1]).write_text(report + "\n", encoding="utf-8")
        else:
            sys.stdout.write(report + "\n")
        raise SystemExit(0)
    raise SystemExit(write_report(sys.argv[1:], __doc__ or "", truth_for))
