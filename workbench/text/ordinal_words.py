"""Numbers written as words (`PART FIRST`) placed in their sequence (C15), through the ordinals
`num2words` writes or the texts' own order; no word list is written here."""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Hashable, Sequence

LEXICON_MAX = 100  # divisions named by ordinal words rarely run further
# Distinct words a group must have in one text for their order to be learned: two headings that
# open with one word (`GENERAL PROVISIONS`, `GENERAL RULES`) are titles, not a count.
MIN_LEARNED = 3


@functools.cache
def lexicon() -> dict[str, int]:
    """Ordinal word (case-folded, spaces and hyphens removed) -> its number, in every language
    `num2words` writes ordinals for; a word two languages give different numbers is left out."""
    # Imported here: it loads every language's module, and most commands read no ordinal word.
    from num2words import CONVERTER_CLASSES, num2words  # type: ignore[import-untyped]

    found: dict[str, set[int]] = defaultdict(set)
    for language in sorted(CONVERTER_CLASSES):
        for n in range(1, LEXICON_MAX + 1):
            try:
                word = num2words(n, lang=language, to="ordinal")
            except (NotImplementedError, TypeError, ValueError, KeyError, OverflowError):
                break  # the language has no ordinals, or none this far
            found[_key(str(word))].add(n)
    return {word: next(iter(ns)) for word, ns in found.items() if len(ns) == 1}


def _key(word: str) -> str:
    return "".join(word.casefold().replace("-", " ").split())


def word_value(word: str) -> int | None:
    """The number an ordinal word names, by the library (`lexicon`), or None."""
    return lexicon().get(_key(word))


def learned_order(
    sequences: Sequence[Sequence[tuple[Hashable, str]]],
) -> dict[tuple[Hashable, str], int]:
    """(group, word) -> its place, 1 first, for words the library does not know: the place of its
    first appearance among the distinct words of its group in a text, the earliest over the texts
    (the versions of one law name their divisions in one order), for groups with at least
    `MIN_LEARNED` distinct words in one text. `sequences` holds each text's
    (group, word) pairs in text order; a group is a label shape, so `PART` and `TITLE` count apart.
    """
    place: dict[tuple[Hashable, str], int] = {}
    widest: dict[Hashable, int] = defaultdict(int)
    for sequence in sequences:
        seen: dict[Hashable, list[str]] = defaultdict(list)
        for group, word in sequence:
            key = _key(word)
            if key not in seen[group]:
                seen[group].append(key)
                here = len(seen[group])
                place[(group, key)] = min(place.get((group, key), here), here)
        for group, words in seen.items():
            widest[group] = max(widest[group], len(words))
    return {key: n for key, n in place.items() if widest[key[0]] >= MIN_LEARNED}
