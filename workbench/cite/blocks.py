"""A version as an Anthropic custom-content document (`version_blocks`) and the `BlockMap` that
reads `content_block_location` citations into it (C6): block k's text is the version's text at its
span, and a map whose `blocks_sha256` does not match its content is never read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workbench.cite.w3c import source_iri
from workbench.models import Version, content_id

if TYPE_CHECKING:
    from workbench.workspace import Workspace

BLOCKS_SCHEME = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class BlockMap:
    """Block index to raw span of `version_id`'s text (hashing to `text_sha256`). `blocks_sha256`
    is the map's content id as given; `written` says whether it is the one `map_sha256` computes
    (a map this module wrote, unedited)."""

    version_id: str
    text_sha256: str
    spans: tuple[tuple[int, int], ...]
    blocks_sha256: str

    @property
    def written(self) -> bool:
        return self.blocks_sha256 == map_sha256(self.version_id, self.text_sha256, self.spans)

    def as_json(self) -> dict[str, Any]:
        return {
            "version_id": self.version_id,
            "text_sha256": self.text_sha256,
            "blocks_scheme": BLOCKS_SCHEME,
            "blocks": [list(span) for span in self.spans],
            "blocks_sha256": self.blocks_sha256,
        }


def map_sha256(version_id: str, sha256: str, spans: tuple[tuple[int, int], ...]) -> str:
    """The content id binding a map's spans to its version and text."""
    return content_id([BLOCKS_SCHEME, version_id, sha256, [list(s) for s in spans]])


def block_map_from_json(value: Any) -> BlockMap | str:
    """A map as `BlockMap.as_json` writes it, or one line saying what is wrong with it."""
    if not isinstance(value, dict):
        return "expected a version id (a string) or a blocks map (an object)"
    fields = ("version_id", "text_sha256", "blocks", "blocks_sha256")
    missing = [name for name in fields if name not in value]
    if missing:
        return f"a blocks map needs {', '.join(fields)}; {missing[0]!r} is missing"
    spans = value["blocks"]
    if not isinstance(spans, list) or not all(
        isinstance(s, list) and len(s) == 2 and all(type(x) is int and x >= 0 for x in s)
        for s in spans
    ):
        return "'blocks' must be an array of [start, end] offset pairs"
    if not all(isinstance(value[name], str) for name in fields if name != "blocks"):
        return "'version_id', 'text_sha256' and 'blocks_sha256' must be strings"
    return BlockMap(
        version_id=value["version_id"],
        text_sha256=value["text_sha256"],
        spans=tuple((s[0], s[1]) for s in spans),
        blocks_sha256=value["blocks_sha256"],
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class VersionBlocks:
    """A version's blocks: the texts sent (`texts[k]`) and the map that reads citations of them."""

    texts: tuple[str, ...]
    map: BlockMap

    def document(self) -> dict[str, Any]:
        """The Anthropic custom-content document a Messages API request sends."""
        return {
            "type": "document",
            "source": {
                "type": "content",
                "content": [{"type": "text", "text": text} for text in self.texts],
            },
            "title": self.map.version_id,
            "citations": {"enabled": True},
        }

    def search_result(self) -> dict[str, Any]:
        """The same blocks as an Anthropic search-result block, its `source` the `ni:` IRI of
        the version's text: a `search_result_location` citation names that source."""
        return {
            "type": "search_result",
            "source": source_iri(self.map.text_sha256),
            "title": self.map.version_id,
            "content": [{"type": "text", "text": text} for text in self.texts],
            "citations": {"enabled": True},
        }

    def as_json(self) -> dict[str, Any]:
        """What `workbench blocks --json` prints: the map's fields, the document and the
        search-result block. The whole object is a `--documents` entry `workbench verify`
        reads."""
        return {
            **self.map.as_json(),
            "document": self.document(),
            "search_result": self.search_result(),
        }


def version_blocks(version: Version, workspace: Workspace | None = None) -> VersionBlocks:
    """A held version's passages (through its family's numbering profile) as blocks, one per
    passage in text order, each the version's own text at the passage's offsets. With the
    `workspace` that holds it, the passages are the ones kept there (`held_passages`, segmented
    and kept only the first time, as search and diff read them)."""
    # the segmenter loads when blocks are written, never when a citation's map is read
    from workbench.text.profiles import profile_for
    from workbench.text.segment import segment_version
    from workbench.workspace.passages import held_passages

    if workspace is None:
        passages = segment_version(version)
    else:
        profile = profile_for(version.jurisdiction, version.family)
        passages = held_passages(workspace, version, profile)
    spans = tuple((p.char_start, p.char_end) for p in passages)
    return VersionBlocks(
        texts=tuple(version.text[s:e] for s, e in spans),
        map=BlockMap(
            version_id=version.version_id,
            text_sha256=version.text_sha256,
            spans=spans,
            blocks_sha256=map_sha256(version.version_id, version.text_sha256, spans),
        ),
    )
