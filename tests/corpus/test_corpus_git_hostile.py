"""`corpus add --from-git` on histories a hostile or an old repository holds: a commit dated before
1970 is read with its date; a commit whose date cannot be carried is refused by its versions'
names and the later commits admitted; a path holding a newline, an escape or bytes that are not
UTF-8 is refused by name, escaped."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from workbench.corpus import add_from_git, admit
from workbench.corpus.provenance import PROVENANCE_SUFFIX

BODY = b"Sec. 1. Scope\n\nThe rule applies.\n"


def _git(repo: Path, *args: str, data: bytes | None = None) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(
        ["git", "-C", str(repo), *args], env=env, input=data, capture_output=True, check=True
    )
    return done.stdout.decode().strip()


def _commit_at(repo: Path, files: dict[bytes, bytes], subject: str, time: str) -> str:
    """A commit written as its raw object (git's own tools refuse a time before 1970): `files`
    (path bytes to content) added to HEAD's tree, the committer line's time `time` as given."""
    for path, data in files.items():
        blob = _git(repo, "hash-object", "-w", "--stdin", data=data)
        # --index-info takes the path's bytes as they are, newline and all, when NUL-terminated
        _git(
            repo,
            "update-index",
            "--add",
            "-z",
            "--index-info",
            data=b"100644 %s\t%s\0" % (blob.encode(), path),
        )
    tree = _git(repo, "write-tree")
    parents = _git(repo, "rev-parse", "--verify", "--quiet", "HEAD") if _has_head(repo) else ""
    lines = [f"tree {tree}", *([f"parent {parents}"] if parents else [])]
    lines += [f"author A <a@example.org> {time}", f"committer A <a@example.org> {time}"]
    commit = _git(
        repo,
        "hash-object",
        "-t",
        "commit",
        "-w",
        "--stdin",
        data="\n".join(lines).encode() + f"\n\n{subject}\n".encode(),
    )
    _git(repo, "update-ref", "HEAD", commit)
    return commit


def _has_head(repo: Path) -> bool:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull}
    done = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", "HEAD"],
        env=env,
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "--quiet", "--initial-branch=main")
    return repo


def _add(repo: Path, into: Path) -> object:
    return add_from_git(
        repo,
        into,
        paths=["docs/*"],
        jurisdiction="xx",
        official=True,
        repo_name="owner/name",
        retrieved_at="2026-12-01T00:00:00+00:00",
    )


def _iso(seconds: int, offset: str) -> str:
    """What %cI would print, derived here from the seconds and offset alone."""
    sign = -1 if offset.startswith("-") else 1
    zone = timezone(sign * timedelta(hours=int(offset[1:3]), minutes=int(offset[3:])))
    return (
        (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=seconds)).astimezone(zone).isoformat()
    )


def test_a_commit_before_1970_is_read_with_its_date(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _commit_at(repo, {b"docs/old.txt": BODY}, "release of 1960", "-315619200 +0100")
    _commit_at(repo, {b"docs/old.txt": BODY + b"More.\n"}, "release of 2021", "1609502400 +0200")
    into = tmp_path / "mirror"
    report = _add(repo, into)
    assert report.refusals == ()  # type: ignore[attr-defined]
    held = sorted(p.name for p in (into / "xx" / "old").glob("*.txt"))
    assert held == ["old@1960-01-01.txt", "old@2021-01-01.txt"]
    recorded = json.loads((into / "xx" / "old" / f"{held[0]}{PROVENANCE_SUFFIX}").read_bytes())
    assert recorded["committed_at"] == _iso(-315619200, "+0100")
    assert recorded["filing_date"] == _iso(-315619200, "+0100")[:10]
    assert not admit(into).refusals


def test_a_date_that_cannot_be_carried_is_refused_and_the_rest_admitted(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    too_late = "999999999999999 +0000"  # past the year 9999
    first = _commit_at(repo, {b"docs/a.txt": BODY}, "unreadable date", too_late)
    _commit_at(repo, {b"docs/a.txt": BODY + b"Later.\n"}, "a release", "1609502400 +0000")
    report = _add(repo, tmp_path / "mirror")
    lines = [f"{r.path}: {r.reason}: {r.detail}" for r in report.refusals]  # type: ignore[attr-defined]
    assert len(lines) == 1
    assert lines[0].startswith(
        f"docs/a.txt: bad_date: commit {first}: its committer time '{too_late}' cannot be carried"
    )
    assert lines[0].endswith("; nothing of this version was placed")
    assert report.written == ("xx/a/a@2021-01-01.txt",)  # type: ignore[attr-defined]


def test_a_path_that_cannot_be_carried_is_refused_by_name_escaped(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    hostile = {
        b"docs/new\nline.txt": BODY,
        b"docs/esc\x1b[31m.txt": BODY,
        b"docs/bytes\xff\xfe.txt": BODY,
        b"docs/fine.txt": BODY,
    }
    _commit_at(repo, hostile, "a release", "1609502400 +0000")
    report = _add(repo, tmp_path / "mirror")
    paths = sorted(r.path for r in report.refusals)  # type: ignore[attr-defined]
    assert paths == [
        "docs/bytes\\xff\\xfe.txt",
        "docs/esc\\u001b[31m.txt",
        "docs/new\\u000aline.txt",
    ]
    assert report.written == ("xx/fine/fine@2021-01-01.txt",)  # type: ignore[attr-defined]
