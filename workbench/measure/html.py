"""Write the measurement reports: JSON, offline HTML with charts, and the headline README
(`readme.py`).

Each report is written as JSON (the figures) and as a self-contained HTML page: tables and altair
charts rendered to inline SVG by vl-convert at write time, so the page needs no network, no CDN and
no JavaScript. Every string that came from a filing (excerpts, labels, ids) is HTML-escaped. The
headline `measurements/README.md` quotes figures only from the JSON it sits beside, each with the
JSON field it came from, and names the command that wrote it: `make measure` for the project's
corpus, whose committed reports a test re-derives; for any other corpus, the `workbench measure`
command line that made them (`made_by`, handed in by the measurement run), and no word of a test.

The guarantee: `write_reports` is deterministic to the byte for the same measurements, and a file
whose bytes would not change is not rewritten.
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from workbench.changes.redline import HTML_CONTROLS
from workbench.files import replace_file_with
from workbench.measure.charts import spec_svg
from workbench.measure.family import CAP_CAUSES, CAUTION_CAUSES
from workbench.measure.readme import COMMAND, headline_readme
from workbench.measure.reports import (
    DIGESTS_NAME,
    ESCALATION_NAME,
    STRUCTURE_NAME,
    Measurements,
    members,
    profile_row,
    report_chunks,
    table_row,
)
from workbench.measure.summary import READING_FIELDS, TEXT_ORIGIN_FIELDS, reading_text


def _write(path: Path, chunks: Iterable[str]) -> None:
    """Write the text `chunks` make at `path` whole, unless the file holds those bytes already;
    a control character HTML forbids is written as its symbol (`HTML_CONTROLS`), wherever it
    stands, so no filing's text makes the page a parse error."""

    def write(temporary: Path) -> None:
        with temporary.open("w", encoding="utf-8", newline="") as handle:
            for chunk in chunks:
                handle.write(chunk.translate(HTML_CONTROLS))

    replace_file_with(path, write, keep_if_equal=True)


def _table(header: list[str], rows: Iterable[list[Any]] | Iterable[str]) -> Iterator[str]:
    """An HTML table, row by row: rows may come from a `Section` read as it is written."""
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    yield f"<table><thead><tr>{head}</tr></thead><tbody>"
    for row in rows:  # a row as `table_row` renders it, or rendered already
        yield row if isinstance(row, str) else table_row(row)
    yield "</tbody></table>"


def _page(
    title: str, digest: str, sections: list[str | Iterable[str]], made_by: str | None
) -> Iterator[str]:
    style = (
        "body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.2em .5em;"
        "text-align:left;vertical-align:top}code{font-size:90%}figure{margin:1em 0}"
    )
    yield (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{style}</style></head><body>\n"
        f"<h1>{html.escape(title)}</h1>\n<p>Corpus digest <code>{html.escape(digest)}</code>. "
        f"Written by <code>{html.escape(made_by or COMMAND)}</code>.</p>\n"
    )
    for k, section in enumerate(sections):
        if k:
            yield "\n"
        if isinstance(section, str):
            yield section
        else:
            yield from section
    yield "\n</body></html>\n"


def _field(name: str, kind: str, **more: Any) -> dict[str, Any]:
    """One encoding channel as altair writes `alt.X("NAME:N", ...)` into its spec: the options
    given, then field and type, keys in altair's (sorted) order."""
    return dict(sorted({**more, "field": name, "type": kind}.items()))


def _bar(values: list[dict[str, Any]], x: str, y: str, color: str | None, title: str) -> str:
    return f"<figure>{spec_svg(bar_spec(values, x, y, color, title))}</figure>"


def _shares(values: list[dict[str, Any]], y: str, x: str, color: str, title: str) -> str:
    return f"<figure>{spec_svg(shares_spec(values, y, x, color, title))}</figure>"


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
        "Corpus digests",
        report["corpus_digest"],
        [
            f"<p>{report['documents']} admitted documents in {report['families']} families, {report['bytes']} bytes.</p>",
            _bar(values, "jurisdiction", "documents", None, "Admitted documents per jurisdiction"),
            _table(["jurisdiction", "documents", "families", "bytes", "media types"], rows),
            "<h2>Refused at admission</h2>",
            _table(["path", "reason", "detail"], refusals) if refusals else "<p>None.</p>",
            "<h2>Admitted but not ingested (never measured)</h2>",
            f"<p>{report['documents_measured']} of {report['documents']} admitted documents were "
            "measured.</p>",
            _table(["path", "reason", "detail"], unread) if unread else "<p>None.</p>",
        ],
        made_by,
    )


def structure_html(
    report: dict[str, Any],
    made_by: str | None = None,
    rendered: Callable[[], Iterable[str]] | None = None,  # the profiles' rows (`profile_rows`)
) -> Iterator[str]:
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

    # profiles_used and passages.families name the same families in the same order.
    profiles = (
        rendered()
        if rendered is not None
        else (
            profile_row(family, e, p)
            for (family, e), (_, p) in zip(
                members(report["profiles_used"]),
                members(report["passages"]["families"]),
                strict=True,
            )
        )
    )
    return _page(
        "Section-label proxy against the documents' own numbering",
        report["corpus_digest"],
        [
            *_numbering_html(report["numbering_read"]),
            f"<p>Proxy: {html.escape(report['rules']['proxy'])}. Structure: {html.escape(report['rules']['structure'])}.</p>",
            _shares(
                causes, "jurisdiction", "caps", "cause", "Proxy caps by cause, per jurisdiction"
            ),
            _shares(
                status,
                "jurisdiction",
                "pairings",
                "structure",
                "What the structure says of each modified pairing",
            ),
            _table(
                [
                    "scope",
                    "modified pairings",
                    "proxy caps",
                    *CAP_CAUSES,
                    "structure contradicts agreeing labels",
                    "structure confirms disagreeing labels",
                ],
                rows,
            ),
            "<h2>Structure known, outside front matter and furniture</h2>",
            f"<p>{html.escape(report['rules']['structure_known'])}; target "
            f"{html.escape(report['rules']['known_target'])}.</p>",
            _table(
                ["scope", "structure known", "meets target", "excluded", "unknown by cause"],
                known,
            ),
            "<h2>Passages: own labels and structural paths</h2>",
            _table(
                [
                    "jurisdiction",
                    "versions",
                    "passages",
                    "with their own label",
                    "body passages with a path",
                    "meets target",
                ],
                passage_rows,
            ),
            "<h2>Where the text came from</h2>",
            f"<p>{html.escape(report['text_origins']['rule'])}.</p>",
            _table(
                [
                    "scope",
                    "versions",
                    "mostly machine-read",
                    "characters",
                    "machine-read",
                    *TEXT_ORIGIN_FIELDS,
                ],
                [
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
                ],
            ),
            "<h2>How each version's numbering was read</h2>",
            _table(["jurisdiction", "versions"], parsed),
            "<h2>Which profile read each family</h2>",
            f"<p>{html.escape(report['rules']['profiles'])}.</p>",
            _table(
                [
                    "family",
                    "profile",
                    "chosen",
                    "reading",
                    "origin",
                    "sha256",
                    "passages with their own label",
                ],
                profiles,
            ),
            "<h2>Examples of each cap cause</h2>",
            _table(
                ["cause", "before", "after", "labels", "paths", "before passage", "after passage"],
                examples,
            ),
        ],
        made_by,
    )


def _numbering_html(numbering: dict[str, Any]) -> list[str | Iterable[str]]:
    """The structure page's headline: families read, read with inconsistencies and unread,
    overall and per jurisdiction (`numbering_read`)."""
    scopes = [("overall", numbering["overall"]), *numbering["jurisdictions"].items()]
    return [
        f"<p><strong>Numbering: {html.escape(reading_text(numbering['overall']))}.</strong> "
        f"{html.escape(numbering['rule'])}.</p>",
        _table(
            ["scope", *(name.replace("_", " ") for name in READING_FIELDS)],
            [[scope, *(b[name] for name in READING_FIELDS)] for scope, b in scopes],
        ),
    ]


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
            members(report["families"]),
        )
    )
    wiring = report["wiring"]
    return _page(
        "Escalation rates: pairings left cautioned",
        report["corpus_digest"],
        [
            f"<p>{html.escape(report['rule'])}.</p>",
            _bar(values, "jurisdiction", "cautioned", "rule", "Modified pairings left cautioned"),
            _table(
                ["scope", "modified pairings", "proxy", "structure", "caps lifted", "caps added"],
                rows,
            ),
            "<h2>What the diff cautions, and why</h2>",
            f"<p>{html.escape(report['caution']['rule'])}.</p>",
            _table(
                [
                    "jurisdiction",
                    "non-equal changes",
                    "pairings cautioned",
                    *CAUTION_CAUSES,
                    "pairings of two machine readings",
                ],
                [
                    [
                        j,
                        b["non_equal_changes"],
                        b["pairings_cautioned"]["rate"],
                        *(b["cautioned_by_cause"][c] for c in CAUTION_CAUSES),
                        b["pairings_machine_read"]["rate"],
                    ]
                    for j, b in report["caution"]["jurisdictions"].items()
                ],
            ),
            "<h2>Wiring the structure in</h2>",
            f"<p>{html.escape(wiring['decision'])}. The structure would lift {wiring['caps_the_structure_would_lift']} "
            f"caps and add {wiring['caps_the_structure_would_add']}.</p>",
            _table(
                ["jurisdiction", "pairings with known structure"],
                [[j, s] for j, s in wiring["structure_known_share"].items()],
            ),
        ],
        made_by,
    )


def write_reports(out: Path, m: Measurements, *, made_by: str | None = None) -> dict[str, Path]:
    """Write every report into `out`, each as it is made (a `Section` is read while it is
    written, never held); returns report name -> path. `made_by` is the command line that made
    them, for a corpus other than the project's (None: the project's, `COMMAND`)."""
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, Callable[[], Iterable[str]]] = {
        DIGESTS_NAME: lambda: report_chunks(m.digests),
        STRUCTURE_NAME: lambda: report_chunks(m.structure),
        ESCALATION_NAME: lambda: report_chunks(m.escalation),
        "corpus-digests.html": lambda: digests_html(m.digests, made_by),
        "structure-measurement.html": lambda: structure_html(m.structure, made_by, m.profile_rows),
        "escalation-rates.html": lambda: escalation_html(m.escalation, made_by),
        "README.md": lambda: [headline_readme(m, made_by).decode("utf-8")],
    }
    written = {}
    for name, chunks in files.items():
        _write(out / name, chunks())
        written[name] = out / name
    return written
