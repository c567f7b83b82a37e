"""Truth files: what a script outside the workbench wrote, read back to score the workbench by.

Each truth is derived by a script that imports nothing from the workbench
(`scripts/alignment_truth.py` from the documents' own identifiers, `scripts/amendment_truth.py`
from the D.C. Council's codify: markup) and written as one JSON object holding a list of its
subjects. `read_truth` reads every such file by one rule, told which truth it reads by a
`TruthKind`: the file's bytes as strict JSON (`models.strict_json`); a missing file names the
script that writes it; a file that is not strict JSON, or whose object lacks the kind's list
field, is refused naming the field. `file_sha256` is the hash a scorecard records of the file.

The guarantee: a truth is handed to a scorer only as a JSON object whose kind's field is a list.
"""

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
