"""Derived state (`workbench.derived`, C13): one key rule, one invalidation rule, one watermark.

The key rule is found in one place by reading the package's source: every digest the workbench
makes with `content_id` is either `derived_key` or an id or digest of a record, named here."""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

import pytest

from tests.conftest import STORE, FreshWorkspace, parsed
from workbench import derived
from workbench.corpus import read_catalogue
from workbench.derived import (
    DerivedState,
    code_digest,
    derived_key,
    kept_digest_path,
    source_digest,
)
from workbench.models import CatalogueRow, content_id
from workbench.workspace.holding import ingest

PACKAGE = Path(__file__).resolve().parents[1] / "workbench"
RACY_NS = derived.RACY_NS  # the package's own window (the fixture below closes it)

# Where the package calls `content_id`: (module, function) -> what the digest is. Only
# `derived_key` makes a key of derived state; every other is an id or a digest of a record.
DIGESTS = {
    ("derived.py", "derived_key"): "the one key rule of derived state",
    ("derived.py", "source_digest"): "the sources' stamp (which kept code digest stands)",
    ("amendments/instructions.py", "read_instructions"): "an instruction's id",
    ("amendments/store.py", "since"): "the chain of sections' dated facts (a key's input)",
    ("changes/diff.py", "change_id"): "a change's id",
    ("changes/queue.py", "group_id_of"): "a review group's id",
    ("changes/sample.py", "sample_id_of"): "an audit sample's id (a row of the verdict log)",
    ("changes/sample.py", "population_digest"): "the sampled population's digest (C21)",
    ("changes/verdict.py", "row_digest"): "a verdict row's digest (the log's chain)",
    ("cite/blocks.py", "map_sha256"): "a block map's digest",
    ("cite/w3c.py", "annotation"): "an annotation's id",
    ("evals/demo.py", "demo_digest"): "the demonstration corpus's digest (its manifest)",
    ("evals/scorecard.py", "score_verifier"): "a probe's id",
    ("exports/bundle.py", "write_bundle"): "a bundle's id",
    ("measure/reports.py", "corpus_digest"): "the corpus digest the reports are headed by (C12)",
    ("notes/note.py", "quotes_sha256"): "a note's quotes' digest",
    ("text/profiles/__init__.py", "registry_digest"): "a profile registry's digest",
}


def _trees() -> tuple[tuple[str, ast.Module], ...]:
    """Every module of the package as (POSIX path below it, parsed tree), each parsed once per
    run (`parsed`): each check below walks every module."""
    return tuple(
        (path.relative_to(PACKAGE).as_posix(), parsed(path))
        for path in sorted(PACKAGE.rglob("*.py"))
    )


@cache
def _calls(name: str) -> tuple[tuple[str, str], ...]:
    """(module, enclosing function) of every call of `name` in the package's source, found once
    per run for each name."""

    def visit(node: ast.AST, module: str, owner: str) -> Iterator[tuple[str, str]]:
        for child in ast.iter_child_nodes(node):
            inner = owner
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = child.name
            elif isinstance(child, ast.Call):
                called = child.func
                if (isinstance(called, ast.Name) and called.id == name) or (
                    isinstance(called, ast.Attribute) and called.attr == name
                ):
                    yield module, owner
            yield from visit(child, module, inner)

    return tuple(site for module, tree in _trees() for site in visit(tree, module, "<module>"))


def test_derived_key_is_the_one_key_definition() -> None:
    assert set(_calls("content_id")) == set(DIGESTS)
    makers = {site for site, what in DIGESTS.items() if what.startswith("the one key rule")}
    assert makers == {("derived.py", "derived_key")}


@pytest.mark.parametrize(
    ("name", "defined_in"),
    [
        pytest.param("pair_key", {"changes/stored.py"}, id="one-pair_key"),
        pytest.param("derived_key", {"derived.py"}, id="one-derived_key"),
    ],
)
def test_a_key_function_is_defined_once(name: str, defined_in: set[str]) -> None:
    found = {
        module
        for module, tree in _trees()
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name == name
    }
    assert found == defined_in


def test_the_key_names_its_kind_inputs_and_code() -> None:
    key = derived_key("review-pair", ["a", "b"], "c" * 64)
    assert key == content_id({"kind": "review-pair", "inputs": ["a", "b"], "code": "c" * 64})
    others = {
        derived_key("family-summary", ["a", "b"], "c" * 64),
        derived_key("review-pair", ["b", "a"], "c" * 64),
        derived_key("review-pair", ["a", "b"], "d" * 64),
    }
    assert key not in others and len(others) == 3


def _family_rows(family: str) -> list[CatalogueRow]:
    rows = read_catalogue(Path(__file__).resolve().parents[1] / "corpus")
    return sorted((r for r in rows if r.family == family), key=lambda r: r.version_order)


def test_a_view_holds_until_its_key_moves_or_a_version_is_admitted(
    fresh_workspace: FreshWorkspace, tmp_path: Path
) -> None:
    rows = _family_rows("draft-ietf-appsawg-http-problem")
    assert len(rows) >= 2
    with fresh_workspace(rows[:1], tmp_path / "w.sqlite") as workspace:
        state = DerivedState(workspace)
        assert state.kept("scorecards", "out") is None
        state.keep("scorecards", "out", "k1", {"a.json": "0" * 64})
        kept = state.holds("scorecards", "out", "k1")
        assert kept is not None and kept.value == {"a.json": "0" * 64}
        assert kept.watermark == state.watermark() > 0
        assert state.holds("scorecards", "out", "k2") is None  # its key moved
        assert state.holds("scorecards", "other", "k1") is None  # never kept
        report = ingest(workspace, rows[1:2], STORE)
        assert not report.refused
        assert state.admitted_since(kept.watermark) == (report.added[0],)
        assert state.holds("scorecards", "out", "k1") is None  # a version admitted since
        state.keep("scorecards", "out", "k1", {})
        assert state.holds("scorecards", "out", "k1") is not None


@pytest.mark.parametrize(
    ("module", "table"),
    [
        pytest.param("amendments/store.py", "reconciliation", id="reconciliation"),
        pytest.param("amendments/laws.py", "release notes", id="release-notes"),
        pytest.param("amendments/readings.py", "law readings", id="law-readings"),
        pytest.param("changes/stored.py", "review queue", id="review-queue"),
        pytest.param("measure/cache.py", "family summaries", id="family-summaries"),
        pytest.param("search/index.py", "search index", id="search-index"),
        pytest.param("text/ocr.py", "OCR cache", id="ocr-cache"),
        pytest.param("workspace/passages.py", "passages", id="passages"),
    ],
)
def test_every_derived_table_is_keyed_by_the_rule(module: str, table: str) -> None:
    """Each module that keeps a derived table makes its keys with `derived_key` (the
    `content_id` sites above are ids and record digests, none a key)."""
    assert any(site[0] == module for site in _calls("derived_key")), table


def test_the_ocr_cache_names_a_page_by_its_derived_key(tmp_path: Path) -> None:
    from workbench.text.ocr import OCR_EXTRACTOR, OCR_EXTRACTOR_VERSION, OcrCache

    inputs = {"artefact_sha256": "a" * 64, "page": 3, "languages": "eng"}
    code = f"{OCR_EXTRACTOR} {OCR_EXTRACTOR_VERSION}"
    assert (
        OcrCache(tmp_path).path(inputs)
        == tmp_path / f"{derived_key('ocr-page', inputs, code)}.json"
    )
    assert OcrCache(tmp_path).path({**inputs, "page": 4}) != OcrCache(tmp_path).path(inputs)


def test_the_search_index_is_brought_up_to_date_from_its_watermark(
    fresh_workspace: FreshWorkspace, tmp_path: Path
) -> None:
    """The index records its key over the held versions and the versions' watermark; after a
    version is admitted, exactly the versions admitted since the watermark are added."""
    from workbench.search.index import INDEX_FORMAT, build_index, corpus_digest, update_index

    rows = _family_rows("draft-ietf-appsawg-http-problem")
    with fresh_workspace(rows[:1], tmp_path / "w.sqlite") as workspace:
        state = DerivedState(workspace)
        build_index(workspace)
        mark = state.watermark()
        held = workspace.read("SELECT version_id, text_sha256 FROM versions ORDER BY version_id")
        key = derived_key(
            "search-index", [list(r) for r in held], f"search index format {INDEX_FORMAT}"
        )
        assert corpus_digest(workspace) == key
        report = ingest(workspace, rows[1:2], STORE)
        assert state.admitted_since(mark) == (report.added[0],)
        done = update_index(workspace)
        assert (done.built, done.added, done.dropped) == (False, 1, 0)
        assert corpus_digest(workspace) != key
        assert update_index(workspace).added == 0


def _hashed(package: Path) -> str:
    """The code digest as its docstring defines it, read and hashed here: every `.py`, `.toml`
    and `.html` file under `package`, in `Path` order, as its POSIX path, NUL, bytes, NUL."""
    digest = hashlib.sha256()
    for path in sorted(p for p in package.rglob("*") if p.suffix in (".py", ".toml", ".html")):
        name = path.relative_to(package).as_posix()
        digest.update(name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def test_the_code_digest_is_the_package_s_sources_hashed() -> None:
    assert code_digest() == _hashed(PACKAGE)


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the package's sources, whose digest may be kept (sources just copied are not
    racy here, and bytecode may be written)."""
    copy = tmp_path / "workbench"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(derived, "RACY_NS", 0)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    return copy


def _forge(kept: Path) -> None:
    """Keep a digest no source hashes to under the stamp `kept` holds."""
    held = json.loads(kept.read_text(encoding="utf-8"))
    kept.write_text(json.dumps({**held, "digest": "f" * 64}), encoding="utf-8")


def test_a_kept_code_digest_is_taken_under_its_stamp(package: Path, tmp_path: Path) -> None:
    kept = tmp_path / "kept.json"
    assert source_digest(package, kept) == _hashed(package)
    assert json.loads(kept.read_text(encoding="utf-8"))["digest"] == _hashed(package)
    _forge(kept)
    # Taken as kept, no source read: the forged digest comes back while no source has changed.
    assert source_digest(package, kept) == "f" * 64


def _same_size(package: Path) -> None:
    source = package / "derived.py"
    data = source.read_bytes()
    source.write_bytes(data.replace(b"TABLE = ", b"TABLE= ", 1) + b" ")


def _times_restored(package: Path) -> None:
    source = package / "models" / "versions.py"
    before = source.stat()
    data = source.read_bytes()
    source.write_bytes(data.replace(b"def ", b"dEf ", 1))
    os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))


def _added(package: Path) -> None:
    (package / "text" / "added.py").write_text("VALUE = 1\n", encoding="utf-8")


def _removed(package: Path) -> None:
    (package / "wording.py").unlink()


def _renamed(package: Path) -> None:
    (package / "wording.py").rename(package / "wordings.py")


def _template(package: Path) -> None:
    (template,) = list(package.rglob("*.html"))[:1]
    template.write_text(template.read_text(encoding="utf-8") + "\n", encoding="utf-8")


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(_same_size, id="edit-keeping-size"),
        pytest.param(_times_restored, id="edit-with-mtime-restored"),
        pytest.param(_added, id="source-added"),
        pytest.param(_removed, id="source-removed"),
        pytest.param(_renamed, id="source-renamed"),
        pytest.param(_template, id="template-edited"),
    ],
)
def test_any_source_change_moves_the_kept_code_digest(
    package: Path, tmp_path: Path, edit: Callable[[Path], None]
) -> None:
    kept = tmp_path / "kept.json"
    before = source_digest(package, kept)
    _forge(kept)
    edit(package)
    after = source_digest(package, kept)
    assert after == _hashed(package) != before
    assert json.loads(kept.read_text(encoding="utf-8"))["digest"] == after


@pytest.mark.parametrize(
    "refusal",
    [
        pytest.param("racy", id="a-source-changed-within-the-racy-window"),
        pytest.param("no-bytecode", id="bytecode-not-written"),
        pytest.param("unwritable", id="kept-file-cannot-be-written"),
    ],
)
def test_a_code_digest_is_not_kept_where_it_may_not_be(
    package: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refusal: str
) -> None:
    kept = tmp_path / "kept.json"
    if refusal == "racy":
        monkeypatch.setattr(derived, "RACY_NS", RACY_NS)
        _added(package)
    elif refusal == "no-bytecode":
        monkeypatch.setattr(sys, "dont_write_bytecode", True)
    else:
        (tmp_path / "file").write_text("", encoding="utf-8")
        kept = tmp_path / "file" / "kept.json"
    assert source_digest(package, kept) == _hashed(package)
    assert not kept.exists()


@pytest.mark.parametrize(
    "prefix",
    [
        pytest.param(None, id="in-the-package-s-pycache"),
        pytest.param("prefix", id="under-a-prefix"),
    ],
)
def test_the_code_digest_is_kept_where_bytecode_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prefix: str | None
) -> None:
    package = tmp_path / "package"
    monkeypatch.setattr(sys, "pycache_prefix", None if prefix is None else str(tmp_path / prefix))
    bytecode = Path(importlib.util.cache_from_source(str(package / "__init__.py")))
    assert kept_digest_path(package) == bytecode.parent / derived.KEPT_DIGEST
    assert (prefix is None) == (bytecode.parent == package / "__pycache__")


def test_a_views_outputs_are_hashed_one_file_at_a_time(tmp_path: Path) -> None:
    """`outputs_of` gives each file's SHA-256, hashed as it is read: what it holds at once stays
    well under one file's bytes however many files the view wrote (a measure's reports of the
    whole D.C. Code are tens of MB), and `outputs_hold` tells a file changed since."""
    import tracemalloc

    size = 4 << 20
    names = [f"report-{n}.json" for n in range(4)]
    for n, name in enumerate(names):
        (tmp_path / name).write_bytes(bytes([n]) * size)
    tracemalloc.start()
    try:
        hashed = derived.outputs_of(tmp_path, list(reversed(names)))
        held = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    expected = {name: hashlib.sha256((tmp_path / name).read_bytes()).hexdigest() for name in names}
    assert hashed == expected and list(hashed) == names
    assert held < size // 4
    assert derived.outputs_hold(tmp_path, hashed)
    (tmp_path / names[1]).write_bytes(b"changed")
    assert not derived.outputs_hold(tmp_path, hashed)
