"""The review widget, driven headlessly: buttons clicked in code, the log and the caution read back."""

from __future__ import annotations

import hashlib
import html
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.changes.kept_workspace import copied, diffed_workspace
from tests.conftest import FreshWorkspace
from workbench.changes.log import read_verdicts, verify_chain
from workbench.changes.queue import doubtful_pairings, review_items
from workbench.changes.widgets import ReviewWidget, highlighted_passage, structural_path_text
from workbench.evals.demo import load_demo
from workbench.models import CatalogueRow, Span, Version
from workbench.text.structure import parse_structure
from workbench.workspace import Workspace

FAMILY = "dc-code-34-131"
BEFORE = "us-dc/dc-code-34-131/34-131@2021-11-13.xml"


@pytest.fixture(scope="module")
def diffed(
    catalogue: tuple[CatalogueRow, ...],
    tmp_path_factory: pytest.TempPathFactory,
    fresh_workspace: FreshWorkspace,
) -> Path:
    """A fresh workspace holding every D.C. Code version, with an empty verdict log, once its
    pairs are diffed and kept (by `doubtful_pairings`)."""
    us_dc = [r for r in catalogue if r.jurisdiction == "us-dc"]
    path = tmp_path_factory.mktemp("widgets") / "w.sqlite"
    return diffed_workspace(fresh_workspace, us_dc, path, doubtful_pairings)


@pytest.fixture
def held(diffed: Path, tmp_path: Path) -> Iterator[Workspace]:
    """A copy of `diffed`: each test reads the kept diffs instead of diffing every pair again."""
    with copied(diffed, tmp_path) as workspace:
        yield workspace


def _all_html(widget: ReviewWidget) -> str:
    return "".join(
        w.value
        for w in (
            widget.header,
            widget.before_pane,
            widget.after_pane,
            widget.scores,
            widget.history,
            widget.status,
        )
    )


def test_the_first_pairing_shows_both_passages_labels_paths_and_why_it_is_doubtful(
    held: Workspace,
) -> None:
    pairings = doubtful_pairings(held, jurisdiction="us-dc")
    widget = ReviewWidget(held, pairings)
    first = pairings[0].change
    assert first.before is not None and first.before.version_id == BEFORE
    assert widget.header.value.startswith(
        f"&nbsp;item 1 of {len(pairings)} · modified <code>{first.change_id}</code> · "
    )
    assert "caution stands on" in widget.header.value
    # Read by hand from the D.C. Council XML: paragraph (2) of subsection (a) of section 34-131 is
    # numbered <num>(2</num> in the 2021-11-13 release and <num>(2)</num> in the next; the labels
    # the marks give disagree, so the cap applies, and the diff narrows the change to ")".
    assert (
        "section label: <b>(2</b> · structural path: <b>34-131 › (a) › (2</b>"
        in widget.before_pane.value
    )
    assert "section label: <b>(2)</b> · structural path: <b>34-131 › (a) › (2)</b>" in (
        widget.after_pane.value
    )
    assert "(2<mark>)</mark> The customer owes" in widget.after_pane.value
    assert widget.scores.value.startswith("alignment confidence 0.50: capped at 0.5")
    assert widget.history.value == "<i>No answers yet.</i>"
    assert widget.caution_stands is True
    assert widget.previous_button.disabled and not widget.next_button.disabled


def test_a_capped_pairing_says_which_labels_disagree(held: Workspace) -> None:
    pairings = doubtful_pairings(held, jurisdiction="us-dc")
    position = next(k for k, p in enumerate(pairings) if p.change.capped)
    widget = ReviewWidget(held, pairings)
    widget.next_button.click()
    widget.go(position)
    change = pairings[position].change
    assert widget.scores.value == (
        f"alignment confidence 0.50: capped at 0.5 because the section labels disagree "
        f"({change.before_label or 'none'} vs {change.after_label or 'none'}); the texts are "
        f"{change.similarity:.2f} alike"
    )


def test_answering_appends_a_row_and_the_caution_follows_the_one_predicate(
    held: Workspace,
) -> None:
    pairings = doubtful_pairings(held, FAMILY)
    widget = ReviewWidget(held, pairings)
    change = pairings[0].change

    widget.buttons["confirmed"].click()  # no reviewer name yet
    assert read_verdicts(held) == ()
    assert widget.status.value == (
        "<span style='color:#b91c1c'>not recorded: actor &#x27;&#x27;: expected a reviewer&#x27;s "
        "name of 1 to 200 printable characters on one line</span>"
    )
    assert widget.caution_stands is True

    widget.actor.value = "alice"
    widget.reason.value = "same subsection, text enacted"
    widget.buttons["confirmed"].click()
    (row,) = read_verdicts(held)
    assert (row.change_id, row.answer, row.actor, row.reason, row.undoes) == (
        change.change_id,
        "confirmed",
        "alice",
        "same subsection, text enacted",
        None,
    )
    assert row.alignment_confidence == change.alignment_confidence
    assert widget.caution_stands is False
    assert widget.status.value == "recorded row 1: Confirmed by alice"
    assert widget.reason.value == ""
    assert "row 1: <b>Confirmed</b> by alice" in widget.history.value
    assert "caution lifted" in widget.header.value

    widget.buttons["uncertain"].click()  # a change of mind is a reversal naming row 1
    second = read_verdicts(held)[-1]
    assert (second.seq, second.answer, second.undoes) == (2, "uncertain", 1)
    assert widget.caution_stands is True
    assert widget.status.value == "recorded row 2: Cannot tell by alice, undoing row 1"
    assert verify_chain(held).valid


def test_two_widgets_on_one_workspace_see_each_others_answers(held: Workspace) -> None:
    pairings = doubtful_pairings(held, FAMILY)
    kernel_a = ReviewWidget(held, pairings, actor="alice")
    kernel_b = ReviewWidget(held, pairings, actor="bob")
    kernel_a.buttons["disputed"].click()
    kernel_b.buttons["confirmed"].click()  # b had not refreshed: its answer reverses a's row
    rows = read_verdicts(held)
    assert [(v.actor, v.answer, v.undoes) for v in rows] == [
        ("alice", "disputed", None),
        ("bob", "confirmed", 1),
    ]
    kernel_a.refresh()
    assert "row 2: <b>Confirmed</b> by bob" in kernel_a.history.value


def _version(version_id: str, text: str) -> Version:
    digest = hashlib.sha256(text.encode()).hexdigest()
    return Version(
        version_id=version_id,
        jurisdiction="xx-test",
        family="hostile",
        version_order=int(version_id[-5]),
        version_label="",
        media_type="text/plain",
        artefact_sha256=digest,
        artefact_bytes=len(text.encode()),
        extractor="identity",
        extractor_version="1",
        text_sha256=digest,
        text=text,
    )


def _hostile_family(workspace: Workspace, hostile: str) -> None:
    """Two versions whose numbered passages swap places, so the family's numbering is read (three
    labels counting on) and the renumbered pairing of the `hostile` passage is capped; `{}` in
    `hostile` is filled with x before and y after."""
    for n, body in (
        (1, [hostile.format("x"), "Charges apply."]),
        (2, ["Charges apply.", hostile.format("y")]),
    ):
        passages = [*body, "Terms end."]
        text = "".join(f"{k}. {p}\n\n" for k, p in enumerate(passages, start=1))
        workspace.add_version(_version(f"xx-test/hostile/v{n}.txt", text.removesuffix("\n")), {})


def test_filing_text_and_reviewer_strings_are_escaped(tmp_path: Path) -> None:
    with Workspace(tmp_path / "w.sqlite") as workspace:
        _hostile_family(workspace, "Rates <script>alert('{}')</script> & fees.")
        pairings = doubtful_pairings(workspace, "hostile")
        assert pairings and all(p.change.capped for p in pairings)
        first = pairings[0].change.before
        assert first is not None
        assert (
            "<script>"
            in workspace.version(first.version_id).text[first.char_start : first.char_end]
        )
        widget = ReviewWidget(workspace, pairings, actor="<img src=x onerror=alert(1)>")
        widget.reason.value = "</li><script>steal()</script>"
        widget.buttons["disputed"].click()
        assert read_verdicts(workspace)[0].reason == "</li><script>steal()</script>"
        shown = _all_html(widget)
        assert "<script" not in shown and "<img" not in shown
        assert "Rates &lt;script&gt;alert(&#x27;" in widget.before_pane.value
        assert "&amp; fees." in widget.before_pane.value
        assert "&lt;img src=x onerror=alert(1)&gt;" in widget.history.value
        assert "&lt;/li&gt;&lt;script&gt;steal()&lt;/script&gt;" in widget.history.value


def test_control_characters_in_a_filing_never_reach_the_widgets_html(tmp_path: Path) -> None:
    """An escape sequence or a bell in a filing's text, or in a reviewer's reason, is shown as its
    symbol: the widget's HTML holds no raw control character (C14)."""
    with Workspace(tmp_path / "w.sqlite") as workspace:
        _hostile_family(workspace, "Rates \x1b[2J\x07{} & fees.")
        pairings = doubtful_pairings(workspace, "hostile")
        widget = ReviewWidget(workspace, pairings, actor="tester\x1b]0;title\x07")
        widget.reason.value = "reason\x1b[31m"
        widget.buttons["disputed"].click()
        shown = _all_html(widget)
        assert not any(ord(c) < 32 and c not in "\t\n\r" for c in shown)
        assert "\x1b" not in shown and "\x07" not in shown and "␛" in shown


@pytest.mark.parametrize(
    ("narrowed", "expected"),
    [
        pytest.param(None, "a &lt;b&gt; c", id="no-narrowing"),
        pytest.param((2, 5), "a <mark>&lt;b&gt;</mark> c", id="narrowed-tag"),
        pytest.param((0, 0), "<mark></mark>a &lt;b&gt; c", id="empty-at-start"),
        pytest.param((3, 9), "a &lt;b&gt; c", id="outside-is-not-trusted"),
    ],
)
def test_highlighted_passage(narrowed: tuple[int, int] | None, expected: str) -> None:
    text = "a <b> c"
    passage = Span(version_id="v", char_start=0, char_end=len(text))
    span = Span(version_id="v", char_start=narrowed[0], char_end=narrowed[1]) if narrowed else None
    assert highlighted_passage(text, passage, span) == expected


def test_an_empty_queue_disables_the_answers(held: Workspace) -> None:
    widget = ReviewWidget(held, ())
    assert widget.header.value == "<b>No doubtful pairings in this queue.</b>"
    assert all(button.disabled for button in widget.buttons.values())
    assert widget.answer("confirmed") is None and widget.caution_stands is None


def test_a_real_split_shows_each_piece_side_by_side_with_its_text(held: Workspace) -> None:
    pairings = doubtful_pairings(held, jurisdiction="us-dc")
    position = next(k for k, p in enumerate(pairings) if p.change.kind == "split")
    change = pairings[position].change
    widget = ReviewWidget(held, pairings)
    widget.go(position)
    pieces = change.after_spans
    assert len(pieces) >= 2
    after = widget.after_pane.value
    assert "display: flex" in after
    text = held.version(pieces[0].version_id).text
    for k, piece in enumerate(pieces, start=1):
        assert f"<i>piece {k} of {len(pieces)}</i> [{piece.char_start}, {piece.char_end})" in after
        assert html.escape(text[piece.char_start : piece.char_end]) in after
    assert change.before is not None
    before_text = held.version(change.before.version_id).text
    assert html.escape(before_text[change.before.char_start : change.before.char_end]) in (
        widget.before_pane.value
    )
    assert widget.scores.value.startswith(
        f"alignment confidence 0.50: a split (one passage became {len(pieces)} consecutive "
        "passages) is a restructure, capped at 0.5"
    )
    assert f"· split <code>{change.change_id}</code> ·" in widget.header.value


def test_a_real_move_shows_its_two_places(held: Workspace) -> None:
    pairings = doubtful_pairings(held, jurisdiction="us-dc")
    position = next(k for k, p in enumerate(pairings) if p.change.kind == "moved")
    change = pairings[position].change
    assert change.before is not None and change.after is not None
    widget = ReviewWidget(held, pairings)
    widget.go(position)
    paths = [
        structural_path_text(parse_structure(held.version(span.version_id)), span.char_start)
        for span in (change.before, change.after)
    ]
    assert (
        html.escape(
            f"moved from [{change.before.char_start}, {change.before.char_end}) under {paths[0]} to "
            f"[{change.after.char_start}, {change.after.char_end}) under {paths[1]}"
        )
        in widget.scores.value
    )
    assert widget.scores.value.startswith(
        "alignment confidence 0.50: capped at 0.5 because the passage moved across sections "
        f"({change.before_label} vs {change.after_label})"
    )


def test_a_group_is_one_item_and_one_click_answers_every_pairing(tmp_path: Path) -> None:
    with Workspace(tmp_path / "demo.sqlite") as workspace:
        for version in load_demo().versions.values():
            workspace.add_version(version, {})
        items = review_items(workspace)
        position = next(k for k, item in enumerate(items) if item.is_group)
        group = items[position]
        widget = ReviewWidget(workspace, items, actor="alice")
        widget.go(position)
        assert (
            f"restructure group <code>{group.group_id}</code> of {len(group.pairings)} pairings "
            "(leading number -1)" in widget.header.value
        )
        assert f"caution stands on {len(items)} of {len(items)}" in widget.header.value
        for pairing in group.pairings:
            assert f"<code>{pairing.change.change_id}</code>: alignment" in widget.scores.value
            assert f"section label: <b>{pairing.change.after_label}</b>" in widget.after_pane.value
        widget.buttons["confirmed"].click()
        rows = read_verdicts(workspace)
        assert [(v.change_id, v.group_id) for v in rows] == [
            (p.change.change_id, group.group_id) for p in group.pairings
        ]
        assert widget.status.value == (
            f"recorded rows 1-{len(rows)} (group {group.group_id}): Confirmed by alice"
        )
        assert widget.caution_stands is False
        assert f"caution stands on {len(items) - 1} of {len(items)}" in widget.header.value
        widget.buttons["disputed"].click()  # a change of mind names the latest standing row
        assert [v.undoes for v in read_verdicts(workspace)[len(rows) :]] == list(
            range(1, len(rows) + 1)
        )
        assert verify_chain(workspace).valid
