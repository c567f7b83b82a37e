"""Measurements re-derived from the corpus and written deterministically to `measurements/` (C12),
as a map over document families and a reduce that does not depend on their order (C13). Every public
name is loaded from its module at first use; the modules are in docs/measurements.md."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.lazy import lazy_names

if TYPE_CHECKING:  # the names as the type checker sees them; at run time `_HOME` loads them
    from workbench.measure.cache import (
        CACHE_DIR_NAME,
        CACHE_SCHEME,
        VERSION_FACTS,
        MeasurementCache,
        family_cache_key,
        family_measurement_as_json,
        family_measurement_from_json,
        held_version_facts,
        row_as_json,
        version_facts,
    )
    from workbench.measure.charts import RenderedChart, chart_svg, render_chart
    from workbench.measure.cluster import map_tasks
    from workbench.measure.family import (
        CAP_CAUSES,
        CAUTION_CAUSES,
        EXCLUDED_KINDS,
        CautionRow,
        FamilyMeasurement,
        PairingRow,
        ParseRow,
        PassageRow,
        caution_cause,
        measure_family,
    )
    from workbench.measure.html import write_reports
    from workbench.measure.index import SummaryIndex
    from workbench.measure.reports import (
        DIGESTS_NAME,
        ESCALATION_NAME,
        STRUCTURE_NAME,
        WIRING_MIN_KNOWN_SHARE,
        Evidence,
        Measurements,
        Rate,
        Section,
        corpus_digest,
        corpus_digests,
        rate,
        reduce_families,
        reduce_summaries,
        report_bytes,
        wiring_decision,
    )
    from workbench.measure.run import (
        MeasurePlan,
        MeasureRun,
        map_families,
        measure_command,
        measure_corpus,
        measure_planned,
        plan_measure,
    )
    from workbench.measure.summary import (
        EXAMPLES_PER_CAUSE,
        KNOWN_TARGET,
        MIN_SUBJECTS,
        family_summary,
    )
    from workbench.measure.tables import (
        TABLE_KINDS,
        measurement_tables,
        write_measurement_tables,
    )
    from workbench.measure.tasks import FamilyTask, TaskResult, family_tasks, run_family_task
    from workbench.measure.update import UpdateRun, update_corpus

# Each public name and the module that holds it.
_HOME = {
    **dict.fromkeys(
        (
            "CAP_CAUSES",
            "CAUTION_CAUSES",
            "EXCLUDED_KINDS",
            "CautionRow",
            "FamilyMeasurement",
            "PairingRow",
            "ParseRow",
            "PassageRow",
            "caution_cause",
            "measure_family",
        ),
        "workbench.measure.family",
    ),
    **dict.fromkeys(
        (
            "DIGESTS_NAME",
            "ESCALATION_NAME",
            "STRUCTURE_NAME",
            "WIRING_MIN_KNOWN_SHARE",
            "Evidence",
            "Measurements",
            "Rate",
            "corpus_digest",
            "corpus_digests",
            "Section",
            "rate",
            "reduce_families",
            "reduce_summaries",
            "report_bytes",
            "wiring_decision",
        ),
        "workbench.measure.reports",
    ),
    **dict.fromkeys(
        ("EXAMPLES_PER_CAUSE", "KNOWN_TARGET", "MIN_SUBJECTS", "family_summary"),
        "workbench.measure.summary",
    ),
    **dict.fromkeys(
        (
            "CACHE_DIR_NAME",
            "CACHE_SCHEME",
            "VERSION_FACTS",
            "MeasurementCache",
            "family_cache_key",
            "family_measurement_as_json",
            "family_measurement_from_json",
            "held_version_facts",
            "row_as_json",
            "version_facts",
        ),
        "workbench.measure.cache",
    ),
    **dict.fromkeys(("RenderedChart", "chart_svg", "render_chart"), "workbench.measure.charts"),
    "write_reports": "workbench.measure.html",
    **dict.fromkeys(
        ("TABLE_KINDS", "measurement_tables", "write_measurement_tables"),
        "workbench.measure.tables",
    ),
    "map_tasks": "workbench.measure.cluster",  # needs dask for workers
    "SummaryIndex": "workbench.measure.index",  # needs polars
    **dict.fromkeys(
        ("FamilyTask", "TaskResult", "family_tasks", "run_family_task"), "workbench.measure.tasks"
    ),
    **dict.fromkeys(
        (
            "MeasurePlan",
            "MeasureRun",
            "map_families",
            "measure_command",
            "measure_corpus",
            "measure_planned",
            "plan_measure",
        ),
        "workbench.measure.run",
    ),
    **dict.fromkeys(("UpdateRun", "update_corpus"), "workbench.measure.update"),
}

__all__ = [
    "CACHE_DIR_NAME",
    "CACHE_SCHEME",
    "CAP_CAUSES",
    "CAUTION_CAUSES",
    "DIGESTS_NAME",
    "ESCALATION_NAME",
    "EXAMPLES_PER_CAUSE",
    "EXCLUDED_KINDS",
    "KNOWN_TARGET",
    "MIN_SUBJECTS",
    "STRUCTURE_NAME",
    "TABLE_KINDS",
    "VERSION_FACTS",
    "WIRING_MIN_KNOWN_SHARE",
    "CautionRow",
    "Evidence",
    "FamilyMeasurement",
    "FamilyTask",
    "MeasurePlan",
    "MeasureRun",
    "MeasurementCache",
    "Measurements",
    "PairingRow",
    "ParseRow",
    "PassageRow",
    "Rate",
    "RenderedChart",
    "Section",
    "SummaryIndex",
    "TaskResult",
    "UpdateRun",
    "caution_cause",
    "chart_svg",
    "corpus_digest",
    "corpus_digests",
    "family_cache_key",
    "family_measurement_as_json",
    "family_measurement_from_json",
    "family_summary",
    "family_tasks",
    "held_version_facts",
    "map_families",
    "map_tasks",
    "measure_command",
    "measure_corpus",
    "measure_family",
    "measure_planned",
    "measurement_tables",
    "plan_measure",
    "rate",
    "reduce_families",
    "reduce_summaries",
    "render_chart",
    "report_bytes",
    "row_as_json",
    "run_family_task",
    "update_corpus",
    "version_facts",
    "wiring_decision",
    "write_measurement_tables",
    "write_reports",
]

__getattr__, __dir__ = lazy_names(globals(), _HOME)
