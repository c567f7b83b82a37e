"""Families whose numbering nothing read are reported unread in every output, never known (C12)."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import STORE
from workbench.cli import main
from workbench.measure.summary import reading_text

# Two real families of Internet-Drafts, every version in the built corpus.
FAMILIES = ("ietf/draft-baker-soap-media-reg", "ietf/draft-cedik-http-warning")
_NUMBER_LIKE = re.compile(r"[\d()\[\]§.:;,\-–—/\\*#|<>=_'\"]")


def _unnumbered(text: str) -> str:
    """A real draft's words with nothing a label could be read from: digits, brackets, section
    signs and punctuation gone, each paragraph one line opening with a lower-case word."""
    paragraphs = []
    for block in re.split(r"\n\s*\n", text):
        words = _NUMBER_LIKE.sub(" ", block).split()
        # A paragraph opens with a word of several letters, never a letter alone (a, I, v).
        words = [w.lower() for w in words if len(w) > 2]
        if len(words) > 3:
            paragraphs.append("so " + " ".join(words))
    return "\n\n".join(paragraphs) + "\n"


def _unnumbered_mirror(root: Path, jurisdiction: str) -> Path:
    """A mirror holding every version of `FAMILIES` under `jurisdiction`, each rewritten by
    `_unnumbered`."""
    for name in FAMILIES:
        for source in sorted((STORE / name).glob("*.txt")):
            data = _unnumbered(source.read_text(encoding="utf-8")).encode("utf-8")
            record = json.loads((STORE / name / (source.name + ".provenance.json")).read_bytes())
            record.update(
                sha256=hashlib.sha256(data).hexdigest(), bytes=len(data), jurisdiction=jurisdiction
            )
            target = root / jurisdiction / name.split("/")[1] / source.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            target.with_name(source.name + ".provenance.json").write_text(
                json.dumps(record), encoding="utf-8"
            )
    return root


@pytest.fixture
def cli(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> Callable[..., subprocess.CompletedProcess[bytes]]:
    """`workbench ...` run in this process: the command's own code, without an interpreter
    and the measure chain's imports started again for each of the three runs."""

    def run(*args: str, workspace: Path) -> subprocess.CompletedProcess[bytes]:
        argv = [*args, "--workspace", str(workspace)]
        code = main(argv)
        out, err = capsysbinary.readouterr()
        return subprocess.CompletedProcess(argv, code, out, err)

    return run


@pytest.mark.parametrize(
    ("jurisdiction", "chosen"),
    [
        pytest.param("ietf", "named", id="its-own-profile-reads-nothing"),
        pytest.param("held-out", "unread", id="no-profile-names-it"),
    ],
)
def test_a_corpus_nothing_numbers_is_unread_in_every_output(
    tmp_path: Path,
    jurisdiction: str,
    chosen: str,
    cli: Callable[..., subprocess.CompletedProcess[bytes]],
) -> None:
    mirror = _unnumbered_mirror(tmp_path / "mirror", jurisdiction)
    out = tmp_path / "out"
    result = cli(
        "measure", "--corpus", str(mirror), "--out", str(out), workspace=tmp_path / "w.sqlite"
    )
    assert result.returncode == 0, result.stderr
    report = json.loads((out / "structure-measurement.json").read_bytes())
    overall = report["numbering_read"]["overall"]
    assert overall == {
        "families_read": 0,
        "families_read_with_inconsistencies": 0,
        "families_unread": len(FAMILIES),
        "inconsistent_steps": overall["inconsistent_steps"],
    }
    used = report["profiles_used"].values()
    assert [(r["chosen"], r["reading"]) for r in used] == [(chosen, "unread")] * len(FAMILIES)
    # Nothing read, so nothing known: every counted pairing is unknown, and for that cause.
    known = report["overall"]["structure_known"]
    assert known["subjects"] > 0 and known["holds"] == 0
    assert report["overall"]["unknown_by_cause"] == {"unread": known["subjects"]}
    said = reading_text(overall)
    assert said.startswith("0 families read, 0 read with inconsistencies (")
    assert said.endswith(f" inconsistent steps), {len(FAMILIES)} unread")
    assert f"numbering: {said}\n".encode() in result.stdout
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert f"- overall: {said} [structure-measurement.json: numbering_read.overall." in readme
    page = (out / "structure-measurement.html").read_text(encoding="utf-8")
    assert f"<strong>Numbering: {said}.</strong>" in page
    # `families --numbering` reads each family as measure did, and counts them alike.
    listed = cli("families", "--numbering", "--json", workspace=tmp_path / "w.sqlite")
    assert listed.returncode == 0, listed.stderr
    assert {
        f"{r['jurisdiction']}/{r['family']}": (r["profile"], r["chosen"], r["reading"])
        for r in json.loads(listed.stdout)
    } == {
        name: (r["name"], r["chosen"], r["reading"]) for name, r in report["profiles_used"].items()
    }
    text = cli("families", "--numbering", workspace=tmp_path / "w.sqlite").stdout
    assert text.decode().splitlines()[-1] == f"numbering: {said}"
