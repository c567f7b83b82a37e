"""The reduce's per-family rows (`measure.reports`): the structure page's profile table, made
from one read of each family's profile and passages, says what the structure report says of
that family, on the default workspace's real families (`family_measurements`), read from a
summary index as `measure` reads them."""

from __future__ import annotations

from pathlib import Path

from workbench.measure import FamilyMeasurement
from workbench.measure.index import SummaryIndex
from workbench.measure.reports import reduce_summaries
from workbench.measure.summary import family_summary
from workbench.models import CatalogueRow


def test_the_profile_table_says_what_the_structure_report_says_of_each_family(
    family_measurements: list[FamilyMeasurement],
    catalogue: tuple[CatalogueRow, ...],
    tmp_path: Path,
) -> None:
    families = family_measurements
    with SummaryIndex(tmp_path) as index:
        for number, family in enumerate(families):
            index.spill(f"k{number}", family_summary(family))
        index.fold([f"k{number}" for number in range(len(families))])
        m = reduce_summaries(index.summaries, catalogue, by_name=index.by_name)
        structure = m.structure
        table = list(m.profile_table.items())
        profiles = list(structure["profiles_used"].items())
        passages = list(structure["passages"]["families"].items())
    assert len(table) == len(families) > 1
    assert [name for name, _ in table] == [name for name, _ in profiles]
    assert table == [
        (
            name,
            [
                *(e[k] for k in ("name", "chosen", "reading", "origin", "sha256")),
                p["own_label"]["rate"],
            ],
        )
        for (name, e), (_, p) in zip(profiles, passages, strict=True)
    ]
    assert m.held().profile_table == dict(table)
