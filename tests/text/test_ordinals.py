"""The ordinal rule on the label shapes codes use, and the step rule built on it."""

from __future__ import annotations

import pytest

from workbench.text.ordinals import (
    Ordinal,
    expected_label,
    inconsistent_step,
    numeral_value,
    ordinal,
    run_of,
    step_consistent,
    suffix_rank,
)
from workbench.text.structure import ordinal as structure_ordinal


@pytest.mark.parametrize(
    ("component", "sequence", "expected"),
    [
        pytest.param("1", "numeric", (1, ""), id="digit"),
        pytest.param("137.077", "numeric", (77, ""), id="last-dotted-part"),
        pytest.param("1°", "numeric", (1, ""), id="degree-first"),
        pytest.param("12°", "numeric", (12, ""), id="degree-twelfth"),
        pytest.param("1º", "numeric", (1, ""), id="ordinal-sign"),
        pytest.param("1er", "numeric", (1, ""), id="french-premier"),
        pytest.param("1re", "numeric", (1, ""), id="french-premiere"),
        pytest.param("2ème", "numeric", (2, ""), id="french-deuxieme"),
        pytest.param("3rd", "numeric", (3, ""), id="english-third"),
        pytest.param("11er", "numeric", (11, "er"), id="er-is-an-indicator-after-1-only"),
        pytest.param("5a", "numeric", (5, "a"), id="inserted-letter"),
        pytest.param("(5a)", "numeric", (5, "a"), id="inserted-in-parentheses"),
        pytest.param("5 bis", "numeric", (5, "bis"), id="bis"),
        pytest.param("35 a", "numeric", (35, "a"), id="inserted-letter-apart"),
        pytest.param("Appendix a", "numeric", (1, ""), id="letter-after-a-word-is-no-insertion"),
        pytest.param("5 ter", "numeric", (5, "ter"), id="ter"),
        pytest.param("5 quater", "numeric", (5, "quater"), id="quater"),
        pytest.param("Art. 3 bis", "numeric", (3, "bis"), id="word-number-bis"),
        pytest.param("3-bis", "numeric", (3, "bis"), id="hyphen-bis"),
        pytest.param("L. 111-1", "numeric", (1, ""), id="french-code-article"),
        pytest.param("L111-1", "numeric", (1, ""), id="french-code-article-unspaced"),
        pytest.param("R. 123-4", "numeric", (4, ""), id="french-regulatory-article"),
        pytest.param("L. 111-1-1", "numeric", (1, ""), id="french-code-three-parts"),
        pytest.param("34-1432", "none", (1432, ""), id="dc-section"),
        pytest.param("R1", "numeric", (1, ""), id="requirement"),
        pytest.param("§ 5", "numeric", (5, ""), id="section-sign"),
        pytest.param("Anlage 1", "numeric", (1, ""), id="anlage"),
        pytest.param("aa)", "alpha", (27, ""), id="doubled-letter-after-z"),
        pytest.param("bb)", "alpha", (28, ""), id="doubled-letter-b"),
        pytest.param("aa)", "doubled", (1, ""), id="doubled-level-first"),
        pytest.param("(cc)", "doubled", (3, ""), id="doubled-level-third"),
        pytest.param("aaa)", "doubled", (27, ""), id="doubled-level-past-zz"),
        pytest.param("ab)", "doubled", None, id="two-letters-are-no-doubled-letter"),
        pytest.param("L-12", "numeric", (12, ""), id="letter-prefix-and-hyphen"),
        pytest.param("R-3a", "numeric", (3, "a"), id="letter-prefix-inserted"),
        pytest.param("a)", "numeric", (1, ""), id="letter-close-paren"),
        pytest.param("c)", "numeric", (3, ""), id="letter-without-word-is-no-roman"),
        pytest.param("(a-1)", "alpha", (1, "1"), id="inserted-subsection"),
        pytest.param("Titre IV", "numeric", (4, ""), id="roman-after-word"),
        pytest.param("Titre IV", "arabic", (4, ""), id="roman-after-word-any-sequence"),
        pytest.param("Chapter XII", "numeric", (12, ""), id="chapter-xii"),
        pytest.param("PART I", "numeric", (1, ""), id="part-i"),
        pytest.param("Appendix A", "alpha", (1, ""), id="appendix-alpha"),
        pytest.param("Appendix C", "alpha", (3, ""), id="alpha-sequence-keeps-letters"),
        pytest.param("(iv)", "roman", (4, ""), id="roman-sequence"),
        pytest.param("(viii)", "roman", (8, ""), id="roman-of-four-letters"),
        pytest.param("CAPITULO XVIII", "numeric", (18, ""), id="roman-of-five-letters-after-word"),
        pytest.param("(viii)", "alpha", None, id="four-letters-are-no-alphabet-letter"),
        pytest.param("(i)", "alpha", (9, ""), id="alpha-sequence-i"),
        pytest.param("IV.", "roman", (4, ""), id="trailing-dot"),
        pytest.param("Section", "numeric", None, id="word-alone"),
        pytest.param("—", "numeric", None, id="punctuation"),
        pytest.param("", "numeric", None, id="empty"),
    ],
)
def test_ordinal(component: str, sequence: str, expected: Ordinal | None) -> None:
    assert ordinal(component, sequence) == expected
    assert structure_ordinal(component, sequence) == expected, "structure delegates to the rule"


@pytest.mark.parametrize(
    ("numeral", "value"),
    [
        pytest.param("一", 1, id="cjk-one"),
        pytest.param("十", 10, id="cjk-ten-alone"),
        pytest.param("十二", 12, id="cjk-ten-then-digit"),
        pytest.param("二十三", 23, id="cjk-digit-ten-digit"),
        pytest.param("一百零五", 105, id="cjk-hundred-zero-five"),
        pytest.param("三千二百", 3200, id="cjk-thousands"),
        pytest.param("二〇", 20, id="cjk-positional-zero"),
        pytest.param("Ⅻ", 12, id="roman-numeral-sign"),
        pytest.param("١٢", None, id="arabic-indic-digits-are-digits"),
        pytest.param("½", None, id="a-fraction-is-no-ordinal"),
        pytest.param("十a", None, id="a-letter-is-no-numeral"),
        pytest.param("", None, id="empty"),
    ],
)
def test_numeral_value(numeral: str, value: int | None) -> None:
    """A script's numerals that are no decimal digits, read from Unicode's numeric values."""
    assert numeral_value(numeral) == value
    if value is not None:
        assert ordinal(numeral) == (value, "")


def test_the_cases_that_were_wrong_read_right() -> None:
    assert ordinal("1°") == (1, ""), "was None: every 1° step was inconsistent"
    assert ordinal("5 bis") == (5, "bis"), "was (2, 'is')"
    assert ordinal("Titre IV", "arabic") == (4, ""), "was (9, 'V')"


@pytest.mark.parametrize(
    ("labels", "sequence", "consistent"),
    [
        pytest.param(["1°", "2°", "3°"], "numeric", [True, True, True], id="degrees"),
        pytest.param(["1er", "2", "3"], "numeric", [True, True, True], id="premier"),
        pytest.param(
            ["5", "5 bis", "5 ter", "5 quater", "6"],
            "numeric",
            [False] + [True] * 4,
            id="latin-insertions",
        ),
        pytest.param(
            ["5", "5a", "5b", "6"], "numeric", [False, True, True, True], id="letter-insertions"
        ),
        pytest.param(["5 ter", "5 bis"], "numeric", [False, False], id="bis-after-ter-is-not"),
        pytest.param(
            ["35", "35 a", "35 b", "36"], "numeric", [False, True, True, True], id="letters-apart"
        ),
        pytest.param(
            ["y)", "z)", "aa)", "bb)"], "alpha", [False, True, True, True], id="letters-past-z"
        ),
        pytest.param(
            ["Titre I", "Titre II", "Titre III", "Titre IV"],
            "numeric",
            [True] * 4,
            id="roman-titles",
        ),
        pytest.param(
            ["L. 111-1", "L. 111-2", "L. 111-3"], "numeric", [True] * 3, id="code-articles"
        ),
        pytest.param(["(a)", "(a-1)", "(b)"], "alpha", [True, True, True], id="subsection-insert"),
        pytest.param(["aa)", "bb)", "cc)"], "doubled", [True] * 3, id="doubled-level"),
        pytest.param(["L-12", "L-13", "L-15"], "numeric", [False, True, False], id="prefixed"),
        pytest.param(
            ["9", "9a", "9b", "10"], "numeric", [False, True, True, True], id="tenth-after-inserted"
        ),
        pytest.param(["1", "3"], "numeric", [True, False], id="gap"),
        pytest.param(["1", "Section"], "numeric", [True, False], id="unreadable"),
    ],
)
def test_steps(labels: list[str], sequence: str, consistent: list[bool]) -> None:
    previous = None
    seen = []
    for label in labels:
        current = ordinal(label, sequence)
        seen.append(step_consistent(previous, current))
        previous = current
    assert seen == consistent


@pytest.mark.parametrize(
    ("label", "sequence", "run"),
    [
        pytest.param("L-12", "numeric", "L", id="prefix"),
        pytest.param("R-3", "numeric", "R", id="another-prefix"),
        pytest.param("L. 123-4", "numeric", "L123-", id="dotted-prefix-and-parts"),
        pytest.param("L123-4", "numeric", "L123-", id="fused-prefix-and-parts"),
        pytest.param("(A-1)", "alpha", "", id="a-letters-insertion-is-no-prefix"),
        pytest.param("12", "numeric", "", id="no-prefix"),
        pytest.param("34-1432", "numeric", "", id="parts-without-prefix"),
    ],
)
def test_run_of(label: str, sequence: str, run: str) -> None:
    assert run_of(label, sequence) == run


def test_suffix_order() -> None:
    assert suffix_rank("") < suffix_rank("a") < suffix_rank("a1") < suffix_rank("b")
    assert suffix_rank("10") > suffix_rank("9"), "digits by number, not by character"
    assert suffix_rank(".01") < suffix_rank(".1") < suffix_rank(".11") < suffix_rank(".2")
    assert suffix_rank("bis") < suffix_rank("ter") < suffix_rank("quater") < suffix_rank("decies")


@pytest.mark.parametrize(
    ("previous", "label", "sequence", "expected"),
    [
        pytest.param(None, "(d)", "alpha", "(a)", id="first-letter"),
        pytest.param("(b)", "(d)", "alpha", "(c)", id="next-letter"),
        pytest.param("(a-1)", "(d)", "alpha", "(b)", id="after-an-insertion"),
        pytest.param("(z)", "(ab)", "alpha", "(aa)", id="past-z"),
        pytest.param("34-1432", "34-1440", "none", "34-1433", id="multi-part"),
        pytest.param("5a", "7", "numeric", "6", id="insertion-dropped"),
        pytest.param("5 bis", "7", "numeric", "6", id="latin-dropped"),
        pytest.param("1°", "3°", "numeric", "2°", id="degree-kept"),
        pytest.param("R1", "R5", "numeric", "R2", id="fused-letters-kept"),
        pytest.param("Titre IV", "Titre VII", "numeric", "Titre V", id="roman-after-word"),
        pytest.param("(iv)", "(x)", "roman", "(v)", id="roman-sequence"),
        pytest.param("L. 111-1", "L. 111-3", "numeric", "L. 111-2", id="code-article"),
        pytest.param("bb)", "dd)", "doubled", "cc)", id="doubled-level"),
        pytest.param(None, "bb)", "doubled", "aa)", id="doubled-level-first"),
        pytest.param("L-12", "L-14", "numeric", "L-13", id="prefixed"),
        pytest.param(None, "Section", "numeric", "Section", id="unreadable-stays"),
    ],
)
def test_expected_label(previous: str | None, label: str, sequence: str, expected: str) -> None:
    assert expected_label(previous, label, sequence) == expected


@pytest.mark.parametrize(
    ("previous", "label", "dotted", "expected"),
    [
        pytest.param("6.1", "6.3", True, "6.2", id="dotted-next"),
        pytest.param("5.1", "1.1", True, "5.2", id="dotted-counts-on-the-previous"),
        pytest.param(None, "2.3", True, "2.1", id="dotted-first"),
        pytest.param("(2)", "(4)", False, "(3)", id="plain"),
    ],
)
def test_inconsistent_step_expects_the_next_label(
    previous: str | None, label: str, dotted: bool, expected: str
) -> None:
    step = inconsistent_step(
        char_start=0, level="x", label=label, previous=previous, sequence="numeric", dotted=dotted
    )
    assert (step.previous, step.expected) == (previous, expected)
