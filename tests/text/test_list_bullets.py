"""Labels carried by Markdown list bullets (`- a)`, `* 1.`): the line reader and the inducer read
the label after the bullet as at a line's start, at its raw offsets (C1). On the Czech bundle,
whose mirror writes a statute's points and amending points as list items."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.text.test_induce import _laws
from workbench.text.induce import induce_profile
from workbench.text.lines import list_bullet
from workbench.text.profiles import parse_profile
from workbench.text.structure import parse_text, read_text


@pytest.mark.parametrize(
    ("line", "bullet"),
    [
        pytest.param("- a) the operator", 2, id="dash"),
        pytest.param("* 1. In section 2", 2, id="star"),
        pytest.param("+\tb) fees", 2, id="plus-tab"),
        pytest.param("-- a) no bullet", 0, id="two-dashes"),
        pytest.param("**Art. 2.** Scope", 0, id="emphasis-is-no-bullet"),
        pytest.param("- ", 0, id="a-bullet-alone"),
    ],
)
def test_a_list_bullet(line: str, bullet: int) -> None:
    assert list_bullet(line) == bullet


# A hand profile of the law's sections, paragraphs and points (letters closed by `)`, whatever
# follows), written as docs/new-jurisdiction.md says.
POINTS = """
name = "points"
description = "sections, paragraphs (1), points a)"
markdown_headings = true

[[levels]]
name = "section"
words = ["§"]
pattern = '(?P<number>\\d+[a-z]?)'
title = "forbidden"

[[levels]]
name = "paragraph"
pattern = '(?P<number>\\(\\d+[a-z]?\\))'

[[levels]]
name = "point"
pattern = '(?P<number>[a-z])\\)'
sequence = "alpha"
"""


@pytest.mark.parametrize(
    ("item", "induced"),
    [
        pytest.param(r"\d+\.", True, id="amending-points-1.-induced"),
        pytest.param(r"[a-z]\)", False, id="points-a)-hand-profile"),
    ],
)
def test_labels_after_list_bullets_are_read_in_place(
    tmp_path: Path, item: str, induced: bool
) -> None:
    """In every version of a Czech law whose amending points (`- 1.`) and points (`- a)`) are
    list items, the profile induced from its versions (for `- 1.`) or a hand profile of the
    points alone (for `- a)`) labels at least 90% of the bulleted lines, each label at its own
    first character after the bullet, and refuses no version."""
    texts = _laws("cz", tmp_path)["cz/SB-2017-194.md"]
    profile = induce_profile(texts).profile() if induced else parse_profile(POINTS.encode(), "p")
    bulleted = re.compile(rf"^[-*+][ \t]+(?P<label>{item})[ \t]", re.MULTILINE)
    items = read = 0
    for text in texts:
        starts = {m.start("label") for m in bulleted.finditer(text)}
        items += len(starts)
        readings = read_text(text, profile)
        for reading in readings:
            if reading.printed is not None:
                assert text[reading.label_start] == reading.printed[0]
        read += len(starts & {r.label_start for r in readings if r.printed is not None})
        assert parse_text("v", text, profile).refusal is None
    assert items >= 100 and read >= 0.9 * items, (items, read)
