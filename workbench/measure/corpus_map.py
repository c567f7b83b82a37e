"""The map of `measure_corpus` (C13): which families are reused under their keys, the other
families' tasks run in this process or on Dask, and what each task extracted held as it returns."""

from __future__ import annotations

import functools
import itertools
import sys
from collections.abc import Iterator, Sequence
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
from workbench.models import Refusal
from workbench.terminal import write
from workbench.text.ocr import OcrOptions
from workbench.text.profiles import Profile
from workbench.workspace import Workspace, ingest
from workbench.workspace.catalogue import Admitted, Member
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

    def held(self, path: str) -> str | None:
        """The text SHA-256 held for the version `path` (None: to extract)."""
        fact = self.facts.get(path)
        return None if fact is None else fact[_TEXT]

    def changed(self, path: str, sha256: str) -> Refusal | None:
        """`corpus_changed` when `path` is held with bytes other than `sha256` (the held version
        is measured as held)."""
        fact = self.facts.get(path)
        if fact is None or fact[_ARTEFACT] == sha256:
            return None
        return Refusal(
            path=path,
            reason="corpus_changed",
            detail=f"{path}: held with artefact sha256 {fact[_ARTEFACT]}; new bytes "
            f"hash to {sha256}; a corrected document must be admitted as a new version",
        )


_ARTEFACT, _EXTRACTOR, _EXTRACTOR_VERSION, _TEXT = (
    VERSION_FACTS.index(name)
    for name in ("artefact_sha256", "extractor", "extractor_version", "text_sha256")
)


def _plan(
    held: Workspace, admitted: Admitted, store: Path, *, progress: bool
) -> tuple[_Plan, list[Refusal]]:
    """The held versions' facts, and the refusals of re-extracting those held by an older
    extractor version whose text no current one has reproduced (checked by `ingest` as it checks
    one, before any task runs). Their families are found by a pass over the catalogue's
    `families` only when some held version is of an older extractor version."""
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

    touched = [
        (jurisdiction, family)
        for jurisdiction, family, members in (admitted.families(held) if older else ())
        if any(path in older and facts[path][_ARTEFACT] == sha256 for path, sha256 in members)
    ]
    stale = [
        row
        for jurisdiction, family in touched
        for row in admitted.family_rows(held, jurisdiction, family)
        if row.path in older
        and facts[row.path][_ARTEFACT] == row.sha256
        and not reproduced(row.path)
    ]
    refused = (
        list(ingest(held, stale, store, progress=progress, reextract=True).refused) if stale else []
    )
    return _Plan(facts=facts), refused


def _reusable(
    name: str,
    members: Sequence[Member],
    plan: _Plan,
    readers: Sequence[Profile],
    indexed: frozenset[str],
    run: MapRun,
    index: SummaryIndex,
) -> bool:
    """True when the family's summary is in the index or its shard: it is then recorded as
    reused (its key kept, its summary spilled when the index lacks it)."""
    if run.held_cache is None or any(plan.held(path) is None for path, _ in members):
        return False
    key = family_cache_key([plan.facts[path] for path, _ in members], readers, code_digest())
    if key not in indexed:
        summary = run.held_cache.summary(key)
        if summary is None:
            return False
        index.spill(key, summary)
    run.keys.append(key)
    run.names.append(name)
    run.reused.append(name)
    return True


def map_corpus(
    held: Workspace,
    index: SummaryIndex,
    admitted: Admitted,
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

    The families are the workspace's catalogue table's as `admitted` has them, read a page at a
    time (`workspace.catalogue.families`: each row's path and SHA-256, from the table's index).
    A first pass decides each family from those alone: reused, or to measure (its name kept);
    then only a family to measure has its rows read (`family_rows`) and its task made, as the map
    asks for the next one. So what the map holds grows with a batch of families and the names of
    those to measure, never with the catalogue's rows; and their count is known before the map
    starts (the progress bar's total; with `workers`, fewer than `min_cluster_families` run in
    this process, no cluster started)."""
    plan, refused = _plan(held, admitted, store, progress=progress)
    run.refused.extend(refused)
    indexed = index.keys() if use_cache else frozenset()
    to_measure: list[tuple[str, str]] = []
    for jurisdiction, family, members in admitted.families(held):
        run.refused.extend(filter(None, itertools.starmap(plan.changed, members)))
        name = f"{jurisdiction}/{family}"
        if not _reusable(name, members, plan, readers, indexed, run, index):
            to_measure.append((jurisdiction, family))
    if not to_measure:
        return "in this process"
    workers, scheduler = engine
    if workers is not None and len(to_measure) < min_cluster_families:
        workers = None  # fewer families than a local cluster is worth starting for
    tasks = _Tasks(held, admitted, plan, to_measure, store, readers, shards, ocr)
    return _run_tasks(tasks, run, held, index, store, (workers, scheduler), progress)


@dataclass(frozen=True, slots=True)
class _Tasks:
    """The tasks of the families to measure, each made (its rows read from the table) only as
    the map asks for it; their count is known beforehand."""

    held: Workspace
    admitted: Admitted
    plan: _Plan
    families: Sequence[tuple[str, str]]
    store: Path
    readers: Sequence[Profile]
    shards: Path
    ocr: OcrOptions

    def __len__(self) -> int:
        return len(self.families)

    def __iter__(self) -> Iterator[FamilyTask]:
        store, shards, digest = str(self.store.resolve()), str(self.shards.resolve()), code_digest()
        for jurisdiction, family in self.families:
            rows = self.admitted.family_rows(self.held, jurisdiction, family)
            status = {row.path: self.plan.held(row.path) for row in rows}
            yield family_task(
                rows, store, status, self.readers, digest=digest, shards=shards, ocr=self.ocr
            )


def _run_tasks(
    tasks: _Tasks,
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
