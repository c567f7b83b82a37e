"""The search index in the workspace file (C11): its keys (the one rule, `derived.derived_key`, with
the versions' watermark), tables and meta, built whole or updated in place, so an updated index
holds exactly what a build from scratch over the same versions holds."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from typing import Literal

import rapidfuzz
from rapidfuzz import utils

from workbench.database import read_only_connection
from workbench.derived import DerivedState, derived_key
from workbench.errors import WorkspaceError
from workbench.models import Passage, Version
from workbench.progress import bar
from workbench.text.normalize import SCHEME, SCHEME_VERSION, load_array_pass, normalized_text
from workbench.text.profiles import (
    Profile,
    generic_profile,
    named_profile,
    registry,
    registry_digest,
)
from workbench.text.segment import segment_version
from workbench.workspace import Workspace
from workbench.workspace.passages import held_passages

INDEX_FORMAT = 3  # 3: keyed by `derived_key`, with the versions' watermark; 2: text ids from
# the text's SHA-256, `search_versions`, updated in place

IndexState = Literal["fresh", "missing", "stale"]

# CAUTION: a deletion table, character by character, and nothing context-dependent: that is what
# makes the key of a substring a substring of the key. Adding a multi-character rule breaks C11.
KEY_DELETIONS = str.maketrans(dict.fromkeys(" -\u2010\u2011\u00ad", None))

# The rule an index was built with: any of these differing from now means a full build.
_RULE = ("index_format", "normalizer", "rapidfuzz", "profiles")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS search_index_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS search_texts (
    text_id INTEGER PRIMARY KEY, substring_key TEXT NOT NULL, ranking_key TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS search_passages (
    text_id INTEGER NOT NULL,
    version_id TEXT NOT NULL,
    jurisdiction TEXT NOT NULL,
    family TEXT NOT NULL,
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    section_label TEXT,
    PRIMARY KEY (version_id, char_start)
);
CREATE INDEX IF NOT EXISTS search_passages_text ON search_passages (text_id);
CREATE TABLE IF NOT EXISTS search_versions (
    version_id TEXT PRIMARY KEY, text_sha256 TEXT NOT NULL
) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS search_trigram USING fts5(
    substring_key, content='search_texts', content_rowid='text_id', tokenize='trigram'
);
CREATE VIRTUAL TABLE IF NOT EXISTS search_words USING fts5(
    ranking_key, content='search_texts', content_rowid='text_id',
    tokenize='unicode61 remove_diacritics 0'
);
CREATE VIRTUAL TABLE IF NOT EXISTS search_vocab USING fts5vocab(search_words, 'row');
CREATE TABLE IF NOT EXISTS search_word_docs (word TEXT PRIMARY KEY, docs INTEGER NOT NULL)
    WITHOUT ROWID;
"""
# The tables of an index built before `search_versions` (format 1) are dropped by a full build.
_TABLES = (
    "search_index_meta",
    "search_texts",
    "search_passages",
    "search_versions",
    "search_word_docs",
)

TextRow = tuple[int, str, str]  # text_id, substring key, ranking key
PassageRow = tuple[int, str, str, str, int, int, str | None]


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexStatus:
    """Whether the workspace's search index can be used, and why not when it cannot."""

    state: IndexState
    reason: str  # one line; empty when fresh
    texts: int = 0  # distinct normalized passage texts indexed
    passages: int = 0


# ---------------------------------------------------------------------------------------------
# Keys


def substring_key(text: str) -> str:
    """The normalized text without white space and hyphens: the key substring candidates share."""
    return normalized_text(text).translate(KEY_DELETIONS)


def ranking_key(text: str) -> str:
    """The normalized text as rapidfuzz ranks it: `utils.default_process` (lowercase, alnum)."""
    return utils.default_process(normalized_text(text))


def text_id_of(normalized: str) -> int:
    """A normalized text's row id: the first 15 hex digits of its SHA-256 (60 bits, positive), so
    a text has one id in every index that holds it, built or updated."""
    return int(hashlib.sha256(normalized.encode("utf-8", "surrogatepass")).hexdigest()[:15], 16)


def corpus_digest(workspace: Workspace) -> str:
    """The index's key over today's held versions (`derived.derived_key` of the sorted
    [version_id, text_sha256] of held versions and the index's format)."""
    with connect(workspace) as conn:
        return _digest(conn)


def _held(conn: sqlite3.Connection) -> dict[str, str]:
    """version_id -> text_sha256 of every held version, read from the versions table's covering
    index (no text is read)."""
    rows = conn.execute("SELECT version_id, text_sha256 FROM versions INDEXED BY versions_content")
    return {r["version_id"]: r["text_sha256"] for r in rows}


def _digest(conn: sqlite3.Connection, held: dict[str, str] | None = None) -> str:
    held = _held(conn) if held is None else held
    pairs = [[version_id, held[version_id]] for version_id in sorted(held)]
    return derived_key("search-index", pairs, f"search index format {INDEX_FORMAT}")


@contextmanager
def connect(workspace: Workspace) -> Iterator[sqlite3.Connection]:
    """A connection of the index's own: the workspace's is not ours to hold transactions on; on a
    workspace nobody may write, an immutable read-only one, as the workspace's own is."""
    if workspace.read_only is not None:
        opened = read_only_connection(workspace.path, immutable=True)
    else:
        opened = sqlite3.connect(workspace.path, timeout=30.0, isolation_level=None)
    with closing(opened) as conn:
        conn.execute("PRAGMA busy_timeout = 30000")
        conn.row_factory = sqlite3.Row  # rows are read by column name
        yield conn


# ---------------------------------------------------------------------------------------------
# Index lifecycle


def held_rows(conn: sqlite3.Connection) -> tuple[str, str]:
    """The versions table's watermark (`derived.DerivedState.watermark`: its highest row id)
    and row count: equal values mean the same rows, because the table is append-only (its
    triggers refuse UPDATE and DELETE; the count catches a row let go by hand)."""
    count, highest = conn.execute("SELECT COUNT(*), MAX(rowid) FROM versions").fetchone()
    return str(highest or 0), str(count)


def _wanted_meta(
    conn: sqlite3.Connection,
    profiles: Sequence[Profile] = (),
    held: dict[str, str] | None = None,
    built: dict[str, str] | None = None,
) -> dict[str, str]:
    """What an index built now records. With `built` (an index's record) whose `held_rows` are
    today's, its key is today's too, and is not read again from every version."""
    watermark, count = held_rows(conn)
    # CAUTION: sound only while the versions table is append-only; see `held_rows`.
    same = (
        held is None
        and built is not None
        and (built.get("watermark"), built.get("versions")) == (watermark, count)
    )
    return {
        "index_format": str(INDEX_FORMAT),
        "normalizer": f"{SCHEME} v{SCHEME_VERSION}",
        "rapidfuzz": rapidfuzz.__version__,
        "key": built["key"] if same and built else _digest(conn, held),
        "profiles": registry_digest(registry(profiles)),
        "watermark": watermark,
        "versions": count,
    }


def search_profile(version: Version, own: Sequence[Profile] = ()) -> Profile:
    """The profile naming the version's family (a researcher's first), else generic: the one
    `workbench diff` reads a named jurisdiction with."""
    chosen = named_profile(registry(own), version.jurisdiction, version.family)
    return chosen or generic_profile()


def passages_for_search(version: Version, own: Sequence[Profile] = ()) -> tuple[Passage, ...]:
    """A version's passages through `search_profile`, segmented."""
    return segment_version(version, search_profile(version, own))


def _version_rows(
    version: Version,
    profiles: Sequence[Profile],
    texts: dict[int, TextRow],
    workspace: Workspace | None = None,
) -> list[PassageRow]:
    """The passage rows of one version; each text not in `texts` is added to it. With the
    `workspace` that holds it, its passages are the ones kept there (`held_passages`, the same
    passages, segmented and kept only the first time)."""
    if workspace is None:
        passages = passages_for_search(version, profiles)
    else:
        passages = held_passages(workspace, version, search_profile(version, profiles))
    rows: list[PassageRow] = []
    for p in passages:
        normalized = normalized_text(p.text)
        text_id = text_id_of(normalized)
        if text_id not in texts:
            key, words = normalized.translate(KEY_DELETIONS), utils.default_process(normalized)
            texts[text_id] = (text_id, key, words)
        rows.append(
            (
                text_id,
                p.version_id,
                version.jurisdiction,
                version.family,
                p.char_start,
                p.char_end,
                p.section_label,
            )
        )
    return rows


def _versions(
    workspace: Workspace, version_ids: Sequence[str], progress: bool
) -> Iterator[Version]:
    for version_id in bar(
        sorted(version_ids), desc="search index", unit="version", enabled=progress
    ):
        yield workspace.version(version_id)


def build_index(
    workspace: Workspace, profiles: Sequence[Profile] = (), *, progress: bool = False
) -> IndexStatus:
    """Build (or rebuild) the search index over every held version, in one transaction.

    Passages are each held version's through its numbering profile (`search_profile`;
    `profiles` are a researcher's own, which win over the shipped ones), read from what the
    workspace keeps (`workspace.passages.held_passages`; a version not kept yet is segmented and
    kept, all in one commit); identical normalized texts share one indexed row (`text_id_of`)."""
    load_array_pass()  # every held version is normalized: the array pass pays
    texts: dict[int, TextRow] = {}
    passages: list[PassageRow] = []
    with connect(workspace) as conn:
        held = _held(conn)
    with workspace.batch():
        for version in _versions(workspace, list(held), progress):
            passages.extend(_version_rows(version, profiles, texts, workspace))
    with connect(workspace) as conn, _writing(conn):
        for table in ("search_vocab", "search_trigram", "search_words", *_TABLES):
            conn.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.executemany("INSERT INTO search_texts VALUES (?, ?, ?)", sorted(texts.values()))
        conn.executemany("INSERT INTO search_passages VALUES (?, ?, ?, ?, ?, ?, ?)", passages)
        conn.executemany("INSERT INTO search_versions VALUES (?, ?)", sorted(held.items()))
        conn.execute("INSERT INTO search_trigram(search_trigram) VALUES ('rebuild')")
        conn.execute("INSERT INTO search_words(search_words) VALUES ('rebuild')")
        conn.execute("INSERT INTO search_word_docs SELECT term, doc FROM search_vocab")
        return _write_meta(conn, _wanted_meta(conn, profiles, held))


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexUpdate:
    """What `update_index` did: built the index whole (`built`), or added and dropped versions
    (both 0: it was fresh); `status` is the index's afterwards."""

    built: bool
    added: int
    dropped: int
    status: IndexStatus


def update_index(
    workspace: Workspace, profiles: Sequence[Profile] = (), *, progress: bool = False
) -> IndexUpdate:
    """Bring the search index up to date with the held versions, in one transaction (module
    docstring): add the versions it does not hold (or holds with another text hash), drop those
    no longer held. With no index, or one built with another rule, it is built whole
    (`build_index`)."""
    with connect(workspace) as conn:
        conn.executescript(_SCHEMA)
        built = _meta(conn)
        # The key over every held version is made once, here, and is the one the meta records.
        wanted = _wanted_meta(conn, profiles, built=built)
        status = _status(workspace, built, wanted)
        if status.state == "fresh":
            return IndexUpdate(built=False, added=0, dropped=0, status=status)
        held = _held(conn)
        if any(built.get(name) != wanted[name] for name in _RULE):
            status = build_index(workspace, profiles, progress=progress)
            return IndexUpdate(built=True, added=len(held), dropped=0, status=status)
        new, gone = _since(conn, workspace, built, held)
    texts: dict[int, TextRow] = {}
    passages: list[PassageRow] = []
    for version in _versions(workspace, new, progress):
        passages.extend(_version_rows(version, profiles, texts))
    with connect(workspace) as conn, _writing(conn):
        touched: set[int] = set()
        for version_id in gone:
            touched.update(
                r["text_id"]
                for r in conn.execute(
                    "SELECT text_id FROM search_passages WHERE version_id = ?", (version_id,)
                )
            )
            conn.execute("DELETE FROM search_passages WHERE version_id = ?", (version_id,))
            conn.execute("DELETE FROM search_versions WHERE version_id = ?", (version_id,))
        words: set[str] = set()
        for text_id, key, ranking in sorted(texts.values()):
            found = conn.execute(
                "SELECT substring_key, ranking_key FROM search_texts WHERE text_id = ?", (text_id,)
            ).fetchone()
            if found is not None:
                _same_text(workspace, text_id, tuple(found), (key, ranking))
                continue
            conn.execute("INSERT INTO search_texts VALUES (?, ?, ?)", (text_id, key, ranking))
            conn.execute(
                "INSERT INTO search_trigram(rowid, substring_key) VALUES (?, ?)", (text_id, key)
            )
            conn.execute(
                "INSERT INTO search_words(rowid, ranking_key) VALUES (?, ?)", (text_id, ranking)
            )
            words.update(ranking.split())
        conn.executemany("INSERT INTO search_passages VALUES (?, ?, ?, ?, ?, ?, ?)", passages)
        conn.executemany(
            "INSERT INTO search_versions VALUES (?, ?)", sorted((v, held[v]) for v in new)
        )
        for text_id in sorted(touched):
            if conn.execute(
                "SELECT 1 FROM search_passages WHERE text_id = ? LIMIT 1", (text_id,)
            ).fetchone():
                continue
            key, ranking = conn.execute(
                "SELECT substring_key, ranking_key FROM search_texts WHERE text_id = ?", (text_id,)
            ).fetchone()
            conn.execute(
                "INSERT INTO search_trigram(search_trigram, rowid, substring_key) "
                "VALUES ('delete', ?, ?)",
                (text_id, key),
            )
            conn.execute(
                "INSERT INTO search_words(search_words, rowid, ranking_key) VALUES ('delete', ?, ?)",
                (text_id, ranking),
            )
            conn.execute("DELETE FROM search_texts WHERE text_id = ?", (text_id,))
            words.update(ranking.split())
        # The word counts are read back from the word index itself, so they are its tokenizer's.
        for word in sorted(words):
            conn.execute("DELETE FROM search_word_docs WHERE word = ?", (word,))
            conn.execute(
                "INSERT INTO search_word_docs SELECT term, doc FROM search_vocab WHERE term = ?",
                (word,),
            )
        status = _write_meta(conn, wanted)
    return IndexUpdate(built=False, added=len(new), dropped=len(gone), status=status)


def _since(
    conn: sqlite3.Connection, workspace: Workspace, built: dict[str, str], held: dict[str, str]
) -> tuple[list[str], list[str]]:
    """(to add, to drop): the versions admitted since the index's watermark
    (`DerivedState.admitted_since`), none to drop, when the versions it indexed and those
    are every held version; else found by comparing every held version with every indexed
    one (a version held under another text hash, or let go by hand)."""
    (indexed_count,) = conn.execute("SELECT COUNT(*) FROM search_versions").fetchone()
    if built.get("watermark", "").isdigit():
        since = DerivedState(workspace).admitted_since(int(built["watermark"]))
        if indexed_count + len(since) == len(held) and not _indexed(conn, since):
            return sorted(since), []
    indexed = {
        r["version_id"]: r["text_sha256"]
        for r in conn.execute("SELECT version_id, text_sha256 FROM search_versions")
    }
    gone = sorted(v for v, sha in indexed.items() if held.get(v) != sha)
    return sorted(v for v, sha in held.items() if indexed.get(v) != sha), gone


def _indexed(conn: sqlite3.Connection, version_ids: Sequence[str]) -> bool:
    """True when the index holds any of `version_ids`."""
    return any(
        conn.execute("SELECT 1 FROM search_versions WHERE version_id = ?", (v,)).fetchone()
        for v in version_ids
    )


def _same_text(
    workspace: Workspace, text_id: int, held: tuple[str, ...], new: tuple[str, str]
) -> None:
    # CAUTION: two texts with one id would merge their passages' keys; 60 bits make it unheard
    # of, and it is refused rather than assumed away.
    if held != new:
        raise WorkspaceError(
            f"{workspace.path}: search text id {text_id} names two different texts (a 60-bit "
            "SHA-256 prefix shared); the index cannot hold both"
        )


@contextmanager
def _writing(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _has_meta(conn: sqlite3.Connection) -> bool:
    return bool(
        conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'search_index_meta'"
        ).fetchone()
    )


def _meta(conn: sqlite3.Connection) -> dict[str, str]:
    if not _has_meta(conn):
        return {}
    return {r["key"]: r["value"] for r in conn.execute("SELECT key, value FROM search_index_meta")}


def _write_meta(conn: sqlite3.Connection, wanted: dict[str, str]) -> IndexStatus:
    """Record `wanted` (`_wanted_meta`: the rule and key the index now holds) with its counts."""
    (texts,) = conn.execute("SELECT COUNT(*) FROM search_texts").fetchone()
    (passages,) = conn.execute("SELECT COUNT(*) FROM search_passages").fetchone()
    meta = {
        **wanted,
        "texts": str(texts),
        "passages": str(passages),
    }
    conn.execute("DELETE FROM search_index_meta")
    conn.executemany("INSERT INTO search_index_meta VALUES (?, ?)", sorted(meta.items()))
    return IndexStatus(state="fresh", reason="", texts=texts, passages=passages)


def index_status(workspace: Workspace, profiles: Sequence[Profile] = ()) -> IndexStatus:
    """Fresh, missing or stale (with the first field that differs, built value then current)."""
    with connect(workspace) as conn:
        return read_status(conn, workspace, profiles)


def read_status(
    conn: sqlite3.Connection, workspace: Workspace, profiles: Sequence[Profile] = ()
) -> IndexStatus:
    """`index_status` on an open connection."""
    built = _meta(conn)
    return _status(workspace, built, _wanted_meta(conn, profiles, built=built) if built else {})


def _status(workspace: Workspace, held: dict[str, str], wanted: dict[str, str]) -> IndexStatus:
    """Fresh, missing or stale: the index's record `held` against `wanted` (`_wanted_meta`)."""
    if not held:
        return IndexStatus(
            state="missing",
            reason=f"no search index in {workspace.path}; build it with 'workbench search --reindex'",
        )
    for name, now in wanted.items():
        if held.get(name) != now:
            return IndexStatus(
                state="stale",
                reason=f"search index built with {name} {held.get(name)}; now {now}; "
                "rebuild it with 'workbench search --reindex'",
            )
    return IndexStatus(
        state="fresh", reason="", texts=int(held["texts"]), passages=int(held["passages"])
    )
