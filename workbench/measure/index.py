"""The summary index (C13): the Parquet files the reduce reads, one family summary per row in
(jurisdiction, family) order with a column per part (`PARTS`), and beside it each family's counts
as typed rows (`summary.summary_counts`), which the reduce sums without parsing a part; folded
from the spilled summaries and read back a batch at a time and a part at a time; a reader sees the
old index or the new one, never a partial file."""

from __future__ import annotations

import heapq
import json
import os
import shutil
from collections.abc import Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import polars as pl

from workbench.files import replace_file_with
from workbench.measure.summary import summary_counts

INDEX_NAME = "summaries.parquet"
COUNTS_DIR = "counts"  # each family's counts, one row per number, in files added by each fold
MAX_COUNT_FILES = 8  # more than this, and a fold writes the live counts into one file
BATCH_ROWS = 2048  # summaries read back at a time
COUNT_ROWS = 65_536  # spilled count rows held before they are written as a part
# Count rows per row group of a counts file: what `summed` decodes at a time (a file of one
# row group, the whole code's 517k rows, was decoded whole: 80 MB, its keys most of it).
COUNT_GROUP_ROWS = 8192
_SUMMED = ("jurisdiction", "part", "path")
# A summary's parts (`summary.family_summary`, in its order), each a column of its JSON: a
# report section reads the parts it shows, not the whole summary.
PARTS = (
    "versions",
    "profile",
    "reading",
    "pairings",
    "cautions",
    "passages",
    "parses",
    "texts",
    "examples",
)
# A part's JSON when it holds nothing: a family with no modified pairing, or no example.
EMPTY_PARTS = ("null", "{}")
_SCHEMA = {
    "key": pl.String,
    "jurisdiction": pl.String,
    "family": pl.String,
    **dict.fromkeys(PARTS, pl.String),
}
_COUNT_SCHEMA = {
    "key": pl.String,
    "jurisdiction": pl.String,
    "part": pl.String,
    "path": pl.String,
    "count": pl.Int64,
}


class SummaryIndex:
    """The summary index in `folder` (docs/measurements.md). Use as a context manager, or `close()`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / INDEX_NAME
        self.counts = folder / COUNTS_DIR
        self._spill_path = folder / f".summaries-{os.getpid()}-{id(self)}.jsonl"
        self._spill: IO[str] | None = None
        # Each spilled key's counts, as rows, taken at its first spill only and written a batch
        # of rows at a time into Parquet parts the fold streams into its counts file: text
        # lines would repeat each key on every number, and a reader of them holds them all.
        self._counts_path = folder / f".counts-{os.getpid()}-{id(self)}"
        self._counts: list[tuple[str, str, str, str, int]] = []
        self._counted_keys: set[str] = set()
        self._count_parts = 0  # parts written since the last fold

    def __enter__(self) -> SummaryIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._close_spills()
        self._spill_path.unlink(missing_ok=True)
        shutil.rmtree(self._counts_path, ignore_errors=True)

    def _close_spills(self) -> None:
        if self._spill is not None:
            self._spill.close()
            self._spill = None
        self._write_counts()

    def _write_counts(self) -> None:
        """Write the counts taken since the last part into a part of their own."""
        if not self._counts:
            return
        self._counts_path.mkdir(parents=True, exist_ok=True)
        frame = pl.DataFrame(self._counts, schema=_COUNT_SCHEMA, orient="row")
        frame.write_parquet(
            self._counts_path / f"{self._count_parts:06d}.parquet",
            row_group_size=COUNT_GROUP_ROWS,
        )
        self._count_parts += 1
        self._counts.clear()

    def _readable(self) -> bool:
        """True when there is an index with this version's columns, and its counts (an index
        with other columns, or without its counts, is treated as absent: its families are
        spilled again from their shards)."""
        if not (self.path.is_file() and self._count_files()):
            return False
        try:
            return dict(pl.read_parquet_schema(self.path)) == _SCHEMA and all(
                dict(pl.read_parquet_schema(f)) == _COUNT_SCHEMA for f in self._count_files()
            )
        except (OSError, pl.exceptions.PolarsError):
            return False

    def _count_files(self) -> list[Path]:
        """The counts files, oldest first (each fold adds one, numbered on)."""
        return sorted(self.counts.glob("*.parquet")) if self.counts.is_dir() else []

    def keys(self) -> frozenset[str]:
        """The keys the index holds (empty when there is none or it cannot be read)."""
        if not self._readable():
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
            **{
                part: json.dumps(summary[part], ensure_ascii=False, separators=(",", ":"))
                for part in PARTS
            },
        }
        self._spill.write(json.dumps(row, ensure_ascii=False) + "\n")
        if key not in self._counted_keys:
            self._counted_keys.add(key)
            jurisdiction = summary["jurisdiction"]
            self._counts.extend(
                (key, jurisdiction, part, path, count)
                for part, path, count in summary_counts(summary)
            )
            if len(self._counts) >= COUNT_ROWS:
                self._write_counts()

    def fold(self, keys: Collection[str]) -> None:
        """Write the index of exactly `keys`: their summaries from the index as it stands and
        from the spill (a key in both keeps the spilled one), sorted by (jurisdiction, family).
        With nothing spilled and exactly `keys` held, the index is left as it is.

        Made without holding the summaries: the spilled lines' places are sorted by
        (jurisdiction, family, key), and the rows the index keeps, already in that order, are
        merged with the spilled lines read back in it, into parts of `BATCH_ROWS` rows which
        polars' streaming engine joins into one file of row groups of as many rows. A row of
        the index is copied as it was read, never serialised to JSON and parsed again. The
        spilled keys' counts are written first, into a file of their own (`_fold_counts`), so
        a fold writes only the counts of the families it was given. (A lazy
        sort of the whole spill held every summary several times over; polars' own row groups,
        far larger, held thousands of summaries at once while the file was written, and as
        many again when it was read back.)"""
        wanted = frozenset(keys)
        unspilled = self._spill is None and not self._spill_path.exists()
        if unspilled and self._readable() and self.keys() == wanted:
            return  # nothing spilled, and the index holds exactly these keys: it stands
        self._close_spills()
        self.folder.mkdir(parents=True, exist_ok=True)
        spilled = _sorted_places(self._spill_path, wanted)
        fresh = {key for _, _, key, _ in spilled}
        readable = self._readable()
        self._fold_counts(fresh, wanted, readable=readable)
        kept = self._rows(wanted - fresh) if readable else iter(())
        parts = self.folder / f".parts-{os.getpid()}-{id(self)}"
        try:
            files = _write_parts(self._spill_path, spilled, kept, parts)
            scan = pl.scan_parquet(files) if files else pl.LazyFrame(schema=_SCHEMA)
            replace_file_with(
                self.path,
                lambda temporary: scan.sink_parquet(temporary, row_group_size=BATCH_ROWS),
            )
        finally:
            shutil.rmtree(parts, ignore_errors=True)
        self._spill_path.unlink(missing_ok=True)
        shutil.rmtree(self._counts_path, ignore_errors=True)
        self._counted_keys.clear()
        self._count_parts = 0

    def _fold_counts(self, fresh: set[str], wanted: frozenset[str], *, readable: bool) -> None:
        """Add a counts file of the `fresh` keys, each key's as its first spill wrote them; an
        index not `readable` loses its counts first. A key's counts are those of the newest
        file holding it (a family measured again is counted once), and only the index's keys
        are counted (`summed`). With more than `MAX_COUNT_FILES` files, the counted rows are
        (of the `wanted` keys) written into one newer file and the others removed: a fold's cost follows what it was
        given, and the files stay few. Written before the index, so each key the index holds
        has its counts."""
        if not readable:
            shutil.rmtree(self.counts, ignore_errors=True)
        files = self._count_files()
        if fresh:
            self.counts.mkdir(parents=True, exist_ok=True)
            parts = sorted(self._counts_path.glob("*.parquet"))
            spilled = pl.scan_parquet(parts) if parts else pl.LazyFrame(schema=_COUNT_SCHEMA)
            scan = spilled.filter(pl.col("key").is_in(sorted(fresh)))
            files.append(self._next_counts(files, scan))
        if len(files) > MAX_COUNT_FILES:
            self._next_counts(files, self._counted(files, wanted))
            for path in files:
                path.unlink()

    def _next_counts(self, files: Sequence[Path], scan: pl.LazyFrame) -> Path:
        number = int(files[-1].stem) + 1 if files else 0
        path = self.counts / f"{number:012d}.parquet"
        replace_file_with(
            path, lambda temporary: scan.sink_parquet(temporary, row_group_size=COUNT_GROUP_ROWS)
        )
        return path

    def _counted(self, files: Sequence[Path], keys: Collection[str] | None) -> pl.LazyFrame:
        """The rows counted: of each of `keys` (None: the index's), those of the newest file
        holding it."""
        if not files:
            return pl.LazyFrame(schema=_COUNT_SCHEMA)
        held = (
            pl.scan_parquet(self.path).select("key")
            if keys is None
            else pl.LazyFrame({"key": sorted(keys)}, schema={"key": pl.String})
        )
        rows = pl.concat(
            [pl.scan_parquet(f).with_columns(file=pl.lit(n)) for n, f in enumerate(files)]
        )
        newest = rows.join(held, on="key", how="semi").group_by("key").agg(pl.col("file").max())
        return rows.join(newest, on=["key", "file"], how="semi").select(list(_COUNT_SCHEMA))

    def summed(self) -> Iterator[tuple[str, str, str, int]]:
        """The counts of every family of the index summed by (jurisdiction, part, path), in
        that order: what `reports.summed_counts` gives over its summaries.

        Folded a counts file at a time, newest first: of each, the rows of the index's keys
        not counted yet (a key's counts are all in the file that holds it) are summed as
        polars streams its row groups (`COUNT_GROUP_ROWS` rows), and the keys they counted are
        then struck from those left (one read of the file gives both). What is held is the keys
        left and one row per (jurisdiction, part, path) of each file, never the rows."""
        left = pl.scan_parquet(self.path).select("key").collect().to_series()
        sums = []
        for file in reversed(self._count_files()):
            if left.is_empty():
                break
            rows = pl.scan_parquet(file).filter(pl.col("key").is_in(left.implode()))
            # One read of the file gives both: its sums and the keys they counted.
            summed, counted = pl.collect_all(
                [_sum(rows), rows.select(pl.col("key").unique())], engine="streaming"
            )
            sums.append(summed)
            left = left.filter(~left.is_in(counted["key"].implode()))
        if not sums:
            return iter(())
        return _sum(pl.concat(sums).lazy()).sort(*_SUMMED).collect().iter_rows()

    def induced(self) -> Iterator[dict[str, Any]]:
        """The summaries (jurisdiction, family and profile) whose profile was induced for the
        family (its record holds the profile's "toml"), in index order."""
        for summary in self.summaries(("profile",), holding=('"toml":', "profile")):
            if "toml" in summary["profile"]:
                yield summary

    def _rows(self, keys: frozenset[str]) -> Iterator[tuple[Any, ...]]:
        """The index's rows whose key is one of `keys`, in index order, as tuples of its
        columns, a batch at a time."""
        scan = pl.scan_parquet(self.path).filter(pl.col("key").is_in(sorted(keys)))
        for batch in scan.collect_batches(chunk_size=BATCH_ROWS):
            yield from batch.select(list(_SCHEMA)).iter_rows()

    def families(self) -> list[tuple[str, str, str]]:
        """(jurisdiction, family, key) of every row, in index order."""
        frame = pl.scan_parquet(self.path).select("jurisdiction", "family", "key").collect()
        return list(frame.iter_rows())

    def jurisdictions(self) -> list[str]:
        """The jurisdictions the index holds, sorted."""
        frame = pl.scan_parquet(self.path).select("jurisdiction").unique().collect()
        return sorted(frame["jurisdiction"].to_list())

    def summaries(
        self,
        parts: Sequence[str] | None = None,
        *,
        jurisdiction: str | None = None,
        holding: tuple[str, str] | None = None,
        present: str | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Every summary of the index (of one jurisdiction when named), in (jurisdiction,
        family) order, read `BATCH_ROWS` at a time: its jurisdiction, family and `parts` (by
        default all `PARTS`), only those columns read and parsed. `holding` (TEXT, PART): only
        those whose PART's JSON holds TEXT; `present` (a part): only those whose part holds
        something (its JSON neither `null` nor `{}`); each found without parsing it."""
        columns = list(PARTS if parts is None else parts)
        scan = pl.scan_parquet(self.path)
        if holding is not None:
            text, part = holding
            scan = scan.filter(pl.col(part).str.contains(text, literal=True))
        if present is not None:
            scan = scan.filter(~pl.col(present).is_in(EMPTY_PARTS))
        scan = scan.select("jurisdiction", "family", *columns)
        if jurisdiction is not None:
            scan = scan.filter(pl.col("jurisdiction") == jurisdiction)
        for batch in scan.collect_batches(chunk_size=BATCH_ROWS):
            for name, family, *texts in batch.iter_rows():
                summary = {"jurisdiction": name, "family": family}
                summary.update(zip(columns, map(json.loads, texts), strict=True))
                yield summary

    def by_name(
        self, parts: Sequence[str] | None = None, *, present: str | None = None
    ) -> Iterator[dict[str, Any]]:
        """Every summary in the order of its name `jurisdiction/family`: the jurisdictions in
        the order of their name followed by `/`, each one's families in index order (a family's
        name orders them as its own does, once the jurisdiction is fixed); `parts` and
        `present` as in `summaries`."""
        for jurisdiction in self._name_order():
            yield from self.summaries(parts, jurisdiction=jurisdiction, present=present)

    def _name_order(self) -> list[str]:
        """The jurisdictions in the order of their name followed by `/` (`by_name`)."""
        return sorted(self.jurisdictions(), key=lambda j: j + "/")


def _sum(rows: pl.LazyFrame) -> pl.LazyFrame:
    """`rows`' counts summed by (jurisdiction, part, path)."""
    return rows.group_by(*_SUMMED).agg(pl.col("count").sum())


def _sorted_places(spill: Path, wanted: frozenset[str]) -> list[tuple[str, str, str, int]]:
    """(jurisdiction, family, key, byte offset in `spill`) of each wanted key's first line, in
    that order."""
    first: dict[str, tuple[str, str, str, int]] = {}
    if spill.is_file():
        with spill.open("rb") as lines:
            offset = 0
            for line in lines:
                row = json.loads(line)
                if row["key"] in wanted and row["key"] not in first:
                    first[row["key"]] = (row["jurisdiction"], row["family"], row["key"], offset)
                offset += len(line)
    return sorted(first.values())


def _read_back(spill: Path, spilled: list[tuple[str, str, str, int]]) -> Iterator[tuple[Any, ...]]:
    """The lines of `spill` at the `spilled` places, in that order, as tuples of the columns."""
    if not spilled:
        return
    with spill.open("rb") as lines:
        for *_, offset in spilled:
            lines.seek(offset)
            row = json.loads(lines.readline())
            yield tuple(row[column] for column in _SCHEMA)


_ORDER = [list(_SCHEMA).index(column) for column in ("jurisdiction", "family", "key")]


def _write_parts(
    spill: Path,
    spilled: list[tuple[str, str, str, int]],
    kept: Iterator[tuple[Any, ...]],
    folder: Path,
) -> list[Path]:
    """The `kept` rows (in index order) and the lines of `spill` at the `spilled` places (in
    the same order), merged, as Parquet files of `BATCH_ROWS` rows."""
    files: list[Path] = []
    rows: list[tuple[Any, ...]] = []

    def flush() -> None:
        if rows:
            folder.mkdir(exist_ok=True)
            files.append(folder / f"{len(files):012d}.parquet")
            pl.DataFrame(rows, schema=_SCHEMA, orient="row").write_parquet(files[-1])
            rows.clear()

    def order(row: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(row[i] for i in _ORDER)

    for row in heapq.merge(kept, _read_back(spill, spilled), key=order):
        rows.append(row)
        if len(rows) == BATCH_ROWS:
            flush()
    flush()
    return files
