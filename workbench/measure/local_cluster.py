"""The local Dask cluster `measure --workers N` starts (C13): `LocalCluster`'s workers, with its
scheduler a `dask scheduler` child process, so the client holds none of the scheduler's state.
Importing it imports `distributed`."""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from distributed import Nanny, SpecCluster
from distributed.deploy.spec import ProcessInterface
from distributed.worker_memory import parse_memory_limit

from workbench.errors import ClusterError

START_TIMEOUT = 60.0  # seconds the scheduler may take to listen
STOP_TIMEOUT = 10.0  # seconds the scheduler may take to exit once told to, before it is killed
IDLE_TIMEOUT = 600  # seconds with no task running after which an orphaned scheduler closes
SCHEDULER_FILE = "scheduler.json"
SCHEDULER_LOG = "scheduler.log"


class SchedulerProcess(ProcessInterface):
    """`dask scheduler` on a free loopback port, as a child process, for `SpecCluster`: its
    address is read from the connection file it writes into `folder`, its log goes to
    `folder/scheduler.log`."""

    def __init__(self, folder: str, **_: Any) -> None:
        self.folder = Path(folder)
        self.process: subprocess.Popen[bytes] | None = None
        super().__init__()  # type: ignore[no-untyped-call]

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "distributed.cli.dask_scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            # A free loopback port: the scheduler's HTTP server (and, with bokeh, the dashboard).
            "--dashboard-address",
            "127.0.0.1:0",
            "--scheduler-file",
            str(self.folder / SCHEDULER_FILE),
            "--idle-timeout",
            f"{IDLE_TIMEOUT}s",
        ]

    async def start(self) -> None:
        connection, log = self.folder / SCHEDULER_FILE, self.folder / SCHEDULER_LOG
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                self.command(), stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + START_TIMEOUT
        while self.address is None:
            try:
                self.address = json.loads(connection.read_bytes())["address"]
                break
            except (OSError, ValueError, KeyError):
                pass  # not written yet, or written only in part
            code = self.process.poll()
            if code is not None:
                raise ClusterError(
                    f"local Dask scheduler exited with code {code} before it listened: "
                    f"{_last_line(log)}"
                )
            if time.monotonic() > deadline:
                self._stop(kill=True)
                raise ClusterError(
                    f"local Dask scheduler did not listen within {START_TIMEOUT:g} s: "
                    f"{_last_line(log)}"
                )
            await asyncio.sleep(0.05)
        await super().start()  # type: ignore[no-untyped-call]

    async def close(self) -> None:
        # SpecCluster has told the scheduler to terminate: wait for it to exit, then make sure.
        deadline = time.monotonic() + STOP_TIMEOUT
        while self.process is not None and self.process.poll() is None:
            if time.monotonic() > deadline:
                self._stop(kill=True)
                break
            await asyncio.sleep(0.05)
        await super().close()  # type: ignore[no-untyped-call]

    def _stop(self, *, kill: bool) -> None:
        if self.process is not None and self.process.poll() is None:
            (self.process.kill if kill else self.process.terminate)()
            self.process.wait()


def _last_line(log: Path) -> str:
    lines = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    return lines[-1].strip() if lines else "(its log is empty)"


def local_cluster(workers: int, folder: Path) -> SpecCluster:
    """A started cluster of `workers` single-threaded worker processes (each under a nanny, as
    `LocalCluster` starts them) and a `SchedulerProcess` keeping its files in `folder`.

    The Dask configuration in force here is the one the nannies pass to every worker they start.
    Raises `ClusterError` when the cluster does not start."""
    worker = {
        "cls": Nanny,
        "options": {
            "host": "127.0.0.1",
            "nthreads": 1,
            "dashboard": False,
            "dashboard_address": None,
            "silence_logs": logging.ERROR,
            "memory_limit": parse_memory_limit(
                "auto", 1, workers, logger=logging.getLogger("distributed.deploy.local")
            ),
        },
    }
    try:
        return SpecCluster(  # type: ignore[no-untyped-call]
            scheduler={"cls": SchedulerProcess, "options": {"folder": str(folder)}},
            workers=dict.fromkeys(range(workers), worker),
            worker=worker,
            silence_logs=logging.ERROR,
            name="workbench-measure",
        )
    except RuntimeError as exc:  # SpecCluster's own wrapping of what failed
        if isinstance(exc.__cause__, ClusterError):
            raise exc.__cause__ from None
        raise ClusterError(
            f"local Dask cluster did not start: {' '.join(str(exc).split())}"
        ) from exc
