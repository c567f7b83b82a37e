"""Where a corpus lives (C3): the project's, or a researcher's own in a folder of its own, and the
settings a workspace remembers, replaced only by an option given on the command line, which says so.
The rules are in docs/corpus.md."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.defaults import CORPORA_DIR, DEFAULT_CORPUS_DIR, DEFAULT_MIRROR, DEFAULT_STORE
from workbench.errors import WorkspaceError

if TYPE_CHECKING:  # admission is loaded by `admit_corpus` alone: opening a workspace never admits
    from workbench.corpus.admission import Admission

_UNSAFE = re.compile(r"[^A-Za-z0-9_.@+-]")


def is_project_mirror(folder: Path) -> bool:
    """True if `folder` is the project's mirror (`DEFAULT_MIRROR`, read from the working folder),
    however it is spelled: the two resolved paths are equal."""
    return folder.resolve() == DEFAULT_MIRROR.resolve()


def corpus_home(mirror: Path) -> Path:
    """Where `mirror`'s catalogue is kept when no folder is named: the project's `corpus/` for the
    project's mirror, else `CORPORA_DIR/<name>-<hash>`, where name is the folder's own name (any
    character but letters, digits and `_ . @ + -` replaced by `_`; `corpus` for a nameless root)
    and hash the first 8 hex digits of the SHA-256 of its resolved path's bytes."""
    if is_project_mirror(mirror):
        return DEFAULT_CORPUS_DIR
    resolved = mirror.resolve()
    name = _UNSAFE.sub("_", os.fsencode(resolved.name).decode("utf-8", "replace")) or "corpus"
    return CORPORA_DIR / f"{name}-{hashlib.sha256(os.fsencode(resolved)).hexdigest()[:8]}"


def catalogue_folder(mirror: Path, workspace: Path, corpus_dir: Path | None = None) -> Path:
    """Where `measure` keeps `mirror`'s catalogue: `corpus_dir` when named; the project's catalogue
    folder for the project's mirror; else beside the workspace file (`workspace`'s folder, which is
    `corpus_home(mirror)` when no workspace is named). A folder beside the workspace that is the
    project's catalogue folder is refused: only `--corpus-dir` may name that one."""
    if corpus_dir is not None:
        return corpus_dir
    if is_project_mirror(mirror):
        return DEFAULT_CORPUS_DIR
    beside = workspace.parent
    if beside.resolve() == DEFAULT_CORPUS_DIR.resolve():
        raise WorkspaceError(
            f"{workspace}: {mirror}'s catalogue would be written beside it, into the project's "
            f"catalogue folder {DEFAULT_CORPUS_DIR}; name a workspace in another folder, or "
            f"--corpus-dir {DEFAULT_CORPUS_DIR} to write there"
        )
    return beside


@dataclass(frozen=True, slots=True, kw_only=True)
class Admitted:
    """What `admit_corpus` did: this admission, the catalogue it was folded into, and where that
    catalogue is. `kept` is False when nothing was admitted, and then nothing was written."""

    admission: Admission
    catalogue: Admission
    folder: Path
    kept: bool


def admit_corpus(
    mirror: Path, corpus_dir: Path | None = None, *, progress: bool = False
) -> Admitted:
    """Admit `mirror` and keep the admission in its catalogue folder: `corpus_dir` when named,
    else `corpus_home(mirror)` (the project's `corpus/` only for the project's mirror)."""
    from workbench.corpus.catalogue import admit_into_catalogue

    folder = corpus_dir if corpus_dir is not None else corpus_home(mirror)
    admission, merged = admit_into_catalogue(mirror, folder, progress=progress)
    return Admitted(admission=admission, catalogue=merged, folder=folder, kept=bool(admission.rows))


# ---------------------------------------------------------------------------------------------
# What a workspace remembers of its corpus


@dataclass(frozen=True, slots=True, kw_only=True)
class CorpusSettings:
    """The corpus a workspace was made from, as every command on the workspace reads it. Paths are
    absolute (resolved when recorded), so a command run from another folder reads the same files."""

    corpus: (
        Path | None
    )  # the mirror folder `measure --corpus` admitted; None: read from a catalogue
    catalogue: Path  # the folder holding catalogue.jsonl, its checksum and refusals.jsonl
    store: Path  # the folder the catalogued bytes are read from (the mirror itself for a mirror)
    profiles: tuple[Path, ...] = ()  # the researcher's profile folders (`--profiles`), in order

    def profile_folders(self) -> tuple[Path, ...]:
        """The folders the researcher's profiles are read from, in the order they win: each
        `profiles` folder, then the corpus's own `profiles/` when it has one and it is not among
        them (as `measure` reads them)."""
        own = self.corpus / "profiles" if self.corpus is not None else None
        if own is None or not own.is_dir() or own.resolve() in {p.resolve() for p in self.profiles}:
            return self.profiles
        return (*self.profiles, own)

    def is_project(self) -> bool:
        """True for the project's own corpus read as the project reads it: its catalogue read from
        the project's catalogue folder, or its mirror admitted, through no researcher's profiles."""
        if self.profiles:
            return False
        if self.corpus is not None:
            return is_project_mirror(self.corpus)
        return self.catalogue.resolve() == DEFAULT_CORPUS_DIR.resolve()

    def resolved(self) -> CorpusSettings:
        """The same settings with every path absolute, as a workspace records them."""
        return CorpusSettings(
            corpus=None if self.corpus is None else self.corpus.resolve(),
            catalogue=self.catalogue.resolve(),
            store=self.store.resolve(),
            profiles=tuple(p.resolve() for p in self.profiles),
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "corpus": None if self.corpus is None else os.fsdecode(self.corpus),
            "catalogue": os.fsdecode(self.catalogue),
            "store": os.fsdecode(self.store),
            "profiles": [os.fsdecode(p) for p in self.profiles],
        }

    @staticmethod
    def from_json(value: Any, source: str) -> CorpusSettings:
        """The settings `as_json` wrote; a value of another shape is a `WorkspaceError` naming
        `source` and the field."""

        def path(field: str, text: Any) -> Path:
            if not isinstance(text, str) or not text:
                raise WorkspaceError(f"{source}: {field}: expected a path, got {text!r}")
            return Path(text)

        if not isinstance(value, dict) or set(value) != {
            "corpus",
            "catalogue",
            "store",
            "profiles",
        }:
            raise WorkspaceError(
                f"{source}: expected an object with corpus, catalogue, store and profiles"
            )
        folders = value["profiles"]
        if not isinstance(folders, list):
            raise WorkspaceError(f"{source}: profiles: expected a list of paths, got {folders!r}")
        return CorpusSettings(
            corpus=None if value["corpus"] is None else path("corpus", value["corpus"]),
            catalogue=path("catalogue", value["catalogue"]),
            store=path("store", value["store"]),
            profiles=tuple(path("profiles", p) for p in folders),
        )


def project_settings(root: Path = Path()) -> CorpusSettings:
    """The project's corpus: its tracked catalogue and its store under `root`, the repository
    root (default: the working folder), no profiles of a researcher's. What a workspace that
    remembers nothing is read with."""
    return CorpusSettings(
        corpus=None,
        catalogue=(root / DEFAULT_CORPUS_DIR).resolve(),
        store=(root / DEFAULT_STORE).resolve(),
    )


def _shown(paths: Sequence[Path]) -> str:
    return ", ".join(os.fsdecode(p) for p in paths) or "none"


def settle(
    remembered: CorpusSettings | None,
    *,
    workspace: Path,
    root: Path = Path(),
    corpus: Path | None = None,
    corpus_dir: Path | None = None,
    store: Path | None = None,
    profiles: Path | None = None,
) -> tuple[CorpusSettings, tuple[str, ...]]:
    """The settings a command on `workspace` reads, and one line for each given option that
    replaced a setting the workspace remembers.

    Start from `remembered` (else `project_settings(root)`); each option given (not None) wins:
    `corpus` (only `measure` has it) replaces the corpus, and with it the catalogue folder
    (`catalogue_folder`), the store (the mirror itself) and the profile folders (none), unless it
    names the corpus already remembered; then `corpus_dir` the catalogue folder, `store` the store,
    `profiles` the profile folders (the corpus's own `profiles/` still joins them,
    `CorpusSettings.profile_folders`). A line is written only where a remembered setting changed:
    an option equal to it, or given to a workspace that remembers nothing, says nothing.
    """
    settings = remembered if remembered is not None else project_settings(root)
    lines = []

    def changed(flag: str, value: Path | None, what: str, was: str) -> None:
        if remembered is not None:
            lines.append(
                f"{flag} {os.fsdecode(value) if value is not None else ''}: given on the command "
                f"line, it wins over the {what} {workspace} remembers ({was})"
            )

    if corpus is not None and corpus.resolve() != settings.corpus:
        changed("--corpus", corpus, "corpus", _shown([settings.corpus] if settings.corpus else []))
        settings = CorpusSettings(
            corpus=corpus.resolve(),
            catalogue=catalogue_folder(corpus, workspace, corpus_dir).resolve(),
            store=corpus.resolve(),
        )
    if corpus_dir is not None and corpus_dir.resolve() != settings.catalogue:
        changed("--corpus-dir", corpus_dir, "catalogue folder", _shown([settings.catalogue]))
        settings = replace(settings, catalogue=corpus_dir.resolve())
    if store is not None and store.resolve() != settings.store:
        changed("--store", store, "store", _shown([settings.store]))
        settings = replace(settings, store=store.resolve())
    if profiles is not None and (profiles.resolve(),) != settings.profiles:
        changed("--profiles", profiles, "--profiles folders", _shown(settings.profiles))
        settings = replace(settings, profiles=(profiles.resolve(),))
    return settings, tuple(lines)
