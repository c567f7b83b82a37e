"""A researcher's profile patterns cannot hang a run: the classic catastrophic patterns, as a level
and as furniture, on a line of forty letters, are refused naming file, key and pattern; the same
profile with a benign pattern reads the same line."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.errors import ProfileError
from workbench.text.lines import read_lines
from workbench.text.patterns import MATCH_BUDGET_SECONDS, compile_profile_pattern
from workbench.text.profiles import load_profile

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


def _refusal(path: Path, key: str, pattern: str) -> str:
    return (
        f"{path}: {key}: the pattern {pattern!r} took more than {MATCH_BUDGET_SECONDS} s on one "
        f"line of {len(LINE)} characters; a pattern must not backtrack without bound (a repeated "
        "group that can match the same text in more than one way, such as (a+)+ or (a|aa)+)"
    )


@pytest.mark.parametrize(
    ("profile", "key", "pattern"),
    [
        pytest.param(
            HEAD + LEVEL.format(pattern="(?P<number>(a|aa)+)"),
            "levels[0].pattern",
            r"(?P<label>(?:(?P<number>(a|aa)+)))(?=[ \t]|$)",
            id="level-alternation-repeated",
        ),
        pytest.param(
            HEAD + LEVEL.format(pattern="(?P<number>(a|a)+)"),
            "levels[0].pattern",
            r"(?P<label>(?:(?P<number>(a|a)+)))(?=[ \t]|$)",
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
