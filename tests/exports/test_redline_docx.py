"""The Word redline (C23): its OOXML, its binding to the held versions, its reading back by the
workbench and by a second implementation (Debian's LibreOffice, one process for every redline).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from lxml import etree

from tests.conftest import STORE, FreshWorkspace
from tests.exports.libreoffice import Job, convert_all
from workbench.amendments.reconcile import family_amendments
from workbench.changes.caution import standing_verdict
from workbench.changes.diff import doubt_reasons, pairing_is_uncertain
from workbench.changes.log import append_verdict, read_verdicts
from workbench.changes.pairs import diff_sections, held_diffs, version_pairs
from workbench.cli import main
from workbench.errors import RedlineError, RedlineRefused
from workbench.exports.redline_docx import LogHead, write_redline_docx
from workbench.exports.redline_docx_check import read_redline_docx, verify_redline_docx
from workbench.models import CatalogueRow, Change, Version
from workbench.text.normalize import normalized_text
from workbench.workspace import Workspace

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
XML_PATCH = "ietf/draft-wilde-xml-patch"
MOVE_PAIR = (
    f"{XML_PATCH}/draft-wilde-xml-patch-02.txt",
    f"{XML_PATCH}/draft-wilde-xml-patch-04.txt",
)
LAW_FAMILY = "dc-code-34-1432"
LAW_PAIR = (
    "us-dc/dc-code-34-1432/34-1432@2021-11-19.xml",
    "us-dc/dc-code-34-1432/34-1432@2023-04-05.xml",
)
NO_LOG = LogHead(rows=0, head="0" * 64)
MODES = ("accept", "reject")  # the texts LibreOffice writes of each redline, in `Job` order
TABLE_FAMILY = "puct-49595-puc01-01-rate-case-expense-update"  # a PDF table grown 2 -> 5 pages


@dataclass(frozen=True, slots=True, kw_only=True)
class MovePair:
    """The xml-patch pair in a workspace of its own, one doubtful move confirmed in its log."""

    workspace: Workspace
    before: Version
    after: Version
    changes: tuple[Change, ...]
    confirmed: Change
    unconfirmed: Change


def _doubtful_moves(changes: tuple[Change, ...]) -> list[Change]:
    """Doubtful moves whose text also changed (both narrowed spans), in the diff's order."""
    return [
        c
        for c in changes
        if c.kind == "moved" and pairing_is_uncertain(c) and c.span_before is not None
    ]


@pytest.fixture(scope="module")
def move_pair(
    catalogue: tuple[CatalogueRow, ...],
    fresh_workspace: FreshWorkspace,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[MovePair]:
    rows = [row for row in catalogue if row.path.startswith(XML_PATCH + "/")]
    path = tmp_path_factory.mktemp("move-pair") / "workspace.sqlite"
    with fresh_workspace(rows, path) as held:
        before, after = held.version(MOVE_PAIR[0]), held.version(MOVE_PAIR[1])
        (changes,) = [c for b, a, c in held_diffs(held, "draft-wilde-xml-patch") if b == before]
        moves = _doubtful_moves(changes)
        assert len(moves) >= 2, "the pair holds two doubtful moves whose text changed"
        append_verdict(held, moves[0], "confirmed", actor="reviewer-a", reason="same rule")
        yield MovePair(
            workspace=held,
            before=before,
            after=after,
            changes=changes,
            confirmed=moves[0],
            unconfirmed=moves[1],
        )


def _write(tmp_path: Path, pair: MovePair) -> Path:
    out = tmp_path / "moves.docx"
    write_redline_docx(
        out,
        pair.before,
        pair.after,
        pair.changes,
        verdicts=read_verdicts(pair.workspace),
        log_head=NO_LOG,
    )
    return out


def _document(path: Path) -> etree._Element:
    with zipfile.ZipFile(path) as archive:
        return etree.fromstring(archive.read("word/document.xml"))


def _comments(path: Path) -> dict[str, str]:
    """Each comment's id and its text (paragraphs joined by line feeds)."""
    with zipfile.ZipFile(path) as archive:
        root = etree.fromstring(archive.read("word/comments.xml"))
    return {
        c.get(f"{W}id"): "\n".join("".join(p.itertext()) for p in c.iter(f"{W}p"))
        for c in root.iter(f"{W}comment")
    }


def _commented_text(root: etree._Element, comment_id: str) -> tuple[str, str]:
    """The text between a comment's range start and end, kept by reject-all and by accept-all
    (range markers in document order; `w:del`/`w:moveFrom` text only in the first)."""
    inside = False
    rejected, accepted = [], []
    markers = (f"{W}commentRangeStart", f"{W}commentRangeEnd")
    for node in root.iter(*markers, f"{W}t", f"{W}delText", f"{W}br", f"{W}tab", f"{W}p"):
        if node.tag in markers:
            if node.get(f"{W}id") == comment_id:
                inside = node.tag == f"{W}commentRangeStart"
            continue
        if not inside:
            continue
        text = {f"{W}br": "\n", f"{W}tab": "\t", f"{W}p": "\n"}.get(node.tag, node.text or "")
        tracked = {a.tag for a in node.iterancestors()}
        if not tracked & {f"{W}ins", f"{W}moveTo"}:
            rejected.append(text)
        if not tracked & {f"{W}del", f"{W}moveFrom"}:
            accepted.append(text)
    return "".join(rejected), "".join(accepted)


def _move_range_text(root: etree._Element, side: str, name: str) -> list[tuple[str, str]]:
    """What lies inside the move range `name` of `side` ("From" or "To"), in order: each
    element's tag and its text (a `w:br` read as a line feed)."""
    start = root.find(f".//{W}move{side}RangeStart[@{W}name='{name}']")
    assert start is not None
    ident = start.get(f"{W}id")
    inside: list[tuple[str, str]] = []
    node = start.getnext()
    while node is not None and not (
        node.tag == f"{W}move{side}RangeEnd" and node.get(f"{W}id") == ident
    ):
        text = "".join(
            "\n" if part.tag == f"{W}br" else (part.text or "")
            for part in node.iter(f"{W}t", f"{W}delText", f"{W}br")
        )
        inside.append((etree.QName(node).localname, text))
        node = node.getnext()
    return inside


def _span_text(version: Version, change: Change, side: str) -> str:
    span = change.before if side == "before" else change.after
    assert span is not None
    return version.text[span.char_start : span.char_end]


def test_a_confirmed_move_is_a_move_and_an_unconfirmed_one_a_deletion_and_an_insertion(
    move_pair: MovePair, tmp_path: Path
) -> None:
    out = _write(tmp_path, move_pair)
    root = _document(out)
    # Exactly one move is marked as one, and it is the confirmed pairing.
    starts = root.findall(f".//{W}moveFromRangeStart")
    assert [s.get(f"{W}name") for s in starts] == ["move1"]
    assert [s.get(f"{W}name") for s in root.findall(f".//{W}moveToRangeStart")] == ["move1"]
    left = _move_range_text(root, "From", "move1")
    arrived = _move_range_text(root, "To", "move1")
    # Its text changed too: the deletions sit inside the moveFrom range, the insertions inside
    # the moveTo range, and the moved and changed text together is each side's passage.
    assert {tag for tag, _ in left} == {"moveFrom", "del"}
    assert {tag for tag, _ in arrived} == {"moveTo", "ins"}
    confirmed = move_pair.confirmed
    assert normalized_text("".join(text for _, text in left)) == normalized_text(
        _span_text(move_pair.before, confirmed, "before")
    )
    assert normalized_text("".join(text for _, text in arrived)) == normalized_text(
        _span_text(move_pair.after, confirmed, "after")
    )
    comments = _comments(out)
    verdict = standing_verdict(confirmed, read_verdicts(move_pair.workspace))
    assert verdict is not None
    assert (
        f"moved pairing {confirmed.change_id}, confirmed by reviewer-a (verdict log row "
        f"{verdict.seq})"
    ) in comments.values()
    # The unconfirmed move: its pairing named in a comment on a deletion and on an insertion.
    other = move_pair.unconfirmed
    b, a = other.before, other.after
    assert b is not None and a is not None and other.alignment_confidence is not None
    note = (
        f"moved pairing {other.change_id}: before [{b.char_start}, {b.char_end}) -> after "
        f"[{a.char_start}, {a.char_end}), confidence {other.alignment_confidence:.2f}"
        f"{' capped' if other.capped else ''}; shown as a deletion and an insertion: no reviewer "
        f"has confirmed it; doubtful: {', '.join(doubt_reasons(other))}"
    )
    ids = [k for k, text in comments.items() if text == note]
    assert len(ids) == 2, "one comment where the passage left, one where it arrived"
    readings = sorted((_commented_text(root, k) for k in ids), key=lambda r: r[1])
    (gone_rejected, gone_accepted), (came_rejected, came_accepted) = readings
    assert gone_accepted == "" and came_rejected == ""
    assert normalized_text(gone_rejected) == normalized_text(
        _span_text(move_pair.before, other, "before")
    )
    assert normalized_text(came_accepted) == normalized_text(
        _span_text(move_pair.after, other, "after")
    )


@pytest.fixture(scope="module")
def law_redline(
    workspace: Workspace,
    catalogue: tuple[CatalogueRow, ...],
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, dict[str, str]]:
    """The D.C. Code pair whose changes held laws made, written with the amendments verb's
    attributions; returns the file and each made_by change's line."""
    ((before, after),) = version_pairs(workspace, LAW_FAMILY, start=LAW_PAIR[0], end=LAW_PAIR[1])
    (changes,) = [c for b, _, c in held_diffs(workspace, LAW_FAMILY) if b == before]
    report = family_amendments(
        workspace,
        LAW_FAMILY,
        catalogue,
        STORE,
        changes={(before.version_id, after.version_id): changes},
    )
    made = {k: m.line() for k, m in report.attributions.items() if m.kind == "made_by"}
    out = tmp_path_factory.mktemp("law") / "law.docx"
    write_redline_docx(
        out, before, after, changes, verdicts=(), log_head=NO_LOG, attributions=report.attributions
    )
    return out, made


def test_a_change_a_law_made_carries_a_comment_naming_the_instruction(
    law_redline: tuple[Path, dict[str, str]], workspace: Workspace
) -> None:
    out, made = law_redline
    assert made, "the pair holds changes a held law made"
    comments = _comments(out)
    assert sorted(comments.values()) == sorted(made.values())
    root = _document(out)
    before, after = workspace.version(LAW_PAIR[0]), workspace.version(LAW_PAIR[1])
    for ident, line in comments.items():
        rejected, accepted = _commented_text(root, ident)
        # Each comment covers a change that reads differently before and after.
        assert normalized_text(rejected) != normalized_text(accepted), line
        assert normalized_text(rejected).strip() in normalized_text(before.text)
        assert normalized_text(accepted).strip() in normalized_text(after.text)


def test_the_properties_bind_both_versions_and_the_log(move_pair: MovePair, tmp_path: Path) -> None:
    out = _write(tmp_path, move_pair)
    properties = read_redline_docx(out).properties
    for side, version in (("before", move_pair.before), ("after", move_pair.after)):
        assert properties[f"{side}.version_id"] == version.version_id
        assert properties[f"{side}.artefact_sha256"] == version.artefact_sha256
        assert properties[f"{side}.text_sha256"] == version.text_sha256
    assert properties["verdict_log.head"] == NO_LOG.head


def _rewrite(path: Path, member: str, edit: Callable[[bytes], bytes]) -> None:
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    members[member] = edit(members[member])
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def _edit_paragraph(number: int) -> Callable[[bytes], bytes]:
    """Replace the first text of body paragraph `number` (from 1) with other words."""

    def edit(data: bytes) -> bytes:
        root = etree.fromstring(data)
        paragraphs = [
            p for p in root.find(f"{W}body").findall(f"{W}p") if p.find(f".//{W}t") is not None
        ]
        target = paragraphs[number - 1].find(f".//{W}t")
        target.text = "words the versions never held"
        return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)

    return edit


def test_verify_passes_a_redline_as_written(move_pair: MovePair, tmp_path: Path) -> None:
    out = _write(tmp_path, move_pair)
    verified = verify_redline_docx(out, move_pair.workspace.version)
    assert (verified.before_id, verified.after_id) == MOVE_PAIR


def test_verify_refuses_an_edited_redline_naming_its_paragraph(
    move_pair: MovePair, tmp_path: Path
) -> None:
    out = _write(tmp_path, move_pair)
    root = _document(out)
    paragraphs = root.find(f"{W}body").findall(f"{W}p")
    with_text = [k for k, p in enumerate(paragraphs, start=1) if p.find(f".//{W}t") is not None]
    # The tenth paragraph with text: where it stands among all paragraphs is what is named.
    number = with_text[9]
    first = paragraphs[number - 1].find(f".//{W}t")
    # Text only accept-all keeps makes the after reading differ; any other text the before
    # reading, which is checked first.
    tracked = {etree.QName(a).localname for a in first.iterancestors()} & {"ins", "moveTo"}
    side = "after" if tracked else "before"
    _rewrite(out, "word/document.xml", _edit_paragraph(10))
    version = move_pair.before if side == "before" else move_pair.after
    what = "rejecting" if side == "before" else "accepting"
    reading = read_redline_docx(out)
    part = reading.rejected if side == "before" else reading.accepted
    start = part.paragraph_starts[number - 1]
    end = part.paragraph_starts[number] if number < len(part.paragraph_starts) else len(part.text)
    shown = " ".join(part.text[start:end].split())
    shown = shown if len(shown) <= 40 else shown[:40] + "…"
    with pytest.raises(RedlineRefused) as refused:
        verify_redline_docx(out, move_pair.workspace.version)
    assert str(refused.value) == (
        f"{out}: edited: {what} every change, paragraph {number} ({shown!r}) differs from the "
        f"{side} version {version.version_id}"
    )


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        pytest.param(
            lambda data: data.replace(
                b"draft-wilde-xml-patch-02.txt", b"draft-wilde-xml-patch-99.txt"
            ),
            "{out}: the before version ietf/draft-wilde-xml-patch/draft-wilde-xml-patch-99.txt "
            "is not held in this workspace",
            id="version-not-held",
        ),
        pytest.param(
            lambda data: data.replace(
                b'artefact_sha256"><vt:lpwstr>', b'artefact_sha256"><vt:lpwstr>0'
            ),
            "{out}: before version {before}: artefact_sha256 0{artefact} in the redline, "
            "{artefact} held",
            id="hash-differs",
        ),
        pytest.param(
            lambda data: data.replace(b"workbench.before.version_id", b"someone.else"),
            "{out}: no workbench.before.version_id property; not a workbench redline",
            id="no-binding",
        ),
    ],
)
def test_verify_refuses_a_redline_bound_to_what_is_not_held(
    move_pair: MovePair,
    tmp_path: Path,
    edit: Callable[[bytes], bytes],
    message: str,  # type: ignore[valid-type]
) -> None:
    out = _write(tmp_path, move_pair)
    _rewrite(out, "docProps/custom.xml", edit)
    with pytest.raises(RedlineRefused) as refused:
        verify_redline_docx(out, move_pair.workspace.version)
    assert str(refused.value) == message.format(
        out=out, before=MOVE_PAIR[0], artefact=move_pair.before.artefact_sha256
    )


def test_the_commands_write_and_verify_a_redline_in_one_line_each(
    move_pair: MovePair, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cli.docx"
    workspace = str(move_pair.workspace.path)
    family = "draft-wilde-xml-patch"
    span = ["--from", MOVE_PAIR[0], "--to", MOVE_PAIR[1], "--workspace", workspace]
    assert main(["diff", family, "--docx", str(out), *span]) == 0
    (wrote,) = capsys.readouterr().out.splitlines()
    assert wrote.startswith(f"wrote {out}: {MOVE_PAIR[0]} -> {MOVE_PAIR[1]}: ")
    assert ", 1 confirmed moves, " in wrote
    assert main(["verify-redline", str(out), "--workspace", workspace]) == 0
    assert capsys.readouterr().out == (
        f"{out}: verified: rejecting every change gives {MOVE_PAIR[0]} and accepting every "
        f"change gives {MOVE_PAIR[1]} ({len(read_redline_docx(out).accepted.paragraph_starts)} "
        "paragraphs; both hashes match)\n"
    )
    _rewrite(out, "word/document.xml", _edit_paragraph(3))
    assert main(["verify-redline", str(out), "--workspace", workspace]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1
    assert captured.err.startswith(f"workbench: error: {out}: edited: ")
    # Several pairs and no --from/--to: refused, nothing written.
    again = tmp_path / "several.docx"
    assert main(["diff", family, "--docx", str(again), "--workspace", workspace]) == 2
    several = len(version_pairs(move_pair.workspace, family))
    assert several > 1
    assert capsys.readouterr().err == (
        f"workbench: error: {family}: {several} version pairs; --docx writes one: name it with "
        "--from V --to V\n"
    )
    assert not again.exists()


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        pytest.param(["--json"], "--json", id="json"),
        pytest.param(["--kind", "moved"], "--kind", id="kind"),
        pytest.param(["--doubtful"], "--doubtful", id="doubtful"),
    ],
)
def test_docx_goes_alone(
    move_pair: MovePair,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    named: str,
) -> None:
    out = tmp_path / "alone.docx"
    argv = ["diff", "draft-wilde-xml-patch", "--docx", str(out), *extra]
    assert main([*argv, "--workspace", str(move_pair.workspace.path)]) == 2
    assert capsys.readouterr().err == (
        "workbench: error: --docx writes the whole diff of one version pair and goes without "
        f"{named}\n"
    )
    assert not out.exists()


def test_a_character_xml_cannot_hold_is_refused(move_pair: MovePair, tmp_path: Path) -> None:
    from dataclasses import replace

    planted = replace(
        move_pair.after, text=move_pair.after.text[:40] + "\x1b" + move_pair.after.text[41:]
    )
    with pytest.raises(RedlineError) as refused:
        write_redline_docx(
            tmp_path / "x.docx", move_pair.before, planted, (), verdicts=(), log_head=NO_LOG
        )
    assert str(refused.value) == (
        f"{MOVE_PAIR[1]}: character U+001B at offset 40 cannot be held in a Word document"
    )
    assert not (tmp_path / "x.docx").exists()


# ---------------------------------------------------------------------------------------------
# The second implementation


def _reading_key(docx: Path) -> str:
    """The redline's parts hashed, but for when its comments were written (their `w:date`), which
    no accepted or rejected text holds."""
    digest = hashlib.sha256()
    with zipfile.ZipFile(docx) as archive:
        for name in sorted(archive.namelist()):
            data = archive.read(name)
            if name == "word/comments.xml":
                data = re.sub(rb' w:date="[^"]*"', b"", data)
            digest.update(name.encode() + b"\0" + data + b"\0")
    return digest.hexdigest()


@pytest.mark.slow
def test_libreoffice_accepts_and_rejects_every_redline_to_the_held_texts(
    workspace: Workspace,
    move_pair: MovePair,
    law_redline: tuple[Path, dict[str, str]],
    tmp_path: Path,
) -> None:
    """Every version pair of the default workspace (every D.C. Code release pair, and IETF text,
    USLM and Justice Canada XML, NERC and Texas PDFs), the confirmed move's redline and the law
    redline: LibreOffice's accept-all text is the after version and its reject-all text the
    before version, under the one normalization; one soffice process for all of them (a fresh
    one for the jobs left where it dies: `convert_all`), each distinct document loaded once for
    both readings (accept-all, undone, then reject-all). The command's redline of the grown
    `us-tx` table (its rows cell by cell) is one of them."""
    started = time.perf_counter()
    cases: list[tuple[Path, Version, Version]] = []
    for k, (before, after, changes) in enumerate(held_diffs(workspace)):
        out = tmp_path / f"pair-{k:03d}.docx"
        write_redline_docx(out, before, after, changes, verdicts=(), log_head=NO_LOG)
        cases.append((out, before, after))
    # The command's redline of a grown PDF table, its rows laid out cell by cell.
    (rows,) = diff_sections(version_pairs(workspace, TABLE_FAMILY), workspace=workspace)
    assert any(c.after_cells for c in rows.changes)
    out = tmp_path / "table-rows.docx"
    write_redline_docx(out, rows.before, rows.after, rows.changes, verdicts=(), log_head=NO_LOG)
    held_before, held_after = (workspace.version(v.version_id) for v in (rows.before, rows.after))
    cases.append((out, held_before, held_after))
    cases.append((_write(tmp_path, move_pair), move_pair.before, move_pair.after))
    cases.append((law_redline[0], workspace.version(LAW_PAIR[0]), workspace.version(LAW_PAIR[1])))
    written = time.perf_counter()
    # A redline that is another's but for when its comments were written (the command's table
    # redline is the held pair's) is one document to accept and reject: LibreOffice reads it once.
    keys = [_reading_key(out) for out, _, _ in cases]
    read: dict[str, Path] = {}
    for key, (out, _, _) in zip(keys, cases, strict=True):
        read.setdefault(key, out)
    jobs = [
        Job("redline", out, tuple(tmp_path / f"{out.stem}.{mode}.txt" for mode in MODES))
        for out in read.values()
    ]
    # The page docs/diff.md shows: WORKBENCH_REDLINE_DOCX_PAGE_OUT=docs/img/redline-docx.png.
    page_out = os.environ.get("WORKBENCH_REDLINE_DOCX_PAGE_OUT")
    if page_out:
        jobs.append(Job("pdf", cases[-2][0], (tmp_path / "moves.pdf",)))
    runs = convert_all(jobs, tmp_path)
    converted = time.perf_counter()
    dc = [c for c in cases[:-3] if c[1].family.startswith("dc-code-")]
    others = {(c[1].jurisdiction, c[1].media_type) for c in cases[:-3] if c not in dc}
    assert len(dc) == 53, "every D.C. Code release pair of the shared corpus"
    assert len(cases) - 3 - len(dc) >= 30
    assert len({j for j, _ in others}) >= 5
    assert {m for _, m in others} == {"text/plain", "application/xml", "application/pdf"}
    wrong = []
    for key, (out, before, after) in zip(keys, cases, strict=True):
        for mode, version in (("accept", after), ("reject", before)):
            text = (tmp_path / f"{read[key].stem}.{mode}.txt").read_text(encoding="utf-8")
            if normalized_text(text).strip() != normalized_text(version.text).strip():
                wrong.append(f"{out.name} {mode}: not {version.version_id}")
    assert not wrong, wrong
    print(
        f"{len(cases)} redlines written in {written - started:.1f} s; LibreOffice accepted and "
        f"rejected the {len(read)} distinct ones in {converted - written:.1f} s (soffice "
        f"processes: {len(runs)}; {'; '.join(runs)})"
    )
    if page_out:
        first_page = ["-png", "-r", "70", "-f", "1", "-l", "1", "-singlefile"]
        root = Path(page_out).with_suffix("")
        subprocess.run(
            ["pdftoppm", *first_page, str(tmp_path / "moves.pdf"), str(root)], check=True
        )
