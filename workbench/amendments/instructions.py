"""Amendment instructions read from a law's enacted prose through its drafting style (C19): every
instruction and unread sentence is an exact citation into the law's held text."""

from __future__ import annotations

import functools
import importlib
import itertools
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from workbench.amendments.style import CONTEXT, Action, DraftingStyle
from workbench.amendments.targets import Target, Targets, label_groups
from workbench.bounds import Matched
from workbench.cite.index import find_occurrences, index_text
from workbench.cite.verify import Citation
from workbench.models import StructureMark, Version, content_id
from workbench.text.lines import clean_label
from workbench.text.profiles import Profile
from workbench.text.structure import Unit, units_from_marks

Count = int | Literal["all", "last"]

_LABEL = re.compile(r"\(([^()\s]+)\)")
_WORDS = re.compile(r"\w")
# The standard library's parser of the `re` syntax (a phrasing's syntax), for `required_literals`;
# it has no type stubs.
_PARSER: Any = importlib.import_module("re._parser")


# ---------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True, slots=True, kw_only=True)
class Instruction:
    """One instruction of a law: an exact citation of its sentence, and the claim it makes.

    `old_text` is the struck text and `new_text` the inserted one (for a unit added or amended to
    read, the quoted matter, one line per unit in `new_lines`); `count` is how many times the
    struck text stands (a number, `all` for "each place it appears", `last` for "at the end" and
    for punctuation struck, which is the unit's last). `char_start`/`char_end` cite the sentence
    in the law's text and `occurrence` names which occurrence of that sentence it is.
    """

    instruction_id: str
    law: str
    law_section: str
    action: Action
    target: Target
    old_text: str | None
    new_text: str | None
    new_lines: tuple[str, ...] = ()
    new_label: str | None = None
    count: Count | None = None
    char_start: int
    char_end: int
    occurrence: int
    sentence: str = field(repr=False)

    def citation(self) -> Citation:
        """The sentence as a citation into the law; `verify_citation` holds it to the rule."""
        return Citation(
            version_id=self.law,
            char_start=self.char_start,
            char_end=self.char_end,
            quoted_text=self.sentence,
            occurrence=self.occurrence,
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "instruction_id": self.instruction_id,
            "law": self.law,
            "law_section": self.law_section,
            "action": self.action,
            "target": self.target.as_json(),
            "old_text": self.old_text,
            "new_text": self.new_text,
            "new_lines": list(self.new_lines),
            "new_label": self.new_label,
            "count": self.count,
            "char_start": self.char_start,
            "char_end": self.char_end,
            "occurrence": self.occurrence,
            "sentence": self.sentence,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Instruction:
        """The instruction `as_json` wrote."""
        return cls(
            instruction_id=data["instruction_id"],
            law=data["law"],
            law_section=data["law_section"],
            action=data["action"],
            target=Target.from_json(data["target"]),
            old_text=data["old_text"],
            new_text=data["new_text"],
            new_lines=tuple(data["new_lines"]),
            new_label=data["new_label"],
            count=data["count"],
            char_start=data["char_start"],
            char_end=data["char_end"],
            occurrence=data["occurrence"],
            sentence=data["sentence"],
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Unread:
    """A sentence that reads like an instruction but that no phrasing of the style reads."""

    law: str
    law_section: str
    char_start: int
    char_end: int
    text: str

    def as_json(self) -> dict[str, Any]:
        return {
            "law": self.law,
            "law_section": self.law_section,
            "char_start": self.char_start,
            "char_end": self.char_end,
            "text": self.text,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Unread:
        """The sentence `as_json` wrote."""
        return cls(
            law=data["law"],
            law_section=data["law_section"],
            char_start=data["char_start"],
            char_end=data["char_end"],
            text=data["text"],
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Reading:
    """A law's instructions in text order and its unread sentences."""

    law: str
    instructions: tuple[Instruction, ...]
    unread: tuple[Unread, ...]


# ---------------------------------------------------------------------------------------------
# The law's own units, its prose lines and its quoted matter


@dataclass(frozen=True, slots=True)
class _LawUnit:
    unit: Unit
    parent: int  # index of the enclosing unit, -1 for none
    section: bool  # the unit is one of the law's own sections


class _Layout:
    """The law's numbered units (one per structure mark), nested, with what each is."""

    def __init__(self, marks: Sequence[StructureMark], text_length: int) -> None:
        ordered = sorted(marks, key=lambda m: m.char_start)
        # units_from_marks makes one unit per mark, in this very order.
        units = units_from_marks(ordered, text_length)
        self.units: list[_LawUnit] = []
        stack: list[int] = []
        for mark, unit in zip(ordered, units, strict=True):
            while stack and not (
                self.units[stack[-1]].unit.char_start
                <= unit.char_start
                < self.units[stack[-1]].unit.char_end
            ):
                stack.pop()
            self.units.append(
                _LawUnit(
                    unit=unit,
                    parent=stack[-1] if stack else -1,
                    section=mark.path[-1:] == ("section",) and "include" not in mark.path,
                )
            )
            stack.append(len(self.units) - 1)
        self.starts = [u.unit.char_start for u in self.units]
        self.label_ends = {m.char_start: m.char_end for m in ordered}

    def at(self, offset: int) -> int:
        """The innermost unit covering `offset`, or -1."""
        k = bisect_right(self.starts, offset) - 1
        while k >= 0 and not self.units[k].unit.char_end > offset:
            k = self.units[k].parent
        return k

    def chain(self, index: int) -> Iterator[int]:
        while index >= 0:
            yield index
            index = self.units[index].parent

    def law_section(self, index: int) -> str:
        """The law's own citation of a unit: "§ 2(a)(1)" (its section and the units below it)."""
        labels: list[str] = []
        for k in self.chain(index):
            labels.append(self.units[k].unit.label)
            if self.units[k].section:
                return f"§ {labels[-1]}" + "".join(reversed(labels[:-1]))
        return "".join(reversed(labels)) or "(preamble)"


def _pieces(text: str, markup: Sequence[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """Every line of `text` outside the markup spans, trimmed of white space, in text order."""
    cuts = sorted(markup)
    k = 0
    start = 0
    for line in text.split("\n"):
        end = start + len(line)
        at = start
        while k < len(cuts) and cuts[k][1] <= at:
            k += 1
        j = k
        while at < end:
            stop = end
            if j < len(cuts) and cuts[j][0] < end:
                stop = max(cuts[j][0], at)
            if stop > at:
                piece = text[at:stop]
                lead = len(piece) - len(piece.lstrip())
                trail = len(piece.rstrip())
                if trail > lead:
                    yield at + lead, at + trail
            if stop >= end:
                break
            at = max(cuts[j][1], stop)
            j += 1
        start = end + 1


# ---------------------------------------------------------------------------------------------
# Reading


@dataclass(slots=True)
class _Quoted:
    """Quoted matter an instruction inserts: lines of the law's text, to its unit's end."""

    unit: int  # the instructing unit
    end: int
    owners: list[int]  # indexes into the reading's drafts that take these lines
    lines: list[tuple[int, int]] = field(default_factory=list)


def _strip_labels(text: str, start: int, end: int, layout: _Layout) -> int:
    """Past the law's own labels at the start of `[start, end)` ("2", "(a)", "(1)"). An empty
    label (a `<num/>` that prints nothing, as some enacted laws hold) is no label: nothing to
    step past."""
    while start < end and layout.label_ends.get(start, start) > start:
        start = layout.label_ends[start]
        while start < end and text[start].isspace():
            start += 1
    return start


def _count(match: Matched, style: DraftingStyle) -> Count:
    phrase = match.groupdict().get("count")
    if phrase:
        value = style.counts[phrase]
        return value if isinstance(value, int) else "all"
    if match.groupdict().get("at_end") or match.groupdict().get("old_punct"):
        return "last"
    return 1


def _block_lines(
    lines: Sequence[tuple[int, int]], text: str, layout: _Layout, label: str | None
) -> tuple[str, ...]:
    """The quoted lines of one unit of the block (`label`, a unit at the block's top level), or
    all of them where no unit bears that label; lines without a word are left out."""
    chosen = list(lines)
    if label is not None:
        starts = [
            s
            for s, _ in lines
            if s in layout.label_ends
            and clean_label(layout.units[layout.at(s)].unit.label) == label
        ]
        if starts:
            unit = layout.units[layout.at(starts[0])].unit
            chosen = [(s, e) for s, e in lines if unit.char_start <= s < unit.char_end]
    return tuple(text[s:e] for s, e in chosen if _WORDS.search(text[s:e]))


def _split(
    pieces: Iterator[tuple[int, int]], spans: Sequence[tuple[int, int]]
) -> Iterator[tuple[int, int, bool]]:
    """Each piece cut at the edges of `spans` (sorted, not overlapping), with whether the part
    lies inside one of them; white space at the cuts is trimmed off."""
    edges = sorted({edge for span in spans for edge in span})
    starts = [s for s, _ in spans]
    for start, end in pieces:
        # The edges strictly inside the piece: a slice of the sorted edges, found by two bisections.
        inner = edges[bisect_right(edges, start) : bisect_left(edges, end)]
        cuts = [start, *inner, end]
        for a, b in itertools.pairwise(cuts):
            k = bisect_right(starts, a) - 1
            inside = k >= 0 and spans[k][0] <= a < spans[k][1]
            yield a, b, inside


@functools.cache
def required_literals(pattern: str) -> tuple[str, ...]:
    """Runs of literal characters every match of `pattern` holds: the characters its top-level
    sequence (and the groups in it that must match, walked through) matches one for one, cut at
    anything else (a class, a repeat, an alternation, an optional group, a look-around, a
    case-insensitive group). None for a pattern read case-insensitively as a whole. A text
    that lacks one of them cannot match, so no phrasing is tried on it in vain."""
    parsed = _PARSER.parse(pattern)
    if parsed.state.flags & re.IGNORECASE:
        return ()
    runs: list[str] = []
    run: list[str] = []

    def walk(items: Any) -> None:
        for op, value in items:
            if op is _PARSER.LITERAL:
                run.append(chr(value))
            elif op is _PARSER.SUBPATTERN and not value[1] & re.IGNORECASE:
                walk(value[3])  # (group, flags added, flags removed, its items)
            else:
                runs.append("".join(run))
                run.clear()

    walk(parsed.data)
    runs.append("".join(run))
    return tuple(dict.fromkeys(r for r in runs if r))


def read_instructions(
    law: Version,
    markup: Sequence[tuple[int, int]],
    quotations: Sequence[tuple[int, int]],
    style: DraftingStyle,
    profile: Profile,
) -> Reading:
    """Read `law`'s prose into instructions (docs/amendments.md).

    Lines are read in text order, outside `markup` (the publisher's spans) and cut at the edges
    of `quotations` (the spans of the law's own quoted matter, its `include` elements). Quoted
    lines are never read as sentences: those that follow a sentence of an adding or
    amending-to-read phrasing ending "as follows:", up to the next line of prose in its unit,
    are that instruction's new text. Every other line, the law's own labels at its start taken
    off, is matched against the style's phrasings in order, the first full match deciding;
    `context` phrasings set the target every line below that unit resolves against (the nearest
    unit up the law's nesting with one set earlier). A sentence no phrasing matches is `unread`
    when it matches `instruction_like`; a line without a word (the "." closing a quotation) is
    no sentence. An "as follows:" followed by the law's own numbered sentences instead of quoted
    matter (a drafting slip for "is amended as follows:") is read as their context.
    """
    text = law.text
    layout = _Layout(law.structure, len(text))
    targets = Targets(style, profile)
    contexts: dict[int, Target] = {}
    drafts: list[dict[str, Any]] = []
    unread: list[Unread] = []
    block: _Quoted | None = None
    index = index_text(text)
    phrasings = [(p, required_literals(p.pattern.pattern)) for p in style.phrasings]
    for start, end, inside in _split(_pieces(text, markup), sorted(quotations)):
        piece = text[start:end]
        if inside:
            if block is not None and start < block.end:
                block.lines.append((start, end))
            continue
        if not _WORDS.search(piece):
            continue
        block = None
        unit = layout.at(start)
        start = _strip_labels(text, start, end, layout)
        sentence = text[start:end]
        match = None
        action = ""
        for phrasing, literals in phrasings:
            if not all(literal in sentence for literal in literals):
                continue  # it cannot match: spare the engine the sentence
            match = phrasing.pattern.fullmatch(sentence)
            if match is not None:
                action = phrasing.action
                break
        law_section = layout.law_section(unit)
        if match is None:
            if style.instruction_like.search(sentence):
                unread.append(
                    Unread(
                        law=law.version_id,
                        law_section=law_section,
                        char_start=start,
                        char_end=end,
                        text=sentence,
                    )
                )
            continue
        parent = next((contexts[k] for k in layout.chain(unit) if k in contexts), None)
        groups = match.groupdict()
        subject = groups.get("subject")
        if action == CONTEXT:
            found = targets.resolve(subject, parent)
            if unit >= 0:
                contexts[unit] = found[0]
            continue
        base = targets.resolve(subject, parent)
        made: list[tuple[Target, str | None]] = []
        if action in ("add_unit", "repeal") and groups.get("labels"):
            depth = style.units[groups["unit"].rstrip("s")] if groups.get("unit") else 0
            for group in label_groups(groups["labels"]):
                if depth == 0:
                    section = targets.section_number(group[0])
                    made.append(
                        (
                            Target(
                                document=base[0].document,
                                section=section,
                                law=base[0].law,
                            ),
                            None if section else group[0],
                        )
                    )
                else:
                    made.append((base[0].below(depth, group), group[-1]))
        else:
            made = [(target, None) for target in base]
        old = groups.get("old")
        new = groups.get("new")
        if groups.get("old_punct"):
            old = style.punctuation[groups["old_punct"]]
        if groups.get("new_punct"):
            new = style.punctuation[groups["new_punct"]]
        new_label = groups.get("new_label")
        if new_label is not None:
            new_label = new_label.strip('".')
        redesignated = None
        if action == "redesignate" and new_label and made:
            depth = style.units.get((groups.get("unit") or "").lower(), 0)
            redesignated = made[0][0].below(depth, (new_label,)) if depth else made[0][0]
        occurrence = next(
            o.number for o in find_occurrences(index, sentence) if o.char_start == start
        )
        texts = action not in ("redesignate",)
        if redesignated is not None and old is not None:
            # "... designated as paragraph (1) and amended by striking ...": a second
            # instruction, a strike and insert into the newly designated unit.
            made.append((redesignated, None))
        owners = []
        for k, (target, label) in enumerate(made):
            struck = texts or k > 0
            drafts.append(
                {
                    "law": law.version_id,
                    "law_section": law_section,
                    "action": action if k == 0 or action != "redesignate" else "strike_and_insert",
                    "target": target,
                    "old_text": old if struck else None,
                    "new_text": new if struck else None,
                    "new_label": new_label if action == "redesignate" and k == 0 else label,
                    "count": _count(match, style) if struck and old is not None else None,
                    "char_start": start,
                    "char_end": end,
                    "occurrence": occurrence,
                    "sentence": sentence,
                    "lines_of": label if action == "add_unit" else None,
                }
            )
            owners.append(len(drafts) - 1)
        if redesignated is not None and sentence.endswith(":") and unit >= 0:
            # "... designated as subsection (a) and is amended as follows:": the units below
            # amend the newly designated unit.
            contexts[unit] = redesignated
        if action in ("add_unit", "amend_to_read") and unit >= 0:
            # Should the law's own numbered sentences follow instead of quoted matter (a drafting
            # slip: "is amended to read as follows:" for "as follows:"), they read against this.
            contexts[unit] = base[0]
            block = _Quoted(unit=unit, end=layout.units[unit].unit.char_end, owners=owners)
            for k in owners:
                drafts[k]["block"] = block
    instructions = []
    for draft in drafts:
        block = draft.pop("block", None)
        label = draft.pop("lines_of")
        if block is not None and not block.lines and draft["sentence"].endswith(":"):
            continue  # its "as follows:" was followed by the law's own sentences: a context
        if block is not None:
            lines = _block_lines(block.lines, text, layout, label)
            draft["new_lines"] = lines
            draft["new_text"] = "\n\n".join(lines)
        draft["instruction_id"] = (
            "ins-"
            + content_id(
                [draft["law"], draft["char_start"], draft["target"].as_json(), draft["new_label"]]
            )[:20]
        )
        instructions.append(Instruction(**draft))
    return Reading(law=law.version_id, instructions=tuple(instructions), unread=tuple(unread))


def reading_as_json(reading: Reading, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What `workbench amendments --json` prints of a reading."""
    return {
        **(extra or {}),
        "law": reading.law,
        "instructions": [i.as_json() for i in reading.instructions],
        "unread": [u.as_json() for u in reading.unread],
    }
