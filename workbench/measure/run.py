"""The whole measurement chain `workbench measure` runs, as one library verb.

`measure_corpus` admits a mirror folder or reads the catalogue, ingests, runs the map in-process
(`map_families`) or on Dask, reduces, writes the reports and, if asked, the tables. A family whose
inputs are unchanged reuses its earlier result from the measurement cache (`cache`); the reduce
always runs over every family, so a warm run writes the cold run's bytes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.corpus import admit, read_catalogue, read_refusals
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
from workbench.text.profiles import (
    Profile,
    read_profile_dir,
    registry,
)
from workbench.workspace import Workspace, ingest


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


def measure_corpus(
    *,
    out: Path,
    workspace: Path,
    corpus_dir: Path = Path("corpus"),
    store: Path = Path("corpus/real"),
    mirror: Path | None = None,
    profiles: Sequence[Profile] = (),
    workers: int | None = None,
    scheduler: str | None = None,
    cache: Path | None = None,
    use_cache: bool = True,
    export: str | None = None,
    progress: bool = False,
) -> MeasureRun:
    """Re-derive every measurement report into `out`: what `workbench measure` runs.

    1. The documents: with `mirror`, that mirror-layout folder is admitted (`corpus.admit`; not
       written into any catalogue) and its profiles (`MIRROR/profiles/*.toml`) join `profiles`;
       if it admits nothing, nothing is ingested or written. Without it, the catalogue in
       `corpus_dir` and the refusals recorded beside it.
    2. Ingest into the workspace file `workspace` (idempotent; a version already held under the
       same artefact SHA-256 and current extractor version is not extracted again, C4).
    3. The map, per family with held versions: a family whose `family_cache_key` has an entry in
       the cache (`cache`, default `measure-cache/` beside the workspace file) reuses it; every
       other family is measured (in-process, or on Dask with `workers` / `scheduler`, C13) and
       stored there. `use_cache=False` measures every family and stores nothing.
    4. The reduce (`reduce_families`) and the reports (`html.write_reports`); with `export`
       ("csv" or "parquet") the measurement tables too (`tables.write_measurement_tables`).

    The reports are the same bytes whichever families came from the cache and whatever ran the
    map. The researcher's `profiles` come before the shipped ones (`profiles.registry`).
    """
    if export is not None:
        check_format(export)  # refused before anything is read or written
    if workers is not None or scheduler is not None:
        from workbench.measure.cluster import check_engine_options

        check_engine_options(workers, scheduler)
    own = tuple(profiles)
    if mirror is not None:
        admission = admit(mirror, progress=progress)
        rows, refusals, store = admission.rows, admission.refusals, mirror
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
        if (mirror / "profiles").is_dir():
            own += read_profile_dir(mirror / "profiles")
    else:
        rows, refusals = read_catalogue(corpus_dir), read_refusals(corpus_dir)
    readers = registry(own)
    folder = cache if cache is not None else workspace.parent / CACHE_DIR_NAME
    held_cache = MeasurementCache(folder=folder) if use_cache else None
    with Workspace(workspace) as held:
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

    written = list(write_reports(out, measurements).values())
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
