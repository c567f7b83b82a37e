"""The numbering truth of the Legalize bundles (`scripts/numbering_truth.py`), read from the
bundles in ../shared/external/numbering/ with no help from the workbench."""

from __future__ import annotations

import importlib
import itertools
import json
import re
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import ROOT

BUNDLES = ROOT.parent / "shared" / "external" / "numbering"


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return importlib.import_module("scripts.numbering_truth")  # a namespace package from ROOT


@pytest.fixture(scope="module")
def versions(
    script: ModuleType, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, list[tuple[str, int, str, str]]]:
    """Every version of every law, per bundle (its jurisdiction's code)."""
    into = tmp_path_factory.mktemp("bundles")
    found: dict[str, list[tuple[str, int, str, str]]] = {}
    for bundle in sorted(BUNDLES.glob("*.bundle")):
        for version in script.bundle_versions(bundle, into):
            found.setdefault(version[0].split("/")[0], []).append(version)
    return found


def _source(code: str) -> dict[str, object]:
    (path,) = BUNDLES.glob(f"legalize-{code}-*.SOURCE.json")
    return json.loads(path.read_bytes())


def test_the_script_imports_nothing_from_the_workbench() -> None:
    source = (ROOT / "scripts" / "numbering_truth.py").read_text(encoding="utf-8")
    assert not re.search(r"^\s*(from|import)\s+workbench\b", source, re.MULTILINE)


@pytest.mark.parametrize("code", ["ar", "cz", "fi", "lu"])
def test_every_commit_changing_a_law_is_one_version(
    versions: dict[str, list[tuple[str, int, str, str]]], code: str
) -> None:
    """The versions per law are the bundle's own count (SOURCE.json `distinct_versions`)."""
    counted: dict[str, int] = {}
    for path, order, _, _ in versions[code]:
        counted[path] = max(counted.get(path, 0), order)
    kept = _source(code)["kept_paths"]
    assert counted == {k["path"]: k["distinct_versions"] for k in kept}  # type: ignore[index, union-attr]


@pytest.mark.parametrize("code", ["ar", "cz", "fi", "lu"])
def test_each_version_is_a_commit_the_source_names_and_the_last_has_its_bytes(
    versions: dict[str, list[tuple[str, int, str, str]]], code: str
) -> None:
    """Every law's versions are, oldest first, the commits SOURCE.json's `commit_map` names as
    changing it, and its last version's text holds the bundle's own `bytes_latest`."""
    source = _source(code)
    commits: list[dict[str, Any]] = source["commit_map"]  # type: ignore[assignment]
    kept: list[dict[str, Any]] = source["kept_paths"]  # type: ignore[assignment]
    expected = [
        (path, order, commit)
        for path in sorted({p for entry in commits for p in entry["paths"]})
        for order, commit in enumerate(
            (e["rewritten"] for e in commits if path in e["paths"]), start=1
        )
    ]
    assert [(path, order, commit) for path, order, commit, _ in versions[code]] == expected
    last = {path: len(text.encode("utf-8")) for path, _, _, text in versions[code]}
    assert last == {k["path"]: k["bytes_latest"] for k in kept}


def _numbers(script: ModuleType, code: str, kind: str, text: str) -> Iterator[int]:
    for _, found, path in script.read_units(code, text):
        if found == kind:
            yield int(re.match(r"\d+", path[-1]).group())  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        pytest.param("fi", "pykala", id="finnish-sections-through-the-act"),
        pytest.param("lu", "article", id="luxembourg-articles-through-the-act"),
    ],
)
def test_articles_count_on_through_the_whole_act(
    script: ModuleType,
    versions: dict[str, list[tuple[str, int, str, str]]],
    code: str,
    kind: str,
) -> None:
    """Both number their articles through the whole act, across chapters: read in text order,
    every version's article numbers never fall back, and every law has some."""
    for path, order, _, text in versions[code]:
        numbers = list(_numbers(script, code, kind, text))
        assert numbers, (path, order)
        assert all(b >= a for a, b in itertools.pairwise(numbers)), (path, order)


def test_a_section_under_a_chapter_has_the_chapters_key_in_its_path(
    script: ModuleType, versions: dict[str, list[tuple[str, int, str, str]]]
) -> None:
    """A Finnish law with chapters: its sections' paths open with the chapter above them, whose
    own line comes before the section's in the text."""
    path, _, _, text = next(v for v in versions["fi"] if v[0] == "fi/2017-252.md")
    units = script.read_units("fi", text)
    chapters = {tuple(p): start for start, kind, p in units if kind == "luku"}
    sections = [(start, p) for start, kind, p in units if kind == "pykala"]
    assert chapters and sections
    for start, section_path in sections:
        assert len(section_path) == 2, (path, section_path)
        assert chapters[tuple(section_path[:1])] < start
        assert text[start:].split("\n", 1)[0].lstrip("# ").startswith(f"{section_path[1]} ")
