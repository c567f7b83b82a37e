"""The map of `measure_corpus` (C13): which families are reused under their keys, the other
families' tasks run in this process or on Dask, and what each task extracted held as it returns."""

from __future__ import annotations

import functools
import itertools
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.changes.stored import MeasuredQueue
from workbench.derived import code_digest
from workbench.errors import CorpusChanged
from workbench.measure.cache import (
    VERSION_FACTS,
    MeasurementCache,
    family_cache_key,
    held_version_facts,
)
from workbench.measure.index import SummaryIndex
from workbench.measure.tasks import FamilyTask, TaskResult, family_task
from workbench.models import CatalogueRow, Refusal
from workbench.terminal import write
from workbench.text.ocr import OcrOptions
from workbench.text.profiles import Profile
from workbench.workspace import Workspace, ingest
from workbench.workspace.parts import held_parts, keep_parts


@dataclass(slots=True)
class MapRun:
    """What a run gathers as it goes: keys, names, extracted ids and refusals (no measurement)."""

    held_cache: MeasurementCache | None
    queue: MeasuredQueue | None = None  # where the map's review items are stored
    keys: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    extracted: list[str] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Plan:
    """The facts of every held version by id (`VERSION_FACTS`, no text): all a family's task or
    reuse is decided from, beside its own rows."""

    facts: dict[str, tuple[Any, ...]]

    def held(self, row: CatalogueRow) -> str | None:
        """The text SHA-256 held for the row's version (None: to extract)."""
        fact = self.facts.get(row.path)
        return None if fact is None else fact[_TEXT]

    def changed(self, row: CatalogueRow) -> Refusal | None:
        """`corpus_changed` when the row's path is held with other bytes (the held version is
        measured as held)."""
        fact = self.facts.get(row.path)
        if fact is None or fact[_ARTEFACT] == row.sha256:
            return None
        return Refusal(
            path=row.path,
            reason="corpus_changed",
            detail=f"{row.path}: held with artefact sha256 {fact[_ARTEFACT]}; new bytes "
            f"hash to {row.sha256}; a corrected document must be admitted as a new version",
        )


_ARTEFACT, _EXTRACTOR, _EXTRACTOR_VERSION, _TEXT = (
    VERSION_FACTS.index(name)
    for name in ("artefact_sha256", "extractor", "extractor_version", "text_sha256")
)


def _plan(
    held: Workspace,
    rows: Callable[[], Iterable[CatalogueRow]],
    store: Path,
    *,
    progress: bool,
) -> tuple[_Plan, list[Refusal]]:
    """The held versions' facts, and the refusals of re-extracting those held by an older
    extractor version whose text no current one has reproduced (checked by `ingest` as it checks
    one, before any task runs). Their rows are found by a pass over `rows()` only when some
    held version is of an older extractor version."""
    from workbench.text.extraction import CURRENT_EXTRACTORS

    facts = {f[0]: f for f in held_version_facts(held)}
    older = {
        path
        for path, fact in facts.items()
        if CURRENT_EXTRACTORS.get(fact[_EXTRACTOR]) != fact[_EXTRACTOR_VERSION]
    }

    def reproduced(path: str) -> bool:
        """True when a current extractor has reproduced the held text (its origin record)."""
        made = held.held_extractors(path)
        return made is not None and any(CURRENT_EXTRACTORS.get(n) == v for n, v in made[1])

    stale = [
        row
        for row in (rows() if older else ())
        if row.path in older
        and facts[row.path][_ARTEFACT] == row.sha256
        and not reproduced(row.path)
    ]
    refused = (
        list(ingest(held, stale, store, progress=progress, reextract=True).refused) if stale else []
    )
    return _Plan(facts=facts), refused


def _reusable(
    group: Sequence[CatalogueRow],
    plan: _Plan,
    readers: Sequence[Profile],
    indexed: frozenset[str],
    run: MapRun,
    index: SummaryIndex,
) -> bool:
    """True when the family's summary is in the index or its shard: it is then recorded as
    reused (its key kept, its summary spilled when the index lacks it)."""
    if run.held_cache is None or any(plan.held(row) is None for row in group):
        return False
    key = family_cache_key([plan.facts[row.path] for row in group], readers, code_digest())
    if key not in indexed:
        summary = run.held_cache.summary(key)
        if summary is None:
            return False
        index.spill(key, summary)
    name = f"{group[0].jurisdiction}/{group[0].family}"
    run.keys.append(key)
    run.names.append(name)
    run.reused.append(name)
    return True


def map_corpus(
    held: Workspace,
    index: SummaryIndex,
    rows: Callable[[], Iterable[CatalogueRow]],
    store: Path,
    readers: Sequence[Profile],
    run: MapRun,
    *,
    use_cache: bool,
    ocr: OcrOptions,
    shards: Path,
    engine: tuple[int | None, str | None],
    min_cluster_families: int,
    progress: bool,
) -> str:
    """Plan the map, reuse what the index or the shards hold, and run the other families'
    tasks (`_run_tasks`); what the run gathers is in `run`. Returns where they ran.

    `rows()` gives the rows to measure in family order (`workspace.catalogue.family_rows`),
    read as they are taken: each family's task is made as the map asks for the next one, so
    what the map holds grows with a batch of families, never with the corpus. With `workers`,
    the first `min_cluster_families` tasks are made before the map starts, to know whether a
    cluster is worth starting: fewer, and they run in this process."""
    plan, refused = _plan(held, rows, store, progress=progress)
    run.refused.extend(refused)
    indexed = index.keys() if use_cache else frozenset()
    store_path, shard_path, digest = str(store.resolve()), str(shards.resolve()), code_digest()

    def tasks() -> Iterator[FamilyTask]:
        for _, family in itertools.groupby(rows(), key=lambda r: (r.jurisdiction, r.family)):
            group = tuple(family)
            run.refused.extend(filter(None, map(plan.changed, group)))
            if _reusable(group, plan, readers, indexed, run, index):
                continue
            status = {row.path: plan.held(row) for row in group}
            yield family_task(
                group, store_path, status, readers, digest=digest, shards=shard_path, ocr=ocr
            )

    made = tasks()
    workers, scheduler = engine
    first = list(itertools.islice(made, max(1, min_cluster_families if workers else 1)))
    if workers is not None and len(first) < min_cluster_families:
        workers = None  # fewer families than a local cluster is worth starting for
    if not first:
        return "in this process"
    waiting = itertools.chain(first, made)
    del first  # the chain lets go of the first tasks as they are taken
    return _run_tasks(waiting, run, held, index, store, (workers, scheduler), progress)


def _run_tasks(
    tasks: Iterable[FamilyTask],
    run: MapRun,
    held: Workspace,
    index: SummaryIndex,
    store: Path,
    engine: tuple[int | None, str | None],
    progress: bool,
) -> str:
    """Run the tasks, taken as the map asks for them; hold what each extracted and spill its
    summary as it arrives. Returns where they ran."""
    from workbench.measure.cluster import map_tasks

    workers, scheduler = engine

    def hold(result: TaskResult) -> None:
        for version, provenance in result.extracted:
            try:
                if held.add_version(version, dict(provenance)):
                    run.extracted.append(version.version_id)
            except CorpusChanged as exc:
                run.refused.append(
                    Refusal(path=version.version_id, reason="corpus_changed", detail=str(exc))
                )
        run.refused.extend(result.refused)
        for key, version_id, parts in result.parts:  # a worker's reading, kept once (C13)
            keep_parts(held, key, version_id, parts)
        if run.queue is not None and result.measured:
            run.queue.store(
                result.jurisdiction, result.family, result.measured, result.review, result.code
            )
        if result.key is not None and result.summary is not None:
            index.spill(result.key, result.summary)
            run.keys.append(result.key)
            run.names.append(f"{result.jurisdiction}/{result.family}")

    if workers is None and scheduler is None:
        map_tasks(
            tasks,
            hold,
            held_version=held.version,
            # every task reads the one store this run measures
            held_parts=functools.partial(held_parts, held, store=store.resolve()),
            batch=held.batch,  # one commit per batch of families, not one per family
            progress=progress,
        )
        return "in this process"
    from workbench.measure.cluster import dask_client

    with dask_client(workers=workers, scheduler=scheduler) as client:
        if progress:
            link = getattr(client, "dashboard_link", None) if workers is not None else None
            write(
                f"dask: families measured on {client.scheduler_info()['address']}"
                + (f"; dashboard {link}" if link else "")
                + "\n",
                sys.stderr,
            )
        map_tasks(tasks, hold, client=client, batch=held.batch, progress=progress)
    return (
        f"on a local cluster of {workers} workers"
        if workers is not None
        else "on " + str(scheduler)
    )
