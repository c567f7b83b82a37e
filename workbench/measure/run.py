"""The whole measurement chain `workbench measure` runs, as one library verb.

`measure_corpus` admits a mirror folder or reads the catalogue, ingests, runs the map in-process
(`map_families`) or on Dask, reduces, writes the reports and, if asked, the tables. A family whose
inputs are unchanged reuses its earlier result from the measurement cache (`cache`); the reduce
always runs over every family, so a warm run writes the cold run's bytes. The workspace remembers
the corpus and settings it was measured with (`Workspace.remember`), so every later command on it
reads the same catalogue and profiles; `plan_measure` turns the options `workbench measure` was
given, and what its workspace remembers, into the arguments of `measure_corpus`.
"""

from __future__ import annotations

import os
import shlex
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.corpus import (
    CorpusSettings,
    admit,
    catalogue_folder,
    corpus_home,
    fold_into_catalogue,
    is_project_mirror,
    read_catalogue,
    read_refusals,
)
from workbench.defaults import DEFAULT_CORPUS_DIR, DEFAULT_STORE, DEFAULT_WORKSPACE
from workbench.files import replace_file
from workbench.measure.cache import (
    CACHE_DIR_NAME,
    MeasurementCache,
    family_cache_key,
    held_version_facts,
)
from workbench.measure.family import FamilyMeasurement, measure_family
from workbench.measure.reports import Measurements, induced_profile_file, reduce_families
from workbench.models import (
    CatalogueRow,
    Refusal,
    Version,
    code_digest,
)
from workbench.progress import bar
from workbench.tables import check_format
from workbench.text.profiles import Profile, registry
from workbench.workspace import Workspace, ingest, researcher_profiles, workspace_settings


def map_families(
    versions: Iterable[Version],
    *,
    progress: bool = False,
    profiles: Sequence[Profile] | None = None,
) -> list[FamilyMeasurement]:
    """Map `measure_family` over the families of `versions`, serially, in sorted family order,
    choosing each family's profile from `profiles` (default: the shipped ones)."""
    families: dict[tuple[str, str], list[Version]] = defaultdict(list)
    for version in versions:
        families[(version.jurisdiction, version.family)].append(version)
    out = []
    for key in bar(sorted(families), desc="measure", unit="family", enabled=progress):
        group = sorted(families[key], key=lambda v: v.version_order)
        out.append(measure_family(group, profiles))
    return out


# ---------------------------------------------------------------------------------------------
# The whole chain: admit or read the catalogue, ingest, map, reduce, write


@dataclass(frozen=True, slots=True, kw_only=True)
class MeasureRun:
    """What `measure_corpus` did. `written` is empty when a mirror folder admitted nothing."""

    documents: int  # catalogue rows (or admitted rows) measured
    extracted: tuple[str, ...]  # version ids extracted and held by this run's ingest
    families: tuple[str, ...]  # "jurisdiction/family", sorted
    reused: tuple[str, ...]  # families whose cached measurement was reused
    written: tuple[Path, ...]
    not_ingested: tuple[Refusal, ...]
    admission_refusals: tuple[Refusal, ...]
    results: tuple[FamilyMeasurement, ...] = ()  # the map's output, family by family
    measurements: Measurements | None = None  # the reduce, as written (None: nothing admitted)
    settings: CorpusSettings | None = (
        None  # what the workspace now remembers (None: nothing admitted)
    )


def measure_corpus(
    *,
    out: Path,
    workspace: Path,
    corpus_dir: Path | None = None,
    store: Path | None = None,
    mirror: Path | None = None,
    profile_folders: Sequence[Path] = (),
    workers: int | None = None,
    scheduler: str | None = None,
    cache: Path | None = None,
    use_cache: bool = True,
    export: str | None = None,
    progress: bool = False,
) -> MeasureRun:
    """Re-derive every measurement report into `out`: what `workbench measure` runs.

    1. The documents: with `mirror`, that mirror-layout folder is admitted (`corpus.admit`); if
       it admits nothing, nothing is ingested or written anywhere. Its bytes are read from the
       mirror, and the admission is folded into its catalogue (`corpus.catalogue_folder`:
       `corpus_dir` when named, the project's for the project's mirror, else the workspace's
       folder), as `workbench corpus admit` would keep it. Without it, the catalogue in
       `corpus_dir` (default: the project's) and the refusals beside it, the bytes in `store`
       (default: the project's store).
    2. The profiles: those in each of `profile_folders`, then `MIRROR/profiles/*.toml`, come
       before the shipped ones (`CorpusSettings.profile_folders`, `profiles.registry`).
    3. Ingest into the workspace file `workspace` (idempotent; a version already held under the
       same artefact SHA-256 and current extractor version is not extracted again, C4), which
       remembers these settings (`Workspace.remember`), so that every command on it reads them.
    4. The map, per family with held versions: a family whose `family_cache_key` has an entry in
       the cache (`cache`, default `measure-cache/` beside the workspace file) reuses it; every
       other family is measured (in-process, or on Dask with `workers` / `scheduler`, C13) and
       stored there. `use_cache=False` measures every family and stores nothing.
    5. The reduce (`reduce_families`) and the reports (`html.write_reports`); with `export`
       ("csv" or "parquet") the measurement tables too (`tables.write_measurement_tables`). The
       reports of any corpus but the project's read as the project reads it
       (`CorpusSettings.is_project`) name the command line that re-makes them (`measure_command`).

    The reports are the same bytes whichever families came from the cache and whatever ran the
    map.
    """
    if export is not None:
        check_format(export)  # refused before anything is read or written
    if workers is not None or scheduler is not None:
        from workbench.measure.cluster import check_engine_options

        check_engine_options(workers, scheduler)
    if mirror is not None:
        admission = admit(mirror, progress=progress)
        rows, refusals = admission.rows, admission.refusals
        if not rows:
            return MeasureRun(
                documents=0,
                extracted=(),
                families=(),
                reused=(),
                written=(),
                not_ingested=(),
                admission_refusals=refusals,
            )
        catalogue, store = catalogue_folder(mirror, workspace, corpus_dir), mirror
    else:
        catalogue = corpus_dir if corpus_dir is not None else DEFAULT_CORPUS_DIR
        store = store if store is not None else DEFAULT_STORE
        rows, refusals = read_catalogue(catalogue), read_refusals(catalogue)
    given = CorpusSettings(
        corpus=mirror, catalogue=catalogue, store=store, profiles=tuple(profile_folders)
    )
    own = researcher_profiles(given)  # a bad profile is refused before anything is written
    if mirror is not None:
        fold_into_catalogue(admission, catalogue)
    readers = registry(own)
    folder = cache if cache is not None else workspace.parent / CACHE_DIR_NAME
    held_cache = MeasurementCache(folder=folder) if use_cache else None
    with Workspace(workspace) as held:
        held.remember(given.resolved(), by="measure")
        report = ingest(held, rows, store, progress=progress)
        groups = _held_families(held, {row.path for row in rows})
        keys = {
            key: family_cache_key(facts, readers, code_digest()) for key, facts in groups.items()
        }
        found = {
            key: hit
            for key in groups
            if held_cache is not None and (hit := held_cache.get(keys[key])) is not None
        }
        missing = [key for key in groups if key not in found]
        measured = _measure_missing(
            held, rows, store, missing, readers, workers, scheduler, progress
        )
    if held_cache is not None:
        for key, family in measured.items():
            held_cache.put(keys[key], family)
    results = [found[key] if key in found else measured[key] for key in groups]
    measurements = reduce_families(results, rows, refusals, report.refused)
    from workbench.measure.html import write_reports  # altair loads only when reports are written

    made_by = None if given.is_project() else measure_command(given)
    written = list(write_reports(out, measurements, made_by=made_by).values())
    written += _write_induced_profiles(out, results)
    if export is not None:
        from workbench.measure.tables import write_measurement_tables

        written += write_measurement_tables(out, results, measurements, export)
    return MeasureRun(
        documents=len(rows),
        extracted=report.added,
        families=tuple(f"{j}/{f}" for j, f in groups),
        reused=tuple(f"{j}/{f}" for j, f in groups if (j, f) in found),
        written=tuple(written),
        not_ingested=report.refused,
        admission_refusals=refusals,
        results=tuple(results),
        measurements=measurements,
        settings=given.resolved(),
    )


def measure_command(settings: CorpusSettings) -> str:
    """The `workbench measure` command line that re-makes reports from `settings`, paths as they
    were given: `--corpus DIR` (or `--corpus-dir C --store S`), then `--profiles P` for each of the
    researcher's profile folders. The output folder is not named, so a report's bytes do not
    depend on where it is written."""
    words = ["workbench", "measure"]
    if settings.corpus is not None:
        words += ["--corpus", os.fsdecode(settings.corpus)]
    else:
        words += ["--corpus-dir", os.fsdecode(settings.catalogue)]
        words += ["--store", os.fsdecode(settings.store)]
    for folder in settings.profiles:
        words += ["--profiles", os.fsdecode(folder)]
    return shlex.join(words)


@dataclass(frozen=True, slots=True, kw_only=True)
class MeasurePlan:
    """The arguments of `measure_corpus` for one `workbench measure`, and the lines saying which
    given option replaced a setting the workspace remembers."""

    workspace: Path
    out: Path
    mirror: Path | None
    corpus_dir: Path | None
    store: Path | None
    profile_folders: tuple[Path, ...]
    overrides: tuple[str, ...]


def plan_measure(
    *,
    workspace: Path | None = None,
    out: Path | None = None,
    corpus: Path | None = None,
    corpus_dir: Path | None = None,
    store: Path | None = None,
    profiles: Path | None = None,
) -> MeasurePlan:
    """What `workbench measure` measures, and where, from the options given (None: not given).

    The workspace: `workspace`; else, for a `corpus` other than the project's mirror, the one in
    that corpus's own folder (`corpus_home(corpus)/workspace.sqlite`); else the project's
    (`DEFAULT_WORKSPACE`). What that workspace remembers fills every option not given
    (`workspace_settings`), so measuring a workspace made from a mirror again measures that
    mirror. The reports go to `out`; else to `measurements/` for the project's corpus
    (`CorpusSettings.is_project`), and for any other to `measurements/` in the workspace's folder,
    so a researcher's run never writes the project's tracked reports unless told to.
    """
    if workspace is None:
        workspace = DEFAULT_WORKSPACE
        if corpus is not None and not is_project_mirror(corpus):
            workspace = corpus_home(corpus) / "workspace.sqlite"
    settings, overrides = workspace_settings(
        workspace, corpus=corpus, corpus_dir=corpus_dir, store=store, profiles=profiles
    )
    if out is None:
        out = Path("measurements") if settings.is_project() else workspace.parent / "measurements"
    return MeasurePlan(
        workspace=workspace,
        out=out,
        mirror=corpus if corpus is not None else settings.corpus,
        corpus_dir=corpus_dir if corpus_dir is not None else settings.catalogue,
        store=store if store is not None else settings.store,
        profile_folders=(profiles,) if profiles is not None else settings.profiles,
        overrides=overrides,
    )


def _write_induced_profiles(out: Path, results: Sequence[FamilyMeasurement]) -> list[Path]:
    """The TOML of every profile induced for a family, beside the reports (C15)."""
    written = []
    for family in results:
        if "toml" in family.profile:
            path = out / induced_profile_file(family.jurisdiction, family.family)
            path.parent.mkdir(parents=True, exist_ok=True)
            replace_file(path, family.profile["toml"].encode("utf-8"))
            written.append(path)
    return written


def _held_families(
    held: Workspace, wanted: set[str]
) -> dict[tuple[str, str], list[tuple[Any, ...]]]:
    """(jurisdiction, family) to the facts of its held versions among `wanted` (version ids), in
    sorted (jurisdiction, family) order, versions in version order."""
    groups: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
    for facts in held_version_facts(held):
        if facts[0] in wanted:
            groups.setdefault((facts[1], facts[2]), []).append(facts)
    return dict(sorted(groups.items()))


def _measure_missing(
    held: Workspace,
    rows: Sequence[CatalogueRow],
    store: Path,
    missing: Sequence[tuple[str, str]],
    readers: Sequence[Profile],
    workers: int | None,
    scheduler: str | None,
    progress: bool,
) -> dict[tuple[str, str], FamilyMeasurement]:
    """Measure the `missing` families, in-process or on the cluster the options name."""
    if not missing:
        return {}
    if workers is None and scheduler is None:
        wanted = {row.path for row in rows}
        out = {}
        for jurisdiction, family in bar(missing, desc="measure", unit="family", enabled=progress):
            versions = [
                v
                for v in held.versions(family)
                if v.jurisdiction == jurisdiction and v.version_id in wanted
            ]
            out[(jurisdiction, family)] = measure_family(versions, readers)
        return out
    from workbench.measure.cluster import map_families_on_cluster

    # The workers read and hash-check the bytes themselves; only rows and hashes travel.
    names = set(missing)
    chosen = [row for row in rows if (row.jurisdiction, row.family) in names]
    families = map_families_on_cluster(
        held,
        chosen,
        store,
        workers=workers,
        scheduler=scheduler,
        progress=progress,
        profiles=readers,
    )
    return {(f.jurisdiction, f.family): f for f in families}
