"""`workbench corpus add --from-git`: a git history's versions, as the held corpus holds them.

The repository is built here from `../shared/corpus/us-dc`: each held codified release of the
twelve D.C. Code sections is one commit (dated its filing date, its message its release label)
writing that release's held files at their repository paths, then one commit adds the seven laws.
Reading it back must give every held file its own bytes, blob, order and date.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, tree_digest
from workbench.bounds import MATCH_BUDGET_SECONDS
from workbench.cli import main
from workbench.corpus import add_from_git, admit
from workbench.corpus.provenance import PROVENANCE_SUFFIX
from workbench.errors import AddError

HELD = ROOT / ".." / "shared" / "corpus" / "us-dc"
SECTIONS = "us/dc/council/code/titles/*/sections/*.xml"
LAWS = "us/dc/council/periods/*/laws/*.xml"
REPO_NAME = "DCCouncil/law-xml-codified"
TIME = "2026-12-02T10:00:00+00:00"


def _held(kind: str) -> dict[str, dict[str, Any]]:
    """Held path (`us-dc/<family>/<file>`) to its provenance, for families named `dc-<kind>-*`."""
    return {
        f"us-dc/{path.parent.name}/{path.name[: -len(PROVENANCE_SUFFIX)]}": json.loads(
            path.read_bytes()
        )
        for path in sorted(HELD.glob(f"dc-{kind}-*/*{PROVENANCE_SUFFIX}"))
    }


def _git(repo: Path, *args: str, date: str = "2021-01-01T12:00:00+00:00") -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "test",
        "GIT_AUTHOR_EMAIL": "test@example.org",
        "GIT_COMMITTER_NAME": "test",
        "GIT_COMMITTER_EMAIL": "test@example.org",
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_DATE": date,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(
        ["git", "-C", str(repo), *args], env=env, capture_output=True, check=True, text=True
    )
    return done.stdout


def _commit(repo: Path, files: dict[str, bytes], message: str, date: str) -> None:
    for path, data in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_bytes(data)
    _git(repo, "add", "--all")
    _git(repo, "commit", "--quiet", "--allow-empty", "-m", message, date=date)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository of the held releases, one commit each, then one adding the held laws. A
    test that only reads it reads this one (adding from a repository writes nothing in it, as
    the test of every held release checks); a test that commits to it takes a copy (`repo`)."""
    repo = tmp_path_factory.mktemp("git") / "law-xml-codified"
    repo.mkdir()
    _git(repo, "init", "--quiet", "--initial-branch=codified")
    _commit(repo, {}, "publication/2021-10-18", "2021-10-18T09:00:00-04:00")
    releases: dict[tuple[str, str], dict[str, bytes]] = defaultdict(dict)
    for path, record in _held("code").items():
        key = (record["filing_date"], record["release_label"])
        releases[key][record["mirror"]["path"]] = (HELD / ".." / path).read_bytes()
    for (date, label), files in sorted(releases.items()):
        _commit(repo, files, label, f"{date}T14:00:00-04:00")
    laws = {
        record["mirror"]["path"]: (HELD / ".." / path).read_bytes()
        for path, record in _held("law").items()
    }
    _commit(repo, laws, "2024-10-20/2024-10-20", "2024-10-20T13:03:34-04:00")
    return repo


@pytest.fixture
def repo(built: Path, tmp_path: Path) -> Path:
    """A copy of the built repository, for a test to add commits to."""
    return Path(shutil.copytree(built, tmp_path / built.name, symlinks=True))


def _add(repo: Path, into: Path, **options: Any) -> Any:
    settings: dict[str, Any] = {
        "paths": [SECTIONS],
        "jurisdiction": "us-dc",
        "official": True,
        "family_prefix": "dc-code-",
        "repo_name": REPO_NAME,
        "retrieved_at": TIME,
        **options,
    }
    return add_from_git(repo, into, **settings)


def _placed(into: Path) -> dict[str, dict[str, Any]]:
    return {
        path.relative_to(into).as_posix()[: -len(PROVENANCE_SUFFIX)]: json.loads(path.read_bytes())
        for path in sorted(into.rglob(f"*{PROVENANCE_SUFFIX}"))
    }


def test_every_held_release_comes_back_with_its_own_bytes_blob_order_and_date(
    built: Path, tmp_path: Path
) -> None:
    into = tmp_path / "mirror"
    untouched = tree_digest(built)
    report = _add(built, into)
    assert tree_digest(built) == untouched  # read, never written
    held, placed = _held("code"), _placed(into)
    assert sorted(placed) == sorted(held)
    assert report.versions == len(report.written) == len(held) and not report.refusals
    for path, record in held.items():
        mine = placed[path]
        assert (into / path).read_bytes() == (HELD / ".." / path).read_bytes()
        assert mine["sha256"] == record["sha256"] and mine["bytes"] == record["bytes"], path
        assert mine["mirror"]["blob"] == record["mirror"]["blob"], path
        assert mine["version_order"] == record["version_order"], path
        assert mine["filing_date"] == record["filing_date"], path
        assert mine["version_label"] == record["release_label"], path
        assert (
            mine["mirror"]["repo"] == REPO_NAME
            and mine["mirror"]["path"] == record["mirror"]["path"]
        )
    admission = admit(into)
    assert len(admission.rows) == len(held) and not admission.refusals


def test_a_second_run_writes_nothing_and_new_commits_add_only_their_versions(
    repo: Path, tmp_path: Path
) -> None:
    into = tmp_path / "mirror"
    first = _add(repo, into)
    before = tree_digest(into)
    again = _add(repo, into, retrieved_at="2026-12-03T10:00:00+00:00")
    assert again.written == () and again.already == first.versions == again.versions
    assert tree_digest(into) == before
    section = "us/dc/council/code/titles/34/sections/34-306.xml"
    text = (repo / section).read_bytes()
    # Two releases on one date, the first labelled the day before (as the real 2024-04-22 pair).
    _commit(repo, {section: text + b"\n"}, "2024-10-21/2024-10-21", "2024-10-22T00:12:12-04:00")
    _commit(repo, {section: text + b"\n\n"}, "2024-10-22/2024-10-22", "2024-10-22T14:04:49-04:00")
    third = _add(repo, into)
    last = max(r["version_order"] for p, r in _held("code").items() if "/dc-code-34-306/" in p)
    named = [
        "us-dc/dc-code-34-306/34-306@2024-10-22.xml",
        "us-dc/dc-code-34-306/34-306@2024-10-22+2.xml",
    ]
    assert third.written == tuple(named) and third.already == first.versions
    placed = _placed(into)
    assert [placed[p]["version_order"] for p in named] == [last + 1, last + 2]
    assert [placed[p]["version_label"] for p in named] == [
        "2024-10-21/2024-10-21",
        "2024-10-22/2024-10-22",
    ]
    assert placed[named[0]]["committed_at"] == "2024-10-22T00:12:12-04:00"


def test_the_laws_as_the_head_holds_them_one_version_each(built: Path, tmp_path: Path) -> None:
    into = tmp_path / "mirror"
    report = _add(
        built,
        into,
        paths=[LAWS],
        family_from=r"laws/(\d+-\d+)\.xml$",
        family_prefix="dc-law-",
        since="2024-10-20",
    )
    held = _held("law")
    assert report.commits == 1 and len(report.written) == len(held) == 7
    placed = _placed(into)
    for path, record in held.items():
        family, name = path.split("/")[1:]
        mine = placed[f"us-dc/{family}/{name[:-4]}@2024-10-20.xml"]
        assert (mine["sha256"], mine["mirror"]["blob"], mine["version_order"]) == (
            record["sha256"],
            record["mirror"]["blob"],
            1,
        )


def test_at_head_admits_each_law_once_as_the_head_holds_it(repo: Path, tmp_path: Path) -> None:
    law = "us/dc/council/periods/24/laws/24-314.xml"
    changed = (repo / law).read_bytes() + b"\n"
    _commit(repo, {law: changed}, "2024-10-22/2024-10-22", "2024-10-22T10:00:00-04:00")
    into = tmp_path / "mirror"
    options: dict[str, Any] = {"paths": [LAWS], "family_prefix": "dc-law-"}
    report = _add(repo, into, at_head=True, **options)
    held = _held("law")
    assert report.commits == 1 and len(report.written) == len(held) and not report.refusals
    head = _git(repo, "rev-parse", "HEAD").strip()
    placed = _placed(into)
    for path, record in held.items():
        family, name = path.split("/")[1:]
        mine = placed[f"us-dc/{family}/{name[:-4]}@2024-10-22.xml"]
        blob = _git(repo, "rev-parse", f"HEAD:{record['mirror']['path']}").strip()
        data = (into / f"us-dc/{family}/{name[:-4]}@2024-10-22.xml").read_bytes()
        assert data == (repo / record["mirror"]["path"]).read_bytes()
        assert (mine["mirror"]["commit"], mine["mirror"]["blob"], mine["version_order"]) == (
            head,
            blob,
            1,
        )
    assert placed["us-dc/dc-law-24-314/24-314@2024-10-22.xml"]["bytes"] == len(changed)
    # Without --at-head the same run from the laws' commit gives 24-314 two versions.
    assert _add(repo, tmp_path / "all", since="2024-10-20", **options).versions == len(held) + 1
    assert not admit(into).refusals


def test_real_names_are_carried_and_a_name_the_rule_cannot_carry_is_refused_by_name(
    repo: Path, tmp_path: Path
) -> None:
    body = (HELD / "dc-code-34-306" / "34-306@2021-11-09.xml").read_bytes()
    names = ["[16-572.01].xml", "28~1-101.xml", "1-1162.27(Perm).xml", "31\u20133302.06a.xml"]
    names += ["24-470 2nd.xml", "a  b.xml", "x#1.xml", "16-916.01a-1.jpeg"]
    folder = "us/dc/council/code/titles/16/sections"
    files = {f"{folder}/{name}": body for name in names}
    files[f"{folder}/16-916.01a-1.jpeg"] = b"\xff\xd8\xff\xe0\x00\x10JFIF"
    _commit(repo, files, "2024-10-25/2024-10-25", "2024-10-25T10:00:00-04:00")
    into = tmp_path / "mirror"
    report = _add(repo, into, paths=[f"{folder}/*"], since="2024-10-25")
    assert [f"{r.path}: {r.reason}: {r.detail}" for r in report.refusals] == [
        f"{folder}/a  b.xml: bad_name: the file name cannot be one name of a version id (it has "
        "a space at an end or beside another); nothing of this file was placed",
        f"{folder}/x#1.xml: bad_name: the file name cannot be one name of a version id (it "
        "holds '#'); nothing of this file was placed",
        "us-dc/dc-code-16-916.01a-1/16-916.01a-1@2024-10-25.jpeg: not_a_document: "
        f"{folder}/16-916.01a-1.jpeg: neither a PDF nor UTF-8 text (invalid UTF-8 at byte 0)",
    ]
    assert sorted(report.written) == sorted(
        f"us-dc/dc-code-{n.rsplit('.', 1)[0]}/{n.rsplit('.', 1)[0]}@2024-10-25.xml"
        for n in names[:5]
    )
    assert not admit(into).refusals


@pytest.mark.parametrize(
    ("options", "message"),
    [
        pytest.param(
            {"family_from": "laws/(", "paths": [LAWS]},
            "--family-from: bad regular expression 'laws/(': missing ), unterminated subpattern "
            "at position 5",
            id="bad-regex",
        ),
        pytest.param(
            {"since": "2024-10-20", "until": "2021-10-18"},
            "--since 2024-10-20 is after --until 2021-10-18",
            id="since-after-until",
        ),
        pytest.param(
            {"since": "2024-02-30", "official": None, "jurisdiction": "us/dc"},
            "3 problems: --jurisdiction: expected a name a version id can carry, got 'us/dc' "
            "(it holds '/'); --official/--transcription: missing (no default: say "
            "which); --since: expected a date YYYY-MM-DD, got '2024-02-30'",
            id="every-problem-at-once",
        ),
        pytest.param(
            {"paths": ["nothing/*.xml"]},
            "{repo}: no commit adds a file matching nothing/*.xml; nothing to add",
            id="no-file-matches",
        ),
        pytest.param(
            {"since": "2030-01-01"},
            "{repo}: no commit dated 2030-01-01 to ... adds a file matching "
            f"{SECTIONS}; nothing to add",
            id="no-commit-in-range",
        ),
        pytest.param(
            {"at_head": True, "since": "2024-10-20", "until": "2024-10-21"},
            "--at-head reads HEAD's tree alone; do not also give --since, --until",
            id="at-head-with-a-range",
        ),
        pytest.param(
            {"repo_name": None},
            "--repo-name: missing, and the clone's origin (none) names no OWNER/NAME; give the "
            "repository's public name, e.g. DCCouncil/law-xml-codified",
            id="no-repo-name",
        ),
    ],
)
def test_bad_options_are_one_error_and_nothing_is_written(
    built: Path, tmp_path: Path, options: dict[str, Any], message: str
) -> None:
    into = tmp_path / "mirror"
    with pytest.raises(AddError) as raised:
        _add(built, into, **options)
    assert str(raised.value) == message.format(repo=built)
    assert not into.exists()


def test_a_family_pattern_over_its_budget_is_one_error_and_nothing_is_written(
    repo: Path, tmp_path: Path
) -> None:
    """--family-from is searched in each path under the pattern budget (`bounds`)."""
    path = "extra/" + "a" * 40 + ".txt"
    _commit(repo, {path: b"Text.\n"}, "extra", "2024-10-21T10:00:00-04:00")
    into = tmp_path / "mirror"
    with pytest.raises(AddError) as raised:
        _add(repo, into, paths=["extra/*.txt"], family_from=r"(a|aa)+\d")
    assert str(raised.value) == (
        rf"--family-from: the pattern '(a|aa)+\\d' took more than {MATCH_BUDGET_SECONDS} s on "
        f"a text of {len(path)} characters; a pattern must not backtrack without bound (a "
        "repeated group that can match the same text in more than one way, such as (a+)+ or "
        "(a|aa)+)"
    )
    assert not into.exists()


def test_a_folder_that_is_not_a_repository_is_refused(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(AddError) as raised:
        _add(plain, tmp_path / "mirror")
    assert str(raised.value) == (
        f"{plain}: git rev-parse failed: fatal: not a git repository (or any of the parent "
        "directories): .git"
    )


def test_the_repository_name_is_read_from_a_github_origin(repo: Path, tmp_path: Path) -> None:
    _git(repo, "remote", "add", "origin", f"https://github.com/{REPO_NAME}.git")
    _add(repo, tmp_path / "mirror", repo_name=None, paths=[LAWS], since="2024-10-20")
    placed = _placed(tmp_path / "mirror")
    assert {r["mirror"]["repo"] for r in placed.values()} == {REPO_NAME}


def test_the_command_adds_and_refuses_the_options_of_other_modes(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    into = tmp_path / "mirror"
    command = ["corpus", "add", "--from-git", str(built), "--paths", SECTIONS, "--into", str(into)]
    command += ["--jurisdiction", "us-dc", "--family-prefix", "dc-code-", "--official"]
    command += ["--repo-name", REPO_NAME]
    assert main(command) == 0
    held = len(_held("code"))
    assert capsys.readouterr().out == (
        f"read 36 commits: {held} versions; wrote {held}, 0 already there (equal), 0 refused; "
        f"admit them with 'workbench corpus admit {into}'\n"
    )
    assert main([*command, "--url", "https://example.org/x"]) == 2
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith(
            "--from-git takes the files and their facts from the repository's history; do not also "
            "give --url"
        )
    )
    assert main([*command, "--name", "34-306.xml", "--language", "en"]) == 2
    assert capsys.readouterr().err.strip() == (
        "workbench: error: --from-git takes the files and their facts from the repository's "
        "history; do not also give --language, --name"
    )
    assert (
        main(["corpus", "add", "--into", str(into), "--paths", SECTIONS, "--since", "2024-01-01"])
        == 2
    )
    assert capsys.readouterr().err.strip().endswith("--paths, --since: only with --from-git REPO")
    assert main(["corpus", "add", "--into", str(into), "--at-head"]) == 2
    assert capsys.readouterr().err.strip() == (
        "workbench: error: --at-head: only with --from-git REPO"
    )
