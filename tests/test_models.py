"""The records' shared helpers: consecutive version pairs, and a refusal's JSON shape."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.text.test_structure import _text_version
from workbench.models import Refusal, Version, consecutive_pairs


def _version(path: str) -> Version:
    """A version whose id is its catalogue path `jurisdiction/family/file`."""
    jurisdiction, family, _ = path.split("/")
    return replace(_text_version(path, path), jurisdiction=jurisdiction, family=family)


@pytest.mark.parametrize(
    ("paths", "pairs"),
    [
        pytest.param(["a/f/1", "a/f/2", "a/f/3"], [(0, 1), (1, 2)], id="one-family"),
        pytest.param(["a/f/1", "a/g/1", "a/g/2"], [(1, 2)], id="family-boundary"),
        pytest.param(["a/f/1", "b/f/1"], [], id="same-family-name-other-jurisdiction"),
        pytest.param(["a/f/1"], [], id="one-version"),
        pytest.param([], [], id="nothing"),
    ],
)
def test_consecutive_pairs(paths: list[str], pairs: list[tuple[int, int]]) -> None:
    versions = [_version(p) for p in paths]
    assert consecutive_pairs(versions) == tuple((versions[a], versions[b]) for a, b in pairs)
    assert consecutive_pairs(iter(versions)) == consecutive_pairs(versions)  # any iterable


def test_a_refusal_as_json_names_its_path_reason_and_detail() -> None:
    refusal = Refusal(path="a/f/x.txt", reason="missing", detail="not held", provenance={"k": 1})
    assert refusal.as_json() == {"path": "a/f/x.txt", "reason": "missing", "detail": "not held"}
