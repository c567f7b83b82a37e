"""The whole measurement chain `workbench measure` runs, as one library verb (`measure_corpus`, C12,
C13): admit or read the catalogue, map, fold, reduce, write; a family whose inputs are unchanged is
read from the index, and a warm run writes the cold run's bytes."""

from __future__ import annotations

import os
import shlex
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.changes.stored import measured_queue
from workbench.corpus import (
    CorpusSettings,
    admit,
    catalogue_folder,
    corpus_home,
    is_project_mirror,
    read_refusals,
)
from workbench.corpus.catalogue import CATALOGUE_NAME
from workbench.defaults import (
    DEFAULT_CORPUS_DIR,
    DEFAULT_STORE,
    DEFAULT_WORKSPACE,
    MIN_CLUSTER_FAMILIES,
)
from workbench.derived import DerivedState, code_digest, derived_key, outputs_hold, outputs_of
from workbench.files import replace_file_with
from workbench.measure.admitted import keep_stamps, known_files
from workbench.measure.apparatus import apparatus_report
from workbench.measure.cache import (
    CACHE_DIR_NAME,
    MeasurementCache,
)
from workbench.measure.corpus_map import MapRun, map_corpus
from workbench.measure.family import FamilyMeasurement, measure_family
from workbench.measure.index import SummaryIndex
from workbench.measure.reports import (
    Measurements,
    corpus_digest,
    induced_profile_file,
    reduce_summaries,
)
from workbench.measure.tasks import HeldParts
from workbench.models import Refusal, Version, canonical_json
from workbench.progress import bar
from workbench.tables import check_format
from workbench.text.ocr import OcrOptions, default_cache
from workbench.text.profiles import Profile, registry
from workbench.workspace import Workspace, researcher_profiles, workspace_settings
from workbench.workspace.catalogue import (
    Admitted,
    Listed,
    admit_held,
    hold_catalogue,
    read_held_file,
    unheld_catalogue,
)


def map_families(
    versions: Iterable[Version],
    *,
    progress: bool = False,
    profiles: Sequence[Profile] | None = None,
    parts: HeldParts | None = None,
) -> list[FamilyMeasurement]:
    """Map `measure_family` over the families of `versions`, serially, in sorted family order,
    choosing each family's profile from `profiles` (default: the shipped ones) and pairing
    each version's tables row by row as `measure` does, read through `parts` (a workspace's:
    `functools.partial(workspace.parts.held_parts, workspace)`; None: no tables)."""
    families: dict[tuple[str, str], list[Version]] = defaultdict(list)
    for version in versions:
        families[(version.jurisdiction, version.family)].append(version)
    out = []
    for key in bar(sorted(families), desc="measure", unit="family", enabled=progress):
        group = sorted(families[key], key=lambda v: v.version_order)
        tables = {v.version_id: parts(v)[1] for v in group} if parts is not None else None
        out.append(measure_family(group, profiles, tables=tables))
    return out


# ---------------------------------------------------------------------------------------------
# The whole chain: admit or read the catalogue, map (extracting what is new), reduce, write


@dataclass(frozen=True, slots=True, kw_only=True)
class MeasureRun:
    """What `measure_corpus` did. `written` is empty when a mirror folder admitted nothing."""

    documents: int  # catalogue rows (or admitted rows) measured
    extracted: tuple[str, ...]  # version ids extracted and held by this run
    families: tuple[str, ...]  # "jurisdiction/family", sorted
    reused: tuple[str, ...]  # families whose cached measurement was reused
    written: tuple[Path, ...]  # every report and table the run made, in the order made
    not_ingested: tuple[Refusal, ...]
    admission_refusals: tuple[Refusal, ...]
    results: tuple[FamilyMeasurement, ...] = ()  # the map's output, with `keep_results` only
    engine: str = "in this process"  # where the map ran: "in this process", "local cluster", ...
    measurements: Measurements | None = None  # the reduce, as written (None: none made)
    numbering: dict[str, Any] | None = None  # the structure report's `numbering_read`
    settings: CorpusSettings | None = None  # what the workspace now remembers (None: none)
    # Those of `written` whose bytes this run changed; the others held them already, untouched.
    changed: tuple[Path, ...] = ()
    # `reports.corpus_digest` of the catalogue the workspace holds after this run ("": none).
    corpus_digest: str = ""


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
    keep_results: bool = False,
    min_cluster_families: int = MIN_CLUSTER_FAMILIES,
) -> MeasureRun:
    """Re-derive every measurement report into `out`: what `workbench measure` runs.

    1. The documents: with `mirror`, that mirror-layout folder is admitted (`corpus.admit`),
       re-reading only the documents whose file stamps moved since this workspace last
       admitted them (`admitted`); if it admits nothing, nothing is extracted or written
       anywhere. Its bytes are read from the mirror, and the admission is folded into its
       catalogue (`corpus.catalogue_folder`: `corpus_dir` when named, the project's for the
       project's mirror, else the workspace's folder), as `workbench corpus admit` would keep
       it. Without it, the catalogue in `corpus_dir` (default: the project's) and the refusals
       beside it, the bytes in `store` (default: the project's store). The catalogue is read
       through the workspace's table, whose export the file is (`workspace.catalogue`).
    2. The profiles: those in each of `profile_folders`, then `MIRROR/profiles/*.toml`, come
       before the shipped ones (`CorpusSettings.profile_folders`, `profiles.registry`). The
       workspace file `workspace` remembers these settings (`Workspace.remember`), so that every
       command on it reads them.
    3. The map, one task per family (`tasks.run_family_task`), in-process or on Dask with
       `workers` / `scheduler` (C13). A family whose versions are all held and whose
       `family_cache_key` names a summary in the index or a shard in the shard folder (`cache`,
       default `measure-cache/` beside the workspace file) is reused, never read; every other
       family is extracted where it is not held yet, measured, and its shard written. The
       versions a task extracted are held in the workspace `workspace` as it returns (C4:
       a version held under the same artefact SHA-256 by the current extractor is never
       extracted again; one held by an older extractor is checked as `ingest` checks it).
       `use_cache=False` reuses nothing: every family is measured again. With `workers`, the
       local cluster is started only when some task is to run and at least
       `min_cluster_families` families are to be measured; fewer run in this process
       (`MIN_CLUSTER_FAMILIES`: a cluster takes longer to start than they take to measure).
    4. The reduce (`reduce_summaries`) over the summary index, read as the reports are written
       (`html.write_reports`); with `export` ("csv" or "parquet") the measurement tables too,
       read from the shards (`tables.write_measurement_tables_from`). The reports of any corpus
       but the project's read as the project reads it (`CorpusSettings.is_project`) name the
       command line that re-makes them (`measure_command`).
    5. The reports written into `out` are kept as a view (`derived.DerivedState`, kind "reports")
       under the key of what they are made from (`_reports_key`) with each file's SHA-256: a run
       whose key holds, with no version held since and every file as written, reduces and writes
       nothing; with `export` or `keep_results` it reduces for the tables or the results and
       writes no report (with `use_cache=False` every report is derived again).

    The reports are the same bytes whichever families were reused and whatever ran the map. While
    the map runs the client holds a page of the catalogue table's rows and the tasks and results
    of the batches in flight (`workspace.catalogue.family_rows`, `cluster.map_tasks`); after it,
    for the reduce, the few columns of each row the reports read (`Listed`); never the rows whole
    nor the corpus's measurements. `keep_results` also gives back every family's measurement
    and the reports with every section read in (for a notebook on a small corpus).
    """
    if export is not None:
        check_format(export)  # refused before anything is read or written
    if workers is not None or scheduler is not None:
        from workbench.measure.cluster import check_engine_options

        check_engine_options(workers, scheduler)
    if mirror is not None:
        catalogue = catalogue_folder(mirror, workspace, corpus_dir)
        first = not (catalogue / CATALOGUE_NAME).is_file()  # no catalogue yet: none is read
        held_rows = None if first else read_held_file(workspace, catalogue)
        known = known_files(workspace, held_rows or ())
        admission = admit(mirror, progress=progress, known=known)
        refusals = admission.refusals
        if not admission.rows:
            return MeasureRun(
                documents=0,
                extracted=(),
                families=(),
                reused=(),
                written=(),
                not_ingested=(),
                admission_refusals=refusals,
            )
        store = mirror
    else:
        catalogue = corpus_dir if corpus_dir is not None else DEFAULT_CORPUS_DIR
        store = store if store is not None else DEFAULT_STORE
        unheld = unheld_catalogue(workspace, catalogue)
        refusals = read_refusals(catalogue)
    given = CorpusSettings(
        corpus=mirror, catalogue=catalogue, store=store, profiles=tuple(profile_folders)
    )
    own = researcher_profiles(given)  # a bad profile is refused before anything is written
    readers = registry(own)
    folder = cache if cache is not None else workspace.parent / CACHE_DIR_NAME
    shards = MeasurementCache(folder=folder)
    run = MapRun(held_cache=shards if use_cache else None)
    with Workspace(workspace) as held, SummaryIndex(folder) as index:
        held.remember(given.resolved(), by="measure")
        # The rows are the table's from here on, read a page at a time by the map and as the
        # few columns the reports read after it: none is held while the map runs.
        if mirror is not None:  # the rows this run measures are the admission's
            merged = admit_held(held, admission, catalogue, held_rows)[0]  # the table's rows
            admitted = Admitted.of(admission, merged)
            digest = corpus_digest(merged.rows)
            del merged
            keep_stamps(held, admission, known)
            del held_rows, known, admission
        else:
            admitted = Admitted()
            digest = None  # the table's rows are the ones listed for the reports
            if unheld is not None:
                hold_catalogue(held, unheld, catalogue)
            del unheld
        run.queue = measured_queue(held, readers)
        engine = map_corpus(
            held,
            index,
            admitted,
            store,
            readers,
            run,
            use_cache=use_cache,
            ocr=_task_ocr(workspace, on_dask=workers is not None or scheduler is not None),
            shards=folder,
            engine=(workers, scheduler),
            min_cluster_families=min_cluster_families,
            progress=progress,
        )
        index.fold(run.keys)
        apparatus = apparatus_report(held, store)  # C20: keeps each version's parts
        # What the reports read of each row (`Listed`), not the rows.
        rows = admitted.listed(held)
        digest = corpus_digest(rows) if digest is None else digest
        made_by = None if given.is_project() else measure_command(given)
        view = os.fsdecode(out.resolve())
        key = _reports_key(rows, refusals, run, apparatus, made_by)
        kept = DerivedState(held).holds(REPORTS_KIND, view, key) if use_cache else None
    if kept is not None and not outputs_hold(out, kept.value["outputs"]):
        kept = None  # a report was changed or removed: every report is derived again
    if kept is not None and export is None and not keep_results:
        return MeasureRun(
            documents=len(rows),
            extracted=tuple(run.extracted),
            families=tuple(sorted(run.names)),
            reused=tuple(sorted(run.reused)),
            written=tuple(out / name for name in kept.value["written"]),
            not_ingested=tuple(run.refused),
            admission_refusals=refusals,
            numbering=kept.value["numbering_read"],
            settings=given.resolved(),
            engine=engine,
            corpus_digest=digest,
        )
    measurements = reduce_summaries(
        index.summaries,
        rows,
        refusals,
        run.refused,
        by_name=index.by_name,
        summed=index.summed(),
    )
    measurements.structure["apparatus"] = apparatus
    if keep_results:
        measurements = measurements.held()
    if kept is not None:  # the reports are as written: reduced for the tables or results alone
        written = [out / name for name in kept.value["written"]]
        changed: list[Path] = []
    else:
        written, changed = _write_reports(out, measurements, index, made_by)
        with Workspace(workspace) as held:
            names = [path.relative_to(out).as_posix() for path in written]
            value = {
                "outputs": outputs_of(out, names),  # each file's SHA-256, by name
                "written": names,  # in the order they were written
                "numbering_read": _numbering(measurements),
            }
            DerivedState(held).keep(REPORTS_KIND, view, key, value)
    if export is not None:
        from workbench.measure.tables import write_measurement_tables_from

        tables = write_measurement_tables_from(out, shards, run.keys, index, measurements, export)
        written += tables
        changed += tables
    results = tuple(_stored(shards, run.keys)) if keep_results else ()
    return MeasureRun(
        documents=len(rows),
        extracted=tuple(run.extracted),
        families=tuple(sorted(run.names)),
        reused=tuple(sorted(run.reused)),
        written=tuple(written),
        not_ingested=tuple(run.refused),
        admission_refusals=refusals,
        results=tuple(sorted(results, key=lambda f: (f.jurisdiction, f.family))),
        measurements=measurements,
        numbering=_numbering(measurements),
        settings=given.resolved(),
        engine=engine,
        changed=tuple(changed),
        corpus_digest=digest,
    )


REPORTS_KIND = "reports"  # the reports a measure wrote into a folder, in `derived.DerivedState`


def _write_reports(
    out: Path, measurements: Measurements, index: SummaryIndex, made_by: str | None
) -> tuple[list[Path], list[Path]]:
    """Every report and induced profile written into `out` (`html.write_reports`), in the order
    written, and those of them whose bytes changed."""
    from workbench.measure.html import write_reports  # loaded only when reports are written

    made = [(f.path, f.changed) for f in write_reports(out, measurements, made_by=made_by).values()]
    made += [
        written for summary in index.induced() for written in _write_induced_profile(out, summary)
    ]
    return [path for path, _ in made], [path for path, wrote in made if wrote]


def _reports_key(
    rows: Sequence[Listed],
    refusals: Sequence[Refusal],
    run: MapRun,
    apparatus: Mapping[str, Any],
    made_by: str | None,
) -> str:
    """The key of the reports (`derived.derived_key`): what each document's row says of it, the
    admission's and the ingest's refusals, every family's summary key, the apparatus counts,
    the command line the reports name, and the code. The held versions are the watermark's."""
    inputs = {
        "rows": sorted(
            [r.path, r.sha256, r.size, r.media_type, r.jurisdiction, r.family] for r in rows
        ),
        "refusals": sorted(canonical_json(r.as_json()) for r in refusals),
        "not_ingested": sorted(canonical_json(r.as_json()) for r in run.refused),
        "families": sorted(run.keys),
        "apparatus": apparatus,
        "made_by": made_by or "",
    }
    return derived_key(REPORTS_KIND, inputs, code_digest())


def _numbering(measurements: Measurements) -> dict[str, Any]:
    numbering: dict[str, Any] = measurements.structure["numbering_read"]
    return numbering


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


def measure_planned(plan: MeasurePlan, **options: Any) -> MeasureRun:
    """`measure_corpus` of `plan`'s corpus, workspace and reports; `options`, the rest."""
    return measure_corpus(
        out=plan.out,
        workspace=plan.workspace,
        corpus_dir=plan.corpus_dir,
        store=plan.store,
        mirror=plan.mirror,
        profile_folders=plan.profile_folders,
        **options,
    )


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


def _task_ocr(workspace: Path, *, on_dask: bool) -> OcrOptions:
    """How tasks read scanned pages: through the workspace's OCR cache, as `ingest` does; on Dask,
    with the client's engine build required of every worker (`cluster.worker_ocr`)."""
    if on_dask:
        from workbench.measure.cluster import worker_ocr

        return worker_ocr(workspace)
    return OcrOptions(cache=default_cache(workspace))


def _write_induced_profile(out: Path, summary: Mapping[str, Any]) -> list[tuple[Path, bool]]:
    """The TOML of the profile induced for a family, if one was, beside the reports (C15), read
    from its summary, and whether it was written: a file that holds those bytes already is not
    rewritten."""
    if "toml" not in summary["profile"]:
        return []
    path = out / induced_profile_file(summary["jurisdiction"], summary["family"])
    path.parent.mkdir(parents=True, exist_ok=True)
    data = summary["profile"]["toml"].encode("utf-8")
    wrote = replace_file_with(
        path, lambda temporary: temporary.write_bytes(data), keep_if_equal=True
    )
    return [(path, wrote)]


def _stored(shards: MeasurementCache, keys: Sequence[str]) -> Iterator[FamilyMeasurement]:
    for key in keys:
        measured = shards.get(key)
        if measured is not None:
            yield measured
