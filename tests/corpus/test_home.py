"""Where a corpus lives: the project's mirror and catalogue, a researcher's corpus in a folder of
its own, and the settings a workspace remembers (workbench/corpus/home.py, workbench/workspace/)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import CORPUS_DIR, ROOT, link_families, tree_digest
from workbench.cli import main
from workbench.corpus import (
    CorpusSettings,
    admit,
    corpus_home,
    is_project_mirror,
    project_settings,
    read_catalogue,
    settle,
)
from workbench.corpus.catalogue import CATALOGUE_NAME, CHECKSUM_NAME, REFUSALS_NAME
from workbench.defaults import CORPORA_DIR, DEFAULT_CORPUS_DIR, DEFAULT_MIRROR
from workbench.errors import AppendOnlyViolation, WorkspaceError
from workbench.models import CatalogueRow
from workbench.workspace import Workspace, open_workspace, workspace_settings

FAMILY = "us-dc/dc-code-34-306"
TRACKED = (CATALOGUE_NAME, CHECKSUM_NAME, REFUSALS_NAME)


def test_the_makefile_and_the_code_name_one_mirror() -> None:
    (named,) = re.findall(r"(?m)^MIRROR \?= (\S+)$", (ROOT / "Makefile").read_text())
    assert Path(named) == DEFAULT_MIRROR


@pytest.mark.parametrize(
    ("spelled", "project"),
    [
        pytest.param("../shared/corpus", True, id="as-the-makefile-spells-it"),
        pytest.param("../shared/corpus/", True, id="trailing-slash"),
        pytest.param(str(ROOT.parent / "shared" / "corpus"), True, id="absolute"),
        pytest.param("corpus/../../shared/corpus", True, id="round-about"),
        pytest.param("corpus/real", False, id="the-project-store-is-not-its-mirror"),
        pytest.param("corpus", False, id="the-catalogue-folder"),
    ],
)
def test_the_project_mirror_is_known_however_it_is_spelled(
    spelled: str, project: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    assert is_project_mirror(Path(spelled)) is project
    assert (corpus_home(Path(spelled)) == DEFAULT_CORPUS_DIR) is project


def test_any_other_folder_has_a_home_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, other = tmp_path / "a" / "mine", tmp_path / "b" / "mine"
    one.mkdir(parents=True)
    other.mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    home = corpus_home(one)
    digest = hashlib.sha256(os.fsencode(one.resolve())).hexdigest()[:8]
    assert home == CORPORA_DIR / f"mine-{digest}"
    assert corpus_home(Path("a/mine")) == corpus_home(Path("b/../a/mine/")) == home
    assert corpus_home(other) != home and corpus_home(other).name.startswith("mine-")


# ---------------------------------------------------------------------------------------------
# `corpus admit`: the tracked catalogue only for the project's mirror or when named


@pytest.fixture
def project(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A project folder holding a copy of the tracked catalogue, as the working folder."""
    folder = tmp_path / "project"
    (folder / "corpus").mkdir(parents=True)
    for name in TRACKED:
        shutil.copyfile(CORPUS_DIR / name, folder / "corpus" / name)
    monkeypatch.chdir(folder)
    return folder


def _tracked(project: Path) -> dict[str, bytes]:
    return {name: (project / "corpus" / name).read_bytes() for name in TRACKED}


def test_admitting_another_folder_writes_its_own_catalogue_and_leaves_the_project_s(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = link_families(tmp_path / "mine", [FAMILY])
    before, admitted = _tracked(project), admit(mine).rows
    assert main(["corpus", "admit", str(mine)]) == 0
    home = corpus_home(mine)
    out = capsys.readouterr().out
    assert out.startswith(
        f"admitted {len(admitted)} documents from {mine} into {home / CATALOGUE_NAME}; refused 0\n"
    )
    assert f"{home} is {mine}'s own folder" in out
    assert _tracked(project) == before
    assert read_catalogue(project / home) == admitted
    assert (project / home / REFUSALS_NAME).read_bytes() == b""


def test_naming_the_project_catalogue_writes_it(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = link_families(tmp_path / "mine", [FAMILY])
    before, admitted = read_catalogue(project / "corpus"), admit(mine).rows
    assert main(["corpus", "admit", str(mine), "--corpus-dir", "corpus"]) == 0
    assert capsys.readouterr().out.startswith(
        f"admitted {len(admitted)} documents from {mine} into corpus/{CATALOGUE_NAME} (kept "
        f"{len(before) - len(admitted)} rows already catalogued); refused 0\n"
    )
    assert read_catalogue(project / "corpus") == before  # the same documents, already there
    assert (project / "corpus" / REFUSALS_NAME).read_bytes() == b""  # this admission's refusals
    assert not (project / CORPORA_DIR).exists()


@pytest.mark.parametrize(
    "named",
    [pytest.param([], id="own-folder"), pytest.param(["--corpus-dir", "corpus"], id="project")],
)
def test_a_failed_admission_writes_nothing_anywhere(
    project: Path, tmp_path: Path, named: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk"
    (junk / "us-xx" / "family").mkdir(parents=True)
    (junk / "us-xx" / "family" / "order.pdf").write_bytes(b"%PDF-1.7\n")
    (junk / "stray.txt").write_text("not in mirror layout\n")
    before = tree_digest(tmp_path)
    assert main(["corpus", "admit", str(junk), *named]) == 1
    out = capsys.readouterr().out
    refused = admit(junk).refusals
    assert {r.reason for r in refused} == {"no_provenance", "layout"}
    assert out.startswith(
        f"admitted 0 documents from {junk}; refused {len(refused)}; nothing written\n"
    )
    assert out.endswith(f"no document admitted from {junk}\n")
    assert tree_digest(tmp_path) == before


# ---------------------------------------------------------------------------------------------
# What a workspace remembers


def _settings(
    root: Path, corpus: str | None = "mine", profiles: tuple[str, ...] = ()
) -> CorpusSettings:
    return CorpusSettings(
        corpus=None if corpus is None else root / corpus,
        catalogue=root / "home",
        store=root / (corpus or "store"),
        profiles=tuple(root / p for p in profiles),
    )


def test_a_workspace_remembers_each_change_of_settings_in_a_new_row(tmp_path: Path) -> None:
    first, second = _settings(tmp_path), _settings(tmp_path, profiles=("profiles",))
    with Workspace(tmp_path / "w.sqlite") as held:
        assert held.remembered_settings() is None and held.settings == project_settings()
        assert held.remember(first, by="measure")
        assert not held.remember(first, by="ingest")  # the same settings: no row
        assert held.remember(second, by="measure")
        keys = [row[0] for row in held.execute("SELECT key FROM workspace_meta ORDER BY key")]
        assert keys == ["schema_version", "settings/1", "settings/2"]
        with pytest.raises(AppendOnlyViolation):
            held.execute("UPDATE workspace_meta SET value = '{}' WHERE key = 'settings/1'")
    with Workspace(tmp_path / "w.sqlite") as held:
        assert held.remembered_settings() == second == held.settings


def test_reading_a_workspace_that_does_not_exist_is_refused_and_makes_nothing(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "typo" / "workspace.sqlite"
    with pytest.raises(WorkspaceError) as refused:
        open_workspace(missing)
    assert str(refused.value) == (
        f"{missing}: no such workspace; 'workbench measure' or 'workbench ingest' makes one"
    )
    assert workspace_settings(missing) == (project_settings(), ())
    assert not missing.parent.exists()


def test_an_option_given_wins_over_a_remembered_setting_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "w.sqlite"
    remembered = _settings(tmp_path, profiles=("profiles",))
    with Workspace(path) as held:
        held.remember(remembered, by="measure")
    with open_workspace(path) as held:
        assert (held.settings, held.overrides) == (remembered, ())
    same = open_workspace(path, corpus_dir=tmp_path / "home", profiles=tmp_path / "profiles")
    with same as held:
        assert (held.settings, held.overrides) == (remembered, ())
    with open_workspace(path, store=tmp_path / "elsewhere", profiles=tmp_path / "p2") as held:
        assert held.settings == CorpusSettings(
            corpus=tmp_path / "mine",
            catalogue=tmp_path / "home",
            store=tmp_path / "elsewhere",
            profiles=(tmp_path / "p2",),
        )
        assert held.overrides == (
            f"--store {tmp_path / 'elsewhere'}: given on the command line, it wins over the "
            f"store {path} remembers ({tmp_path / 'mine'})",
            f"--profiles {tmp_path / 'p2'}: given on the command line, it wins over the "
            f"--profiles folders {path} remembers ({tmp_path / 'profiles'})",
        )


def test_options_given_to_a_workspace_that_remembers_nothing_say_nothing(tmp_path: Path) -> None:
    settings, lines = settle(None, workspace=tmp_path / "w.sqlite", corpus_dir=tmp_path / "c")
    assert settings.catalogue == tmp_path / "c" and lines == ()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        pytest.param(
            [], "expected an object with corpus, catalogue, store and profiles", id="list"
        ),
        pytest.param(
            {"corpus": None, "catalogue": "", "store": "s", "profiles": []},
            "catalogue: expected a path, got ''",
            id="empty-path",
        ),
        pytest.param(
            {"corpus": None, "catalogue": "c", "store": "s", "profiles": "p"},
            "profiles: expected a list of paths, got 'p'",
            id="profiles-not-a-list",
        ),
        pytest.param(
            {"corpus": 3, "catalogue": "c", "store": "s", "profiles": []},
            "corpus: expected a path, got 3",
            id="corpus-not-a-path",
        ),
    ],
)
def test_settings_of_another_shape_are_refused_naming_the_field(
    value: object, message: str
) -> None:
    with pytest.raises(WorkspaceError) as refused:
        CorpusSettings.from_json(value, source="w.sqlite: settings/1")
    assert str(refused.value) == f"w.sqlite: settings/1: {message}"


def test_a_reader_that_holds_versions_itself_may_make_the_workspace(tmp_path: Path) -> None:
    """A notebook makes its workspace as `ingest` does; one that remembers nothing is read with
    the project's corpus under the root it names, not under the working folder."""
    path = tmp_path / "made" / "w.sqlite"
    with open_workspace(path, create=True, root=tmp_path) as held:
        assert held.settings == project_settings(tmp_path)
        assert held.settings.catalogue == (tmp_path / DEFAULT_CORPUS_DIR).resolve()
    assert path.is_file()
