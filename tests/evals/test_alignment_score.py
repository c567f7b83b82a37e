"""The alignment scorecard: the diff's pairings scored against the documents' own identifiers.

The truth comes from `scripts/alignment_truth.py` (which imports nothing from the workbench), run
once per session on the fetched corpus (the `corpus_alignment_truth` fixture); the committed
scorecard must be what this code derives from it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, FreshWorkspace
from workbench.changes.diff import diff_passages
from workbench.cli import main
from workbench.corpus import read_catalogue
from workbench.errors import TruthFileError
from workbench.evals.alignment import (
    ALIGNMENT_TRUTH,
    SCORECARD_JSON,
    PairView,
    alignment_scorecard,
    score_pair,
)
from workbench.evals.cards import scorecard_bytes
from workbench.evals.truth import file_sha256, read_truth
from workbench.measure import corpus_digest
from workbench.models import CatalogueRow, Passage
from workbench.workspace import Workspace

MIN_TRUTH = 50  # a jurisdiction's figures are held to the targets only over this many pairings
MIN_PRECISION, MIN_RECALL = 0.98, 0.95


@pytest.fixture(scope="module")
def card(corpus_alignment_truth: Path, corpus_workspace: Workspace) -> dict[str, object]:
    return alignment_scorecard(
        read_truth(corpus_alignment_truth, ALIGNMENT_TRUTH),
        corpus_workspace,
        corpus_digest=corpus_digest(read_catalogue(ROOT / "corpus")),
        truth_sha256=file_sha256(corpus_alignment_truth),
    )


@pytest.mark.slow
def test_the_committed_scorecard_is_what_the_code_derives(card: dict[str, object]) -> None:
    assert (ROOT / "measurements" / SCORECARD_JSON).read_bytes() == scorecard_bytes(card)


@pytest.mark.slow
def test_pairing_precision_and_recall_meet_their_floors(card: dict[str, object]) -> None:
    held = 0
    for name, entry in card["jurisdictions"].items():  # type: ignore[attr-defined]
        recall, precision = entry["recall"], entry["precision"]
        if recall["subjects"] < MIN_TRUTH:
            continue
        held += 1
        assert recall["holds"] >= MIN_RECALL * recall["subjects"], name
        assert precision["holds"] >= MIN_PRECISION * precision["subjects"], name
    assert held >= 5


@pytest.mark.slow
def test_every_located_restructure_the_truth_knows_is_in_the_review_queue(
    card: dict[str, object],
) -> None:
    located = 0
    for name, entry in card["jurisdictions"].items():  # type: ignore[attr-defined]
        queued = entry["restructures_in_the_review_queue"]
        assert queued["holds"] == queued["subjects"], name
        located += queued["subjects"]
    assert located >= 100


def _passages(version_id: str, texts: list[str]) -> list[Passage]:
    out, at = [], 0
    for ordinal, text in enumerate(texts):
        out.append(
            Passage(
                version_id=version_id,
                ordinal=ordinal,
                char_start=at,
                char_end=at + len(text),
                text=text,
                section_label=None,
            )
        )
        at += len(text) + 2
    return out


def _unit(unit_id: str, before: str, after: str) -> dict[str, object]:
    return {
        "before": {"id": unit_id, "text": before, "path": "", "heading": ""},
        "after": {"id": unit_id, "text": after, "path": "", "heading": ""},
    }


def test_units_are_scored_only_where_each_names_one_passage_on_each_side() -> None:
    before = _passages("a", ["(1) The fee is ten dollars.", "(2) Repealed.", "(3) Repealed."])
    after = _passages("b", ["(1) The fee is twelve dollars.", "(2) Repealed.", "(3) Repealed."])
    pair = {
        "before": "a",
        "after": "b",
        "pairings": [
            _unit("1", "The fee is ten dollars.", "The fee is twelve dollars."),
            _unit("2", "Repealed.", "Repealed."),  # in two passages on each side
            _unit("9", "The fee is ten dollars. (2) Repealed.", "x"),  # crosses a boundary
        ],
    }
    changes = diff_passages("a", "b", before, after)
    rows, pairings, left_out = score_pair("j", pair, PairView.of(before, after, changes))
    assert [(r.evidence_id, r.found) for r in rows] == [("a|b|0", True)]
    assert left_out == {"several_passages": 1, "not_in_one_passage": 1}
    assert all(p.right for p in pairings) and len(pairings) == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(None, "no alignment truth; run", id="missing"),
        pytest.param(b"{", "cannot be read as the truth's JSON", id="not-json"),
        pytest.param(b'{"pairs": 3}', "field pairs: expected a list", id="wrong-shape"),
    ],
)
def test_a_bad_truth_file_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None, message: str
) -> None:
    path = tmp_path / "truth.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(TruthFileError, match=message):
        read_truth(path, ALIGNMENT_TRUTH)
    held = tmp_path / "w.sqlite"  # eval reads an existing workspace (a missing one is refused)
    Workspace(held).close()
    before = held.read_bytes()
    try:
        code = main(["eval", "--truth", str(path), "--workspace", str(held)])
    except SystemExit as exited:  # a missing file is refused while the arguments are parsed
        code = int(exited.code or 0)
    err = capsys.readouterr().err.strip().splitlines()
    said = "argument --truth: " + f"{path}: no such file" if content is None else message
    assert code == 2 and len(err) == 1 and said in err[0]
    assert held.read_bytes() == before  # refused before the workspace is read


# Three families whose truth pairs units (IETF text, Justice Canada and D.C. Council XML).
SCORED_FAMILIES = ("draft-ietf-appsawg-http-problem", "ca-cer-act", "dc-code-34-1432")


def test_the_scorecard_reads_kept_passages_and_scores_what_segmenting_gives(
    catalogue: tuple[CatalogueRow, ...],
    fresh_workspace: FreshWorkspace,
    tmp_path: Path,
    segmented: list[str],
) -> None:
    """On a workspace with no passages kept, the scorecard segments each version once (a version
    in two pairs too) and keeps its passages; scored again, it segments none and is the same."""
    from tests.evals.test_alignment_truth import truth_script

    rows = [row for row in catalogue if row.family in SCORED_FAMILIES]
    held = fresh_workspace(rows, tmp_path / "workspace.sqlite")
    small = tmp_path / "catalogue.jsonl"
    lines = (ROOT / "corpus" / "catalogue.jsonl").read_text(encoding="utf-8").splitlines(True)
    small.write_text(
        "".join(line for line in lines if json.loads(line)["path"] in {r.path for r in rows}),
        encoding="utf-8",
    )
    truth = truth_script.alignment_truth(ROOT / "corpus" / "real", small)
    assert {p["jurisdiction"] for p in truth["pairs"]} == {"ietf", "ca-federal", "us-dc"}

    def score() -> dict[str, object]:
        return alignment_scorecard(truth, held, corpus_digest="c", truth_sha256="t")

    first = score()
    paired = {p[side] for p in truth["pairs"] for side in ("before", "after")}
    assert sorted(segmented) == sorted(paired)
    segmented.clear()
    assert score() == first and segmented == []
    assert all(j["scored_truth_pairings"] > 0 for j in first["jurisdictions"].values())  # type: ignore[attr-defined]
    held.close()
