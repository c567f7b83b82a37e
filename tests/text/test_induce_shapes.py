"""The shapes the last round described, read by the automatic choice on corpora the tests build:
`§ N` statutes with `(1)`, `1.` and `a)` (a doubled-letter level `aa)` under `a)`), codes with
`N°` and `a)`, articles whose number carries a letter prefix and a hyphen; and the choice that
gives a family the induced profile where a shipped one reads it out of order."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from tests.text.test_induce import _laws
from tests.text.test_structure import _text_version
from workbench.evals.paths import label_key
from workbench.models import Version
from workbench.text.choice import choose_profile
from workbench.text.induce import induce_profile
from workbench.text.profiles import shipped_profiles
from workbench.text.shapes import label_token, resolve_letters
from workbench.text.structure import parse_structure, parse_text

Unit = tuple[int, tuple[str, ...]]  # (where its line starts, the keys of its path)
SYLLABLES = ("ka", "lo", "mi", "nu", "pe", "ro", "sa", "ti", "ve", "zu", "do", "ne")


def _words(rng: random.Random, count: int, lower: bool = False) -> str:
    """Made-up words, the first capitalised unless `lower` (a list item going on with the
    sentence before it): no language's words."""
    words = ["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 3))) for _ in range(count)]
    return " ".join(words) if lower else " ".join(words).capitalize()


class _Text:
    """A text being written line by line, each unit's line kept with its path of keys."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.units: list[Unit] = []
        self.at = 0

    def line(self, text: str, keys: tuple[str, ...] | None = None) -> None:
        if keys is not None:
            self.units.append((self.at, keys))
        self.lines.append(text)
        self.at += len(text) + 2  # the line and the blank line after it
        self.lines.append("")

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def _begin(version: int) -> tuple[random.Random, _Text]:
    """A version's made-up words (the same for the same version) and its text, opened by a title."""
    rng, out = random.Random(version), _Text()
    out.line(f"# {_words(rng, 3)}")
    return rng, out


def _numbers(last: int, version: int, *, inserted: tuple[int, str]) -> list[str]:
    """Units 1 to `last`, and from version 1 on an inserted unit (its place, its label)."""
    numbers = [str(n) for n in range(1, last + 1)]
    if version >= 1:
        numbers.insert(*inserted)
    return numbers


def _statute(version: int, lower: bool = False) -> tuple[str, list[Unit]]:
    """A `§ N` statute: sections with paragraphs `(1)`, items `1.`, letters `a)` and under `b)`
    doubled letters `aa) bb) cc)`; later versions insert `§ 4a` and drop a paragraph of § 2
    (the others renumbered)."""
    rng, out = _begin(version)
    for section in _numbers(8, version, inserted=(4, "4a")):
        out.line(f"§ {section} {_words(rng, 3)}", (section,))
        paragraphs = 2 if section == "2" and version >= 2 else 3
        for p in range(1, paragraphs + 1):
            out.line(f"({p}) {_words(rng, 9)}:", (section, str(p)))
            for item in range(1, 3 if p != 2 else 1):
                out.line(f"{item}. {_words(rng, 6, lower)};", (section, str(p), str(item)))
            if p == 2:
                for letter in "abc":
                    out.line(f"{letter}) {_words(rng, 6, lower)};", (section, str(p), letter))
                    if letter == "b":
                        for doubled in ("aa", "bb", "cc"):
                            keys = (section, str(p), letter, doubled)
                            out.line(f"{doubled}) {_words(rng, 5, lower)},", keys)
    return out.text, out.units


def _code(version: int, lower: bool = False) -> tuple[str, list[Unit]]:
    """A code: articles `Art. N.` with items `1°`, `2°` and letters `a)` under `2°`; later
    versions insert `Art. 3bis` and a `3°` in article 5."""
    rng, out = _begin(version)
    for article in _numbers(9, version, inserted=(3, "3bis")):
        out.line(f"Art. {article}. {_words(rng, 4)}", (article,))
        for item in range(1, 4 if article == "5" and version >= 2 else 3):
            out.line(f"{item}° {_words(rng, 8, lower)};", (article, str(item)))
            if item == 2:
                for letter in "ab":
                    out.line(f"{letter}) {_words(rng, 6, lower)};", (article, str(item), letter))
    return out.text, out.units


def _prefixed(version: int, lower: bool = False) -> tuple[str, list[Unit]]:
    """A code whose articles carry a letter prefix and a hyphen (`Art. L-12`), one run per
    prefix (`L-1` ... then `R-1` ...), each with items `1°`, `2°`; a later version inserts one."""
    rng, out = _begin(version)
    for prefix in "LR":
        for n in range(1, 9 + (version >= 1 and prefix == "L")):
            label = f"{prefix}-{n}"
            out.line(f"Art. {label}. {_words(rng, 4)}", (label.lower(),))
            for item in (1, 2):
                out.line(f"{item}° {_words(rng, 8, lower)}.", (label.lower(), str(item)))
    return out.text, out.units


def _right(text: str, parse: object, units: list[Unit]) -> float:
    """The share of units whose path read at the end of their line ends with their keys."""
    hits = 0
    for start, keys in units:
        end = text.find("\n", start)
        path = parse.path_at(end - 1)  # type: ignore[attr-defined]
        read = tuple(label_key(label).casefold() for label in path or ())
        hits += len(read) >= len(keys) and read[len(read) - len(keys) :] == keys
    return hits / len(units)


def _versions(texts: list[str], jurisdiction: str = "test") -> list[Version]:
    """The texts as one family's versions, oldest first, under a jurisdiction no profile names."""
    return [
        replace(_text_version(text, f"{jurisdiction}/fam/v{k}.md"), version_order=k,
                jurisdiction=jurisdiction)
        for k, text in enumerate(texts)
    ]  # fmt: skip


@pytest.mark.parametrize("lower", [False, True], ids=["items-capitalised", "items-lower-case"])
@pytest.mark.parametrize(
    "build",
    [
        pytest.param(_statute, id="section-sign-statute-with-doubled-letters"),
        pytest.param(_code, id="code-with-degree-items-and-letters"),
        pytest.param(_prefixed, id="code-with-prefixed-article-numbers"),
    ],
)
def test_the_automatic_choice_reads_the_shapes_the_last_round_described(
    build: Callable[[int, bool], tuple[str, list[Unit]]], lower: bool
) -> None:
    """Four versions of each corpus (units inserted, paragraphs renumbered), read by the
    automatic choice over the shipped profiles and the induced one: at least 90% of the units
    get their own label and path in every version, and no step is read out of order; list items
    whose text goes on in lower case (`a) the`, `1° les`) are read as those capitalised."""
    built = [build(v, lower) for v in range(4)]
    versions = _versions([text for text, _ in built])
    choice = choose_profile(versions, shipped_profiles())
    assert choice.how == "induced"
    for version, (text, units) in zip(versions, built, strict=True):
        parse = parse_structure(version, choice.profile)
        assert parse.inconsistent == 0
        assert _right(text, parse, units) >= 0.9


def test_doubled_letters_under_a_letter_are_a_level_of_their_own() -> None:
    """`aa) bb) cc)` between `b)` and `c)` are a level nested in the letters, counted `aa` 1:
    without it, the letters' level breaks its count at every `aa)` and is left out."""
    texts = [_statute(v)[0] for v in range(4)]
    induction = induce_profile(texts)
    doubled = [lv for lv in induction.levels if lv.shape.kind == "doubled-lower"]
    letters = [lv for lv in induction.levels if lv.shape.kind == "lower"]
    assert len(doubled) == 1 and len(letters) == 1
    assert doubled[0].rank > letters[0].rank and doubled[0].sequence == "doubled"
    parse = parse_text("v", texts[0], induction.profile())
    paths = {u.path[-2:] for u in parse.units if u.label in ("aa)", "bb)", "cc)")}
    assert paths == {("b)", "aa)"), ("b)", "bb)"), ("b)", "cc)")}


def test_an_article_prefix_starts_its_own_run() -> None:
    """`Art. L-8` then `Art. R-1`: the prefix is part of the label, and a new prefix counts from
    1 (no inconsistent step), where `R-1` after `L-8` under one count would be one."""
    text = _prefixed(0)[0]
    profile = induce_profile([text]).profile()
    parse = parse_text("v", text, profile)
    labels = [u.label for u in parse.units if len(u.path) == 1]
    assert labels == [f"{p}-{n}" for p in "LR" for n in range(1, 9)]
    assert parse.checked > 0 and parse.inconsistent == 0


def test_the_induced_profile_wins_where_a_shipped_one_reads_more_out_of_order(
    tmp_path: Path,
) -> None:
    """A Luxembourg regulation the flat `generic` profile read with more net consistent steps,
    out of order five times as often as the induced profile (which leaves its numbered list
    unchecked): the induced profile is chosen, and reads more of the truth's units than generic."""
    versions = _versions(_laws("lu", tmp_path)["lu/leg-rgd-1998-10-31-n2.md"], "lu")
    shipped = shipped_profiles()
    choice = choose_profile(versions, shipped)
    assert choice.how == "induced"
    assert choice.rival is not None and choice.rival[0] == "generic"
    good, bad = choice.rival[1:]
    assert good - bad > choice.consistent - choice.inconsistent  # more net steps, out of order


@pytest.mark.parametrize(
    ("labels", "kinds"),
    [
        pytest.param(
            ["a)", "b)", "aa)", "bb)", "c)"],
            ["lower", "lower", "doubled-lower", "doubled-lower", "lower"],
            id="doubled-under-a-letter",
        ),
        pytest.param(["y)", "z)", "aa)", "bb)"], ["lower"] * 4, id="doubled-after-z-continue"),
        pytest.param(
            ["(A)", "(AA)", "(BB)"],
            ["upper", "doubled-upper", "doubled-upper"],
            id="upper-case-in-parentheses",
        ),
        pytest.param(["i)", "ii)", "iii)"], ["roman-lower"] * 3, id="roman-numerals-stay-roman"),
    ],
)
def test_a_doubled_letter_continues_the_alphabet_only_after_z(
    labels: list[str], kinds: list[str]
) -> None:
    tokens = [label_token(f"{label} Ka lo", 10 * k, 0, "body")[0] for k, label in enumerate(labels)]
    assert [t.shape.kind for t in resolve_letters(tokens)] == kinds
