"""A truth kept between runs (`tests/text/truths.py`) is made again whenever the script, a module
it imports, an input or the set of inputs changes, and only then; and a script that imports
`workbench` is refused a kept truth."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.text.truths import kept_truth, script_sources

# A stand-in truth script: what it writes is its inputs' words, what its helper module says, and
# how many times it has run (its log beside it), so a test sees both the truth and each run.
SCRIPT = """import json, sys
from pathlib import Path
from helper import WORD
args = sys.argv[1:]
out, files = args[args.index("--out") + 1], args[: args.index("--out")]
log = Path(__file__).with_suffix(".log")
log.write_text(log.read_text() + "ran\\n" if log.exists() else "ran\\n")
words = [Path(f).read_text() for f in files]
Path(out).write_text(json.dumps({"words": words, "helper": WORD, "runs": len(log.read_text().split())}))
"""


def _lay_out(folder: Path) -> tuple[Path, list[Path]]:
    (folder / "scripts").mkdir()
    script = folder / "scripts" / "truth.py"
    script.write_text(SCRIPT)
    (folder / "scripts" / "helper.py").write_text('WORD = "one"\n')
    inputs = []
    for name in ("a.xml", "b.xml"):
        inputs.append(folder / name)
        inputs[-1].write_text(name)
    return script, inputs


def _append(path: Path, more: str) -> None:
    path.write_text(path.read_text() + more)


def _nothing(script: Path, inputs: list[Path]) -> list[Path]:
    return inputs


def _script(script: Path, inputs: list[Path]) -> list[Path]:
    _append(script, "# more\n")
    return inputs


def _helper(script: Path, inputs: list[Path]) -> list[Path]:
    _append(script.parent / "helper.py", "# more\n")
    return inputs


def _input(script: Path, inputs: list[Path]) -> list[Path]:
    _append(inputs[1], "!")
    return inputs


def _dropped(script: Path, inputs: list[Path]) -> list[Path]:
    return inputs[:1]


Change = Callable[[Path, list[Path]], list[Path]]
CHANGES: list[tuple[str, Change, bool]] = [
    ("nothing-changed", _nothing, False),
    ("script-changed", _script, True),
    ("imported-module-changed", _helper, True),
    ("input-changed", _input, True),
    ("input-dropped", _dropped, True),
]


@pytest.mark.parametrize(
    ("change", "made_again"), [pytest.param(c, again, id=name) for name, c, again in CHANGES]
)
def test_a_kept_truth_is_made_again_exactly_when_what_it_depends_on_changes(
    tmp_path: Path, change: Change, made_again: bool
) -> None:
    script, inputs = _lay_out(tmp_path)
    kept = tmp_path / "kept"
    first = kept_truth(script, inputs, kept=kept)
    assert first == {"words": ["a.xml", "b.xml"], "helper": "one", "runs": 1}
    inputs = change(script, inputs)
    again = kept_truth(script, inputs, kept=kept)
    assert again["runs"] == (2 if made_again else 1)
    assert again["words"] == [p.read_text() for p in inputs]
    assert len(list(kept.glob("truth-truth-*.json"))) == 1  # the stale one is gone
    assert not list(kept.glob("*.partial"))


def test_a_script_importing_workbench_is_refused(tmp_path: Path) -> None:
    script = tmp_path / "truth.py"
    script.write_text("from workbench.text import xml\n")
    with pytest.raises(AssertionError, match=r"^truth\.py imports workbench\.text: "):
        script_sources(script)


@pytest.mark.parametrize(
    ("script", "sources"),
    [
        pytest.param("footnote_truth.py", ["footnote_truth.py"], id="footnote-truth"),
        pytest.param("table_truth.py", ["footnote_truth.py", "table_truth.py"], id="table-truth"),
    ],
)
def test_the_real_truth_scripts_key_their_own_sources(script: str, sources: list[str]) -> None:
    # table_truth.py writes its report through footnote_truth.py: both are in its key.
    assert [p.name for p in script_sources(ROOT / "scripts" / script)] == sources
