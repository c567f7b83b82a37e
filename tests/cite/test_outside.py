"""Citations from outside, read as their authors meant, on material nobody here wrote.

The W3C Web Annotation Working Group's test suite (`../shared/external/w3c-web-annotation-tests`):
its 54 required assertions (`annotations/annotationMusts.test`, draft-04 schemas with the
`definitions/` they name, and a `uri` format checker) run on every annotation `export-annotations`
and `bundle` write for a sample of every jurisdiction, a relative source id fails them, the suite's
own text-selector samples are read and refused by name, and every selector form is decided by the
one rule. Anthropic's citations cookbook (`../shared/external/anthropic-cookbook-citations`): every
citation its notebook recorded, read from the notebook's output cells, against the documents those
requests sent.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.conftest import CORPUS_DIR, KEPT_WORKSPACES, ROOT, _copy, _keep, _kept_key
from workbench.cite import (
    Citation,
    Verification,
    export_annotations,
    find_text,
    index_text,
    read_citations,
    verify_lines,
)
from workbench.cite.w3c import annotation, source_iri
from workbench.cli import main
from workbench.corpus import catalogue as catalogues
from workbench.exports import write_bundle
from workbench.history.dating import cite_quote
from workbench.models import CatalogueRow, Version, text_sha256
from workbench.workspace import Workspace, ingest

if TYPE_CHECKING:  # jsonschema is imported where it is used: it takes seconds to import
    from jsonschema import Draft4Validator

EXTERNAL = ROOT.parent / "shared" / "external"
SUITE = EXTERNAL / "w3c-web-annotation-tests"
COOKBOOK = EXTERNAL / "anthropic-cookbook-citations" / "misc"

# ---------------------------------------------------------------------------------------------
# The W3C suite


@pytest.fixture(scope="module")
def musts() -> list[tuple[str, Draft4Validator]]:
    """The suite's required assertions, each a draft-04 validator resolving `definitions/` by the
    ids the suite gives them, with the format checker that holds `format: uri`."""
    from jsonschema import Draft4Validator
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT4

    registry: Registry[Any] = Registry().with_resources(
        (schema["id"], Resource.from_contents(schema, default_specification=DRAFT4))
        for schema in (json.loads(p.read_bytes()) for p in sorted(SUITE.glob("definitions/*.json")))
    )
    listed = json.loads((SUITE / "annotations" / "annotationMusts.test").read_bytes())
    validators = []
    for name in listed["assertions"]:
        schema = json.loads((SUITE / name).read_bytes())
        assert schema["assertionType"] == "must" and schema["expectedResult"] == "valid", name
        checker = Draft4Validator.FORMAT_CHECKER
        validators.append(
            (schema["id"], Draft4Validator(schema, registry=registry, format_checker=checker))
        )
    return validators


def failed(musts: list[tuple[str, Draft4Validator]], annotation: dict[str, Any]) -> list[str]:
    """The ids of the required assertions `annotation` fails."""
    return [name for name, validator in musts if not validator.is_valid(annotation)]


def test_the_suite_is_run_whole_with_a_uri_checker(
    musts: list[tuple[str, Draft4Validator]],
) -> None:
    # The suite publishes 54 required assertions; without a `uri` checker (rfc3986-validator),
    # jsonschema skips `format: uri` and a relative id passes unnoticed.
    from jsonschema import Draft4Validator

    assert len(musts) == 54
    assert "uri" in Draft4Validator.FORMAT_CHECKER.checkers
    for sample in ("anno26", "anno27", "anno32", "anno41-example44"):  # text selectors
        correct = json.loads((SUITE / "tools/samples/correct" / f"{sample}.json").read_bytes())
        assert failed(musts, correct) == [], sample


def _quote_once(text: str, start: int = 0) -> tuple[int, str] | None:
    """The first line from `start` of 30 to 80 characters the text holds once."""
    for match in re.finditer(r"(?m)^[^\n]{30,80}$", text[start:]):
        line = match.group().strip()
        if len(line) >= 30 and len(find_text(text, line, None)[1]) == 1:
            return start + match.start() + match.group().index(line), line
    return None


def _quote_twice(text: str) -> tuple[int, str] | None:
    """The second occurrence of the first line of 12 to 60 characters the text holds exactly
    twice (its annotation needs a prefix or suffix)."""
    for tried, match in enumerate(re.finditer(r"(?m)^[^\n]{12,60}$", text)):
        line = match.group().strip()
        if tried > 400:
            return None
        spans = find_text(text, line, None)[1] if len(line) >= 12 else ()
        if len(spans) == 2:
            return spans[1][0], line
    return None


def _sample(held_versions: tuple[Version, ...]) -> list[Citation]:
    """For every jurisdiction, its first and last held version: a line held once, and the second
    of a line held twice (named by occurrence)."""
    by_jurisdiction: dict[str, list[Version]] = {}
    for version in held_versions:
        by_jurisdiction.setdefault(version.jurisdiction, []).append(version)
    citations = []
    for versions in by_jurisdiction.values():
        for version in {v.version_id: v for v in (versions[0], versions[-1])}.values():
            once, twice = _quote_once(version.text), _quote_twice(version.text)
            for found, occurrence in ((once, None), (twice, 2)):
                if found is not None:
                    at, quote = found
                    citations.append(
                        Citation(
                            version_id=version.version_id,
                            char_start=at,
                            char_end=at + len(quote),
                            quoted_text=quote,
                            occurrence=occurrence,
                        )
                    )
    return citations


@pytest.fixture(scope="module")
def exported(
    workspace: Workspace,
    tmp_path_factory: pytest.TempPathFactory,
    held_versions: tuple[Version, ...],
) -> tuple[list[Citation], list[dict[str, Any]], list[dict[str, Any]]]:
    """The sample, and the annotations `export-annotations` and `bundle` write for it."""
    citations = _sample(held_versions)
    annotations, verifications = export_annotations(workspace, citations)
    assert all(v.verified for v in verifications), [
        v.detail for v in verifications if not v.verified
    ]
    bundle = tmp_path_factory.mktemp("w3c") / "sample.zip"
    lines = "".join(
        json.dumps(
            {
                "version_id": c.version_id,
                "char_start": c.char_start,
                "char_end": c.char_end,
                "quoted_text": c.quoted_text,
                **({"occurrence": c.occurrence} if c.occurrence else {}),
            }
        )
        + "\n"
        for c in citations
    )
    write_bundle(bundle, workspace, CORPUS_DIR, citations=lines.encode())
    bundled = zipfile.ZipFile(bundle).read("annotations.jsonl").decode().splitlines()
    return citations, list(annotations), [json.loads(line) for line in bundled]


def test_every_exported_annotation_passes_the_54_required_assertions(
    workspace: Workspace,
    musts: list[tuple[str, Draft4Validator]],
    exported: tuple[list[Citation], list[dict[str, Any]], list[dict[str, Any]]],
    held_versions: tuple[Version, ...],
) -> None:
    citations, annotations, bundled = exported
    jurisdictions = {v.jurisdiction for v in held_versions}
    assert {c.version_id.split("/")[0] for c in citations} == jurisdictions
    assert any(c.occurrence for c in citations), "the sample names repeated quotes too"
    assert bundled == annotations and len(annotations) == len(citations)
    for made in annotations:
        assert failed(musts, made) == [], made["target"]["source"]
        source = made["target"]["source"]
        assert source["id"] == source_iri(workspace.version(source["version_id"]).text_sha256)
    contexts = [
        s
        for a in annotations
        for s in a["target"]["selector"]
        if s.get("prefix") or s.get("suffix")
    ]
    assert contexts, "a repeated quote's annotation carries its prefix or suffix"


def test_a_relative_source_id_fails_and_is_silent_without_a_uri_checker(
    musts: list[tuple[str, Draft4Validator]],
    exported: tuple[list[Citation], list[dict[str, Any]], list[dict[str, Any]]],
) -> None:
    """The control: the version id (a relative path) as the source id fails exactly the target
    assertion; with no `uri` checker the same annotation passes, which is why the checker is
    installed."""
    from jsonschema import FormatChecker

    made = exported[1][0]
    relative = json.loads(json.dumps(made))
    relative["target"]["source"]["id"] = made["target"]["source"]["version_id"]
    assert failed(musts, relative) == ["3.2-targetObjectsRecognized.json"]
    blind = [(name, v.evolve(format_checker=FormatChecker(()))) for name, v in musts]
    assert failed(blind, relative) == []


def test_export_and_verify_w3c_round_trip(
    workspace: Workspace,
    exported: tuple[list[Citation], list[dict[str, Any]], list[dict[str, Any]]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every exported annotation read back by `verify --format w3c` verifies at its offsets and
    occurrence; so does each annotation as bundles of scheme 1 wrote it (the version id as the
    source id), which still reads."""
    citations, annotations, _ = exported
    path = tmp_path / "annotations.jsonl"
    path.write_text("".join(json.dumps(a) + "\n" for a in annotations), encoding="utf-8")
    assert (
        main(["verify", str(path), "--format", "w3c", "--json", "--workspace", str(workspace.path)])
        == 0
    )
    verdicts = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(v["outcome"], v["char_start"], v["char_end"]) for v in verdicts] == [
        ("verified", c.char_start, c.char_end) for c in citations
    ]
    named = [v["occurrence"] for v, c in zip(verdicts, citations, strict=True) if c.occurrence]
    assert named and set(named) == {2}
    index_of = {c.version_id: workspace.version(c.version_id) for c in citations}
    older = []
    for citation in citations:
        version = index_of[citation.version_id]
        (verified,) = verify_lines(workspace, read_citations(_ours(citation), "workbench"))
        assert verified is not None and verified.verified
        older.append(annotation(index_text(version.text), verified, scheme=1))
    lines = read_citations("".join(json.dumps(a) + "\n" for a in older).encode(), "w3c")
    # The same standing as ours gave (verified with `machine_read` where the text is OCR'd).
    standings = [v.standing if v is not None else None for v in verify_lines(workspace, lines)]
    caveated = ["verified with caveats" if v["caveats"] else "verified" for v in verdicts]
    assert standings == caveated


def _ours(citation: Citation) -> bytes:
    record = {
        "version_id": citation.version_id,
        "char_start": citation.char_start,
        "char_end": citation.char_end,
        "quoted_text": citation.quoted_text,
    }
    if citation.occurrence:
        record["occurrence"] = citation.occurrence
    return json.dumps(record).encode()


# ---------------------------------------------------------------------------------------------
# Every selector form, on a text of our own


LOREM = "xx-test/lorem/lorem.txt"
LOREM_TEXT = "lorem ipsum dolor amet\nthe fee is paid. the fee is paid. the fee is due.\n"


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    path = tmp_path_factory.mktemp("lorem") / "w.sqlite"
    with Workspace(path) as held:
        held.add_version(_version(LOREM, LOREM_TEXT), {})
        yield held


def _version(version_id: str, text: str) -> Version:
    jurisdiction, family, _ = version_id.split("/")
    return Version(
        version_id=version_id,
        jurisdiction=jurisdiction,
        family=family,
        version_order=1,
        version_label="",
        media_type="text/plain",
        artefact_sha256=text_sha256(text),
        artefact_bytes=len(text.encode()),
        extractor="identity",
        extractor_version="1",
        text_sha256=text_sha256(text),
        text=text,
    )


def _target(
    quote: str | None = None, position: tuple[int, int] | None = None, **context: str
) -> dict[str, Any]:
    selectors: list[dict[str, Any]] = []
    if quote is not None:
        selectors.append({"type": "TextQuoteSelector", "exact": quote, **context})
    if position is not None:
        selectors.append({"type": "TextPositionSelector", "start": position[0], "end": position[1]})
    return {"type": "Annotation", "target": {"source": LOREM, "selector": selectors}}


DOLOR = (LOREM_TEXT.index("dolor"), LOREM_TEXT.index("dolor") + 5)
FEE = LOREM_TEXT.index("the fee is paid")


@pytest.mark.parametrize(
    ("record", "expected", "count"),
    [
        pytest.param(
            _target("dolor", suffix="a"), "context_mismatch", 1, id="quote-suffix-a-is-not-the-join"
        ),
        pytest.param(_target("dolor", suffix=" a"), "verified", 1, id="quote-suffix-space-a"),
        pytest.param(
            _target("dolor", DOLOR, suffix="a"), "context_mismatch", 1, id="position-suffix-a"
        ),
        pytest.param(
            _target("dolor", DOLOR, suffix=" a"), "verified", 1, id="position-suffix-space-a"
        ),
        pytest.param(
            _target("dolor", prefix="ipsum"), "context_mismatch", 1, id="prefix-without-its-space"
        ),
        pytest.param(_target("dolor", prefix="ipsum "), "verified", 1, id="prefix-with-its-space"),
        pytest.param(_target("dolor"), "verified", 1, id="quote-alone"),
        pytest.param(
            _target("the fee is", suffix=" paid"),
            "ambiguous_occurrence",
            2,
            id="count-after-context",
        ),
        pytest.param(
            _target("the fee is", suffix=" due"), "verified", 3, id="context-names-the-third"
        ),
        pytest.param(
            _target("the fee is", (FEE, FEE + 10), suffix=" p"),
            "ambiguous_occurrence",
            2,
            id="position-count-after-context",
        ),
        pytest.param(_target(position=DOLOR), "resolved", 0, id="position-alone-is-resolved"),
        pytest.param(_target("dolour"), "quote_not_found", 0, id="quote-alone-found-nowhere"),
    ],
)
def test_every_selector_form_is_decided_by_the_one_rule(
    small: Workspace, record: dict[str, Any], expected: str, count: int
) -> None:
    """A prefix and suffix are the text immediately before and after the quote, compared after
    the one normalization with no white space skipped at the join; the occurrence count a refusal
    reports is the count after context; a position alone is resolved, nothing verified."""
    (line,) = read_citations(json.dumps(record).encode(), "w3c")
    assert line.error is None
    (verdict,) = verify_lines(small, [line])
    assert verdict is not None
    assert (verdict.reason or verdict.outcome) == expected, verdict.detail
    assert len(verdict.occurrences) == count
    if expected == "resolved":
        assert verdict.actual_text == "dolor" and not verdict.verified
    if record["target"]["selector"][0].get("suffix") == " due":
        assert verdict.occurrence == 3
    if verdict.reason == "ambiguous_occurrence":
        assert "2 times with that prefix and suffix (of 3 in the version)" in verdict.detail


def test_the_suites_text_selector_samples_are_read_and_refused_by_name(small: Workspace) -> None:
    """Valid annotations of sources the workbench does not hold: read (never malformed), and
    refused `unknown_version`; a refined selector (`refinedBy`) is refused `unsupported_selector`."""
    samples = ("anno26", "anno27", "anno32", "anno41-example44")
    data = b"".join(
        json.dumps(
            json.loads((SUITE / "tools/samples/correct" / f"{s}.json").read_bytes())
        ).encode()
        + b"\n"
        for s in samples
    )
    lines = read_citations(data, "w3c")
    assert [line.error for line in lines] == [None] * 4
    verdicts = verify_lines(small, lines)
    assert [v.reason for v in verdicts if v is not None] == [
        "unknown_version",
        "unknown_version",
        "unsupported_selector",
        "unsupported_selector",
    ]
    assert [v.citation.version_id for v in verdicts if v is not None] == [
        "http://example.org/page1",
        "http://example.org/ebook1",
        "http://example.org/page1",
        "http://example.com/document1",
    ]
    assert [v.detail for v in verdicts[2:] if v is not None] == [
        f"the FragmentSelector refined by {kind} (refinedBy) is a selection inside another "
        "selection, which the workbench does not resolve; give a text selector on the whole text"
        for kind in ("TextQuoteSelector", "TextPositionSelector")
    ]


# ---------------------------------------------------------------------------------------------
# Anthropic's cookbook: the recorded citations


# The paper's page_location citations whose words the PDF extractor once split at a ligature
# glyph (`f inetune`), before pdf-text 3 (the text-origin issue): they verify now, 5 of 5.
LIGATURE_CITATIONS = ("In the supervised phase", "In the RL phase", "By removing human feedback")


def _recorded() -> list[tuple[str, dict[str, Any]]]:
    """Each request cell's source and the raw API response its output cell printed."""
    notebook = json.loads((COOKBOOK / "using_citations.ipynb").read_bytes())
    out = []
    for cell in notebook["cells"]:
        for output in cell.get("outputs", ()):
            text = "".join(output.get("text", ()))
            if "Raw response:" in text:
                at = text.index("{", text.index("Raw response:"))
                response, _ = json.JSONDecoder().raw_decode(text[at:])
                out.append(("".join(cell["source"]), response))
    return out


def _citations(response: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [c for b in response["content"] for c in b.get("citations", ()) if c["type"] == kind]


def _mirror_of_cookbook() -> str:
    """`owner/name@commit` of the cookbook, as the outside material's README records it."""
    readme = (EXTERNAL / "README.md").read_text(encoding="utf-8")
    match = re.search(
        r"`anthropic-cookbook-citations/`.*?\| ([\w-]+/[\w-]+) @ ([0-9a-f]{40}) \|", readme
    )
    assert match is not None
    return f"{match[1]}@{match[2]}"


@pytest.fixture(scope="module")
def cookbook(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Workspace, dict[str, str]]]:
    """The PDFs the notebook sent, added as a new user would (`corpus add`; `Constitutional AI.pdf`
    as a copy named with --name, so its version id holds no space to quote), admitted and held; and the text documents
    it sent: each help-center article from the line after its `title:` line (the notebook sends
    `content.split('\\n', 1)[1]`), and the loyalty article, which exists only in the notebook's
    source and is built from that source. Returns the workspace and each document's version id by
    its title (the PDFs by file name)."""
    root = tmp_path_factory.mktemp("cookbook")
    mirror, ids = root / "mirror", {}
    for name in ("Constitutional AI.pdf", "Amazon-com-Inc-2023-Shareholder-Letter.pdf"):
        family = Path(name).stem.replace(" ", "-").lower()
        args = [
            "corpus", "add", str(COOKBOOK / "data" / name), "--into", str(mirror),
            "--jurisdiction", "anthropic-cookbook", "--family", family,
            "--mirror", f"{_mirror_of_cookbook()}:misc/data/{name}", "--official",
        ]  # fmt: skip
        copy = name
        if " " in name:
            copy = name.replace(" ", "-").lower()
            args += ["--name", copy]
        assert main(args) == 0
        ids[name] = f"anthropic-cookbook/{family}/{copy}"
    _, merged = catalogues.admit_into_catalogue(mirror, root / "corpus")
    # The workspace is kept between runs as the default one is (`KEPT_WORKSPACES`), under the key
    # of everything its bytes depend on: the code, the admitted rows and the cookbook's files.
    kept = KEPT_WORKSPACES / f"cookbook-{_cookbook_key(merged.rows)}.sqlite"
    warm = kept.exists()
    if warm:
        _copy(kept, root / "w.sqlite")
    with Workspace(root / "w.sqlite") as held:
        if not warm:
            assert not ingest(held, merged.rows, mirror).refused
        for path in sorted((COOKBOOK / "data" / "help_center_articles").glob("*.txt")):
            title_line, body = path.read_text(encoding="utf-8").split("\n", 1)
            version_id = f"anthropic-cookbook/help-center-{path.stem}/{path.name}"
            if not warm:
                held.add_version(_version(version_id, body), {"built_from": str(path.name)})
            ids[title_line.removeprefix("title: ")] = version_id
        for source, _ in _recorded():
            for document in _literal_documents(source):
                version_id = (
                    "anthropic-cookbook/notebook-source/"
                    + document["title"].replace(" ", "-").lower()
                    + ".txt"
                )
                if not warm:
                    held.add_version(
                        _version(version_id, document["source"]["data"]),
                        {"built_from": "the notebook's source"},
                    )
                ids[document["title"]] = version_id
        if not warm:
            _keep(root / "w.sqlite", kept)
        yield held, ids


def _cookbook_key(rows: tuple[CatalogueRow, ...]) -> str:
    """`conftest._kept_key` of the admitted rows, with the mirror their provenance names and
    every file of the cookbook folder."""
    digest = hashlib.sha256(f"{_kept_key(rows)}\0{_mirror_of_cookbook()}\0".encode())
    for path in sorted(p for p in COOKBOOK.rglob("*") if p.is_file()):
        digest.update(path.relative_to(COOKBOOK).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _literal_documents(source: str) -> list[dict[str, Any]]:
    """The documents a cell's source writes out whole: dict literals with a `title` and a text
    `source` whose `data` is a string (not a file read at run time)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Dict):
            continue
        keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
        if {"title", "source"} <= keys:
            try:
                document = ast.literal_eval(node)
            except ValueError:
                continue  # a value computed at run time: a file read, a base64 PDF
            if isinstance(document["source"].get("data"), str):
                found.append(document)
    return found


def test_the_cookbooks_page_citations_verify(cookbook: tuple[Workspace, dict[str, str]]) -> None:
    """Every page_location citation the notebook recorded, against the PDF its request sent: the
    shareholder letter 2 of 2; the paper's 5 of 5, its ligature words read whole."""
    workspace, ids = cookbook
    seen = 0
    for source, response in _recorded():
        pdf = re.search(r"pdf_path = '(?:\./)?data/([^']+)'", source)
        cited = _citations(response, "page_location")
        if pdf is None:
            assert not cited
            continue
        version_id = ids[pdf[1]]
        data = "".join(json.dumps(c | {"document_index": 0}) + "\n" for c in cited).encode()
        verdicts = verify_lines(
            workspace, read_citations(data, "anthropic", documents=[version_id])
        )
        text = workspace.version(version_id).text
        for record, verdict in zip(cited, verdicts, strict=True):
            seen += 1
            assert verdict is not None
            opening = " ".join(record["cited_text"].split())
            assert verdict.plainly_verified, verdict.detail
            if opening.startswith(LIGATURE_CITATIONS):
                ligatured = [w for w in re.findall(r"\w+", opening) if re.search("ff|fi|fl", w)]
                assert ligatured and all(w in text for w in ligatured), ligatured
    assert seen == 7
    paper = [
        c
        for s, r in _recorded()
        if "Constitutional AI.pdf" in s
        for c in _citations(r, "page_location")
    ]
    assert sum("\u0002" in c["cited_text"] for c in paper) == 4  # PDFium's line-end hyphen, read


def test_the_cookbooks_text_citations_are_cited_by_their_words(
    cookbook: tuple[Workspace, dict[str, str]],
) -> None:
    """The char_location and content_block_location citations, printed without offsets or block
    indexes, made into citations by `cite` from their cited_text, against the document each
    names by title: every one is found once and verified."""
    workspace, ids = cookbook
    cited = 0
    for _, response in _recorded():
        for kind in ("char_location", "content_block_location"):
            for record in _citations(response, kind):
                made = cite_quote(workspace, record["cited_text"], ids[record["document_title"]])
                assert made.status == "cited", (kind, record["cited_text"][:60])
                assert (
                    isinstance(made.verification, Verification)
                    and made.verification.plainly_verified
                )
                cited += 1
    assert cited == 6  # 5 char_location (two requests), 1 content_block_location


# ---------------------------------------------------------------------------------------------
# Anthropic custom-content documents: `workbench blocks`, then content_block_location citations

BLOCKED = "us-dc/dc-code-34-1432/34-1432@2024-09-29.xml"


def test_blocks_then_verify_content_block_citations(
    workspace: Workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`workbench blocks --json` writes a real version's passages as a custom-content document and
    its map; a model's content_block_location citations of those blocks (quoting each block's
    text, as the API does) verify through `verify --format anthropic`; a block index past the
    map's last block, and a document given as a bare version id, are refused by name."""
    assert main(["blocks", BLOCKED, "--json", "--workspace", str(workspace.path)]) == 0
    written = json.loads(capsys.readouterr().out)
    text = workspace.version(BLOCKED).text
    blocks = [b["text"] for b in written["document"]["source"]["content"]]
    assert [text[s:e] for s, e in written["blocks"]] == blocks
    assert written["text_sha256"] == workspace.version(BLOCKED).text_sha256
    unique = [k for k, b in enumerate(blocks) if len(find_text(text, b, None)[1]) == 1][:5]
    assert len(unique) == 5

    def cited(start: int, end: int, document: int = 0) -> dict[str, Any]:
        return {
            "type": "content_block_location",
            "cited_text": blocks[start]
            if end == start + 1
            else text[written["blocks"][start][0] : written["blocks"][end - 1][1]],
            "document_index": document,
            "start_block_index": start,
            "end_block_index": end,
            "document_title": BLOCKED,
        }

    records = [cited(k, k + 1) for k in unique]
    records.append(cited(unique[0], unique[0] + 2))
    past = cited(unique[0], unique[0] + 1) | {
        "start_block_index": len(blocks),
        "end_block_index": len(blocks) + 1,
    }
    records += [past, cited(unique[0], unique[0] + 1, document=1)]
    documents = tmp_path / "documents.json"
    documents.write_text(json.dumps([written, BLOCKED]), encoding="utf-8")
    path = tmp_path / "claude.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    argv = ["verify", str(path), "--format", "anthropic", "--documents", str(documents)]
    assert main([*argv, "--json", "--workspace", str(workspace.path)]) == 1
    verdicts = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [v["reason"] for v in verdicts] == [None] * 6 + [
        "block_out_of_range",
        "blocks_not_written",
    ]
    assert [(v["char_start"], v["char_end"]) for v in verdicts[:5]] == [
        tuple(written["blocks"][k]) for k in unique
    ]
    assert verdicts[6]["detail"] == (
        f"document 0: blocks {len(blocks)} to {len(blocks)} are cited; the blocks written for "
        f"{BLOCKED} run from 0 to {len(blocks) - 1}"
    )
    assert verdicts[7]["detail"].startswith(
        f"document 1 is given as the version id {BLOCKED}, not as blocks; a "
        "content_block_location citation is read against the map 'workbench blocks "
        f"{BLOCKED} --json' writes"
    )
    assert main(["blocks", BLOCKED, "--workspace", str(workspace.path)]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert len(listing) == len(blocks) + 1
    assert listing[-1].startswith(f"{len(blocks)} blocks of {BLOCKED} (text sha256 ")


def test_refusals_say_what_to_do_next(
    workspace: Workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As a new user meets them: an unknown version names the family's nearest held versions and
    the command that lists them; a quote with marks checked without alterations says to pass
    --alterations; `cite` of an absent quote points to `workbench search`; a file name a version
    id cannot carry (a ':') is added under --name."""
    missing = BLOCKED.replace("2024-09-29", "2024-09-30")
    sentence = (
        "The standard shall not apply to electricity sold to the District of Columbia government"
    )
    at = workspace.version(BLOCKED).text.index(sentence)
    altered = (
        "[T]he standard shall ... apply to electricity sold to the District of Columbia government"
    )
    path = tmp_path / "c.jsonl"
    path.write_text(
        json.dumps({"version_id": missing, "char_start": 0, "char_end": 1, "quoted_text": "x"}) + "\n"
        + json.dumps({"version_id": BLOCKED, "char_start": at, "char_end": at + len(sentence), "quoted_text": altered}) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    assert main(["verify", str(path), "--workspace", str(workspace.path)]) == 1
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith(
        f"line 1: refused unknown_version: {missing} [0, 1): {missing}: no such version is held; "
        "the held versions of its family are listed by 'workbench versions dc-code-34-1432'"
    )
    # The held ids whose file name shares the longest beginning with the one asked for, then by id.
    nearest = [BLOCKED.replace("09-29", day) for day in ("09-29", "07-30", "08-02")]
    assert printed[1] == f"  held in its family, nearest by name: {', '.join(nearest)}"
    assert printed[2].startswith("line 2: refused quote_mismatch")
    assert (
        "the quote holds '[T]', an alteration mark the plain rule compares as written: to read its "
        'omissions and insertions, pass --alterations (or "alterations": true in the citation)'
    ) in printed[2]
    assert (
        main(
            [
                "cite",
                "words no held version holds",
                "--version",
                BLOCKED,
                "--workspace",
                str(workspace.path),
            ]
        )
        == 1
    )
    assert capsys.readouterr().out.splitlines()[0] == (
        f"refused: {BLOCKED} does not hold the quote (exact search, after the one normalization); "
        "to find where similar words stand, try 'workbench search QUOTE' (candidates, never evidence)"
    )
    spaced = tmp_path / "Constitutional AI: draft.pdf"
    spaced.write_bytes((COOKBOOK / "data" / "Constitutional AI.pdf").read_bytes())
    add = ["corpus", "add", str(spaced), "--into", str(tmp_path / "mirror"), "--jurisdiction", "x",
           "--family", "y", "--url", "https://arxiv.org/pdf/2212.08073", "--official"]  # fmt: skip
    assert main(add) == 2
    assert capsys.readouterr().err.strip() == (
        f"workbench: error: {spaced}: expected a file name a version id can carry (it holds "
        "':'); name the copy with --name"
    )
    assert main([*add, "--name", "constitutional-ai.pdf"]) == 0
    assert (
        tmp_path / "mirror" / "x" / "y" / "constitutional-ai.pdf"
    ).read_bytes() == spaced.read_bytes()
