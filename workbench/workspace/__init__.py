"""The workspace (C2, C18): an embedded SQLite file of immutable versions (`held`), ingest into it
(`holding`), its listings (`listing`) and opening it with the corpus it remembers (`opening`);
everything is imported from here, each name loaded from its module at first use (`workbench.lazy`),
so a command that only reads held versions loads neither ingest nor the listings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.lazy import lazy_names

if TYPE_CHECKING:  # the type checker reads each name where it lives
    from workbench.workspace.held import Workspace, researcher_profiles
    from workbench.workspace.holding import IngestReport, ingest, version_from_row
    from workbench.workspace.listing import (
        LISTING_SQL,
        family_listing,
        family_numbering,
        version_listing,
    )
    from workbench.workspace.opening import open_workspace, workspace_settings

# Each name and the module that holds it, in the order of imports above.
_HOME = {
    "Workspace": "workbench.workspace.held",
    "researcher_profiles": "workbench.workspace.held",
    "IngestReport": "workbench.workspace.holding",
    "ingest": "workbench.workspace.holding",
    "version_from_row": "workbench.workspace.holding",
    "LISTING_SQL": "workbench.workspace.listing",
    "family_listing": "workbench.workspace.listing",
    "family_numbering": "workbench.workspace.listing",
    "version_listing": "workbench.workspace.listing",
    "open_workspace": "workbench.workspace.opening",
    "workspace_settings": "workbench.workspace.opening",
}

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


__getattr__, __dir__ = lazy_names(globals(), _HOME)
