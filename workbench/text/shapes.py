"""Label shapes (C15): what the label opening a line looks like, read without any profile, and the
pattern a profile level uses for it; a shape depends only on the line's own characters and, for
letters that read both ways, its neighbours of the same shape."""

from __future__ import annotations

import functools
import re
import string
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from workbench.text.ordinals import LATIN_INSERTIONS, Ordinal, is_roman, numeral_value, ordinal

Kind = Literal[
    "digits", "dotted", "letter-dotted", "hyphenated", "degree", "lower", "upper", "roman-lower",
    "roman-upper", "letters-lower", "letters-upper", "word", "numeral", "doubled-lower",
    "doubled-upper", "prefixed",
]  # fmt: skip
Place = Literal["heading", "margin", "body"]

MAX_WORD = 12  # letters in the word before a number: `Verordnung` fits, a sentence's word rarely

# A number written as a word, after a heading's word, alone on its line (`PART FIRST`): its value
# is an ordinal word's (`ordinal_words`) or its place in the texts' own order.
_WORD_NUMBER = re.compile(r"(?P<number>[^\W\d_]{2,})\.?")
_NUMERAL_MARKS = "、.．"  # marks after a script's numerals (`一、`), as `.` after `1`
_LATIN_WORDS = "|".join(sorted(LATIN_INSERTIONS, key=len, reverse=True))
# An inserted unit's suffix fused to its number: one or two letters (`10a`) or a Latin
# multiplicative (`14bis`, as `14*bis*` reads with its emphasis left out).
_NUMBER = re.compile(
    r"(?P<open>\()?"
    r"(?:(?P<dotted>\d+(?:\.\d+)+)"
    r"|(?<!\()(?P<prefixed>[A-Z]{1,2}(?:-\d+|\.[ \t]?\d+(?:-\d+)+)[a-z]?)"
    r"|(?P<letter_dotted>[A-Z](?:\.\d+)+)"
    r"|(?P<hyphenated>(?P<hprefix>[A-Z]{1,2})?\d+(?:-\d+)+(?:\.\d+)?[a-z]?)"
    r"|(?P<degree>\d+(?:°|º|er|re))"
    r"|(?P<prefix>[A-Z]{1,2})?(?P<digits>\d+)"
    rf"(?P<insert>(?:{_LATIN_WORDS})(?![a-z])|[a-z]{{0,2}}|[A-Z](?=\)))"
    r"|(?P<letters>[A-Za-z]{1,4})(?P<sub>-(?:\d+|[a-z]{1,3})|\.\d+(?=\)))?)"
    r"(?P<close>\))?(?P<mark>[.:])?"
)
# A word written after a bare number names its level, as a word before one does (`1 §`, `2 luku.`):
# a sign, or a lower-case word of at most `MAX_WORD` letters, with or without a dot. An upper-case
# word there starts the title (`1 This Act`), and a lower-case one with neither a dot nor a title
# after it continues a sentence (`3 days after`). One or two lower-case letters between the number
# and the word are an inserted unit's letters (`35 a §`: its own unit, after `35 §`).
_AFTER = re.compile(
    rf"(?:(?P<insert>[a-z]{{1,2}})[ \t]+)?(?P<after>§§?|[^\W\d_]{{1,{MAX_WORD}}})(?P<dot>\.)?(?=[ \t]|$)"
)
_LATIN = re.compile(rf"(?:{_LATIN_WORDS})\b")
# What may start the text after a number with no marks: not a lower-case letter, a digit or the
# punctuation that continues a number or a sentence ("1 75.00", "2 percent", "5, 6"), unless
# it is another label ("2° a) The Fund", "5 1. Scope").
TITLE_START = r"(?:[^\sa-z0-9.,;:%/\-–—+=×]|(?:[a-z]{1,3}|\d{1,3})[.)](?:[ \t]|$))"
_TITLE_START = re.compile(TITLE_START)
_DASHES = "—–-"
_ROMAN_FOLLOWER = {"i": "ii", "v": "vi", "x": "xi", "l": "li", "c": "ci"}
_ROMAN_BEFORE = {"v": "iv", "x": "ix", "l": "xl", "c": "xc"}


@dataclass(frozen=True, slots=True, kw_only=True, order=True)
class Shape:
    """A label with its number abstracted (see the module docstring); sortable, so ties break alike.

    `word` is the shape's word in lower case without its dot (`sec` for `SEC.` and `Section`: the
    shorter spelling names the shape), `prefix` the letters fused before the digits, `open` a `(`
    before the number, `close` what follows it (`)`, `.`, `:` or nothing), `after` the word that
    follows a bare number instead (`1 §`, `2 luku.`: the word written after the number, lower case).
    """

    place: Place
    word: str
    prefix: str
    kind: Kind
    open: bool
    close: str
    after: str = ""

    def describe(self) -> str:
        """The shape as people write it: `SEC. 1.`, `(a)`, `R1.`, `6.1.2`, `Titre IV`."""
        example = {
            "digits": "1", "dotted": "1.1", "letter-dotted": "A.1", "hyphenated": "1-1",
            "degree": "1°", "lower": "a", "upper": "A", "roman-lower": "i", "roman-upper": "I",
            "letters-lower": "a", "letters-upper": "A", "word": "<word>", "numeral": "<numeral>",
            "doubled-lower": "aa", "doubled-upper": "AA", "prefixed": "A-1",
        }[self.kind]  # fmt: skip
        close = "." if self.close == ".?" else self.close
        number = f"{'(' if self.open else ''}{self.prefix}{example}{close}"
        if self.after:
            number = f"{number} {self.after}"
        return f"{self.word} {number}" if self.word else number


@dataclass(frozen=True, slots=True, kw_only=True)
class Token:
    """One label read on one line: its shape, the label as a path element and as printed.

    `number` is what a profile's `number` group captures (the number with its parentheses, without
    a word or a trailing `.`), `word` the word as printed, `latin` a Latin insertion word after the
    number (`bis`), `title` the text after the label, `inner` True for a label that follows another
    on the same line (`(a-1) (1) For ...`).
    """

    shape: Shape
    number: str
    word: str
    latin: str
    title: str
    char_start: int
    indent: int
    inner: bool = False
    heading_depth: int = 0  # the `#` marks of the Markdown heading it stands in (0: none)
    dash: bool = False  # a dash right after the number, no space between (`ARTICULO 18.—`)
    value: int | None = None  # a number written as a word: its place (`ordinal_words`)
    alone: bool = False  # a number alone on a line the layout sets as a heading (`alone_label`)

    @property
    def sequence(self) -> str:
        """The ordinal rule's sequence for this token's kind."""
        if self.shape.kind.startswith("roman"):
            return "roman"
        if self.shape.kind.startswith("doubled"):
            return "doubled"
        return "alpha" if self.shape.kind in ("lower", "upper") else "numeric"

    @property
    def ordinal(self) -> Ordinal | None:
        """The token's place in its sequence (`ordinals.ordinal`; a dotted number's last part;
        a number written as a word, its `value`)."""
        if self.shape.kind == "word":
            return None if self.value is None else (self.value, "")
        number = self.number.split(".")[-1] if self.shape.kind == "dotted" else self.number
        return ordinal(f"{number} {self.latin}".strip(), self.sequence)


def word_key(word: str) -> str:
    """The shape's name for a word: lower case, no dot, no accents (`SEC.` -> `sec`; `Título`
    and `TITULO` are one word, printed with and without its accent)."""
    folded = unicodedata.normalize("NFKD", word.rstrip(".").lower())
    return "".join(c for c in folded if not unicodedata.combining(c))


def same_word(a: str, b: str) -> bool:
    """True if two word keys are spellings of one word: one is the other's start (`sec`, `section`)."""
    return a.startswith(b) or b.startswith(a)


def _number(text: str, *, dash: bool = False) -> tuple[re.Match[str], str] | None:
    """The number token at the start of `text`, followed by white space or the end (or, with
    `dash`, a dash: after a word, `ARTICULO 18.—` sets its title apart so), and a Latin insertion
    word after it if there is one."""
    match = _NUMBER.match(text)
    if not match or (match.group("open") and not match.group("close")):
        return None  # "(a" is no label; "a)" is
    rest = text[match.end() :]
    if rest and rest[0] not in " \t" and not (dash and rest[0] in _DASHES):
        return None
    latin = _LATIN.match(rest.lstrip(" \t"))
    if latin and match.group("mark") is None:
        return match, latin.group(0)
    return match, ""


def _kind(match: re.Match[str], after_word: bool) -> tuple[str, Kind] | None:
    """The prefix and kind of a number token, or None if it is no label here."""
    if match.group("dotted"):
        # In parentheses a decimal part is an insertion ("(2.1)" between "(2)" and "(3)").
        return "", "digits" if match.group("open") and match.group(0).count(".") == 1 else "dotted"
    if match.group("prefixed"):
        # `Art. L-12`, `§ A-7`, `Art. L. 123-4`: a number with a letter prefix, after a word only
        # (alone, `A-1` may be a form's field or a grid reference)
        return ("", "prefixed") if after_word else None
    if match.group("letter_dotted"):
        return "", "letter-dotted"
    if match.group("hyphenated"):
        return match.group("hprefix") or "", "hyphenated"
    if match.group("degree"):
        return "", "degree"
    if match.group("digits"):
        return match.group("prefix") or "", "digits"
    letters = match.group("letters")
    decorated = match.group("open") or match.group("close") or match.group("mark") == "."
    if not (letters.islower() or letters.isupper()) or not (decorated or after_word):
        return None  # a word, not a label
    if len(letters) > 1 and not is_roman(letters) and len(set(letters.lower())) > 1:
        return None  # "Mr.", "NO.", "Act": a word or an abbreviation
    return "", "letters-lower" if letters.islower() else "letters-upper"


def label_token(content: str, start: int, indent: int, place: Place) -> list[Token]:
    """The labels opening a line's `content` (white space trimmed; it begins at offset `start`).

    A label is an optional word (`§`, `§§`, or a capitalised word of at most `MAX_WORD` letters,
    with or without a dot) and white space, then a number token followed by white space or the end
    of the line (a Latin insertion word after it belongs to it). A number with no parenthesis
    (before or after it: `a) the` is a label), no ordinal indicator (`1° les`) and no `.` or `:`
    after it is a label only when the text after it may start a title: not a
    lower-case letter, a digit or punctuation that continues a number (`TITLE_START`: `1 This
    Act`, not `1 75.00`; `Section 2 Scope`, not `Section 2 of the Act`), or, after a word, when
    nothing follows (`Titre IV`); letters are a
    label only with marks (`(a)`, `a)`, `A.`) or after a word (`Appendix A`).
    Further labels right after the first on the same line are read too (`(a-1) (1) For`). Lines
    that are a table-of-contents entry are no labels (the caller skips them).
    """
    tokens: list[Token] = []
    at = 0
    if place == "heading":
        named = _word_number(content, start, indent)
        if named is not None:
            return [named]
    numeral = _numeral(content, start, indent, place)
    if numeral is not None:
        return [numeral]
    while True:
        rest = content[at:]
        found = _read_one(rest, allow_word=not tokens)
        if found is None:
            break
        word, match, latin, used = found
        kinds = _kind(match, bool(word))
        if kinds is None:
            break
        prefix, kind = kinds
        title = rest[used:].strip()
        after = ""
        if not word and not match.group("open") and not match.group("mark") and kind == "digits":
            after, insert, title, used = _word_after(rest, used, title)
            latin = latin or insert
        # A closing parenthesis or an ordinal indicator marks a label as a `.` does: its text may
        # go on in lower case (`a) the`, `1° les`, continuing the sentence before the list).
        marked = (
            match.group("open") or match.group("mark") or match.group("close") or kind == "degree"
        )
        if not after and not marked:
            starts = bool(title) and bool(_TITLE_START.match(title))
            # After a word, a dash sets the title apart (`Art. 2º — The`, `Section 4 - Scope`).
            starts = starts or (bool(word) and title[:1] in _DASHES)
            if not (starts or (word and not title)):
                break  # "1 75.00", "Section 2 of D.C. Law", "The 2015 amendment": no label
        close = (match.group("close") or "") + (match.group("mark") or "")
        if word and kind == "degree":
            kind = "digits"  # after a word, `Art. 2º` and `Art. 10`: one shape, the sign comes and goes
        numbered = kind in ("digits", "prefixed")
        if close in ("", ".") and (kind == "dotted" or prefix or (word and numbered)):
            # "1.1." and "1.1", "R1." and "R1", `Art. 10 —` and `Art. 11. —`: one shape, the
            # dot comes and goes
            close = ".?"
        shape = Shape(
            place=place,
            word=word_key(word),
            prefix=prefix,
            kind=kind,
            open=bool(match.group("open")),
            close=close,
            after=after,
        )
        number = match.group(0)[: len(match.group(0)) - len(match.group("mark") or "")]
        tokens.append(
            Token(
                shape=shape,
                number=number,
                word=word,
                latin=latin,
                title=title,
                char_start=start + at,
                indent=indent,
                inner=bool(tokens),
                dash=bool(word) and rest[used : used + 1] in _DASHES,
            )
        )
        skip = len(rest[used:]) - len(rest[used:].lstrip(" \t"))
        if skip == 0 or not title:
            break
        at += used + skip
    return tokens


def alone_label(content: str, start: int) -> Token | None:
    """A number standing alone on a line the layout sets as a heading (a PDF's larger type:
    `12`, `IV`, `A.`), or None: the line's `content` (white space trimmed, at offset `start`) is
    one number token and nothing else, read as after a word (letters are a label with no marks),
    at the `margin` place, with no title. `label_token` takes no such line: in running text a
    number alone on its line is as often a figure as a label."""
    found = _number(content)
    if found is None:
        return None
    match, latin = found
    if content[match.end() :].strip() != latin:
        return None
    kinds = _kind(match, True)
    if kinds is None:
        return None
    prefix, kind = kinds
    close = (match.group("close") or "") + (match.group("mark") or "")
    if close in ("", ".") and (kind == "dotted" or prefix):
        close = ".?"  # "1.1." and "1.1", "R1." and "R1": one shape, as `label_token` reads it
    shape = Shape(place="margin", word="", prefix=prefix, kind=kind,
                  open=bool(match.group("open")), close=close)  # fmt: skip
    number = match.group(0)[: len(match.group(0)) - len(match.group("mark") or "")]
    return Token(shape=shape, number=number, word="", latin=latin, title="", char_start=start,
                 indent=0, alone=True)  # fmt: skip


def _word_after(rest: str, used: int, title: str) -> tuple[str, str, str, int]:
    """(the word after a bare number, the inserted unit's letters before it, the title after the
    word, characters used), or no word and the arguments unchanged (the rule is at `_AFTER`)."""
    found = _AFTER.match(title)
    if found is None:
        return "", "", title, used
    after = found.group("after")
    remainder = title[found.end() :].strip()
    sign = not after[0].isalpha()
    if not (sign or after.islower()):
        return "", "", title, used
    if not (sign or found.group("dot") or not remainder or _TITLE_START.match(remainder)):
        return "", "", title, used
    insert = found.group("insert") or ""
    return word_key(after), insert, remainder, rest.index(title, used) + found.end()


def _word_at(text: str) -> str | None:
    """The word opening `text`, or None: `§` or `§§`, or a letter that is not lower case (a
    capital, or a letter of a script without case: `المادة`) and at most `MAX_WORD` letters in
    all, combining marks among them (`अनुच्छेद`), then a dot if there is one. Numerals that are
    letters (`一`, `十`) open no word: they are a number (`_numeral`)."""
    if text.startswith("§"):
        return "§§" if text.startswith("§§") else "§"
    if not text or not text[0].isalpha() or text[0].islower() or _is_numeral(text[0]):
        return None
    end = 1
    while end < len(text) and end < MAX_WORD and _in_word(text[end]):
        end += 1
    return text[: end + 1] if text[end : end + 1] == "." else text[:end]


def _in_word(char: str) -> bool:
    return char.isalpha() or unicodedata.category(char).startswith("M")


def _is_numeral(char: str) -> bool:
    """A character with a numeric value that is no decimal digit (`十`, `Ⅻ`), outside ASCII, and
    no superscript or subscript (`¹` marks a footnote)."""
    return (
        not char.isascii()
        and not char.isdecimal()
        and unicodedata.numeric(char, None) is not None
        and not unicodedata.decomposition(char).startswith(("<super>", "<sub>"))
    )


def _numeral(content: str, start: int, indent: int, place: Place) -> Token | None:
    """A label in a script's numerals that are no digits, with its one-letter markers: a letter
    before (`第`) and a letter or a mark after (`条`, `章`, `、`), at least one of them, then white
    space or the end (`第十二条 ...`, `第一章`): the numerals' value is `ordinals.numeral_value`."""
    at = 1 if content[:1].isalpha() and not _is_numeral(content[0]) else 0
    end = at
    while end < len(content) and _is_numeral(content[end]):
        end += 1
    if end == at or numeral_value(content[at:end]) is None:
        return None
    after = content[end : end + 1]
    marker = after.isalpha() and not _is_numeral(after)
    mark = after if not marker and after in _NUMERAL_MARKS else ""
    used = end + (1 if marker or mark else 0)
    if not (at or marker or mark) or (used < len(content) and not content[used].isspace()):
        return None
    shape = Shape(place=place, word=content[:at], prefix="", kind="numeral", open=False,
                  close=mark, after=after if marker else "")  # fmt: skip
    return Token(shape=shape, number=content[at:end], word=content[:at], latin="",
                 title=content[used:].strip(), char_start=start, indent=indent)  # fmt: skip


def _word_number(content: str, start: int, indent: int) -> Token | None:
    """A heading that is a word and a number written as a word, nothing after (`PART FIRST`),
    when the number is no label `_read_one` reads (`PART IV` is a Roman numeral)."""
    word = _word_at(content)
    if not word or not content[len(word) : len(word) + 1].isspace() or word == "§":
        return None
    after = content[len(word) :].lstrip()
    named = _WORD_NUMBER.fullmatch(after)
    if named is None or not word[0].isupper():
        return None
    found = _read_one(content, allow_word=True)
    if found is not None and _kind(found[1], True) is not None:
        return None
    shape = Shape(place="heading", word=word_key(word), prefix="", kind="word",
                  open=False, close="")  # fmt: skip
    return Token(shape=shape, number=named.group("number"), word=word, latin="",
                 title="", char_start=start, indent=indent)  # fmt: skip


def _read_one(rest: str, *, allow_word: bool) -> tuple[str, re.Match[str], str, int] | None:
    """(word as printed, number match, Latin word, characters used) for the label opening `rest`."""
    if allow_word:
        word = _word_at(rest)  # a word that opens a label is not lower case
        if word and rest[len(word) : len(word) + 1] in (" ", "\t"):
            after = rest[len(word) :].lstrip(" \t")
            found = _number(after, dash=True)
            if found is not None:
                match, latin = found
                used = len(rest) - len(after) + match.end()
                if latin:
                    used = rest.index(latin, used) + len(latin)
                return word, match, latin, used
    found = _number(rest)
    if found is None:
        return None
    match, latin = found
    used = match.end() + (rest.index(latin, match.end()) - match.end() + len(latin) if latin else 0)
    return "", match, latin, used


def resolve_letters(tokens: Sequence[Token]) -> list[Token]:
    """Tokens of one text in order, each "letters" kind made alphabetic, Roman or doubled by its
    neighbours.

    Among the tokens of one shape (place, word, marks, case), letters that are no Roman numeral
    are alphabetic. A Roman numeral of two or more letters is Roman, unless the previous token of
    its shape was the alphabetic letter before it (`bb` then `cc`). A single `i`, `v`, `x`, `l` or
    `c` is Roman when the next token of its shape is the Roman numeral after it (`i` then `ii`),
    when the previous is the Roman numeral before it (`iv` then `v`), or when it is `i` and the
    previous token is not `h`; otherwise it is alphabetic (`h` then `i` then `j`; `b` then `c`).
    A doubled letter that is not Roman (`aa`, `bb`, `AA`) continues the alphabet only after `z`
    (and the doubled letters that continued it); anywhere else it is a level of its own
    (`doubled-lower`, `doubled-upper`: `a) aa) bb) b)`), counted `aa` 1, `bb` 2.
    """
    groups: dict[Shape, list[int]] = {}
    for k, token in enumerate(tokens):
        if token.shape.kind.startswith("letters"):
            groups.setdefault(token.shape, []).append(k)
    out = list(tokens)
    for indices in groups.values():
        letters = [tokens[k].number.strip("()").split("-")[0] for k in indices]
        past_z = False  # the alphabet ran to `z`: doubled letters continue it
        for n, k in enumerate(indices):
            here = letters[n].lower()
            before = letters[n - 1].lower() if n else ""
            after = letters[n + 1].lower() if n + 1 < len(indices) else ""
            roman = _is_roman_here(here, before, after)
            doubled = not roman and len(here) > 1 and len(set(here)) == 1
            if not doubled:
                past_z = here == "z"
            upper = tokens[k].shape.kind.endswith("upper")
            kind: Kind = (
                ("roman-upper" if upper else "roman-lower")
                if roman
                else ("doubled-upper" if upper else "doubled-lower")
                if doubled and not past_z
                else ("upper" if upper else "lower")
            )
            out[k] = replace(tokens[k], shape=replace(tokens[k].shape, kind=kind))
    return out


def _is_roman_here(here: str, before: str, after: str) -> bool:
    if not is_roman(here):
        return False
    if len(here) > 1:
        doubled = len(set(here)) == 1 and len(set(before)) == 1 and len(before) == len(here)
        return not (doubled and ord(before[0]) + 1 == ord(here[0]))
    if after == _ROMAN_FOLLOWER.get(here) or (before and before == _ROMAN_BEFORE.get(here)):
        return True
    return here == "i" and before != "h"


_INDICATORS = r"(?:°|º|er|re)"
_FUSED = rf"(?:(?:{_LATIN_WORDS})(?![a-z])|[a-z]{{1,2}}|[A-Z](?=\)))"  # `10a`, `14bis`, `(4A)`
_NUMBER_PATTERN: dict[str, str] = {
    "digits": rf"\d+{_FUSED}?",
    "dotted": r"\d+(?:\.\d+)+",
    "letter-dotted": r"[A-Z](?:\.\d+)+",
    "hyphenated": r"\d+(?:-\d+)+(?:\.\d+)?[a-z]?",
    "degree": r"\d+" + _INDICATORS,
    "lower": r"[a-z]{1,2}(?:-(?:\d+|[a-z]{1,3}))?",
    "upper": r"[A-Z]{1,2}(?:-(?:\d+|[a-z]{1,3}))?",
    # Roman numerals to 39: lists rarely run further, and `(c)` and `(l)` are letters.
    "roman-lower": r"(?=[ivx])x{0,3}(?:ix|iv|v?i{0,3})",
    "roman-upper": r"(?=[IVX])X{0,3}(?:IX|IV|V?I{0,3})",
    "word": r"[^\W\d_]{2,}",
    "prefixed": r"[A-Z]{1,2}(?:-\d+|\.[ \t]?\d+(?:-\d+)+)[a-z]?",
    # One letter written twice or more (`aa`, `bb`), never two different letters.
    "doubled-lower": "(?:" + "|".join(f"{c}{c}+" for c in string.ascii_lowercase) + ")",
    "doubled-upper": "(?:" + "|".join(f"{c}{c}+" for c in string.ascii_uppercase) + ")",
}


@functools.cache
def numeral_class() -> str:
    """A regular-expression class of every character of the Basic Multilingual Plane that
    `_is_numeral` takes for a numeral (`一`, `十`, `百`, `Ⅻ`, `〇`), as ranges: built once, when
    a level of such numerals is first written."""
    ranges: list[list[int]] = []
    for code in range(0x80, 0x10000):
        if _is_numeral(chr(code)):
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1][1] = code
            else:
                ranges.append([code, code])
    return "".join(chr(a) if a == b else f"{chr(a)}-{chr(b)}" for a, b in ranges)


def level_pattern(shape: Shape, latin: bool, decimal: bool = False, alone: bool = False) -> str:
    """The `pattern` of a profile level reading `shape` (its words go in the level's `words`).

    The `number` group holds the number with its parentheses (`(a)`, `a)`) and without a trailing
    `.` or `:`, as the shipped profiles write it; a Latin insertion word is part of the number when
    the texts use one (`5 bis`), and so are decimal insertions (`2.1` after `2`, `(b.1)`) when
    `decimal`. A number with no word and no marks must be followed by white
    space and a character that may start a title (`TITLE_START`), as `label_token` read it,
    unless it stands `alone` (`alone_label`): then the line's end follows it.
    """
    if shape.kind == "numeral":  # the numerals, then the letter or mark after them (`十二条`)
        return f"(?P<number>[{numeral_class()}]+)" + re.escape(shape.after + shape.close)
    number = re.escape(shape.prefix) + _NUMBER_PATTERN[shape.kind]
    indicator = ""
    if shape.kind == "degree" and not (latin or shape.open or shape.close.startswith(")")):
        # The number without its ordinal indicator, as `ordinals` reads it (`1º` is 1).
        number, indicator = r"\d+", _INDICATORS
    elif shape.kind == "digits" and shape.word and not (shape.open or shape.close.startswith(")")):
        # After a word the sign comes and goes (`Art. 2º`, `Art. 10`, `Art. 1er`): an ordinal
        # indicator is no inserted unit's letters, and is left out of the number.
        number = re.escape(shape.prefix) + rf"\d+(?:(?!{_INDICATORS}(?![a-z])){_FUSED})?"
        indicator = f"{_INDICATORS}?"
    if decimal:
        number = f"(?:{number})(?:\\.\\d+)*"
    if latin:
        number += rf"(?:[ \t]+(?:{_LATIN_WORDS}))?"
    if shape.after:
        number += r"(?:[ \t]+[a-z]{1,2})?"  # an inserted unit's letters (`35 a §`)
        return f"(?P<number>{number})[ \\t]+(?i:{re.escape(shape.after)})\\.?"
    if shape.open:
        number = r"\(" + number + r"\)"
    elif shape.close.startswith(")"):
        number += r"\)"
    mark = shape.close.lstrip(")")
    title = rf"(?=[ \t]+{TITLE_START})"
    if alone:  # the line's end follows the number; "1.1." and "1.1" alike
        dot = "\\.?" if mark == ".?" else re.escape(mark)
        return f"(?P<number>{number}){indicator}{dot}(?=[ \\t]*$)"
    if mark == ".?" and shape.word and shape.kind == "digits":
        return f"(?P<number>{number}){indicator}\\.?"  # after a word the dot comes and goes
    if mark == ".?":  # the dot, or a title as `label_token` reads one after no mark
        return f"(?P<number>{number}){indicator}(?:\\.|{title})"
    pattern = f"(?P<number>{number}){indicator}" + re.escape(mark)
    bare = not shape.word and not shape.open and not shape.close and shape.kind != "degree"
    return pattern + (title if bare else "")
