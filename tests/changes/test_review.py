"""The verdict log: append-only by trigger, hash-chained, one caution predicate, two writers at once."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.changes.kept_workspace import copied
from tests.conftest import ROOT, STORE, FreshWorkspace
from workbench.changes.caution import pairing_caution_stands, standing_verdict
from workbench.changes.diff import change_id as diff_change_id
from workbench.changes.diff import diff_versions, pairing_is_uncertain
from workbench.changes.log import (
    append_group_verdict,
    append_verdict,
    read_verdicts,
    verify_chain,
)
from workbench.changes.orphans import orphaned_verdicts
from workbench.changes.queue import (
    Pairing,
    ReviewItem,
    doubtful_pairings,
    find_change,
    item_caution_stands,
    relabelling,
    review_items,
)
from workbench.changes.verdict import GENESIS
from workbench.cli import main
from workbench.errors import AppendOnlyViolation, ChangeNotFound, VerdictError
from workbench.evals.demo import load_demo
from workbench.models import CatalogueRow, Change, Span
from workbench.text.segment import segment_version
from workbench.workspace import Workspace, ingest

FAMILIES = ("dc-code-34-1432", "dc-code-34-131", "draft-nottingham-http-link-header")
BIG_FAMILY = "draft-nottingham-http-link-header"


@pytest.fixture(scope="module")
def diffed(
    catalogue: tuple[CatalogueRow, ...],
    tmp_path_factory: pytest.TempPathFactory,
    fresh_workspace: FreshWorkspace,
) -> tuple[Path, tuple[Pairing, ...]]:
    """A fresh workspace holding three real families, with an empty verdict log, once its
    pairs are diffed and kept (by `doubtful_pairings`), and the pairings it gave."""
    rows = [r for r in catalogue if r.family in FAMILIES]
    path = tmp_path_factory.mktemp("pairings") / "w.sqlite"
    with fresh_workspace(rows, path) as workspace:
        return path, doubtful_pairings(workspace)


@pytest.fixture
def held(diffed: tuple[Path, tuple[Pairing, ...]], tmp_path: Path) -> Iterator[Workspace]:
    """A copy of `diffed`'s workspace: each test reads the kept diffs instead of diffing every
    pair of a fresh copy again."""
    with copied(diffed[0], tmp_path) as workspace:
        yield workspace


@pytest.fixture(scope="module")
def pairings(diffed: tuple[Path, tuple[Pairing, ...]]) -> tuple[Pairing, ...]:
    return diffed[1]


def test_doubtful_pairings_are_exactly_what_the_one_predicate_flags(held: Workspace) -> None:
    flagged = []
    # The listing's order: jurisdiction ("ietf" before "us-dc"), family, version order.
    for family in (BIG_FAMILY, "dc-code-34-131", "dc-code-34-1432"):
        for before, after in itertools.pairwise(held.versions(family)):
            flagged += [
                c
                for c in diff_versions(before, after)
                if pairing_is_uncertain(c) and not c.front_matter
            ]
    listed = doubtful_pairings(held)
    assert [p.change for p in listed] == flagged
    assert len({p.family for p in listed}) >= 2  # doubt is found in more than one family
    for pairing in listed:
        assert pairing.change.before is not None and pairing.change.after is not None
        assert pairing.change.before.version_id == pairing.before_id
        assert pairing.change.after.version_id == pairing.after_id
    assert {p.family for p in doubtful_pairings(held, "dc-code-34-1432")} == {"dc-code-34-1432"}


def test_front_matter_edits_are_their_own_kind_listed_apart_and_never_reviewed(
    held: Workspace,
) -> None:
    """Internet-Drafts change their title page, status and contents between revisions: those
    edits pair passages that are front matter on both sides, and no reviewer is asked about
    them."""
    front: list[Change] = []
    for before, after in itertools.pairwise(held.versions(BIG_FAMILY)):
        kinds = {p.char_start: p.kind for v in (before, after) for p in segment_version(v)}
        for change in diff_versions(before, after):
            sides = (change.before, change.after)
            both = all(
                side is not None and kinds[side.char_start] == "front_matter" for side in sides
            )
            assert change.front_matter == (both and all(
                kinds[s.char_start] == "front_matter" for s in (*change.before_spans, *change.after_spans)
            )), change.change_id  # fmt: skip
            front += [change] if change.front_matter else []
    assert any(pairing_is_uncertain(c) for c in front), "a doubtful front-matter edit exists"
    queued = {p.change.change_id for item in review_items(held) for p in item.pairings}
    assert not queued & {c.change_id for c in front}
    assert not {p.change.change_id for p in doubtful_pairings(held)} & {c.change_id for c in front}
    doubtful = next(c for c in front if pairing_is_uncertain(c))
    with pytest.raises(VerdictError) as info:
        append_verdict(held, doubtful, "confirmed", actor="alice")
    assert str(info.value) == (
        f"{doubtful.change_id}: a front-matter edit; front-matter edits are listed apart and "
        "never reviewed"
    )


def test_the_diff_listing_shows_front_matter_edits_apart(
    held: Workspace, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    assert main(["diff", BIG_FAMILY, "--workspace", str(held.path)]) == 0
    listing = capfdbinary.readouterr().out.decode()
    assert "front-matter edits (" in listing
    assert main(["diff", BIG_FAMILY, "--json", "--workspace", str(held.path)]) == 0
    shown = json.loads(capfdbinary.readouterr().out)
    flags = [c["front_matter"] for pair in shown for c in pair["changes"]]
    assert any(flags) and not all(flags)


def test_find_change_recovers_each_pairing_from_its_id_alone(
    held: Workspace, pairings: tuple[Pairing, ...]
) -> None:
    for pairing in (pairings[0], pairings[len(pairings) // 2], pairings[-1]):
        assert find_change(held, pairing.change.change_id) == pairing
        assert find_change(held, pairing.change.change_id, family=pairing.family) == pairing


@pytest.mark.parametrize(
    ("change_id", "family", "message"),
    [
        pytest.param(
            "chg-00000000000000000000",
            None,
            "chg-00000000000000000000: no change with this id in the diffs of any family held in {path}; see 'workbench review list'",
            id="unknown-id",
        ),
        pytest.param(
            "not-a-change-id",
            "dc-code-34-131",
            "not-a-change-id: not a change id; expected 'chg-' and 20 lowercase hex digits",
            id="malformed-id",
        ),
        pytest.param(
            "chg-00000000000000000000",
            "dc-code-34-131",
            "chg-00000000000000000000: no change with this id in the diffs of family dc-code-34-131 held in {path}; see 'workbench review list'",
            id="unknown-id-in-family",
        ),
    ],
)
def test_find_change_refuses_unknown_ids(
    held: Workspace, change_id: str, family: str | None, message: str
) -> None:
    with pytest.raises(ChangeNotFound) as info:
        find_change(held, change_id, family=family)
    assert str(info.value) == message.format(path=held.path)


def _confident(held: Workspace) -> Change:
    versions = held.versions("dc-code-34-1432")
    return next(c for c in diff_versions(versions[0], versions[1]) if c.kind == "unchanged")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param(
            {"answer": "maybe"},
            "answer 'maybe': expected one of confirmed, disputed, uncertain",
            id="unknown-answer",
        ),
        pytest.param(
            {"actor": "   "},
            "actor ' ': expected a reviewer's name of 1 to 200 printable characters on one line",
            id="blank-actor",
        ),
        pytest.param(
            {"actor": "eve\nmallory"},
            "actor 'eve\\nmallory': expected a reviewer's name of 1 to 200 printable characters on one line",
            id="two-line-actor",
        ),
        pytest.param(
            {"reason": "x" * 10_001},
            "reason: 10001 characters; expected at most 10000",
            id="reason-too-long",
        ),
        pytest.param(
            {"undoes": 1},
            "{change_id}: undoes=1, but the pairing has no standing verdict",
            id="undo-with-nothing-standing",
        ),
    ],
)
def test_bad_answers_are_refused_and_write_nothing(
    held: Workspace, pairings: tuple[Pairing, ...], kwargs: dict[str, object], message: str
) -> None:
    change = pairings[0].change
    call: dict[str, object] = {"answer": "confirmed", "actor": "alice", **kwargs}
    answer = str(call.pop("answer"))
    with pytest.raises(VerdictError) as info:
        append_verdict(held, change, answer, **call)  # type: ignore[arg-type]
    assert str(info.value) == message.format(change_id=change.change_id)
    assert read_verdicts(held) == ()


def test_only_doubtful_pairings_are_answered(held: Workspace) -> None:
    change = _confident(held)
    with pytest.raises(VerdictError) as info:
        append_verdict(held, change, "confirmed", actor="alice")
    assert str(info.value) == (
        f"{change.change_id}: not a doubtful pairing (unchanged, confidence 1.0); "
        "only pairings pairing_is_uncertain flags are reviewed"
    )


def test_a_second_answer_must_be_a_reversal_naming_the_standing_row(
    held: Workspace, pairings: tuple[Pairing, ...]
) -> None:
    change = pairings[0].change
    first = append_verdict(held, change, "confirmed", actor="alice", reason="  renumbered  ")
    assert first.reason == "renumbered" and first.seq == 1 and first.prev_hash == GENESIS
    with pytest.raises(VerdictError) as info:
        append_verdict(held, change, "disputed", actor="bob")
    assert str(info.value) == (
        f"{change.change_id}: already answered confirmed by alice at row 1; to change it, "
        "answer again naming that row (undoes=1)"
    )
    other = append_verdict(held, pairings[1].change, "uncertain", actor="bob")
    with pytest.raises(VerdictError):  # row 2 is another pairing's, not this one's standing row
        append_verdict(held, change, "disputed", actor="bob", undoes=other.seq)
    reversal = append_verdict(held, change, "disputed", actor="bob", undoes=1)
    assert (reversal.seq, reversal.undoes, reversal.prev_hash) == (3, 1, other.digest)
    assert standing_verdict(change, read_verdicts(held)) == reversal
    assert [v.seq for v in read_verdicts(held, change.change_id)] == [1, 3]


def test_a_row_quotes_the_pairing_and_the_computed_numbers(
    held: Workspace, pairings: tuple[Pairing, ...]
) -> None:
    # A pairing the cap made doubtful: more than half alike, yet capped at the ceiling.
    capped = next(
        p.change for p in pairings if p.change.capped and (p.change.similarity or 0) > 0.5
    )
    verdict = append_verdict(held, capped, "uncertain", actor="alice")
    assert (verdict.before, verdict.after) == (capped.before, capped.after)
    assert verdict.similarity == capped.similarity
    assert verdict.alignment_confidence == capped.alignment_confidence
    assert verdict.capped is True and verdict.alignment_confidence <= 0.5 < verdict.similarity
    assert read_verdicts(held) == (verdict,)
    # The digest is SHA-256 over the canonical JSON of every other field (scheme 2: group_id too),
    # recomputed here by hand.
    payload = {
        "seq": 1,
        "scheme": 2,
        "change_id": capped.change_id,
        "before": capped.before.as_json() if capped.before else None,
        "after": capped.after.as_json() if capped.after else None,
        "answer": "uncertain",
        "reason": None,
        "actor": "alice",
        "answered_at": verdict.answered_at,
        "similarity": capped.similarity,
        "alignment_confidence": capped.alignment_confidence,
        "capped": True,
        "undoes": None,
        "prev_hash": "0" * 64,
        "group_id": None,
    }
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert verdict.digest == hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@pytest.mark.parametrize(
    ("answers", "stands"),
    [
        pytest.param((), True, id="unanswered"),
        pytest.param(("uncertain",), True, id="cannot-tell"),
        pytest.param(("confirmed",), False, id="confirmed"),
        pytest.param(("disputed",), False, id="disputed"),
        pytest.param(("confirmed", "uncertain"), True, id="confirmed-then-reversed-to-cannot-tell"),
        pytest.param(("uncertain", "disputed"), False, id="cannot-tell-then-disputed"),
    ],
)
def test_caution_stands_for_unanswered_and_cannot_tell_only(
    held: Workspace, pairings: tuple[Pairing, ...], answers: tuple[str, ...], stands: bool
) -> None:
    change = pairings[3].change
    previous = None
    for answer in answers:
        previous = append_verdict(
            held, change, answer, actor="alice", undoes=previous.seq if previous else None
        )
    verdicts = read_verdicts(held)
    assert pairing_caution_stands(change, verdicts) is stands
    # A verdict on one pairing never lifts caution on another.
    assert pairing_caution_stands(pairings[4].change, verdicts) is True


def test_caution_never_stands_on_a_confident_pairing_and_stale_rows_do_not_count(
    held: Workspace, pairings: tuple[Pairing, ...]
) -> None:
    assert pairing_caution_stands(_confident(held), ()) is False
    change = pairings[0].change
    confirmed = append_verdict(held, change, "confirmed", actor="alice")
    assert change.after is not None
    moved = Span(
        version_id=change.after.version_id,
        char_start=change.after.char_start + 1,
        char_end=change.after.char_end,
    )
    # The same id over other passages (a diff recomputed differently) is another pairing.
    other = dataclasses.replace(change, after=moved)
    assert pairing_caution_stands(change, (confirmed,)) is False
    assert pairing_caution_stands(other, (confirmed,)) is True


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        pytest.param(
            "UPDATE verdicts SET answer = 'disputed'",
            "append-only table verdicts: UPDATE refused",
            id="update",
        ),
        pytest.param(
            "DELETE FROM verdicts", "append-only table verdicts: DELETE refused", id="delete"
        ),
    ],
)
def test_triggers_refuse_update_and_delete(
    held: Workspace, pairings: tuple[Pairing, ...], sql: str, message: str
) -> None:
    written = append_verdict(held, pairings[0].change, "confirmed", actor="alice")
    with pytest.raises(AppendOnlyViolation) as info:
        held.execute(sql)
    assert str(info.value) == f"{held.path}: {message}"
    assert read_verdicts(held) == (written,)


def _rehash_row_2(conn: sqlite3.Connection) -> None:
    """Alter row 2 and recompute its own digest correctly: the link from row 3 must then break."""
    from workbench.changes.log import _verdict
    from workbench.changes.verdict import row_digest

    conn.execute("UPDATE verdicts SET answer = 'confirmed' WHERE seq = 2")
    conn.row_factory = sqlite3.Row  # the log's rows are read by column name
    row = conn.execute("SELECT * FROM verdicts WHERE seq = 2").fetchone()
    conn.execute(
        "UPDATE verdicts SET digest = ? WHERE seq = 2", (row_digest(_verdict(row).payload()),)
    )


@pytest.mark.parametrize(
    ("tamper", "problem", "seq"),
    [
        pytest.param(
            "UPDATE verdicts SET answer = 'confirmed' WHERE seq = 2",
            "altered",
            2,
            id="answer-edited",
        ),
        pytest.param(
            "UPDATE verdicts SET reason = 'later excuse' WHERE seq = 3",
            "altered",
            3,
            id="reason-edited",
        ),
        pytest.param(
            "UPDATE verdicts SET alignment_confidence = 0.9 WHERE seq = 1",
            "altered",
            1,
            id="confidence-overwritten",
        ),
        pytest.param(
            "UPDATE verdicts SET actor = 'mallory' WHERE seq = 4", "altered", 4, id="actor-edited"
        ),
        pytest.param(
            "UPDATE verdicts SET prev_hash = digest WHERE seq = 2",
            "broken_link",
            2,
            id="link-rewritten",
        ),
        pytest.param(_rehash_row_2, "broken_link", 3, id="row-edited-and-rehashed"),
        pytest.param(
            "UPDATE verdicts SET scheme = 9 WHERE seq = 3", "unknown_scheme", 3, id="unknown-scheme"
        ),
        pytest.param("DELETE FROM verdicts WHERE seq = 2", "gap", 2, id="middle-row-deleted"),
        pytest.param("DELETE FROM verdicts WHERE seq = 4", "gap", 4, id="last-row-deleted"),
        pytest.param("UPDATE verdicts SET seq = 7 WHERE seq = 4", "gap", 4, id="renumbered"),
    ],
)
def test_tampering_with_raw_sql_is_caught_with_the_row_number(
    held: Workspace, pairings: tuple[Pairing, ...], tamper: object, problem: str, seq: int
) -> None:
    for k, answer in enumerate(("confirmed", "disputed", "uncertain", "confirmed")):
        append_verdict(held, pairings[k].change, answer, actor="alice", reason=f"reason {k}")
    assert verify_chain(held).valid
    conn = sqlite3.connect(held.path, isolation_level=None)
    conn.execute("DROP TRIGGER verdicts_append_only_update")
    conn.execute("DROP TRIGGER verdicts_append_only_delete")
    if callable(tamper):
        tamper(conn)
    else:
        conn.execute(str(tamper))
    conn.close()
    report = verify_chain(held)
    assert (report.valid, report.problem, report.seq) == (False, problem, seq)
    assert report.line().startswith(f"chain broken at row {seq}: {problem}: ")


def test_an_empty_log_is_a_valid_chain(held: Workspace) -> None:
    report = verify_chain(held)
    assert (report.valid, report.rows, report.head) == (True, 0, GENESIS)
    assert report.line() == f"chain valid: 0 rows, head {GENESIS}"


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    steps=st.lists(
        st.tuples(st.sampled_from(("confirmed", "disputed", "uncertain")), st.booleans()),
        max_size=6,
    ),
    which=st.integers(min_value=0, max_value=20),
)
def test_any_answer_history_keeps_the_chain_valid_and_the_predicate_on_the_last_answer(
    pairings: tuple[Pairing, ...], steps: list[tuple[str, bool]], which: int
) -> None:
    change = pairings[which].change
    with tempfile.TemporaryDirectory() as folder, Workspace(Path(folder) / "w.sqlite") as log:
        last: str | None = None
        for answer, as_reversal in steps:
            standing = standing_verdict(change, read_verdicts(log))
            if standing is not None and not as_reversal:
                with pytest.raises(VerdictError):
                    append_verdict(log, change, answer, actor="alice")
                continue
            append_verdict(
                log, change, answer, actor="alice", undoes=standing.seq if standing else None
            )
            last = answer
        verdicts = read_verdicts(log)
        assert verify_chain(log).valid and verify_chain(log).rows == len(verdicts)
        assert [v.seq for v in verdicts] == list(range(1, len(verdicts) + 1))
        assert pairing_caution_stands(change, verdicts) is (last in (None, "uncertain"))


_WRITER = """
import sys, time
from pathlib import Path
from workbench.errors import VerdictError
from workbench.changes.log import append_verdict
from workbench.changes.queue import doubtful_pairings
from workbench.workspace import Workspace

path, actor, half, go = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
with Workspace(path) as workspace:
    pairings = doubtful_pairings(workspace, sys.argv[5])
    while not go.exists():
        time.sleep(0.002)
    try:  # both writers race for the same pairing first: exactly one may win
        append_verdict(workspace, pairings[0].change, "uncertain", actor=actor)
        print("won")
    except VerdictError:
        print("lost")
    for pairing in pairings[1 + half :: 2][:20]:
        append_verdict(workspace, pairing.change, "confirmed", actor=actor, reason=actor)
"""


def test_two_processes_answering_at_once_lose_nothing(held: Workspace, tmp_path: Path) -> None:
    go = tmp_path / "go"
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(held.path), actor, str(half), str(go), BIG_FAMILY],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for half, actor in enumerate(("kernel-a", "kernel-b"))
    ]
    # Each writer answers up to 20 of the pairings after the first, alternating; with the raced
    # first one, every answered pairing is one row.
    expected = 1 + len(doubtful_pairings(held, BIG_FAMILY)[1:][:40])
    assert expected == 41, "the family needs at least 41 doubtful pairings for this race"
    go.touch()
    outcomes = []
    for writer in writers:
        out, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err.decode()
        outcomes.append(out.decode().strip())
    assert sorted(outcomes) == ["lost", "won"]
    verdicts = read_verdicts(held)
    assert len(verdicts) == expected
    assert [v.seq for v in verdicts] == list(range(1, expected + 1))
    assert sum(v.actor == "kernel-a" for v in verdicts) == sum(
        v.actor == "kernel-b" for v in verdicts
    ) + (1 if outcomes[0] == "won" else -1)
    assert len({v.change_id for v in verdicts}) == expected
    report = verify_chain(held)
    assert report.valid and report.rows == expected and report.head == verdicts[-1].digest


# ---------------------------------------------------------------------------------------------
# Command line


@dataclasses.dataclass
class _Run:
    returncode: int
    stdout: bytes
    stderr: bytes


@pytest.fixture
def cli(capsysbinary: pytest.CaptureFixture[bytes]) -> Callable[..., _Run]:
    """`workbench review ...` run in this process (the CLI's import alone costs seconds)."""

    def run(*args: str, workspace: Path) -> _Run:
        code = main(["review", *args, "--workspace", str(workspace)])
        out, err = capsysbinary.readouterr()
        return _Run(returncode=code, stdout=out, stderr=err)

    return run


def test_cli_list_answer_log_and_verify_chain(
    held: Workspace, pairings: tuple[Pairing, ...], cli: Callable[..., _Run]
) -> None:
    family = "dc-code-34-1432"
    mine = [p for p in pairings if p.family == family]
    listed = json.loads(cli("list", family, "--json", workspace=held.path).stdout)
    assert [item["change_id"] for item in listed] == [p.change.change_id for p in mine]
    assert all(item["caution_stands"] and item["answer"] is None for item in listed)
    target = mine[0].change.change_id

    answered = cli(
        "answer",
        target,
        "disputed",
        "--actor",
        "alice",
        "--reason",
        "moved <b>",
        workspace=held.path,
    )
    assert answered.returncode == 0, answered.stderr
    row = read_verdicts(held)[0]
    assert answered.stdout.decode() == (
        f"row 1: disputed {target} by alice; caution lifted; digest {row.digest}\n"
    )
    assert row.reason == "moved <b>"

    again = cli("answer", target, "confirmed", "--actor", "bob", workspace=held.path)
    assert again.returncode == 2
    assert again.stderr.decode() == (
        f"workbench: error: {target}: already answered disputed by alice at row 1; to change it, "
        "answer again naming that row (undoes=1)\n"
    )
    reversed_ = cli(
        "answer",
        target,
        "uncertain",
        "--actor",
        "bob",
        "--undoes",
        "1",
        "--family",
        family,
        workspace=held.path,
    )
    assert (
        reversed_.returncode == 0 and "(undoes row 1); caution stands;" in reversed_.stdout.decode()
    )

    text = cli("list", family, workspace=held.path).stdout.decode()
    assert f"{target} " in text and "caution stands (uncertain by bob at row 2)" in text
    # No renumbering in this family: every doubtful pairing is a lone item.
    assert text.endswith(
        f"{len(mine)} review items (0 restructure groups of 0 pairings, {len(mine)} lone "
        f"pairings; {len(mine)} doubtful pairings); caution stands on {len(mine)}\n"
    )

    log = json.loads(cli("log", "--json", workspace=held.path).stdout)
    assert [(r["seq"], r["answer"], r["undoes"]) for r in log] == [
        (1, "disputed", None),
        (2, "uncertain", 1),
    ]
    assert cli("log", workspace=held.path).stdout.decode().endswith("2 rows; 0 orphaned\n")

    chain = cli("verify-chain", workspace=held.path)
    assert chain.returncode == 0
    assert chain.stdout.decode() == f"chain valid: 2 rows, head {log[-1]['digest']}\n"

    conn = sqlite3.connect(held.path, isolation_level=None)
    conn.execute("DROP TRIGGER verdicts_append_only_update")
    conn.execute("UPDATE verdicts SET actor = 'mallory' WHERE seq = 1")
    conn.close()
    broken = cli("verify-chain", workspace=held.path)
    assert broken.returncode == 1
    assert broken.stdout.decode().startswith("chain broken at row 1: altered: stored digest ")


def test_cli_unknown_change_is_one_line_and_exit_2(held: Workspace) -> None:
    result = subprocess.run(
        [
            *(sys.executable, "-m", "workbench", "review", "answer", "chg-00000000000000000000"),
            *("confirmed", "--actor", "a", "--workspace", str(held.path)),
        ],
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.decode() == (
        f"workbench: error: chg-00000000000000000000: no change with this id in the diffs of any "
        f"family held in {held.path}; see 'workbench review list'\n"
    )


# ---------------------------------------------------------------------------------------------
# Restructure groups


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        pytest.param("7", "6", ("", -1), id="ripple-down"),
        pytest.param("3.4", "3.5", ("3.", 1), id="inside-a-section"),
        pytest.param("6.1", "10.1", ("", 4), id="section-moved-its-child-follows"),
        pytest.param("(a)", "(b)", ("(", 1), id="letter"),
        pytest.param("Sec. 9", "Sec. 10", ("Sec. ", 1), id="heading-word-kept"),
        pytest.param("6", "5.4", None, id="other-shape"),
        pytest.param("(2", "(2)", None, id="markup-fix-is-no-renumbering"),
        pytest.param("07", "7", None, id="shift-zero"),
        pytest.param("5.1", "6.2", None, id="two-numbers-differ"),
        pytest.param("A", "b", None, id="letter-case-differs"),
        pytest.param("4", "4", None, id="equal"),
        pytest.param(None, "4", None, id="no-label"),
    ],
)
def test_relabelling(before: str | None, after: str | None, expected: object) -> None:
    found = relabelling(before, after)
    assert (None if found is None else (found.prefix, found.shift)) == expected


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[Workspace]:
    """A workspace holding the demonstration corpus (its ripple renumbering 7 -> 6, 8 -> 7, ...)."""
    with Workspace(tmp_path / "demo.sqlite") as workspace:
        for version in load_demo().versions.values():
            workspace.add_version(version, {})
        yield workspace


def _group(items: tuple[ReviewItem, ...]) -> ReviewItem:
    (group,) = [item for item in items if item.is_group]
    return group


def test_the_demo_ripple_renumbering_is_one_group_and_every_doubt_is_in_one_item(
    demo: Workspace,
) -> None:
    items = review_items(demo)
    group = _group(items)
    changes = [p.change for p in group.pairings]
    # The manifest's story, read in the files: v2 inserts 5.4, so sections 7 to 10 become 6 to 9.
    assert [(c.before_label, c.after_label) for c in changes] == [
        (str(n), str(n - 1)) for n in range(7, 11)
    ]
    texts = {v.version_id: v.text for v in load_demo().versions.values()}
    for change in changes:
        assert change.before is not None and change.after is not None
        assert texts[change.before.version_id][change.before.char_start :].startswith(
            f"{change.before_label}."
        )
        assert texts[change.after.version_id][change.after.char_start :].startswith(
            f"{change.after_label}."
        )
    assert group.relabel is not None and (group.relabel.prefix, group.relabel.shift) == ("", -1)
    ids = [c.change_id for c in changes]
    canonical = json.dumps(ids, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert group.group_id == "grp-" + hashlib.sha256(canonical.encode()).hexdigest()[:20]
    assert group.item_id == group.group_id
    # The rest stays lone: 6 -> 5.4 is no one-number shift; the split has no labels.
    lone = [item for item in items if not item.is_group]
    assert [(i.pairings[0].change.kind, i.pairings[0].change.before_label) for i in lone] == [
        ("modified", "6"),
        ("split", None),
    ]
    flat = [p for item in items for p in item.pairings]
    assert sorted(p.change.change_id for p in flat) == sorted(
        p.change.change_id for p in doubtful_pairings(demo)
    )
    assert len(items) == len(flat) - len(changes) + 1  # the group is counted once


def test_one_answer_to_a_group_writes_one_row_per_pairing_naming_it(demo: Workspace) -> None:
    group = _group(review_items(demo))
    rows = append_group_verdict(demo, group, "confirmed", actor="alice", reason="ripple")
    assert [(v.seq, v.scheme, v.group_id, v.undoes) for v in rows] == [
        (k, 2, group.group_id, None) for k in range(1, 5)
    ]
    assert [v.change_id for v in rows] == [p.change.change_id for p in group.pairings]
    assert all(v.quotes(p.change) for v, p in zip(rows, group.pairings, strict=True))
    assert len({v.answered_at for v in rows}) == 1
    assert read_verdicts(demo) == rows
    assert verify_chain(demo).valid and verify_chain(demo).rows == 4
    assert item_caution_stands(group, rows) is False
    assert all(not pairing_caution_stands(p.change, rows) for p in group.pairings)

    with pytest.raises(VerdictError) as info:
        append_group_verdict(demo, group, "disputed", actor="bob")
    assert str(info.value) == (
        f"{group.group_id}: already answered confirmed by alice at rows 1, 2, 3, 4; to change it, "
        "answer again naming the latest, row 4 (undoes=4)"
    )
    reversal = append_group_verdict(demo, group, "uncertain", actor="bob", undoes=4)
    assert [(v.seq, v.undoes) for v in reversal] == [(5, 1), (6, 2), (7, 3), (8, 4)]
    assert item_caution_stands(group, read_verdicts(demo)) is True
    assert verify_chain(demo).valid

    lone = next(item for item in review_items(demo) if not item.is_group)
    with pytest.raises(VerdictError) as info:
        append_group_verdict(demo, lone, "confirmed", actor="alice")
    assert str(info.value) == (
        f"{lone.item_id}: a lone pairing, not a restructure group; answer it with append_verdict"
    )


REAL_RENUMBERING = "draft-wilde-xml-patch"


def test_a_real_ietf_renumbering_is_a_group_answered_once_from_the_cli(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, cli: Callable[..., _Run]
) -> None:
    with Workspace(tmp_path / "w.sqlite") as workspace:
        ingest(workspace, [r for r in catalogue if r.family == REAL_RENUMBERING], STORE)
        items = review_items(workspace, REAL_RENUMBERING)
        groups = [item for item in items if item.is_group]
        assert groups, "the drafts renumber sections between revisions"
        for group in groups:
            assert group.relabel is not None and len(group.pairings) >= 2
            for pairing in group.pairings:
                change = pairing.change
                assert change.capped and pairing_is_uncertain(change)
                assert relabelling(change.before_label, change.after_label) == group.relabel
                assert len({(p.before_id, p.after_id) for p in group.pairings}) == 1
        # Between a group's first and last pairing, every change pairing two labelled passages
        # shifts them the group's way, and each such doubtful one is in the group.
        for group in groups:
            pair = group.pairings[0]
            diff = diff_versions(
                workspace.version(pair.before_id), workspace.version(pair.after_id)
            )
            ids = [c.change_id for c in diff]
            inside = diff[
                ids.index(pair.change.change_id) : ids.index(group.pairings[-1].change.change_id)
                + 1
            ]
            labelled = [
                c
                for c in inside
                if c.before is not None and c.after is not None and c.before_label and c.after_label
            ]
            assert all(
                relabelling(c.before_label, c.after_label) == group.relabel for c in labelled
            )
            assert [c for c in labelled if pairing_is_uncertain(c)] == [
                p.change for p in group.pairings
            ]
        target = max(groups, key=lambda g: len(g.pairings))
    text = cli("list", REAL_RENUMBERING, workspace=tmp_path / "w.sqlite").stdout.decode()
    assert f"  {target.group_id} restructure group of {len(target.pairings)} pairings" in text
    for pairing in target.pairings:
        assert f"    {pairing.change.change_id} {pairing.change.kind} labels " in text
    assert f"{len(items)} review items ({len(groups)} restructure groups of " in text
    listed = json.loads(
        cli("list", REAL_RENUMBERING, "--json", workspace=tmp_path / "w.sqlite").stdout
    )
    assert [i["item"] for i in listed] == ["group" if i.is_group else "pairing" for i in items]

    answered = cli(
        "answer",
        target.group_id or "",
        "confirmed",
        "--actor",
        "alice",
        workspace=tmp_path / "w.sqlite",
    )
    assert answered.returncode == 0, answered.stderr
    lines = answered.stdout.decode().splitlines()
    assert lines[-1] == f"group {target.group_id}: {len(target.pairings)} rows; caution lifted"
    with Workspace(tmp_path / "w.sqlite") as workspace:
        rows = read_verdicts(workspace)
        assert [v.group_id for v in rows] == [target.group_id] * len(target.pairings)
        assert verify_chain(workspace).valid
    log = json.loads(cli("log", "--json", workspace=tmp_path / "w.sqlite").stdout)
    assert {(r["group_id"], r["scheme"], r["orphaned"]) for r in log} == {
        (target.group_id, 2, None)
    }
    unknown = cli(
        "answer",
        "grp-00000000000000000000",
        "confirmed",
        "--actor",
        "a",
        workspace=tmp_path / "w.sqlite",
    )
    assert unknown.returncode == 2
    assert unknown.stderr.decode() == (
        "workbench: error: grp-00000000000000000000: no restructure group with this id in the "
        f"diffs of any family held in {tmp_path / 'w.sqlite'}; see 'workbench review list'\n"
    )


# ---------------------------------------------------------------------------------------------
# A log written before groups existed, and orphaned verdicts

_SCHEME_1_TABLE = """CREATE TABLE verdicts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, scheme INTEGER NOT NULL, change_id TEXT NOT NULL,
    before_id TEXT NOT NULL, before_start INTEGER NOT NULL, before_end INTEGER NOT NULL,
    after_id TEXT NOT NULL, after_start INTEGER NOT NULL, after_end INTEGER NOT NULL,
    answer TEXT NOT NULL, reason TEXT, actor TEXT NOT NULL, answered_at TEXT NOT NULL,
    similarity REAL NOT NULL, alignment_confidence REAL NOT NULL, capped INTEGER NOT NULL,
    undoes INTEGER, prev_hash TEXT NOT NULL, digest TEXT NOT NULL)"""


def _write_scheme_1_log(path: Path, changes: list[Change]) -> None:
    """The log as the workbench wrote it before groups: no group_id column, scheme 1 digests."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(_SCHEME_1_TABLE)
    prev = GENESIS
    for seq, change in enumerate(changes, start=1):
        assert change.before is not None and change.after is not None
        payload = {
            "seq": seq,
            "scheme": 1,
            "change_id": change.change_id,
            "before": change.before.as_json(),
            "after": change.after.as_json(),
            "answer": "confirmed",
            "reason": None,
            "actor": "old",
            "answered_at": "2024-01-01T00:00:00.000000+00:00",
            "similarity": change.similarity,
            "alignment_confidence": change.alignment_confidence,
            "capped": change.capped,
            "undoes": None,
            "prev_hash": prev,
        }
        canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        digest = hashlib.sha256(canonical.encode()).hexdigest()
        conn.execute(
            "INSERT INTO verdicts VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, 'confirmed', NULL, 'old', "
            "?, ?, ?, ?, NULL, ?, ?)",
            (
                *(seq, change.change_id),
                *(change.before.version_id, change.before.char_start, change.before.char_end),
                *(change.after.version_id, change.after.char_start, change.after.char_end),
                *(payload["answered_at"], change.similarity, change.alignment_confidence),
                *(int(change.capped), prev, digest),
            ),
        )
        prev = digest
    conn.close()


def test_a_log_written_before_groups_still_verifies_and_takes_new_rows(
    held: Workspace, pairings: tuple[Pairing, ...]
) -> None:
    old = [pairings[0].change, pairings[1].change]
    _write_scheme_1_log(held.path, old)
    report = verify_chain(held)
    assert (report.valid, report.rows) == (True, 2)
    assert [(v.scheme, v.group_id) for v in read_verdicts(held)] == [(1, None), (1, None)]
    new = append_verdict(held, pairings[2].change, "disputed", actor="alice")
    assert (new.seq, new.scheme, new.prev_hash) == (3, 2, read_verdicts(held)[1].digest)
    assert verify_chain(held).valid and verify_chain(held).rows == 3
    # Scheme 1's digest does not cover group_id, so one written there afterwards is an alteration.
    conn = sqlite3.connect(held.path, isolation_level=None)
    conn.execute("DROP TRIGGER verdicts_append_only_update")
    conn.execute("UPDATE verdicts SET group_id = 'grp-00000000000000000000' WHERE seq = 2")
    conn.close()
    report = verify_chain(held)
    assert (report.problem, report.seq) == ("altered", 2)
    assert report.detail == (
        "group_id 'grp-00000000000000000000' on a scheme 1 row, which cannot carry one"
    )


def _stale(change: Change, how: str) -> Change:
    assert change.before is not None and change.after is not None
    if how == "change_gone":  # an id no position of the pair's diff produces
        return dataclasses.replace(
            change,
            change_id=diff_change_id(change.before.version_id, change.after.version_id, 10**6),
        )
    after = dataclasses.replace(change.after, char_start=change.after.char_start + 1)
    return dataclasses.replace(change, after=after)


@pytest.mark.parametrize(
    ("how", "detail"),
    [
        pytest.param("change_gone", "the diff {b} -> {a} has no change {id}", id="id-gone"),
        pytest.param(
            "pairing_changed",
            "{id} now pairs other passages ({kind})",
            id="id-names-other-passages",
        ),
    ],
)
def test_a_verdict_whose_pairing_the_diff_no_longer_produces_is_an_orphan(
    held: Workspace, pairings: tuple[Pairing, ...], how: str, detail: str
) -> None:
    kept = append_verdict(held, pairings[0].change, "confirmed", actor="alice")
    stale = append_verdict(held, _stale(pairings[1].change, how), "disputed", actor="alice")
    (orphan,) = orphaned_verdicts(held)
    assert (orphan.verdict, orphan.reason) == (stale, how)
    assert orphan.detail == detail.format(
        b=pairings[1].before_id,
        a=pairings[1].after_id,
        id=stale.change_id,
        kind=pairings[1].change.kind,
    )
    assert read_verdicts(held) == (kept, stale)  # kept, never dropped
    assert verify_chain(held).valid


def test_a_version_held_between_two_answered_ones_orphans_the_verdict_and_the_log_says_so(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, cli: Callable[..., _Run]
) -> None:
    path = tmp_path / "w.sqlite"
    rows = [r for r in catalogue if r.family == BIG_FAMILY]
    rows.sort(key=lambda r: r.version_order)
    with Workspace(path) as workspace:
        ingest(workspace, [rows[0], rows[2]], STORE)  # the middle revision is not held yet
        first = doubtful_pairings(workspace, BIG_FAMILY)[0]
        verdict = append_verdict(workspace, first.change, "confirmed", actor="alice")
        assert orphaned_verdicts(workspace) == ()
        ingest(workspace, [rows[1]], STORE)
        (orphan,) = orphaned_verdicts(workspace)
        assert (orphan.verdict, orphan.reason) == (verdict, "pair_not_consecutive")
        assert orphan.detail == (
            f"{first.before_id} -> {first.after_id} are not consecutive held versions of one family"
        )
        # The answer is not re-attached to any change the new diffs produce.
        assert all(
            pairing_caution_stands(p.change, (verdict,))
            for p in doubtful_pairings(workspace, BIG_FAMILY)
        )
    text = cli("log", workspace=path).stdout.decode()
    assert f" ORPHANED (pair_not_consecutive: {orphan.detail})\n" in text
    assert text.endswith("1 rows; 1 orphaned\n")
    assert cli("verify-chain", workspace=path).returncode == 0
