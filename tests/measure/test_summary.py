"""The text-origin counts of a family summary add up (C13, C18): the client folds families'
summaries, so the corpus's and a jurisdiction's figures must be those of their versions taken
together, whatever families they were summed from."""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict
from typing import Any

import pytest

from workbench.measure.family import text_row
from workbench.measure.summary import add_counts, text_block, text_counts
from workbench.models import Version


def test_text_counts_of_families_add_up_to_those_of_their_versions(
    held_versions: tuple[Version, ...],
) -> None:
    rows = [text_row(v) for v in held_versions]
    by_family: dict[str, list[Any]] = defaultdict(list)
    for row in rows:
        by_family[f"{row.jurisdiction}/{row.family}"].append(row)
    assert len(by_family) > 1
    summed: dict[str, Any] = {}
    for name in sorted(by_family, reverse=True):
        add_counts(summed, text_counts(by_family[name]))
    whole = text_counts(rows)
    assert summed == whole and whole["versions"] == len(rows)
    block = text_block(whole)
    characters = sum(r.glyphs + r.invisible + r.ocr + r.unrecorded for r in rows)
    assert block["characters"] == characters
    assert block["machine_read"]["holds"] == sum(r.invisible + r.ocr for r in rows)
    assert block["versions_mostly_machine_read"] == sum(
        (r.invisible + r.ocr) * 2 > r.glyphs + r.invisible + r.ocr for r in rows
    )


def test_two_text_rows_for_one_version_are_refused(held_versions: tuple[Version, ...]) -> None:
    row = text_row(held_versions[0])
    again = dataclasses.replace(row, glyphs=row.glyphs + 1)
    with pytest.raises(
        ValueError, match=rf"^evidence {row.evidence_id}: two text rows for one version$"
    ):
        text_counts([row, again])


def test_a_report_is_written_as_json_dumps_writes_it_held_whole() -> None:
    """`report_bytes` makes its text itself (not through json's generators): the same characters
    as `json.dumps(indent=2, ensure_ascii=False)`, whatever a value holds, a `Section` or the
    `Members` of a list read in."""
    from workbench.measure.reports import Members, Section, report_bytes

    awkward = {
        "text": 'quote " back \\ newline \n tab \t bell \x07 é ☃ \u2028 𝄞',
        "empty": {"list": [], "dict": {}, "string": ""},
        "numbers": [0, -7, 10**30, True, False, None, 1.5],
        "tuple": (1, ("a", []), {"k": ()}),
        "keys not strings": {1: "one", False: "no", None: "none"},
        "nested": [[[{"deep": [1, {"x": None}]}]]],
    }
    families = [("us-dc/a", {"n": 1, "m": [1, 2]}), ("us-dc/é", {}), ("x", awkward)]
    rows = [{"path": "us-dc/a/1.xml", "bytes": 3}, awkward, [], "é"]
    report = {
        "corpus_digest": "d",
        "awkward": awkward,
        "families": Section(lambda: families),
        "rows": Members(lambda: iter(rows)),
        "none": Members(lambda: iter(())),
    }
    held = {**report, "families": dict(families), "rows": rows, "none": []}
    assert report_bytes(report) == (json.dumps(held, indent=2, ensure_ascii=False) + "\n").encode()
    assert report["rows"] == rows and report["none"] == [] and report["rows"] != rows[:1]
    assert (
        report_bytes(awkward) == (json.dumps(awkward, indent=2, ensure_ascii=False) + "\n").encode()
    )
