"""A map task (C13): one family extracted where it must be, measured, and its shard written under
the key of what it was computed from; a task is a pure function of its inputs and carries no
text."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.changes.stored import StoredPair, measured_pairs
from workbench.corpus import read_fetched
from workbench.derived import code_digest, derived_key
from workbench.errors import (
    ChecksumMismatch,
    ClusterError,
    ExtractionError,
    FamilyTaskFailed,
    FetchError,
    TextDecodeError,
    UnsafePath,
)
from workbench.measure.cache import MeasurementCache, family_cache_key, version_facts
from workbench.measure.family import FamilyMeasurement, PairItems, measure_family
from workbench.measure.summary import family_summary
from workbench.models import CatalogueRow, Refusal, Version
from workbench.text.normalize import load_array_pass
from workbench.text.ocr import OcrOptions
from workbench.text.parts import (
    holds_parts,
    lazy_headings,
    pdf_parts,
    read_from_glyphs,
    version_parts_and_headings,
)
from workbench.text.profiles import Profile, candidate_profiles, registry, registry_from_sources
from workbench.workspace import Workspace, version_from_row
from workbench.workspace.parts import Kept, Parts, parts_key

if TYPE_CHECKING:
    from workbench.text.pdf import Placed
    from workbench.text.table_cells import Table

HeldVersion = Callable[[str], Version]  # a held version by id, where the workspace is at hand
HeldParts = Callable[[Version], Parts]  # a version's parts as the workspace keeps them
ReadParts = tuple[str, str, Kept]  # parts key, version id, what a task read (heading lines too)


@dataclass(frozen=True, slots=True, kw_only=True)
class FamilyTask:
    """What travels to a worker for one family: rows and hashes, never texts.

    `rows` are in version order; `text_sha256[i]` is the text hash the workspace holds for
    `rows[i]`, None when it holds no such version yet. `store` and `shards` are absolute paths
    every worker must see at the same place; `shards` None writes no shard.
    """

    jurisdiction: str
    family: str
    store: str
    rows: tuple[CatalogueRow, ...]
    text_sha256: tuple[str | None, ...]
    code_digest: str
    profiles: tuple[tuple[str, bytes], ...] = ()  # (origin, file bytes), in registry order
    shards: str | None = None
    ocr: OcrOptions | None = None  # the OCR cache and engine build scanned pages are read with

    @property
    def name(self) -> str:
        return f"{self.jurisdiction}/{self.family}"

    @property
    def key(self) -> str:
        """The Dask key: `measure_family-` and a digest of every input, so equal keys mean equal results."""
        token = derived_key(
            "measure-task",
            [
                self.store,
                [
                    [r.path, r.sha256, r.size, h]
                    for r, h in zip(self.rows, self.text_sha256, strict=True)
                ],
                [[origin, hashlib.sha256(source).hexdigest()] for origin, source in self.profiles],
            ],
            self.code_digest,
        )
        return f"measure_family-{token[:32]}"


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskResult:
    """What a task hands back: the shard key it measured under and the family's summary (None
    when no version could be measured), the versions it extracted that were not held (with each
    one's provenance), and the versions it refused."""

    jurisdiction: str
    family: str
    key: str | None
    summary: Mapping[str, Any] | None
    extracted: tuple[tuple[Version, Mapping[str, Any]], ...]
    refused: tuple[Refusal, ...]
    measured: tuple[str, ...] = ()  # the ids of the versions measured, in version order
    review: tuple[StoredPair, ...] = ()  # each consecutive pair's review items, stored form
    code: str = ""  # the code digest the review items' keys name
    parts: tuple[ReadParts, ...] = ()  # the parts a worker read, for the client to keep


def family_tasks(
    rows: Iterable[CatalogueRow],
    store: Path,
    held: Mapping[str, str | None],
    profiles: Sequence[Profile] | None = None,
    *,
    shards: Path | None = None,
    ocr: OcrOptions | None = None,
) -> tuple[FamilyTask, ...]:
    """One task per family of the rows whose path is a key of `held`, sorted by (jurisdiction,
    family).

    `held` maps a version id to the text SHA-256 the workspace holds for it, or None for a
    version to extract; rows whose path it does not name are left out. Rows are in version order.
    A task carries, as (origin, bytes), the profile of the registry (default: the shipped ones)
    that names its family, or the whole registry when none does, so the worker makes the
    automatic choice itself.
    """
    profiles = registry() if profiles is None else tuple(profiles)
    grouped: dict[tuple[str, str], list[CatalogueRow]] = {}
    for row in rows:
        if row.path in held:
            grouped.setdefault((row.jurisdiction, row.family), []).append(row)
    store_path, digest = str(store.resolve()), code_digest()
    shard_path = str(shards.resolve()) if shards is not None else None
    return tuple(
        family_task(group, store_path, held, profiles, digest=digest, shards=shard_path, ocr=ocr)
        for _, group in sorted(grouped.items())
    )


def family_task(
    rows: Sequence[CatalogueRow],
    store: str,
    held: Mapping[str, str | None],
    profiles: Sequence[Profile],
    *,
    digest: str,
    shards: str | None,
    ocr: OcrOptions | None = None,
) -> FamilyTask:
    """The task of one family's rows (`family_tasks`), its rows put in version order."""
    group = sorted(rows, key=lambda r: r.version_order)
    jurisdiction, family = group[0].jurisdiction, group[0].family
    return FamilyTask(
        jurisdiction=jurisdiction,
        family=family,
        store=store,
        rows=tuple(group),
        text_sha256=tuple(held[r.path] for r in group),
        code_digest=digest,
        profiles=tuple(
            (p.origin, p.source) for p in candidate_profiles(profiles, jurisdiction, family)
        ),
        shards=shards,
        ocr=ocr,
    )


def held_text_hashes(workspace: Workspace) -> dict[str, str | None]:
    """Version id to text SHA-256 of every version the workspace holds (no texts are read)."""
    return dict(workspace.execute("SELECT version_id, text_sha256 FROM versions"))


# ---------------------------------------------------------------------------------------------
# Running one task


def load_family(
    task: FamilyTask, held_version: HeldVersion | None = None
) -> tuple[list[Version], list[tuple[Version, Mapping[str, Any]]], list[Refusal], dict[str, Kept]]:
    """(the family's versions to measure, those of them newly extracted with their provenance,
    the versions refused, the parts of each PDF extracted here by version id), reading the bytes
    as a worker does. A PDF's parts are read off the trace of the extraction that gave its text
    (`text.parts.pdf_parts`, as ingest reads them), so no later pass extracts it again.

    A held version comes from `held_version` when given (in-process: the workspace's own), else
    it is read, hash-checked and extracted again, and FamilyTaskFailed names the family and the
    file when its bytes are missing or wrong or its text hash is not the held one. A version not
    held is read, hash-checked and extracted; one that cannot be is refused (`missing`,
    `sha256_mismatch`, `extraction_failed`, as `workspace.ingest` refuses it).
    """
    from workbench.text.extraction import AwaitingExtractor  # lxml and pypdfium2 load here

    store = Path(task.store)
    versions, refused = [], []
    extracted: list[tuple[Version, Mapping[str, Any]]] = []
    fresh: dict[str, Kept] = {}
    for row, expected in zip(task.rows, task.text_sha256, strict=True):
        if expected is not None and held_version is not None:
            versions.append(held_version(row.path))
            continue
        trace: list[Placed] | None = [] if row.media_type == "application/pdf" else None
        try:
            data = read_fetched(row, store)
            version = version_from_row(row, data, ocr=task.ocr, trace=trace)
        except FileNotFoundError:
            if expected is not None:
                raise FamilyTaskFailed(
                    f"family {task.name}: {row.path}: not in the store {store}"
                ) from None
            refused.append(
                _refusal(row, "missing", f"not held in {store}; run 'workbench corpus fetch'")
            )
            continue
        except (ChecksumMismatch, UnsafePath, FetchError) as exc:
            if expected is not None:
                raise FamilyTaskFailed(f"family {task.name}: {exc}") from exc
            refused.append(_refusal(row, "sha256_mismatch", str(exc)))
            continue
        except AwaitingExtractor:
            continue  # counted by ingest; no extractor reads it yet
        except (ExtractionError, TextDecodeError) as exc:
            if expected is not None:
                raise FamilyTaskFailed(f"family {task.name}: {exc}") from exc
            refused.append(_refusal(row, "extraction_failed", str(exc)))
            continue
        except OSError as exc:
            raise FamilyTaskFailed(
                f"family {task.name}: {row.path}: cannot read it in {store}: {exc.strerror}"
            ) from exc
        if expected is None:
            extracted.append((version, row.provenance))
        elif version.text_sha256 != expected:
            raise FamilyTaskFailed(
                f"family {task.name}: {row.path}: extraction by {version.extractor} "
                f"{version.extractor_version} gives text sha256 {version.text_sha256}; "
                f"the workspace holds {expected}"
            )
        if trace is not None:
            fresh[version.version_id] = pdf_parts(
                data, trace, version.text, glyphs=read_from_glyphs(version)
            )
        versions.append(version)
    return versions, extracted, refused, fresh


@functools.lru_cache(maxsize=64)
def _profiles(sources: tuple[tuple[str, bytes], ...]) -> tuple[Profile, ...]:
    """The profiles of a task, parsed once per process for every task that sends the same."""
    return registry_from_sources(sources)


def _refusal(row: CatalogueRow, reason: str, detail: str) -> Refusal:
    return Refusal(path=row.path, reason=reason, detail=detail)


def run_family_task(
    task: FamilyTask,
    *,
    check_code: bool = True,
    held_version: HeldVersion | None = None,
    held_parts: HeldParts | None = None,
) -> TaskResult:
    """The map step as a worker runs it: check the code digest, load the family and its
    versions' parts (`_read_parts`), measure it, write its shard, and return its `TaskResult`
    (docs/scale-out.md).

    `check_code=False` is for the in-process map, where the client's code is the code that runs;
    so are `held_version` and `held_parts`, which read held versions and their parts from the
    client's workspace (the parts kept there as they are read).
    """
    load_array_pass()  # a measurement normalizes long texts: the array pass pays
    here = code_digest() if check_code else task.code_digest
    if task.code_digest != here:
        raise ClusterError(
            f"family {task.name}: this worker runs workbench code {here[:12]}; the client "
            f"runs {task.code_digest[:12]}; install the same workbench on every worker"
        )
    versions, extracted, refused, fresh = load_family(task, held_version)
    if not versions:
        return TaskResult(
            jurisdiction=task.jurisdiction,
            family=task.family,
            key=None,
            summary=None,
            extracted=(),
            refused=tuple(refused),
        )
    profiles = _profiles(task.profiles)
    review: list[PairItems] = []
    tables, read, settled = _read_parts(task, versions, held_parts, fresh)
    measured = _measure(task, versions, profiles, review, tables)
    key = family_cache_key([version_facts(v) for v in versions], profiles, task.code_digest)
    summary = family_summary(measured)
    if task.shards is not None:
        MeasurementCache(folder=Path(task.shards)).put(key, measured, summary)
    return TaskResult(
        jurisdiction=task.jurisdiction,
        family=task.family,
        key=key,
        summary=summary,
        extracted=tuple(extracted),
        refused=tuple(refused),
        measured=tuple(v.version_id for v in versions),
        # A pair over a reading the store could not give is not the diff `workbench diff`
        # keeps: the queue's refresh diffs the family through it instead.
        review=measured_pairs(
            review, (measured.profile["name"], measured.profile["sha256"]), task.code_digest
        )
        if settled
        else (),
        code=task.code_digest,
        parts=read,
    )


def _read_parts(
    task: FamilyTask,
    versions: Sequence[Version],
    held_parts: HeldParts | None,
    fresh: Mapping[str, Kept],
) -> tuple[dict[str, Sequence[Table] | None], tuple[ReadParts, ...], bool]:
    """Each version's tables by id, the parts read here for the client to keep, and whether
    every version's reading is settled (read, or its media type holds none). A PDF extracted by
    this task has its parts in `fresh`, read off that extraction; any other version's are
    `held_parts`' in-process (the workspace's, kept as read, once for this pass and the
    apparatus report), or in a worker read from the task's store as the library reads them
    (`text.parts.version_parts_and_headings`). What was read here goes back with its key, so
    the client keeps it and no artefact is read twice."""
    store = Path(task.store)
    read: list[ReadParts] = []
    parts: list[tuple[Version, Parts]] = []
    for version in versions:
        if version.version_id not in fresh and held_parts is not None:
            parts.append((version, held_parts(version)))
            continue
        kept = fresh.get(version.version_id) or version_parts_and_headings(version, store)
        if kept[:2] != (None, None):
            read.append((parts_key(version), version.version_id, kept))
        parts.append((version, (kept[0], kept[1])))
    settled = all(p != (None, None) or not holds_parts(v) for v, p in parts)
    return {v.version_id: p[1] for v, p in parts}, tuple(read), settled


def run_family_tasks(tasks: Sequence[FamilyTask], *, check_code: bool = True) -> list[TaskResult]:
    """`run_family_task` over a batch of tasks, in order: one Dask task for several small
    families, so the scheduler's cost per task is paid once for them."""
    return [run_family_task(task, check_code=check_code) for task in tasks]


def _measure(
    task: FamilyTask,
    versions: Sequence[Version],
    profiles: Sequence[Profile],
    review: list[PairItems],
    tables: Mapping[str, Sequence[Table] | None],
) -> FamilyMeasurement:
    store = Path(task.store)
    # A PDF's heading lines are read off its glyphs again, only where the profile is induced.
    headings = lazy_headings(versions, lambda v: version_parts_and_headings(v, store)[2])
    try:
        return measure_family(versions, profiles, tables=tables, review=review, headings=headings)
    except Exception as exc:
        raise FamilyTaskFailed(
            f"family {task.name}: measuring {versions[0].version_id} .. {versions[-1].version_id}: "
            f"{type(exc).__name__}: {' '.join(str(exc).split())}"
        ) from exc
