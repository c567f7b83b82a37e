"""The redline page (C7): two versions side by side in one self-contained, deterministic HTML file,
written through the autoescaping template `templates/redline.html`; docs/diff.md shows it."""

from __future__ import annotations

import functools
import html
from collections.abc import Mapping, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any, Literal

import jinja2
from markupsafe import Markup

from workbench.changes.attribution import Attributed, Attributions, attribution_counts
from workbench.changes.redline import Redline, Section, pair_summary, place
from workbench.models import Span
from workbench.terminal import HTML_CONTROLS

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


def _escaped(value: Any) -> Markup:
    """How the page prints a value that is not markup: control characters shown
    (`HTML_CONTROLS`), then every character HTML-escaped (`&`, `<`, `>`, `"`, `'`)."""
    if isinstance(value, Markup):
        return value
    return Markup(html.escape(str(value).translate(HTML_CONTROLS), quote=True))


def _joined(source: str) -> str:
    """The template's lines joined: each one's leading indentation and its newline dropped."""
    return "".join(line.lstrip() for line in source.splitlines())


@functools.cache
def _template() -> jinja2.Template:
    folder = Path(__file__).with_name("templates")
    environment = jinja2.Environment(
        loader=jinja2.FunctionLoader(
            lambda name: _joined((folder / name).read_text(encoding="utf-8"))
        ),
        autoescape=True,
        finalize=_escaped,
        undefined=jinja2.StrictUndefined,
    )
    return environment.get_template("redline.html")


Pieces = list[tuple[str, str]]  # ("part", anchor), ("changed" | "plain" | "cell", text)


def _side(r: Redline, side: Literal["before", "after"], parts: Mapping[int, str]) -> Pieces:
    """One side of a change: its pieces, changed ones marked, and a numbered part mark at each
    offset of `parts` (the passages of a split or merge)."""
    source = r.before_source if side == "before" else r.after_source
    if r.cells:
        return _row_side(r, side, source)
    anchors = dict(parts)
    out: Pieces = []
    for piece in r.pieces:
        start, end = (
            (piece.before_start, piece.before_end)
            if side == "before"
            else (piece.after_start, piece.after_end)
        )
        cuts = [start, *sorted(k for k in anchors if start <= k < end), end]
        for left, right in pairwise(cuts):
            if left in anchors and left < end:
                out.append(("part", anchors.pop(left)))
            if left == right:
                continue
            # A side of a changed run that is white space alone is the space the run absorbed
            # between two changed words (`_joined`): nothing was removed or added there.
            text = source[left:right]
            out.append(("changed" if piece.changed and not text.isspace() else "plain", text))
    return out


def _row_side(r: Redline, side: Literal["before", "after"], source: str) -> Pieces:
    """One side of a table row, as the listing shows it: `| header: value | ... |`, each of the
    side's cells marked alone (`redline.cell_pieces`); the bars and headers are ("cell", text)."""
    out: Pieces = []
    for cell in r.cells:
        if (cell.before if side == "before" else cell.after) is None:
            continue
        out.append(("cell", f"| {cell.header}: " if cell.header else "| "))
        for piece in cell.pieces:
            start, end = (
                (piece.before_start, piece.before_end)
                if side == "before"
                else (piece.after_start, piece.after_end)
            )
            text = source[start:end]
            if text:
                out.append(("changed" if piece.changed and not text.isspace() else "plain", text))
        out.append(("plain", " "))
    return [*out, ("cell", "|")] if out else out


def _labels(r: Redline) -> str:
    return f"{r.change.before_label or '-'} → {r.change.after_label or '-'}"


def _place(
    side: str,
    span: Span | None,
    pages: tuple[int, int] | None,
    origin: Sequence[str] = (),
    cells: int = 0,
) -> str | None:
    return place(side, span, pages, origin, cells=cells) if span else None


def _parts(change_id: str, spans: Sequence[Span]) -> dict[int, str]:
    return {span.char_start: f"{change_id}-part-{k}" for k, span in enumerate(spans, 1)}


def _meta(r: Redline, anchor: str) -> dict[str, Any]:
    """What a change's meta row names: its anchor, id, kind, labels, scores and doubts."""
    c = r.change
    scores = ""
    if c.similarity is not None and c.alignment_confidence is not None:
        capped = " (capped: the labels disagree)" if c.capped else ""
        scores = (
            f" · similarity {c.similarity:.2f} · confidence {c.alignment_confidence:.2f}{capped}"
        )
    return {
        "anchor": anchor,
        "id": c.change_id,
        "kind": c.kind,
        "labels": _labels(r),
        "scores": scores,
        "doubt": ", ".join(r.doubt),
        "parts": (),
        "link": None,
        "made": None,
    }


def _change_rows(r: Redline, made: Attributed | None = None) -> list[dict[str, Any]]:
    """The rows of one change: an unchanged passage's one row, or a meta row (its anchor, and
    what made the change where `made` is handed in) with a text row; a moved change's rows
    stand where it left, and `_destination_rows` where it arrived."""
    c = r.change
    if c.kind == "unchanged":
        return [
            {
                "layout": "unchanged",
                "id": c.change_id,
                "before_place": _place(
                    "before", c.before, r.before_pages, c.before_origin, len(c.before_cells)
                )
                if r.before_pages
                else None,
                "after_place": _place(
                    "after", c.after, r.after_pages, c.after_origin, len(c.after_cells)
                )
                if r.after_pages
                else None,
                "before": _side(r, "before", {}),
                "after": _side(r, "after", {}),
            }
        ]
    row = _meta(r, c.change_id) | {
        "layout": "change",
        "classes": f"{c.kind}{' doubtful' if r.doubt else ''}",
        "made": made,
        "before_class": " moved" if c.kind == "moved" else "",
        "after_class": "",
        "before_link": None,
        "after_link": None,
        "before_place": _place(
            "before", c.before, r.before_pages, c.before_origin, len(c.before_cells)
        ),
        "after_place": _place("after", c.after, r.after_pages, c.after_origin, len(c.after_cells)),
    }
    before_parts = _parts(c.change_id, c.before_spans)
    after_parts = _parts(c.change_id, c.after_spans)
    if c.kind in ("split", "merged"):
        parts = after_parts if c.kind == "split" else before_parts
        row["parts"] = tuple(parts.values())
        row["verb"] = "split into" if c.kind == "split" else "merged from"
    if c.kind == "moved":
        row["link"], row["link_words"] = f"{c.change_id}-to", "moved to ↓"
        row["after_link"] = place("after", c.after, r.after_pages, cells=len(c.after_cells))
    row["before"] = _side(r, "before", before_parts) if c.before else None
    row["after"] = _side(r, "after", after_parts) if c.after and c.kind != "moved" else None
    return [row]


def _destination_rows(r: Redline) -> list[dict[str, Any]]:
    """Where a moved passage arrived: a meta row (anchor `<change id>-to`) and its text row."""
    c = r.change
    return [
        _meta(r, f"{c.change_id}-to")
        | {
            "layout": "change",
            "classes": f"moved{' doubtful' if r.doubt else ''}",
            "link": c.change_id,
            "link_words": "moved from ↑",
            "before_class": "",
            "after_class": " moved",
            "before_link": place("before", c.before, r.before_pages, cells=len(c.before_cells)),
            "after_link": None,
            "after_place": _place(
                "after", c.after, r.after_pages, c.after_origin, len(c.after_cells)
            ),
            "before": None,
            "after": _side(r, "after", {}),
        }
    ]


def _rows(items: Sequence[Redline], made: Mapping[str, Attributed]) -> list[dict[str, Any]]:
    """Every row of one version pair, in the diff's order, with each moved passage shown twice:
    where it left (its place in the diff's order) and where it arrived, just before the first
    other change whose after side starts later (ties: the moved passages in after order); what
    made each change (`made`, by change id) in its meta row."""
    arrivals = sorted(
        (r for r in items if r.change.kind == "moved" and r.change.after is not None),
        key=lambda r: (r.change.after.char_start if r.change.after else 0, r.change.change_id),
    )
    rows: list[dict[str, Any]] = []
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
    pairs = []
    for part in sections:
        summary = pair_summary(part)
        if attributions is not None:
            summary = f"{summary}; {attribution_counts(part, attributions)}"
        items = part.shown
        index = [
            {"id": r.change.change_id, "kind": r.change.kind, "labels": _labels(r)}
            | {"doubt": ", ".join(r.doubt)}
            for r in items
            if r.change.kind != "unchanged"
        ]
        pairs.append(
            {
                "before_id": part.before.version_id,
                "after_id": part.after.version_id,
                "summary": summary,
                "index": index,
                "doubtful": sum(bool(r.doubt) for r in items),
                "rows": _rows(items, attributions or {}),
            }
        )
    return _template().render(family=family, shown=shown, style=Markup(_STYLE), pairs=pairs)
