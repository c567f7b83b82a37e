"""Choosing the numbering profile that reads a family (C15): a pure function of the versions' texts
and the profiles' bytes, whatever order families are read in; a profile refused over its pattern
budget is passed over. The rule: docs/profiles.md, "The automatic choice"."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from workbench.errors import ProfileError
from workbench.models import Version
from workbench.text.induce import induce_profile
from workbench.text.profiles import Profile, named_profile, registry
from workbench.text.structure import StructureParse, is_marked, parse_structure

UNREAD = "no profile read this family's numbering"
# The induced profile wins over a registry profile that reads inconsistent steps when it reads at
# least this share of the registry profile's consistent steps, out of order at most `CLEAN_RATIO`
# as often (none, or a share of its steps at most that fraction of the registry profile's): a
# profile written for other texts that reads more labels here, out of order, matches some of them
# by accident (a flat level counting labels the induced profile nests and leaves unchecked).
CLEAN_SHARE = 0.5
CLEAN_RATIO = 0.5
READINGS = ("read", "read with inconsistencies", "unread")  # `Reading.status`, best first


@dataclass(frozen=True, slots=True, kw_only=True)
class Choice:
    """Which profile reads a family and how it was chosen: "named", "automatic" (a registry
    profile read better than the induced one), "induced" (the profile induced from the family's
    texts read at least as well as every registry profile) or "unread" (no candidate read a
    consistent step: `UNREAD`; the induced profile reads it). `rival` is, for an automatic or
    induced choice, the best candidate of the other kind (the induced profile, or the best registry
    profile) and its (consistent, inconsistent) steps: what the winner beat, and by how much."""

    profile: Profile
    how: Literal["named", "automatic", "induced", "unread"]
    consistent: int  # consistent label steps read on the family's first and last version
    inconsistent: int
    marked: bool = False  # every version's numbering comes from its extractor's marks
    rival: tuple[str, int, int] | None = None  # (profile name, consistent, inconsistent)
    refusal: str | None = None  # why the profile named or chosen for the family read none of it

    @property
    def note(self) -> str | None:
        """What a report says of the choice beside the profile: `UNREAD` (and, for a family whose
        versions carry the extractor's marks, that the marks number it; for a family whose
        profile was refused, the refusal), or nothing."""
        if self.how != "unread":
            return None
        note = f"{UNREAD}; its extractor's marks number it" if self.marked else UNREAD
        return note if self.refusal is None else f"{note}: {self.refusal}"

    @property
    def contest(self) -> str | None:
        """Which won between the registry's best and the induced profile, and by how much in
        net consistent steps (consistent minus inconsistent, first and last version), or None."""
        if self.rival is None:
            return None
        name, good, bad = self.rival
        margin = (self.consistent - self.inconsistent) - (good - bad)
        return (
            f"{self.profile.name} read {self.consistent} consistent and {self.inconsistent} "
            f"inconsistent steps against {name}'s {good} and {bad}: {margin} net steps more"
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Reading:
    """How the chosen profile read a whole family (`family_reading`): its status (`READINGS`)
    and the label steps of every version, consistent and inconsistent."""

    status: Literal["read", "read with inconsistencies", "unread"]
    consistent: int
    inconsistent: int


def family_reading(choice: Choice, parses: Sequence[StructureParse], *, marked: bool) -> Reading:
    """How the chosen profile read a family, from its parses of every version.

    Steps: a parse's consistent steps are its checked minus its inconsistent ones, and count only
    where the parse was not refused; its inconsistent steps count always. Status: "unread" when
    the choice is unread (`UNREAD`) or no version's parse read a consistent step, unless every
    version's numbering comes from its extractor's marks (`marked`: the marks read it, and are not
    checked); else "read with inconsistencies" when any step is inconsistent; else "read". An
    unread family's structure is never counted as known (C12).
    """
    consistent = sum(p.checked - p.inconsistent for p in parses if p.refusal is None)
    inconsistent = sum(p.inconsistent for p in parses)
    status: Literal["read", "read with inconsistencies", "unread"] = "read"
    if not marked and (choice.how == "unread" or consistent == 0):
        status = "unread"
    elif inconsistent:
        status = "read with inconsistencies"
    return Reading(status=status, consistent=consistent, inconsistent=inconsistent)


# One collection per version: the lines a PDF sets as headings (`pdf_headings.heading_lines`),
# or a function giving them, called only when the family's profile is induced (reading them may
# extract each PDF again).
Headings = (
    Sequence[Collection[tuple[int, int]]]
    | Callable[[], Sequence[Collection[tuple[int, int]]]]
    | None
)


def _read(headings: Headings) -> Sequence[Collection[tuple[int, int]]] | None:
    return headings() if callable(headings) else headings


def read_numbering(
    versions: Sequence[Version],
    profiles: Sequence[Profile] | None = None,
    *,
    headings: Headings = None,
) -> tuple[Choice, Reading]:
    """The profile that reads one family (`choose_profile`) and how well it read every version
    (`family_reading`): what `workbench families --numbering` says of each family."""
    choice, parses = read_family(
        versions,
        profiles,
        lambda profile: [parse_structure(v, profile) for v in versions],
        headings=headings,
    )
    return choice, family_reading(choice, parses, marked=all(is_marked(v) for v in versions))


_Read = TypeVar("_Read")


def read_family(
    versions: Sequence[Version],
    profiles: Sequence[Profile] | None,
    read: Callable[[Profile], _Read],
    *,
    headings: Headings = None,
) -> tuple[Choice, _Read]:
    """The family's choice (`choose_profile`) and `read` of its profile. Where a pattern of that
    profile is refused on the family's text (a `ProfileError`: over its budget), the family is
    unread: the choice is the induced profile, "unread", the refusal its `refusal`, and `read`
    runs with the induced profile instead, so one profile cannot stop a corpus-wide run."""
    choice = choose_profile(versions, profiles, headings=headings)
    try:
        return choice, read(choice.profile)
    except ProfileError as refused:
        induced = induce_profile([v.text for v in versions], _read(headings)).profile()
        marked = all(is_marked(v) for v in versions)
        choice = Choice(
            profile=induced,
            how="unread",
            consistent=0,
            inconsistent=0,
            marked=marked,
            refusal=" ".join(str(refused).split()),
        )
        return choice, read(induced)


def profile_score(profile: Profile, versions: Sequence[Version]) -> tuple[int, int]:
    """(consistent, inconsistent) label steps `profile` reads on a family's first and last version.

    A version whose parse is refused (`structure.parse_structure`) counts (0, its inconsistent
    steps): a profile that cannot read the numbering earns nothing for it.
    """
    consistent, inconsistent, _ = _score(profile, versions)
    return consistent, inconsistent


def _score(profile: Profile, versions: Sequence[Version]) -> tuple[int, int, int]:
    """`profile_score` and, from the same parses, the labels `profile` reads in levels it does not
    check (`sequence = "none"`) on versions read by their labels, refused parses aside: what ranks
    a profile beside its net consistent steps, so a level the inducer left unchecked (numbered on
    across its parents) earns what a profile checking it would."""
    consistent = inconsistent = unchecked = 0
    for version in [versions[0]] if len(versions) == 1 else [versions[0], versions[-1]]:
        parse = parse_structure(version, profile)
        inconsistent += parse.inconsistent
        if parse.refusal is None:
            consistent += parse.checked - parse.inconsistent
            if parse.method == "labels":
                unchecked += len(parse.units) - parse.checked
    return consistent, inconsistent, unchecked


def _cleaner(induced: tuple[int, int], registry: tuple[int, int]) -> bool:
    """True if the induced profile's (consistent, inconsistent) steps beat a registry profile's
    that reads inconsistent steps: at least `CLEAN_SHARE` of its consistent steps, and a share of
    inconsistent steps at most `CLEAN_RATIO` of its share."""
    (good, bad), (rival_good, rival_bad) = induced, registry
    return (
        rival_bad > 0
        and good >= CLEAN_SHARE * rival_good
        and bad * (rival_good + rival_bad) <= CLEAN_RATIO * rival_bad * (good + bad)
    )


def choose_profile(
    versions: Sequence[Version],
    profiles: Sequence[Profile] | None = None,
    *,
    headings: Headings = None,
) -> Choice:
    """The profile that reads one family (`versions` in version order), and how it was chosen.

    Rule: a profile that names the family (`named_profile`) wins ("named"). Otherwise every profile
    of the registry, and the profile induced from the family's own texts (`induce.induce_profile`,
    origin "induced"), is tried on the family's first and last version, and the one that reads the
    most net consistent label steps (consistent minus inconsistent, plus the labels of levels it
    does not check, `_score`) wins: "automatic" for a
    registry profile, "induced" for the induced one (a step is consistent when a label is the
    first of its level under its parent, or the next after its previous sibling; see
    `structure.py`). Ties go to fewer inconsistent steps, then to the induced profile (a registry
    profile written for another jurisdiction wins only where it reads better), then to the profile
    name in alphabetical order. Against a registry profile that reads inconsistent steps, the
    induced profile wins when it reads at least `CLEAN_SHARE` of the winner's consistent steps and
    a share of inconsistent steps (of all it checks) at most `CLEAN_RATIO` of the winner's (none
    always is). The choice records the best candidate of the other kind
    (`Choice.rival`). When the winner reads no consistent step (none reads one, or those that do
    read more inconsistent ones), nothing read the numbering: the choice is "unread" (`UNREAD`), and the induced profile reads the family (it holds only shapes
    the texts show; for texts that number nothing it reads no label). Only the first and last
    versions are read, so the choice costs two parses per profile, whatever the family's length,
    and one induction (which reads `headings`, each version's lines a PDF sets as headings, as
    label candidates: `induce.induce_profile`).
    """
    if not versions:
        raise ValueError("choose_profile needs at least one version")
    profiles = registry() if profiles is None else tuple(profiles)
    first = versions[0]
    named = named_profile(profiles, first.jurisdiction, first.family)
    if named is not None:
        return Choice(profile=named, how="named", consistent=0, inconsistent=0)
    induced = induce_profile([v.text for v in versions], _read(headings)).profile()
    ranked: list[tuple[tuple[int, int, bool, str], Profile, int, int]] = []
    for profile in (*profiles, induced):
        try:
            good, bad, unchecked = _score(profile, versions)
        except ProfileError:  # a pattern over its budget on these texts: it reads none of them
            continue
        key = (
            bad - good - unchecked,
            bad,
            profile is not induced,
            profile.name,
        )
        ranked.append((key, profile, good, bad))
    ranked.sort(key=lambda entry: entry[0])
    _, best, good, bad = ranked[0]
    clean = next(e for e in ranked if e[1] is induced)
    if best is not induced and _cleaner((clean[2], clean[3]), (good, bad)):
        _, best, good, bad = clean  # the texts' own numbering, read out of order far less often
    if good == 0:
        marked = all(is_marked(v) for v in versions)
        return Choice(profile=induced, how="unread", consistent=0, inconsistent=bad, marked=marked)
    rival = next(
        ((e[1].name, e[2], e[3]) for e in ranked if (e[1] is induced) != (best is induced)), None
    )
    how: Literal["automatic", "induced"] = "induced" if best is induced else "automatic"
    return Choice(profile=best, how=how, consistent=good, inconsistent=bad, rival=rival)
