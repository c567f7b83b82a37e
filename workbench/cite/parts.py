"""A held version's footnotes and tables (C20), read from its artefact for the verifier.

The workspace keeps a version's text, not its markup, so a version's footnote reading and tables
are read from the artefact bytes in the corpus store, checked against the version's artefact
SHA-256 first, and kept per process by that hash. No bytes (the store moved) or other bytes give
no reading: then no `footnote_unquoted` caveat can be given, and a cell citation is refused.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.cite.verify import HeldText
from workbench.errors import VersionNotFound, WorkbenchError
from workbench.text.footnotes import FootnoteReading, read_footnotes
from workbench.text.table_cells import Table, read_tables

if TYPE_CHECKING:
    from workbench.models import Version
    from workbench.workspace import Workspace

READ_MEDIA = ("xml", "markdown")  # media types whose markup names footnotes or tables


@lru_cache(maxsize=8)
def _read(
    artefact_sha256: str, path: Path, media_type: str, text: str
) -> tuple[FootnoteReading | None, tuple[Table, ...] | None]:
    try:
        data = path.read_bytes()
    except OSError:
        return None, None
    if hashlib.sha256(data).hexdigest() != artefact_sha256:
        return None, None
    source = str(path)
    try:
        footnotes = read_footnotes(data, source=source, media_type=media_type, text=text)
        tables = read_tables(data, source=source, text=text) if "xml" in media_type else ()
    except WorkbenchError:  # the extractor already read these bytes; a reader's refusal gives none
        return None, None
    return footnotes, tables


def version_parts(
    version: Version, store: Path
) -> tuple[FootnoteReading | None, tuple[Table, ...] | None]:
    """The footnote reading and tables of `version`, read from `store / version_id` (None, None
    for a media type that carries no such markup, or bytes that are missing or not the
    version's)."""
    if not any(kind in version.media_type for kind in READ_MEDIA):
        return None, None
    return _read(
        version.artefact_sha256, store / version.version_id, version.media_type, version.text
    )


def with_parts(workspace: Workspace, held: HeldText) -> HeldText:
    """`held` with its version's footnotes and tables (unchanged for a version not held, or whose
    text no longer hashes to its record: those are refused before any part is read)."""
    if held.index is None:
        return held
    try:
        version = workspace.version(held.version_id)
    except VersionNotFound:
        return held
    footnotes, tables = version_parts(version, workspace.settings.store)
    return replace(held, footnotes=footnotes, tables=tables)
