"""Candidate passage search (C11): rapidfuzz suggests, the verifier decides. `find_candidates`
returns every passage where a quote would verify, whatever `k`, then the best ranked others, and
none of it is evidence; the keys, scores and order are in docs/search.md."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from rapidfuzz import fuzz, utils

from workbench.errors import FamilyNotFound, JurisdictionNotFound, SearchQueryError
from workbench.search.index import (
    INDEX_FORMAT,
    KEY_DELETIONS,
    IndexState,
    IndexStatus,
    IndexUpdate,
    build_index,
    connect,
    corpus_digest,
    index_status,
    passages_for_search,
    ranking_key,
    read_status,
    search_profile,
    substring_key,
    update_index,
)
from workbench.text.normalize import normalized_text
from workbench.text.profiles import Profile
from workbench.workspace import Workspace
from workbench.workspace.passages import held_passages

__all__ = [
    "INDEX_FORMAT",
    "Candidate",
    "IndexState",
    "IndexStatus",
    "IndexUpdate",
    "SearchResult",
    "SearchScope",
    "build_index",
    "candidate_as_json",
    "corpus_digest",
    "find_candidates",
    "index_status",
    "passages_for_search",
    "ranking_key",
    "score",
    "substring_key",
    "update_index",
]

MAX_QUERY_CHARS = 10_000
FUZZY_POOL = 200  # distinct passage texts the word prefilter hands to rapidfuzz
RARE_WORD_SHARE = 0.005  # words in more than this share of texts are left out of the prefilter...
MIN_PREFILTER_WORDS = 3  # ...unless fewer than this many rarer words remain
TRIGRAM_WINDOW = 8  # a key longer than three windows is prefiltered by three of them

AnswerPath = Literal["index", "scan"]
Match = Literal["substring", "ranked"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchScope:
    """Where to search: a workspace, optionally narrowed to one jurisdiction and/or family."""

    workspace: Workspace
    jurisdiction: str | None = None
    family: str | None = None
    profiles: tuple[Profile, ...] = ()  # a researcher's own numbering profiles (win over shipped)


@dataclass(frozen=True, slots=True, kw_only=True)
class Candidate:
    """A passage worth trying a quote against. Never evidence: only the verifier passes a quote."""

    version_id: str
    char_start: int
    char_end: int
    section_label: str | None
    score: float  # 0-100; 100 for a substring candidate
    match: Match  # "substring": the query's key occurs in the passage's key; else "ranked"
    path: AnswerPath  # "index" or "scan" (the full scan used when the index is missing or stale)
    is_evidence: Literal[False] = False


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchResult:
    """The candidates for one query and how they were found."""

    query: str
    candidates: tuple[Candidate, ...]
    path: AnswerPath
    index: IndexStatus
    note: str  # one line for a person: which path answered, and anything left out

    def as_json(self, passages: Sequence[str]) -> dict[str, Any]:
        """What `workbench search --json` prints; `passages` are the candidates' texts, in order."""
        return {
            "query": self.query,
            "path": self.path,
            "index": {"state": self.index.state, "reason": self.index.reason},
            "note": self.note,
            "candidates": [
                candidate_as_json(c, text)
                for c, text in zip(self.candidates, passages, strict=True)
            ],
        }


# ---------------------------------------------------------------------------------------------
# Keys and score


def score(query_key: str, passage_key: str) -> float:
    """Rank score of a passage for a query, both ranking keys: docs/search.md."""
    if len(passage_key) >= len(query_key):
        return fuzz.token_set_ratio(query_key, passage_key, processor=None)
    return fuzz.ratio(query_key, passage_key, processor=None)


def _query_keys(query: str) -> tuple[str, str]:
    if not query.strip():
        raise SearchQueryError("query: empty; expected some text to search for")
    if len(query) > MAX_QUERY_CHARS:
        raise SearchQueryError(
            f"query: {len(query)} characters; at most {MAX_QUERY_CHARS} are searched (quote less)"
        )
    key = substring_key(query)
    if not key:
        raise SearchQueryError(
            f"query {query[:40]!r}: nothing left to search after normalization "
            "(only white space and hyphens)"
        )
    return key, ranking_key(query)


# ---------------------------------------------------------------------------------------------
# Search


def _scope_sql(scope: SearchScope, alias: str = "p") -> tuple[str, tuple[str, ...]]:
    clauses, params = [], []
    if scope.jurisdiction is not None:
        clauses.append(f"{alias}.jurisdiction = ?")
        params.append(scope.jurisdiction)
    if scope.family is not None:
        clauses.append(f"{alias}.family = ?")
        params.append(scope.family)
    return "".join(f" AND {c}" for c in clauses), tuple(params)


def _check_scope(conn: sqlite3.Connection, scope: SearchScope) -> None:
    for column, value, error in (
        ("jurisdiction", scope.jurisdiction, JurisdictionNotFound),
        ("family", scope.family, FamilyNotFound),
    ):
        if (
            value is not None
            and not conn.execute(
                f"SELECT 1 FROM versions WHERE {column} = ? LIMIT 1", (value,)
            ).fetchone()
        ):
            raise error(f"{value}: no such {column} in {scope.workspace.path}")


def _fts_phrase(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _trigram_match(key: str) -> str:
    """An FTS5 query every text containing `key` matches (case-insensitively, so more)."""
    if len(key) <= 3 * TRIGRAM_WINDOW:
        return _fts_phrase(key)
    # Any piece of the key must occur wherever the key does, so three windows are a looser filter
    # than the whole key and cost a fixed number of posting lists however long the quote is.
    middle = (len(key) - TRIGRAM_WINDOW) // 2
    windows = (key[:TRIGRAM_WINDOW], key[middle : middle + TRIGRAM_WINDOW], key[-TRIGRAM_WINDOW:])
    return " AND ".join(_fts_phrase(w) for w in windows)


Row = tuple[int, str, int, int, str | None]  # text_id, version_id, char_start, char_end, label


def _row(found: sqlite3.Row) -> Row:
    """A candidate passage's `Row`, read from a query's row by column name."""
    return (
        found["text_id"],
        found["version_id"],
        found["char_start"],
        found["char_end"],
        found["section_label"],
    )


def _substring_rows(
    conn: sqlite3.Connection, key: str, scope: SearchScope
) -> tuple[list[Row], set[int]]:
    """Passages whose substring key contains `key`, and texts the prefilter passed but that lack it."""
    where, params = _scope_sql(scope)
    columns = "p.text_id, p.version_id, p.char_start, p.char_end, p.section_label, t.substring_key"
    if len(key) < 3:
        # CAUTION: a trigram index cannot match fewer than three characters; scan the keys instead.
        sql = (
            f"SELECT {columns} FROM search_texts t JOIN search_passages p USING (text_id) "
            f"WHERE instr(t.substring_key, ?) > 0{where}"
        )
        found = conn.execute(sql, (key, *params)).fetchall()
    else:
        sql = (
            f"SELECT {columns} FROM search_trigram JOIN search_texts t "
            "ON t.text_id = search_trigram.rowid JOIN search_passages p ON p.text_id = t.text_id "
            f"WHERE search_trigram MATCH ?{where}"
        )
        found = conn.execute(sql, (_trigram_match(key), *params)).fetchall()
    rows = [_row(r) for r in found if key in r["substring_key"]]
    near = {r["text_id"] for r in found if key not in r["substring_key"]}
    return rows, near


def _prefilter_words(conn: sqlite3.Connection, query_key: str, texts: int) -> list[str]:
    """The query's indexed words rarer than `RARE_WORD_SHARE`, or at least its rarest few."""
    words = sorted(set(query_key.split()))
    if not words:
        return []
    docs = {
        r["word"]: r["docs"]
        for r in conn.execute(
            f"SELECT word, docs FROM search_word_docs WHERE word IN ({','.join('?' * len(words))})",
            words,
        )
    }
    known = sorted((w for w in words if w in docs), key=lambda w: (docs[w], w))
    rare = [w for w in known if docs[w] <= RARE_WORD_SHARE * texts]
    return rare if len(rare) >= MIN_PREFILTER_WORDS else known[:MIN_PREFILTER_WORDS]


def _ranked_rows(
    conn: sqlite3.Connection, query_key: str, scope: SearchScope, extra: set[int], texts: int
) -> list[tuple[float, Row]]:
    words = _prefilter_words(conn, query_key, texts)
    where, params = _scope_sql(scope)
    pool = set(extra)
    if words:
        scoped = (
            f" AND rowid IN (SELECT p.text_id FROM search_passages p WHERE 1{where})"
            if params
            else ""
        )
        pool.update(
            r["rowid"]
            for r in conn.execute(
                f"SELECT rowid FROM search_words WHERE search_words MATCH ?{scoped} "
                "ORDER BY rank, rowid LIMIT ?",
                (" OR ".join(_fts_phrase(w) for w in words), *params, FUZZY_POOL),
            )
        )
    if not pool:
        return []
    ids = sorted(pool)
    found = conn.execute(
        "SELECT p.text_id, p.version_id, p.char_start, p.char_end, p.section_label, t.ranking_key "
        "FROM search_texts t JOIN search_passages p USING (text_id) "
        f"WHERE t.text_id IN ({','.join('?' * len(ids))}){where}",
        (*ids, *params),
    ).fetchall()
    scores: dict[int, float] = {}
    for r in found:
        if r["text_id"] not in scores:
            scores[r["text_id"]] = score(query_key, r["ranking_key"])
    return [(scores[r["text_id"]], _row(r)) for r in found]


def _order(item: tuple[float, Row]) -> tuple[float, str, int]:
    value, (_, version_id, char_start, _, _) = item
    return (-value, version_id, char_start)


def _assemble(
    substring: Iterable[Row], ranked: Iterable[tuple[float, Row]], k: int, path: AnswerPath
) -> tuple[Candidate, ...]:
    exact = sorted(((100.0, r) for r in substring), key=_order)
    seen = {(r[1], r[2]) for _, r in exact}
    others = sorted((item for item in ranked if (item[1][1], item[1][2]) not in seen), key=_order)
    chosen = [(s, r, "substring") for s, r in exact]
    chosen += [(s, r, "ranked") for s, r in others[: max(0, k - len(exact))]]
    return tuple(
        Candidate(
            version_id=r[1],
            char_start=r[2],
            char_end=r[3],
            section_label=r[4],
            score=s,
            match=m,  # type: ignore[arg-type]
            path=path,
        )
        for s, r, m in chosen
    )


def _scan(
    scope: SearchScope, key: str, query_key: str
) -> tuple[list[Row], list[tuple[float, Row]]]:
    """Every passage in scope, checked and scored one by one: used when the index cannot be.
    The passages are the ones the workspace keeps (`held_passages` through `search_profile`, what
    an index build reads), so a version is segmented once, by whichever comes first."""
    workspace = scope.workspace
    rows: list[Row] = []
    ranked: list[tuple[float, Row]] = []
    keys: dict[str, tuple[bool, float]] = {}
    with workspace.batch():  # the passages this scan keeps, in one commit
        for version in workspace.versions(scope.family):
            if scope.jurisdiction is not None and version.jurisdiction != scope.jurisdiction:
                continue
            for p in held_passages(workspace, version, search_profile(version, scope.profiles)):
                normalized = normalized_text(p.text)
                if normalized not in keys:
                    contains = key in normalized.translate(KEY_DELETIONS)
                    value = (
                        score(query_key, utils.default_process(normalized))
                        if query_key and not contains
                        else 0.0
                    )
                    keys[normalized] = (contains, value)
                contains, value = keys[normalized]
                row: Row = (0, p.version_id, p.char_start, p.char_end, p.section_label)
                if contains:
                    rows.append(row)
                elif query_key:
                    ranked.append((value, row))
    return rows, ranked


def find_candidates(
    query: str, scope: SearchScope, k: int = 10, *, scan: bool = False
) -> SearchResult:
    """Candidate passages for `query` in `scope`: every substring candidate, then ranked ones to k.

    Uses the index when it is fresh; otherwise, or with `scan` (a caller that wants passages the
    index's word prefilter cannot offer: the nearest to a term a version lacks), scans every
    passage in scope (same substring rule, every passage scored) and says why in `note`. A query with no letters or digits is not ranked:
    only substring candidates are offered. Raises SearchQueryError for an empty query, one over
    `MAX_QUERY_CHARS`, one with nothing left after normalization, or k < 1.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise SearchQueryError(f"k: {k!r}; expected a positive whole number of candidates")
    key, query_key = _query_keys(query)
    with connect(scope.workspace) as conn:
        _check_scope(conn, scope)
        status = read_status(conn, scope.workspace, scope.profiles)
        if status.state == "fresh" and not scan:
            rows, near = _substring_rows(conn, key, scope)
            # Substring candidates are never cut, so with k of them no ranked one would be shown.
            wanted = query_key and len(rows) < k
            ranked = _ranked_rows(conn, query_key, scope, near, status.texts) if wanted else []
            path: AnswerPath = "index"
            note = f"index: {status.texts} distinct texts, {status.passages} passages"
    if status.state != "fresh" or scan:
        rows, ranked = _scan(scope, key, query_key)
        path = "scan"
        why = "asked for" if status.state == "fresh" else f"{status.state} index: {status.reason}"
        note = f"full scan ({why})"
    candidates = _assemble(rows, ranked, k, path)
    substring = sum(c.match == "substring" for c in candidates)
    note += f"; {substring} substring and {len(candidates) - substring} ranked candidates"
    if not query_key:
        note += "; the query has no letters or digits, so nothing is ranked"
    return SearchResult(query=query, candidates=candidates, path=path, index=status, note=note)


def candidate_as_json(candidate: Candidate, text: str | None = None) -> dict[str, object]:
    """The JSON shape of a candidate; `text` is the passage's raw text when the caller has it."""
    return {
        "version_id": candidate.version_id,
        "char_start": candidate.char_start,
        "char_end": candidate.char_end,
        "section_label": candidate.section_label,
        "score": round(candidate.score, 4),
        "match": candidate.match,
        "path": candidate.path,
        "is_evidence": candidate.is_evidence,
        **({"text": text} if text is not None else {}),
    }
