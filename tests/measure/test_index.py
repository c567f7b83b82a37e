"""The summary index's fold (`measure.index.SummaryIndex.fold`): exactly the keys asked for, each
once, sorted, the spilled summary kept over the one the index held, without the spill or parts
left behind."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from workbench.measure.index import (
    BATCH_ROWS,
    COUNTS_DIR,
    INDEX_NAME,
    MAX_COUNT_FILES,
    PARTS,
    SummaryIndex,
)
from workbench.measure.summary import COUNTED_PARTS, summary_counts

VERSIONS = {"old": 1, "new": 10, "one": 100}  # a summary's versions, by its note


def _summary(jurisdiction: str, family: str, note: str) -> dict[str, Any]:
    """A summary of every part, its profile naming `note`; the parts the reduce adds up hold
    no count."""
    parts = {part: [n, part] for n, part in enumerate(PARTS)}
    parts.update({part: start() for part, start in COUNTED_PARTS.items()})
    parts["passages"]["versions"] = VERSIONS[note]
    return {"jurisdiction": jurisdiction, "family": family, **parts, "profile": {"note": note}}


def test_fold_keeps_the_asked_keys_sorted_and_the_spilled_summary_first(tmp_path: Path) -> None:
    names = [("us", "fam-00000")]  # "us" opens "us-dc": index and name order differ
    names += [(j, f"fam-{n:05d}") for j in ("us-dc", "ietf", "us-federal") for n in range(900)]
    names += [("us-dc", "fam-00001é"), ("us-dc", "fam-00001!")]  # sort by code point, not locale
    rng = random.Random(35)
    with SummaryIndex(tmp_path) as index:
        for j, f in rng.sample(names, len(names)):
            index.spill(f"old-{j}-{f}", _summary(j, f, "old"))
        index.fold([f"old-{j}-{f}" for j, f in names])
    assert len(pl.read_parquet(tmp_path / "summaries.parquet")) == len(names) > BATCH_ROWS
    kept = names[::2]
    with SummaryIndex(tmp_path) as index:
        for j, f in rng.sample(kept[:100], 100):
            index.spill(f"old-{j}-{f}", _summary(j, f, "new"))  # measured again: spilled wins
        for key, j, f in (("new-ietf-extra", "ietf", "extra"), ("never-asked", "ietf", "never")):
            index.spill(key, _summary(j, f, "new"))
        index.fold([f"old-{j}-{f}" for j, f in kept] + ["new-ietf-extra"])
        got = [(s["jurisdiction"], s["family"], s["profile"]["note"]) for s in index.summaries()]
        by_name = [(s["jurisdiction"], s["family"], s["profile"]["note"]) for s in index.by_name()]
    expected = sorted(
        [(j, f, "new" if (j, f) in kept[:100] else "old") for j, f in kept]
        + [("ietf", "extra", "new")]
    )
    assert got == expected
    # In the order of the name jurisdiction/family: "us" opens "us-dc" and goes after it.
    assert by_name == sorted(expected, key=lambda s: f"{s[0]}/{s[1]}")
    assert by_name != got
    # The counts are those of the summaries kept: each key's once, the spilled one's if spilled.
    versions = Counter[str]()
    for j, _, note in expected:
        versions[j] += VERSIONS[note]
    summed = {
        j: n for j, part, path, n in index.summed() if (part, path) == ("passages", '["versions"]')
    }
    assert summed == versions
    assert sorted(p.name for p in tmp_path.iterdir()) == [COUNTS_DIR, INDEX_NAME]


def test_an_index_with_other_columns_is_treated_as_absent(tmp_path: Path) -> None:
    """An index of another version (here one that kept the whole summary in one column, and
    rendered report members beside it): no key is taken from it and a fold writes only what was spilled, so its families
    are spilled again from their shards."""
    old = _summary("us-dc", "fam", "old")
    frame = pl.DataFrame(
        [
            {
                "key": "k",
                "jurisdiction": "us-dc",
                "family": "fam",
                "summary": json.dumps(old),
                "passages": "{}",
            }
        ]
    )
    frame.write_parquet(tmp_path / INDEX_NAME)
    with SummaryIndex(tmp_path) as index:
        assert index.keys() == frozenset()
        index.spill("k", _summary("us-dc", "fam", "new"))
        index.fold(["k"])
        assert [s["profile"]["note"] for s in index.summaries()] == ["new"]
        assert index.keys() == {"k"}


def test_fold_of_nothing_writes_an_empty_index(tmp_path: Path) -> None:
    with SummaryIndex(tmp_path) as index:
        index.fold([])
        assert list(index.summaries()) == []


def test_a_summary_is_read_whole_or_by_the_parts_named(tmp_path: Path) -> None:
    """Each part is a column of its own: a section that shows one part reads only that one,
    and a whole summary is every part as it was spilled, in the summary's order."""
    whole = _summary("us-dc", "fam", "one")
    with SummaryIndex(tmp_path) as index:
        index.spill("k", whole)
        index.fold(["k"])
        assert list(index.summaries()) == [whole]
        assert list(next(index.summaries())) == list(whole)
        assert list(index.by_name(("passages", "versions"))) == [
            {
                "jurisdiction": "us-dc",
                "family": "fam",
                "passages": whole["passages"],
                "versions": whole["versions"],
            }
        ]


@pytest.mark.parametrize(
    ("part", "value", "given"),
    [
        pytest.param("pairings", None, False, id="no-modified-pairing"),
        pytest.param("examples", {}, False, id="no-example"),
        pytest.param("pairings", COUNTED_PARTS["pairings"](), True, id="pairings-all-zero"),
        pytest.param("examples", {"renumbered": [{"change_id": "c"}]}, True, id="one-example"),
    ],
)
def test_a_part_asked_present_gives_only_the_families_it_holds_something_for(
    tmp_path: Path, part: str, value: Any, given: bool
) -> None:
    """`present`: a family whose part is null or empty is left out before its JSON is parsed;
    any other, even one whose counts are all 0, is given as `summaries` gives it."""
    empty, held = _summary("us-dc", "a", "one"), _summary("us-dc", "b", "one")
    empty[part], held[part] = EMPTY_PARTS_VALUES[part], value
    with SummaryIndex(tmp_path) as index:
        index.spill("a", empty)
        index.spill("b", held)
        index.fold(["a", "b"])
        every = list(index.summaries((part,)))
        assert list(index.summaries((part,), present=part)) == (every[1:] if given else [])
        assert list(index.by_name((part,), present=part)) == (every[1:] if given else [])


EMPTY_PARTS_VALUES = {"pairings": None, "examples": {}}  # what a family with none of them holds


def test_each_fold_adds_the_counts_of_what_it_was_given_and_the_files_stay_few(
    tmp_path: Path,
) -> None:
    """A fold writes the counts of the spilled families only, into a file of their own; a family
    spilled again is counted from its newest file, a key no longer asked for not at all; past
    `MAX_COUNT_FILES` files the counted rows are written into one."""
    names = [f"fam-{n}" for n in range(MAX_COUNT_FILES + 3)]
    with SummaryIndex(tmp_path) as index:
        for name in names:
            index.spill(name, _summary("us-dc", name, "old"))
        index.fold(names)
    files = []
    for round_, name in enumerate(names[1:], start=1):  # each round measures one family again
        with SummaryIndex(tmp_path) as index:
            index.spill(name, _summary("us-dc", name, "new"))
            index.fold(names[round_:])  # and drops the one before it
            files.append(len(list((tmp_path / COUNTS_DIR).iterdir())))
            summed = [n for _, _, path, n in index.summed() if path == '["versions"]']
            # this round's family as spilled again, the ones after it as first spilled
            expected = VERSIONS["new"] + VERSIONS["old"] * len(names[round_ + 1 :])
            assert summed == [expected], round_
    assert files == [*range(2, MAX_COUNT_FILES + 1), 1, 2, 3]


def test_spilled_counts_are_held_a_batch_at_a_time_and_a_key_counted_once(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """The counts of spilled summaries are written as Parquet parts of `COUNT_ROWS` rows as
    they come (never held for the whole run, never read back as text lines), and a key spilled
    twice in one run counts once: the fold sums exactly what one spill per family gives."""
    monkeypatch.setattr("workbench.measure.index.COUNT_ROWS", 4)
    names = [f"fam-{n}" for n in range(12)]
    held: list[int] = []
    with SummaryIndex(tmp_path) as index:
        for name in names:
            index.spill(name, _summary("us-dc", name, "one"))
            index.spill(name, _summary("us-dc", name, "one"))  # the same key again
            held.append(len(index._counts))
        parts = sorted(index._counts_path.glob("*.parquet"))
        index.fold(names)
        summed = [n for _, _, path, n in index.summed() if path == '["versions"]']
    rows = len(list(summary_counts(_summary("us-dc", "fam-0", "one"))))  # one summary's
    assert max(held) < 4 + rows  # below the batch, or one summary's rows over it: written then
    assert len(parts) >= 2
    assert summed == [VERSIONS["one"] * len(names)]
    assert not index._counts_path.exists()
