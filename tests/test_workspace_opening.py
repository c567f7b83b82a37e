"""A file is read, never written, until it is known to be a workspace: another program's SQLite
file is refused in one line and left byte-identical; a workspace nobody may write (a read-only
file or folder) is read by the commands that only read, as an ordinary user, with no file made
beside it, and a command that must write refuses giving the true reason."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from tests.conftest import ROOT
from workbench.cli import main

NOBODY = 65534


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def other_program(tmp_path: Path) -> Path:
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
        conn.execute("INSERT INTO notes VALUES ('kept as it is')")
    conn.close()
    return path


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(["families"], id="families"),
        pytest.param(["review", "log"], id="review-log"),
        pytest.param(["search", "--reindex"], id="search-reindex"),
        pytest.param(["ingest"], id="ingest"),
    ],
)
def test_another_programs_database_is_refused_and_left_as_it_was(
    other_program: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    before = _digest(other_program)
    assert main([*command, "--workspace", str(other_program)]) == 2
    assert capsys.readouterr().err == (
        f"workbench: error: {other_program}: not a workbench workspace (an SQLite file without "
        "its workspace_meta table); left as it was\n"
    )
    assert _digest(other_program) == before
    assert sorted(p.name for p in other_program.parent.iterdir()) == ["other.sqlite"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace of one two-version family and its review queue; its search index was built
    when it held the first version alone, so it is stale."""
    root = tmp_path_factory.mktemp("held")
    mirror, corpus = str(root / "mirror"), str(root / "corpus")
    workspace = ["--workspace", str(root / "ws.sqlite")]
    for order, words in ((1, "applies"), (2, "now applies")):
        name = root / f"v{order}.txt"
        name.write_text(f"Sec. 1. Scope\n\nThe rule {words}.\n", encoding="utf-8")
        facts = ["--jurisdiction", "xx", "--family", "fam-1", "--official", "--order", str(order)]
        dated = ["--url", f"https://example.org/{order}", "--date", f"202{order}-01-01"]
        assert main(["corpus", "add", "--into", mirror, *facts, *dated, str(name)]) == 0
        assert main(["corpus", "admit", mirror, "--corpus-dir", corpus]) == 0
        assert main(["ingest", "--corpus-dir", corpus, "--store", mirror, *workspace]) == 0
        if order == 1:
            assert main(["search", "--reindex", *workspace]) == 0
    assert main(["review", "list", *workspace]) == 0
    return root / "ws.sqlite"


@pytest.fixture
def shared(built: Path) -> Iterator[Path]:
    """A folder an ordinary user can reach (pytest's own is its owner's alone) holding a copy."""
    folder = Path(tempfile.mkdtemp(prefix="workbench-ro-", dir="/tmp"))
    os.chmod(folder, 0o755)
    shutil.copy(built, folder / "ws.sqlite")
    yield folder / "ws.sqlite"
    os.chmod(folder, 0o755)
    shutil.rmtree(folder)


def _as_nobody(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`workbench ARGS` run as the ordinary user nobody (root writes whatever the modes say)."""
    nobody = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    return subprocess.run(
        [*nobody, sys.executable, "-m", "workbench", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "HOME": str(cwd), "PYTHONPATH": str(ROOT)},
    )


WRITES = [["search", "--reindex"]]  # the index was built before the second version came
READS = [
    ["families"],
    ["versions", "fam-1"],
    ["review", "list"],
    ["review", "log"],
    ["search", "rule"],
]


@pytest.mark.parametrize(
    ("file_mode", "reason"),
    [
        pytest.param(0o444, "the file is read-only", id="read-only-file-and-folder"),
        pytest.param(0o666, "its folder is read-only", id="read-only-folder"),
    ],
)
def test_a_read_only_workspace_is_read_and_never_written(
    shared: Path, file_mode: int, reason: str
) -> None:
    folder = shared.parent
    os.chmod(shared, file_mode)
    os.chmod(folder, 0o555)
    before = _digest(shared)
    for command in READS:
        done = _as_nobody([*command, "--workspace", "ws.sqlite"], folder)
        assert (done.returncode, done.stderr) == (0, ""), command
    for command in WRITES:
        done = _as_nobody([*command, "--workspace", "ws.sqlite"], folder)
        assert done.returncode == 2
        assert done.stderr == f"workbench: error: ws.sqlite: cannot write the workspace: {reason}\n"
    assert sorted(p.name for p in folder.iterdir()) == ["ws.sqlite"]
    assert _digest(shared) == before


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(["families"], id="families"),
        pytest.param(["versions", "fam-1"], id="versions"),
        pytest.param(["review", "list"], id="review-list"),
        pytest.param(["search", "rule"], id="search"),
    ],
)
def test_a_workspace_damaged_after_its_header_is_one_line(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    """Every table's root page but the schema marker's overwritten (a disk fault, a torn copy):
    the marker still reads, so the damage is met by a later query; SQLite's words on one line,
    exit 2, never a traceback."""
    damaged = tmp_path / "ws.sqlite"
    shutil.copy(built, damaged)
    with closing(sqlite3.connect(built)) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        roots = [
            root
            for name, root in conn.execute("SELECT tbl_name, rootpage FROM sqlite_master")
            if name != "workspace_meta" and root
        ]
    data = bytearray(damaged.read_bytes())
    for root in roots:
        start = (root - 1) * page_size
        data[start : start + page_size] = b"\xa5" * page_size
    damaged.write_bytes(bytes(data))
    capsys.readouterr()
    assert main([*command, "--workspace", str(damaged)]) == 2
    err = capsys.readouterr().err
    assert err == f"workbench: error: {damaged}: SQLite: database disk image is malformed\n"
