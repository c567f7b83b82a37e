"""Other providers' citations (C22), read from responses others recorded
(`../shared/external/citations-*`): every recorded citation gets the outcome its recorded source
supports, one by one; Gemini's UTF-8 byte offsets are converted exactly (the recorded stream has
non-ASCII text before its spans, and a payload built here puts some before a held quote);
search_result_location is tested on a payload built from Anthropic's documented shape.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cite.test_outside import EXTERNAL, _version
from tests.conftest import ROOT
from workbench.cite import read_citations, verify_lines, version_blocks
from workbench.cite.formats import detect_format
from workbench.cite.gemini import read_gemini
from workbench.cite.lines import CitationLine
from workbench.cite.responses import documents_from_json
from workbench.cite.verify import Verification
from workbench.cite.w3c import source_iri
from workbench.cli import main
from workbench.corpus import catalogue as catalogues
from workbench.errors import CitationError
from workbench.workspace import Workspace, ingest

# The plain-text document prism's Anthropic tests send (`Document::fromText` in
# tests/Providers/Anthropic/AnthropicTextTest.php, as citations-anthropic/README.md records it).
GRASS = "xx-prism/grass/grass.txt"
GRASS_TEXT = "The grass is green. The sky is blue."
# The documents of Cohere's documented RAG example (docs.cohere.com/docs/rag-citations), each
# held as a version whose text is the snippet sent.
PENGUINS = {
    "xx-cohere/tall-penguins/tall.txt": "Emperor penguins are the tallest.",
    "xx-cohere/penguin-habitats/habitats.txt": "Emperor penguins only live in Antarctica.",
}


def _source(folder: str, name: str) -> dict[str, Any]:
    listed = json.loads((EXTERNAL / folder / "SOURCE.json").read_bytes())
    return next(f for f in listed["files"] if f["file"] == name)


@pytest.fixture(scope="module")
def held(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Workspace, str]]:
    """The grass text as prism sent it, and prism's `test-pdf.pdf` added as a new user would
    (`corpus add` with its mirror from SOURCE.json); returns the workspace and the PDF's id."""
    root = tmp_path_factory.mktemp("providers")
    pdf = _source("citations-gemini", "test-pdf.pdf")
    mirror = root / "mirror"
    assert main([
        "corpus", "add", str(EXTERNAL / "citations-gemini" / "test-pdf.pdf"), "--into", str(mirror),
        "--jurisdiction", "xx-prism", "--family", "test-pdf",
        "--mirror", f"{pdf['repo']}@{pdf['commit']}:{pdf['path']}", "--official",
    ]) == 0  # fmt: skip
    _, merged = catalogues.admit_into_catalogue(mirror, root / "corpus")
    with Workspace(root / "w.sqlite") as workspace:
        assert not ingest(workspace, merged.rows, mirror).refused
        workspace.add_version(_version(GRASS, GRASS_TEXT), {"built_from": "prism's test source"})
        for version_id, text in PENGUINS.items():
            workspace.add_version(_version(version_id, text), {"built_from": "Cohere's docs"})
        yield workspace, "xx-prism/test-pdf/test-pdf.pdf"


def _verdicts(
    workspace: Workspace, path: Path, documents: Any
) -> tuple[tuple[CitationLine, ...], tuple[Verification | None, ...]]:
    lines = read_citations(path.read_bytes(), "auto", documents=documents, source=str(path))
    return lines, verify_lines(workspace, lines)


def _outcomes(verdicts: tuple[Verification | None, ...]) -> list[str]:
    return [f"{v.outcome} {v.reason}" if v and v.reason else str(v and v.outcome) for v in verdicts]


def _recorded_anthropic(path: Path) -> list[dict[str, Any]]:
    """Every citation the file records, read here without the workbench."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".sse":
        events = [json.loads(m) for m in re.findall(r"^data: (.*)$", text, re.M)]
        return [e["delta"]["citation"] for e in events if e.get("delta", {}).get("citation")]
    return [c for b in json.loads(text)["content"] for c in b.get("citations") or ()]


ANTHROPIC = EXTERNAL / "citations-anthropic"


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(p.name, id=p.stem)
        for p in sorted(ANTHROPIC.glob("*"))
        if p.suffix in (".json", ".sse") and p.name != "SOURCE.json"
    ],
)
def test_every_recorded_anthropic_citation(held: tuple[Workspace, str], name: str) -> None:
    # The README's truth: char_location into the grass text (held, so verified at the recorded
    # offsets); content_block_location into blocks the workbench did not write (refused by
    # name); page_location into a PDF never recorded (mapped to null: refused not_held); web
    # search results whose pages were never recorded (refused not_held).
    workspace, _ = held
    path = ANTHROPIC / name
    recorded = _recorded_anthropic(path)
    documents = [None] if "pdf" in name else [GRASS]
    _, verdicts = _verdicts(workspace, path, documents)
    assert len(verdicts) == len(recorded)
    expected = {
        "char_location": "verified",
        "content_block_location": "refused blocks_not_written",
        "page_location": "refused not_held",
        "web_search_result_location": "refused not_held",
    }
    assert _outcomes(verdicts) == [expected[c["type"]] for c in recorded]
    for citation, verdict in zip(recorded, verdicts, strict=True):
        assert verdict is not None
        if citation["type"] == "char_location":
            assert (verdict.citation.char_start, verdict.citation.char_end) == (
                citation["start_char_index"],
                citation["end_char_index"],
            )
            assert verdict.actual_text == citation["cited_text"]
        else:
            assert verdict.citation.quoted_text == citation["cited_text"]


def test_the_anthropic_page_location_refusal_says_the_pdf_was_never_recorded(
    held: tuple[Workspace, str],
) -> None:
    _, verdicts = _verdicts(held[0], ANTHROPIC / "generate-text-with-pdf-citations-1.json", [None])
    assert verdicts[0] is not None and verdicts[0].detail == (
        "--documents gives null for document 0: the document the request sent was never "
        "recorded, so the cited words cannot be checked; admit it as a version ('workbench "
        "corpus add') and map it here"
    )


GEMINI = EXTERNAL / "citations-gemini"


def test_gemini_file_search_chunk_verifies_on_its_page(held: tuple[Workspace, str]) -> None:
    # The retrieved chunk's text is the PDF's one sentence after Gemini's own page marker.
    workspace, pdf = held
    path = GEMINI / "generate-text-with-file-search-1.json"
    chunk = json.loads(path.read_bytes())["candidates"][0]["groundingMetadata"]["groundingChunks"]
    lines, verdicts = _verdicts(workspace, path, [pdf])
    (verdict,) = verdicts
    assert verdict is not None and verdict.outcome == "verified", verdict
    marker, sentence = chunk[0]["retrievedContext"]["text"].split("\n\n", 1)
    assert marker == "--- PAGE 1 ---" and verdict.citation.quoted_text == sentence
    assert lines[0].pages is not None and lines[0].pages.first == 1
    # The same chunk mapped to no document: refused, not placed anywhere.
    _, unmapped = _verdicts(workspace, path, [])
    assert _outcomes(unmapped) == ["refused not_held"]


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("generate-text-with-search-grounding-1.json", id="search-grounding"),
        pytest.param("stream-with-tools-search-grounding-1.json", id="streamed"),
        pytest.param("interactions-google-search.json", id="interactions-url-citation"),
    ],
)
def test_gemini_web_citations_are_refused_for_carrying_no_source_text(
    held: tuple[Workspace, str], name: str
) -> None:
    path = GEMINI / name
    text = path.read_text(encoding="utf-8")
    # How many (support, chunk) pairs or url_citations the file records, counted without the
    # workbench: the streamed file's supports are in its last event holding any.
    if '"steps"' in text:
        expected = text.count('"type": "url_citation"')
    else:
        values = [json.loads(m) for m in re.findall(r"^data: (.*)$", text, re.M)] or [
            json.loads(text)
        ]
        supports = [
            v["candidates"][0].get("groundingMetadata", {}).get("groundingSupports") for v in values
        ]
        expected = sum(len(s["groundingChunkIndices"]) for s in [x for x in supports if x][-1])
    _, verdicts = _verdicts(held[0], path, [])
    assert expected and _outcomes(verdicts) == ["refused no_source_text"] * expected


def test_the_recorded_stream_is_read_in_utf8_bytes_and_misread_as_characters() -> None:
    # The streamed answer holds "°" (two UTF-8 bytes) before its later supports: read as bytes,
    # every segment is the recorded segment text; read as characters, those after it are not.
    path = GEMINI / "stream-with-tools-search-grounding-1.json"
    events = [json.loads(m) for m in re.findall(r"^data: (.*)$", path.read_text("utf-8"), re.M)]
    as_bytes = read_gemini(events, [])
    as_characters = read_gemini(events, [], unit="characters")
    # An event holding no candidate (usage only, as a stream may end) adds nothing.
    assert read_gemini([*events, {"usageMetadata": {"totalTokenCount": 1}}], []) == as_bytes
    assert {line.refusal.reason for line in as_bytes if line.refusal} == {"no_source_text"}
    misread = [
        line.line
        for line in as_characters
        if line.refusal is not None and line.refusal.reason == "answer_span_mismatch"
    ]
    assert misread and misread == [
        line.line
        for line, chars in zip(as_bytes, as_characters, strict=True)
        if chars.refusal is not None and chars.refusal.reason != "no_source_text"
    ]


def _grounded(
    answer: str, segment: str, chunk_text: str, *, start: int, end: int
) -> dict[str, Any]:
    """A generateContent response in the documented shape, one support over one retrieved chunk."""
    return {
        "candidates": [
            {
                "content": {"parts": [{"text": answer}], "role": "model"},
                "groundingMetadata": {
                    "groundingChunks": [{"retrievedContext": {"title": "t", "text": chunk_text}}],
                    "groundingSupports": [
                        {
                            "segment": {"startIndex": start, "endIndex": end, "text": segment},
                            "groundingChunkIndices": [0],
                        }
                    ],
                },
            }
        ]
    }


def test_a_support_after_non_ascii_text_verifies_and_refuses_read_as_characters(
    held: tuple[Workspace, str],
) -> None:
    workspace = held[0]
    segment = "the sky is blue"
    answer = f"Réponse « vérifiée » — {segment}, as the source says."
    start = answer.encode("utf-8").index(segment.encode("utf-8"))
    payload = _grounded(answer, segment, "The sky is blue.", start=start, end=start + len(segment))
    assert start != answer.index(segment)  # the bytes and the characters disagree here
    verified = verify_lines(workspace, read_gemini(payload, [GRASS]))
    assert _outcomes(verified) == ["verified"]
    assert verified[0] is not None and (
        verified[0].citation.char_start,
        verified[0].citation.char_end,
    ) == (
        GRASS_TEXT.index("The sky"),
        len(GRASS_TEXT),
    )
    misread = read_gemini(payload, [GRASS], unit="characters")
    assert misread[0].refusal is not None and misread[0].refusal.reason == "answer_span_mismatch"
    assert misread[0].refusal.detail == (
        f"the answer at [{start}, {start + len(segment)}) read as characters holds "
        f"{json.dumps(answer[start : start + len(segment)], ensure_ascii=False)}, not the segment "
        "text recorded, "
        '"the sky is blue"'
    )


def test_a_byte_offset_inside_a_character_is_refused() -> None:
    answer = "é and more"
    payload = _grounded(answer, "x", "x", start=1, end=3)
    (line,) = read_gemini(payload, [GRASS])
    assert line.refusal is not None and line.refusal.reason == "answer_span_mismatch"
    assert line.refusal.detail == "byte offset 1 falls inside a character's UTF-8 encoding"


OPENAI = EXTERNAL / "citations-openai"


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(p.name, id=p.stem)
        for p in sorted(OPENAI.glob("*.json"))
        if p.name != "SOURCE.json"
    ],
)
def test_every_recorded_openai_annotation(held: tuple[Workspace, str], name: str) -> None:
    # The README's truth: a url_citation's span of the answer holds the markdown link to its
    # url, and names no words of the page; a file_citation names the file and no passage.
    path = OPENAI / name
    response = json.loads(path.read_bytes())
    recorded = [
        a
        for item in response["output"]
        for c in item.get("content") or ()
        if c.get("type") == "output_text"
        for a in c.get("annotations") or ()
    ]
    lines, verdicts = _verdicts(held[0], path, [])
    expected = {"url_citation": "refused no_source_text", "file_citation": "refused no_locator"}
    assert recorded and _outcomes(verdicts) == [expected[a["type"]] for a in recorded]
    for annotation, line in zip(recorded, lines, strict=True):
        assert line.refusal is not None
        if annotation["type"] == "url_citation":
            assert f"]({annotation['url']}" in line.refusal.quoted_text


def test_a_file_citation_carrying_a_quote_is_placed_in_the_file_named(
    held: tuple[Workspace, str],
) -> None:
    response = json.loads((OPENAI / "openai-file-search-tool.1.json").read_bytes())
    annotation = next(
        a for item in response["output"] for c in item.get("content") or ()
        for a in c.get("annotations") or ()
    )  # fmt: skip
    quoted = {**annotation, "filename": "grass.txt", "quote": "The sky is blue."}
    for item in response["output"]:
        for c in item.get("content") or ():
            if c.get("annotations"):
                c["annotations"] = [quoted, {**quoted, "quote": "The sky is grey."}]
    data = json.dumps(response).encode()
    lines = read_citations(data, "openai", documents=[GRASS])
    assert _outcomes(verify_lines(held[0], lines)) == ["verified", "refused quote_not_found"]
    assert (
        _outcomes(verify_lines(held[0], read_citations(data, "openai", documents=[])))
        == ["refused not_held"] * 2
    )


def test_search_result_citations_read_against_the_blocks_written(
    held: tuple[Workspace, str],
) -> None:
    # A response in the shape Anthropic documents for search_result_location (source, title,
    # cited_text, search_result_index, start_block_index, end_block_index), citing the
    # search-result block 'workbench blocks --json' writes for the PDF version.
    workspace, pdf = held
    blocks = version_blocks(workspace.version(pdf))
    source = blocks.search_result()["source"]
    assert source == source_iri(blocks.map.text_sha256)
    cited = {
        "type": "search_result_location",
        "source": source,
        "title": pdf,
        "cited_text": blocks.texts[0],
        "search_result_index": 0,
        "start_block_index": 0,
        "end_block_index": 1,
    }
    response = {"content": [{"type": "text", "text": "x", "citations": [cited]}]}
    data = json.dumps(response).encode()
    documents = documents_from_json([blocks.as_json()], "--documents")
    verdicts = verify_lines(workspace, read_citations(data, "auto", documents=documents))
    assert _outcomes(verdicts) == ["verified"]
    assert (
        verdicts[0] is not None
        and (verdicts[0].citation.char_start, verdicts[0].citation.char_end) == blocks.map.spans[0]
    )
    other = {**cited, "source": source_iri("0" * 64)}
    response["content"][0]["citations"] = [other]
    refused = read_citations(json.dumps(response).encode(), "anthropic", documents=documents)
    assert refused[0].refusal is not None and refused[0].refusal.reason == "not_held"


@pytest.mark.parametrize(
    ("data", "fmt"),
    [
        pytest.param(b'{"version_id": "a/b/c", "char_start": 0}\n', "workbench", id="workbench"),
        pytest.param(b'{"target": {}}\n', "w3c", id="w3c"),
        pytest.param(b'{"cited_text": "x", "document_index": 0}\n', "anthropic", id="anthropic"),
    ],
)
def test_format_auto_reads_json_lines_by_their_first_line(data: bytes, fmt: str) -> None:
    assert detect_format(data, None) == fmt


def test_format_auto_names_what_it_looked_for() -> None:
    with pytest.raises(CitationError) as raised:
        read_citations(b'{"quote": "x"}\n', "auto", documents=[])
    assert str(raised.value) == (
        "--format auto: the input is no provider response (candidates, steps, output, content, "
        "message) and its first line has none of version_id, target, cited_text; name the format"
    )


def test_the_command_offers_every_format() -> None:
    from workbench.cite import FORMATS
    from workbench.cli.citations import FORMAT_CHOICES

    assert FORMAT_CHOICES == FORMATS


def _cohere(ids: tuple[str, str], start: int = 29) -> dict[str, Any]:
    """Cohere's documented reply to "Where do the tallest penguins live?" (Chat v2), its sources
    named by `ids`."""
    snippets = list(PENGUINS.values())
    titles = ("Tall penguins", "Penguin habitats")
    answer = "The tallest penguins are the Emperor penguins. They only live in Antarctica."

    def source(n: int) -> dict[str, Any]:
        document = {"id": ids[n], "snippet": snippets[n], "title": titles[n]}
        return {"type": "document", "id": ids[n], "document": document}

    return {
        "id": "x",
        "message": {
            "role": "assistant",
            "content": [{"type": "text", "text": answer}],
            "citations": [
                {"start": start, "end": 46, "text": "Emperor penguins.", "sources": [source(0)], "type": "TEXT_CONTENT"},
                {"start": 65, "end": 76, "text": "Antarctica.", "sources": [source(1)], "type": "TEXT_CONTENT"},
            ],
        },
        "finish_reason": "COMPLETE",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("ids", "start", "outcomes"),
    [
        pytest.param(("doc:0", "doc:1"), 29, ["verified", "verified"], id="given-ids"),
        pytest.param(("doc:0:0", "doc:0:1"), 29, ["verified", "verified"], id="doc-0-n-ids"),
        pytest.param(tuple(PENGUINS), 29, ["verified", "verified"], id="version-ids"),
        pytest.param(("doc:0", "doc:1"), 28, ["refused answer_span_mismatch", "verified"], id="answer-span-off-by-one"),
    ],
)  # fmt: skip
def test_cohere_documented_example(
    held: tuple[Workspace, str], ids: tuple[str, str], start: int, outcomes: list[str]
) -> None:
    # The rag-citations guide names the documents doc:0 and doc:1, the documents-and-citations
    # guide doc:0:0 and doc:0:1: either names the N-th document sent.
    data = json.dumps(_cohere(ids, start)).encode()
    lines = read_citations(data, "auto", documents=tuple(PENGUINS))
    assert _outcomes(verify_lines(held[0], lines)) == outcomes


def _converse(citations: list[dict[str, Any]]) -> dict[str, Any]:
    """A Converse response in the shape of the Bedrock API reference (Citation: title,
    sourceContent, location)."""
    return {
        "output": {
            "message": {
                "role": "assistant",
                "content": [
                    {"citationsContent": {"content": [{"text": "cited"}], "citations": citations}}
                ],
            }
        },
        "stopReason": "end_turn",
    }


def test_bedrock_locations_built_from_the_api_reference(held: tuple[Workspace, str]) -> None:
    workspace, pdf = held
    sentence = workspace.version(pdf).text.strip()

    def cited(text: str, location: dict[str, Any]) -> dict[str, Any]:
        return {"title": "t", "sourceContent": [{"text": text}], "location": location}

    at = GRASS_TEXT.index("The sky")
    response = _converse([
        cited("The sky is blue.", {"documentChar": {"documentIndex": 0, "start": at, "end": len(GRASS_TEXT)}}),
        cited("The sky is blue.", {"documentChar": {"documentIndex": 0, "start": at, "end": len(GRASS_TEXT) - 1}}),
        cited(sentence, {"documentPage": {"documentIndex": 1, "start": 0, "end": 0}}),
        cited("The sky is grey.", {"documentChunk": {"documentIndex": 0, "start": 0, "end": 1}}),
        cited("x", {"web": {"url": "https://example.org/", "domain": "example.org"}}),
    ])  # fmt: skip
    lines = read_citations(json.dumps(response).encode(), "auto", documents=(GRASS, pdf))
    assert _outcomes(verify_lines(workspace, lines)) == [
        "verified",
        "refused quote_mismatch",
        "verified",
        "refused quote_not_found",
        "refused not_held",
    ]


def test_the_documented_gemini_example_verifies_in_bytes_only(workspace: Workspace) -> None:
    # docs/verification.md shows this file verified on the held draft; read as characters, the
    # same offsets fall four characters late (’ takes three bytes, é and « two each).
    payload = json.loads((ROOT / "docs/examples/gemini-grounding.json").read_bytes())
    documents = documents_from_json(
        json.loads((ROOT / "docs/examples/gemini-documents.json").read_bytes()), "docs"
    )
    verdicts = verify_lines(workspace, read_gemini(payload, documents))
    assert _outcomes(verdicts) == ["verified"]
    misread = read_gemini(payload, documents, unit="characters")
    assert misread[0].refusal is not None and misread[0].refusal.reason == "answer_span_mismatch"


def test_a_web_search_result_is_verified_only_against_the_held_version_of_its_page(
    tmp_path: Path,
) -> None:
    # The recorded result cites the easeweather page; a version whose provenance names that page
    # as its source_url, holding the cited sentence, is where its words are decided. The text
    # here is built around the recorded cited_text: what is tested is the route by address.
    recorded = _recorded_anthropic(ANTHROPIC / "generate-text-with-web-search-citations-1.json")
    first = recorded[0]
    page = f"Weather in July.\n{first['cited_text']}\nOther words.\n"
    data = json.dumps({"content": [{"type": "text", "text": "x", "citations": [first]}]}).encode()
    with Workspace(tmp_path / "w.sqlite") as workspace:
        assert _outcomes(verify_lines(workspace, read_citations(data, "auto", documents=[]))) == [
            "refused not_held"
        ]
        held = _version("xx-web/easeweather/july.txt", page)
        workspace.add_version(held, {"source_url": first["url"]})
        verdicts = verify_lines(workspace, read_citations(data, "auto", documents=[]))
        assert _outcomes(verdicts) == ["verified"]
        assert verdicts[0] is not None and verdicts[0].citation.version_id == held.version_id
        again = _version("xx-web/easeweather-copy/july.txt", page)
        workspace.add_version(again, {"source_url": first["url"]})
        (refused,) = verify_lines(workspace, read_citations(data, "auto", documents=[]))
    assert refused is not None and (refused.reason, refused.detail) == (
        "not_held",
        f"2 held versions name {first['url']} as their source_url "
        "(xx-web/easeweather-copy/july.txt, xx-web/easeweather/july.txt): cite the quote in one "
        "of them, in our format",
    )


def test_verify_reads_a_recorded_stream_whole(
    held: tuple[Workspace, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path = GEMINI / "stream-with-tools-search-grounding-1.json"
    at = ["--workspace", str(held[0].path)]
    assert main(["verify", str(path), "--format", "auto", "--json", *at]) == 1
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(p["line"], p["reason"]) for p in printed] == [
        (n, "no_source_text") for n in range(1, len(printed) + 1)
    ]
    assert printed and printed[0]["version_id"].startswith("https://")
