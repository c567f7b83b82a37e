"""Each amendment instruction verified as a claim about two held releases (C19), by exact search in
the releases it names; the outcomes and the pair rule are in docs/amendments.md."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from workbench.amendments.instructions import Instruction
from workbench.amendments.laws import HeldCode, Release
from workbench.amendments.targets import Target
from workbench.cite.index import find_occurrences, index_text, quote_skeleton
from workbench.text.normalize import normalized_text

Outcome = Literal[
    "applied", "created", "not_applied", "target_missing", "count_mismatch", "no_versions"
]
OUTCOMES: tuple[str, ...] = (
    "applied",
    "created",
    "not_applied",
    "target_missing",
    "count_mismatch",
    "no_versions",
)
REPEALED = re.compile(r"\[?Repealed\.?\]?\.?")
_LEADING_LABELS = re.compile(r"(?:\([^()\s]+\)\s*)+")
_WORD = re.compile(r"\w")


@dataclass(frozen=True, slots=True, kw_only=True)
class Found:
    """What exact search found in one release: the unit's extent (None: no such unit) and the
    occurrences of the struck text (`old`) and of the inserted text or quoted lines (`new`)."""

    version_id: str
    unit: tuple[int, int] | None
    old: tuple[tuple[int, int], ...] = ()
    new: tuple[tuple[int, int], ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {
            "version_id": self.version_id,
            "unit": list(self.unit) if self.unit else None,
            "old": [list(s) for s in self.old],
            "new": [list(s) for s in self.new],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Found:
        """What `as_json` wrote."""
        unit = data["unit"]
        return cls(
            version_id=data["version_id"],
            unit=(unit[0], unit[1]) if unit else None,
            old=tuple((a, b) for a, b in data["old"]),
            new=tuple((a, b) for a, b in data["new"]),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Check:
    """One instruction's verdict against its release pair, with the offsets found and why."""

    instruction_id: str
    outcome: Outcome
    family: str | None
    before: Found | None
    after: Found | None
    detail: str
    reads_as_instructed_in: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {
            "instruction_id": self.instruction_id,
            "outcome": self.outcome,
            "family": self.family,
            "before": self.before.as_json() if self.before else None,
            "after": self.after.as_json() if self.after else None,
            "detail": self.detail,
            "reads_as_instructed_in": list(self.reads_as_instructed_in),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Check:
        """The verdict `as_json` wrote."""
        before, after = data["before"], data["after"]
        return cls(
            instruction_id=data["instruction_id"],
            outcome=data["outcome"],
            family=data["family"],
            before=Found.from_json(before) if before else None,
            after=Found.from_json(after) if after else None,
            detail=data["detail"],
            reads_as_instructed_in=tuple(data["reads_as_instructed_in"]),
        )


def _unit(
    release: Release, target: Target, path: Sequence[str] | None = None
) -> tuple[int, int] | None:
    """The extent of the unit `target` names in `release` (narrowed to its lead-in or heading),
    or None if the release has no such unit or more than one fits a gap."""
    wanted = tuple(path) if path is not None else target.path
    if path is None and target.gap_at is not None:
        fits = [p for p in release.units if target.names(p)]
        if len(fits) != 1:
            return None
        wanted = fits[0]
    extent = release.units.get(wanted)
    if extent is None:
        return None
    start, end = extent
    text = release.version.text
    if target.scope == "heading":
        line = text.find("\n", start, end)
        return (start, line if line >= 0 else end)
    if target.scope == "lead_in":
        children = [
            s
            for p, (s, _) in release.units.items()
            if len(p) == len(wanted) + 1 and p[:-1] == wanted
        ]
        return (start, min([c for c in children if c > start], default=end))
    return extent


def _within(release: Release, quote: str, extent: tuple[int, int]) -> tuple[tuple[int, int], ...]:
    """Every occurrence of `quote` lying inside `extent` of the release, by the verifier's search."""
    if not normalized_text(quote).strip():
        return ()
    start, end = extent
    return tuple(
        (o.char_start, o.char_end)
        for o in find_occurrences(index_text(release.version.text), quote)
        if start <= o.char_start and o.char_end <= end
    )


def _ends_with(release: Release, extent: tuple[int, int], mark: str) -> tuple[tuple[int, int], ...]:
    text = release.version.text[extent[0] : extent[1]].rstrip()
    if mark and text.endswith(mark):
        at = extent[0] + len(text) - len(mark)
        return ((at, at + len(mark)),)
    return ()


def _line_texts(lines: Sequence[str], *, whole_section: bool) -> list[str]:
    """The quoted lines as they should stand in the Code: each without its leading labels (the
    Code sets its own numbers), a new section's first line without the law's section number."""
    out = []
    for k, line in enumerate(lines):
        if whole_section and k == 0:
            line = line.split(" ", 1)[-1]
        line = _LEADING_LABELS.sub("", line, count=1) if _LEADING_LABELS.match(line) else line
        if _WORD.search(line):
            out.append(line.strip())
    return out


def _lines_found(
    release: Release, lines: Sequence[str], extent: tuple[int, int], code: HeldCode | None = None
) -> tuple[list[tuple[int, int]], list[tuple[str, str]], list[tuple[str, str]]]:
    """The first occurrence of each quoted line inside `extent`, the lines that do not stand (each
    as the law quotes it, then as read with the codifier's rewritten cross-references, the reading
    its difference is shown from), and the cross-references rewritten in lines that stand only so
    (`_rewritten`)."""
    found: list[tuple[int, int]] = []
    missing: list[tuple[str, str]] = []
    rewritten: list[tuple[str, str]] = []
    for line in lines:
        spans = _within(release, line, extent)
        reading = line
        if not spans and code is not None and (rewriting := _rewritten(line, release, code)):
            reading = rewriting[0]
            spans = _within(release, reading, extent)
            if spans:
                rewritten += rewriting[1]
        found.extend(spans[:1])
        if not spans:
            missing.append((line, reading))
    return found, missing, rewritten


def _rewritten(
    line: str, release: Release, code: HeldCode
) -> tuple[str, list[tuple[str, str]]] | None:
    """`line` with every reference to a section of an amended Act written as the Code writes the
    Code section that codifies it (the style's `cross_references`), and each (law's words, Code's
    words); None when the style reads no such reference, the line holds none, or one names no
    single Code section. Only those
    references change: every other character of the line must still stand as quoted. The Act is
    the one `release` codifies (`HeldCode.act_codified_in`), so one Act's sections are looked up
    per release, not every law its notes name."""
    refs = code.style.cross_references
    if refs is None:
        return None
    act = code.act_codified_in(release)
    if act is None:
        return None
    pieces, changes, at = [], [], 0
    for m in refs.act_section.finditer(line):
        section = code.codified_as(act, m["section"])
        if section is None:
            return None
        written = refs.code_section.format(code_section=section)
        pieces += [line[at : m.start()], written]
        changes.append((m.group(), written))
        at = m.end()
    if not changes:
        return None
    return "".join([*pieces, line[at:]]), changes


def _rewriting_note(rewritten: Sequence[tuple[str, str]]) -> str:
    if not rewritten:
        return ""
    pairs = ", ".join(f"{a!r} as {b!r}" for a, b in dict.fromkeys(rewritten))
    return f" (the codifier wrote the cross-reference {pairs})"


def _difference(line: str, release: Release, extent: tuple[int, int]) -> str:
    """Which words of a quoted line differ from the nearest line of `extent` (the most alike by
    difflib's ratio over words; the first such line on a tie): at most two differing runs, each
    as the law's words and the release's, so a reader sees what does not stand."""
    words = line.split()
    text = release.version.text[extent[0] : extent[1]]
    candidates = [_LEADING_LABELS.sub("", c, count=1).split() for c in text.splitlines()]
    candidates = [c for c in candidates if c]
    if not words or not candidates:
        return ""
    best = max(candidates, key=lambda c: difflib.SequenceMatcher(None, words, c).ratio())
    runs = [
        f"{' '.join(words[i1:i2]) or '(nothing)'!r} where the release reads "
        f"{' '.join(best[j1:j2]) or '(nothing)'!r}"
        for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, words, best).get_opcodes()
        if op != "equal"
    ]
    return "; the law's words differ: " + "; ".join(runs[:2]) if runs else ""


def _expected(count: object, n: int) -> bool:
    return n >= 1 if count == "all" else n == count


def _reads_text(ins: Instruction, rel: Release, before_count: int) -> tuple[bool, Found]:
    """Whether `rel` reads as a strike (and insert) instructs: the inserted text stands in the unit
    and the struck text is gone from it (fewer occurrences than the `before_count` the before
    release held, none at all, or kept inside the inserted text); with the offsets found."""
    old, new = ins.old_text or "", ins.new_text or ""
    unit = _unit(rel, ins.target)
    vid = rel.version.version_id
    if unit is None:
        return False, Found(version_id=vid, unit=None)
    if ins.count == "last":
        old_a = _ends_with(rel, unit, old)
        new_a = _ends_with(rel, unit, new) if new else ()
        gone = not old_a or (bool(new) and new.endswith(old))
    else:
        old_a = _within(rel, old, unit)
        new_a = _within(rel, new, unit) if new else ()
        kept = bool(new) and normalized_text(old) in normalized_text(new)
        gone = not old_a or len(old_a) < before_count or kept
    found = Found(version_id=vid, unit=unit, old=old_a, new=new_a)
    return gone and (not new or bool(new_a)), found


def _check_text(
    ins: Instruction, before: Release, after: Release
) -> tuple[Outcome, Found, Found, str]:
    """Strike (and insert): the struck text in the before unit, the inserted text after."""
    old, new = ins.old_text or "", ins.new_text or ""
    vb, va = before.version.version_id, after.version.version_id
    unit_b = _unit(before, ins.target)
    if unit_b is None:
        return (
            "target_missing",
            Found(version_id=vb, unit=None),
            Found(version_id=va, unit=_unit(after, ins.target)),
            f"{vb} has no unit {ins.target.citation()}",
        )
    last = ins.count == "last"
    old_b = _ends_with(before, unit_b, old) if last else _within(before, old, unit_b)
    found_b = Found(version_id=vb, unit=unit_b, old=old_b)
    reads, found_a = _reads_text(ins, after, len(old_b))
    if not old_b:
        where = "does not end with" if last else "does not hold"
        return "target_missing", found_b, found_a, f"the unit in {vb} {where} {old!r}"
    if not last and not _expected(ins.count, len(old_b)):
        return (
            "count_mismatch",
            found_b,
            found_a,
            (f"{old!r} stands {len(old_b)} times in the unit; the law says {ins.count}"),
        )
    if reads:
        return "applied", found_b, found_a, "struck text gone, inserted text stands"
    if found_a.unit is None:
        return "not_applied", found_b, found_a, f"{va} has no unit {ins.target.citation()}"
    if found_a.old and not (new and found_a.new):
        return "not_applied", found_b, found_a, f"{va} still reads {old!r}"
    return "not_applied", found_b, found_a, f"{va} does not read {new!r}"


def _reads_unit(
    ins: Instruction, rel: Release, code: HeldCode | None = None
) -> tuple[bool, Found, str]:
    """Whether `rel` reads as an added, amended, repealed or redesignated unit should: the unit
    stands with every quoted line; it is gone or reads "Repealed."; it stands under its new label."""
    target, vid = ins.target, rel.version.version_id
    if ins.action == "redesignate":
        label = ins.new_label or ""
        fits = [p for p in ((*target.path[:-1], label), (*target.path, label)) if p in rel.units]
        if fits:
            return True, Found(version_id=vid, unit=rel.units[fits[0]]), f"{label} stands"
        return False, Found(version_id=vid, unit=None), f"no unit {label}"
    unit = _unit(rel, target)
    if ins.action == "repeal":
        own = rel.version.text[unit[0] : unit[1]] if unit else ""
        own = _LEADING_LABELS.sub("", own, count=1).strip()
        if unit is None or REPEALED.fullmatch(own):
            return (
                True,
                Found(version_id=vid, unit=unit),
                ("the unit is gone" if unit is None else "the unit reads Repealed."),
            )
        return False, Found(version_id=vid, unit=unit), "the unit still stands"
    if unit is None:
        return False, Found(version_id=vid, unit=None), f"no unit {target.citation()}"
    lines = _line_texts(ins.new_lines, whole_section=False)
    found, missing, rewritten = _lines_found(rel, lines, unit, code)
    if not missing:
        return (
            True,
            Found(version_id=vid, unit=unit, new=tuple(found)),
            "every quoted line stands" + _rewriting_note(rewritten),
        )
    return (
        False,
        Found(version_id=vid, unit=unit, new=tuple(found)),
        (
            f"{len(missing)} of {len(lines)} quoted lines do not stand, first: "
            f"{missing[0][0][:80]!r}" + _difference(missing[0][1], rel, unit)
        ),
    )


def _check_unit(
    ins: Instruction, before: Release, after: Release, code: HeldCode | None = None
) -> tuple[Outcome, Found, Found, str]:
    """Add a unit, amend a unit to read, repeal or redesignate one: the unit's place before, and
    what stands there after."""
    target = ins.target
    vb, va = before.version.version_id, after.version.version_id
    unit_b = _unit(before, target)
    reads, found_a, why = _reads_unit(ins, after, code)
    if ins.action == "add_unit":
        parent = Target(
            document=target.document,
            section=target.section,
            path=target.path[:-1],
            gap_at=target.gap_at
            if target.gap_at is not None and target.gap_at < len(target.path)
            else None,
        )
        if target.path[:-1] and _unit(before, parent) is None:
            return (
                "target_missing",
                Found(version_id=vb, unit=None),
                found_a,
                (f"{vb} has no unit {parent.citation()} to add to"),
            )
    elif unit_b is None:
        return (
            "target_missing",
            Found(version_id=vb, unit=None),
            found_a,
            (f"{vb} has no unit {target.citation()}"),
        )
    found_b = Found(version_id=vb, unit=unit_b)
    if reads:
        before_reads = _reads_unit(ins, before, code)[0] if ins.action != "repeal" else False
        already = " (the before release read so already)" if before_reads else ""
        return "applied", found_b, found_a, f"{why}{already}"
    return "not_applied", found_b, found_a, f"{va}: {why}"


def reads_as_instructed(
    ins: Instruction,
    releases: Sequence[Release],
    before: Release | None,
    code: HeldCode | None = None,
) -> tuple[str, ...]:
    """The held releases (any, in order) whose target unit reads as the instruction says it
    should after the law: where an instruction is not applied in its pair, this says whether
    an earlier release already read so (an Act not held got there first) or a later one does
    (the codifier applied it late), or none does."""
    if ins.action in ("strike_and_insert", "strike"):
        count = 0
        if before is not None:
            unit = _unit(before, ins.target)
            count = len(_within(before, ins.old_text or "", unit)) if unit else 0
        return tuple(r.version.version_id for r in releases if _reads_text(ins, r, count)[0])
    return tuple(r.version.version_id for r in releases if _reads_unit(ins, r, code)[0])


def _check_section(ins: Instruction, code: HeldCode, effective: str) -> Check:
    """A whole section added. Its Code number is the codifier's, not the law's, so it is found by
    its first quoted line (the heading, without the law's section number): the one held section
    whose first release is not older than the law and holds that line. It is `created` when that
    release holds every quoted line, `not_applied` (naming it) when it does not, and
    `no_versions` when no held section, or more than one, holds the heading."""
    lines = _line_texts(ins.new_lines, whole_section=True)
    # A family first released before the law cannot be the section it adds: its dates say so
    # before any release of it is read (`HeldCode.first_released_since`, one bisection over the
    # families by first release). Nor can one whose first release's skeleton lacks the
    # heading's (a necessary condition of the exact search, `quote_skeleton`): only the few
    # left are read and searched.
    if ins.target.section is not None:
        named = code.by_section.get(ins.target.section)
        dated = code.dated_facts(named) if named is not None else ()
        candidates = [named] if named is not None and dated and dated[0][0] >= effective else []
    else:
        candidates = code.first_released_since(effective)
    hits = []
    heading = quote_skeleton(lines[0]) if lines else None
    for family in candidates:
        if heading is None or heading not in code.first_skeleton(family):
            continue
        first = code.release_of(*code.dated(family)[0])
        if _within(first, lines[0], (0, len(first.version.text))):
            hits.append((family, first))
    if len(hits) != 1:
        return Check(
            instruction_id=ins.instruction_id,
            outcome="no_versions",
            family=None,
            before=None,
            after=None,
            detail=f"{len(hits)} held sections first released on or after {effective} hold its "
            f"heading {lines[0][:60]!r}"
            if lines
            else "it quotes no text to find it by",
        )
    family, first = hits[0]
    found, missing, rewritten = _lines_found(first, lines, (0, len(first.version.text)), code)
    after = Found(version_id=first.version.version_id, unit=(0, first.body_end), new=tuple(found))
    if missing:
        outcome: Outcome = "not_applied"
        detail = (
            f"{first.version.version_id} (its first held release) holds its heading, but "
            f"{len(missing)} of {len(lines)} quoted lines do not stand, first: "
            f"{missing[0][0][:80]!r}" + _difference(missing[0][1], first, (0, first.body_end))
        )
    else:
        outcome = "created"
        detail = (
            f"{first.version.version_id} is its first held release and holds every quoted line"
            + _rewriting_note(rewritten)
        )
    return Check(
        instruction_id=ins.instruction_id,
        outcome=outcome,
        family=family,
        before=None,
        after=after,
        detail=detail,
    )


def check_instruction(ins: Instruction, code: HeldCode, effective: str) -> Check:
    """Verify one instruction against the held releases around `effective` (docs/amendments.md)."""

    def no_versions(detail: str, family: str | None = None) -> Check:
        return Check(
            instruction_id=ins.instruction_id,
            outcome="no_versions",
            family=family,
            before=None,
            after=None,
            detail=detail,
        )

    target = ins.target
    if target.document != "code":
        return no_versions(f"the target is not the Code ({target.document})")
    if ins.action == "add_unit" and not target.path:
        return _check_section(ins, code, effective)
    if target.section is None:
        return no_versions("the sentence names no Code section")
    family = code.by_section.get(target.section)
    if family is None:
        return no_versions(f"§ {target.section} is not held")
    before, after = code.pair(family, effective)
    if before is None or after is None:
        side = "before" if before is None else "on or after"
        return no_versions(
            f"no held release of § {target.section} filed {side} {effective}", family
        )
    if ins.action in ("strike_and_insert", "strike"):
        outcome, found_b, found_a, detail = _check_text(ins, before, after)
    else:
        outcome, found_b, found_a, detail = _check_unit(ins, before, after, code)
    return Check(
        instruction_id=ins.instruction_id,
        outcome=outcome,
        family=family,
        before=found_b,
        after=found_a,
        detail=detail,
        reads_as_instructed_in=()
        if outcome == "applied"
        else reads_as_instructed(ins, code.releases(family), before, code),
    )


def checked_with_later(
    ins: Instruction, check: Check, code: HeldCode, later: Sequence[str]
) -> Check | None:
    """`check`, made when the family's dated releases ended before `later` (version ids, each
    after every release it read), as `check_instruction` makes it now: the pair is the same
    (a release after the first one on or after the law is neither of it), and each release is
    judged alone by `reads_as_instructed`, so only the releases `later` are judged. None for
    a check that is applied or has no pair (one of `later` may be its pair's after)."""
    if check.outcome == "applied" or check.family is None or not (check.before and check.after):
        return None
    family = check.family
    before = code.release_by_id(family, check.before.version_id)
    releases = [code.release_by_id(family, version_id) for version_id in later]
    found = reads_as_instructed(ins, releases, before, code)
    return replace(check, reads_as_instructed_in=(*check.reads_as_instructed_in, *found))
