"""The files `workbench diff` writes (C7): the change table, one row per change as CSV or Parquet,
and the redline page, each path refused before anything is computed when it cannot take the file
(`writable`, which the Word redline's writer also calls). What each holds: docs/diff.md."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.changes.redline import Section, change_json
from workbench.errors import RedlineError
from workbench.files import replace_file_with

if TYPE_CHECKING:
    import polars as pl


def change_frame(sections: Sequence[Section]) -> pl.DataFrame:
    """One row per change, in section order and then the diff's order (polars).

    Columns: the two version ids; the change's id, kind, labels, similarity, confidence, cap and
    doubt (`uncertain`, and `doubt` its reasons joined by "; "); the origins each side touches
    (joined by "+"); each side's offsets, narrowed offsets and first and last page (null where
    the side, span or page map is missing); each side's text and narrowed text (`change_json`).
    """
    import polars as pl

    integer, text = pl.Int64, pl.String
    schema: dict[str, Any] = {
        "before_id": text,
        "after_id": text,
        "change_id": text,
        "kind": text,
        "before_label": text,
        "after_label": text,
        "similarity": pl.Float64,
        "alignment_confidence": pl.Float64,
        "capped": pl.Boolean,
        "uncertain": pl.Boolean,
        "doubt": text,
        "before_origin": text,
        "after_origin": text,
        **{
            f"{side}_{field_}": integer
            for side in ("before", "after", "span_before", "span_after")
            for field_ in ("start", "end")
        },
        **{
            f"{side}_{end}_page": integer
            for side in ("before", "after")
            for end in ("first", "last")
        },
        "before_text": text,
        "after_text": text,
        "span_before_text": text,
        "span_after_text": text,
    }
    rows = []
    for part in sections:
        for r in part.shown:
            described = change_json(r)
            row = {
                "before_id": part.before.version_id,
                "after_id": part.after.version_id,
                **{k: described[k] for k in schema if k in described and k != "doubt"},
                "doubt": "; ".join(r.doubt),
                "before_origin": "+".join(r.change.before_origin),
                "after_origin": "+".join(r.change.after_origin),
            }
            for side in ("before", "after", "span_before", "span_after"):
                span = described[side]
                row[f"{side}_start"] = span["char_start"] if span else None
                row[f"{side}_end"] = span["char_end"] if span else None
            for side in ("before", "after"):
                pages = described[f"{side}_pages"]
                row[f"{side}_first_page"] = pages[0] if pages else None
                row[f"{side}_last_page"] = pages[1] if pages else None
            rows.append(row)
    return pl.DataFrame(rows, schema=schema)


def writable(path: Path, what: str) -> None:
    """Refuse, before anything is written, a path that cannot take `what`: a folder, something
    other than a regular file, or a file in a folder that does not exist."""
    if path.is_dir():
        raise RedlineError(f"{path}: a folder; expected a file to write {what} to")
    if path.exists() and not path.is_file():
        raise RedlineError(f"{path}: not a regular file; expected a file to write {what} to")
    if not path.parent.is_dir():
        raise RedlineError(f"{path}: folder {path.parent} does not exist; cannot write {what}")


def write_page(path: Path, page: str) -> None:
    """Write the redline page (UTF-8) to `path`, replacing a file there (rules in `writable`)."""
    writable(path, "the redline page")
    data = page.encode("utf-8")

    def write(temporary: Path) -> None:
        with temporary.open("xb") as handle:
            handle.write(data)

    replace_file_with(path, write)


def export_target(form: str, path: Path) -> None:
    """Refuse an unknown export format (`tables.check_format`), or a path `writable` refuses."""
    from workbench.tables import check_format

    check_format(form)
    writable(path, f"the {form} change table")


def write_table(frame: pl.DataFrame, form: str, path: Path) -> None:
    """Write the change table as CSV or Parquet to `path` (`export_target`, `tables.write_frame`)."""
    from workbench.tables import write_frame

    export_target(form, path)
    write_frame(frame, path, form)
