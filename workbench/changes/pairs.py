"""Which held versions a diff compares, and through which numbering profile (C7, C15): every surface
gets the same pairs (consecutive held versions, or the one a reader names), read through the profile
`measure` would choose, in the workspace's version order."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from workbench.changes.diff import diff_versions
from workbench.changes.redline import SHOWN_BY_DEFAULT, Section, section
from workbench.errors import VersionNotFound
from workbench.models import Change, Passage, Version, consecutive_pairs
from workbench.text.choice import choose_profile
from workbench.text.profiles import Profile
from workbench.workspace import Workspace
from workbench.workspace.passages import held_passages

if TYPE_CHECKING:
    from workbench.text.table_cells import Table

VersionPair = tuple[Version, Version]


def version_pairs(
    workspace: Workspace, family: str, *, start: str | None = None, end: str | None = None
) -> tuple[VersionPair, ...]:
    """The version pairs a diff of `family` compares.

    With neither `start` nor `end`: every consecutive pair of the family's held versions, in
    version order (empty when one version is held). With either: the one pair from `start`
    (default: the family's first version) to `end` (default: its last), in that order, whichever
    way the two lie. VersionNotFound when a named version is not a held version of the family
    (the message lists the family's versions); FamilyNotFound when the family is not held.
    """
    versions = workspace.versions(family)
    if start is None and end is None:
        return consecutive_pairs(versions)
    ids = [v.version_id for v in versions]
    for name in (start, end):
        if name is not None and name not in ids:
            raise VersionNotFound(
                f"{name}: not a version of family {family}; its versions are {', '.join(ids)}"
            )
    before = workspace.version(start) if start else versions[0]
    after = workspace.version(end) if end else versions[-1]
    return ((before, after),)


def pairs_profile(pairs: Sequence[VersionPair], profiles: Sequence[Profile] | None) -> Profile:
    """The profile that reads the versions `pairs` compare (`choose_profile` over the first
    pair's before version and every after version, in order); `pairs` must not be empty."""
    return choose_profile([pairs[0][0], *(after for _, after in pairs)], profiles).profile


def kinds_shown(kinds: Iterable[str] | None, *, listing: bool) -> Iterable[str] | None:
    """The change kinds a diff shows: the kinds named, else every kind (None) in a file (JSON, a
    redline page, a table) and every kind but `unchanged` (`SHOWN_BY_DEFAULT`) in the text
    listing, which leaves unchanged passages out unless they are asked for."""
    if kinds:
        return kinds
    return SHOWN_BY_DEFAULT if listing else None


def diff_sections(
    pairs: Sequence[VersionPair],
    *,
    profiles: Sequence[Profile] | None = None,
    kinds: Iterable[str] | None = None,
    doubtful: bool = False,
    workspace: Workspace | None = None,
) -> tuple[Section, ...]:
    """What `workbench diff` shows of the pairs `version_pairs` chose: one `redline.Section` per
    pair, in order, each the whole diff of its pair (read through `pairs_profile` of all the
    pairs, from `profiles`, default the shipped ones) with the changes `redline.select` keeps
    (`kinds`: None for every kind; `doubtful`: only doubtful pairings). With the `workspace`
    holding the versions, their passages are the ones it kept (`workspace.passages`), segmented
    only where none are kept, and their tables (`workspace.parts.held_parts`) pair row by row.
    No pairs, no sections."""
    if not pairs:
        return ()
    profile = pairs_profile(pairs, profiles)

    def passages(before: Version, after: Version) -> tuple[Sequence[Passage], Sequence[Passage]]:
        assert workspace is not None
        return held_passages(workspace, before, profile), held_passages(workspace, after, profile)

    def tables(version: Version) -> Sequence[Table] | None:
        from workbench.workspace.parts import held_parts  # kept, or read and kept (C13)

        assert workspace is not None
        return held_parts(workspace, version)[1]

    return tuple(
        section(
            before,
            after,
            diff_versions(
                before,
                after,
                profile,
                passages=None if workspace is None else passages(before, after),
                tables=(None, None) if workspace is None else (tables(before), tables(after)),
            ),
            kinds=kinds,
            doubtful=doubtful,
        )
        for before, after in pairs
    )


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
