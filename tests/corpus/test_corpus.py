from __future__ import annotations

import hashlib
import http.server
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS_DIR, REFUSED_STORE, STORE
from workbench.corpus import (
    Admission,
    admit,
    fetch,
    fetch_corpus,
    merge_admission,
    read_catalogue,
    read_fetched,
    verify_store,
    write_catalogue,
)
from workbench.corpus.catalogue import (
    CATALOGUE_NAME,
    CHECKSUM_NAME,
    catalogue_bytes,
    json_lines,
    read_refusals,
    refusals_bytes,
)
from workbench.corpus.provenance import MAX_PROVENANCE_BYTES
from workbench.errors import CatalogueError, ChecksumMismatch
from workbench.models import CatalogueRow, Refusal

SAMPLE = "us-dc/dc-code-34-306/34-306@2021-11-09.xml"


def test_admitting_the_fetched_corpus_reproduces_the_committed_catalogue(
    catalogue: tuple[CatalogueRow, ...],
) -> None:
    admission = admit(STORE)
    assert not admission.refusals
    assert catalogue_bytes(admission.rows) == (CORPUS_DIR / CATALOGUE_NAME).read_bytes()
    assert catalogue_bytes(admit(STORE).rows) == catalogue_bytes(admission.rows), (
        "second run differs"
    )


def test_the_transcriptions_are_refused_as_transcriptions(
    catalogue: tuple[CatalogueRow, ...],
) -> None:
    admission = admit(REFUSED_STORE)
    assert not admission.rows
    assert {r.reason for r in admission.refusals} == {"transcription"}
    folders = {r.path.split("/")[0] for r in admission.refusals}
    assert folders == {"us-il-icc", "us-md-psc", "us-ri-puc"}
    assert len(admission.refusals) == sum(1 for _ in REFUSED_STORE.rglob("*.provenance.json"))
    assert refusals_bytes(admission.refusals) == (CORPUS_DIR / "refusals.jsonl").read_bytes()


def test_write_catalogue_is_byte_identical_on_a_second_run(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path
) -> None:
    admission = admit(STORE)
    write_catalogue(admission, tmp_path / "one")
    write_catalogue(admit(STORE), tmp_path / "two")
    for name in (CATALOGUE_NAME, CHECKSUM_NAME, "refusals.jsonl"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_catalogue_lines_sort_as_whole_lines_do(tmp_path: Path) -> None:
    """Rows are sorted by their path's JSON, which sorts the lines: paths one of which begins
    the other, and characters below and above the quote that ends a path's JSON."""
    record = json.loads((STORE / (SAMPLE + ".provenance.json")).read_bytes())
    paths = ["a/b/c", "a/b/c!x", "a/b/c#x", 'a/b/c"x', "a/b/c\\x", "a/b/cé", "a/b/c\tx", "a/b"]
    rows = [CatalogueRow.of(p, {**record, "note": p}) for p in reversed(paths)]
    lines = [json.dumps({"path": r.path, "provenance": r.provenance}) for r in rows]
    expected = sorted(
        json.dumps(json.loads(line), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        + "\n"
        for line in lines
    )
    assert catalogue_bytes(rows) == "".join(expected).encode("utf-8")
    write_catalogue(Admission(rows=tuple(rows), refusals=()), tmp_path)
    data = (tmp_path / CATALOGUE_NAME).read_bytes()
    assert data == catalogue_bytes(rows)
    assert (tmp_path / CHECKSUM_NAME).read_text() == (
        f"{hashlib.sha256(data).hexdigest()}  {CATALOGUE_NAME}\n"
    )


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_catalogue_is_read_and_written_back_as_it_was(tmp_path: Path) -> None:
    """A row read from the catalogue equals the row made from its record and is written back
    byte for byte; a sealed line in another form (keys unsorted, spaces) is read, its record
    intact, and written back canonical."""
    rows = read_catalogue(CORPUS_DIR)
    remade = [CatalogueRow.of(r.path, r.provenance) for r in rows]
    assert remade == list(rows)
    assert catalogue_bytes(rows) == catalogue_bytes(remade)
    assert catalogue_bytes(rows) == (CORPUS_DIR / CATALOGUE_NAME).read_bytes()
    again = pickle.loads(pickle.dumps(rows))  # the catalogue travels with its bytes' SHA-256
    assert again == rows and again.sha256 == rows.sha256 == _sha256(CORPUS_DIR / CATALOGUE_NAME)
    record = rows[0].provenance
    odd = json.dumps({"provenance": dict(reversed(record.items())), "path": rows[0].path}, indent=1)
    data = (odd.replace("\n", " ") + "\n").encode()
    (tmp_path / CATALOGUE_NAME).write_bytes(data)
    (tmp_path / CHECKSUM_NAME).write_text(f"{hashlib.sha256(data).hexdigest()}  {CATALOGUE_NAME}\n")
    (read,) = read_catalogue(tmp_path)
    assert read.provenance == record and read == rows[0]
    assert catalogue_bytes([read]) == catalogue_bytes(rows[:1])


def test_a_row_holds_its_provenance_as_canonical_json_and_reads_its_fields_from_it() -> None:
    """The record held as its canonical JSON, every field kept, given back whole; equal rows
    whichever order the record was made in; a field the record lacks is a KeyError naming it."""
    data = (STORE / (SAMPLE + ".provenance.json")).read_bytes()
    record = json.loads(data)
    row = CatalogueRow.of(SAMPLE, record)
    assert row.text == json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert row == CatalogueRow.of(SAMPLE, dict(reversed(record.items())))
    assert row.provenance == record and row.provenance is not row.provenance
    assert (row.sha256, row.size, row.family, row.version_order) == (
        record["sha256"],
        record["bytes"],
        record["document_family"],
        record["version_order"],
    )
    assert pickle.loads(pickle.dumps(row)) == row
    partial_row = CatalogueRow.of(SAMPLE, {"sha256": record["sha256"]})
    assert partial_row.sha256 == record["sha256"]
    with pytest.raises(KeyError, match="document_family"):
        _ = partial_row.family


# ---------------------------------------------------------------------------------------------
# Hostile mirrors: one real document, one thing wrong.


def _mirror_with(tmp_path: Path, edit: Callable[[dict[str, Any]], None] | None = None) -> Path:
    mirror = tmp_path / "mirror"
    target = mirror / SAMPLE
    target.parent.mkdir(parents=True)
    shutil.copyfile(STORE / SAMPLE, target)
    record = json.loads((STORE / (SAMPLE + ".provenance.json")).read_bytes())
    if edit:
        edit(record)
    (mirror / (SAMPLE + ".provenance.json")).write_text(json.dumps(record), encoding="utf-8")
    return mirror


def _set(field: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(record: dict[str, Any]) -> None:
        if value is _DROP:
            del record[field]
        else:
            record[field] = value

    return edit


_DROP = object()


@pytest.mark.parametrize(
    ("edit", "reason", "detail"),
    [
        pytest.param(
            _set("byte_faithful_to_official_filing", False),
            "transcription",
            "provenance says byte_faithful_to_official_filing: false; not the official artefact",
            id="transcription",
        ),
        pytest.param(
            _set("source_url", "javascript:alert(1)"),
            "malformed_provenance",
            'source_url: expected an absolute http(s) URL, got "javascript:alert(1)"',
            id="javascript-url",
        ),
        pytest.param(
            _set("source_url", "file:///etc/passwd"),
            "malformed_provenance",
            'source_url: expected an absolute http(s) URL, got "file:///etc/passwd"',
            id="file-url",
        ),
        pytest.param(
            _set("source_url", "data:text/plain,hi"),
            "malformed_provenance",
            'source_url: expected an absolute http(s) URL, got "data:text/plain,hi"',
            id="data-url",
        ),
        pytest.param(
            _set("source_url", "/relative/path.pdf"),
            "malformed_provenance",
            'source_url: expected an absolute http(s) URL, got "/relative/path.pdf"',
            id="relative-url",
        ),
        pytest.param(
            _set("source_url", "https://a.example/x\n.pdf"),
            "malformed_provenance",
            "source_url: expected an absolute http(s) URL without white space or control "
            'characters, got "https://a.example/x\\n.pdf"',
            id="newline-in-url",
        ),
        pytest.param(
            _set("sha256", "0" * 64),
            "sha256_mismatch",
            "sha256 {actual}; provenance says " + "0" * 64,
            id="hash-mismatch",
        ),
        pytest.param(
            _set("bytes", 12),
            "size_mismatch",
            "{size} bytes on disk; provenance says 12",
            id="size-mismatch",
        ),
        pytest.param(
            _set("sha256", "XYZ"),
            "malformed_provenance",
            'sha256: expected 64 lowercase hex digits, got "XYZ"',
            id="bad-hash",
        ),
        pytest.param(
            _set("bytes", True),
            "malformed_provenance",
            "bytes: expected a non-negative integer, got true",
            id="bool-bytes",
        ),
        pytest.param(
            _set("version_order", 0),
            "malformed_provenance",
            "version_order: expected an integer of at least 1, got 0",
            id="zero-order",
        ),
        pytest.param(
            _set("jurisdiction", _DROP),
            "malformed_provenance",
            "jurisdiction: missing",
            id="missing-jurisdiction",
        ),
        pytest.param(
            _set("byte_faithful_to_official_filing", "yes"),
            "malformed_provenance",
            'byte_faithful_to_official_filing: expected true or false, got "yes"',
            id="string-flag",
        ),
        pytest.param(
            _set("mirror", None),
            "malformed_provenance",
            "source_url or mirror: missing (one of them must name where the bytes come from)",
            id="no-source",
        ),
        pytest.param(
            _set("mirror", {"repo": "a/b", "path": "../../etc/passwd", "commit": "a" * 40}),
            "malformed_provenance",
            "mirror.path: expected a relative POSIX path with no empty, '.' or '..' part, "
            'got "../../etc/passwd"',
            id="mirror-path-traversal",
        ),
        pytest.param(
            _set("mirror", {"repo": "a/b", "path": "x.xml", "commit": "main"}),
            "malformed_provenance",
            'mirror.commit: expected 40 lowercase hex digits, got "main"',
            id="mirror-branch-not-commit",
        ),
        pytest.param(
            _set("document_family", "other-family"),
            "layout_mismatch",
            "provenance names us-dc/other-family; file lies in us-dc/dc-code-34-306",
            id="wrong-folder",
        ),
    ],
)
def test_hostile_provenance_is_refused_with_its_reason(
    tmp_path: Path, edit: Any, reason: str, detail: str
) -> None:
    admission = admit(_mirror_with(tmp_path, edit))
    assert not admission.rows
    (refusal,) = admission.refusals
    assert (refusal.path, refusal.reason) == (SAMPLE, reason)
    data = (STORE / SAMPLE).read_bytes()
    expected = detail.format(actual=hashlib.sha256(data).hexdigest(), size=len(data))
    assert refusal.detail.endswith(expected), refusal.detail


def test_every_problem_of_a_provenance_is_listed_in_one_refusal(tmp_path: Path) -> None:
    def edit(record: dict[str, Any]) -> None:
        for name in ("jurisdiction", "sha256", "byte_faithful_to_official_filing"):
            del record[name]
        record.update(version_order="4", filing_date="09/11/2021", line_numbered="no")

    (refusal,) = admit(_mirror_with(tmp_path, edit)).refusals
    assert (refusal.path, refusal.reason) == (SAMPLE, "malformed_provenance")
    assert refusal.detail == (
        f"{SAMPLE}.provenance.json: 6 problems: jurisdiction: missing; "
        'version_order: expected an integer of at least 1, got "4"; '
        'filing_date: expected an ISO date (YYYY, YYYY-MM or YYYY-MM-DD) or null, got "09/11/2021"; '
        "sha256: missing; "
        'line_numbered: expected true or false, got "no"; '
        "byte_faithful_to_official_filing: missing"
    )


@pytest.mark.parametrize(
    ("payload", "detail"),
    [
        pytest.param(
            b"{not json", "malformed provenance JSON at line 1, column 2", id="broken-json"
        ),
        pytest.param(b"[1, 2]", "provenance must be a JSON object", id="not-an-object"),
        pytest.param(
            b'{"sha256": "a", "sha256": "b"}', "field 'sha256' appears twice", id="duplicate-field"
        ),
        pytest.param(b'{"bytes": NaN}', "NaN is not a JSON number", id="nan"),
        pytest.param(b"\xff\xfe{}", "provenance is not UTF-8 (byte 0)", id="not-utf8"),
        pytest.param(
            b" " * (1 << 20) + b"{}",
            "provenance is 1048578 bytes; expected at most 1 MiB",
            id="huge",
        ),
    ],
)
def test_malformed_provenance_bytes(tmp_path: Path, payload: bytes, detail: str) -> None:
    mirror = _mirror_with(tmp_path)
    (mirror / (SAMPLE + ".provenance.json")).write_bytes(payload)
    (refusal,) = admit(mirror).refusals
    assert refusal.reason == "malformed_provenance"
    assert detail in refusal.detail and refusal.detail.startswith(SAMPLE + ".provenance.json: ")


def test_layout_problems_are_refused_per_file(tmp_path: Path) -> None:
    mirror = _mirror_with(tmp_path)
    (mirror / "README.md").write_text("docs")  # documentation at the root: skipped silently
    (mirror / "loose.txt").write_text("x")
    (mirror / "us-dc" / "dc-code-34-306" / "no-provenance.txt").write_text("x")
    (mirror / "us-dc" / "dc-code-34-306" / "ghost.txt.provenance.json").write_text("{}")
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    os.symlink(outside, mirror / "us-dc" / "dc-code-34-306" / "link.txt")
    os.symlink(tmp_path, mirror / "us-dc" / "escape")
    (mirror / "us-dc" / "dc-code-34-306" / "x#1.txt").write_text("x")
    (mirror / "us-dc" / ".hidden").mkdir()
    (mirror / "us-dc" / ".hidden" / "x.txt").write_text("x")
    admission = admit(mirror)
    assert [r.path for r in admission.rows] == [SAMPLE]
    assert [r.line() for r in admission.refusals if r.reason == "bad_name"] == [
        "us-dc/.hidden/x.txt: bad_name: '.hidden' cannot be one name of a version id (it starts "
        "with '.')",
        "us-dc/dc-code-34-306/x#1.txt: bad_name: 'x#1.txt' cannot be one name of a version id "
        "(it holds '#')",
    ]
    assert [(r.path, r.reason) for r in admission.refusals if r.reason != "bad_name"] == [
        ("loose.txt", "layout"),
        ("us-dc/dc-code-34-306/ghost.txt.provenance.json", "orphan_provenance"),
        ("us-dc/dc-code-34-306/link.txt", "path_escapes"),
        ("us-dc/dc-code-34-306/no-provenance.txt", "no_provenance"),
        ("us-dc/escape", "path_escapes"),
    ]


def test_duplicate_version_order_refuses_both(tmp_path: Path) -> None:
    mirror = _mirror_with(tmp_path)
    twin = mirror / "us-dc" / "dc-code-34-306" / "twin.xml"
    shutil.copyfile(mirror / SAMPLE, twin)
    shutil.copyfile(
        mirror / (SAMPLE + ".provenance.json"), twin.with_name("twin.xml.provenance.json")
    )
    admission = admit(mirror)
    assert not admission.rows
    assert {r.reason for r in admission.refusals} == {"duplicate_version_order"}


# ---------------------------------------------------------------------------------------------
# Catalogue checksum, fetch and verify


def _small_catalogue(tmp_path: Path) -> tuple[Path, tuple[CatalogueRow, ...]]:
    corpus_dir = tmp_path / "corpus"
    admission = admit(_mirror_with(tmp_path))
    write_catalogue(admission, corpus_dir)
    return corpus_dir, admission.rows


def test_a_provenance_holding_line_separators_reads_back_from_the_catalogue(
    tmp_path: Path,
) -> None:
    """Canonical JSON holds U+2028, U+2029 and U+0085 raw inside its strings (`ensure_ascii=False`):
    the catalogue and the refusals are split at line feeds only, so such a record, quoted from a
    web page, reads back whole instead of as a broken line."""
    note = "Council of the District\u2028of Columbia\u2029(issuer's own words)\x85."
    mirror = _mirror_with(tmp_path, _set("extraction_note", note))
    corpus_dir = tmp_path / "corpus"
    admission = admit(mirror)
    write_catalogue(admission, corpus_dir)
    assert "\u2028" in (corpus_dir / CATALOGUE_NAME).read_text(encoding="utf-8")
    (row,) = read_catalogue(corpus_dir)
    assert row.provenance["extraction_note"] == note and row == admission.rows[0]
    refusal = Refusal(path="us-dc/x/y.xml", reason="transcription", detail=note)
    (corpus_dir / "refusals.jsonl").write_bytes(refusals_bytes([refusal]))
    assert read_refusals(corpus_dir) == (refusal,)
    assert json_lines("a\n\u2028b\n") == ["a", "\u2028b"] and json_lines("") == []


def test_an_edited_catalogue_row_is_detected(tmp_path: Path) -> None:
    corpus_dir, _ = _small_catalogue(tmp_path)
    path = corpus_dir / CATALOGUE_NAME
    original = path.read_bytes()
    edited = re.sub(rb'"version_order":\d+', b'"version_order":99', original)
    assert edited != original
    path.write_bytes(edited)
    with pytest.raises(
        CatalogueError,
        match=r"catalogue\.jsonl: sha256 [0-9a-f]{64} does not match catalogue\.jsonl\.sha256",
    ):
        read_catalogue(corpus_dir)


@pytest.mark.parametrize(
    ("resealed", "message"),
    [
        (False, r"sha256 [0-9a-f]{64} does not match catalogue\.jsonl\.sha256 \([0-9a-f]{64}\); "),
        (True, r"line 1: Expecting value: line 1 column 1 \(char 0\)$"),
    ],
    ids=["edited: refused as edited", "resealed: refused by its line"],
)
def test_a_broken_catalogue_line_is_refused_only_once_the_bytes_are_checked(
    tmp_path: Path, resealed: bool, message: str
) -> None:
    """The catalogue is parsed as its bytes are hashed, but a broken line in bytes that do not
    match the checksum file is refused as an edit, as when the bytes were checked first; resealed,
    it is refused by its line."""
    corpus_dir, _ = _small_catalogue(tmp_path)
    path = corpus_dir / CATALOGUE_NAME
    broken = b"\n" + path.read_bytes()
    path.write_bytes(broken)
    if resealed:
        sha256 = hashlib.sha256(broken).hexdigest()
        (corpus_dir / CHECKSUM_NAME).write_text(f"{sha256}  {CATALOGUE_NAME}\n")
    with pytest.raises(CatalogueError, match=re.escape(str(path)) + ": " + message):
        read_catalogue(corpus_dir)


def test_a_catalogue_row_escaping_the_store_is_refused(tmp_path: Path) -> None:
    _, rows = _small_catalogue(tmp_path)
    evil = CatalogueRow.of("../../outside/x/y.xml", rows[0].provenance)
    report = fetch([evil], tmp_path / "store", mirror=tmp_path / "mirror")
    (failure,) = report.failed
    assert (
        failure.reason == "path_escapes"
        and "must not hold empty, '.' or '..' parts" in failure.detail
    )
    assert not (tmp_path / "outside").exists()


def test_fetch_checks_hashes_and_never_replaces_a_fetched_file(tmp_path: Path) -> None:
    _, rows = _small_catalogue(tmp_path)
    mirror, store = tmp_path / "mirror", tmp_path / "store"
    first = fetch(rows, store, mirror=mirror)
    assert first.copied == (SAMPLE,) and not first.failed
    assert fetch(rows, store, mirror=mirror).already == (SAMPLE,), (
        "a good fetched file is not copied again"
    )
    held = store / SAMPLE
    original = held.read_bytes()
    # A corrupted mirror copy is reported and never written.
    fresh = tmp_path / "fresh"
    (mirror / SAMPLE).write_bytes(original.replace(b"Inspector", b"Inspektor"))
    (failure,) = fetch(rows, fresh, mirror=mirror).failed
    assert failure.reason == "sha256_mismatch" and not (fresh / SAMPLE).exists()
    # A fetched file that was tampered with is reported, left alone, and caught by verify.
    held.chmod(0o644)
    held.write_bytes(original + b" ")
    (failure,) = fetch(rows, store, mirror=mirror).failed
    assert failure.reason == "held_mismatch" and held.read_bytes() == original + b" "
    (problem,) = verify_store(rows, store)
    assert problem.reason == "sha256_mismatch" and problem.path == SAMPLE
    with pytest.raises(
        ChecksumMismatch,
        match=f"{SAMPLE}: fetched {len(original) + 1} bytes; catalogue says {len(original)}",
    ):
        read_fetched(rows[0], store)


def test_fetch_corpus_fetches_the_catalogue_and_the_refused_documents_apart(
    tmp_path: Path,
) -> None:
    mirror = _mirror_with(tmp_path)
    copy = "us-dc/transcribed/34-306@2021-11-09.xml"
    (mirror / copy).parent.mkdir(parents=True)
    shutil.copyfile(mirror / SAMPLE, mirror / copy)
    record = json.loads((mirror / (SAMPLE + ".provenance.json")).read_bytes())
    record.update(document_family="transcribed", byte_faithful_to_official_filing=False)
    (mirror / (copy + ".provenance.json")).write_text(json.dumps(record), encoding="utf-8")
    corpus_dir, store, refused_store = tmp_path / "corpus", tmp_path / "store", tmp_path / "refused"
    write_catalogue(admit(mirror), corpus_dir)
    report, refused = fetch_corpus(corpus_dir, store, refused_store, mirror=mirror)
    assert (report.copied, report.failed) == ((SAMPLE,), ())
    assert (refused.copied, refused.failed) == ((copy,), ())
    assert not (store / copy).exists() and not (refused_store / SAMPLE).exists()
    assert [r.reason for r in admit(refused_store).refusals] == ["transcription"]
    again = fetch_corpus(corpus_dir, store, refused_store, mirror=mirror)
    assert (again[0].already, again[1].already) == ((SAMPLE,), (copy,))
    with pytest.raises(FileNotFoundError) as raised:
        fetch_corpus(corpus_dir, store, refused_store, mirror=tmp_path / "none")
    assert str(raised.value) == f"{tmp_path / 'none'}: mirror folder does not exist"


def test_fetched_files_are_read_only(catalogue: tuple[CatalogueRow, ...]) -> None:
    assert not verify_store(catalogue, STORE)
    assert all(not os.access(STORE / row.path, os.W_OK) or os.geteuid() == 0 for row in catalogue)
    assert all((STORE / row.path).stat().st_mode & 0o222 == 0 for row in catalogue)


# ---------------------------------------------------------------------------------------------
# Re-admission never moves a catalogued version


def test_readmission_keeps_rows_and_refuses_changed_bytes(tmp_path: Path) -> None:
    corpus_dir, rows = _small_catalogue(tmp_path)
    before = (corpus_dir / CATALOGUE_NAME).read_bytes()
    mirror = tmp_path / "mirror"
    changed = (mirror / SAMPLE).read_bytes().replace(b"Inspector", b"Inspektor")
    (mirror / SAMPLE).write_bytes(changed)
    record = json.loads((mirror / (SAMPLE + ".provenance.json")).read_bytes())
    record.update(sha256=hashlib.sha256(changed).hexdigest(), bytes=len(changed))
    (mirror / (SAMPLE + ".provenance.json")).write_text(json.dumps(record))
    merged = merge_admission(rows, admit(mirror))
    assert merged.rows == rows
    (refusal,) = merged.refusals
    assert refusal.reason == "corpus_changed" and refusal.detail.startswith(
        f"catalogued with sha256 {rows[0].sha256}"
    )
    write_catalogue(merged, corpus_dir)
    assert (corpus_dir / CATALOGUE_NAME).read_bytes() == before


def test_admitting_a_hostile_folder_leaves_the_catalogue_unchanged(tmp_path: Path) -> None:
    corpus_dir, _ = _small_catalogue(tmp_path)
    before = (corpus_dir / CATALOGUE_NAME).read_bytes()
    hostile = _mirror_with(tmp_path / "other", _set("source_url", "javascript:alert(1)"))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench",
            "corpus",
            "admit",
            str(hostile),
            "--corpus-dir",
            str(corpus_dir),
        ],
        capture_output=True,
        check=False,
    )
    assert result.returncode == 1 and b"malformed_provenance" in result.stdout
    assert (corpus_dir / CATALOGUE_NAME).read_bytes() == before


# ---------------------------------------------------------------------------------------------
# Download from mirror URLs, served on loopback


@pytest.fixture
def loopback_mirror(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """An HTTP server on 127.0.0.1 serving `<repo>/<commit>/<path>` from a folder."""
    served = tmp_path / "served"
    served.mkdir()
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.RequestHandlerClass.log_message = lambda *args: None  # type: ignore[method-assign]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/{{repo}}/{{commit}}/{{path}}", served
    finally:
        server.shutdown()
        server.server_close()


def test_fetch_downloads_from_mirror_urls_and_checks_them(
    catalogue: tuple[CatalogueRow, ...], loopback_mirror: tuple[str, Path], tmp_path: Path
) -> None:
    template, served = loopback_mirror
    rows = [r for r in catalogue if r.family == "dc-code-34-306"]
    for row in rows:
        mirror = row.provenance["mirror"]
        target = served / mirror["repo"] / mirror["commit"] / mirror["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(STORE / row.path, target)
    bad = rows[0].provenance["mirror"]
    (served / bad["repo"] / bad["commit"] / bad["path"]).write_bytes(b"<html>rate limited</html>")
    store = tmp_path / "store"
    report = fetch(rows, store, mirror=None, url_template=template)
    assert sorted(report.copied) == sorted(r.path for r in rows[1:])
    (failure,) = report.failed
    assert failure.reason == "sha256_mismatch" and failure.detail.startswith(
        f"{rows[0].path}: fetched 25 bytes"
    )
    assert not (store / rows[0].path).exists()
    assert not verify_store(rows[1:], store)
    (served / bad["repo"] / bad["commit"] / bad["path"]).unlink()
    (missing,) = fetch(rows[:1], store, mirror=None, url_template=template).failed
    assert missing.reason == "unavailable" and "HTTP Error 404" in missing.detail


def test_a_document_whose_file_stamp_has_not_moved_is_its_known_row_and_any_other_is_read_whole(
    tmp_path: Path, documents_read: list[str]
) -> None:
    """Given the stamps and rows of an earlier admission, `admit` reads nothing again of an
    unmoved document; one written again (even given its old modification time back) or one
    whose provenance file was rewritten is read and checked whole."""
    mirror = tmp_path / "mirror"
    shutil.copytree(STORE / "us-dc" / "dc-code-34-306", mirror / "us-dc" / "dc-code-34-306")
    first = admit(mirror)
    assert set(first.stamps) == {row.path for row in first.rows} and len(first.rows) > 3
    known = {row.path: (first.stamps[row.path], row) for row in first.rows}
    assert sorted(documents_read) == [row.path for row in first.rows]
    documents_read.clear()
    again = admit(mirror, known=known)
    assert documents_read == [] and again.rows == first.rows and again.stamps == first.stamps

    edited, touched = first.rows[0].path, first.rows[1].path
    before = os.stat(mirror / edited)
    (mirror / edited).write_bytes((mirror / edited).read_bytes().replace(b"<", b" <", 1))
    os.utime(mirror / edited, ns=(before.st_atime_ns, before.st_mtime_ns))  # its old mtime back
    sidecar = mirror / (touched + ".provenance.json")
    sidecar.write_bytes(sidecar.read_bytes())
    third = admit(mirror, known=known)
    assert sorted(documents_read) == sorted([edited, touched])
    assert [(r.path, r.reason) for r in third.refusals] == [(edited, "size_mismatch")]
    assert touched in third.stamps and third.stamps[touched] != first.stamps[touched]
    assert [r.path for r in third.rows] == [r.path for r in first.rows if r.path != edited]


def test_a_record_just_under_the_size_limit_reads_back_from_the_catalogue(tmp_path: Path) -> None:
    """A sidecar of just under 1 MiB is admitted, and its catalogue line, over 1 MiB with the path
    around the record, reads back: the record is measured as the line holds it (compact UTF-8,
    as admission measures the sidecar), not written out again with escapes and spaces."""
    mirror = _mirror_with(tmp_path)
    sidecar = mirror / (SAMPLE + ".provenance.json")
    record = json.loads(sidecar.read_bytes())

    def compact(value: dict[str, Any]) -> bytes:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    record["extraction_note"] = ""
    room = MAX_PROVENANCE_BYTES - len(compact(record))
    record["extraction_note"] = "Clichés " + "a" * (room - 9)  # 'é' is two bytes, one character
    sidecar.write_bytes(compact(record))
    assert len(sidecar.read_bytes()) == MAX_PROVENANCE_BYTES
    admission = admit(mirror)
    assert [r.path for r in admission.rows] == [SAMPLE] and not admission.refusals
    corpus_dir = tmp_path / "corpus"
    write_catalogue(admission, corpus_dir)
    (line,) = (corpus_dir / CATALOGUE_NAME).read_text(encoding="utf-8").splitlines()
    assert len(line) > MAX_PROVENANCE_BYTES  # the line is checked as a whole record
    (row,) = read_catalogue(corpus_dir)
    assert row == admission.rows[0]
    assert row.provenance["extraction_note"].startswith("Clichés a")


def test_a_catalogue_record_over_the_size_limit_is_refused_by_line(tmp_path: Path) -> None:
    """The same record made 100 bytes longer in the catalogue itself (its checksum written to
    match, as an editor who knew the format would) is refused as its sidecar would be."""
    corpus_dir, _ = _small_catalogue(tmp_path)
    path = corpus_dir / CATALOGUE_NAME
    note = '"extraction_note":"' + "a" * (MAX_PROVENANCE_BYTES + 100)
    edited = re.sub(rb'"extraction_note":"', note.encode(), path.read_bytes(), count=1)
    path.write_bytes(edited)
    checksum = corpus_dir / CHECKSUM_NAME
    held = checksum.read_text(encoding="ascii").split()[0]
    checksum.write_text(
        checksum.read_text(encoding="ascii").replace(held, hashlib.sha256(edited).hexdigest()),
        encoding="ascii",
    )
    with pytest.raises(CatalogueError, match=r"catalogue\.jsonl: line 1: .*expected at most 1 MiB"):
        read_catalogue(corpus_dir)
