"""A held law's reading as derived state (C13, C19): its facts, publisher and quoted spans and
instructions, kept in the workspace under the key of its bytes and text, the drafting style and
profile that read it and the code (`derived.derived_key`), and taken by any later `LawBook`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.amendments.instructions import Instruction, Reading, Unread, read_instructions
from workbench.amendments.laws import Catalogued, HeldLaw, LawFacts, held_law
from workbench.amendments.style import DraftingStyle
from workbench.derived import code_digest, derived_key, keep_row
from workbench.models import Version
from workbench.text.profiles import Profile
from workbench.workspace import Workspace

KIND = "law-reading"
TABLE = "derived_law_readings"
_SCHEMA = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (key TEXT PRIMARY KEY, version_id TEXT NOT NULL, "
    "style TEXT NOT NULL, reading TEXT NOT NULL)"
)


def reading_key(hashes: tuple[str, str], style: DraftingStyle, profile: Profile) -> str:
    """The key of a law's reading: its artefact and text SHA-256 (`hashes`), the drafting
    style's SHA-256, the profile's name and SHA-256, and the code."""
    inputs = [*hashes, style.sha256, profile.name, profile.sha256]
    return derived_key(KIND, inputs, code_digest())


def reading_record(held: HeldLaw, reading: Reading) -> dict[str, Any]:
    """What a kept reading holds (the law's id and hashes are its row's name and key)."""
    return {
        "effective": held.effective,
        "act": held.act,
        "markup": [list(span) for span in held.markup],
        "quotations": [list(span) for span in held.quotations],
        "instructions": [i.as_json() for i in reading.instructions],
        "unread": [u.as_json() for u in reading.unread],
    }


def from_record(
    record: Mapping[str, Any], law: str, hashes: tuple[str, str]
) -> tuple[HeldLaw, Reading]:
    """The law and reading `reading_record` wrote; `KeyError`, `TypeError` or `ValueError`
    where the record is not of that shape."""
    held = HeldLaw(
        version_id=law,
        artefact_sha256=hashes[0],
        text_sha256=hashes[1],
        effective=record["effective"],
        act=record["act"],
        markup=tuple((a, b) for a, b in record["markup"]),
        quotations=tuple((a, b) for a, b in record["quotations"]),
    )
    reading = Reading(
        law=law,
        instructions=tuple(Instruction.from_json(i) for i in record["instructions"]),
        unread=tuple(Unread.from_json(u) for u in record["unread"]),
    )
    return held, reading


def law_reading(
    workspace: Workspace,
    versions: Mapping[str, Version],
    law: str,
    hashes: tuple[str, str],
    style: DraftingStyle,
    profile: Profile,
    rows: Catalogued,
    store: Path,
) -> tuple[HeldLaw, Reading]:
    """The law's markup and quoted matter (`laws.held_law`) and its prose read into instructions
    (`instructions.read_instructions`), taken from the workspace where it keeps them under
    `reading_key` (the law's version is then not loaded, nor its bytes read), else read now and
    kept there. A workspace nobody may write (`Workspace.read_only`) is read, never written: its
    laws not kept are read each time. A kept row that does not read back is read again and
    replaced; kept, the law's rows under any other key (other code, style or profile) go
    (`derived.keep_row`)."""
    key = reading_key(hashes, style, profile)
    if TABLE in workspace.tables():
        for (text,) in workspace.read(f"SELECT reading FROM {TABLE} WHERE key = ?", (key,)):
            try:
                return from_record(json.loads(text), law, hashes)
            except (KeyError, TypeError, ValueError):
                break
    version = versions[law]
    held = held_law(version, style, rows, store)
    reading = read_instructions(version, held.markup, held.quotations, style, profile)
    if workspace.read_only is None:
        record = json.dumps(reading_record(held, reading), ensure_ascii=False)
        with workspace.transaction() as conn:
            conn.execute(_SCHEMA)
            name = {"version_id": law, "style": style.name}
            keep_row(conn, TABLE, ("key", key), name, {"reading": record})
    return held, reading


def kept_facts(workspace: Workspace, keys: Mapping[str, str]) -> dict[str, LawFacts]:
    """The facts (effective date, Act number) of the laws whose reading the workspace keeps under
    the key `keys` names for it (`reading_key`), by law: one query, each record's two fields read
    by SQLite, not the record decoded. A law not kept, or whose record lacks a date, is left out
    (read from its bytes: `laws.law_facts`)."""
    if TABLE not in workspace.tables() or not keys:
        return {}
    laws = {key: law for law, key in keys.items()}
    found = workspace.read(
        f"SELECT key, json_extract(reading, '$.effective'), json_extract(reading, '$.act') "
        f"FROM {TABLE} WHERE key IN (SELECT value FROM json_each(?)) AND json_valid(reading)",
        (json.dumps(list(laws)),),
    )
    return {
        laws[key]: LawFacts(version_id=laws[key], effective=effective, act=act)
        for key, effective, act in found
        if isinstance(effective, str) and (act is None or isinstance(act, str))
    }
