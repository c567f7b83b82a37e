"""A test workspace whose pairs' diffs are kept: built once per module, copied for each test, so
no test diffs every pair of a fresh copy again."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.conftest import FreshWorkspace, _copy
from workbench.models import CatalogueRow
from workbench.workspace import Workspace


def diffed_workspace(
    fresh_workspace: FreshWorkspace,
    rows: Iterable[CatalogueRow],
    path: Path,
    diff: Callable[[Workspace], object],
) -> Path:
    """A fresh workspace at `path` holding `rows`, once `diff` (a surface that reads every
    pair's diff: the review queue, the audit's population) has diffed and kept them."""
    with fresh_workspace(rows, path) as workspace:
        assert diff(workspace)
    return path


@contextmanager
def copied(path: Path, folder: Path) -> Iterator[Workspace]:
    """A copy of the workspace at `path` in `folder`, open."""
    _copy(path, folder / "w.sqlite")
    with Workspace(folder / "w.sqlite") as workspace:
        yield workspace
