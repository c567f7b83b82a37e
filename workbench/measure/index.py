"""The summary index: the one file the reduce reads, one family summary per row (C13).

Each map task writes its family's shard (the measurement and its summary, `cache.py`) and hands
the client only the summary; the client appends each summary as it arrives to a spill file of
JSON lines and drops it. When the map is done, `fold` makes the index of the run: one Parquet file
(`summaries.parquet`, in the shard folder) holding, for every family the run measured or reused,
its key, jurisdiction, family and summary, sorted by (jurisdiction, family). The reduce reads it
back a batch at a time (`summaries`, `by_name`), as often as the reports need, so the client holds
one batch of summaries, never the corpus's.

The engine is polars' lazy scan: a dependency the measurement already has (its charts and
tables come from the analysis extra), a streaming engine that reads and writes Parquet a batch
at a time, and an index that is one ordinary Parquet file any data frame library reads. (DuckDB
would do the same with a new dependency and a database file of its own.) The fold sorts the
summaries' places in the spill, not the summaries: a sort of the whole spill in polars held every
summary several times over, the client's largest holding on the whole D.C. Code.

The guarantee: the index of a run holds exactly the summaries of the keys it was folded with,
each once, in (jurisdiction, family) order, whatever order they were spilled in; a reader sees
the old index or the new one, never a partial file.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

import polars as pl

from workbench.files import replace_file_with
from workbench.measure.reports import FRAGMENTS

INDEX_NAME = "summaries.parquet"
BATCH_ROWS = 2048  # summaries read back at a time
_SCHEMA = {"key": pl.String, "jurisdiction": pl.String, "family": pl.String, "summary": pl.String}
_SCHEMA |= dict.fromkeys(FRAGMENTS, pl.String)  # each family's rendered report members


class SummaryIndex:
    """The summary index in `folder` (module docstring). Use as a context manager, or `close()`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / INDEX_NAME
        self._spill_path = folder / f".summaries-{os.getpid()}-{id(self)}.jsonl"
        self._spill: IO[str] | None = None

    def __enter__(self) -> SummaryIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._spill is not None:
            self._spill.close()
            self._spill = None
        self._spill_path.unlink(missing_ok=True)

    def _readable(self) -> bool:
        """True when there is an index with this version's columns (an index written before
        the fragments were kept is treated as absent: its families are spilled again from
        their shards)."""
        if not self.path.is_file():
            return False
        try:
            return dict(pl.read_parquet_schema(self.path)) == _SCHEMA
        except (OSError, pl.exceptions.PolarsError):
            return False

    def keys(self) -> frozenset[str]:
        """The keys the index holds (empty when there is none or it cannot be read)."""
        if not self._readable():
            return frozenset()
        try:
            return frozenset(pl.scan_parquet(self.path).select("key").collect()["key"].to_list())
        except (OSError, pl.exceptions.PolarsError):
            return frozenset()

    def spill(
        self, key: str, summary: Mapping[str, Any], fragments: Mapping[str, str | None]
    ) -> None:
        """Keep a summary and its rendered report members (`reports.family_fragments`) for the
        next `fold`, written out at once (not held)."""
        if self._spill is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._spill = self._spill_path.open("w", encoding="utf-8")
        row = {
            "key": key,
            "jurisdiction": summary["jurisdiction"],
            "family": summary["family"],
            "summary": json.dumps(summary, ensure_ascii=False, separators=(",", ":")),
            **{part: fragments[part] for part in FRAGMENTS},
        }
        self._spill.write(json.dumps(row, ensure_ascii=False) + "\n")

    def fold(self, keys: Collection[str]) -> None:
        """Write the index of exactly `keys`: their summaries from the index as it stands and
        from the spill (a key in both keeps the spilled one), sorted by (jurisdiction, family).

        Made without holding the summaries: the index as it stands is appended to the spill a
        batch at a time; each wanted key's first line is found and its place kept beside its
        (jurisdiction, family, key); the places are sorted and the lines read back in that
        order into parts of `BATCH_ROWS` rows, which polars' streaming engine joins into one
        file of row groups of as many rows. (A lazy sort of the whole spill held every summary
        several times over; polars' own row groups, far larger, held thousands of summaries at
        once while the file was written, and as many again when it was read back.)"""
        wanted = frozenset(keys)
        if self._spill is not None:
            self._spill.close()
            self._spill = None
        self.folder.mkdir(parents=True, exist_ok=True)
        if self._readable():
            with self._spill_path.open("a", encoding="utf-8") as out:
                for batch in pl.scan_parquet(self.path).collect_batches(chunk_size=BATCH_ROWS):
                    for row in batch.iter_rows(named=True):
                        if row["key"] in wanted:
                            out.write(json.dumps(row, ensure_ascii=False) + "\n")
        places = _sorted_places(self._spill_path, wanted)
        parts = self.folder / f".parts-{os.getpid()}-{id(self)}"
        try:
            files = _write_parts(self._spill_path, places, parts)
            scan = pl.scan_parquet(files) if files else pl.LazyFrame(schema=_SCHEMA)
            replace_file_with(
                self.path,
                lambda temporary: scan.sink_parquet(temporary, row_group_size=BATCH_ROWS),
            )
        finally:
            shutil.rmtree(parts, ignore_errors=True)
        self._spill_path.unlink(missing_ok=True)

    def families(self) -> list[tuple[str, str, str]]:
        """(jurisdiction, family, key) of every row, in index order."""
        frame = pl.scan_parquet(self.path).select("jurisdiction", "family", "key").collect()
        return list(frame.iter_rows())

    def jurisdictions(self) -> list[str]:
        """The jurisdictions the index holds, sorted."""
        frame = pl.scan_parquet(self.path).select("jurisdiction").unique().collect()
        return sorted(frame["jurisdiction"].to_list())

    def summaries(self, jurisdiction: str | None = None) -> Iterator[dict[str, Any]]:
        """Every summary of the index (of one jurisdiction when named), in (jurisdiction,
        family) order, read `BATCH_ROWS` at a time."""
        scan = pl.scan_parquet(self.path).select("jurisdiction", "summary")
        if jurisdiction is not None:
            scan = scan.filter(pl.col("jurisdiction") == jurisdiction)
        for batch in scan.collect_batches(chunk_size=BATCH_ROWS):
            for text in batch["summary"]:
                yield json.loads(text)

    def fragments(self, part: str, by_name: bool) -> Iterator[tuple[str, str | None]]:
        """(jurisdiction/family, its rendered member `part`) of every row, in index order or,
        `by_name`, in `by_name`'s order; read a column at a time, no summary parsed."""
        order: list[str | None] = list(self._name_order()) if by_name else [None]
        for jurisdiction in order:
            scan = pl.scan_parquet(self.path).select("jurisdiction", "family", part)
            if jurisdiction is not None:
                scan = scan.filter(pl.col("jurisdiction") == jurisdiction)
            for batch in scan.collect_batches(chunk_size=BATCH_ROWS):
                for j, family, text in batch.iter_rows():
                    yield f"{j}/{family}", text

    def by_name(self) -> Iterator[dict[str, Any]]:
        """Every summary in the order of its name `jurisdiction/family`: the jurisdictions in
        the order of their name followed by `/`, each one's families in index order (a family's
        name orders them as its own does, once the jurisdiction is fixed)."""
        for jurisdiction in self._name_order():
            yield from self.summaries(jurisdiction)

    def _name_order(self) -> list[str]:
        """The jurisdictions in the order of their name followed by `/` (`by_name`)."""
        return sorted(self.jurisdictions(), key=lambda j: j + "/")


def _sorted_places(spill: Path, wanted: frozenset[str]) -> list[int]:
    """The byte offsets in `spill` of each wanted key's first line, in (jurisdiction, family,
    key) order."""
    first: dict[str, tuple[str, str, str, int]] = {}
    if spill.is_file():
        with spill.open("rb") as lines:
            offset = 0
            for line in lines:
                row = json.loads(line)
                if row["key"] in wanted and row["key"] not in first:
                    first[row["key"]] = (row["jurisdiction"], row["family"], row["key"], offset)
                offset += len(line)
    return [place[3] for place in sorted(first.values())]


def _write_parts(spill: Path, places: list[int], folder: Path) -> list[Path]:
    """The lines of `spill` at `places`, in that order, as Parquet files of `BATCH_ROWS` rows."""
    files = []
    if places:
        folder.mkdir()
        with spill.open("rb") as lines:
            for start in range(0, len(places), BATCH_ROWS):
                rows = []
                for offset in places[start : start + BATCH_ROWS]:
                    lines.seek(offset)
                    rows.append(json.loads(lines.readline()))
                files.append(folder / f"{start:012d}.parquet")
                pl.DataFrame(rows, schema=_SCHEMA).write_parquet(files[-1])
    return files
