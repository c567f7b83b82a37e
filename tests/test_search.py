from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from workbench import search
from workbench.cite import Citation, verify_citation
from workbench.cli import main
from workbench.errors import FamilyNotFound, JurisdictionNotFound, SearchQueryError
from workbench.models import CatalogueRow, Passage, Version
from workbench.search import (
    SearchScope,
    build_index,
    find_candidates,
    index_status,
)
from workbench.search.index import search_profile
from workbench.text.normalize import SCHEME_VERSION, normalized_text
from workbench.workspace import Workspace, ingest
from workbench.workspace.passages import held_passages as kept_passages

from .conftest import ROOT, STORE, FreshWorkspace

DC_FAMILY = "dc-code-34-1151"
T = TypeVar("T")


@pytest.fixture(scope="module")
def indexed(workspace: Workspace) -> Workspace:
    """The default workspace with its search index built."""
    build_index(workspace)
    assert index_status(workspace).state == "fresh"
    return workspace


@pytest.fixture(scope="module")
def held_passages(indexed: Workspace) -> dict[str, tuple[Version, tuple[Passage, ...]]]:
    """Each version's passages as the index was built from them: kept by `build_index`, and
    `passages_for_search`'s (tests/test_search_index.py), so not segmented again here."""
    return {v.version_id: (v, _kept(indexed, v)) for v in indexed.versions()}


def _kept(workspace: Workspace, version: Version) -> tuple[Passage, ...]:
    return kept_passages(workspace, version, search_profile(version))


def _dc_rows(catalogue: tuple[CatalogueRow, ...]) -> list[CatalogueRow]:
    return [r for r in catalogue if r.jurisdiction == "us-dc"]


@pytest.fixture
def dc_workspace(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, fresh_workspace: FreshWorkspace
) -> Iterator[Workspace]:
    """A small workspace of the D.C. Code sections only, with no index yet."""
    with fresh_workspace(_dc_rows(catalogue), tmp_path / "dc.sqlite") as held:
        yield held


# ---------------------------------------------------------------------------------------------
# Bad queries


@pytest.mark.parametrize(
    ("query", "k", "message"),
    [
        pytest.param("", 10, "query: empty; expected some text to search for", id="empty"),
        pytest.param(
            " \n\t ", 10, "query: empty; expected some text to search for", id="white-space"
        ),
        pytest.param(
            "x" * 10_001,
            10,
            "query: 10001 characters; at most 10000 are searched (quote less)",
            id="huge",
        ),
        pytest.param(
            "- \u00ad -",
            10,
            "query '- \\xad -': nothing left to search after normalization (only white space and hyphens)",
            id="only-hyphens",
        ),
        pytest.param(
            "rates", 0, "k: 0; expected a positive whole number of candidates", id="k-zero"
        ),
        pytest.param(
            "rates", True, "k: True; expected a positive whole number of candidates", id="k-bool"
        ),
    ],
)
def test_bad_queries_are_refused(indexed: Workspace, query: str, k: int, message: str) -> None:
    with pytest.raises(SearchQueryError) as error:
        find_candidates(query, SearchScope(workspace=indexed), k)
    assert str(error.value) == message


@pytest.mark.parametrize(
    ("jurisdiction", "family", "error", "message"),
    [
        pytest.param("us-xx", None, JurisdictionNotFound, "us-xx: no such jurisdiction in", id="j"),
        pytest.param(None, "dc-code-99", FamilyNotFound, "dc-code-99: no such family in", id="f"),
    ],
)
def test_unknown_scope_is_refused(
    indexed: Workspace,
    jurisdiction: str | None,
    family: str | None,
    error: type[Exception],
    message: str,
) -> None:
    scope = SearchScope(workspace=indexed, jurisdiction=jurisdiction, family=family)
    with pytest.raises(error) as raised:
        find_candidates("rates", scope)
    assert str(raised.value) == f"{message} {indexed.path}"


def test_pure_punctuation_offers_only_passages_that_contain_it(
    indexed: Workspace, held_passages: dict[str, tuple[Version, tuple[Passage, ...]]]
) -> None:
    result = find_candidates("§", SearchScope(workspace=indexed, jurisdiction="us-dc"))
    expected = {
        (v.version_id, p.char_start)
        for v, passages in held_passages.values()
        if v.jurisdiction == "us-dc"
        for p in passages
        if "§" in p.text
    }
    assert {(c.version_id, c.char_start) for c in result.candidates} == expected
    assert len(expected) > 10  # the section sign is common in D.C. Code history notes
    assert result.note.endswith("the query has no letters or digits, so nothing is ranked")
    nowhere = find_candidates("¤¤", SearchScope(workspace=indexed))
    assert nowhere.candidates == ()
    assert nowhere.note == (
        f"index: {nowhere.index.texts} distinct texts, {nowhere.index.passages} passages; "
        "0 substring and 0 ranked candidates; the query has no letters or digits, so nothing is ranked"
    )


# ---------------------------------------------------------------------------------------------
# Never less permissive than the verifier


# A hyphen at a line break between two word characters, with the line's indentation.
_LBH = re.compile(r"(?<=\w)([-\u2010])[ \t]*\r?\n[ \t]*(?=\w)")


def _reading(raw_quote: str, reading: str, rng: random.Random) -> str:
    """The quote as a researcher might type it from the raw span."""
    if reading == "joined":
        return _LBH.sub("", raw_quote)
    if reading == "hyphen-kept":
        return _LBH.sub(r"\1", raw_quote)
    if reading == "soft-hyphens":
        chars = list(raw_quote)
        for at in sorted(rng.sample(range(1, len(chars)), min(3, len(chars) - 1)), reverse=True):
            chars.insert(at, "\u00ad")
        return "".join(chars)
    return raw_quote


def _verified(version: Version, start: int, end: int, quote: str) -> bool:
    citation = Citation(
        version_id=version.version_id, char_start=start, char_end=end, quoted_text=quote
    )
    outcome = verify_citation(citation, version.text)
    if outcome.reason in ("ambiguous_occurrence", "wrong_occurrence"):
        # The words are at the offsets, and elsewhere too: name the occurrence the span is.
        named = outcome.occurrence
        outcome = verify_citation(
            Citation(
                version_id=version.version_id,
                char_start=start,
                char_end=end,
                quoted_text=quote,
                occurrence=named,
            ),
            version.text,
        )
    return outcome.verified


class QuoteSources(dict[str, list[tuple[Version, Passage]]]):
    """Passages to quote from, by kind; a short repr keeps hypothesis reports readable."""

    def __repr__(self) -> str:
        return f"QuoteSources({ {kind: len(pool) for kind, pool in self.items()} })"


@pytest.fixture(scope="module")
def quote_sources(
    held_passages: dict[str, tuple[Version, tuple[Passage, ...]]],
) -> QuoteSources:
    everything = [(v, p) for v, ps in held_passages.values() for p in ps if len(p.text) >= 12]
    return QuoteSources(
        {
            "any": everything,
            "line-break-hyphen": [(v, p) for v, p in everything if _LBH.search(p.text)],
            "soft-hyphen": [(v, p) for v, p in everything if "\u00ad" in p.text],
        }
    )


KINDS = ("any", "line-break-hyphen", "soft-hyphen")
READINGS = ("raw", "joined", "hyphen-kept", "soft-hyphens")


class Draw:
    """Choices for the quote generator: from hypothesis, or from a seeded random.Random."""

    def __init__(self, data: st.DataObject | None = None, rng: random.Random | None = None):
        self.data, self.rng = data, rng

    def integer(self, low: int, high: int, label: str) -> int:
        if self.data is not None:
            return self.data.draw(st.integers(low, high), label)
        assert self.rng is not None
        return self.rng.randint(low, high)

    def choice(self, options: Sequence[T], label: str) -> T:
        return options[self.integer(0, len(options) - 1, label)]


def _quote(sources: QuoteSources, draw: Draw) -> tuple[Version, Passage, int, int, str]:
    """A real quote: a span of a held passage (near a hyphen for the hyphen kinds), as typed."""
    kind = draw.choice(KINDS, "kind")
    reading = draw.choice(READINGS, "reading")
    version, passage = draw.choice(sources[kind], "passage")
    text = passage.text
    if kind == "any":
        start = draw.integer(0, len(text) - 8, "start")
    else:
        marks = [m.start() for m in re.finditer(r"[-\u2010\u00ad]", text)]
        start = max(0, draw.choice(marks, "mark") - draw.integer(1, 60, "before"))
    end = min(len(text), start + draw.integer(8, 300, "length"))
    quote = _reading(text[start:end], reading, random.Random(start))
    return version, passage, passage.char_start + start, passage.char_start + end, quote


def _searchable(quote: str) -> bool:
    return len(normalized_text(quote).strip(" -\u2010\u2011")) >= 8


def _offered(workspace: Workspace, version: Version, passage: Passage, quote: str) -> bool:
    # k=1: substring candidates are never cut by k, and it spares the ranked path.
    result = find_candidates(quote, SearchScope(workspace=workspace), k=1)
    assert result.path == "index"
    offered = {(c.version_id, c.char_start, c.char_end) for c in result.candidates}
    return (version.version_id, passage.char_start, passage.char_end) in offered


@settings(
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_every_reading_of_a_real_quote_finds_its_passage(
    indexed: Workspace, quote_sources: QuoteSources, data: st.DataObject
) -> None:
    """Stronger than C11 needs: every reading the verifier may accept, verified or not."""
    version, passage, _, _, quote = _quote(quote_sources, Draw(data=data))
    assume(_searchable(quote))
    assert _offered(indexed, version, passage, quote)


def test_quotes_the_verifier_passes_are_offered_where_it_passes_them(
    indexed: Workspace, quote_sources: QuoteSources
) -> None:
    """The same quotes, tied to the real verifier: each verifies at its offsets, and is offered."""
    draw = Draw(rng=random.Random(7))
    verified = 0
    for _ in range(200):
        version, passage, start, end, quote = _quote(quote_sources, draw)
        if not _searchable(quote):
            continue
        assert _verified(version, start, end, quote), (version.version_id, start, end, quote)
        assert _offered(indexed, version, passage, quote), (version.version_id, start, quote)
        verified += 1
    assert verified > 150


def test_the_quote_sources_hold_both_kinds_of_hyphen(
    quote_sources: dict[str, list[tuple[Version, Passage]]],
) -> None:
    assert len(quote_sources["line-break-hyphen"]) > 100
    assert len(quote_sources["soft-hyphen"]) > 0


# ---------------------------------------------------------------------------------------------
# Ranking, k and scope


@pytest.mark.slow
def test_substring_candidates_are_never_cut_by_k(corpus_indexed: Workspace) -> None:
    # An IETF boilerplate sentence, broken across lines with a hyphen in many drafts.
    query = "The list of current Internet-Drafts is at"
    result = find_candidates(query, SearchScope(workspace=corpus_indexed), k=1)
    key = search.substring_key(query)
    expected = {
        (v.version_id, p.char_start)
        for v in corpus_indexed.versions()
        for p in _kept(corpus_indexed, v)
        if key in search.substring_key(p.text)
    }
    assert len(expected) > 50
    assert {(c.version_id, c.char_start) for c in result.candidates} == expected
    assert all(c.match == "substring" and c.score == 100.0 for c in result.candidates)


def test_order_is_score_then_version_then_offset(indexed: Workspace) -> None:
    scope = SearchScope(workspace=indexed, jurisdiction="us-dc")
    result = find_candidates("the utility shall post collateral with the commission", scope, 40)
    keys = [(-c.score, c.version_id, c.char_start) for c in result.candidates]
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys) == 40
    assert all(c.version_id.startswith("us-dc/") for c in result.candidates)
    assert find_candidates(result.query, scope, 40) == result
    assert all(c.is_evidence is False for c in result.candidates)


def test_ranking_ignores_case_because_the_processor_is_set(indexed: Workspace) -> None:
    scope = SearchScope(workspace=indexed, family=DC_FAMILY)
    lower = find_candidates("disconnection notice sent to a customer", scope)
    upper = find_candidates("DISCONNECTION NOTICE SENT TO A CUSTOMER", scope)
    assert [(c.version_id, c.char_start, c.score) for c in lower.candidates] == [
        (c.version_id, c.char_start, c.score) for c in upper.candidates
    ]


def test_a_paraphrase_finds_its_clause(indexed: Workspace) -> None:
    # D.C. Code § 34-1151 says "shall include notice of the right of a customer to request that
    # OPC negotiate a payment plan"; the paraphrase swaps four words.
    result = find_candidates(
        "disconnection notices must contain notice of the right of a client to ask that OPC "
        "negotiate a payment scheme",
        SearchScope(workspace=indexed),
        k=3,
    )
    assert [c.version_id.split("/")[1] for c in result.candidates] == [DC_FAMILY] * 3
    assert all(c.match == "ranked" for c in result.candidates)


# ---------------------------------------------------------------------------------------------
# Index lifecycle: missing and stale indexes are not used


def test_missing_then_fresh_then_stale_index(
    dc_workspace: Workspace,
    catalogue: tuple[CatalogueRow, ...],
    monkeypatch: pytest.MonkeyPatch,
    segmented: list[str],
) -> None:
    scope = SearchScope(workspace=dc_workspace)
    query = "negotiate a payment plan"
    missing = find_candidates(query, scope)
    assert missing.path == "scan" and missing.index.state == "missing"
    assert missing.note.startswith(
        f"full scan (missing index: no search index in {dc_workspace.path}; build it with "
        "'workbench search --reindex')"
    )
    # The scan segmented every version once and kept its passages: the build reads them back.
    assert sorted(segmented) == sorted(dc_workspace.version_ids())
    segmented.clear()
    built = build_index(dc_workspace)
    fresh = find_candidates(query, scope)
    assert fresh.path == "index" and built.passages == fresh.index.passages
    # The same substring candidates either way; only the path differs.
    assert [c.version_id for c in fresh.candidates if c.match == "substring"] == [
        c.version_id for c in missing.candidates if c.match == "substring"
    ]
    assert {c.path for c in missing.candidates} == {"scan"}
    assert {c.path for c in fresh.candidates} == {"index"}

    monkeypatch.setattr(search.index, "SCHEME_VERSION", 99)
    assert index_status(dc_workspace).reason == (
        "search index built with normalizer wb-normalize v"
        f"{SCHEME_VERSION}; now wb-normalize v99; "
        "rebuild it with 'workbench search --reindex'"
    )
    assert find_candidates(query, scope).path == "scan"
    assert segmented == []  # the build and the second scan read the kept passages
    monkeypatch.undo()
    assert index_status(dc_workspace).state == "fresh"

    # A new held version changes the corpus digest: the index no longer covers the workspace.
    before = search.corpus_digest(dc_workspace)
    ietf = next(r for r in catalogue if r.jurisdiction == "ietf")
    ingest(dc_workspace, [ietf], STORE)
    stale = index_status(dc_workspace)
    assert stale.state == "stale"
    assert stale.reason == (
        f"search index built with key {before}; now {search.corpus_digest(dc_workspace)}; "
        "rebuild it with 'workbench search --reindex'"
    )
    assert build_index(dc_workspace).passages > built.passages
    assert index_status(dc_workspace).state == "fresh"


def test_search_imports_nothing_from_the_verifier_and_the_reverse() -> None:
    for module in (ROOT / "workbench" / "search").glob("*.py"):
        assert "workbench.cite" not in module.read_text(encoding="utf-8"), module
    for path in (ROOT / "workbench" / "cite").glob("*.py"):
        assert "workbench.search" not in path.read_text(encoding="utf-8"), path


# ---------------------------------------------------------------------------------------------
# Command line


def _cli(
    capsysbinary: pytest.CaptureFixture[bytes], *args: str, workspace: Path
) -> tuple[int, str, str]:
    code = main(["search", *args, "--workspace", str(workspace)])
    out, err = capsysbinary.readouterr()
    return code, out.decode("utf-8"), err.decode("utf-8")


def test_cli_search_json_and_errors(
    dc_workspace: Workspace, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    path = dc_workspace.path
    code, out, _ = _cli(capsysbinary, "--reindex", workspace=path)
    assert code == 0 and out.startswith(f"search index built in {path}: ")
    code, out, err = _cli(
        capsysbinary, "payment plan", "--family", DC_FAMILY, "-k", "2", "--json", workspace=path
    )
    assert code == 0, err
    shown = json.loads(out)
    assert shown["path"] == "index" and shown["index"] == {"state": "fresh", "reason": ""}
    first = shown["candidates"][0]
    assert first["is_evidence"] is False and first["match"] == "substring"
    text = dc_workspace.version(first["version_id"]).text
    assert text[first["char_start"] : first["char_end"]] == first["text"]
    assert "payment plan" in " ".join(first["text"].split())
    code, out, _ = _cli(capsysbinary, "payment plan", "--family", DC_FAMILY, workspace=path)
    assert out.splitlines()[0].endswith(
        "candidates are never evidence: verify a quote before citing it"
    )
    for args, message in (
        (("",), "workbench: error: query: empty; expected some text to search for\n"),
        (
            (),
            "workbench: error: query: missing; give QUERY, or --reindex to build the index only\n",
        ),
    ):
        assert _cli(capsysbinary, *args, workspace=path) == (2, "", message)
