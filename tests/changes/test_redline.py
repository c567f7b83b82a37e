"""The redline: pieces that tile each side exactly, marks only where the texts differ, the
listing, JSON, page and change table over real versions, and hostile filing text."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import polars as pl
import pytest

from workbench.changes import pairs, redline
from workbench.changes import redline_page as redline_html
from workbench.changes.diff import diff_versions, doubt_reasons, pairing_is_uncertain
from workbench.cli import main
from workbench.errors import RedlineError
from workbench.models import Version
from workbench.text.normalize import normalized_text
from workbench.workspace import Workspace

PDF_FAMILY = "nerc-cip-012"  # two PDF versions: modified, moved, split, merged, added, removed
PDF_BEFORE = "us-nerc/nerc-cip-012/cip-012-1.pdf"
PDF_AFTER = "us-nerc/nerc-cip-012/cip-012-2.pdf"
FEE_VERSION = "us-dc/dc-code-34-1436/34-1436@2022-11-14.xml"  # holds "up to $250,000"
HOSTILE = '<script>window.pwned = 1</script><img src="x" onerror="window.pwned = 2">'


@pytest.fixture(scope="module")
def pdf_section(workspace: Workspace) -> redline.Section:
    before, after = workspace.version(PDF_BEFORE), workspace.version(PDF_AFTER)
    return redline.section(before, after, diff_versions(before, after))


@pytest.fixture(scope="module")
def command_section(workspace: Workspace) -> redline.Section:
    """What `workbench diff` shows of CIP-012: its tables paired row by row."""
    chosen = pairs.version_pairs(workspace, PDF_FAMILY)
    (section,) = pairs.diff_sections(chosen, workspace=workspace)
    assert any(c.before_cells or c.after_cells for c in section.changes)
    return section


def _folded(text: str) -> str:
    return normalized_text(re.sub(r"\s+", " ", text))


def test_pieces_tile_each_side_and_mark_only_what_differs(pdf_section: redline.Section) -> None:
    kinds = set()
    for r in pdf_section.shown:
        change, kinds = r.change, kinds | {r.change.kind}
        if change.before is not None:
            assert "".join(r.before_of(p) for p in r.pieces) == r.before_text
        if change.after is not None:
            assert "".join(r.after_of(p) for p in r.pieces) == r.after_text
        assert all(a.changed != b.changed for a, b in zip(r.pieces, r.pieces[1:], strict=False))
        for piece in r.pieces:
            if not piece.changed:
                assert _folded(r.before_of(piece)) == _folded(r.after_of(piece))
        if change.kind == "unchanged":
            assert not any(p.changed for p in r.pieces)
        if change.kind in ("added", "removed"):
            assert [p.changed for p in r.pieces] == [True]
        if change.kind == "modified" and change.span_before and change.span_after:
            # Nothing is marked outside the narrowed spans widened to whole words.
            marked = [p for p in r.pieces if p.changed]
            assert marked, change
            word = re.compile(r"\w*")
            before, after = r.before_source, r.after_source
            start = change.span_before.char_start
            widened = start - len(word.match(before[::-1], len(before) - start).group())
            assert marked[0].before_start >= widened
            assert marked[-1].after_end <= change.span_after.char_end + len(
                word.match(after, change.span_after.char_end).group()
            )
        assert r.doubt == doubt_reasons(change)
        assert bool(r.doubt) == pairing_is_uncertain(change)
    assert {"unchanged", "modified", "moved", "split", "merged", "added", "removed"} <= kinds


def test_a_changed_number_is_marked_as_whole_words(pdf_section: redline.Section) -> None:
    """The standard's number moved from CIP-012-1 to CIP-012-2: the narrowed spans are "1" and
    "2", and the line shows the words around them."""
    titles = [
        r for r in pdf_section.shown if r.change.before_label == "1" and r.change.kind == "modified"
    ]
    (title,) = titles
    assert (title.before_of(title.pieces[1]), title.after_of(title.pieces[1])) == ("1", "2")
    line = redline.marked_text(title)
    assert line.endswith("2. Number: CIP-012-[-1-]{+2+}")
    assert redline.places(title) == "before [16, 102) p. 1; after [16, 102) p. 1"


def test_a_raised_fee_shows_both_amounts(workspace: Workspace) -> None:
    before = workspace.version(FEE_VERSION)
    after = dataclasses.replace(
        before, version_id="raised", text=before.text.replace("$250,000", "$275,000", 1)
    )
    (changed,) = [c for c in diff_versions(before, after) if c.kind != "unchanged"]
    shown = redline.redline(changed, before, after)
    assert "up to $[-250-]{+275+},000 shall be used by DOEE" in redline.marked_text(shown)
    coloured = redline.marked_text(shown, colour=True)
    assert "\x1b[31m[-250-]\x1b[m\x1b[32m{+275+}\x1b[m" in coloured


def test_unchanged_context_is_cut_and_marked_text_never_is(pdf_section: redline.Section) -> None:
    for r in pdf_section.shown:
        line = redline.marked_text(r, context=10)
        for piece in r.pieces:
            if piece.changed and r.before_of(piece).strip():
                removed = re.sub(r"\s+", " ", r.before_of(piece))
                assert f"[-{removed}-]" in line
        folded = re.sub(r"\s+", " ", r.after_text)
        if r.change.kind == "unchanged" and len(folded) > 22:
            assert line == (folded[:20] + " …").strip()


def _hostile_pair(workspace: Workspace) -> tuple[Version, Version]:
    """A real D.C. Code release and a copy with markup and a terminal escape in one passage."""
    before = workspace.version(FEE_VERSION)
    text = before.text.replace("used by DOEE", f"used by DOEE {HOSTILE} \x1b[2J", 1)
    assert text != before.text
    return before, dataclasses.replace(before, version_id="hostile/<b>x</b>.xml", text=text)


def test_hostile_text_is_escaped_on_the_page_and_inert_on_a_terminal(
    workspace: Workspace,
) -> None:
    before, after = _hostile_pair(workspace)
    part = redline.section(before, after, diff_versions(before, after))
    page = redline_html.page_html([part], family="<i>family</i>", shown="every change")
    assert "<script" not in page and "<img" not in page and "<b>" not in page
    assert "<i>" not in page and "\x1b" not in page
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in page
    assert "&lt;img src=&quot;x&quot; onerror=&quot;window.pwned = 2&quot;&gt;" in page
    assert "\u241b[2J" in page  # the escape character shown as its control picture
    assert "default-src 'none'" in page
    (changed,) = [r for r in part.shown if r.change.kind != "unchanged"]
    line = redline.marked_text(changed)
    assert "\x1b" not in line and "\u241b[2J" in line and HOSTILE in line


def test_the_page_links_moves_and_splits_and_anchors_every_change(
    pdf_section: redline.Section,
) -> None:
    page = redline_html.page_html([pdf_section], family=PDF_FAMILY, shown="every change")
    anchors = set(re.findall(r' id="([^"]+)"', page))
    links = set(re.findall(r' href="#([^"]+)"', page))
    assert {r.change.change_id for r in pdf_section.shown} <= anchors
    assert links <= anchors  # no link points nowhere
    for r in pdf_section.shown:
        change = r.change
        if change.kind == "moved":
            assert f"{change.change_id}-to" in anchors and f"{change.change_id}-to" in links
        for k, _ in enumerate(change.after_spans or change.before_spans, 1):
            assert f"{change.change_id}-part-{k}" in anchors & links
    assert page.count("<del>") and page.count("<ins>")
    assert "pp. 2-3" in page or "p. 2" in page
    doubtful = [r for r in pdf_section.shown if r.doubt]
    assert page.count('<span class="doubt">doubtful: ') == 2 * len(doubtful)  # index and row
    assert page == redline_html.page_html([pdf_section], family=PDF_FAMILY, shown="every change")


def test_select_filters_by_kind_and_doubt(pdf_section: redline.Section) -> None:
    changes = pdf_section.changes
    assert redline.select(changes) == changes
    moved = redline.select(changes, kinds=["moved"])
    assert moved and {c.kind for c in moved} == {"moved"}
    doubtful = redline.select(changes, doubtful=True)
    assert doubtful == tuple(c for c in changes if pairing_is_uncertain(c))
    with pytest.raises(RedlineError, match="unknown change kind shifted; expected one of"):
        redline.select(changes, kinds=["shifted"])


def _cli(
    capsysbinary: pytest.CaptureFixture[bytes], workspace: Workspace, *args: str
) -> tuple[int, str, str]:
    try:
        code = main([*args, "--workspace", str(workspace.path)])
    except SystemExit as exited:  # refused while the arguments were parsed
        code = int(exited.code or 0)
    out, err = capsysbinary.readouterr()
    return code, out.decode(), err.decode()


def test_diff_listing_shows_both_sides_and_filters(
    workspace: Workspace,
    command_section: redline.Section,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    code, out, _ = _cli(capsysbinary, workspace, "diff", PDF_FAMILY, "--doubtful")
    lines = out.splitlines()
    doubtful = [c for c in command_section.changes if pairing_is_uncertain(c)]
    assert code == 0 and doubtful
    assert lines[0] == f"{redline.pair_summary(command_section)}; {len(doubtful)} shown"
    assert len(lines) == 1 + 3 * len(doubtful)
    for k, change in enumerate(doubtful):
        header, where, marked = lines[1 + 3 * k : 4 + 3 * k]
        assert header.startswith(f"  {change.change_id} {change.kind}") and " DOUBTFUL (" in header
        cells = f"{len(change.before_cells)} cells in " if change.before_cells else ""
        assert re.fullmatch(rf"    before {cells}\[\d+, \d+\) pp?\. .*; after .*", where)
        assert "[-" in marked or "{+" in marked or change.kind == "split"
    code, out, _ = _cli(
        capsysbinary, workspace, "diff", PDF_FAMILY, "--kind", "added", "--kind", "removed"
    )
    kinds = {line.split()[1] for line in out.splitlines()[1:] if line.startswith("  chg-")}
    held = {c.kind for c in command_section.changes} & {"added", "removed"}
    assert code == 0 and held and kinds == held


def test_diff_json_carries_texts_and_pages(
    workspace: Workspace, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    _, out, _ = _cli(capsysbinary, workspace, "diff", PDF_FAMILY, "--json")
    (pair,) = json.loads(out)
    before, after = workspace.version(pair["before"]).text, workspace.version(pair["after"]).text
    for change in pair["changes"]:
        for side, text in (("before", before), ("after", after)):
            span = change[side]
            cells = change.get(f"{side}_cells")
            if cells:  # a table row: its cells, each at its offsets, never the stretch
                assert [c["text"] for c in cells] == [
                    text[c["char_start"] : c["char_end"]] for c in cells
                ]
                assert change[f"{side}_text"].startswith("| ")
                assert change[f"span_{side}"] is None
            else:
                assert change[f"{side}_text"] == (
                    text[span["char_start"] : span["char_end"]] if span else None
                )
            narrowed = change[f"span_{side}"]
            assert change[f"span_{side}_text"] == (
                text[narrowed["char_start"] : narrowed["char_end"]] if narrowed else None
            )
            pages = change[f"{side}_pages"]
            assert (pages is None) == (span is None)
            assert pages is None or 1 <= pages[0] <= pages[1]
        assert bool(change["doubt"]) == change["uncertain"]
    _, out, _ = _cli(capsysbinary, workspace, "diff", "dc-code-34-306", "--json")
    assert {c["before_pages"] for pair in json.loads(out) for c in pair["changes"]} == {None}


def test_export_writes_the_change_table_and_refuses_bad_paths(
    workspace: Workspace,
    command_section: redline.Section,
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    for form, read in (("csv", pl.read_csv), ("parquet", pl.read_parquet)):
        out = tmp_path / f"changes.{form}"
        code, printed, _ = _cli(
            capsysbinary, workspace, "diff", PDF_FAMILY, "--export", form, "--out", str(out)
        )
        changes = command_section.changes
        assert code == 0 and printed == f"wrote {out}: {len(changes)} changes as {form}\n"
        table = read(out)
        assert table["change_id"].to_list() == [c.change_id for c in changes]
        assert table["uncertain"].sum() == sum(map(pairing_is_uncertain, changes))
        passage = next(c for c in changes if c.kind == "modified" and not c.before_cells)
        row = table.filter(pl.col("change_id") == passage.change_id).row(0, named=True)
        source = command_section.before.text
        assert row["before_text"] == source[row["before_start"] : row["before_end"]]
        table_row = next(r for r in command_section.shown if r.change.before_cells)
        row = table.filter(pl.col("change_id") == table_row.change.change_id).row(0, named=True)
        assert row["before_text"] == table_row.before_text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["changes.csv", "changes.parquet"]
    (tmp_path / "folder").mkdir()
    parsing = "workbench diff: error: argument "  # refused while the arguments are parsed
    bad = [
        (
            ["--export", "csv", "--out", str(tmp_path / "folder")],
            f"{parsing}--out: {tmp_path / 'folder'}: is a folder; give a file name",
        ),
        (
            ["--export", "csv", "--out", str(tmp_path / "no" / "t.csv")],
            f"workbench: error: {tmp_path / 'no' / 't.csv'}: folder ",
        ),
        (
            ["--export", "xlsx", "--out", str(tmp_path / "t.xlsx")],
            f"{parsing}--export: invalid choice: 'xlsx'",
        ),
        (
            ["--export", "csv"],
            "workbench: error: --export FORMAT and --out FILE go together",
        ),
        (
            [
                "--html",
                str(tmp_path / "page.html"),
                "--export",
                "csv",
                "--out",
                str(tmp_path / "folder"),
            ],
            f"{parsing}--out: {tmp_path / 'folder'}: is a folder; give a file name",
        ),
        (
            ["--html", str(tmp_path / "folder")],
            f"{parsing}--html: {tmp_path / 'folder'}: is a folder; give a file name",
        ),
    ]
    for args, message in bad:
        code, printed, err = _cli(capsysbinary, workspace, "diff", PDF_FAMILY, *args)
        assert code == 2 and printed == "" and err.startswith(message), err
        assert err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "changes.csv",
        "changes.parquet",
        "folder",
    ]
    assert not any((tmp_path / "folder").iterdir())


def test_review_list_shows_both_sides_of_each_pairing(
    workspace: Workspace, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, out, _ = _cli(capsysbinary, workspace, "review", "list", PDF_FAMILY)
    lines = out.splitlines()
    pairings = [k for k, line in enumerate(lines) if line.startswith("  chg-")]
    assert code == 0 and pairings
    for k in pairings:
        # a table row's side is its cells (the queue reads the diff `workbench diff` prints)
        assert re.fullmatch(
            r"    before (\d+ cells in )?\[\d+, \d+\) pp?\. .*; after .*", lines[k + 1]
        )
        assert lines[k + 2].startswith("    ") and lines[k + 2].strip()


def test_passages_listing_gives_pdf_pages(
    workspace: Workspace, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, out, _ = _cli(capsysbinary, workspace, "passages", PDF_BEFORE)
    pages = [int(m) for m in re.findall(r" page=(\d+) ", out)]
    _, listed, _ = _cli(capsysbinary, workspace, "passages", PDF_BEFORE, "--json")
    assert code == 0 and len(pages) == len(out.splitlines())
    assert pages == [p["page"] for p in json.loads(listed)] and len(set(pages)) > 1
    code, out, _ = _cli(capsysbinary, workspace, "passages", FEE_VERSION)
    assert code == 0 and " page=" not in out
