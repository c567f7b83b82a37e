"""Shared fixtures: the real corpus, fetched and hash-checked, and a workspace holding it.

The corpus comes from the tracked catalogue. `make test` fetches it first; the session fixture
fetches again (a no-op when every file is already held with the right hash) so that a bare `pytest`
works too. The mirror is `$WORKBENCH_MIRROR`, else `../shared/corpus` when present, else each row's
mirror URL.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

from workbench.corpus import fetch, read_catalogue, read_refused
from workbench.models import CatalogueRow, consecutive_pairs
from workbench.workspace import Workspace, ingest

ROOT = Path(__file__).resolve().parents[1]
CORPUS_DIR = ROOT / "corpus"
STORE = CORPUS_DIR / "real"
REFUSED_STORE = CORPUS_DIR / "refused"
# Every workspace the suite makes (and every command it runs) reads scanned pages through one OCR
# cache, the one `make measure` uses, so the suite pays for each page once per checkout at most.
OCR_CACHE = ROOT / ".workbench" / "ocr-cache"
os.environ.setdefault("WORKBENCH_OCR_CACHE", str(OCR_CACHE))


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


@pytest.fixture(scope="session")
def catalogue() -> tuple[CatalogueRow, ...]:
    rows = read_catalogue(CORPUS_DIR)
    report = fetch(rows, STORE, mirror=_mirror())
    refused = fetch(read_refused(CORPUS_DIR), REFUSED_STORE, mirror=_mirror())
    assert not report.failed and not refused.failed, [
        f.line() for f in report.failed + refused.failed
    ]
    return rows


@pytest.fixture(scope="session")
def workspace(
    catalogue: tuple[CatalogueRow, ...], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Workspace]:
    path = tmp_path_factory.mktemp("workspace") / "workspace.sqlite"
    with Workspace(path) as held:
        report = ingest(held, catalogue, STORE)
        assert not report.refused, [r.line() for r in report.refused]
        yield held


@pytest.fixture(scope="session")
def version_pairs(workspace: Workspace) -> list[tuple[object, object]]:
    """Every consecutive (before, after) pair of held versions in every family."""
    return list(consecutive_pairs(workspace.versions()))
