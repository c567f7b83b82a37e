"""The corpus (C2, C3): which documents the workbench trusts, and their exact bytes, from provenance
through admission and the catalogue to the hash-checked store, and a researcher's own files placed
in mirror layout. The modules and their order are in docs/corpus.md."""

from __future__ import annotations

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
from workbench.corpus.provenance import check_relative_path, parse_provenance, provenance_problems
from workbench.corpus.store import FetchReport, fetch, fetch_corpus, read_fetched, verify_store

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
