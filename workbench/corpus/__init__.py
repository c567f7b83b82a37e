"""The corpus: which documents the workbench trusts, and their exact bytes (DESIGN.md C3).

A document enters in three steps, each a module: `provenance` reads and checks the record beside
every document (where its bytes come from, their SHA-256 and size); `admission` decides which
documents of a mirror folder may enter and refuses the rest with a reason (`admit`); `catalogue`
is the tracked record of what was admitted and refused, pinned by its own checksum
(`admit_into_catalogue`, `read_catalogue`); `home` says where a corpus's catalogue is kept (the
project's tracked one only for the project's mirror, `admit_corpus`) and what a workspace
remembers of its corpus (`CorpusSettings`, `settle`). `store` then brings the catalogued bytes into the
ignored store folder, hash-checked (`fetch`, `fetch_corpus`), re-verifies them (`verify_store`) and
reads them back checksum first (`read_fetched`). `add` and `manifest` place a researcher's own
files in mirror layout with the provenance admission reads (`add_files`, `add_from_manifest`),
and `git` every version of a git repository's files from its history (`add_from_git`).
Imports run one way: provenance, then admission, then catalogue, then home and store; add, then
manifest and git.
Other stages take the path rule every held document obeys from here too (`check_relative_path`).

The verbs are loaded from their modules at first use, so a stage that reads the catalogue or the
store loads neither the git nor the file-placing modules. The module that fetches is `store`, not
`fetch`, so that `workbench.corpus.fetch` stays the verb (importing a submodule binds its name on
the package).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.lazy import lazy_names

if TYPE_CHECKING:  # the type checker reads each name where it lives
    from workbench.corpus.add import AddReport, DocumentSpec, Placement, add_documents, add_files
    from workbench.corpus.admission import Admission, admit, merge_admission, refusal_is_policy
    from workbench.corpus.catalogue import (
        admit_into_catalogue,
        fold_into_catalogue,
        read_catalogue,
        read_refusals,
        read_refused,
        write_catalogue,
    )
    from workbench.corpus.git import GitAddReport, add_from_git
    from workbench.corpus.home import (
        Admitted,
        CorpusSettings,
        admit_corpus,
        catalogue_folder,
        corpus_home,
        is_project_mirror,
        project_settings,
        settle,
    )
    from workbench.corpus.manifest import add_from_manifest
    from workbench.corpus.provenance import (
        check_relative_path,
        parse_provenance,
        provenance_problems,
    )
    from workbench.corpus.store import FetchReport, fetch, fetch_corpus, read_fetched, verify_store

# Each verb and the module that holds it, in the order a document enters.
_HOME = {
    "AddReport": "workbench.corpus.add",
    "DocumentSpec": "workbench.corpus.add",
    "Placement": "workbench.corpus.add",
    "add_documents": "workbench.corpus.add",
    "add_files": "workbench.corpus.add",
    "Admission": "workbench.corpus.admission",
    "admit": "workbench.corpus.admission",
    "merge_admission": "workbench.corpus.admission",
    "refusal_is_policy": "workbench.corpus.admission",
    "admit_into_catalogue": "workbench.corpus.catalogue",
    "fold_into_catalogue": "workbench.corpus.catalogue",
    "read_catalogue": "workbench.corpus.catalogue",
    "read_refusals": "workbench.corpus.catalogue",
    "read_refused": "workbench.corpus.catalogue",
    "write_catalogue": "workbench.corpus.catalogue",
    "GitAddReport": "workbench.corpus.git",
    "add_from_git": "workbench.corpus.git",
    "Admitted": "workbench.corpus.home",
    "CorpusSettings": "workbench.corpus.home",
    "admit_corpus": "workbench.corpus.home",
    "catalogue_folder": "workbench.corpus.home",
    "corpus_home": "workbench.corpus.home",
    "is_project_mirror": "workbench.corpus.home",
    "project_settings": "workbench.corpus.home",
    "settle": "workbench.corpus.home",
    "add_from_manifest": "workbench.corpus.manifest",
    "check_relative_path": "workbench.corpus.provenance",
    "parse_provenance": "workbench.corpus.provenance",
    "provenance_problems": "workbench.corpus.provenance",
    "FetchReport": "workbench.corpus.store",
    "fetch": "workbench.corpus.store",
    "fetch_corpus": "workbench.corpus.store",
    "read_fetched": "workbench.corpus.store",
    "verify_store": "workbench.corpus.store",
}

__all__ = [
    "AddReport",
    "Admission",
    "Admitted",
    "CorpusSettings",
    "DocumentSpec",
    "FetchReport",
    "GitAddReport",
    "Placement",
    "add_documents",
    "add_files",
    "add_from_git",
    "add_from_manifest",
    "admit",
    "admit_corpus",
    "admit_into_catalogue",
    "catalogue_folder",
    "check_relative_path",
    "corpus_home",
    "fetch",
    "fetch_corpus",
    "fold_into_catalogue",
    "is_project_mirror",
    "merge_admission",
    "parse_provenance",
    "project_settings",
    "provenance_problems",
    "read_catalogue",
    "read_fetched",
    "read_refusals",
    "read_refused",
    "refusal_is_policy",
    "settle",
    "verify_store",
    "write_catalogue",
]


__getattr__, __dir__ = lazy_names(globals(), _HOME)
