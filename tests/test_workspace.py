from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
from collections.abc import Callable
from dataclasses import fields, replace
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from workbench.corpus import admit, fetch
from workbench.errors import (
    AppendOnlyViolation,
    CorpusChanged,
    FamilyNotFound,
    VersionNotFound,
    WorkspaceError,
)
from workbench.models import (
    CatalogueRow,
    TextOrigins,
    Version,
    VersionText,
    origins_from_json,
    text_sha256,
)
from workbench.text.pdf import PDF_EXTRACTOR, PDF_EXTRACTOR_VERSION
from workbench.text.segment import segment
from workbench.workspace import (
    LISTING_SQL,
    Workspace,
    family_listing,
    ingest,
    version_from_row,
    version_listing,
)

from .conftest import CORPUS_DIR, STORE

SAMPLE = "ietf/draft-ietf-appsawg-http-problem/draft-ietf-appsawg-http-problem-01.txt"


def _row(path: str, data: bytes, **changes: object) -> CatalogueRow:
    record = dict(json.loads((STORE / (path + ".provenance.json")).read_bytes()))
    record.update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data), **changes)
    return CatalogueRow.of(path, record)


@pytest.mark.slow
def test_every_version_ingests(
    catalogue: tuple[CatalogueRow, ...], corpus_workspace: Workspace
) -> None:
    assert sorted(corpus_workspace.version_ids()) == sorted(r.path for r in catalogue)
    for version in corpus_workspace.versions():
        assert text_sha256(version.text) == version.text_sha256
        data = (STORE / version.version_id).read_bytes()
        assert hashlib.sha256(data).hexdigest() == version.artefact_sha256
        if version.extractor == "identity":
            assert version.text == data.decode("utf-8"), "identity extraction must keep every byte"


@pytest.mark.slow
def test_filing_dates_are_each_provenance_s_own(
    catalogue: tuple[CatalogueRow, ...], corpus_workspace: Workspace
) -> None:
    """`filing_dates` reads the one field in SQLite: the string each held provenance gives, None
    where it gives none or a value that is not a string."""
    by_path = {row.path: row.provenance for row in catalogue}
    dates = corpus_workspace.filing_dates()
    assert dates.keys() == by_path.keys()
    for path, record in by_path.items():
        value = record.get("filing_date")
        assert dates[path] == (value if isinstance(value, str) else None)
    assert any(d is None for d in dates.values()) and any(d for d in dates.values())


@pytest.mark.slow
def test_pdfs_ingest_with_page_map_and_furniture(
    catalogue: tuple[CatalogueRow, ...], corpus_workspace: Workspace
) -> None:
    pdfs = [r.path for r in catalogue if r.media_type == "application/pdf"]
    # Every catalogued file that is a PDF by its bytes is catalogued as one, and nothing else is.
    assert pdfs == [r.path for r in catalogue if (STORE / r.path).read_bytes()[:5] == b"%PDF-"]
    assert len({p.split("/")[0] for p in pdfs}) >= 5
    for path in pdfs:
        version = corpus_workspace.version(path)
        assert version.extractor == PDF_EXTRACTOR
        assert version.extractor_version == PDF_EXTRACTOR_VERSION
        assert [p.page for p in version.pages] == list(range(1, len(version.pages) + 1))
        assert all(a.char_end <= b.char_start for a, b in pairwise(version.pages)), path
    nerc = corpus_workspace.version("us-nerc/nerc-cip-003/cip-003-8.pdf")
    assert len(nerc.pages) == 59 and nerc.furniture and not nerc.unusable_pages


def test_pdf_page_map_furniture_and_unusable_pages_survive_the_workspace(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path
) -> None:
    path = (
        "us-federal-register/fr-2020-17221-faa-boeing-737max-nprm/federal-register-2020-17221.pdf"
    )
    (row,) = [r for r in catalogue if r.path == path]
    data = (STORE / path).read_bytes()
    fresh = version_from_row(row, data)
    with Workspace(tmp_path / "w.sqlite") as held:
        assert held.add_version(fresh, dict(row.provenance))
        assert not held.add_version(fresh, dict(row.provenance))
    with Workspace(tmp_path / "w.sqlite") as reopened:
        stored = reopened.version(path)
    assert stored == fresh
    assert (stored.pages, stored.furniture, stored.unusable_pages) == (
        fresh.pages,
        fresh.furniture,
        fresh.unusable_pages,
    )
    assert [u.page for u in stored.unusable_pages] == [8]  # page 8 is a figure: no text layer


def test_a_changed_pdf_extraction_is_refused_not_replaced(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path
) -> None:
    """An extractor upgrade that changes a PDF's text is CorpusChanged, naming both versions."""
    path = "us-nerc/nerc-cip-012/cip-012-1.pdf"
    (row,) = [r for r in catalogue if r.path == path]
    data = (STORE / path).read_bytes()
    held_version = version_from_row(row, data)
    upgraded = replace(
        held_version,
        extractor_version="2+pypdfium2-99",
        text=held_version.text.replace("Cyber", "Cyb er", 1),
        text_sha256=text_sha256(held_version.text.replace("Cyber", "Cyb er", 1)),
    )
    with Workspace(tmp_path / "w.sqlite") as held:
        held.add_version(held_version, {})
        with pytest.raises(
            CorpusChanged,
            match=re.escape(
                f"{path}: re-extraction by pdf-text 2+pypdfium2-99 gives text sha256 "
                f"{upgraded.text_sha256}; held text (pdf-text {PDF_EXTRACTOR_VERSION}) has "
                f"{held_version.text_sha256}"
            ),
        ):
            held.add_version(upgraded, {})
        assert held.version(path).text == held_version.text


def test_reingest_writes_nothing(catalogue: tuple[CatalogueRow, ...], tmp_path: Path) -> None:
    rows = [
        r
        for r in catalogue
        if r.family == "draft-ietf-appsawg-http-problem" or r.jurisdiction == "us-dc"
    ]
    path = tmp_path / "w.sqlite"
    with Workspace(path) as held:
        first = ingest(held, rows, STORE)
        before = held.execute("SELECT version_id, ingested_at FROM versions ORDER BY version_id")
        second = ingest(held, rows, STORE)
        after = held.execute("SELECT version_id, ingested_at FROM versions ORDER BY version_id")
    assert len(first.added) == len(rows) and not first.awaiting
    assert not second.added and sorted(second.unchanged) == sorted(first.added)
    assert before == after


def test_held_versions_cannot_be_updated_or_deleted(tmp_path: Path) -> None:
    data = (STORE / SAMPLE).read_bytes()
    with Workspace(tmp_path / "w.sqlite") as held:
        held.add_version(version_from_row(_row(SAMPLE, data), data), {})
        with pytest.raises(AppendOnlyViolation, match="append-only table versions: UPDATE refused"):
            held.execute("UPDATE versions SET text = 'forged'")
        with pytest.raises(AppendOnlyViolation, match="append-only table versions: DELETE refused"):
            held.execute("DELETE FROM versions")
        assert held.version(SAMPLE).text == data.decode("utf-8")


def test_changed_bytes_under_a_held_id_raise_corpus_changed(tmp_path: Path) -> None:
    data = (STORE / SAMPLE).read_bytes()
    altered = data.replace(b"problem", b"PROBLEM", 1)
    with Workspace(tmp_path / "w.sqlite") as held:
        assert held.add_version(version_from_row(_row(SAMPLE, data), data), {})
        assert not held.add_version(version_from_row(_row(SAMPLE, data), data), {})
        with pytest.raises(
            CorpusChanged,
            match=f"{SAMPLE}: held with artefact sha256 {hashlib.sha256(data).hexdigest()}",
        ):
            held.add_version(version_from_row(_row(SAMPLE, altered), altered), {})
        assert held.version(SAMPLE).text == data.decode("utf-8")


def test_a_batch_commits_its_transactions_as_one_and_undoes_a_failed_one_alone(
    tmp_path: Path,
) -> None:
    """Inside `batch()` a refused write is undone alone (a savepoint) and the others stay; a
    batch that fails writes nothing; a batch that ends commits, and other connections see it."""
    data = (STORE / SAMPLE).read_bytes()
    altered = data.replace(b"problem", b"PROBLEM", 1)
    with Workspace(tmp_path / "w.sqlite") as held:
        with pytest.raises(RuntimeError, match="the batch fails"), held.batch():
            assert held.add_version(version_from_row(_row(SAMPLE, data), data), {})
            raise RuntimeError("the batch fails")
        assert held.read("SELECT COUNT(*) FROM versions") == [(0,)]
        with held.batch():
            assert held.add_version(version_from_row(_row(SAMPLE, data), data), {})
            with pytest.raises(CorpusChanged, match=f"{SAMPLE}: held with artefact sha256"):
                held.add_version(version_from_row(_row(SAMPLE, altered), altered), {})
            assert held.read("SELECT COUNT(*) FROM versions") == [(1,)]
    with Workspace(tmp_path / "w.sqlite") as again:
        assert again.version(SAMPLE).text == data.decode("utf-8")


def test_changed_extraction_under_a_held_id_raises_corpus_changed(tmp_path: Path) -> None:
    data = (STORE / SAMPLE).read_bytes()
    version = version_from_row(_row(SAMPLE, data), data)
    with Workspace(tmp_path / "w.sqlite") as held:
        held.add_version(version, {})
        forged = version.__class__(
            **{**{f: getattr(version, f) for f in version.__slots__}, "text_sha256": "0" * 64}
        )
        with pytest.raises(
            CorpusChanged, match=r"re-extraction by identity 1 gives text sha256 0{64}"
        ):
            held.add_version(forged, {})


def test_crlf_file_keeps_its_offsets(tmp_path: Path) -> None:
    """A CRLF text is stored byte for byte: no newline translation anywhere on the way in."""
    mirror = tmp_path / "mirror"
    rel = "test/crlf-family/crlf.txt"
    data = b"1. First line\r\nstill first\r\n\r\n2. Second\r\n"
    (mirror / rel).parent.mkdir(parents=True)
    (mirror / rel).write_bytes(data)
    record = {
        "jurisdiction": "test",
        "document_family": "crlf-family",
        "format": "text/plain",
        "version_order": 1,
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
        "source_url": "https://example.org/crlf.txt",
        "byte_faithful_to_official_filing": True,
    }
    (mirror / (rel + ".provenance.json")).write_text(json.dumps(record))
    (row,) = admit(mirror).rows
    store = tmp_path / "store"
    assert fetch([row], store, mirror=mirror).copied == (rel,)
    with Workspace(tmp_path / "w.sqlite") as held:
        ingest(held, [row], store)
        text = held.version(rel).text
    assert text.encode("utf-8") == data
    second = segment(rel, text)[1]
    assert (second.char_start, second.text) == (text.index("2. Second"), "2. Second")


def test_unknown_version_is_a_typed_error(workspace: Workspace) -> None:
    for read in (workspace.version, workspace.text_bytes):
        with pytest.raises(VersionNotFound, match=r"no/such/version\.txt: no such version in"):
            read("no/such/version.txt")


def test_version_texts_are_the_held_versions_identity_text_and_pages(
    workspace: Workspace, held_versions: tuple[Version, ...]
) -> None:
    """Every field of a `VersionText` is its `Version`'s, family by family, in the same order;
    the structure, furniture and unusable pages are not read."""
    held = held_versions
    names = [f.name for f in fields(VersionText)]
    families = sorted({v.family for v in held})
    read = [t for family in families for t in workspace.version_texts(family)]
    assert sorted((t.jurisdiction, t.family, t.version_order) for t in read) == [
        (v.jurisdiction, v.family, v.version_order) for v in held
    ]
    whole = {v.version_id: v for v in held}
    for text in read:
        assert [getattr(text, n) for n in names] == [
            getattr(whole[text.version_id], n) for n in names
        ]
    # the page maps read are real ones: some PDF of the workspace has pages
    assert any(t.pages for t in read if t.media_type == "application/pdf")
    with pytest.raises(FamilyNotFound) as info:
        workspace.version_texts("no-such-family")
    assert str(info.value) == f"no-such-family: no such family in {workspace.path}"


def test_text_bytes_are_the_texts_utf8_and_hash_as_recorded(
    workspace: Workspace, held_versions: tuple[Version, ...]
) -> None:
    for version in held_versions:
        data, recorded = workspace.text_bytes(version.version_id)
        assert data == version.text.encode("utf-8") and recorded == version.text_sha256
        assert text_sha256(data) == text_sha256(version.text) == recorded


def test_a_file_that_is_not_a_workspace_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "not.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(WorkspaceError, match=f"{path}: not a workbench workspace"):
        Workspace(path)
    assert path.read_bytes() == b"this is not a database" * 100


def test_hostile_text_is_refused_at_ingest_and_nothing_is_held(tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    cases = {"bad.txt": b"valid then \xff invalid", "nul.txt": b"a\x00b", "empty.txt": b""}
    for name, data in cases.items():
        (mirror / "test" / "fam" / name).parent.mkdir(parents=True, exist_ok=True)
        (mirror / "test" / "fam" / name).write_bytes(data)
    rows = [
        _row_for(mirror, f"test/fam/{name}", data, order)
        for order, (name, data) in enumerate(cases.items(), 1)
    ]
    shutil.copytree(mirror, tmp_path / "store")
    with Workspace(tmp_path / "w.sqlite") as held:
        report = ingest(held, rows, tmp_path / "store")
        assert held.count() == 0
    assert [(r.path, r.reason) for r in report.refused] == [
        ("test/fam/bad.txt", "extraction_failed"),
        ("test/fam/nul.txt", "extraction_failed"),
        ("test/fam/empty.txt", "extraction_failed"),
    ]
    assert "byte 11" in report.refused[0].detail and "NUL" in report.refused[1].detail
    assert "empty" in report.refused[2].detail


def _row_for(mirror: Path, rel: str, data: bytes, order: int) -> CatalogueRow:
    return CatalogueRow.of(
        rel,
        {
            "jurisdiction": "test",
            "document_family": "fam",
            "format": "text/plain",
            "version_order": order,
            "sha256": hashlib.sha256(data).hexdigest(),
            "bytes": len(data),
            "source_url": "https://example.org/x",
            "byte_faithful_to_official_filing": True,
        },
    )


# ---------------------------------------------------------------------------------------------
# Warm runs: a version held under its artefact hash and the current extractor is not re-extracted


def _few(catalogue: tuple[CatalogueRow, ...]) -> list[CatalogueRow]:
    """One D.C. XML file, one Canadian XML file, one IETF text and one NERC PDF: a five-page one
    (CIP-012-1), since a test here extracts it up to three times and what it asserts of a PDF
    holds of any (the 37 pages of CIP-002-5.1a cost those tests four seconds)."""
    wanted = ("us-dc/", "ca-federal/ca-cpra/", "ietf/draft-baker-soap", "us-nerc/nerc-cip-012/")
    return [next(r for r in catalogue if r.path.startswith(prefix)) for prefix in wanted]


def test_a_warm_ingest_extracts_nothing_already_held(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = _few(catalogue)
    with Workspace(tmp_path / "w.sqlite") as held:
        assert len(ingest(held, rows, STORE).added) == len(rows)
        calls: list[str] = []
        real = version_from_row

        def counted(row: CatalogueRow, data: bytes, **options: Any) -> object:
            calls.append(row.path)
            return real(row, data, **options)

        monkeypatch.setattr("workbench.workspace.holding.version_from_row", counted)
        warm = ingest(held, rows, STORE)
        assert calls == [] and sorted(warm.unchanged) == sorted(r.path for r in rows)
        again = ingest(held, rows, STORE, reextract=True)
        assert sorted(calls) == sorted(r.path for r in rows) and not again.refused


def test_an_older_extractor_version_is_extracted_again_and_must_give_the_held_text(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    row = _few(catalogue)[0]
    fresh = version_from_row(row, (STORE / row.path).read_bytes())
    with Workspace(tmp_path / "w.sqlite") as held:
        held.add_version(replace(fresh, extractor_version="0"), dict(row.provenance))
        calls: list[str] = []
        real = version_from_row
        monkeypatch.setattr(
            "workbench.workspace.holding.version_from_row",
            lambda r, d, **options: calls.append(r.path) or real(r, d, **options),
        )
        report = ingest(held, [row], STORE)
        assert calls == [row.path] and report.unchanged == (row.path,)


def test_reextraction_refuses_a_held_text_the_extractor_no_longer_gives(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path
) -> None:
    row = _few(catalogue)[2]
    fresh = version_from_row(row, (STORE / row.path).read_bytes())
    altered = fresh.text.replace("Internet", "Intranet", 1)
    assert altered != fresh.text
    with Workspace(tmp_path / "w.sqlite") as held:
        held.add_version(
            replace(fresh, text=altered, text_sha256=text_sha256(altered)), dict(row.provenance)
        )
        assert ingest(held, [row], STORE).unchanged == (row.path,)  # warm: trusted, not re-read
        (refusal,) = ingest(held, [row], STORE, reextract=True).refused
        assert (
            refusal.reason == "corpus_changed" and "re-extraction by identity 1" in refusal.detail
        )
        assert held.version(row.path).text == altered  # nothing held is replaced


def test_corpus_verify_reextract_reports_a_changed_text_and_exits_1(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    from workbench.cli import main
    from workbench.corpus import Admission, write_catalogue

    rows = _few(catalogue)
    write_catalogue(Admission(rows=tuple(rows), refusals=()), tmp_path / "corpus")
    args = ["--corpus-dir", str(tmp_path / "corpus"), "--store", str(STORE)]
    args += ["--workspace", str(tmp_path / "w.sqlite")]
    with pytest.raises(SystemExit) as refused:  # it reads a workspace, never makes one
        main(["corpus", "verify", "--reextract", *args])
    assert refused.value.code == 2 and not (tmp_path / "w.sqlite").exists()
    capsysbinary.readouterr()
    Workspace(tmp_path / "w.sqlite").close()  # one that holds nothing yet
    assert main(["corpus", "verify", "--reextract", *args]) == 0
    assert (
        f"re-extracted {len(rows)} versions: 0 give their held text hash, {len(rows)} were not held"
        in (capsysbinary.readouterr().out.decode())
    )
    assert main(["corpus", "verify", "--reextract", *args]) == 0
    assert f"{len(rows)} give their held text hash" in capsysbinary.readouterr().out.decode()
    row = rows[2]
    with Workspace(tmp_path / "other.sqlite") as held:
        fresh = version_from_row(row, (STORE / row.path).read_bytes())
        altered = fresh.text + "x"
        held.add_version(
            replace(fresh, text=altered, text_sha256=text_sha256(altered)), dict(row.provenance)
        )
    other = [*args[:-1], str(tmp_path / "other.sqlite")]
    assert main(["corpus", "verify", "--reextract", *other]) == 1
    assert b"corpus_changed" in capsysbinary.readouterr().out


def test_the_listings_read_indexes_and_equal_the_held_versions(
    workspace: Workspace, held_versions: tuple[Version, ...]
) -> None:
    """`families` and `versions` are read from the versions table's indexes (no whole-table
    scan; SQLite's own query plan says which index), and every row equals what the held
    versions themselves give: count and formats per family; per version its order, label,
    provenance date, format, pages, text length and characters per origin."""
    held = held_versions
    families = family_listing(workspace)
    grouped: dict[tuple[str, str], list[Version]] = {}
    for version in held:
        grouped.setdefault((version.jurisdiction, version.family), []).append(version)
    assert [(f["jurisdiction"], f["family"]) for f in families] == sorted(grouped)
    for row in families:
        group = grouped[(row["jurisdiction"], row["family"])]
        assert row["versions"] == len(group)
        assert row["formats"] == sorted({v.media_type for v in group})
    dates = workspace.filing_dates()
    for (_, family), _group in sorted(grouped.items()):
        listed = version_listing(workspace, family)
        expected = sorted(workspace.versions(family), key=lambda v: v.version_order)
        assert listed == [
            {
                "version_id": v.version_id,
                "label": v.version_label,
                "order": v.version_order,
                "date": dates[v.version_id],
                "format": v.media_type,
                "pages": len(v.pages) or None,
                "text_length": len(v.text),
                "origin": v.origin.characters(v.text) if v.origin is not None else None,
            }
            for v in expected
        ]
    assert any(row["origin"] and "ocr" in row["origin"] for row in _all_listed(workspace))
    plans = {
        name: " ".join(str(r[-1]) for r in workspace.read("EXPLAIN QUERY PLAN " + sql, params))
        for name, sql, params in (
            ("families", LISTING_SQL["families"], ()),
            ("versions", LISTING_SQL["versions"], (held[0].family,)),
        )
    }
    assert "COVERING INDEX versions_listing" in plans["families"]
    assert "INDEX versions_by_family (family=?)" in plans["versions"]


def _checked_catalogue_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, list[str]]:
    """The project's catalogue copied into a folder, and the sources of the records checked
    from then on (each `check_provenance_record` call, in order)."""
    import workbench.corpus.catalogue as catalogue_module
    from workbench.corpus.catalogue import CATALOGUE_NAME, CHECKSUM_NAME
    from workbench.corpus.provenance import check_provenance_record

    corpus_dir = tmp_path / "corpus"
    corpus_dir.mkdir()
    for name in (CATALOGUE_NAME, CHECKSUM_NAME):
        shutil.copy(CORPUS_DIR / name, corpus_dir / name)
    checks: list[str] = []

    def counted(record: object, *, source: str) -> object:
        checks.append(source)
        return check_provenance_record(record, source=source)

    monkeypatch.setattr(catalogue_module, "check_provenance_record", counted)
    return corpus_dir, checks


def test_a_workspace_holds_the_catalogue_as_a_table_whose_export_is_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`read_held` reads a catalogue file once, every record checked, and holds it as the table;
    the bytes the table exported are then read from the table, the same rows and bytes. An
    edited catalogue is refused before the table is looked at; resealed bytes are read from the
    file, every record checked, and become the table."""
    from workbench.corpus.catalogue import CATALOGUE_NAME, CHECKSUM_NAME, catalogue_bytes
    from workbench.errors import CatalogueError
    from workbench.workspace.catalogue import exported, read_held

    corpus_dir, checks = _checked_catalogue_copy(tmp_path, monkeypatch)
    original = (corpus_dir / CATALOGUE_NAME).read_bytes()
    with Workspace(tmp_path / "w.sqlite") as held:
        first = read_held(held, corpus_dir)
        assert len(checks) == len(first) == original.count(b"\n")
        assert exported(held) == (str(corpus_dir.resolve()), hashlib.sha256(original).hexdigest())
        checks.clear()
        read_bytes = Path.read_bytes

        def whole(path: Path) -> bytes:
            assert path.name != CATALOGUE_NAME, f"{path} read whole"
            return read_bytes(path)

        with monkeypatch.context() as reading:  # the file is hashed as read, its bytes not held
            reading.setattr(Path, "read_bytes", whole)
            again = read_held(held, corpus_dir)
        assert checks == []  # the table's rows: no record checked again
        assert again == first and again.sha256 == first.sha256
        assert catalogue_bytes(again) == original
        # Edited, not resealed: refused before the table is looked at.
        edited = original.replace(b'"bytes":', b'"bytes": ', 1)
        (corpus_dir / CATALOGUE_NAME).write_bytes(edited)
        actual = hashlib.sha256(edited).hexdigest()
        with pytest.raises(CatalogueError) as refused:
            read_held(held, corpus_dir)
        assert str(refused.value) == (
            f"{corpus_dir / CATALOGUE_NAME}: sha256 {actual} does not match {CHECKSUM_NAME} "
            f"({first.sha256}); the catalogue was edited"
        )
        # Resealed: other bytes, read from the file with every record checked; the table is them.
        (corpus_dir / CHECKSUM_NAME).write_text(f"{actual}  {CATALOGUE_NAME}\n")
        resealed = read_held(held, corpus_dir)
        assert len(checks) == len(first) and resealed == first and resealed.sha256 == actual
        assert exported(held) == (str(corpus_dir.resolve()), actual)
        checks.clear()
        assert read_held(held, corpus_dir) == first and checks == []


def test_the_catalogue_table_is_read_as_columns_and_an_earlier_layout_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table's rows are read from its columns with no record parsed, and equal the file's
    rows field for field; a table of the layout before the columns (key and line only) is not
    trusted: the file is read, every record checked, and the table made again in the columns."""
    import json as json_module

    from workbench.corpus.catalogue import read_catalogue
    from workbench.models import ROW_FIELDS
    from workbench.workspace.catalogue import exported, read_held

    corpus_dir, checks = _checked_catalogue_copy(tmp_path, monkeypatch)
    from_file = read_catalogue(corpus_dir)
    with Workspace(tmp_path / "w.sqlite") as held:
        read_held(held, corpus_dir)
        with monkeypatch.context() as patched:
            patched.setattr(json_module, "loads", lambda *_: pytest.fail("a record was parsed"))
            rows = read_held(held, corpus_dir)
        assert rows == from_file
        assert [r.fields for r in rows] == [r.fields for r in from_file]
        assert len(ROW_FIELDS) == len(rows[0].fields)
        with held.transaction() as conn:  # the layout before the columns
            conn.execute("DROP TABLE catalogue")
            conn.execute("CREATE TABLE catalogue (key TEXT PRIMARY KEY, line TEXT NOT NULL)")
        assert exported(held) is None
        checks.clear()
        assert read_held(held, corpus_dir) == from_file
        assert len(checks) == len(from_file)  # read from the file, every record checked
        checks.clear()
        assert read_held(held, corpus_dir) == from_file and checks == []


def test_an_admission_is_appended_to_the_table_and_exported(tmp_path: Path) -> None:
    """`admit_held` appends an admission to the table and writes the catalogue file from it:
    the real catalogue less its last row, then that row admitted, exports the real catalogue's
    bytes; a path admitted again with other bytes is refused and its row kept."""
    from workbench.corpus import Admission, read_catalogue, write_catalogue
    from workbench.corpus.catalogue import CATALOGUE_NAME, CHECKSUM_NAME
    from workbench.workspace.catalogue import admit_held, exported, read_held

    rows = read_catalogue(CORPUS_DIR)
    corpus_dir = tmp_path / "corpus"
    write_catalogue(Admission(rows=tuple(rows[:-1]), refusals=()), corpus_dir)
    with Workspace(tmp_path / "w.sqlite") as held:
        before = read_held(held, corpus_dir)
        merged, sha256 = admit_held(
            held, Admission(rows=(rows[-1],), refusals=()), corpus_dir, before
        )
        assert list(merged.rows) == sorted(rows, key=lambda r: r.path) and merged.refusals == ()
        data = (corpus_dir / CATALOGUE_NAME).read_bytes()
        assert data == (CORPUS_DIR / CATALOGUE_NAME).read_bytes()
        assert sha256 == hashlib.sha256(data).hexdigest() == exported(held)[1]  # type: ignore[index]
        assert (corpus_dir / CHECKSUM_NAME).read_text() == f"{sha256}  {CATALOGUE_NAME}\n"
        assert read_held(held, corpus_dir) == rows
        changed = CatalogueRow.of(rows[0].path, {**rows[0].provenance, "sha256": "0" * 64})
        again, same = admit_held(
            held, Admission(rows=(changed,), refusals=()), corpus_dir, read_held(held, corpus_dir)
        )
        assert same == sha256 and (corpus_dir / CATALOGUE_NAME).read_bytes() == data
        assert [(r.path, r.reason) for r in again.refusals] == [(rows[0].path, "corpus_changed")]
        assert again.refusals[0].detail == (
            f"catalogued with sha256 {rows[0].sha256}; these bytes hash to {'0' * 64}; "
            "the catalogued row is kept (admit a corrected document under a new path)"
        )


@pytest.mark.parametrize(
    ("held_out", "edited"),
    [
        pytest.param(lambda n: {0}, False, id="the-first-row"),
        pytest.param(lambda n: {n // 2, n // 2 + 1}, False, id="two-rows-in-the-middle"),
        pytest.param(lambda n: set(range(0, n, 7)), False, id="every-seventh-row"),
        pytest.param(lambda n: {n - 1}, True, id="file-edited-since-read-exported-whole"),
        pytest.param(lambda n: set(), False, id="rows-held-already"),
    ],
)
def test_an_admission_is_spliced_into_the_exported_file(
    held_out: Callable[[int], set[int]], edited: bool, tmp_path: Path
) -> None:
    """The export puts the new rows' lines into the file as it stands (`spliced_lines`) when
    its bytes are the ones the table last exported; the real catalogue less some rows, then
    those rows admitted (or rows it holds admitted again), gives the real catalogue's bytes. A
    file whose bytes moved since is written whole from the table, to the same bytes."""
    from workbench.corpus import Admission, read_catalogue, write_catalogue
    from workbench.corpus.catalogue import CATALOGUE_NAME
    from workbench.workspace.catalogue import admit_held, read_held

    rows = read_catalogue(CORPUS_DIR)
    out = held_out(len(rows))
    kept = [row for n, row in enumerate(rows) if n not in out]
    admitted = [row for n, row in enumerate(rows) if n in out] or rows[3:5]
    corpus_dir = tmp_path / "corpus"
    write_catalogue(Admission(rows=tuple(kept), refusals=()), corpus_dir)
    spliced: list[int] = []
    with Workspace(tmp_path / "w.sqlite") as held:
        before = read_held(held, corpus_dir)
        if edited:  # the same rows, another line order: a file the table did not export
            path = corpus_dir / CATALOGUE_NAME
            path.write_bytes(b"".join(sorted(path.read_bytes().splitlines(keepends=True))[::-1]))
        with pytest.MonkeyPatch.context() as patch:
            import workbench.workspace.catalogue as table

            splice = table.spliced_lines
            patch.setattr(table, "spliced_lines", lambda *a: spliced.append(1) or splice(*a))
            _, sha256 = admit_held(
                held, Admission(rows=tuple(admitted), refusals=()), corpus_dir, before
            )
    data = (corpus_dir / CATALOGUE_NAME).read_bytes()
    assert data == (CORPUS_DIR / CATALOGUE_NAME).read_bytes()
    assert sha256 == hashlib.sha256(data).hexdigest()
    assert spliced == ([] if edited else [1])


def _all_listed(workspace: Workspace) -> list[dict[str, object]]:
    return [
        row
        for family in sorted({f["family"] for f in family_listing(workspace)})
        for row in version_listing(workspace, family)
    ]


def test_a_spliced_line_replaces_the_line_of_its_path() -> None:
    """`spliced_lines` of the real catalogue with other records for its first, a middle and its
    last path, and a path it does not hold: the catalogue those rows make (`catalogue_bytes`)."""
    from workbench.corpus.catalogue import (
        CATALOGUE_NAME,
        catalogue_bytes,
        catalogue_line,
        read_catalogue,
        spliced_lines,
    )

    rows = list(read_catalogue(CORPUS_DIR))
    data = (CORPUS_DIR / CATALOGUE_NAME).read_bytes()
    changed = {
        n: CatalogueRow.of(rows[n].path, {**rows[n].provenance, "filer": "another filer"})
        for n in (0, len(rows) // 2, len(rows) - 1)
    }
    extra = CatalogueRow.of(rows[0].path + "-new", rows[0].provenance)
    made = [changed.get(n, row) for n, row in enumerate(rows)] + [extra]
    lines = sorted(catalogue_line(row) for row in [*changed.values(), extra])
    assert b"".join(spliced_lines(data, lines)) == catalogue_bytes(made) != data


def test_the_catalogue_file_is_read_once_on_either_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`read_held` opens the catalogue file once whether the table holds its bytes or not (hashed
    as it is parsed, or hashed alone), and never holds its bytes whole."""
    from workbench.corpus.catalogue import CATALOGUE_NAME
    from workbench.workspace.catalogue import read_held

    corpus_dir, checks = _checked_catalogue_copy(tmp_path, monkeypatch)
    opened: list[str] = []
    open_path, read_bytes = Path.open, Path.read_bytes

    def counted(path: Path, *args: Any, **kwargs: Any) -> Any:
        if path.name == CATALOGUE_NAME:
            opened.append(str(args[0] if args else kwargs.get("mode", "r")))
        return open_path(path, *args, **kwargs)

    def whole(path: Path) -> bytes:
        assert path.name != CATALOGUE_NAME, f"{path} read whole"
        return read_bytes(path)

    with Workspace(tmp_path / "w.sqlite") as held, monkeypatch.context() as reading:
        reading.setattr(Path, "open", counted)
        reading.setattr(Path, "read_bytes", whole)
        first = read_held(held, corpus_dir)  # not held: parsed, every record checked
        assert opened == ["rb"] and len(checks) == len(first)
        opened.clear()
        checks.clear()
        assert read_held(held, corpus_dir) == first  # held: hashed, no record checked
        assert opened == ["rb"] and checks == []


@pytest.mark.parametrize(
    ("absent", "instead"),
    [
        pytest.param(lambda n: set(), lambda n: set(), id="the-table-whole"),
        pytest.param(lambda n: set(range(0, n, 5)), lambda n: set(), id="every-fifth-path-absent"),
        pytest.param(lambda n: set(), lambda n: {1, n // 2, n - 1}, id="three-rows-instead"),
        pytest.param(lambda n: {0, n - 1}, lambda n: {n // 3}, id="absent-and-instead"),
    ],
)
def test_the_map_reads_the_table_by_family_a_page_at_a_time(
    absent: Callable[[int], set[int]],
    instead: Callable[[int], set[int]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`families` (pages of 7 index entries here, one query each, no line read) gives each
    family of the real catalogue with its rows' paths and SHA-256s in version order, sorted by
    jurisdiction and family, as `Admitted` has them: less its absent paths, a row admitted with
    other bytes (and another version order) in place of the table's and in its own place;
    `family_rows` gives those rows of one family, and `rows` every row, in line order."""
    from itertools import groupby

    from workbench.corpus import Admission, read_catalogue, write_catalogue
    from workbench.corpus.catalogue import line_key
    from workbench.workspace import catalogue as table

    monkeypatch.setattr(table, "PAGE_ROWS", 7)
    rows = read_catalogue(CORPUS_DIR)
    write_catalogue(Admission(rows=tuple(rows), refusals=()), tmp_path)
    left, moved = absent(len(rows)), instead(len(rows))
    admitted = [
        CatalogueRow.of(r.path, {**r.provenance, "sha256": "0" * 64, "version_order": 10**6 + i})
        if i in moved
        else r
        for i, r in enumerate(rows)
        if i not in left
    ]
    view = table.Admitted.of(
        Admission(rows=tuple(admitted), refusals=()),
        Admission(rows=tuple(rows), refusals=()),
    )
    assert (len(view.absent), len(view.instead)) == (len(left), len(moved))
    in_order = sorted(
        admitted, key=lambda r: (r.jurisdiction, r.family, r.version_order, line_key(r.path))
    )
    expected = [
        (j, f, tuple((r.path, r.sha256) for r in group))
        for (j, f), group in groupby(in_order, key=lambda r: (r.jurisdiction, r.family))
    ]
    queries: list[str] = []
    with Workspace(tmp_path / "w.sqlite") as held:
        table.read_held(held, tmp_path)  # the table made from the file
        reading = held.read

        def read(sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
            queries.append(sql)
            return reading(sql, params)

        monkeypatch.setattr(held, "read", read)
        assert list(view.families(held)) == expected
        assert len(queries) == len(rows) // 7 + 1 and all("line" not in q for q in queries)
        for j, f, members in expected:
            family = view.family_rows(held, j, f)
            assert tuple((r.path, r.sha256) for r in family) == members
            assert [r.text for r in family] == [
                r.text for r in in_order if (r.jurisdiction, r.family) == (j, f)
            ]
        every = view.rows(held)
    assert [r.text for r in every] == [
        r.text for r in sorted(admitted, key=lambda r: line_key(r.path))
    ]


@pytest.mark.parametrize(
    "earlier",
    [
        pytest.param("", id="no-index"),
        pytest.param(
            "CREATE INDEX catalogue_families ON catalogue (jurisdiction, document_family, "
            "version_order, key, path, sha256)",
            id="an-index-without-the-format",
        ),
    ],
)
def test_a_catalogue_table_without_its_family_index_is_made_again_from_the_file(
    tmp_path: Path, earlier: str
) -> None:
    """A table of an earlier layout (the same columns, and no index or one that does not cover
    the format `TableRows.entries` lists) is not taken as the file's export: the next read makes
    it again from the file, index included."""
    from workbench.corpus import Admission, read_catalogue, write_catalogue
    from workbench.workspace.catalogue import TableRows, exported, families, read_held

    rows = read_catalogue(CORPUS_DIR)
    write_catalogue(Admission(rows=tuple(rows), refusals=()), tmp_path)
    with Workspace(tmp_path / "w.sqlite") as held:
        read_held(held, tmp_path)
        made = exported(held)
        with held.transaction() as conn:
            conn.execute("DROP INDEX catalogue_by_family")
            if earlier:
                conn.execute(earlier)
        assert made is not None and exported(held) is None
        assert read_held(held, tmp_path) == rows and exported(held) == made
        assert sum(len(members) for *_, members in families(held)) == len(rows)
        plan = held.read(
            "EXPLAIN QUERY PLAN SELECT document_family, version_order, path, format FROM "
            "catalogue WHERE jurisdiction = 'us-dc' ORDER BY jurisdiction, document_family, "
            "version_order, key"
        )
        assert [step[-1] for step in plan] == [
            "SEARCH catalogue USING COVERING INDEX catalogue_by_family (jurisdiction=?)"
        ]
        assert len(list(TableRows(held).entries("us-dc"))) == sum(
            row.jurisdiction == "us-dc" for row in rows
        )


MARKED = "us-dc/dc-code-34-1518.01/34-1518.01@2021-10-18.xml"  # a Code section: nested marks


def _earlier_workspace(path: Path, schema: str) -> None:
    """A workspace file whose schema marker is `schema`, as a workbench of that schema made it
    (the tables are the same; only what the structure column holds differs)."""
    with Workspace(path):
        pass
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TRIGGER meta_append_only_update")
        conn.execute("UPDATE workspace_meta SET value = ? WHERE key = 'schema_version'", (schema,))


def _paths_once(version: Version) -> list[object]:
    """Schema 3's layout of the version's marks: each path once, in the order of its first
    mark, and each mark's fields with its path's index."""
    paths = list(dict.fromkeys(m.path for m in version.structure))
    rows = [
        [m.label, m.value, m.char_start, m.char_end, paths.index(m.path)] for m in version.structure
    ]
    return [[list(p) for p in paths], rows]


def _objects(version: Version) -> list[object]:
    """Schema 2's layout: each mark an object naming its fields."""
    return [m.as_json() for m in version.structure]


@pytest.mark.parametrize(
    ("schema", "stored"),
    [
        pytest.param("3", _paths_once, id="schema-3-paths-once"),
        pytest.param("2", _objects, id="schema-2-objects"),
    ],
)
def test_marks_are_stored_in_the_layout_of_the_workspaces_schema_and_read_back_equal(
    tmp_path: Path, schema: str, stored: Callable[[Version], object]
) -> None:
    """A new workspace (schema 3) stores a version's marks with each enclosing path named once
    (`[paths, rows]`, a mark's path by its index), and the marks of one path read back sharing
    one tuple; a workspace of schema 2 (each mark an object naming its fields) is read and
    written in its own layout, never misread, and stays schema 2."""
    data = (STORE / MARKED).read_bytes()
    version = version_from_row(_row(MARKED, data), data)
    paths = {m.path for m in version.structure}
    assert len(version.structure) > len(paths) > 1
    path = tmp_path / "w.sqlite"
    if schema != "3":
        _earlier_workspace(path, schema)
    else:
        Workspace(path).close()
    with Workspace(path) as held:
        assert held.schema == schema
        assert held.add_version(version, {})
        (column,) = held.read("SELECT structure FROM versions")[0]
        assert json.loads(column) == stored(version)
        back = held.version(MARKED)
        assert back == replace(version, origin=back.origin) and back.structure == version.structure
        if schema == "3":
            assert len({id(m.path) for m in back.structure}) == len(paths)
        assert held.versions() == (back,)
    with Workspace(path) as again:
        assert again.schema == schema and again.version(MARKED) == back


def test_a_workspace_of_another_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "w.sqlite"
    _earlier_workspace(path, "1")
    with pytest.raises(WorkspaceError) as info:
        Workspace(path)
    assert str(info.value) == f"{path}: workspace schema 1; this workbench reads schemas 2 and 3"


def test_only_the_newest_origin_record_of_a_version_is_decoded(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A PDF whose text a later extractor version reproduced holds an origin record for each;
    a read decodes the newest alone, the one that stands, never the earlier ones."""
    row = _few(catalogue)[3]
    held_pdf = version_from_row(row, (STORE / row.path).read_bytes())
    assert held_pdf.media_type == "application/pdf" and held_pdf.origin is not None
    reproduced = TextOrigins.whole(len(held_pdf.text), "ocr")
    later = replace(
        held_pdf, extractor_version=f"{held_pdf.extractor_version}+later", origin=reproduced
    )
    with Workspace(tmp_path / "w.sqlite") as held:
        assert held.add_version(held_pdf, dict(row.provenance))
        assert not held.add_version(later, dict(row.provenance))  # its origins recorded beside
        assert len(held.read("SELECT origin FROM text_origins")) == 2
        decoded: list[object] = []
        real = origins_from_json

        def counted(data: object) -> TextOrigins:
            decoded.append(data)
            return real(data)

        monkeypatch.setattr("workbench.workspace.held.origins_from_json", counted)
        assert held.version(row.path).origin == reproduced != held_pdf.origin
        assert held.versions()[0].origin == reproduced
        assert decoded == [reproduced.as_json()] * 2


# A PDF (its origins and parts kept by ingest) between two releases of a Code section, and a
# later release: the first three are taken from a workspace holding them, the last ingested.
STARTED = (
    "us-dc/dc-code-34-306/34-306@2021-10-18.xml",
    "us-federal/epa-oig-report-10-p-0154-excerpt/us-032.pdf",
    "us-dc/dc-code-34-306/34-306@2021-11-09.xml",
    "us-dc/dc-code-34-306/34-306@2022-02-02.xml",
)
_HELD_ROWS = {
    "versions": "SELECT {} FROM versions ORDER BY rowid",
    "text_origins": "SELECT version_id, extractor, extractor_version, text_sha256, origin "
    "FROM text_origins ORDER BY rowid",
    "derived_parts": "SELECT * FROM derived_parts ORDER BY rowid",
}


def _held_rows(workspace: Workspace) -> dict[str, list[tuple[Any, ...]]]:
    """What ingest writes, row by row in the order written; not when it wrote it."""
    columns = [n for (_, n, *_) in workspace.read("PRAGMA table_info(versions)")]
    kept = ", ".join(n for n in columns if n != "ingested_at")
    return {table: workspace.read(sql.format(kept)) for table, sql in _HELD_ROWS.items()}


def test_a_workspace_started_from_held_versions_holds_what_ingest_holds(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path
) -> None:
    """Versions taken from another workspace (`Workspace.take_held`, their kept parts with
    them: `parts.take_kept_parts`), then the rows ingested: ingest extracts only the rest, and
    the file holds, row for row and in the same order, what ingesting every row holds."""
    from workbench.workspace.parts import take_kept_parts

    rows = [next(r for r in catalogue if r.path == path) for path in STARTED]
    with Workspace(tmp_path / "whole.sqlite") as whole:
        assert ingest(whole, rows, STORE).added == STARTED
        with Workspace(tmp_path / "started.sqlite") as started:
            taken = [*STARTED[:3], "xx/not-held/a.txt"]
            assert started.take_held(whole, taken) == STARTED[:3]
            assert take_kept_parts(started, whole, taken) == 1  # the PDF's
            assert started.take_held(whole, STARTED[:1]) == ()  # held already
            report = ingest(started, rows, STORE)
            assert (report.added, report.unchanged) == (STARTED[3:], STARTED[:3])
            assert _held_rows(started) == _held_rows(whole)


def test_versions_are_taken_only_from_a_workspace_of_the_same_schema(tmp_path: Path) -> None:
    _earlier_workspace(tmp_path / "earlier.sqlite", "2")
    with (
        Workspace(tmp_path / "earlier.sqlite") as earlier,
        Workspace(tmp_path / "new.sqlite") as new,
        pytest.raises(WorkspaceError) as raised,
    ):
        new.take_held(earlier, STARTED)
    assert str(raised.value) == (
        f"{tmp_path / 'earlier.sqlite'}: workspace schema 2; {tmp_path / 'new.sqlite'} is "
        "schema 3: versions are taken only between workspaces of one schema"
    )
