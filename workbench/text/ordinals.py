"""The ordinal rule (C15): where a label stands in its sequence, with any insertion suffix, and
whether one label may follow another; it reads only the label and its level's sequence, and a label
it cannot read gives None, never a guess. The table of readings: docs/profiles.md."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

Ordinal = tuple[int, str]

# Latin multiplicatives mark an inserted unit in French, Italian and Belgian codes: `5 bis` between
# `5` and `6`, `5 ter` after it. The value orders them (`ter` after `bis`, `quater` after `ter`).
LATIN_INSERTIONS = {
    "bis": 2,
    "ter": 3,
    "quater": 4,
    "quinquies": 5,
    "sexies": 6,
    "septies": 7,
    "octies": 8,
    "novies": 9,
    "nonies": 9,
    "decies": 10,
}

_LATIN = "|".join(sorted(LATIN_INSERTIONS, key=len, reverse=True))
# An ordinal indicator after the digits: degree and masculine/feminine ordinal signs, French
# `1er`/`1re` (only the first is written so), `2ème`, English `1st`/`2nd`/`3rd`/`4th`.
_INDICATOR = re.compile(r"(?P<n>\d+)(?:°|º|ª|ème|eme|st|nd|rd|th|(?<=(?<!\d)1)(?:er|re))")
_MULTI_PART = re.compile(
    rf"[A-Za-z]{{0,3}}\d+(?:-\d+)*-(?P<n>\d+)(?P<s>[A-Za-z]*)(?:-(?P<t>{_LATIN}))?"
)
_NUMBER = re.compile(r"[A-Za-z]{0,3}?(?P<n>\d+)(?P<s>[A-Za-z]*)(?:-(?P<t>\S+))?")
# An article number with a letter prefix and a hyphen (`L-12`, `R-3`): the prefix names its run.
_PREFIXED = re.compile(r"[A-Z]{1,3}-(?P<n>\d+)(?P<s>[a-z]*)")
# The run a label with a letter prefix counts in: the prefix and any parts before the last
# (`L-12` counts in `L`, `L. 123-4` and `L123-4` in `L123-`).
_RUN = re.compile(r"(?P<prefix>[A-Z]{1,3})(?:-|\.?[ \t]?(?P<parts>(?:\d+-)+))\d+[a-z]*")
# One to three letters, or a longer Roman numeral (`viii`, `XXIII`: four letters and more).
_LETTERS = re.compile(r"(?P<l>[A-Za-z]{1,3}|[ivxlc]{4,9}|[IVXLC]{4,9})(?:-(?P<t>\S+))?")
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
# A well-formed Roman numeral up to 399 (C, X and I at most three times, IV/IX/XL/XC subtractive).
_ROMAN_STRICT = re.compile(r"c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})")
# Lower-case letters written apart after a number are its insertion suffix (`35 a` is 35a).
_LETTER_INSERTION = re.compile(r"[a-z]{1,2}")
_SUFFIX_TOKEN = re.compile(r"\.\d+|\d+|[A-Za-z]+")


def roman_value(letters: str) -> int | None:
    """The value of a Roman numeral written with I, V, X, L and C (either case), or None.

    Read additively with the subtractive rule (a letter before a larger one counts negative), as
    the parser always has for `sequence = "roman"`: `iv` is 4, `xii` 12.
    """
    values = [_ROMAN_VALUES.get(c) for c in letters.lower()]
    if not values or None in values:
        return None
    total = 0
    for k, value in enumerate(values):
        assert value is not None
        following = values[k + 1] if k + 1 < len(values) else None
        total += -value if following is not None and following > value else value
    return total


def is_roman(letters: str) -> bool:
    """True if `letters` is a well-formed Roman numeral (all upper or all lower case, I to CCCXCIX)."""
    return (
        bool(letters)
        and (letters.isupper() or letters.islower())
        and bool(_ROMAN_STRICT.fullmatch(letters.lower()))
    )


def _alphabet(letters: str, tail: str) -> Ordinal:
    """A letter's place in the alphabet; a doubled letter continues past `z` (`aa` is 27)."""
    first = ord(letters[0].lower()) - 96
    if len(letters) > 1 and len(set(letters.lower())) == 1:
        return first + 26 * (len(letters) - 1), tail
    return first, letters[1:] + tail


def numeral_value(numeral: str) -> int | None:
    """The value of a number written in a script's numerals that are no decimal digits (`十二` is
    12, `二十三` 23, `一百零五` 105, `Ⅳ` 4), each character's value read from Unicode
    (`unicodedata.numeric`), or None if a character has none or is a decimal digit (`12`, `١٢`:
    `int` reads those). The rule: a value under 10 is a digit (digits run on positionally: `二〇`
    is 20); a power of ten from 10 to 1000 multiplies the digits before it (one if none) and adds
    to the total; 10,000 and above multiply everything before them."""
    total = current = 0
    for char in numeral:
        value = unicodedata.numeric(char, None)
        if value is None or char.isdecimal() or value != int(value):
            return None
        if value < 10:
            current = current * 10 + int(value)
        elif value < 10_000:
            total += (current or 1) * int(value)
            current = 0
        else:
            total, current = (total + current) * int(value), 0
    return total + current if numeral else None


def ordinal(component: str, sequence: str = "numeric") -> Ordinal | None:
    """A label component's place in its sequence and its insertion suffix, or None.

    The rule, in order:

    1. Brackets, parentheses and a trailing `.` or `:` are ignored (`(5a)`, `aa)`, `IV.`).
    2. In brackets or parentheses, a decimal part is an insertion after the number before it:
       `(2.1)` is (2, ".1") and `(b.01)` (2, ".01"), between `(2)` and `(3)`, `(b)` and `(c)`.
    3. A last word that is a Latin multiplicative (`bis`, `ter`, `quater`, ... `decies`) is the
       insertion suffix of the word before it: `5 bis` is (5, "bis"); so are one or two lower-case
       letters after a word ending in a digit: `35 a` is (35, "a"), as `35a` is.
    4. Only the last remaining word counts, and of it only its last dotted part (`Appendix A` reads
       `A`, `137.077` reads `077`, `L. 111-1` reads `111-1`).
    5. A number with an ordinal indicator is that number: `1°`, `1º`, `1er`, `1re`, `2ème`, `3rd`.
    6. A multi-part number counts by its last part (`34-1432` is 1432, `L111-1` is 1, `3-2` is 2);
       letters or a Latin word after it are its suffix (`111-1-bis`).
    7. Digits after up to three letters (`R1`, `M2`, `L5`) give their number; letters or `-N` after
       them give the suffix (`5a` is (5, "a"), `3-bis` is (3, "bis")).
    8. With `sequence = "numeric"`, up to three capitals, a hyphen and digits are a number with
       a letter prefix: `L-12` is 12 (the prefix names its run: `run_of`).
    9. One to three letters (or a Roman numeral of four or more: `VIII`): with `sequence = "roman"` a Roman numeral (`iv` is 4); with any
       sequence but `alpha`, letters after a word that form a well-formed Roman numeral
       (`Titre IV`, `Chapter XII`, `PART I`) read as that numeral too; otherwise the first letter's
       place in the alphabet, a doubled letter continuing past `z` (`aa` is 27, `bb` 28), and the
       other letters (and a `-N` after them) the suffix (`a-1` is (1, "1")); with
       `sequence = "doubled"` a letter written twice or more counts from `aa` (`aa` 1, `bb` 2,
       `zz` 26, `aaa` 27) and any other letters are None.

    10. A script's numerals that are no decimal digits (`十二`, `Ⅻ`) are their value
       (`numeral_value`); decimal digits of any script (`١٢`, `१२`) are read as digits.

    Anything else (a word alone, punctuation) is None.
    """
    words = component.split()
    if not words:
        return None
    bracketed = words[-1].startswith(("(", "["))
    words = [w.strip("()[]").rstrip(".:").strip("()[]") for w in words]
    if bracketed and "." in words[-1]:
        head, _, decimal = words[-1].partition(".")
        read = ordinal(f"({head})", sequence)
        return (read[0], f"{read[1]}.{decimal}") if read is not None and decimal.isdigit() else None
    latin = ""
    if len(words) > 1 and words[-1].lower() in LATIN_INSERTIONS:
        latin = words.pop().lower()
    elif len(words) > 1 and words[-2][-1:].isdigit() and _LETTER_INSERTION.fullmatch(words[-1]):
        latin = words.pop()
    after_word = len(words) > 1
    core = words[-1].rsplit(".", 1)[-1] if words[-1] else ""
    if not core:
        return None
    if not core.isascii() and (value := numeral_value(core)) is not None:
        return value, latin  # a script's numerals that are no digits (`十二`, `Ⅻ`)
    indicated = _INDICATOR.fullmatch(core)
    if indicated:
        return int(indicated.group("n")), latin
    prefixed = _PREFIXED.fullmatch(core) if sequence == "numeric" else None
    if prefixed:
        return int(prefixed.group("n")), prefixed.group("s") + latin
    multi = _MULTI_PART.fullmatch(core)
    if multi:
        return int(multi.group("n")), multi.group("s") + (multi.group("t") or "") + latin
    number = _NUMBER.fullmatch(core)
    if number:
        return int(number.group("n")), number.group("s") + (number.group("t") or "") + latin
    match = _LETTERS.fullmatch(core)
    if not match:
        return None
    letters, tail = match.group("l"), (match.group("t") or "") + latin
    if sequence == "roman" or (sequence != "alpha" and after_word and is_roman(letters)):
        value = roman_value(letters)
        return (value, tail) if value else None
    if len(letters) > 3:
        return None  # four letters and more are a Roman numeral or nothing
    if sequence == "doubled":  # a level of doubled letters counts from `aa`
        doubled = len(letters) > 1 and len(set(letters.lower())) == 1
        return (_alphabet(letters, tail)[0] - 26, tail) if doubled else None
    return _alphabet(letters, tail)


def run_of(label: str, sequence: str = "numeric") -> str:
    """The run a label counts in: for a number with a letter prefix in a numeric sequence, the
    prefix and the parts before its last (`L-12` and `L-13` count in `L`, `R-3` in `R`,
    `L. 123-4` in `L123-`), a different run starting its own count; for any other label (and
    letters: `(A-1)` is an insertion after `(A)`), the one run `""`."""
    if sequence != "numeric":
        return ""
    found = _RUN.fullmatch(label.strip("()[]").rstrip(".:"))
    return found.group("prefix") + (found.group("parts") or "") if found else ""


def suffix_rank(suffix: str) -> tuple[int, ...]:
    """The order of insertion suffixes: none first, then by each letter's place or number.

    A Latin multiplicative counts as its value (`bis` 2, `ter` 3, `quater` 4), a letter as its
    place (`a` 1), digits as their number (`10` after `9`), a decimal part digit by digit (`.01`
    before `.1` before `.11` before `.2`), token by token (`a1` after `a`).
    """
    rank: list[int] = []
    for token in _SUFFIX_TOKEN.findall(suffix):
        if token.startswith("."):  # a decimal part: .01 before .1 before .11 before .2
            rank.extend(int(c) for c in token[1:])
        elif token.isdigit():
            rank.append(int(token))
        elif token.lower() in LATIN_INSERTIONS:
            rank.append(LATIN_INSERTIONS[token.lower()])
        else:
            rank.extend(ord(c) - 96 for c in token.lower())
    return tuple(rank)


def step_consistent(previous: Ordinal | None, current: Ordinal | None) -> bool:
    """May `current` follow `previous`, the last label of its level under the same parent?

    Yes when it is the first (`previous` None) and its ordinal is 1; when it is the next
    (`previous` + 1, whatever either suffix); or when it is an insertion after `previous`: the
    same number with a later suffix (`suffix_rank`: `5a` after `5`, `5b` after `5a`, `5 ter` after
    `5 bis`). A label the rule cannot read (None) is never consistent.
    """
    if current is None:
        return False
    if previous is None:
        return current[0] == 1
    if current[0] == previous[0] + 1:
        return True
    return current[0] == previous[0] and suffix_rank(current[1]) > suffix_rank(previous[1])


@dataclass(frozen=True, slots=True, kw_only=True)
class InconsistentStep:
    """A label that does not follow the previous label of its level under its parent.

    `label` is the label as a path element, `previous` the previous label of its level under the
    same parent (None for the first), `expected` the label the rule expected there
    (`expected_label`), `char_start` where the label begins in the version's text.
    """

    char_start: int
    level: str
    label: str
    previous: str | None
    expected: str

    def as_json(self) -> dict[str, Any]:
        return {
            "char_start": self.char_start,
            "level": self.level,
            "label": self.label,
            "previous": self.previous,
            "expected": self.expected,
        }


_INDICATORS = ("°", "º", "ª")


def _roman_numeral(value: int) -> str:
    out = []
    for size, letters in ((100, "c"), (90, "xc"), (50, "l"), (40, "xl"), (10, "x"), (9, "ix"),
                          (5, "v"), (4, "iv"), (1, "i")):  # fmt: skip
        count, value = divmod(value, size)
        out.append(letters * count)
    return "".join(out)


def _letters_for(value: int) -> str:
    """The alphabet's letter for a place, doubled past `z` (27 is `aa`)."""
    return chr(96 + (value - 1) % 26 + 1) * ((value - 1) // 26 + 1)


def expected_label(previous: str | None, label: str, sequence: str = "numeric") -> str:
    """The label the step rule expected where `label` stands: the next after `previous` (its
    number plus one, without insertion suffix), or the first (1) when there is no previous label,
    written in the shape of `previous` (else of `label`): digits stay digits with their prefix,
    parts and ordinal indicator (`34-1433`, `R2`, `2°`, `(6)`), letters stay letters of their
    case (`(c)`, `Titre V`). A label the rule cannot read is returned as it stands.
    """
    base = previous if previous is not None else label
    read = ordinal(base, sequence)
    if read is None:
        return label
    value = read[0] + 1 if previous is not None else 1
    words = base.split()
    if len(words) > 1 and words[-1].lower() in LATIN_INSERTIONS:
        words.pop()
    last = words[-1]
    head = last[: len(last) - len(last.lstrip("(["))]
    core = last[len(head) :]
    tail = core[len(core.rstrip(")].:")) :]
    core = core[: len(core) - len(tail)]
    dotted = core.rsplit(".", 1)
    lead, core = (dotted[0] + ".", dotted[1]) if len(dotted) == 2 else ("", core)
    digits = any(p.fullmatch(core) for p in (_INDICATOR, _MULTI_PART, _NUMBER, _PREFIXED))
    number = re.fullmatch(r"(?P<pre>.*?)(?P<n>\d+)(?P<rest>\D*)", core) if digits else None
    if number:
        kept = "".join(c for c in number.group("rest") if c in _INDICATORS)
        core = f"{number.group('pre')}{value}{kept}"
    else:
        letters = re.match(r"[A-Za-z]+", core)
        if letters is None:
            return label
        text = letters.group(0)
        roman = sequence == "roman" or (sequence != "alpha" and len(words) > 1 and is_roman(text))
        shift = 26 if sequence == "doubled" else 0  # a doubled level's `aa` is 1
        written = _roman_numeral(value) if roman else _letters_for(value + shift)
        core = written.upper() if text.isupper() else written
    return " ".join([*words[:-1], f"{head}{lead}{core}{tail}"])


def inconsistent_step(
    *, char_start: int, level: str, label: str, previous: str | None, sequence: str, dotted: bool
) -> InconsistentStep:
    """The record of an inconsistent step; a dotted label expects the previous one's last part
    counted on (`6.3` after `6.1`: `6.2` expected), or its own last part at 1 when first."""
    if not dotted:
        expected = expected_label(previous, label, sequence)
    else:
        base = (previous if previous is not None else label).split(".")
        last = base[-1] if previous is not None else None
        expected = ".".join((*base[:-1], expected_label(last, label.split(".")[-1], sequence)))
    return InconsistentStep(
        char_start=char_start, level=level, label=label, previous=previous, expected=expected
    )
