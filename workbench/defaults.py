"""Where things are by default (the project's corpus, the workspace, the run ledger, the mirror
download address) and the confident audit's sample size and confidence, kept apart so the command
line's help can show them without loading a stage."""

from pathlib import Path

# The project's own corpus: the tracked catalogue folder, and the store its bytes are fetched into.
DEFAULT_CORPUS_DIR = Path("corpus")
DEFAULT_STORE = DEFAULT_CORPUS_DIR / "real"

# The project's mirror of the corpus: the folder the Makefile fetches from (its `MIRROR`, relative
# to the repository root; tests/corpus/test_home.py holds the two equal). Only this folder's
# admission is written into the tracked catalogue unless `--corpus-dir` names that folder.
DEFAULT_MIRROR = Path("..") / "shared" / "corpus"

# The workspace that holds every ingested version (workspace.Workspace).
DEFAULT_WORKSPACE = Path(".workbench") / "workspace.sqlite"

# Where any other corpus keeps what the workbench derives from it (its catalogue, its workspace,
# its measurements): a folder of its own in here (corpus.home.corpus_home).
CORPORA_DIR = Path(".workbench") / "corpora"

# The run ledger of note checks (claims.Ledger).
DEFAULT_LEDGER = Path(".workbench") / "ledger.sqlite"

# Where `corpus fetch` downloads a catalogued file from when no local mirror is given: the
# mirror repository's raw file at the pinned commit.
MIRROR_URL = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"

# `workbench measure --workers N` starts its local cluster only when at least this many families
# are to be measured: starting one (worker processes that each import the workbench) takes
# seconds, longer than the in-process map of fewer families (one release's increment of the whole
# D.C. Code). The bytes written are the same either way (C13); 0 always starts it.
MIN_CLUSTER_FAMILIES = 500

# The confident audit (changes/audit.py): pairings drawn per stratum, and the bound's confidence.
DEFAULT_AUDIT_N = 60
DEFAULT_AUDIT_CONFIDENCE = 0.95
