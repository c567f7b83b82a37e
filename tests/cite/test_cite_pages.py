"""Citations by page, against the page map of a real NERC PDF version (and a text version)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from workbench.cite import find_text
from workbench.cite.formats import read_citations
from workbench.cite.pages import span_pages
from workbench.cite.placing import SHOWN_CHARS, verify_lines
from workbench.models import Version
from workbench.workspace import Workspace

PDF = "us-nerc/nerc-cip-002/cip-002-5.1a.pdf"
TEXT = "ietf/draft-ietf-appsawg-http-problem/draft-ietf-appsawg-http-problem-01.txt"


def _unique_line_on(version: Version, page: int) -> str:
    """The first line of at least 40 characters on `page` that occurs once in the version."""
    span = version.pages[page - 1]
    for line in version.text[span.char_start : span.char_end].split("\n"):
        if len(line) >= 40 and len(find_text(version.text, line, None)[1]) == 1:
            return line
    raise AssertionError(f"no unique line on page {page}")


def _twice_on_two_pages(version: Version) -> tuple[str, tuple[tuple[int, int], ...]]:
    """A line of at least 20 characters the version holds exactly twice, on different pages."""
    for line in version.text.split("\n"):
        if len(line) < 20:
            continue
        spans = find_text(version.text, line, None)[1]
        pages = {span_pages(version.pages, s, e).first for s, e in spans}
        if len(spans) == 2 and len(pages) == 2:
            return line, spans
    raise AssertionError("no line held twice on two pages")


def _page_location(quote: str, start: int, end: int, document: int = 0) -> dict[str, Any]:
    return {
        "type": "page_location",
        "cited_text": quote,
        "document_index": document,
        "start_page_number": start,
        "end_page_number": end,
    }


def _verify(workspace: Workspace, records: list[dict[str, Any]], fmt: str) -> list[Any]:
    data = "".join(json.dumps(r) + "\n" for r in records).encode()
    lines = read_citations(data, fmt, documents=(PDF, TEXT))  # type: ignore[arg-type]
    return list(verify_lines(workspace, lines))


def test_page_location_citations_into_a_nerc_pdf(workspace: Workspace) -> None:
    version = workspace.version(PDF)
    quote = _unique_line_on(version, 3)
    twice, spans = _twice_on_two_pages(version)
    second_page = span_pages(version.pages, *spans[1]).first
    from_text = workspace.version(TEXT).text[400:440]
    results = _verify(
        workspace,
        [
            _page_location(quote, 3, 4),  # page 3 only: the end is exclusive
            _page_location(quote, 1, 3),
            _page_location(quote.replace(" ", "  ").upper(), 3, 4),
            _page_location(twice, second_page, second_page + 1),
            _page_location(twice, 1, len(version.pages) + 1),
            _page_location(from_text, 1, 2, document=1),
        ],
        "anthropic",
    )
    reasons = [r.reason for r in results]
    assert reasons == [
        None,
        "wrong_page",
        "quote_not_found",
        None,
        "ambiguous_occurrence",
        "no_page_map",
    ]
    located = results[0].citation
    assert version.text[located.char_start : located.char_end] == quote
    assert "the span" in results[1].detail and "lies on page 3" in results[1].detail
    # Two occurrences in the version, one on the named page: the pages name the occurrence.
    assert results[3].occurrence == 2 and results[3].citation.char_start == spans[1][0]
    # Found nowhere: shown at a few lines of the named page, never its whole text.
    shown = results[2].citation
    page = version.pages[2]
    assert page.char_start <= shown.char_start <= shown.char_end <= page.char_end
    assert shown.char_end - shown.char_start <= SHOWN_CHARS < page.char_end - page.char_start
    assert results[2].detail.endswith("on the page 3 named: a place to look, not evidence")


def test_a_page_quote_found_nowhere_is_shown_at_its_best_place(workspace: Workspace) -> None:
    """A line of page 3 with one word changed occurs nowhere; the refusal shows the lines around
    the longest run of its words on the page, which hold the line itself."""
    version = workspace.version(PDF)
    line = _unique_line_on(version, 3)
    words = line.split()
    changed = " ".join([*words[:-1], "CHANGED"])
    (result,) = _verify(workspace, [_page_location(changed, 3, 4)], "anthropic")
    assert result.reason == "quote_not_found"
    shown = version.text[result.citation.char_start : result.citation.char_end]
    assert " ".join(words[:-1]) in " ".join(shown.split())
    assert result.actual_text == shown and len(shown) <= SHOWN_CHARS
    assert f"({len(words) - 1} of {len(words)} words, at [" in result.detail


def test_our_page_field_and_a_span_over_a_page_break(workspace: Workspace) -> None:
    version = workspace.version(PDF)
    quote = _unique_line_on(version, 3)
    at = version.text.index(quote)
    ours = {"version_id": PDF, "char_start": at, "char_end": at + len(quote), "quoted_text": quote}
    first = version.pages[0]
    across = version.text[first.char_end - 20 : version.pages[1].char_start + 20]
    over = {
        "version_id": PDF,
        "char_start": first.char_end - 20,
        "char_end": version.pages[1].char_start + 20,
        "quoted_text": across,
    }
    text = workspace.version(TEXT).text
    words = text[400:440]
    plain = {"version_id": TEXT, "char_start": 400, "char_end": 440, "quoted_text": words}
    results = _verify(
        workspace,
        [
            ours | {"page": 3},
            ours | {"page": 4},
            ours | {"page": 3, "char_start": at + 1},
            over | {"page": 1},
            plain | {"page": 1},
            plain,
        ],
        "workbench",
    )
    assert [r.reason for r in results] == [
        None,
        "wrong_page",
        "quote_mismatch",  # the rule refused it first; the page claim never passes it
        "wrong_page",
        "no_page_map",
        None,
    ]
    assert "lies on pages 1-2" in results[3].detail
    spanning = _verify(workspace, [_page_location(across, 1, 3)], "anthropic")[0]
    assert spanning.verified, spanning


@pytest.mark.parametrize(
    ("line", "error"),
    [
        pytest.param(
            {"page": 0},
            "line 1: field 'page': expected a page number (an integer from 1), got 0",
            id="page-zero",
        ),
        pytest.param(
            {"page": True},
            "line 1: field 'page': expected a page number (an integer from 1), got True",
            id="page-boolean",
        ),
        pytest.param(
            {"page": "3"},
            "line 1: field 'page': expected a page number (an integer from 1), got '3'",
            id="page-string",
        ),
    ],
)
def test_malformed_page_fields(line: dict[str, Any], error: str) -> None:
    record = {"version_id": "v", "char_start": 0, "char_end": 1, "quoted_text": "x"} | line
    assert read_citations(json.dumps(record).encode(), "workbench")[0].error == error


@pytest.mark.parametrize(
    ("line", "error"),
    [
        pytest.param(
            _page_location("x", 3, 3),
            "line 1: field 'end_page_number': 3 is not after start_page_number 3 "
            "(the end page is exclusive)",
            id="empty-range",
        ),
        pytest.param(
            {k: v for k, v in _page_location("x", 1, 2).items() if k != "end_page_number"},
            "line 1: field 'end_page_number' missing",
            id="no-end",
        ),
        pytest.param(
            _page_location("x", 0, 2),
            "line 1: field 'start_page_number': expected a page number (an integer from 1), got 0",
            id="page-zero",
        ),
        pytest.param(
            _page_location("x", 1, 2, document=2),
            "line 1: field 'document_index': 2 names no document (--documents maps 2: 0 to 1)",
            id="no-document",
        ),
    ],
)
def test_malformed_page_location_lines(line: dict[str, Any], error: str) -> None:
    read = read_citations(json.dumps(line).encode(), "anthropic", documents=(PDF, TEXT))
    assert read[0].error == error and read[0].unplaced is None
