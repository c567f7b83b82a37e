"""Page furniture found in texts (C15): the lines that repeat on the pages, as profile patterns,
each matching in full the lines it was made from. The rule: docs/profiles.md, induction's step 2."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import pairwise

from workbench.text.patterns import ProfilePattern, compile_profile_pattern

MIN_PAGES = 3
MIN_REPEATS = 3
COUNTER_SHARE = 0.8
MAX_WORDS = 6  # a running header or footer without page breaks is short
MIN_PAGE_LINES = 10  # lines from one page's furniture to the next, on average, at the least

_COLUMNS = re.compile(r"\s{2,}")
_DIGITS = re.compile(r"\d+")


_HEADING = re.compile(r"#{1,6}[ \t]")


def _shape(text: str) -> str:
    """`text` as a pattern: literal characters, digit runs `\\d+`, white space runs `\\s+`."""
    out = []
    for piece in re.split(r"(\d+|\s+)", text):
        if not piece:
            continue
        if piece.isdigit():
            out.append(r"\d+")
        elif piece.isspace():
            out.append(r"\s+")
        else:
            out.append(re.escape(piece))
    return "".join(out)


def line_pattern(content: str, counter: int | None = None) -> str:
    """The furniture pattern of one line's content; `counter` is the index of its number run that
    counts pages (among the line's digit runs), if known."""
    columns = _COLUMNS.split(content.strip())
    if len(columns) < 2:
        return _shape(content.strip())
    chosen = 0
    if counter is not None:
        seen = 0
        for k, column in enumerate(columns):
            runs = len(_DIGITS.findall(column))
            if seen <= counter < seen + runs:
                chosen = k
                break
            seen += runs
    before = r".*\s" if chosen > 0 else ""
    after = r"\s.*" if chosen < len(columns) - 1 else ""
    return before + _shape(columns[chosen]) + after


def _pages(text: str) -> list[list[str]]:
    return [
        [line.strip() for line in page.split("\n") if line.strip()] for page in text.split("\f")
    ]


def _paged(text: str) -> Counter[str]:
    """Furniture of a text with form feeds: patterns at the page edges on half the pages."""
    pages = [page for page in _pages(text) if page]
    found: Counter[str] = Counter()
    if len(pages) < MIN_PAGES:
        return found
    edges: Counter[str] = Counter()
    for page in pages:
        for pattern in {line_pattern(page[0]), line_pattern(page[-1])}:
            edges[pattern] += 1
    for pattern, count in edges.items():
        if count * 2 >= len(pages):
            found[pattern] += count
    return found


def _counting(text: str) -> Counter[str]:
    """Furniture of a text without form feeds: repeated line shapes with a page counter."""
    groups: dict[str, list[tuple[int, str]]] = {}
    all_lines = text.split("\n")
    for number, line in enumerate(all_lines):
        content = line.strip()
        if _HEADING.match(content):
            continue  # a Markdown heading is the document's structure, not a page's furniture
        if _DIGITS.search(content) and len(content.split()) <= MAX_WORDS:
            groups.setdefault(_shape(content), []).append((number, content))
    found: Counter[str] = Counter()
    for group in groups.values():
        spread = group[-1][0] - group[0][0]
        if (
            len(group) < MIN_REPEATS
            or spread < MIN_PAGE_LINES * (len(group) - 1)
            or spread * 2 < len(all_lines)
        ):
            continue  # too few, too close together, or not over the whole text
        lines = [content for _, content in group]
        gaps = sorted(b[0] - a[0] for a, b in pairwise(group))
        median = gaps[len(gaps) // 2]
        regular = sum(1 for gap in gaps if median / 2 <= gap <= median * 2)
        if regular < COUNTER_SHARE * len(gaps):
            continue  # furniture stands once a page, and pages are alike in length
        numbers = [[int(n) for n in _DIGITS.findall(line)] for line in lines]
        edges = _edge_runs(lines[0])
        for index in edges:
            steps = sum(1 for a, b in pairwise(numbers) if b[index] == a[index] + 1)
            if steps >= COUNTER_SHARE * (len(lines) - 1):
                found[line_pattern(lines[0], index)] += len(lines)
                break
    return found


def _edge_runs(line: str) -> list[int]:
    """Indexes of the digit runs in the first two or the last two words of `line`: where a page
    number stands (`HB 1746 2`, `Page 3 of 10`, `- 4 -`)."""
    words = line.split()
    edge = set(range(min(2, len(words)))) | set(range(max(len(words) - 2, 0), len(words)))
    runs, index = [], 0
    for k, word in enumerate(words):
        for _ in _DIGITS.findall(word):
            if k in edge:
                runs.append(index)
            index += 1
    return runs


def induce_furniture(texts: Sequence[str]) -> tuple[str, ...]:
    """The furniture patterns of `texts` (the rule: docs/profiles.md)."""
    found: Counter[str] = Counter()
    for text in texts:
        found.update(_paged(text) if text.count("\f") + 1 >= MIN_PAGES else _counting(text))
    return tuple(sorted(found, key=lambda p: (-found[p], p)))


def compile_furniture(patterns: Iterable[str]) -> tuple[ProfilePattern, ...]:
    """Induced furniture patterns, compiled as a profile's are (`compile_profile_pattern`)."""
    return tuple(
        compile_profile_pattern(p, "induced furniture", f"furniture[{i}]")
        for i, p in enumerate(patterns)
    )
