from __future__ import annotations

import json
import random
import re
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT
from workbench.cite import (
    Citation,
    verify_citation,
    verify_citations,
    verify_for_version,
    version_blocks,
)
from workbench.cite.batch import verify_indexed
from workbench.cite.formats import read_citations
from workbench.cite.index import (
    _SKELETON_CUT,
    GRAM,
    HYPHENS,
    SourceIndex,
    build_index,
    counted_spans,
    find_occurrences,
    on_raw_boundaries,
    quote_skeleton,
    reading_spans,
    reads_alone,
    reads_as,
    skeleton,
    text_skeleton,
)
from workbench.cite.placing import verify_lines
from workbench.errors import CitationError
from workbench.evals.probes import block_probes, corruption_probes, outcome
from workbench.models import Version
from workbench.text.normalize import normalize, normalized_text
from workbench.text.profiles import profile_for
from workbench.workspace import Workspace
from workbench.workspace.passages import held_passages

TEXT = (
    "The utility shall not disconnect service unless notified. The customer regu-\n"
    "lation of large-\nload sites applies. Pre-\nand post-treatment e\ufb03cient. "
    "Fee \uff11\uff12 per cm2 and foot\u00adnote. The utility shall not disconnect service."
)


def _cite(quote: str, start: int | None = None, end: int | None = None, **kw: object) -> Citation:
    if start is None:
        start = TEXT.index(quote)
        end = start + len(quote)
    return Citation(version_id="v", char_start=start, char_end=end, quoted_text=quote, **kw)  # type: ignore[arg-type]


_BREAK = TEXT.index("regu-")
_BREAK_END = TEXT.index(" sites")


@pytest.mark.parametrize(
    ("citation", "reason", "detail"),
    [
        pytest.param(_cite("customer"), None, "occurrence 1 of 1", id="unique"),
        pytest.param(
            _cite("regulation of largeload", _BREAK, _BREAK_END), None, None, id="both-joined"
        ),
        pytest.param(
            _cite("regu-lation of large- load", _BREAK, _BREAK_END),
            None,
            None,
            id="kept-and-spaced",
        ),
        pytest.param(
            _cite("regulation of large-load", _BREAK, _BREAK_END), None, None, id="mixed-readings"
        ),
        pytest.param(
            _cite("regu lation of large-load", _BREAK, _BREAK_END),
            "quote_mismatch",
            None,
            id="space-only-is-no-reading",
        ),
        pytest.param(
            _cite("regulation of large\u2013load", _BREAK, _BREAK_END),
            "quote_mismatch",
            None,
            id="en-dash-is-no-reading",
        ),
        pytest.param(
            _cite("Preand post", TEXT.index("Pre-"), TEXT.index("Pre-") + 13),
            None,
            None,
            id="suspended",
        ),
        pytest.param(
            _cite("efficient", TEXT.index("e\ufb03"), TEXT.index("e\ufb03") + 7),
            None,
            None,
            id="ligature",
        ),
        pytest.param(
            _cite("Fee 12", TEXT.index("Fee"), TEXT.index("Fee") + 6), None, None, id="full-width"
        ),
        pytest.param(
            _cite("footnote", TEXT.index("foot"), TEXT.index("foot") + 9),
            None,
            None,
            id="soft-hyphen",
        ),
        pytest.param(
            _cite("cm\u00b2", TEXT.index("cm2"), TEXT.index("cm2") + 3),
            "quote_mismatch",
            "the text at [",
            id="superscript-is-not-a-digit",
        ),
        pytest.param(
            _cite("The utility shall"),
            "ambiguous_occurrence",
            "the quote occurs 2 times; the offsets are occurrence 1, and no occurrence is named",
            id="ambiguous",
        ),
        pytest.param(
            _cite("The utility shall", occurrence=1), None, "occurrence 1 of 2", id="named"
        ),
        pytest.param(
            _cite("The utility shall", occurrence=3),
            "wrong_occurrence",
            "occurrence 3 is named; the offsets are occurrence 1 of 2",
            id="wrong-occurrence",
        ),
        pytest.param(
            _cite("customer", occurrence=0),
            "bad_occurrence",
            "occurrence 0 is not a positive integer",
            id="occurrence-zero",
        ),
        pytest.param(_cite("q", -1, 3), "bad_offsets", "char_start -1 is negative", id="negative"),
        pytest.param(
            _cite("q", 9, 3), "bad_offsets", "char_start 9 is after char_end 3", id="reversed"
        ),
        pytest.param(
            _cite("q", 0, 10_000),
            "bad_offsets",
            f"char_end 10000 is past the end of the text ({len(TEXT)} characters)",
            id="past-end",
        ),
        pytest.param(
            _cite("q", "0", 3), "bad_offsets", "char_start '0' is not an integer", id="string"
        ),
        pytest.param(
            _cite("q", 0, 3.0), "bad_offsets", "char_end 3.0 is not an integer", id="float"
        ),
        pytest.param(
            _cite("q", True, 3), "bad_offsets", "char_start True is not an integer", id="bool"
        ),
        pytest.param(
            _cite("q", 0, 2**64),
            "bad_offsets",
            f"char_end {2**64} is past the end of the text ({len(TEXT)} characters)",
            id="beyond-64-bits",
        ),
        pytest.param(
            _cite("customer", occurrence=2**70),
            "wrong_occurrence",
            f"occurrence {2**70} is named; the offsets are occurrence 1 of",
            id="occurrence-beyond-64-bits",
        ),
        pytest.param(
            _cite(" \u00ad- ", 0, 3),
            "empty_quote",
            "quoted_text ' \\xad- ' holds no words once normalized",
            id="empty-quote",
        ),
        pytest.param(
            _cite("The utility", 1, 12),
            "quote_mismatch",
            "the text at [1, 12) does not read as the quote",
            id="shifted",
        ),
    ],
)
def test_outcomes(citation: Citation, reason: str | None, detail: str | None) -> None:
    result = verify_citation(citation, TEXT)
    assert result.reason == reason
    assert result.verified is (reason is None)
    if detail is not None:
        assert result.detail.startswith(detail)
    if reason not in (None, "bad_offsets"):
        assert result.actual_text == TEXT[citation.char_start : citation.char_end]


def test_readings_are_exactly_three() -> None:
    source, points = "regu- lation", [4]
    allowed = {"regulation", "regu-lation", "regu- lation"}
    candidates = {"regu lation", "regu--lation", "regu-  lation", "regu\u2010lation", "reg-ulation"}
    assert all(reads_as(source, points, q) for q in allowed)
    assert not any(reads_as(source, points, q) for q in candidates)


# Adversarial text for the fuzz: every fold, line-break hyphens, superscripts, repeated phrases.
_PIECES = [
    "shall",
    "not",
    "e\ufb03cient",
    "\ufb01le",
    "o\ufb00er",
    "regu-\nlation",
    "pre-\nand",
    "large-\r\nload",
    "\u00ad",
    "foot\u00adnote",
    "\uff11\uff19",
    "cm\u00b2",
    "the fee",
    "  ",
    "\n\n",
    "-",
    "\u2010\n",
    "a",
]


def _adversarial(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_PIECES) for _ in range(words))


def test_fast_boundary_test_never_clears_what_the_exact_reread_refuses() -> None:
    rng = random.Random(20261130)
    reached = slow = 0
    for _ in range(60):
        text = _adversarial(rng, 120)
        index = build_index(text)
        folded = index.normalized.text
        for _ in range(20):
            start = rng.randrange(len(folded))
            end = min(len(folded), start + rng.randint(1, 24))
            quote = folded[start:end]
            if not quote.strip(" -\u2010"):
                continue
            counted = counted_spans(index, quote)
            for start, end in reading_spans(index, quote):
                raw_start, raw_end = index.normalized.raw_span(start, end)
                exact = reads_alone(text[raw_start:raw_end], quote)
                if on_raw_boundaries(index.normalized, start, end):
                    reached += 1
                    assert exact, (text, quote, start, end)
                else:
                    slow += 1
                assert ((start, end) in counted) == exact, (text, quote, start, end)
    assert reached >= 1000, reached
    assert slow > 0, "no hit took the slow path"


@given(st.text(alphabet=st.sampled_from(list("ab -\u2010\u2011")), max_size=60))
def test_skeleton_equals_its_regular_expression(text: str) -> None:
    assert skeleton(text) == _SKELETON_CUT.sub("", text)


def test_look_up_finds_every_occurrence_in_real_text(held_versions: tuple[Version, ...]) -> None:
    """Patterns on both sides of where the anchored look-up takes over (a space with `GRAM`
    characters after it, or one character fewer), patterns that begin with a space, boilerplate
    that repeats, and patterns that do not occur: the look-up finds exactly what `str.find` finds."""
    version = max(held_versions, key=lambda v: len(v.text))
    index = build_index(version.text)
    skel = index.skeleton
    rng = random.Random(5)
    patterns = []
    for length in (1, 5, GRAM - 3, GRAM, GRAM + 1, GRAM + 2, 60, 300):
        for _ in range(80):
            at = rng.randrange(len(skel) - length)
            patterns.append(skel[at : at + length])
    spaces = [i for i in range(3, len(skel) - 60) if skel[i] == " "]
    for space in rng.sample(spaces, 80):
        patterns += [
            skel[space - 3 : space + 1 + GRAM],  # the one space has a whole gram after it
            skel[space - 3 : space + GRAM],  # one character short: scanned
            skel[space : space + 40],  # begins with the space
        ]
    patterns += [p + "\u2603" for p in patterns[-50:]] + [""]

    def every(pattern: str) -> list[int]:
        found, at = [], skel.find(pattern) if pattern else -1
        while at >= 0:
            found.append(at)
            at = skel.find(pattern, at + 1)
        return found

    expected = [every(p) for p in patterns]
    assert [index.skeleton_hits(p) for p in patterns] == expected
    assert sum(len(e) > 1 for e in expected) > 50, "the sample must hold repeated patterns"


def test_a_batch_decides_each_citation_as_alone(
    workspace: Workspace, held_versions: tuple[Version, ...]
) -> None:
    """Sharing the work of a batch changes no verdict: every probe kind, mixed in one batch
    against one version, gets the outcome it gets alone."""
    version = max(held_versions, key=lambda v: len(v.text))
    probes = corruption_probes([version], seed=4, per_version=40)
    citations = [p.citation for p in probes]
    together = verify_citations(workspace, citations)
    assert list(together) == [verify_for_version(workspace, c) for c in citations]
    assert len({p.kind for p in probes}) >= 8
    assert Counter(v.outcome for v in together)["refused"] > 0


def test_line_break_hyphen_characters_are_deletable() -> None:
    text = "".join(f"a{c}\nb " for c in "-\u2010\u2011\u2012\u2013\u2014\u00ad")
    folded = normalize(text)
    assert {folded.text[h] for h in folded.line_break_hyphens} <= set(HYPHENS)


@given(st.lists(st.sampled_from(_PIECES), max_size=30).map("".join), st.data())
@settings(max_examples=200, deadline=None)
def test_every_verified_span_is_its_own_occurrence(pieces: str, data: st.DataObject) -> None:
    """Any raw span, quoted as its own normalized text, verifies and counts itself."""
    text = pieces
    if not text:
        return
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    quote = normalized_text(text[start:end])
    if not quote.strip(" -\u2010"):
        return
    result = verify_citation(
        Citation(version_id="v", char_start=start, char_end=end, quoted_text=quote, occurrence=1),
        text,
    )
    assert result.reason in (None, "wrong_occurrence"), result
    assert result.occurrence is not None and result.occurrences


def _version_with(held_versions: tuple[Version, ...], needle: str) -> tuple[str, str]:
    for version in held_versions:
        if needle in version.text:
            return version.version_id, version.text
    raise AssertionError(needle)


@pytest.mark.slow
def test_corruption_suite_on_the_real_corpus(corpus_measured: Workspace) -> None:
    """Every probe refused for the right reason, every honest probe verified (plainly, or with
    exactly the caveat its construction says). On the whole corpus as `make measure` leaves it,
    whose every version's parts (the footnotes and tables a verdict reads) measure kept once per
    run, rather than read again here."""
    probes = corruption_probes(corpus_measured.versions(), seed=11, per_version=2)
    results = verify_citations(corpus_measured, [p.citation for p in probes])
    wrong = [
        (p.kind, p.expected, outcome(r), p.citation.version_id)
        for p, r in zip(probes, results, strict=True)
        if outcome(r) != p.expected
    ]
    assert not wrong, wrong[:10]
    kinds = Counter(p.kind for p in probes)
    for kind in (
        "honest quote",
        "one numeral changed",
        "offsets shifted -2",
        "offsets shifted -1",
        "offsets shifted +1",
        "offsets shifted +2",
        "repeated, no occurrence named",
        "repeated, wrong occurrence named",
        "repeated, right occurrence named",
        "spans a soft hyphen",
        "line-break hyphen, joined",
        "line-break hyphen, hyphen kept",
        "line-break hyphen, hyphen and space",
        "line-break hyphen, space only",
        "line-break hyphen, as U+0002",
        "in-line hyphen quoted as U+0002",
        "altered, a not omitted",
        "plain digit quoted as superscript",
    ):
        assert kinds[kind] >= 2, (kind, kinds)


def test_content_block_probes_on_the_real_corpus(
    workspace: Workspace, held_versions: tuple[Version, ...]
) -> None:
    """Citations into every held version's blocks, as a model's content_block_location would
    make them: each gets the outcome its construction says, a refusal by its own name."""
    probes = block_probes(held_versions, per_version=1, workspace=workspace)
    lines = []
    for probe in probes:
        (line,) = read_citations(
            json.dumps(probe.record).encode(), "anthropic", documents=[probe.document]
        )
        lines.append(line)
    # One batch: a batch decides each citation as it would alone (tested below).
    results = verify_lines(workspace, lines)
    wrong = [
        (p.kind, p.expected, outcome(r), r.detail[:120])  # type: ignore[union-attr]
        for p, r in zip(probes, results, strict=True)
        if r is None or outcome(r) != p.expected
    ]
    assert not wrong, wrong[:10]
    kinds = Counter(p.kind for p in probes)
    assert len(kinds) == 6 and min(kinds.values()) >= 100, kinds


def test_blocks_of_a_held_version_are_its_kept_passages(
    workspace: Workspace, held_versions: tuple[Version, ...], segmented: list[str]
) -> None:
    """Blocks written from the workspace read the passages it keeps (segmented the first time
    only), and are the blocks segmenting gives."""
    version = next(v for v in held_versions if v.media_type == "application/pdf")
    kept = version_blocks(version, workspace)
    segmented.clear()
    again = version_blocks(version, workspace)
    assert segmented == []
    assert again == kept == version_blocks(version)
    assert segmented == [version.version_id]  # only the blocks written without the workspace


def test_a_version_id_or_quote_that_is_no_string_is_a_typed_error(
    workspace: Workspace, held_versions: tuple[Version, ...]
) -> None:
    """A citation whose quote or version id is not a str is an error naming it and both types
    (in a batch of good citations, it stops the batch); the held versions are untouched."""
    index = build_index(TEXT)
    good = _cite("customer")
    bad_quote = Citation(version_id="v", char_start=0, char_end=3, quoted_text=7)  # type: ignore[arg-type]
    assert verify_indexed(index, good).verified
    with pytest.raises(
        CitationError, match=r"^'v': version_id and quoted_text must be strings, got str and int$"
    ):
        verify_indexed(index, bad_quote)
    bad_version = Citation(version_id=None, char_start=0, char_end=3, quoted_text="x")  # type: ignore[arg-type]
    with pytest.raises(
        CitationError,
        match=r"^None: version_id and quoted_text must be strings, got NoneType and str$",
    ):
        verify_indexed(index, bad_version)
    with pytest.raises(CitationError, match=r"^version_id None must be a string$"):
        verify_citations(workspace, [good, bad_version])
    version = held_versions[0]
    held = Citation(version_id=version.version_id, char_start=0, char_end=3, quoted_text=b"abc")  # type: ignore[arg-type]
    before = [(v.version_id, v.text_sha256) for v in held_versions]
    with pytest.raises(
        CitationError, match=rf"^'{re.escape(version.version_id)}': .* got str and bytes$"
    ):
        verify_citations(workspace, [held])
    assert [(v.version_id, v.text_sha256) for v in workspace.versions()] == before


def test_altered_stored_text_is_refused_as_changed(
    workspace: Workspace, tmp_path: Path, held_versions: tuple[Version, ...]
) -> None:
    copy = tmp_path / "altered.sqlite"
    with sqlite3.connect(workspace.path) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    version_id, text = _version_with(held_versions, "Internet-Draft")
    at = text.index("Internet-Draft")
    citation = Citation(
        version_id=version_id, char_start=at, char_end=at + 14, quoted_text="Internet-Draft"
    )
    assert verify_for_version(workspace, citation).reason in (None, "ambiguous_occurrence")
    with sqlite3.connect(copy) as raw:
        raw.execute("DROP TRIGGER versions_append_only_update")
        raw.execute(
            "UPDATE versions SET text = replace(text, 'Internet-Draft', 'Internet-Dra\u0192t') "
            "WHERE version_id = ?",
            (version_id,),
        )
    with Workspace(copy) as altered:
        result = verify_for_version(altered, citation)
        missing = verify_for_version(
            altered, Citation(version_id="no/such", char_start=0, char_end=1, quoted_text="x")
        )
    assert result.reason == "source_changed"
    assert result.detail.startswith(f"{version_id}: stored text hashes to ")
    assert missing.reason == "unknown_version"
    assert missing.detail == (
        "no/such: no such version is held; the held families are listed by 'workbench families'"
    )
    # Stored bytes that are not even UTF-8 are hashed as they are and refused the same way, for
    # every citation of the version, in a batch.
    with sqlite3.connect(copy) as raw:
        raw.execute("DROP TRIGGER versions_append_only_update")  # opening a workspace restores it
        raw.execute(
            "UPDATE versions SET text = CAST(X'fffe41' AS TEXT) WHERE version_id = ?",
            (version_id,),
        )
    with Workspace(copy) as broken:
        refused = verify_citations(broken, [citation, citation])
    assert [r.reason for r in refused] == ["source_changed"] * 2
    assert refused[0].detail.startswith(f"{version_id}: stored text hashes to ")


_QUALIFIER = re.compile(r"\b(unless|except|provided that|notwithstanding|subject to)\b")


def test_qualifier_flags_on_truncated_real_sentences(
    workspace: Workspace, held_versions: tuple[Version, ...]
) -> None:
    """Cut a real sentence just before its qualifier: verified, flagged with the word's offsets;
    quote it whole: the qualifier is inside and is not flagged."""
    checked = 0
    for version in held_versions[::3]:
        text = version.text
        # The passages the workspace keeps through the version's profile, as its blocks read them.
        profile = profile_for(version.jurisdiction, version.family)
        for passage in held_passages(workspace, version, profile)[:400]:
            match = _QUALIFIER.search(passage.text, 20)
            if match is None or "\n\n" in passage.text:
                continue
            cut = passage.char_start + match.start() - 1
            start = max(passage.char_start, cut - 60)
            truncated = verify_citation(
                Citation(
                    version_id=version.version_id,
                    char_start=start,
                    char_end=cut,
                    quoted_text=text[start:cut],
                    occurrence=1,
                ),
                text,
            )
            if not truncated.verified:
                continue  # a repeated passage: its first occurrence is elsewhere
            at = passage.char_start + match.start()
            assert any(
                q.side == "after" and (q.char_start, q.char_end) == (at, at + len(match.group()))
                for q in truncated.qualifiers
            ), (version.version_id, text[start : at + 20], truncated.qualifiers)
            whole = verify_citation(
                Citation(
                    version_id=version.version_id,
                    char_start=start,
                    char_end=at + len(match.group()),
                    quoted_text=text[start : at + len(match.group())],
                    occurrence=1,
                ),
                text,
            )
            assert whole.verified
            assert all(q.char_start != at for q in whole.qualifiers)
            checked += 1
            break
    assert checked >= 10, checked


@pytest.mark.parametrize(
    ("fmt", "line", "error"),
    [
        pytest.param(
            "workbench",
            b"{",
            "line 1: not JSON (Expecting property name enclosed in double quotes at column 2)",
            id="not-json",
        ),
        pytest.param("workbench", b"[1]", "line 1: expected a JSON object, got array", id="array"),
        pytest.param("workbench", b"\xff{}", "line 1: not UTF-8 (byte 0)", id="bad-utf8"),
        pytest.param(
            "workbench",
            b'{"version_id": "v", "char_start": 0, "char_end": 1}',
            "line 1: field 'quoted_text' missing",
            id="missing",
        ),
        pytest.param(
            "workbench",
            b'{"version_id": 3, "char_start": 0, "char_end": 1, "quoted_text": "x"}',
            "line 1: field 'version_id': expected a string, got number",
            id="mistyped",
        ),
        pytest.param(
            "workbench",
            b'{"version_id": "v", "char_start": 0, "char_end": 1, "quoted_text": "x", "occurence": 1}',
            "line 1: field 'occurence': unknown field (expected version_id, char_start, char_end, quoted_text, occurrence, page, alterations, section, row_header, column_header)",
            id="unknown-field",
        ),
        pytest.param(
            "workbench",
            b'{"version_id": "v", "version_id": "w"}',
            "line 1: field 'version_id' appears twice",
            id="duplicate",
        ),
        pytest.param(
            "workbench", b'{"char_start": NaN}', "line 1: NaN is not a JSON number", id="nan"
        ),
        pytest.param(
            "w3c",
            b'{"target": []}',
            "line 1: field 'target': expected one target, got 0",
            id="w3c-no-target",
        ),
        pytest.param(
            "w3c",
            b'{"target": {"source": 1}}',
            "line 1: field 'target.source': expected the version id, as a string or an object with 'id'",
            id="w3c-source",
        ),
        pytest.param(
            "w3c",
            b'{"target": {"source": "v", "selector": [{"type": "TextQuoteSelector", "prefix": "x"}]}}',
            "line 1: field 'TextQuoteSelector.exact' missing",
            id="w3c-quote-without-exact",
        ),
        pytest.param(
            "w3c",
            b'{"target": {"source": "v", "selector": [{"type": "TextPositionSelector", "end": 1}]}}',
            "line 1: field 'TextPositionSelector.start' missing",
            id="w3c-position-without-start",
        ),
        pytest.param(
            "anthropic",
            b'{"type": "url_citation", "cited_text": "x"}',
            "line 1: field 'type': expected 'char_location', 'page_location', "
            "'content_block_location', 'search_result_location', 'web_search_result_location', "
            "got 'url_citation'",
            id="anthropic-type",
        ),
        pytest.param(
            "anthropic",
            b'{"type": "web_search_result_location", "cited_text": "x"}',
            "line 1: field 'url' missing",
            id="anthropic-web-search-result-without-url",
        ),
        pytest.param(
            "anthropic",
            b'{"type": "content_block_location", "cited_text": "x", "document_index": 0, "start_block_index": 2, "end_block_index": 2}',
            "line 1: field 'end_block_index': 2 is not after start_block_index 2 (the end block is exclusive)",
            id="anthropic-empty-block-range",
        ),
        pytest.param(
            "anthropic",
            b'{"type": "content_block_location", "cited_text": "x", "document_index": 0, "start_block_index": -1, "end_block_index": 2}',
            "line 1: field 'start_block_index': expected a block index (an integer from 0), got -1",
            id="anthropic-negative-block",
        ),
        pytest.param(
            "anthropic",
            b'{"cited_text": "x", "document_index": 5, "start_char_index": 0, "end_char_index": 1}',
            "line 1: field 'document_index': 5 names no document (--documents maps 1: 0 to 0)",
            id="anthropic-index",
        ),
    ],
)
def test_malformed_lines(fmt: str, line: bytes, error: str) -> None:
    good = b'{"version_id": "v", "char_start": 0, "char_end": 1, "quoted_text": "x"}'
    good = {
        "workbench": good,
        "w3c": b'{"target": {"source": "v", "selector": [{"type": "TextPositionSelector", "start": 0, "end": 1}, {"type": "TextQuoteSelector", "exact": "x"}]}}',
        "anthropic": b'{"type": "char_location", "cited_text": "x", "document_index": 0, "start_char_index": 0, "end_char_index": 1}',
    }[fmt]
    lines = read_citations(line + b"\n\n" + good + b"\r\n", fmt, documents=("v",))  # type: ignore[arg-type]
    assert [entry.error for entry in lines] == [error, None]
    assert lines[1].line == 3 and lines[1].citation is not None


def _run(*args: str, workspace: Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args, "--workspace", str(workspace)],
        capture_output=True,
        cwd=ROOT,
        input=stdin,
        check=False,
    )


def test_cli_verify_three_formats_and_export_round_trip(
    workspace: Workspace, tmp_path: Path, held_versions: tuple[Version, ...]
) -> None:
    version_id, text = _version_with(held_versions, "This Internet-Draft is submitted")
    at = text.index("This Internet-Draft is submitted")
    quote = text[at : at + 32]
    ours = {"version_id": version_id, "char_start": at, "char_end": at + 32, "quoted_text": quote}
    bad = dict(ours, char_start=at + 1)
    citations = tmp_path / "c.jsonl"
    citations.write_text(
        json.dumps(ours) + "\n" + json.dumps(bad) + "\nnot json\n", encoding="utf-8"
    )
    result = _run("verify", str(citations), workspace=workspace.path)
    out = result.stdout.decode("utf-8").splitlines()
    assert result.returncode == 2
    assert out[0].startswith(f"line 1: verified: {version_id} [{at}, {at + 32}): occurrence 1 of 1")
    assert out[1].startswith(f"line 2: refused quote_mismatch: {version_id} [{at + 1}, {at + 32})")
    assert json.dumps(text[at + 1 : at + 32]) in out[1]
    assert out[2] == "line 3: not JSON (Expecting value at column 1)"
    assert out[3].startswith(
        "1 verified, 0 verified with caveats, 0 resolved, 1 refused, 1 malformed lines; "
        "verified means"
    )

    citations.write_text(json.dumps(ours) + "\n", encoding="utf-8")
    exported = _run("export-annotations", str(citations), workspace=workspace.path)
    assert exported.returncode == 0, exported.stderr
    annotation = json.loads(exported.stdout)
    assert annotation["target"]["source"]["version_id"] == version_id
    w3c = tmp_path / "a.jsonl"
    w3c.write_bytes(exported.stdout)
    again = _run("verify", str(w3c), "--format", "w3c", "--json", workspace=workspace.path)
    assert again.returncode == 0, again.stdout
    assert json.loads(again.stdout)["outcome"] == "verified"

    anthropic = tmp_path / "an.jsonl"
    documents = tmp_path / "docs.json"
    documents.write_text(json.dumps([version_id]), encoding="utf-8")
    anthropic.write_text(
        json.dumps(
            {
                "type": "char_location",
                "cited_text": quote,
                "document_index": 0,
                "start_char_index": at,
                "end_char_index": at + 32,
            }
        )
        + "\n",
        encoding="utf-8",
    )
    third = _run(
        "verify",
        str(anthropic),
        "--format",
        "anthropic",
        "--documents",
        str(documents),
        workspace=workspace.path,
    )
    assert third.returncode == 0, third.stdout


def test_export_context_makes_a_repeated_quote_unique(
    workspace: Workspace, held_versions: tuple[Version, ...]
) -> None:
    from workbench.cite.w3c import export_annotations

    version_id, text = next(
        (v.version_id, v.text) for v in held_versions if v.text.count("Recommenda-\n") >= 2
    )
    spans = [m.start() for m in re.finditer("Recommenda-\n", text)][:2]
    citation = Citation(
        version_id=version_id,
        char_start=spans[1],
        char_end=text.index("tions", spans[1]) + 5,
        quoted_text="Recommendations",
        occurrence=2,
    )
    annotations, verifications = export_annotations(workspace, [citation])
    assert verifications[0].verified, verifications[0]
    quote_selector = annotations[0]["target"]["selector"][0]
    assert quote_selector["prefix"] or quote_selector["suffix"]
    lines = read_citations(json.dumps(annotations[0]).encode(), "w3c")
    round_trip = verify_for_version(workspace, lines[0].citation)  # type: ignore[arg-type]
    assert round_trip.verified and round_trip.occurrence == 2
    moved = Citation(
        version_id=version_id,
        char_start=spans[0],
        char_end=text.index("tions", spans[0]) + 5,
        quoted_text="Recommendations",
        prefix=quote_selector.get("prefix"),
        suffix=quote_selector.get("suffix"),
    )
    assert verify_for_version(workspace, moved).reason == "wrong_occurrence"


_FAR = "It applies unless " + "waived and " * 16 + "the fee is paid."
_CUT_AT_REACH = "The fee " + "a" * 157 + " not applies."


@pytest.mark.parametrize(
    ("text", "quote", "flags"),
    [
        pytest.param(
            "The utility shall disconnect service unless notified.",
            "The utility shall disconnect service",
            [("unless", "after")],
            id="condition-after",
        ),
        pytest.param(
            "The utility shall not disconnect service.",
            "disconnect service",
            [("not", "before")],
            id="negation-before",
        ),
        pytest.param(
            "The utility shall disconnect service. Unless notified, it waits.",
            "The utility shall disconnect service",
            [],
            id="sentence-ends-between",
        ),
        pytest.param(
            "The fee in Sec. 5 applies unless waived.",
            "The fee in Sec",
            [("unless", "after")],
            id="abbreviation-ends-no-sentence",
        ),
        pytest.param(
            "The fee applies\n\nunless waived.", "The fee applies", [], id="blank-line-between"
        ),
        pytest.param("Rule No. 5 applies.", "5 applies", [], id="No.-is-no-negation"),
        pytest.param(
            "Provided, however, that the fee is paid.",
            "the fee is paid",
            [("Provided, however, that", "before")],
            id="provided-however",
        ),
        pytest.param(_FAR, "the fee is paid", [], id="beyond-reach"),
        pytest.param(_CUT_AT_REACH, "The fee", [("not", "after")], id="word-cut-by-reach"),
    ],
)
def test_qualifier_rule(text: str, quote: str, flags: list[tuple[str, str]]) -> None:
    """The qualifier rule on sentences built to sit on each of its limits: the verdict stands,
    and exactly the qualifiers the rule names are flagged, with their raw offsets."""
    at = text.index(quote)
    result = verify_citation(
        Citation(version_id="v", char_start=at, char_end=at + len(quote), quoted_text=quote), text
    )
    assert result.verified, result
    assert [(q.word, q.side) for q in result.qualifiers] == flags
    for q in result.qualifiers:
        assert text[q.char_start : q.char_end] == q.word


def test_find_occurrences_reads_every_line_break_hyphen_reading(
    held_versions: tuple[Version, ...],
) -> None:
    """The public occurrence search on a real word split by a line-break hyphen: found under each
    allowed reading, at the same raw span, and a space-only
    reading found nowhere; the quotes register and the claims check call the same search."""
    from workbench.cite import find_occurrences, find_text, index_text

    readings: list[str] = []
    for version in held_versions:
        text = version.text
        if not re.search(r"[A-Za-z]{3}-\n[^\S\n]*[a-z]{3}", text):
            continue
        folded = normalize(text)
        words = skeleton(folded.text)
        for h in folded.line_break_hyphens:
            left = re.search(r"[A-Za-z]{3,}$", folded.text[:h])
            right = re.match(r"[a-z]{3,}", folded.text[h + 2 :])
            if left and right and words.count(left.group() + right.group()) == 1:
                readings = [f"{left.group()}{sep}{right.group()}" for sep in ("", "-", "- ")]
                break
        if readings:
            break
    assert readings, "no hyphenated word that occurs once"
    found = [find_occurrences(text, reading) for reading in readings]
    assert all(len(f) == 1 and f[0].number == 1 for f in found), found
    assert len({(f[0].char_start, f[0].char_end) for f in found}) == 1
    start, end = found[0][0].char_start, found[0][0].char_end
    assert normalized_text(text[start:end]) == readings[2]
    for reading, occurrences in zip(readings, found, strict=True):
        assert find_occurrences(index_text(text), reading) == occurrences
        assert find_text(text, reading, None) == ("found", ((start, end),))
    space_only = readings[2].replace("- ", " ")
    assert not find_occurrences(text, space_only)
    assert find_occurrences(text, " - ") == ()


# Characters that make the skeleton and its map work: both hyphens the skeleton deletes, the
# non-breaking hyphen (folded to "-"), line breaks after hyphens, soft hyphens, a ligature, and
# characters of every code width.
_SKELETON_PIECES = [*"ab -\u2010\u2011\u00ad\u00e9\U0001d538\ufb01", "-\n", "\u2010\n", " \n "]


def _kept_by_brute_force(folded: str) -> list[int]:
    """The normalized offset of each character the skeleton keeps, one character at a time."""
    kept, i = [], 0
    while i < len(folded):
        if folded[i] in HYPHENS:
            i += 2 if folded.startswith(" ", i + 1) else 1
        else:
            kept.append(i)
            i += 1
    return kept


def _check_folded_skeleton(index: SourceIndex) -> None:
    folded = index.normalized.text
    kept = _kept_by_brute_force(folded)
    assert index.skeleton == _SKELETON_CUT.sub("", folded) == "".join(folded[i] for i in kept)
    spans = index.normalized_of_skeleton_spans(range(len(index.skeleton)), 1)
    assert [first for first, _ in spans] == kept
    assert all(last == first + 1 for first, last in spans)


def _most_line_break_hyphens(held_versions: tuple[Version, ...]) -> str:
    """The long held text with the most line-break hyphens."""
    from workbench.text.normalize import LONG_TEXT

    texts = [v.text for v in held_versions if len(v.text) >= LONG_TEXT]
    return max(texts, key=lambda text: len(normalize(text).line_break_hyphens))


def _every(haystack: str, needle: str) -> list[int]:
    found, at = [], haystack.find(needle) if needle else -1
    while at >= 0:
        found.append(at)
        at = haystack.find(needle, at + 1)
    return found


@given(st.lists(st.sampled_from(_SKELETON_PIECES), max_size=40).map("".join))
def test_folded_skeleton_and_its_map_equal_brute_force(text: str) -> None:
    _check_folded_skeleton(build_index(text))


def test_folded_skeleton_and_its_map_on_long_and_real_text(
    held_versions: tuple[Version, ...],
) -> None:
    """The skeleton and kept maps equal the regular expression and a one-character-at-a-time
    map: on long adversarial text and on the held text with the most line-break hyphens."""
    from workbench.text.normalize import LONG_TEXT

    rng = random.Random(11)
    for _ in range(12):
        size = rng.randrange(LONG_TEXT, 3 * LONG_TEXT)
        _check_folded_skeleton(
            build_index("".join(rng.choice(_SKELETON_PIECES) for _ in range(size)))
        )
    index = build_index(_most_line_break_hyphens(held_versions))
    assert len(index.points) > 5
    _check_folded_skeleton(index)


def test_skeleton_look_up_maps_back_to_the_normalized_text(
    held_versions: tuple[Version, ...],
) -> None:
    """On a real text with line-break hyphens: the look-up finds what `str.find` finds in the
    skeleton, and a pattern with no hyphen and no leading space has, among its skeleton hits that
    stay inside one kept run, exactly its occurrences in the normalized text."""
    text = _most_line_break_hyphens(held_versions)
    index = build_index(text)
    folded = index.normalized.text
    rng = random.Random(8)
    patterns = []
    for length in (5, GRAM, GRAM + 1, GRAM + 2, 64, 300):
        for _ in range(80):
            at = rng.randrange(len(folded) - length)
            patterns.append(folded[at : at + length])
    patterns += [folded[max(0, p - 20) : p + 22] for p in index.points]
    patterns += [p[:-1] + "\u2603" for p in patterns[-60:]]
    skeletons = [skeleton(p) for p in patterns]
    hits = [index.skeleton_hits(p) for p in skeletons]
    assert hits == [_every(index.skeleton, p) for p in skeletons]
    compared = 0
    for pattern, found in zip(patterns, hits, strict=True):
        if pattern.startswith(" ") or any(h in pattern for h in HYPHENS):
            continue
        spans = index.normalized_of_skeleton_spans(found, len(pattern))
        inside = [a for a, b in spans if b - a == len(pattern)]
        assert inside == _every(folded, pattern)
        compared += 1
    assert compared > 200
    assert sum(len(h) > 1 for h in hits) > 10, "the sample must hold repeated patterns"


def test_a_pattern_ending_at_the_texts_end_finds_its_repeats() -> None:
    """A pattern that ends at the text's end, its anchored gram running to the last character, is
    still found at each of its occurrences."""
    phrase = "the operator shall keep each record for five years."
    text = f"{phrase} and {phrase}"
    index = build_index(text)
    tail = index.skeleton[len(index.skeleton) - (GRAM + 8) :]
    assert " " in tail[: len(tail) - GRAM], "the tail must be looked up, not scanned"
    assert index.skeleton_hits(tail) == _every(index.skeleton, tail)
    assert len(index.skeleton_hits(tail)) == 2


@pytest.mark.parametrize(
    ("locator", "ambiguous_step", "mismatch_step"),
    [
        pytest.param(
            "offsets",
            'name the one meant with "occurrence": N (these offsets are "occurrence": 1)',
            "correct the citation's offsets",
            id="offsets",
        ),
        pytest.param(
            "w3c",
            "give the TextQuoteSelector a prefix or suffix that only the one meant has (these "
            "offsets are occurrence 1)",
            "correct the TextPositionSelector's start and end (or drop it: the quote alone "
            "places it)",
            id="w3c-speaks-of-selectors",
        ),
        pytest.param(
            "blocks",
            "cite a block range that holds only the one meant, or quote more of its words (the "
            "blocks cited hold occurrence 1)",
            "cite the blocks that hold it (start_block_index, end_block_index)",
            id="blocks-speak-of-blocks",
        ),
    ],
)
def test_a_refusals_next_step_speaks_the_citations_own_terms(
    workspace: Workspace,
    locator: str,
    ambiguous_step: str,
    mismatch_step: str,
    held_versions: tuple[Version, ...],
) -> None:
    """The verdict and reason are the rule's; only the next step's words follow the locator."""
    from workbench.cite import find_occurrences

    version_id, text = _version_with(held_versions, "This Internet-Draft is submitted")
    repeated = [(o.char_start, o.char_end) for o in find_occurrences(text, "Internet-Draft")]
    a, b = repeated[0]
    ambiguous = verify_for_version(
        workspace,
        Citation(
            version_id=version_id,
            char_start=a,
            char_end=b,
            quoted_text="Internet-Draft",
            locator=locator,  # type: ignore[arg-type]
        ),
    )
    assert ambiguous.reason == "ambiguous_occurrence"
    assert ambiguous.detail.endswith(ambiguous_step)
    at = text.index("This Internet-Draft is submitted")
    shifted = verify_for_version(
        workspace,
        Citation(
            version_id=version_id,
            char_start=at + 1,
            char_end=at + 33,
            quoted_text=text[at : at + 32],
            locator=locator,  # type: ignore[arg-type]
        ),
    )
    assert shifted.reason == "quote_mismatch"
    assert shifted.detail.endswith(f": {mismatch_step} (it is refused as cited)")


def test_a_w3c_quote_alone_that_occurs_twice_is_told_to_add_context(
    workspace: Workspace, tmp_path: Path, held_versions: tuple[Version, ...]
) -> None:
    from workbench.cite.formats import read_citations
    from workbench.cite.placing import verify_lines

    version_id, _ = _version_with(held_versions, "This Internet-Draft is submitted")
    annotation = {
        "@context": "http://www.w3.org/ns/anno.jsonld",
        "type": "Annotation",
        "target": {
            "source": version_id,
            "selector": {"type": "TextQuoteSelector", "exact": "Internet-Draft"},
        },
    }
    lines = read_citations((json.dumps(annotation) + "\n").encode(), "w3c")
    (verdict,) = verify_lines(workspace, lines)
    assert verdict is not None
    assert verdict.reason == "ambiguous_occurrence"
    assert "give the TextQuoteSelector a prefix or suffix" in verdict.detail
    assert '"occurrence": N' not in verdict.detail


def test_refusals_say_where_and_what_to_do_next(
    workspace: Workspace, held_versions: tuple[Version, ...]
) -> None:
    """On real text, each refusal keeps its verdict and reason and says what to do next: an
    off-by-one citation where the quote does occur (its offsets there), an ambiguous one its
    occurrences and how to name one, a wrong occurrence where the named one is, a quote with a
    space at an end that the source lacks, and a line-break hyphen read as a space."""
    from workbench.cite import find_occurrences

    version_id, text = _version_with(held_versions, "This Internet-Draft is submitted")
    at = text.index("This Internet-Draft is submitted")
    quote = text[at : at + 32]
    found = [(o.char_start, o.char_end) for o in find_occurrences(text, quote)]
    shifted = verify_for_version(
        workspace,
        Citation(version_id=version_id, char_start=at + 1, char_end=at + 33, quoted_text=quote),
    )
    assert (shifted.outcome, shifted.reason) == ("refused", "quote_mismatch")
    listed = ", ".join(f"[{a}, {b})" for a, b in found)
    assert shifted.detail == (
        f"the text at [{at + 1}, {at + 33}) does not read as the quote; the quote does occur "
        f"exactly at {listed} in this version: correct the citation's offsets (it is refused as "
        "cited)"
    )
    repeated = [(o.char_start, o.char_end) for o in find_occurrences(text, "Internet-Draft")]
    assert len(repeated) > 10  # the refusal lists ten and counts the rest
    first = Citation(
        version_id=version_id,
        char_start=repeated[0][0],
        char_end=repeated[0][1],
        quoted_text="Internet-Draft",
    )
    ambiguous = verify_for_version(workspace, first)
    assert ambiguous.reason == "ambiguous_occurrence"
    ten = ", ".join(f"[{a}, {b})" for a, b in repeated[:10])
    assert ambiguous.detail.endswith(
        f"it occurs at {ten} and {len(repeated) - 10} more: name the one meant with "
        '"occurrence": N (these offsets are "occurrence": 1)'
    )
    wrong = verify_for_version(
        workspace,
        Citation(
            version_id=version_id,
            char_start=repeated[0][0],
            char_end=repeated[0][1],
            quoted_text="Internet-Draft",
            occurrence=2,
        ),
    )
    assert wrong.reason == "wrong_occurrence"
    assert wrong.detail.endswith(
        f"; occurrence 2 is at [{repeated[1][0]}, {repeated[1][1]}): cite those offsets, or name "
        '"occurrence": 1 for these'
    )
    # A space before the quote that the text's first characters do not have.
    opening = next(v for v in held_versions if v.text[:1].isalpha() and v.text[:40].count(" ") > 3)
    head = opening.text[:40]
    spaced = verify_for_version(
        workspace,
        Citation(version_id=opening.version_id, char_start=0, char_end=40, quoted_text=" " + head),
    )
    assert spaced.reason == "quote_mismatch"
    assert not find_occurrences(opening.text, " " + head)
    assert spaced.detail.endswith("; the two differ only by white space at an end")


def test_a_line_break_hyphen_read_as_a_space_is_refused_and_named(
    workspace: Workspace, held_versions: tuple[Version, ...]
) -> None:
    """A real word split at a line break, quoted with a space for the hyphen: refused as a
    mismatch, and the refusal says the difference is only the line-break hyphen's reading."""
    from workbench.cite import find_occurrences

    for version in held_versions:
        match = re.search(r"\b([A-Za-z]{4,})-\n[^\S\n]*([a-z]{4,})\b", version.text)
        if match and not find_occurrences(version.text, f"{match[1]} {match[2]}"):
            break
    else:
        raise AssertionError("no word split at a line break")
    result = verify_for_version(
        workspace,
        Citation(
            version_id=version.version_id,
            char_start=match.start(),
            char_end=match.end(),
            quoted_text=f"{match[1]} {match[2]}",
        ),
    )
    assert (result.outcome, result.reason) == ("refused", "quote_mismatch")
    assert result.detail.endswith(
        "; the two differ only at a line-break hyphen, which reads only joined, hyphen kept, or "
        "hyphen and space"
    )


def _filter_holds(text: str, quotes: list[str]) -> int:
    """`text_skeleton` is the index's skeleton, and every quote found in `text` passes the
    necessary-condition filter (`quote_skeleton` in `text_skeleton`); the number found."""
    assert text_skeleton(text) == build_index(text).skeleton
    found = 0
    for quote in quotes:
        if find_occurrences(text, quote):
            found += 1
            assert quote_skeleton(quote) in text_skeleton(text), (text, quote)
    return found


@given(
    st.lists(st.sampled_from(_SKELETON_PIECES), max_size=30).map("".join),
    st.lists(st.sampled_from(_SKELETON_PIECES), min_size=1, max_size=4).map("".join),
)
def test_the_skeleton_filter_never_rules_out_an_occurrence(text: str, quote: str) -> None:
    _filter_holds(text, [quote, text[len(text) // 3 : len(text) // 3 + len(quote) + 2]])


def test_the_skeleton_filter_never_rules_out_an_occurrence_in_real_text(
    held_versions: tuple[Version, ...],
) -> None:
    """Slices of the held text with the most line-break hyphens (across the breaks, and as
    their readings: joined, hyphen kept) and of the ligature test text: each one found passes
    the filter; a quote that stands nowhere may fail it."""
    text = _most_line_break_hyphens(held_versions)
    folded = normalize(text)
    quotes = [text[at : at + 60] for at in range(0, len(text) - 60, 997)]
    for h in folded.line_break_hyphens[:40]:
        around = folded.text[max(0, h - 12) : h + 14]
        quotes += [around, around.replace("- ", ""), around.replace("- ", "-")]
    assert _filter_holds(text, quotes) > len(quotes) // 2
    assert _filter_holds(TEXT, ["efficient", "e\ufb03cient", "regulation of large-load"]) == 3
    assert quote_skeleton("regulation of large-load") not in text_skeleton(TEXT[:40])
