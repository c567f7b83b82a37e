"""The verifier's view of a held version's footnotes and tables (C20): `with_parts` hands the
reading the workspace keeps (`workspace.parts.held_parts`) to the rule."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from workbench.cite.verify import HeldText
from workbench.errors import VersionNotFound
from workbench.workspace.parts import held_parts

if TYPE_CHECKING:
    from workbench.workspace import Workspace


def with_parts(workspace: Workspace, held: HeldText) -> HeldText:
    """`held` with its version's footnotes and tables (unchanged for a version not held, or whose
    text no longer hashes to its record: those are refused before any part is read)."""
    if held.index is None:
        return held
    try:
        version = workspace.version(held.version_id)
    except VersionNotFound:
        return held
    footnotes, tables = held_parts(workspace, version)
    return replace(held, footnotes=footnotes, tables=tables)
