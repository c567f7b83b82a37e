"""Induce a numbering profile from texts alone (C15): the numbering found, not written. It reads no
profile file and no jurisdiction or family name; the same texts in the same order give the same
TOML, which loads. The rule, step by step: docs/profiles.md, "A profile induced from the texts"."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Literal

from workbench.text.frontmatter import front_matter_end
from workbench.text.furniture import compile_furniture, induce_furniture
from workbench.text.induced_toml import InducedLevel, render_profile
from workbench.text.lines import (
    _MARKDOWN_HEADING,
    _TOC_LINE,
    footnote_notes,
    gutter_line_starts,
    label_may_open,
    list_bullet,
)
from workbench.text.markup import has_markup, inline_view
from workbench.text.nesting import evidence, nest
from workbench.text.ordinal_words import learned_order, word_value
from workbench.text.ordinals import InconsistentStep, Ordinal, step_consistent
from workbench.text.profiles import Profile, parse_profile
from workbench.text.shapes import (
    Shape,
    Token,
    alone_label,
    label_token,
    resolve_letters,
    same_word,
)
from workbench.text.structure import read_text, units_from_readings

MIN_LABELS = 2
MIN_ALONE = 3  # labels in one text for a shape that nests with no other to stand alone
MIN_HEADINGS = 3  # Markdown headings that make a text Markdown
INCONSISTENT_SHARE = 0.1
KEEP_SHARE = 0.8  # of a shape's labels that count on or start again, for it to be kept
GUTTER_SHARE = 0.3
MARKUP_REACH = 12  # characters from a line's start in which markup may hide its label
TITLE_SHARE = 0.95
MIN_SKIPPED = 5  # labels of a shape left out before the profile reports it as a look-alike
PREAMBLE_LINES = 10  # non-blank lines before the first label, in every text, make a preamble
ORIGIN = "induced"

Preamble = Literal["front_matter", "body"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Induction:
    """An induced profile: its levels with their evidence, its layout, and its TOML source."""

    texts: int
    levels: tuple[InducedLevel, ...]
    furniture: tuple[str, ...]
    gutter: bool
    front_matter: bool
    markdown_headings: bool
    preamble: Preamble
    source: str
    inline_markup: bool = False

    @property
    def numbers_nothing(self) -> bool:
        """True when no label shape numbers the texts: the profile reads no label at all."""
        return not self.levels

    def profile(self, origin: str = ORIGIN) -> Profile:
        """The induced profile, compiled (its SHA-256 is that of `source` in UTF-8)."""
        return parse_profile(self.source.encode("utf-8"), origin)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Layout:
    gutter: bool
    front_matter: bool
    markdown_headings: bool
    furniture: tuple[str, ...]
    inline_markup: bool = False
    skipped: tuple[str, ...] = ()  # look-alike shapes left out, each with why


def induce_profile(
    texts: Sequence[str], headings: Sequence[Collection[tuple[int, int]]] | None = None
) -> Induction:
    """The profile the texts' own numbering shows (the rule is in the module docstring).
    `headings`, one collection per text, are the lines a PDF sets as headings (`[start, end)`,
    `pdf_headings.heading_lines`): a number alone on one is a label candidate too."""
    layout = _layout(texts)
    typeset = (
        [frozenset(s for s, _ in h) for h in headings] if headings else [frozenset()] * len(texts)
    )
    scanned = [_scan(text, layout, lines) for text, lines in zip(texts, typeset, strict=True)]
    scanned = _one_word_per_shape(scanned)
    scanned = _one_place_per_word(scanned)
    scanned = _word_values(scanned)
    kept, _ = _kept_shapes(texts, scanned)
    scanned = [_fold_insertions(text, kept) for text in scanned]
    kept, document = _kept_shapes(texts, scanned)
    layout = replace(layout, skipped=_skipped(scanned, kept, document) + _footnotes_skipped(texts))
    tokens = [[t for t in text if t.shape in kept or t.shape == document] for text in scanned]
    kept = _with_company(tokens, kept)
    tokens = [[t for t in text if t.shape in kept or t.shape == document] for text in scanned]
    shape_ranks, nesting = nest(tokens, kept, document)
    levels = _levels(tokens, shape_ranks, document, nesting)
    preamble: Preamble = "body"
    if levels and all(_lines_before_first_label(text, ts) >= PREAMBLE_LINES
                      for text, ts in zip(texts, tokens, strict=True)):  # fmt: skip
        preamble = "front_matter"
    induction = _induction(texts, layout, levels, preamble)
    return _checked(texts, induction, layout, preamble)


def _induction(
    texts: Sequence[str], layout: _Layout, levels: Sequence[InducedLevel], preamble: Preamble
) -> Induction:
    return Induction(
        texts=len(texts),
        levels=tuple(levels),
        furniture=layout.furniture,
        gutter=layout.gutter,
        front_matter=layout.front_matter,
        markdown_headings=layout.markdown_headings,
        preamble=preamble,
        inline_markup=layout.inline_markup,
        source=render_profile(
            texts=len(texts),
            levels=levels,
            furniture=layout.furniture,
            gutter=layout.gutter,
            front_matter=layout.front_matter,
            markdown_headings=layout.markdown_headings,
            preamble=preamble,
            inline_markup=layout.inline_markup,
            skipped=layout.skipped,
        ),
    )


# ---------------------------------------------------------------------------------------------
# Layout and scanning


def _lines(text: str) -> list[tuple[int, str]]:
    out, start = [], 0
    for line in text.split("\n"):
        out.append((start, line))
        start += len(line) + 1
    return out


def _layout(texts: Sequence[str]) -> _Layout:
    gutter_lines = sum(len(gutter_line_starts(t)) for t in texts)
    non_blank = sum(1 for t in texts for line in t.split("\n") if line.strip())
    headings = sum(
        1 for t in texts for line in t.split("\n") if _MARKDOWN_HEADING.fullmatch(line.strip())
    )
    return _Layout(
        gutter=bool(non_blank) and gutter_lines >= GUTTER_SHARE * non_blank,
        front_matter=any(_front_end(t) is not None for t in texts),
        markdown_headings=headings >= MIN_HEADINGS,
        furniture=induce_furniture(texts),
        inline_markup=sum(_hidden_label(line) for t in texts for line in t.split("\n"))
        >= min(MIN_HEADINGS, len(texts)),
    )


def _hidden_label(line: str) -> bool:
    """True when inline markup hides a line's label: its inline view opens with a label that the
    line as written does not (`**Art. 3.**`, `Art. 1<sup>er</sup>.`)."""
    content = line.strip().lstrip("#").strip()
    if not has_markup(content[:MARKUP_REACH]):
        return False
    view, _ = inline_view(content)
    seen = [t.number for t in label_token(view, 0, 0, "body")]
    return bool(seen) and seen != [t.number for t in label_token(content, 0, 0, "body")]


def _front_end(text: str) -> int | None:
    """The line closing a text's front-matter block, read as the structure parser reads it."""
    return front_matter_end(text.split("\n"), lenient=True)


def _indented(lines: Sequence[tuple[int, str]]) -> bool:
    """True when most non-blank lines are indented (an RFC's body; headings at the margin)."""
    content = [line for _, line in lines if line.strip()]
    indented = sum(1 for line in content if line[:1] in (" ", "\t"))
    return bool(content) and indented * 2 > len(content)


def _scan(text: str, layout: _Layout, typeset: frozenset[int] = frozenset()) -> list[Token]:
    """Every label opening a line of `text` that may open a unit, in text order; on a line
    starting at one of `typeset` (a PDF's heading lines) a number alone is one (`alone_label`)."""
    lines = _lines(text)
    front_end = _front_end(text) if layout.front_matter else None
    front_end = -1 if front_end is None else front_end
    gutter = gutter_line_starts(text) if layout.gutter else frozenset()
    furniture = compile_furniture(layout.furniture)
    indented = _indented(lines)
    notes = footnote_notes(text)
    tokens: list[Token] = []
    previous: str | None = None
    previous_bare = False
    for index, (line_start, line) in enumerate(lines):
        content = line.strip()
        if not content or index <= front_end or line_start in notes:
            previous, previous_bare = None, False
            continue
        start = line_start + len(line) - len(line.lstrip())
        indent = start - line_start
        body = content
        if line_start in gutter:
            number = content.split(maxsplit=1)
            body = number[1] if len(number) > 1 else ""
            start += len(content) - len(body)
            indent = -1
        if not body or any(p.fullmatch(body) for p in furniture):
            previous, previous_bare = None, False
            continue
        heading = _MARKDOWN_HEADING.fullmatch(body) if layout.markdown_headings else None
        bullet = 0 if heading else list_bullet(body)  # a label after it, as the parser reads it
        start, body = start + bullet, body[bullet:]
        if layout.inline_markup:
            body, _ = inline_view(body)  # labels are read as the parser reads them: in the view
        if heading:
            title = heading.group("title") or ""
            title = inline_view(title)[0] if layout.inline_markup else title
            depth = len(heading.group("marks"))
            tokens.extend(
                replace(t, heading_depth=depth)
                for t in label_token(title, start + body.find(title), 0, "heading")
            )
            previous, previous_bare = None, False
            continue
        if _TOC_LINE.search(body):
            previous, previous_bare = content, False
            continue
        margin = indented and indent == 0
        found = label_token(body, start, indent, "margin" if margin else "body")
        alone = alone_label(body, start) if start in typeset and not found else None
        if alone is not None:  # a heading of its own, as a Markdown one: the next line opens
            tokens.append(alone)
            previous, previous_bare = None, False
            continue
        opens = bool(found) and label_may_open(previous, previous_bare, margin)
        if opens:
            tokens.extend(found)
        previous_bare = opens and not found[-1].title
        previous = None if previous_bare else content
    return resolve_letters(tokens)


def _one_word_per_shape(scanned: list[list[Token]]) -> list[list[Token]]:
    """Shapes whose words are spellings of one word (`sec`, `section`) named by the shortest."""
    words = sorted({t.shape.word for text in scanned for t in text if t.shape.word}, key=len)
    name: dict[str, str] = {}
    for word in words:
        name[word] = next((w for w in words if len(w) <= len(word) and same_word(w, word)), word)
    return [
        [replace(t, shape=replace(t.shape, word=name[t.shape.word])) if t.shape.word else t
         for t in text]
        for text in scanned
    ]  # fmt: skip


def _one_place_per_word(scanned: list[list[Token]]) -> list[list[Token]]:
    """Labels with a word read outside Markdown headings take the heading shape of the same word,
    number and marks where the texts have one (`Art 3` between `### Art. 2.` and `### Art. 4.`:
    one level, written as a heading or not); their level is then read outside headings too."""
    headed = {replace(t.shape, place="body") for text in scanned for t in text
              if t.shape.place == "heading" and t.shape.word}  # fmt: skip

    def placed(token: Token) -> Token:
        if token.shape.place != "heading" and replace(token.shape, place="body") in headed:
            return replace(token, shape=replace(token.shape, place="heading"))
        return token

    return [[placed(t) for t in text] for text in scanned]


def _word_values(scanned: list[list[Token]]) -> list[list[Token]]:
    """Numbers written as words given their values: an ordinal word's (`ordinal_words.word_value`),
    else the place the texts give it among its shape's words (`ordinal_words.learned_order`)."""
    order = learned_order(
        [[(t.shape, t.number) for t in text if t.shape.kind == "word"] for text in scanned]
    )

    def valued(token: Token) -> Token:
        value = word_value(token.number)
        if value is None:
            value = order.get((token.shape, "".join(token.number.casefold().split())))
        return replace(token, value=value)

    return [[valued(t) if t.shape.kind == "word" else t for t in text] for text in scanned]


def _fold_insertions(tokens: Sequence[Token], kept: frozenset[Shape]) -> list[Token]:
    """Dotted numbers that do not count on their own but follow the number they extend (`28.1`
    after section `28`, before `29`) are insertions in that number's shape."""
    out = []
    last: dict[Shape, Token] = {}
    for token in tokens:
        shape = token.shape
        if shape.kind == "dotted" and shape not in kept:
            host = replace(shape, kind="digits")
            before = last.get(host)
            if before is not None and token.number.rsplit(".", 1)[0] == before.number:
                token = replace(token, shape=host)
        last[token.shape] = token
        out.append(token)
    return out


# ---------------------------------------------------------------------------------------------
# Which shapes number the texts


def _counts(tokens: Sequence[Token], shape: Shape) -> tuple[int, int, int]:
    """(labels of `shape` that count on or start a run at the first, labels that count on by one,
    labels that break a run) in one text's `tokens`.

    Runs of one shape may nest (a table's rows `1`, `2` inside section `19`, then section `20`):
    a label that counts on from any open run closes the runs after it. A label that starts a run
    elsewhere than at the first right after a label of another shape neither counts nor breaks:
    numbering may start anywhere under a new parent (`SEC. 101.` under `TITLE I`).
    """
    good = on = broken = 0
    runs: list[Ordinal] = []
    before: Shape | None = None
    for token in tokens:
        after, before = before, token.shape
        if token.shape != shape:
            continue
        current = token.ordinal  # read only for the shape counted: each read parses the number
        if current is None:
            broken += 1
            continue
        for depth in range(len(runs) - 1, -1, -1):
            if step_consistent(runs[depth], current):
                good += 1
                on += current[0] == runs[depth][0] + 1
                del runs[depth + 1 :]
                runs[depth] = current
                break
        else:
            if current[0] == 1:
                good += 1
            elif after == shape or after is None:
                broken += 1
            if current[0] == 1 or not runs or after != shape:
                runs.append(current)
            else:
                runs[-1] = current
    return good, on, broken


def _kept_shapes(
    texts: Sequence[str], scanned: Sequence[Sequence[Token]]
) -> tuple[frozenset[Shape], Shape | None]:
    """The shapes that number the texts, and the document's own number's shape (rule 4)."""
    by_shape: dict[Shape, list[list[Token]]] = defaultdict(lambda: [[] for _ in scanned])
    for k, text in enumerate(scanned):
        for token in text:
            by_shape[token.shape][k].append(token)
    kept = set()
    for shape in by_shape:
        good = on = broken = 0
        for text in scanned:
            g, o, b = _counts(text, shape)
            good, on, broken = good + g, on + o, broken + b
        if good >= MIN_LABELS and on >= 1 and good >= KEEP_SHARE * (good + broken):
            kept.add(shape)
    firsts = {text[0].shape for text in scanned if text}
    document = None
    if (
        scanned
        and all(scanned)
        and len(firsts) == 1
        and all(texts[k][: text[0].char_start].strip() == "" for k, text in enumerate(scanned))
    ):
        shape = next(iter(firsts))
        numbered = shape.kind in ("hyphenated", "dotted") or (
            shape.word and shape.kind in ("digits", "degree")
        )
        once = all(len(by_shape[shape][k]) == 1 for k in range(len(scanned)))
        if numbered and not shape.open and once and shape not in kept:
            document = shape
    return frozenset(kept), document


def _skipped(
    scanned: Sequence[Sequence[Token]], kept: frozenset[Shape], document: Shape | None
) -> tuple[str, ...]:
    """Numbered shapes (no number written as a word) with at least `MIN_SKIPPED` labels left out
    because they break the count (fewer than `KEEP_SHARE` count on or start at the first):
    look-alikes such as footnote, page or table numbers, each said with its labels and the share
    that counted, most labels first; the TOML lists them as skipped."""
    found: list[tuple[int, Shape, str]] = []
    shapes = sorted({t.shape for t in (t for text in scanned for t in text) if t.shape.kind != "word"}
                    - kept - {document})  # fmt: skip
    for shape in shapes:
        counts = [_counts(text, shape) for text in scanned]
        good, broken = sum(c[0] for c in counts), sum(c[2] for c in counts)
        labels = sum(1 for text in scanned for t in text if t.shape == shape)
        if labels >= MIN_SKIPPED and good < KEEP_SHARE * (good + broken):
            share = 100 * good / (good + broken)
            found.append((labels, shape, f"{shape.describe()}: {labels} labels, only {share:.1f}% "
                          f"count on or start at the first (a level needs {100 * KEEP_SHARE:.0f}%)"
                          ": numbers that look like labels and break the count"))  # fmt: skip
    return tuple(note for _, _, note in sorted(found, key=lambda f: (-f[0], f[1])))


def _footnotes_skipped(texts: Sequence[str]) -> tuple[str, ...]:
    """The footnotes numbered like paragraphs the scan left out (`lines.footnote_notes`), said
    once for all the texts when there are any; the TOML lists them as skipped."""
    counts = [len(footnote_notes(text)) for text in texts]
    if not sum(counts):
        return ()
    held = sum(1 for c in counts if c)
    return (f"footnotes numbered like paragraphs: {sum(counts)} lines in {held}/{len(texts)} "
            "texts, each opening with a number a marker in the body names, among such notes, or "
            "raised: noise, never a label",)  # fmt: skip


def _with_company(tokens: Sequence[Sequence[Token]], kept: frozenset[Shape]) -> frozenset[Shape]:
    """Kept shapes without those in the body that never reach `MIN_ALONE` labels in one text and
    have no other kept shape opening inside them or them inside another (a form's `A.` and `B.`);
    a heading shape (in a Markdown heading, at the margin of an indented text) stays."""
    opens, _ = evidence(tokens)
    most: Counter[Shape] = Counter()
    for text in tokens:
        for shape, count in Counter(t.shape for t in text).items():
            most[shape] = max(most[shape], count)
    linked = {s for pair, count in opens.items() if count for s in pair}
    return frozenset(s for s in kept if most[s] >= MIN_ALONE or s in linked or s.place != "body")


# ---------------------------------------------------------------------------------------------
# Levels


def _inside(tokens: Sequence[Sequence[Token]], shape: Shape) -> Shape | None:
    """The shape whose label most often comes right before a first label of `shape`."""
    before: Counter[Shape] = Counter()
    for text in tokens:
        for a, b in pairwise(text):
            if b.shape == shape and a.shape != shape and (b.ordinal or (0, ""))[0] == 1:
                before[a.shape] += 1
    return min(before, key=lambda s: (-before[s], s)) if before else None


def _levels(
    tokens: Sequence[Sequence[Token]],
    ranks: dict[Shape, int],
    document: Shape | None,
    nesting: dict[Shape, str],
) -> list[InducedLevel]:
    by_shape: dict[Shape, list[Token]] = defaultdict(list)
    texts: dict[Shape, set[int]] = defaultdict(set)
    for k, text in enumerate(tokens):
        for token in text:
            by_shape[token.shape].append(token)
            texts[token.shape].add(k)
    levels = []
    for shape, found in by_shape.items():
        words = Counter(t.word for t in found if t.word)
        counts = [_counts(text, shape) for text in tokens]
        good, broken = sum(c[0] for c in counts), sum(c[2] for c in counts)
        titled = sum(1 for t in found if t.title)
        kind = shape.kind
        sequence = (
            "roman"
            if kind.startswith("roman")
            else "doubled"
            if kind.startswith("doubled")
            else "alpha"
            if kind in ("lower", "upper")
            else "none"  # a number written as a word: the parser reads no words' values
            if kind == "word"
            else "numeric"
        )
        levels.append(
            InducedLevel(
                shape=shape,
                words=_spellings(words),
                rank=ranks[shape],
                sequence="none" if shape == document else sequence,
                # A Markdown heading is a label on its own line: no title needed (`### Art. 15.`).
                title="forbidden"  # a number alone on a line set as a heading: no title
                if all(t.alone for t in found)
                else "required"
                if titled >= TITLE_SHARE * len(found) and shape.place != "heading"
                else "optional",
                latin=any(t.latin for t in found),
                decimal=kind not in ("dotted", "letter-dotted", "prefixed")
                and any("." in t.number for t in found),
                labels=len(found),
                texts=len(texts[shape]),
                counting=good / max(good + broken, 1),
                inside=_inside(tokens, shape),
                nesting=nesting.get(shape),
                document_number=shape == document,
                dash=any(t.dash for t in found),
                in_body=any(not t.heading_depth for t in found),
                typeset=sum(t.alone for t in found),
            )
        )
    place = {"heading": 0, "margin": 1, "body": 2}
    levels.sort(key=lambda lv: (place[lv.shape.place], lv.rank, lv.shape))
    # The first level that matches a line wins: a Roman or doubled-letter level goes before the
    # alphabetic level of the same marks, or `(i)`, `(v)`, `(x)`, `aa)` would read as letters.
    for roman in [lv for lv in levels if lv.shape.kind.startswith(("roman", "doubled"))]:
        twin = replace(roman.shape, kind="lower" if roman.shape.kind.endswith("lower") else "upper")
        alpha = next((k for k, lv in enumerate(levels) if lv.shape == twin), None)
        if alpha is not None and alpha < levels.index(roman):
            levels.remove(roman)
            levels.insert(alpha, roman)
    return levels


def _spellings(words: Counter[str]) -> tuple[str, ...]:
    """The words seen (most first), then each in capitals and capitalised where not seen: a
    revision that writes `Sec. 101.` for `SEC. 101.` is read too."""
    seen = sorted(words, key=lambda w: (-words[w], w))
    more = sorted({v for w in seen for v in (w.upper(), w[:1].upper() + w[1:].lower())} - set(seen))
    return (*seen, *more)


def _lines_before_first_label(text: str, tokens: Sequence[Token]) -> int:
    if not tokens:
        return 0
    return sum(1 for line in text[: tokens[0].char_start].split("\n") if line.strip())


# ---------------------------------------------------------------------------------------------
# Checked on the texts


def level_steps(
    texts: Sequence[str], profile: Profile
) -> tuple[Counter[str], Counter[str], list[list[InconsistentStep]]]:
    """(label steps checked, inconsistent steps) per level name over the texts, and each text's
    inconsistent steps, as the structure parser reads them through `profile`."""
    checked: Counter[str] = Counter()
    bad: Counter[str] = Counter()
    steps_per_text = []
    for text in texts:
        readings = read_text(text, profile)
        steps: list[InconsistentStep] = []
        units_from_readings(readings, len(text), steps)
        for reading in readings:
            if reading.level is not None:
                checked[reading.level.name] += 1
                for inner in reading.inner:
                    checked[inner.level.name] += 1
        bad.update(step.level for step in steps)
        steps_per_text.append(steps)
    return checked, bad, steps_per_text


def _checked(
    texts: Sequence[str], induction: Induction, layout: _Layout, preamble: Preamble
) -> Induction:
    """Rule 7: levels the parser finds inconsistent under their parents are counted through the
    text, and go unchecked if that is inconsistent too; levels it never reads go."""
    levels = list(induction.levels)
    for _ in range(2 * len(levels) + 1):  # a level may change twice: through, then unchecked
        if not levels:
            break
        current = _induction(texts, layout, levels, preamble)
        read, bad, _ = level_steps(texts, current.profile())
        changed = False
        kept = []
        for level in levels:
            name = level.name
            if not read[name]:
                changed = True
                continue
            if level.sequence != "none" and bad[name] > INCONSISTENT_SHARE * read[name]:
                share = bad[name] / read[name]
                if level.through_because is None:  # first: does it count on across its parents?
                    level = replace(level, through_because=share)
                else:
                    level = replace(level, sequence="none", unchecked_because=share)
                changed = True
            kept.append(level)
        levels = kept
        if not changed:
            return current
    return _induction(texts, layout, levels, preamble)
