"""Choosing the numbering profile that reads a family (DESIGN.md C15).

A profile that names the family (`profiles.named_profile`) reads it. Where none does, every profile
of the registry, and the one induced from the family's texts (`induce.py`), is tried on the
family's first and last version through the structure parser, and the one that reads the most
consistent numbering wins; where none reads a consistent step, the choice says so (`UNREAD`) and
no tie-break picks one (`choose_profile`, the rule in its docstring). The choice sits apart from `profiles` because it parses: `profiles` reads profile files
and nothing else, `structure` reads through a profile, and this module reads through both, so
imports run one way (profiles, then structure, then choice).

The guarantee: the choice is a pure function of the versions' texts and the profiles' bytes; the
same family and registry give the same profile, whatever order the families are read in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from workbench.models import Version
from workbench.text.induce import induce_profile
from workbench.text.profiles import Profile, named_profile, registry
from workbench.text.structure import is_marked, parse_structure

UNREAD = "no profile read this family's numbering"


@dataclass(frozen=True, slots=True, kw_only=True)
class Choice:
    """Which profile reads a family and how it was chosen: "named", "automatic" (a registry
    profile read the most), "induced" (the profile induced from the family's texts read the most)
    or "unread" (no candidate read a consistent step: `UNREAD`; the induced profile reads it)."""

    profile: Profile
    how: Literal["named", "automatic", "induced", "unread"]
    consistent: int  # consistent label steps read on the family's first and last version
    inconsistent: int
    marked: bool = False  # every version's numbering comes from its extractor's marks

    @property
    def note(self) -> str | None:
        """What a report says of the choice beside the profile: `UNREAD` (and, for a family whose
        versions carry the extractor's marks, that the marks number it), or nothing."""
        if self.how != "unread":
            return None
        return f"{UNREAD}; its extractor's marks number it" if self.marked else UNREAD


def profile_score(profile: Profile, versions: Sequence[Version]) -> tuple[int, int]:
    """(consistent, inconsistent) label steps `profile` reads on a family's first and last version.

    A version whose parse is refused (`structure.parse_structure`) counts (0, its inconsistent
    steps): a profile that cannot read the numbering earns nothing for it.
    """
    consistent = inconsistent = 0
    chosen = [versions[0]] if len(versions) == 1 else [versions[0], versions[-1]]
    for version in chosen:
        parse = parse_structure(version, profile)
        inconsistent += parse.inconsistent
        if parse.refusal is None:
            consistent += parse.checked - parse.inconsistent
    return consistent, inconsistent


def choose_profile(
    versions: Sequence[Version], profiles: Sequence[Profile] | None = None
) -> Choice:
    """The profile that reads one family (`versions` in version order), and how it was chosen.

    Rule: a profile that names the family (`named_profile`) wins ("named"). Otherwise every profile
    of the registry, and the profile induced from the family's own texts (`induce.induce_profile`,
    origin "induced"), is tried on the family's first and last version, and the one that reads the
    most consistent label steps wins: "automatic" for a registry profile, "induced" for the induced
    one (a step is consistent when a label is the first of its level under its parent, or the next
    after its previous sibling; see `structure.py`). Ties go to fewer inconsistent steps, then to
    the profile name in alphabetical order. When no candidate reads a consistent step, nothing won
    a tie-break: the choice is "unread" (`UNREAD`), and the induced profile reads the family (it
    holds only shapes the texts show; for texts that number nothing it reads no label). Only the
    first and last versions are read, so the choice costs two parses per profile, whatever the
    family's length, and one induction.
    """
    if not versions:
        raise ValueError("choose_profile needs at least one version")
    profiles = registry() if profiles is None else tuple(profiles)
    first = versions[0]
    named = named_profile(profiles, first.jurisdiction, first.family)
    if named is not None:
        return Choice(profile=named, how="named", consistent=0, inconsistent=0)
    induced = induce_profile([v.text for v in versions]).profile()
    best: tuple[tuple[int, int, str], Profile, int, int] | None = None
    for profile in (*profiles, induced):
        good, bad = profile_score(profile, versions)
        key = (-good, bad, profile.name)
        if best is None or key < best[0]:
            best = (key, profile, good, bad)
    assert best is not None  # the induced profile is always a candidate
    if best[2] == 0:
        marked = all(is_marked(v) for v in versions)
        return Choice(
            profile=induced, how="unread", consistent=0, inconsistent=best[3], marked=marked
        )
    how: Literal["automatic", "induced"] = "induced" if best[1] is induced else "automatic"
    return Choice(profile=best[1], how=how, consistent=best[2], inconsistent=best[3])
