"""Quotes through time (C16): a quote made into a citation of one version, dated across the versions
of its family, and recorded quotes re-searched when a newer version is held. Offsets are never
projected through the alignment."""

from __future__ import annotations

from workbench.lazy import lazy_names

# Each verb and the module that holds it.
_HOME = {
    # a quote made into a citation, and dated across a family
    "Occurrence": "workbench.history.dating",
    "QuoteCitation": "workbench.history.dating",
    "QuoteHistory": "workbench.history.dating",
    "annotation_of": "workbench.history.dating",
    "cite_lines": "workbench.history.dating",
    "cite_quote": "workbench.history.dating",
    "history_lines": "workbench.history.dating",
    "quote_history": "workbench.history.dating",
    # recorded quotes rechecked in newer versions
    "RecheckReport": "workbench.history.recheck",
    "ledger_notes": "workbench.history.recheck",
    "recheck_lines": "workbench.history.recheck",
    "recheck_quotes": "workbench.history.recheck",
}

__all__ = sorted(_HOME)


__getattr__, __dir__ = lazy_names(globals(), _HOME)
