"""Versions from a git history (C3): every first-parent commit that gives a matching file a new blob
is a version of its family, placed in mirror layout with its provenance by git's own plumbing; the
same repository and options give the same ids every run. What a version is: docs/corpus.md, "From a
git history"."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import IO, Any

from workbench.bounds import BudgetedPattern, compile_budgeted
from workbench.corpus.add import (
    link_into_place,
    now_utc,
    placement_refusal,
    sniff_media_type,
)
from workbench.corpus.provenance import (
    PROVENANCE_FIELDS,
    PROVENANCE_SUFFIX,
    file_name_problem,
    name_problem,
    parse_provenance,
    provenance_file_bytes,
)
from workbench.errors import AddError
from workbench.models import Refusal
from workbench.progress import bar
from workbench.terminal import visible_name

EXTRACTION_NOTE = (
    "Bytes exactly as 'git cat-file blob' gives them at the commit named in mirror; copied "
    "unchanged by 'workbench corpus add --from-git'."
)
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's id of the tree with no entry
_REGULAR_MODES = frozenset({"100644", "100755"})
_ZERO = "0" * 40
_REMOTE = re.compile(
    r"(?:[a-z+]+://[^/]+/|[^@/]+@[^:/]+:)(?P<repo>[A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-]+?)(?:\.git)?/?"
)
_REPO = re.compile(r"[A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-]+")
DEFAULT_FAMILY_FROM = r"([^/]+)\.[^./]+$|[^/]+$"  # the file name without its last extension
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True, slots=True, kw_only=True)
class Commit:
    """One commit of the first-parent line: its id, committer time and message subject."""

    sha: str
    committed_at: str  # ISO 8601 with the committer's offset, as `git log --format=%cI` gives it
    subject: str
    date_problem: str | None = None  # why its date cannot be carried (then committed_at is "")

    @property
    def date(self) -> str:
        """The committer's date in the committer's own time zone (YYYY-MM-DD)."""
        return self.committed_at[:10]


@dataclass(frozen=True, slots=True, kw_only=True)
class GitAddReport:
    """What `add_from_git` did: commits read, versions found in them, the mirror paths this run
    wrote, how many were already there (equal), and the refusals (nothing of theirs written)."""

    commits: int
    versions: int
    written: tuple[str, ...]
    already: int
    refusals: tuple[Refusal, ...]


# ---------------------------------------------------------------------------------------------
# Reading the repository with git


def _git(repo: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), *args], capture_output=True, check=False, timeout=600
        )
    except FileNotFoundError as exc:
        raise AddError("git: not found; --from-git reads the repository with git itself") from exc
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines() or ["(no message)"]
        raise AddError(f"{repo}: git {args[0]} failed: {why[0]}")
    return done.stdout


def first_parent_commits(repo: Path) -> tuple[Commit, ...]:
    """HEAD's first-parent line, oldest first. AddError when `repo` is not a git repository
    with a commit at HEAD."""
    if not repo.is_dir():
        raise AddError(f"{repo}: --from-git expects a git repository folder")
    top = _git(repo, "rev-parse", "--show-toplevel").decode("utf-8", "surrogateescape").strip()
    if Path(top).resolve() != repo.resolve():
        raise AddError(f"{repo}: not the top folder of its git repository (that is {top})")
    _git(repo, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    raw = _git(repo, "log", "--first-parent", "--reverse", "-z", "--format=%H%x1f%s")
    # CAUTION: the time is read from each commit's own committer line, never from %cI or %ct,
    # which git leaves unexpanded or empty for a time before 1970.
    headers = _git(repo, "log", "--first-parent", "--reverse", "-z", "--format=raw")
    times = dict(_committer_times(headers.decode("utf-8", "surrogateescape")))
    commits = []
    for record in raw.decode("utf-8", "surrogateescape").split("\0"):
        if record.strip():
            sha, subject = record.split("\x1f", 1)
            committed_at, problem = _iso_time(times.get(sha, ""))
            commits.append(
                Commit(sha=sha, committed_at=committed_at, subject=subject, date_problem=problem)
            )
    return tuple(commits)


def _committer_times(headers: str) -> Iterator[tuple[str, str]]:
    """(commit id, the `<seconds> <offset>` of its committer line) for each commit of
    `git log --format=raw -z` output; a header line is never indented, a message line always."""
    for record in headers.split("\0"):
        lines = record.lstrip("\n").split("\n")
        if not lines[0].startswith("commit "):
            continue
        sha = lines[0].removeprefix("commit ").split(" ")[0]
        for line in lines[1:]:
            if not line:
                break
            if line.startswith("committer "):
                yield sha, " ".join(line.rsplit(" ", 2)[1:])


def _iso_time(raw: str) -> tuple[str, str | None]:
    """`<seconds since 1970, of either sign> <+HHMM>` as ISO 8601 in that offset, as %cI writes
    it; ("", why) when it is not one or falls outside the years 1 to 9999."""
    seconds, _, offset = raw.partition(" ")
    if not re.fullmatch(r"-?\d{1,15}", seconds) or not re.fullmatch(r"[+-]\d{4}", offset):
        return "", f"its committer time {raw!r} is not seconds and an offset"
    sign = -1 if offset[0] == "-" else 1
    zone = timedelta(hours=int(offset[1:3]), minutes=int(offset[3:5])) * sign
    try:
        at = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=int(seconds))
        return at.astimezone(timezone(zone)).isoformat(), None
    except (OverflowError, ValueError) as exc:
        return "", f"its committer time {raw!r} cannot be carried as a date ({exc})"


def _pathspecs(globs: Sequence[str]) -> list[str]:
    return [f":(glob){glob}" for glob in globs]


def _raw_entries(text: str) -> list[tuple[str, str, str]]:
    """(mode, blob, path) of each added or changed file of `--raw -z` output; deletions left out."""
    fields = text.lstrip("\n").split("\0")
    out = []
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        if meta.startswith(":"):
            _, new_mode, _, blob, _ = meta[1:].split(" ")
            if blob != _ZERO:
                out.append((new_mode, blob, path))
    return out


def snapshot_files(repo: Path, commit: str, globs: Sequence[str]) -> list[tuple[str, str, str]]:
    """(mode, blob, path) of every file matching `globs` that `commit` holds, in git's order."""
    raw = _git(
        repo,
        "diff-tree",
        "-r",
        "-z",
        "--raw",
        "--no-renames",
        "--no-abbrev",
        EMPTY_TREE,
        commit,
        "--",
        *_pathspecs(globs),
    )
    return _raw_entries(raw.decode("utf-8", "surrogateescape"))


def changes_along(
    repo: Path, first: str, last: str, globs: Sequence[str]
) -> dict[str, list[tuple[str, str, str]]]:
    """For each commit after `first` up to `last` on the first-parent line that adds or changes
    a file matching `globs`: (mode, blob, path) of those files, against its first parent (one
    `git log --raw` for the whole range; commits that change no such file are absent)."""
    if first == last:
        return {}
    raw = _git(
        repo,
        "log",
        "--first-parent",
        "--raw",
        "-z",
        "--no-abbrev",
        "--no-renames",
        "--format=%x1e%H",
        f"{first}..{last}",
        "--",
        *_pathspecs(globs),
    )
    out = {}
    for record in raw.decode("utf-8", "surrogateescape").split("\x1e"):
        if record:
            sha, _, rest = record.partition("\0")
            out[sha] = _raw_entries(rest)
    return out


@contextmanager
def blob_reader(repo: Path) -> Iterator[Any]:
    """A function from a blob id to its bytes, read through one `git cat-file --batch` process."""
    process = subprocess.Popen(
        ["git", "-C", str(repo), "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    stdin: IO[bytes] = process.stdin
    stdout: IO[bytes] = process.stdout

    def read(blob: str) -> bytes:
        stdin.write(blob.encode("ascii") + b"\n")
        stdin.flush()
        header = stdout.readline().split()
        if len(header) != 3 or header[1] != b"blob":
            raise AddError(f"{repo}: git cat-file: {blob} is not a blob of this repository")
        data = stdout.read(int(header[2]))
        stdout.read(1)  # the newline after the contents
        return data

    try:
        yield read
    finally:
        stdin.close()
        process.wait()


def repository_name(repo: Path, given: str | None) -> str:
    """The repository's public `owner/name`: `given`, else read from the clone's `origin` remote
    URL (`https://host/OWNER/NAME(.git)`, `git@host:OWNER/NAME(.git)`); AddError when neither."""
    if given is not None:
        if not _REPO.fullmatch(given):
            raise AddError(f"--repo-name: expected OWNER/NAME, got {given[:80]!r}")
        return given
    try:
        url = _git(repo, "config", "--get", "remote.origin.url").decode().strip()
    except AddError:
        url = ""
    match = _REMOTE.fullmatch(url)
    if match is None:
        raise AddError(
            f"--repo-name: missing, and the clone's origin ({url or 'none'}) names no OWNER/NAME; "
            "give the repository's public name, e.g. DCCouncil/law-xml-codified"
        )
    return match["repo"]


def _kept(commits: Sequence[Commit], since: str | None, until: str | None) -> Sequence[Commit]:
    """The commits from the first dated on or after `since` to the last dated on or before
    `until` (a contiguous run of the line, so each is read against its first parent)."""
    start = next((k for k, c in enumerate(commits) if since is None or c.date >= since), None)
    end = next(
        (k for k in range(len(commits) - 1, -1, -1) if until is None or commits[k].date <= until),
        None,
    )
    if start is None or end is None or start > end:
        return ()
    return commits[start : end + 1]


# ---------------------------------------------------------------------------------------------
# Placing the versions


@dataclass(frozen=True, slots=True, kw_only=True)
class _Version:
    commit: Commit
    repo_path: str
    blob: str
    family: str
    order: int
    path: str  # in mirror layout: jurisdiction/family/file


def version_file_name(repo_path: str, date: str, again: int) -> str:
    """The file name of the `again`-th version of `repo_path` dated `date` (docs/corpus.md, "From a git history")."""
    name = repo_path.rpartition("/")[2]
    stem, dot, extension = name.rpartition(".")
    if not stem:  # no extension (a leading dot opens no extension)
        stem, dot, extension = name, "", ""
    return f"{stem}@{date}{f'+{again}' if again > 1 else ''}{dot}{extension}"


class _Families:
    """Each repository path's family, found once; the refusal that stands for a path that has none."""

    def __init__(self, jurisdiction: str, pattern: BudgetedPattern, prefix: str) -> None:
        self.jurisdiction, self.pattern, self.prefix = jurisdiction, pattern, prefix
        self.of: dict[str, str | Refusal] = {}
        self.path_of: dict[str, str] = {}  # family -> the one repository path that feeds it

    def family(self, repo_path: str) -> str | Refusal:
        if repo_path not in self.of:
            self.of[repo_path] = self._family(repo_path)
        return self.of[repo_path]

    def _family(self, repo_path: str) -> str | Refusal:
        name = repo_path.rpartition("/")[2]
        if problem := file_name_problem(name):
            return Refusal(
                path=visible_name(repo_path),
                reason="bad_name",
                detail=f"the file name cannot be one name of a version id ({problem}); "
                "nothing of this file was placed",
            )
        match = self.pattern.search(repo_path)
        found = None if match is None else next((g for g in match.groups() if g), match[0])
        if not found:
            return Refusal(
                path=repo_path,
                reason="no_family",
                detail=f"--family-from {self.pattern.pattern!r} finds no family in this path",
            )
        family = self.prefix + found
        if problem := name_problem(family):
            return Refusal(
                path=repo_path,
                reason="bad_name",
                detail=f"its family {family[:80]!r} cannot be one name of a version id ({problem})",
            )
        other = self.path_of.setdefault(family, repo_path)
        if other != repo_path:
            return Refusal(
                path=repo_path,
                reason="family_shared",
                detail=f"--family-from gives it the family {family} of {other}; each file's "
                "versions need a family of their own",
            )
        return family


@dataclass(frozen=True, slots=True, kw_only=True)
class _Facts:
    """What every version of one run shares."""

    jurisdiction: str
    repo_name: str
    official: bool
    issuer: str | None
    retrieved_at: str


def _record(version: _Version, data: bytes, media_type: str, facts: _Facts) -> dict[str, Any]:
    """The provenance of one version, in `PROVENANCE_FIELDS` order, then `committed_at`."""
    values: dict[str, Any] = {
        "source_url": None,
        "mirror": {
            "repo": facts.repo_name,
            "path": version.repo_path,
            "commit": version.commit.sha,
            "blob": version.blob,
        },
        "jurisdiction": facts.jurisdiction,
        "docket_or_bill": None,
        "document_family": version.family,
        "version_label": version.commit.subject,
        "version_order": version.order,
        "filer_or_issuer": facts.issuer,
        "filing_date": version.commit.date,
        "retrieved_at": facts.retrieved_at,
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
        "format": media_type,
        "line_numbered": False,
        "byte_faithful_to_official_filing": facts.official,
        "license_note": None,
        "extraction_note": EXTRACTION_NOTE,
    }
    return {
        **{name: values[name] for name in PROVENANCE_FIELDS},
        "committed_at": version.commit.committed_at,
    }


# The provenance fields computed from the bytes: a blob id that is the same stands for them.
_FROM_BYTES = frozenset({"sha256", "bytes", "format", "retrieved_at"})


def _already_placed(into: Path, path: str, expected: dict[str, Any]) -> bool:
    """True when `into/path` and its provenance are there and the provenance says what this
    run would write, blob included (so the bytes are the same): nothing to read or write."""
    target = os.path.join(into, path)
    try:
        with open(target + PROVENANCE_SUFFIX, "rb") as handle:
            held = json.loads(handle.read())
    except (OSError, ValueError, UnicodeDecodeError):
        return False
    if not isinstance(held, dict) or not os.path.isfile(target):
        return False
    return {k: v for k, v in held.items() if k not in _FROM_BYTES} == expected


# The options, checked before git is run: every problem is found before anything is read or
# written, and reported in one line (`AddError`): one problem as itself, several as "N problems:
# ...". `--at-head` reads HEAD's tree alone, so a commit range (`--since`, `--until`) cannot go
# with it.


def _check_date(option: str, value: str | None) -> None:
    if value is None:
        return
    try:
        if not _DATE.fullmatch(value):
            raise ValueError(value)
        datetime.fromisoformat(value)  # a day the calendar has (2024-02-30 is refused)
    except ValueError:
        raise AddError(f"{option}: expected a date YYYY-MM-DD, got {value[:80]!r}") from None


def family_pattern(family_from: str | None) -> BudgetedPattern:
    """--family-from compiled (the default: the file name without its last extension); each
    search of a path runs under the pattern budget (`bounds.compile_budgeted`), an `AddError`
    over it."""
    return compile_budgeted(family_from or DEFAULT_FAMILY_FROM, "--family-from", AddError)


def check_options(
    jurisdiction: str,
    family_prefix: str,
    official: bool | None,
    since: str | None,
    until: str | None,
    globs: Sequence[str],
    at_head: bool = False,
) -> None:
    """Every problem of the options, in one AddError (the comment above); None when there is none."""
    problems = []
    if at_head and (ranged := [o for o, v in (("--since", since), ("--until", until)) if v]):
        problems.append(f"--at-head reads HEAD's tree alone; do not also give {', '.join(ranged)}")
    if problem := name_problem(jurisdiction):
        problems.append(
            f"--jurisdiction: expected a name a version id can carry, got {jurisdiction[:80]!r} "
            f"({problem})"
        )
    if family_prefix and (problem := name_problem(family_prefix + "x")):
        problems.append(
            f"--family-prefix: {family_prefix[:80]!r} cannot open a family name ({problem})"
        )
    if official is None:
        problems.append("--official/--transcription: missing (no default: say which)")
    if not globs:
        problems.append("--paths: missing (a glob of the repository's files to add)")
    for option, value in (("--since", since), ("--until", until)):
        try:
            _check_date(option, value)
        except AddError as exc:
            problems.append(str(exc))
    if since and until and since > until and not problems:
        problems.append(f"--since {since} is after --until {until}")
    if problems:
        raise AddError(
            problems[0]
            if len(problems) == 1
            else f"{len(problems)} problems: " + "; ".join(problems)
        )


def add_from_git(
    repo: Path,
    into: Path,
    *,
    paths: Sequence[str],
    jurisdiction: str,
    official: bool | None,
    family_from: str | None = None,
    family_prefix: str = "",
    since: str | None = None,
    until: str | None = None,
    repo_name: str | None = None,
    issuer: str | None = None,
    retrieved_at: str | None = None,
    at_head: bool = False,
    progress: bool = False,
) -> GitAddReport:
    """Place every version of every file of `repo` matching a glob of `paths` under `into`, in
    mirror layout with its provenance (the rules: docs/corpus.md, "From a git history").

    `paths` are git pathspec globs over the repository's paths (`*` stays inside one folder,
    `**` crosses folders, `[345]` is a class). Bad options raise one AddError listing every
    problem before git is run; a repository git cannot read, a `--repo-name` that is missing or
    malformed, or no version found raise AddError. Per version, a name the rule cannot carry
    (`bad_name`), a path `family_from` finds no family in (`no_family`) or whose family another
    path already feeds (`family_shared`), a file that is not a regular file (`not_a_file`) or
    not a document (`not_a_document`, as `sniff_media_type` decides), and anything
    `add.placement_refusal` refuses are refusals: nothing of theirs is written, and the other
    versions are placed. A version already placed with the same provenance is left alone
    without reading its bytes.

    `at_head`: only HEAD's tree is read, as a snapshot (one version of each matching file it
    holds, order 1, dated, labelled and named by HEAD's commit): the files as the repository's
    head holds them, whatever their history. A range (`since`, `until`) is refused with it.
    """
    check_options(jurisdiction, family_prefix, official, since, until, paths, at_head)
    assert official is not None
    pattern = family_pattern(family_from)
    commits = first_parent_commits(repo)
    name = repository_name(repo, repo_name)
    kept = commits[-1:] if at_head else _kept(commits, since, until)
    facts = _Facts(
        jurisdiction=jurisdiction,
        repo_name=name,
        official=official,
        issuer=issuer,
        retrieved_at=retrieved_at or now_utc(),
    )
    families = _Families(jurisdiction, pattern, family_prefix)
    last_blob: dict[str, str] = {}
    orders: Counter[str] = Counter()
    dated: Counter[tuple[str, str]] = Counter()  # (repository path, date) -> its versions so far
    refused: dict[str, Refusal] = {}  # repository path -> its one name refusal
    refusals: list[Refusal] = []
    written: list[str] = []
    found = already = 0
    along = changes_along(repo, kept[0].sha, kept[-1].sha, paths) if kept else {}
    with blob_reader(repo) as read:
        for k, commit in enumerate(bar(kept, desc="git", unit="commit", enabled=progress)):
            # The first commit kept is read whole: every matching file it holds is a version.
            changed = (
                snapshot_files(repo, commit.sha, paths) if k == 0 else along.get(commit.sha, [])
            )
            for mode, blob, repo_path in changed:
                if last_blob.get(repo_path) == blob:
                    continue
                last_blob[repo_path] = blob
                family = families.family(repo_path)
                if isinstance(family, Refusal):
                    refused.setdefault(repo_path, family)
                    continue
                if commit.date_problem is not None:
                    refusals.append(_undated(repo_path, commit))
                    continue
                orders[family] += 1
                dated[(repo_path, commit.date)] += 1
                found += 1
                file_name = version_file_name(
                    repo_path, commit.date, dated[(repo_path, commit.date)]
                )
                version = _Version(
                    commit=commit,
                    repo_path=repo_path,
                    blob=blob,
                    family=family,
                    order=orders[family],
                    path=f"{jurisdiction}/{family}/{file_name}",
                )
                outcome = _place(into, version, mode, read, facts)
                if isinstance(outcome, Refusal):
                    refusals.append(outcome)
                elif outcome:
                    written.append(version.path)
                else:
                    already += 1
    if not found and not refused:
        raise AddError(
            f"{repo}: no commit"
            + (f" dated {since or '...'} to {until or '...'}" if since or until else "")
            + f" adds a file matching {', '.join(paths)}; nothing to add"
        )
    return GitAddReport(
        commits=len(kept),
        versions=found,
        written=tuple(written),
        already=already,
        refusals=tuple(sorted(refused.values(), key=lambda r: r.path)) + tuple(refusals),
    )


def _undated(repo_path: str, commit: Commit) -> Refusal:
    return Refusal(
        path=visible_name(repo_path),
        reason="bad_date",
        detail=f"commit {commit.sha}: {commit.date_problem}; nothing of this version was placed",
    )


def _place(into: Path, version: _Version, mode: str, read: Any, facts: _Facts) -> bool | Refusal:
    """Write one version and its provenance: True if written, False if already there, equal."""
    if mode not in _REGULAR_MODES:
        return Refusal(
            path=version.path,
            reason="not_a_file",
            detail=f"{version.repo_path} is not a regular file at {version.commit.sha} (mode {mode})",
        )
    expected = {k: v for k, v in _record(version, b"", "", facts).items() if k not in _FROM_BYTES}
    if _already_placed(into, version.path, expected):
        return False
    data = read(version.blob)
    try:
        media_type = sniff_media_type(data, name=version.repo_path)
    except AddError as exc:
        return Refusal(path=version.path, reason="not_a_document", detail=str(exc))
    record = _record(version, data, media_type, facts)
    # CAUTION: admission's own parser checks the record before anything is written.
    parse_provenance(provenance_file_bytes(record), source=version.path + PROVENANCE_SUFFIX)
    if (refusal := placement_refusal(into, version.path, data, record)) is not None:
        return refusal
    target = into / version.path
    sidecar = target.with_name(target.name + PROVENANCE_SUFFIX)
    wrote = False
    if not target.is_file():
        link_into_place(target, data, 0o444)
        wrote = True
    if not sidecar.is_file():
        link_into_place(sidecar, provenance_file_bytes(record), 0o644)
        wrote = True
    return wrote
