"""Write the measurement reports (C12): JSON through `json.dumps`, HTML through the Jinja2
templates in `templates/` (every value escaped unless it is markup, charts inline as SVG, no
network), and the headline README (`readme.py`); a file whose bytes would not change is not
rewritten."""

from __future__ import annotations

import functools
import html
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from workbench.files import replace_file_with
from workbench.measure.apparatus import APPARATUS_FIELDS, apparatus_rows
from workbench.measure.charts import spec_svg
from workbench.measure.family import CAP_CAUSES, CAUTION_CAUSES
from workbench.measure.readme import COMMAND, headline_readme
from workbench.measure.reports import (
    DIGESTS_NAME,
    ESCALATION_NAME,
    STRUCTURE_NAME,
    Measurements,
    Section,
    report_chunks,
)
from workbench.measure.summary import READING_FIELDS, TEXT_ORIGIN_FIELDS, reading_text
from workbench.terminal import HTML_CONTROLS


def _write(path: Path, chunks: Iterable[str]) -> bool:
    """Write the text `chunks` make at `path` whole, unless the file holds those bytes already
    (then False); a control character HTML forbids is written as its symbol (`HTML_CONTROLS`),
    wherever it stands, so no filing's text makes the page a parse error."""

    def write(temporary: Path) -> None:
        with temporary.open("w", encoding="utf-8", newline="") as handle:
            for chunk in chunks:
                # A search is one pass in C; translate looks every character up in a dict.
                handle.write(chunk.translate(HTML_CONTROLS) if _CONTROL.search(chunk) else chunk)

    return replace_file_with(path, write, keep_if_equal=True)


_CONTROL = re.compile("[" + "".join(re.escape(chr(code)) for code in HTML_CONTROLS) + "]")


# The standard library's escaping (a quote as &#x27;, as the pages have always been written),
# applied by the templates to every value they print that is not markup already.
def _escaped(value: Any) -> Markup:
    return value if isinstance(value, Markup) else Markup(html.escape(str(value)))


@functools.cache
def _templates() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
        autoescape=True,
        finalize=_escaped,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _page(
    name: str, title: str, report: Mapping[str, Any], made_by: str | None, **values: Any
) -> Iterator[str]:
    """The page `name` (a template in `templates/`) of `report`, piece by piece."""
    return (
        _templates()
        .get_template(name)
        .generate(
            title=title,
            digest=report["corpus_digest"],
            made_by=made_by or COMMAND,
            r=report,
            **values,
        )
    )


def _field(name: str, kind: str, **more: Any) -> dict[str, Any]:
    """One encoding channel as altair writes `alt.X("NAME:N", ...)` into its spec: the options
    given, then field and type, keys in altair's (sorted) order."""
    return dict(sorted({**more, "field": name, "type": kind}.items()))


def _bar(values: list[dict[str, Any]], x: str, y: str, color: str | None, title: str) -> Markup:
    return Markup(spec_svg(bar_spec(values, x, y, color, title)))  # vl-convert's SVG, escaped by it


def _shares(values: list[dict[str, Any]], y: str, x: str, color: str, title: str) -> Markup:
    return Markup(spec_svg(shares_spec(values, y, x, color, title)))


def bar_spec(
    values: list[dict[str, Any]], x: str, y: str, color: str | None, title: str
) -> dict[str, Any]:
    """Vertical bars of `y` per `x`, grouped by `color` when given. The Vega-Lite spec is the one
    altair's `Chart(...).mark_bar().encode(...)` makes (tests/measure/test_charts.py compares
    them), written here so that writing the reports does not import altair (seconds)."""
    encoding: dict[str, Any] = {
        "x": _field(x, "nominal", sort=None),
        "y": _field(y, "quantitative"),
    }
    if color:
        encoding["color"] = _field(color, "nominal", sort=None)
        encoding["xOffset"] = _field(color, "nominal", sort=None)
    return _bar_spec(values, encoding, title=title, width=480, height=260)


def shares_spec(
    values: list[dict[str, Any]], y: str, x: str, color: str, title: str
) -> dict[str, Any]:
    """Horizontal bars, one per `y`, stacked to 100% by `color`: each group's own make-up (the
    spec altair would make, as `bar_spec`'s)."""
    encoding = {
        "y": _field(y, "nominal", sort=None),
        "x": _field(
            x, "quantitative", stack="normalize", axis={"format": "%"}, title=f"share of {x}"
        ),
        "color": _field(color, "nominal", sort=None),
        "order": _field(f"{color}_rank", "quantitative"),
        "tooltip": [_field(y, "nominal"), _field(color, "nominal"), _field(x, "quantitative")],
    }
    height = 30 * len({v[y] for v in values})
    return _bar_spec(values, encoding, title=title, width=480, height=height)


def _bar_spec(
    values: list[dict[str, Any]], encoding: dict[str, Any], *, title: str, width: int, height: int
) -> dict[str, Any]:
    """A bar chart's spec in altair's key order (its channels sorted by name)."""
    return {
        "data": {"values": values},
        "mark": {"type": "bar"},
        "encoding": dict(sorted(encoding.items())),
        "height": height,
        "title": title,
        "width": width,
    }


def digests_html(report: dict[str, Any], made_by: str | None = None) -> Iterator[str]:
    jurisdictions = report["jurisdictions"]
    values = [{"jurisdiction": j, "documents": e["documents"]} for j, e in jurisdictions.items()]
    rows = [
        [
            j,
            e["documents"],
            e["families"],
            e["bytes"],
            ", ".join(f"{k}: {v}" for k, v in e["media_types"].items()),
        ]
        for j, e in jurisdictions.items()
    ]
    refusals = [[r["path"], r["reason"], r["detail"]] for r in report["refusals"]]
    unread = [[r["path"], r["reason"], r["detail"]] for r in report["not_ingested"]]
    return _page(
        "corpus-digests.html",
        "Corpus digests",
        report,
        made_by,
        chart=_bar(
            values, "jurisdiction", "documents", None, "Admitted documents per jurisdiction"
        ),
        rows=rows,
        refusals=refusals,
        unread=unread,
    )


def structure_html(
    report: dict[str, Any], profile_table: Section | dict[str, Any], made_by: str | None = None
) -> Iterator[str]:
    """The structure page of `report`; its table of the profile that read each family is
    `profile_table` (`Measurements.profile_table`), read as it is written."""
    causes = [
        {"jurisdiction": j, "cause": cause, "cause_rank": rank, "caps": block["cap_causes"][cause]}
        for j, block in report["jurisdictions"].items()
        for rank, cause in enumerate(CAP_CAUSES)
    ]
    statuses = ("agree", "disagree", "uncovered", "refused")
    status = [
        {
            "jurisdiction": j,
            "structure": s,
            "structure_rank": rank,
            "pairings": block["structure_status"].get(s, 0),
        }
        for j, block in report["jurisdictions"].items()
        for rank, s in enumerate(statuses)
    ]
    rows = [
        [
            j,
            b["modified_pairings"],
            b["proxy_caps"]["rate"],
            *(b["cap_causes"][c] for c in CAP_CAUSES),
            b["structure_contradicts_agreeing_labels"],
            b["structure_confirms_disagreeing_labels"],
        ]
        for j, b in [("overall", report["overall"]), *report["jurisdictions"].items()]
    ]
    examples = [
        [
            cause,
            e["before"],
            e["after"],
            " / ".join(str(x) for x in e["labels"]),
            " / ".join("-" if p is None else ".".join(p) for p in e["paths"]),
            e["before_excerpt"],
            e["after_excerpt"],
        ]
        for cause, items in report["examples"].items()
        for e in items
    ]
    parsed = [
        [j, ", ".join(f"{k}: {v}" for k, v in outcome.items())]
        for j, outcome in report["versions_parsed"].items()
    ]
    known = [
        [
            j,
            b["structure_known"]["rate"],
            b["meets_target"],
            b["excluded_front_matter_or_furniture"],
            ", ".join(f"{k}: {v}" for k, v in b["unknown_by_cause"].items()) or "-",
        ]
        for j, b in [("overall", report["overall"]), *report["jurisdictions"].items()]
    ]
    passage_rows = [
        [
            scope,
            b["versions"],
            b["passages"],
            b["own_label"]["rate"],
            b["body_with_path"]["rate"],
            b["body_with_path_meets_target"],
        ]
        for scope, b in report["passages"]["jurisdictions"].items()
    ]

    origins = [
        [
            scope,
            b["versions"],
            b["versions_mostly_machine_read"],
            b["characters"],
            b["machine_read"]["rate"],
            *(b[name]["rate"] for name in TEXT_ORIGIN_FIELDS),
        ]
        for scope, b in [
            ("overall", report["text_origins"]["overall"]),
            *report["text_origins"]["jurisdictions"].items(),
        ]
    ]
    return _page(
        "structure-measurement.html",
        "Section-label proxy against the documents' own numbering",
        report,
        made_by,
        causes_chart=_shares(
            causes, "jurisdiction", "caps", "cause", "Proxy caps by cause, per jurisdiction"
        ),
        status_chart=_shares(
            status,
            "jurisdiction",
            "pairings",
            "structure",
            "What the structure says of each modified pairing",
        ),
        cap_causes=list(CAP_CAUSES),
        rows=rows,
        known=known,
        passages=passage_rows,
        origin_fields=list(TEXT_ORIGIN_FIELDS),
        origins=origins,
        apparatus_fields=[f.replace("_", " ") for f in APPARATUS_FIELDS],
        apparatus=apparatus_rows(report["apparatus"]) if "apparatus" in report else None,
        parsed=parsed,
        profiles=([family, *row] for family, row in profile_table.items()),
        examples=examples,
        numbering=reading_text(report["numbering_read"]["overall"]),
        reading_fields=[name.replace("_", " ") for name in READING_FIELDS],
        readings=[
            [scope, *(b[name] for name in READING_FIELDS)]
            for scope, b in [
                ("overall", report["numbering_read"]["overall"]),
                *report["numbering_read"]["jurisdictions"].items(),
            ]
        ],
    )


def escalation_html(report: dict[str, Any], made_by: str | None = None) -> Iterator[str]:
    values = [
        {"jurisdiction": j, "rule": rule, "cautioned": b[rule]["holds"]}
        for j, b in report["jurisdictions"].items()
        for rule in ("proxy", "structure")
    ]
    rows = (
        [
            scope,
            b["modified_pairings"],
            b["proxy"]["rate"],
            b["structure"]["rate"],
            b["caps_lifted_by_structure"],
            b["caps_added_by_structure"],
        ]
        for scope, b in itertools.chain(
            [("overall", report["overall"])],
            report["jurisdictions"].items(),
            report["families"].items(),
        )
    )
    cautions = [
        [
            j,
            b["non_equal_changes"],
            b["pairings_cautioned"]["rate"],
            *(b["cautioned_by_cause"][c] for c in CAUTION_CAUSES),
            b["pairings_machine_read"]["rate"],
        ]
        for j, b in report["caution"]["jurisdictions"].items()
    ]
    return _page(
        "escalation-rates.html",
        "Escalation rates: pairings left cautioned",
        report,
        made_by,
        chart=_bar(values, "jurisdiction", "cautioned", "rule", "Modified pairings left cautioned"),
        rows=rows,
        causes=list(CAUTION_CAUSES),
        cautions=cautions,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class ReportFile:
    """A report `write_reports` made: where, and whether its bytes changed (False: the file
    held them already and was left as it was)."""

    path: Path
    changed: bool


def write_reports(
    out: Path, m: Measurements, *, made_by: str | None = None
) -> dict[str, ReportFile]:
    """Write every report into `out`, each as it is made (a `Section` is read while it is
    written, never held); returns report name -> `ReportFile`. `made_by` is the command line
    that made them, for a corpus other than the project's (None: the project's, `COMMAND`)."""
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, Callable[[], Iterable[str]]] = {
        DIGESTS_NAME: lambda: report_chunks(m.digests),
        STRUCTURE_NAME: lambda: report_chunks(m.structure),
        ESCALATION_NAME: lambda: report_chunks(m.escalation),
        "corpus-digests.html": lambda: digests_html(m.digests, made_by),
        "structure-measurement.html": lambda: structure_html(m.structure, m.profile_table, made_by),
        "escalation-rates.html": lambda: escalation_html(m.escalation, made_by),
        "README.md": lambda: [headline_readme(m, made_by).decode("utf-8")],
    }
    return {
        name: ReportFile(path=out / name, changed=_write(out / name, chunks()))
        for name, chunks in files.items()
    }
