"""Footnotes, tables and cells counted per jurisdiction (C20): the structure report's `apparatus`
section, counted from each held version's parts as the workspace keeps them for `passages`,
`verify` and `diff` (`workspace.parts.held_parts`), which this pass reads and so keeps."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.workspace.parts import Parts, held_parts

if TYPE_CHECKING:
    from workbench.workspace import Workspace

APPARATUS_FIELDS = (
    "versions",
    "versions_with_footnotes",
    "footnotes",
    "footnotes_run_on",
    "markers",
    "markers_without_note",
    "markers_two_notes_share",
    "notes_no_marker_names",
    "versions_with_tables",
    "tables",
    "cells",
)
RULE = (
    "footnotes and tables of every measured version, read from its artefact as passages, verify "
    "and diff read them (workspace.parts.held_parts): footnotes from XML and Markdown markup and "
    "off a PDF's glyphs (none from a PDF with an OCR-read page), tables from XML markup and a "
    "PDF's geometry; "
    "footnotes_run_on are PDF notes joined across a page; a marker without a note, or naming a "
    "number two notes share, is counted, never linked"
)


def apparatus_report(workspace: Workspace, store: Path | None = None) -> dict[str, Any]:
    """The `apparatus` section: `rule`, then overall and per jurisdiction (sorted) the counts of
    `APPARATUS_FIELDS`. Each version's parts are `held_parts` of it, read from `store` (default:
    the workspace's) where the workspace keeps none yet, and kept there, so no later command
    reads its artefact again; a version whose artefact is not in `store` counts as holding none."""
    by_jurisdiction: dict[str, Counter[str]] = {}
    for version in workspace.versions():
        count = by_jurisdiction.setdefault(version.jurisdiction, Counter())
        count.update(_version_counts(held_parts(workspace, version, store)))
    overall = sum(by_jurisdiction.values(), Counter())
    return {
        "rule": RULE,
        "overall": {f: overall[f] for f in APPARATUS_FIELDS},
        "jurisdictions": {
            j: {f: c[f] for f in APPARATUS_FIELDS} for j, c in sorted(by_jurisdiction.items())
        },
    }


def _version_counts(parts: Parts) -> dict[str, int]:
    """One version's counts of `APPARATUS_FIELDS`, from its footnote reading and tables."""
    footnotes, tables = parts
    notes = footnotes.footnotes if footnotes else ()
    return {
        "versions": 1,
        "versions_with_footnotes": int(bool(notes)),
        "footnotes": len(notes),
        "footnotes_run_on": sum(bool(n.continued) for n in notes),
        "markers": len(footnotes.markers) if footnotes else 0,
        "markers_without_note": len(footnotes.unlinked) if footnotes else 0,
        "markers_two_notes_share": len(footnotes.ambiguous) if footnotes else 0,
        "notes_no_marker_names": len(footnotes.unanchored) if footnotes else 0,
        "versions_with_tables": int(bool(tables)),
        "tables": len(tables or ()),
        "cells": sum(len(t.cells) for t in tables or ()),
    }


def apparatus_rows(report: dict[str, Any]) -> list[list[Any]]:
    """The HTML table's rows: overall, then each jurisdiction, the fields in order."""
    scopes = [("overall", report["overall"]), *report["jurisdictions"].items()]
    return [[scope, *(b[f] for f in APPARATUS_FIELDS)] for scope, b in scopes]


def apparatus_readme(report: dict[str, Any], name: str) -> list[str]:
    """The README's section: one line per jurisdiction holding a footnote or a table, each
    figure with the field of `name` (the structure report) it is quoted from."""
    lines = ["## Footnotes and tables", "", f"{report['rule']}.", ""]
    for j, b in report["jurisdictions"].items():
        if not (b["footnotes"] or b["markers"] or b["tables"]):
            continue
        said = [f for f in APPARATUS_FIELDS if f != "versions_with_tables"]
        lines.append(
            f"- {j}: {b['footnotes']} footnotes in {b['versions_with_footnotes']} of "
            f"{b['versions']} versions ({b['footnotes_run_on']} run on across a page), "
            f"{b['markers']} markers ({b['markers_without_note']} without a note, "
            f"{b['markers_two_notes_share']} naming a number two notes share), "
            f"{b['notes_no_marker_names']} notes no marker names; {b['tables']} tables, "
            f"{b['cells']} cells [{name}: "
            + ", ".join(f"apparatus.jurisdictions.{j}.{f}" for f in said)
            + "]"
        )
    return [*lines, ""]
