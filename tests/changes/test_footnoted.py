"""A clause unchanged between two releases whose footnote changed (C7, C20), on a held Justice
Canada regulation: its next release's bytes with one note's words changed, as a new release
would, and nothing reported between two releases whose notes are the same."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.conftest import STORE
from workbench.changes.diff import diff_versions
from workbench.changes.footnoted import FootnoteChange, footnote_changes
from workbench.text.footnotes import FootnoteReading, read_markup_footnotes
from workbench.text.xml import extract_xml

FAMILY = STORE / "ca-federal" / "ca-energy-efficiency-regs-2016"
BEFORE, AFTER = "SOR-2016-311@2022-12-31.xml", "SOR-2016-311@2025-03-31.xml"
NOTE = b"<Label>a</Label><Text>S.C. 1992, c. 36</Text>"


def _version(name: str, data: bytes) -> tuple[SimpleNamespace, FootnoteReading]:
    source = f"ca-federal/ca-energy-efficiency-regs-2016/{name}"
    extraction = extract_xml(data, source=source)
    version = SimpleNamespace(
        version_id=source,
        text=extraction.text,
        structure=extraction.structure,
        jurisdiction="ca-federal",
        family="ca-energy-efficiency-regs-2016",
        media_type="application/xml",
    )
    return version, read_markup_footnotes(data, source=source)


@pytest.fixture(scope="module")
def earlier() -> tuple[SimpleNamespace, FootnoteReading]:
    """The earlier release and its notes, read once: both cases diff against the same bytes."""
    return _version(BEFORE, (FAMILY / BEFORE).read_bytes())


@pytest.mark.parametrize(
    ("rewrite", "rewritten"),
    [
        pytest.param(
            b"<Label>a</Label><Text>S.C. 1992, c. 37</Text>",
            "a S.C. 1992, c. 37",
            id="note-rewritten",
        ),
        pytest.param(NOTE, None, id="same-notes"),
    ],
)
def test_footnote_changed_under_an_unchanged_clause(
    earlier: tuple[SimpleNamespace, FootnoteReading], rewrite: bytes, rewritten: str | None
) -> None:
    before, before_notes = earlier
    data = (FAMILY / AFTER).read_bytes()
    assert data.count(NOTE) == 1
    after, after_notes = _version(AFTER, data.replace(NOTE, rewrite))
    changes = diff_versions(before, after)
    found = footnote_changes(changes, (before.text, after.text), (before_notes, after_notes))
    # Every unchanged clause holding a marker of the rewritten note is reported, and no other.
    notes = [n for n in after_notes.footnotes if after.text[n.char_start : n.char_end] == rewritten]
    holding = [
        c.change_id
        for c in changes
        if c.kind == "unchanged"
        and c.after is not None
        and any(c.after.char_start <= a < c.after.char_end for n in notes for a, _ in n.anchors)
    ]
    assert [f.change_id for f in found] == holding
    assert bool(holding) == (rewritten is not None)
    for change in found:
        assert rewritten in change.words_after and rewritten not in change.words_before
        assert change.line().endswith(f"'{rewritten}'") or f"'{rewritten}';" in change.line()
    # as a kept diff holds them (`changes.kept`): read back equal
    assert tuple(FootnoteChange.from_json(change.as_json()) for change in found) == found
    assert footnote_changes(changes, (before.text, after.text), (None, after_notes)) == ()
