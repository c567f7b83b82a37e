"""Measurements re-derived from the corpus, written deterministically to `measurements/` (C12).

Corpus-wide work is a map over document families and a deterministic reduce (C13): for each family
`measure_family` parses every version's structure and diffs every consecutive version pair; it
returns one evidence row per modified pairing and one per version parse. `reduce_families`
reduces those rows, sorted, into the reports. Nothing depends on the order families arrive in.

The package holds the map (`family`: `measure_family`), the reduce (`reports`: `reduce_families`
and `rate`), the cache (`cache`: a family's measurement as JSON, kept under exactly its inputs)
and the whole chain (`run`: `measure_corpus`, and `map_families`, the map run serially). Every
public name is importable from `workbench.measure` itself.
"""

from __future__ import annotations

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
from workbench.measure.reports import (
    DIGESTS_NAME,
    ESCALATION_NAME,
    EXAMPLES_PER_CAUSE,
    KNOWN_TARGET,
    MIN_SUBJECTS,
    STRUCTURE_NAME,
    WIRING_MIN_KNOWN_SHARE,
    Evidence,
    Measurements,
    Rate,
    corpus_digest,
    corpus_digests,
    rate,
    reduce_families,
    report_bytes,
    wiring_decision,
)
from workbench.measure.run import (
    MeasureRun,
    map_families,
    measure_corpus,
)

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
    "VERSION_FACTS",
    "WIRING_MIN_KNOWN_SHARE",
    "CautionRow",
    "Evidence",
    "FamilyMeasurement",
    "MeasureRun",
    "MeasurementCache",
    "Measurements",
    "PairingRow",
    "ParseRow",
    "PassageRow",
    "Rate",
    "caution_cause",
    "corpus_digest",
    "corpus_digests",
    "family_cache_key",
    "family_measurement_as_json",
    "family_measurement_from_json",
    "held_version_facts",
    "map_families",
    "measure_corpus",
    "measure_family",
    "rate",
    "reduce_families",
    "report_bytes",
    "row_as_json",
    "version_facts",
    "wiring_decision",
]
