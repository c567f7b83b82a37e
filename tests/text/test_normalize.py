from __future__ import annotations

import random
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.text.normalize import LONG_TEXT, normalize, normalize_short, normalized_text
from workbench.text.normalize_array import (
    _array_pass,
    code_points,
    narrow_code_points,
    narrowest_encoding,
    normalize_long,
    text_of_code_points,
)

# Characters that exercise every fold, and the ones that must not be folded.
TRICKY = "ab -\n\r\t\f\u00a0\u00ad\ufeff\ufb01\ufb03\uff11\uff19²₂ABé-\u2010\u2011\u2013\u2014"
# PDFium's line-end hyphen: the loop folds it; a long text holding it is handed to the loop.
MARKED = TRICKY + "\u0002"
# The array pass must also agree on the rarer white space (U+001C, U+0085, U+2028, U+3000), a
# character outside the Basic Multilingual Plane, U+0000 (the batch separator) and a lone surrogate.
WIDER = TRICKY + "\x1c\x85\u2028\u3000\U0001d538\x00\ud800"
tricky_text = st.text(alphabet=st.sampled_from(list(MARKED)), max_size=80)


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
        pytest.param("self\u0002improvement", "self- improvement", id="u0002-is-a-line-end-hyphen"),
        pytest.param(
            "AI prefer\u0002\r\nences", "AI prefer- ences", id="u0002-with-its-line-break"
        ),
        pytest.param("a \u0002b", "a - b", id="u0002-after-a-space"),
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
        pytest.param("self\u0002improvement", (4,), id="u0002"),
        pytest.param("prefer\u0002\r\n ences", (6,), id="u0002-and-white-space"),
        pytest.param("a-\u0002b", (2,), id="u0002-after-a-hyphen-is-the-point"),
    ],
)
def test_line_break_hyphens_are_recorded(raw: str, hyphens: tuple[int, ...]) -> None:
    result = normalize(raw)
    assert result.line_break_hyphens == hyphens
    assert all(result.text[i] in "-\u2010" for i in hyphens)


@given(st.text(alphabet=st.sampled_from([*WIDER, "\u0002"]), max_size=80))
def test_fast_fold_equals_mapped_fold(raw: str) -> None:
    assert normalized_text(raw) == normalize(raw).text


def test_a_long_text_holding_u0002_is_folded_as_a_short_one() -> None:
    """The array pass does not read U+0002; a long text holding one is folded by the loop, so a
    page of Anthropic `cited_text` folds as its lines do."""
    line = "the preference model is trained from this dataset of AI prefer\u0002ences.\r\n"
    raw = line * (LONG_TEXT // len(line) + 1)
    assert len(raw) >= LONG_TEXT
    assert normalize(raw) == normalize_short(raw)
    assert normalized_text(raw) == normalize_short(raw).text
    assert normalize(raw).text.startswith(
        "the preference model is trained from this dataset of AI prefer- ences. the"
    )


@pytest.mark.parametrize(
    ("code", "numpy_loaded"),
    [
        pytest.param("normalize('a  b ' * LONG_TEXT)", False, id="long-text-alone-takes-the-loop"),
        pytest.param(
            "load_array_pass(); normalize('a  b ' * LONG_TEXT)", True, id="a-batch-loads-the-pass"
        ),
        pytest.param("normalize('a  b ' * (ARRAY_PAYS // 5 + 1))", True, id="a-huge-text-pays"),
    ],
)
def test_numpy_is_loaded_only_where_the_array_pass_pays(code: str, numpy_loaded: bool) -> None:
    """In a fresh interpreter: a long text alone is folded by the loop without importing numpy
    (a plain verification's whole version); a batch, or a text past `ARRAY_PAYS`, loads it."""
    program = (
        "import sys\n"
        "from workbench.text.normalize import ARRAY_PAYS, LONG_TEXT, load_array_pass, normalize\n"
        f"{code}\n"
        "print('numpy' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], check=True, capture_output=True, text=True
    )
    assert done.stdout.split() == [str(numpy_loaded)]


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


@pytest.mark.slow
def test_map_is_exact_on_real_passages(corpus_workspace, corpus_passages) -> None:  # type: ignore[no-untyped-def]
    """Real text, real soft hyphens and line-break hyphens: thousands of spans map back exactly,
    on each version's first 40 passages (the session's segmentation, kept once per run)."""
    rng = random.Random(20261130)
    checked = soft = hyphens = 0
    for version in corpus_workspace.versions():
        for passage in corpus_passages[version.version_id][:40]:
            soft += "\u00ad" in passage.text
            hyphens += len(normalize(passage.text).line_break_hyphens)
            checked += _check_map(passage.text, rng, 2)
    assert checked > 10_000
    assert soft > 0 and hyphens > 0, "the sample must include soft hyphens and line-break hyphens"


@given(st.text(alphabet=st.sampled_from(list(WIDER)), max_size=300))
@settings(max_examples=500)
def test_array_pass_equals_match_loop(raw: str) -> None:
    assert normalize_long(raw) == normalize_short(raw)


@pytest.mark.slow
def test_array_pass_equals_match_loop_on_every_held_version(corpus_workspace) -> None:  # type: ignore[no-untyped-def]
    long_ones = 0
    for version in corpus_workspace.versions():
        text = version.text
        assert normalize_long(text) == normalize_short(text), version.version_id
        long_ones += len(text) >= LONG_TEXT
    assert long_ones > 300


# Every ligature too, so that blocks grow; ASCII, Latin-1, BMP and astral characters, so that blocks
# of different widths meet; lone surrogates that would pair up if decoded as UTF-16.
BLOCKY = WIDER + "\ufb00\ufb02\ufb04\u00ff\ud800\udc00"


@given(st.text(alphabet=st.sampled_from(list(BLOCKY)), max_size=160), st.integers(1, 12))
@settings(max_examples=500)
def test_array_pass_in_blocks_equals_match_loop(raw: str, block: int) -> None:
    """Cut into blocks of any size, the array pass still equals the match loop."""
    assert _array_pass(raw, block) == normalize_short(raw)


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
    top = max(map(ord, raw), default=0)
    assert narrowest_encoding(top, any(0xD800 <= ord(c) < 0xE000 for c in raw)) == encoding
    assert text_of_code_points(codes, encoding) == raw
    assert text_of_code_points(code_points(raw), encoding) == raw
