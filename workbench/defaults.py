"""Where things are by default: the workspace, the run ledger and the mirror download address.

Kept apart from the stages that use them so the command line can show them in its help without
loading those stages.
"""

from pathlib import Path

# The workspace that holds every ingested version (workspace.Workspace).
DEFAULT_WORKSPACE = Path(".workbench") / "workspace.sqlite"

# The run ledger of note checks (claims.Ledger).
DEFAULT_LEDGER = Path(".workbench") / "ledger.sqlite"

# Where `corpus fetch` downloads a catalogued file from when no local mirror is given: the
# mirror repository's raw file at the pinned commit.
MIRROR_URL = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"
