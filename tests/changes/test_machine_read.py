"""OCR noise is not change (C18): in a version pair whose sides are both a machine's reading,
every pairing is doubtful with its own cause `machine_read`, and they are one review item per
version pair, answered once."""

from __future__ import annotations

import dataclasses
import json
from bisect import bisect_right
from pathlib import Path

import pytest

from tests.conftest import _copy
from workbench.changes.diff import doubt_reasons, pairing_is_uncertain
from workbench.changes.origin import OriginReader
from workbench.changes.pairs import pair_changes, version_pairs
from workbench.changes.queue import group_id_of, review_items
from workbench.cli import main
from workbench.models import LOW_CONFIDENCE, PAIRING_KINDS, Change, OriginRun, TextOrigins, Version
from workbench.text.segment import segment_version
from workbench.workspace import Workspace

UPDATES = "puct-49595-puc01-01-rate-case-expense-update"
TX_49421 = "puct-49421-item80-cehe-response-to-tiec-rfi-set1"


def _pair(workspace: Workspace, family: str) -> tuple[Change, ...]:
    """The pair's one diff, as the review queue reads it (its tables paired by rows)."""
    return pair_changes(version_pairs(workspace, family), workspace=workspace)[0]


def test_the_u2_to_u3_pairings_are_one_machine_read_item(workspace: Workspace) -> None:
    changes = _pair(workspace, UPDATES)
    pairings = [c for c in changes if c.kind in PAIRING_KINDS]
    assert pairings
    # Both copies are the commission's OCR layer: every pairing compares two machine readings,
    # so every one is doubtful, `machine_read` among its reasons, whatever its confidence.
    for change in pairings:
        assert (change.before_origin, change.after_origin) == (("invisible",), ("invisible",))
        assert change.machine_read and pairing_is_uncertain(change)
        assert "machine_read" in doubt_reasons(change)
        assert not change.low_confidence  # someone else's layer carries no confidences
    assert any(c.alignment_confidence and c.alignment_confidence > 0.5 for c in pairings)
    (item,) = review_items(workspace, UPDATES)
    assert item.cause == "machine_read" and item.relabel is None
    assert [p.change for p in item.pairings] == pairings
    assert item.group_id == group_id_of([c.change_id for c in pairings])
    assert (
        item.heading() == f"machine-read group of {len(pairings)} pairings (invisible -> invisible)"
    )


def test_review_list_shows_the_group_and_one_answer_covers_it(
    workspace: Workspace, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (item,) = review_items(workspace, UPDATES)
    n = len(item.pairings)
    copy = tmp_path / "w.sqlite"
    # Answers are appended: never to the session's. Copied by SQLite's backup, never a plain
    # open(): closing another descriptor on the open session file drops this process's locks
    # on it, and a command run next in another process then takes its WAL away from under it.
    _copy(workspace.path, copy)
    assert main(["review", "list", UPDATES, "--workspace", str(copy)]) == 0
    printed = capsys.readouterr().out
    assert f"  {item.group_id} machine-read group of {n} pairings (invisible -> invisible): " in (
        printed
    )
    assert printed.endswith(
        f"1 review items (0 restructure groups of 0 pairings, 1 machine-read groups of {n} "
        f"pairings, 0 lone pairings; {n} doubtful pairings); caution stands on 1\n"
    )
    assert main(["review", "list", UPDATES, "--json", "--workspace", str(copy)]) == 0
    (listed,) = json.loads(capsys.readouterr().out)
    assert (listed["item"], listed["cause"], listed["relabel"]) == ("group", "machine_read", None)
    assert all(p["machine_read"] for p in listed["pairings"])
    assert item.group_id is not None
    argv = ["review", "answer", item.group_id, "confirmed", "--actor", "alice"]
    assert main([*argv, "--workspace", str(copy)]) == 0
    assert f"group {item.group_id}: {n} rows; " in capsys.readouterr().out


def test_a_glyph_side_is_not_machine_read_and_low_confidence_needs_our_ocr(
    workspace: Workspace,
) -> None:
    """The filer's scan (a drawn cover page, then our OCR) against the commission's layer: a
    pairing is machine-read only where both sides touch machine-read text; a change is called
    low-confidence only where our OCR read its changed characters."""
    changes = _pair(workspace, TX_49421)
    pairings = [c for c in changes if c.kind in PAIRING_KINDS]
    for change in pairings:
        both = {"invisible", "ocr"}
        expected = bool(both & set(change.before_origin)) and bool(both & set(change.after_origin))
        assert change.machine_read == expected
        if change.low_confidence:
            assert "ocr" in change.before_origin and change.machine_read
            assert doubt_reasons(change)[-2:] == ("machine_read", "low-confidence OCR words")
    assert {c.before_origin for c in pairings} >= {("ocr",)}


def test_a_text_of_one_origin_touches_that_origin_wherever_read(
    held_versions: tuple[Version, ...],
) -> None:
    """`OriginReader.touched` answers a one-run text without a look-up: the same origins the
    runs give for every passage of a held XML version, an empty span at its end included."""
    version = next(v for v in held_versions if v.family.startswith("dc-code-"))
    passages = segment_version(version)
    assert version.origin is not None and len(version.origin.runs) == 1
    reader = OriginReader(version.origin)
    for passage in passages:
        assert reader.touched([passage]) == version.origin.touched(
            passage.char_start, passage.char_end
        )
    end = len(version.text)
    tail = dataclasses.replace(passages[-1], char_start=end, char_end=end, text="")
    assert reader.touched([tail]) == version.origin.touched(end, end) == ("glyphs",)
    # Two runs: the general path, which names both where the passages span them.
    runs = (
        OriginRun(char_start=0, char_end=10, origin="glyphs"),
        OriginRun(char_start=10, char_end=end, origin="ocr"),
    )
    assert OriginReader(TextOrigins(runs=runs)).touched(passages) == ("glyphs", "ocr")


def _low_confidence_by_character(
    words: list[tuple[int, int, bool]], text: str, start: int
) -> bool | None:
    """The rule of `OriginReader.low_confidence` read character by character: each
    non-white-space character judged by the last word starting at or before it, where it lies
    inside that word."""
    starts = [word[0] for word in words]
    verdicts = set()
    for k, char in enumerate(text):
        owner = bisect_right(starts, start + k) - 1
        if char.isspace() or owner < 0 or start + k >= words[owner][1]:
            continue
        verdicts.add(words[owner][2])
    return None if not verdicts else verdicts == {True}


def test_low_confidence_walks_the_words_as_the_character_rule_reads_them(
    workspace: Workspace,
) -> None:
    """The filer's scan our OCR read: over windows that start and end at, inside and around its
    words (white space, unread characters and empty windows among them), the word walk gives
    the verdict of reading each character against the words."""
    version = next(v for pair in version_pairs(workspace, TX_49421) for v in pair if v.origin)
    assert version.origin is not None
    words = sorted(
        (w.char_start, w.char_end, w.confidence < LOW_CONFIDENCE)
        for page in version.origin.pages
        if page.ocr is not None
        for w in page.ocr.words
    )
    reader = OriginReader(version.origin)
    verdicts = []
    for k in range(0, len(words), 29):
        for at in (words[k][0] - 2, words[k][0], words[k][0] + 1, words[k][1]):
            for length in (0, 1, 4, 30):
                start = max(at, 0)
                text = version.text[start : start + length]
                verdict = reader.low_confidence(text, start)
                assert verdict is _low_confidence_by_character(words, text, start), (start, text)
                verdicts.append(verdict)
    assert {True, False, None} <= set(verdicts)
