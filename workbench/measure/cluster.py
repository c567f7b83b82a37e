"""Where the map runs (C13): its tasks in-process, on a local Dask cluster or on an existing one,
each family's result the serial run's whatever ran it, handed on as it arrives and kept by none.
Dask is imported only when a cluster is asked for; docs/scale-out.md says what each engine costs."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from workbench.derived import derived_key
from workbench.errors import (
    ClusterError,
    EngineOptionError,
    FamilyTaskFailed,
    OcrUnavailable,
    WorkbenchError,
)
from workbench.measure.tasks import (
    FamilyTask,
    HeldParts,
    HeldVersion,
    TaskResult,
    run_family_task,
    run_family_tasks,
)
from workbench.text.ocr import EngineBuild, OcrOptions, default_cache, engine_build

if TYPE_CHECKING:
    from distributed import Client

CONNECT_TIMEOUT = 10.0  # seconds to wait for an existing scheduler to answer
WORKERLESS_GRACE = 60.0  # seconds a run may wait with no worker before it fails
POLL_SECONDS = 1.0
STALL_SECONDS = 300.0  # seconds with workers present but no family finished before a run fails
SCHEDULER_ADDRESS = re.compile(r"(tcp|tls)://[^\s/:]+:\d{1,5}")
# Dask configuration for the workers of the local cluster `dask_client` starts.
LOCAL_WORKER_CONFIG = {"distributed.worker.profile.enabled": False}
# Dask configuration for the client, on either engine: no log of the messages it sent. Dask keeps
# the last `low-level-log-length` (1,000) of them for its developers, each submitted batch of
# tasks among them, pickled: memory that grew with the corpus up to that bound.
CLIENT_CONFIG = {"distributed.admin.low-level-log-length": 0}
BATCH_VERSIONS = 48  # versions a batch of consecutive families travels with, at least


# ---------------------------------------------------------------------------------------------
# Running the map


def check_engine_options(workers: int | None, scheduler: str | None) -> None:
    """Refuse both options at once, a worker count below 1, and an address not `tcp://HOST:PORT`."""
    if workers is not None and scheduler is not None:
        raise EngineOptionError("--workers and --scheduler: give one, not both")
    if workers is not None and workers < 1:
        raise EngineOptionError(f"--workers {workers}: expected a whole number of at least 1")
    if scheduler is not None and not SCHEDULER_ADDRESS.fullmatch(scheduler):
        raise EngineOptionError(f"--scheduler {scheduler}: expected tcp://HOST:PORT")


@contextmanager
def dask_client(
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    connect_timeout: float = CONNECT_TIMEOUT,
) -> Iterator[Client]:
    """A Dask client on a fresh local cluster of `workers` processes, or on `scheduler`.

    The local cluster (`local_cluster.local_cluster`, its scheduler a child process, so what Dask
    holds for the tasks is not in this one) listens on loopback only, one thread per worker (the map is CPU-bound Python,
    so threads would share one interpreter lock), with its dashboard on a free port when bokeh is
    installed. Its workers run without Dask's statistical profiler (`LOCAL_WORKER_CONFIG`): the
    profiler samples the running task every 10 ms and keeps a call tree for each second of work
    (up to `distributed.admin.low-level-log-length` of them), memory that grows with the corpus;
    the dashboard's Profile page is empty as a result. The client keeps no log of the messages
    it sent (`CLIENT_CONFIG`), on either engine. Both are closed on exit; an existing cluster
    is left running, with the configuration its workers were started with.
    """
    check_engine_options(workers, scheduler)
    try:
        import dask
        from distributed import Client
    except ImportError as exc:
        raise EngineOptionError(
            "--workers and --scheduler need dask.distributed: install the 'scale' extra"
        ) from exc
    if scheduler is not None:
        try:
            with dask.config.set(CLIENT_CONFIG):
                client = Client(scheduler, timeout=connect_timeout, set_as_default=False)  # type: ignore[no-untyped-call]
        except OSError as exc:
            raise ClusterError(
                f"{scheduler}: no Dask scheduler answered within {connect_timeout:g} s"
            ) from exc
        with client:
            yield client
        return
    from workbench.measure.local_cluster import local_cluster

    with TemporaryDirectory(prefix="workbench-dask-") as folder:
        # The nannies are built here and pass the configuration they see to every worker they
        # start (and restart), so setting it around the construction is enough.
        with dask.config.set(LOCAL_WORKER_CONFIG):
            cluster = local_cluster(workers or 1, Path(folder))
        with cluster:
            with dask.config.set(CLIENT_CONFIG):
                client = Client(cluster, set_as_default=False)  # type: ignore[no-untyped-call]
            with client:
                yield client


def worker_ocr(workspace: Path) -> OcrOptions:
    """The OCR options tasks carry to Dask workers: scanned pages are read from the client's OCR
    cache (`ocr.default_cache` of the workspace file), and a worker whose engine build is not the
    client's refuses to read them (none is required where the client has no engine)."""
    try:
        engine: EngineBuild | None = engine_build()
    except OcrUnavailable:
        engine = None
    return OcrOptions(cache=default_cache(workspace).resolve(), engine=engine)


def _address(client: Client) -> str:
    return str(client.scheduler_info()["address"])


def batches(
    tasks: Iterable[FamilyTask], versions: int = BATCH_VERSIONS
) -> Iterator[list[FamilyTask]]:
    """Consecutive tasks cut into batches of at least `versions` versions (the last may hold
    fewer): the order of `tasks` is kept, within and across batches. Each batch is made as it is
    asked for, taking from `tasks` only the tasks it holds."""
    batch: list[FamilyTask] = []
    size = 0
    for task in tasks:
        batch.append(task)
        size += len(task.rows)
        if size >= versions:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _batch_key(batch: Sequence[FamilyTask]) -> str:
    """The Dask key of a batch: `measure_families-` and the key of its tasks' keys."""
    keys = [task.key for task in batch]
    return "measure_families-" + derived_key("measure-batch", keys, batch[0].code_digest)[:32]


def map_tasks(
    tasks: Iterable[FamilyTask],
    on_result: Callable[[TaskResult], None],
    *,
    client: Client | None = None,
    held_version: HeldVersion | None = None,
    held_parts: HeldParts | None = None,
    batch: Callable[[], AbstractContextManager[object]] = nullcontext,
    workerless_grace: float = WORKERLESS_GRACE,
    progress: bool = False,
) -> None:
    """Run every task, in-process without `client` (reading held versions and their parts
    through `held_version` and `held_parts`), else on its cluster; `on_result` gets each
    family's result on the client as it arrives. Either way the tasks go in `batches`, and each
    batch's results are handed on inside one `batch()` (in-process, its tasks run inside it
    too): a workspace's `Workspace.batch` commits once per batch, not once per family. Tasks
    are taken from `tasks` as batches are run or sent (on a cluster, a window of batches in
    flight), so a lazy `tasks` is never held whole.

    Tasks are independent and pure, so where and in what order they run changes nothing. On a
    cluster, the first task to fail cancels the rest and its error is raised: a
    `WorkbenchError` as the worker raised it, a worker death counted `KilledWorker` by the
    scheduler, or anything else, as `ClusterError` or `FamilyTaskFailed` naming the family. A run
    that sees no worker for `workerless_grace` seconds fails with `ClusterError`.
    """
    total = len(tasks) if isinstance(tasks, Sized) else None
    bar = tqdm(total=total, desc="measure", unit="family", disable=not progress)
    try:
        if client is None:
            for group in batches(tasks, BATCH_VERSIONS):
                with batch():
                    for task in group:
                        on_result(
                            run_family_task(
                                task,
                                check_code=False,
                                held_version=held_version,
                                held_parts=held_parts,
                            )
                        )
                        bar.update()
            return
        _map_on_cluster(
            batches(tasks, BATCH_VERSIONS), client, on_result, batch, workerless_grace, bar
        )
    finally:
        bar.close()


def _map_on_cluster(
    work: Iterable[Sequence[FamilyTask]],
    client: Client,
    on_result: Callable[[TaskResult], None],
    together: Callable[[], AbstractContextManager[object]],
    workerless_grace: float,
    bar: tqdm[Any],
) -> None:
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    workers = max(1, len(client.scheduler_info(n_workers=-1)["workers"]))
    window = 4 * workers + 4  # batches in flight: enough to keep every worker busy
    waiting = iter(work)
    futures: dict[Any, Sequence[FamilyTask]] = {}
    # Bound to this client's loop: `distributed.wait` would look for a default client instead.
    # CAUTION: results are gathered by `as_completed` itself (with_results=True): a separate
    # blocking `future.result()` per family was seen to wait forever on an idle cluster.
    arriving = as_completed(loop=client.loop, with_results=True, raise_errors=False)  # type: ignore[no-untyped-call]

    def submit() -> None:
        for batch in waiting:
            future = client.submit(run_family_tasks, batch, key=_batch_key(batch), retries=0)
            futures[future] = batch
            arriving.add(future)  # type: ignore[no-untyped-call]
            if len(futures) >= window:
                return

    submit()
    workerless_since: float | None = None
    checked = progressed = time.monotonic()
    try:
        while futures:
            done = arriving.next_batch(block=False)  # type: ignore[no-untyped-call]
            for future, outcome in done:
                # CAUTION: drop every reference once the result is here, so the worker frees it;
                # holding all futures to the end made worker memory grow with the corpus.
                batch = futures.pop(future)
                if future.status == "error" or isinstance(outcome, BaseException):
                    _raise_task_failure(batch, future, outcome, KilledWorker)
                future.release()
                with together():
                    for result in outcome:
                        on_result(result)
                bar.update(len(batch))
            if done:
                submit()
            if done or not futures:
                workerless_since = None
                progressed = time.monotonic()
                continue
            time.sleep(0.05)
            if time.monotonic() - checked < POLL_SECONDS:
                continue
            checked = time.monotonic()
            if client.scheduler_info(n_workers=-1)["workers"]:
                workerless_since = None
                if checked - progressed >= STALL_SECONDS:
                    first = min((t for b in futures.values() for t in b), key=lambda t: t.name)
                    raise ClusterError(
                        f"{_address(client)}: no family finished for {STALL_SECONDS:g} s with workers "
                        f"present; {sum(len(b) for b in futures.values())} families unfinished "
                        f"(first: {first.name}); check the workers' logs and run again"
                    )
            elif workerless_since is None:
                workerless_since = checked
            elif checked - workerless_since >= workerless_grace:
                raise ClusterError(
                    f"{_address(client)}: no Dask worker for {workerless_grace:g} s with "
                    f"{sum(len(b) for b in futures.values())} families in flight unfinished; "
                    "start workers and run again"
                )
    finally:
        if futures:
            client.cancel(list(futures))  # type: ignore[no-untyped-call]


def _raise_task_failure(
    batch: Sequence[FamilyTask], future: Any, outcome: object, killed: type
) -> None:
    """Raise the failure of one batch's task as the typed error the CLI prints in one line."""
    error: BaseException = outcome if isinstance(outcome, BaseException) else future.exception()
    if isinstance(error, WorkbenchError):
        raise error
    names = ", ".join(task.name for task in batch[:3]) + (" ..." if len(batch) > 3 else "")
    if isinstance(error, killed):
        raise ClusterError(
            f"families {names}: the workers running them died repeatedly ({error}); "
            "the task was not retried further"
        ) from error
    raise FamilyTaskFailed(
        f"families {names}: task failed on the cluster: {type(error).__name__}: "
        + " ".join(str(error).split())
    ) from error
