"""`workbench corpus add` on real files: what it places is what the original provenance admits."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REFUSED_STORE, STORE, tree_digest
from workbench.cli import main
from workbench.corpus import admit, read_catalogue
from workbench.corpus.add import git_blob_id, sniff_media_type
from workbench.corpus.catalogue import CATALOGUE_NAME
from workbench.corpus.provenance import PROVENANCE_SUFFIX
from workbench.models import CatalogueRow

IETF = "ietf/draft-ietf-appsawg-http-problem"
# One group per `corpus add` call: real files of four kinds, with their original catalogue paths.
GROUPS = (
    tuple(f"{IETF}/draft-ietf-appsawg-http-problem-0{n}.txt" for n in (1, 2, 3)),
    ("us-dc/dc-code-34-306/34-306@2021-11-09.xml",),
    ("us-nerc/nerc-cip-012/cip-012-1.pdf",),
    ("ca-federal/ca-energy-efficiency-act/E-6.4@2019-06-21.xml",),
)
SAMPLE = GROUPS[1][0]
TIME = "2026-12-02T10:00:00+00:00"


def _original(path: str) -> dict[str, Any]:
    record: dict[str, Any] = json.loads((STORE / (path + PROVENANCE_SUFFIX)).read_bytes())
    return record


def _mirror_text(record: dict[str, Any]) -> str:
    mirror = record["mirror"]
    return f"{mirror['repo']}@{mirror['commit']}:{mirror['path']}"


def _flat(tmp_path: Path, paths: Sequence[str]) -> Path:
    """The documents alone, without their provenance, in one flat folder."""
    flat = tmp_path / "flat"
    flat.mkdir(parents=True, exist_ok=True)
    for path in paths:
        shutil.copyfile(STORE / path, flat / Path(path).name)
    return flat


def _facts(path: str) -> dict[str, Any]:
    record = _original(path)
    jurisdiction, family, _ = path.split("/")
    return {
        "jurisdiction": jurisdiction,
        "family": family,
        "url": record["source_url"],
        "mirror": _mirror_text(record),
        "order": record["version_order"],
        "date": record["filing_date"]
        if record["filing_date"] and len(record["filing_date"]) == 10
        else None,
        "issuer": record["filer_or_issuer"],
        "docket": record["docket_or_bill"],
        "label": record["version_label"],
    }


def _group_args(flat: Path, group: Sequence[str], into: Path) -> list[str]:
    facts = _facts(group[0])
    args = ["corpus", "add", *(str(flat / Path(p).name) for p in group), "--into", str(into)]
    args += ["--jurisdiction", facts["jurisdiction"], "--family", facts["family"], "--official"]
    if len(group) > 1:
        # Several versions of one family: their orders come from the order given (1, 2, 3) and
        # their mirror paths from the repository folder that holds them.
        return [*args, "--mirror", facts["mirror"].rsplit("/", 1)[0] + "/"]
    args += ["--order", str(facts["order"]), "--label", facts["label"], "--mirror", facts["mirror"]]
    for flag in ("url", "date", "issuer", "docket"):
        if facts[flag]:
            args += [f"--{flag}", facts[flag]]
    return args


def _compared(row: CatalogueRow) -> tuple[str, str, int, str, int]:
    return (row.path, row.sha256, row.size, row.media_type, row.version_order)


def _expected() -> list[tuple[str, str, int, str, int]]:
    paths = [p for group in GROUPS for p in group]
    rows = [row for row in admit(STORE).rows if row.path in paths]
    assert len(rows) == len(paths)
    return sorted(_compared(row) for row in rows)


def _admitted(into: Path, corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> list[Any]:
    assert main(["corpus", "admit", str(into), "--corpus-dir", str(corpus_dir)]) == 0
    out = capsys.readouterr().out
    assert f"admitted {sum(map(len, GROUPS))} documents" in out and "refused 0" in out
    return sorted(_compared(row) for row in read_catalogue(corpus_dir))


def test_add_by_options_then_admit_matches_the_original_provenance(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = tmp_path / "mirror"
    flat = _flat(tmp_path, [p for group in GROUPS for p in group])
    for group in GROUPS:
        assert main(_group_args(flat, group, into)) == 0
    out = capsys.readouterr().out
    assert out.count(": wrote ") == sum(map(len, GROUPS))
    assert _admitted(into, tmp_path / "corpus", capsys) == _expected()
    for path in (p for group in GROUPS for p in group):
        written = json.loads((into / (path + PROVENANCE_SUFFIX)).read_bytes())
        original = _original(path)
        # The blob id is computed from the bytes and equals the one the mirror's git holds.
        assert written["mirror"] == original["mirror"]
        assert written["source_url"] == original["source_url"]
        assert written["byte_faithful_to_official_filing"] is True
        assert (written["line_numbered"], written["license_note"]) == (False, None)


def test_add_from_csv_then_admit_matches_the_original_provenance(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = [p for group in GROUPS for p in group]
    flat = _flat(tmp_path, paths)
    manifest = flat / "manifest.csv"
    columns = ["file", "jurisdiction", "family", "url", "mirror", "official", "order", "date"]
    with manifest.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for path in paths:
            facts = _facts(path)
            # Order left empty for the IETF rows: their place among the family's rows gives it.
            order = "" if path.startswith(IETF) else str(facts["order"])
            cells = [Path(path).name, facts["jurisdiction"], facts["family"], facts["url"]]
            writer.writerow([*cells, facts["mirror"], "true", order, facts["date"]])
    into = tmp_path / "mirror"
    assert main(["corpus", "add", "--from-csv", str(manifest), "--into", str(into)]) == 0
    capsys.readouterr()
    assert _admitted(into, tmp_path / "corpus", capsys) == _expected()
    for path in paths:
        written = json.loads((into / (path + PROVENANCE_SUFFIX)).read_bytes())
        assert written["mirror"]["path"] == _original(path)["mirror"]["path"]
        assert written["mirror"]["blob"] == _original(path)["mirror"]["blob"]


def test_the_same_files_twice_write_nothing_and_say_so(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flat, into = _flat(tmp_path, GROUPS[0]), tmp_path / "mirror"
    assert main(_group_args(flat, GROUPS[0], into)) == 0
    before = tree_digest(into)
    capsys.readouterr()
    assert main(_group_args(flat, GROUPS[0], into)) == 0
    out = capsys.readouterr().out
    assert out.count("wrote nothing (already there, equal)") == 3
    assert "placed 0 of 3 documents" in out and tree_digest(into) == before


def test_a_transcription_is_added_and_then_refused_by_admission(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (path,) = [
        p.relative_to(REFUSED_STORE).as_posix() for p in REFUSED_STORE.glob("us-ri-puc/*/*.md")
    ][:1]
    flat = tmp_path / "flat"
    flat.mkdir()
    shutil.copyfile(REFUSED_STORE / path, flat / Path(path).name)
    record = json.loads((REFUSED_STORE / (path + PROVENANCE_SUFFIX)).read_bytes())
    jurisdiction, family, name = path.split("/")
    into = tmp_path / "mirror"
    args = ["corpus", "add", str(flat / name), "--into", str(into), "--transcription"]
    args += ["--jurisdiction", jurisdiction, "--family", family, "--mirror", _mirror_text(record)]
    assert main(args) == 0
    written = json.loads((into / (path + PROVENANCE_SUFFIX)).read_bytes())
    assert written["format"] == "text/markdown" and record["format"].startswith("text/markdown")
    assert written["byte_faithful_to_official_filing"] is False
    (refusal,) = admit(into).refusals
    assert (refusal.path, refusal.reason) == (path, "transcription")


def test_every_held_file_sniffs_as_its_provenance_media_type(
    catalogue: tuple[CatalogueRow, ...],
) -> None:
    for store in (STORE, REFUSED_STORE):
        for row in admit(store).rows + tuple(
            CatalogueRow.of(r.path, r.provenance or {}) for r in admit(store).refusals
        ):
            data = (store / row.path).read_bytes()
            assert sniff_media_type(data, name=row.path) == row.media_type, row.path
            assert git_blob_id(data) == row.provenance["mirror"]["blob"], row.path


# ---------------------------------------------------------------------------------------------
# Hostile input: exact one-line messages, the exit code, and nothing written.

GOOD = "mnot/I-D@06a8de8252cd6a6749f6a1ed940a5ca935db7928:Published/x.txt"
GOOD_FOLDER = GOOD.rsplit("/", 1)[0] + "/"


def _base(file: Path | str, into: Path) -> list[str]:
    args = ["corpus", "add", str(file), "--into", str(into), "--jurisdiction", "us-dc"]
    return [*args, "--family", "dc-code-34-306", "--mirror", GOOD, "--official"]


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(args)
    except SystemExit as exited:  # refused while the arguments were parsed
        code = int(exited.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    ("change", "message"),
    [
        pytest.param(
            lambda a, t: [*a[:2], str(t / "none.xml"), *a[3:]],
            "corpus add: error: argument FILE: {t}/none.xml: no such file",
            id="missing-file",
        ),
        pytest.param(
            lambda a, t: [*a[:2], str(t / "flat"), *a[3:]],
            "corpus add: error: argument FILE: {t}/flat: is a folder; a file is expected",
            id="directory-as-file",
        ),
        pytest.param(
            lambda a, t: [*a[:2], str(t / "flat" / "empty.xml"), *a[3:]],
            "corpus add: error: argument FILE: {t}/flat/empty.xml: is empty",
            id="empty-file",
        ),
        pytest.param(
            lambda a, t: [*a[:2], str(t / "flat" / "binary.bin"), *a[3:]],
            "{t}/flat/binary.bin: neither a PDF nor UTF-8 text (invalid UTF-8 at byte 2)",
            id="binary-file",
        ),
        pytest.param(
            lambda a, t: [*a[:-2], "owner/repo@main:x.xml", "--official"],
            "--mirror: expected OWNER/NAME@COMMIT:PATH (a 40-hex commit and a relative path), "
            "got 'owner/repo@main:x.xml'",
            id="mirror-branch",
        ),
        pytest.param(
            lambda a, t: [*a[:-2], GOOD.replace("Published/x.txt", "../x.txt"), "--official"],
            "--mirror: expected OWNER/NAME@COMMIT:PATH (a 40-hex commit and a relative path), "
            f"got {GOOD.replace('Published/x.txt', '../x.txt')!r}",
            id="mirror-path-traversal",
        ),
        pytest.param(
            lambda a, t: [*a, "--date", "2021-02-30"],
            "--date: expected a date YYYY-MM-DD, got '2021-02-30'",
            id="impossible-date",
        ),
        pytest.param(
            lambda a, t: [*a, "--date", "11/09/2021"],
            "--date: expected a date YYYY-MM-DD, got '11/09/2021'",
            id="us-date",
        ),
        pytest.param(
            lambda a, t: [*a[:6], "..", *a[7:]],
            "--jurisdiction: expected a name a version id can carry, got '..' (it starts with '.')",
            id="jurisdiction-dotdot",
        ),
        pytest.param(
            lambda a, t: [*a[:6], "us-dc/../../etc", *a[7:]],
            "--jurisdiction: expected a name a version id can carry, got 'us-dc/../../etc' (it "
            "holds '/')",
            id="jurisdiction-traversal",
        ),
        pytest.param(
            lambda a, t: [*a[:6], "", *a[7:]],
            "--jurisdiction: missing",
            id="jurisdiction-empty",
        ),
        pytest.param(
            lambda a, t: a[:-1],
            "--official/--transcription: missing (no default: say which)",
            id="no-official-choice",
        ),
        pytest.param(
            lambda a, t: [*a[:-3], "--url", "file:///etc/passwd", "--official"],
            "--url: expected an absolute http(s) URL, got 'file:///etc/passwd'",
            id="file-url",
        ),
        pytest.param(
            lambda a, t: [*a[:-3], "--official"],
            "--url or --mirror: missing (one of them must name where the bytes come from)",
            id="no-source",
        ),
        pytest.param(
            lambda a, t: [*a[:6], "..", *a[7:-1], "--date", "2021-13-01"],
            "3 problems: --jurisdiction: expected a name a version id can carry, got '..' (it "
            "starts with '.'); --official/--transcription: "
            "missing (no default: say which); --date: expected a date YYYY-MM-DD, got '2021-13-01'",
            id="every-problem-at-once",
        ),
        pytest.param(
            lambda a, t: [*a[:3], str(t / "flat" / "binary.bin"), *a[3:]],
            "2 problems: --mirror: with several FILEs, PATH must be the repository folder holding "
            f"them, ending in '/', got {GOOD!r}; {{t}}/flat/binary.bin: neither a PDF nor UTF-8 "
            "text (invalid UTF-8 at byte 2)",
            id="several-files-one-mirror-path",
        ),
        pytest.param(
            lambda a, t: [
                *a[:3],
                str(t / "flat" / "binary.bin"),
                *a[3:-3],
                "--mirror",
                GOOD_FOLDER,
                "--url",
                "https://a.example/x",
                "--official",
            ],
            "2 problems: --url: one value cannot name several versions; add those files one by "
            "one, or use --from-csv; {t}/flat/binary.bin: neither a PDF nor UTF-8 text (invalid "
            "UTF-8 at byte 2)",
            id="several-files-one-url",
        ),
        pytest.param(
            lambda a, t: [*a, "--from-csv", str(t / "m.csv")],
            "--from-csv takes the files and their facts from the manifest; do not also give "
            "FILE, --jurisdiction, --family, --mirror, --official",
            id="csv-and-options",
        ),
    ],
)
def test_bad_arguments_exit_2_with_one_line_and_write_nothing(
    catalogue: tuple[CatalogueRow, ...],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    change: Any,
    message: str,
) -> None:
    flat = _flat(tmp_path, [SAMPLE])
    (flat / "empty.xml").write_bytes(b"")
    (flat / "binary.bin").write_bytes(b"ab\xff\xfe")
    (tmp_path / "m.csv").write_text("file\n", encoding="utf-8")
    into = tmp_path / "mirror"
    into.mkdir()
    before = tree_digest(tmp_path)
    code, out, err = _run(change(_base(flat / Path(SAMPLE).name, into), tmp_path), capsys)
    assert (code, out) == (2, "")
    # A path refused while parsing names its command and argument; the others, the file's field.
    prefix = "workbench " if message.startswith("corpus add:") else "workbench: error: "
    assert err == f"{prefix}{message.format(t=tmp_path)}\n"
    assert tree_digest(tmp_path) == before


def _placed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, list[str]]:
    flat, into = _flat(tmp_path, [SAMPLE]), tmp_path / "mirror"
    args = [*_base(flat / Path(SAMPLE).name, into), "--order", "4"]
    assert main(args) == 0
    capsys.readouterr()
    return into, args


def test_other_bytes_already_there_are_refused_exit_1(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into, args = _placed(tmp_path, capsys)
    target = into / SAMPLE
    target.chmod(0o644)
    target.write_bytes(target.read_bytes().replace(b"Inspector", b"Inspektor"))
    before = tree_digest(tmp_path)
    code, out, err = _run(args, capsys)
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    assert (code, err) == (1, "")
    assert out == (
        f"nothing written into {into}\n\nrefused (1):\n  {SAMPLE}: file_differs: {target} already "
        f"holds other bytes (sha256 {digest}); nothing written\n"
    )
    assert tree_digest(tmp_path) == before


def test_a_different_provenance_already_there_is_refused_exit_1(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into, args = _placed(tmp_path, capsys)
    before = tree_digest(tmp_path)
    code, out, _ = _run([*args[:-2], "--order", "5", "--date", "2021-11-09"], capsys)
    sidecar = into / (SAMPLE + PROVENANCE_SUFFIX)
    assert code == 1
    assert out.endswith(
        f"{SAMPLE}: provenance_differs: {sidecar} already holds a provenance that differs in "
        "filing_date, version_order; nothing written\n"
    )
    assert tree_digest(tmp_path) == before


def test_a_version_order_taken_in_the_family_folder_is_refused(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into, _ = _placed(tmp_path, capsys)
    other = next(  # another release of the same section
        p.relative_to(STORE).as_posix()
        for p in sorted((STORE / "us-dc" / "dc-code-34-306").glob("*.xml"))
        if p.name != Path(SAMPLE).name
    )
    flat = _flat(tmp_path / "second", [other])
    before = tree_digest(tmp_path)
    code, out, _ = _run([*_base(flat / Path(other).name, into), "--order", "4"], capsys)
    assert code == 1
    assert out.endswith(
        f"{other}: duplicate_version_order: version_order 4 is already given to "
        f"{Path(SAMPLE).name} in {into / 'us-dc' / 'dc-code-34-306'}; nothing written\n"
    )
    assert tree_digest(tmp_path) == before


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        pytest.param(
            ["file,jurisdiction,family,mirror", "34-306@2021-11-09.xml,us-dc,dc-code-34-306,x"],
            "{m}: column 'official' missing",
            id="missing-column",
        ),
        pytest.param(
            ["file,jurisdiction,family,official,mirror,jurisdicton"],
            "{m}: column 'jurisdicton' is not one of file, jurisdiction, family, url, mirror, "
            "official, order, label, date, issuer, docket, language, name, line_numbered",
            id="misspelt-column",
        ),
        pytest.param(
            [
                "file,jurisdiction,family,official,mirror,date,order",
                f"34-306@2021-11-09.xml,us-dc,dc-code-34-306,true,{GOOD},2021-11-09,4",
                f"none.xml,us-dc,dc-code-34-306,yes,{GOOD},,5",
                f"34-306@2021-11-09.xml,..,dc-code-34-306,false,{GOOD},2021-11-31,x",
                "only,three,cells",
            ],
            "6 problems: m.csv row 3, column 'official': expected true or false, got 'yes'; "
            "m.csv row 4, column 'order': expected an integer of at least 1, got 'x'; "
            "m.csv row 5: expected 7 cells, got 3; "
            "m.csv row 3, column 'file': {t}/none.xml: no such file; "
            "m.csv row 4, column 'jurisdiction': expected a name a version id can carry, got "
            "'..' (it starts with '.'); "
            "m.csv row 4, column 'date': expected a date YYYY-MM-DD, got '2021-11-31'",
            id="bad-rows",
        ),
    ],
)
def test_a_bad_manifest_exits_2_naming_rows_and_columns(
    catalogue: tuple[CatalogueRow, ...],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    lines: list[str],
    message: str,
) -> None:
    flat = _flat(tmp_path, [SAMPLE])
    manifest = flat / "m.csv"
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    into = tmp_path / "mirror"
    before = tree_digest(tmp_path)
    code, out, err = _run(
        ["corpus", "add", "--from-csv", str(manifest), "--into", str(into)], capsys
    )
    assert (code, out) == (2, "")
    assert err == f"workbench: error: {message.format(m=manifest, t=flat)}\n"
    assert tree_digest(tmp_path) == before and not into.exists()


def test_a_symlinked_family_folder_is_refused(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flat, into = _flat(tmp_path, [SAMPLE]), tmp_path / "mirror"
    (into / "us-dc").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, into / "us-dc" / "dc-code-34-306")
    code, out, _ = _run(_base(flat / Path(SAMPLE).name, into), capsys)
    assert code == 1 and ": not_a_folder: " in out
    assert not any(outside.iterdir())
    assert not (into / CATALOGUE_NAME).exists()


def test_the_copys_name_obeys_the_version_id_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--name` is checked by the one version-id rule: a ':' is refused by name and nothing is
    written; a single inner space is a name the rule carries, placed as given."""
    source = tmp_path / "notes.txt"
    source.write_bytes(b"Section 1. Scope.\n")
    into = tmp_path / "mirror"
    add = ["corpus", "add", str(source), "--into", str(into), "--jurisdiction", "x"]
    add += ["--family", "y", "--url", "https://example.org/notes", "--official"]
    assert main([*add, "--name", "a:b.txt"]) == 2
    assert capsys.readouterr().err.strip() == (
        "workbench: error: --name: expected a name a version id can carry, got 'a:b.txt' "
        "(it holds ':')"
    )
    assert not into.exists()
    assert main([*add, "--name", "scope notes.txt"]) == 0
    assert (into / "x" / "y" / "scope notes.txt").read_bytes() == source.read_bytes()
    provenance = json.loads(
        (into / "x" / "y" / ("scope notes.txt" + PROVENANCE_SUFFIX)).read_bytes()
    )
    assert provenance["sha256"] == hashlib.sha256(source.read_bytes()).hexdigest()


# Options of `corpus add` that are not a document's fact, so no manifest column carries them.
NOT_PER_DOCUMENT = {
    "--into",
    "--from-csv",
    "--from-git",
    "--paths",
    "--family-from",
    "--family-prefix",
    "--since",
    "--until",
    "--at-head",
    "--repo-name",
    "--help",
    "-h",
    "--transcription",
}
# One value for each optional column, as a researcher would write it in a cell and as an option.
COLUMN_VALUES = {
    "url": "https://example.gov/a.txt",
    "order": "7",
    "label": "as filed",
    "date": "2024-05-01",
    "issuer": "Example Commission",
    "docket": "24-E-0001",
    "language": "de",
    "name": "renamed.txt",
    "line_numbered": "true",
}


def _add_parser_options() -> set[str]:
    import argparse

    from workbench.cli import build_parser

    (commands,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    corpus = commands.choices["corpus"]
    (sub,) = [a for a in corpus._actions if isinstance(a, argparse._SubParsersAction)]
    return {o for a in sub.choices["add"]._actions for o in a.option_strings}


def test_every_fact_corpus_add_takes_is_a_manifest_column() -> None:
    from workbench.corpus.manifest import MANIFEST_COLUMNS

    per_document = {o.removeprefix("--").replace("-", "_") for o in _add_parser_options()}
    per_document -= {o.removeprefix("--").replace("-", "_") for o in NOT_PER_DOCUMENT}
    assert per_document == set(MANIFEST_COLUMNS) - {"file"}
    assert set(COLUMN_VALUES) == set(MANIFEST_COLUMNS) - {
        "file",
        "jurisdiction",
        "family",
        "official",
        "mirror",
    }


@pytest.mark.parametrize("column", sorted(COLUMN_VALUES))
def test_a_manifest_column_writes_what_its_option_writes(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, column: str
) -> None:
    flat = _flat(tmp_path, [SAMPLE])
    facts = _facts(SAMPLE)
    base = {"jurisdiction": "xx", "family": "f", "mirror": facts["mirror"], "official": "true"}
    value = COLUMN_VALUES[column]
    by_option = tmp_path / "by-option"
    option = ["--line-numbered"] if column == "line_numbered" else [f"--{column}", value]
    args = ["corpus", "add", str(flat / Path(SAMPLE).name), "--into", str(by_option)]
    args += ["--jurisdiction", "xx", "--family", "f", "--mirror", facts["mirror"], "--official"]
    assert main([*args, *option]) == 0
    manifest = flat / "m.csv"
    with manifest.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["file", *base, column])
        writer.writerow([Path(SAMPLE).name, *base.values(), value])
    by_manifest = tmp_path / "by-manifest"
    assert main(["corpus", "add", "--from-csv", str(manifest), "--into", str(by_manifest)]) == 0
    (written,) = sorted(by_option.rglob("*" + PROVENANCE_SUFFIX))
    (again,) = sorted(by_manifest.rglob("*" + PROVENANCE_SUFFIX))
    assert written.relative_to(by_option) == again.relative_to(by_manifest)
    one, other = json.loads(written.read_bytes()), json.loads(again.read_bytes())
    one.pop("retrieved_at"), other.pop("retrieved_at")
    assert one == other
    if column == "language":
        assert other["language"] == "de"
