"""Tables paired row by row in the diff (C7, C20), on the held `us-tx` rate-case expense update
whose expense table grows from 2 to 5 pages (16 -> 102 pages in all) between two updates: the
growth is rows added, each old row paired with one new row, not a rewritten table."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise
from pathlib import Path

import pytest

from tests.conftest import STORE
from workbench.changes.diff import diff_passages
from workbench.changes.table_rows import row_units
from workbench.models import Change, Passage
from workbench.text.pdf import extract_pdf
from workbench.text.pdf_tables import read_pdf_tables
from workbench.text.segment import segment
from workbench.text.table_cells import Table

FAMILY = STORE / "us-tx" / "puct-49595-puc01-01-rate-case-expense-update"
MIN_PAIRED = 0.95  # of the old table's rows paired one to one with a new row
HEAD = "Invoice Date"  # the expense table's first column head in both updates


Side = tuple[str, tuple[Table, ...], tuple[Passage, ...]]


def _side(path: Path) -> Side:
    data = path.read_bytes()
    text = extract_pdf(data, source=path.name).text
    tables = read_pdf_tables(data, source=path.name, text=text)
    return text, tables, segment(path.name, text)


@pytest.fixture(scope="module")
def sides() -> tuple[Side, Side]:
    """Each update's text, tables and passages, read once for the module (a 16- and a 102-page
    PDF)."""
    before, after = sorted(FAMILY.glob("v*.PDF"))
    return _side(before), _side(after)


def _expense_rows(text: str, tables: tuple[Table, ...]) -> set[tuple[int, int]]:
    """The spans of the expense table's rows: the table headed `HEAD` and the tables right
    after it that have no head of their own (its continuation on the next pages)."""
    rows: set[tuple[int, int]] = set()
    inside = False
    for table in tables:
        if any(text[h.char_start : h.char_end] == HEAD for h in table.head):
            inside = True
        elif table.head:
            inside = False
        if inside:
            for cells in table.rows().values():
                rows.add((min(c.char_start for c in cells), max(c.char_end for c in cells)))
    return rows


@pytest.fixture(scope="module")
def growth(
    sides: tuple[Side, Side],
) -> tuple[tuple[Change, ...], set[tuple[int, int]], set[tuple[int, int]]]:
    before, after = sorted(FAMILY.glob("v*.PDF"))
    (text_a, tables_a, passages_a), (text_b, tables_b, passages_b) = sides
    changes = diff_passages(
        before.name, after.name, passages_a, passages_b, tables=(tables_a, tables_b)
    )
    return changes, _expense_rows(text_a, tables_a), _expense_rows(text_b, tables_b)


def _span(change: Change, side: str) -> tuple[int, int] | None:
    span = change.before if side == "before" else change.after
    return (span.char_start, span.char_end) if span is not None else None


@pytest.mark.slow
def test_the_grown_table_diffs_as_rows_added(
    growth: tuple[tuple[Change, ...], set[tuple[int, int]], set[tuple[int, int]]],
) -> None:
    changes, rows_a, rows_b = growth
    assert len(rows_b) > len(rows_a) > 0
    one_to_one = [
        c
        for c in changes
        if c.kind in ("unchanged", "modified", "moved")
        and _span(c, "before") in rows_a
        and _span(c, "after") in rows_b
    ]
    added = [c for c in changes if c.kind == "added" and _span(c, "after") in rows_b]
    assert len(one_to_one) >= MIN_PAIRED * len(rows_a)
    assert len(added) >= len(rows_b) - len(rows_a)
    kinds = Counter(c.kind for c in changes if _span(c, "after") in rows_b)
    assert kinds["split"] + kinds["merged"] <= 1, kinds


@pytest.mark.slow
def test_without_tables_the_growth_is_not_rows(
    growth: tuple[tuple[Change, ...], set[tuple[int, int]], set[tuple[int, int]]],
    sides: tuple[Side, Side],
) -> None:
    _, rows_a, rows_b = growth
    before, after = sorted(FAMILY.glob("v*.PDF"))
    (_, _, passages_a), (_, _, passages_b) = sides
    plain = diff_passages(before.name, after.name, passages_a, passages_b)
    as_rows = [c for c in plain if _span(c, "after") in rows_b or _span(c, "before") in rows_a]
    # Passages are paragraphs: a row is one only where a line stands alone.
    assert len(as_rows) < len(rows_b) - len(rows_a)


@pytest.mark.slow
def test_a_row_unit_holds_its_cells_at_their_raw_offsets(sides: tuple[Side, Side]) -> None:
    text, tables, passages = sides[0]
    units = row_units(passages, tables)
    rows = [u for u in units if u.cells]
    assert rows
    for unit in units:
        assert len(unit.text) == unit.char_end - unit.char_start
        for k, char in enumerate(unit.text):
            assert char == " " or char == text[unit.char_start + k]
    # A table is read as rows when each cell's span lies in one passage, no two overlapping.
    ends = [(p.char_start, p.char_end) for p in passages]

    def pieces(t: Table) -> list[tuple[int, int]]:
        return sorted((c.char_start, c.char_end) for c in (*t.head, *t.cells))

    whole = [
        t
        for t in tables
        if all(any(s <= a and b <= e for s, e in ends) for a, b in pieces(t))
        and all(y[0] >= x[1] for x, y in pairwise(pieces(t)))
    ]
    assert whole
    held = "".join(text[c.char_start : c.char_end] for u in rows for c in u.cells)
    assert held == "".join(
        text[c.char_start : c.char_end]
        for t in whole
        for cells in ((tuple(sorted(t.head, key=lambda c: (c.row, c.column))),) if t.head else ())
        + tuple(t.rows().values())
        for c in cells
    )
    assert [u.ordinal for u in units] == list(range(len(units)))


@pytest.mark.slow
def test_without_tables_the_passages_are_the_units(sides: tuple[Side, Side]) -> None:
    _, _, passages = sides[0]
    assert row_units(passages, None) == list(passages)
    assert row_units(passages, ()) == list(passages)
