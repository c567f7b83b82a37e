"""The catalogue file (C3): one canonical JSON line per admitted document, sorted, with a checksum
file pinning its bytes and a list of what was refused. `read_catalogue` returns rows only from bytes
that match their checksum and whose every record passes."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from workbench.corpus.admission import Admission, admit, merge_admission
from workbench.corpus.provenance import (
    MAX_PROVENANCE_BYTES,
    check_provenance_record,
    check_relative_path,
    parse_provenance,
)
from workbench.errors import CatalogueError
from workbench.files import replace_file, replace_file_with
from workbench.models import CatalogueRow, Refusal, canonical_json, strict_json

CATALOGUE_NAME = "catalogue.jsonl"
CHECKSUM_NAME = "catalogue.jsonl.sha256"
REFUSALS_NAME = "refusals.jsonl"


def admit_into_catalogue(
    mirror: Path, corpus_dir: Path, *, progress: bool = False
) -> tuple[Admission, Admission]:
    """Admit `mirror` and fold it into the catalogue in `corpus_dir` (`fold_into_catalogue`).

    Returns (this admission, the merged catalogue). Which folder is the right one for a mirror is
    `home.corpus_home`'s rule; this writes where it is told.
    """
    admission = admit(mirror, progress=progress)
    merged, _ = fold_into_catalogue(admission, corpus_dir)
    return admission, merged


def fold_into_catalogue(
    admission: Admission, corpus_dir: Path, *, existing: Iterable[CatalogueRow] | None = None
) -> tuple[Admission, str | None]:
    """Fold `admission` into the catalogue in `corpus_dir` and write it back: the merged
    catalogue, and the SHA-256 of the catalogue written (None when nothing was written).

    The catalogue there, if any, is read (and its checksum checked) first, unless the caller has
    just read it (`existing`); `merge_admission` keeps every row it holds; unchanged files are
    not rewritten (`write_catalogue`). An admission that admitted nothing writes nothing, not
    even its refusals: a failed admission leaves every file as it was.
    """
    if existing is None:
        existing = read_catalogue(corpus_dir) if (corpus_dir / CATALOGUE_NAME).is_file() else ()
    merged = merge_admission(existing, admission)
    return merged, write_catalogue(merged, corpus_dir) if admission.rows else None


def catalogue_lines(rows: Iterable[CatalogueRow]) -> Iterator[str]:
    """The catalogue's lines, sorted, made one at a time (so a catalogue is written without
    its whole text held). Rows have distinct paths, as every admission and merge gives them.

    A line is `{"path":P,...` with P the JSON string of its path, and of two such strings
    neither is the other's beginning (each ends at its first unescaped quote), so the lines sort
    as those strings do: sorting the rows by them sorts the lines."""
    for row in sorted(rows, key=lambda r: line_key(r.path)):
        yield catalogue_line(row)


def catalogue_line(row: CatalogueRow) -> str:
    """The row's catalogue line, its line feed included: `canonical_json` of its path and
    record, which puts "path" first ("path" sorts before "provenance")."""
    return '{"path":' + line_key(row.path) + ',"provenance":' + row.text + "}\n"


def line_key(path: str) -> str:
    """What the catalogue's lines are sorted by: the JSON string of the row's path."""
    return json.dumps(path, ensure_ascii=False)


def catalogue_bytes(rows: Iterable[CatalogueRow]) -> bytes:
    return "".join(catalogue_lines(rows)).encode("utf-8")


def refusals_bytes(refusals: Iterable[Refusal]) -> bytes:
    lines = []
    for r in refusals:
        item = r.as_json()
        if r.provenance is not None:
            item["provenance"] = dict(r.provenance)
        lines.append(canonical_json(item) + "\n")
    return "".join(sorted(lines)).encode("utf-8")


def json_lines(text: str) -> list[str]:
    """The lines of a JSON-lines text: split at line feeds only, the last one's empty tail
    dropped. (`str.splitlines` also splits at U+0085, U+2028 and U+2029, which JSON written
    with `ensure_ascii=False` holds unescaped inside strings: a provenance quoting a web page.)"""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def read_refusals(corpus_dir: Path) -> tuple[Refusal, ...]:
    """The refusals recorded beside the catalogue (empty if none were recorded)."""
    path = corpus_dir / REFUSALS_NAME
    if not path.is_file():
        return ()
    refusals = []
    for number, line in enumerate(json_lines(path.read_text(encoding="utf-8")), start=1):
        try:
            item = json.loads(line)
            refusals.append(
                Refusal(
                    path=item["path"],
                    reason=item["reason"],
                    detail=item["detail"],
                    provenance=item.get("provenance"),
                )
            )
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise CatalogueError(f"{path}: line {number}: {exc}") from exc
    return tuple(refusals)


def read_refused(corpus_dir: Path) -> tuple[CatalogueRow, ...]:
    """Refused documents whose provenance parsed (transcriptions), as rows `fetch` can bring in.

    They are fetched into their own folder so that admission's refusals can be re-checked on a
    machine that has no mirror; they never enter the workspace.
    """
    return tuple(
        CatalogueRow.of(r.path, r.provenance)
        for r in read_refusals(corpus_dir)
        if isinstance(r.provenance, dict)
        and check_relative_path(r.path, field="path") is None
        and r.path.count("/") == 2
    )


def _write_if_changed(path: Path, data: bytes) -> None:
    if path.exists() and path.read_bytes() == data:
        return
    replace_file(path, data, mode=0o644)


def write_catalogue(admission: Admission, corpus_dir: Path) -> str:
    """Write catalogue, its checksum and the refusals list; unchanged files are not rewritten.
    Returns the catalogue's SHA-256."""
    return write_catalogue_lines(catalogue_lines(admission.rows), admission.refusals, corpus_dir)


def write_catalogue_lines(
    lines: Iterable[str], refusals: Iterable[Refusal], corpus_dir: Path
) -> str:
    """`write_catalogue` from the catalogue's lines, in order, each made as it is written (a
    workspace streams them from its table). Returns the catalogue's SHA-256."""
    return write_catalogue_bytes((line.encode("utf-8") for line in lines), refusals, corpus_dir)


def write_catalogue_bytes(
    pieces: Iterable[bytes], refusals: Iterable[Refusal], corpus_dir: Path
) -> str:
    """`write_catalogue_lines` from the catalogue's bytes, piece by piece (`spliced_lines`)."""
    corpus_dir.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()

    def write(temporary: Path) -> None:
        with temporary.open("xb") as out:
            for data in pieces:
                digest.update(data)
                out.write(data)

    replace_file_with(corpus_dir / CATALOGUE_NAME, write, mode=0o644, keep_if_equal=True)
    _write_if_changed(
        corpus_dir / CHECKSUM_NAME,
        f"{digest.hexdigest()}  {CATALOGUE_NAME}\n".encode(),
    )
    _write_if_changed(corpus_dir / REFUSALS_NAME, refusals_bytes(refusals))
    return digest.hexdigest()


_RECORD = b',"provenance":'  # what ends a line's key: a JSON string holds no unescaped quote


def spliced_lines(data: bytes, lines: Iterable[str]) -> Iterator[bytes]:
    """The bytes of the catalogue `data` with `lines` put in, piece by piece: each a whole
    catalogue line, sorted, of distinct paths; one whose path `data` holds replaces that line,
    any other goes where its path sorts, and the bytes between are copied as they stand. The
    lines sort as their keys' UTF-8 bytes do (code point order, as `catalogue_lines` sorts), so
    each place is found by bisecting `data` on its line starts: equal to `catalogue_lines` of
    the catalogue's rows and the new ones."""
    position = 0
    for line in lines:
        new = line.encode("utf-8")
        key = new[8 : new.index(_RECORD)]  # after `{"path":`
        at = _first_line_from(data, position, key)
        yield data[position:at]
        yield new
        position = at
        if at < len(data) and _key_at(data, at) == key:
            position = data.index(b"\n", at) + 1  # the line it replaces
    yield data[position:]


def _key_at(data: bytes, start: int) -> bytes:
    return data[start + 8 : data.index(_RECORD, start)]


def _first_line_from(data: bytes, lo: int, key: bytes) -> int:
    """The start of the first line at or after `lo` (a line start) whose key is not below
    `key` (the end of `data` if none)."""
    hi = len(data)
    while lo < hi:
        newline = data.rfind(b"\n", lo, (lo + hi) // 2)
        start = lo if newline < 0 else newline + 1
        if _key_at(data, start) < key:
            lo = data.index(b"\n", start) + 1
        else:
            hi = start
    return lo


class Catalogue(tuple[CatalogueRow, ...]):
    """A catalogue's rows, in its order, with the SHA-256 of the bytes they were read from."""

    sha256: str

    def __new__(cls, rows: Iterable[CatalogueRow], sha256: str) -> Catalogue:
        made = super().__new__(cls, rows)
        made.sha256 = sha256
        return made

    def __getnewargs__(self) -> tuple[tuple[CatalogueRow, ...], str]:
        return (tuple(self), self.sha256)


def catalogue_sha256(corpus_dir: Path) -> str:
    """The catalogue's SHA-256, checked against its checksum file (`CatalogueError`, one line:
    no catalogue, no readable checksum, or bytes that differ), hashed as the file is read (its
    bytes are not held: a reader whose rows a workspace holds needs only this)."""
    with _catalogue_file(corpus_dir).open("rb") as handle:
        return _checked(corpus_dir, hashlib.file_digest(handle, "sha256").hexdigest())


def expected_sha256(corpus_dir: Path) -> str:
    """The SHA-256 the catalogue's checksum file names (`CatalogueError` when it cannot be read):
    what a reader compares with what it holds before it reads the catalogue's bytes, once."""
    _catalogue_file(corpus_dir)  # no catalogue is said first
    checksum_path = corpus_dir / CHECKSUM_NAME
    try:
        return checksum_path.read_text(encoding="ascii").split()[0]
    except (OSError, UnicodeDecodeError, IndexError) as exc:
        raise CatalogueError(f"{checksum_path}: missing or unreadable catalogue checksum") from exc


def _catalogue_file(corpus_dir: Path) -> Path:
    path = corpus_dir / CATALOGUE_NAME
    if not path.is_file():
        raise CatalogueError(f"{path}: no catalogue; run 'workbench corpus admit DIR' first")
    return path


def _checked(corpus_dir: Path, actual: str) -> str:
    """`actual` when the checksum file names it, else `CatalogueError`."""
    expected = expected_sha256(corpus_dir)
    if actual != expected:
        path = corpus_dir / CATALOGUE_NAME
        raise CatalogueError(
            f"{path}: sha256 {actual} does not match {CHECKSUM_NAME} ({expected}); the catalogue was edited"
        )
    return actual


def read_catalogue(corpus_dir: Path) -> Catalogue:
    """The catalogue's rows, every record checked, read a line at a time as its bytes are
    hashed (the file's bytes are never held whole). No row is returned, and no record's
    problem is raised, before the bytes are found to match the checksum file: an edited
    catalogue is refused as edited."""
    path = _catalogue_file(corpus_dir)
    digest = hashlib.sha256()
    rows: list[CatalogueRow] = []
    problem: tuple[int, Exception] | None = None  # the first broken line, said once checked
    with path.open("rb") as handle:
        for number, data in enumerate(handle, start=1):  # split at line feeds only
            digest.update(data)
            if problem is None:
                try:
                    rows.append(_row_of(data.removesuffix(b"\n").decode("utf-8")))
                except (ValueError, KeyError, TypeError) as exc:
                    problem = (number, exc)
    actual = _checked(corpus_dir, digest.hexdigest())
    if problem is not None:
        number, cause = problem
        raise CatalogueError(f"{path}: line {number}: {cause}") from cause
    return Catalogue(rows, actual)


def _row_of(line: str) -> CatalogueRow:
    """One catalogue line's row, its path and record checked (`ValueError` and the like)."""
    item = strict_json(line, CatalogueError)
    rel, record = item["path"], item["provenance"]
    if problem := check_relative_path(rel, field="path"):
        raise CatalogueError(problem)
    if rel.count("/") != 2:
        raise CatalogueError(f"path {rel!r} is not <jurisdiction>/<family>/<file>")
    # A line longer than a sidecar may be has its record measured as the line holds it
    # (canonical JSON, UTF-8: never longer than the sidecar admitted) and refused as
    # admit refuses the sidecar.
    if len(line) > MAX_PROVENANCE_BYTES:
        parse_provenance(canonical_json(record).encode("utf-8"), source=rel)
    else:
        check_provenance_record(record, source=rel)
    return CatalogueRow.of(rel, record)
