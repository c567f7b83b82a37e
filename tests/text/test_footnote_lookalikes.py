"""Footnote numbers written as paragraph numbers (`1)`, `^1)` after the body, markers glued to a
word) are read as noise by the one footnote reader (`footnotes.footnote_lookalikes`): the inducer
and the line reader skip them with why, so no version is refused for them and a footnote renumbered
between versions sets off no label cap. On the Czech bundle and on consolidated law in Markdown
the test builds (labels inside emphasis, footnotes renumbered between versions)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from itertools import pairwise
from pathlib import Path

import pytest

from tests.text.test_induce import _induced_once, _laws, _numbering_truth, _right
from tests.text.test_structure import _text_version
from workbench.changes.diff import diff_versions
from workbench.changes.queue import in_review_queue
from workbench.models import Version
from workbench.text.choice import choose_profile
from workbench.text.footnotes import footnote_lookalikes
from workbench.text.induce import induce_profile
from workbench.text.profiles import Profile, parse_profile, shipped_profiles
from workbench.text.structure import parse_text, read_text
from workbench.workspace import Workspace

# The mirror writes a raised number as `^N`: a line opening with one is a note (the truth here,
# read by this test's own pattern, not the reader's).
RAISED_NOTE = re.compile(r"\^\d+[a-z]?\)", re.MULTILINE)


# The loop's sample of the Czech bundle: a law whose versions hold `^N)` notes in every release
# (induction and reading cost grow with the law's length; the whole bundle is the slow case).
CZECH_SAMPLE = "cz/SB-1991-389.md"


@pytest.mark.parametrize(
    ("laws", "least"),
    [
        pytest.param((CZECH_SAMPLE,), 1, id="one-law"),
        # Rule 3 of docs/development.md: another jurisdiction's laws induced, every one of them.
        pytest.param(None, 500, id="every-law", marks=pytest.mark.slow),
    ],
)
def test_the_czech_notes_are_noise_never_labels(
    tmp_path: Path, laws: tuple[str, ...] | None, least: int
) -> None:
    """Every `^N)` note line of every version of the Czech laws (all of them, or the loop's
    sample) is read as a footnote, each with why; the profile induced from each law reads none of
    them as a label, says so among what it skipped, and refuses no version the Czech truth
    numbers."""
    truth = _numbering_truth()
    notes = 0
    bundle = _laws("cz", tmp_path)
    for law in sorted(bundle) if laws is None else laws:
        texts = bundle[law]
        induction = induce_profile(texts)
        profile = induction.profile()
        held = 0
        for text in texts:
            raised = {
                m.start() for m in RAISED_NOTE.finditer(text) if text[m.start() - 1 : m.start()]
                in ("", "\n")
            }  # fmt: skip
            found = footnote_lookalikes(text)
            assert {n.line_start for n in found} == raised
            assert all(n.why.startswith(f"footnote {n.label}: ") for n in found)
            readings = {r.char_start: r for r in read_text(text, profile)}
            for start in raised:
                assert readings[start].label is None and readings[start].skipped
            if truth.read_units("cz", text):
                assert parse_text("v", text, profile).refusal is None
            held += bool(raised)
            notes += len(raised)
        if held:
            assert "# footnotes numbered like paragraphs: " in induction.source
    assert notes >= least


@pytest.mark.parametrize(
    ("text", "notes"),
    [
        pytest.param(
            "See the directive1) here.\n\n1) Directive 2010/75/EU.\n",
            ["1"],
            id="glued-marker-and-its-note",
        ),
        pytest.param(
            "The act^2a) applies.\n\n^2a) Act no. 3/2001.\n",
            ["2a"],
            id="raised-marker-with-letter",
        ),
        pytest.param(
            "^4) A note whose marker the version dropped.\n", ["4"], id="raised-note-unnamed"
        ),
        pytest.param(
            "Under the act1) and the rule2):\n\n1) First.\n\n2) Second.\n\nEnd.\n\n"
            "1) Act no. 1/2001.\n\n2) Act no. 2/2001.\n\n3) Act no. 3/2001.\n",
            ["1", "2", "3"],
            id="the-block-after-the-body-not-the-paragraphs",
        ),
        pytest.param(
            "Requirement R2) holds.\n\n2. Documentation of the plan.\n", [], id="capital-R2"
        ),
        pytest.param("Section A.1) applies.\n\n1. Let x be.\n", [], id="one-letter-A.1"),
        pytest.param("Over a link (see IPv6) here.\n\n6) Six.\n", [], id="inside-parentheses"),
        pytest.param(
            "The act1) applies.\n\n1) First paragraph.\n\n2) Second paragraph.\n\nMore.\n\n"
            "3) Third.\n",
            [],
            id="a-lone-number-before-more-numbers",
        ),
    ],
)
def test_which_lines_are_footnotes(text: str, notes: list[str]) -> None:
    assert [n.label for n in footnote_lookalikes(text)] == notes


# ---------------------------------------------------------------------------------------------
# Consolidated law in Markdown the test builds: articles in emphasis, paragraphs `1)`, points
# `a)`, footnote markers glued to words and notes `N)` after the body, renumbered by a note added
# before the others from the third version on.

SENTENCES = (
    "the operator shall keep the register of installations",
    "the authority may require a report within thirty days",
    "a permit lapses when the installation closes",
    "fees are paid to the fund each year",
    "records are kept for five years",
    "the minister sets the form of the notice",
    "an appeal lies to the court of first instance",
)
HAND = """
name = "hand"
description = "articles in emphasis, paragraphs 1), points a)"
markdown_headings = true
inline_markup = true

[[levels]]
name = "article"
words = ["Art."]
pattern = '(?P<number>\\d+[a-z]?)\\.'

[[levels]]
name = "paragraph"
pattern = '(?P<number>\\d+)\\)'

[[levels]]
name = "point"
pattern = '(?P<number>[a-z])\\)'
sequence = "alpha"
"""


def _law(version: int, footnotes: bool = True) -> tuple[str, list[tuple[int, list[str]]]]:
    """One version's text and its truth (each unit's line start and path of keys, as built):
    articles 1-8 with `version` articles inserted after 5 (`5a`, ...), each with paragraphs and
    points; a paragraph's marker every third one, numbered in text order; with `footnotes` false,
    the same law with no marker and no note."""
    lines = ["# Act on installations", "", "Consolidated text.", ""]
    units: list[tuple[int, list[str]]] = []
    notes: list[str] = []

    def marker(words: str) -> str:
        if not footnotes:
            return ""
        notes.append(words)
        return f"{len(notes)})"

    if version >= 2:
        note = marker("Directive 2010/75/EU on industrial emissions.")
        lines += [f"Having regard to the directive{note} and the regulation.", ""]
    labels = [*map(str, range(1, 6)), *(f"5{c}" for c in "abcd"[:version]), "6", "7", "8"]
    for a, label in enumerate(labels, start=1):
        units.append((len(lines), [label]))
        lines += [f"**Art. {label}.** {SENTENCES[a % 7].capitalize()}.", ""]
        for p in range(1, 2 + a % 3):
            units.append((len(lines), [label, str(p)]))
            glued = marker(f"Act no. {a}{p}/2001, as amended.") if (a + p) % 3 == 0 else ""
            lines += [f"{p}) {SENTENCES[(a + p) % 7].capitalize()} under the act{glued}:", ""]
            for q in "ab"[: 1 + (a + p) % 2]:
                units.append((len(lines), [label, str(p), q]))
                lines += [f"{q}) {SENTENCES[(a * p) % 7].capitalize()};", ""]
    if notes:
        lines += ["---", ""]
    for k, words in enumerate(notes, start=1):
        lines += [f"{k}) {words}", ""]
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    return "\n".join(lines), [(starts[k], keys) for k, keys in units]


def _versions(footnotes: bool) -> list[Version]:
    return [
        replace(
            _text_version(_law(k, footnotes)[0], f"act@{k}.md"),
            jurisdiction="held-out",
            family="act",
            version_order=k,
            media_type="text/markdown",
        )
        for k in range(5)
    ]


def _queue(versions: list[Version], profile: Profile) -> int:
    return sum(
        in_review_queue(change)
        for before, after in pairwise(versions)
        for change in diff_versions(before, after, profile)
    )


def test_footnotes_in_paragraph_form_are_skipped_in_consolidated_markdown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The induced profile, the automatic choice and a hand profile read at least 90% of the
    built law's units with their whole path, refuse no version, and read every note as noise
    (`structure` lists it as skipped); the review queue is no longer than the one the same law
    gives with no footnote at all, so renumbered notes set off no label cap."""
    versions = _versions(footnotes=True)
    texts = [v.text for v in versions]
    induction = induce_profile(texts)
    # The choice is handed the induction of these same texts, not inducing them again.
    monkeypatch.setattr("workbench.text.choice.induce_profile", _induced_once(texts, induction))
    profiles = {
        "induced": induction.profile(),
        "automatic": choose_profile(versions, shipped_profiles()).profile,
        "hand": parse_profile(HAND.encode(), "hand.toml"),
    }
    notes = [len(footnote_lookalikes(text)) for text in texts]
    assert notes == [n + (k >= 2) for k, n in enumerate(_marker_counts())]
    for how, profile in profiles.items():
        hits = total = 0
        for k, text in enumerate(texts):
            parse = parse_text("v", text, profile)
            assert parse.refusal is None, (how, k)
            units = _law(k)[1]
            hits += sum(_right(parse, text, start, keys) for start, keys in units)
            total += len(units)
            skipped = [r for r in read_text(text, profile) if r.skipped]
            assert len(skipped) == notes[k] and all(r.label is None for r in skipped)
        assert hits >= 0.9 * total, (how, hits, total)
        plain = _versions(footnotes=False)
        assert _queue(versions, profile) <= _queue(plain, profile), how


def _marker_counts() -> list[int]:
    """Markers each built version holds in its paragraphs (the preamble's aside), counted from
    the text: a number and `)` glued to a word."""
    return [len(re.findall(r"act\d+\):", _law(k)[0])) for k in range(5)]


def test_structure_lists_the_skipped_notes_with_why(tmp_path: Path) -> None:
    """`workbench structure` on a held version of the built law: each note line is listed as
    skipped with why (`--json`: `skipped`, line and offset and why), and none is a label."""
    from tests.cli.test_cli import _run

    version = _versions(footnotes=True)[3]
    with Workspace(tmp_path / "ws.sqlite") as workspace:
        workspace.add_version(version, {})
    found = footnote_lookalikes(version.text)
    shown = json.loads(
        _run("structure", version.version_id, "--json", workspace=tmp_path / "ws.sqlite").stdout
    )
    assert shown["refusal"] is None
    assert shown["skipped"] == [
        {
            "line": version.text.count("\n", 0, n.line_start) + 1,
            "char_start": n.line_start,
            "why": n.why,
        }
        for n in found
    ]
    assert {label["char_start"] for label in shown["labels"]}.isdisjoint(
        n.line_start for n in found
    )
    listing = _run("structure", version.version_id, workspace=tmp_path / "ws.sqlite").stdout
    assert f"skipped, no label ({len(found)}):" in listing.decode()
