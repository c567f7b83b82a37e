"""`history` and `recheck` say where a quote's footnote changed though its words did not (C16, C20):
two releases of a held Justice Canada regulation, the later one's bytes with the note that
qualifies the enacting clause rewritten, as a new release would; and nothing said when the notes
are the same."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

from tests.conftest import CORPUS_DIR, STORE
from workbench.cite import Citation
from workbench.corpus import CorpusSettings, read_catalogue
from workbench.history.dating import history_lines, quote_history
from workbench.history.recheck import recheck_lines, recheck_quotes
from workbench.models import CatalogueRow, Version
from workbench.workspace import Workspace
from workbench.workspace.holding import version_from_row
from workbench.workspace.parts import held_footnotes

FAMILY = "ca-energy-efficiency-regs-2016"
BEFORE, AFTER = "SOR-2016-311@2022-12-31.xml", "SOR-2016-311@2025-03-31.xml"
NOTE = b"<Label>a</Label><Text>S.C. 1992, c. 36</Text>"


@cache
def _rows() -> dict[str, CatalogueRow]:
    return {r.path.rsplit("/", 1)[-1]: r for r in read_catalogue(CORPUS_DIR) if r.family == FAMILY}


@cache
def _release(name: str, rewrite: bytes) -> tuple[bytes, Version]:
    """A release's bytes (the later one's with `NOTE` rewritten to `rewrite`) and the version
    extracted from them, once for the module: both cases hold the same earlier release, and the
    case with the same notes the later one's own bytes."""
    row = _rows()[name]
    data = (STORE / row.path).read_bytes()
    if name == AFTER:
        data = data.replace(NOTE, rewrite)
    version = version_from_row(row, data)
    return data, replace(version, artefact_sha256=hashlib.sha256(data).hexdigest())


@pytest.mark.parametrize(
    ("rewrite", "changed"),
    [
        pytest.param(b"<Label>a</Label><Text>S.C. 1992, c. 37</Text>", True, id="note-rewritten"),
        pytest.param(NOTE, False, id="same-notes"),
    ],
)
def test_history_reports_a_changed_footnote(tmp_path: Path, rewrite: bytes, changed: bool) -> None:
    rows = _rows()
    store = tmp_path / "store"
    path = tmp_path / "workspace.sqlite"
    with Workspace(path) as workspace:
        for name in (BEFORE, AFTER):
            row = rows[name]
            data, version = _release(name, rewrite if name == AFTER else NOTE)
            (store / row.path).parent.mkdir(parents=True, exist_ok=True)
            (store / row.path).write_bytes(data)
            workspace.add_version(version, row.provenance)
        workspace.remember(
            CorpusSettings(corpus=None, catalogue=CORPUS_DIR, store=store), by="test"
        )
    with Workspace(path) as workspace:
        before = workspace.version(rows[BEFORE].path)
        text = before.text
        # The notes `quote_history` reads (the workspace keeps them as it reads them first here).
        reading = held_footnotes(workspace, before)
        assert reading is not None
        note = next(
            n for n in reading.footnotes if text[n.char_start : n.char_end] == "a S.C. 1992, c. 36"
        )
        marker = note.anchors[0][0]
        quote = text[text.rindex("\n", 0, marker) + 1 : marker]  # the clause up to its marker
        life = quote_history(workspace, quote, FAMILY)
        start = text.index(quote)
        cited = Citation(
            version_id=rows[BEFORE].path, char_start=start, char_end=marker, quoted_text=quote
        )
        report = recheck_quotes(workspace, citations=[("the clause", cited)])
    assert [h.holds for h in life.versions] == [True, True]
    assert "S.C. 1992, c. 36" in life.versions[0].footnotes
    lines = history_lines(life)
    flagged = [line for line in lines if "footnote changed" in line]
    assert bool(flagged) == changed
    assert [life.footnote_changed(h) for h in life.versions] == [False, changed]
    (finding,) = report.findings  # recheck says the same of a recorded citation
    assert (finding.status, finding.footnote_changed) == ("still_present", changed)
    assert any("footnote changed" in line for line in recheck_lines(report)) == changed
    if changed:
        assert "'S.C. 1992, c. 37'" in flagged[0]
        assert life.as_json()["versions"][1]["footnote_changed"] is True
        assert finding.as_json()["footnotes_after"] == list(life.versions[1].footnotes)
