"""Drafting styles (C19): how a legislature words its amending instructions, as one TOML file read
strictly, every pattern under the budget of a pattern read as data, the same bytes giving the same
compiled style."""

from __future__ import annotations

import functools
import hashlib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from workbench.bounds import BudgetedPattern, check_toml_nesting, compile_budgeted
from workbench.errors import AmendmentError

STYLES_DIR = Path(__file__).resolve().parent / "drafting"

Action = Literal[
    "strike_and_insert", "strike", "add_unit", "amend_to_read", "redesignate", "repeal"
]
ACTIONS: tuple[str, ...] = get_args(Action)
# A sentence that names the unit its sub-items amend ("... is amended as follows:").
CONTEXT = "context"

_TOP = {
    "name": str,
    "description": str,
    "applies_to": list,
    "publisher_markup": list,
    "effective_element": str,
    "notes_element": str,
    "quotation_element": str,
    "law_families": str,
    "act_citation": str,
    "code_citation": str,
    "code_of": str,
    "instruction_like": str,
    "units": dict,
    "punctuation": dict,
    "counts": dict,
    "fragments": dict,
    "phrasings": list,
}
_OPTIONAL = {"cross_references": dict}
_CROSS_REFERENCE_KEYS = ("source_note", "act_section", "code_section")
_FRAGMENT = re.compile(r"<<([a-z_]+)>>")


@dataclass(frozen=True, slots=True, kw_only=True)
class CrossReferenceStyle:
    """How the codifier rewrites a law's reference to a section of the Act it amends.

    `source_note` finds, in a Code release's notes, the Act section it codifies (groups `law`
    and `section`: "D.C. Law 15-340, § 8a"); `act_section` finds such a reference in a law's
    quoted text (group `section`: "section 8a"); `code_section` is how the Code writes the Code
    section instead, with `{code_section}` in it ("§ {code_section}")."""

    source_note: BudgetedPattern
    act_section: BudgetedPattern
    code_section: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Phrasing:
    """One way of wording an instruction: its action (or `context`) and its compiled pattern."""

    action: str
    pattern: BudgetedPattern


# eq=False: compared and hashed by identity; `load_style` returns one object per file's bytes.
@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class DraftingStyle:
    """A compiled drafting style and the SHA-256 of the file it came from."""

    name: str
    description: str
    applies_to: tuple[str, ...]
    publisher_markup: frozenset[str]
    effective_element: str
    notes_element: str
    quotation_element: str
    law_families: str  # a pattern the held families that are laws match
    act_citation: str  # a pattern naming an Act in a Code release's notes, group `number`
    code_citation: BudgetedPattern
    code_of: str
    instruction_like: BudgetedPattern
    # The three patterns above kept as text (a reading records them), compiled; `code_of` empty
    # says no subject names the Code by its title alone (None).
    law_families_pattern: BudgetedPattern
    act_citation_pattern: BudgetedPattern
    code_of_pattern: BudgetedPattern | None
    units: Mapping[str, int]
    punctuation: Mapping[str, str]
    counts: Mapping[str, int | str]
    phrasings: tuple[Phrasing, ...]
    sha256: str
    cross_references: CrossReferenceStyle | None = None

    def as_json(self) -> dict[str, Any]:
        """What a reading records of the style that read it."""
        return {"name": self.name, "sha256": self.sha256}


def _fail(origin: str, key: str, expected: str) -> AmendmentError:
    return AmendmentError(f"{origin}: {key}: {expected}")


def _compile(pattern: str, origin: str, key: str) -> BudgetedPattern:
    return compile_budgeted(pattern, f"{origin}: {key}", AmendmentError)


def _expand(pattern: str, fragments: Mapping[str, str], origin: str, key: str) -> str:
    """`pattern` with every <<name>> replaced by its fragment, fragments within fragments too."""
    for _ in range(len(fragments) + 1):
        missing = [n for n in _FRAGMENT.findall(pattern) if n not in fragments]
        if missing:
            raise _fail(origin, key, f"fragment <<{missing[0]}>> is not defined in [fragments]")
        expanded = _FRAGMENT.sub(lambda m: fragments[m.group(1)], pattern)
        if expanded == pattern:
            return pattern
        pattern = expanded
    raise _fail(origin, key, "fragments refer to each other in a loop")


@functools.lru_cache(maxsize=16)
def parse_style(source: bytes, origin: str) -> DraftingStyle:
    """Compile a style file's bytes; `origin` names it in errors."""
    try:
        text = source.decode("utf-8")
        check_toml_nesting(text, lambda why: _fail(origin, "file", why))
        table = tomllib.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise _fail(origin, "file", f"not a TOML file ({error})") from error
    for key, value in table.items():
        kind = _TOP.get(key, _OPTIONAL.get(key))
        if kind is None:
            raise _fail(origin, key, "unknown key")
        if not isinstance(value, kind):
            raise _fail(origin, key, f"expected {kind.__name__}")
    for key in _TOP:
        if key not in table:
            raise _fail(origin, key, "missing")
    fragments = {str(k): str(v) for k, v in table["fragments"].items()}
    phrasings = []
    for index, entry in enumerate(table["phrasings"]):
        where = f"phrasings[{index}]"
        if not isinstance(entry, dict) or set(entry) != {"action", "pattern"}:
            raise _fail(origin, where, "expected a table with action and pattern")
        if entry["action"] not in (*ACTIONS, CONTEXT):
            raise _fail(origin, f"{where}.action", f"expected one of {', '.join(ACTIONS)}, context")
        expanded = _expand(str(entry["pattern"]), fragments, origin, f"{where}.pattern")
        phrasings.append(
            Phrasing(action=entry["action"], pattern=_compile(expanded, origin, f"{where}.pattern"))
        )
    counts: dict[str, int | str] = {}
    for phrase, value in table["counts"].items():
        if not (value == "all" or (isinstance(value, int) and value > 0)):
            raise _fail(origin, f"counts.{phrase}", 'expected a number above 0 or "all"')
        counts[phrase] = value
    return DraftingStyle(
        name=table["name"],
        description=table["description"],
        applies_to=tuple(str(j) for j in table["applies_to"]),
        publisher_markup=frozenset(str(n) for n in table["publisher_markup"]),
        effective_element=table["effective_element"],
        notes_element=table["notes_element"],
        quotation_element=table["quotation_element"],
        law_families=table["law_families"],
        act_citation=table["act_citation"],
        code_citation=_compile(table["code_citation"], origin, "code_citation"),
        code_of=table["code_of"],
        law_families_pattern=_compile(table["law_families"], origin, "law_families"),
        act_citation_pattern=_compile(table["act_citation"], origin, "act_citation"),
        code_of_pattern=_compile(table["code_of"], origin, "code_of") if table["code_of"] else None,
        instruction_like=_compile(table["instruction_like"], origin, "instruction_like"),
        units={str(k): int(v) for k, v in table["units"].items()},
        punctuation={str(k): str(v) for k, v in table["punctuation"].items()},
        counts=counts,
        phrasings=tuple(phrasings),
        sha256=hashlib.sha256(source).hexdigest(),
        cross_references=_cross_references(table.get("cross_references"), origin),
    )


def _cross_references(table: Mapping[str, Any] | None, origin: str) -> CrossReferenceStyle | None:
    if table is None:
        return None
    if sorted(table) != sorted(_CROSS_REFERENCE_KEYS) or not all(
        isinstance(v, str) for v in table.values()
    ):
        raise _fail(
            origin, "cross_references", f"expected strings {', '.join(_CROSS_REFERENCE_KEYS)}"
        )
    note = _compile(table["source_note"], origin, "cross_references.source_note")
    act = _compile(table["act_section"], origin, "cross_references.act_section")
    if not {"law", "section"} <= set(note.groupindex) or "section" not in act.groupindex:
        raise _fail(
            origin,
            "cross_references",
            "source_note needs groups law and section, act_section a group section",
        )
    if "{code_section}" not in table["code_section"]:
        raise _fail(origin, "cross_references.code_section", "expected {code_section} in it")
    return CrossReferenceStyle(
        source_note=note, act_section=act, code_section=table["code_section"]
    )


def find_style(jurisdiction: str) -> DraftingStyle | None:
    """The shipped style naming `jurisdiction` in `applies_to` (files in name order, the first
    that names it), or None where none does: that jurisdiction's laws are not read."""
    for path in sorted(STYLES_DIR.glob("*.toml")):
        style = parse_style(path.read_bytes(), f"shipped:{path.name}")
        if jurisdiction in style.applies_to:
            return style
    return None


def style_for(jurisdiction: str) -> DraftingStyle:
    """The shipped style naming `jurisdiction` (`find_style`); `AmendmentError` if none does."""
    style = find_style(jurisdiction)
    if style is not None:
        return style
    raise AmendmentError(
        f"{jurisdiction}: no drafting style names this jurisdiction; expected one of "
        f"{', '.join(sorted(p.stem for p in STYLES_DIR.glob('*.toml')))}"
    )
