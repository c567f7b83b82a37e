from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CORPUS_DIR, REFUSED_STORE, ROOT, STORE
from workbench.cli import build_parser, main
from workbench.corpus import read_refusals
from workbench.measure import corpus_digests, report_bytes
from workbench.models import CatalogueRow, Version
from workbench.workspace import Workspace

FAMILY = "draft-ietf-appsawg-http-problem"
VERSION = f"ietf/{FAMILY}/{FAMILY}-01.txt"
SAMPLE = "us-dc/dc-code-34-306/34-306@2021-11-09.xml"


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
        "kind",
        "path",
        "profile",
        "page",
        "origin",
    }
    assert all(text[p["char_start"] : p["char_end"]] == p["text"] for p in items)
    assert {p["kind"] for p in items} <= {"front_matter", "heading", "body", "furniture"}
    assert len({p["profile"] for p in items}) == 1
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
    assert {"unchanged", "modified", "added", "removed"} <= kinds
    assert kinds <= {"unchanged", "modified", "moved", "split", "merged", "added", "removed"}
    for pair in pairs:
        after = workspace.version(pair["after"]).text
        for change in pair["changes"]:
            many = "after_spans" if change["kind"] == "split" else "before_spans"
            if change["kind"] in ("split", "merged"):
                pieces = change[many]
                outer = change[many.removesuffix("_spans")]
                assert len(pieces) >= 2 and pieces[0]["char_start"] == outer["char_start"]
                assert pieces[-1]["char_end"] == outer["char_end"]
            else:
                assert "before_spans" not in change and "after_spans" not in change
            if change["kind"] in ("modified", "moved"):
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


def test_admit_of_only_transcriptions_admits_nothing_and_exits_1(tmp_path: Path) -> None:
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
    assert out.endswith(f"no document admitted from {CORPUS_DIR / 'refused'}\n")


def test_admit_exits_0_when_only_transcriptions_are_refused(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Refusals the admission policy requires are reported, not failures."""
    mirror = tmp_path / "mirror"
    shutil.copytree(REFUSED_STORE, mirror)
    for name in (SAMPLE, SAMPLE + ".provenance.json"):
        (mirror / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(STORE / name, mirror / name)
    code = main(["corpus", "admit", str(mirror), "--corpus-dir", str(tmp_path / "corpus")])
    out = capsys.readouterr().out
    assert code == 0
    assert "admitted 1 documents" in out and "refused (19):" in out
    assert out.count(": transcription: ") == 19


def test_admit_exits_1_when_anything_else_is_refused(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mirror = tmp_path / "mirror"
    for name in (SAMPLE, SAMPLE + ".provenance.json"):
        (mirror / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(STORE / name, mirror / name)
    (mirror / "us-dc" / "dc-code-34-306" / "stray.xml").write_bytes(b"<x/>")
    code = main(["corpus", "admit", str(mirror), "--corpus-dir", str(tmp_path / "corpus")])
    out = capsys.readouterr().out
    assert code == 1 and "admitted 1 documents" in out and ": no_provenance: " in out


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


def test_measure_of_a_folder_that_admits_nothing_exits_1(tmp_path: Path) -> None:
    """`measure --corpus DIR` with no document admitted measures nothing and says so."""
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
    assert result.returncode == 1, result.stderr
    out = result.stdout.decode()
    assert out.count(": transcription: ") == 19
    assert out.endswith(f"no document admitted from {CORPUS_DIR / 'refused'}; nothing measured\n")
    assert not (tmp_path / "out").exists() and not (tmp_path / "w.sqlite").exists()


def test_families_and_versions_list_what_is_held(
    workspace: Workspace, held_versions: tuple[Version, ...]
) -> None:
    families = json.loads(_run("families", "--json", workspace=workspace.path).stdout)
    held = held_versions
    assert [(f["jurisdiction"], f["family"]) for f in families] == sorted(
        {(v.jurisdiction, v.family) for v in held}
    )
    assert sum(f["versions"] for f in families) == len(held)
    listed = json.loads(_run("versions", FAMILY, "--json", workspace=workspace.path).stdout)
    family = workspace.versions(FAMILY)
    assert [v["version_id"] for v in listed] == [v.version_id for v in family]
    assert [v["order"] for v in listed] == sorted(v["order"] for v in listed)
    assert [v["text_length"] for v in listed] == [len(v.text) for v in family]
    text = _run("versions", FAMILY, workspace=workspace.path).stdout.decode()
    assert len(text.splitlines()) == len(family) and family[0].version_id in text


def test_versions_of_an_unknown_family_is_one_line_and_exit_2(workspace: Workspace) -> None:
    result = _run("versions", "no-such-family", workspace=workspace.path)
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr.decode().splitlines() == [
        f"workbench: error: no-such-family: no such family in {workspace.path}"
    ]


def test_version_names_the_installed_package(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"workbench {version('workbench')}\n"


def test_verify_names_the_pdf_pages_a_citation_spans(
    workspace: Workspace,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    held_versions: tuple[Version, ...],
) -> None:
    version = next(v for v in held_versions if v.jurisdiction == "us-nerc" and v.pages)
    second, third = version.pages[1], version.pages[2]
    within = version.text[second.char_start : second.char_end].split("\n")[0]
    across = version.text[second.char_end - 20 : third.char_start + 20]
    citations = tmp_path / "c.jsonl"
    citations.write_text(
        "".join(
            json.dumps(
                {
                    "version_id": version.version_id,
                    "char_start": start,
                    "char_end": start + len(quote),
                    "quoted_text": quote,
                }
            )
            + "\n"
            for start, quote in (
                (second.char_start, within),
                (second.char_end - 20, across),
            )
        ),
        encoding="utf-8",
    )
    main(["verify", str(citations), "--json", "--workspace", str(workspace.path)])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["pages"] for r in rows] == [
        [second.page, second.page],
        [second.page, third.page],
    ]
    main(["verify", str(citations), "--workspace", str(workspace.path)])
    text = capsys.readouterr().out
    assert f") p. {second.page}:" in text and f") pp. {second.page}-{third.page}:" in text


def test_a_command_leaves_the_callers_collector_as_it_was(
    workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    """A command run in the caller's process (a notebook, a test) changes no collector setting."""
    import gc

    before = (gc.get_threshold(), gc.isenabled(), gc.get_freeze_count())
    assert main(["families", "--workspace", str(workspace.path)]) == 0
    with pytest.raises(SystemExit):
        main(["families", "--workspace", str(workspace.path), "--no-such-option"])
    assert (gc.get_threshold(), gc.isenabled(), gc.get_freeze_count()) == before
    capsys.readouterr()
