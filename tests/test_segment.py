from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.models import Passage
from workbench.segment import leading_number as section_label, segment

lines = st.lists(
    st.one_of(
        st.just(""),
        st.just("   "),
        st.just("\f"),
        st.text(alphabet="ab 12.§\t\u00a0", max_size=12),
        st.from_regex(r"[ ]{0,3}[0-9]{1,3}(\.[0-9]{1,2})?\. [a-z ]{0,8}", fullmatch=True),
    ),
    max_size=25,
)


def _check_partition(text: str, passages: tuple[Passage, ...]) -> None:
    """Exact slices, in order, no overlap, and only white space between and around them."""
    previous_end = 0
    for ordinal, passage in enumerate(passages):
        assert passage.ordinal == ordinal
        assert text[passage.char_start : passage.char_end] == passage.text
        assert passage.char_start >= previous_end, "passages overlap or are out of order"
        assert passage.text and not passage.text[0].isspace() and not passage.text[-1].isspace()
        gap = text[previous_end : passage.char_start]
        assert not gap or gap.isspace(), (
            f"text outside every passage at {previous_end}: {gap[:20]!r}"
        )
        previous_end = passage.char_end
    tail = text[previous_end:]
    assert not tail or tail.isspace(), (
        f"text outside every passage at {previous_end}: {tail[:20]!r}"
    )


@given(lines, st.sampled_from(["\n", "\r\n"]))
def test_passages_partition_the_text(parts: list[str], newline: str) -> None:
    text = newline.join(parts)
    _check_partition(text, segment("v", text))


@pytest.mark.parametrize(
    ("passage", "label"),
    [
        pytest.param("6.1.  Registration", "6.1", id="rfc-heading"),
        pytest.param("386.050. 1. The commission", "386.050", id="statute-section"),
        pytest.param("SEC. 2. FINDINGS.", "2", id="uslm-sec"),
        pytest.param("Section 137.077 is", "137.077", id="section-word"),
        pytest.param("§ 34-306 Inspector", "34-306", id="section-sign"),
        pytest.param("2 property, excluding land", "2", id="gutter-line-number-misread"),
        pytest.param("2024 Annual report", "2024", id="year-misread"),
        pytest.param("(1) women make up", None, id="parenthesised-enumerator"),
        pytest.param("Abstract", None, id="no-number"),
        pytest.param("12abc", None, id="number-glued-to-word"),
    ],
)
def test_section_label(passage: str, label: str | None) -> None:
    assert section_label(passage) == label


def test_numbered_line_starts_a_passage_inside_a_paragraph_only_after_a_sentence() -> None:
    text = "Be it enacted as follows:\n137.077. 1. Beginning January 1,\n2 property, excluding land\n\nNext"
    assert [(p.text.split("\n")[0], p.section_label) for p in segment("v", text)] == [
        ("Be it enacted as follows:", None),
        ("137.077. 1. Beginning January 1,", "137.077"),
        ("Next", None),
    ]


def test_crlf_offsets_index_the_raw_text() -> None:
    text = "1. First\r\nline\r\n\r\n2. Second\r\n"
    passages = segment("v", text)
    assert [(p.char_start, p.char_end, p.text) for p in passages] == [
        (0, 14, "1. First\r\nline"),
        (18, 27, "2. Second"),
    ]


def test_every_real_version_partitions(workspace) -> None:  # type: ignore[no-untyped-def]
    versions = workspace.versions()
    assert len(versions) > 300
    for version in versions:
        passages = segment(version.version_id, version.text)
        assert passages, version.version_id
        _check_partition(version.text, passages)
