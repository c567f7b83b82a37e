"""Where the map runs: over document families, in-process or on a Dask cluster.

Corpus-wide measurement is a map (`measure_family` on each family) and a deterministic reduce
(`reduce_families`, on the client). The map runs in-process by default; with `workers=N` on a
local Dask cluster (`distributed.LocalCluster`, N single-threaded worker processes); with
`scheduler="tcp://HOST:PORT"` on an existing cluster. Whatever runs it, a family's task is a small
`FamilyTask`: the family's catalogue rows (path, SHA-256, byte count, media type, provenance), the
text SHA-256 the workspace holds for each, the store folder, a digest of the workbench code and the
numbering profiles' bytes (the researcher's and the shipped ones, so a worker reads the family
through the very profiles the client chose from). Never a version's text. The worker reads each file itself from the store, checks its SHA-256 and
size against the row before use (`read_fetched`), extracts it (`version_from_row`), refuses a text
whose hash differs from the held one (C4), and returns the family's `FamilyMeasurement`.

The guarantee (C13): the results are the serial run's, whatever ran them, in sorted
(jurisdiction, family) order; the reduce then writes the same bytes. A worker killed mid-run loses
nothing: the scheduler gives its tasks to the remaining workers. A run with no worker left for
`workerless_grace` seconds, a task that raises, or a worker running different workbench code fails
with a one-line `WorkbenchError` that names the family and the file.

Memory per worker stays flat as the corpus grows: a task holds one family at a time, results are
released on the worker as soon as the client has them, the C heap's freed pages go back to the
system by Dask's own nanny configuration (it starts workers with `MALLOC_TRIM_THRESHOLD_` set), and
the local cluster's workers run without Dask's statistical profiler, whose history grows with every
second of work. The workbench sets no process-wide allocator or collector option itself.

Dask is imported only when a cluster is asked for, so the in-process path needs only the core.
"""

from __future__ import annotations

import hashlib
import logging
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from workbench.corpus import read_fetched
from workbench.errors import (
    ClusterError,
    EngineOptionError,
    FamilyTaskFailed,
    OcrUnavailable,
    WorkbenchError,
)
from workbench.measure.family import FamilyMeasurement, measure_family
from workbench.models import CatalogueRow, Version, code_digest, content_id
from workbench.text.ocr import EngineBuild, OcrOptions, default_cache, engine_build
from workbench.text.profiles import Profile, candidate_profiles, registry, registry_from_sources
from workbench.workspace import Workspace, version_from_row

if TYPE_CHECKING:
    from distributed import Client

CONNECT_TIMEOUT = 10.0  # seconds to wait for an existing scheduler to answer
WORKERLESS_GRACE = 60.0  # seconds a run may wait with no worker before it fails
POLL_SECONDS = 1.0
STALL_SECONDS = 300.0  # seconds with workers present but no family finished before a run fails
SCHEDULER_ADDRESS = re.compile(r"(tcp|tls)://[^\s/:]+:\d{1,5}")
# Dask configuration for the workers of the local cluster `dask_client` starts.
LOCAL_WORKER_CONFIG = {"distributed.worker.profile.enabled": False}


# ---------------------------------------------------------------------------------------------
# Tasks


@dataclass(frozen=True, slots=True, kw_only=True)
class FamilyTask:
    """What travels to a worker for one family: rows and hashes, never texts.

    `rows` are in version order; `text_sha256[i]` is the text hash the workspace holds for
    `rows[i]`. `store` is an absolute path every worker must see at the same place.
    """

    jurisdiction: str
    family: str
    store: str
    rows: tuple[CatalogueRow, ...]
    text_sha256: tuple[str, ...]
    code_digest: str
    profiles: tuple[tuple[str, bytes], ...] = ()  # (origin, file bytes), in registry order
    ocr: OcrOptions | None = None  # the client's OCR cache and engine build, for scanned pages

    @property
    def name(self) -> str:
        return f"{self.jurisdiction}/{self.family}"

    @property
    def key(self) -> str:
        """The Dask key: `measure_family-` and a digest of every input, so equal keys mean equal results."""
        token = content_id(
            [
                self.store,
                self.code_digest,
                [
                    [r.path, r.sha256, r.size, h]
                    for r, h in zip(self.rows, self.text_sha256, strict=True)
                ],
                [[origin, hashlib.sha256(source).hexdigest()] for origin, source in self.profiles],
            ]
        )
        return f"measure_family-{token[:32]}"


def family_tasks(
    rows: Iterable[CatalogueRow],
    store: Path,
    held: Mapping[str, str],
    profiles: Sequence[Profile] | None = None,
    ocr: OcrOptions | None = None,
) -> tuple[FamilyTask, ...]:
    """One task per family with a held version, sorted by (jurisdiction, family).

    Only rows whose path is a key of `held` (version id to the held text SHA-256) are measured, as
    the serial run measures only held versions; rows are in version order. A task carries, as
    (origin, bytes), the profile of the registry (default: the shipped ones) that names its family,
    or the whole registry when none does, so the worker makes the automatic choice itself.
    """
    profiles = registry() if profiles is None else tuple(profiles)
    grouped: dict[tuple[str, str], list[CatalogueRow]] = {}
    for row in rows:
        if row.path in held:
            grouped.setdefault((row.jurisdiction, row.family), []).append(row)
    store_path, digest = str(store.resolve()), code_digest()
    tasks = []
    for (jurisdiction, family), group in sorted(grouped.items()):
        group.sort(key=lambda r: r.version_order)
        tasks.append(
            FamilyTask(
                jurisdiction=jurisdiction,
                family=family,
                store=store_path,
                rows=tuple(group),
                text_sha256=tuple(held[r.path] for r in group),
                code_digest=digest,
                profiles=tuple(
                    (p.origin, p.source) for p in candidate_profiles(profiles, jurisdiction, family)
                ),
                ocr=ocr,
            )
        )
    return tuple(tasks)


def held_text_hashes(workspace: Workspace) -> dict[str, str]:
    """Version id to text SHA-256 of every version the workspace holds (no texts are read)."""
    return dict(workspace.execute("SELECT version_id, text_sha256 FROM versions"))


def load_family(task: FamilyTask) -> list[Version]:
    """Read, hash-check and extract every version of the task's family, as a worker does.

    Raises FamilyTaskFailed naming the family and the file: bytes missing, not matching the row's
    SHA-256 or size, not extractable, or extracting to a text hash other than the held one.
    """
    store = Path(task.store)
    versions = []
    for row, expected in zip(task.rows, task.text_sha256, strict=True):
        try:
            version = version_from_row(row, read_fetched(row, store), ocr=task.ocr)
        except WorkbenchError as exc:  # the message opens with the path already
            raise FamilyTaskFailed(f"family {task.name}: {exc}") from exc
        except OSError as exc:
            raise FamilyTaskFailed(
                f"family {task.name}: {row.path}: cannot read it in {store}: {exc.strerror}"
            ) from exc
        if version.text_sha256 != expected:
            raise FamilyTaskFailed(
                f"family {task.name}: {row.path}: extraction by {version.extractor} "
                f"{version.extractor_version} gives text sha256 {version.text_sha256}; "
                f"the workspace holds {expected}"
            )
        versions.append(version)
    return versions


def run_family_task(task: FamilyTask, *, check_code: bool = True) -> FamilyMeasurement:
    """The map step as a worker runs it: check the code digest, load the family, measure it.

    `check_code=False` is for the in-process map, where the client's code is the code that runs.
    """
    here = code_digest() if check_code else task.code_digest
    if task.code_digest != here:
        raise ClusterError(
            f"family {task.name}: this worker runs workbench code {here[:12]}; the client "
            f"runs {task.code_digest[:12]}; install the same workbench on every worker"
        )
    return _measure_task(task)


def _measure_task(task: FamilyTask) -> FamilyMeasurement:
    versions = load_family(task)
    profiles = registry_from_sources(task.profiles) if task.profiles else None
    try:
        return measure_family(versions, profiles)
    except Exception as exc:
        raise FamilyTaskFailed(
            f"family {task.name}: measuring {versions[0].version_id} .. {versions[-1].version_id}: "
            f"{type(exc).__name__}: {exc}"
        ) from exc


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

    The local cluster listens on loopback only, one thread per worker (the map is CPU-bound Python,
    so threads would share one interpreter lock), with its dashboard on a free port when bokeh is
    installed. Its workers run without Dask's statistical profiler (`LOCAL_WORKER_CONFIG`): the
    profiler samples the running task every 10 ms and keeps a call tree for each second of work
    (up to `distributed.admin.low-level-log-length` of them), memory that grows with the corpus;
    the dashboard's Profile page is empty as a result. Both are closed on exit; an existing cluster
    is left running, with the configuration its workers were started with.
    """
    check_engine_options(workers, scheduler)
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise EngineOptionError(
            "--workers and --scheduler need dask.distributed: install the 'scale' extra"
        ) from exc
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=connect_timeout, set_as_default=False)  # type: ignore[no-untyped-call]
        except OSError as exc:
            raise ClusterError(
                f"{scheduler}: no Dask scheduler answered within {connect_timeout:g} s"
            ) from exc
        with client:
            yield client
        return
    # The nannies are built here and pass the configuration they see to every worker they start
    # (and restart), so setting it around the construction is enough.
    with dask.config.set(LOCAL_WORKER_CONFIG):
        cluster = LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            # A free loopback port: the scheduler's HTTP server (and, with bokeh, the dashboard).
            dashboard_address="127.0.0.1:0",
            worker_dashboard_address=None,
            silence_logs=logging.ERROR,
        )
    with cluster, Client(cluster, set_as_default=False) as client:  # type: ignore[no-untyped-call]
        yield client


def _address(client: Client) -> str:
    return str(client.scheduler_info()["address"])


def map_families(
    tasks: Sequence[FamilyTask],
    *,
    client: Client | None = None,
    on_result: Callable[[FamilyTask], None] | None = None,
    workerless_grace: float = WORKERLESS_GRACE,
    progress: bool = False,
) -> list[FamilyMeasurement]:
    """Run every task, in-process without `client`, else on its cluster; results in task order.

    Tasks are independent and pure, so where and in what order they run changes nothing; results
    are returned in the order of `tasks` (sorted by `family_tasks`). `on_result` is called on the
    client after each family's result arrives (progress, monitoring). On a cluster, the first task
    to fail cancels the rest and its error is raised: a `WorkbenchError` as the worker raised it, a
    worker death counted `KilledWorker` by the scheduler, or anything else, as `ClusterError` or
    `FamilyTaskFailed` naming the family. A run that sees no worker for `workerless_grace` seconds
    fails with `ClusterError`.
    """
    bar = tqdm(total=len(tasks), desc="measure", unit="family", disable=not progress)
    try:
        if client is None:
            results = []
            for task in tasks:
                results.append(run_family_task(task, check_code=False))
                if on_result:
                    on_result(task)
                bar.update()
            return results
        return _map_on_cluster(tasks, client, on_result, workerless_grace, bar)
    finally:
        bar.close()


def _map_on_cluster(
    tasks: Sequence[FamilyTask],
    client: Client,
    on_result: Callable[[FamilyTask], None] | None,
    workerless_grace: float,
    bar: tqdm[Any],
) -> list[FamilyMeasurement]:
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    futures = {
        client.submit(run_family_task, task, key=task.key, retries=0): task for task in tasks
    }
    results: dict[str, FamilyMeasurement] = {}
    pending = set(futures)
    # Bound to this client's loop: `distributed.wait` would look for a default client instead.
    # CAUTION: results are gathered by `as_completed` itself (with_results=True): a separate
    # blocking `future.result()` per family was seen to wait forever on an idle cluster.
    arriving = as_completed(  # type: ignore[no-untyped-call]
        futures, loop=client.loop, with_results=True, raise_errors=False
    )
    workerless_since: float | None = None
    checked = progressed = time.monotonic()
    try:
        while pending:
            done = arriving.next_batch(block=False)  # type: ignore[no-untyped-call]
            for future, outcome in done:
                # CAUTION: drop every reference once the result is here, so the worker frees it;
                # holding all futures to the end made worker memory grow with the corpus.
                task = futures.pop(future)
                pending.discard(future)
                if future.status == "error" or isinstance(outcome, BaseException):
                    _raise_task_failure(task, future, outcome, KilledWorker)
                future.release()
                results[task.key] = outcome
                if on_result:
                    on_result(task)
                bar.update()
            if done or not pending:
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
                    raise ClusterError(
                        f"{_address(client)}: no family finished for {STALL_SECONDS:g} s with workers "
                        f"present; {len(pending)} of {len(tasks)} families unfinished "
                        f"(first: {futures[min(pending, key=lambda f: futures[f].key)].name}); "
                        "check the workers' logs and run again"
                    )
            elif workerless_since is None:
                workerless_since = checked
            elif checked - workerless_since >= workerless_grace:
                raise ClusterError(
                    f"{_address(client)}: no Dask worker for {workerless_grace:g} s with "
                    f"{len(pending)} of {len(tasks)} families unfinished; start workers and run again"
                )
    finally:
        if pending:
            client.cancel(list(pending))  # type: ignore[no-untyped-call]
    return [results[task.key] for task in tasks]


def _raise_task_failure(task: FamilyTask, future: Any, outcome: object, killed: type) -> None:
    """Raise the failure of one family's task as the typed error the CLI prints in one line."""
    error: BaseException = outcome if isinstance(outcome, BaseException) else future.exception()
    if isinstance(error, WorkbenchError):
        raise error
    if isinstance(error, killed):
        raise ClusterError(
            f"family {task.name}: the workers running it died repeatedly ({error}); "
            "the task was not retried further"
        ) from error
    raise FamilyTaskFailed(
        f"family {task.name}: task failed on the cluster: {type(error).__name__}: "
        + " ".join(str(error).split())
    ) from error


def map_families_on_cluster(
    workspace: Workspace,
    rows: Iterable[CatalogueRow],
    store: Path,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
    profiles: Sequence[Profile] | None = None,
) -> list[FamilyMeasurement]:
    """Measure every family of `rows` held in `workspace`, on the cluster the options name.

    The same families and versions the serial `map_families` measures, with the same results
    in the same order; the workers read the bytes from `store`.
    """
    check_engine_options(workers, scheduler)
    # Workers read scanned pages from the client's OCR cache, and refuse another engine build.
    try:
        engine: EngineBuild | None = engine_build()
    except OcrUnavailable:
        engine = None
    ocr = OcrOptions(cache=default_cache(workspace.path).resolve(), engine=engine)
    tasks = family_tasks(rows, store, held_text_hashes(workspace), profiles, ocr)
    with dask_client(workers=workers, scheduler=scheduler) as client:
        if progress:
            link = getattr(client, "dashboard_link", None) if workers is not None else None
            print(
                f"dask: {len(tasks)} families on {_address(client)}"
                + (f"; dashboard {link}" if link else ""),
                file=sys.stderr,
            )
        return map_families(tasks, client=client, progress=progress)
