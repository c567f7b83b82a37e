"""`workbench diff` pairs a held version's tables row by row and shows each row by its own cells
(C7, C20): the `us-tx` rate-case expense update, whose expense table grows from 2 to 5 pages,
diffs as rows added in the listing, the JSON, the redline page, the Word redline and the review
queue's storage, and no change shows text of another row."""

from __future__ import annotations

import dataclasses
import json
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.changes.test_table_rows import MIN_PAIRED, _expense_rows
from workbench.cells import TableCell
from workbench.changes import pairs, redline
from workbench.changes import redline_page as redline_html
from workbench.changes.diff import diff_passages, pairing_is_uncertain
from workbench.changes.queue import items_of_pair
from workbench.changes.stored import _item, _items_json
from workbench.changes.table_rows import row_units
from workbench.cli import main
from workbench.models import Change, Version
from workbench.text.table_cells import Table
from workbench.workspace import Workspace
from workbench.workspace.parts import held_parts
from workbench.workspace.passages import held_passages

FAMILY = "puct-49595-puc01-01-rate-case-expense-update"


@pytest.fixture(scope="module")
def versions(workspace: Workspace) -> tuple[Version, Version]:
    (pair,) = pairs.version_pairs(workspace, FAMILY)
    return pair


@pytest.fixture(scope="module")
def grown(workspace: Workspace, versions: tuple[Version, Version]) -> redline.Section:
    (section,) = pairs.diff_sections((versions,), workspace=workspace)
    return section


def _row(cells: Sequence[dict[str, int]]) -> tuple[int, int] | None:
    """A JSON change side's cells as `_expense_rows` gives a row: its first start, last end."""
    if not cells:
        return None
    return min(c["char_start"] for c in cells), max(c["char_end"] for c in cells)


def _cli(capsys: pytest.CaptureFixture[str], workspace: Workspace, *args: str) -> str:
    assert main([*args, "--workspace", str(workspace.path)]) == 0
    return capsys.readouterr().out


def test_the_command_diffs_the_grown_table_as_rows_added(
    workspace: Workspace, versions: tuple[Version, Version], capsys: pytest.CaptureFixture[str]
) -> None:
    rows_a, rows_b = (_expense_rows(v.text, held_parts(workspace, v)[1] or ()) for v in versions)
    assert len(rows_b) > len(rows_a) > 0
    (listed,) = json.loads(_cli(capsys, workspace, "diff", FAMILY, "--json"))
    changes = listed["changes"]
    added = [
        c for c in changes if c["kind"] == "added" and _row(c.get("after_cells", ())) in rows_b
    ]
    paired = [
        c
        for c in changes
        if c["kind"] in ("unchanged", "modified", "moved")
        and _row(c.get("before_cells", ())) in rows_a
        and _row(c.get("after_cells", ())) in rows_b
    ]
    assert len(added) >= len(rows_b) - len(rows_a)
    assert len(paired) >= MIN_PAIRED * len(rows_a)
    assert not [c for c in changes if c["kind"] in ("split", "merged") and "after_cells" in c]
    listing = _cli(capsys, workspace, "diff", FAMILY).splitlines()
    # each listed change: its summary line, its places, its marked text (no laws asked)
    listed_rows = {
        line.split()[0]: (line.split()[1], listing[k + 2])
        for k, line in enumerate(listing)
        if line.startswith("  chg-")
    }
    places = {line.split()[0]: listing[k + 1] for k, line in enumerate(listing) if " chg-" in line}
    for change in changes:
        if change["kind"] == "unchanged":
            continue
        kind, marked = listed_rows[change["change_id"]]
        is_row = "after_cells" in change or "before_cells" in change
        assert kind == change["kind"]
        assert marked.startswith("    | ") == is_row, marked
        for side in ("before", "after"):
            cells = change.get(f"{side}_cells")
            span = change[side]
            if cells:  # where a row's cells lie, never said to be the row
                where = f"{side} {len(cells)} cells in [{span['char_start']}, {span['char_end']})"
                assert where in places[change["change_id"]]
    rows_added = [c for c in changes if c["kind"] == "added" and "after_cells" in c]
    assert sum(k == "added" and m.startswith("    | ") for k, m in listed_rows.values()) == len(
        rows_added
    )


def test_no_change_shows_text_of_another_row(grown: redline.Section) -> None:
    """A row's shown text is its own cells, each read at its offsets; a change that is no row
    holds no row's cell in its span."""
    owned = {
        side: sorted(
            (c.char_start, c.char_end, r.change.change_id)
            for r in grown.shown
            for c in getattr(r.change, f"{side}_cells")
        )
        for side in ("before", "after")
    }
    starts = {side: [o[0] for o in cells] for side, cells in owned.items()}
    rows = 0
    for r in grown.shown:
        described = redline.change_json(r)
        for side, source in (("before", r.before_source), ("after", r.after_source)):
            cells = getattr(r.change, f"{side}_cells")
            span = getattr(r.change, side)
            if cells:
                rows += 1
                assert [c["text"] for c in described[f"{side}_cells"]] == [
                    source[c.char_start : c.char_end] for c in cells
                ]
                shown = described[f"{side}_text"]
                for cell in cells:
                    assert " ".join(source[cell.char_start : cell.char_end].split()) in shown
                pieces = [
                    (p.before_start, p.before_end)
                    if side == "before"
                    else (p.after_start, p.after_end)
                    for p in r.pieces
                ]
                spans = [(c.char_start, c.char_end) for c in cells]
                assert all(
                    start == end or any(a <= start and end <= b for a, b in spans)
                    for start, end in pieces
                )
            elif span is not None:
                # the cells starting inside the span, found by their sorted starts
                near = owned[side][
                    bisect_left(starts[side], span.char_start) : bisect_right(
                        starts[side], span.char_end
                    )
                ]
                inside = [o for o in near if o[1] <= span.char_end and o[2] != r.change.change_id]
                assert not inside, (r.change.change_id, inside[:3])
    assert rows


def test_a_row_is_shown_cell_by_cell_on_every_surface(
    workspace: Workspace, grown: redline.Section, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    modified = next(
        r
        for r in grown.shown
        if r.change.kind == "modified" and r.change.before_cells and r.change.after_cells
    )
    line = redline.marked_text(modified)
    assert line.startswith("| ") and line.endswith(" |")
    assert ("[-" in line or "{+" in line) and line.count(" | ") == len(modified.cells) - 1
    page = redline_html.page_html([grown], family=FAMILY, shown="every change")
    assert page.count('<span class="cell">|</span>') >= sum(
        bool(c.before_cells) + bool(c.after_cells) for c in grown.changes if c.kind != "moved"
    )
    out = tmp_path / "grown.docx"
    assert "wrote" in _cli(capsys, workspace, "diff", FAMILY, "--docx", str(out))
    assert "verified" in _cli(capsys, workspace, "verify-redline", str(out))


def test_a_stored_row_change_reads_back_with_its_cells(
    versions: tuple[Version, Version], grown: redline.Section
) -> None:
    items = items_of_pair(*versions, grown.changes)
    stored = [p.change for item in items for p in item.pairings]
    assert any(c.before_cells or c.after_cells for c in stored)
    pair = (grown.before.version_id, grown.after.version_id)
    back = [_item(kept, "us-tx", FAMILY, pair) for kept in json.loads(_items_json(items))]
    assert back == items


def _without_row_headers(tables: Sequence[Table]) -> tuple[Table, ...]:
    def bare(cells: Sequence[TableCell]) -> tuple[TableCell, ...]:
        return tuple(dataclasses.replace(c, row_header=(), row_header_spans=()) for c in cells)

    return tuple(dataclasses.replace(t, cells=bare(t.cells), head=bare(t.head)) for t in tables)


def test_rows_without_row_headers_key_by_their_first_cell_and_a_changed_one_is_doubtful(
    workspace: Workspace, versions: tuple[Version, Version]
) -> None:
    """The same tables with every row header taken away: each row is labelled by its first
    cell's text, so a pairing across two different first cells is capped and doubtful."""
    profile = pairs.pairs_profile((versions,), None)
    sides = [
        (
            held_passages(workspace, v, profile),
            _without_row_headers(held_parts(workspace, v)[1] or ()),
            v.text,
        )
        for v in versions
    ]
    for passages, tables, text in sides:
        for unit in row_units(passages, tables):
            if unit.cells:
                first = unit.cells[0]
                key = " ".join(text[first.char_start : first.char_end].split())
                assert unit.section_label == (key or None)
    changes: tuple[Change, ...] = diff_passages(
        versions[0].version_id,
        versions[1].version_id,
        sides[0][0],
        sides[1][0],
        tables=(sides[0][1], sides[1][1]),
    )
    relabelled = [
        c
        for c in changes
        if c.before_cells
        and c.after_cells
        and c.kind != "unchanged"
        and c.before_label != c.after_label
    ]
    assert relabelled
    assert all(c.capped and pairing_is_uncertain(c) for c in relabelled)
