"""The check of a note (C9), run from outside: a separate process reads the note and the
checksum-verified document, and only the parent writes, the ledger row first, then the pointer. A
pointer and a `confirmed` row exist only when every quote (at least one) was found."""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from workbench.cite import OccurrenceStatus, SourceIndex, find_text, index_text
from workbench.cite.verify import machine_read_caveat
from workbench.derived import code_digest
from workbench.errors import CheckerError, NoteError, WorkbenchError
from workbench.files import replace_file
from workbench.models import CatalogueRow, canonical_json
from workbench.notes.ledger import Ledger, Run
from workbench.notes.note import (
    Note,
    Quote,
    catalogue_index,
    check_pointer,
    note_key,
    notes_in,
    parse_note,
    quotes_sha256,
    with_pointer,
)
from workbench.notes.register import check_linked_quote
from workbench.notes.report import parse_report, resolve_report
from workbench.terminal import write
from workbench.workspace import version_from_row

CHECK_SCHEME = 1
# The module the child runs: this one, named as `python -m` takes it.
CHILD_MODULE = "workbench.notes.check"

# ---------------------------------------------------------------------------------------------
# The check (child side)


def find_quote(
    index: SourceIndex, quote: Quote
) -> tuple[OccurrenceStatus, tuple[tuple[int, int], ...]]:
    """A quote's status and the raw spans of all its occurrences, by the verifier's search.

    Occurrence rule (C6): found once, or a named occurrence that exists, is `found`; more than
    one occurrence and none named is `ambiguous`; a named occurrence past the last is
    `no_such_occurrence`; none is `missing`.
    """
    return find_text(index, quote.text, quote.occurrence)


def linked_reports(note: Note) -> tuple[Path, ...]:
    """The source reports the note's quotes link, resolved relative to the note, each parsed
    (a malformed or missing report raises `QuotesRegisterError`), in first-link order."""
    paths: dict[Path, None] = {}
    for quote in note.quotes:
        if quote.report is not None:
            paths.setdefault(resolve_report(note.path, quote.report, quote.line))
    for path in paths:
        parse_report(path)
    return tuple(paths)


def _linked_result(note: Note, quote: Quote) -> dict[str, Any]:
    """A linked quote's ledger entry: route, report (as `note_key` names it), status."""
    assert quote.report is not None
    report = resolve_report(note.path, quote.report, quote.line)
    check = check_linked_quote(
        report, quote.text, quote.occurrence, snapshot_required=quote.snapshot_required
    )
    return {
        "route": check.route,
        "report": note_key(report),
        "canonical_source": check.canonical_source,
        "snapshot_sha256": check.snapshot_sha256,
        "status": check.status,
        "extracts": list(check.extracts),
        "spans": [list(s) for s in check.spans],
    }


def checker_identity() -> dict[str, Any]:
    """Who ran the check: process id, interpreter, workbench version, and the SHA-256 over every
    source file of the workbench package (the check runs code in the notes stage, the verifier, the
    normalizer and the extractors; a change to any of them is a different checker)."""
    return {
        "pid": os.getpid(),
        "executable": sys.executable,
        "workbench_version": metadata.version("workbench"),
        "checker_sha256": code_digest(),
    }


def run_check(
    note_path: Path, document_path: Path, corpus_dir: Path, ocr_cache: Path | None = None
) -> dict[str, Any]:
    """The check itself, as the child runs it: read the note, find the document's catalogue row
    from the last three parts of its path, checksum first, then every quote in note order: a
    document quote in the document's extracted text, a linked quote on its report's route."""
    note = parse_note(note_path)
    catalogue = catalogue_index(corpus_dir)
    rel = "/".join(document_path.parts[-3:])
    row = catalogue.get(rel)
    if row is None:
        raise NoteError(
            f"{document_path}: not a catalogued document ({rel} is not in the catalogue)"
        )
    data = document_path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    quotes = note.quotes
    result: dict[str, Any] = {
        "scheme": CHECK_SCHEME,
        "document": rel,
        "document_sha256": digest,
        "catalogue_sha256": row.sha256,
        "quotes_sha256": quotes_sha256(quotes),
        "text_sha256": None,
        "extractor": None,
        "quotes": [],
        "checker": checker_identity(),
    }
    # CAUTION: checksum first; no word is compared against bytes the catalogue does not vouch for.
    if digest != row.sha256 or len(data) != row.size:
        result["outcome"] = "checksum_mismatch"
        return result
    from workbench.text.ocr import OcrOptions  # pypdfium2 loads only in the checking process

    version = version_from_row(row, data, ocr=OcrOptions(cache=ocr_cache))
    index = index_text(version.text)
    found = []
    for quote in quotes:
        entry: dict[str, Any] = {
            "quote": quote.text,
            "locator": quote.locator,
            "occurrence": quote.occurrence,
            "line": quote.line,
        }
        if quote.report is not None:
            entry.update(_linked_result(note, quote))
        else:
            status, spans = find_quote(index, quote)
            entry.update(status=status, spans=[list(s) for s in spans])
            if status == "found":  # the words a machine read off a scan: caveated (C6, C18)
                start, end = spans[(quote.occurrence or 1) - 1]
                machine = machine_read_caveat(version.origin, version.text, start, end)
                if machine is not None:
                    entry["caveats"] = [machine.as_json()]
        found.append(entry)
    result["text_sha256"] = version.text_sha256
    result["extractor"] = f"{version.extractor} {version.extractor_version}"
    result["quotes"] = found
    if not found:
        result["outcome"] = "no_quotes"
    elif all(q["status"] == "found" for q in found):
        result["outcome"] = "confirmed"
    else:
        result["outcome"] = "missing"
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m workbench.notes.check NOTE DOCUMENT --corpus-dir DIR [--ocr-cache DIR]`: print
    the check's JSON."""
    parser = argparse.ArgumentParser(prog=f"python -m {CHILD_MODULE}")
    parser.add_argument("note", type=Path)
    parser.add_argument("document", type=Path)
    parser.add_argument("--corpus-dir", type=Path, required=True)
    parser.add_argument("--ocr-cache", type=Path)
    args = parser.parse_args(argv)
    try:
        result = run_check(args.note, args.document, args.corpus_dir, args.ocr_cache)
    except (WorkbenchError, OSError) as exc:
        write(" ".join(str(exc).split()) + "\n", sys.stderr)
        return 2
    write(canonical_json(result) + "\n", sys.stdout)
    return 0


# ---------------------------------------------------------------------------------------------
# The check (parent side)


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckReport:
    """What `check_note` did: the ledger row, and the pointer before and after."""

    note: Path
    run: Run
    pointer_before: str | None
    pointer_after: str | None

    @property
    def confirmed(self) -> bool:
        return self.run.outcome == "confirmed"


def _spawn(
    note_path: Path, document_path: Path, corpus_dir: Path, ocr_cache: Path | None
) -> dict[str, Any]:
    command = [
        sys.executable,
        "-m",
        CHILD_MODULE,
        str(note_path),
        str(document_path),
        "--corpus-dir",
        str(corpus_dir),
        *(["--ocr-cache", str(ocr_cache)] if ocr_cache is not None else []),
    ]
    done = subprocess.run(command, capture_output=True, check=False, timeout=900)
    if done.returncode != 0:
        message = " ".join(done.stderr.decode("utf-8", "replace").split()[-80:])
        raise CheckerError(f"{note_path}: the checking process failed: {message}")
    try:
        result: dict[str, Any] = json.loads(done.stdout)
    except ValueError as exc:
        raise CheckerError(f"{note_path}: the checking process printed no JSON result") from exc
    return result


def resolve_document(note: Note, against: Path | None, store: Path) -> Path:
    """The file to check against: `against`, else the note's pointer, else its `document`, each
    catalogue path taken under `store`."""
    if against is not None:
        return against
    named = note.pointer or note.get("document")
    if named is None:
        raise NoteError(f"{note.path}: field document: no --against, pointer or document to check")
    return store / named


def _checked_run(
    note: Note,
    document: Path,
    rel: str,
    corpus_dir: Path,
    ledger: Ledger,
    now: dt.datetime | None,
    ocr_cache: Path | None,
) -> Run:
    """Run the check of `note` against `document` (catalogue path `rel`) in a separate process,
    hold its answer to the note and the document asked for, and append it to the ledger."""
    note_path = note.path
    result = _spawn(note_path, document, corpus_dir, ocr_cache)
    if result.get("scheme") != CHECK_SCHEME or result.get("document") != rel:
        raise CheckerError(f"{note_path}: the checking process answered for another document")
    if result["quotes_sha256"] != quotes_sha256(note.quotes):
        raise CheckerError(f"{note_path}: the note's quotes changed while it was being checked")
    # CAUTION: re-derived here, not taken from the child: confirmed means quotes, all found.
    quotes = result["quotes"]
    if result["outcome"] == "confirmed" and not (
        len(quotes) == len(note.quotes) > 0 and all(q["status"] == "found" for q in quotes)
    ):
        raise CheckerError(f"{note_path}: the checking process said confirmed without quotes")
    moment = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
    return ledger.append(note_key(note_path), result, moment.isoformat(timespec="seconds"))


def recheck_note(
    note_path: Path,
    document: str,
    *,
    corpus_dir: Path,
    store: Path,
    ledger: Ledger,
    now: dt.datetime | None = None,
    ocr_cache: Path | None = None,
) -> Run:
    """Check a note's quotes against `document` (a catalogue path: a version newer than the one
    the note points at) exactly as `check_note` does, in a separate process, and record the run;
    the note itself is never written (its pointer names the version its quotes were confirmed in,
    and that stays true whatever a newer version holds)."""
    note = parse_note(note_path)
    catalogue = catalogue_index(corpus_dir)
    check_pointer(note, catalogue)
    if document not in catalogue:
        raise NoteError(f"{note_path}: {document} is not in the catalogue")
    path = store / document
    if not path.is_file():
        raise NoteError(f"{note_path}: {path}: no such file (fetch the corpus?)")
    return _checked_run(note, path, document, corpus_dir, ledger, now, ocr_cache)


def check_note(
    note_path: Path,
    *,
    against: Path | None,
    corpus_dir: Path,
    store: Path,
    ledger: Ledger,
    now: dt.datetime | None = None,
    ocr_cache: Path | None = None,
    catalogue: Mapping[str, CatalogueRow] | None = None,
) -> CheckReport:
    """Check one note in a separate process, then record the run and set or clear the pointer.
    A scanned page of the document is read through the OCR cache `ocr_cache` (None: none; every
    scanned page is read by the engine again). The catalogue in `corpus_dir` is read here unless
    the caller has read it (`catalogue`, its rows by path: a batch reads the file once).

    Bad input (a malformed note, a pointer or document outside the catalogue, a file that is not a
    catalogued document, a linked source report that is missing or malformed) raises before
    anything is written. A confirmed run sets the pointer to the
    checked document; a run with quotes missing clears the pointer when it named that document;
    a checksum mismatch or a note with no quotes leaves the note as it was. A quote linking a source
    report counts like a document quote (`confirmed` needs every quote found, on every route).
    """
    note = parse_note(note_path)
    if catalogue is None:
        catalogue = catalogue_index(corpus_dir)
    check_pointer(note, catalogue)
    linked_reports(note)
    document = resolve_document(note, against, store)
    rel = "/".join(document.parts[-3:])
    if rel not in catalogue:
        raise NoteError(f"{note_path}: --against {document}: {rel} is not in the catalogue")
    if not document.is_file():
        raise NoteError(f"{note_path}: --against {document}: no such file (fetch the corpus?)")
    run = _checked_run(note, document, rel, corpus_dir, ledger, now, ocr_cache)
    before = note.pointer
    after = before
    if run.outcome == "confirmed":
        after = rel
    elif run.outcome == "missing" and before == rel:
        after = None
    if after != before:
        replace_file(note_path, with_pointer(note, after))
    return CheckReport(note=note_path, run=run, pointer_before=before, pointer_after=after)


def check_notes(
    folder: Path,
    *,
    corpus_dir: Path,
    store: Path,
    ledger: Ledger,
    ocr_cache: Path | None = None,
) -> tuple[CheckReport, ...]:
    """`check_note` over every note in `folder` (see `notes_in`), in path order, each against its
    pointer or else its `document`. Every note is parsed and its fields checked against the
    catalogue first: one bad note stops the batch before any run is made or any file written."""
    catalogue = catalogue_index(corpus_dir)
    paths = notes_in(folder)
    for path in paths:
        note = parse_note(path)
        check_pointer(note, catalogue)
        resolve_document(note, None, store)
        linked_reports(note)
    return tuple(
        check_note(
            path,
            against=None,
            corpus_dir=corpus_dir,
            store=store,
            ledger=ledger,
            ocr_cache=ocr_cache,
            catalogue=catalogue,
        )
        for path in paths
    )


if __name__ == "__main__":
    raise SystemExit(main())
