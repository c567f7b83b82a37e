"""The review widget (C7, C8): the review queue's items answered inside JupyterLab, every filing and
reviewer string escaped, caution re-decided from the log after each answer."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets  # type: ignore[import-untyped]

from workbench.changes.attribution import Attributions
from workbench.changes.caution import standing_verdict
from workbench.changes.diff import RESTRUCTURE_CONFIDENCE_CEILING, doubt_reasons
from workbench.changes.log import append_group_verdict, append_verdict, read_verdicts
from workbench.changes.queue import Pairing, ReviewItem, item_caution_stands
from workbench.changes.verdict import ANSWERS, Answer, Verdict
from workbench.errors import WorkbenchError
from workbench.models import Change, Span, Version
from workbench.terminal import HTML_CONTROLS
from workbench.text.structure import StructureParse, parse_structure
from workbench.workspace import Workspace


def _escape(text: str) -> str:
    """`text` escaped for HTML, each control character HTML forbids shown as its symbol (C14)."""
    return html.escape(text).translate(HTML_CONTROLS)


ANSWER_LABELS: dict[Answer, str] = {
    "confirmed": "Confirmed",
    "disputed": "Disputed",
    "uncertain": "Cannot tell",
}
_BUTTON_STYLES: dict[Answer, str] = {
    "confirmed": "success",
    "disputed": "danger",
    "uncertain": "warning",
}
_PRE = (
    "white-space: pre-wrap; word-break: break-word; font-size: 12px; margin: 4px 0; "
    "max-height: 24em; overflow-y: auto; background: #fafafa; padding: 6px; border: 1px solid #ddd"
)


def highlighted_passage(text: str, passage: Span, narrowed: Span | None) -> str:
    """The passage as escaped HTML, the narrowed characters wrapped in `<mark>`.

    `text` is the whole version text; both spans are in its coordinates. A narrowed span outside
    the passage (it never is, by construction in `diff`) is ignored rather than trusted.
    """
    start, end = passage.char_start, passage.char_end
    if narrowed is None or not start <= narrowed.char_start <= narrowed.char_end <= end:
        return _escape(text[start:end])
    return (
        _escape(text[start : narrowed.char_start])
        + "<mark>"
        + _escape(text[narrowed.char_start : narrowed.char_end])
        + "</mark>"
        + _escape(text[narrowed.char_end : end])
    )


def structural_path_text(parse: StructureParse, offset: int) -> str:
    """Plain text for the structural path at `offset`, or why there is none."""
    if parse.refusal is not None:
        return f"none (numbering refused: {parse.refusal})"
    path = parse.path_at(offset)
    if path is None:
        return "none (no numbered unit covers this passage)"
    return " › ".join(path)


def doubt_text(change: Change) -> str:
    """Why `pairing_is_uncertain` flags this pairing (`diff.doubt_reasons`), in one sentence:
    its confidence's reason (`_confidence_text`), then, for a pairing of two machine readings,
    that its sides are a machine's reading (and where every changed character lies in
    low-confidence OCR words, that too)."""
    reasons = doubt_reasons(change)
    if "machine_read" not in reasons:
        return _confidence_text(change)
    sides = f"{'+'.join(change.before_origin)} -> {'+'.join(change.after_origin)}"
    machine = f"both sides are a machine's reading ({sides}), so a difference may be reading noise"
    if "low-confidence OCR words" in reasons:
        machine += "; every changed character lies in OCR words read with low confidence"
    if set(reasons) <= {"machine_read", "low-confidence OCR words"}:
        return f"alignment confidence {change.alignment_confidence or 0.0:.2f}: {machine}"
    return f"{_confidence_text(change)}; {machine}"


def _confidence_text(change: Change) -> str:
    """Why the pairing's confidence is at or below the ceiling, in this order of precedence: a
    split or merge (a restructure, always capped); a move across sections (capped, its labels
    disagree); another capped pairing (the labels disagree); an uncapped pairing no more than
    the ceiling alike.
    """
    similarity = change.similarity or 0.0
    confidence = change.alignment_confidence or 0.0
    reasons = doubt_reasons(change)
    if "split or merge" in reasons:
        pieces = len(change.after_spans) if change.kind == "split" else len(change.before_spans)
        shape = (
            f"one passage became {pieces} consecutive passages"
            if change.kind == "split"
            else f"{pieces} consecutive passages became one"
        )
        return (
            f"alignment confidence {confidence:.2f}: a {change.kind} ({shape}) is a restructure, "
            f"capped at {RESTRUCTURE_CONFIDENCE_CEILING}; the joined texts are {similarity:.2f} "
            "alike"
        )
    if "move across sections" in reasons:
        return (
            f"alignment confidence {confidence:.2f}: capped at {RESTRUCTURE_CONFIDENCE_CEILING} "
            f"because the passage moved across sections ({change.before_label or 'none'} vs "
            f"{change.after_label or 'none'}); the texts are {similarity:.2f} alike"
        )
    if change.capped:
        return (
            f"alignment confidence {confidence:.2f}: capped at {RESTRUCTURE_CONFIDENCE_CEILING} "
            f"because the section labels disagree ({change.before_label or 'none'} vs "
            f"{change.after_label or 'none'}); the texts are {similarity:.2f} alike"
        )
    return (
        f"alignment confidence {confidence:.2f}: not capped (the section labels agree), but the "
        f"texts are only {similarity:.2f} alike, at or below {RESTRUCTURE_CONFIDENCE_CEILING}"
    )


def history_html(verdicts: Sequence[Verdict]) -> str:
    """The log rows for one pairing, oldest first, as an escaped HTML list."""
    if not verdicts:
        return "<i>No answers yet.</i>"
    items = []
    for v in verdicts:
        undo = f", undoes row {v.undoes}" if v.undoes is not None else ""
        why = f": {_escape(v.reason)}" if v.reason else ""
        items.append(
            f"<li>row {v.seq}: <b>{_escape(ANSWER_LABELS[v.answer])}</b> by "
            f"{_escape(v.actor)} at {_escape(v.answered_at)}{undo}{why}</li>"
        )
    return "<ul style='margin: 0'>" + "".join(items) + "</ul>"


def _as_item(entry: Pairing | ReviewItem) -> ReviewItem:
    if isinstance(entry, ReviewItem):
        return entry
    return ReviewItem(group_id=None, relabel=None, pairings=(entry,))


class ReviewWidget:
    """A queue of review items over one workspace; display it as the last value of a cell.

    `entries` are `queue.review_items(...)` (restructure groups counted once) or plain
    `queue.doubtful_pairings(...)` (each its own item). `attributions`, by change id, say what
    made each change (the amendments verb's records, handed in as data: the widget shows their
    `line` under the pairing's scores and computes none). With `sample_id`, the entries are the
    items of that confident sample (`audit.sample_pairings`, C21) and every answer carries the
    sample's id. Attributes a test (or a script) can drive:
    `actor` and `reason` (text boxes), `buttons` (one per answer, `.click()` appends),
    `previous_button` / `next_button`, `status` (the last message), and `caution_stands` (the
    predicate on the current item, read from the log).
    """

    def __init__(
        self,
        workspace: Workspace,
        entries: Sequence[Pairing | ReviewItem],
        *,
        actor: str = "",
        attributions: Attributions | None = None,
        sample_id: str | None = None,
    ) -> None:
        self.workspace = workspace
        self.sample_id = sample_id
        self.items = tuple(_as_item(entry) for entry in entries)
        self.attributions: Attributions = attributions or {}
        self.position = 0
        self._versions: dict[str, Version] = {}
        self._parses: dict[str, StructureParse] = {}

        self.header = widgets.HTML()
        self.previous_button = widgets.Button(description="◀ Previous", tooltip="previous item")
        self.next_button = widgets.Button(description="Next ▶", tooltip="next item")
        self.previous_button.on_click(lambda _: self.go(self.position - 1))
        self.next_button.on_click(lambda _: self.go(self.position + 1))
        self.before_pane = widgets.HTML(layout=widgets.Layout(width="50%"))
        self.after_pane = widgets.HTML(layout=widgets.Layout(width="50%"))
        self.scores = widgets.HTML()
        self.history = widgets.HTML()
        self.actor = widgets.Text(value=actor, placeholder="your name", description="Reviewer")
        self.reason = widgets.Textarea(
            placeholder="why (optional)",
            description="Reasoning",
            layout=widgets.Layout(width="90%", height="4em"),
        )
        self.buttons: dict[Answer, Any] = {}
        for answer in ANSWERS:
            button = widgets.Button(
                description=ANSWER_LABELS[answer],
                button_style=_BUTTON_STYLES[answer],
                tooltip=f"append '{answer}' to the verdict log",
            )
            button.on_click(lambda _, chosen=answer: self.answer(chosen))
            self.buttons[answer] = button
        self.status = widgets.HTML()
        self.view = widgets.VBox(
            [
                widgets.HBox([self.previous_button, self.next_button, self.header]),
                widgets.HBox([self.before_pane, self.after_pane]),
                self.scores,
                widgets.HTML("<b>Answers in the log</b>"),
                self.history,
                self.actor,
                self.reason,
                widgets.HBox(list(self.buttons.values())),
                self.status,
            ]
        )
        self.go(0)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.view._repr_mimebundle_(**kwargs)

    # -----------------------------------------------------------------------------------------

    @property
    def current(self) -> ReviewItem | None:
        return self.items[self.position] if self.items else None

    @property
    def caution_stands(self) -> bool | None:
        """`item_caution_stands` on the current item, from the log as it is now."""
        item = self.current
        if item is None:
            return None
        return item_caution_stands(item, read_verdicts(self.workspace))

    def _version(self, version_id: str) -> Version:
        if version_id not in self._versions:
            self._versions[version_id] = self.workspace.version(version_id)
        return self._versions[version_id]

    def _parse(self, version: Version) -> StructureParse:
        if version.version_id not in self._parses:
            self._parses[version.version_id] = parse_structure(version)
        return self._parses[version.version_id]

    def _path(self, span: Span) -> str:
        return structural_path_text(self._parse(self._version(span.version_id)), span.char_start)

    def _text(self, span: Span, narrowed: Span | None) -> str:
        text = self._version(span.version_id).text
        return f"<pre style='{_PRE}'>{highlighted_passage(text, span, narrowed)}</pre>"

    def _pane(
        self,
        side: str,
        span: Span,
        label: str | None,
        narrowed: Span | None,
        pieces: Sequence[Span] = (),
    ) -> str:
        """One side of one pairing; a split's (or merge's) pieces side by side, each its text."""
        head = (
            f"<div><b>{side}</b> <code>{_escape(span.version_id)}</code> "
            f"[{span.char_start}, {span.char_end})<br>"
            f"section label: <b>{_escape(label or 'none')}</b> · structural path: "
            f"<b>{_escape(self._path(span))}</b>"
        )
        if not pieces:
            return head + self._text(span, narrowed) + "</div>"
        columns = "".join(
            f"<div style='flex: 1 1 0; min-width: 8em'><i>piece {k} of {len(pieces)}</i> "
            f"[{piece.char_start}, {piece.char_end}){self._text(piece, None)}</div>"
            for k, piece in enumerate(pieces, start=1)
        )
        return head + f"<div style='display: flex; gap: 6px'>{columns}</div></div>"

    def _places(self, change: Change) -> str:
        """A move's two places: offsets and structural path where it stood and where it stands."""
        assert change.before is not None and change.after is not None
        return (
            f"moved from [{change.before.char_start}, {change.before.char_end}) under "
            f"{self._path(change.before)} to [{change.after.char_start}, "
            f"{change.after.char_end}) under {self._path(change.after)}"
        )

    def go(self, position: int) -> None:
        """Show the item at `position` (clamped to the queue) and refresh everything shown."""
        self.position = max(0, min(position, len(self.items) - 1))
        self.status.value = ""
        self.refresh()

    def refresh(self) -> None:
        item = self.current
        self.previous_button.disabled = self.position == 0
        self.next_button.disabled = self.position >= len(self.items) - 1
        for button in self.buttons.values():
            button.disabled = item is None
        if item is None:
            self.header.value = "<b>No doubtful pairings in this queue.</b>"
            self.before_pane.value = self.after_pane.value = self.scores.value = ""
            self.history.value = ""
            return
        every = read_verdicts(self.workspace)
        changes = [p.change for p in item.pairings]
        mine = tuple(v for v in every if any(v.quotes(c) for c in changes))
        stands = item_caution_stands(item, mine)
        open_count = sum(item_caution_stands(other, every) for other in self.items)
        state = (
            "<span style='color:#b45309'><b>caution stands</b></span>"
            if stands
            else "<span style='color:#15803d'><b>caution lifted</b></span>"
        )
        first = item.pairings[0]
        if item.group_id is not None:
            if item.relabel is not None:
                cause, why = "restructure group", item.relabel.line()
            else:  # a machine-read group: the origins of its two sides
                cause, why = "machine-read group", item.origins_line()
            what = (
                f"{cause} <code>{_escape(item.group_id)}</code> of {len(changes)} pairings "
                f"({_escape(why)})"
            )
        else:
            what = f"{_escape(changes[0].kind)} <code>{_escape(changes[0].change_id)}</code>"
        # A sampled confident pairing has no caution to lift: the header says whose sample it is.
        where = (
            f"confident, of sample <code>{_escape(self.sample_id)}</code>"
            if self.sample_id is not None
            else f"{state} · caution stands on {open_count} of {len(self.items)}"
        )
        self.header.value = (
            f"&nbsp;item {self.position + 1} of {len(self.items)} · {what} · "
            f"{_escape(first.jurisdiction)}/{_escape(first.family)} · {where}"
        )
        befores, afters, scores = [], [], []
        for change in changes:
            assert change.before is not None and change.after is not None
            befores.append(
                self._pane(
                    "before",
                    change.before,
                    change.before_label,
                    change.span_before,
                    change.before_spans,
                )
            )
            afters.append(
                self._pane(
                    "after", change.after, change.after_label, change.span_after, change.after_spans
                )
            )
            line = _escape(doubt_text(change))
            if change.kind == "moved":
                line += "<br>" + _escape(self._places(change))
            made = self.attributions.get(change.change_id)
            if made is not None:
                line += "<br>" + _escape(made.line())
            prefix = f"<code>{_escape(change.change_id)}</code>: " if item.is_group else ""
            scores.append(prefix + line)
        self.before_pane.value = "".join(befores)
        self.after_pane.value = "".join(afters)
        self.scores.value = "<br>".join(scores)
        self.history.value = history_html(mine)

    def answer(self, answer: Answer) -> Verdict | None:
        """Append `answer` for the current item; returns the (first) row, or None (message in
        `status`).

        An item that already has a standing verdict is answered as a reversal naming that row (for
        a group: the latest standing row of its pairings, as `append_group_verdict` requires).
        """
        item = self.current
        if item is None:
            return None
        verdicts = read_verdicts(self.workspace)
        standing = [standing_verdict(p.change, verdicts) for p in item.pairings]
        undoes = max((v.seq for v in standing if v is not None), default=None)
        try:
            if item.group_id is None:
                rows: tuple[Verdict, ...] = (
                    append_verdict(
                        self.workspace,
                        item.pairings[0].change,
                        answer,
                        actor=self.actor.value,
                        reason=self.reason.value,
                        undoes=undoes,
                        sample_id=self.sample_id,
                    ),
                )
            else:
                rows = append_group_verdict(
                    self.workspace,
                    item,
                    answer,
                    actor=self.actor.value,
                    reason=self.reason.value,
                    undoes=undoes,
                )
        except WorkbenchError as exc:
            self.refresh()
            self.status.value = (
                f"<span style='color:#b91c1c'>not recorded: {_escape(str(exc))}</span>"
            )
            return None
        self.reason.value = ""
        self.refresh()
        verdict = rows[0]
        which = (
            f"row {verdict.seq}"
            if len(rows) == 1
            else f"rows {verdict.seq}-{rows[-1].seq} (group {_escape(item.group_id or '')})"
        )
        self.status.value = (
            f"recorded {which}: {_escape(ANSWER_LABELS[verdict.answer])} by "
            f"{_escape(verdict.actor)}"
            + (f", undoing row {verdict.undoes}" if verdict.undoes is not None else "")
        )
        return verdict
