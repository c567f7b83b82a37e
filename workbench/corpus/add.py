"""Placing a researcher's own files in mirror layout, each with the provenance admission reads (C3):
all or nothing, nothing already there moved, and the same bytes and facts a second time writing
nothing. What is asked and what is computed: docs/corpus.md."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.corpus.provenance import (
    PROVENANCE_FIELDS,
    PROVENANCE_SUFFIX,
    check_source_url,
    file_name_problem,
    name_problem,
    parse_provenance,
    provenance_file_bytes,
)
from workbench.errors import AddError, ProvenanceError
from workbench.models import Refusal

EXTRACTION_NOTE = "Bytes copied unchanged by 'workbench corpus add' from the researcher's file."
MARKDOWN_SUFFIXES = (".md", ".markdown")
# The option each spec field comes from, to name it in a problem when no manifest row is involved.
_OPTION = {
    "jurisdiction": "--jurisdiction",
    "family": "--family",
    "url": "--url",
    "mirror": "--mirror",
    "official": "--official/--transcription",
    "order": "--order",
    "label": "--label",
    "language": "--language",
    "date": "--date",
    "issuer": "--issuer",
    "docket": "--docket",
    "name": "--name",
}
_MIRROR = re.compile(
    r"(?P<repo>[A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-]+)@(?P<commit>[0-9a-f]{40}):(?P<path>.+)"
)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_LANGUAGE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{1,8})*")  # BCP 47: a language, then subtags
_ROOT_ELEMENT = re.compile(r"<[A-Za-z_][\w.:\-]*[\s/>]")
_HTML = re.compile(r"<(!doctype\s+html|html)[\s>]", re.IGNORECASE)


@dataclass(frozen=True, slots=True, kw_only=True)
class DocumentSpec:
    """What a researcher says about one file to add; `add_documents` checks every value.

    `mirror` is `OWNER/NAME@COMMIT:PATH` as typed. `official` is True for the issuer's own bytes,
    False for a transcription, None when not said (a problem: there is no default). `origin` names
    the manifest row a spec came from (e.g. `manifest.csv row 3`), so that a problem names that
    row and its column; None means the values came from the command's options.
    """

    file: Path
    jurisdiction: str | None
    family: str | None
    official: bool | None
    order: int
    url: str | None = None
    mirror: str | None = None
    label: str | None = None
    date: str | None = None
    issuer: str | None = None
    docket: str | None = None
    line_numbered: bool = False
    origin: str | None = None
    language: str | None = None  # a BCP 47 tag; OCR of scanned pages reads in it (English if None)
    name: str | None = None

    @property
    def placed_name(self) -> str:
        """The copy's file name: `name` when given, else the file's own."""
        return self.name if self.name is not None else self.file.name


@dataclass(frozen=True, slots=True, kw_only=True)
class Placement:
    """One file placed (or found already placed): its path under `into`, its provenance, and
    which of its two files this run wrote (empty when both were already there, equal)."""

    path: str
    provenance: Mapping[str, Any]
    written: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class AddReport:
    """What `add_documents` did: placements in the order given, or refusals and nothing written."""

    placements: tuple[Placement, ...]
    refusals: tuple[Refusal, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class _Planned:
    spec: DocumentSpec
    path: str
    data: bytes
    record: dict[str, Any]


# ---------------------------------------------------------------------------------------------
# Computed fields


def sniff_media_type(data: bytes, *, name: str) -> str:
    """The media type of a document's bytes; AddError (naming `name`) if it is none we read.

    Rules, first match wins: bytes starting `%PDF-` are `application/pdf`; anything else must be
    non-empty UTF-8 (an optional BOM) without NUL bytes. After the BOM and leading white space, text
    opening with an HTML doctype or an `<html>` element is `text/html`; text opening with `<?xml`,
    `<!DOCTYPE` or an element (`<name` then a space, `/` or `>`) is `application/xml`; text of a
    file named `*.md` or `*.markdown` is `text/markdown`; any other text is `text/plain`.
    """
    if not data:
        raise AddError(f"{name}: empty file; expected a document's bytes")
    if data.startswith(b"%PDF-"):
        return "application/pdf"
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start + len(data) - len(body)
        raise AddError(
            f"{name}: neither a PDF nor UTF-8 text (invalid UTF-8 at byte {offset})"
        ) from exc
    if "\x00" in text:
        offset = text.index("\x00")
        raise AddError(f"{name}: neither a PDF nor UTF-8 text (NUL at character {offset})")
    head = text.lstrip()[:1024]
    if _HTML.match(head):
        return "text/html"
    if head.startswith(("<?xml", "<!DOCTYPE")) or _ROOT_ELEMENT.match(head):
        return "application/xml"
    if name.lower().endswith(MARKDOWN_SUFFIXES):
        return "text/markdown"
    return "text/plain"


def git_blob_id(data: bytes) -> str:
    """The id git gives these bytes as a blob (SHA-1 of `blob <size>\\0` and the bytes)."""
    return hashlib.sha1(b"blob %d\x00" % len(data) + data, usedforsecurity=False).hexdigest()


def now_utc() -> str:
    """Now in UTC to the second, as `retrieved_at` records it."""
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


# ---------------------------------------------------------------------------------------------
# Checking specs


def _where(spec: DocumentSpec, field: str) -> str:
    return _OPTION[field] if spec.origin is None else f"{spec.origin}, column '{field}'"


def _component_problem(spec: DocumentSpec, field: str, value: str | None) -> str | None:
    where = _where(spec, field)
    if value is None or not value:
        return f"{where}: missing"
    if problem := name_problem(value):
        return f"{where}: expected a name a version id can carry, got {value[:80]!r} ({problem})"
    return None


def _file_problem(spec: DocumentSpec) -> tuple[str, bytes | None]:
    """(problem or "", bytes): the file must be a regular, readable, safely named document."""
    prefix = "" if spec.origin is None else f"{spec.origin}, column 'file': "
    name = spec.file.name
    if spec.file.is_symlink():
        return f"{prefix}{spec.file}: a symlink; give the file itself", None
    if not spec.file.exists():
        return f"{prefix}{spec.file}: no such file", None
    if spec.file.is_dir():
        return f"{prefix}{spec.file}: a directory; expected a file", None
    if not spec.file.is_file():
        return f"{prefix}{spec.file}: not a regular file", None
    if spec.name is not None:
        if problem := file_name_problem(spec.name):
            return (
                f"{_where(spec, 'name')}: expected a name a version id can carry, got "
                f"{spec.name[:80]!r} ({problem})"
            ), None
    elif problem := file_name_problem(name):
        return (
            f"{prefix}{spec.file}: expected a file name a version id can carry ({problem}); "
            "name the copy with --name"
        ), None
    try:
        data = spec.file.read_bytes()
    except OSError as exc:
        return f"{prefix}{spec.file}: cannot be read ({exc.strerror})", None
    return "", data


def _mirror_field(spec: DocumentSpec, data: bytes) -> tuple[str | None, dict[str, Any] | None]:
    """(problem, the provenance `mirror` object) from `OWNER/NAME@COMMIT:PATH`.

    A PATH ending in `/` names the repository folder holding the file: the file's own name is
    appended. The blob id is computed from the bytes being added.
    """
    if spec.mirror is None:
        return None, None
    match = _MIRROR.fullmatch(spec.mirror)
    path = "" if match is None else match["path"]
    if path.endswith("/"):
        path += spec.file.name
    if match is None or any(part in ("", ".", "..") for part in path.split("/")):
        return (
            f"{_where(spec, 'mirror')}: expected OWNER/NAME@COMMIT:PATH (a 40-hex commit and a "
            f"relative path), got {spec.mirror[:80]!r}"
        ), None
    return None, {
        "repo": match["repo"],
        "path": path,
        "commit": match["commit"],
        "blob": git_blob_id(data),
    }


def _date_problem(spec: DocumentSpec) -> str | None:
    if spec.date is None:
        return None
    try:
        if not _DATE.fullmatch(spec.date):
            raise ValueError(spec.date)
        dt.date.fromisoformat(spec.date)
    except ValueError:
        return f"{_where(spec, 'date')}: expected a date YYYY-MM-DD, got {spec.date[:80]!r}"
    return None


def _plan(spec: DocumentSpec, retrieved_at: str) -> tuple[list[str], _Planned | None]:
    """Every problem of one spec, or its planned placement and provenance record."""
    problems = [
        p
        for p in (
            _component_problem(spec, "jurisdiction", spec.jurisdiction),
            _component_problem(spec, "family", spec.family),
        )
        if p
    ]
    file_problem, data = _file_problem(spec)
    if file_problem:
        problems.append(file_problem)
    if spec.url is None and spec.mirror is None:
        problems.append(
            f"{_where(spec, 'url')} or {_where(spec, 'mirror')}: missing "
            "(one of them must name where the bytes come from)"
        )
    if spec.url is not None and (problem := check_source_url(spec.url)):
        problems.append(f"{_where(spec, 'url')}: {problem}, got {spec.url[:80]!r}")
    mirror_problem, mirror = _mirror_field(spec, data or b"")
    if mirror_problem:
        problems.append(mirror_problem)
    if spec.official is None:
        problems.append(f"{_where(spec, 'official')}: missing (no default: say which)")
    if spec.order < 1:
        problems.append(
            f"{_where(spec, 'order')}: expected an integer of at least 1, got {spec.order}"
        )
    if problem := _date_problem(spec):
        problems.append(problem)
    if spec.language is not None and not _LANGUAGE.fullmatch(spec.language):
        problems.append(
            f"{_where(spec, 'language')}: expected a language tag such as en, de or fr-CA, "
            f"got {spec.language[:80]!r}"
        )
    media_type = None
    if data is not None:
        try:
            media_type = sniff_media_type(data, name=str(spec.file))
        except AddError as exc:
            prefix = "" if spec.origin is None else f"{spec.origin}, column 'file': "
            problems.append(prefix + str(exc))
    if problems or data is None or media_type is None:
        return problems, None
    values: dict[str, Any] = {
        "source_url": spec.url,
        "mirror": mirror,
        "jurisdiction": spec.jurisdiction,
        "docket_or_bill": spec.docket,
        "document_family": spec.family,
        "version_label": spec.label,
        "version_order": spec.order,
        "filer_or_issuer": spec.issuer,
        "filing_date": spec.date,
        "retrieved_at": retrieved_at,
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
        "format": media_type,
        "line_numbered": spec.line_numbered,
        "byte_faithful_to_official_filing": spec.official,
        "license_note": None,
        "extraction_note": EXTRACTION_NOTE,
    }
    record = {name: values[name] for name in PROVENANCE_FIELDS}
    if spec.language is not None:  # optional: absent, a scan is read as English
        record["language"] = spec.language
    path = f"{spec.jurisdiction}/{spec.family}/{spec.placed_name}"
    # CAUTION: the record is checked by admission's own parser before anything is written, so
    # `add` can never write a provenance that `admit` would call malformed.
    parse_provenance(provenance_file_bytes(record), source=path + PROVENANCE_SUFFIX)
    return [], _Planned(spec=spec, path=path, data=data, record=record)


def _clashes(plans: Sequence[_Planned]) -> list[str]:
    """Two specs placing one path, or giving one family the same version_order twice."""
    problems = []
    for path, count in Counter(p.path for p in plans).items():
        if count > 1:
            files = ", ".join(str(p.spec.file) for p in plans if p.path == path)
            problems.append(f"{files}: all would be placed at {path}")
    orders = Counter((p.spec.jurisdiction, p.spec.family, p.spec.order) for p in plans)
    for (jurisdiction, family, order), count in orders.items():
        if count > 1:
            files = ", ".join(
                str(p.spec.file)
                for p in plans
                if (p.spec.jurisdiction, p.spec.family, p.spec.order)
                == (jurisdiction, family, order)
            )
            problems.append(f"{files}: all given version_order {order} in {jurisdiction}/{family}")
    return problems


# ---------------------------------------------------------------------------------------------
# What is already there


def _without_time(record: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "retrieved_at"}


def placement_refusal(
    into: Path, path: str, data: bytes, record: Mapping[str, Any]
) -> Refusal | None:
    """A refusal if placing `data` with provenance `record` at `into/path` would move anything:
    the destination holds other bytes or another provenance (every field but `retrieved_at`
    compared), a version_order another provenance in the family folder already holds, or a
    symlink or file where a folder goes; else None."""
    target = into / path
    sidecar = target.with_name(target.name + PROVENANCE_SUFFIX)
    for folder in (target.parent.parent, target.parent):
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            return Refusal(
                path=path,
                reason="not_a_folder",
                detail=f"{folder} is a symlink or a file, not a folder; nothing written",
            )
    for place in (target, sidecar):
        if place.is_symlink() or (place.exists() and not place.is_file()):
            return Refusal(
                path=path,
                reason="not_a_file",
                detail=f"{place} is not a regular file; nothing written",
            )
    if target.is_file() and target.read_bytes() != data:
        digest = hashlib.sha256(target.read_bytes()).hexdigest()
        return Refusal(
            path=path,
            reason="file_differs",
            detail=f"{target} already holds other bytes (sha256 {digest}); nothing written",
        )
    if sidecar.is_file():
        try:
            held = json.loads(sidecar.read_bytes())
        except (ValueError, UnicodeDecodeError):
            held = None
        if not isinstance(held, dict) or _without_time(held) != _without_time(record):
            fields = (
                sorted(
                    k
                    for k in set(held) | set(record)
                    if k != "retrieved_at" and held.get(k) != record.get(k)
                )
                if isinstance(held, dict)
                else ["(not a JSON object)"]
            )
            return Refusal(
                path=path,
                reason="provenance_differs",
                detail=f"{sidecar} already holds a provenance that differs in "
                f"{', '.join(fields)}; nothing written",
            )
    return _order_taken(target, path, record)


def _order_taken(target: Path, path: str, record: Mapping[str, Any]) -> Refusal | None:
    if not target.parent.is_dir():
        return None
    for other in sorted(target.parent.glob("*" + PROVENANCE_SUFFIX)):
        if other.name == target.name + PROVENANCE_SUFFIX:
            continue
        try:
            held = parse_provenance(other.read_bytes(), source=str(other))
        except ProvenanceError:
            continue  # admission reports it; it claims no version_order add can trust
        if held["version_order"] == record["version_order"]:
            return Refusal(
                path=path,
                reason="duplicate_version_order",
                detail=f"version_order {record['version_order']} is already given to "
                f"{other.name[: -len(PROVENANCE_SUFFIX)]} in {target.parent}; nothing written",
            )
    return None


# ---------------------------------------------------------------------------------------------
# Adding


def link_into_place(target: Path, data: bytes, mode: int) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=target.parent, prefix=".add-", delete=False) as tmp:
        tmp.write(data)
    try:
        os.chmod(tmp.name, mode)
        os.link(tmp.name, target)  # fails if the target appeared meanwhile: never a replace
    finally:
        os.unlink(tmp.name)


def _location(problem: str) -> str:
    return problem.split(": ", 1)[0]


def add_documents(
    specs: Sequence[DocumentSpec],
    into: Path,
    *,
    retrieved_at: str | None = None,
    problems: Sequence[str] = (),
) -> AddReport:
    """Place every spec's file and provenance under `into`, all or nothing (docs/corpus.md, What
    add checks). Every file is written through a temporary name and hard-linked into place, which
    fails rather than replace a file that appeared meanwhile.

    Order of checks: every spec's own problems (missing or unsafe jurisdiction/family, a file
    that is missing, a directory, a symlink, unreadable, empty, neither PDF nor UTF-8 text; no
    url nor mirror; a bad url, mirror, date or order; official not said), then two specs that
    would share a path or a family's version_order; any of these raises one AddError listing every
    problem, in spec order, each once. Then what is at each destination: other bytes, another
    provenance (every field but `retrieved_at` compared), a version_order another provenance in
    the family folder already holds, or a symlink or file where a folder goes, is a refusal; any
    refusal means nothing is written. Otherwise the document is written read-only (0444) and its
    provenance 0644, each only if absent. `retrieved_at` defaults to now (UTC, seconds).

    `problems` are those the caller already found while reading the specs (options that cannot
    serve several files, a manifest's unreadable cells); they come first in the AddError. One
    problem is kept per location (the text before its first `: `, an option, a manifest cell or
    a file), the first found: a manifest cell read as bad is not also called missing, and an
    option shared by several files is reported once.
    """
    problems = list(problems)
    if not specs and not problems:
        raise AddError("no FILE given; name the files to add (or use --from-csv MANIFEST)")
    if into.exists() and not into.is_dir():
        raise AddError(f"{into}: --into must be a folder")
    stamp = retrieved_at or now_utc()
    plans: list[_Planned] = []
    for spec in specs:
        found, plan = _plan(spec, stamp)
        problems.extend(found)
        if plan is not None:
            plans.append(plan)
    problems.extend(_clashes(plans))
    if problems:
        unique: list[str] = []
        for problem in problems:
            if all(_location(problem) != _location(kept) for kept in unique):
                unique.append(problem)
        raise AddError(
            unique[0] if len(unique) == 1 else f"{len(unique)} problems: " + "; ".join(unique)
        )
    refusals = [
        r
        for plan in plans
        if (r := placement_refusal(into, plan.path, plan.data, plan.record)) is not None
    ]
    if refusals:
        return AddReport(placements=(), refusals=tuple(refusals))
    placements = []
    for plan in plans:
        target = into / plan.path
        sidecar = target.with_name(target.name + PROVENANCE_SUFFIX)
        written = []
        if not target.is_file():
            link_into_place(target, plan.data, 0o444)
            written.append(plan.path)
        if not sidecar.is_file():
            link_into_place(sidecar, provenance_file_bytes(plan.record), 0o644)
            written.append(plan.path + PROVENANCE_SUFFIX)
        record = plan.record if written else json.loads(sidecar.read_bytes())
        placements.append(Placement(path=plan.path, provenance=record, written=tuple(written)))
    return AddReport(placements=tuple(placements), refusals=())


def add_files(
    files: Sequence[Path],
    into: Path,
    *,
    jurisdiction: str | None,
    family: str | None,
    official: bool | None,
    order: int | None = None,
    url: str | None = None,
    mirror: str | None = None,
    label: str | None = None,
    date: str | None = None,
    issuer: str | None = None,
    docket: str | None = None,
    line_numbered: bool = False,
    retrieved_at: str | None = None,
    language: str | None = None,
    name: str | None = None,
) -> AddReport:
    """`add_documents` for files that share one set of facts (the command's options).

    The files take version_order `order` (default 1), `order + 1`, ... in the order given. With
    several files, `mirror`'s PATH must end in `/` (the repository folder that holds them; each
    file's mirror path is PATH followed by its name), and `url`, `label` and `name` are refused:
    one URL, label or name cannot name several versions. `name` names the one file's copy.
    Problems are reported as `add_documents` reports them.
    """
    first = 1 if order is None else order
    specs = [
        DocumentSpec(
            file=file,
            jurisdiction=jurisdiction,
            family=family,
            official=official,
            order=first + index,
            url=url,
            mirror=mirror,
            label=label,
            date=date,
            issuer=issuer,
            docket=docket,
            line_numbered=line_numbered,
            language=language,
            name=name,
        )
        for index, file in enumerate(files)
    ]
    problems = []
    if len(files) > 1:
        if mirror is not None and not mirror.endswith("/"):
            problems.append(
                "--mirror: with several FILEs, PATH must be the repository folder holding them, "
                f"ending in '/', got {mirror[:80]!r}"
            )
        problems += [
            f"{option}: one value cannot name several versions; add those files one by one, or "
            "use --from-csv"
            for option, value in (("--url", url), ("--label", label), ("--name", name))
            if value is not None
        ]
    return add_documents(specs, into, retrieved_at=retrieved_at, problems=problems)
