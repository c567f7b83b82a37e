"""The confident audit (C21): the bound against scipy's own exact interval, the sample drawn again
the same, every refusal in one line, the chain with samples in it, a sampled item answered."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.changes.kept_workspace import copied, diffed_workspace
from tests.conftest import STORE, FreshWorkspace
from workbench.changes.audit import (
    MIN_ITEMS,
    answers_needed,
    audit_confident,
    audit_sample,
    sample_confident,
    sample_pairings,
    upper_bound,
)
from workbench.changes.log import append_verdict, read_samples, read_verdicts, verify_chain
from workbench.changes.queue import Pairing
from workbench.changes.sample import (
    Sample,
    confident_pairings,
    draw_sample,
    parse_axes,
    population_digest,
    sample_id_of,
    stratum_of,
)
from workbench.changes.verdict import SAMPLED_SCHEME
from workbench.cli import main
from workbench.errors import AuditError, VerdictError
from workbench.models import CatalogueRow, canonical_json
from workbench.workspace import Workspace, ingest

FAMILIES = ("dc-code-34-1432", "dc-code-34-131", "draft-nottingham-http-link-header")
BY = ("jurisdiction", "kind")


@pytest.fixture
def undiffed(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, fresh_workspace: FreshWorkspace
) -> Iterator[Workspace]:
    """Two D.C. Code sections and one Internet-Draft's revisions, with an empty verdict log."""
    rows = [r for r in catalogue if r.family in FAMILIES]
    with fresh_workspace(rows, tmp_path / "w.sqlite") as workspace:
        yield workspace


@pytest.fixture(scope="module")
def diffed(
    catalogue: tuple[CatalogueRow, ...],
    tmp_path_factory: pytest.TempPathFactory,
    fresh_workspace: FreshWorkspace,
) -> Path:
    """`undiffed`'s workspace once its pairs' diffs are kept (by `confident_pairings`, as the
    first sample keeps them), so each test's copy reads them instead of diffing every pair."""
    rows = [r for r in catalogue if r.family in FAMILIES]
    path = tmp_path_factory.mktemp("audit") / "w.sqlite"
    return diffed_workspace(fresh_workspace, rows, path, confident_pairings)


@pytest.fixture
def held(diffed: Path, tmp_path: Path) -> Iterator[Workspace]:
    """A copy of `diffed`: the diffs kept, the verdict log empty."""
    with copied(diffed, tmp_path) as workspace:
        yield workspace


# ---------------------------------------------------------------------------------------------
# The bound


def _cases() -> list[Any]:
    cases = []
    for answers in (10, 11, 17, 30, 60, 100, 401):
        for errors in sorted({0, 1, 2, answers // 7, answers // 2, answers - 1, answers}):
            for confidence in (0.9, 0.95, 0.99):
                cases.append(
                    pytest.param(
                        errors, answers, confidence, id=f"{errors}-of-{answers}-at-{confidence}"
                    )
                )
    return cases


@pytest.mark.parametrize(("errors", "answers", "confidence"), _cases())
def test_the_bound_is_scipys_exact_one_sided_interval(
    errors: int, answers: int, confidence: float
) -> None:
    # imported here, not at collection: scipy.stats takes each worker most of a second
    from scipy.stats import binom, binomtest  # type: ignore[import-untyped]

    bound = upper_bound(errors, answers, confidence)
    scipy_bound = (
        binomtest(errors, answers, alternative="less")
        .proportion_ci(confidence_level=confidence, method="exact")
        .high
    )
    # scipy finds its interval by root-finding on the binomial, to about 1e-12.
    assert bound == pytest.approx(scipy_bound, rel=1e-9, abs=1e-12)
    # What the bound means, read off the binomial itself: at the bound, seeing this many errors
    # or fewer has probability 1 - confidence (every answer an error: the bound is 1).
    if errors < answers:
        assert binom.cdf(errors, answers, bound) == pytest.approx(1 - confidence, rel=1e-9)
    else:
        assert bound == 1.0
    if errors == 0:  # no error seen: the closed form 1 - (1 - confidence) ** (1 / answers)
        assert bound == pytest.approx(1 - (1 - confidence) ** (1 / answers), rel=1e-12)


@pytest.mark.parametrize(
    ("errors", "answers", "rate"),
    [
        pytest.param(0, 10, 0.05, id="none-wrong-of-10-under-5pc"),
        pytest.param(1, 30, 0.05, id="one-wrong-of-30-under-5pc"),
        pytest.param(3, 60, 0.1, id="three-wrong-of-60-under-10pc"),
        pytest.param(0, 100, 0.05, id="already-under"),
        pytest.param(10, 10, 0.5, id="all-wrong"),
    ],
)
def test_answers_needed_is_the_least_that_brings_the_bound_to_the_rate(
    errors: int, answers: int, rate: float
) -> None:
    needed = answers_needed(errors, answers, 0.95, rate)
    assert upper_bound(errors, answers + needed, 0.95) <= rate
    if needed:
        assert upper_bound(errors, answers + needed - 1, 0.95) > rate


# ---------------------------------------------------------------------------------------------
# The sample


def test_the_same_seed_and_population_draw_the_same_items(undiffed: Workspace) -> None:
    population = confident_pairings(undiffed)  # diffed here, and kept
    again = confident_pairings(undiffed)  # read back
    assert population_digest(population) == population_digest(again)
    first = draw_sample(population, n=12, seed=7, by=BY, drawn_at="t", log_head="h")
    second = draw_sample(again, n=12, seed=7, by=BY, drawn_at="t", log_head="h")
    other = draw_sample(population, n=12, seed=8, by=BY, drawn_at="t", log_head="h")
    assert first == second and first.sample_id == second.sample_id
    assert [i.change_id for i in first.items] != [i.change_id for i in other.items]
    sizes: dict[str, int] = {}
    for pairing in population:
        sizes[stratum_of(pairing, BY)] = sizes.get(stratum_of(pairing, BY), 0) + 1
    assert {s.name: (s.size, s.drawn) for s in first.strata} == {
        name: (size, min(12, size)) for name, size in sizes.items()
    }
    # Every item is a distinct confident pairing of its own stratum.
    ids = {p.change.change_id: p for p in population}
    assert len({i.change_id for i in first.items}) == len(first.items)
    assert all(i.stratum == stratum_of(ids[i.change_id], BY) for i in first.items)
    # A stratum's draw does not depend on which other strata exist.
    dc = [p for p in population if p.jurisdiction == "us-dc"]
    alone = draw_sample(dc, n=12, seed=7, by=BY, drawn_at="t", log_head="h")
    assert [i for i in alone.items] == [i for i in first.items if i.jurisdiction == "us-dc"]


def test_a_recorded_sample_reads_back_and_the_chain_verifies(held: Workspace) -> None:
    sample = sample_confident(held, n=10, seed=3, by=("jurisdiction",))
    assert read_samples(held) == (sample,)
    assert sample.log_head == "0" * 64
    assert verify_chain(held).line() == f"chain valid: 0 rows, 1 samples, head {'0' * 64}"
    # Asked to reuse, the same seed, size, axes and population give back the recorded sample;
    # another seed draws (and records) a new one.
    assert sample_confident(held, n=10, seed=3, by=("jurisdiction",), reuse=True) == sample
    other = sample_confident(held, n=10, seed=4, by=("jurisdiction",), reuse=True)
    assert read_samples(held) == (sample, other)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("jurisdiction,kind", None, id="both"),
        pytest.param(
            "family", "--by 'family': 'family' is not one of jurisdiction, kind", id="unknown-axis"
        ),
        pytest.param("kind,kind", "--by 'kind,kind': an axis is named twice", id="axis-twice"),
    ],
)
def test_strata_axes(text: str, message: str | None) -> None:
    if message is None:
        assert parse_axes(text) == BY
        return
    with pytest.raises(AuditError) as info:
        parse_axes(text)
    assert str(info.value) == message


# ---------------------------------------------------------------------------------------------
# Answers and refusals


def _answer_all(
    held: Workspace, sample: Sample, wrong: Callable[[int], bool] = lambda k: False
) -> None:
    for k, pairing in enumerate(sample_pairings(sample, confident_pairings(held))):
        answer = "disputed" if wrong(k) else "confirmed"
        append_verdict(held, pairing.change, answer, actor="alice", sample_id=sample.sample_id)


def test_a_complete_sample_states_a_bound_per_stratum(held: Workspace) -> None:
    sample = sample_confident(held, n=15, seed=11, by=("jurisdiction",))
    _answer_all(held, sample, wrong=lambda k: k % 5 == 0)
    rows = read_verdicts(held)
    assert {(v.scheme, v.sample_id) for v in rows} == {(SAMPLED_SCHEME, sample.sample_id)}
    audit = audit_confident(held, rate=0.05)
    assert audit.log_head == verify_chain(held).head
    for stratum in audit.strata:
        mine = [
            v
            for v in rows
            if any(i.quoted_by(v) and i.stratum == stratum.name for i in sample.items)
        ]
        errors = sum(v.answer != "confirmed" for v in mine)
        assert (stratum.examined, stratum.errors) == (len(mine), errors)
        assert stratum.bound == upper_bound(errors, len(mine), 0.95)
        assert stratum.flagged is (stratum.bound > 0.05)
        assert stratum.needed == answers_needed(errors, len(mine), 0.95, 0.05)
    weights = [s.size for s in audit.strata]
    adjusted = [upper_bound(s.errors, s.examined, 1 - 0.05 / 2) for s in audit.strata]
    assert audit.overall == pytest.approx(
        sum(w * b for w, b in zip(weights, adjusted, strict=True)) / sum(weights)
    )


def test_cannot_tell_counts_against_the_pairing(held: Workspace) -> None:
    sample = sample_confident(held, n=10, seed=5)
    for pairing in sample_pairings(sample, confident_pairings(held)):
        append_verdict(held, pairing.change, "uncertain", actor="bob", sample_id=sample.sample_id)
    (stratum,) = audit_confident(held).strata
    assert (stratum.cannot_tell, stratum.errors, stratum.bound) == (10, 10, 1.0)


def test_an_incomplete_sample_is_refused_naming_the_shortfall(held: Workspace) -> None:
    sample = sample_confident(held, n=10, seed=2, by=("jurisdiction",))
    first = sample_pairings(sample, confident_pairings(held))[0]
    append_verdict(held, first.change, "confirmed", actor="alice", sample_id=sample.sample_id)
    short = {s.name: s.drawn for s in sample.strata}
    short[sample.items[0].stratum] -= 1
    with pytest.raises(AuditError) as info:
        audit_confident(held)
    where = ", ".join(f"{name} {n}" for name, n in short.items() if n)
    assert str(info.value) == (
        f"sample {sample.sample_id} is incomplete: {sum(short.values())} of "
        f"{len(sample.items)} items unanswered ({where}); a bound is stated only when every "
        "item is answered"
    )


def test_refusals_each_in_one_line(held: Workspace) -> None:
    sample = sample_confident(held, n=12, seed=4, by=BY)
    _answer_all(held, sample, wrong=lambda k: k % 3 == 0)
    names = ", ".join(s.name for s in sample.strata)
    with pytest.raises(AuditError) as info:
        audit_confident(held, stratum="us-dc/split")
    assert str(info.value) == (
        f"stratum 'us-dc/split': not a stratum of sample {sample.sample_id}; its strata are {names}"
    )
    small = next(s for s in sample.strata if s.size < MIN_ITEMS)
    with pytest.raises(AuditError) as info:
        audit_confident(held, stratum=small.name)
    assert str(info.value) == (
        f"stratum {small.name}: {small.size} items; a bound needs at least 10 (rate()'s rule)"
    )
    # Every stratum at once: the small one's bound is refused in its row; drawn whole, it adds
    # its errors exactly to the overall bound, and each sampled stratum its Bonferroni bound.
    audit = audit_confident(held)
    assert [s.refused for s in audit.strata if s.bound is None] == [str(info.value)]
    assert small.drawn == small.size
    sampled = [s for s in audit.strata if s.examined < s.size]
    each = 1 - 0.05 / len(sampled)
    census = [s for s in audit.strata if s.examined == s.size]
    assert sum(s.errors for s in census) > 0  # the exact term is tried, not zero by chance
    assert audit.overall == pytest.approx(
        (
            sum(s.size * upper_bound(s.errors, s.examined, each) for s in sampled)
            + sum(s.errors for s in census)
        )
        / sum(s.size for s in audit.strata)
    )


def test_an_answer_outside_the_sample_is_refused(held: Workspace) -> None:
    sample = sample_confident(held, n=10, seed=9)
    _answer_all(held, sample)
    population = confident_pairings(held)
    rows = read_verdicts(held)
    inside = {i.change_id for i in sample.items}
    stranger = next(p for p in population if p.change.change_id not in inside)
    assert stranger.change.before is not None and stranger.change.after is not None
    forged = dataclasses.replace(
        rows[-1],
        seq=rows[-1].seq + 1,
        change_id=stranger.change.change_id,
        before=stranger.change.before,
        after=stranger.change.after,
    )
    with pytest.raises(AuditError) as info:
        audit_sample(
            sample,
            (*rows, forged),
            population_digest=population_digest(population),
            population_sizes={"all": len(population)},
            log_head=rows[-1].digest,
        )
    assert str(info.value) == (
        f"sample {sample.sample_id}: 1 answers outside the sample (first: row {forged.seq}, "
        f"{stranger.change.change_id}); a bound needs the answers to be the sample drawn"
    )
    # The log itself refuses such an answer before it is written.
    with pytest.raises(VerdictError) as refused:
        append_verdict(held, stranger.change, "confirmed", actor="eve", sample_id=sample.sample_id)
    assert str(refused.value) == (
        f"{stranger.change.change_id}: not an item of sample {sample.sample_id}"
    )
    with pytest.raises(VerdictError) as unknown:
        append_verdict(held, stranger.change, "confirmed", actor="eve", sample_id="smp-0")
    assert str(unknown.value) == "smp-0: no sample with this id in the verdict log"


def test_a_changed_population_is_named_never_resampled(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, fresh_workspace: FreshWorkspace
) -> None:
    rows = sorted(
        (r for r in catalogue if r.family in FAMILIES), key=lambda r: (r.family, r.version_order)
    )
    last = next(r for r in reversed(rows) if r.family == "draft-nottingham-http-link-header")
    with fresh_workspace([r for r in rows if r != last], tmp_path / "w.sqlite") as held:
        sample = sample_confident(held, n=10, seed=1, by=("jurisdiction",))
        _answer_all(held, sample)
        before = audit_confident(held)
        ingest(held, [last], STORE)  # a new release admitted
        population = confident_pairings(held)
        sizes: dict[str, int] = {}
        for pairing in population:
            sizes[pairing.jurisdiction] = sizes.get(pairing.jurisdiction, 0) + 1
        moved = [
            f"{s.name} {s.size} -> {sizes[s.name]}"
            for s in sample.strata
            if s.size != sizes[s.name]
        ]
        with pytest.raises(AuditError) as info:
            audit_confident(held)
        assert str(info.value) == (
            f"sample {sample.sample_id}: the population changed since it was drawn (digest "
            f"{sample.population_digest[:12]} -> {population_digest(population)[:12]}; strata "
            f"{', '.join(moved)}); a version admitted or a diff that pairs otherwise; draw a new "
            "sample, none is redrawn silently"
        )
        assert read_samples(held) == (sample,)  # nothing redrawn
        assert before.strata


# ---------------------------------------------------------------------------------------------
# The chain with samples in it


def test_the_chain_verifies_with_samples_and_catches_an_edited_one(held: Workspace) -> None:
    doubtful = next(
        p for p in sample_pairings(sample_confident(held, n=10, seed=6), confident_pairings(held))
    )
    sample = read_samples(held)[0]
    append_verdict(held, doubtful.change, "confirmed", actor="alice", sample_id=sample.sample_id)
    second = sample_confident(held, n=10, seed=6)
    assert second.log_head == read_verdicts(held)[-1].digest
    report = verify_chain(held)
    assert report.valid and report.samples == 2 and report.rows == 1
    conn = sqlite3.connect(held.path)
    conn.execute("DROP TRIGGER samples_append_only_update")
    record = json.loads(conn.execute("SELECT record FROM samples WHERE seq = 2").fetchone()[0])
    record["seed"] = 99
    conn.execute(
        "UPDATE samples SET record = ? WHERE seq = 2", (json.dumps(record, sort_keys=True),)
    )
    conn.commit()
    conn.close()
    report = verify_chain(held)
    assert report.line().startswith(
        f"chain broken at sample {second.sample_id}: altered: its record hashes to smp-"
    )


def test_an_edited_sample_id_on_a_row_is_caught(held: Workspace) -> None:
    sample = sample_confident(held, n=10, seed=6)
    _answer_all(held, sample)
    conn = sqlite3.connect(held.path)
    conn.execute("DROP TRIGGER verdicts_append_only_update")
    conn.execute("UPDATE verdicts SET sample_id = 'smp-x' WHERE seq = 3")
    conn.commit()
    conn.close()
    assert verify_chain(held).line() == (
        "chain broken at row 3: altered: names sample 'smp-x', which the log does not hold"
    )


# ---------------------------------------------------------------------------------------------
# The widget and the command line


def test_the_widget_answers_a_sampled_item(held: Workspace) -> None:
    from workbench.changes.widgets import ReviewWidget

    sample = sample_confident(held, n=10, seed=12)
    items = sample_pairings(sample, confident_pairings(held))
    widget = ReviewWidget(held, items, actor="alice", sample_id=sample.sample_id)
    assert f"confident, of sample <code>{sample.sample_id}</code>" in widget.header.value
    widget.buttons["disputed"].click()
    (row,) = read_verdicts(held)
    assert (row.change_id, row.answer, row.sample_id, row.scheme) == (
        items[0].change.change_id,
        "disputed",
        sample.sample_id,
        SAMPLED_SCHEME,
    )
    assert widget.status.value == "recorded row 1: Disputed by alice"
    assert verify_chain(held).valid


def test_cli_sample_answer_and_audit(
    held: Workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = ("--workspace", str(held.path))
    assert main(["review", "sample", "--confident", "--n", "10", "--seed", "5", *where]) == 0
    printed = capsys.readouterr().out
    (sample,) = read_samples(held)
    assert printed.splitlines()[0] == (
        f"sample {sample.sample_id}: seed 5, 10 per stratum, population "
        f"{sample.population_digest} ({sample.population_size} confident pairings)"
    )
    items: tuple[Pairing, ...] = sample_pairings(sample, confident_pairings(held))
    first, rest = items[0], items[1:]
    assert (
        main(["review", "answer", first.change.change_id, "confirmed", "--actor", "alice", *where])
        == 0
    )
    (row,) = read_verdicts(held)
    assert capsys.readouterr().out == (
        f"row 1: confirmed {first.change.change_id} by alice in sample {sample.sample_id}; "
        f"digest {row.digest}\n"
    )
    for pairing in rest:
        assert (
            main(
                [
                    "review",
                    "answer",
                    pairing.change.change_id,
                    "confirmed",
                    "--actor",
                    "alice",
                    *where,
                ]
            )
            == 0
        )
    capsys.readouterr()
    out = tmp_path / "audit"
    assert main(["review", "audit", "--rate", "0.3", "--out", str(out), *where]) == 0
    printed = capsys.readouterr().out
    head = verify_chain(held).head
    written = json.loads((out / "confident-audit.json").read_text(encoding="utf-8"))
    assert (written["sample_id"], written["log_head"], written["population_digest"]) == (
        sample.sample_id,
        head,
        sample.population_digest,
    )
    (stratum,) = written["strata"]
    assert (stratum["examined"], stratum["errors"]) == (10, 0)
    assert stratum["upper_bound"] == round(upper_bound(0, 10, 0.95), 6)
    assert f"Verdict log head: `{head}`" in (out / "confident-audit.md").read_text(encoding="utf-8")
    assert (
        f"all: 10 examined, 10 confirmed, 0 disputed, 0 cannot tell; upper bound {upper_bound(0, 10, 0.95):.4f}"
        in printed
    )
    # A refusal is one line and exit 2.
    assert main(["review", "audit", "--stratum", "nowhere", *where]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"workbench: error: stratum 'nowhere': not a stratum of sample {sample.sample_id}; "
        "its strata are all\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            ["sample", "--confident", "--seed", "1", "--by", "family"],
            "workbench: error: --by 'family': 'family' is not one of jurisdiction, kind\n",
            id="unknown-axis",
        ),
        pytest.param(
            ["sample", "--confident", "--seed", "1", "--n", "0"],
            "workbench: error: --n 0: expected a positive number of pairings per stratum\n",
            id="no-pairings",
        ),
        pytest.param(
            ["audit", "--confidence", "1.5"],
            "workbench review audit: error: argument --confidence: '1.5': expected a number "
            "strictly between 0 and 1\n",
            id="confidence-out-of-range",
        ),
        pytest.param(
            ["audit"],
            "workbench: error: no sample in the verdict log; draw one with 'workbench review "
            "sample --confident'\n",
            id="no-sample",
        ),
    ],
)
def test_cli_refusals_are_one_line(
    held: Workspace, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code: object
    try:  # an argument the parser refuses exits; a refusal of the library returns
        code = main(["review", *args, "--workspace", str(held.path)])
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
    assert capsys.readouterr().err == message
    assert read_samples(held) == ()


def test_a_sample_naming_no_head_of_the_log_is_a_broken_link(held: Workspace) -> None:
    sample = sample_confident(held, n=10, seed=6)
    record = {**sample.record(), "log_head": "f" * 64}
    forged = sample_id_of(record)
    conn = sqlite3.connect(held.path)
    conn.execute("DROP TRIGGER samples_append_only_update")
    conn.execute(
        "UPDATE samples SET sample_id = ?, record = ? WHERE sample_id = ?",
        (forged, canonical_json(record), sample.sample_id),
    )
    conn.commit()
    conn.close()
    assert verify_chain(held).line() == (
        f"chain broken at sample {forged}: broken_link: log_head {'f' * 64} is the digest of no "
        "row of the log"
    )
