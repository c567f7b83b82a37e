"""The `machine_read` caveat (C6, C18): a quote whose span touches text a machine read off a scan
is verified, never plainly, and the caveat names the origin and, for the workbench's own OCR, the
engine and the mean confidence of the span's words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import CORPUS_DIR, STORE, command_paths
from workbench.cite import Citation, verify_citations
from workbench.cli import main
from workbench.models import Version
from workbench.notes import Ledger, catalogue_index, check_note, grade_note, note_key, parse_note
from workbench.text.ocr import default_cache
from workbench.workspace import Workspace

TX = "us-tx/puct-49421-item80-cehe-response-to-tiec-rfi-set1/"
TX_FILER_SCAN = TX + "v1_cehe-filer-copy_D49421-CEHE-Response-to-TIEC-1st-RFIs.pdf"
TX_COMMISSION = TX + "v2_puct-interchange_49421_80_1016841.PDF"
# A question of the filer's scan (a page our OCR read) that the commission's copy also holds in
# its invisible layer: two independent machine readings of one page agreeing.
SENTENCE = (
    "Please explain why wholesale transmission revenues are increasing while CenterPoint is "
    "proposing to decrease the wholesale transmission rate."
)


def _ocr_words(version: Version, start: int, end: int) -> list[tuple[float, str]]:
    assert version.origin is not None
    return [
        (word.confidence, f"{page.ocr.engine} ({page.ocr.languages})")
        for page in version.origin.pages
        if page.ocr is not None
        for word in page.ocr.words
        if word.char_start < end and word.char_end > start
    ]


@pytest.mark.parametrize(
    ("path", "origin"), [(TX_FILER_SCAN, "ocr"), (TX_COMMISSION, "invisible")], ids=["ocr", "layer"]
)
def test_a_sentence_two_machine_readings_agree_on_is_cited_only_with_machine_read(
    workspace: Workspace, capsys: pytest.CaptureFixture[str], path: str, origin: str
) -> None:
    assert main(["cite", SENTENCE, "--version", path, *command_paths(workspace)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == f"cited: {path}, verified with caveats"
    assert printed[1].startswith("  caveat machine_read: [")
    record = json.loads(printed[-1])
    start, end = record["char_start"], record["char_end"]
    version = workspace.version(path)
    shown = version.text[start:end]
    assert " ".join(shown.split()) == SENTENCE  # the words, broken across lines as read

    (verdict,) = verify_citations(workspace, [Citation(**record)])
    assert verdict.verified and not verdict.plainly_verified
    assert verdict.standing == "verified with caveats"
    (caveat,) = verdict.caveats
    assert caveat.kind == "machine_read"
    (evidence,) = caveat.evidence
    assert (evidence.char_start, evidence.char_end, evidence.text) == (start, end, shown)
    facts = dict(evidence.facts)
    assert facts["origin"] == origin
    words = _ocr_words(version, start, end)
    if origin == "invisible":
        assert words == [] and set(facts) == {"origin"}
        assert "someone else's machine reading (it carries no confidences)" in evidence.note
        return
    # Our OCR: one word per word of the sentence, the engine that read its page, their mean.
    assert len(words) == facts["words"] == len(SENTENCE.split())
    (engine,) = {e for _, e in words}
    mean = round(sum(c for c, _ in words) / len(words), 1)
    assert (facts["engine"], facts["mean_confidence"]) == (engine, mean)
    assert evidence.note == (
        f"[{start}, {end}) is the workbench's own OCR of a scanned image, read by {engine}; "
        f"mean confidence {mean} over the {len(words)} words the span touches"
    )


def test_glyph_text_is_plainly_verified_and_a_span_across_origins_names_only_the_machine_read(
    workspace: Workspace,
) -> None:
    """The filer's cover page is drawn (glyphs): quoted alone it is plainly verified; a span
    from it into the first scanned page is caveated for its OCR stretch only."""
    version = workspace.version(TX_FILER_SCAN)
    assert version.origin is not None
    cover = version.origin.runs[0]
    assert cover.origin == "glyphs"
    first_ocr = next(r for r in version.origin.runs if r.origin == "ocr")
    quote = version.text[: cover.char_end]
    crossing = version.text[: first_ocr.char_start + 20]
    plain, crossed = verify_citations(
        workspace,
        [
            Citation(version_id=version.version_id, char_start=0, char_end=len(q), quoted_text=q)
            for q in (quote, crossing)
        ],
    )
    assert plain.plainly_verified and plain.caveats == ()
    assert crossed.verified and [c.kind for c in crossed.caveats] == ["machine_read"]
    (evidence,) = crossed.caveats[0].evidence
    assert (evidence.char_start, evidence.char_end) == (first_ocr.char_start, len(crossing))
    assert dict(evidence.facts)["origin"] == "ocr"


def test_verify_prints_the_caveat_and_counts_it_apart(
    workspace: Workspace, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    main(["cite", SENTENCE, "--version", TX_COMMISSION, "--json", *command_paths(workspace)])
    citations = tmp_path / "citations.jsonl"
    citations.write_text(capsys.readouterr().out)
    assert main(["verify", str(citations), "--workspace", str(workspace.path)]) == 0
    printed = capsys.readouterr().out
    assert "caveat machine_read: [" in printed
    assert "0 verified, 1 verified with caveats (machine_read 1), 0 resolved, 0 refused" in printed


def test_a_note_grounded_on_machine_read_text_is_never_top(
    workspace: Workspace, tmp_path: Path
) -> None:
    """The out-of-process check records the caveat on the quote it found in OCR'd text; a
    validated note on that ground is graded middle, carrying `machine_read`."""
    note = tmp_path / "notes" / "tx-wholesale-question.md"
    note.parent.mkdir()
    note.write_text(
        "---\ntitle: A question TIEC asked\nstatus: validated\norigin: document\n"
        f"document: {TX_FILER_SCAN}\n---\n\nTIEC asked about wholesale transmission.\n\n"
        f"> quote: {SENTENCE}\n> locator: TIEC01-01\n"
    )
    with Ledger(tmp_path / "ledger.sqlite") as ledger:
        report = check_note(
            note,
            against=None,
            corpus_dir=CORPUS_DIR,
            store=STORE,
            ledger=ledger,
            ocr_cache=default_cache(workspace.path),
        )
        assert report.confirmed
        (entry,) = report.run.quotes
        assert [c["kind"] for c in entry["caveats"]] == ["machine_read"]
        assert entry["caveats"][0]["evidence"][0]["facts"]["origin"] == "ocr"
        graded = grade_note(
            parse_note(note), catalogue_index(CORPUS_DIR), ledger.runs(note_key(note))
        )
    assert (graded.grade, graded.caveats) == ("middle", ("machine_read",))
