"""The catalogue as a workspace's commands read it: every record checked once per catalogue.

`corpus.read_catalogue` checks a catalogue's bytes against its checksum file and then every
record, which on a catalogue of tens of thousands of rows is most of the read. A check of the
same bytes by the same code passes the same way, so a workspace keeps, in the table
`checked_catalogues`, the SHA-256 of each catalogue whose every record passed under the current
code digest (`models.code_digest`): read through `read_checked`, or written by `measure` from
rows it had checked. Those bytes are then read without the per-record check (nor strict JSON's);
the checksum comparison, the JSON parse and the path checks of every line still run, and any
other bytes, or the same bytes under other code, are checked whole.

Parsing tens of thousands of lines and packing each row's provenance (`ProvenanceText`) is then
what is left of the read, and every command of a workspace pays it again for the same bytes. So
the workspace also keeps the rows of one checked catalogue as they are held (`keep_rows`): per
row its path, the fields every reader takes (`row_fields`) and its provenance as packed, under
the catalogue's SHA-256 and the code digest, in the tables `catalogue_rows` and
`catalogue_rows_of`. `read_checked` (and `measure`, through `read_kept`) gives those rows back
when the catalogue's bytes, compared with its checksum file first as always, are those same
bytes: no line is parsed. Rows are kept only in the catalogue's own line order (sorted by
`line_key`, as every catalogue the workbench writes is), so they come back in that order.

The guarantee: a SHA-256 is kept only after every record of those bytes passed under this code,
and a row of another code digest is dropped when one is kept; kept rows are the rows those bytes
read as, and are used only for those bytes under this code.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Container, Sequence
from itertools import pairwise
from pathlib import Path

from workbench.corpus.catalogue import Catalogue, catalogue_data, line_key, read_catalogue
from workbench.models import CatalogueRow, canonical_json, code_digest
from workbench.provenance_text import ProvenanceText
from workbench.workspace.held import Workspace

TABLE = "checked_catalogues"
ROWS, ROWS_OF = "catalogue_rows", "catalogue_rows_of"
_SCHEMA = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} "
    "(sha256 TEXT NOT NULL, code TEXT NOT NULL, PRIMARY KEY (sha256, code))"
)


def checked_catalogues(workspace: Workspace | Path) -> frozenset[str]:
    """The SHA-256 of every catalogue whose records passed under this code, as the workspace
    (or the workspace file, when it exists) keeps them."""
    if isinstance(workspace, Path):
        if not workspace.is_file():
            return frozenset()
        with Workspace(workspace, create=False) as held:
            return checked_catalogues(held)
    if TABLE not in workspace.tables():
        return frozenset()
    rows = workspace.read(f"SELECT sha256 FROM {TABLE} WHERE code = ?", (code_digest(),))
    return frozenset(sha for (sha,) in rows)


def keep_checked(workspace: Workspace, sha256: str) -> None:
    """Keep `sha256` as a catalogue whose every record passed under this code."""
    code = code_digest()
    with workspace.transaction() as conn:
        conn.execute(_SCHEMA)
        conn.execute(f"DELETE FROM {TABLE} WHERE code != ?", (code,))
        conn.execute(f"INSERT OR IGNORE INTO {TABLE} (sha256, code) VALUES (?, ?)", (sha256, code))


def read_checked(workspace: Workspace, corpus_dir: Path) -> Catalogue:
    """The catalogue in `corpus_dir`: the rows the workspace kept for its bytes, else read with
    its records checked unless the workspace kept its bytes as checked (module docstring); kept
    as checked, and its rows kept, after."""
    data = catalogue_data(corpus_dir)
    kept = kept_rows(workspace, data[1])
    if kept is not None:
        return kept
    checked = checked_catalogues(workspace)
    catalogue = read_catalogue(corpus_dir, checked=checked, data=data)
    if catalogue.sha256 not in checked:
        keep_checked(workspace, catalogue.sha256)
    keep_rows(workspace, catalogue, catalogue.sha256)
    return catalogue


def keep_catalogue(
    workspace: Workspace, rows: Sequence[CatalogueRow], sha256: str, *, checked: Container[str]
) -> None:
    """Keep the catalogue of SHA-256 `sha256`, whose rows (in line order) were all checked, as
    checked (unless `checked` names it) and its rows as kept (unless they are)."""
    if sha256 not in checked:
        keep_checked(workspace, sha256)
    if not rows_kept(workspace, sha256):
        keep_rows(workspace, rows, sha256)


def read_kept(workspace: Path, corpus_dir: Path, *, checked: Container[str]) -> Catalogue:
    """The catalogue in `corpus_dir` as `measure` reads it before it admits: the rows the
    workspace file `workspace` kept for its bytes (when the file exists), else
    `read_catalogue(corpus_dir, checked=checked)`. Nothing is written."""
    data = catalogue_data(corpus_dir)
    if workspace.is_file():
        with Workspace(workspace, create=False) as held:
            kept = kept_rows(held, data[1])
        if kept is not None:
            return kept
    return read_catalogue(corpus_dir, checked=checked, data=data)


def kept_rows(workspace: Workspace, sha256: str) -> Catalogue | None:
    """The rows the workspace kept for the catalogue of SHA-256 `sha256` under this code, in
    line order; None when it kept no rows for those bytes."""
    dictionary = _kept_dictionary(workspace, sha256)
    if dictionary is None:
        return None
    return _restored(workspace, sha256, dictionary)


def _restored(workspace: Workspace, sha256: str, dictionary: bytes) -> Catalogue:
    intern, packed = sys.intern, ProvenanceText.from_deflated
    rows = []
    for path, fields, provenance in workspace.read(
        f"SELECT path, fields, provenance FROM {ROWS} ORDER BY key"
    ):
        values = json.loads(fields)
        for i in (2, 3, 5):  # jurisdiction, family, format: shared, as `row_fields` makes them
            if isinstance(values[i], str):
                values[i] = intern(values[i])
        text = packed(provenance, dictionary, canonical=True)  # kept as its line's text
        rows.append(CatalogueRow(path=path, provenance=text, kept=tuple(values)))
    return Catalogue(rows, sha256)


def rows_kept(workspace: Workspace, sha256: str) -> bool:
    """Whether the workspace keeps the rows of the catalogue of SHA-256 `sha256` (this code)."""
    return _kept_dictionary(workspace, sha256) is not None


def _kept_dictionary(workspace: Workspace, sha256: str) -> bytes | None:
    if ROWS_OF not in workspace.tables():
        return None
    found = workspace.read(
        f"SELECT dictionary FROM {ROWS_OF} WHERE sha256 = ? AND code = ?", (sha256, code_digest())
    )
    return bytes(found[0][0]) if found else None


def keep_rows(workspace: Workspace, rows: Sequence[CatalogueRow], sha256: str) -> bool:
    """Keep `rows` as the rows of the catalogue of SHA-256 `sha256` whose lines they are, in
    line order, replacing any rows kept before. Each provenance is kept as the text of its
    line (`catalogue_lines` writes it back as is). Rows not in line order are not kept (False):
    they would not come back in the order they were read."""
    keys = [line_key(row.path) for row in rows]
    if any(a >= b for a, b in pairwise(keys)):
        return False
    # The dictionary the rows kept before were packed against, where there are any: rows read
    # back from them share it, so only the rows admitted since are packed again.
    kept = (
        workspace.read(f"SELECT dictionary FROM {ROWS_OF}") if ROWS_OF in workspace.tables() else []
    )
    first = _text(rows[0]).dictionary if rows else b""
    dictionary = bytes(kept[0][0]) if kept else first

    def packed(row: CatalogueRow) -> bytes:
        text = _text(row)
        if not text.canonical:  # the line `catalogue_lines` wrote for it holds this text
            text = ProvenanceText(canonical_json(row.provenance_record()), canonical=True)
        return text.deflated_against(dictionary)

    with workspace.transaction() as conn:
        conn.execute(
            f"CREATE TABLE IF NOT EXISTS {ROWS} (key TEXT PRIMARY KEY, path TEXT NOT NULL, "
            "fields TEXT NOT NULL, provenance BLOB NOT NULL) WITHOUT ROWID"
        )
        conn.execute(
            f"CREATE TABLE IF NOT EXISTS {ROWS_OF} "
            "(sha256 TEXT NOT NULL, code TEXT NOT NULL, dictionary BLOB NOT NULL)"
        )
        # Only the rows that differ from those kept are written (a catalogue grows by few rows),
        # each made as it is written, so a first keeping holds no second copy of the catalogue.
        held = (
            {
                key: (path, fields, bytes(provenance))
                for key, path, fields, provenance in conn.execute(
                    f"SELECT key, path, fields, provenance FROM {ROWS}"
                )
            }
            if kept
            else {}
        )
        conn.execute(f"DELETE FROM {ROWS_OF}")
        if not held:
            conn.execute(f"DELETE FROM {ROWS}")
        wanted = set(keys)
        conn.executemany(
            f"DELETE FROM {ROWS} WHERE key = ?", [(key,) for key in held if key not in wanted]
        )
        made = (
            (key, (row.path, json.dumps(row.fields), packed(row)))
            for key, row in zip(keys, rows, strict=True)
        )
        conn.executemany(
            f"INSERT OR REPLACE INTO {ROWS} (key, path, fields, provenance) VALUES (?, ?, ?, ?)",
            ((key, *value) for key, value in made if held.get(key) != value),
        )
        conn.execute(
            f"INSERT INTO {ROWS_OF} (sha256, code, dictionary) VALUES (?, ?, ?)",
            (sha256, code_digest(), dictionary),
        )
    return True


def _text(row: CatalogueRow) -> ProvenanceText:
    """A row's provenance as it holds it (`CatalogueRow` packs every record it is given)."""
    provenance = row.provenance
    return provenance if isinstance(provenance, ProvenanceText) else ProvenanceText(provenance)
