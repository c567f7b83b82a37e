"""Marked alterations, on real D.C. Code sentences: omissions inside and across sentences, `[T]he`,
an omission that removes a `shall not`, fragments out of order, ellipses at the quote's ends, and
the hostile marks; through the library, our JSON and `workbench verify --alterations`."""

from __future__ import annotations

import json
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import CORPUS_DIR, STORE
from workbench.cite import CAVEATS, Citation, verify_citations
from workbench.cite.alterations import ALTERATION_REASONS, AlteredVerification, read_marks
from workbench.cite.formats import read_citations
from workbench.cli import main
from workbench.evals.probes import corruption_probes, held_markers, outcome
from workbench.exports import verify_bundle, write_bundle
from workbench.models import Version
from workbench.workspace import Workspace

DISCONNECT = "us-dc/dc-code-34-1506.02/34-1506.02@2021-10-18.xml"
PORTFOLIO = "us-dc/dc-code-34-1432/34-1432@2023-04-05.xml"
SENTENCE = (
    "An electric company shall not disconnect electric service for non-payment of a bill or fees "
    "during a public health emergency or for 15 calendar days thereafter."
)
DEFINITION = 'For the purposes of this section, the term "public health emergency" means'
STANDARD = "the standard shall not apply to electricity sold to the customer"
GOVERNMENT = "us-dc/dc-code-34-1432/34-1432@2024-09-29.xml"


def _span(
    workspace: Workspace, version_id: str, start_words: str, end_words: str
) -> tuple[int, int]:
    """The raw span from the first `start_words` to the end of the first `end_words` after it."""
    text = workspace.version(version_id).text
    start = text.index(start_words)
    return start, text.index(end_words, start) + len(end_words)


def _altered(
    workspace: Workspace, quote: str, span: tuple[int, int], version_id: str = DISCONNECT
) -> AlteredVerification:
    citation = Citation(
        version_id=version_id,
        char_start=span[0],
        char_end=span[1],
        quoted_text=quote,
        alterations=True,
    )
    (verdict,) = verify_citations(workspace, [citation])
    assert isinstance(verdict, AlteredVerification)
    return verdict


def _source(workspace: Workspace, verdict: AlteredVerification) -> list[str]:
    """Each alteration's source text, read again from the version at its raw span."""
    text = workspace.version(verdict.citation.version_id).text
    for a in verdict.alterations:
        assert text[a.char_start : a.char_end] == a.source_text
    return [a.source_text for a in verdict.alterations]


def test_an_omission_inside_a_sentence(workspace: Workspace) -> None:
    span = _span(workspace, DISCONNECT, SENTENCE, SENTENCE)
    quote = SENTENCE.replace(" for non-payment of a bill or fees ", " … ")
    verdict = _altered(workspace, quote, span)
    assert verdict.verified, verdict.detail
    assert [a.kind for a in verdict.alterations] == ["omission"]
    assert [s.strip() for s in _source(workspace, verdict)] == ["for non-payment of a bill or fees"]
    text = workspace.version(DISCONNECT).text
    assert [text[s:e] for s, e in verdict.fragments] == quote.split(" … ")
    assert not [q for q in verdict.qualifiers if q.side == "omitted"]


def test_an_omission_across_sentences(workspace: Workspace) -> None:
    span = _span(workspace, DISCONNECT, DEFINITION, "shall not disconnect electric service")
    quote = (
        "For the purposes of this section, . . . the Mayor has declared a public health emergency"
        "... An electric company shall not disconnect electric service"
    )
    verdict = _altered(workspace, quote, span)
    assert verdict.verified, verdict.detail
    omitted = _source(workspace, verdict)
    assert len(omitted) == 2
    assert "\n\n(b) " in omitted[1] and omitted[1].strip().startswith("pursuant to §")
    assert [a.marks for a in verdict.alterations] == [(". . .",), ("...",)]


def test_a_bracketed_capital_over_the_source_letter(workspace: Workspace) -> None:
    span = _span(workspace, PORTFOLIO, STANDARD, STANDARD)
    quote = "[T]he" + STANDARD[3:]
    verdict = _altered(workspace, quote, span, PORTFOLIO)
    assert verdict.verified, verdict.detail
    (bracket,) = verdict.alterations
    assert (bracket.kind, bracket.inserted, bracket.source_text) == ("insertion", "T", "t")
    assert bracket.char_start == span[0]
    plain = Citation(version_id=PORTFOLIO, char_start=span[0], char_end=span[1], quoted_text=quote)
    assert verify_citations(workspace, [plain])[0].reason == "quote_mismatch", "off by default"


def test_an_omission_that_removes_a_shall_not_is_flagged(workspace: Workspace) -> None:
    span = _span(workspace, DISCONNECT, SENTENCE, SENTENCE)
    quote = SENTENCE.replace(" shall not ", " ... ")
    verdict = _altered(workspace, quote, span)
    assert verdict.verified, "the words are there: the verdict stands"
    (omission,) = verdict.alterations
    assert omission.source_text.strip() == "shall not"
    (flag,) = [q for q in verdict.qualifiers if q.side == "omitted"]
    text = workspace.version(DISCONNECT).text
    assert flag.word == "not" and text[flag.char_start : flag.char_end] == "not"
    assert omission.char_start <= flag.char_start < flag.char_end <= omission.char_end
    # Verified, never plainly: the caveat names the word and the omission that swallowed it.
    assert not verdict.plainly_verified and verdict.standing == "verified with caveats"
    ((caveat, evidence),) = [(c, e) for c in verdict.caveats for e in c.evidence]
    assert caveat.kind == "qualifier_omitted" and caveat.kind in CAVEATS
    assert (evidence.char_start, evidence.char_end, evidence.text) == (
        flag.char_start,
        flag.char_end,
        "not",
    )
    assert dict(evidence.facts)["omission_start"] == omission.char_start


def test_the_issue_s_not_omission_is_counted_apart_everywhere(
    workspace: Workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`[T]he standard shall ... apply to electricity sold to the District of Columbia
    government`, an omission that removed `not`: verified with the caveat `qualifier_omitted`, and
    never among the plainly verified: the summary line, the JSON, the bundle."""
    sentence = (
        "The standard shall not apply to electricity sold to the District of Columbia government"
    )
    text = workspace.version(GOVERNMENT).text
    start = text.index(sentence)
    record = {
        "version_id": GOVERNMENT,
        "char_start": start,
        "char_end": start + len(sentence),
        "quoted_text": "[T]he standard shall ... apply to electricity sold to the District of "
        "Columbia government",
    }
    plain = {**record, "quoted_text": sentence}
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(record) + "\n" + json.dumps(plain) + "\n", encoding="utf-8")
    argv = ["verify", str(path), "--alterations", "--workspace", str(workspace.path)]
    assert main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith(
        f"line 1: verified with caveats qualifier_omitted: {GOVERNMENT} [{start}, "
    )
    assert printed[1] == (
        f"  caveat qualifier_omitted: 'not' at [{start + 19}, {start + 22}) lies in what ... "
        f"stands for, [{start + 18}, {start + 23})"
    )
    assert printed[-1].startswith(
        "1 verified, 1 verified with caveats (qualifier_omitted 1), 0 resolved, 0 refused, "
        "0 malformed lines; "
    )
    assert main([*argv, "--json"]) == 0
    shapes = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [s["outcome"] for s in shapes] == ["verified", "verified"]
    assert [[c["kind"] for c in s["caveats"]] for s in shapes] == [["qualifier_omitted"], []]
    bundle = tmp_path / "b.zip"
    cited = path.read_bytes().replace(b'"quoted_text"', b'"alterations": true, "quoted_text"')
    write_bundle(bundle, workspace, CORPUS_DIR, citations=cited)
    descriptor = json.loads(zipfile.ZipFile(bundle).read("datapackage.json"))
    (verdicts,) = [r for r in descriptor["resources"] if r["name"] == "verdicts"]
    assert verdicts["workbench:counts"] == {
        "verified": 1,
        "verified with caveats": 1,
        "resolved": 0,
        "refused": 0,
        "malformed": 0,
        "caveat qualifier_omitted": 1,
    }
    report = verify_bundle(bundle, mirror=STORE)
    assert report.problems == ()
    assert [v.verification.standing for v in report.verdicts] == [
        "verified with caveats",
        "verified",
    ]


def test_fragments_out_of_order_are_refused(workspace: Workspace) -> None:
    span = _span(workspace, DISCONNECT, SENTENCE, SENTENCE)
    quote = "An electric company … during a public health emergency … for non-payment of a bill …"
    verdict = _altered(workspace, quote, span)
    assert verdict.reason == "fragment_out_of_order", verdict.detail
    assert "fragment 3 of 3" in verdict.detail and not verdict.alterations


@pytest.mark.parametrize(
    ("quote", "outcome", "omitted"),
    [
        pytest.param(
            "… shall not disconnect electric service …",
            "verified",
            ["An electric company", SENTENCE.split("electric service ")[1]],
            id="ellipsis-at-both-ends",
        ),
        pytest.param(
            "… during a public health emergency or for 15 calendar days thereafter.",
            "verified",
            [SENTENCE.split(" during")[0]],
            id="ellipsis-at-the-start",
        ),
        pytest.param(
            "shall not disconnect electric service …", "quote_mismatch", None, id="no-mark-before"
        ),
        pytest.param(
            "An electric company shall not disconnect", "quote_mismatch", None, id="unmarked-short"
        ),
    ],
)
def test_an_ellipsis_at_the_quote_s_ends(
    workspace: Workspace, quote: str, outcome: str, omitted: list[str] | None
) -> None:
    verdict = _altered(workspace, quote, _span(workspace, DISCONNECT, SENTENCE, SENTENCE))
    assert (verdict.reason or "verified") == outcome, verdict.detail
    if omitted is not None:
        assert [s.strip() for s in _source(workspace, verdict)] == omitted


@pytest.mark.parametrize(
    ("quote", "reason", "says"),
    [
        pytest.param(
            "An electric company shall … disconnect gas service …",
            "fragment_not_found",
            "'disconnect gas service'",
            id="fragment-not-found",
        ),
        pytest.param(
            "An electric [utility] company shall not …",
            "bracket_over_nothing",
            "only white space",
            id="bracket-over-a-space",
        ),
        pytest.param(
            "An elec[tric]tric company shall not …",
            "bracket_over_nothing",
            "nothing",
            id="bracket-over-nothing",
        ),
        pytest.param(
            "An electric company [shall not …", "bad_alteration", "no partner", id="open-bracket"
        ),
        pytest.param("An electric] company …", "bad_alteration", "no partner", id="close-bracket"),
        pytest.param("… [ ] …", "empty_quote", "no words", id="marks-only"),
    ],
)
def test_hostile_marks_are_refused_by_name(
    workspace: Workspace, quote: str, reason: str, says: str
) -> None:
    verdict = _altered(workspace, quote, _span(workspace, DISCONNECT, SENTENCE, SENTENCE))
    assert verdict.reason == reason and says in verdict.detail, verdict.detail
    assert reason in ALTERATION_REASONS or reason == "empty_quote"


def test_the_span_itself_is_decided_by_the_rule(workspace: Workspace) -> None:
    """A refusal of the rule on the cited span stands: offsets past the end, an unknown version."""
    length = len(workspace.version(DISCONNECT).text)
    bad = _altered(workspace, "An … thereafter.", (length - 5, length + 5))
    assert bad.reason == "bad_offsets"
    unknown = Citation(
        version_id="us-dc/none.xml", char_start=0, char_end=4, quoted_text="a … b", alterations=True
    )
    assert verify_citations(workspace, [unknown])[0].reason == "unknown_version"


def test_reading_the_marks() -> None:
    marked = read_marks("[T]he Utility shall . . . . file [it] …")
    assert not isinstance(marked, str)
    assert marked.fragments == ("he Utility shall .", "file")
    assert [g.kind if g else None for g in marked.gaps] == [
        "insertion",
        "omission",
        "omission and insertion",
    ]
    assert read_marks("x [...] y") != read_marks("x [y] z")


def test_our_json_and_the_command_line(
    workspace: Workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start, end = _span(workspace, DISCONNECT, SENTENCE, SENTENCE)
    quote = SENTENCE.replace(" shall not ", " ... ")
    record = {"version_id": DISCONNECT, "char_start": start, "char_end": end, "quoted_text": quote}
    lines = read_citations(json.dumps({**record, "alterations": True}).encode(), "workbench")
    assert lines[0].citation is not None and lines[0].citation.alterations
    (bad,) = read_citations(json.dumps({**record, "alterations": "yes"}).encode(), "workbench")
    assert bad.error == "line 1: field 'alterations': expected true or false, got string"
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    argv = ["verify", str(path), "--workspace", str(workspace.path)]
    assert main(argv) == 1, "unmarked reading by default"
    capsys.readouterr()
    assert main([*argv, "--alterations", "--json"]) == 0
    shape = json.loads(capsys.readouterr().out)
    assert shape["outcome"] == "verified"
    assert [a["source_text"].strip() for a in shape["alterations"]] == ["shall not"]
    assert [q["side"] for q in shape["qualifiers"]].count("omitted") == 1
    assert main([*argv, "--alterations"]) == 0
    printed = capsys.readouterr().out
    assert "alteration: omission ... stands for" in printed
    assert "qualifier inside an omission, left out of it: 'not'" in printed


def test_altered_quote_probes_are_right_for_the_right_reason(
    workspace: Workspace, held_versions: tuple[Version, ...]
) -> None:
    """The corruption suite's altered quotes, built from real spans without the verifier, on one
    version of each format: every one gets the outcome its construction says."""
    chosen = {}
    for version in held_versions:
        chosen.setdefault(version.media_type, version)
    markers = held_markers(workspace, chosen.values())
    probes = [
        p
        for p in corruption_probes(chosen.values(), seed=5, per_version=3, markers=markers)
        if p.kind.startswith("altered")
    ]
    results = verify_citations(workspace, [p.citation for p in probes])
    wrong = [
        (p.kind, p.expected, outcome(r), r.detail)
        for p, r in zip(probes, results, strict=True)
        if outcome(r) != p.expected
    ]
    assert not wrong, wrong[:5]
    kinds = Counter(p.kind for p in probes)
    assert set(kinds) == {
        "altered, middle omitted",
        "altered, bracket between two words",
        "altered, first letter bracketed",
        "altered, fragments out of order",
        "altered, fragment from outside the span",
        "altered, a not omitted",
    }, kinds
