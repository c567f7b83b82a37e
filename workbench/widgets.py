"""The review widget: a queue of doubtful pairings a researcher answers inside JupyterLab (C7, C8).

For each pairing it shows the two passages side by side, with the narrowed changed characters
highlighted; both section labels (the naive proxy the cap is computed from) and both structural
paths (the numbering `structure.parse_structure` reads, or the reason it refused); the computed
confidence and why it was capped; the answers already in the log. Three buttons append an answer
(confirmed, disputed, cannot tell) with the reviewer's name and optional reasoning to the verdict
log through `review.append_verdict`, and the caution state is then re-read from the log and
re-decided by `review.pairing_caution_stands`, the same predicate the CLI uses.

The guarantee: every piece of filing text (passages, labels, paths, version ids) and every reviewer
string (names, reasons) reaches the page through `html.escape`, so a `<script>` in a filing is
shown as text, never run. The widget holds no verdict state of its own: the log is read again after
every answer, so two kernels answering the same workspace see each other's rows.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets  # type: ignore[import-untyped]

from workbench.diff import RESTRUCTURE_CONFIDENCE_CEILING
from workbench.errors import WorkbenchError
from workbench.models import Change, Span, Version
from workbench.review import (
    ANSWERS,
    Answer,
    Pairing,
    Verdict,
    append_verdict,
    pairing_caution_stands,
    read_verdicts,
    standing_verdict,
)
from workbench.store import Workspace
from workbench.structure import StructureParse, parse_structure

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
        return html.escape(text[start:end])
    return (
        html.escape(text[start : narrowed.char_start])
        + "<mark>"
        + html.escape(text[narrowed.char_start : narrowed.char_end])
        + "</mark>"
        + html.escape(text[narrowed.char_end : end])
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
    """Why `pairing_is_uncertain` flags this pairing, in one plain sentence."""
    similarity = change.similarity or 0.0
    confidence = change.alignment_confidence or 0.0
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
        why = f": {html.escape(v.reason)}" if v.reason else ""
        items.append(
            f"<li>row {v.seq}: <b>{html.escape(ANSWER_LABELS[v.answer])}</b> by "
            f"{html.escape(v.actor)} at {html.escape(v.answered_at)}{undo}{why}</li>"
        )
    return "<ul style='margin: 0'>" + "".join(items) + "</ul>"


class ReviewWidget:
    """A queue of doubtful pairings over one workspace; display it as the last value of a cell.

    Attributes a test (or a script) can drive: `actor` and `reason` (text boxes), `buttons`
    (one per answer, `.click()` appends), `previous_button` / `next_button`, `status` (the last
    message), and `caution_stands` (the predicate on the current pairing, read from the log).
    """

    def __init__(
        self, workspace: Workspace, pairings: Sequence[Pairing], *, actor: str = ""
    ) -> None:
        self.workspace = workspace
        self.pairings = tuple(pairings)
        self.position = 0
        self._versions: dict[str, Version] = {}
        self._parses: dict[str, StructureParse] = {}

        self.header = widgets.HTML()
        self.previous_button = widgets.Button(description="◀ Previous", tooltip="previous pairing")
        self.next_button = widgets.Button(description="Next ▶", tooltip="next pairing")
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
    def current(self) -> Pairing | None:
        return self.pairings[self.position] if self.pairings else None

    @property
    def caution_stands(self) -> bool | None:
        """`pairing_caution_stands` on the current pairing, from the log as it is now."""
        pairing = self.current
        if pairing is None:
            return None
        verdicts = read_verdicts(self.workspace, pairing.change.change_id)
        return pairing_caution_stands(pairing.change, verdicts)

    def _version(self, version_id: str) -> Version:
        if version_id not in self._versions:
            self._versions[version_id] = self.workspace.version(version_id)
        return self._versions[version_id]

    def _parse(self, version: Version) -> StructureParse:
        if version.version_id not in self._parses:
            self._parses[version.version_id] = parse_structure(version)
        return self._parses[version.version_id]

    def _pane(self, side: str, span: Span, label: str | None, narrowed: Span | None) -> str:
        version = self._version(span.version_id)
        path = structural_path_text(self._parse(version), span.char_start)
        return (
            f"<div><b>{side}</b> <code>{html.escape(span.version_id)}</code> "
            f"[{span.char_start}, {span.char_end})<br>"
            f"section label: <b>{html.escape(label or 'none')}</b> · structural path: "
            f"<b>{html.escape(path)}</b>"
            f"<pre style='{_PRE}'>{highlighted_passage(version.text, span, narrowed)}</pre></div>"
        )

    def go(self, position: int) -> None:
        """Show the pairing at `position` (clamped to the queue) and refresh everything shown."""
        self.position = max(0, min(position, len(self.pairings) - 1))
        self.status.value = ""
        self.refresh()

    def refresh(self) -> None:
        pairing = self.current
        self.previous_button.disabled = self.position == 0
        self.next_button.disabled = self.position >= len(self.pairings) - 1
        for button in self.buttons.values():
            button.disabled = pairing is None
        if pairing is None:
            self.header.value = "<b>No doubtful pairings in this queue.</b>"
            self.before_pane.value = self.after_pane.value = self.scores.value = ""
            self.history.value = ""
            return
        change = pairing.change
        assert change.before is not None and change.after is not None
        every = read_verdicts(self.workspace)
        mine = tuple(v for v in every if v.quotes(change))
        stands = pairing_caution_stands(change, mine)
        open_count = sum(pairing_caution_stands(p.change, every) for p in self.pairings)
        state = (
            "<span style='color:#b45309'><b>caution stands</b></span>"
            if stands
            else "<span style='color:#15803d'><b>caution lifted</b></span>"
        )
        self.header.value = (
            f"&nbsp;pairing {self.position + 1} of {len(self.pairings)} · "
            f"<code>{html.escape(change.change_id)}</code> · "
            f"{html.escape(pairing.jurisdiction)}/{html.escape(pairing.family)} · {state} · "
            f"caution stands on {open_count} of {len(self.pairings)}"
        )
        self.before_pane.value = self._pane(
            "before", change.before, change.before_label, change.span_before
        )
        self.after_pane.value = self._pane(
            "after", change.after, change.after_label, change.span_after
        )
        self.scores.value = html.escape(doubt_text(change))
        self.history.value = history_html(mine)

    def answer(self, answer: Answer) -> Verdict | None:
        """Append `answer` for the current pairing; returns the row, or None (message in `status`).

        A pairing that already has a standing verdict is answered as a reversal naming that row.
        """
        pairing = self.current
        if pairing is None:
            return None
        change = pairing.change
        standing = standing_verdict(change, read_verdicts(self.workspace, change.change_id))
        try:
            verdict = append_verdict(
                self.workspace,
                change,
                answer,
                actor=self.actor.value,
                reason=self.reason.value,
                undoes=standing.seq if standing is not None else None,
            )
        except WorkbenchError as exc:
            self.refresh()
            self.status.value = (
                f"<span style='color:#b91c1c'>not recorded: {html.escape(str(exc))}</span>"
            )
            return None
        self.reason.value = ""
        self.refresh()
        self.status.value = (
            f"recorded row {verdict.seq}: {html.escape(ANSWER_LABELS[verdict.answer])} by "
            f"{html.escape(verdict.actor)}"
            + (f", undoing row {verdict.undoes}" if verdict.undoes is not None else "")
        )
        return verdict
