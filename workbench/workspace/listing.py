"""The JSON rows of `workbench families` and `workbench versions`, each read from an index of the
versions table (`LISTING_SQL`), never a scan of every held text; with `--numbering`, each family's
reading through its profile (`family_numbering`, which reads the family's texts)."""

from __future__ import annotations

from typing import Any

from workbench.errors import FamilyNotFound
from workbench.models import TextOrigins
from workbench.workspace.held import PDF_MEDIA_TYPE, Workspace

# The listings' queries: each answered from an index of the versions table (`versions_listing`
# covers `families`; `versions_by_family` finds a family's rows), never a scan of every text.
LISTING_SQL = {
    "families": "SELECT jurisdiction, family, COUNT(*), group_concat(DISTINCT media_type) "
    "FROM versions GROUP BY jurisdiction, family ORDER BY jurisdiction, family",
    "versions": "SELECT version_id, version_label, version_order, json_extract(provenance, "
    "'$.filing_date'), media_type, json_array_length(pages), text FROM versions "
    "WHERE family = ? ORDER BY version_order, jurisdiction",
}


def family_listing(workspace: Workspace) -> list[dict[str, Any]]:
    """One row per held family, sorted by jurisdiction then family: what `workbench families`
    prints. Read from an index of the versions table alone (no text is read)."""
    rows = workspace.read(LISTING_SQL["families"])
    return [
        {
            "jurisdiction": jurisdiction,
            "family": family,
            "versions": count,
            "formats": sorted(formats.split(",")),
        }
        for jurisdiction, family, count, formats in rows
    ]


def family_numbering(workspace: Workspace, jurisdiction: str, family: str) -> dict[str, Any]:
    """How a held family's numbering is read (`choice.read_numbering` through the workspace's
    registry, as `measure` reads it): the profile, how it was chosen, and whether it read the
    family (read, read with inconsistencies, unread) with its consistent and inconsistent steps."""
    from workbench.text.choice import read_numbering
    from workbench.workspace.parts import family_headings

    versions = [v for v in workspace.versions(family) if v.jurisdiction == jurisdiction]
    choice, reading = read_numbering(
        versions, workspace.profile_registry(), headings=family_headings(workspace, versions)
    )
    return {
        "profile": choice.profile.name,
        "chosen": choice.how,
        "reading": reading.status,
        "consistent_steps": reading.consistent,
        "inconsistent_steps": reading.inconsistent,
    }


def version_listing(workspace: Workspace, family: str) -> list[dict[str, Any]]:
    """One row per held version of a family, in version order: what `workbench versions` prints
    (its date is the provenance's `filing_date`, None where it has none). `origin` counts the
    text's non-white-space characters per origin (C18; None for a PDF held before origins were
    recorded). Read from the versions table's family index and the family's origin records;
    FamilyNotFound if no version of that family is held."""
    rows = workspace.read(LISTING_SQL["versions"], (family,))
    if not rows:
        raise FamilyNotFound(f"{family}: no such family in {workspace.path}")
    origins = workspace.origins([row[0] for row in rows])

    def origin(version_id: str, media_type: str, text: str) -> dict[str, int] | None:
        held = origins.get(version_id)
        if held is None and media_type != PDF_MEDIA_TYPE:
            held = TextOrigins.whole(len(text))
        return None if held is None else held.characters(text)

    return [
        {
            "version_id": version_id,
            "label": label,
            "order": order,
            "date": date if isinstance(date, str) else None,
            "format": media_type,
            "pages": pages or None,
            "text_length": len(text),
            "origin": origin(version_id, media_type, text),
        }
        for version_id, label, order, date, media_type, pages, text in rows
    ]
