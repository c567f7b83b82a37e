"""A CSV manifest (C3, C14): one row per file to add, its columns named like `workbench corpus
add`'s options, read into `DocumentSpec`s whose problems are listed with the specs' own, all or
nothing."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

from workbench.corpus.add import AddReport, DocumentSpec, add_documents
from workbench.errors import AddError

MANIFEST_COLUMNS = (
    "file",
    "jurisdiction",
    "family",
    "url",
    "mirror",
    "official",
    "order",
    "label",
    "date",
    "issuer",
    "docket",
    "language",
    "name",
    "line_numbered",
)
_REQUIRED_COLUMNS = ("file", "jurisdiction", "family", "official")


def _flag(text: str, where: str, problems: list[str]) -> bool | None:
    value = text.strip().lower()
    if value in ("true", "false"):
        return value == "true"
    problems.append(f"{where}: expected true or false, got {text[:80]!r}")
    return None


def add_from_manifest(manifest: Path, into: Path, *, retrieved_at: str | None = None) -> AddReport:
    """`add_documents` for the rows of a CSV manifest; every row is checked before any write.

    A header problem raises AddError at once (the rows cannot be read without it); otherwise every
    cell a row cannot be read from and every problem `add_documents` finds are listed together in
    one AddError, each naming `<manifest> row N, column 'C'`.

    The manifest is UTF-8 (an optional BOM), comma-separated, with a header row naming its
    columns: `file`, `jurisdiction`, `family` and `official` are required, the others
    (`MANIFEST_COLUMNS`) optional; an unknown or repeated column is refused. Rows are numbered as
    a spreadsheet numbers them (the header is row 1); rows whose cells are all empty are skipped.
    `file` is relative to the manifest's folder (an absolute path is taken as is); `name` is the
    copy's file name and `language` the documents' language tag, as `corpus add --name/--language`; `official` and
    `line_numbered` are `true` or `false` (any case); an empty cell is a value not given. An empty
    `order` gives the row its 1-based place among the manifest's rows of the same jurisdiction and
    family.
    """
    try:
        raw = manifest.read_bytes()
    except OSError as exc:
        raise AddError(f"{manifest}: cannot read the manifest ({exc.strerror})") from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise AddError(f"{manifest}: the manifest is not UTF-8 (byte {exc.start})") from exc
    try:
        rows = list(csv.reader(text.splitlines()))
    except csv.Error as exc:
        raise AddError(f"{manifest}: malformed CSV: {exc}") from exc
    if not rows:
        raise AddError(f"{manifest}: empty manifest; expected a header row naming its columns")
    header = [cell.strip() for cell in rows[0]]
    problems = [
        f"{manifest}: column {name!r} is not one of {', '.join(MANIFEST_COLUMNS)}"
        for name in header
        if name not in MANIFEST_COLUMNS
    ]
    problems += [
        f"{manifest}: column {n!r} appears twice" for n, c in Counter(header).items() if c > 1
    ]
    problems += [f"{manifest}: column {n!r} missing" for n in _REQUIRED_COLUMNS if n not in header]
    if "url" not in header and "mirror" not in header:
        problems.append(f"{manifest}: columns 'url' and 'mirror' missing (one is needed)")
    if problems:
        raise AddError("; ".join(problems))
    specs: list[DocumentSpec] = []
    places: Counter[tuple[str, str]] = Counter()
    for number, cells in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in cells):
            continue
        origin = f"{manifest.name} row {number}"
        if len(cells) != len(header):
            problems.append(f"{origin}: expected {len(header)} cells, got {len(cells)}")
            continue
        row = {name: (cell.strip() or None) for name, cell in zip(header, cells, strict=True)}
        places[(row["jurisdiction"] or "", row["family"] or "")] += 1
        official = None
        if row["official"] is not None:
            official = _flag(row["official"], f"{origin}, column 'official'", problems)
        line_numbered = False
        if row.get("line_numbered") is not None:
            line_numbered = bool(
                _flag(str(row["line_numbered"]), f"{origin}, column 'line_numbered'", problems)
            )
        order = places[(row["jurisdiction"] or "", row["family"] or "")]
        if row.get("order") is not None:
            try:
                order = int(str(row["order"]))
            except ValueError:
                problems.append(
                    f"{origin}, column 'order': expected an integer of at least 1, got {row['order']!r}"
                )
        if row["file"] is None:
            problems.append(f"{origin}, column 'file': missing")
            continue  # nothing to place; the row's other cells are still read above
        specs.append(
            DocumentSpec(
                file=manifest.parent / row["file"],
                jurisdiction=row["jurisdiction"],
                family=row["family"],
                official=official,
                order=order,
                url=row.get("url"),
                mirror=row.get("mirror"),
                label=row.get("label"),
                date=row.get("date"),
                issuer=row.get("issuer"),
                docket=row.get("docket"),
                language=row.get("language"),
                name=row.get("name"),
                line_numbered=line_numbered,
                origin=origin,
            )
        )
    if not specs and not problems:
        raise AddError(f"{manifest}: no rows; expected one row per file to add")
    return add_documents(specs, into, retrieved_at=retrieved_at, problems=problems)
