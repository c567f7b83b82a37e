"""Figures in notes bound to the measurements they quote (C22): a note with a bound figure passes
`check`; the same note after the measurement changes (as a `make measure` on new code or a new
corpus would rewrite it) fails, naming both values; a stale run digest is named; the census
counts percentages in prose that no measurement and no quote grounds. The figure the note writes
is read here from the measurement file with plain `json`, nothing from `workbench`.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS_DIR, ROOT, STORE
from workbench.cli import main
from workbench.errors import NoteError
from workbench.notes.figures import check_figure, parse_figures
from workbench.notes.grade import census
from workbench.notes.ledger import Ledger
from workbench.notes.note import parse_note

MEASURED = "measurements/escalation-rates.json"
POINTER = "/overall/proxy/rate"


def _measured(root: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads((root / MEASURED).read_bytes())
    return value


def _figure_of(root: Path) -> str:
    """The rate as the note writes it: the percentage the measurement's string opens with."""
    match = re.match(r"\d+\.\d+%", _measured(root)["overall"]["proxy"]["rate"])
    assert match is not None
    return match.group()


def _note(folder: Path, figure: str, digest: str, extra: str = "") -> Path:
    body = (ROOT / "notes" / "http-problem-01-formats.md").read_text(encoding="utf-8")
    path = folder / "bound.md"
    path.write_text(
        body
        + "\nThe proxy rule leaves this share of modified pairings cautioned:\n\n"
        + f"> figure: {figure}\n> from: {MEASURED}#{POINTER}\n> digest: {digest}\n"
        + extra,
        encoding="utf-8",
    )
    return path


def _line_of(note: Path, start: str) -> int:
    """The 1-based line of `note` that starts with `start`."""
    lines = note.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.startswith(start))


def _check(note: Path, root: Path, tmp_path: Path) -> int:
    return main([
        "check", str(note), "--root", str(root), "--ledger", str(tmp_path / "ledger.sqlite"),
        "--corpus-dir", str(CORPUS_DIR), "--store", str(STORE),
    ])  # fmt: skip


def test_a_bound_figure_passes_check_and_fails_naming_both_values_when_it_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    figure, digest = _figure_of(ROOT), _measured(ROOT)["corpus_digest"]
    note = _note(tmp_path, figure, digest)
    assert _check(note, ROOT, tmp_path) == 0
    (line,) = [x for x in capsys.readouterr().out.splitlines() if "figure line" in x]
    held = json.dumps(_measured(ROOT)["overall"]["proxy"]["rate"])
    at = _line_of(note, "> figure:")
    assert line == (
        f"  figure line {at} bound: {figure!r} is {MEASURED}#{POINTER} = {held}, digest current"
    )
    # The measurement as a later run writes it: the rate moved by one hundredth of a point.
    later = tmp_path / "later"
    (later / "measurements").mkdir(parents=True)
    measured = _measured(ROOT)
    old = float(figure.rstrip("%"))
    measured["overall"]["proxy"]["rate"] = f"{old + 0.01:.2f}% (changed by a later run)"
    (later / MEASURED).write_text(json.dumps(measured))
    assert _check(note, later, tmp_path) == 1
    (line,) = [x for x in capsys.readouterr().out.splitlines() if "figure line" in x]
    assert line == (
        f"  figure line {at} value_changed: the note writes {figure!r}; {MEASURED}#{POINTER} now "
        f'holds "{old + 0.01:.2f}% (changed by a later run)" ({old + 0.01:.2f} to 2 decimals)'
    )
    # The same value from a run on another corpus: the digest is stale.
    measured["overall"]["proxy"]["rate"] = _measured(ROOT)["overall"]["proxy"]["rate"]
    measured["corpus_digest"] = "0" * 64
    (later / MEASURED).write_text(json.dumps(measured))
    (checked,) = [check_figure(f, later) for f in parse_figures(parse_note(note))]
    assert (checked.outcome, checked.detail) == (
        "digest_stale",
        f"the note was read from the run with digest {digest}; {MEASURED} is now from the run "
        f"with digest {'0' * 64}",
    )


@pytest.mark.parametrize(
    ("lines", "outcome", "detail"),
    [
        pytest.param(
            f"> figure: 14%\n> from: {MEASURED}#/overall/nothing\n> digest: x\n",
            "not_found",
            f"{MEASURED}#/overall/nothing: the file holds no 'nothing' there",
            id="pointer-names-nothing",
        ),
        pytest.param(
            "> figure: 14%\n> from: measurements/none.json#/a\n> digest: x\n",
            "not_found",
            f"measurements/none.json does not exist under {ROOT}",
            id="file-missing",
        ),
    ],
)
def test_a_figure_that_names_nothing_is_not_found(
    tmp_path: Path, lines: str, outcome: str, detail: str
) -> None:
    note = tmp_path / "n.md"
    note.write_text("---\nstatus: draft\norigin: model\n---\n\n" + lines)
    (checked,) = [check_figure(f, ROOT) for f in parse_figures(parse_note(note))]
    assert (checked.outcome, checked.detail) == (outcome, detail)


@pytest.mark.parametrize(
    ("lines", "error"),
    [
        pytest.param("> figure: 8,443\n> from: m.json#/a\n> digest: x\n", "the figure '8,443' holds 2 numbers; a bound figure holds exactly one", id="two-numbers"),
        pytest.param("> figure: 14%\n> digest: x\n", "the figure has no 'from:' line", id="no-from"),
        pytest.param("> figure: 14%\n> from: m.json\n> digest: x\n", "'from: m.json' names no JSON pointer (expected FILE#/key/...)", id="no-pointer"),
        pytest.param("> figure: 14%\n> from: m.json#/a\n> digest: x\n> rounding: two\n", "rounding 'two' is not a number of decimals", id="bad-rounding"),
    ],
)  # fmt: skip
def test_a_malformed_figure_names_its_line(tmp_path: Path, lines: str, error: str) -> None:
    note = tmp_path / "n.md"
    note.write_text("---\nstatus: draft\norigin: model\n---\n\n" + lines)
    with pytest.raises(NoteError) as raised:
        parse_figures(parse_note(note))
    assert str(raised.value) == f"{note}: line 6: {error}"


def test_the_census_counts_percentages_no_measurement_grounds(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    shutil.copytree(ROOT / "notes", folder, ignore=shutil.ignore_patterns("reports"))
    with Ledger(tmp_path / "ledger.sqlite") as ledger:
        before = census(folder, corpus_dir=CORPUS_DIR, ledger=ledger)
        # The example notes' percentages are all in quotes, or quoted by the note's own quotes.
        assert before.unbound_figures == ()
        note = _note(folder, _figure_of(ROOT), "x", "\nAbout 12.87% of pairings are capped.\n")
        after = census(folder, corpus_dir=CORPUS_DIR, ledger=ledger)
    at = _line_of(note, "About 12.87%")
    assert after.unbound_figures == ((note, at, "12.87%"),)
    assert after.lines()[-2:] == (
        "figures (percentages) in fact-carrying notes that name no measurement: 1",
        f"  {note}: line {at}: 12.87%",
    )
