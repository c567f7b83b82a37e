"""The diff a release pair is reconciled over (C7, C19): the one `measure` kept in the workspace
(`changes.kept`) wherever it is the diff `reconcile` would compute, else none (diffed there). The
conditions are in docs/amendments.md ("The diff of a release pair")."""

from __future__ import annotations

from collections.abc import Sequence

from workbench.changes import kept
from workbench.changes.stored import pair_key
from workbench.derived import code_digest
from workbench.models import Change, Version
from workbench.text.parts import holds_parts
from workbench.text.profiles import Profile, named_profile, profile_for
from workbench.workspace import Workspace
from workbench.workspace.parts import kept_parts


class KeptDiffs:
    """The kept diffs of a jurisdiction's release pairs, read for one family's pairs at a time
    (`of`); the workspace's profile registry is read once, at the first family."""

    def __init__(self, workspace: Workspace, jurisdiction: str) -> None:
        self.workspace = workspace
        self.jurisdiction = jurisdiction
        self._registry: tuple[Profile, ...] | None = None
        self._queue: bool | None = None  # whether the workspace holds a review queue

    def of(
        self, family: str, pairs: Sequence[tuple[Version, Version]]
    ) -> dict[tuple[str, str], tuple[Change, ...]]:
        """The kept diff of each pair of `family`'s `pairs` (before, after) that equals what
        `diff_versions(before, after)` gives, by (before id, after id). A pair's is taken only
        where all of these hold: the workspace's registry names the family with the very profile
        `diff_versions` reads it through (`profile_for`: same name and SHA-256), the stored review
        queue holds the pair's items under that profile (`changes.stored.pair_key`: the kept diff
        was made through it, not through a profile a refusal fell back to), the diff is kept under
        the key of the family's versions (`kept.family_pair_keys`), and neither version holds a
        table (its kept parts: `diff_versions` without tables pairs no rows). Any other pair is
        left out."""
        if not pairs or not self._reads_as_measured(family):
            return {}
        ids = [(before.version_id, after.version_id) for before, after in pairs]
        keys = kept.family_pair_keys(self.workspace, (self.jurisdiction, family), ids)
        if keys is None:
            return {}
        stored = kept.read_kept(self.workspace, keys)
        profile = profile_for(self.jurisdiction, family)
        taken = {}
        for (before, after), pair, key in zip(pairs, ids, keys, strict=True):
            if (
                key in stored
                and self._queued(pair_key(before, after, profile, code_digest()))
                and not self._tables(before)
                and not self._tables(after)
            ):
                taken[pair] = stored[key]
        return taken

    def _reads_as_measured(self, family: str) -> bool:
        if self._registry is None:
            self._registry = self.workspace.profile_registry()
        named = named_profile(self._registry, self.jurisdiction, family)
        own = profile_for(self.jurisdiction, family)
        return named is not None and (named.name, named.sha256) == (own.name, own.sha256)

    def _queued(self, key: str) -> bool:
        """Whether the stored review queue holds a pair's items under `key` (whether the
        workspace holds a queue at all is asked once: reconciling writes none)."""
        if self._queue is None:
            self._queue = "review_pairs" in self.workspace.tables()
        return self._queue and bool(
            self.workspace.read("SELECT 1 FROM review_pairs WHERE pair_key = ?", (key,))
        )

    def _tables(self, version: Version) -> bool:
        """Whether `version` may hold a table: its kept parts hold one, or none are kept for a
        version whose media type may hold parts (a kept diff is made only over kept parts)."""
        parts = kept_parts(
            self.workspace, version.version_id, version.artefact_sha256, version.text_sha256
        )
        if parts is None:
            return holds_parts(version)
        return bool(parts[1])
