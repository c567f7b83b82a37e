"""Government-style PDFs with tables whose every cell is known, to score the PDF table reader (C20).

It imports nothing from `workbench`. Each table is a plain description (head rows of cells with
their column and row spans, body rows of values); python-docx sets it in a Word document the way an
agency's template does (ruled grids, unruled tables with or without rules under the head, a thick or
double rule under a head, spanning and multi-level heads, numbers right-aligned, empty cells, cells
long enough to wrap, tables continued over pages with their head rows repeated), and ONE LibreOffice
process converts every document to PDF. The truth is read off the description, never off the PDF:
each non-empty body cell with its body row and column index, its value, its row-header path (its
row's first cell, empty when that is) and its column-header path (the head cells over its column,
top first, a cell spanning head rows once, empty heads left out), white space collapsed.

Usage: `python tests/text/table_documents.py FOLDER` writes `FOLDER/*.pdf` and `FOLDER/truth.json`.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docx import Document
from docx.enum.section import WD_ORIENT
from docx.enum.table import WD_TABLE_ALIGNMENT
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Inches, Pt

SOFFICE = "/usr/bin/soffice"

HeadCell = tuple[str, int, int]  # text, columns spanned, head rows spanned


@dataclass(frozen=True, slots=True)
class Spec:
    """One table: its head rows (each a list of cells left to right, a cell a row span covers
    left out of the rows below), body rows, column widths in inches, which columns are set right,
    and its rules: `grid` (every cell ruled), `head_rule` ("single", "thick", "double" or None:
    the rule under the head), `frame` (a rule above the head and under the last row)."""

    name: str
    head: list[list[HeadCell]]
    body: list[list[str]]
    widths: list[float]
    right: set[int] = field(default_factory=set)
    grid: bool = True
    head_rule: str | None = None
    frame: bool = False
    row_rules: bool = False  # a rule under every body row, no column rules
    repeat_head: bool = False
    font: str | None = None  # the cells' typeface, the document's own where None


def _words(text: str) -> str:
    return " ".join(text.split())


def head_paths(spec: Spec) -> list[list[str]]:
    """Each column's header path: the head cells over it, top first, each once."""
    columns = len(spec.widths)
    paths: list[list[str]] = [[] for _ in range(columns)]
    covered: dict[tuple[int, int], bool] = {}
    for r, row in enumerate(spec.head):
        c = 0
        for text, span, down in row:
            while covered.get((r, c)):
                c += 1
            for k in range(c, c + span):
                if _words(text):
                    paths[k].append(_words(text))
                for d in range(down):
                    covered[(r + d, k)] = True
            c += span
    return paths


def truth(spec: Spec) -> dict[str, Any]:
    paths = head_paths(spec)
    cells = []
    for r, row in enumerate(spec.body):
        stub = _words(row[0])
        for c, value in enumerate(row):
            if not _words(value):
                continue
            cells.append(
                {
                    "row": r,
                    "column": c,
                    "value": _words(value),
                    "row_header": [stub] if stub else [],
                    "column_header": paths[c],
                }
            )
    return {"name": spec.name, "cells": cells}


def _border(cell: Any, side: str, kind: str, size: int) -> None:
    tc_pr = cell._tc.get_or_add_tcPr()
    borders = tc_pr.find(qn("w:tcBorders"))
    if borders is None:
        borders = OxmlElement("w:tcBorders")
        tc_pr.append(borders)
    edge = OxmlElement(f"w:{side}")
    edge.set(qn("w:val"), kind)
    edge.set(qn("w:sz"), str(size))
    edge.set(qn("w:space"), "0")
    edge.set(qn("w:color"), "000000")
    borders.append(edge)


def _set(cell: Any, text: str, *, right: bool, bold: bool, font: str | None = None) -> None:
    paragraph = cell.paragraphs[0]
    paragraph.paragraph_format.space_after = Pt(0)
    paragraph.paragraph_format.space_before = Pt(1)
    if right:
        paragraph.alignment = WD_ALIGN_PARAGRAPH.RIGHT
    run = paragraph.add_run(text)
    run.bold = bold
    run.font.size = Pt(9)
    if font is not None:
        run.font.name = font


def add_table(document: Any, spec: Spec) -> None:
    """Set `spec` in `document` (rules as `Spec` says)."""
    heads, columns = len(spec.head), len(spec.widths)
    table = document.add_table(rows=heads + len(spec.body), cols=columns)
    table.style = "Table Grid" if spec.grid else None
    table.alignment = WD_TABLE_ALIGNMENT.CENTER
    table.autofit = False
    for row in table.rows:
        for k, cell in enumerate(row.cells):
            cell.width = Inches(spec.widths[k])
    covered: set[tuple[int, int]] = set()
    for r, row_cells in enumerate(spec.head):
        c = 0
        for text, span, down in row_cells:
            while (r, c) in covered:
                c += 1
            cell = table.cell(r, c)
            if span > 1 or down > 1:
                cell = cell.merge(table.cell(r + down - 1, c + span - 1))
            _set(cell, text, right=False, bold=True, font=spec.font)
            cell.paragraphs[0].alignment = WD_ALIGN_PARAGRAPH.CENTER
            covered |= {(r + d, k) for d in range(down) for k in range(c, c + span)}
            c += span
    for r, values in enumerate(spec.body):
        for c, value in enumerate(values):
            _set(table.cell(heads + r, c), value, right=c in spec.right, bold=False, font=spec.font)
    for r in range(heads):
        if spec.repeat_head:
            tr_pr = table.rows[r]._tr.get_or_add_trPr()
            tr_pr.append(OxmlElement("w:tblHeader"))
    if spec.head_rule is not None:
        kind, size = {"single": ("single", 6), "thick": ("single", 18), "double": ("double", 6)}[
            spec.head_rule
        ]
        for cell in table.rows[heads - 1].cells:
            _border(cell, "bottom", kind, size)
    if spec.row_rules:
        for row in table.rows[heads:]:
            for cell in row.cells:
                _border(cell, "bottom", "single", 4)
    if spec.frame:
        for cell in table.rows[0].cells:
            _border(cell, "top", "single", 8)
        for cell in table.rows[-1].cells:
            _border(cell, "bottom", "single", 8)


SUBSTANCES = [
    ("Ammonia", "7664-41-7", "10,000", "", ""),
    ("Arsenic and compounds (as As)", "7440-38-2", "20", "5", "5"),
    ("Benzene", "71-43-2", "1,000", "200", ""),
    ("Cadmium and compounds (as Cd)", "7440-43-9", "10", "5", "5"),
    ("Polychlorinated dibenzo-p-dioxins and dibenzofurans (as Teq)", "", "0.0001", "0.0001", ""),
    ("Hydrogen cyanide", "74-90-8", "200", "", ""),
    ("Total nitrogen", "", "", "50,000", "50,000"),
    ("Non-methane volatile organic compounds", "", "100,000", "", ""),
    ("Mercury and compounds (as Hg)", "7439-97-6", "10", "1", "1"),
]

DUTIES = [
    ("A-1", "Submit the annual emissions report to the permitting authority", "90", "Yes"),
    ("A-2", "Notify the authority of any change of operator in writing", "30", "Yes"),
    ("B-1", "Keep monitoring records on site and make them available on request", "1,825", "No"),
    ("B-2", "Calibrate continuous monitors", "365", "No"),
    (
        "C-1",
        "Report an exceedance of a limit value together with the corrective action taken",
        "1",
        "Yes",
    ),
    ("C-2", "Publish the summary of the inspection findings", "60", ""),
]

PROGRAMMES = [
    (
        "Clean air grants",
        "Grants to municipalities for the replacement of solid fuel heating",
        "12,400",
        "(1,250)",
    ),
    ("Water quality", "Monitoring of bathing waters", "3,150", "210"),
    (
        "Waste prevention",
        "Support for repair networks and reuse centres in rural districts",
        "2,730",
        "\u2014",
    ),
    (
        "Noise mapping",
        "Strategic noise maps for agglomerations above the population threshold",
        "980",
        "(45)",
    ),
    ("Soil protection", "Inventory of contaminated sites", "1,615", "\u2014"),
    ("Total", "", "20,875", "(1,085)"),
]

ROLES = [
    ("Article 4", "Keep a register of sources", "Check the register each year"),
    ("Article 5", "Report an incident without delay", "Acknowledge receipt"),
    ("Article 6", "Appoint a responsible person", "Publish the list of responsible persons"),
    ("Article 7", "Train staff before they handle waste", "Approve the training course"),
    ("Article 9", "Keep records for five years", "Inspect the records on site"),
]

REGIONS = ["North", "South", "East", "West", "Central", "Coastal", "Highlands"]


def _yearly(year: int, received: int, approved: int) -> list[str]:
    refused = f"{received - approved:,}" if year % 5 else ""  # an empty cell in some years
    return [
        str(year),
        f"{received:,}",
        f"{approved:,}",
        refused,
        f"{100 * approved / received:.1f}",
    ]


def specs() -> dict[str, list[Spec | str]]:
    """The documents: each a list of tables and paragraphs of prose, in order."""
    rng = random.Random(49)
    thresholds = Spec(
        name="ruled-two-level-head",
        head=[
            [("Substance", 1, 2), ("CAS number", 1, 2), ("Release threshold (kg per year)", 3, 1)],
            [("to air", 1, 1), ("to water", 1, 1), ("to land", 1, 1)],
        ],
        body=[list(s) for s in SUBSTANCES],
        widths=[1.9, 1.1, 1.0, 1.0, 1.0],
        right={2, 3, 4},
    )
    yearly = Spec(
        name="unruled-single-head",
        head=[
            [
                ("Year", 1, 1),
                ("Applications received", 1, 1),
                ("Approved", 1, 1),
                ("Refused", 1, 1),
                ("Share approved (%)", 1, 1),
            ]
        ],
        body=[_yearly(2016 + k, rng.randint(800, 2400), rng.randint(400, 790)) for k in range(8)],
        widths=[0.8, 1.3, 1.0, 1.0, 1.2],
        right={1, 2, 3, 4},
        grid=False,
        head_rule="single",
        frame=True,
    )
    fees = Spec(
        name="ruled-continued-over-pages",
        head=[
            [
                ("Code", 1, 1),
                ("Facility category", 1, 1),
                ("Application fee ($)", 1, 1),
                ("Annual fee per facility ($)", 1, 1),
            ]
        ],
        body=[
            [
                f"{100 + k}",
                f"{rng.choice(['Small', 'Medium', 'Large'])} "
                f"{rng.choice(['landfill', 'incinerator', 'refinery', 'smelter', 'quarry', 'tannery'])}",
                f"{rng.randint(1, 40) * 250:,}",
                f"{rng.randint(1, 90) * 125:,}" if k % 9 else "",
            ]
            for k in range(75)
        ],
        widths=[0.7, 2.4, 1.4, 1.6],
        right={2, 3},
        head_rule="thick",
        repeat_head=True,
    )
    cases = Spec(
        name="unruled-spanning-head",
        head=[
            [("Region", 1, 2), ("2023", 2, 1), ("2024", 2, 1)],
            [("Filed", 1, 1), ("Closed", 1, 1), ("Filed", 1, 1), ("Closed", 1, 1)],
        ],
        body=[[region, *(f"{rng.randint(3, 480)}" for _ in range(4))] for region in REGIONS],
        widths=[1.4, 0.9, 0.9, 0.9, 0.9],
        right={1, 2, 3, 4},
        grid=False,
        head_rule="single",
        frame=True,
    )
    duties = Spec(
        name="ruled-double-rule-wrapped",
        head=[[("Item", 1, 1), ("Obligation", 1, 1), ("Deadline (days)", 1, 1), ("Public", 1, 1)]],
        body=[list(d) for d in DUTIES],
        widths=[0.6, 3.0, 1.0, 0.8],
        right={2},
        head_rule="double",
    )
    staff = Spec(
        name="unruled-continued-over-pages",
        head=[
            [
                ("Office", 1, 1),
                ("Inspectors", 1, 1),
                ("Inspections", 1, 1),
                ("Notices issued", 1, 1),
            ]
        ],
        body=[
            [
                f"{rng.choice(REGIONS)} office {k + 1}",
                str(rng.randint(2, 40)),
                f"{rng.randint(40, 3000):,}",
                str(rng.randint(0, 120)) if k % 7 else "",
            ]
            for k in range(70)
        ],
        widths=[2.0, 1.1, 1.1, 1.3],
        right={1, 2, 3},
        grid=False,
        repeat_head=True,
    )
    programmes = Spec(
        name="unruled-wrapped-body-cells",
        head=[
            [("Programme", 1, 1), ("Purpose", 1, 1), ("Budget (thousands)", 1, 1), ("Change", 1, 1)]
        ],
        body=[list(p) for p in PROGRAMMES],
        widths=[1.5, 2.6, 1.1, 0.9],
        right={2, 3},
        grid=False,
        head_rule="single",
        frame=True,
        font="Liberation Sans",
    )
    permits = Spec(
        name="ruled-over-pages-head-not-repeated",
        head=[
            [("Permit", 1, 2), ("Holder", 1, 2), ("Limit (tonnes)", 2, 1)],
            [("Sulphur dioxide", 1, 1), ("Nitrogen oxides", 1, 1)],
        ],
        body=[
            [
                f"P-{2000 + 7 * k}",
                f"{rng.choice(['Northfield', 'Riverside', 'Eastport', 'Millbrook', 'Westmoor'])} "
                f"{rng.choice(['Power', 'Cement', 'Paper', 'Steel', 'Glass'])} "
                f"{rng.choice(['Ltd', 'plc', 'Company', 'Works'])}",
                f"{rng.randint(5, 900):,}",
                f"{rng.randint(5, 1500):,}" if k % 6 else "",
            ]
            for k in range(60)
        ],
        widths=[1.0, 2.6, 1.2, 1.2],
        right={2, 3},
        font="DejaVu Sans",
    )
    licences = Spec(
        name="row-rules-only-wrapped",
        head=[[("Licence", 1, 1), ("Activity", 1, 1), ("Site", 1, 1), ("Expires", 1, 1)]],
        body=[
            [f"L-{310 + 11 * k}", activity, site, f"{2026 + k % 4}-{1 + k % 12:02d}-{10 + k:02d}"]
            for k, (activity, site) in enumerate(
                [
                    ("Storage of hazardous waste above the lower threshold", "Harbour Road depot"),
                    ("Discharge of cooling water", "North quay"),
                    ("Operation of a mobile crushing plant for construction waste", "Quarry Lane"),
                    ("Composting", "Fenwick farm"),
                    ("Treatment of end-of-life vehicles", "Industrial estate, unit 4 and unit 5"),
                ]
            )
        ],
        widths=[0.9, 2.6, 1.8, 1.0],
        grid=False,
        head_rule="single",
        row_rules=True,
    )
    roles = Spec(
        name="ruled-words-only-double-rule",
        head=[
            [("Provision", 1, 2), ("Duty of", 2, 1)],
            [("the operator", 1, 1), ("the authority", 1, 1)],
        ],
        body=[list(r) for r in ROLES],
        widths=[1.2, 2.6, 2.6],
        head_rule="double",
    )
    prose = (
        "The operator of a facility shall report the quantity of each substance released where "
        "it exceeds the threshold set out below. The thresholds apply to releases from all "
        "activities carried out at the facility during the reporting year."
    )
    return {
        "thresholds-and-applications": [
            "Schedule 1. Release thresholds",
            prose,
            thresholds,
            "Table 2 shows the applications decided each year.",
            yearly,
            prose,
        ],
        "fee-schedule": ["Schedule 3. Fees", prose, fees, prose],
        "cases-and-duties": ["Enforcement report", prose, cases, prose, duties, prose],
        "inspection-offices": ["Annex. Inspection offices", prose, staff],
        "programme-budget": ["Budget statement", prose, programmes, prose],
        "permit-register": ["Register of permits", prose, permits],
        "duties-by-role": ["Duties by role", prose, roles, prose],
        "licence-list": ["Licences in force", prose, licences, prose],
    }


def build(folder: Path) -> dict[str, Any]:
    """Write every document's PDF into `folder` and return (and write as `truth.json`) the truth."""
    folder.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"documents": []}
    sources = []
    for name, parts in specs().items():
        document = Document()
        section = document.sections[0]
        section.orientation = WD_ORIENT.PORTRAIT
        section.left_margin = section.right_margin = Inches(1)
        tables = []
        for part in parts:
            if isinstance(part, Spec):
                add_table(document, part)
                tables.append(truth(part))
                document.add_paragraph("")
            else:
                document.add_paragraph(part)
        source = folder / f"{name}.docx"
        document.save(str(source))
        sources.append(str(source))
        report["documents"].append({"pdf": f"{name}.pdf", "tables": tables})
    profile = folder / "profile"
    subprocess.run(
        [
            SOFFICE,
            "--headless",
            "--norestore",
            f"-env:UserInstallation={profile.as_uri()}",
            "--convert-to",
            "pdf",
            "--outdir",
            str(folder),
            *sources,
        ],
        check=False,  # soffice may abort on shutdown with every file written: the files count
        capture_output=True,
        timeout=600,
    )
    missing = [d["pdf"] for d in report["documents"] if not (folder / d["pdf"]).is_file()]
    if missing:
        raise RuntimeError(f"LibreOffice wrote no PDF for {missing}")
    (folder / "truth.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    return report


if __name__ == "__main__":
    build(Path(sys.argv[1]))
