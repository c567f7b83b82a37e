from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.cli import build_parser, main
from workbench.corpus import read_refusals
from workbench.measure import corpus_digests, report_bytes
from workbench.models import CatalogueRow
from workbench.store import Workspace

from .conftest import CORPUS_DIR, ROOT, STORE

FAMILY = "draft-ietf-appsawg-http-problem"
VERSION = f"ietf/{FAMILY}/{FAMILY}-01.txt"


def _commands() -> list[list[str]]:
    """Every command path of the parser, e.g. ['corpus', 'admit']."""
    found: list[list[str]] = []

    def walk(parser: object, prefix: list[str]) -> None:
        actions = getattr(parser, "_subparsers", None)
        if actions is None:
            found.append(prefix)
            return
        for action in actions._group_actions:
            for name, sub in action.choices.items():
                walk(sub, [*prefix, name])

    walk(build_parser(), [])
    return found


@pytest.mark.parametrize("command", _commands(), ids=" ".join)
def test_every_command_has_help_and_is_in_the_readme(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([*command, "--help"])
    assert exit_info.value.code == 0
    assert "usage: workbench " + " ".join(command) in capsys.readouterr().out
    assert f"workbench {' '.join(command)}" in (ROOT / "README.md").read_text(encoding="utf-8")


def _run(*args: str, workspace: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args, "--workspace", str(workspace)],
        capture_output=True,
        cwd=ROOT,
        check=False,
    )


def test_text_prints_the_exact_stored_text(workspace: Workspace) -> None:
    result = _run("text", VERSION, workspace=workspace.path)
    assert result.returncode == 0
    assert result.stdout == workspace.version(VERSION).text.encode("utf-8")


def test_passages_json_shape_and_offsets(workspace: Workspace) -> None:
    result = _run("passages", VERSION, "--json", workspace=workspace.path)
    items = json.loads(result.stdout)
    text = workspace.version(VERSION).text
    assert set(items[0]) == {
        "version_id",
        "ordinal",
        "char_start",
        "char_end",
        "text",
        "section_label",
        "page",
    }
    assert all(text[p["char_start"] : p["char_end"]] == p["text"] for p in items)
    assert {p["page"] for p in items} == {None}  # not a PDF: no page map


def test_passages_json_gives_pdf_passages_their_page(workspace: Workspace) -> None:
    pdf = "us-nerc/nerc-cip-012/cip-012-1.pdf"
    result = _run("passages", pdf, "--json", workspace=workspace.path)
    items = json.loads(result.stdout)
    pages = workspace.version(pdf).pages
    assert [p["page"] for p in items] == sorted(p["page"] for p in items)
    assert {p["page"] for p in items} == {span.page for span in pages}
    (r1,) = [p for p in items if p["text"].startswith("B. Requirements and Measures")]
    assert r1["page"] == 2  # read off the rendered page


def test_diff_json_over_a_real_family(workspace: Workspace) -> None:
    result = _run("diff", FAMILY, "--json", workspace=workspace.path)
    assert result.returncode == 0, result.stderr
    pairs = json.loads(result.stdout)
    assert len(pairs) == len(workspace.versions(FAMILY)) - 1
    kinds = {c["kind"] for pair in pairs for c in pair["changes"]}
    assert kinds == {"unchanged", "modified", "added", "removed"}
    for pair in pairs:
        after = workspace.version(pair["after"]).text
        for change in pair["changes"]:
            if change["kind"] == "modified":
                span = change["span_after"]
                outer = change["after"]
                assert (
                    outer["char_start"]
                    <= span["char_start"]
                    <= span["char_end"]
                    <= outer["char_end"]
                )
                assert 0 <= change["alignment_confidence"] <= change["similarity"] <= 1
                assert after[outer["char_start"] : outer["char_end"]]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            ["text", "no/such/v.txt"],
            "workbench: error: no/such/v.txt: no such version in",
            id="unknown-version",
        ),
        pytest.param(
            ["diff", "no-such-family"],
            "workbench: error: no-such-family: no such family in",
            id="unknown-family",
        ),
        pytest.param(
            ["diff", FAMILY, "--from", "x/y/z.txt"],
            "workbench: error: x/y/z.txt: not a version of family",
            id="bad-from",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    workspace: Workspace, args: list[str], message: str
) -> None:
    result = _run(*args, workspace=workspace.path)
    assert result.returncode == 2
    err = result.stderr.decode()
    assert err.startswith(message) and err.count("\n") == 1 and "Traceback" not in err


def test_admit_lists_refusals_and_exits_1(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench",
            "corpus",
            "admit",
            str(CORPUS_DIR / "refused"),
            "--corpus-dir",
            str(tmp_path),
        ],
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 1
    out = result.stdout.decode()
    assert "admitted 0 documents" in out and "refused (19):" in out and ": transcription: " in out


def test_a_missing_catalogue_is_one_line(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "workbench", "corpus", "verify", "--corpus-dir", str(tmp_path)],
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 2
    assert (
        result.stderr.decode()
        == f"workbench: error: {tmp_path}/catalogue.jsonl: no catalogue; run 'workbench corpus admit DIR' first\n"
    )


def test_committed_corpus_digests_are_fresh(catalogue: tuple[CatalogueRow, ...]) -> None:
    """The committed report is re-derived from the catalogue and must match it byte for byte."""
    derived = report_bytes(corpus_digests(catalogue, read_refusals(CORPUS_DIR)))
    assert derived == (ROOT / "measurements" / "corpus-digests.json").read_bytes()
    assert json.loads(derived)["documents"] == sum(
        1 for r in catalogue if (STORE / r.path).is_file()
    )


def test_measure_on_any_mirror_folder(tmp_path: Path) -> None:
    """`measure --corpus DIR` admits, ingests and reports a new folder; refusals are listed, not fatal."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench",
            "measure",
            "--corpus",
            str(CORPUS_DIR / "refused"),
            "--out",
            str(tmp_path / "out"),
            "--workspace",
            str(tmp_path / "w.sqlite"),
        ],
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads((tmp_path / "out" / "corpus-digests.json").read_bytes())
    assert report["documents"] == 0 and report["refused"] == {"transcription": 19}
