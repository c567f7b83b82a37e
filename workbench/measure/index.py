"""The summary index: the one file the reduce reads, one family summary per row (C13).

Each map task writes its family's shard (the measurement and its summary, `cache.py`) and hands
the client only the summary; the client appends each summary as it arrives to a spill file of
JSON lines and drops it. When the map is done, `fold` makes the index of the run: one Parquet file
(`summaries.parquet`, in the shard folder) holding, for every family the run measured or reused,
its key, jurisdiction, family and summary, sorted by (jurisdiction, family). The reduce reads it
back a batch at a time (`summaries`, `by_name`), as often as the reports need, so the client holds
one batch of summaries, never the corpus's.

The engine is polars' lazy scan: a dependency the measurement already has (its charts and
tables come from the analysis extra), a streaming engine that filters, merges and sorts Parquet
and JSON lines without Python objects per row, and an index that is one ordinary Parquet file
any data frame library reads. (DuckDB would do the same with a new dependency and a database
file of its own.)

The guarantee: the index of a run holds exactly the summaries of the keys it was folded with,
each once, in (jurisdiction, family) order, whatever order they were spilled in; a reader sees
the old index or the new one, never a partial file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

import polars as pl

from workbench.files import replace_file_with

INDEX_NAME = "summaries.parquet"
BATCH_ROWS = 2048  # summaries read back at a time
_SCHEMA = {"key": pl.String, "jurisdiction": pl.String, "family": pl.String, "summary": pl.String}


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

    def keys(self) -> frozenset[str]:
        """The keys the index holds (empty when there is none or it cannot be read)."""
        if not self.path.is_file():
            return frozenset()
        try:
            return frozenset(pl.scan_parquet(self.path).select("key").collect()["key"].to_list())
        except (OSError, pl.exceptions.PolarsError):
            return frozenset()

    def spill(self, key: str, summary: Mapping[str, Any]) -> None:
        """Keep a summary for the next `fold`, written out at once (not held)."""
        if self._spill is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._spill = self._spill_path.open("w", encoding="utf-8")
        row = {
            "key": key,
            "jurisdiction": summary["jurisdiction"],
            "family": summary["family"],
            "summary": json.dumps(summary, ensure_ascii=False, separators=(",", ":")),
        }
        self._spill.write(json.dumps(row, ensure_ascii=False) + "\n")

    def fold(self, keys: Collection[str]) -> None:
        """Write the index of exactly `keys`: their summaries from the index as it stands and
        from the spill (a key in both keeps the spilled one), sorted by (jurisdiction, family)."""
        wanted = pl.Series("key", sorted(keys), dtype=pl.String)
        frames = []
        if self._spill is not None:
            self._spill.close()
            self._spill = None
            frames.append(pl.scan_ndjson(self._spill_path, schema=_SCHEMA))
        if self.path.is_file():
            frames.append(pl.scan_parquet(self.path))
        self.folder.mkdir(parents=True, exist_ok=True)
        merged = (
            pl.concat(frames, how="vertical")
            .filter(pl.col("key").is_in(wanted.implode()))
            .unique("key", keep="first", maintain_order=True)
            if frames
            else pl.LazyFrame(schema=_SCHEMA)
        )
        ordered = merged.sort(["jurisdiction", "family", "key"])
        replace_file_with(self.path, lambda temporary: ordered.sink_parquet(temporary))
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

    def by_name(self) -> Iterator[dict[str, Any]]:
        """Every summary in the order of its name `jurisdiction/family`: the jurisdictions in
        the order of their name followed by `/`, each one's families in index order (a family's
        name orders them as its own does, once the jurisdiction is fixed)."""
        for jurisdiction in sorted(self.jurisdictions(), key=lambda j: j + "/"):
            yield from self.summaries(jurisdiction)
