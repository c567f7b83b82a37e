from __future__ import annotations

import re
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.models import Passage
from workbench.text.profiles import shipped_profiles
from workbench.text.segment import leading_number, segment
from workbench.text.structure import XML_MEDIA_TYPES

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


PROFILES = {p.name: p for p in shipped_profiles()}


def _profile(name: str):  # type: ignore[no-untyped-def]
    return PROFILES[name]


@given(lines, st.sampled_from(["\n", "\r\n"]), st.sampled_from(sorted(PROFILES)))
def test_passages_partition_the_text_under_every_profile(
    parts: list[str], newline: str, profile: str
) -> None:
    text = newline.join(parts)
    _check_partition(text, segment("v", text, _profile(profile)))


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
def test_leading_number_proxy(passage: str, label: str | None) -> None:
    assert leading_number(passage) == label


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


@pytest.mark.slow
def test_every_real_version_partitions(corpus_workspace, corpus_passages) -> None:  # type: ignore[no-untyped-def]
    versions = corpus_workspace.versions()
    assert len(versions) > 300
    for version in versions:
        passages = corpus_passages[version.version_id]
        assert passages, version.version_id
        _check_partition(version.text, passages)


# A line that ends mid-sentence: a lower-case letter, a comma, a hyphen or an opening parenthesis,
# except an enumeration's "; and" / "; or", after which the next item begins.
_MID_SENTENCE = re.compile(r"[a-z,(\-]$")
_NEXT_ITEM = re.compile(r";\s+(?:and|or|but)$")


def _blank_line_blocks(text: str) -> list[tuple[int, int]]:
    """The truth the rule did not make: maximal runs of non-blank lines, as (start, end)."""
    blocks, start, end = [], -1, -1
    offset = 0
    for line in text.split("\n"):
        if line.strip():
            if start < 0:
                start = offset + len(line) - len(line.lstrip())
            end = offset + len(line.rstrip())
        elif start >= 0:
            blocks.append((start, end))
            start = -1
        offset += len(line) + 1
    if start >= 0:
        blocks.append((start, end))
    return blocks


@pytest.mark.slow
def test_no_passage_starts_at_a_wrapped_sentence_continuation(
    corpus_workspace, corpus_passages
) -> None:  # type: ignore[no-untyped-def]
    """Inside a blank-line paragraph of a text version, a passage starts only at a line the profile
    reads as a label, a furniture line or a heading (or right after one), and never where the
    previous line ends mid-sentence unless that line is a short heading-like line. In an XML
    version, passages never cut one of the document's element blocks (blank-line blocks)."""
    checked = 0
    for version in corpus_workspace.versions():
        passages = corpus_passages[version.version_id]
        blocks = _blank_line_blocks(version.text)
        block_starts = {start for start, _ in blocks}
        xml = version.media_type in XML_MEDIA_TYPES
        for before, passage in pairwise(passages):
            if passage.char_start in block_starts:
                continue
            checked += 1
            where = f"{version.version_id} at {passage.char_start}: {passage.text[:40]!r}"
            assert not xml, f"an XML element block is cut: {where}"
            special = {"furniture", "heading", "front_matter"}
            assert passage.section_label is not None or {passage.kind, before.kind} & special, where
            if passage.section_label is not None and before.kind not in special:
                previous_line = version.text[: passage.char_start].rstrip().rsplit("\n", 1)[-1]
                short = len(previous_line.strip()) <= 60
                line = previous_line.rstrip()
                assert short or _NEXT_ITEM.search(line) or not _MID_SENTENCE.search(line), where
    assert checked > 1000, "the corpus has many label lines inside paragraphs"


def _kinds(text: str, profile: str) -> list[tuple[str, str | None, str, tuple[str, ...] | None]]:
    return [
        (p.kind, p.section_label, p.text.split("\n")[0], p.path)
        for p in segment("v", text, _profile(profile))
    ]


@pytest.mark.parametrize(
    ("text", "profile", "expected"),
    [
        pytest.param(
            "1. Scope\n\n17\n\nThe rates apply.\n",
            "generic",
            [
                ("heading", "1", "1. Scope", ("1",)),
                ("furniture", None, "17", None),
                ("body", None, "The rates apply.", ("1",)),
            ],
            id="line-of-only-a-number-is-furniture",
        ),
        pytest.param(
            "1. Scope\nThe rate rises in\n2024 and again in 2025.\n",
            "generic",
            [("body", "1", "1. Scope", ("1",))],
            id="year-at-a-line-start-continues-the-sentence",
        ),
        pytest.param(
            "SEC. 1.\nThe Congress finds that—\n(1) women make up half;\n(2) they are less likely.\n",
            "us-federal",
            [
                ("heading", "1", "SEC. 1.", ("1",)),
                ("body", None, "The Congress finds that—", ("1",)),
                ("body", "(1)", "(1) women make up half;", ("1", "(1)")),
                ("body", "(2)", "(2) they are less likely.", ("1", "(2)")),
            ],
            id="heading-with-no-title",
        ),
        pytest.param(
            "---\ntitle: Order\n---\n# § 3 Fees\n\nFees are due.\n\n###\n\nMore.\n",
            "generic",
            [
                ("front_matter", None, "---", None),
                ("heading", "3", "# § 3 Fees", ("3",)),
                ("body", None, "Fees are due.", ("3",)),
                ("heading", None, "###", ("3",)),
                ("body", None, "More.", ("3",)),
            ],
            id="front-matter-and-markdown-headings",
        ),
        pytest.param(
            "R1. Each entity shall:\n1.1 High Impact BES Cyber Systems\n1. EACMS; and\n2. PACS\n",
            "us-nerc",
            [
                ("body", "R1", "R1. Each entity shall:", ("R1",)),
                ("body", "1.1", "1.1 High Impact BES Cyber Systems", ("R1", "1.1")),
            ],
            id="list-inside-a-table-row-is-no-label",
        ),
        pytest.param(
            "| (a) | Fee | 10 |\n| (b) | Tax | 2 |\n",
            "generic",
            [("body", None, "| (a) | Fee | 10 |", None)],
            id="label-inside-a-markdown-table-row",
        ),
    ],
)
def test_kinds_labels_and_paths(
    text: str, profile: str, expected: list[tuple[str, str | None, str, tuple[str, ...] | None]]
) -> None:
    assert _kinds(text, profile) == expected
