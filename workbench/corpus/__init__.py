"""The corpus (C2, C3): which documents the workbench trusts, and their exact bytes, from provenance
through admission and the catalogue to the hash-checked store, and a researcher's own files placed
in mirror layout. The verbs load from their modules at first use; the modules and their order are in
docs/corpus.md."""

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
