"""Pincites (C6, C15): a citation's `section` read through the version's numbering profile, and a
verified span checked to lie inside a unit whose label path ends with it. A section can only turn a
verified citation into a refused one; the rule is in docs/verification.md."""

from __future__ import annotations

import re
from dataclasses import replace

from workbench.cite.verify import Verification
from workbench.errors import VersionNotFound
from workbench.text.profiles import Profile, profile_for
from workbench.text.structure import StructureParse, Unit, parse_structure
from workbench.workspace import Workspace

SECTION_REASONS: dict[str, str] = {
    "unnumbered_version": "the citation names a section, and the version's numbering could not be "
    "read (the structure parser refused it)",
    "bad_section": "the section named does not read as labels of the version's numbering profile",
    "no_such_section": "the version has no section with the labels named",
    "wrong_section": "the quoted span does not lie inside the section named",
}

_DOTTED_TAIL = re.compile(r"\.?(\d+(?:\.\d+)*)")
_TRAILING_NUMBER = re.compile(r"(\d+)\.?$")


def read_section(label: str, profile: Profile) -> tuple[str, ...] | str:
    """The labels a section label names, as path elements, read through `profile` left to right,
    white space skipped: right after a label ending in a number, digits and dots name the dotted
    part beneath it when a dotted level reads it; otherwise the longest piece some level reads as
    a whole label. When a piece reads as no label, the detail of a `bad_section`."""
    labels: list[str] = []
    i = 0
    attached = False  # the piece at i follows the last label with no white space between
    while i < len(label):
        if label[i].isspace():
            i += 1
            attached = False
            continue
        tail = _DOTTED_TAIL.match(label, i) if attached else None
        parent = _TRAILING_NUMBER.search(labels[-1]) if tail and labels else None
        dotted = f"{parent.group(1)}.{tail.group(1)}" if tail and parent else None
        if (
            tail is not None
            and dotted is not None
            and any(level.dotted and level.regex.fullmatch(dotted) for level in profile.levels)
        ):
            labels.append(dotted)
            i = tail.end()
            continue
        read = _longest_label(label, i, profile)
        if read is None:
            return f"section {label!r}: {label[i:]!r} reads as no label of profile {profile.name!r}"
        number, i = read
        labels.append(number)
        attached = True
    if not labels:
        return f"section {label!r} names no label"
    return tuple(labels)


def _longest_label(label: str, at: int, profile: Profile) -> tuple[str, int] | None:
    """The longest piece of `label` from `at` that one level reads as a whole label: that level's
    number and where the piece ends; None if no piece reads."""
    for end in range(len(label), at, -1):
        for level in profile.levels:
            match = level.regex.fullmatch(label, at, end)
            if match is not None:
                return match.group("number"), end
    return None


def accepted_form(path: tuple[str, ...], profile: Profile) -> str | None:
    """`path` written as a section label `profile` reads back as `path`: each label as its level
    reads it whole, alone or after the first of the level's words that makes it read (`§ 34-1432`),
    joined with no space after a label that ends in a bracket or digit and a space otherwise; None
    when some label reads in no such form (a refusal then offers no example)."""
    pieces = []
    for number in path:
        form = next(
            (
                candidate
                for level in profile.levels
                for candidate in (number, *(f"{w} {number}" for w in level.words))
                if level.regex.fullmatch(candidate)
            ),
            None,
        )
        if form is None:
            return None
        pieces.append(form)
    written = "".join(p if i == 0 or p.startswith("(") else " " + p for i, p in enumerate(pieces))
    return written if read_section(written, profile) == path else None


def path_text(path: tuple[str, ...]) -> str:
    return " > ".join(path)


def find_section(parse: StructureParse, labels: tuple[str, ...]) -> tuple[Unit, ...]:
    """The units whose path ends with `labels`, keeping those with the shortest path."""
    n = len(labels)
    ending = [u for u in parse.units if len(u.path) >= n and u.path[-n:] == labels]
    if not ending:
        return ()
    shortest = min(len(u.path) for u in ending)
    return tuple(u for u in ending if len(u.path) == shortest)


def holding_unit(parse: StructureParse, char_start: int, char_end: int) -> Unit | None:
    """The innermost unit whose extent holds the whole raw span (the longest path among them)."""
    holding = [u for u in parse.units if u.char_start <= char_start and char_end <= u.char_end]
    return max(holding, key=lambda u: len(u.path), default=None)


def check_section(workspace: Workspace, verification: Verification) -> Verification:
    """A verdict on a citation naming a `section`, checked against its version's numbering, in
    this order: `unnumbered_version`, `bad_section`, `no_such_section`, `wrong_section` (the
    rules: docs/verification.md, Pincites). A refused verdict, or one whose citation names no
    section, is returned as it is."""
    citation = verification.citation
    section = citation.section
    if not verification.verified or section is None:
        return verification
    try:
        version = workspace.version(citation.version_id)
    except VersionNotFound:  # pragma: no cover - the rule refused it as unknown_version
        return verification
    profile = profile_for(version.jurisdiction, version.family)
    parse = parse_structure(version, profile)

    def refused(reason: str, detail: str) -> Verification:
        return replace(
            verification, outcome="refused", reason=reason, detail=detail, qualifiers=(), caveats=()
        )

    if parse.refusal is not None:
        return refused(
            "unnumbered_version",
            f"the citation names section {section!r}; the numbering of {citation.version_id} "
            f"could not be read through profile {parse.profile!r} ({parse.refusal})",
        )
    labels = read_section(section, profile)
    if isinstance(labels, str):
        holder = holding_unit(parse, citation.char_start, citation.char_end)
        form = accepted_form(holder.path, profile) if holder is not None else None
        example = (
            f"; a form it reads, the section the quoted span lies in: {form!r}"
            if form is not None
            else ""
        )
        return refused("bad_section", labels + example)
    units = find_section(parse, labels)
    if not units:
        return refused(
            "no_such_section",
            f"{citation.version_id} has no section {path_text(labels)!r} "
            f"(read as {list(labels)} through profile {profile.name!r}; "
            f"{len(parse.units)} numbered units)",
        )
    start, end = citation.char_start, citation.char_end
    inside = [u for u in units if u.char_start <= start and end <= u.char_end]
    if inside:
        unit = inside[0]
        return replace(
            verification,
            detail=f"{verification.detail}; in section {path_text(unit.path)} "
            f"[{unit.char_start}, {unit.char_end})"
            + (f", one of {len(units)} units so labelled" if len(units) > 1 else ""),
        )
    holder = holding_unit(parse, start, end)
    lies = (
        f"it lies in section {path_text(holder.path)} [{holder.char_start}, {holder.char_end})"
        if holder is not None
        else "no numbered unit holds the whole span"
    )
    named = "; ".join(f"{path_text(u.path)} [{u.char_start}, {u.char_end})" for u in units[:10])
    return refused(
        "wrong_section",
        f"section {section!r} is {named}"
        + (f" and {len(units) - 10} more" if len(units) > 10 else "")
        + f"; the span [{start}, {end}) is not inside it: {lies}",
    )
