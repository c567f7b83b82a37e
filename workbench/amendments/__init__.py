"""Amendment instructions (C19): a law's instructions read from its prose, verified by exact search
against its target's releases, reconciled with the diff, and honest dates (`asof`). The modules
and their order are in docs/amendments.md."""

from __future__ import annotations

from workbench.lazy import lazy_names

# Each verb and the module that holds it.
_HOME = {
    # amendment instructions read, verified and reconciled with the diff
    "LawBook": "workbench.amendments.lawbook",
    "amendment_report": "workbench.amendments.reconcile",
    "check_instruction": "workbench.amendments.enactment",
    "family_amendments": "workbench.amendments.reconcile",
    "law_amendments": "workbench.amendments.reconcile",
    "law_frame": "workbench.amendments.reconcile",
    "read_instructions": "workbench.amendments.instructions",
    # honest dates: the release that stood on a date, the laws it does not yet reflect
    "laws_by_release": "workbench.amendments.asof",
    "release_as_of": "workbench.amendments.asof",
}

__all__ = sorted(_HOME)


__getattr__, __dir__ = lazy_names(globals(), _HOME)
