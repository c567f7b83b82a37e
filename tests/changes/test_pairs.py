"""Which version pairs a diff compares (`pairs.version_pairs`), which kinds it shows
(`pairs.kinds_shown`) and what `workbench diff` shows of them (`pairs.diff_sections`), on real
D.C. Code releases."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from workbench.changes import pairs, redline
from workbench.changes.diff import diff_versions
from workbench.errors import VersionNotFound
from workbench.models import CHANGE_KINDS, Version, consecutive_pairs
from workbench.workspace import Workspace

FAMILY = "dc-code-34-131"  # six codified releases

Bounds = Callable[[tuple[Version, ...]], tuple[str | None, str | None]]
Expected = Callable[[tuple[Version, ...]], tuple[tuple[Version, Version], ...]]


@pytest.mark.parametrize(
    ("bounds", "expected"),
    [
        pytest.param(
            lambda v: (None, None), lambda v: consecutive_pairs(v), id="every-consecutive-pair"
        ),
        pytest.param(
            lambda v: (v[1].version_id, None), lambda v: ((v[1], v[-1]),), id="from-to-the-last"
        ),
        pytest.param(
            lambda v: (None, v[2].version_id), lambda v: ((v[0], v[2]),), id="the-first-to"
        ),
        pytest.param(
            lambda v: (v[-1].version_id, v[0].version_id),
            lambda v: ((v[-1], v[0]),),
            id="named-pair-kept-in-its-order",
        ),
    ],
)
def test_version_pairs_are_the_consecutive_ones_or_the_one_named(
    workspace: Workspace, bounds: Bounds, expected: Expected
) -> None:
    versions = workspace.versions(FAMILY)
    assert len(versions) >= 3
    start, end = bounds(versions)
    assert pairs.version_pairs(workspace, FAMILY, start=start, end=end) == expected(versions)

    # the pairs a kept diff is shown from are the same versions' texts
    texts = pairs.text_pairs(workspace, FAMILY, start=start, end=end)
    assert [(b.version_id, a.version_id, b.text, a.text) for b, a in texts] == [
        (b.version_id, a.version_id, b.text, a.text) for b, a in expected(versions)
    ]


@pytest.mark.parametrize(
    "chosen",
    [pytest.param(pairs.version_pairs, id="versions"), pytest.param(pairs.text_pairs, id="texts")],
)
def test_version_pairs_refuse_a_version_of_another_family(
    workspace: Workspace, chosen: Callable[..., object], held_versions: tuple[Version, ...]
) -> None:
    other = next(v for v in held_versions if v.family != FAMILY).version_id
    ids = ", ".join(v.version_id for v in workspace.versions(FAMILY))
    with pytest.raises(VersionNotFound) as info:
        chosen(workspace, FAMILY, end=other)
    assert str(info.value) == f"{other}: not a version of family {FAMILY}; its versions are {ids}"


@pytest.mark.parametrize(
    ("kinds", "listing", "shown"),
    [
        pytest.param(None, True, redline.SHOWN_BY_DEFAULT, id="listing-leaves-unchanged-out"),
        pytest.param(None, False, None, id="files-hold-every-kind"),
        pytest.param(["unchanged"], True, ["unchanged"], id="named-kinds-in-the-listing"),
        pytest.param(["moved"], False, ["moved"], id="named-kinds-in-a-file"),
    ],
)
def test_kinds_shown(kinds: list[str] | None, listing: bool, shown: object) -> None:
    assert pairs.kinds_shown(kinds, listing=listing) == shown


def test_diff_sections_hold_each_whole_diff_and_show_the_selection(workspace: Workspace) -> None:
    versions = workspace.versions(FAMILY)
    profile = pairs.pairs_profile(consecutive_pairs(versions), None)
    sections = pairs.diff_sections(
        pairs.version_pairs(workspace, FAMILY), kinds=redline.SHOWN_BY_DEFAULT
    )
    assert [(s.before, s.after) for s in sections] == list(consecutive_pairs(versions))
    for part in sections:
        whole = diff_versions(part.before, part.after, profile)
        assert part.changes == whole
        assert [r.change for r in part.shown] == [c for c in whole if c.kind != "unchanged"]
    assert set(CHANGE_KINDS) - redline.SHOWN_BY_DEFAULT == {"unchanged"}


def test_a_family_with_one_version_has_no_pairs_and_no_sections(
    workspace: Workspace, held_versions: tuple[Version, ...]
) -> None:
    held: dict[str, list[Version]] = {}
    for version in held_versions:
        held.setdefault(version.family, []).append(version)
    lone = next(family for family, versions in sorted(held.items()) if len(versions) == 1)
    assert pairs.version_pairs(workspace, lone) == ()
    assert pairs.diff_sections(()) == ()
