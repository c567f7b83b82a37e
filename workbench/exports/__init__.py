"""Exports (C23 and the Bundles contract of docs/design.md): bundles anyone can re-check offline, a
span's page image, Word redlines read back against the held versions, and a researcher's notebook
copies. The verbs are loaded at first use; the modules and their order are in docs/bundle.md."""

from __future__ import annotations

from workbench.lazy import lazy_names

# Each verb and the module that holds it.
_HOME = {
    "BundleProblem": "workbench.exports.bundle",
    "SpanImage": "workbench.exports.crops",
    "show_span": "workbench.exports.crops",
    "BundleReport": "workbench.exports.bundle",
    "note_quotes": "workbench.exports.bundle",
    "write_bundle": "workbench.exports.bundle",
    "verify_bundle": "workbench.exports.bundle_check",
    "redline_section_docx": "workbench.exports.redline_docx",
    "write_redline_docx": "workbench.exports.redline_docx",
    "read_redline_docx": "workbench.exports.redline_docx_check",
    "verify_redline_docx": "workbench.exports.redline_docx_check",
}

__all__ = sorted(_HOME)

__getattr__, __dir__ = lazy_names(globals(), _HOME)
