"""Text: from an admitted artefact's bytes to the text offsets index, its numbering and its passages.

Extraction comes first and depends on the bytes alone (C4): `extraction.extract` dispatches on the
media type to plain text (`decode_text`), XML (`xml`) or PDF (`pdf`). `normalize` is the one
normalization every comparison applies to both sides, never to stored text (C5). Numbering is
data (C15): `profiles` reads the profile files, `lines` reads a text's lines through a profile
(which open with a label, under the continuation rule), `structure` nests the labels into a tree
or refuses with a reason, `choice` picks the profile that reads a family best, and `segment`
cuts a version into passages with exact offsets, kinds, labels and paths. Imports run one way:
profiles, lines, structure, then choice and segment; extraction never reads a profile.

The verbs are named here and loaded at first use (`workbench.lazy`): extraction loads lxml and
pypdfium2, normalization numpy, and a module that only needs a profile should not pay for them.
A verb is never spelled like a module of this package: `extract` is the verb and `extraction` its
module; `normalize` and `segment` are modules, so their verbs here are `normalized_text` and
`segment_version`.
"""

from __future__ import annotations

from workbench.lazy import lazy_names

# Each verb and the module that holds it, in the order text is made.
_HOME = {
    "extract": "workbench.text.extraction",
    "decode_text": "workbench.text.extraction",
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
