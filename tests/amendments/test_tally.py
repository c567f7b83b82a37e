"""A reconciliation's tallies (workbench/amendments/tally.py), on the shared corpus's us-dc code.

Each family's tally is the count of its own attributions; tallies add up to the tally of all;
and the shares made from a tally are those `measure.rate` counts from the attributions, change
by change.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from tests.amendments.once import dc_reconciliation
from workbench.amendments.reconcile import ATTRIBUTION_KINDS
from workbench.amendments.tally import Tally, total
from workbench.amendments.whole_code import CodeReconciliation
from workbench.evals.amendments import reconciliation_shares, tally_shares
from workbench.measure import rate
from workbench.models import CatalogueRow
from workbench.workspace import Workspace


@pytest.fixture(scope="module")
def reconciled(workspace: Workspace, catalogue: tuple[CatalogueRow, ...]) -> CodeReconciliation:
    return dc_reconciliation(workspace, catalogue)


def test_each_familys_tally_counts_its_own_attributions(reconciled: CodeReconciliation) -> None:
    attributions = list(reconciled.attributions.values())
    assert attributions and set(reconciled.tallies) == set(reconciled.sections)
    for family, tally in reconciled.tallies.items():
        own = [a for a in attributions if a.family == family]
        kinds = Counter(a.kind for a in own)
        assert tally.changes == len(own)
        assert tally.pairs == len({(a.before, a.after) for a in own})
        assert tally.kinds == tuple(kinds[k] for k in ATTRIBUTION_KINDS)
        assert tally.in_notes == tuple(
            sum(1 for a in own if a.in_notes and a.kind == k) for k in ATTRIBUTION_KINDS
        )
        assert tally.acts == {act for a in own for act in a.acts}
    assert total(reconciled.tallies.values()) == Tally.of(attributions)
    assert sum(t.changes for t in reconciled.tallies.values()) == len(attributions)


def test_shares_from_a_tally_are_those_counted_change_by_change(
    reconciled: CodeReconciliation,
) -> None:
    attributions = list(reconciled.attributions.values())
    shares = tally_shares(total(reconciled.tallies.values()), 3)
    for kind in ATTRIBUTION_KINDS:
        assert shares[kind] == rate(attributions, lambda a, k=kind: a.kind == k).as_json()
    assert shares["changes"] == len(attributions) and shares["not_reflected"] == 3
    assert shares["acts_named"] == sorted({act for a in attributions for act in a.acts})
    assert shares == reconciliation_shares(attributions, 3)


def test_a_tally_round_trips_and_refuses_what_is_not_one(reconciled: CodeReconciliation) -> None:
    whole = total(reconciled.tallies.values())
    assert Tally.from_json(whole.as_json()) == whole
    assert total([]) == Tally() and total([whole, Tally()]) == whole
    for bad in ({"changes": 1}, [1, 2, [0, 0], [0, 0, 0], []], [1, 2, 3]):
        with pytest.raises(ValueError):
            Tally.from_json(bad)


def test_two_attributions_of_one_change_that_differ_are_refused(
    reconciled: CodeReconciliation,
) -> None:
    a = next(iter(reconciled.attributions.values()))
    assert Tally.of([a, a]) == Tally.of([a])
    other = "history" if a.kind != "history" else "unexplained"
    with pytest.raises(ValueError, match=a.change_id):
        Tally.of([a, replace(a, kind=other)])
