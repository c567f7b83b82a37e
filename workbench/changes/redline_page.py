"""The redline page: two versions side by side, one self-contained HTML file.

Each version pair of `redline.Section`s is a table, before on the left and after on the right,
one row per change in the diff's order (a meta row naming the change, then its text row), each
change's id the anchor of its row. Text comes from `redline`'s pieces, so the marks are exactly
the listing's: changed runs are `<del>` on the left and `<ins>` on the right. A moved passage is
shown where it left and again where it arrived, linked both ways; the passages of a split or
merge are numbered and linked from the change's row; a doubtful pairing is tinted and names its
reasons; a side that touches machine-read text (C18) names its origin beside its place. Where
the page is handed attributions (`attribution.Attributions`, from the amendments verb), each
change's row says what made it: the law instruction, an Act, or nothing held.

The guarantee: every character of document text, label, version id and family name is
HTML-escaped after its control characters are made visible, and the page holds no script and
loads nothing (its Content-Security-Policy forbids both), so a filing holding `<script>` or
`<img onerror>` shows as text. The page is deterministic (no timestamp): the same diff gives the
same bytes.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Literal

from workbench.changes.attribution import Attributed, Attributions, attribution_counts
from workbench.changes.redline import HTML_CONTROLS, Redline, Section, pair_summary, place
from workbench.models import Span

_STYLE = """
body{font-family:system-ui,sans-serif;margin:1em 1.5em;color:#111;background:#fff}
h1{font-size:1.3em}h2{font-size:1.1em;margin-top:2em}
.note{color:#444;font-size:90%}
table.redline{width:100%;border-collapse:collapse;table-layout:fixed}
table.redline th{text-align:left;font-weight:600;background:#eee;padding:.3em .5em;
 overflow-wrap:anywhere}
table.redline td{vertical-align:top;padding:.3em .5em;border-top:1px solid #ddd;width:50%}
.text{white-space:pre-wrap;overflow-wrap:anywhere;font-family:ui-monospace,monospace;
 font-size:12.5px;line-height:1.35}
tr.unchanged .text{color:#666}
tr.meta td{background:#f5f5f5;font-size:88%;border-top:2px solid #ccc}
.place{color:#555;font-size:85%;margin-bottom:.2em}
del{background:#ffd2cf;color:#7a0014;text-decoration:line-through}
ins{background:#c6f6d0;color:#034d18;text-decoration:underline}
.kind{font-weight:600}
.doubt{background:#ffe58a;border:1px solid #c9a300;padding:0 .3em;border-radius:3px}
tr.doubtful td{background:#fffbe6}
tr.meta.doubtful td{background:#fff1b8}
td.moved .text,td.moved{border-left:4px solid #8a63d2}
.part{font:600 11px system-ui,sans-serif;color:#fff;background:#8a63d2;padding:0 .3em;
 border-radius:3px;user-select:none}
.link{font-size:90%}
:target{outline:3px solid #ff8c00;outline-offset:-3px}
ol.index{font-size:88%;columns:2;margin:.3em 0}
.made{margin-top:.2em;font-size:95%}.made.made_by{color:#034d18}.made.unexplained{color:#7a0014}
""".strip()


def _e(text: str) -> str:
    """Document text for the page: control characters shown (`HTML_CONTROLS`), then every
    character HTML-escaped (`&`, `<`, `>`, `"`, `'`)."""
    return html.escape(text.translate(HTML_CONTROLS), quote=True)


def _side_html(r: Redline, side: Literal["before", "after"], parts: Mapping[int, str]) -> str:
    """One side of a change: its pieces, changed ones in `<del>` (before) or `<ins>` (after),
    and a numbered part mark at each offset of `anchors` (the passages of a split or merge)."""
    source = r.before_source if side == "before" else r.after_source
    tag = "del" if side == "before" else "ins"
    anchors = dict(parts)
    out: list[str] = []
    for piece in r.pieces:
        start, end = (
            (piece.before_start, piece.before_end)
            if side == "before"
            else (piece.after_start, piece.after_end)
        )
        cuts = [start, *sorted(k for k in anchors if start <= k < end), end]
        for left, right in pairwise(cuts):
            if left in anchors and left < end:
                number = anchors.pop(left)
                out.append(f'<span class="part" id="{number}">{number.rsplit("-", 1)[1]}</span>')
            if left == right:
                continue
            # A side of a changed run that is white space alone is the space the run absorbed
            # between two changed words (`_joined`): nothing was removed or added there.
            text = source[left:right]
            marked = piece.changed and not text.isspace()
            out.append(f"<{tag}>{_e(text)}</{tag}>" if marked else _e(text))
    return "".join(out)


def _meta_html(r: Redline, anchor: str, extra: str = "") -> str:
    c = r.change
    labels = f"{_e(c.before_label or '-')} → {_e(c.after_label or '-')}"
    scores = ""
    if c.similarity is not None and c.alignment_confidence is not None:
        capped = " (capped: the labels disagree)" if c.capped else ""
        scores = (
            f" · similarity {c.similarity:.2f} · confidence {c.alignment_confidence:.2f}{capped}"
        )
    doubt = f' <span class="doubt">doubtful: {_e(", ".join(r.doubt))}</span>' if r.doubt else ""
    return (
        f'<a class="id" href="#{anchor}">{c.change_id}</a> <span class="kind">{c.kind}</span>'
        f" · labels {labels}{scores}{doubt}{extra}"
    )


def _place_html(
    side: str, span: Span | None, pages: tuple[int, int] | None, origin: Sequence[str] = ()
) -> str:
    return f'<div class="place">{_e(place(side, span, pages, origin))}</div>' if span else ""


def _parts(change_id: str, spans: Sequence[Span]) -> dict[int, str]:
    return {span.char_start: f"{change_id}-part-{k}" for k, span in enumerate(spans, 1)}


def _change_rows(r: Redline, made: Attributed | None = None) -> list[str]:
    """The table rows of one change: a meta row (its anchor, and what made the change where
    `made` is handed in) and a text row; a moved change's rows stand where it left, and
    `_destination_rows` where it arrived."""
    c = r.change
    classes = f"{c.kind}{' doubtful' if r.doubt else ''}"
    made_by = f'<div class="made {_e(made.kind)}">{_e(made.line())}</div>' if made else ""
    if c.kind == "unchanged":
        return [
            f'<tr id="{c.change_id}" class="change unchanged">'
            f'<td class="before">{_place_html("before", c.before, r.before_pages, c.before_origin) if r.before_pages else ""}'
            f'<div class="text">{_side_html(r, "before", {})}</div></td>'
            f'<td class="after">{_place_html("after", c.after, r.after_pages, c.after_origin) if r.after_pages else ""}'
            f'<div class="text">{_side_html(r, "after", {})}</div></td></tr>'
        ]
    extra = ""
    before_parts = _parts(c.change_id, c.before_spans)
    after_parts = _parts(c.change_id, c.after_spans)
    if c.kind in ("split", "merged"):
        parts = after_parts if c.kind == "split" else before_parts
        links = " ".join(f'<a href="#{a}">{a.rsplit("-", 1)[1]}</a>' for a in parts.values())
        verb = "split into" if c.kind == "split" else "merged from"
        extra = f' · <span class="link">{verb} {len(parts)} passages: {links}</span>'
    if c.kind == "moved":
        extra = f' · <a class="link" href="#{c.change_id}-to">moved to ↓</a>'
    before_cell = (
        f"{_place_html('before', c.before, r.before_pages, c.before_origin)}"
        f'<div class="text">{_side_html(r, "before", before_parts)}</div>'
        if c.before
        else ""
    )
    if c.kind == "moved":
        after_cell = (
            f'<a class="link" href="#{c.change_id}-to">moved to '
            f"{_e(place('after', c.after, r.after_pages))} ↓</a>"
        )
    else:
        after_cell = (
            f"{_place_html('after', c.after, r.after_pages, c.after_origin)}"
            f'<div class="text">{_side_html(r, "after", after_parts)}</div>'
            if c.after
            else ""
        )
    moved = " moved" if c.kind == "moved" else ""
    return [
        f'<tr id="{c.change_id}" class="meta {classes}"><td colspan="2">'
        f"{_meta_html(r, c.change_id, extra)}{made_by}</td></tr>",
        f'<tr class="change {classes}"><td class="before{moved}">{before_cell}</td>'
        f'<td class="after">{after_cell}</td></tr>',
    ]


def _destination_rows(r: Redline) -> list[str]:
    """Where a moved passage arrived: a meta row (anchor `<change id>-to`) and its text row."""
    c = r.change
    anchor = f"{c.change_id}-to"
    back = f' · <a class="link" href="#{c.change_id}">moved from ↑</a>'
    return [
        f'<tr id="{anchor}" class="meta moved{" doubtful" if r.doubt else ""}"><td colspan="2">'
        f"{_meta_html(r, anchor, back)}</td></tr>",
        f'<tr class="change moved{" doubtful" if r.doubt else ""}">'
        f'<td class="before"><a class="link" href="#{c.change_id}">moved from '
        f"{_e(place('before', c.before, r.before_pages))} ↑</a></td>"
        f'<td class="after moved">{_place_html("after", c.after, r.after_pages, c.after_origin)}'
        f'<div class="text">{_side_html(r, "after", {})}</div></td></tr>',
    ]


def _rows(items: Sequence[Redline], made: Mapping[str, Attributed]) -> list[str]:
    """Every row of one version pair, in the diff's order, with each moved passage shown twice:
    where it left (its place in the diff's order) and where it arrived, just before the first
    other change whose after side starts later (ties: the moved passages in after order); what
    made each change (`made`, by change id) in its meta row."""
    arrivals = sorted(
        (r for r in items if r.change.kind == "moved" and r.change.after is not None),
        key=lambda r: (r.change.after.char_start if r.change.after else 0, r.change.change_id),
    )
    rows: list[str] = []
    for r in items:
        after = r.change.after
        if after is not None and r.change.kind != "moved":
            while (
                arrivals
                and arrivals[0].change.after is not None
                and (arrivals[0].change.after.char_start < after.char_start)
            ):
                rows.extend(_destination_rows(arrivals.pop(0)))
        rows.extend(_change_rows(r, made.get(r.change.change_id)))
    for r in arrivals:
        rows.extend(_destination_rows(r))
    return rows


def _index(items: Sequence[Redline]) -> str:
    entries = [
        f'<li><a href="#{r.change.change_id}">{r.change.change_id}</a> {r.change.kind} '
        f"{_e(r.change.before_label or '-')} → {_e(r.change.after_label or '-')}"
        + (f' <span class="doubt">doubtful: {_e(", ".join(r.doubt))}</span>' if r.doubt else "")
        + "</li>"
        for r in items
        if r.change.kind != "unchanged"
    ]
    doubtful = sum(bool(r.doubt) for r in items)
    return (
        f"<details open><summary>{len(entries)} changes shown, {doubtful} doubtful</summary>"
        f'<ol class="index">{"".join(entries)}</ol></details>'
    )


def page_html(
    sections: Sequence[Section],
    *,
    family: str,
    shown: str,
    attributions: Attributions | None = None,
) -> str:
    """The redline page: for each version pair, its changes side by side, before on the left.

    `shown` says which changes were selected (a person's words, escaped like everything else).
    Each change's id is the anchor of its row; a moved passage's arrival is `<change id>-to`, the
    passages of a split or merge `<change id>-part-<k>`; `:target` outlines the row a link
    opened. Changed runs are `<del>` on the left and `<ins>` on the right; a doubtful pairing's
    rows are tinted and carry its reasons. The page holds no script and loads nothing (its
    Content-Security-Policy forbids both); it is deterministic (no timestamp), so the same diff
    gives the same bytes. With `attributions`, each pair's summary counts them and each change's
    row says what made it (`attribution`).
    """
    body: list[str] = [
        f"<h1>Redline: {_e(family)}</h1>",
        f'<p class="note">{_e(shown)}. Removed text is struck through on the left, added text '
        "underlined on the right; unchanged passages are grey. Offsets are half-open character "
        "ranges of each version's text; pages (PDF only) are counted from 1 in file order.</p>",
    ]
    for number, part in enumerate(sections, 1):
        before, after, items = part.before, part.after, part.shown
        summary = pair_summary(part)
        if attributions is not None:
            summary = f"{summary}; {attribution_counts(part, attributions)}"
        body.append(
            f'<section id="pair-{number}"><h2>{_e(before.version_id)} → {_e(after.version_id)}</h2>'
            f'<p class="note">{_e(summary)}</p>'
            f"{_index(items)}"
            '<table class="redline"><thead><tr>'
            f"<th>before: {_e(before.version_id)}</th><th>after: {_e(after.version_id)}</th>"
            f"</tr></thead><tbody>{''.join(_rows(items, attributions or {}))}</tbody></table></section>"
        )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Redline: {_e(family)}</title><style>{_STYLE}</style></head>"
        f"<body>{''.join(body)}</body></html>\n"
    )
