"""A researcher's profile patterns cannot hang a run: the classic catastrophic patterns, as a level
and as furniture, on a line of forty letters, are refused naming file, key and pattern; the same
profile with a benign pattern reads the same line. A profile refused on one family's text leaves
that family unread, the refusal its reason, and `measure` measures the rest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.errors import ProfileError
from workbench.text.choice import UNREAD
from workbench.text.lines import read_lines
from workbench.text.patterns import MATCH_BUDGET_SECONDS, compile_profile_pattern
from workbench.text.profiles import LABEL_END, load_profile

HEAD = 'name = "mine"\ndescription = "a test profile"\n'
LEVEL = "[[levels]]\nname = 'section'\npattern = '{pattern}'\n"
FURNITURE = "furniture = ['{pattern}']\n"
BENIGN_LEVEL = r"(?P<number>\d+)\."
LINE = "a" * 40 + "!"
TEXT = f"1. Scope\n\n{LINE}\n\n2. More\n"


def _profile(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "hostile.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _refusal(path: Path, key: str, pattern: str, line: str = LINE) -> str:
    return (
        f"{path}: {key}: the pattern {pattern!r} took more than {MATCH_BUDGET_SECONDS} s on a "
        f"text of {len(line)} characters; a pattern must not backtrack without bound (a repeated "
        "group that can match the same text in more than one way, such as (a+)+ or (a|aa)+)"
    )


@pytest.mark.parametrize(
    ("profile", "key", "pattern"),
    [
        pytest.param(
            HEAD + LEVEL.format(pattern="(?P<number>(a|aa)+)"),
            "levels[0].pattern",
            r"(?P<label>(?:(?P<number>(a|aa)+)))" + LABEL_END,
            id="level-alternation-repeated",
        ),
        pytest.param(
            HEAD + LEVEL.format(pattern="(?P<number>(a|a)+)"),
            "levels[0].pattern",
            r"(?P<label>(?:(?P<number>(a|a)+)))" + LABEL_END,
            id="level-same-branch-twice",
        ),
        pytest.param(
            HEAD + FURNITURE.format(pattern="(a|aa)+$") + LEVEL.format(pattern=BENIGN_LEVEL),
            "furniture[0]",
            "(a|aa)+$",
            id="furniture-alternation-repeated",
        ),
        pytest.param(
            HEAD + FURNITURE.format(pattern=r"(\w|\w\w)*$") + LEVEL.format(pattern=BENIGN_LEVEL),
            "furniture[0]",
            r"(\w|\w\w)*$",
            id="furniture-word-classes",
        ),
    ],
)
def test_a_catastrophic_pattern_is_refused_naming_file_key_and_pattern(
    tmp_path: Path, profile: str, key: str, pattern: str
) -> None:
    path = _profile(tmp_path, profile)
    with pytest.raises(ProfileError) as refused:
        read_lines(TEXT, load_profile(path))
    assert str(refused.value) == _refusal(path, key, pattern)


@pytest.mark.parametrize(
    ("profile", "labelled"),
    [
        pytest.param(HEAD + LEVEL.format(pattern=BENIGN_LEVEL), 2, id="benign-level"),
        pytest.param(
            HEAD + FURNITURE.format(pattern="a+!") + LEVEL.format(pattern=BENIGN_LEVEL),
            2,
            id="benign-furniture",
        ),
    ],
)
def test_the_benign_control_reads_the_same_line(
    tmp_path: Path, profile: str, labelled: int
) -> None:
    lines = read_lines(TEXT, load_profile(_profile(tmp_path, profile)))
    assert sum(line.label is not None for line in lines) == labelled


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        pytest.param(
            "(?P<number>a",
            "p.toml: levels[0].pattern: bad regular expression '(?P<number>a': "
            "missing ), unterminated subpattern at position 0",
            id="re-syntax-words",
        ),
        pytest.param(
            r"\p{L}+",
            r"p.toml: levels[0].pattern: bad regular expression '\\p{L}+': "
            r"bad escape \p at position 0",
            id="regex-only-syntax-refused",
        ),
    ],
)
def test_the_syntax_is_the_standard_one(pattern: str, message: str) -> None:
    with pytest.raises(ProfileError) as refused:
        compile_profile_pattern(pattern, "p.toml", "levels[0].pattern")
    assert str(refused.value) == message


LONG_LINE = "a" * 5000 + "!"  # `(a+)+b` answers on forty letters; on five thousand it backtracks


def _two_families(root: Path) -> Path:
    """A workspace holding family fam-1 (a line of `LONG_LINE`) and fam-2 (none), under `root`."""
    texts = {"fam-1": f"1. Scope\n\n{LONG_LINE}\n\n2. More\n", "fam-2": "1. Scope\n\n2. More\n"}
    add = ["corpus", "add", "--into", str(root / "mirror"), "--jurisdiction", "xx", "--official"]
    for family, text in texts.items():
        path = root / f"{family}.txt"
        path.write_text(text, encoding="utf-8")
        url = f"https://example.org/{family}.txt"
        assert main([*add, "--family", family, "--url", url, "--issuer", "X", str(path)]) == 0
    assert main(["corpus", "admit", str(root / "mirror"), "--corpus-dir", str(root / "c")]) == 0
    workspace = root / "ws.sqlite"
    paths = ["--corpus-dir", str(root / "c"), "--store", str(root / "mirror")]
    assert main(["ingest", *paths, "--workspace", str(workspace)]) == 0
    return workspace


@pytest.mark.parametrize(
    ("pattern", "applies_to", "chosen"),
    [
        # The engine answers a nested quantifier anchored at a line's start within the budget:
        # the profile named for the family reads it (and labels nothing: unread, no refusal).
        pytest.param("(?P<number>(a+)+b)", "xx/fam-1", ("named", "unread"), id="nested-answers"),
        pytest.param("(?P<number>(a|aa)+)", "xx/fam-1", ("unread", "unread"), id="named-refused"),
        # Named for no family, it is a candidate for each; refused on fam-1, it is passed over.
        pytest.param("(?P<number>(a|aa)+)", "zz", ("automatic", "read"), id="candidate-passed"),
    ],
)
def test_a_profile_refused_on_a_family_leaves_it_unread_and_the_run_goes_on(
    tmp_path: Path, pattern: str, applies_to: str, chosen: tuple[str, str]
) -> None:
    """A researcher's profile, its level pattern catastrophic on fam-1's long line: `measure`
    measures both families; named for fam-1 and refused there, fam-1 is unread, the refusal its
    reason; a candidate refused on fam-1 is passed over."""
    workspace = _two_families(tmp_path)
    folder = tmp_path / "profiles"
    folder.mkdir()
    named = f"applies_to = ['{applies_to}']\n"
    hostile = _profile(folder, HEAD + named + LEVEL.format(pattern=pattern))
    out = tmp_path / "measured"
    command = ["measure", "--out", str(out), "--workspace", str(workspace)]
    assert main([*command, "--profiles", str(folder)]) == 0
    report = json.loads((out / "structure-measurement.json").read_text(encoding="utf-8"))
    used = report["profiles_used"]
    wrapped = rf"(?P<label>(?:{pattern}))" + LABEL_END
    refusal = _refusal(hostile, "levels[0].pattern", wrapped, LONG_LINE)
    family = used["xx/fam-1"]
    note = f"{UNREAD}: {refusal}" if chosen[0] == "unread" else None
    assert (family["chosen"], family["reading"], family.get("note")) == (*chosen, note)
    assert used["xx/fam-2"]["reading"] == "read"
