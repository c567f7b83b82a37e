"""Bounded integers and nesting: a number of thousands of digits and a file nested thousands deep
are refused in one line naming where and the limit, by the command line and by every reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.bounds import MAX_INTEGER, MAX_NESTING, read_integer, strict_json
from workbench.cite.formats import read_citations
from workbench.cli import main
from workbench.errors import ProfileError
from workbench.text.profiles import load_profile

HUGE = "9" * 5000
HUGE_SHOWN = f"{'9' * 20!r}…{'9' * 10!r} (5000 chars)"


@pytest.mark.parametrize(
    ("text", "least", "read"),
    [
        pytest.param("0", 0, 0, id="zero"),
        pytest.param(str(MAX_INTEGER), 0, MAX_INTEGER, id="largest"),
        pytest.param("-12", -MAX_INTEGER, -12, id="negative-allowed"),
        pytest.param(
            str(MAX_INTEGER + 1),
            0,
            f"'{MAX_INTEGER + 1}': expected a whole number from 0 to {MAX_INTEGER}",
            id="one-past-largest",
        ),
        pytest.param(
            HUGE, 0, f"{HUGE_SHOWN}: expected a whole number from 0 to {MAX_INTEGER}", id="5000"
        ),
        pytest.param("-1", 0, f"'-1': expected a whole number from 0 to {MAX_INTEGER}", id="neg"),
        pytest.param("²", 0, "'²': expected a whole number of at least 0", id="not-ascii-digit"),
        pytest.param("1e3", 0, "'1e3': expected a whole number of at least 0", id="exponent"),
    ],
)
def test_read_integer(text: str, least: int, read: int | str) -> None:
    if isinstance(read, int):
        assert read_integer(text, ValueError, least=least) == read
        return
    with pytest.raises(ValueError) as refused:
        read_integer(text, ValueError, least=least)
    assert str(refused.value) == read


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            "[" * 100_000,
            f"line 1 column {MAX_NESTING + 1}: nested deeper than 64 levels",
            id="arrays",
        ),
        pytest.param(
            '{"a":\n' * 70 + "1" + "}" * 70,
            f"line {MAX_NESTING + 1} column 1: nested deeper than 64 levels",
            id="objects-by-line",
        ),
        pytest.param(
            '{"n": ' + HUGE + "}",
            f"{HUGE_SHOWN}: expected an integer from {-MAX_INTEGER} to {MAX_INTEGER}",
            id="integer-of-5000-digits",
        ),
    ],
)
def test_strict_json_refuses_deep_nesting_and_huge_integers(text: str, message: str) -> None:
    with pytest.raises(ValueError) as refused:
        strict_json(text, ValueError)
    assert str(refused.value) == message


def test_brackets_inside_strings_do_not_count() -> None:
    text = '["' + "[{" * 1000 + '\\"["]'
    assert strict_json(text, ValueError) == ["[{" * 1000 + '"[']


def _past_the_bound(text: str) -> int:
    """The 1-based column of the opening bracket past `MAX_NESTING` on a one-line text whose
    strings hold no bracket and which closes nothing before it."""
    opened = [k for k, c in enumerate(text) if c in "[{"]
    return opened[MAX_NESTING] + 1


def _refined(depth: int) -> bytes:
    selector = '{"type":"TextQuoteSelector","exact":"x"}'
    for _ in range(depth):
        selector = f'{{"type":"TextPositionSelector","start":0,"end":1,"refinedBy":{selector}}}'
    return f'{{"type":"Annotation","target":{{"source":"a","selector":{selector}}}}}'.encode()


@pytest.mark.parametrize(
    ("data", "fmt", "error"),
    [
        pytest.param(
            b"[" * 100_000,
            "workbench",
            f"line 1: line 1 column {MAX_NESTING + 1}: nested deeper than 64 levels",
            id="citation-line-100000-deep",
        ),
        pytest.param(
            b'{"version_id": "a", "char_start": ' + HUGE.encode() + b', "char_end": 3}',
            "workbench",
            f"line 1: {HUGE_SHOWN}: expected an integer from {-MAX_INTEGER} to {MAX_INTEGER}",
            id="offset-of-5000-digits",
        ),
        pytest.param(
            _refined(1000),
            "w3c",
            f"line 1: line 1 column {_past_the_bound(_refined(1000).decode())}: "
            "nested deeper than 64 levels",
            id="refinedby-chain-1000-deep",
        ),
    ],
)
def test_a_hostile_citation_line_is_a_line_error(data: bytes, fmt: str, error: str) -> None:
    (line,) = read_citations(data, fmt)  # type: ignore[arg-type]
    assert line.citation is None and line.error == error


def test_a_profile_nested_50000_deep_is_refused_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.toml"
    third = "x = " + "[" * 50_000 + "]" * 50_000
    path.write_text('name = "deep"\ndescription = "d"\n' + third)
    with pytest.raises(ProfileError) as refused:
        load_profile(path)
    column = _past_the_bound(third)
    assert str(refused.value) == f"{path}: line 3 column {column}: nested deeper than 64 levels"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(
            ["review", "list", "--limit", "99999999999999999999"],
            "workbench review list: error: argument --limit: '99999999999999999999': "
            f"expected a whole number from 0 to {MAX_INTEGER}",
            id="review-limit",
        ),
        pytest.param(
            ["search", "x", "-k", HUGE],
            f"workbench search: error: argument -k: {HUGE_SHOWN}: "
            f"expected an integer from {-MAX_INTEGER} to {MAX_INTEGER}",
            id="search-k",
        ),
        pytest.param(
            ["show", "v", "--span", f"1:{HUGE}", "--out", "x.png"],
            f"workbench show: error: argument --span: {HUGE_SHOWN}: "
            f"expected a whole number from 0 to {MAX_INTEGER}",
            id="show-span",
        ),
    ],
)
def test_a_huge_number_argument_is_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == message + "\n"
