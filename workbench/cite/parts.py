"""The verifier's view of a held version's footnotes and tables (C20): `with_parts` hands the
reading the workspace keeps (`workspace.parts.held_parts`) to the rule, read once per workspace
for the versions verified last (`READ_VERSIONS`)."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from workbench.cite.verify import HeldText
from workbench.errors import VersionNotFound
from workbench.text.parts import holds_parts
from workbench.workspace.parts import Parts, held_parts

if TYPE_CHECKING:
    from workbench.workspace import Workspace

# How many versions' parts each open workspace holds once read (the last verified): citations of
# one version verified one at a time read its parts once, not once per citation.
READ_VERSIONS = 16
_READ: WeakKeyDictionary[Workspace, OrderedDict[tuple[str, str | None], Parts]] = (
    WeakKeyDictionary()
)


def with_parts(workspace: Workspace, held: HeldText) -> HeldText:
    """`held` with its version's footnotes and tables (unchanged for a version not held, or whose
    text no longer hashes to its record: those are refused before any part is read).

    Read once per workspace under (version id, recorded text hash): a held version's row never
    changes (the versions table is append-only), so neither do its parts. Nothing read where a
    reader might read something later (its artefact missing from the store) is read again."""
    if held.index is None:
        return held
    read = _READ.setdefault(workspace, OrderedDict())
    key = (held.version_id, held.recorded_sha256)
    parts = read.get(key)
    if parts is None:
        try:
            version = workspace.version(held.version_id)
        except VersionNotFound:
            return held
        parts = held_parts(workspace, version)
        if parts != (None, None) or not holds_parts(version):
            read[key] = parts
            if len(read) > READ_VERSIONS:
                read.popitem(last=False)
    else:
        read.move_to_end(key)
    footnotes, tables = parts
    return replace(held, footnotes=footnotes, tables=tables)
