"""Ingest reads a PDF once (C13): its parts (footnotes, tables, heading lines) are read off the
trace of the extraction that gave its text and kept where `held_parts` finds them, on real PDFs
(a NERC standard, the D.P.U. order, the commission's copy of a us-tx filing with its invisible
text layer, and the filer's scan our OCR reads, whose notes are read only from glyphs: none). The
text, structure and passages are those of an extraction without the trace (C1), and the kept parts
those the artefact gives when extracted again; a read-only workspace keeps nothing."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import STORE, FreshWorkspace
from workbench.models import CatalogueRow
from workbench.text import parts
from workbench.text.ocr import OcrOptions, default_cache
from workbench.text.parts import read_from_glyphs, version_parts_and_headings
from workbench.text.pdf import Placed
from workbench.text.segment import segment_version
from workbench.workspace import Workspace, version_from_row
from workbench.workspace.parts import TABLE, held_headings, held_parts, keep_pdf_parts, parts_key

NERC = "us-nerc/nerc-cip-008/cip-008-6.pdf"
DPU = "us-ma/dpu-18-150-national-grid-base-rate-order/dpu-18-150_order_2019-09-30.pdf"
TX = "us-tx/puct-49421-item80-cehe-response-to-tiec-rfi-set1/"
TX_COMMISSION = TX + "v2_puct-interchange_49421_80_1016841.PDF"
TX_FILER_SCAN = TX + "v1_cehe-filer-copy_D49421-CEHE-Response-to-TIEC-1st-RFIs.pdf"
PDFS = [
    pytest.param(NERC, True, id="nerc-standard"),
    # A long order: with the whole-corpus tests, read where the whole corpus's ingest holds it.
    pytest.param(DPU, True, id="dpu-order", marks=pytest.mark.slow),
    pytest.param(TX_COMMISSION, True, id="us-tx-commission-layer"),
    pytest.param(TX_FILER_SCAN, False, id="us-tx-filer-scan-ocr"),
]


def _never(*_: object, **__: object) -> None:
    raise AssertionError("the artefact was read again")


def _row(catalogue: tuple[CatalogueRow, ...], path: str) -> CatalogueRow:
    return next(row for row in catalogue if row.path == path)


@contextmanager
def _ingested(
    request: pytest.FixtureRequest, row: CatalogueRow, fresh_workspace: FreshWorkspace, at: Path
) -> Iterator[Workspace]:
    """A workspace whose ingest read `row`: one of its own, or for a slow case the whole corpus's
    (its ingest read every row, this one included, once per run: reading the long order into a
    workspace of its own would extract it a second time)."""
    if request.node.get_closest_marker("slow") is not None:
        yield request.getfixturevalue("corpus_workspace")
        return
    with fresh_workspace([row], at) as workspace:
        yield workspace


@pytest.mark.parametrize(("path", "glyphs"), PDFS)
def test_ingest_keeps_a_pdfs_parts_from_its_one_extraction(
    path: str,
    glyphs: bool,
    catalogue: tuple[CatalogueRow, ...],
    fresh_workspace: FreshWorkspace,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    row = _row(catalogue, path)
    with _ingested(request, row, fresh_workspace, tmp_path / "workspace.sqlite") as workspace:
        held = workspace.version(path)
        # C1: the text and its offsets are those of an extraction without the trace.
        ocr = OcrOptions(cache=default_cache(workspace.path))  # the cache ingest read through
        alone = version_from_row(row, (STORE / path).read_bytes(), ocr=ocr)
        assert (held.text, held.text_sha256, held.structure, held.pages, held.origin) == (
            alone.text,
            alone.text_sha256,
            alone.structure,
            alone.pages,
            alone.origin,
        )
        assert read_from_glyphs(held) is glyphs
        kept = workspace.read(f"SELECT key FROM {TABLE} WHERE version_id = ?", (path,))
        assert kept == [(parts_key(held),)]
        # The kept parts are read back with no artefact opened and no PDF extracted.
        with monkeypatch.context() as never:
            never.setattr("workbench.text.parts._artefact", _never)
            never.setattr("workbench.text.pdf.extract_pdf", _never)
            never.setattr("workbench.workspace.parts.version_parts_and_headings", _never)
            footnotes, tables = held_parts(workspace, held)
            headings = held_headings(workspace, held)
        # ... and are what the artefact gives when extracted again (the reading before ingest kept it).
        parts._pdf.cache_clear()
        again = version_parts_and_headings(held, STORE)
        assert (footnotes, tables, headings) == again
        assert tables is not None
        # Notes and heading lines only where every page was read from its glyphs: OCR words
        # carry no glyph sizes.
        assert (footnotes is not None) is glyphs
        assert bool(headings) is glyphs
        # The passages a command reads (kinds from the parts) are those of the trace-less text.
        assert segment_version(held, footnotes=footnotes, tables=tables) == segment_version(
            alone, footnotes=again[0], tables=again[1]
        )


def test_a_read_only_workspace_keeps_no_parts_at_ingest(
    catalogue: tuple[CatalogueRow, ...],
    fresh_workspace: FreshWorkspace,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    row = _row(catalogue, NERC)
    data = (STORE / NERC).read_bytes()
    with fresh_workspace([row], tmp_path / "workspace.sqlite") as workspace:
        with workspace.transaction() as conn:
            conn.execute(f"DROP TABLE {TABLE}")
        trace: list[Placed] = []
        version = version_from_row(row, data, trace=trace)
        assert trace
        # As a workspace nobody may write is opened (root writes whatever the file modes say).
        monkeypatch.setattr(workspace, "read_only", "the file is read-only")
        keep_pdf_parts(workspace, version, data, trace)
        assert TABLE not in workspace.tables()
