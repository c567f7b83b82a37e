"""Altair charts drawn offline (C12): SVG and PNG made by vl-convert, with no script and no network;
the same chart gives the same bytes, a chart whose data names a URL is refused, and a control
character in a chart's text is shown as its symbol. The mime bundle and why: docs/notebooks.md."""

from __future__ import annotations

import contextlib
import functools
import html
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workbench.errors import ChartError
from workbench.terminal import CONTROLS

if TYPE_CHECKING:
    import altair as alt

# vl-convert fetches data named by URL only from these base URLs; none, so it never fetches.
NO_BASE_URLS: list[str] = []

_SIZE = re.compile(r'<svg[^>]*?\swidth="([\d.]+)"[^>]*?\sheight="([\d.]+)"')
# The control characters XML forbids, shown as their symbols (`terminal.CONTROLS`): vl-convert
# draws through an XML parser, and a non-XML character makes it panic past Python and abort.
_XML_CONTROLS = {k: v for k, v in CONTROLS.items() if k not in (0x09, 0x0A, 0x0D)}


def _shown(value: Any) -> Any:
    """`value` (a spec, or any part of one) with every string's XML-forbidden controls shown."""
    if isinstance(value, str):
        return value.translate(_XML_CONTROLS)
    if isinstance(value, dict):
        return {_shown(k): _shown(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shown(v) for v in value]
    return value


def _spec(chart: alt.TopLevelMixin) -> dict[str, Any]:
    """The chart's Vega-Lite spec with its data inline (altair's own serialization), every
    control character XML forbids shown as its symbol."""
    spec: dict[str, Any] = _shown(chart.to_dict())
    return spec


def _title(spec: dict[str, Any]) -> str:
    title = spec.get("title", "untitled")
    return str(title.get("text", "untitled") if isinstance(title, dict) else title)


@contextlib.contextmanager
def _drawing(spec: dict[str, Any], kind: str) -> Iterator[None]:
    """Turn vl-convert's multi-line failure to draw `spec` as `kind` into one `ChartError` line."""
    try:
        yield
    except ValueError as error:
        # vl-convert's message is a heading, the JavaScript error, then a stack; keep the error.
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        reason = next(
            (line for line in lines if line.startswith("Error")), lines[0] if lines else ""
        )
        raise ChartError(
            f"chart {_title(spec)!r} not drawn as {kind}: {reason} "
            "(charts are drawn offline: give their data inline)"
        ) from error


def _svg(spec: dict[str, Any]) -> str:
    import vl_convert as vlc

    with _drawing(spec, "svg"):
        return str(vlc.vegalite_to_svg(spec, allowed_base_urls=NO_BASE_URLS))


def _png(spec: dict[str, Any]) -> bytes:
    import vl_convert as vlc

    with _drawing(spec, "png"):
        return bytes(vlc.vegalite_to_png(spec, allowed_base_urls=NO_BASE_URLS))


def chart_svg(chart: alt.TopLevelMixin) -> str:
    """The chart as one SVG document (no script, no external reference); `ChartError` if not."""
    return _svg(_spec(chart))


# What altair adds to every chart's spec: its Vega-Lite schema and its default view size (a test
# compares a spec made here with altair's own, so that an altair upgrade that changes them shows).
VEGA_LITE_SCHEMA = "https://vega.github.io/schema/vega-lite/v6.4.1.json"
ALTAIR_CONFIG: dict[str, Any] = {"view": {"continuousWidth": 300, "continuousHeight": 300}}


def altair_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """`spec` (data, mark, encoding, sizes and title) as altair's `to_dict` gives it: its config
    first, its schema last."""
    return {"config": ALTAIR_CONFIG, **spec, "$schema": VEGA_LITE_SCHEMA}


def spec_svg(spec: dict[str, Any]) -> str:
    """`chart_svg` of a chart given as its Vega-Lite spec (`altair_spec`), without altair: the
    same drawing altair's chart of that spec gives, with no seconds spent importing altair."""
    return _svg(altair_spec(_shown(spec)))


@functools.cache
def _vega_bundle() -> str:
    # Building the bundle takes seconds; every interactive chart of a session shares one.
    import vl_convert as vlc

    # The snippet makes vega-embed a global for the page's own script; the bundle holds no spec.
    return str(vlc.javascript_bundle("window.vegaEmbed = vegaEmbed;"))


def _script_json(value: object) -> str:
    """JSON safe inside an inline <script>: no `</` or `<!--` can end the element early."""
    return json.dumps(value, sort_keys=True).replace("<", "\\u003c")


def _interactive_page(spec: dict[str, Any]) -> str:
    """A self-contained HTML page drawing the spec with vega-embed inlined (tooltips, no network)."""
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8">'
        f"<script>{_vega_bundle()}</script></head>"
        '<body style="margin:0"><div id="chart"></div><script>'
        f'vegaEmbed("#chart", {_script_json(spec)}, {{"actions": false}});'
        "</script></body></html>"
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class RenderedChart:
    """A chart drawn once: its SVG, its PNG, its title, and optionally its interactive page."""

    title: str
    svg: str
    png: bytes
    interactive_html: str | None = None

    def size(self) -> tuple[int, int]:
        """The drawing's width and height in CSS pixels, read off the SVG's root element."""
        found = _SIZE.search(self.svg)
        if found is None:
            raise ChartError(f"chart {self.title!r}: its SVG root element has no width and height")
        return round(float(found[1])), round(float(found[2]))

    def _repr_mimebundle_(
        self, include: object = None, exclude: object = None
    ) -> dict[str, str | bytes]:
        bundle: dict[str, str | bytes] = {
            "image/svg+xml": self.svg,
            "image/png": self.png,
            "text/plain": f"<chart: {self.title}>",
        }
        if self.interactive_html is not None:
            width, height = self.size()
            # The iframe keeps vega's globals and styles out of the notebook page; the sandbox
            # lets its scripts run and nothing else (no navigation, no forms, no same-origin).
            bundle["text/html"] = (
                f'<iframe sandbox="allow-scripts" title="{html.escape(self.title)}" '
                f'width="{width + 20}" height="{height + 20}" style="border:0" '
                f'srcdoc="{html.escape(self.interactive_html, quote=True)}"></iframe>'
            )
        return bundle


def render_chart(chart: alt.TopLevelMixin, *, interactive: bool = False) -> RenderedChart:
    """Draw an altair chart offline for a notebook cell; docs/notebooks.md lists the outputs.

    `interactive=False` (the default, and what committed notebooks hold) gives SVG and PNG only;
    `interactive=True` adds the interactive page. The title is the chart's own (its ``title``, or
    the title's ``text`` when it is a `TitleParams`), else ``"untitled"``. A chart that cannot be
    drawn offline raises `ChartError` naming the chart and vl-convert's reason.
    """
    spec = _spec(chart)
    return RenderedChart(
        title=_title(spec),
        svg=_svg(spec),
        png=_png(spec),
        interactive_html=_interactive_page(spec) if interactive else None,
    )
