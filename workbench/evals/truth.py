"""Truth files (C12): what a script outside the workbench wrote, read back by one rule
(`read_truth`) and handed to a scorer only as a JSON object whose kind's field is a list."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.errors import TruthFileError
from workbench.models import strict_json


@dataclass(frozen=True, slots=True, kw_only=True)
class TruthKind:
    """Which truth a file holds: its name, the script that writes it, and its list field."""

    name: str  # "alignment", as in "no alignment truth"
    script: str  # the script that writes it, from the repository root
    field: str  # the top-level field holding the subjects
    subjects: str  # what the field lists, in words ("version pairs")


def read_truth(path: Path, kind: TruthKind) -> dict[str, Any]:
    """The truth file at `path`, as the script wrote it; a missing or malformed file is a
    `TruthFileError` naming the file (and the script, or the field)."""
    try:
        data = strict_json(path.read_bytes().decode("utf-8"), TruthFileError)
    except FileNotFoundError:
        raise TruthFileError(
            f"{path}: no {kind.name} truth; run 'python {kind.script} --out {path}'"
        ) from None
    except (OSError, ValueError) as error:  # a TruthFileError from strict_json is one too
        raise TruthFileError(f"{path}: cannot be read as the truth's JSON: {error}") from error
    if not isinstance(data, dict) or not isinstance(data.get(kind.field), list):
        raise TruthFileError(f"{path}: field {kind.field}: expected a list of {kind.subjects}")
    return data


def file_sha256(path: Path) -> str:
    """The SHA-256 of the file's bytes, as a scorecard records the truth it was scored by."""
    return hashlib.sha256(path.read_bytes()).hexdigest()
