"""The map of `measure_corpus` (C13): which families are reused under their keys, the other
families' tasks run in this process or on Dask, and what each task extracted held as it returns."""

from __future__ import annotations

import functools
import sys
from collections import defaultdict
from collections.abc import Sequence
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
    """The rows of each family (version order, families sorted), and for each row's version
    id the text SHA-256 held for it (None: to extract), with the facts of held versions."""

    families: tuple[tuple[CatalogueRow, ...], ...]
    held: dict[str, str | None]
    facts: dict[str, tuple[Any, ...]]
    refused: tuple[Refusal, ...]


def _plan(
    held: Workspace,
    rows: Sequence[CatalogueRow],
    store: Path,
    readers: Sequence[Profile],
    *,
    progress: bool,
) -> _Plan:
    """Which versions are held, which to extract, and which are refused before any task runs:
    a path held with other bytes (`corpus_changed`, the held version measured as held), a
    version held by an older extractor version whose text no current one has reproduced
    (checked by `ingest` as it checks one)."""
    from workbench.text.extraction import CURRENT_EXTRACTORS

    facts = {f[0]: f for f in held_version_facts(held)}
    artefact, extractor, extractor_version, text = (
        VERSION_FACTS.index(name)
        for name in ("artefact_sha256", "extractor", "extractor_version", "text_sha256")
    )

    def reproduced(path: str) -> bool:
        """True when a current extractor has reproduced the held text (its origin record)."""
        made = held.held_extractors(path)
        return made is not None and any(CURRENT_EXTRACTORS.get(n) == v for n, v in made[1])

    stale = [
        row
        for row in rows
        if row.path in facts
        and facts[row.path][artefact] == row.sha256
        and CURRENT_EXTRACTORS.get(facts[row.path][extractor]) != facts[row.path][extractor_version]
        and not reproduced(row.path)
    ]
    refused = (
        list(ingest(held, stale, store, progress=progress, reextract=True).refused) if stale else []
    )
    status: dict[str, str | None] = {}
    for row in rows:
        fact = facts.get(row.path)
        if fact is None:
            status[row.path] = None
            continue
        status[row.path] = fact[text]
        if fact[artefact] != row.sha256:
            refused.append(
                Refusal(
                    path=row.path,
                    reason="corpus_changed",
                    detail=f"{row.path}: held with artefact sha256 {fact[artefact]}; new bytes "
                    f"hash to {row.sha256}; a corrected document must be admitted as a new version",
                )
            )
    grouped: dict[tuple[str, str], list[CatalogueRow]] = defaultdict(list)
    for row in rows:
        grouped[(row.jurisdiction, row.family)].append(row)
    return _Plan(
        families=tuple(
            tuple(sorted(group, key=lambda r: r.version_order))
            for _, group in sorted(grouped.items())
        ),
        held=status,
        facts=facts,
        refused=tuple(refused),
    )


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
    if run.held_cache is None or any(plan.held[row.path] is None for row in group):
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
    rows: Sequence[CatalogueRow],
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
    tasks (`_run_tasks`); what the run gathers is in `run`. Returns where they ran."""
    plan = _plan(held, rows, store, readers, progress=progress)
    run.refused.extend(plan.refused)
    indexed = index.keys() if use_cache else frozenset()
    tasks = []
    for group in plan.families:
        if not _reusable(group, plan, readers, indexed, run, index):
            tasks.append(
                family_task(
                    group,
                    str(store.resolve()),
                    plan.held,
                    readers,
                    digest=code_digest(),
                    shards=str(shards.resolve()),
                    ocr=ocr,
                )
            )
    workers, scheduler = engine
    if workers is not None and len(tasks) < min_cluster_families:
        workers = None  # fewer families than a local cluster is worth starting for
    return _run_tasks(tasks, run, held, index, workers, scheduler, progress)


def _run_tasks(
    tasks: Sequence[FamilyTask],
    run: MapRun,
    held: Workspace,
    index: SummaryIndex,
    workers: int | None,
    scheduler: str | None,
    progress: bool,
) -> str:
    """Run the tasks; hold what each extracted and spill its summary as it arrives. Returns where
    they ran (no task: "in this process", nothing started)."""
    from workbench.measure.cluster import map_tasks

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

    if not tasks:
        return "in this process"
    if workers is None and scheduler is None:
        map_tasks(
            tasks,
            hold,
            held_version=held.version,
            # every task reads the one store this run measures
            held_parts=functools.partial(held_parts, held, store=Path(tasks[0].store)),
            batch=held.batch,  # one commit per batch of families, not one per family
            progress=progress,
        )
        return "in this process"
    from workbench.measure.cluster import dask_client

    with dask_client(workers=workers, scheduler=scheduler) as client:
        if progress:
            link = getattr(client, "dashboard_link", None) if workers is not None else None
            write(
                f"dask: {len(tasks)} families on {client.scheduler_info()['address']}"
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
