"""Honest dates (C19): the release of a family that stood on a date, and the held laws that took
effect by then that it does not yet reflect; a text is never given as of a date its family had no
release for."""

from __future__ import annotations

import datetime
import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.amendments.lawbook import LawBook
from workbench.amendments.laws import dated_versions
from workbench.amendments.style import find_style
from workbench.errors import AsOfError
from workbench.models import CatalogueRow
from workbench.workspace import Workspace


@dataclass(frozen=True, slots=True, kw_only=True)
class LawInEffect:
    """A held law that took effect in a window, and how many of its instructions amend the
    family's section."""

    law: str
    effective: str
    act: str | None
    section: str
    instructions: int

    def as_json(self) -> dict[str, Any]:
        return {
            "law": self.law,
            "effective": self.effective,
            "act": self.act,
            "section": self.section,
            "instructions": self.instructions,
        }

    def line(self) -> str:
        act = f" (D.C. Act {self.act})" if self.act else ""
        return (
            f"{self.law}{act}, effective {self.effective}: {self.instructions} "
            f"instruction{'s' if self.instructions != 1 else ''} into § {self.section}"
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class AsOf:
    """The release of `family` that stood on `date`, and the laws it does not yet reflect.

    `releases` are the family's releases published on or before `date`, in version order (the
    versions a quote's history as of that date searches)."""

    family: str
    date: str
    version_id: str
    published: str
    releases: tuple[str, ...]
    not_yet_reflected: tuple[LawInEffect, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "date": self.date,
            "version_id": self.version_id,
            "published": self.published,
            "releases": list(self.releases),
            "not_yet_reflected": [law.as_json() for law in self.not_yet_reflected],
        }

    def lines(self) -> tuple[str, ...]:
        """The release used, then each law it does not yet reflect (or that there is none)."""
        head = (
            f"as of {self.date}: {self.version_id}, published {self.published}, the latest "
            f"release of {self.family} published on or before that date"
        )
        if not self.not_yet_reflected:
            return (head, "  no held law amending it took effect after it and by that date")
        return (
            head,
            *(f"  not yet reflected: {law.line()}" for law in self.not_yet_reflected),
        )


def as_of_date(text: str) -> str:
    """`text` if it is an ISO calendar date (YYYY-MM-DD), else `AsOfError`."""
    try:
        if len(text) == 10:
            datetime.date.fromisoformat(text)
            return text
    except ValueError:
        pass
    raise AsOfError(f"{text}: not a calendar date; expected YYYY-MM-DD")


def _laws(
    book: LawBook | None, family: str, after: str | None, until: str
) -> tuple[LawInEffect, ...]:
    if book is None:
        return ()
    section = book.code.section_of(family)
    out = []
    for law in book.effective_between(family, after, until):
        amending = book.amending(law, family)
        if amending and section is not None:
            facts = book.facts[law]
            out.append(
                LawInEffect(
                    law=law,
                    effective=facts.effective,
                    act=facts.act,
                    section=section,
                    instructions=len(amending),
                )
            )
    return tuple(sorted(out, key=lambda law: (law.effective, law.law)))


def _book(
    workspace: Workspace, jurisdiction: str, rows: Iterable[CatalogueRow], store: Path
) -> LawBook | None:
    if find_style(jurisdiction) is None:
        return None
    return LawBook(workspace, jurisdiction, rows, store)


def release_as_of(
    workspace: Workspace, family: str, date: str, rows: Iterable[CatalogueRow], store: Path
) -> AsOf:
    """The latest release of `family` published on or before `date`, and the held laws that
    amend its section and took effect after it was published, on or before `date` (ordered by
    effective date, then version id). `AsOfError` for a date that is not a calendar date or
    before every release of the family; `FamilyNotFound` for a family not held."""
    date = as_of_date(date)
    versions = workspace.versions(family)
    dated = dated_versions(versions, workspace.filing_dates())
    standing = [(published, v) for published, v in dated if published <= date]
    if not standing:
        first = (
            f"its first, {dated[0][1].version_id}, was published {dated[0][0]}"
            if dated
            else "none of its versions carries a publication (filing) date"
        )
        raise AsOfError(f"{family}: no release published on or before {date}; {first}")
    published, version = standing[-1]
    shown = {v.version_id for _, v in standing}
    return AsOf(
        family=family,
        date=date,
        version_id=version.version_id,
        published=published,
        releases=tuple(v.version_id for v in versions if v.version_id in shown),
        not_yet_reflected=_laws(
            _book(workspace, version.jurisdiction, rows, store), family, published, date
        ),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class LawsByRelease:
    """For each dated release of a family but the first, the held laws amending it that took
    effect after the release before it was published and on or before it was (`since_previous`,
    by version id); and those effective after the last release (`after_last`)."""

    family: str
    since_previous: Mapping[str, tuple[LawInEffect, ...]]
    after_last: tuple[LawInEffect, ...]


def laws_by_release(
    workspace: Workspace, family: str, rows: Iterable[CatalogueRow], store: Path
) -> LawsByRelease:
    """The held laws that took effect between consecutive releases of `family` (dated releases
    only, in date order), reading only the laws whose text names its section. A family of a
    jurisdiction no drafting style names, or not a Code section, has none."""
    versions = workspace.versions(family)
    dated = dated_versions(versions, workspace.filing_dates())
    book = _book(workspace, versions[0].jurisdiction, rows, store)
    since = {
        later.version_id: _laws(book, family, earlier_date, later_date)
        for (earlier_date, _), (later_date, later) in itertools.pairwise(dated)
    }
    last = dated[-1][0] if dated else None
    return LawsByRelease(
        family=family,
        since_previous=since,
        after_last=_laws(book, family, last, "9999-12-31") if last else (),
    )
