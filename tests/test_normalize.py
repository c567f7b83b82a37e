from __future__ import annotations

import random
import re
from typing import Literal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.normalize import (
    LONG_TEXT,
    Segments,
    StartLookup,
    _array_pass,
    code_points,
    narrow_code_points,
    normalize,
    normalize_arrays,
    normalize_long,
    normalize_short,
    normalized_text,
    normalized_texts,
    raw_span_arrays,
    raw_spans,
    search,
    search_order,
    text_of_code_points,
)
from workbench.segment import segment
from workbench.store import Workspace

# Characters that exercise every fold, and the ones that must not be folded.
TRICKY = "ab -\n\r\t\f\u00a0\u00ad\ufeff\ufb01\ufb03\uff11\uff19²₂ABé-\u2010\u2011\u2013\u2014"
# The array pass must also agree on the rarer white space (U+001C, U+0085, U+2028, U+3000), a
# character outside the Basic Multilingual Plane, U+0000 (the batch separator) and a lone surrogate.
WIDER = TRICKY + "\x1c\x85\u2028\u3000\U0001d538\x00\ud800"
tricky_text = st.text(alphabet=st.sampled_from(list(TRICKY)), max_size=80)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param("regu\u00adlation", "regulation", id="soft-hyphen-removed"),
        pytest.param("\ufeffTitle", "Title", id="bom-removed"),
        pytest.param("\ufb01nal e\ufb03cient", "final efficient", id="ligatures-expanded"),
        pytest.param("\uff12\uff10\uff12\uff14", "2024", id="full-width-digits"),
        pytest.param("a \t\n\n  b", "a b", id="white-space-run"),
        pytest.param("a\u00a0b", "a b", id="no-break-space"),
        pytest.param("a \u00ad b", "a b", id="soft-hyphen-inside-space-run"),
        pytest.param("footnote²", "footnote²", id="superscript-kept"),
        pytest.param("H₂O", "H₂O", id="subscript-kept"),
        pytest.param("Shall NOT", "Shall NOT", id="case-kept"),
        pytest.param("pre\u2013post", "pre\u2013post", id="en-dash-kept"),
        pytest.param("CIP\u2010003\u20109", "CIP-003-9", id="unicode-hyphen-folded"),
        pytest.param("non\u2011road", "non-road", id="non-breaking-hyphen-folded"),
        pytest.param("a \u2014 b", "a \u2014 b", id="em-dash-kept"),
        pytest.param("1\u20122", "1\u20122", id="figure-dash-kept"),
        pytest.param("\u22125", "\u22125", id="minus-kept"),
        pytest.param("regu\u2010\nlation", "regu- lation", id="unicode-hyphen-at-line-end"),
        pytest.param("regu-\n   lation", "regu- lation", id="line-break-hyphen-kept-with-space"),
    ],
)
def test_folds(raw: str, expected: str) -> None:
    assert normalize(raw).text == expected
    assert normalized_text(raw) == expected


@pytest.mark.parametrize(
    ("raw", "hyphens"),
    [
        pytest.param("regu-\nlation", (4,), id="split-word"),
        pytest.param("large-\r\n  load", (5,), id="crlf"),
        pytest.param("pre-\fand post-", (3,), id="form-feed"),
        pytest.param("pre- and", (), id="no-line-break"),
        pytest.param("a \u2010\nb", (2,), id="unicode-hyphen"),
        pytest.param("a\u2011\nb", (1,), id="non-breaking-hyphen"),
        pytest.param("a\u2013\nb", (), id="en-dash-is-not-a-hyphen"),
    ],
)
def test_line_break_hyphens_are_recorded(raw: str, hyphens: tuple[int, ...]) -> None:
    result = normalize(raw)
    assert result.line_break_hyphens == hyphens
    assert all(result.text[i] in "-\u2010" for i in hyphens)


@given(tricky_text)
def test_fast_fold_equals_mapped_fold(raw: str) -> None:
    assert normalized_text(raw) == normalize(raw).text


def _check_map(raw: str, rng: random.Random, samples: int) -> int:
    """Every normalized span that does not split a ligature maps to raw text normalizing to it."""
    result = normalize(raw)
    norm = result.text
    if not norm:
        return 0
    cuts = [
        i
        for i in range(len(norm) + 1)
        if i in (0, len(norm)) or result.raw_start(i) != result.raw_start(i - 1)
    ]
    checked = 0
    for _ in range(samples):
        start, end = sorted(rng.sample(cuts, 2)) if len(cuts) > 1 else (0, 0)
        raw_start, raw_end = result.raw_span(start, end)
        assert normalize(raw[raw_start:raw_end]).text == norm[start:end], (
            start,
            end,
            raw_start,
            raw_end,
        )
        checked += 1
    return checked


@given(tricky_text, st.integers(0, 2**32))
@settings(max_examples=300)
def test_offsets_map_back_exactly(raw: str, seed: int) -> None:
    _check_map(raw, random.Random(seed), 5)


@given(tricky_text)
def test_every_normalized_character_comes_from_its_raw_range(raw: str) -> None:
    result = normalize(raw)
    previous_end = 0
    for i, char in enumerate(result.text):
        start, end = result.raw_start(i), result.raw_end(i)
        assert previous_end <= end and start < end <= len(raw)
        assert char in normalize(raw[start:end]).text
        previous_end = start


def test_empty_span_at_end_maps_to_raw_end() -> None:
    result = normalize("abc\u00ad")
    assert result.raw_span(3, 3) == (4, 4)
    with pytest.raises(IndexError, match=r"normalized span \[2, 9\) outside \[0, 3\]"):
        result.raw_span(2, 9)


def test_map_is_exact_on_real_passages(workspace) -> None:  # type: ignore[no-untyped-def]
    """Real text, real soft hyphens and line-break hyphens: thousands of spans map back exactly."""
    rng = random.Random(20261130)
    checked = soft = hyphens = 0
    for version in workspace.versions():
        for passage in segment(version.version_id, version.text)[:40]:
            soft += "\u00ad" in passage.text
            hyphens += len(normalize(passage.text).line_break_hyphens)
            checked += _check_map(passage.text, rng, 2)
    assert checked > 10_000
    assert soft > 0 and hyphens > 0, "the sample must include soft hyphens and line-break hyphens"


@given(st.text(alphabet=st.sampled_from(list(WIDER)), max_size=300))
@settings(max_examples=500)
def test_array_pass_equals_match_loop(raw: str) -> None:
    assert normalize_long(raw) == normalize_short(raw)


def test_array_pass_equals_match_loop_on_every_held_version(workspace) -> None:  # type: ignore[no-untyped-def]
    long_ones = 0
    for version in workspace.versions():
        text = version.text
        assert normalize_long(text) == normalize_short(text), version.version_id
        long_ones += len(text) >= LONG_TEXT
    assert long_ones > 300


@given(st.lists(st.text(alphabet=st.sampled_from(list(WIDER)), max_size=40), max_size=120))
@settings(max_examples=200)
def test_texts_normalized_together_equal_each_alone(texts: list[str]) -> None:
    assert normalized_texts(texts) == [normalized_text(t) for t in texts]


def test_raw_spans_equal_raw_span_on_real_text(workspace) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(7)
    checked = 0
    for version in list(workspace.versions())[::20]:
        result = normalize(version.text)
        n = len(result.text)
        if n < 2:
            continue
        spans = [tuple(sorted(rng.sample(range(n + 1), 2))) for _ in range(200)]
        spans = [(a, b) for a, b in spans if a < b]
        assert raw_spans(result, spans) == [result.raw_span(a, b) for a, b in spans]
        checked += len(spans)
    assert checked > 1000
    with pytest.raises(IndexError, match=r"a span is empty or outside \[0, 3\]"):
        raw_spans(normalize("abc"), [(1, 1)])


# Every ligature too, so that blocks grow; ASCII, Latin-1, BMP and astral characters, so that blocks
# of different widths meet; lone surrogates that would pair up if decoded as UTF-16.
BLOCKY = WIDER + "\ufb00\ufb02\ufb04\u00ff\ud800\udc00"


@given(st.text(alphabet=st.sampled_from(list(BLOCKY)), max_size=160), st.integers(1, 12))
@settings(max_examples=500)
def test_array_pass_in_blocks_equals_match_loop(raw: str, block: int) -> None:
    """Cut into blocks of any size, the array pass still equals the match loop, and its code points
    and encoding give back the normalized text."""
    arrays = _array_pass(raw, block)
    assert arrays.normalized == normalize_short(raw)
    assert arrays.codes.tolist() == [ord(c) for c in arrays.normalized.text]
    assert text_of_code_points(arrays.codes, arrays.encoding) == arrays.normalized.text


def test_blocks_are_cut_where_the_folds_see_no_white_space() -> None:
    """Blocks are cut between two characters `[^\\s\\u00ad\\ufeff]` matches: `\\s` must be
    exactly `str.isspace`, the white space the folds see, or a run could span a cut."""
    space = re.compile(r"\s")
    disagree = [c for c in range(0x110000) if bool(space.match(chr(c))) != chr(c).isspace()]
    assert disagree == []


@pytest.mark.parametrize(
    ("raw", "dtype", "encoding"),
    [
        pytest.param("", np.uint8, "latin-1", id="empty"),
        pytest.param("plain ASCII", np.uint8, "latin-1", id="ascii"),
        pytest.param("caf\u00e9", np.uint16, "latin-1", id="latin-1"),
        pytest.param("CIP\u2013003", np.uint16, "utf-16-le", id="bmp"),
        pytest.param("\ud800\udc00", np.uint16, "utf-32-le", id="lone-surrogates-stay-apart"),
        pytest.param("\U0001d538x", np.uint32, "utf-32-le", id="astral"),
    ],
)
def test_code_points_round_trip_at_the_narrowest_width(
    raw: str, dtype: type, encoding: str
) -> None:
    codes = narrow_code_points(raw)
    assert codes.dtype == dtype
    assert codes.tolist() == code_points(raw).tolist() == [ord(c) for c in raw]
    assert normalize_arrays(raw).encoding == encoding
    assert text_of_code_points(codes) == text_of_code_points(codes, encoding) == raw
    assert text_of_code_points(code_points(raw)) == raw


def test_normalize_arrays_equal_the_map_on_held_versions(workspace) -> None:  # type: ignore[no-untyped-def]
    """The arrays `normalize_arrays` hands an index equal the map's tuples and the normalized
    text's code points, on long and short held versions alike."""
    versions = sorted(workspace.versions(), key=lambda v: len(v.text))
    checked = 0
    for version in [*versions[::15], versions[-1]]:
        arrays = normalize_arrays(version.text)
        folded = arrays.normalized
        assert folded == normalize(version.text), version.version_id
        assert arrays.codes.tolist() == code_points(folded.text).tolist()
        assert text_of_code_points(arrays.codes, arrays.encoding) == folded.text
        assert arrays.norm_starts.dtype == arrays.raw_starts.dtype == np.int64
        assert tuple(arrays.norm_starts.tolist()) == folded.norm_starts
        assert tuple(arrays.raw_starts.tolist()) == folded.raw_starts
        assert tuple(arrays.raw_lens.tolist()) == folded.raw_lens
        assert tuple(arrays.identity.tolist()) == folded.identity
        checked += len(version.text) >= LONG_TEXT
    assert checked > 10


def test_segment_map_converts_each_form_once_and_compares_by_value(workspace) -> None:  # type: ignore[no-untyped-def]
    """The array pass's map is held as arrays and the match loop's as tuples; each form made from
    the other equals the other implementation's, is made once, and leaves equality unchanged."""
    version = max(workspace.versions(), key=lambda v: len(v.text))
    from_arrays = normalize_long(version.text)
    from_tuples = normalize_short(version.text)
    made_arrays = from_tuples.segments.arrays
    assert [a.dtype for a in made_arrays] == [np.int64, np.int64, np.int64, np.bool_]
    made_tuples = from_arrays.segments.tuples
    for made, held in zip(made_arrays, from_arrays.segments.arrays, strict=True):
        assert np.array_equal(made, held)
    assert made_tuples == from_tuples.segments.tuples
    assert from_arrays.segments.tuples is made_tuples
    assert from_tuples.segments.arrays is made_arrays
    assert from_arrays.norm_starts is made_tuples[0] and from_arrays.identity is made_tuples[3]
    assert from_arrays == from_tuples and hash(from_arrays) == hash(from_tuples)
    shifted = (made_tuples[0], (*made_tuples[1][:-1], made_tuples[1][-1] + 1), *made_tuples[2:])
    assert Segments(tuples=shifted) != from_arrays.segments
    with pytest.raises(ValueError, match="needs its columns as tuples or as arrays"):
        Segments()


@pytest.mark.parametrize("side", ["left", "right"])
def test_search_answers_as_searchsorted_in_any_order(side: Literal["left", "right"]) -> None:
    """Few keys or many, in their order, with their own argsort, or with a reused order that
    does not sort them: the answers are numpy's, key for key (duplicates and keys off both ends
    included)."""
    rng = np.random.default_rng(11)
    haystack = np.sort(rng.integers(0, 5_000, 3_000))
    for size in (0, 10, 5_000):
        keys = rng.integers(-10, 5_010, size)
        expected = np.searchsorted(haystack, keys, side)
        near = keys + rng.integers(-3, 4, size)  # keys close to them, as a quote's end is
        for order in (None, search_order(keys), search_order(near)):
            assert np.array_equal(search(haystack, keys, side, order), expected)


def test_start_lookup_answers_as_searchsorted() -> None:
    """The block table and its steps give numpy's `searchsorted(..., "right") - 1` for every
    position up to the length: starts that begin after 0 (-1 before them), dense runs of starts
    in one block, long gaps, one start, none."""
    rng = np.random.default_rng(5)
    dense = np.arange(400, 700)  # a start at every position: many steps in one block
    spread = np.sort(rng.choice(np.arange(3, 20_000), 250, replace=False))
    for starts, length in (
        (np.unique(np.concatenate(([0], spread, dense))), 20_000),
        (spread, 20_000),
        (np.array([0]), 50),
        (np.array([7]), 7),
        (np.zeros(0, np.int64), 3),
    ):
        starts = starts.astype(np.int64)
        lookup = StartLookup.of(starts, length)
        positions = np.arange(length + 1)
        expected = np.searchsorted(starts, positions, "right") - 1
        assert np.array_equal(lookup.last_at_or_before(positions), expected)
        shuffled = rng.permutation(positions)
        assert np.array_equal(lookup.last_at_or_before(shuffled), expected[shuffled])


def test_raw_spans_through_a_start_lookup_equal_the_searches(workspace: Workspace) -> None:
    """On real text, the raw spans of normalized spans are the same with the map's start lookup
    as with its binary searches."""
    version = max(workspace.versions(), key=lambda v: len(v.text))
    arrays = normalize_arrays(version.text)
    segments = (arrays.norm_starts, arrays.raw_starts, arrays.raw_lens, arrays.identity)
    length = len(arrays.normalized.text)
    rng = np.random.default_rng(3)
    starts = rng.integers(0, length - 1, 20_000)
    ends = np.minimum(starts + rng.integers(1, 400, starts.size), length)
    lookup = StartLookup.of(arrays.norm_starts, length)
    with_lookup = raw_span_arrays(segments, starts, ends, lookup)
    searched = raw_span_arrays(segments, starts, ends)
    assert all(np.array_equal(a, b) for a, b in zip(with_lookup, searched, strict=True))
    assert lookup.shift > 0 and lookup.table.size < length
