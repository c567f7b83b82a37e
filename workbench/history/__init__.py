"""Quotes through time (DESIGN.md C16): a quote made into a citation of one version, dated across
the versions of its family, and recorded quotes re-searched when a newer version is held.

`dating` holds the one search every verb here uses (the verifier's exact occurrence search, asked
through one adapter that returns raw spans) and places each occurrence in its version: the passage
it starts in and, for a PDF, its pages by the page map's one rule (`models.span_pages`, which the
verifier and the redline ask too). `cite_quote` makes a citation only where the quote occurs
once or the occurrence is named, and has the rule verify it; `quote_history` lists where the quote
stands in every held version. `recheck` searches recorded citations and note quotes in each newer
version: still present, gone or now ambiguous; offsets are never projected through the alignment,
whose passage is only shown beside a gone quote, marked `is_evidence: false`.

Amendment instructions (DESIGN.md C19) are claims about two versions of a code: `amendments`
reads them from a law's prose (never from a publisher's markup) through a drafting style's table
(`style`, data in `drafting/*.toml`; `targets` composes each target's unit path), `enactment`
verifies each by exact search against the last held release before the law took effect and the
first after (`laws` finds the law and the releases), and `reconcile` says which change of the
release pair each instruction accounts for (`made_by`), which a D.C. Act named in the new history
note does (`history`), and which are `unexplained` or `not_reflected`; `lawbook` reads a law
only when a verb needs it (one law, or the laws naming one section). `asof` gives honest dates:
the release of a family that stood on a date, and the held laws it does not yet reflect. This
stage imports only the stages below it (citations, changes, notes, and the records, text and
workspace they stand on), never a later one.

The names below are loaded from their module at first use; none is spelled like a module of this
package (`recheck` is the module, `recheck_quotes` the verb).
"""

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
    # amendment instructions read, verified and reconciled with the diff
    "LawBook": "workbench.history.lawbook",
    "amendment_report": "workbench.history.reconcile",
    "check_instruction": "workbench.history.enactment",
    "family_amendments": "workbench.history.reconcile",
    "law_amendments": "workbench.history.reconcile",
    "law_frame": "workbench.history.reconcile",
    "read_instructions": "workbench.history.amendments",
    # honest dates: the release that stood on a date, the laws it does not yet reflect
    "laws_by_release": "workbench.history.asof",
    "release_as_of": "workbench.history.asof",
}

__all__ = sorted(_HOME)


__getattr__, __dir__ = lazy_names(globals(), _HOME)
