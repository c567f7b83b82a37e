"""The engine on real Dask processes: byte-identical results, a killed worker, failing tasks.

A scheduler and workers are started as real `dask scheduler` / `dask worker` processes on loopback
(no nanny, so killing a worker's process kills the worker). Most runs use a subset of families
copied into a mirror-layout folder by hard links (so they are fast); one run measures the whole
corpus on the cluster and compares it with the serial map.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import dask
import pytest
from distributed import Client
from hypothesis import given, settings
from hypothesis import strategies as st

import workbench.engine
from workbench.cli import main
from workbench.corpus import admit
from workbench.engine import (
    FamilyTask,
    dask_client,
    family_tasks,
    held_text_hashes,
    map_families,
    release_freed_memory,
    run_family_task,
)
from workbench.errors import ClusterError, FamilyTaskFailed
from workbench.measure import measure_families, measure_workspace
from workbench.models import CatalogueRow
from workbench.report import write_reports
from workbench.store import Workspace

from .conftest import ROOT, STORE

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
    folder: Path, workers: int
) -> Iterator[tuple[str, dict[str, subprocess.Popen[bytes]]]]:
    """A `dask scheduler` and `workers` single-threaded `dask worker` processes on loopback."""
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
                        "--no-nanny",
                        "--no-dashboard",
                        "--host",
                        "127.0.0.1",
                    ],
                    stdout=log,
                    stderr=log,
                    cwd=folder,
                )
            )
        with Client(address, timeout=30, set_as_default=False) as client:  # type: ignore[no-untyped-call]
            client.wait_for_workers(workers, timeout=60)
            pids = client.run(os.getpid)
        by_pid = {p.pid: p for p in procs[1:]}
        yield address, {addr: by_pid[pid] for addr, pid in pids.items()}
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
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
    root = tmp_path_factory.mktemp("subset")
    for family in SUBSET:
        (root / family).mkdir(parents=True)
        for path in sorted((STORE / family).iterdir()):
            os.link(path, root / family / path.name)
    return root


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


def _subset_tasks(subset: Path, serial: Path) -> tuple[FamilyTask, ...]:
    with Workspace(serial / "w.sqlite") as held:
        return family_tasks(admit(subset).rows, subset, held_text_hashes(held))


@pytest.mark.parametrize(
    "engine",
    [
        pytest.param(("--workers", "2"), id="local-cluster"),
        pytest.param(("--scheduler",), id="dask-processes"),
    ],
)
def test_cluster_runs_write_the_serial_bytes(
    engine: tuple[str, ...], cluster: str, subset: Path, serial: Path, tmp_path: Path
) -> None:
    args = (*engine, cluster) if engine == ("--scheduler",) else engine
    result = _measure(
        "--corpus", str(subset), *args, workspace=tmp_path / "w.sqlite", out=tmp_path / "out"
    )
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout == (
        f"wrote 7 files into {tmp_path / 'out'} (32 documents, {len(SUBSET)} families)\n".encode()
    )
    assert _files(tmp_path / "out") == _files(serial / "out")


def test_the_whole_corpus_on_the_cluster_equals_the_serial_map(
    cluster: str, catalogue: tuple[CatalogueRow, ...], workspace: Workspace
) -> None:
    tasks = family_tasks(catalogue, STORE, held_text_hashes(workspace))
    versions = workspace.versions()
    # The serial map runs in a thread while the cluster works, to halve the test's wall time.
    with ThreadPoolExecutor(max_workers=1) as pool, dask_client(scheduler=cluster) as client:
        serial = pool.submit(measure_workspace, versions)
        assert map_families(tasks, client=client) == serial.result()


def test_tasks_carry_rows_and_hashes_not_texts(
    catalogue: tuple[CatalogueRow, ...], workspace: Workspace
) -> None:
    tasks = family_tasks(catalogue, STORE, held_text_hashes(workspace))
    held_bytes = sum(row.size for task in tasks for row in task.rows)
    assert sum(len(pickle.dumps(task)) for task in tasks) < held_bytes / 20
    longest = max(workspace.versions(), key=lambda v: len(v.text))
    assert longest.text[1000:1200].encode("utf-8") not in pickle.dumps(tasks)


def test_a_killed_worker_loses_nothing_and_no_worker_left_fails_in_one_line(
    subset: Path, serial: Path, tmp_path: Path
) -> None:
    """Kill one of two busy workers: identical bytes. Then kill the last: one clear line."""
    tasks = _subset_tasks(subset, serial)
    admission = admit(subset)
    killed: list[int] = []
    with (
        dask_processes(tmp_path / "dask", workers=2) as (address, workers),
        dask_client(scheduler=address) as client,
    ):

        def kill_a_busy_worker(_: FamilyTask) -> None:
            busy = [addr for addr, keys in client.processing().items() if keys and addr in workers]
            if not killed and busy:
                killed.append(len(client.processing()[busy[0]]))
                workers.pop(busy[0]).send_signal(signal.SIGKILL)

        families = map_families(tasks, client=client, on_result=kill_a_busy_worker)
        assert killed and killed[0] >= 1, "no worker was busy when the first result arrived"
        write_reports(
            tmp_path / "out", measure_families(families, admission.rows, admission.refusals)
        )
        assert _files(tmp_path / "out") == _files(serial / "out")

        def kill_every_worker(_: FamilyTask) -> None:
            for proc in workers.values():
                proc.send_signal(signal.SIGKILL)

        # The same families from a linked copy: fresh keys, so nothing is answered from memory.
        shutil.copytree(subset, tmp_path / "again", copy_function=os.link)
        again = [replace(task, store=str(tmp_path / "again")) for task in tasks]
        with pytest.raises(ClusterError) as error:
            map_families(again, client=client, on_result=kill_every_worker, workerless_grace=2)
    assert re.fullmatch(
        rf"{re.escape(address)}: no Dask worker for 2 s with \d+ of {len(tasks)} families "
        r"unfinished; start workers and run again",
        str(error.value),
    ), str(error.value)


FAMILY = "ietf/draft-nottingham-http-portal"
FILE = f"{FAMILY}/draft-nottingham-http-portal-01.txt"


@pytest.fixture
def portal(catalogue: tuple[CatalogueRow, ...], tmp_path: Path) -> tuple[Path, FamilyTask]:
    """One family copied (not linked, so it can be damaged) and its task."""
    shutil.copytree(STORE / FAMILY, tmp_path / FAMILY)
    rows = admit(tmp_path).rows
    held = {row.path: "" for row in rows}
    (task,) = family_tasks(rows, tmp_path, held)
    text_hashes = tuple(
        hashlib.sha256((tmp_path / r.path).read_bytes()).hexdigest() for r in task.rows
    )  # plain text extracts to itself
    return tmp_path, replace(task, text_sha256=text_hashes)


def _damage(kind: str, store: Path, task: FamilyTask) -> tuple[FamilyTask, str]:
    """Damage the family one way; the task to run and the message expected."""
    path = store / FILE
    index = [r.path for r in task.rows].index(FILE)
    if kind == "bytes":
        data = bytearray(path.read_bytes())
        data[100] ^= 1
        path.chmod(0o644)
        path.write_bytes(bytes(data))
        return task, (
            f"family {FAMILY}: {FILE}: held sha256 {hashlib.sha256(data).hexdigest()}; "
            f"catalogue says {task.rows[index].sha256}"
        )
    if kind == "missing":
        path.unlink()
        return (
            task,
            f"family {FAMILY}: {FILE}: cannot read it in {store}: No such file or directory",
        )
    if kind == "text_hash":
        hashes = list(task.text_sha256)
        hashes[index] = "0" * 64
        return replace(task, text_sha256=tuple(hashes)), (
            f"family {FAMILY}: {FILE}: extraction by identity 1 gives text sha256 "
            f"{task.text_sha256[index]}; the workspace holds {'0' * 64}"
        )
    raise AssertionError(kind)


@pytest.mark.parametrize("where", [pytest.param("in-process"), pytest.param("cluster")])
@pytest.mark.parametrize(
    "kind",
    [
        pytest.param("bytes", id="bytes-changed"),
        pytest.param("missing", id="file-missing"),
        pytest.param("text_hash", id="text-hash-differs"),
    ],
)
def test_a_failing_task_names_the_family_and_the_file(
    kind: str, where: str, portal: tuple[Path, FamilyTask], cluster: str
) -> None:
    store, task = portal
    task, message = _damage(kind, store, task)
    with pytest.raises(FamilyTaskFailed) as error:
        if where == "in-process":
            map_families([task])
        else:
            with dask_client(scheduler=cluster) as client:
                map_families([task], client=client)
    assert str(error.value) == message


def test_a_worker_with_other_code_refuses_the_task(
    portal: tuple[Path, FamilyTask], cluster: str
) -> None:
    _, task = portal
    with dask_client(scheduler=cluster) as client, pytest.raises(ClusterError) as error:
        map_families([replace(task, code_digest="0" * 64)], client=client)
    assert re.fullmatch(
        rf"family {FAMILY}: this worker runs workbench code [0-9a-f]{{12}}; the client runs "
        "000000000000; install the same workbench on every worker",
        str(error.value),
    )


def _resident_mb() -> float:
    for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


def test_freed_heap_memory_goes_back_to_the_system() -> None:
    """64 MB of 4 kB blocks (malloc's heap, not mmap), every 16th kept: the free runs between the
    kept ones are not at the heap's top, so malloc keeps them resident until they are trimmed."""
    blocks = [bytes([i % 251]) * 4096 for i in range(16384)]
    kept = blocks[15::16]
    del blocks
    before = _resident_mb()
    assert release_freed_memory()
    assert before - _resident_mb() > 32, f"{before:.0f} MB before, {_resident_mb():.0f} MB after"
    assert [block[:1] for block in kept] == [bytes([i % 251]) for i in range(15, 16384, 16)]


@pytest.mark.parametrize(
    "kind",
    [pytest.param(None, id="measured"), pytest.param("text_hash", id="failed")],
)
def test_every_task_releases_its_memory_when_it_ends(
    kind: str | None, portal: tuple[Path, FamilyTask], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, task = portal
    calls: list[str] = []

    def release() -> bool:
        calls.append(task.name)
        return True

    monkeypatch.setattr(workbench.engine, "release_freed_memory", release)
    if kind is None:
        assert run_family_task(task, check_code=False).family == task.family
    else:
        task, message = _damage(kind, store, task)
        with pytest.raises(FamilyTaskFailed, match=re.escape(message)):
            run_family_task(task, check_code=False)
    assert calls == [FAMILY]


def test_local_workers_run_without_the_statistical_profiler() -> None:
    """Its per-second call trees would otherwise grow a worker's memory with the corpus."""

    def profiler(dask_worker: Any) -> tuple[object, bool]:
        enabled = dask.config.get("distributed.worker.profile.enabled")
        return enabled, "profile" in dask_worker.periodic_callbacks

    with dask_client(workers=1) as client:
        assert list(client.run(profiler).values()) == [(False, False)]
    assert dask.config.get("distributed.worker.profile.enabled") is True  # the client's is kept


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_scheduler_is_one_line() -> None:
    address = f"tcp://127.0.0.1:{_free_port()}"
    with pytest.raises(ClusterError) as error, dask_client(scheduler=address, connect_timeout=1):
        pass
    assert str(error.value) == f"{address}: no Dask scheduler answered within 1 s"


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
            "workbench measure: error: argument --workers: invalid int value: 'two'",
            id="not-a-number",
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
