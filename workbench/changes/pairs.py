"""Which held versions a diff compares, and through which numbering profile.

The review queue and the orphaned-verdict report choose their pairs and profiles here
(`held_diffs`, `family_readers`). The pairs are consecutive held versions of one family
(`models.consecutive_pairs`); the profile is the one `profiles.choose_profile` picks from the
versions compared, as `measure` picks it.

The guarantee: the same workspace, family and profiles give the same pairs, read through
the same profile, in the workspace's version order, on every surface.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from workbench.changes.diff import diff_versions
from workbench.models import Change, Version, consecutive_pairs
from workbench.text.profiles import Profile, choose_profile
from workbench.workspace import Workspace


def family_readers(
    versions: Sequence[Version], profiles: Sequence[Profile] | None
) -> dict[tuple[str, str], Profile]:
    """The profile that reads each (jurisdiction, family) of `versions` (`choose_profile` over
    the family's versions given, in order, as `measure` chooses)."""
    groups: dict[tuple[str, str], list[Version]] = {}
    for version in versions:
        groups.setdefault((version.jurisdiction, version.family), []).append(version)
    return {key: choose_profile(group, profiles).profile for key, group in groups.items()}


def held_diffs(
    workspace: Workspace,
    family: str | None = None,
    *,
    jurisdiction: str | None = None,
    profiles: Sequence[Profile] | None = None,
) -> Iterator[tuple[Version, Version, tuple[Change, ...]]]:
    """Each consecutive pair of held versions (of `family` and `jurisdiction` when named) and
    its whole diff through its family's profile (`family_readers`), in the workspace's order
    (jurisdiction, family, version order). FamilyNotFound for a family not held."""
    held = [
        v
        for v in workspace.versions(family)
        if jurisdiction is None or v.jurisdiction == jurisdiction
    ]
    readers = family_readers(held, profiles)
    for before, after in consecutive_pairs(held):
        yield (
            before,
            after,
            diff_versions(before, after, readers[(before.jurisdiction, before.family)]),
        )
