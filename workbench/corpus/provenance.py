"""Provenance (C3): the record beside every document that says where its bytes come from, read
strictly and checked field by field, every problem named; and the path, URL and hash rules every
step of the corpus applies."""

from __future__ import annotations

import hashlib
import json
import os
import re
import unicodedata
import urllib.parse
from collections.abc import Mapping
from typing import Any

from workbench.errors import ProvenanceError
from workbench.models import strict_json

PROVENANCE_SUFFIX = ".provenance.json"
MAX_PROVENANCE_BYTES = 1 << 20

_SHA256 = re.compile(r"[0-9a-f]{64}")
_COMMIT = re.compile(r"[0-9a-f]{40}")
_REPO = re.compile(r"[A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-]+")


def sha256_file(path: str | os.PathLike[str]) -> tuple[str, int]:
    """SHA-256 hex digest and byte count of a file, read in binary."""
    with open(path, "rb") as handle:
        digest = hashlib.file_digest(handle, "sha256")
        return digest.hexdigest(), os.fstat(handle.fileno()).st_size


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_source_url(url: Any) -> str | None:
    """None if `url` is an absolute http(s) URL with a host and no white space, else why not."""
    if not isinstance(url, str):
        return "expected an absolute http(s) URL or null"
    if any(ch.isspace() or ord(ch) < 32 for ch in url):
        return "expected an absolute http(s) URL without white space or control characters"
    parts = urllib.parse.urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return "expected an absolute http(s) URL"
    return None


def check_relative_path(path: str, *, field: str) -> str | None:
    """None if `path` is a plain relative POSIX path that cannot climb out of its root."""
    if not path or path.startswith(("/", "\\")) or "\\" in path or "\x00" in path:
        return f"{field} {path[:80]!r} must be a relative POSIX path"
    if any(part in ("", ".", "..") for part in path.split("/")):
        return f"{field} {path[:80]!r} must not hold empty, '.' or '..' parts"
    if re.match(r"[A-Za-z]:", path):
        return f"{field} {path[:80]!r} must not name a drive"
    return None


# The version-id rule (docs/design.md, "Identity and immutability"): what one name of a version id
# (its jurisdiction, family or file name) may hold. Anything else is refused by name, never renamed.
NAME_FORBIDDEN = '/\\:*?"<>|#'
MAX_NAME_BYTES = 255


def _character(ch: str) -> str:
    name = unicodedata.name(ch, "")
    return f"{ch!r}" if ch.isprintable() and not ch.isspace() else f"U+{ord(ch):04X} {name}".strip()


def name_problem(name: str) -> str | None:
    """None if `name` can be one name of a version id, else what breaks the rule.

    The rule: a non-empty string of at most `MAX_NAME_BYTES` UTF-8 bytes, in Unicode NFC form,
    not starting with `.` or `-`, holding letters, digits, marks, punctuation and symbols of any
    script, and single spaces between them, except the characters of `NAME_FORBIDDEN` (a path
    separator on some system, a shell wildcard or redirection, or the `#` that separates a
    passage's ordinal from its version id): no other white space, no space at either end or
    beside another, no control, format, private-use or unassigned character (a file name that
    is not UTF-8 reads as surrogates, which are refused too). The first problem found is named,
    in that order, characters from the left.
    """
    if not name:
        return "it is empty"
    if len(name.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
        return f"it is longer than {MAX_NAME_BYTES} bytes"
    for ch in name:
        if ch != " " and (unicodedata.category(ch)[0] in "CZ" or ch in NAME_FORBIDDEN):
            return f"it holds {_character(ch)}"
    if name != name.strip(" ") or "  " in name:
        return "it has a space at an end or beside another"
    if unicodedata.normalize("NFC", name) != name:
        return "it is not in Unicode NFC form"
    if name[0] in ".-":
        return f"it starts with {name[0]!r}"
    return None


def file_name_problem(name: str) -> str | None:
    """`name_problem` for the file name of a version id, which may not end in `.provenance.json`
    either (that name is its provenance's)."""
    if name.endswith(PROVENANCE_SUFFIX):
        return f"it ends in {PROVENANCE_SUFFIX}"
    return name_problem(name)


def shown(value: Any) -> str:
    """A provenance value as JSON, cut to 80 characters: what "got ..." quotes in a problem."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def parse_provenance(data: bytes, *, source: str) -> dict[str, Any]:
    """Parse and check one provenance record; ProvenanceError names `source` and every problem.

    Refused as a whole: more than 1 MiB, not UTF-8, not JSON, not a JSON object, a duplicate
    field, NaN/Infinity. Otherwise every field is checked (see `provenance_problems`) and all the
    problems found are listed in one error, in `PROVENANCE_FIELDS` order. The transcription flag's
    value is checked by `admit`, not here, so its refusal carries its own reason code.
    """
    if len(data) > MAX_PROVENANCE_BYTES:
        raise ProvenanceError(f"{source}: provenance is {len(data)} bytes; expected at most 1 MiB")
    try:
        record = strict_json(data.decode("utf-8"), ProvenanceError)
    except UnicodeDecodeError as exc:
        raise ProvenanceError(f"{source}: provenance is not UTF-8 (byte {exc.start})") from exc
    except json.JSONDecodeError as exc:
        raise ProvenanceError(
            f"{source}: malformed provenance JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from exc
    except ProvenanceError as exc:
        raise ProvenanceError(f"{source}: {exc}") from exc
    return check_provenance_record(record, source=source)


def check_provenance_record(record: Any, *, source: str) -> dict[str, Any]:
    """`record`, already parsed as strict JSON, if it is a provenance object whose every field
    passes (`provenance_problems`); else ProvenanceError naming `source` and every problem."""
    if not isinstance(record, dict):
        raise ProvenanceError(f"{source}: provenance must be a JSON object")
    problems = provenance_problems(record)
    if len(problems) == 1:
        raise ProvenanceError(f"{source}: {problems[0]}")
    if problems:
        raise ProvenanceError(f"{source}: {len(problems)} problems: " + "; ".join(problems))
    return record


# The provenance schema's fields in the order a record is written and its problems are listed
# (the order of the mirror's own provenance files). Unknown fields are allowed and kept.
PROVENANCE_FIELDS = (
    "source_url",
    "mirror",
    "jurisdiction",
    "docket_or_bill",
    "document_family",
    "version_label",
    "version_order",
    "filer_or_issuer",
    "filing_date",
    "retrieved_at",
    "sha256",
    "bytes",
    "format",
    "line_numbered",
    "byte_faithful_to_official_filing",
    "license_note",
    "extraction_note",
)
_PARTIAL_DATE = re.compile(r"\d{4}(-\d{2}(-\d{2})?)?")
_RETRIEVED_AT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")
_BLOB = re.compile(r"[0-9a-f]{40}")


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _optional_text(value: Any) -> bool:
    return value is None or isinstance(value, str)


# What each field must hold: (predicate, what is expected, required). A required field that is
# absent is "missing"; an optional one may be absent or null.
_FIELD_RULES: dict[str, tuple[Any, str, bool]] = {
    "jurisdiction": (_text, "a non-empty string", True),
    "docket_or_bill": (_optional_text, "a string or null", False),
    "document_family": (_text, "a non-empty string", True),
    "version_label": (_optional_text, "a string or null", False),
    "version_order": (lambda v: _is_int(v) and v >= 1, "an integer of at least 1", True),
    "filer_or_issuer": (_optional_text, "a string or null", False),
    "filing_date": (
        lambda v: v is None or (isinstance(v, str) and bool(_PARTIAL_DATE.fullmatch(v))),
        "an ISO date (YYYY, YYYY-MM or YYYY-MM-DD) or null",
        False,
    ),
    "retrieved_at": (
        lambda v: v is None or (isinstance(v, str) and bool(_RETRIEVED_AT.fullmatch(v))),
        "an ISO date-time with its UTC offset (YYYY-MM-DDTHH:MM:SS+00:00) or null",
        False,
    ),
    "sha256": (
        lambda v: isinstance(v, str) and bool(_SHA256.fullmatch(v)),
        "64 lowercase hex digits",
        True,
    ),
    "bytes": (lambda v: _is_int(v) and v >= 0, "a non-negative integer", True),
    "format": (_text, "a non-empty string starting with a media type", True),
    "line_numbered": (lambda v: isinstance(v, bool), "true or false", False),
    "byte_faithful_to_official_filing": (lambda v: isinstance(v, bool), "true or false", True),
    "license_note": (_optional_text, "a string or null", False),
    "extraction_note": (_optional_text, "a string or null", False),
}


def provenance_problems(record: Mapping[str, Any]) -> tuple[str, ...]:
    """Every problem of a parsed provenance record, in `PROVENANCE_FIELDS` order; empty if none.

    Each problem is `<field>: missing` for an absent required field, or `<field>: expected ...,
    got <the value as JSON>` for a present one of the wrong kind or value. Required: jurisdiction,
    document_family, version_order, sha256, bytes, format, byte_faithful_to_official_filing, and
    at least one of source_url (an absolute http(s) URL) and mirror (repo `owner/name`, a 40-hex
    commit, a relative path, and optionally a 40-hex `blob` or null). The other schema fields may
    be absent or null, but a present value must be of its kind (see `_FIELD_RULES`).
    """
    problems: list[str] = []
    source_url, mirror = record.get("source_url"), record.get("mirror")
    for name in PROVENANCE_FIELDS:
        if name == "source_url":
            if source_url is None and mirror is None:
                problems.append(
                    "source_url or mirror: missing (one of them must name where the bytes come from)"
                )
            elif source_url is not None and (problem := check_source_url(source_url)):
                problems.append(f"source_url: {problem}, got {shown(source_url)}")
        elif name == "mirror":
            if mirror is not None:
                problems.extend(_mirror_problems(mirror))
        elif name not in record:
            if _FIELD_RULES[name][2]:
                problems.append(f"{name}: missing")
        elif not _FIELD_RULES[name][0](record[name]):
            problems.append(f"{name}: expected {_FIELD_RULES[name][1]}, got {shown(record[name])}")
    return tuple(problems)


def _mirror_problems(mirror: Any) -> list[str]:
    if not isinstance(mirror, dict):
        return [f"mirror: expected an object {{repo, commit, path}} or null, got {shown(mirror)}"]
    problems = []
    repo, commit, path = mirror.get("repo"), mirror.get("commit"), mirror.get("path")
    if "repo" not in mirror:
        problems.append("mirror.repo: missing")
    elif not isinstance(repo, str) or not _REPO.fullmatch(repo):
        problems.append(f"mirror.repo: expected 'owner/name', got {shown(repo)}")
    if "path" not in mirror:
        problems.append("mirror.path: missing")
    elif not isinstance(path, str) or check_relative_path(path, field="mirror.path"):
        problems.append(
            "mirror.path: expected a relative POSIX path with no empty, '.' or '..' part, "
            f"got {shown(path)}"
        )
    if "commit" not in mirror:
        problems.append("mirror.commit: missing")
    elif not isinstance(commit, str) or not _COMMIT.fullmatch(commit):
        problems.append(f"mirror.commit: expected 40 lowercase hex digits, got {shown(commit)}")
    blob = mirror.get("blob")
    if blob is not None and not (isinstance(blob, str) and _BLOB.fullmatch(blob)):
        problems.append(f"mirror.blob: expected 40 lowercase hex digits or null, got {shown(blob)}")
    return problems


def provenance_file_bytes(record: Mapping[str, Any]) -> bytes:
    """The bytes of a `.provenance.json` file as the workbench writes one: indented JSON, UTF-8."""
    return (json.dumps(dict(record), indent=2, ensure_ascii=False) + "\n").encode("utf-8")
