"""The eval scorecard: the demo corpus, its independently computed manifest, and the scoring."""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import ROOT
from workbench.changes.diff import diff_versions
from workbench.cli import main
from workbench.errors import EvalManifestError
from workbench.evals.demo import MANIFEST_NAME, DemoCorpus, load_demo
from workbench.evals.scorecard import (
    SCORECARD_JSON,
    SCORECARD_MD,
    _row,
    score_diff,
    scorecard,
    write_scorecard,
)
from workbench.measure import corpus_digest
from workbench.models import CatalogueRow, Change, Span

DEMO = ROOT / "corpus" / "demo"
SCRIPT = ROOT / "scripts" / "demo_manifest.py"
MEASUREMENTS = ROOT / "measurements"
V1, V2, V3 = "tariff-rule/v1.txt", "tariff-rule/v2.txt", "tariff-rule/v3.txt"


@pytest.fixture(scope="module")
def demo() -> DemoCorpus:
    return load_demo(DEMO)


@pytest.fixture
def demo_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "demo"
    shutil.copytree(DEMO, copy)
    return copy


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("demo_manifest", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run_script(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(folder)], capture_output=True, text=True, check=False
    )


# ---------------------------------------------------------------------------------------------
# The oracle: independent, reproducible, and holding the traps the issue lists


def test_the_manifest_script_imports_nothing_from_the_workbench() -> None:
    tree = ast.parse(SCRIPT.read_text(encoding="utf-8"))
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
    assert imported <= {"__future__", "hashlib", "json", "sys", "pathlib", "typing"}


def test_committed_manifest_is_what_the_script_computes(demo_copy: Path) -> None:
    (demo_copy / MANIFEST_NAME).unlink()
    done = _run_script(demo_copy)
    assert done.returncode == 0, done.stderr
    assert (demo_copy / MANIFEST_NAME).read_bytes() == (DEMO / MANIFEST_NAME).read_bytes(), (
        "corpus/demo/manifest.json is stale: run 'python scripts/demo_manifest.py'"
    )


def test_the_script_refuses_a_known_string_that_is_not_unique(demo_copy: Path) -> None:
    v2 = demo_copy / V2
    v2.write_bytes(v2.read_bytes() + b"\n5.4.  Cost Recovery\n")
    done = _run_script(demo_copy)
    assert done.returncode == 2
    assert done.stderr == (
        "demo_manifest: error: tariff-rule/v2.txt: '5.4.  Cost Recovery' occurs 2 times; "
        "expected exactly once\n"
    )


def test_demo_holds_the_traps(demo: DemoCorpus) -> None:
    """Facts read from the three files by hand, checked on the bytes."""
    for text in (v.text for v in demo.versions.values()):
        assert "\u00ad" in text  # a soft hyphen ("up\u00adgrades")
        assert "\ufb01" in text  # a ligature ("\ufb01ling")
        assert "regu-\n   lation" in text  # a hyphenated line break
        assert text.count("Nothing in this section relieves the utility or a customer") == 3
    assert "6.  Cost Recovery" in demo.versions[V1].text
    assert "5.4.  Cost Recovery" in demo.versions[V2].text
    assert "$1,250" in demo.versions[V1].text and "$1,750" in demo.versions[V2].text
    assert "unless the customer" in demo.versions[V2].text
    assert "unless the customer" not in demo.versions[V3].text


@pytest.mark.parametrize(
    ("edit_id", "span_before", "span_after", "caution"),
    [
        pytest.param("renumber-6-to-5.4", "6", "5.4", True, id="renumbered"),
        pytest.param("ripple-10-to-9", "10", "9", True, id="ripple"),
        pytest.param("cost-floor-numeral", "2", "7", False, id="numeral"),
        pytest.param(
            "qualifier-removed",
            ", unless the customer has an unpaid balance for service\n   at any premises",
            "",
            False,
            id="qualifier",
        ),
    ],
)
def test_manifest_spans_are_the_edits_read_by_hand(
    demo: DemoCorpus, edit_id: str, span_before: str, span_after: str, caution: bool
) -> None:
    (edit,) = [e for e in demo.manifest["edits"] if e["id"] == edit_id]
    (change,) = edit["changes"]
    assert (change["span_before"]["text"], change["span_after"]["text"]) == (
        span_before,
        span_after,
    )
    assert change["caution"] is caution


def test_demo_digest_is_the_corpus_digest_rule(demo: DemoCorpus) -> None:
    rows = [
        CatalogueRow.of(v.version_id, {"sha256": v.artefact_sha256}) for v in demo.versions.values()
    ]
    assert demo.digest == corpus_digest(rows) == demo.manifest["corpus_digest"]


@given(st.text(alphabet="ab \n", max_size=12), st.text(alphabet="ab \n", max_size=12))
def test_the_scripts_trim_rule_rebuilds_the_after_text(a: str, b: str) -> None:
    s0, s1, t0, t1 = _script().trimmed(a, b)
    assert s0 == t0 and len(a) - s1 == len(b) - t1
    assert a[:s0] + b[t0:t1] + a[s1:] == b


# ---------------------------------------------------------------------------------------------
# Reading the manifest back: every mismatch with the bytes is a typed, one-line error


def _edit_manifest(folder: Path, change: Callable[[dict[str, Any]], None]) -> None:
    path = folder / MANIFEST_NAME
    data = json.loads(path.read_bytes())
    change(data)
    path.write_bytes(json.dumps(data).encode("utf-8"))


def _set(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        target: Any = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _delete(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda data: data.pop(key)


@pytest.mark.parametrize(
    ("hostile", "message"),
    [
        pytest.param(
            _set(["edits", 5, "changes", 0, "span_before", "text"], "3"),
            "{m}: edits[5].changes[0].span_before: tariff-rule/v1.txt holds '2' at [2150, 2151), "
            "manifest says '3'",
            id="span-text",
        ),
        pytest.param(
            _set(["edits", 0, "changes", 0, "after", "end"], 10**6),
            "{m}: edits[0].changes[0].after: [2106, 1000000) is not a span of tariff-rule/v2.txt "
            "(length 3344)",
            id="span-out-of-range",
        ),
        pytest.param(
            _set(["quotes", 0, "start"], "2143"),
            "{m}: quotes[0].start: expected int, got str",
            id="mistyped",
        ),
        pytest.param(_delete("non_edits"), "{m}.non_edits: missing", id="missing-field"),
        pytest.param(
            _set(["corpus_digest"], "0" * 64),
            "{m}: corpus_digest {zeros} does not match the files' digest {digest}",
            id="digest",
        ),
        pytest.param(
            _set(["files", 1, "sha256"], "f" * 64),
            "{d}/tariff-rule/v2.txt: sha256 {v2sha} does not match the manifest's {fs}; "
            "re-run scripts/demo_manifest.py",
            id="file-sha256",
        ),
        pytest.param(
            _set(["boilerplate", "occurrences", V3, 2], [1, 2, 3]),
            "{m}: boilerplate.occurrences.tariff-rule/v3.txt[2]: expected [start, end]",
            id="occurrence-shape",
        ),
    ],
)
def test_a_manifest_that_disagrees_with_the_bytes_is_refused(
    demo_copy: Path, demo: DemoCorpus, hostile: Callable[[dict[str, Any]], None], message: str
) -> None:
    _edit_manifest(demo_copy, hostile)
    with pytest.raises(EvalManifestError) as caught:
        load_demo(demo_copy)
    assert str(caught.value) == message.format(
        m=demo_copy / MANIFEST_NAME,
        d=demo_copy,
        zeros="0" * 64,
        digest=demo.digest,
        fs="f" * 64,
        v2sha=demo.versions[V2].artefact_sha256,
    )


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        pytest.param(
            lambda folder: (folder / MANIFEST_NAME).unlink(),
            "{m}: cannot read the manifest (No such file or directory)",
            id="no-manifest",
        ),
        pytest.param(
            lambda folder: (folder / MANIFEST_NAME).write_bytes(b"[1, 2]"),
            "{m}: expected a JSON object",
            id="not-an-object",
        ),
        pytest.param(
            lambda folder: (folder / MANIFEST_NAME).write_bytes(b"{\xff}"),
            "{m}: not UTF-8 JSON ('utf-8' codec can't decode byte 0xff in position 1: "
            "invalid start byte)",
            id="not-utf8",
        ),
        pytest.param(
            lambda folder: (folder / V3).unlink(),
            "{d}/tariff-rule/v3.txt: cannot read a demo file (No such file or directory)",
            id="file-missing",
        ),
    ],
)
def test_a_damaged_demo_folder_is_refused(
    demo_copy: Path, damage: Callable[[Path], object], message: str
) -> None:
    damage(demo_copy)
    with pytest.raises(EvalManifestError) as caught:
        load_demo(demo_copy)
    assert str(caught.value) == message.format(m=demo_copy / MANIFEST_NAME, d=demo_copy)


def test_a_changed_corpus_expires_the_verdicts(demo_copy: Path, demo: DemoCorpus) -> None:
    """One changed byte: the old manifest is refused; a re-derived one has a new digest, so the
    committed scorecard no longer matches it."""
    v3 = demo_copy / V3
    v3.write_bytes(v3.read_bytes().replace(b"   published.", b"   published in the Register."))
    with pytest.raises(EvalManifestError, match="does not match the manifest's"):
        load_demo(demo_copy)
    assert _run_script(demo_copy).returncode == 0
    changed = scorecard(load_demo(demo_copy))
    committed = json.loads((MEASUREMENTS / SCORECARD_JSON).read_bytes())
    assert changed["demo_corpus_digest"] != committed["demo_corpus_digest"] == demo.digest


# ---------------------------------------------------------------------------------------------
# Scoring: the three questions can each fail


def _reported(demo: DemoCorpus, kind: str, label: str | None) -> tuple[Change, ...]:
    changes = diff_versions(demo.versions[V1], demo.versions[V2])
    return tuple(c for c in changes if c.kind == kind and c.after_label == label)


def _shift(span: Span | None, by: int) -> Span | None:
    return None if span is None else dataclasses.replace(span, char_end=span.char_end + by)


@pytest.mark.parametrize(
    ("tweak", "edit_id", "exact", "cautioned"),
    [
        pytest.param(lambda c: c, "renumber-6-to-5.4", True, True, id="as-reported"),
        pytest.param(
            lambda c: dataclasses.replace(c, span_after=_shift(c.span_after, 1)),
            "renumber-6-to-5.4",
            False,
            True,
            id="narrowed-one-too-long",
        ),
        pytest.param(
            lambda c: dataclasses.replace(c, alignment_confidence=0.9, capped=False),
            "renumber-6-to-5.4",
            True,
            False,
            id="caution-lost",
        ),
        pytest.param(
            lambda c: dataclasses.replace(c, kind="removed", after=None),
            "renumber-6-to-5.4",
            False,
            False,
            id="wrong-kind",
        ),
        pytest.param(
            lambda c: dataclasses.replace(
                c,
                before=dataclasses.replace(c.before, char_start=0),
                after=dataclasses.replace(c.after, char_start=0),
            ),
            None,
            False,
            True,
            id="unrelated-passages",
        ),
    ],
)
def test_each_question_can_fail(
    demo: DemoCorpus,
    tweak: Callable[[Change], Change],
    edit_id: str | None,
    exact: bool,
    cautioned: bool,
) -> None:
    (renumbered,) = _reported(demo, "modified", "5.4")
    expected = [
        (str(e["id"]), c)
        for e in demo.manifest["edits"]
        if e["before_version"] == V1
        for c in e["changes"]
    ]
    row = _row(tweak(renumbered), V1, V2, expected)
    assert (row.edit_id, row.exact, row.cautioned) == (edit_id, exact, cautioned)
    assert row.caution_expected is (None if edit_id is None else True)


def test_a_manifest_that_asks_for_caution_scores_the_numeral_wrong(demo_copy: Path) -> None:
    numeral = 5
    _edit_manifest(demo_copy, _set(["edits", numeral, "changes", 0, "caution"], True))
    rows, _, _ = score_diff(load_demo(demo_copy))
    (row,) = [r for r in rows if r.edit_id == "cost-floor-numeral"]
    assert (row.cautioned, row.caution_expected) == (False, True)


def test_every_reported_change_is_scored_and_every_edit_looked_for(demo: DemoCorpus) -> None:
    rows, edits, non_edits = score_diff(demo)
    reported = [
        c
        for before, after in demo.manifest["version_pairs"]
        for c in diff_versions(demo.versions[before], demo.versions[after])
        if c.kind != "unchanged"
    ]
    assert [r.evidence_id for r in rows] == [c.change_id for c in reported]
    assert [r.evidence_id for r in edits] == [e["id"] for e in demo.manifest["edits"]]
    assert [r.evidence_id for r in non_edits] == [e["id"] for e in demo.manifest["non_edits"]]


def test_rates_count_subjects_and_refuse_small_samples(demo: DemoCorpus) -> None:
    card = scorecard(demo)
    figures = card["diff"]["figures"]
    rows, edits, non_edits = score_diff(demo)
    assert figures["changes_matching_an_edit"]["subjects"] == len(rows)
    assert figures["edits_found"]["subjects"] == len(edits) == len(demo.manifest["edits"])
    assert figures["non_edits_left_unchanged"]["rate"] == f"n = {len(non_edits)} subjects; no rate"
    assert all(not isinstance(v, float) for v in _leaves(card))
    assert [item["figure"] for item in card["not_computed"]] == [
        "caution on changes that match no edit",
        "diff and caution precision on the real corpus",
    ]


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [x for v in value.values() for x in _leaves(v)]
    if isinstance(value, list):
        return [x for v in value for x in _leaves(v)]
    return [value]


# ---------------------------------------------------------------------------------------------
# The verifier probes: the expected outcomes come from the manifest


def test_the_verifier_gets_every_probe_right(demo: DemoCorpus) -> None:
    verifier = scorecard(demo)["verifier"]
    assert verifier["wrong"] == []
    kinds = verifier["by_kind"]
    assert kinds["boilerplate, no occurrence named"] == {"probes": 9, "right": 9}
    assert kinds["boilerplate, wrong occurrence named"] == {"probes": 9, "right": 9}
    assert kinds["numeral changed (the other version's cost floor)"] == {"probes": 2, "right": 2}


# ---------------------------------------------------------------------------------------------
# The committed scorecard: bound to the digest, byte for byte


def test_committed_scorecard_is_fresh(demo: DemoCorpus, tmp_path: Path) -> None:
    written = write_scorecard(tmp_path, scorecard(demo))
    stale = [n for n in written if (tmp_path / n).read_bytes() != (MEASUREMENTS / n).read_bytes()]
    assert not stale, f"{', '.join(stale)} stale: run 'workbench eval --out measurements'"


def test_scorecard_is_headed_by_the_demo_digest(demo: DemoCorpus) -> None:
    card = json.loads((MEASUREMENTS / SCORECARD_JSON).read_bytes())
    assert next(iter(card)) == "demo_corpus_digest"
    assert card["demo_corpus_digest"] == demo.digest
    lines = (MEASUREMENTS / SCORECARD_MD).read_text(encoding="utf-8").splitlines()
    assert lines[2] == f"Demo corpus digest: `{demo.digest}`"


def test_cli_eval_writes_the_committed_bytes(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    assert main(["eval", "--demo", str(DEMO), "--out", str(tmp_path), "--json"]) == 0
    out = capsysbinary.readouterr().out
    assert out == (MEASUREMENTS / SCORECARD_JSON).read_bytes()
    assert (tmp_path / SCORECARD_MD).read_bytes() == (MEASUREMENTS / SCORECARD_MD).read_bytes()


def test_cli_eval_bad_demo_folder_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", "--demo", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"workbench: error: {tmp_path / MANIFEST_NAME}: cannot read the manifest "
        "(No such file or directory)\n"
    )
