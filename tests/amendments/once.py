"""The us-dc amendment report and reconciliation of the default workspace, made once per process.

Several modules here and in tests/evals read the very same `amendment_report` or `reconcile_code`
of the session's default workspace (no test changes its us-dc versions); each asks here, and the
first to ask in a pytest process makes it. The records are frozen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from tests.conftest import STORE
from workbench.amendments.reconcile import AmendmentReport, amendment_report
from workbench.amendments.whole_code import CodeReconciliation, reconcile_code
from workbench.models import CatalogueRow
from workbench.workspace import Workspace

T = TypeVar("T")

# (what makes it, workspace, catalogue, what it made): the objects are compared by `is`
_MADE: list[tuple[object, Workspace, tuple[CatalogueRow, ...], Any]] = []


def _once(
    make: Callable[[Workspace, str, tuple[CatalogueRow, ...], Any], T],
    workspace: Workspace,
    catalogue: tuple[CatalogueRow, ...],
) -> T:
    for maker, held, rows, made in _MADE:
        if maker is make and held is workspace and rows is catalogue:
            return made  # type: ignore[no-any-return]
    made = make(workspace, "us-dc", catalogue, STORE)
    _MADE.append((make, workspace, catalogue, made))
    return made


def dc_report(workspace: Workspace, catalogue: tuple[CatalogueRow, ...]) -> AmendmentReport:
    """`amendment_report(workspace, "us-dc", catalogue, STORE)`, made once for these objects."""
    return _once(amendment_report, workspace, catalogue)


def dc_reconciliation(
    workspace: Workspace, catalogue: tuple[CatalogueRow, ...]
) -> CodeReconciliation:
    """`reconcile_code(workspace, "us-dc", catalogue, STORE)`, made once for these objects."""
    return _once(reconcile_code, workspace, catalogue)
