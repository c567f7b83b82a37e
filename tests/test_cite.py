from __future__ import annotations

import json
import random
import re
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from numpy.lib.stride_tricks import sliding_window_view

from workbench.cite import Citation, verify_citation, verify_citations, verify_for_version
from workbench.cite.formats import read_citations
from workbench.cite.index import (
    _SKELETON_CUT,
    GRAM,
    HYPHENS,
    STRIDE,
    SourceIndex,
    _gram_hashes,
    _leading_hashes,
    build_index,
    skeleton,
)
from workbench.cite.probes import corruption_probes
from workbench.cite.verify import (
    _ABBREVIATIONS,
    QUALIFIER_REACH,
    _reread,
    _sentence_ends,
    _verify_copied,
    _verify_general,
    occurrence_hits,
    qualifier_flags,
    qualifier_matches,
    qualifiers_near,
    reads_as,
    verify_batch,
)
from workbench.cite.verify import _QUALIFIER as _QUAL_RE
from workbench.errors import CitationError
from workbench.normalize import code_points, normalize, normalized_text
from workbench.segment import segment
from workbench.store import Workspace

from .conftest import ROOT

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
            for hit in occurrence_hits(index, quote):
                raw_start, raw_end = index.normalized.raw_span(hit.norm_start, hit.norm_end)
                exact = _reread(text[raw_start:raw_end], quote)
                if hit.fast:
                    reached += 1
                    assert exact, (text, quote, hit)
                else:
                    slow += 1
                    assert hit.counted == exact
    assert reached >= 1000, reached
    assert slow > 0, "no hit took the slow path"


@given(st.text(alphabet=st.sampled_from(list("ab -\u2010\u2011")), max_size=60))
def test_skeleton_equals_its_regular_expression(text: str) -> None:
    assert skeleton(text) == _SKELETON_CUT.sub("", text)


def test_batch_look_up_finds_every_occurrence_in_real_text(workspace: Workspace) -> None:
    """Patterns on both sides of the length where the sampled look-up takes over, boilerplate
    that repeats, and patterns that do not occur: the batch finds exactly what `str.find` finds."""
    version = max(workspace.versions(), key=lambda v: len(v.text))
    index = build_index(version.text)
    skel = index.skeleton
    rng = random.Random(5)
    shortest = GRAM + STRIDE - 1
    patterns, spans = [], []
    for length in (1, 5, shortest - 1, shortest, shortest + 1, 60, 300):
        for _ in range(150):
            at = rng.randrange(len(skel) - length)
            patterns.append(skel[at : at + length])
            spans.append((at, at + length))
    patterns += [p + "\u2603" for p in patterns[-50:]] + [""]

    def every(pattern: str) -> list[int]:
        found, at = [], skel.find(pattern) if pattern else -1
        while at >= 0:
            found.append(at)
            at = skel.find(pattern, at + 1)
        return found

    expected = [every(p) for p in patterns]
    assert index.skeleton_hits_many(patterns) == expected
    assert [index.skeleton_hits(p) for p in patterns[::7]] == expected[::7]
    assert sum(len(e) > 1 for e in expected) > 50, "the sample must hold repeated patterns"
    # The presence map holds every chunk's hash (a gram it refuses is no chunk's) and refuses most.
    top = (index.chunk_hashes >> np.uint64(64 - index.presence_bits)).astype(np.intp)
    assert index.gram_presence[top].all() and index.gram_presence.mean() < 0.3
    assert index.presence_bits >= index.bucket_bits  # a hash it passes has a key in its bucket
    # The same look-up for the skeleton's own spans, hashed where they stand.
    starts, ends = np.array(spans).T
    rows, hits = index.skeleton_repeats(starts, ends)
    flat = [(row, hit) for row, found in enumerate(expected[: len(spans)]) for hit in found]
    assert list(zip(rows.tolist(), hits.tolist(), strict=True)) == flat


def test_spans_with_one_text_are_looked_up_once_and_find_every_occurrence(
    workspace: Workspace,
) -> None:
    """Real spans cited at several of their occurrences are looked up once and each finds them
    all; spans that share their length and first gram (one group) but not their text are each
    looked up on their own."""
    version = max(workspace.versions(), key=lambda v: len(v.text))
    index = build_index(version.text)
    skel = index.skeleton
    length = 60
    by_lead: dict[str, dict[str, list[int]]] = {}
    for at in range(0, len(skel) - length, 7):
        span = skel[at : at + length]
        by_lead.setdefault(span[:GRAM], {}).setdefault(span, []).append(at)
    # Leads followed by more than one text, one of which repeats: copies and look-alikes.
    mixed = [texts for texts in by_lead.values() if len(texts) > 1]
    mixed = [t for t in mixed if max(map(len, t.values())) > 1][:40]
    starts = [at for texts in mixed for ats in texts.values() for at in ats[:4]]
    assert len(mixed) == 40 and len(starts) > 150
    starts_array = np.array(starts)
    leads = sliding_window_view(index.skeleton_codes, GRAM)[starts_array]
    copies, originals = index._same_texts(
        starts_array, np.full(len(starts), length), _gram_hashes(np.ascontiguousarray(leads))
    )
    # A span is a copy when its text is its group's first's (the group: its lead and length);
    # a look-alike (same group, other text) is looked up on its own, even when it repeats.
    texts = [skel[at : at + length] for at in starts]
    group_first: dict[str, int] = {}
    heads = [group_first.setdefault(text[:GRAM], i) for i, text in enumerate(texts)]
    expected = [i for i, head in enumerate(heads) if head != i and texts[head] == texts[i]]
    lookalikes = [texts[i] for i, head in enumerate(heads) if texts[head] != texts[i]]
    assert sorted(copies.tolist()) == expected and expected
    assert (originals == np.array(heads)[copies]).all()
    assert lookalikes and len(set(lookalikes)) < len(lookalikes)
    rows, hits = index.skeleton_repeats(starts_array, starts_array + length)
    flat = [(row, hit) for row, text in enumerate(texts) for hit in _every(skel, text)]
    assert list(zip(rows.tolist(), hits.tolist(), strict=True)) == flat


def test_a_batch_decides_each_citation_as_alone(workspace: Workspace) -> None:
    """Sharing the work of a batch changes no verdict: every probe kind, mixed in one batch
    against one version, gets the outcome it gets alone."""
    version = max(workspace.versions(), key=lambda v: len(v.text))
    probes = corruption_probes([version], seed=4, per_version=40)
    citations = [p.citation for p in probes]
    index = build_index(version.text)
    together = verify_batch(index, citations)
    assert together == [verify_batch(index, [c])[0] for c in citations]
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


def _version_with(workspace: Workspace, needle: str) -> tuple[str, str]:
    for version in workspace.versions():
        if needle in version.text:
            return version.version_id, version.text
    raise AssertionError(needle)


def test_corruption_suite_on_the_real_corpus(workspace: Workspace) -> None:
    """Every probe refused for the right reason, every honest probe verified."""
    probes = corruption_probes(workspace.versions(), seed=11, per_version=2)
    results = verify_citations(workspace, [p.citation for p in probes])
    wrong = [
        (p.kind, p.expected, r.reason, p.citation.version_id)
        for p, r in zip(probes, results, strict=True)
        if (r.reason or "verified") != p.expected
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
        "plain digit quoted as superscript",
    ):
        assert kinds[kind] >= 2, (kind, kinds)


def test_a_version_id_or_quote_that_is_no_string_is_a_typed_error(workspace: Workspace) -> None:
    """In a batch of good citations, one whose quote or version id is not a str stops the batch
    with an error naming it and both types; the held versions are untouched."""
    index = build_index(TEXT)
    good = _cite("customer")
    bad_quote = Citation(version_id="v", char_start=0, char_end=3, quoted_text=7)  # type: ignore[arg-type]
    with pytest.raises(
        CitationError, match=r"^'v': version_id and quoted_text must be strings, got str and int$"
    ):
        verify_batch(index, [good, bad_quote])
    bad_version = Citation(version_id=None, char_start=0, char_end=3, quoted_text="x")  # type: ignore[arg-type]
    with pytest.raises(
        CitationError,
        match=r"^None: version_id and quoted_text must be strings, got NoneType and str$",
    ):
        verify_batch(index, [good, bad_version])
    with pytest.raises(CitationError, match=r"^version_id None must be a string$"):
        verify_citations(workspace, [good, bad_version])
    version = workspace.versions()[0]
    held = Citation(version_id=version.version_id, char_start=0, char_end=3, quoted_text=b"abc")  # type: ignore[arg-type]
    before = [(v.version_id, v.text_sha256) for v in workspace.versions()]
    with pytest.raises(
        CitationError, match=rf"^'{re.escape(version.version_id)}': .* got str and bytes$"
    ):
        verify_citations(workspace, [held])
    assert [(v.version_id, v.text_sha256) for v in workspace.versions()] == before


def test_altered_stored_text_is_refused_as_changed(workspace: Workspace, tmp_path: Path) -> None:
    copy = tmp_path / "altered.sqlite"
    with sqlite3.connect(workspace.path) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    version_id, text = _version_with(workspace, "Internet-Draft")
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
    assert missing.detail == "no/such: no such version is held"
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


def test_qualifier_flags_on_truncated_real_sentences(workspace: Workspace) -> None:
    """Cut a real sentence just before its qualifier: verified, flagged with the word's offsets;
    quote it whole: the qualifier is inside and is not flagged."""
    checked = 0
    for version in workspace.versions()[::3]:
        text = version.text
        for passage in segment(version.version_id, text)[:400]:
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
            "line 1: field 'occurence': unknown field (expected version_id, char_start, char_end, quoted_text, occurrence, page)",
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
            b'{"target": {"source": "v", "selector": [{"type": "TextQuoteSelector", "exact": "x"}]}}',
            "line 1: field 'target.selector': no TextPositionSelector",
            id="w3c-no-position",
        ),
        pytest.param(
            "anthropic",
            b'{"type": "content_block_location", "cited_text": "x"}',
            "line 1: field 'type': expected 'char_location' or 'page_location', got 'content_block_location'",
            id="anthropic-type",
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
    workspace: Workspace, tmp_path: Path
) -> None:
    version_id, text = _version_with(workspace, "This Internet-Draft is submitted")
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
    assert out[3].startswith("1 verified, 1 refused, 1 malformed lines; verified means")

    citations.write_text(json.dumps(ours) + "\n", encoding="utf-8")
    exported = _run("export-annotations", str(citations), workspace=workspace.path)
    assert exported.returncode == 0, exported.stderr
    annotation = json.loads(exported.stdout)
    assert annotation["target"]["source"]["id"] == version_id
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


def test_export_context_makes_a_repeated_quote_unique(workspace: Workspace) -> None:
    from workbench.cite.formats import export_annotations

    version_id, text = next(
        (v.version_id, v.text) for v in workspace.versions() if v.text.count("Recommenda-\n") >= 2
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


# ---------------------------------------------------------------------------------------------
# The columnar path for copied quotes and the qualifier finder


def _copied(version_id: str, text: str, rng: random.Random, count: int) -> list[Citation]:
    """Raw slices quoted as they stand: word-aligned and arbitrary cuts (inside white-space runs,
    on soft hyphens, in the middle of words), with no occurrence, the first, or a wrong one; one
    in ten names its occurrence by the text before or after it instead (the general path's)."""
    citations = []
    while len(citations) < count:
        start = rng.randrange(len(text) - 1)
        end = min(len(text), start + rng.choice((1, 3, 20, 31, 32, 47, 80, 300)))
        context = rng.choice((None,) * 18 + ("prefix", "suffix"))
        citations.append(
            Citation(
                version_id=version_id,
                char_start=start,
                char_end=end,
                quoted_text=text[start:end],
                occurrence=rng.choice((None, 1, 1, 2)),
                prefix=text[max(0, start - 8) : start] if context == "prefix" else None,
                suffix=text[end : end + 8] if context == "suffix" else None,
            )
        )
    return citations


def _general_and_columnar_agree(index: SourceIndex, citations: list[Citation]) -> int:
    """Assert every citation the columnar path decides gets `_verify_general`'s verdict; return
    how many it decided."""
    columnar = _verify_copied(index, citations)
    general = _verify_general(index, citations)
    decided = 0
    for citation, fast, slow in zip(citations, columnar, general, strict=True):
        if citation.prefix is not None or citation.suffix is not None:
            assert fast is None, "an occurrence named by its context is the general path's"
        if fast is not None:
            assert fast == slow
            decided += 1
    assert verify_batch(index, citations) == general
    return decided


def test_copied_quotes_get_the_general_verdict_on_real_text(workspace: Workspace) -> None:
    """On the largest held version (no line-break hyphen) and on the held version with the most
    line-break hyphens, the columnar path decides most copied quotes, each as the general path
    does: repeated boilerplate, wrong occurrences and qualifier flags included."""
    versions = workspace.versions()
    largest = max(versions, key=lambda v: len(v.text))
    hyphenated = max(versions, key=lambda v: len(normalize(v.text).line_break_hyphens))
    assert normalize(hyphenated.text).line_break_hyphens, "the corpus holds line-break hyphens"
    rng = random.Random(11)
    for version in (largest, hyphenated):
        citations = _copied(version.version_id, version.text, rng, 1500)
        decided = _general_and_columnar_agree(build_index(version.text), citations)
        assert decided > len(citations) // 2, (version.version_id, decided)
    outcomes = Counter(
        (r.reason, bool(r.qualifiers))
        for r in verify_batch(
            build_index(largest.text), _copied(largest.version_id, largest.text, rng, 1500)
        )
    )
    assert (
        outcomes[(None, True)] and outcomes[(None, False)] and outcomes[("wrong_occurrence", False)]
    )


def test_quotes_of_one_text_share_their_occurrences(workspace: Workspace) -> None:
    """Real boilerplate cited at each of its occurrences: the columnar path decides every one as
    the general path does, and the quotes of one text share one tuple of occurrences. Where a
    line-break hyphen may be read another way, two quotes whose first hits are one span need not
    have the same hits, and each gets its own."""
    version = max(workspace.versions(), key=lambda v: len(v.text))
    raw = version.text
    phrases: list[str] = []
    for at in range(0, len(raw) - 70, 211):
        start = raw.find(" ", at) + 1
        phrase = raw[start : start + 60]
        if (
            phrase == phrase.strip()
            and "\n" not in phrase
            and "  " not in phrase
            and raw.count(phrase) >= 3
        ):
            phrases.append(phrase)
    phrases = sorted(set(phrases))[:25]
    assert len(phrases) == 25
    citations, of_phrase = [], []
    for phrase in phrases:
        at, number = raw.find(phrase), 1
        while at >= 0:
            for occurrence in (number, None):
                citations.append(
                    Citation(
                        version_id=version.version_id,
                        char_start=at,
                        char_end=at + len(phrase),
                        quoted_text=phrase,
                        occurrence=occurrence,
                    )
                )
                of_phrase.append(phrase)
            at, number = raw.find(phrase, at + 1), number + 1
    index = build_index(raw)
    assert not (index.folds_hyphens or index.normalized.expands)
    assert _general_and_columnar_agree(index, citations) == len(citations)
    results = _verify_copied(index, citations)
    for phrase in phrases:
        shared = {id(r.occurrences) for r, p in zip(results, of_phrase, strict=True) if p == phrase}
        assert len(shared) == 1
    # A joined reading and the text as written: the first hits are one span, the hits are not.
    text = "the regu-\nlation applies here; " * 3 + "the regulation applies here; " * 2
    written, joined = "regu-\nlation applies here", "regulation applies here"
    at_written, at_joined = text.index(written), text.index(joined)
    mixed = [
        Citation(version_id="v", char_start=at, char_end=at + len(q), quoted_text=q)
        for at, q in ((at_written, written), (at_joined, joined))
    ]
    index = build_index(text)
    assert index.folds_hyphens
    decided = _verify_copied(index, mixed)
    assert all(decided) and _general_and_columnar_agree(index, mixed) == 2
    assert [len(r.occurrences) for r in decided if r is not None] == [3, 5]


@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=40).map(" ".join), st.data())
@settings(max_examples=150, deadline=None)
def test_copied_quotes_get_the_general_verdict_on_adversarial_text(
    text: str, data: st.DataObject
) -> None:
    """Ligatures, soft hyphens, line-break hyphens, folded white space and repeated words: every
    copied quote the columnar path decides gets the general path's verdict."""
    spans = data.draw(
        st.lists(
            st.tuples(st.integers(0, len(text) - 1), st.integers(1, 60)), min_size=1, max_size=8
        )
    )
    citations = [
        Citation(
            version_id="v",
            char_start=start,
            char_end=min(len(text), start + size),
            quoted_text=text[start : min(len(text), start + size)],
            occurrence=data.draw(st.sampled_from((None, 1, 2))),
        )
        for start, size in spans
    ]
    _general_and_columnar_agree(build_index(text), citations)


def test_qualifier_finder_equals_the_regular_expression(workspace: Workspace) -> None:
    """The array pass finds exactly what `_QUALIFIER.finditer` finds: on every held version, and on
    text built to trip it (folded capitals, the long s, words glued to letters and digits, "No.")."""
    tricky = (
        "NOT no. No unless UNLESS ſubject to Subject To subjects to except exceptional "
        "provided that provided, however, that Provided, that xnot 9no _no \u2041not é-not "
        "notwithstanding nothing no\u00adt note not "
        "noT NOTWITHSTANDING no9 no_ nob no\u00e9 no\u017f no- UNLESS unLESS EXCEPT PROVIDED that "
        "SUBJECT TO su bject un less ex cept pro vided suBject unl exc pro sub "
        "unleſs notwİthstanding notwıthstanding NOTWITHSTANDINg no\u2054a not\u2054a noT9 "
        "subjectto subject-to providedthat provide provision proviso submit unlawful exceed "
        "note notice No. 5 no. nO.5 no, not."
    )
    texts = [v.text for v in workspace.versions()]
    texts += [tricky, tricky + " no", tricky + " not", "", "no", "n", "not", "NOT", "nots"]
    total = 0
    for text in texts:
        index = build_index(text)
        found = qualifier_matches(index)
        expected = [
            (m.start(), m.end(), m.group()) for m in _QUAL_RE.finditer(index.normalized.text)
        ]
        got = zip(found.starts.tolist(), found.ends.tolist(), found.words, strict=True)
        assert list(got) == expected
        total += len(expected)
    assert total > 1000


_SENTENCE_END_RE = re.compile(r"[.?!][\"”’)\]]* (?=[A-Z0-9(“\"‘\[§])")
_PARAGRAPH_RE = re.compile(r"\n[^\S\n]*\n")
_WORD_BEFORE_RE = re.compile(r"[\w.]*\Z")


def _is_sentence_end(text: str, match: re.Match[str]) -> bool:
    """The sentence rule read by regular expressions (the oracle): the mark `match` found ends a
    sentence unless the word before it (the run of word characters and dots, at most 12, that
    ends there) is a single letter, holds a dot, or is a common abbreviation."""
    word = _WORD_BEFORE_RE.search(text, max(0, match.start() - 12), match.start())
    token = word.group().lower() if word is not None else ""
    return len(token) > 1 and "." not in token and token not in _ABBREVIATIONS


def _sentence_ends_by_scan(text: str, marks: list[int]) -> tuple[list[int], list[int]]:
    found = [(m, _SENTENCE_END_RE.match(text, m)) for m in marks]
    kept = [(m, e.end()) for m, e in found if e is not None and _is_sentence_end(text, e)]
    return [m for m, _ in kept], [end for _, end in kept]


def _qualifiers_by_scan(
    index: SourceIndex, start: int, end: int
) -> list[tuple[str, int, int, str]]:
    """The qualifier rule read straight off the text, one quote at a time (the oracle for the
    columnar scan): every `_QUALIFIER` word wholly before or after normalized `[start, end)` within
    `QUALIFIER_REACH`, with no sentence end between it and the quote and no blank raw line."""
    folded = index.normalized
    text = folded.text
    lo = max(0, start - QUALIFIER_REACH)
    hi = min(len(text), end + QUALIFIER_REACH)
    words = []
    for word in _QUAL_RE.finditer(text, lo):  # `\b` still reads the character before `lo`
        if word.start() >= hi:
            break
        words.append(word)
    for ending in _SENTENCE_END_RE.finditer(text, lo, start + 1):
        if _is_sentence_end(text, ending):
            lo = ending.end()
    for mark in re.finditer(r"[.?!]", text[end:hi]):
        ending = _SENTENCE_END_RE.match(text, end + mark.start())
        if ending is not None and _is_sentence_end(text, ending):
            hi = ending.start() + 1
            break
    while hi < len(text) and text[hi - 1].isalnum() and text[hi].isalnum():
        hi += 1
    quote_start, quote_end = folded.raw_span(start, end)
    flags = []
    for word in words:
        before = word.end() <= start
        if not (lo <= word.start() and before) and not (end <= word.start() and word.end() <= hi):
            continue
        raw_start, raw_end = folded.raw_span(word.start(), word.end())
        gap = index.text[raw_end:quote_start] if before else index.text[quote_end:raw_start]
        if not _PARAGRAPH_RE.search(gap):
            flags.append((word.group(), raw_start, raw_end, "before" if before else "after"))
    return flags


def _check_qualifier_flags(index: SourceIndex, spans: list[tuple[int, int]]) -> int:
    """Assert the columnar scan flags what the oracle flags for every span; the flags seen."""
    starts = np.array([a for a, _ in spans], np.int64)
    ends = np.array([b for _, b in spans], np.int64)
    seen = 0
    for (start, end), flags in zip(spans, qualifier_flags(index, starts, ends), strict=True):
        expected = _qualifiers_by_scan(index, start, end)
        assert [tuple(flag) for flag in flags] == expected, (start, end)
        assert qualifiers_near(index, start, end) == flags
        seen += len(flags)
    return seen


def test_columnar_qualifier_scan_equals_the_rule_read_off_the_text(workspace: Workspace) -> None:
    """On every held version, spans ending and starting around each qualifier word (so that words
    fall at the reach limit, across sentence ends and blank lines) get the oracle's flags."""
    rng = random.Random(7)
    flagged = 0
    for version in workspace.versions():
        index = build_index(version.text)
        size = len(index.normalized.text)
        words = qualifier_matches(index).starts.tolist()
        spans = []
        for at in rng.sample(words, min(40, len(words))):
            for _ in range(3):
                start = max(0, at + rng.randint(-QUALIFIER_REACH - 20, 30))
                end = min(size, start + rng.randint(1, 120))
                if start < end:
                    spans.append((start, end))
        flagged += _check_qualifier_flags(index, spans)
    assert flagged > 2000


_QUALIFIER_PIECES = [
    *"aZ.9 ,\n",
    "not",
    "No.",
    "no",
    "unless",
    "except",
    "provided, however, that",
    "subject to",
    ". A",
    '." (',
    "Sec. ",
    "\n\n",
    "e\ufb03",
    "x" * 150,
]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(_QUALIFIER_PIECES), min_size=1, max_size=40).map("".join), st.data()
)
def test_columnar_qualifier_scan_on_adversarial_text(text: str, data: st.DataObject) -> None:
    """Qualifier words beside sentence marks, abbreviations, blank lines, a ligature and long words
    that the reach limit cuts: the columnar scan flags what the oracle flags."""
    index = build_index(text)
    size = len(index.normalized.text)
    spans = data.draw(
        st.lists(st.tuples(st.integers(0, size), st.integers(1, 200)), min_size=1, max_size=6)
    )
    _check_qualifier_flags(index, [(a, min(size, a + n)) for a, n in spans if a < size])


_SENTENCE_PIECES = [
    *'aZ.9_ \u0130\u00e9-\u00a7?!"”’)]([“‘\u0131\u00bd\u2054\n',
    "no",
    "sec",
    "Inc",
    "U.S",
    ". A",
    '." (',
    "x" * 13,
]


@given(st.lists(st.sampled_from(_SENTENCE_PIECES), max_size=30).map("".join))
@example("Café. A")  # a word of non-ASCII letters
@example("Nr 1\u00bd. A")  # a non-ASCII digit ends the word
@example("No\u2054. A")  # a non-ASCII character that is no word character
def test_sentence_ends_read_the_rule_at_every_mark(text: str) -> None:
    """The array pass decides every mark as the rule's regular expressions do: closing marks,
    the space and what follows it, and the word before (non-ASCII letters and digits, "_", dots,
    words longer than the 12 characters read, abbreviations, the text's start and end)."""
    marks = [m.start() for m in re.finditer(r"[.?!]", text)]
    found = _sentence_ends(text, code_points(text), np.array(marks, np.int64))
    assert (found[0].tolist(), found[1].tolist()) == _sentence_ends_by_scan(text, marks)


def test_sentence_ends_read_the_rule_on_every_held_version(workspace: Workspace) -> None:
    """Every sentence mark of every held version, decided by the array pass and by the rule's
    regular expressions."""
    total = 0
    for version in workspace.versions():
        text = normalized_text(version.text)
        marks = [m.start() for m in re.finditer(r"[.?!]", text)]
        found = _sentence_ends(text, code_points(text), np.array(marks, np.int64))
        expected = _sentence_ends_by_scan(text, marks)
        assert (found[0].tolist(), found[1].tolist()) == expected, version.version_id
        total += len(expected[0])
    assert total > 10_000


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
    assert index.folds_hyphens
    assert index.skeleton == _SKELETON_CUT.sub("", folded) == "".join(folded[i] for i in kept)
    assert [index.normalized_of_skeleton(i) for i in range(len(index.skeleton))] == kept


def _most_line_break_hyphens(workspace: Workspace) -> str:
    """The long held text with the most line-break hyphens."""
    from workbench.normalize import LONG_TEXT

    texts = [v.text for v in workspace.versions() if len(v.text) >= LONG_TEXT]
    return max(texts, key=lambda text: len(normalize(text).line_break_hyphens))


def _every(haystack: str, needle: str) -> list[int]:
    found, at = [], haystack.find(needle) if needle else -1
    while at >= 0:
        found.append(at)
        at = haystack.find(needle, at + 1)
    return found


@given(st.lists(st.sampled_from(_SKELETON_PIECES), max_size=40).map("".join))
def test_folded_skeleton_and_its_map_equal_brute_force(text: str) -> None:
    _check_folded_skeleton(build_index(text, fold_hyphens=True))


def test_folded_skeleton_and_its_map_on_long_and_real_text(workspace: Workspace) -> None:
    """The array-built skeleton and kept maps equal the regular expression and a one-character-
    at-a-time map: on long adversarial text (the array pass) and on the held text with the most
    line-break hyphens (folded by default)."""
    from workbench.normalize import LONG_TEXT

    rng = random.Random(11)
    for _ in range(12):
        size = rng.randrange(LONG_TEXT, 3 * LONG_TEXT)
        _check_folded_skeleton(
            build_index(
                "".join(rng.choice(_SKELETON_PIECES) for _ in range(size)), fold_hyphens=True
            )
        )
    index = build_index(_most_line_break_hyphens(workspace))
    assert len(index.points) > 5
    _check_folded_skeleton(index)


def test_index_with_and_without_hyphen_folding_finds_what_find_finds(workspace: Workspace) -> None:
    """On a real text with line-break hyphens: the unfolded index is the normalized text and finds
    what `str.find` finds there; the folded one finds what `str.find` finds in its skeleton, and a
    pattern with no hyphen and no leading space has, among its skeleton hits that stay inside one
    kept run, exactly its occurrences in the normalized text."""
    text = _most_line_break_hyphens(workspace)
    folded_index = build_index(text)
    plain = build_index(text, fold_hyphens=False)
    assert folded_index.folds_hyphens and not plain.folds_hyphens
    assert plain.skeleton == plain.normalized.text
    assert plain.kept_skeleton == plain.kept_normalized == (0,)
    folded = plain.normalized.text
    rng = random.Random(8)
    patterns = []
    for length in (5, GRAM + STRIDE - 2, GRAM + STRIDE - 1, GRAM + STRIDE, 64, 300):
        for _ in range(80):
            at = rng.randrange(len(folded) - length)
            patterns.append(folded[at : at + length])
    patterns += [folded[max(0, p - 20) : p + 22] for p in folded_index.points]
    patterns += [p[:-1] + "\u2603" for p in patterns[-60:]]
    assert plain.skeleton_hits_many(patterns) == [_every(folded, p) for p in patterns]
    skeletons = [skeleton(p) for p in patterns]
    folded_hits = folded_index.skeleton_hits_many(skeletons)
    assert folded_hits == [_every(folded_index.skeleton, p) for p in skeletons]
    compared = 0
    for pattern, hits in zip(patterns, folded_hits, strict=True):
        if pattern.startswith(" ") or any(h in pattern for h in HYPHENS):
            continue
        at = [folded_index.normalized_of_skeleton(s) for s in hits]
        last = [folded_index.normalized_of_skeleton(s + len(pattern) - 1) for s in hits]
        inside = [a for a, b in zip(at, last, strict=True) if b - a == len(pattern) - 1]
        assert inside == _every(folded, pattern)
        compared += 1
    assert compared > 200
    assert sum(len(h) > 1 for h in folded_hits) > 10, "the sample must hold repeated patterns"


def test_index_hands_over_the_map_as_arrays(workspace: Workspace) -> None:
    """The index's map arrays equal the normalized text's tuples; it folds hyphens exactly when
    the text has a line-break hyphen, and otherwise is built over the normalized text itself."""
    largest = max(workspace.versions(), key=lambda v: len(v.text)).text
    for text in (largest, _most_line_break_hyphens(workspace), "regu-\nlation and pre-\fand", ""):
        index = build_index(text)
        folded = index.normalized
        assert index.folds_hyphens == bool(folded.line_break_hyphens)
        if not index.folds_hyphens:
            assert index.skeleton == folded.text
            assert index.kept_skeleton == index.kept_normalized == (0,)
        assert index.norm_starts_array.dtype == index.raw_lens_array.dtype == "int64"
        assert tuple(index.norm_starts_array.tolist()) == folded.norm_starts
        assert tuple(index.raw_starts_array.tolist()) == folded.raw_starts
        assert tuple(index.raw_lens_array.tolist()) == folded.raw_lens
        assert tuple(index.identity_array.tolist()) == folded.identity


@pytest.mark.parametrize(
    ("extra", "width"),
    [
        pytest.param("", 1, id="ascii"),
        pytest.param("\u00e9\u2013", 2, id="bmp"),
        pytest.param("\U0001d538", 4, id="astral"),
    ],
)
def test_batch_look_up_at_every_code_width(extra: str, width: int) -> None:
    """Grams are hashed at the skeleton's code width; a pattern with a character too wide for it
    (its hash wraps around) finds nothing, and every other finds what `str.find` finds."""
    rng = random.Random(width)
    sentences = [
        "The entity shall not-\nretain the record.",
        f"A pre- and post-{extra}filing review of each.",
        "Each record  shall be kept for six years.",
    ]
    index = build_index(" ".join(rng.choice(sentences) for _ in range(600)))
    assert index.code_width.itemsize == width
    skel = index.skeleton
    patterns, starts = [], []
    for length in (GRAM + STRIDE - 1, 40, 100):
        for _ in range(100):
            at = rng.randrange(len(skel) - length)
            patterns.append(skel[at : at + length])
            starts.append(at)
    wide = [p[:10] + chr(ord(p[10]) + 0x100) + p[11:] for p in patterns[:50]]
    wide += [p[:10] + chr(ord(p[10]) + 0x10000) + p[11:] for p in patterns[:50]]
    expected = [_every(skel, p) for p in patterns + wide]
    assert index.skeleton_hits_many(patterns + wide) == expected
    assert not any(expected[len(patterns) :]) and sum(len(e) > 1 for e in expected) > 20
    # The skeleton's own spans, hashed from its code points at this width, find the same.
    begins = np.array(starts)
    rows, hits = index.skeleton_repeats(begins, begins + np.array(list(map(len, patterns))))
    flat = [(row, hit) for row, found in enumerate(expected[: len(patterns)]) for hit in found]
    assert list(zip(rows.tolist(), hits.tolist(), strict=True)) == flat


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32])
def test_leading_hashes_equal_each_windows_hash(dtype: type[np.unsignedinteger]) -> None:
    """The strided gram hashes equal `_gram_hashes` of each window cut out, for rows of whole
    64-bit words, rows that need padding, and a row view that is not contiguous."""
    rng = np.random.default_rng(7)
    top = np.iinfo(dtype).max
    for width, grams in ((GRAM + STRIDE, STRIDE), (GRAM + STRIDE - 1, STRIDE), (47, 32)):
        codes = rng.integers(0, top, (200, width + 3), dtype=np.uint64, endpoint=True).astype(dtype)
        for rows in (np.ascontiguousarray(codes[:, :width]), codes[:, 3:]):
            expected = np.array(
                [_gram_hashes(np.ascontiguousarray(rows[:, r : r + GRAM])) for r in range(grams)]
            ).T
            assert (_leading_hashes(rows, grams) == expected).all()


def test_a_span_ending_at_the_texts_end_finds_its_repeats() -> None:
    """The look-up reads one code point past a span's leading grams; for a span that ends at
    the text's end that read is clipped, and the span's occurrences are still all found."""
    phrase = "the operator shall keep each record for five years."
    text = f"{phrase} and {phrase}"
    index = build_index(text)
    length = GRAM + STRIDE - 1
    start = len(index.skeleton) - length
    rows, hits = index.skeleton_repeats(np.array([start]), np.array([start + length]))
    assert rows.tolist() == [0, 0]
    assert hits.tolist() == _every(index.skeleton, index.skeleton[start:])
