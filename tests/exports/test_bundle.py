"""Bundles: written on the session workspace, re-checked from a fresh folder with only the mirror,
and every tampering caught and named."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS_DIR, ROOT, STORE
from workbench.cite import find_text
from workbench.cite.w3c import source_iri
from workbench.cli import main
from workbench.errors import BundleError
from workbench.exports import verify_bundle, write_bundle
from workbench.exports.bundle_check import (
    MAX_MEMBER_BYTES,
    MAX_MEMBERS,
    MAX_RATIO,
    MAX_TOTAL_BYTES,
)
from workbench.text.ocr import default_cache
from workbench.workspace import Workspace

PDF = "us-nerc/nerc-cip-002/cip-002-5.1a.pdf"
TEXT = "ietf/draft-ietf-appsawg-http-problem/draft-ietf-appsawg-http-problem-01.txt"
XML = "us-dc/dc-code-34-306/34-306@2021-11-09.xml"


def _once(text: str, length: int) -> tuple[int, str]:
    """The first line start whose next `length` characters occur once in `text`."""
    for match in re.finditer(r"(?m)^(?=[A-Za-z])", text):
        quote = text[match.start() : match.start() + length]
        if "\n" not in quote and len(find_text(text, quote, None)[1]) == 1:
            return match.start(), quote
    raise AssertionError("no unique quote")


def _citations(workspace: Workspace) -> list[dict[str, Any]]:
    """Real citations: verified into a PDF with its page, the same on a wrong page, verified into
    D.C. Code XML and a plain text, and one off by one character."""
    out = []
    for version_id, length in ((PDF, 40), (XML, 30), (TEXT, 30)):
        text = workspace.version(version_id).text
        at, quote = _once(text, length)
        out.append({"version_id": version_id, "char_start": at, "char_end": at + length})
        out[-1]["quoted_text"] = quote
    pdf = workspace.version(PDF)
    page = next(p.page for p in pdf.pages if p.char_start <= out[0]["char_start"] < p.char_end)
    return [
        out[0] | {"page": page},
        out[0] | {"page": page + 1},
        out[1],
        out[2],
        out[2] | {"char_start": out[2]["char_start"] + 1},
    ]


@pytest.fixture(scope="module")
def citations_file(workspace: Workspace, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("citations") / "citations.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in _citations(workspace)), "utf-8")
    return path


@pytest.fixture(scope="module")
def with_documents(
    workspace: Workspace, citations_file: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """The text and XML citations (no PDF: re-extraction kept quick), documents inside."""
    out = tmp_path_factory.mktemp("bundle") / "inside.zip"
    kept = [line for line in citations_file.read_bytes().splitlines() if PDF.encode() not in line]
    write_bundle(out, workspace, CORPUS_DIR, citations=b"\n".join(kept), store=STORE)
    return out


def _printed(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    code = main(list(argv))
    return code, capsys.readouterr().out.splitlines()


def test_round_trip_from_a_fresh_folder_with_only_the_mirror(
    workspace: Workspace,
    citations_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bundle = tmp_path / "sent" / "bundle.zip"
    code, wrote = _printed(
        capsys,
        "bundle",
        str(bundle),
        "--citations",
        str(citations_file),
        "--workspace",
        str(workspace.path),
        "--corpus-dir",
        str(CORPUS_DIR),
    )
    assert code == 0 and wrote[0].startswith(f"wrote {bundle}: 5 citations into 3 versions")
    assert wrote[1].startswith("3 verified, 0 verified with caveats, 0 resolved, 2 refused; ")
    code, verified = _printed(
        capsys, "verify", str(citations_file), "--workspace", str(workspace.path)
    )
    _, as_json = _printed(
        capsys, "verify", str(citations_file), "--json", "--workspace", str(workspace.path)
    )
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    monkeypatch.chdir(fresh)
    code, rechecked = _printed(capsys, "verify-bundle", str(bundle), "--mirror", str(STORE))
    assert code == 0, rechecked
    assert list(fresh.iterdir()) == []  # nothing written where it ran
    digest = hashlib.sha256(zipfile.ZipFile(bundle).read("datapackage.json")).hexdigest()
    assert rechecked[0] == f"{bundle}: datapackage.json sha256 {digest}"
    # The same verdict lines as `workbench verify` printed on the sender's workspace.
    assert rechecked[1:6] == verified[:5]
    reasons = [json.loads(line)["reason"] for line in as_json]
    assert reasons == [None, "wrong_page", None, None, "quote_mismatch"]
    held = zipfile.ZipFile(bundle).read("verdicts.jsonl").decode().splitlines()
    assert [json.loads(line) for line in held] == [json.loads(line) for line in as_json]
    assert rechecked[-1].startswith("the bundle re-checks")


def _descriptor_problems(descriptor: dict[str, Any], names: set[str]) -> list[str]:
    """What the Data Package and Data Resource specifications require of a descriptor: a
    non-empty `resources` array of objects, each with a unique `name` and exactly one of `path`
    or `data`; a path relative, POSIX, with no `..`, no leading `/` and no hidden part; a `hash`
    prefixed by its algorithm when not MD5; `created` an RFC 3339 date-time."""
    problems = []
    resources = descriptor.get("resources")
    if not isinstance(resources, list) or not resources:
        return ["resources must be a non-empty array"]
    seen = set()
    for resource in resources:
        name, path = resource.get("name"), resource.get("path")
        if not isinstance(name, str) or not re.fullmatch(r"[-a-z0-9._/]+", name) or name in seen:
            problems.append(f"name {name!r}")
        seen.add(name)
        if ("path" in resource) == ("data" in resource):
            problems.append(f"{name}: exactly one of path and data")
        parts = path.split("/")
        if path.startswith("/") or any(p in ("", "..") or p.startswith(".") for p in parts):
            problems.append(f"{name}: path {path!r}")
        if path not in names:
            problems.append(f"{name}: {path} is not in the zip")
        if not re.fullmatch(r"sha256:[0-9a-f]{64}", resource.get("hash", "")):
            problems.append(f"{name}: hash")
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)", descriptor["created"]):
        problems.append("created")
    return problems


def test_descriptor_meets_the_data_package_spec_and_documents_inside(with_documents: Path) -> None:
    with zipfile.ZipFile(with_documents) as archive:
        names = set(archive.namelist())
        descriptor = json.loads(archive.read("datapackage.json"))
        annotations = archive.read("annotations.jsonl").decode().splitlines()
    assert _descriptor_problems(descriptor, names) == []
    assert names - {r["path"] for r in descriptor["resources"]} == {"datapackage.json"}
    assert {f"documents/{v}" for v in (XML, TEXT)} <= names
    assert len(annotations) == 2  # the verified citations; a refused one is never annotated
    sources = [json.loads(a)["target"]["source"] for a in annotations]
    assert {s["version_id"] for s in sources} == {XML, TEXT}
    assert {s["id"] for s in sources} == {source_iri(s["text_sha256"]) for s in sources}
    report = verify_bundle(with_documents)  # no mirror: the bytes are inside
    assert report.problems == () and sorted(report.versions) == sorted((XML, TEXT))
    assert [v.verification.reason for v in report.verdicts] == [None, None, "quote_mismatch"]


def _rewrite(
    bundle: Path, out: Path, change: Callable[[dict[str, bytes]], None], *, rehash: bool
) -> Path:
    """A copy of `bundle` with `change` applied to its members; with `rehash`, the descriptor's
    byte counts and hashes are brought in line, as a careful forger would."""
    with zipfile.ZipFile(bundle) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    change(members)
    if rehash:
        descriptor = json.loads(members["datapackage.json"])
        for resource in descriptor["resources"]:
            data = members.get(resource["path"])
            if data is not None:
                resource["bytes"] = len(data)
                resource["hash"] = "sha256:" + hashlib.sha256(data).hexdigest()
        members["datapackage.json"] = json.dumps(descriptor).encode()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out


def _replace(member: str, old: bytes, new: bytes) -> Callable[[dict[str, bytes]], None]:
    def change(members: dict[str, bytes]) -> None:
        assert old in members[member], (member, old)
        members[member] = members[member].replace(old, new, 1)

    return change


@pytest.mark.parametrize(
    ("change", "rehash", "problems"),
    [
        pytest.param(
            _replace(f"documents/{TEXT}", b"Problem", b"Trouble"),
            False,
            [
                f"documents/{TEXT}: sha256_mismatch",
                f"{TEXT}: sha256_mismatch",
                "verdicts.jsonl: differs",
                "annotations.jsonl: differs",
            ],
            id="tampered-text",
        ),
        pytest.param(
            _replace(f"documents/{TEXT}", b"Problem", b"Trouble"),
            True,
            [f"{TEXT}: sha256_mismatch", "verdicts.jsonl: differs", "annotations.jsonl: differs"],
            id="tampered-text-rehashed",
        ),
        pytest.param(
            _replace("citations.jsonl", b'"char_start": ', b'"char_start": 1'),
            False,
            [
                "citations.jsonl: sha256_mismatch",
                "verdicts.jsonl: differs",
                "annotations.jsonl: differs",
            ],
            id="tampered-citation",
        ),
        pytest.param(
            _replace("citations.jsonl", b'"char_start": ', b'"char_start": 1'),
            True,
            ["verdicts.jsonl: differs", "annotations.jsonl: differs"],
            id="tampered-citation-rehashed",
        ),
        pytest.param(
            _replace("verdicts.jsonl", b'"outcome":"refused"', b'"outcome":"verified"'),
            True,
            ["verdicts.jsonl: differs"],
            id="tampered-verdict-rehashed",
        ),
        pytest.param(
            lambda members: members.pop("annotations.jsonl"),
            False,
            ["annotations.jsonl: missing"],
            id="missing-member",
        ),
        pytest.param(
            lambda members: members.update({"extra.txt": b"x"}),
            False,
            ["extra.txt: unexpected_member"],
            id="unexpected-member",
        ),
    ],
)
def test_tampering_is_caught_and_named(
    with_documents: Path,
    tmp_path: Path,
    change: Callable[[dict[str, bytes]], None],
    rehash: bool,
    problems: list[str],
) -> None:
    forged = _rewrite(with_documents, tmp_path / "forged.zip", change, rehash=rehash)
    report = verify_bundle(forged)
    assert [f"{p.where}: {p.reason}" for p in report.problems] == problems


@pytest.mark.parametrize(
    ("name", "error"),
    [
        pytest.param(
            "../evil.txt",
            "member '../evil.txt' has an empty, '.', '..' or hidden part",
            id="parent",
        ),
        pytest.param("/etc/evil", "member '/etc/evil' is not a relative POSIX path", id="absolute"),
        pytest.param(
            "a/.hidden", "member 'a/.hidden' has an empty, '.', '..' or hidden part", id="hidden"
        ),
        pytest.param(
            "a\\..\\b", "member 'a\\\\..\\\\b' is not a relative POSIX path", id="backslash"
        ),
    ],
)
def test_unsafe_member_names_are_refused_before_reading(
    with_documents: Path, tmp_path: Path, name: str, error: str
) -> None:
    bad = tmp_path / "bad.zip"
    shutil.copy(with_documents, bad)
    with zipfile.ZipFile(bad, "a") as archive:
        archive.writestr(name, b"x")
    with pytest.raises(BundleError) as raised:
        verify_bundle(bad)
    assert str(raised.value) == f"{bad}: {error}; nothing was read"


def test_not_a_bundle_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = ROOT / "README.md"
    assert main(["verify-bundle", str(readme)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"workbench: error: {readme}: not a zip archive (File is not a zip file); expected a bundle"
    )
    empty = tmp_path / "empty.zip"
    zipfile.ZipFile(empty, "w").close()
    with pytest.raises(BundleError, match=r"datapackage\.json: missing"):
        verify_bundle(empty)
    with zipfile.ZipFile(tmp_path / "nan.zip", "w") as archive:
        archive.writestr("datapackage.json", b'{"resources": NaN}')
    with pytest.raises(BundleError, match="NaN"):
        verify_bundle(tmp_path / "nan.zip")


def test_notes_bundle_round_trips_with_found_and_missing_quotes(
    workspace: Workspace, tmp_path: Path
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    shutil.copy(ROOT / "notes" / "cip-002-5.1a-purpose.md", notes)
    real = (ROOT / "notes" / "cip-002-5.1a-purpose.md").read_text("utf-8")
    (notes / "altered.md").write_text(real.replace("categorize", "classify"), "utf-8")
    out = tmp_path / "notes.zip"
    write_bundle(out, workspace, CORPUS_DIR, notes=notes)
    rows = [json.loads(line) for line in zipfile.ZipFile(out).read("notes.jsonl").splitlines()]
    assert [(r["note"], r["status"], r["citation_line"]) for r in rows] == [
        ("altered.md", "missing", None),
        ("cip-002-5.1a-purpose.md", "found", 1),
    ]
    report = verify_bundle(out, mirror=STORE)
    assert report.problems == ()
    assert [v.verification.outcome for v in report.verdicts] == ["verified"]


@pytest.mark.parametrize(
    ("data", "error"),
    [
        pytest.param(b"not json\n", "a bundle holds only citations it can re-read", id="malformed"),
        pytest.param(b"\n\n", "no citation to bundle", id="empty"),
    ],
)
def test_write_refuses_what_a_recipient_could_not_re_read(
    workspace: Workspace, tmp_path: Path, data: bytes, error: str
) -> None:
    out = tmp_path / "refused.zip"
    with pytest.raises(BundleError, match=error):
        write_bundle(out, workspace, CORPUS_DIR, citations=data, source="c.jsonl")
    assert not out.exists()


def _frictionless(*bundles: Path) -> list[dict[str, Any]]:
    """Frictionless's own validation of each bundle (the tool's `validate`, whose report is what
    `frictionless validate --json` prints; its JSON extra reads the JSON Lines members), in one
    process of its own; each report as the tool gives it."""
    script = (
        "import json, sys\n"
        "from frictionless import validate\n"
        "print(json.dumps([validate(path).to_dict() for path in sys.argv[1:]]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, *map(str, bundles)],
        capture_output=True,
        check=True,
    )
    reports: list[dict[str, Any]] = json.loads(done.stdout)
    return reports


def _invalid(report: dict[str, Any]) -> dict[str, list[str]]:
    """Each invalid task's member path and its errors' types."""
    return {
        task["place"]: sorted({e["type"] for e in task["errors"]})
        for task in report["tasks"]
        if not task["valid"]
    }


def test_the_frictionless_validator_accepts_bundles_and_names_a_changed_byte(
    workspace: Workspace, citations_file: Path, with_documents: Path, tmp_path: Path
) -> None:
    """Valid: a bundle with documents inside, and one whose citations were all refused (its
    annotations member holds no line). Invalid, naming the file: one byte changed in a verdict
    file, or in a bundled document."""
    refused = citations_file.read_bytes().splitlines()[-1]
    empty = tmp_path / "nothing-verified.zip"
    write_bundle(empty, workspace, CORPUS_DIR, citations=refused + b"\n")
    assert zipfile.ZipFile(empty).read("annotations.jsonl") == b""
    verdict = _rewrite(
        with_documents,
        tmp_path / "verdict.zip",
        _replace("verdicts.jsonl", b'"line":1', b'"line":2'),
        rehash=False,
    )
    document = _rewrite(
        with_documents,
        tmp_path / "document.zip",
        _replace(f"documents/{TEXT}", b"Problem", b"Problen"),
        rehash=False,
    )
    reports = _frictionless(with_documents, empty, verdict, document)
    assert [r["valid"] for r in reports] == [True, True, False, False], [
        _invalid(r) for r in reports
    ]
    assert _invalid(reports[2]) == {"verdicts.jsonl": ["hash-count"]}
    assert _invalid(reports[3]) == {f"documents/{TEXT}": ["hash-count"]}


def test_a_machine_read_quote_is_bundled_and_re_checked_with_its_caveat(
    workspace: Workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A quote of the filer's scan (our OCR): the bundle counts it apart, and a re-check from
    the documents inside, reading the scanned pages through the OCR cache, gives the same
    caveated verdict."""
    scan = "us-tx/puct-49421-item80-cehe-response-to-tiec-rfi-set1/v1_cehe-filer-copy_D49421-CEHE-Response-to-TIEC-1st-RFIs.pdf"
    ocr = next(r for r in workspace.version(scan).origin.runs if r.origin == "ocr")  # type: ignore[union-attr]
    text = workspace.version(scan).text
    at, quote = _once(text[ocr.char_start : ocr.char_end], 40)
    start = ocr.char_start + at
    record = {"version_id": scan, "char_start": start, "char_end": start + 40, "quoted_text": quote}
    citations = tmp_path / "citations.jsonl"
    citations.write_text(json.dumps(record) + "\n", "utf-8")
    bundle = tmp_path / "machine.zip"
    write_bundle(bundle, workspace, CORPUS_DIR, citations=citations.read_bytes(), store=STORE)
    descriptor = json.loads(zipfile.ZipFile(bundle).read("datapackage.json"))
    (verdicts,) = [r for r in descriptor["resources"] if r["name"] == "verdicts"]
    assert verdicts["workbench:counts"]["verified with caveats"] == 1
    assert verdicts["workbench:counts"]["verified"] == 0
    (held,) = zipfile.ZipFile(bundle).read("verdicts.jsonl").decode().splitlines()
    assert [c["kind"] for c in json.loads(held)["caveats"]] == ["machine_read"]
    report = verify_bundle(bundle, ocr_cache=default_cache(workspace.path))
    assert report.problems == ()
    (rechecked,) = report.verdicts
    assert [c.kind for c in rechecked.verification.caveats] == ["machine_read"]


def _declaring(sizes: Callable[[list[dict[str, Any]]], None]) -> Callable[[dict[str, bytes]], None]:
    """A change that rewrites the descriptor's resources through `sizes`."""

    def change(members: dict[str, bytes]) -> None:
        descriptor = json.loads(members["datapackage.json"])
        sizes(descriptor["resources"])
        members["datapackage.json"] = json.dumps(descriptor).encode()

    return change


def test_a_member_declared_past_the_limit_is_not_read(with_documents: Path, tmp_path: Path) -> None:
    def huge(resources: list[dict[str, Any]]) -> None:
        resources[-1]["bytes"] = 2**40

    bad = _rewrite(with_documents, tmp_path / "huge.zip", _declaring(huge), rehash=False)
    last = json.loads(zipfile.ZipFile(bad).read("datapackage.json"))["resources"][-1]["path"]
    problems = [p for p in verify_bundle(bad).problems if p.where == last]
    assert [(p.reason, p.detail) for p in problems] == [
        (
            "too_large",
            f"datapackage.json says {2**40} bytes; a member holds at most {MAX_MEMBER_BYTES}; "
            "not read",
        )
    ]


def test_members_declared_past_the_total_are_refused(with_documents: Path, tmp_path: Path) -> None:
    def every(resources: list[dict[str, Any]]) -> None:
        for resource in resources:
            resource["bytes"] = MAX_MEMBER_BYTES

    bad = _rewrite(with_documents, tmp_path / "total.zip", _declaring(every), rehash=False)
    count = len(json.loads(zipfile.ZipFile(bad).read("datapackage.json"))["resources"])
    assert count * MAX_MEMBER_BYTES > MAX_TOTAL_BYTES
    with pytest.raises(BundleError) as raised:
        verify_bundle(bad)
    assert str(raised.value) == (
        f"{bad}: datapackage.json declares {count * MAX_MEMBER_BYTES} bytes of members; a bundle "
        f"holds at most {MAX_TOTAL_BYTES}; nothing was read"
    )


def test_a_member_that_inflates_past_the_ratio_is_refused(
    with_documents: Path, tmp_path: Path
) -> None:
    """A forger's member: 32 MiB of zeros deflated to a few kilobytes, its declaration true."""
    zeros = bytes(32 * 1024 * 1024)
    with zipfile.ZipFile(with_documents) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    descriptor = json.loads(members["datapackage.json"])
    name = descriptor["resources"][-1]["path"]
    members[name] = zeros
    descriptor["resources"][-1]["bytes"] = len(zeros)
    descriptor["resources"][-1]["hash"] = "sha256:" + hashlib.sha256(zeros).hexdigest()
    members["datapackage.json"] = json.dumps(descriptor).encode()
    bad = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bad, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for member, data in members.items():
            archive.writestr(member, data)
    stored = zipfile.ZipFile(bad).getinfo(name).compress_size
    with pytest.raises(BundleError) as raised:
        verify_bundle(bad)
    assert str(raised.value) == (
        f"{bad}: member {name!r} inflates {stored} bytes to {len(zeros)}; at most {MAX_RATIO} times"
    )


@pytest.mark.parametrize(
    ("names", "error"),
    [
        pytest.param(
            [f"m/{k}" for k in range(MAX_MEMBERS + 1)],
            f"{MAX_MEMBERS + 1} members; a bundle holds at most {MAX_MEMBERS}",
            id="too-many-members",
        ),
        pytest.param(
            [f"m/{k}" for k in range(MAX_MEMBERS - 1)] + ["m/7"],
            "member 'm/7' appears twice",
            id="a-duplicate-among-many",
        ),
    ],
)
def test_member_count_and_duplicates_are_refused_before_reading(
    tmp_path: Path, names: list[str], error: str
) -> None:
    bad = tmp_path / "many.zip"
    with zipfile.ZipFile(bad, "w") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate this test writes
        for name in names:
            archive.writestr(name, b"")
    with pytest.raises(BundleError) as raised:
        verify_bundle(bad)
    assert str(raised.value) == f"{bad}: {error}; nothing was read"
