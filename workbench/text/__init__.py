"""Text (C4, C5, C15): from an admitted artefact's bytes to the text offsets index, its numbering
and its passages. The verbs are named here and loaded at first use; the modules and their import
order are in docs/text-and-offsets.md."""

from __future__ import annotations

from workbench.lazy import lazy_names

# Each verb and the module that holds it, in the order text is made.
_HOME = {
    "extract": "workbench.text.extraction",
    "decode_text": "workbench.text.decode",
    "extract_pdf": "workbench.text.pdf",
    "normalized_text": "workbench.text.normalize",
    "Profile": "workbench.text.profiles",
    "load_profile": "workbench.text.profiles",
    "read_profile_dir": "workbench.text.profiles",
    "registry": "workbench.text.profiles",
    "named_profile": "workbench.text.profiles",
    "profile_for": "workbench.text.profiles",
    "read_lines": "workbench.text.lines",
    "StructureParse": "workbench.text.structure",
    "parse_structure": "workbench.text.structure",
    "Choice": "workbench.text.choice",
    "choose_profile": "workbench.text.choice",
    "segment_version": "workbench.text.segment",
}

__all__ = sorted(_HOME)

__getattr__, __dir__ = lazy_names(globals(), _HOME)
