"""Footnotes, tables and cells counted per jurisdiction (C20): the structure report's `apparatus`
section, summed from one row of counts per held version, kept in the workspace as derived state
(`derived.DerivedState`) and counted only for the versions held since its watermark, each from its
parts as `passages`, `verify` and `diff` read them (`workspace.parts.held_parts`, which keeps them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.derived import DerivedState, code_digest, derived_key
from workbench.workspace.parts import Parts, held_parts, kept_parts

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


KIND = "apparatus"  # the kept counts' kind and name in `derived.DerivedState`
TABLE = "apparatus_counts"
_SCHEMA = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (version_id TEXT PRIMARY KEY, "
    + ", ".join(f"{name} INTEGER NOT NULL" for name in APPARATUS_FIELDS)
    + ")"
)
_PLACES = ", ".join("?" * (1 + len(APPARATUS_FIELDS)))


PAGE = 512  # versions counted per query and per transaction: what the pass holds at once


def apparatus_report(workspace: Workspace, store: Path | None = None) -> dict[str, Any]:
    """The `apparatus` section: `rule`, then overall and per jurisdiction (sorted) the counts of
    `APPARATUS_FIELDS`, summed over every held version's row of counts.

    A version's row is counted from the parts the workspace keeps for it (`parts.kept_parts`,
    read without its text), else from `held_parts` of the version, read from `store` (default:
    the workspace's) and kept there, so no later command reads its artefact again; a version
    whose artefact is not in `store` counts as holding none. The rows are kept in the workspace
    under the key of (the store, the code); while that key holds, only the versions held since
    the rows' watermark (and any whose row is lost) are counted, else every version is counted
    again. Versions are counted `PAGE` at a time, in the order they were held, each page's rows
    kept as it is counted, so the pass holds one page whatever the corpus. A read-only
    workspace keeps nothing: what it lacks is counted in this process."""
    state = DerivedState(workspace)
    key = derived_key(KIND, [str((store or workspace.settings.store).resolve())], code_digest())
    kept = state.kept(KIND, KIND)
    taken = kept is not None and kept.key == key and TABLE in workspace.tables()
    writable = workspace.read_only is None
    if writable:
        with workspace.transaction() as conn:
            conn.execute(_SCHEMA)
            if not taken:  # every version is counted now: rows kept under another key go
                conn.execute(f"DELETE FROM {TABLE}")
    counted: dict[str, list[int]] = {}  # read-only: what this pass counted, by jurisdiction
    # Kept under the key: only the versions held since the rows' watermark, and any whose row is
    # lost; else every version.
    since = kept.watermark if taken else -1  # type: ignore[union-attr]
    for page in _uncounted(workspace, since, lost=taken):
        rows = [
            (version_id, jurisdiction, _version_row(workspace, version_id, artefact, text, store))
            for version_id, jurisdiction, artefact, text in page
        ]
        if not writable:
            for _, jurisdiction, counts in rows:
                total = counted.setdefault(jurisdiction, [0] * len(APPARATUS_FIELDS))
                counted[jurisdiction] = [a + b for a, b in zip(total, counts, strict=True)]
            continue
        with workspace.transaction() as conn:
            conn.executemany(
                f"INSERT OR REPLACE INTO {TABLE} VALUES ({_PLACES})",
                [(version_id, *counts) for version_id, _, counts in rows],
            )
    if writable:
        state.keep(KIND, KIND, key)
        totals = _summed(workspace, None)  # every held version's row is in the table now
    else:  # nothing kept: the rows that hold, and what was counted here
        totals = _summed(workspace, kept.watermark) if taken else {}  # type: ignore[union-attr]
        for jurisdiction, here in counted.items():
            total = totals.setdefault(jurisdiction, [0] * len(APPARATUS_FIELDS))
            totals[jurisdiction] = [a + b for a, b in zip(total, here, strict=True)]
    overall = [sum(column) for column in zip(*totals.values(), strict=True)]
    return {
        "rule": RULE,
        "overall": dict(zip(APPARATUS_FIELDS, overall or [0] * len(APPARATUS_FIELDS), strict=True)),
        "jurisdictions": {
            j: dict(zip(APPARATUS_FIELDS, total, strict=True))
            for j, total in sorted(totals.items())
        },
    }


def _uncounted(
    workspace: Workspace, since: int, *, lost: bool
) -> Iterator[list[tuple[str, str, str, str]]]:
    """The versions to count, `PAGE` at a time in the order they were held: (id, jurisdiction,
    artefact and text SHA-256) of each held after the row `since`, and with `lost` of each whose
    row of counts is missing (the table exists then)."""
    missing = f" OR NOT EXISTS (SELECT 1 FROM {TABLE} c WHERE c.version_id = v.version_id)"
    after = -1
    while True:
        page = workspace.read(
            "SELECT v.rowid, v.version_id, v.jurisdiction, v.artefact_sha256, v.text_sha256 "
            f"FROM versions v WHERE v.rowid > ? AND (v.rowid > ?{missing if lost else ''}) "
            "ORDER BY v.rowid LIMIT ?",
            (after, since, PAGE),
        )
        if not page:
            return
        after = page[-1][0]
        yield [(version_id, jurisdiction, a, t) for _, version_id, jurisdiction, a, t in page]


def _version_row(
    workspace: Workspace, version_id: str, artefact: str, text: str, store: Path | None
) -> tuple[int, ...]:
    """One version's row of counts, from its kept parts, else from `held_parts` of the version
    (loaded, text and all, only then)."""
    parts = kept_parts(workspace, version_id, artefact, text)
    if parts is None:
        parts = held_parts(workspace, workspace.version(version_id), store)
    return tuple(_version_counts(parts).values())


def _summed(workspace: Workspace, watermark: int | None) -> dict[str, list[int]]:
    """Each jurisdiction's sums of the kept rows of its held versions (those held up to
    `watermark`; None: every one), added up by SQLite."""
    sums = ", ".join(f"sum(c.{name})" for name in APPARATUS_FIELDS)
    rows = workspace.read(
        f"SELECT v.jurisdiction, {sums} FROM versions v JOIN {TABLE} c "
        "ON c.version_id = v.version_id WHERE ? IS NULL OR v.rowid <= ? GROUP BY v.jurisdiction",
        (watermark, watermark),
    )
    return {jurisdiction: list(counts) for jurisdiction, *counts in rows}


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
