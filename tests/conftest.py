"""Shared fixtures: the real corpus, fetched and hash-checked, and the workspaces that hold it.

The corpus comes from the tracked catalogue. `make test` fetches it first; the session fixture
fetches again (a no-op when every file is already held with the right hash) so that a bare `pytest`
works too. The mirror is `$WORKBENCH_MIRROR`, else `../shared/corpus` when present, else each row's
mirror URL.

Two workspaces, each ingested at most once per run (under pytest-xdist, by the first worker that
needs it, while the others wait; each worker then opens its own copy of the file):

- `workspace`, the default: the families of `SMALL_FAMILIES`, a couple of dozen real families that
  together hold every format and kind the corpus holds, chosen by what the tests name. A test that
  reads a document, a family or "every version held" reads it here.
- `corpus_workspace`: every catalogued version. Whole-corpus work is done once per session here,
  by the session fixtures whose names start with `corpus_` (the pairs, their diffs, the
  segmentations, the workspace measured and its measurements, the search index, the alignment
  truth), never in a test module; a test that uses one of them carries `@pytest.mark.slow`
  (`make check` leaves it out, `make test` runs it), and collection refuses a test that uses
  one without the mark. The measuring is done once per run, not per worker
  (`corpus_measured_copy`), and a notebook that measures the corpus opens a copy of it.

A test parametrized over documents (a `path` parameter) reads through `document_workspace`: the
default workspace for a document of `SMALL_FAMILIES`, the whole corpus's for any other, and the
cases of the second kind are marked slow at collection.
"""

from __future__ import annotations

import ast
import fcntl
import functools
import hashlib
import importlib.util
import itertools
import os
import pickle
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings

from workbench.corpus import fetch, read_catalogue, read_refused
from workbench.derived import code_digest
from workbench.models import CatalogueRow, Change, Passage, Version, consecutive_pairs
from workbench.workspace import Workspace, ingest

if TYPE_CHECKING:
    from workbench.measure import FamilyMeasurement

ROOT = Path(__file__).resolve().parents[1]
CORPUS_DIR = ROOT / "corpus"
STORE = CORPUS_DIR / "real"
REFUSED_STORE = CORPUS_DIR / "refused"
# Every workspace the suite makes (and every command it runs) reads scanned pages through one OCR
# cache, the one `make measure` uses (or the one `WORKBENCH_OCR_CACHE` names), so the suite pays
# for each page once per checkout at most, and a test that names the cache names that one.
OCR_CACHE = Path(
    os.environ.setdefault("WORKBENCH_OCR_CACHE", str(ROOT / ".workbench" / "ocr-cache"))
)
# Tests assert behaviour, never wall-clock time: Hypothesis's per-example deadline (200 ms) failed a
# property test whenever a loaded machine or a stage's first, lazy import made one example slow.
settings.register_profile("workbench", deadline=None)
settings.load_profile("workbench")
# The default workspace is kept between runs (in this ignored folder), under a key of everything
# its bytes depend on (`_kept_key`): a run after any change to the package ingests it afresh.
KEPT_WORKSPACES = ROOT / ".workbench" / "test-workspaces"

# The default workspace: "jurisdiction/family" folders of the fetched store. Each line says what
# the family stands for; together they hold every media type and extractor of the catalogue
# (checked when the workspace is built), and each is named by a test that reads it.
SMALL_FAMILIES = (
    # IETF paginated plain text: renumbered sections, page headers and footers, front matter,
    # words split by line-break hyphens.
    "ietf/draft-ietf-appsawg-http-problem",
    "ietf/draft-nottingham-http-link-header",
    "ietf/draft-wilde-xml-patch",
    # A draft whose name no drafting style reads: no laws are looked for in its gaps.
    "ietf/draft-cedik-http-warning",
    # USLM XML: a bill enrolled and then a public law; a law that repeats a line-broken word; a
    # joint resolution that numbers nothing.
    "us-federal/115-hr255",
    "us-federal/114-hr636",
    "us-federal/116-hjres107",
    # D.C. Council XML, the whole jurisdiction: Code sections whose history notes change with each
    # amendment (a raised fee, a renewable portfolio standard, a disconnection rule, a sentence
    # every release holds but the latest), and the seven D.C. Laws that amended them, which the
    # amendment reader checks against those sections' releases.
    "us-dc/dc-code-34-131",
    "us-dc/dc-code-34-306",
    "us-dc/dc-code-34-801",
    "us-dc/dc-code-34-804",
    "us-dc/dc-code-34-1151",
    "us-dc/dc-code-34-1432",
    "us-dc/dc-code-34-1434",
    "us-dc/dc-code-34-1436",
    "us-dc/dc-code-34-1436.01",
    "us-dc/dc-code-34-1506.02",
    "us-dc/dc-code-34-1518.01",
    "us-dc/dc-code-34-1671.06b",
    "us-dc/dc-law-24-147",
    "us-dc/dc-law-24-167",
    "us-dc/dc-law-24-176",
    "us-dc/dc-law-24-314",
    "us-dc/dc-law-25-189",
    "us-dc/dc-law-25-217",
    "us-dc/dc-law-25-50",
    # Justice Canada's consolidated XML: Section/Subsection/Paragraph, stable element ids.
    "ca-federal/ca-cer-act",
    # NERC PDFs with a text layer: running headers, U+2010 hyphens in later versions.
    "us-nerc/nerc-cip-002",
    "us-nerc/nerc-cip-003",
    "us-nerc/nerc-cip-012",
    # Missouri: plain text with gutter line numbers.
    "us-mo/mo-2024-hb1746",
    # Federal Register: a daily issue in USLM XML, and a three-column proposed rule as a PDF with a
    # page that has no text layer.
    "us-federal-register/fr-issue-2018-05-10",
    "us-federal-register/fr-2020-17221-faa-boeing-737max-nprm",
    # Hard PDFs: a filer's scan beside the commission's OCR copy; a page whose text layer opens
    # with glyphs drawn off the page; line-end hyphens; a table page and the same page rotated.
    "us-tx/puct-49421-item80-cehe-response-to-tiec-rfi-set1",
    # The commission's two OCR'd copies of one update (every page an invisible text layer).
    "us-tx/puct-49595-puc01-01-rate-case-expense-update",
    "us-federal/epa-oig-report-10-p-0154-excerpt",
    "us-federal/copyright-office-dmca-summary-1998",
    "us-federal/fbi-nics-firearm-checks-2015-11",
)

# The session fixtures that do whole-corpus work: a test that uses one is marked slow.
CORPUS_FIXTURES = frozenset(
    {
        "corpus_workspace",
        "corpus_indexed",
        "corpus_pairs",
        "corpus_diffs",
        "corpus_passages",
        "corpus_measured",
        "corpus_measurements",
        "corpus_alignment_truth",
    }
)


def _mirror() -> Path | None:
    named = os.environ.get("WORKBENCH_MIRROR")
    if named:
        return Path(named)
    local = ROOT.parent / "shared" / "corpus"
    return local if local.is_dir() else None


def tree_digest(folder: Path) -> str:
    """SHA-256 over every path and file's bytes under `folder`: equal means nothing was written."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        digest.update(path.relative_to(folder).as_posix().encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def link_families(root: Path, families: Iterable[str]) -> Path:
    """A mirror-layout folder at `root` of these "jurisdiction/family" folders of the fetched
    store (documents and provenance), hard-linked, so it is made in no time; returns `root`."""
    for family in families:
        (root / family).mkdir(parents=True)
        for path in sorted((STORE / family).iterdir()):
            os.link(path, root / family / path.name)
    return root


def command_paths(workspace: Workspace) -> list[str]:
    """The path options a command run on the session's workspace and the fetched corpus takes."""
    return [
        "--workspace",
        str(workspace.path),
        "--corpus-dir",
        str(CORPUS_DIR),
        "--store",
        str(STORE),
    ]


@functools.cache
def _parsed(source: bytes, filename: str) -> ast.Module:
    return ast.parse(source, filename=filename)


def parsed(path: Path) -> ast.Module:
    """The tree of the Python file at `path`, parsed once per process for each of its sources
    (keyed by its bytes: an edited file is parsed again). The tests that read the package's or
    the suite's sources with `ast` share it (and never change it)."""
    return _parsed(path.read_bytes(), str(path))


@functools.cache
def _nodes(source: bytes, filename: str) -> tuple[ast.AST, ...]:
    return tuple(ast.walk(_parsed(source, filename)))


def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of `parsed(path)`, in `ast.walk`'s order, listed once per source."""
    return _nodes(path.read_bytes(), str(path))


def module_from_commit(commit: str, path: str, name: str) -> ModuleType:
    """The module at `path` as it stood at `commit` (read with `git show`), loaded as `name`: an
    earlier extractor version, to compare what it makes with what the current one makes."""
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:{path}"], check=True, capture_output=True
    ).stdout
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses resolve their module by name
    exec(compile(source, f"{commit}:{path}", "exec"), module.__dict__)
    return module


def in_small_workspace(path: str) -> bool:
    """Whether the catalogued document at `path` is held by the default `workspace`."""
    return "/".join(path.split("/")[:2]) in SMALL_FAMILIES


# ---------------------------------------------------------------------------------------------
# Markers: whole-corpus work is slow, and only it


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark slow each `document_workspace` case whose document is outside the default workspace,
    and refuse a test that uses a `corpus_` fixture without the slow mark.

    Runs before `-m` selects, so `-m "not slow"` leaves the marked cases out.
    """
    unmarked = []
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        callspec = getattr(item, "callspec", None)
        outside = callspec is not None and not in_small_workspace(str(callspec.params.get("path")))
        if "document_workspace" in names and outside:
            item.add_marker(pytest.mark.slow)
        if names & CORPUS_FIXTURES and item.get_closest_marker("slow") is None:
            unmarked.append(item.nodeid)
    if unmarked:
        raise pytest.UsageError(
            "these tests use a whole-corpus fixture (corpus_*) but are not marked "
            "@pytest.mark.slow: " + ", ".join(unmarked)
        )


# ---------------------------------------------------------------------------------------------
# The corpus and the default workspace


def _shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This run's temporary folder, shared by its pytest-xdist workers (each has its own below it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextmanager
def _one_at_a_time(folder: Path, name: str) -> Iterator[None]:
    """Held by one process of the run at a time (an exclusive lock on a file in `folder`)."""
    with (folder / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def built_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]
) -> Path:
    """The file `name`, made by `build(path)` once per run: under pytest-xdist the first worker
    that asks builds it while the others wait, then every worker reads the same file."""
    folder = _shared_folder(tmp_path_factory)
    target = folder / name
    with _one_at_a_time(folder, name):
        if not target.exists():
            partial = folder / f"{name}.partial"
            # A build that failed before starts again (a file, or a folder of them).
            if partial.is_dir():
                shutil.rmtree(partial)
            partial.unlink(missing_ok=True)
            build(partial)
            partial.rename(target)
    return target


def _copy(source: Path, target: Path) -> None:
    """A consistent copy of a workspace file (its WAL included), by SQLite's backup."""
    with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(target)) as dst:
        src.backup(dst)


_FETCHED: list[tuple[CatalogueRow, ...]] = []  # this process's fetched catalogue, once fetched


def fetched_catalogue(tmp_path_factory: pytest.TempPathFactory) -> tuple[CatalogueRow, ...]:
    """The catalogue's rows, each file (and each refused one) fetched and hash-checked, once per
    process."""
    if _FETCHED:
        return _FETCHED[0]
    rows = read_catalogue(CORPUS_DIR)
    with _one_at_a_time(_shared_folder(tmp_path_factory), "fetch"):
        report = fetch(rows, STORE, mirror=_mirror())
        refused = fetch(read_refused(CORPUS_DIR), REFUSED_STORE, mirror=_mirror())
    assert not report.failed and not refused.failed, [
        f.line() for f in report.failed + refused.failed
    ]
    _FETCHED.append(rows)
    return rows


@pytest.fixture(scope="session")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> tuple[CatalogueRow, ...]:
    return fetched_catalogue(tmp_path_factory)


def small_workspace_file(
    catalogue: tuple[CatalogueRow, ...], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """The default workspace's versions, ingested once per run into a file no test opens: the
    start of both the default workspace and the whole corpus's (whose ingest then extracts only
    the rest)."""
    rows = [row for row in catalogue if in_small_workspace(row.path)]
    held_families = {"/".join(row.path.split("/")[:2]) for row in rows}
    assert held_families == set(SMALL_FAMILIES), sorted(set(SMALL_FAMILIES) - held_families)
    # Every kind of document the corpus holds is in it: each media type, and each extractor.
    assert {row.media_type for row in rows} == {row.media_type for row in catalogue}

    def build(path: Path) -> None:
        kept = KEPT_WORKSPACES / f"small-{small_workspace_key(catalogue)}.sqlite"
        if kept.exists():
            _copy(kept, path)
            return
        with Workspace(path) as held:
            report = ingest(held, rows, STORE)
            assert not report.refused, [r.line() for r in report.refused]
            extractors = {(v.extractor, v.extractor_version) for v in held.versions()}
        from workbench.text.extraction import CURRENT_EXTRACTORS

        assert extractors == set(CURRENT_EXTRACTORS.items())
        _keep(path, kept)

    return built_once(tmp_path_factory, "small-workspace.sqlite", build)


def _kept_key(rows: Iterable[CatalogueRow]) -> str:
    """What the default workspace's bytes depend on, hashed: the package's code (`code_digest`)
    and its data files (the shipped profiles), the lock file, the Python, the OCR engine build, and
    the rows (paths and hashes)."""
    from workbench.text.ocr import engine_build

    digest = hashlib.sha256(code_digest().encode())
    for path in sorted((ROOT / "workbench").rglob("*")):
        # Not `__pycache__`: its bytecode and the code digest kept beside it (whose stamp moves
        # with every checkout, and which a run that writes no bytecode leaves as it was) are
        # derived from the sources `code_digest` already covers.
        if path.is_file() and path.suffix != ".py" and "__pycache__" not in path.parts:
            digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    digest.update((ROOT / "uv.lock").read_bytes())
    # This file's own bytes: what its builds do to a kept workspace (the review queue, the parts
    # and passages kept) is in it.
    digest.update(Path(__file__).read_bytes())
    digest.update(f"{sys.version}\0{engine_build()}".encode())
    for row in rows:
        digest.update(f"{row.path}\0{row.sha256}\0".encode())
    return digest.hexdigest()[:16]


def small_workspace_key(catalogue: tuple[CatalogueRow, ...]) -> str:
    """The key the default workspace's files are kept under between runs (`_kept_key` of its
    rows)."""
    return _kept_key(row for row in catalogue if in_small_workspace(row.path))


def _keep(built: Path, kept: Path) -> None:
    """Keep `built` as `kept` for the next run (replacing any other kept one of its kind, the
    name's part before its key: that one's key is stale)."""
    kept.parent.mkdir(parents=True, exist_ok=True)
    kind = kept.name.split("-")[0]
    for stale in kept.parent.glob(f"{kind}-*.sqlite"):
        stale.unlink()
    partial = kept.with_suffix(".partial")
    _copy(built, partial)
    partial.rename(kept)


FreshWorkspace = Callable[[Iterable[CatalogueRow], Path], Workspace]


@pytest.fixture(scope="session")
def fresh_workspace(tmp_path_factory: pytest.TempPathFactory) -> FreshWorkspace:
    """`fresh_workspace(rows, path)`: a new workspace at `path` holding exactly `rows` (all
    admitted), with an empty verdict log. Each set of rows is ingested once per run, then copied,
    so a test that wants a workspace of its own does not extract the same documents again; the
    default workspace's rows, in catalogue order, are a copy of the file it is made from. Rows
    the default workspace holds are taken from the file it is made from as it holds them
    (`Workspace.take_held`, their kept parts with them: what ingest would hold, extracted by
    the same code from the same bytes), the rest ingested, each in the order of `rows`, so
    the versions' row order is ingest's."""

    def make(rows: Iterable[CatalogueRow], path: Path) -> Workspace:
        held = list(rows)
        key = hashlib.sha256("\0".join(row.path for row in held).encode()).hexdigest()[:16]

        def build(target: Path) -> None:
            catalogue = fetched_catalogue(tmp_path_factory)
            small = small_workspace_file(catalogue, tmp_path_factory)
            if held == [row for row in catalogue if in_small_workspace(row.path)]:
                _copy(small, target)  # the same ingest
                return
            from workbench.workspace.parts import take_kept_parts

            with Workspace(target) as workspace, Workspace(small, create=False) as source:
                for taken, run in itertools.groupby(held, key=lambda r: in_small_workspace(r.path)):
                    part = list(run)
                    if taken:
                        ids = [row.path for row in part]
                        assert workspace.take_held(source, ids) == tuple(ids)
                        take_kept_parts(workspace, source, ids)
                    report = ingest(workspace, part, STORE)  # extracts only what was not taken
                    assert not report.refused, [r.line() for r in report.refused]
                    assert not taken or report.added == ()

        _copy(built_once(tmp_path_factory, f"fresh-{key}.sqlite", build), path)
        return Workspace(path)

    return make


def reviewed_workspace_file(
    catalogue: tuple[CatalogueRow, ...], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """The default workspace's versions with the review queue brought up to date
    (`changes.stored.refresh_review_queue`, the registry `review list` reads) and every
    version's parts kept (`workspace.parts.held_parts`: the queue's refresh keeps those of the
    versions it pairs, this the rest) and its passages through its shipped profile
    (`workspace.passages.held_passages`: what search, blocks and diff read), made once per run from `small_workspace_file` and kept
    between runs beside it under the same key: every `review` command on the default workspace,
    or on a copy of it, reads the queue back, and a test asking for a version's tables or notes
    reads them back, instead of each worker diffing every family's pairs, reading a document's
    parts or segmenting a version again."""
    small = small_workspace_file(catalogue, tmp_path_factory)

    def build(path: Path) -> None:
        from workbench.changes.stored import refresh_review_queue
        from workbench.text.profiles import profile_for
        from workbench.workspace.parts import held_parts
        from workbench.workspace.passages import held_passages

        kept = KEPT_WORKSPACES / f"default-{small_workspace_key(catalogue)}.sqlite"
        if kept.exists():
            _copy(kept, path)
            return
        _copy(small, path)
        with Workspace(path) as held:
            refresh_review_queue(held, held.profile_registry())
            for version in held.versions():
                held_parts(held, version)
                # Its passages through its shipped profile, as search, blocks and diff read them.
                held_passages(held, version, profile_for(version.jurisdiction, version.family))
        _keep(path, kept)

    return built_once(tmp_path_factory, "reviewed-workspace.sqlite", build)


@pytest.fixture(scope="session")
def workspace(
    catalogue: tuple[CatalogueRow, ...], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Workspace]:
    """The default workspace: every version of `SMALL_FAMILIES`, its review queue up to date and
    its parts kept (`reviewed_workspace_file`)."""
    path = tmp_path_factory.mktemp("workspace") / "workspace.sqlite"
    _copy(reviewed_workspace_file(catalogue, tmp_path_factory), path)
    with Workspace(path) as held:
        yield held


@pytest.fixture(scope="session")
def family_measurements(
    workspace: Workspace,
    catalogue: tuple[CatalogueRow, ...],
    held_versions: tuple[Version, ...],
    tmp_path_factory: pytest.TempPathFactory,
) -> list[FamilyMeasurement]:
    """The default workspace's families, measured (`measure.run.map_families`, each version's
    parts read back from the workspace), once per run: under pytest-xdist the first worker that
    asks measures them and pickles the list, and every worker reads that file (the whole
    corpus's are `corpus_measurements`). The records are frozen, so the tests share them."""
    from workbench.measure.run import map_families
    from workbench.workspace.parts import held_parts

    def build(path: Path) -> None:
        wanted = {row.path for row in catalogue}
        measured = map_families(
            [v for v in held_versions if v.version_id in wanted],
            parts=functools.partial(held_parts, workspace),
        )
        path.write_bytes(pickle.dumps(measured))

    found: list[FamilyMeasurement] = pickle.loads(
        built_once(tmp_path_factory, "family-measurements.pickle", build).read_bytes()
    )
    return found


@pytest.fixture
def document_workspace(request: pytest.FixtureRequest, workspace: Workspace) -> Workspace:
    """The workspace that holds the test's `path` parameter: the default one for a document of
    `SMALL_FAMILIES`, else the whole corpus's (such a case is marked slow at collection)."""
    path = str(request.node.callspec.params["path"])
    if in_small_workspace(path):
        return workspace
    held: Workspace = request.getfixturevalue("corpus_workspace")
    return held


# ---------------------------------------------------------------------------------------------
# The whole corpus: each piece of work done once per session, for the tests marked slow


def corpus_workspace_copy(tmp_path_factory: pytest.TempPathFactory, target: Path) -> Path:
    """A copy at `target` of every catalogued version, ingested once per run into a file no test
    opens, with every version's passages through its shipped profile kept in it
    (`workspace.passages`); returns `target`. That file starts as a copy of the default
    workspace's versions, which ingest leaves as held (same bytes, same extractor), so only every
    other row is extracted. A notebook run opens such a copy too (notebooks/conftest.py): the
    run ingests and segments the whole corpus once."""
    catalogue = fetched_catalogue(tmp_path_factory)
    small = small_workspace_file(catalogue, tmp_path_factory)

    def build(path: Path) -> None:
        from workbench.text.profiles import profile_for
        from workbench.workspace.passages import held_passages

        _copy(small, path)
        with Workspace(path) as held:
            report = ingest(held, catalogue, STORE)
            assert not report.refused, [r.line() for r in report.refused]
            # Every version's passages through its shipped profile, kept (`corpus_passages`).
            for version in held.versions():
                held_passages(held, version, profile_for(version.jurisdiction, version.family))

    _copy(built_once(tmp_path_factory, "corpus-workspace.sqlite", build), target)
    return target


@pytest.fixture(scope="session")
def corpus_workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    """Every catalogued version (`corpus_workspace_copy`), each worker opening a copy of its own."""
    path = tmp_path_factory.mktemp("corpus-workspace") / "workspace.sqlite"
    corpus_workspace_copy(tmp_path_factory, path)
    with Workspace(path) as held:
        yield held


@pytest.fixture(scope="session")
def corpus_indexed(corpus_workspace: Workspace) -> Workspace:
    """The whole corpus's workspace with its search index built."""
    from workbench.search import build_index

    build_index(corpus_workspace)
    return corpus_workspace


@pytest.fixture(scope="session")
def corpus_pairs(corpus_workspace: Workspace) -> list[tuple[Version, Version]]:
    """Every consecutive (before, after) pair of held versions in every family."""
    return list(consecutive_pairs(corpus_workspace.versions()))


@pytest.fixture(scope="session")
def corpus_passages(corpus_workspace: Workspace) -> dict[str, tuple[Passage, ...]]:
    """Every held version's passages (`segment_version`, its shipped profile), by version id:
    segmented once per run and kept in the whole corpus's workspace (`corpus_workspace_copy`),
    read back here (`workspace.passages.held_passages`, whose rows are `segment_version`'s:
    tests/test_held_passages.py)."""
    from workbench.text.profiles import profile_for
    from workbench.workspace.passages import held_passages

    return {
        v.version_id: held_passages(corpus_workspace, v, profile_for(v.jurisdiction, v.family))
        for v in corpus_workspace.versions()
    }


@pytest.fixture(scope="session")
def corpus_diffs(
    corpus_pairs: list[tuple[Version, Version]],
    corpus_passages: dict[str, tuple[Passage, ...]],
) -> dict[tuple[str, str], tuple[Change, ...]]:
    """`diff_versions(before, after)` of every consecutive pair, by (before id, after id), each
    side's passages handed in from `corpus_passages` (the segmentation `diff_versions` makes when
    none are given), so no version is segmented twice."""
    from workbench.changes.diff import diff_versions

    return {
        (b.version_id, a.version_id): diff_versions(
            b, a, passages=(corpus_passages[b.version_id], corpus_passages[a.version_id])
        )
        for b, a in corpus_pairs
    }


def corpus_measured_copy(tmp_path_factory: pytest.TempPathFactory, target: Path) -> Path:
    """A copy at `target` of the whole corpus's workspace measured as `make measure` measures
    it, with its measure cache (`measure-cache/`, every family's measurement) beside it; returns
    `target`. The measuring is done once per run, by `measure_corpus` on a copy of
    `corpus_workspace_copy`'s file; a `measure_corpus` on such a copy measures no family again.
    The notebook that measures the corpus opens such a copy too (notebooks/conftest.py)."""
    from workbench.measure import CACHE_DIR_NAME, measure_corpus

    def build(folder: Path) -> None:
        folder.mkdir()
        corpus_workspace_copy(tmp_path_factory, folder / "workspace.sqlite")
        measure_corpus(
            out=folder / "measurements",
            workspace=folder / "workspace.sqlite",
            corpus_dir=CORPUS_DIR,
            store=STORE,
        )

    measured = built_once(tmp_path_factory, "corpus-measured", build)
    _copy(measured / "workspace.sqlite", target)
    shutil.copytree(measured / CACHE_DIR_NAME, target.parent / CACHE_DIR_NAME)
    return target


@pytest.fixture(scope="session")
def corpus_measured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    """The whole corpus's workspace as `make measure` leaves it (`corpus_measured_copy`): every
    version's parts kept, every family's measurement in the measure cache beside it."""
    path = tmp_path_factory.mktemp("corpus-measured") / "workspace.sqlite"
    corpus_measured_copy(tmp_path_factory, path)
    with Workspace(path) as held:
        yield held


@pytest.fixture(scope="session")
def corpus_measurements(corpus_measured: Workspace) -> list[Any]:
    """Every family's measurement as `measure` keeps it: `measure_corpus` with `keep_results` on
    `corpus_measured`, which reads each family back from the cache (each was measured once per
    run, its tables paired row by row)."""
    from workbench.measure import measure_corpus

    run = measure_corpus(
        out=corpus_measured.path.parent / "measurements",
        workspace=corpus_measured.path,
        corpus_dir=CORPUS_DIR,
        store=STORE,
        keep_results=True,
    )
    assert run.extracted == () and run.reused == run.families  # read back, not measured again
    return list(run.results)


@pytest.fixture(scope="session")
def corpus_alignment_truth(
    catalogue: tuple[CatalogueRow, ...], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """The pairing truth of the whole corpus, written once per run by
    `scripts/alignment_truth.py` run as its own process (it imports nothing from the workbench)."""

    def build(out: Path) -> None:
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "scripts" / "alignment_truth.py"),
                "--mirror",
                str(STORE),
                "--catalogue",
                str(CORPUS_DIR / "catalogue.jsonl"),
                "--out",
                str(out),
            ],
            check=True,
            capture_output=True,
        )

    return built_once(tmp_path_factory, "alignment-truth.json", build)


@pytest.fixture
def documents_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths whose provenance `admit` parses and whose bytes it hashes from now on, in order
    (every document it does not take as an unmoved known row)."""
    import workbench.corpus.admission as admission

    read: list[str] = []
    whole = admission._admit_one
    monkeypatch.setattr(
        admission, "_admit_one", lambda root, rel, data: read.append(rel) or whole(root, rel, data)
    )
    return read


@pytest.fixture
def catalogue_reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The corpus folders whose catalogue file is read from now on, in order: each read checks
    the file's bytes against its checksum once (C3), and is counted there."""
    import workbench.corpus.catalogue as catalogue

    read: list[Path] = []
    whole = catalogue._checked

    def checked(corpus_dir: Path, actual: str) -> str:
        read.append(corpus_dir)
        return whole(corpus_dir, actual)

    monkeypatch.setattr(catalogue, "_checked", checked)
    return read


@pytest.fixture
def segmented(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the versions `text.segment.segment_version` segments from now on, in order
    (a caller that bound the function at import, as `search.index` does, is not counted)."""
    import workbench.text.segment as segment

    called: list[str] = []
    whole = segment.segment_version
    monkeypatch.setattr(
        segment,
        "segment_version",
        lambda version, *a, **k: called.append(version.version_id) or whole(version, *a, **k),
    )
    return called


@pytest.fixture(scope="session")
def held_versions(workspace: Workspace) -> tuple[Version, ...]:
    """Every version of the default workspace (`workspace.versions()`), read once per process:
    the records are frozen, so the tests that only read them share one tuple instead of each
    decoding every version's marks and origins again."""
    return workspace.versions()
