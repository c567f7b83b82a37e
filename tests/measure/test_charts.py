"""Charts drawn offline: SVG and PNG from vl-convert, no script, no URL, hostile labels escaped."""

from __future__ import annotations

import html
import json
import re
import struct
from collections import Counter
from typing import Any

import pytest

import workbench as wb
from workbench.errors import ChartError
from workbench.measure.charts import chart_svg, render_chart
from workbench.models import CatalogueRow

HOSTILE = '</script><img src=x onerror="alert(1)">&amp;'


@pytest.fixture(scope="module")
def altair() -> Any:
    """altair, imported by the tests that draw (it takes about a second to import)."""
    import altair

    return altair


def _per_jurisdiction(catalogue: tuple[CatalogueRow, ...], alt: Any) -> Any:
    counts = Counter(row.jurisdiction for row in catalogue)
    values = [{"jurisdiction": j, "documents": n} for j, n in sorted(counts.items())]
    return (
        alt.Chart(alt.Data(values=values))
        .mark_bar()
        .encode(x=alt.X("documents:Q"), y=alt.Y("jurisdiction:N"), tooltip=["jurisdiction:N"])
        .properties(title="Catalogued documents per jurisdiction", width=300)
    )


def _png_size(png: bytes) -> tuple[int, int]:
    # The IHDR chunk follows the 8-byte signature: length, type, then width and height.
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def test_a_catalogue_chart_is_drawn_as_svg_and_png_with_no_script_or_address(
    catalogue: tuple[CatalogueRow, ...], altair: Any
) -> None:
    chart = _per_jurisdiction(catalogue, altair)
    drawn = wb.render_chart(chart)
    bundle = drawn._repr_mimebundle_()

    assert set(bundle) == {"image/svg+xml", "image/png", "text/plain"}
    assert bundle["text/plain"] == "<chart: Catalogued documents per jurisdiction>"
    svg = drawn.svg
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    # Every jurisdiction of the catalogue is a label of the drawing, as text in the SVG.
    labels = set(re.findall(r"<text[^>]*>([^<]*)</text>", svg))
    assert {row.jurisdiction for row in catalogue} <= labels
    assert "<script" not in svg and not re.search(r'(?:href|src)="(?!#)', svg)
    # The PNG is the same drawing at scale 1: one pixel per CSS pixel of the SVG.
    assert _png_size(drawn.png) == drawn.size()
    # Deterministic, and the measurement pages' SVG is this SVG.
    assert wb.render_chart(chart) == drawn
    assert chart_svg(chart) == svg


def test_the_interactive_page_carries_vega_inline_and_escapes_a_hostile_label(
    altair: Any,
) -> None:
    chart = (
        altair.Chart(altair.Data(values=[{"label": HOSTILE, "n": 3}]))
        .mark_bar()
        .encode(x="n:Q", y="label:N", tooltip=["label:N"])
        .properties(title=HOSTILE)
    )
    drawn = wb.render_chart(chart, interactive=True)
    frame = str(drawn._repr_mimebundle_()["text/html"])

    # The iframe attribute holds the whole page escaped: no tag of the page is live in the notebook.
    assert frame.startswith('<iframe sandbox="allow-scripts" ') and frame.endswith("></iframe>")
    assert frame.count("<") == 2  # the iframe's own opening and closing tags
    srcdoc = re.search(r'srcdoc="([^"]*)"', frame)
    assert srcdoc is not None and html.unescape(srcdoc[1]) == drawn.interactive_html
    page = drawn.interactive_html
    assert page is not None
    # Two inline scripts (the bundle, the embed call), none loaded by URL; the label cannot end one.
    assert page.count("<script>") == 2 and page.count("</script>") == 2
    assert "<script src" not in page and "cdn." not in page
    assert "\\u003c/script>\\u003cimg" in page
    # In the SVG the label is text, escaped.
    assert html.escape(HOSTILE, quote=False) in drawn.svg and HOSTILE not in drawn.svg


def test_a_chart_whose_data_names_an_address_is_refused_not_fetched(altair: Any) -> None:
    chart = altair.Chart("https://example.org/data.csv").mark_bar().encode(x="a:Q")
    with pytest.raises(ChartError) as refused:
        wb.render_chart(chart)
    assert str(refused.value) == (
        "chart 'untitled' not drawn as svg: Error: External data url not allowed: "
        "https://example.org/data.csv (charts are drawn offline: give their data inline)"
    )


def test_the_reports_bar_specs_are_the_ones_altair_makes_and_draw_the_same(altair: Any) -> None:
    from workbench.measure.charts import altair_spec, spec_svg
    from workbench.measure.html import bar_spec, shares_spec

    alt = altair
    values = [
        {"jurisdiction": "us-dc", "cautioned": 3, "rule": "proxy", "rule_rank": 0},
        {"jurisdiction": "us-dc", "cautioned": 1, "rule": "structure", "rule_rank": 1},
        {"jurisdiction": HOSTILE, "cautioned": 2, "rule": "proxy", "rule_rank": 0},
    ]
    grouped = (
        alt.Chart(alt.Data(values=values))
        .mark_bar()
        .encode(
            x=alt.X("jurisdiction:N", sort=None),
            y=alt.Y("cautioned:Q"),
            color=alt.Color("rule:N", sort=None),
            xOffset=alt.XOffset("rule:N", sort=None),
        )
        .properties(title="Cautioned", width=480, height=260)
    )
    plain = (
        alt.Chart(alt.Data(values=values))
        .mark_bar()
        .encode(x=alt.X("jurisdiction:N", sort=None), y=alt.Y("cautioned:Q"))
        .properties(title="Plain", width=480, height=260)
    )
    stacked = (
        alt.Chart(alt.Data(values=values))
        .mark_bar()
        .encode(
            y=alt.Y("jurisdiction:N", sort=None),
            x=alt.X(
                "cautioned:Q",
                stack="normalize",
                axis=alt.Axis(format="%"),
                title="share of cautioned",
            ),
            color=alt.Color("rule:N", sort=None),
            order=alt.Order("rule_rank:Q"),
            tooltip=["jurisdiction:N", "rule:N", "cautioned:Q"],
        )
        .properties(title="Shares", width=480, height=60)
    )
    made = [
        altair_spec(bar_spec(values, "jurisdiction", "cautioned", "rule", "Cautioned")),
        altair_spec(bar_spec(values, "jurisdiction", "cautioned", None, "Plain")),
        altair_spec(shares_spec(values, "jurisdiction", "cautioned", "rule", "Shares")),
    ]
    # The same spec, keys in the same order, as altair's own (its schema and config included).
    for spec, chart in zip(made, [grouped, plain, stacked], strict=True):
        assert list(spec.items()) == list(chart.to_dict().items())
        assert json.dumps(spec) == json.dumps(chart.to_dict())
    assert spec_svg(bar_spec(values, "jurisdiction", "cautioned", "rule", "Cautioned")) == (
        chart_svg(grouped)
    )


# A filing's label holding what a terminal obeys and XML forbids: ESC, BEL, a C1 CSI, DEL, FF.
CONTROLLED = "a\x1b[2J\x07b\x9b31m\x7fc\x0c"
# What HTML and XML forbid: C0 but tab, newline and carriage return; DEL; C1.
FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def test_a_control_character_in_a_label_is_drawn_as_its_symbol(altair: Any) -> None:
    """vl-convert aborted the whole process on such a label (a panic past Python); now every
    output carries the control pictures instead, and no raw control character."""
    chart = (
        altair.Chart(altair.Data(values=[{"label": CONTROLLED, "n": 3}]))
        .mark_bar()
        .encode(x="n:Q", y="label:N", tooltip=["label:N"])
        .properties(title="T\x1b]0;x\x07")
    )
    drawn = render_chart(chart, interactive=True)
    bundle = drawn._repr_mimebundle_()
    texts = [drawn.svg, str(bundle["text/html"]), str(bundle["text/plain"])]
    assert [FORBIDDEN.findall(text) for text in texts] == [[], [], []]
    assert "a\u241b[2J\u2407b\ufffd31m\u2421c\u240c" in re.findall(
        r"<text[^>]*>([^<]*)<", drawn.svg
    )
    assert bundle["text/plain"] == "<chart: T\u241b]0;x\u2407>"
    assert drawn.png.startswith(b"\x89PNG")
