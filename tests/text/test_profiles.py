from __future__ import annotations

import hashlib
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from tests.cli.test_cli import _run
from tests.conftest import ROOT
from tests.text.test_induce import _laws
from workbench.errors import ProfileError
from workbench.measure.summary import reading_text
from workbench.models import Version, text_sha256
from workbench.text.choice import choose_profile
from workbench.text.induce import induce_profile
from workbench.text.profiles import (
    SHIPPED_DIR,
    Profile,
    load_profile,
    named_profile,
    parse_profile,
    read_profile_dir,
    registry,
    shipped_profiles,
)
from workbench.text.structure import parse_structure, parse_text, read_text
from workbench.workspace import Workspace

SHARED_CORPUS = ROOT.parent / "shared" / "corpus"
IETF = "ietf/draft-ietf-appsawg-http-problem/draft-ietf-appsawg-http-problem-02.txt"

HEAD = 'name = "mine"\ndescription = "a test profile"\n'
LEVEL = "[[levels]]\nname = 'section'\npattern = '{pattern}'\n"
MINIMAL = HEAD + LEVEL.format(pattern=r"(?P<number>\d+)\.")


def _write(tmp_path: Path, text: str, name: str = "p.toml") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def test_every_shipped_profile_loads_and_records_its_file_hash() -> None:
    profiles = shipped_profiles()
    assert {p.name for p in profiles} >= {"generic", "ietf", "us-nerc", "us-mo"}
    for profile in profiles:
        path = SHIPPED_DIR / profile.origin.removeprefix("shipped:")
        assert profile.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
        assert load_profile(path).levels, profile.name


def test_every_corpus_jurisdiction_has_a_named_profile() -> None:
    if SHARED_CORPUS.is_dir():
        jurisdictions = sorted(p.name for p in SHARED_CORPUS.iterdir() if p.is_dir())
    else:  # the catalogue names every admitted jurisdiction
        rows = (ROOT / "corpus" / "catalogue.jsonl").read_text(encoding="utf-8").splitlines()
        jurisdictions = sorted({json.loads(r)["provenance"]["jurisdiction"] for r in rows if r})
    assert len(jurisdictions) >= 15
    missing = [j for j in jurisdictions if named_profile(shipped_profiles(), j, "") is None]
    assert missing == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            HEAD + "colour = 1\n" + LEVEL.format(pattern="(?P<number>a)"),
            "p.toml: colour: unknown key",
            id="unknown-key",
        ),
        pytest.param(
            MINIMAL + "heading_size = 3\n",
            "p.toml: levels[0].heading_size: unknown key",
            id="unknown-level-key",
        ),
        pytest.param(
            HEAD + LEVEL.format(pattern=r"(?P<number>\d+"),
            "p.toml: levels[0].pattern: bad regular expression",
            id="bad-regex",
        ),
        pytest.param(
            HEAD + LEVEL.format(pattern=r"(\d+)\."),
            "p.toml: levels[0].pattern: expected a named group (?P<number>...)",
            id="no-number-group",
        ),
        pytest.param(
            HEAD + LEVEL.format(pattern=r"(?P<number>\d*)"),
            "p.toml: levels[0].pattern: matches the empty string",
            id="empty-label",
        ),
        pytest.param(
            HEAD + "gutter = 'yes'\n" + LEVEL.format(pattern="(?P<number>a)"),
            "p.toml: gutter: expected a bool, got str",
            id="wrong-type",
        ),
        pytest.param(
            MINIMAL.replace('name = "mine"', 'name = "Mine!"'),
            "p.toml: name: expected lower-case letters",
            id="bad-name",
        ),
        pytest.param(
            HEAD + "applies_to = ['../etc']\n" + LEVEL.format(pattern="(?P<number>a)"),
            "p.toml: applies_to: expected JURISDICTION or JURISDICTION/FAMILY",
            id="bad-applies-to",
        ),
        pytest.param(
            MINIMAL + "rank = true\n",
            "p.toml: levels[0].rank: expected a int, got bool",
            id="bool-is-no-rank",
        ),
        pytest.param(
            HEAD + "levels = []\n", "p.toml: levels: expected at least one level", id="no-levels"
        ),
        pytest.param(
            'description = "x"\n' + LEVEL.format(pattern="(?P<number>a)"),
            "p.toml: name: missing",
            id="missing-name",
        ),
        pytest.param("name = \n", "p.toml: not TOML", id="not-toml"),
        pytest.param(
            MINIMAL + "title = 'maybe'\n",
            "p.toml: levels[0].title: expected one of required, optional, forbidden, heading",
            id="bad-title-rule",
        ),
        pytest.param(
            HEAD + "noise = ['(']\n" + LEVEL.format(pattern=r"(?P<number>\d+)"),
            "p.toml: noise[0]: bad regular expression '('",
            id="bad-noise-pattern",
        ),
        pytest.param(
            MINIMAL + "counts = 'across'\n",
            "p.toml: levels[0].counts: expected one of within, through",
            id="bad-counts-rule",
        ),
    ],
)
def test_bad_profile_files_are_refused_naming_file_and_key(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(ProfileError) as error:
        load_profile(_write(tmp_path, text))
    assert str(error.value).startswith(str(tmp_path / message.split(": ", 1)[0]))
    assert message.split(": ", 1)[1] in str(error.value)


def test_a_profile_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_bytes(MINIMAL.encode("utf-8") + b"# \xff\n")
    with pytest.raises(ProfileError, match=r"p\.toml: not UTF-8 at byte \d+"):
        load_profile(path)


def test_two_profiles_with_one_name_in_a_folder_are_refused(tmp_path: Path) -> None:
    _write(tmp_path, MINIMAL, "a.toml")
    _write(tmp_path, MINIMAL, "b.toml")
    with pytest.raises(ProfileError, match=r"b\.toml: name: 'mine' is also the name of .*a\.toml"):
        read_profile_dir(tmp_path)


def test_a_researchers_profile_replaces_the_shipped_one_and_wins_the_name(tmp_path: Path) -> None:
    text = (
        HEAD.replace('"mine"', '"ietf"')
        + 'applies_to = ["ietf"]\n'
        + LEVEL.format(pattern="(?P<number>a)")
    )
    own = read_profile_dir(tmp_path) if _write(tmp_path, text) else ()
    profiles = registry(own)
    assert [p.origin for p in profiles if p.name == "ietf"] == [str(tmp_path / "p.toml")]
    assert named_profile(profiles, "ietf", "any-family") is own[0]


def test_a_family_entry_wins_over_the_jurisdiction_entry(tmp_path: Path) -> None:
    family = load_profile(
        _write(
            tmp_path,
            HEAD.replace('"mine"', '"fam"')
            + 'applies_to = ["ietf/f1"]\n'
            + LEVEL.format(pattern="(?P<number>a)"),
        )
    )
    profiles = (*shipped_profiles(), family)  # even listed last
    assert named_profile(profiles, "ietf", "f1") is family
    assert named_profile(profiles, "ietf", "f2") is not family


# ---------------------------------------------------------------------------------------------
# A numbering no shipped profile reads, read by a profile file alone


_CHAPTER = re.compile(r"^(\d+)\.  (\S.*)$", re.MULTILINE)
_ARTICLE = re.compile(r"^(\d+)\.(\d+)\.  (\S.*)$", re.MULTILINE)

FRENCH = """
name = "chapitres"
description = "Chapitre N — Titre, then Art. N-bis style articles"
applies_to = ["test"]
preamble = "front_matter"
furniture = ['.*\\[Page \\d+\\]', '(?:Internet-Draft)\\s.*\\s(?:19|20)\\d\\d']

[[levels]]
name = "chapitre"
words = ["Chapitre"]
pattern = '(?P<number>\\d+)'
rank = 0
heading = true
indent_max = 0

[[levels]]
name = "article"
words = ["Art."]
pattern = '(?P<number>\\d+-\\d+)'
rank = 1
heading = true
indent_max = 0
"""


def _renumbered(version: Version) -> Version:
    """The real text with only its heading marks rewritten: "3.  X" -> "Chapitre 3 — X" and
    "3.2.  X" -> "Art. 3-2  X"."""
    text = _ARTICLE.sub(lambda m: f"Art. {m[1]}-{m[2]}  {m[3]}", version.text)
    text = _CHAPTER.sub(lambda m: f"Chapitre {m[1]} — {m[2]}", text)
    return replace(version, jurisdiction="test", text=text, text_sha256=text_sha256(text))


def _heading_lines(parse_text: str, units: object) -> dict[int, tuple[str, ...]]:
    return {parse_text.count("\n", 0, u.char_start): u.path for u in units}  # type: ignore[attr-defined]


def test_a_new_numbering_is_read_by_a_profile_file_with_no_code_change(
    workspace: Workspace, tmp_path: Path
) -> None:
    original = workspace.version(IETF)
    altered = _renumbered(original)
    assert "Chapitre 3 — " in altered.text and "Art. 3-2  " in altered.text
    truth = parse_structure(original)  # the document's own numbering, read by the ietf profile
    expected = {
        line: tuple(p.replace(".", "-") for p in path)
        for line, path in _heading_lines(original.text, truth.units).items()
        if len(path) <= 2 and len(path[-1].split(".")) <= 2 and path[0][0].isdigit()
    }
    assert len(expected) >= 10
    profile = load_profile(_write(tmp_path, FRENCH))
    parse = parse_structure(altered, profile)
    assert parse.refusal is None and parse.inconsistent == 0
    assert _heading_lines(altered.text, parse.units) == expected
    new_marks = {
        m.start() for m in re.finditer(r"^(?:Chapitre|Art\.) ", altered.text, re.MULTILINE)
    }
    assert len(new_marks) == len(expected)
    for shipped in shipped_profiles():  # no shipped profile reads the new numbering
        read = parse_structure(altered, shipped)
        assert not new_marks & {u.char_start for u in read.units}, shipped.name
    chosen = choose_profile([altered], registry((profile,)))
    assert (chosen.profile, chosen.how) == (profile, "named")


def test_automatic_choice_reads_an_unnamed_family(held_versions: tuple[Version, ...]) -> None:
    family = [
        replace(v, jurisdiction="unnamed") for v in held_versions if v.family == "nerc-cip-003"
    ]
    choice = choose_profile(family)
    assert choice.how in ("automatic", "induced")  # the induced profile is a candidate too
    first = parse_structure(family[0], choice.profile)
    generic = parse_structure(family[0], next(p for p in shipped_profiles() if p.name == "generic"))
    assert (
        first.refusal is None
        and first.checked - first.inconsistent >= generic.checked - generic.inconsistent
    )
    assert choice.consistent > choice.inconsistent


# ---------------------------------------------------------------------------------------------
# The structure command


def test_structure_command_prints_labels_and_paths(workspace: Workspace) -> None:
    result = _run("structure", IETF, "--json", workspace=workspace.path)
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    parse = parse_structure(workspace.version(IETF))
    assert shown["profile"]["name"] == "ietf" and shown["profile"]["chosen"] == "named"
    assert shown["units"] == len(parse.units)
    assert [tuple(line["path"]) for line in shown["labels"]] == [u.path for u in parse.units]


def test_structure_command_with_a_bad_profile_prints_one_line(
    workspace: Workspace, tmp_path: Path
) -> None:
    bad = _write(tmp_path, HEAD + "colour = 1\n" + LEVEL.format(pattern="(?P<number>a)"))
    result = _run("structure", IETF, "--profile", str(bad), workspace=workspace.path)
    assert result.returncode == 2
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and f"{bad}: colour: unknown key" in lines[0]


def test_measure_reads_the_profiles_folder_of_a_corpus(tmp_path: Path) -> None:
    """A researcher's `profiles/*.toml` at the corpus root reads their family, is recorded by
    path and hash, and is not mistaken for a document at admission."""
    corpus = tmp_path / "corpus"
    family = corpus / "us-nerc" / "nerc-cip-005"
    family.mkdir(parents=True)
    # The fetched files and their provenance, in mirror layout (the fetched store is one).
    for source in sorted((ROOT / "corpus" / "real" / "us-nerc" / "nerc-cip-005").iterdir()):
        (family / source.name).write_bytes(source.read_bytes())
    mine = (SHIPPED_DIR / "us-nerc.toml").read_bytes().replace(b'"us-nerc"\n', b'"mine"\n', 1)
    (corpus / "profiles").mkdir()
    (corpus / "profiles" / "mine.toml").write_bytes(mine)
    out = tmp_path / "out"
    result = _run(
        "measure", "--corpus", str(corpus), "--out", str(out), workspace=tmp_path / "w.sqlite"
    )
    assert result.returncode == 0, result.stderr
    assert b"refused" not in result.stdout
    report = json.loads((out / "structure-measurement.json").read_bytes())
    record = report["profiles_used"]["us-nerc/nerc-cip-005"]
    reading = {k: record.pop(k) for k in ("reading", "consistent_steps", "inconsistent_steps")}
    assert record == {
        "name": "mine",
        "sha256": hashlib.sha256(mine).hexdigest(),
        "origin": str(corpus / "profiles" / "mine.toml"),
        "chosen": "named",
        "versions": 2,
    }
    # The researcher's profile reads the family, and the terminal says so as the report does.
    assert reading["reading"] != "unread" and reading["consistent_steps"] > 0
    numbering = report["numbering_read"]["overall"]
    assert numbering["families_unread"] == 0
    assert f"numbering: {reading_text(numbering)}\n".encode() in result.stdout


# ---------------------------------------------------------------------------------------------
# Look-alikes a researcher names: `noise`


def test_a_noise_pattern_keeps_look_alikes_from_being_labels(tmp_path: Path) -> None:
    """An Argentine law's table of years (`1` ... `10`, a bare number a line) reads as labels of
    a bare-number level; naming that shape as `noise` leaves exactly the lines it matches
    unlabelled, every other label where it was, and fewer inconsistent steps."""
    text = _laws("ar", tmp_path)["ar/LEY-22285.md"][-1]
    source = (
        HEAD
        + "markdown_headings = true\n"
        + LEVEL.format(pattern=r"ARTICULO (?P<number>\d+)\.")
        + "only_in_headings = true\n"
        + "[[levels]]\nname = 'item'\npattern = '(?P<number>\\d+)'\nrank = 1\n"
    )
    plain = parse_profile(source.encode(), "plain")
    noise = "noise = ['\\d+$']\n"
    quiet = parse_profile(source.replace("[[levels]]", noise + "[[levels]]", 1).encode(), "q")
    assert [p.pattern for p in quiet.noise] == [r"\d+$"] and not plain.noise

    def labelled(profile: Profile) -> set[int]:
        return {r.label_start for r in read_text(text, profile) if r.label is not None}

    looks_alike = {s for s in labelled(plain) if re.fullmatch(r"\d+", _line(text, s))}
    assert len(looks_alike) >= 10
    assert labelled(quiet) == labelled(plain) - looks_alike
    assert parse_text("v", text, quiet).checked < parse_text("v", text, plain).checked


def _line(text: str, start: int) -> str:
    end = text.find("\n", start)
    return text[start : len(text) if end < 0 else end].strip()


def test_structure_shows_the_evidence_each_induced_level_counted(
    workspace: Workspace, tmp_path: Path
) -> None:
    family = workspace.versions(workspace.version(IETF).family)
    induction = induce_profile([v.text for v in family])
    path = tmp_path / "induced.toml"
    path.write_text(induction.source, encoding="utf-8")
    result = _run("structure", IETF, "--profile", str(path), "--json", workspace=workspace.path)
    assert result.returncode == 0, result.stderr
    shown = {entry["level"]: entry["evidence"] for entry in json.loads(result.stdout)["levels"]}
    assert set(shown) == {level.name for level in induction.levels}
    for level in induction.levels:
        assert f"{level.labels} labels in {level.texts} text(s)" in shown[level.name][0]
    text = _run("structure", IETF, "--profile", str(path), workspace=workspace.path)
    for level in induction.levels:
        assert f"level {level.name}: {shown[level.name][0]}".encode() in text.stdout
