"""The amendments package names its verbs (`workbench.amendments`), by the rules of every stage package."""

from __future__ import annotations

from tests.changes.test_package import check_stage_package


def test_the_amendments_package_names_its_verbs() -> None:
    check_stage_package("workbench.amendments")
