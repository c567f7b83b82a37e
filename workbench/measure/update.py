"""`update_corpus`: after new files or new commits, one process admits, ingests and measures the
families touched, updates the search index and reconciles the sections touched, reading the
catalogue once (docs/corpus.md, "After new files or commits: update").
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.amendments.style import style_for
from workbench.amendments.whole_code import CodeReconciliation, reconcile_code
from workbench.defaults import MIN_CLUSTER_FAMILIES
from workbench.errors import AmendmentError
from workbench.measure.run import MeasurePlan, MeasureRun, measure_planned
from workbench.search.index import IndexUpdate, update_index
from workbench.workspace import Workspace, researcher_profiles
from workbench.workspace.catalogue import TableRows


@dataclass(frozen=True, slots=True, kw_only=True)
class UpdateRun:
    """What `update_corpus` did: the measure (`MeasureRun`), then, when it admitted anything,
    the search index's update and the reconciliation, or why there was none to make."""

    plan: MeasurePlan  # what was measured, and where (`plan_measure`)
    measured: MeasureRun
    index: IndexUpdate | None = None  # None: nothing admitted, nothing updated
    reconciled: CodeReconciliation | None = None
    not_reconciled: str = ""  # why nothing was reconciled (no law or no Code section held)


def update_corpus(
    plan: MeasurePlan,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    min_cluster_families: int = MIN_CLUSTER_FAMILIES,
    jurisdiction: str = "us-dc",
    progress: bool = False,
) -> UpdateRun:
    """Bring the workspace up to date with its corpus, as `measure`, `search --reindex` and
    `reconcile` would one after the other, in this process.

    `plan` (`plan_measure`) names the corpus, catalogue, store, profiles, workspace and reports
    folder. `measure_corpus` admits (re-reading only the documents whose file stamps moved),
    ingests and measures the families whose inputs changed, on the engine `workers` /
    `scheduler` name; `update_index` adds the versions held since; `reconcile_code` (stored)
    reads again only the laws and sections they touched, looking up in the workspace's catalogue
    table only the rows whose bytes it reads (`TableRows`): the catalogue is read whole once, by
    the admission. A workspace that holds no law or no Code section of `jurisdiction` is not
    reconciled (`not_reconciled` says why); a `jurisdiction` no drafting style names is refused
    (`AmendmentError`) before any work.
    """
    style_for(jurisdiction)
    measured = measure_planned(
        plan,
        workers=workers,
        scheduler=scheduler,
        min_cluster_families=min_cluster_families,
        progress=progress,
    )
    done = UpdateRun(plan=plan, measured=measured)
    if measured.settings is None:  # nothing admitted: nothing was written anywhere
        return done
    with Workspace(plan.workspace) as held:
        index = update_index(held, researcher_profiles(measured.settings), progress=progress)
        try:
            reconciled = reconcile_code(
                held,
                jurisdiction,
                TableRows(held),
                measured.settings.store,
                stored=True,
                progress=progress,
            )
        except AmendmentError as exc:  # no law or no Code section held: nothing to reconcile
            return UpdateRun(
                plan=plan,
                measured=measured,
                index=index,
                not_reconciled=str(exc),
            )
    return UpdateRun(
        plan=plan,
        measured=measured,
        index=index,
        reconciled=reconciled,
    )
