"""Amendment instructions (DESIGN.md C19): a law's instructions read from its prose, verified by
exact search against its target's releases, and reconciled with the diff; honest dates (`asof`).

`instructions` reads a law through a drafting style (`style`, data in `drafting/*.toml`; `targets`
composes each target's unit path); `enactment` checks each instruction against the last release
before the law took effect and the first after (`laws` finds both); `reconcile` says which change
each instruction made (`made_by`); `whole_code` reconciles every held section and keeps its work
through `store`, summed by `tally`; `lawbook` reads a law only when a verb needs it. Docs:
docs/amendments.md.
"""

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
