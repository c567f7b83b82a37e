"""The workspace: an embedded SQLite file of immutable versions, ingest into it, and opening it with
the corpus it remembers.

- `held`: the file itself (`Workspace`): the append-only versions, their text origins (C18), and
  the settings it remembers in `workspace_meta` (`Workspace.remember`);
- `holding`: extraction of a catalogued artefact (`version_from_row`) and `ingest`;
- `listing`: the rows `workbench families` and `workbench versions` print (`family_listing`,
  `version_listing`, and with `--numbering` `family_numbering`), read from indexes of the versions table (`LISTING_SQL`);
- `opening`: `open_workspace` (every reader: a missing workspace is refused, the remembered settings
  read, a given option winning) and `workspace_settings` (the commands that may make one).

Everything is imported from here (`from workbench.workspace import Workspace`).
"""

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
