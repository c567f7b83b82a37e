"""The workspace (C2, C18): an embedded SQLite file of immutable versions (`held`), ingest into it
(`holding`), its listings (`listing`) and opening it with the corpus it remembers (`opening`);
everything is imported from here."""

from workbench.workspace.held import Workspace, researcher_profiles
from workbench.workspace.holding import IngestReport, ingest, version_from_row
from workbench.workspace.listing import (
    LISTING_SQL,
    family_listing,
    family_numbering,
    version_listing,
)
from workbench.workspace.opening import open_workspace, workspace_settings

__all__ = [
    "LISTING_SQL",
    "IngestReport",
    "Workspace",
    "family_listing",
    "family_numbering",
    "ingest",
    "open_workspace",
    "researcher_profiles",
    "version_from_row",
    "version_listing",
    "workspace_settings",
]
