"""A researcher's corpus stays theirs: the README's bring-your-own flow, run as a researcher would.

Real files are copied from the shared corpus with their provenance left behind, as downloads
would come, and given a jurisdiction of the researcher's own with a numbering profile of their
own (sections only, no appendices) beside them. Then, from the repository root, with no
workspace or output folder named: `corpus add --from-csv` (the files' facts in a manifest),
`measure --corpus`, and the other commands on the workspace `measure` made and printed; then a
failed admission of a junk folder. The project's tracked `corpus/` must be byte-identical at the
end, and `diff --doubtful` and `review list` on the new workspace must give the queue `measure`
counted, which the shipped profiles alone would not.
"""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT
from workbench.changes.queue import review_items
from workbench.cli import main
from workbench.corpus import corpus_home
from workbench.defaults import CORPORA_DIR
from workbench.text.profiles import registry
from workbench.workspace import Workspace

SHARED = ROOT / ".." / "shared" / "corpus"
FAMILIES = ("draft-wilde-xml-patch", "draft-wilde-linkset")  # IETF drafts, six versions each
JURISDICTION = "my-standards"
PROFILE = """\
# My drafts: numbered sections at the left margin ("3.1.  Title"); appendices are not read.
name = "my-standards"
description = "numbered sections only"
applies_to = ["my-standards"]
preamble = "front_matter"
furniture = ['.*\\\\[Page \\\\d+\\\\]']

[[levels]]
name = "section"
pattern = '(?P<number>\\\\d+(?:\\\\.\\\\d+)+|\\\\d+(?=\\\\.))\\\\.?'
rank = 0
dotted = true
title = "required"
heading = true
indent_max = 0
"""


def _tracked_corpus() -> dict[str, str]:
    """SHA-256 of the bytes of every file git tracks under corpus/."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "corpus"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    paths = [p for p in listed.decode().split("\0") if p]
    assert "corpus/catalogue.jsonl" in paths and "corpus/refusals.jsonl" in paths
    return {p: hashlib.sha256((ROOT / p).read_bytes()).hexdigest() for p in paths}


@pytest.fixture
def downloads(tmp_path: Path) -> Path:
    """The researcher's files, copied from the shared corpus without their provenance, and a
    manifest of what each is (the facts the provenance held, as a researcher would know them)."""
    folder = tmp_path / "downloads"
    folder.mkdir()
    rows = []
    for family in FAMILIES:
        for document in sorted((SHARED / "ietf" / family).iterdir()):
            if document.name.endswith(".provenance.json"):
                continue
            shutil.copyfile(document, folder / document.name)
            facts = json.loads(document.with_name(document.name + ".provenance.json").read_bytes())
            mirror = facts["mirror"]
            rows.append(
                {
                    "file": document.name,
                    "jurisdiction": JURISDICTION,
                    "family": family,
                    "mirror": f"{mirror['repo']}@{mirror['commit']}:{mirror['path']}",
                    "official": "true",
                    "order": facts["version_order"],
                    "date": facts["filing_date"] or "",
                }
            )
    with (folder / "manifest.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert not list(folder.glob("*.provenance.json"))
    return folder


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The corpus's own folder under the repository's .workbench/, removed afterwards."""
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("WORKBENCH_WORKSPACE", raising=False)
    folder = corpus_home(tmp_path / "mycorpus")
    assert not folder.exists()
    made = not CORPORA_DIR.exists()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
    if made and not any(CORPORA_DIR.iterdir()):
        CORPORA_DIR.rmdir()


def _change_ids(queue: list[dict[str, object]]) -> list[str]:
    """The change id of every pairing of `review list --json`: a group's pairings, or a lone
    pairing's own."""
    ids = []
    for item in queue:
        pairings = item["pairings"] if item["item"] == "group" else [item]
        assert isinstance(pairings, list)
        ids += [str(p["change_id"]) for p in pairings]
    return ids


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_the_bring_your_own_flow_leaves_the_project_as_it_was(
    downloads: Path,
    home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = _tracked_corpus()
    mycorpus = tmp_path / "mycorpus"

    # 1. corpus add: the files in mirror layout with their provenance; the researcher's profile.
    code, out, _ = _run(
        capsys,
        "corpus",
        "add",
        "--from-csv",
        str(downloads / "manifest.csv"),
        "--into",
        str(mycorpus),
    )
    assert code == 0 and out.endswith(f"admit them with 'workbench corpus admit {mycorpus}'\n")
    (mycorpus / "profiles").mkdir()
    (mycorpus / "profiles" / "my-standards.toml").write_text(PROFILE, encoding="utf-8")

    # 2. measure --corpus: everything it makes goes to the corpus's own folder, which it names.
    code, out, err = _run(capsys, "measure", "--corpus", str(mycorpus), "--export", "csv")
    workspace = home / "workspace.sqlite"
    assert (code, err) == (0, "")
    written = len(list((home / "measurements").iterdir()))
    documents = len(list(downloads.glob("draft-*")))
    assert out.startswith(
        f"wrote {written} files into {(home / 'measurements').resolve()} ({documents} documents, "
        f"{len(FAMILIES)} families"
    )
    shown = workspace.resolve()  # absolute: a user pastes it after a `cd`
    assert (
        f"the workspace {shown} remembers this corpus (catalogue and refusals in "
        f"{(ROOT / home).resolve()}): give other commands --workspace {shown}, or\n"
        f"export WORKBENCH_WORKSPACE={shown}\n"
    ) in out
    readme = (home / "measurements" / "README.md").read_text(encoding="utf-8")
    assert f"Written by `workbench measure --corpus {mycorpus}` from the corpus" in readme
    assert "make measure" not in readme and "A test" not in readme
    used = json.loads((home / "measurements" / "structure-measurement.json").read_bytes())
    assert {e["name"] for e in used["profiles_used"].values()} == {"my-standards"}

    # What measure counted: every doubtful pairing, and the review items they make.
    with (home / "measurements" / "table-cautions.csv").open(encoding="utf-8") as handle:
        cautions = list(csv.DictReader(handle))
    doubtful = sorted(row["evidence_id"] for row in cautions if row["cause"])
    items = sum(row["opens_review_item"] == "true" for row in cautions)
    assert doubtful and items

    # 3. The other commands on that workspace read the same catalogue and profiles, unasked.
    monkeypatch.setenv("WORKBENCH_WORKSPACE", str(workspace))  # as the README has it
    code, out, err = _run(capsys, "families", "--json")
    assert (code, err) == (0, "")
    assert [(f["jurisdiction"], f["family"]) for f in json.loads(out)] == [
        (JURISDICTION, family) for family in sorted(FAMILIES)
    ]
    shown: list[str] = []
    for family in FAMILIES:
        code, out, err = _run(capsys, "diff", family, "--doubtful", "--json")
        assert (code, err) == (0, "")
        shown += [c["change_id"] for part in json.loads(out) for c in part["changes"]]
    assert sorted(shown) == doubtful
    code, out, err = _run(capsys, "review", "list", "--json")
    assert (code, err) == (0, "")
    queue = json.loads(out)
    assert len(queue) == items
    assert sorted(_change_ids(queue)) == doubtful

    # The shipped profiles alone give another queue: the profiles were remembered, not guessed.
    with Workspace(workspace) as held:
        shipped = review_items(held, None, profiles=registry())
    assert sorted(p.change.change_id for i in shipped for p in i.pairings) != doubtful

    # A profile folder given on the command line wins, and says so.
    other = tmp_path / "other-profiles"
    other.mkdir()
    code, _, err = _run(capsys, "review", "list", "--json", "--profiles", str(other))
    assert code == 0 and err == (
        f"workbench: --profiles {other}: given on the command line, it wins over the --profiles "
        f"folders {workspace} remembers (none)\n"
    )

    # 4. A failed admission of a junk folder writes nothing anywhere.
    junk = tmp_path / "junk"
    (junk / "misc").mkdir(parents=True)
    (junk / "misc" / "notes.txt").write_text("not a document in mirror layout\n")
    code, out, _ = _run(capsys, "corpus", "admit", str(junk))
    assert code == 1 and out.endswith(f"no document admitted from {junk}\n")
    assert not corpus_home(junk).exists()

    assert _tracked_corpus() == before
    assert not list(mycorpus.rglob("catalogue.jsonl*"))  # nothing written into the mirror either
