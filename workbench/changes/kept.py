"""A version pair's diff as derived state (C7, C13): the changes `diff_versions` gives (and the
word pieces of those shown), kept in the workspace under the one key rule (`derived.derived_key`),
so a later diff of held versions reads them instead of choosing a profile, pairing or comparing
words again. The table, key and shape: docs/diff.md."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.cells import cells_from_json, cells_json
from workbench.derived import code_digest, derived_key, keep_row
from workbench.models import CHANGE_KINDS, PAIRING_KINDS, Change, Span, Version, VersionText

if TYPE_CHECKING:
    from workbench.workspace import Workspace

KIND = "diff-pair"
TABLE = "kept_diffs"
# A pair's changes in two columns, so that a listing, which counts the unchanged ones, never
# parses them: `changes`, every change that is not `unchanged`, each [its position in the diff,
# its `change_row`]; `unchanged`, the unchanged ones' rows in the diff's order (they fill the
# other positions), and `unchanged_count`. `footnotes`: the pair's footnote changes under
# unchanged clauses (`footnoted.FootnoteChange` as JSON), NULL until a diff derives them from
# the versions' settled footnote readings. `marks`: the word pieces of the changes shown so far
# (`redline.marks_json`), NULL until a diff shows the pair. CAUTION: `unchanged`, most of a long
# diff's bytes, stays the last column: SQLite reads a row's columns through it to reach any after.
_COLUMNS = (
    "diff_key TEXT PRIMARY KEY, jurisdiction TEXT NOT NULL, family TEXT NOT NULL, "
    "before_id TEXT NOT NULL, after_id TEXT NOT NULL, unchanged_count INTEGER NOT NULL, "
    "footnotes TEXT, marks TEXT, changes TEXT NOT NULL, unchanged TEXT NOT NULL"
)
_NEWEST = "marks"  # the column a table of an older shape lacks
_SCHEMA = f"CREATE TABLE IF NOT EXISTS {TABLE} ({_COLUMNS})"
# The rows of a pair (`derived.keep_row` names them so) and, by its prefix, of a family: `measure`
# replaces each family's rows as its result arrives, which without it scanned the whole table
# each time (time that grew with the square of the corpus).
_BY_NAME = (
    f"CREATE INDEX IF NOT EXISTS {TABLE}_by_name ON {TABLE} "
    "(jurisdiction, family, before_id, after_id)"
)

Family = tuple[str, str]  # (jurisdiction, family)
KeptChanges = tuple[str, str, int]  # `changes_json`: changes, unchanged, unchanged_count
KeptDiff = tuple[str, str, str, KeptChanges]  # diff key, before id, after id, `changes_json`


def version_lines(workspace: Workspace, only: Family | None = None) -> dict[Family, dict[str, str]]:
    """Each held family's versions (of the family `only` names, when given), in version order,
    each as one line: its id, order, artefact and text hashes and its origin records
    (`Workspace.origin_lines`). What a key over a family's versions is made from (a kept diff's,
    the stored review queue's), read from the versions table's columns alone (no text). With
    the code digest, a line names every input of the version's parts (`workspace.parts
    .parts_key`), so a key over it names the tables a diff paired row by row."""
    where = ""
    params: tuple[str, ...] = ()
    if only is not None:
        where, params = " WHERE jurisdiction = ? AND family = ?", only
    origins = workspace.origin_lines(only)
    lines: dict[Family, dict[str, str]] = {}
    for jurisdiction, family, version_id, order, artefact, text_sha256 in workspace.read(
        "SELECT jurisdiction, family, version_id, version_order, artefact_sha256, text_sha256 "
        f"FROM versions{where} ORDER BY jurisdiction, family, version_order",
        params,
    ):
        # Fields are hashes, numbers and catalogue paths (no white space), one line per version.
        line = f"{version_id} {order} {artefact} {text_sha256}{origins.get(version_id, '')}"
        lines.setdefault((jurisdiction, family), {})[version_id] = line
    return lines


def profile_sources(folders: Iterable[Path]) -> list[list[str]] | None:
    """The researcher's profile files in `folders` (`CorpusSettings.profile_folders`), as
    `read_profile_dir` reads them (every `*.toml`, sorted by file name, folder by folder), each
    as its path and the SHA-256 of its bytes; None when a folder is gone (no key is made: the
    diff reads the profiles, and their error names the folder). The shipped profiles are part of
    the code digest."""
    sources = []
    for folder in folders:
        if not folder.is_dir():
            return None
        for path in sorted(folder.glob("*.toml")):
            sources.append([str(path), hashlib.sha256(path.read_bytes()).hexdigest()])
    return sources


def diff_key(
    sources: Sequence[Sequence[str]],
    chooser: Sequence[str],
    pair: tuple[str, str],
    code: str,
) -> str:
    """The key of one pair's kept diff: the researcher's profile files (`profile_sources`), the
    lines (`version_lines`) of the versions its profile is chosen over (`pairs.pairs_profile`'s,
    in order), the pair's two version ids and the code digest. Equal keys, equal changes: the
    tables the diff pairs row by row are named by the versions' lines and the code digest
    (every input of their parts key), and a diff is kept only once both versions' parts are
    settled (`pairs.pair_changes`), so a reading the store could not give is never kept."""
    return derived_key(KIND, [list(map(list, sources)), list(chooser), list(pair)], code)


def change_row(change: Change) -> list[Any]:
    """The stored JSON of one change, the one shape the kept diffs and the stored review queue
    hold: an array of its fields in `Change`'s order, a span as [start, end] (its version is
    the change's before or after version), a tuple as an array, a table row's cells as
    `cells.cells_json`. Floats round-trip exactly, so `change_from_row` gives an equal
    record."""

    def span(s: Span | None) -> list[int] | None:
        return None if s is None else [s.char_start, s.char_end]

    c = change
    return [
        c.change_id,
        c.kind,
        span(c.before),
        span(c.after),
        c.before_label,
        c.after_label,
        c.similarity,
        c.alignment_confidence,
        c.capped,
        span(c.span_before),
        span(c.span_after),
        [span(s) for s in c.before_spans],
        [span(s) for s in c.after_spans],
        c.front_matter,
        list(c.before_origin),
        list(c.after_origin),
        c.low_confidence,
        cells_json(c.before_cells),
        cells_json(c.after_cells),
    ]


def change_from_row(row: Sequence[Any], before_id: str, after_id: str) -> Change:
    """The change `change_row` stored, of the pair (`before_id`, `after_id`)."""

    def before(s: list[int] | None) -> Span | None:
        return None if s is None else Span(version_id=before_id, char_start=s[0], char_end=s[1])

    def after(s: list[int] | None) -> Span | None:
        return None if s is None else Span(version_id=after_id, char_start=s[0], char_end=s[1])

    (
        change_id,
        kind,
        b,
        a,
        before_label,
        after_label,
        similarity,
        confidence,
        capped,
        span_b,
        span_a,
        spans_b,
        spans_a,
        front_matter,
        origin_b,
        origin_a,
        low_confidence,
        cells_b,
        cells_a,
    ) = row
    return Change(
        change_id=change_id,
        kind=kind,
        before=before(b),
        after=after(a),
        before_label=before_label,
        after_label=after_label,
        similarity=similarity,
        alignment_confidence=confidence,
        capped=capped,
        span_before=before(span_b),
        span_after=after(span_a),
        before_spans=tuple(map(before, spans_b)),  # type: ignore[arg-type]
        after_spans=tuple(map(after, spans_a)),  # type: ignore[arg-type]
        front_matter=front_matter,
        before_origin=tuple(origin_b),
        after_origin=tuple(origin_a),
        low_confidence=low_confidence,
        before_cells=cells_from_json(cells_b),
        after_cells=cells_from_json(cells_a),
    )


def changes_json(changes: Sequence[Change]) -> KeptChanges:
    """The kept form of a pair's changes, its three columns (`_COLUMNS`): the JSON array of
    [position, `change_row`] of each change that is not unchanged, the JSON array of the
    unchanged ones' `change_row`s, and how many they are."""
    changed = [[k, change_row(c)] for k, c in enumerate(changes) if c.kind != "unchanged"]
    unchanged = [change_row(c) for c in changes if c.kind == "unchanged"]
    return _json(changed), _json(unchanged), len(unchanged)


def _json(rows: list[Any]) -> str:
    return json.dumps(rows, ensure_ascii=False, separators=(",", ":"))


def changes_from_json(kept: KeptChanges, before_id: str, after_id: str) -> tuple[Change, ...]:
    """The changes `changes_json` wrote for the pair (`before_id`, `after_id`), in order."""
    changes, unchanged, count = kept
    placed: dict[int, list[Any]] = dict(json.loads(changes))
    rest = iter(json.loads(unchanged))
    return tuple(
        change_from_row(placed[k] if k in placed else next(rest), before_id, after_id)
        for k in range(len(placed) + count)
    )


def read_kept(workspace: Workspace, keys: Sequence[str]) -> dict[str, tuple[Change, ...]]:
    """The kept changes of each key of `keys` the workspace holds, by key."""
    return {
        key: changes_from_json((changes, unchanged, count), before_id, after_id)
        for key, before_id, after_id, count, changes, unchanged in _kept_rows(
            workspace, keys, "unchanged_count, changes, unchanged"
        )
    }


def read_changed(workspace: Workspace, keys: Sequence[str]) -> dict[str, tuple[Change, ...]]:
    """What `read_kept` gives of each key but the unchanged changes, in the diff's order: read
    from the `changes` column alone, never parsing the `unchanged` one (most of a long diff)."""
    return {
        key: tuple(change_from_row(row, before_id, after_id) for row in _changed_rows(changes))
        for key, before_id, after_id, changes in _kept_rows(workspace, keys, "changes")
    }


def _changed_rows(changes: str) -> list[list[Any]]:
    """The `change_row`s of a kept `changes` column, in the diff's order."""
    return [row for _, row in json.loads(changes)]


Counted = tuple[tuple[str, int], ...]  # (kind, how many), kinds in `CHANGE_KINDS` order


def read_listed(
    workspace: Workspace, keys: Sequence[str], kinds: Collection[str]
) -> dict[str, tuple[tuple[Change, ...], Counted]]:
    """What a text listing of `kinds` reads of each kept diff of `keys` the workspace holds, by
    key: its changes whose kind is in `kinds` or is a pairing (`PAIRING_KINDS`, the only kinds
    `pairing_is_uncertain` can flag), built, in the diff's order; and its other changes counted
    by kind, never built. Unless `kinds` names `unchanged`, the unchanged changes (most of a long
    diff) are counted from `unchanged_count` and not read at all."""
    if "unchanged" in kinds:
        every = read_kept(workspace, keys)
        return {key: _built(changes, kinds) for key, changes in every.items()}
    listed = {}
    for key, before_id, after_id, count, changes in _kept_rows(
        workspace, keys, "unchanged_count, changes"
    ):
        rows = _changed_rows(changes)
        built = _built([change_from_row(row, before_id, after_id) for row in rows], kinds)
        listed[key] = (built[0], _counted({**dict(built[1]), "unchanged": count}))
    return listed


def _built(changes: Sequence[Change], kinds: Collection[str]) -> tuple[tuple[Change, ...], Counted]:
    """`changes` split as `read_listed` gives them: those built, and the others counted."""
    built = set(kinds) | PAIRING_KINDS
    left = dict.fromkeys(CHANGE_KINDS, 0)
    for change in changes:
        left[change.kind] += change.kind not in built
    return tuple(c for c in changes if c.kind in built), _counted(left)


def _counted(counts: Mapping[str, int]) -> Counted:
    return tuple((kind, counts[kind]) for kind in CHANGE_KINDS if counts.get(kind))


def _kept_rows(
    workspace: Workspace, keys: Sequence[str], columns: str, found: tuple[str, ...] = ()
) -> list[tuple[Any, ...]]:
    """The key, before id, after id and `columns` of the kept diff of each key of `keys` the
    workspace holds (none from a table of an older shape: what it holds was kept under keys no
    code computes now); `found`: the value of each `?` in `columns`, given to each."""
    if not keys or not _current(workspace):
        return []
    places = ", ".join("?" * len(keys))
    return workspace.read(
        f"SELECT diff_key, before_id, after_id, {columns} FROM {TABLE} WHERE diff_key IN ({places})",
        tuple(found) * columns.count("?") + tuple(keys),
    )


def _current(workspace: Workspace) -> bool:
    """Whether the workspace holds the table in its current shape (`_COLUMNS`)."""
    return TABLE in workspace.tables() and any(
        name == _NEWEST for _, name, *_ in workspace.read(f"PRAGMA table_info({TABLE})")
    )


def read_footnotes(workspace: Workspace, keys: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """The kept footnote changes (`FootnoteChange.as_json` each) of each key of `keys` whose
    kept diff holds them, by key."""
    return {key: json.loads(value) for key, value in _read_column(workspace, keys, "footnotes")}


def keep_footnotes(workspace: Workspace, kept: Mapping[str, Sequence[dict[str, Any]]]) -> None:
    """Add to each kept diff its footnote changes (`kept`: by key, `FootnoteChange.as_json` each);
    a key with no kept diff is passed over."""
    values = {key: json.dumps(list(rows), ensure_ascii=False) for key, rows in kept.items()}
    _keep_column(workspace, "footnotes", values)


def read_marks(workspace: Workspace, keys: Sequence[str]) -> dict[str, str]:
    """The kept word pieces (`redline.marks_json`) of each key of `keys` whose kept diff holds
    them, by key."""
    return dict(_read_column(workspace, keys, "marks"))


def keep_marks(workspace: Workspace, kept: Mapping[str, str]) -> None:
    """Set each kept diff's word pieces (`kept`: by key, `redline.marks_json`); a key with no
    kept diff is passed over."""
    _keep_column(workspace, "marks", kept)


def _read_column(workspace: Workspace, keys: Sequence[str], column: str) -> list[tuple[str, str]]:
    if not keys or not _current(workspace):
        return []
    places = ", ".join("?" * len(keys))
    return workspace.read(
        f"SELECT diff_key, {column} FROM {TABLE} "
        f"WHERE diff_key IN ({places}) AND {column} IS NOT NULL",
        tuple(keys),
    )


def _keep_column(workspace: Workspace, column: str, values: Mapping[str, str]) -> None:
    with workspace.transaction() as conn:
        conn.executemany(
            f"UPDATE {TABLE} SET {column} = ? WHERE diff_key = ?",
            [(value, key) for key, value in values.items()],
        )


def keep(workspace: Workspace, family: Family, kept: Sequence[KeptDiff], *, whole: bool) -> None:
    """Keep one family's diffs (`kept`: key, before id, after id, `changes_json`). `whole`: they
    are every consecutive pair of the family (as `measure` keeps them), and replace every kept
    diff of it; else each replaces only the one kept for its own two versions (so a family
    keeps at most one diff per pair of versions, whatever the code that made it)."""
    with workspace.transaction() as conn:
        if not any(row[1] == _NEWEST for row in conn.execute(f"PRAGMA table_info({TABLE})")):
            # A table of an older shape holds diffs kept under keys no code computes now.
            conn.execute(f"DROP TABLE IF EXISTS {TABLE}")
        conn.execute(_SCHEMA)
        conn.execute(_BY_NAME)
        if whole:  # the family's rows go, so none of a pair's is left under another key
            conn.execute(f"DELETE FROM {TABLE} WHERE jurisdiction = ? AND family = ?", family)
            conn.executemany(
                f"INSERT OR REPLACE INTO {TABLE} (diff_key, jurisdiction, family, before_id, "
                "after_id, changes, unchanged, unchanged_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (key, *family, before_id, after_id, *changes)
                    for key, before_id, after_id, changes in kept
                ],
            )
            return
        for key, before_id, after_id, (changes, unchanged, count) in kept:
            name = {
                "jurisdiction": family[0],
                "family": family[1],
                "before_id": before_id,
                "after_id": after_id,
            }
            values = {"changes": changes, "unchanged": unchanged, "unchanged_count": count}
            keep_row(conn, TABLE, ("diff_key", key), name, values)


def pair_keys(
    workspace: Workspace,
    pairs: Sequence[tuple[Version | VersionText, Version | VersionText]],
    code: str,
) -> tuple[str, ...] | None:
    """The diff key of each pair of `pairs` (one family's, as `pairs.version_pairs` chose them),
    their profile chosen over the first pair's before version and every after version; None when
    no key can be made (a researcher's profile folder is gone, or the pairs are of two
    jurisdictions' families of one name, whose profile `measure` never chooses)."""
    (family, *others) = {(v.jurisdiction, v.family) for pair in pairs for v in pair}
    sources = profile_sources(workspace.settings.profile_folders())
    if others or sources is None:
        return None
    lines = version_lines(workspace, family)[family]
    chooser = [lines[v.version_id] for v in (pairs[0][0], *(after for _, after in pairs))]
    return tuple(
        diff_key(sources, chooser, (before.version_id, after.version_id), code)
        for before, after in pairs
    )


def family_pair_keys(
    workspace: Workspace, family: Family, pairs: Sequence[tuple[str, str]]
) -> tuple[str, ...] | None:
    """The key each pair (before id, after id) of consecutive held versions of `family` is kept
    under, as `measure` keeps it (`measured_diffs`: the profile chosen over all the family's
    versions), read from the versions table's columns alone, no version loaded; None when no
    key can be made (a researcher's profile folder is gone)."""
    sources = profile_sources(workspace.settings.profile_folders())
    if sources is None:
        return None
    chooser = list(version_lines(workspace, family).get(family, {}).values())
    code = code_digest()
    return tuple(diff_key(sources, chooser, pair, code) for pair in pairs)


def keys_holding(workspace: Workspace, keys: Sequence[str], text: str) -> tuple[set[str], set[str]]:
    """Of `keys`, those the workspace keeps a diff under, and those whose kept rows hold `text`
    anywhere (either column), found by SQLite without parsing a row."""
    rows = _kept_rows(workspace, keys, "instr(changes, ?) > 0 OR instr(unchanged, ?) > 0", (text,))
    return {key for key, *_ in rows}, {key for key, *_, holds in rows if holds}


def measured_diffs(
    lines: Mapping[str, str],
    sources: Sequence[Sequence[str]],
    diffs: Sequence[tuple[str, str, KeptChanges]],
    code: str,
) -> list[KeptDiff]:
    """The kept rows of a family's consecutive pairs as `measure` diffed them (`diffs`: before id,
    after id, `changes_json`), for its versions' `lines` (all of them, in version order: the
    profile `measure` chose was chosen over every version, as `pairs_profile` chooses it for
    the family's consecutive pairs)."""
    chooser = list(lines.values())
    return [
        (diff_key(sources, chooser, (before_id, after_id), code), before_id, after_id, changes)
        for before_id, after_id, changes in diffs
    ]
