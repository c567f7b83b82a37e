"""Opening a workspace with the corpus it remembers: `open_workspace` for every command that reads
one (a missing workspace is refused, never made empty), `workspace_settings` for the commands that
may make one (`ingest`, `measure`); either way an option given on the command line wins over a
remembered setting and says so (`corpus.settle`)."""

from __future__ import annotations

from pathlib import Path

from workbench.corpus import CorpusSettings, settle
from workbench.workspace.held import Workspace


def workspace_settings(
    path: Path,
    *,
    corpus: Path | None = None,
    corpus_dir: Path | None = None,
    store: Path | None = None,
    profiles: Path | None = None,
) -> tuple[CorpusSettings, tuple[str, ...]]:
    """The settings a command that may make the workspace at `path` reads (`ingest`, `measure`),
    and the override lines (`corpus.settle`), without making it: a missing one remembers nothing."""
    remembered = None
    if path.exists():
        with Workspace(path, create=False) as workspace:
            remembered = workspace.remembered_settings()
    return settle(
        remembered,
        workspace=path,
        corpus=corpus,
        corpus_dir=corpus_dir,
        store=store,
        profiles=profiles,
    )


def open_workspace(
    path: Path,
    *,
    create: bool = False,
    root: Path = Path(),
    corpus_dir: Path | None = None,
    store: Path | None = None,
    profiles: Path | None = None,
) -> Workspace:
    """Open the workspace at `path` with the settings it remembers, each given option winning
    (`corpus.settle`; `overrides` says which), or the project's under `root` (the repository
    root, default the working folder) where it remembers none. A missing workspace is refused
    (`WorkspaceError`, nothing made) unless `create`: a reader that holds versions itself (a
    notebook) makes it, as `ingest` does."""
    workspace = Workspace(path, create=create)
    workspace.settings, workspace.overrides = settle(
        workspace.remembered_settings(),
        workspace=path,
        root=root,
        corpus_dir=corpus_dir,
        store=store,
        profiles=profiles,
    )
    return workspace
