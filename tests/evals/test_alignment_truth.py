"""The pairing truth from the documents' own identifiers (scripts/alignment_truth.py), on real data.

The script is an oracle, so these tests check it by routes of their own: its imports (the AST), its
bytes over two runs, and spot checks against the raw files read with plain regular expressions.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import in_small_workspace
from workbench.models import CatalogueRow

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "alignment_truth.py"
CATALOGUE = ROOT / "corpus" / "catalogue.jsonl"
MIRROR = ROOT / "corpus" / "real"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("alignment_truth", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["alignment_truth"] = module
    spec.loader.exec_module(module)
    return module


truth_script = load_script()


@pytest.fixture(scope="module")
def truth_bytes(corpus_alignment_truth: Path) -> bytes:
    """The whole corpus's truth, written once per session by the script in its own process."""
    return corpus_alignment_truth.read_bytes()


@pytest.fixture(scope="module")
def truth(truth_bytes: bytes) -> dict[str, Any]:
    parsed: dict[str, Any] = json.loads(truth_bytes)
    return parsed


def pair_of(truth: dict[str, Any], before: str, after: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [
        p for p in truth["pairs"] if (p["before"], p["after"]) == (before, after)
    ]
    assert len(found) == 1, (before, after)
    return found[0]


def test_script_imports_nothing_from_workbench() -> None:
    tree = ast.parse(SCRIPT.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "a relative import"
            imported.add((node.module or "").split(".")[0])
    assert "workbench" not in imported
    assert "lxml" in imported  # the XML is parsed by the script itself


@pytest.mark.slow
def test_two_runs_give_the_same_bytes(truth_bytes: bytes, tmp_path: Path) -> None:
    """Two runs, one in this process and one in its own (another hash seed), write the same
    bytes, on the default workspace's families (a pair in each jurisdiction whose rules pair
    units); the whole corpus's truth is, byte for byte, the one `make eval` derived, whose SHA-256
    the committed alignment scorecard names (a second whole-corpus run here would only repeat it)."""
    small = tmp_path / "catalogue.jsonl"
    lines = CATALOGUE.read_text(encoding="utf-8").splitlines(keepends=True)
    small.write_text(
        "".join(line for line in lines if in_small_workspace(json.loads(line)["path"])),
        encoding="utf-8",
    )
    here, alone = tmp_path / "here.json", tmp_path / "alone.json"
    options = ["--mirror", str(MIRROR), "--catalogue", str(small), "--out"]
    assert truth_script.main([*options, str(here)]) == 0
    subprocess.run(
        [sys.executable, str(SCRIPT), *options, str(alone)], check=True, capture_output=True
    )
    assert alone.read_bytes() == here.read_bytes()
    paired = json.loads(here.read_bytes())["jurisdictions"]
    assert all(paired[j]["paired"] > 0 for j in ("ca-federal", "ietf", "us-dc", "us-nerc"))
    scorecard = json.loads((ROOT / "measurements" / "alignment-scorecard.json").read_bytes())
    assert hashlib.sha256(truth_bytes).hexdigest() == scorecard["truth_sha256"]
    assert (
        truth_bytes.decode("utf-8")
        == json.dumps(
            json.loads(truth_bytes), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )
        + "\n"
    )


@pytest.mark.slow
def test_every_input_file_is_recorded_with_its_catalogue_hash(
    truth: dict[str, Any], catalogue: tuple[CatalogueRow, ...]
) -> None:
    used = {p["before"] for p in truth["pairs"]} | {p["after"] for p in truth["pairs"]}
    assert {f["path"] for f in truth["files"]} == used
    for entry in truth["files"]:
        assert hashlib.sha256((MIRROR / entry["path"]).read_bytes()).hexdigest() == entry["sha256"]
    assert set(truth["rules"]) == set(truth["jurisdictions"])


@pytest.mark.slow
def test_counts_add_up_per_jurisdiction(truth: dict[str, Any]) -> None:
    for jurisdiction, total in truth["jurisdictions"].items():
        pairs = [p for p in truth["pairs"] if p["jurisdiction"] == jurisdiction]
        assert total["pairs"] == len(pairs)
        assert total["paired"] == sum(len(p["pairings"]) for p in pairs)
        for reason, count in total["left_out"].items():
            assert count == sum(p["left_out"][reason] for p in pairs)
    for jurisdiction in ("ca-federal", "ietf", "us-dc", "us-federal", "us-nerc"):
        assert truth["jurisdictions"][jurisdiction]["paired"] > 0, jurisdiction


def stripped(path: str) -> str:
    """The raw XML with every tag removed and white space collapsed: the test's own reading."""
    raw = (MIRROR / path).read_bytes().decode("utf-8-sig")
    return " ".join(re.sub(r"<[^>]+>", " ", raw).split())


@pytest.mark.slow
def test_dc_own_text_stands_in_the_raw_xml(truth: dict[str, Any]) -> None:
    before = "us-dc/dc-code-34-1432/34-1432@2021-10-18.xml"
    after = "us-dc/dc-code-34-1432/34-1432@2021-11-19.xml"
    pair = pair_of(truth, before, after)
    raw_before, raw_after = stripped(before), stripped(after)
    assert pair["pairings"]
    for pairing in pair["pairings"]:
        assert pairing["before"]["text"] in raw_before
        assert pairing["after"]["text"] in raw_after
        assert pairing["before"]["id"] == pairing["after"]["id"]
    # The identifier is the num chain: (c)(2) of 34-1432 is there, and its text says 2012.
    units = {p["before"]["id"]: p["before"]["text"] for p in pair["pairings"]}
    assert units["34-1432 › (c) › (2)"].startswith("In 2012,")


def section_2_definitions(path: str) -> set[str]:
    """lims:fid of the Definition elements of Section 2, read from the raw XML by regex."""
    raw = (MIRROR / path).read_bytes().decode("utf-8-sig")
    start = re.search(r"<Label>2</Label><Text>The following definitions apply", raw)
    assert start is not None, path
    end = raw.index("<Section ", start.end())
    return set(re.findall(r'<Definition [^>]*lims:fid="(\d+)"', raw[start.end() : end]))


@pytest.mark.slow
def test_ca_section_2_definitions_keep_their_fid(truth: dict[str, Any]) -> None:
    before = "ca-federal/ca-cer-act/C-15.1@2020-07-15.xml"
    after = "ca-federal/ca-cer-act/C-15.1@2022-06-27.xml"
    fids = section_2_definitions(before)
    assert len(fids) > 20
    assert fids == section_2_definitions(after)
    paired = {p["before"]["id"] for p in pair_of(truth, before, after)["pairings"]}
    assert fids <= paired


@pytest.mark.slow
def test_ietf_pairs_only_under_an_unchanged_title(truth: dict[str, Any]) -> None:
    pairs = [p for p in truth["pairs"] if p["jurisdiction"] == "ietf"]
    assert truth["jurisdictions"]["ietf"]["left_out"]["renumbered"] > 0
    for pair in pairs:
        for pairing in pair["pairings"]:
            assert pairing["before"]["heading"] == pairing["after"]["heading"]
            assert pairing["before"]["id"] == pairing["after"]["id"]


@pytest.mark.slow
def test_nerc_requirements_stand_in_the_pdf_text(truth: dict[str, Any]) -> None:
    import pypdfium2  # type: ignore[import-untyped]

    before = "us-nerc/nerc-cip-002/cip-002-7.pdf"
    after = "us-nerc/nerc-cip-002/cip-002-8.pdf"
    pair = pair_of(truth, before, after)
    ids = [p["before"]["id"] for p in pair["pairings"]]
    assert {"R1", "R1.1", "R2"} <= set(ids)
    pdf = pypdfium2.PdfDocument(MIRROR / after)
    text = " ".join(
        " ".join(pdf[i].get_textpage().get_text_range().split()) for i in range(len(pdf))
    )
    pdf.close()
    r2 = next(p["after"]["text"] for p in pair["pairings"] if p["after"]["id"] == "R2")
    assert ("R2. " + r2) in text


def small_catalogue(tmp_path: Path) -> tuple[Path, Path, list[dict[str, Any]]]:
    """A catalogue of one D.C. family's first two versions and a mirror holding them."""
    rows = [
        json.loads(line)
        for line in CATALOGUE.read_text(encoding="utf-8").splitlines()
        if line.startswith('{"path":"us-dc/dc-code-34-1506.02/')
    ]
    assert len(rows) == 2
    catalogue = tmp_path / "catalogue.jsonl"
    catalogue.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    mirror = tmp_path / "mirror"
    for row in rows:
        (mirror / row["path"]).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(MIRROR / row["path"], mirror / row["path"])
    return catalogue, mirror, rows


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        pytest.param("delete", "missing from the mirror", id="missing-file"),
        pytest.param("alter", "is not the catalogue's", id="hash-mismatch"),
    ],
)
def test_bad_mirror_file_is_refused_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    catalogue: tuple[CatalogueRow, ...],
    damage: str,
    expected: str,
) -> None:
    small, mirror, rows = small_catalogue(tmp_path)
    target = mirror / rows[1]["path"]
    if damage == "delete":
        target.unlink()
    else:
        target.write_bytes(target.read_bytes() + b"\n")
    out = tmp_path / "out.json"
    status = truth_script.main(
        ["--mirror", str(mirror), "--catalogue", str(small), "--out", str(out)]
    )
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1
    assert err.startswith(f"alignment_truth: error: {target}: ")
    assert expected in err
    assert not out.exists()


def test_small_catalogue_gives_its_one_pair(
    tmp_path: Path, catalogue: tuple[CatalogueRow, ...]
) -> None:
    small, mirror, rows = small_catalogue(tmp_path)
    result = truth_script.alignment_truth(mirror, small)
    assert [(p["before"], p["after"]) for p in result["pairs"]] == [
        (rows[0]["path"], rows[1]["path"])
    ]
    assert result["jurisdictions"]["us-dc"]["pairs"] == 1


def test_docs_state_every_rule() -> None:
    page = (ROOT / "docs" / "alignment-truth.md").read_text(encoding="utf-8")
    for jurisdiction in truth_script.RULES:
        assert f"`{jurisdiction}`" in page, jurisdiction
    for reason in truth_script.REASONS:
        assert f"`{reason}`" in page, reason
