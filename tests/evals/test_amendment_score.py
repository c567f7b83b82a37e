"""The amendment scorecard: the reader scored against the D.C. Council's own codify: markup.

The truth comes from `scripts/amendment_truth.py` (which imports nothing from the workbench), run
here on the fetched corpus; the committed scorecard must be what this code derives from it, and
its figures must meet the targets the reader is held to.
"""

from __future__ import annotations

import ast
import contextlib
import io
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from tests.amendments.once import dc_report
from tests.conftest import ROOT, STORE, _copy
from workbench.errors import TruthFileError
from workbench.evals.amendments import (
    AMENDMENT_TRUTH,
    SCORECARD_JSON,
    amendment_scorecard,
)
from workbench.evals.cards import scorecard_bytes
from workbench.evals.truth import file_sha256, read_truth
from workbench.measure import corpus_digest
from workbench.models import CatalogueRow
from workbench.workspace import Workspace

SCRIPT = ROOT / "scripts" / "amendment_truth.py"
HELD_TO_TARGETS = ("strike_and_insert", "insert", "repeal", "redesignate")
MIN_RECALL, MIN_PRECISION, MIN_TRUTH = 0.95, 0.98, 10


def _derive(out: Path, catalogue: Path = ROOT / "corpus" / "catalogue.jsonl") -> str:
    """The script's last line of output (what it wrote, or that its key held)."""
    arguments = ["--mirror", str(STORE), "--catalogue", str(catalogue), "--out", str(out)]
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *arguments],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.splitlines()[-1]


@pytest.fixture(scope="module")
def truth_file(catalogue: object, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("truth") / "amendment-truth.json"
    _derive(out)
    return out


@pytest.fixture(scope="module")
def truth(truth_file: Path) -> dict[str, Any]:
    return read_truth(truth_file, AMENDMENT_TRUTH)


@pytest.fixture(scope="module")
def card(
    truth_file: Path,
    truth: dict[str, Any],
    workspace: Workspace,
    catalogue: tuple[CatalogueRow, ...],
) -> dict[str, Any]:
    return amendment_scorecard(
        truth,
        dc_report(workspace, catalogue),
        corpus_digest=corpus_digest(catalogue),
        truth_sha256=file_sha256(truth_file),
    )


def test_the_truth_script_imports_nothing_from_the_workbench() -> None:
    tree = ast.parse(SCRIPT.read_bytes())
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        (node.module or "").split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
    }
    assert "workbench" not in imported
    assert "alignment_truth" in imported  # the other oracle, which imports nothing either


def test_the_truth_is_the_same_bytes_every_run(truth_file: Path, tmp_path: Path) -> None:
    again = tmp_path / "again.json"
    assert _derive(again).startswith(f"wrote {again} in ")
    assert again.read_bytes() == truth_file.read_bytes()


def _blank_line_added(catalogue: Path, out: Path) -> None:
    # The same rows (a blank line is skipped), other bytes: the key is over the catalogue's bytes.
    catalogue.write_bytes(catalogue.read_bytes() + b"\n")


def _truth_edited(catalogue: Path, out: Path) -> None:
    out.write_bytes(out.read_bytes().replace(b"{", b"{ ", 1))


def _key_removed(catalogue: Path, out: Path) -> None:
    out.with_name(out.name + ".key").unlink()


def _nothing(catalogue: Path, out: Path) -> None:
    pass


@pytest.mark.parametrize(
    ("change", "derived"),
    [
        pytest.param(_nothing, False, id="nothing-changed-nothing-derived"),
        pytest.param(_blank_line_added, True, id="catalogue-bytes-changed"),
        pytest.param(_truth_edited, True, id="truth-file-edited"),
        pytest.param(_key_removed, True, id="key-file-missing"),
    ],
)
def test_the_truth_is_derived_again_only_when_its_key_does_not_hold(
    truth_file: Path, tmp_path: Path, change: Callable[[Path, Path], None], derived: bool
) -> None:
    catalogue = tmp_path / "catalogue.jsonl"
    shutil.copyfile(ROOT / "corpus" / "catalogue.jsonl", catalogue)
    out = tmp_path / "amendment-truth.json"
    # What a first run writes (test_the_truth_is_the_same_bytes_every_run), here a copy of the
    # module's: the key is over the catalogue's and the scripts' bytes, not their paths.
    shutil.copyfile(truth_file, out)
    shutil.copyfile(f"{truth_file}.key", f"{out}.key")
    change(catalogue, out)
    line = _derive(out, catalogue)
    if derived:
        assert line.startswith(f"wrote {out} in ")
    else:
        assert line == f"{out}: its key holds (same catalogue, same scripts); nothing derived"
    assert out.read_bytes() == truth_file.read_bytes()


def test_every_codify_instruction_element_is_kept_departed_or_counted(
    truth: dict[str, Any], catalogue: tuple[CatalogueRow, ...]
) -> None:
    """Counted apart from the script, with lxml: every element of the five kinds is accounted for."""
    kinds = {"find-replace", "insert", "repeal", "replace", "redesignate-para"}
    codify = "https://code.dccouncil.us/schemas/codify"
    total = 0
    for row in catalogue:
        if row.family.startswith("dc-law-"):
            root = etree.fromstring((STORE / row.path).read_bytes())
            total += sum(
                1
                for el in root.iter()
                if isinstance(el.tag, str)
                and etree.QName(el).namespace == codify
                and etree.QName(el).localname in kinds
            )
    accounted = (
        len(truth["instructions"]) + len(truth["departures"]) + sum(truth["not_listed"].values())
    )
    assert accounted == total


def test_the_10_percent_departure_is_listed_with_the_readers_outcome(
    card: dict[str, Any],
) -> None:
    (row,) = [d for d in card["departures"] if d["target"] == "§34-1432|(c)|(31)"]
    assert (row["find"], row["reason"], row["outcome"]) == (
        "10% from solar energy",
        "find_not_in_prose",
        "target_missing",
    )


def test_the_committed_scorecard_is_what_the_code_derives(card: dict[str, Any]) -> None:
    assert (ROOT / "measurements" / SCORECARD_JSON).read_bytes() == scorecard_bytes(card)


@pytest.mark.parametrize("kind", HELD_TO_TARGETS)
def test_extraction_meets_its_targets(card: dict[str, Any], kind: str) -> None:
    entry = card["extraction"][kind]
    recall, precision = entry["recall"], entry["precision"]
    assert recall["subjects"] >= MIN_TRUTH and precision["subjects"] >= MIN_TRUTH
    assert recall["holds"] >= MIN_RECALL * recall["subjects"]
    assert precision["holds"] >= MIN_PRECISION * precision["subjects"]
    assert len(entry["misses"]) == recall["subjects"] - recall["holds"]


def test_every_instruction_into_a_held_section_is_applied_and_made_a_change_or_explained(
    card: dict[str, Any],
) -> None:
    rows = card["verification"]["rows"]
    assert rows
    for row in rows:
        done = row["outcome"] in ("applied", "created") and row["made_by_a_change"]
        assert done == (row["explanation"] == ""), row


def test_the_reconciliation_shares_add_up(card: dict[str, Any]) -> None:
    rec = card["reconciliation"]
    assert (
        rec["made_by"]["holds"] + rec["history"]["holds"] + rec["unexplained"]["holds"]
        == (rec["changes"])
    )
    assert "25-499" in rec["acts_named"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(
            None,
            "no amendment truth; run 'python scripts/amendment_truth.py --out {path}'",
            id="missing",
        ),
        pytest.param(b"[1]", "field instructions: expected a list of instructions", id="shape"),
        pytest.param(
            b"{",
            "cannot be read as the truth's JSON: Expecting property name enclosed in double "
            "quotes: line 1 column 2 (char 1)",
            id="not-json",
        ),
    ],
)
def test_a_bad_truth_file_is_refused_in_one_line(
    tmp_path: Path, content: bytes | None, message: str
) -> None:
    path = tmp_path / "truth.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(TruthFileError) as caught:
        read_truth(path, AMENDMENT_TRUTH)
    assert str(caught.value) == f"{path}: " + message.format(path=path)


def _kept_output(out: Path, truth: Path) -> None:
    """The first scorecard written is changed by hand: the kept file no longer has its bytes."""
    card = out / "amendment-scorecard.md"
    card.write_bytes(card.read_bytes() + b"\n")


def _truth_changed(out: Path, truth: Path) -> None:
    truth.write_bytes(truth.read_bytes().replace(b"{", b"{ ", 1))


def _unchanged(out: Path, truth: Path) -> None:
    pass


@dataclass(frozen=True, slots=True, kw_only=True)
class FirstEval:
    """`eval --out` with the truth, run once for the module on a copy of the small workspace."""

    folder: Path  # where each case runs: `w.sqlite`, `truth.json` and `out/`
    pristine: Path  # those three as the first run left them, restored into `folder` by each case
    printed: str  # what the first run wrote to stdout
    written: dict[str, bytes]  # the files it wrote into `out/`, by name


def _eval_argv(folder: Path) -> list[str]:
    truth, out, held = folder / "truth.json", folder / "out", folder / "w.sqlite"
    return ["eval", "--amendment-truth", str(truth), "--out", str(out), "--workspace", str(held)]


def _place(source: Path, target: Path) -> None:
    """`source`'s workspace, truth and scorecards copied into `target` (the workspace by SQLite's
    backup), replacing what `target` held."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    _copy(source / "w.sqlite", target / "w.sqlite")
    shutil.copyfile(source / "truth.json", target / "truth.json")
    shutil.copytree(source / "out", target / "out")


@pytest.fixture(scope="module")
def first_eval(
    workspace: Workspace, truth_file: Path, tmp_path_factory: pytest.TempPathFactory
) -> FirstEval:
    """The cold run each case of `test_eval_scores_again_only_when_its_key_does_not_hold` starts
    from, made once: the scorecards are kept under a key naming the `--out` folder, so every case
    runs in the same folder, restored first from `pristine`."""
    from workbench.cli import main

    root = tmp_path_factory.mktemp("eval")
    folder, pristine = root / "run", root / "pristine"
    folder.mkdir()
    _copy(workspace.path, folder / "w.sqlite")  # the small workspace, copied whole
    shutil.copyfile(truth_file, folder / "truth.json")
    printed = io.StringIO()  # `out` gives a stream with no byte layer the text
    with contextlib.redirect_stdout(printed):
        assert main(_eval_argv(folder)) == 0
    _place(folder, pristine)
    written = {path.name: path.read_bytes() for path in (folder / "out").iterdir()}
    return FirstEval(folder=folder, pristine=pristine, printed=printed.getvalue(), written=written)


@pytest.mark.parametrize(
    ("change", "derived"),
    [
        pytest.param(_unchanged, False, id="nothing-changed-nothing-derived"),
        pytest.param(_kept_output, True, id="a-written-scorecard-edited"),
        pytest.param(_truth_changed, True, id="the-truth-changed"),
    ],
)
def test_eval_scores_again_only_when_its_key_does_not_hold(
    first_eval: FirstEval,
    capsys: pytest.CaptureFixture[str],
    change: Callable[[Path, Path], None],
    derived: bool,
) -> None:
    """`eval --out` with a truth keeps its scorecards under their key (`workbench.derived`): a
    second run with nothing changed says so and prints the kept files, the same bytes."""
    from workbench.cli import main

    folder = first_eval.folder
    _place(first_eval.pristine, folder)
    out, truth = folder / "out", folder / "truth.json"
    change(out, truth)
    capsys.readouterr()
    assert main(_eval_argv(folder)) == 0
    again = capsys.readouterr()
    said = f"{out}: the scorecards' key holds; nothing derived"
    assert (said in again.err.splitlines()) is not derived
    if _truth_changed is not change:
        assert again.out == first_eval.printed
        assert {path.name: path.read_bytes() for path in out.iterdir()} == first_eval.written
