"""Exports: bundles anyone can re-check offline (the Bundles contract in docs/design.md).

A bundle is a Frictionless Data Package in a zip holding, for every cited version, its catalogue
row and how it was read, the citations as given and as W3C Web Annotations, their verdicts and the
head of the verdict log. `bundle` says what each member holds, derived by one function each, and
writes the zip (`write_bundle`, `note_quotes`); `bundle_check` reads a zip back and re-checks it
with nothing but its bytes and the documents' (`verify_bundle`), through those same functions, so
writing and re-checking cannot drift. `crops` draws a span's page region with its characters'
boxes highlighted (`show_span`: `workbench show`, and a bundle's `--with-crops` images). It lives
here, not in `text`, because it reads the workspace's version and the store's artefact, and
`text` may import neither. `redline_docx` writes a version pair as a Word redline with tracked
changes (`redline_ooxml` its XML) and `redline_docx_check` reads one back against the held
versions (C23). Imports run one way: crops, bundle, then bundle_check; redline_ooxml,
redline_docx, then redline_docx_check.

The verbs are named here and loaded at first use (`workbench.lazy`): a bundle verifies citations,
which loads numpy through the normalizer, and extracts documents (lxml, pypdfium2).
"""

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
