"""The map on a Dask cluster (`measure.cluster`), on real Dask processes: byte-identical results, a
killed worker, failing tasks.

A scheduler and workers are started as real `dask scheduler` / `dask worker` processes on loopback
(no nanny, so killing a worker's process kills the worker). Most runs use a subset of families
copied into a mirror-layout folder by hard links (so they are fast); one run measures the whole
corpus on the cluster and compares it with the serial map.
"""

from __future__ import annotations

import json
import os
import random
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import closing, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psutil
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT, STORE, FreshWorkspace, link_families
from workbench.cli import main
from workbench.corpus import admit
from workbench.errors import ClusterError
from workbench.measure.cluster import batches, dask_client, map_tasks
from workbench.measure.tasks import FamilyTask, TaskResult, family_tasks, held_text_hashes
from workbench.models import CatalogueRow
from workbench.workspace import Workspace

# Dask's `distributed` (which workbench.measure.local_cluster imports) is imported in the tests that
# start a cluster: imported at collection it costs every worker a third of a second.
if TYPE_CHECKING:
    from workbench.measure.local_cluster import SchedulerProcess

DASK = Path(sys.executable).with_name("dask")
SUBSET = (
    "ietf/draft-baker-soap-media-reg",
    "ietf/draft-cedik-http-warning",
    "ietf/draft-nottingham-http-portal",
    "us-dc/dc-code-34-1436",
    "us-dc/dc-code-34-306",
    "us-federal/113-hjres59",
    "us-federal/115-hr255",
    "us-federal/116-hconres105",
)


@contextmanager
def dask_processes(
    folder: Path, workers: int, *, nanny: bool = False, env: Mapping[str, str] | None = None
) -> Iterator[tuple[str, dict[str, subprocess.Popen[bytes]]]]:
    """A `dask scheduler` and `workers` single-threaded `dask worker` processes on loopback (with
    `env` added to the workers' environment); the scheduler's address and each worker's `dask
    worker` process by the worker's address. Without `nanny` (the default), killing a process
    kills its worker; with it, the workers start as docs/scale-out.md shows, each under its nanny.
    (benchmarks/bench_code.py starts its cluster with this too.)"""
    from distributed import Client

    folder.mkdir(parents=True, exist_ok=True)
    scheduler_file = folder / "scheduler.json"
    log = (folder / "dask.log").open("ab")
    procs = [
        subprocess.Popen(
            [
                str(DASK),
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(scheduler_file),
            ],
            stdout=log,
            stderr=log,
        )
    ]
    try:
        deadline = time.monotonic() + 60
        while not scheduler_file.is_file() or not scheduler_file.read_bytes().strip():
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.1)
        address = json.loads(scheduler_file.read_bytes())["address"]
        for _ in range(workers):
            procs.append(
                subprocess.Popen(
                    [
                        str(DASK),
                        "worker",
                        address,
                        "--nworkers",
                        "1",
                        "--nthreads",
                        "1",
                        *([] if nanny else ["--no-nanny"]),
                        "--no-dashboard",
                        "--host",
                        "127.0.0.1",
                    ],
                    stdout=log,
                    stderr=log,
                    cwd=folder,
                    env={**os.environ, **(env or {})},
                )
            )
        with Client(address, timeout=30, set_as_default=False) as client:  # type: ignore[no-untyped-call]
            client.wait_for_workers(workers, timeout=60)
            pids = client.run(os.getpid)
        # A nanny's worker is its child process: every process under a `dask worker` names it.
        by_pid = {
            pid: p
            for p in procs[1:]
            for pid in (p.pid, *(c.pid for c in psutil.Process(p.pid).children(recursive=True)))
        }
        yield address, {addr: by_pid[pid] for addr, pid in pids.items()}
    finally:
        # CAUTION: the workers stop first, the scheduler once they are gone: a worker told to stop
        # while its scheduler stops too can wait on the closed connection until it is killed.
        for group in (procs[1:], procs[:1]):
            for proc in group:
                if proc.poll() is None:
                    proc.terminate()
            for proc in group:
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
        log.close()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with dask_processes(tmp_path_factory.mktemp("dask"), workers=2) as (address, _):
        yield address


@pytest.fixture(scope="module")
def subset(catalogue: tuple[CatalogueRow, ...], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A mirror-layout folder of the `SUBSET` families, hard-linked from the fetched store."""
    return link_families(tmp_path_factory.mktemp("subset"), SUBSET)


def _measure(*args: str, workspace: Path, out: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench",
            "measure",
            *args,
            "--workspace",
            str(workspace),
            "--out",
            str(out),
        ],
        capture_output=True,
        cwd=ROOT,
        check=False,
    )


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def serial(subset: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The serial run on the subset; its folder holds `out/` and the workspace it ingested."""
    folder = tmp_path_factory.mktemp("serial")
    result = _measure("--corpus", str(subset), workspace=folder / "w.sqlite", out=folder / "out")
    assert result.returncode == 0, result.stderr.decode()
    return folder


@pytest.fixture(scope="module")
def subset_held(
    catalogue: tuple[CatalogueRow, ...],
    fresh_workspace: FreshWorkspace,
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, str | None]:
    """The text SHA-256 of each version of the subset, as a workspace that ingested them holds
    it (no measure run: the tasks made from it need only the hashes)."""
    rows = [row for row in catalogue if "/".join(row.path.split("/")[:2]) in SUBSET]
    with fresh_workspace(rows, tmp_path_factory.mktemp("subset-held") / "w.sqlite") as held:
        return held_text_hashes(held)


def _subset_tasks(subset: Path, held: dict[str, str | None]) -> tuple[FamilyTask, ...]:
    return family_tasks(admit(subset).rows, subset, held)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["local", "started", "few"])
def test_a_cluster_writes_the_serial_runs_bytes(
    engine: str, subset: Path, serial: Path, cluster: str, tmp_path: Path
) -> None:
    """A local cluster of two workers, and a scheduler and two workers started as processes
    (`dask scheduler`, `dask worker`): the reports are the serial run's, byte for byte, and the
    workspace holds the same versions. With `--workers` and fewer families to measure than
    `--min-cluster-families` (by default, the subset's), no cluster is started: they are
    measured in the client, to the same bytes."""
    args = {
        "local": ("--workers", "2", "--min-cluster-families", "0"),
        "started": ("--scheduler", cluster),
        "few": ("--workers", "2"),
    }[engine]
    result = _measure(
        "--corpus", str(subset), *args, workspace=tmp_path / "w.sqlite", out=tmp_path / "out"
    )
    assert result.returncode == 0, result.stderr.decode()
    measured = (
        f"{len(SUBSET)} measured "
        + {
            "local": "on a local cluster of 2 workers",
            "started": f"on {cluster}",
            "few": "in this process",
        }[engine]
    )
    assert measured + ")\n" in result.stdout.decode()
    assert _files(tmp_path / "out") == _files(serial / "out")
    with Workspace(tmp_path / "w.sqlite") as held, Workspace(serial / "w.sqlite") as alone:
        assert held_text_hashes(held) == held_text_hashes(alone)
    # A worker reads each version's tables from the store before it pairs the family: the parts
    # kept (tables among them) and each pair's one kept diff are the serial run's.
    kept = _kept(tmp_path / "w.sqlite")
    assert kept == _kept(serial / "w.sqlite")
    assert any(tables is not None and json.loads(tables) for *_, tables in kept[0])


def _kept(path: Path) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """A workspace's kept parts (key, headings, footnotes, tables) and kept diffs (key, changes,
    unchanged), sorted."""
    with closing(sqlite3.connect(path)) as conn:
        return (
            sorted(conn.execute("SELECT key, headings, footnotes, tables FROM derived_parts")),
            sorted(conn.execute("SELECT diff_key, changes, unchanged FROM kept_diffs")),
        )


@pytest.mark.slow
def test_batches_keep_the_order_and_hold_enough_versions(
    subset: Path, subset_held: dict[str, str | None]
) -> None:
    tasks = _subset_tasks(subset, subset_held)
    cut = list(batches(tasks, versions=5))
    assert [t for batch in cut for t in batch] == list(tasks)
    assert all(sum(len(t.rows) for t in batch) >= 5 for batch in cut[:-1])
    assert all(sum(len(t.rows) for t in batch[:-1]) < 5 for batch in cut)


@pytest.mark.parametrize("engine", ["in-process", pytest.param("started", marks=pytest.mark.slow)])
def test_results_are_handed_on_inside_one_batch_per_batch_of_tasks(
    engine: str,
    subset: Path,
    subset_held: dict[str, str | None],
    request: pytest.FixtureRequest,
) -> None:
    """`map_tasks` hands each batch's results on inside one `batch()` (what `measure` holds
    them in: `Workspace.batch`, one commit), in process in the batches' order, on a cluster
    each batch whole as it arrives: the subset's eight families, one batch of versions, are
    held in one, not in eight."""
    tasks = _subset_tasks(subset, subset_held)
    groups: list[list[str]] = []
    inside: list[bool] = []

    @contextmanager
    def batch() -> Iterator[None]:
        groups.append([])
        inside.append(True)
        try:
            yield
        finally:
            inside.pop()

    def on_result(result: TaskResult) -> None:
        assert inside, "a result handed on outside a batch"
        groups[-1].append(f"{result.jurisdiction}/{result.family}")

    if engine == "started":
        from distributed import Client

        cluster = request.getfixturevalue("cluster")  # a started cluster: slow (rule 2)
        with Client(cluster, set_as_default=False) as client:  # type: ignore[no-untyped-call]
            map_tasks(tasks, on_result, client=client, batch=batch)
    else:
        map_tasks(tasks, on_result, batch=batch)
    expected = [[task.name for task in group] for group in batches(tasks)]
    assert sorted(expected) == [list(SUBSET)]
    assert (groups if engine == "in-process" else sorted(groups)) == expected


@pytest.mark.slow
def test_local_workers_run_without_the_statistical_profiler() -> None:
    """Its per-second call trees would otherwise grow a worker's memory with the corpus."""
    import dask

    def profiler(dask_worker: Any) -> tuple[object, bool]:
        enabled = dask.config.get("distributed.worker.profile.enabled")
        return enabled, "profile" in dask_worker.periodic_callbacks

    with dask_client(workers=1) as client:
        assert list(client.run(profiler).values()) == [(False, False)]
    assert dask.config.get("distributed.worker.profile.enabled") is True  # the client's is kept


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["local", "started"])
def test_the_client_keeps_no_log_of_the_tasks_it_sent(engine: str, cluster: str) -> None:
    """Dask's client keeps its last thousand messages for its developers, each batch of tasks
    pickled among them: memory that grew with the corpus. On either engine it keeps none."""
    import dask

    options: dict[str, Any] = {"workers": 1} if engine == "local" else {"scheduler": cluster}
    with dask_client(**options) as client:
        assert client.submit(sum, [1, 2], pure=False).result() == 3
        assert len(client.scheduler_comm.recent_message_log) == 0
    assert dask.config.get("distributed.admin.low-level-log-length") > 0  # the default is kept


@pytest.mark.slow
def test_the_local_scheduler_runs_in_a_process_of_its_own() -> None:
    """The objects Dask unpickles for its tasks live in the scheduler's process, a child of the
    client's that ends with the cluster."""
    with dask_client(workers=1) as client:
        scheduler = client.run_on_scheduler(os.getpid)
        assert scheduler != os.getpid()
        assert psutil.Process(scheduler).parent().pid == os.getpid()
        worker = next(iter(client.run(os.getpid).values()))
        assert worker not in (scheduler, os.getpid())
    assert not psutil.pid_exists(scheduler)


def test_a_local_scheduler_that_does_not_start_is_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from workbench.measure.local_cluster import SchedulerProcess

    def failing(self: SchedulerProcess) -> list[str]:
        return [sys.executable, "-c", "import sys; print('no port for you'); sys.exit(3)"]

    monkeypatch.setattr(SchedulerProcess, "command", failing)
    with pytest.raises(ClusterError) as error, dask_client(workers=1):
        pass
    assert str(error.value) == (
        "local Dask scheduler exited with code 3 before it listened: no port for you"
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_scheduler_is_one_line() -> None:
    address = f"tcp://127.0.0.1:{_free_port()}"
    # Nothing listens on the port: the client retries until the timeout, which the test waits.
    with (
        pytest.raises(ClusterError) as error,
        dask_client(scheduler=address, connect_timeout=0.25),
    ):
        pass
    assert str(error.value) == f"{address}: no Dask scheduler answered within 0.25 s"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            ("--workers", "0"),
            "workbench: error: --workers 0: expected a whole number of at least 1",
            id="zero-workers",
        ),
        pytest.param(
            ("--workers", "-3"),
            "workbench: error: --workers -3: expected a whole number of at least 1",
            id="negative-workers",
        ),
        pytest.param(
            ("--scheduler", "localhost:8786"),
            "workbench: error: --scheduler localhost:8786: expected tcp://HOST:PORT",
            id="no-scheme",
        ),
        pytest.param(
            ("--scheduler", "tcp://127.0.0.1"),
            "workbench: error: --scheduler tcp://127.0.0.1: expected tcp://HOST:PORT",
            id="no-port",
        ),
        pytest.param(
            ("--workers", "2", "--scheduler", "tcp://127.0.0.1:1"),
            "workbench measure: error: argument --scheduler: not allowed with argument --workers",
            id="both",
        ),
        pytest.param(
            ("--workers", "two"),
            "workbench measure: error: argument --workers: 'two': expected an integer from -9223372036854775807 to 9223372036854775807",
            id="not-a-number",
        ),
        pytest.param(
            ("--workers", "2", "--min-cluster-families", "-1"),
            "workbench measure: error: argument --min-cluster-families: '-1': expected a whole "
            "number of at least 0",
            id="negative-min-cluster-families",
        ),
    ],
)
def test_bad_engine_options_are_one_line(
    args: tuple[str, ...], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    try:
        code = main(["measure", *args, "--workspace", str(tmp_path / "w.sqlite")])
    except SystemExit as exit_info:
        code = int(str(exit_info.code))
    assert code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == message
    assert not (tmp_path / "w.sqlite").exists()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_tasks_do_not_depend_on_row_order(seed: int, catalogue: tuple[CatalogueRow, ...]) -> None:
    held = {row.path: "h" for row in catalogue[::3]}
    shuffled = list(catalogue)
    random.Random(seed).shuffle(shuffled)
    assert family_tasks(shuffled, STORE, held) == family_tasks(catalogue, STORE, held)


def test_a_key_names_its_inputs(catalogue: tuple[CatalogueRow, ...]) -> None:
    task = family_tasks(catalogue, STORE, {row.path: "h" for row in catalogue})[0]
    changed = (
        replace(task, text_sha256=("x", *task.text_sha256[1:])),
        replace(task, store="/elsewhere"),
        replace(task, code_digest="0" * 64),
        replace(task, profiles=((task.profiles[0][0], task.profiles[0][1] + b"\n"),)),
        replace(task, rows=task.rows[:-1], text_sha256=task.text_sha256[:-1]),
    )
    assert len({task.key, *(t.key for t in changed)}) == 1 + len(changed)
    assert task.key.startswith("measure_family-")
