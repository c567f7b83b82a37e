"""Which held versions a diff compares, and through which numbering profile (C7, C15): every surface
gets the same pairs (consecutive held versions, or the one a reader names), read through the profile
`measure` would choose, in the workspace's version order."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, cast

from workbench.changes import kept
from workbench.changes.kept import Counted
from workbench.changes.redline import (
    SHOWN_BY_DEFAULT,
    Section,
    marks_from_json,
    marks_json,
    section,
)
from workbench.derived import code_digest
from workbench.errors import VersionNotFound
from workbench.models import Change, HeldVersion, Version, VersionText, consecutive_pairs

if TYPE_CHECKING:
    from workbench.changes.footnoted import FootnoteChange
    from workbench.text.profiles import Profile
    from workbench.workspace import Workspace

if TYPE_CHECKING:
    from workbench.text.table_cells import Table

VersionPair = tuple[Version, Version]
TextPair = tuple[VersionText, VersionText]


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
    return _chosen(workspace.versions(family), family, start, end)


def text_pairs(
    workspace: Workspace, family: str, *, start: str | None = None, end: str | None = None
) -> tuple[TextPair, ...]:
    """The pairs `version_pairs` chooses, of `VersionText`s (`Workspace.version_texts`: no
    structure decoded): what `kept_sections` shows a kept diff from."""
    return _chosen(workspace.version_texts(family), family, start, end)


def _chosen(
    versions: Sequence[HeldVersion], family: str, start: str | None, end: str | None
) -> tuple[tuple[HeldVersion, HeldVersion], ...]:
    if start is None and end is None:
        return consecutive_pairs(versions)
    held = {v.version_id: v for v in versions}
    for name in (start, end):
        if name is not None and name not in held:
            raise VersionNotFound(
                f"{name}: not a version of family {family}; its versions are {', '.join(held)}"
            )
    return ((held[start] if start else versions[0], held[end] if end else versions[-1]),)


def pairs_profile(
    pairs: Sequence[VersionPair],
    profiles: Sequence[Profile] | None,
    workspace: Workspace | None = None,
) -> Profile:
    """The profile that reads the versions `pairs` compare (`choose_profile` over the first
    pair's before version and every after version, in order, with the lines the PDFs among them
    set as headings where the `workspace` holding them is given); `pairs` must not be empty."""
    from workbench.text.choice import choose_profile
    from workbench.workspace.parts import family_headings

    versions = [pairs[0][0], *(after for _, after in pairs)]
    headings = None if workspace is None else family_headings(workspace, versions)
    return choose_profile(versions, profiles, headings=headings).profile


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
    pair, in order, each the whole diff of its pair (`pair_changes`) with the changes
    `redline.select` keeps (`kinds`: None for every kind; `doubtful`: only doubtful pairings).
    No pairs, no sections."""
    if not pairs:
        return ()
    return tuple(
        section(before, after, changes, kinds=kinds, doubtful=doubtful)
        for (before, after), changes in zip(
            pairs, pair_changes(pairs, profiles=profiles, workspace=workspace), strict=True
        )
    )


def pair_changes(
    pairs: Sequence[VersionPair],
    *,
    profiles: Sequence[Profile] | None = None,
    workspace: Workspace | None = None,
) -> tuple[tuple[Change, ...], ...]:
    """The whole diff of each pair of `pairs` (not empty), in order, read through `pairs_profile`
    of all the pairs.

    With a `workspace` holding the versions and no `profiles`, they are read through the
    workspace's registry (`Workspace.profile_registry`), and each pair's diff is the one the
    workspace kept under the key computed now (`kept.pair_keys`); a pair with none is diffed
    from its versions' kept passages (`workspace.passages`) and tables
    (`workspace.parts.held_parts`), through the profile chosen over all the pairs, and its diff
    kept when its two versions' parts are settled (`_settled`; a workspace nobody may write
    keeps none). This is the one diff of a pair that `measure` keeps, the review queue reads
    and `workbench diff` prints. With `profiles` (default: the shipped ones) and no workspace,
    every pair is segmented and diffed; with both, diffed from kept passages, not kept."""
    found = some_pair_changes(pairs, range(len(pairs)), profiles=profiles, workspace=workspace)
    return tuple(found.changes[k] for k in range(len(pairs)))


@dataclass(frozen=True, slots=True, kw_only=True)
class SomeChanges:
    """What `some_pair_changes` gave: each wanted pair's diff by its index in the pairs, and
    how many of them were diffed from the versions (the others were kept)."""

    changes: Mapping[int, tuple[Change, ...]]
    diffed: int


def some_pair_changes(
    pairs: Sequence[VersionPair],
    wanted: Iterable[int],
    *,
    profiles: Sequence[Profile] | None = None,
    workspace: Workspace | None = None,
    profile: Profile | None = None,
    unchanged: bool = True,
) -> SomeChanges:
    """`pair_changes` of the pairs at the indices `wanted` alone (the others are neither read
    nor diffed), their profile still chosen over all of `pairs` (or `profile`, when the caller
    chose it so already), so each is the diff `pair_changes` gives and is kept under the
    same key. Without `unchanged`, each diff lacks its unchanged changes (a kept one is read
    without them, `kept.read_changed`)."""
    wanted = list(wanted)
    if not wanted:
        return SomeChanges(changes={}, diffed=0)
    keys: tuple[str, ...] | None = None
    changes: dict[int, tuple[Change, ...]] = {}
    if workspace is not None and profiles is None:
        keys = kept.pair_keys(workspace, pairs, code_digest())
        read = kept.read_kept if unchanged else kept.read_changed
        stored = read(workspace, [keys[k] for k in wanted]) if keys else {}
        changes = {k: stored[keys[k]] for k in wanted if keys and keys[k] in stored}
    missing = [k for k in wanted if k not in changes]
    if not missing:
        return SomeChanges(changes=changes, diffed=0)
    from workbench.changes.diff import diff_versions  # pairing loads only where it is needed
    from workbench.workspace.passages import held_passages

    if workspace is not None and profiles is None:
        profiles = workspace.profile_registry()
    if profile is None:
        profile = pairs_profile(pairs, profiles, workspace)
    for k in missing:
        before, after = pairs[k]
        changes[k] = diff_versions(
            before,
            after,
            profile,
            passages=None
            if workspace is None
            else (
                held_passages(workspace, before, profile),
                held_passages(workspace, after, profile),
            ),
            tables=(None, None)
            if workspace is None
            else (_tables(workspace, before), _tables(workspace, after)),
        )
    if keys and workspace is not None and workspace.read_only is None:
        # A diff is kept only over settled tables: one paired without a table the store could
        # not give yet would be read back under the key of one that pairs its rows.
        rows = [
            (keys[k], pairs[k][0].version_id, pairs[k][1].version_id, kept.changes_json(changes[k]))
            for k in missing
            if _settled(workspace, pairs[k][0]) and _settled(workspace, pairs[k][1])
        ]
        kept.keep(workspace, (pairs[0][0].jurisdiction, pairs[0][0].family), rows, whole=False)
    if not unchanged:
        for k in missing:
            changes[k] = tuple(c for c in changes[k] if c.kind != "unchanged")
    return SomeChanges(changes=changes, diffed=len(missing))


def kept_sections(
    pairs: Sequence[TextPair],
    workspace: Workspace,
    *,
    kinds: Iterable[str] | None = None,
    doubtful: bool = False,
    listing: bool = False,
) -> tuple[Section, ...] | None:
    """What `diff_sections` shows of `pairs` (`text_pairs`' pairs) from the diffs the
    `workspace` kept, without reading any version's structure; None when one pair's diff is
    not kept (`diff_sections` over `version_pairs` then chooses, pairs and keeps). No pairs,
    no sections.

    With `listing` (a text listing of `kinds`, which counts the changes it does not show) and
    every pair's footnote changes kept too, each section holds only the changes
    `kept.read_listed` builds, the rest counted (`Section.left_out`); else the whole diff.
    The changes shown take their word pieces from the marks kept with the diff
    (`kept.read_marks`); pieces found here are added to them, so no word matcher runs again
    for a change once shown (a workspace nobody may write keeps none)."""
    if not pairs:
        return ()
    keys = kept.pair_keys(workspace, pairs, code_digest())
    if not keys:
        return None
    found: Mapping[str, tuple[tuple[Change, ...], Counted]]
    if listing and kinds is not None and len(kept.read_footnotes(workspace, keys)) == len(keys):
        found = kept.read_listed(workspace, keys, set(kinds))
    else:
        found = {key: (changes, ()) for key, changes in kept.read_kept(workspace, keys).items()}
    if len(found) < len(keys):
        return None
    held = kept.read_marks(workspace, keys)
    marks = {key: marks_from_json(held[key]) if key in held else {} for key in keys}
    sizes = {key: len(marks[key]) for key in keys}
    sections = tuple(
        section(
            before,
            after,
            found[key][0],
            kinds=kinds,
            doubtful=doubtful,
            left_out=found[key][1],
            marks=marks[key],
        )
        for (before, after), key in zip(pairs, keys, strict=True)
    )
    grown = {key: marks_json(marks[key]) for key in keys if len(marks[key]) > sizes[key]}
    if grown and workspace.read_only is None:
        kept.keep_marks(workspace, grown)
    return sections


def _tables(workspace: Workspace, version: Version) -> Sequence[Table] | None:
    """The `version`'s tables as the `workspace` keeps them (read and kept when not yet, C13)."""
    from workbench.workspace.parts import held_tables

    return held_tables(workspace, version)


def section_footnotes(
    sections: Sequence[Section], workspace: Workspace
) -> list[tuple[FootnoteChange, ...]]:
    """Each section's unchanged clauses whose footnote changed (C20: `footnote_changes` over the
    two versions' footnote readings as the workspace keeps them, `workspace.parts.held_footnotes`),
    in order, for `sections` as `diff_sections` (no `profiles`) or `kept_sections` made them
    from the `workspace`.
    Read from the pair's kept diff when it holds them; else derived, and added to the
    kept diff when both versions' readings are settled (`_settled`: kept, or no reader reads
    the media type), since a reading the store could not give yet may be read later."""
    from workbench.changes.footnoted import FootnoteChange

    # CAUTION: the footnote changes are derived from the whole diff; a listing's section holding
    # part of it (`Section.left_out`) is made only when they are kept (`kept_sections`).
    # CAUTION: a section `diff_sections` or `kept_sections` made holds the held `Version`s or
    # `VersionText`s it was given.
    shown = tuple(cast(TextPair | VersionPair, (part.before, part.after)) for part in sections)
    keys = kept.pair_keys(workspace, shown, code_digest()) if shown else None
    found = kept.read_footnotes(workspace, keys) if keys else {}
    if keys and all(key in found for key in keys):
        return [tuple(map(FootnoteChange.from_json, found[key])) for key in keys]
    from workbench.changes.footnoted import footnote_changes
    from workbench.workspace.parts import held_footnotes

    # The parts are read from the whole version (its artefact, its structure).
    chosen = tuple((_whole(workspace, before), _whole(workspace, after)) for before, after in shown)
    assert not any(part.left_out for part in sections)
    noted = [
        footnote_changes(
            part.changes,
            (part.before.text, part.after.text),
            (held_footnotes(workspace, before), held_footnotes(workspace, after)),
        )
        for part, (before, after) in zip(sections, chosen, strict=True)
    ]
    if keys and workspace.read_only is None:
        settled = {
            key: [f.as_json() for f in notes]
            for key, notes, (before, after) in zip(keys, noted, chosen, strict=True)
            if _settled(workspace, before) and _settled(workspace, after)
        }
        kept.keep_footnotes(workspace, settled)
    return noted


def _whole(workspace: Workspace, version: Version | VersionText) -> Version:
    """The held `Version` of a `VersionText` (a `Version` as it is)."""
    return version if isinstance(version, Version) else workspace.version(version.version_id)


def _settled(workspace: Workspace, version: Version) -> bool:
    """Whether `version`'s footnote reading and tables can no longer change under its key: its
    parts are kept (`workspace.parts`), or no reader reads its media type."""
    from workbench.text.parts import holds_parts
    from workbench.workspace.parts import TABLE, parts_key

    if not holds_parts(version):
        return True
    return TABLE in workspace.tables() and bool(
        workspace.read(f"SELECT 1 FROM {TABLE} WHERE key = ?", (parts_key(version),))
    )


def family_readers(
    versions: Sequence[Version],
    profiles: Sequence[Profile] | None,
    workspace: Workspace | None = None,
) -> dict[tuple[str, str], Profile]:
    """The profile that reads each (jurisdiction, family) of `versions` (`choose_profile` over
    the family's versions given, in order, as `measure` chooses: with the lines the PDFs among
    them set as headings where the `workspace` holding them is given)."""
    from workbench.text.choice import choose_profile
    from workbench.workspace.parts import family_headings

    return {
        key: choose_profile(
            group,
            profiles,
            headings=None if workspace is None else family_headings(workspace, group),
        ).profile
        for key, group in _by_family(versions)
    }


def _by_family(versions: Sequence[Version]) -> Iterable[tuple[tuple[str, str], list[Version]]]:
    """`versions` grouped by (jurisdiction, family), in the order each is first met."""
    groups: dict[tuple[str, str], list[Version]] = {}
    for version in versions:
        groups.setdefault((version.jurisdiction, version.family), []).append(version)
    return groups.items()


def held_diffs(
    workspace: Workspace,
    family: str | None = None,
    *,
    jurisdiction: str | None = None,
    profiles: Sequence[Profile] | None = None,
    unchanged: bool = True,
) -> Iterator[tuple[Version, Version, tuple[Change, ...]]]:
    """Each consecutive pair of held versions (of `family` and `jurisdiction` when named) and
    its whole diff (`pair_changes` of its family's consecutive pairs: read through the profile
    chosen over the family's versions, tables paired row by row), in the workspace's order
    (jurisdiction, family, version order), through `profiles` as `family_changes` reads them:
    through the workspace's registry, each diff is the one the workspace keeps (`measure`'s, or
    the first diff's), so every surface reads one diff per pair; without `unchanged`, each
    diff lacks its unchanged changes (for a caller that reads only pairings). FamilyNotFound
    for a family not held."""
    held = [
        v
        for v in workspace.versions(family)
        if jurisdiction is None or v.jurisdiction == jurisdiction
    ]
    for _, versions in _by_family(held):
        chosen = consecutive_pairs(versions)
        if chosen:
            diffs = family_changes(workspace, chosen, profiles, unchanged=unchanged)
            for (before, after), changes in zip(chosen, diffs, strict=True):
                yield before, after, changes


def families_holding(
    workspace: Workspace,
    text: str,
    family: str | None = None,
    profiles: Sequence[Profile] | None = None,
) -> list[tuple[str, str]] | None:
    """The held families (of `family` when named), as (jurisdiction, family) in the order
    `held_diffs` walks them, whose consecutive pairs' kept diffs hold `text` in their stored rows
    (`kept.keys_holding`); None when `held_diffs` through `profiles` would read a diff that is
    not kept under the key computed now (or none through the registry, or `family` is not
    held): the caller then walks `held_diffs`. A family left out holds `text` in no diff."""
    from workbench.text.profiles import registry, registry_digest

    given = registry() if profiles is None else tuple(profiles)
    if registry_digest(given) != registry_digest(workspace.profile_registry()):
        return None
    lines = kept.version_lines(workspace)
    held = [key for key in lines if family is None or key[1] == family]
    if not held:
        return None
    holding = []
    for key in held:
        ids = list(lines[key])
        pairs = list(pairwise(ids))
        keys = kept.family_pair_keys(workspace, key, pairs) if pairs else ()
        if keys is None:
            return None
        stored, found = kept.keys_holding(workspace, keys, text)
        if len(stored) < len(set(keys)):
            return None
        if found:
            holding.append(key)
    return holding


def family_changes(
    workspace: Workspace,
    pairs: Sequence[VersionPair],
    profiles: Sequence[Profile] | None,
    *,
    unchanged: bool = True,
) -> tuple[tuple[Change, ...], ...]:
    """`pair_changes` of one family's `pairs` (not empty) through `profiles` (default: the
    shipped ones): the diffs the workspace keeps when they are its registry
    (`Workspace.profile_registry`), else diffed from its kept passages and tables, not kept
    (`unchanged` as `some_pair_changes` takes it)."""
    found = some_family_changes(workspace, pairs, profiles, range(len(pairs)), unchanged=unchanged)
    return tuple(found.changes[k] for k in range(len(pairs)))


def some_family_changes(
    workspace: Workspace,
    pairs: Sequence[VersionPair],
    profiles: Sequence[Profile] | None,
    wanted: Iterable[int],
    *,
    profile: Profile | None = None,
    unchanged: bool = True,
) -> SomeChanges:
    """`family_changes` of the pairs at the indices `wanted` alone (`some_pair_changes`; with
    `profile`, the one the caller chose over the family's versions from `profiles`)."""
    from workbench.text.profiles import registry, registry_digest

    given = registry() if profiles is None else tuple(profiles)
    own = registry_digest(given) == registry_digest(workspace.profile_registry())
    return some_pair_changes(
        pairs,
        wanted,
        profiles=None if own else given,
        workspace=workspace,
        profile=profile,
        unchanged=unchanged,
    )
