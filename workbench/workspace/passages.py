"""A held version's passages as derived state (C13): segmented once through a profile, kept in
the workspace under their key (`derived.derived_key`), and read back by every later diff."""

from __future__ import annotations

import json

from workbench.derived import code_digest, derived_key, keep_row
from workbench.models import Passage, Version
from workbench.text.profiles import Profile
from workbench.workspace.held import Workspace

KIND = "passages"
TABLE = "derived_passages"
_SCHEMA = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} "
    "(key TEXT PRIMARY KEY, version_id TEXT NOT NULL, profile TEXT NOT NULL, "
    "passages TEXT NOT NULL)"
)


def passages_key(version: Version, profile: Profile) -> str:
    """The key of a version's passages: its id and text hash (a held version's text and marks
    never change under them), the profile's name and SHA-256, and the code."""
    inputs = [version.version_id, version.text_sha256, profile.name, profile.sha256]
    return derived_key(KIND, inputs, code_digest())


def held_passages(workspace: Workspace, version: Version, profile: Profile) -> tuple[Passage, ...]:
    """`segment_version(version, profile)`, read from what the workspace kept under its key, or
    segmented and kept there. A kept passage holds its offsets, label, kind and path; its text is
    sliced again from the version's, so the two are the same by construction. A workspace nobody
    may write (`Workspace.read_only`) is read, never written: its passages not kept are
    segmented each time. Kept, the version's passages through the profile of that name under
    any other key (other code, an edited profile) go (`derived.keep_row`)."""
    key = passages_key(version, profile)
    if TABLE in workspace.tables():
        rows = workspace.read(f"SELECT passages FROM {TABLE} WHERE key = ?", (key,))
        if rows:
            text = version.text
            return tuple(
                Passage(
                    version_id=version.version_id,
                    ordinal=ordinal,
                    char_start=start,
                    char_end=end,
                    text=text[start:end],
                    section_label=label,
                    kind=kind,
                    path=None if path is None else tuple(path),
                )
                for ordinal, (start, end, label, kind, path) in enumerate(json.loads(rows[0][0]))
            )
    # the segmenter loads only for passages not kept yet
    from workbench.text.segment import segment_version

    passages = segment_version(version, profile)
    if workspace.read_only is not None:
        return passages
    kept = [[p.char_start, p.char_end, p.section_label, p.kind, p.path] for p in passages]
    with workspace.transaction() as conn:
        columns = {row[1] for row in conn.execute(f"PRAGMA table_info({TABLE})")}
        if columns and "profile" not in columns:
            # Kept before rows were named by their profile: every row is under an older code
            # digest, so none could be read again.
            conn.execute(f"DROP TABLE {TABLE}")
        conn.execute(_SCHEMA)
        name = {"version_id": version.version_id, "profile": profile.name}
        keep_row(
            conn, TABLE, ("key", key), name, {"passages": json.dumps(kept, ensure_ascii=False)}
        )
    return passages
