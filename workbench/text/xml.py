"""XML to the reading text a person would cite, its labels carried through as structure marks (C4):
a known schema read by its vocabulary ("xml-text"), any other by its own element structure
("xml-blocks"), each a pure function of the bytes. The rules are in `extract_xml`'s docstring."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields

from lxml import etree

from workbench.errors import ExtractionError
from workbench.models import Extraction, StructureMark
from workbench.text.decode import decode_text
from workbench.text.vocabulary import (
    BLOCK_ELEMENTS,
    BLOCK_PARENTS,
    FRONT_MATTER_ELEMENTS,
    FRONT_MATTER_READ,
    HIDDEN_DISPLAY,
    LABEL_ELEMENTS,
    MARGINAL_ELEMENTS,
    METADATA_ELEMENTS,
    SPACED_ELEMENTS,
    TABLE_CELLS,
    TABLE_ROWS,
    TEXT_BLOCKS,
    UNJOINABLE_ELEMENTS,
    VOCABULARY_NAMESPACES,
)

# The extractor for XML in the vocabulary's namespaces (`VOCABULARY_NAMESPACES`).
XML_TEXT_EXTRACTOR = ("xml-text", "1")
# XML outside the known vocabularies' namespaces is read by its own element structure: a second
# named extractor, so that the text of every USLM and D.C. Code version ("xml-text" 1) stays what
# it was, byte for byte, and what a snapshot or a text hash recorded under it stays true.
XML_BLOCKS_EXTRACTOR = ("xml-blocks", "1")

_CLOSING = frozenset(".,;:)]”’\"'")
_SPACES_BEFORE_NEWLINE = re.compile(r"[^\S\n]+\n")
_LEADING_NEWLINE = re.compile(r"[^\S\n]*\n")
_LXML_POSITION = re.compile(r", line \d+, column \d+$")
_EMPTY, _LABEL, _TEXT = 0, 1, 2  # what the current line holds so far
_SOFT, _HARD = 1, 2  # a break asked for by a block's end (soft) or a block's start (hard)


def extract_xml(data: bytes, *, source: str) -> Extraction:
    """The reading text of an XML artefact; `source` names it in error messages.

    Called by `extraction.extract` after `decode_text` has accepted the bytes (the same byte-level
    refusals as plain text); bytes it has not seen are refused here only as malformed XML. A
    hardened parse (malformed XML, an entity bomb or an entity reference left unexpanded is an
    `ExtractionError`), then rendering, in document order:

    - Dropped with all they hold (their tails kept): `meta` (document metadata), comments,
      processing instructions, and hidden elements (`display="no"` or `"false"`).
    - A block (`BLOCK_ELEMENTS`, or any child of `BLOCK_PARENTS` but `SPACED_ELEMENTS`) starts a
      passage; passages are separated by exactly one blank line. A `num` starts a line too.
    - A number's line stays open: a block starting while its line holds only `num` text continues
      that line, so "SEC. 2. FINDINGS." and "(1) women ..." are one line each (not tables, not a
      table of contents). A heading ending in "—" is run in: what follows continues its line with
      no space ("(a) In General.—Not later ..."). After a heading ending in ":" inline text
      continues its line ("Authority: 16 U.S.C. 1801"); any other heading ends its passage.
    - Text after a block's end starts a new passage unless it opens with closing punctuation
      (".", "; and", "”"), which stays on the block's last line, as printed after quoted matter.
    - Text is verbatim (soft hyphens, no-break spaces, inner line breaks kept) except formatting
      white space: a white-space-only text or tail holding a newline becomes one space between
      pieces of a line; white space at the start and end of every line is dropped; the text ends
      with one "\\n". A `SPACED_ELEMENTS` element gets one space before it when none is there.
    - `MARGINAL_ELEMENTS` are lifted out of the running text and emitted as passages of their own
      at the next passage break, so no sentence is split by a page number or a margin note.
    - Every `num` gives a `StructureMark`: its text as emitted, stripped, with exact offsets, its
      `value` attribute, and the local names of all its enclosing elements, root first.

    Which names these rules look up depends on the root element's namespace (the vocabulary mode is "xml-text" 1, the structural mode "xml-blocks" 1):

    - In `VOCABULARY_NAMESPACES` (USLM, D.C. Council): exact local names, and every element the
      vocabulary does not name is inline: there `<label>` is a table-of-contents caption and
      `<heading><inline>` is running text. The output is version 1's, byte for byte.
    - Any other namespace, or none (structural mode): names are case-folded before look-up, so
      `Section`, `Paragraph`, `Text`, `Heading` and `Note` take the vocabulary's roles above.
      A label is an element named `num` or `label`; it behaves as `num` does (starts a line,
      keeps the text it numbers on that line, one space after it, a `StructureMark`), and is
      never a passage of its own. `row` is a block and `entry` a spaced cell (CALS tables).
      Every element the vocabulary does not name is inline when it sits in running text, and
      a block otherwise. It sits in running text when its parent holds text that is not
      formatting white space (any text or tail but white space holding a newline: in a
      one-line file a lone space between elements is a real space), when its parent is one of
      `TEXT_BLOCKS` (`<Text><DefinedTermEn>NAFTA</DefinedTermEn><Repealed>…` is one line), or
      when its parent is itself inline and in running text. Such a block that holds no text
      (a page break, an image with attributes only) opens nothing, so it cannot split a label
      from its text. A block standing before its own parent's label (a `MarginalNote` before
      a subsection's "(1)") is its own passage: if an enclosing element's label line is still
      open ("3"), that line is lifted out and put back after the block ("Purpose" then
      "3 (1) ..."), marks moved with it. So headings (`MarginalNote`; `Heading` with its
      `Label` and `TitleText`, one line "PART 1 Canadian Energy Regulator") are passages of
      their own, and sections, subsections and paragraphs begin on their label's line.
    - Front matter (`FRONT_MATTER_ELEMENTS`, Justice Canada's `Identification`) is read for
      its title block only (`FRONT_MATTER_READ`: long and short title, instrument number,
      enabling authority, reader's note); its bill history dates in YYYY/MM/DD fields,
      parliament and regnal years, chapter and order numbers and running head are dropped.
      History notes (`HistoricalNote`, one passage per item), schedules, tables, "amendments
      not in force" and recent-amendment lists are printed with the Act and are kept.
      Attributes (`lims:` dates and ids) are never text, in either mode.
    """
    name, version = XML_TEXT_EXTRACTOR
    root = _parse(data, source)  # `extract` has run decode_text on these bytes
    structural = etree.QName(root).namespace not in VOCABULARY_NAMESPACES
    if structural:
        name, version = XML_BLOCKS_EXTRACTOR
    builder = _render(root, source, structural=structural)
    text, nums = builder.finish()
    if not text:
        raise ExtractionError(f"{source}: XML holds no text outside its metadata; expected text")
    marks = tuple(
        StructureMark(
            label=text[n.start : n.end],
            value=n.value,
            char_start=n.start,
            char_end=n.end,
            path=n.path,
        )
        for n in sorted(nums, key=lambda n: (n.start, n.end))
    )
    return Extraction(text=text + "\n", extractor=name, extractor_version=version, structure=marks)


def parse_xml(data: bytes, *, source: str) -> etree._Element:
    """The root of an XML artefact, parsed as `extract` parses it: `decode_text`'s byte-level
    refusals first, then a hardened parse (malformed XML is an `ExtractionError` naming the line
    and column). A reader of an XML artefact's metadata (a law's effective date) parses here."""
    decode_text(data, source=source, line_limit=False)
    return _parse(data, source)


def _parse(data: bytes, source: str) -> etree._Element:
    # CAUTION: entities never expand (billion laughs), no DTD, no network, no huge trees. The
    # encoding is forced: `extract`'s decode_text has proved the bytes UTF-8, whatever the
    # declaration says.
    parser = etree.XMLParser(
        encoding="utf-8",
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        remove_comments=False,
    )
    try:
        return etree.fromstring(data, parser)
    except etree.XMLSyntaxError as error:
        line, column = error.position
        message = _LXML_POSITION.sub("", error.msg)  # lxml repeats the position; say it once
        raise ExtractionError(
            f"{source}: malformed XML at line {line}, column {column}: {message}"
        ) from error


def _render(
    root: etree._Element, source: str, *, structural: bool, selects: Sequence[_Select] = ()
) -> _Builder:
    builder = _Builder(source, structural=structural, selects=selects)
    builder.element(root, [], block=True)
    return builder


@dataclass(frozen=True, slots=True, kw_only=True)
class ElementSpan:
    """Where the text one element gave lies in its version's text: `[char_start, char_end)` runs
    from the first to the last character it gave (white space at either end excluded), and
    `element` is its name as `{namespace}local` (lxml's Clark notation)."""

    element: str
    char_start: int
    char_end: int

    def as_json(self) -> dict[str, object]:
        return {"element": self.element, "char_start": self.char_start, "char_end": self.char_end}


_Select = Callable[[etree._Element], bool]


def element_spans(data: bytes, *, source: str, select: _Select) -> tuple[ElementSpan, ...]:
    """The spans of an XML artefact's extracted text that elements chosen by `select` gave, in
    text order, without changing that text: the same bytes give `extract_xml`'s very text, and
    each span indexes it (a publisher's markup in a law, `codify:` elements, is found this way).

    Only the outermost chosen element of a nesting is listed, with everything inside it; an
    element that gave no text (empty, metadata, hidden) is not listed. Text a chosen element holds
    inside a marginal element (lifted out of the running text, see `extract_xml`) is not in its
    span.
    """
    return spans_of(parse_xml(data, source=source), source, (select,))[0]


def spans_of(
    root: etree._Element, source: str, selects: Sequence[_Select]
) -> tuple[tuple[ElementSpan, ...], ...]:
    """`element_spans` of each of `selects` over a parsed root, in one render: one tuple per
    select, in its order, each exactly what `element_spans` gives for that select alone (one
    select's chosen elements never hide another's: a nesting is outermost per select)."""
    return tuple(
        tuple(
            ElementSpan(element=str(element.tag), char_start=start, char_end=end)
            for element, start, end in chosen
        )
        for chosen in chosen_spans_of(root, source, selects)
    )


def chooses_any(root: etree._Element, select: _Select) -> bool:
    """Whether `chosen_element_spans(root, source, select)` can list an element or must refuse:
    False only where no element of `root` is chosen and it holds no entity reference (which
    the render refuses), so a reader may skip the render and read nothing. One pass over the
    tree, no text built: a document with no note or table is not rendered a second time."""
    for node in root.iter():
        if isinstance(node, etree._Entity) or (isinstance(node.tag, str) and select(node)):
            return True
    return False


def chosen_element_spans(
    root: etree._Element, source: str, select: _Select
) -> tuple[tuple[etree._Element, int, int], ...]:
    """`element_spans` over a parsed root, each span with the element itself (for a reader that
    needs the element's attributes, such as a footnote marker's target id): same rule, same order."""
    return chosen_spans_of(root, source, (select,))[0]


def chosen_spans_of(
    root: etree._Element, source: str, selects: Sequence[_Select]
) -> list[tuple[tuple[etree._Element, int, int], ...]]:
    """`chosen_element_spans` of each of `selects`, from one render of `root` (as `spans_of`:
    each exactly what that select alone gives)."""
    structural = etree.QName(root).namespace not in VOCABULARY_NAMESPACES
    builder = _render(root, source, structural=structural, selects=selects)
    text, _ = builder.finish()
    return [
        tuple(
            (span.element, span.start, span.end)
            for span in builder.spans
            if span.element is not None
            and span.chooser == k
            and 0 <= span.start < span.end <= len(text)
        )
        for k in range(len(selects))
    ]


@dataclass(slots=True)
class _Num:
    value: str | None
    path: tuple[str, ...]
    start: int = -1
    end: int = -1


@dataclass(slots=True)
class _Span(_Num):
    """Where a chosen element's text runs (`element_spans`), that element and the index of the
    select that chose it."""

    element: etree._Element | None = None
    chooser: int = 0


@dataclass(frozen=True, slots=True)
class _Vocabulary:
    """The element roles one reading mode looks names up in (exact names, or case-folded ones)."""

    blocks: frozenset[str]
    block_parents: frozenset[str]
    spaced: frozenset[str]
    unjoinable: frozenset[str]
    marginal: frozenset[str]
    metadata: frozenset[str]
    labels: frozenset[str]


_EXACT = _Vocabulary(
    blocks=BLOCK_ELEMENTS,
    block_parents=BLOCK_PARENTS,
    spaced=SPACED_ELEMENTS,
    unjoinable=UNJOINABLE_ELEMENTS,
    marginal=MARGINAL_ELEMENTS,
    metadata=METADATA_ELEMENTS,
    labels=frozenset({"num"}),
)
# Structural mode: the same roles by case-folded name, a label also spelled `label`, CALS rows.
_FOLDED_ROLES = {
    field.name: frozenset(name.casefold() for name in getattr(_EXACT, field.name))
    for field in fields(_Vocabulary)
}
_FOLDED = _Vocabulary(
    **{
        **_FOLDED_ROLES,
        "blocks": _FOLDED_ROLES["blocks"] | TABLE_ROWS,
        "spaced": _FOLDED_ROLES["spaced"] | TABLE_CELLS,
        "labels": LABEL_ELEMENTS,
    }
)


def _is_reading_text(piece: str | None) -> bool:
    """Text a reader reads: anything but nothing and formatting white space (one holding a newline)."""
    return piece is not None and piece != "" and not (piece.isspace() and "\n" in piece)


def _local(el: etree._Element) -> str:
    tag = el.tag
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


class _Builder:
    """Appends text pieces, choosing separators lazily so breaks never pile up or dangle.

    `structural` selects the reading mode (see `extract_xml`): False reads by the exact vocabulary,
    True by case-folded vocabulary names and, for every other element, by where it sits.
    """

    def __init__(self, source: str, *, structural: bool, selects: Sequence[_Select] = ()) -> None:
        self.source = source
        self.structural = structural
        # each chooses the elements whose text `element_spans` lists (never changes the text)
        self.selects = tuple(selects)
        self.spans: list[_Span] = []
        # the span each select has open (its outermost chosen element), None where none is
        self.open_spans: list[_Span | None] = [None] * len(self.selects)
        self.opened: list[_Span] = []  # the open ones, for `text`
        self.vocabulary = _FOLDED if structural else _EXACT
        self.parts: list[str] = []
        self.length = 0
        self.line = _EMPTY
        self.line_start = 0  # where the current line's first piece was appended
        self.want_break = 0
        self.want_space = False
        self.block_start = False
        self.nums: list[_Num] = []
        self.open_nums: list[_Num] = []
        self.deferred: list[tuple[str, list[_Num]]] = []

    def element(
        self,
        el: etree._Element,
        path: list[str],
        *,
        block: bool,
        running: bool = False,
        before_label: bool = False,
    ) -> None:
        tag = el.tag
        if not isinstance(tag, str):
            if isinstance(el, etree._Entity):  # undeclared or external: refuse, never guess
                raise ExtractionError(
                    f"{self.source}: unexpanded entity reference {el.text} at "
                    f"line {el.sourceline}; expected no entity references"
                )
            return  # a comment or processing instruction: dropped, its tail kept by the caller
        name = tag.rpartition("}")[2]
        key = name.casefold() if self.structural else name
        roles = self.vocabulary
        if key in roles.metadata or el.get("display") in HIDDEN_DISPLAY:
            return
        if key in roles.marginal:
            aside = _Builder(self.source, structural=self.structural)
            aside.children(el, [*path, name], block=True)
            text, nums = aside.finish()
            if text:
                self.deferred.append((text, nums))
            return
        made = self.choose(el) if self.selects else ()
        is_num = key in roles.labels
        is_block = key in roles.blocks or (block and key not in roles.spaced)
        if self.structural and not (is_block or is_num or running or key in roles.spaced):
            # CAUTION: an element that opens nothing must not break a label's line.
            is_block = any(not piece.isspace() for piece in el.itertext(etree.Element))
        # A block that stands before its own parent's label (a marginal note) is read before the
        # label line already open for an enclosing element ("3" then "(1)"), never on it.
        lifted = self.lift_line() if before_label and is_block and self.line == _LABEL else None
        if is_block or is_num:
            self.open_block(joinable=key not in roles.unjoinable)
        elif key in roles.spaced:
            self.want_space = True
        if is_num:
            num = _Num(el.get("value"), tuple(path))
            self.nums.append(num)
            self.open_nums.append(num)
        before = self.length
        path.append(name)
        keep = FRONT_MATTER_READ if self.structural and key in FRONT_MATTER_ELEMENTS else None
        inline = self.structural and not (is_block or is_num)
        self.children(
            el, path, block=key in roles.block_parents, keep=keep, inside_text=running and inline
        )
        path.pop()
        if is_num:
            self.open_nums.pop()
            if num.start < 0:
                num.start = num.end = self.length
            self.line = _LABEL
            if self.structural:  # "(a)" and inline text it numbers: kept apart by one space
                self.want_space = True
        elif key == "heading" and self.length > before and self.line != _EMPTY:
            last = self.parts[-1].rstrip()[-1:]
            if last == "—":
                self.line = _LABEL
            elif last != ":":
                self.want_break = max(self.want_break, _SOFT)
        elif is_block:
            self.want_break = max(self.want_break, _SOFT)
        if lifted is not None:
            self.restore_line(*lifted)
        for span in made:
            self.opened.remove(span)
            self.open_spans[span.chooser] = None

    def choose(self, el: etree._Element) -> list[_Span]:
        """Open a span for `el` under each select that chooses it and has none open."""
        made = [
            _Span(str(el.tag), (), element=el, chooser=k)
            for k, select in enumerate(self.selects)
            if self.open_spans[k] is None and select(el)
        ]
        for span in made:
            self.open_spans[span.chooser] = span
        self.opened.extend(made)
        self.spans.extend(made)
        return made

    def children(
        self,
        el: etree._Element,
        path: list[str],
        *,
        block: bool,
        keep: frozenset[str] | None = None,
        inside_text: bool = False,
    ) -> None:
        running = inside_text or (self.structural and _local(el).casefold() in TEXT_BLOCKS)
        label_at = -1
        if self.structural:
            running = (
                running or _is_reading_text(el.text) or any(_is_reading_text(c.tail) for c in el)
            )
            labels = self.vocabulary.labels
            label_at = next((i for i, c in enumerate(el) if _local(c).casefold() in labels), -1)
        if el.text:
            self.text(el.text)
        for i, child in enumerate(el):
            if keep is None or _local(child).casefold() in keep:
                self.element(child, path, block=block, running=running, before_label=i < label_at)
            if child.tail:
                self.text(child.tail)

    def lift_line(self) -> tuple[list[str], list[_Num]]:
        """Take the open line (its labels only) out of the text, to be put back by `restore_line`."""
        held: list[str] = []
        while self.length > self.line_start:
            part = self.parts.pop()
            self.length -= len(part)
            held.append(part)
        if self.length < self.line_start:  # a piece straddled the line's start: keep its head
            head = held[-1][: self.line_start - self.length]
            held[-1] = held[-1][len(head) :]
            self.append(head)
        held.reverse()
        # A chosen element's span (`_Span`) on the line moves with it, as the line's marks do.
        nums = [n for n in (*self.nums, *self.spans) if n.start >= self.line_start]
        self.nums = [n for n in self.nums if n.start < self.line_start]
        self.spans = [n for n in self.spans if n.start < self.line_start]
        for num in nums:
            num.start -= self.line_start
            num.end -= self.line_start
        self.line = _EMPTY
        self.want_space = False
        return held, nums

    def restore_line(self, held: list[str], nums: list[_Num]) -> None:
        """Put a lifted line back as the start of a new passage, open for what it numbers."""
        if self.length:
            self.new_passage()
        self.want_break = 0
        self.block_start = False
        self.line_start = self.length
        for num in nums:
            num.start += self.length
            num.end += self.length
        self.nums.extend(n for n in nums if not isinstance(n, _Span))
        self.spans.extend(n for n in nums if isinstance(n, _Span))
        for part in held:
            self.append(part)
        self.line = _LABEL
        self.want_space = False

    def open_block(self, *, joinable: bool) -> None:
        self.block_start = True
        if joinable and self.line == _LABEL and not self.want_break:
            # CAUTION: a number stays with the text it numbers ("(1) women ..."), one passage for
            # the segmenter; after a run-in dash print has no space ("In General.—The ...").
            self.want_space = not self.parts[-1].rstrip().endswith("—")
        else:
            self.want_break = _HARD

    def text(self, piece: str | None) -> None:
        if not piece:
            return
        if "\n" in piece and piece.isspace():
            self.want_space = True  # indentation between elements: at most one space
            return
        if self.want_break:
            if self.want_break == _SOFT and piece.lstrip()[:1] in _CLOSING:
                self.want_space = False
            elif self.length:
                self.new_passage()
            self.want_break = 0
        if self.line == _EMPTY or self.block_start:
            piece = piece.lstrip()
            if not piece:
                return
            self.block_start = False
        if (
            self.want_space
            and self.line != _EMPTY
            and not (self.parts[-1][-1:].isspace() or piece[0].isspace())
        ):
            self.append(" ")
        self.want_space = False
        if self.line == _EMPTY:
            self.line_start = self.length
        if "\n" in piece:
            if _LEADING_NEWLINE.match(piece):
                self.rstrip(keep_newlines=True)
            piece = _SPACES_BEFORE_NEWLINE.sub("\n", piece)
        opened = [*self.open_nums, *self.opened] if self.opened else self.open_nums
        if opened and not piece.isspace():
            for num in opened:
                if num.start < 0:
                    num.start = self.length + len(piece) - len(piece.lstrip())
                num.end = self.length + len(piece.rstrip())
        self.append(piece)
        if self.line == _EMPTY or not self.open_nums:
            self.line = _LABEL if self.open_nums else _TEXT

    def append(self, piece: str) -> None:
        self.parts.append(piece)
        self.length += len(piece)

    def rstrip(self, *, keep_newlines: bool = False) -> None:
        while self.parts:
            part = self.parts[-1]
            kept = part.rstrip()
            if keep_newlines and "\n" in part[len(kept) :]:
                kept = part[: part.rindex("\n") + 1]
            self.length -= len(part) - len(kept)
            if kept:
                self.parts[-1] = kept
                return
            self.parts.pop()

    def new_passage(self) -> None:
        self.rstrip()
        if self.length:
            self.append("\n\n")
        for text, nums in self.deferred:
            for num in nums:
                num.start += self.length
                num.end += self.length
            self.nums.extend(nums)
            self.append(text + "\n\n")
        self.deferred.clear()
        self.line = _EMPTY
        self.want_space = False

    def finish(self) -> tuple[str, list[_Num]]:
        if self.deferred:
            self.new_passage()
        self.rstrip()
        return "".join(self.parts), self.nums
