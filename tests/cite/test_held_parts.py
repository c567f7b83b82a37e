"""Footnotes and table cells seen by the verifier on a held version (C6, C20): the Federal Register
issue of 10 May 2018 in the small workspace, verified through `verify_citations` and the command
line, its footnotes and tables read from its artefact in the store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import STORE
from workbench.cells import TableCell
from workbench.cite.batch import verify_citations, verify_for_version
from workbench.cite.verify import Citation
from workbench.cli import main
from workbench.text.footnotes import Footnote, FootnoteReading, read_markup_footnotes
from workbench.text.parts import version_parts
from workbench.text.table_cells import read_tables
from workbench.workspace import Workspace

FR_2018 = "us-federal-register/fr-issue-2018-05-10/FR-2018-05-10-uslm.xml"


@pytest.fixture(scope="module")
def cells(workspace: Workspace) -> list[TableCell]:
    text = workspace.version(FR_2018).text
    data = (STORE / FR_2018).read_bytes()
    return [c for t in read_tables(data, source=FR_2018, text=text) for c in t.cells]


@pytest.fixture(scope="module")
def reading() -> FootnoteReading:
    """The issue's notes as the markup reader reads its bytes, once for the module (three
    tests hold what the workspace shows against them)."""
    return read_markup_footnotes((STORE / FR_2018).read_bytes(), source=FR_2018)


def _unique(cells: list[TableCell], text: str) -> TableCell:
    """The first cell without doubt whose value is in no other cell and whose column has a
    neighbour column with another header (to name a wrong one)."""
    values = [text[c.char_start : c.char_end] for c in cells]
    return next(
        c
        for c, v in zip(cells, values, strict=True)
        if c.doubt is None and c.row_header and values.count(v) == 1 and len(v) > 3
    )


def _cell_citation(cell: TableCell, text: str, row: str, column: str) -> Citation:
    return Citation(
        version_id=FR_2018,
        char_start=cell.char_start,
        char_end=cell.char_end,
        quoted_text=text[cell.char_start : cell.char_end],
        row_header=row,
        column_header=column,
    )


def test_footnote_unquoted_on_a_held_clause(workspace: Workspace, reading: FootnoteReading) -> None:
    text = workspace.version(FR_2018).text

    def sentence(note: Footnote) -> int:  # where the sentence its marker closes starts
        return text.rindex(". ", 0, note.anchors[0][0]) + 2

    # A note whose sentence and note hold no other note's marker: quoting both leaves none out.
    note = next(
        f
        for f in reading.footnotes
        if f.anchors
        and all(
            a in f.anchors
            for g in reading.footnotes
            for a in g.anchors
            if sentence(f) <= a[0] < f.char_end
        )
    )
    marker, start = note.anchors[0][0], sentence(note)
    quoted = Citation(
        version_id=FR_2018, char_start=start, char_end=marker, quoted_text=text[start:marker]
    )
    with_note = Citation(
        version_id=FR_2018,
        char_start=start,
        char_end=note.char_end,
        quoted_text=text[start : note.char_end],
    )
    caveated, plain = verify_citations(workspace, [quoted, with_note])
    assert caveated.standing == "verified with caveats"
    assert [c.kind for c in caveated.caveats] == ["footnote_unquoted"]
    assert [(e.char_start, e.char_end) for e in caveated.caveats[0].evidence] == [
        (note.char_start, note.char_end)
    ]
    assert plain.standing == "verified", [c.line() for c in plain.caveats]


def test_cell_citations(workspace: Workspace, cells: list[TableCell]) -> None:
    text = workspace.version(FR_2018).text
    cell = _unique(cells, text)
    row, column = cell.row_header[-1], cell.column_header[-1]
    other = next(
        c.column_header[-1] for c in cells if c.column_header and c.column_header[-1] != column
    )
    merged = next(c for c in cells if c.doubt is not None and "spans" in c.doubt)
    good, wrong, doubtful = verify_citations(
        workspace,
        [
            _cell_citation(cell, text, row, column),
            _cell_citation(cell, text, row, other),
            _cell_citation(merged, text, "any", "any"),
        ],
    )
    assert good.standing == "verified"
    assert good.detail.startswith("occurrence 1 of 1; the cell stands under row header ")
    assert (wrong.outcome, wrong.reason) == ("refused", "header_mismatch")
    assert (
        wrong.detail
        == f"the cell at [{cell.char_start}, {cell.char_end}) stands under "
        + good.detail.split("stands under ", 1)[1]
    )
    assert (doubtful.outcome, doubtful.reason) == ("refused", "cell_ambiguous")
    assert doubtful.detail == f"the cell's header is in doubt: {merged.doubt}"


def test_verify_reads_cell_headers_from_json_lines(
    workspace: Workspace, cells: list[TableCell], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = workspace.version(FR_2018).text
    cell = _unique(cells, text)
    record = {
        "version_id": FR_2018,
        "char_start": cell.char_start,
        "char_end": cell.char_end,
        "quoted_text": text[cell.char_start : cell.char_end],
        "row_header": cell.row_header[-1],
        "column_header": cell.column_header[-1],
    }
    path = tmp_path / "cells.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert main(["verify", str(path), "--json", "--workspace", str(workspace.path)]) == 0
    (line,) = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    assert line["outcome"] == "verified"


def test_cite_offers_a_cells_headers(
    workspace: Workspace, cells: list[TableCell], capsys: pytest.CaptureFixture[str]
) -> None:
    text = workspace.version(FR_2018).text
    cell = _unique(cells, text)
    value = text[cell.char_start : cell.char_end]
    assert main(["cite", value, "--version", FR_2018, "--workspace", str(workspace.path)]) == 0
    printed = capsys.readouterr().out.splitlines()
    spans = cell.row_header_spans[-1], cell.column_header_spans[-1]
    assert printed[1] == (
        f"  table cell row {cell.row}, column {cell.column}: row header "
        + " / ".join(
            f"{w!r} [{a}, {b})"
            for w, (a, b) in zip(cell.row_header, cell.row_header_spans, strict=True)
        )
        + ", column header "
        + " / ".join(
            f"{w!r} [{a}, {b})"
            for w, (a, b) in zip(cell.column_header, cell.column_header_spans, strict=True)
        )
    )
    record = json.loads(printed[-1])
    assert (record["row_header"], record["column_header"]) == (
        text[slice(*spans[0])],
        text[slice(*spans[1])],
    )
    (verdict,) = verify_citations(workspace, [Citation(**record)])
    assert verdict.standing == "verified"


def test_passages_show_footnotes_and_tables(
    workspace: Workspace, reading: FootnoteReading, capsys: pytest.CaptureFixture[str]
) -> None:
    text = workspace.version(FR_2018).text
    assert main(["passages", FR_2018, "--json", "--workspace", str(workspace.path)]) == 0
    passages = json.loads(capsys.readouterr().out)
    notes = {(f.char_start, f.char_end): f for f in reading.footnotes}
    footnotes = [p for p in passages if p["kind"] == "footnote"]
    assert footnotes and all(
        p["anchors"] == [list(a) for a in notes[(p["char_start"], p["char_end"])].anchors]
        for p in footnotes
        if (p["char_start"], p["char_end"]) in notes
    )
    rows = [p for p in passages if p["kind"] == "table"]
    assert any(p["cells"] for p in rows)
    for p in rows:
        for cell in p["cells"]:
            assert p["char_start"] <= cell["char_start"] < cell["char_end"] <= p["char_end"]
            assert [text[a:b] for a, b in cell["column_header_spans"]] == cell["column_header"]


@pytest.mark.parametrize(
    ("bytes_there", "read"),
    [
        pytest.param("own", True, id="the-artefact"),
        pytest.param("missing", False, id="store-moved"),
        pytest.param("other", False, id="other-bytes"),
    ],
)
def test_parts_read_only_the_versions_own_bytes(
    workspace: Workspace, reading: FootnoteReading, tmp_path: Path, bytes_there: str, read: bool
) -> None:
    version = workspace.version(FR_2018)
    store = tmp_path / bytes_there
    if bytes_there != "missing":
        (store / FR_2018).parent.mkdir(parents=True)
        data = (STORE / FR_2018).read_bytes()
        (store / FR_2018).write_bytes(
            data if bytes_there == "own" else data.replace(b"82 FR", b"83 FR", 1)
        )
    footnotes, tables = version_parts(version, store)
    assert (footnotes is not None, tables is not None) == (read, read)
    if read:
        assert footnotes == reading


def test_citations_verified_one_at_a_time_read_the_parts_once_per_workspace(
    workspace: Workspace, cells: list[TableCell], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each citation of one version verified alone gets the verdict it gets in the batch, and
    the version's parts are read once for the workspace, not once per citation."""
    import workbench.cite.parts as parts

    text = workspace.version(FR_2018).text
    headed = [c for c in cells if c.doubt is None and c.row_header and c.column_header]
    citations = [
        _cell_citation(c, text, c.row_header[-1], c.column_header[-1]) for c in headed[:12]
    ]
    batch = verify_citations(workspace, citations)
    parts._READ.pop(workspace, None)  # as a workspace opened anew
    read: list[str] = []
    whole = parts.held_parts
    monkeypatch.setattr(
        parts, "held_parts", lambda held, v, *a: read.append(v.version_id) or whole(held, v, *a)
    )
    alone = [verify_for_version(workspace, c) for c in citations]
    assert alone == list(batch) and read == [FR_2018]
    assert len(alone) == 12 and "verified" in {v.standing for v in alone}
