"""A Word redline of one version pair (C23): tracked changes at the characters `changes.redline`
marks, bound to both versions' hashes, so that rejecting every change gives the before text and
accepting every one the after text under the one normalization. The layout is in docs/diff.md."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from importlib.metadata import version as distribution_version
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from workbench.changes.caution import standing_verdict
from workbench.changes.diff import doubt_reasons
from workbench.changes.diff_files import writable
from workbench.changes.redline import Held, Piece, cell_pieces, redline
from workbench.changes.verdict import Verdict
from workbench.exports.redline_ooxml import (
    AUTHOR,
    CUSTOM_PROPERTIES,
    MOVE_IDS,
    PROPERTY_PREFIX,
    Mark,
    Mode,
    Revisions,
    Run,
    Token,
    check_writable,
    custom_properties_xml,
    layout,
)
from workbench.files import replace_file_with
from workbench.models import Change, Span
from workbench.text.normalize import SCHEME, SCHEME_VERSION

if TYPE_CHECKING:
    from docx.comments import Comments as DocxComments
    from lxml import etree

    from workbench.changes.attribution import Attributions
    from workbench.changes.redline import Section
    from workbench.workspace import Workspace


@dataclass(frozen=True, slots=True, kw_only=True)
class LogHead:
    """The verdict log as the redline was written: rows read and the head digest (C8)."""

    rows: int
    head: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RedlineDocx:
    """What `write_redline_docx` wrote: the path, both version ids and what it marked."""

    path: Path
    before_id: str
    after_id: str
    insertions: int  # `w:ins` runs
    deletions: int  # `w:del` runs
    moves: int  # confirmed moves written as moveFrom/moveTo
    unconfirmed: int  # moves, splits and merges written as a deletion and an insertion
    law_comments: int  # changes carrying a comment naming a law's instruction

    def line(self) -> str:
        return (
            f"wrote {self.path}: {self.before_id} -> {self.after_id}: {self.insertions} "
            f"insertions, {self.deletions} deletions, {self.moves} confirmed moves, "
            f"{self.unconfirmed} unconfirmed pairings as deletion and insertion, "
            f"{self.law_comments} law-made changes"
        )


# ---------------------------------------------------------------------------------------------
# The stream: runs in document order, each kept by accept-all, reject-all or both


def _anchor_chain(changes: Sequence[Change]) -> frozenset[int]:
    """The changes laid out in place (by `id()`: a table row's cells share its change id): the longest run of pairings (any kind with both sides
    but `moved`) whose before and after starts both increase, taken in after order.

    Tie-break: of two chains of one length, the one patience sorting keeps (the first change to
    reach each length keeps it unless a later one starts earlier on the before side). Every other
    pairing is shown where it left and where it arrived.
    """
    both = sorted(
        (c for c in changes if c.before and c.after and c.kind != "moved"),
        key=lambda c: (c.after.char_start, c.before.char_start),  # type: ignore[union-attr]
    )
    tails: list[int] = []  # index into `both` of the chain end of each length
    back: list[int | None] = []
    for k, change in enumerate(both):
        start = change.before.char_start  # type: ignore[union-attr]
        lo, hi = 0, len(tails)
        while lo < hi:
            mid = (lo + hi) // 2
            if both[tails[mid]].before.char_start < start:  # type: ignore[union-attr]
                lo = mid + 1
            else:
                hi = mid
        back.append(tails[lo - 1] if lo else None)
        if lo == len(tails):
            tails.append(k)
        else:
            tails[lo] = k
    chain: set[int] = set()
    at = tails[-1] if tails else None
    while at is not None:
        chain.add(id(both[at]))
        at = back[at]
    return frozenset(chain)


def _by_cells(changes: Sequence[Change], before: Held, after: Held) -> list[Change]:
    """`changes` with each change of a table row written as one change per cell
    (`redline.cell_pieces`), so that no change's span covers text of another (a PDF table read
    column by column interleaves its rows' cells). A cell keeps its row's change id, labels and
    scores; it is `added` or `removed` where only one side holds it, `unchanged` or `modified`
    (as its pieces say) in a row that is either, and its row's kind otherwise (a move, a split
    or a merge, which its spans no longer quote: shown as a deletion and an insertion)."""
    out: list[Change] = []
    for change in changes:
        cells = cell_pieces(change, before.text, after.text)
        if not cells:
            out.append(change)
            continue
        for cell in cells:
            kind = change.kind
            if cell.before is None or cell.after is None:
                kind = "added" if cell.before is None else "removed"
            elif kind in ("unchanged", "modified"):
                kind = "modified" if any(p.changed for p in cell.pieces) else "unchanged"
            out.append(
                replace(
                    change,
                    kind=kind,
                    before=_cell_span(before, cell.before),
                    after=_cell_span(after, cell.after),
                    span_before=None,
                    span_after=None,
                    before_spans=(),
                    after_spans=(),
                    before_cells=(),
                    after_cells=(),
                )
            )
    return out


def _cell_span(version: Held, span: tuple[int, int] | None) -> Span | None:
    if span is None:
        return None
    return Span(version_id=version.version_id, char_start=span[0], char_end=span[1])


def _gaps_agree(before: str, after: str) -> bool:
    """Two gaps between passages read alike: the same characters, or both white space only."""
    return before == after or (before.isspace() and after.isspace())


class _Comments:
    """A redline's comments, numbered here in the order they are added (0, 1, ...: the ids
    python-docx gives a document with none). python-docx's `add_comment` appends the comment it
    makes to the document's comments and looks for a free id among every one already there, so
    n comments would cost n squared (2,528 in one held pair's redline); each is made by it, set
    aside, and all are put back in order by `close`."""

    def __init__(self, comments: DocxComments) -> None:
        from docx.oxml.ns import qn

        self.comments = comments
        self.id_attribute = qn("w:id")
        self.made: list[etree._Element] = []
        self.root: etree._Element | None = None

    def add(self, text: str) -> int:
        made = self.comments.add_comment(text, author=AUTHOR, initials="wb")
        self.root = made.part.element
        element = self.root[-1]  # the comment just made: add_comment appends it
        self.root.remove(element)
        element.set(self.id_attribute, str(len(self.made)))
        self.made.append(element)
        return len(self.made) - 1

    def close(self) -> None:
        """Every comment made, in order, back into the document's comments."""
        if self.root is not None:
            self.root.extend(self.made)


class _Stream:
    """Builds the token stream of one version pair (`layout` makes it paragraphs)."""

    def __init__(
        self,
        before: Held,
        after: Held,
        verdicts: Sequence[Verdict],
        attributions: Attributions | None,
        comment: Callable[[str], int],
    ) -> None:
        self.before, self.after = before, after
        self.verdicts = verdicts
        self.attributions = attributions or {}
        self.comment = comment
        self.tokens: list[Token] = []
        self.moves = 0
        self.unconfirmed = 0
        self.law_comments = 0
        self._move_names: dict[str, str] = {}
        self._move_ranges = 0

    def run(self, mode: Mode, text: str) -> None:
        if text:
            self.tokens.append(Run(mode, text))

    def commented(self, text: str, body: Callable[[], None]) -> None:
        ident = self.comment(text)
        self.tokens.append(Mark("comment_start", ident))
        body()
        self.tokens.append(Mark("comment_end", ident))

    # -- one change --------------------------------------------------------------------------

    def confirmed(self, change: Change) -> Verdict | None:
        standing = standing_verdict(change, self.verdicts)
        return standing if standing is not None and standing.answer == "confirmed" else None

    def law_line(self, change: Change) -> str | None:
        made = self.attributions.get(change.change_id)
        return made.line() if made is not None and made.kind == "made_by" else None

    def with_law(self, change: Change, body: Callable[[], None]) -> None:
        """`body`, inside a comment naming the law's instruction where a law made the change."""
        line = self.law_line(change)
        if line is None:
            body()
            return
        self.law_comments += 1
        self.commented(line, body)

    def pieces(self, change: Change) -> tuple[Piece, ...]:
        return redline(change, self.before, self.after).pieces

    def in_place(self, change: Change) -> None:
        """A pairing of the anchor chain: its pieces where it stands, marked word by word, or,
        for a split or merge no reviewer confirmed, one deletion and one insertion."""
        assert change.before is not None and change.after is not None
        b, a = self.before.text, self.after.text
        if change.kind in ("split", "merged") and self.confirmed(change) is None:
            before_text = b[change.before.char_start : change.before.char_end]
            after_text = a[change.after.char_start : change.after.char_end]

            def swap() -> None:
                self.run("del", before_text)
                self.run("ins", after_text)

            self.unconfirmed += 1
            self.with_law(change, lambda: self.commented(self.doubt_note(change), swap))
            return

        def marked() -> None:
            for piece in self.pieces(change):
                if not piece.changed:
                    self.run("equal", a[piece.after_start : piece.after_end])
                    continue
                self.run("del", b[piece.before_start : piece.before_end])
                self.run("ins", a[piece.after_start : piece.after_end])

        if change.kind == "unchanged":
            marked()
        else:
            self.with_law(change, marked)

    def left(self, change: Change) -> None:
        """The before side of a change not laid out in place: removed, or where a pairing left."""
        assert change.before is not None
        text = self.before.text[change.before.char_start : change.before.char_end]
        if change.after is None:
            self.with_law(change, lambda: self.run("del", text))
            return
        if self.is_move(change):
            self.move_range(change, "From")
            return
        self.commented(self.doubt_note(change), lambda: self.run("del", text))

    def arrived(self, change: Change) -> None:
        """The after side of a change not laid out in place: added, or where a pairing arrived."""
        assert change.after is not None
        text = self.after.text[change.after.char_start : change.after.char_end]
        if change.before is None:
            self.with_law(change, lambda: self.run("ins", text))
            return
        if self.is_move(change):
            verdict = self.confirmed(change)
            assert verdict is not None
            self.moves += 1
            note = (
                f"moved pairing {change.change_id}, confirmed by {verdict.actor} "
                f"(verdict log row {verdict.seq})"
            )
            self.with_law(
                change, lambda: self.commented(note, lambda: self.move_range(change, "To"))
            )
            return
        self.unconfirmed += 1
        self.with_law(
            change,
            lambda: self.commented(self.doubt_note(change), lambda: self.run("ins", text)),
        )

    def move_range(self, change: Change, side: Literal["From", "To"]) -> None:
        """One side of a confirmed move, as a named move range: its unchanged pieces moved
        (`w:moveFrom`, `w:moveTo`), its changed pieces deleted where it left and inserted where it
        arrived. Both sides of one pairing share the range's name ("move1", "move2", ... in the
        order the pairings are first met)."""
        name = self._move_names.setdefault(change.change_id, f"move{len(self._move_names) + 1}")
        ident = self.comment_free_id()
        self.tokens.append(Mark("move_start", ident, side, name))
        for piece in self.pieces(change):
            if side == "From":
                source = self.before.text[piece.before_start : piece.before_end]
                self.run("del" if piece.changed else "moveFrom", source)
            else:
                source = self.after.text[piece.after_start : piece.after_end]
                self.run("ins" if piece.changed else "moveTo", source)
        self.tokens.append(Mark("move_end", ident, side, name))

    def is_move(self, change: Change) -> bool:
        """Shown as moveFrom/moveTo: a `moved` pairing a reviewer confirmed (its standing verdict
        in the log is "confirmed"), and nothing else."""
        return change.kind == "moved" and self.confirmed(change) is not None

    def comment_free_id(self) -> int:
        """A move range's id, numbered apart from comments and revisions (`MOVE_IDS`)."""
        self._move_ranges += 1
        return MOVE_IDS + self._move_ranges

    def doubt_note(self, change: Change) -> str:
        """The comment on a pairing shown as a deletion and an insertion: which pairing, its
        confidence, and why it is not shown as settled (no confirmation, or the standing verdict,
        and `diff.doubt_reasons`)."""
        b, a = change.before, change.after
        assert b is not None and a is not None
        standing = standing_verdict(change, self.verdicts)
        why = (
            "no reviewer has confirmed it"
            if standing is None
            else f"{standing.answer} by {standing.actor} (verdict log row {standing.seq})"
        )
        reasons = doubt_reasons(change)
        confidence = (
            f"{change.alignment_confidence:.2f}{' capped' if change.capped else ''}"
            if change.alignment_confidence is not None
            else "none"
        )
        return (
            f"{change.kind} pairing {change.change_id}: before [{b.char_start}, {b.char_end}) -> "
            f"after [{a.char_start}, {a.char_end}), confidence {confidence}; shown as a deletion "
            f"and an insertion: {why}" + (f"; doubtful: {', '.join(reasons)}" if reasons else "")
        )

    # -- the whole pair ----------------------------------------------------------------------

    def build(self, changes: Sequence[Change]) -> None:
        """Walk the anchor chain; between two anchors, the before side's gaps and changes (as
        deletions, or where a move left), then the after side's (insertions, arrivals). A gap
        the two sides share (`_gaps_agree`) at a region's start or end is shown once, unmarked."""
        chain = _anchor_chain(changes)
        anchors = sorted(
            (c for c in changes if id(c) in chain),
            key=lambda c: c.after.char_start,  # type: ignore[union-attr]
        )
        lefts = sorted(
            (c for c in changes if c.before and id(c) not in chain),
            key=lambda c: c.before.char_start,  # type: ignore[union-attr]
        )
        arrivals = sorted(
            (c for c in changes if c.after and id(c) not in chain),
            key=lambda c: c.after.char_start,  # type: ignore[union-attr]
        )
        b_pos = a_pos = 0
        b_next = a_next = 0
        ends = [*anchors, None]
        for anchor in ends:
            b_stop = anchor.before.char_start if anchor else len(self.before.text)  # type: ignore[union-attr]
            a_stop = anchor.after.char_start if anchor else len(self.after.text)  # type: ignore[union-attr]
            b_items, b_next = _side_items(lefts, b_next, b_pos, b_stop, before=True)
            a_items, a_next = _side_items(arrivals, a_next, a_pos, a_stop, before=False)
            self.region(b_items, a_items)
            if anchor is not None:
                self.in_place(anchor)
                b_pos = anchor.before.char_end  # type: ignore[union-attr]
                a_pos = anchor.after.char_end  # type: ignore[union-attr]

    def region(self, b_items: list[_Item], a_items: list[_Item]) -> None:
        """The text between two anchors (rules in `build`)."""
        head = tail = ""
        if self._shared_gap(b_items[:1], a_items[:1]):
            head = self._gap(a_items.pop(0), False)
            b_items.pop(0)
        if self._shared_gap(b_items[-1:], a_items[-1:]):
            tail = self._gap(a_items.pop(), False)
            b_items.pop()
        self.run("equal", head)
        for item in b_items:
            if item.change is None:
                self.run("del", self._gap(item, True))
            else:
                self.left(item.change)
        for item in a_items:
            if item.change is None:
                self.run("ins", self._gap(item, False))
            else:
                self.arrived(item.change)
        self.run("equal", tail)

    def _shared_gap(self, b_items: list[_Item], a_items: list[_Item]) -> bool:
        """One gap on each side (lists of one item), and the two agree (`_gaps_agree`)."""
        if not b_items or not a_items or b_items[0].gap is None or a_items[0].gap is None:
            return False
        return _gaps_agree(self._gap(b_items[0], True), self._gap(a_items[0], False))

    def _gap(self, item: _Item, before: bool) -> str:
        assert item.gap is not None
        text = self.before.text if before else self.after.text
        return text[item.gap[0] : item.gap[1]]


@dataclass(frozen=True, slots=True)
class _Item:
    """One side's text between two anchors: a gap `[start, end)` or a change's side."""

    gap: tuple[int, int] | None
    change: Change | None


def _side_items(
    changes: Sequence[Change], at: int, start: int, stop: int, *, before: bool
) -> tuple[list[_Item], int]:
    """The gaps and changes of one side in `[start, stop)`, in text order, reading `changes`
    (sorted by that side's start) from index `at`; returns them and the next index."""
    items: list[_Item] = []
    pos = start
    while at < len(changes):
        span = changes[at].before if before else changes[at].after
        assert span is not None
        if span.char_start >= stop:
            break
        if span.char_start > pos:
            items.append(_Item((pos, span.char_start), None))
        items.append(_Item(None, changes[at]))
        pos = max(pos, span.char_end)
        at += 1
    if stop > pos:
        items.append(_Item((pos, stop), None))
    return items, at


def binding_properties(before: Held, after: Held, log_head: LogHead) -> dict[str, str]:
    """The custom document properties that bind a redline: each version's id, artefact and
    text SHA-256, the verdict log's rows and head, the normalization scheme and the workbench
    version; names prefixed `workbench.`."""
    properties = {}
    for side, version in (("before", before), ("after", after)):
        properties[f"{side}.version_id"] = version.version_id
        properties[f"{side}.artefact_sha256"] = str(getattr(version, "artefact_sha256", ""))
        properties[f"{side}.text_sha256"] = str(getattr(version, "text_sha256", ""))
    properties["verdict_log.rows"] = str(log_head.rows)
    properties["verdict_log.head"] = log_head.head
    properties["normalizer"] = f"{SCHEME} v{SCHEME_VERSION}"
    properties["workbench_version"] = distribution_version("workbench")
    return {PROPERTY_PREFIX + name: value for name, value in properties.items()}


def write_redline_docx(
    path: Path,
    before: Held,
    after: Held,
    changes: Sequence[Change],
    *,
    verdicts: Sequence[Verdict],
    log_head: LogHead,
    attributions: Attributions | None = None,
) -> RedlineDocx:
    """Write the Word redline of `diff_versions(before, after)` (`changes`, the whole diff) to
    `path`, replacing a file there; refused (RedlineError) before anything is written for a path
    `diff_files.writable` refuses or a version `check_writable` refuses.

    A table row's change is laid out cell by cell (`_by_cells`). In place, in after order: the
    anchor chain (`_anchor_chain`), each pairing marked at the
    characters its redline pieces mark. Between anchors: removed passages and where pairings left
    (before order), then added passages and where they arrived (after order). A `moved` pairing
    is moveFrom/moveTo (its changed pieces as `w:del` inside the moveFrom range and `w:ins`
    inside the moveTo range) only when `is_move` holds; otherwise, like a split or merge no one
    confirmed, a deletion and an insertion with a comment (`doubt_note`). A change whose
    attribution is `made_by` carries a comment with the attribution's line.
    """
    import docx
    from docx.opc.constants import RELATIONSHIP_TYPE
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part

    writable(path, "the Word redline")
    check_writable(before)
    check_writable(after)
    document = docx.Document()
    # One paragraph per line of the versions' text: no space between them, as the text has none.
    normal = document.styles["Normal"].paragraph_format
    normal.space_after = normal.space_before = 0
    normal.line_spacing = 1.0
    comments = _Comments(document.comments)
    stream = _Stream(before, after, verdicts, attributions, comments.add)
    stream.build(_by_cells(changes, before, after))
    comments.close()
    revisions = Revisions()
    body = document.element.body
    section = body.sectPr
    for paragraph in layout(stream.tokens, revisions):
        if section is not None:
            section.addprevious(paragraph)
        else:
            body.append(paragraph)
    document.core_properties.title = f"{before.version_id} -> {after.version_id}"
    document.core_properties.author = AUTHOR
    package = document.part.package
    custom = Part(
        PackURI("/docProps/custom.xml"),
        CUSTOM_PROPERTIES,
        custom_properties_xml(binding_properties(before, after, log_head)),
        package,
    )
    package.relate_to(custom, RELATIONSHIP_TYPE.CUSTOM_PROPERTIES)
    replace_file_with(path, lambda temporary: document.save(str(temporary)))
    return RedlineDocx(
        path=path,
        before_id=before.version_id,
        after_id=after.version_id,
        insertions=revisions.insertions,
        deletions=revisions.deletions,
        moves=stream.moves,
        unconfirmed=stream.unconfirmed,
        law_comments=stream.law_comments,
    )


def redline_section_docx(
    workspace: Workspace,
    section: Section,
    path: Path,
    *,
    attributions: Attributions | None = None,
) -> RedlineDocx:
    """`write_redline_docx` of one version pair `workbench diff` computed (`section.changes`,
    the whole diff), with the workspace's verdict log as it stands (its rows and its head as
    `log.verify_chain` reads them) and the attributions handed in (None: no law comments)."""
    from workbench.changes.log import read_verdicts, verify_chain

    chain = verify_chain(workspace)
    return write_redline_docx(
        path,
        section.before,
        section.after,
        section.changes,
        verdicts=read_verdicts(workspace),
        log_head=LogHead(rows=chain.rows, head=chain.head),
        attributions=attributions,
    )
