"""The entry points of verification: a citation routed to its rule (C6, with C17 alterations and
pincites after it), and a batch that shares the reading, hashing and index of each version. A
citation gets the same verdict in a batch as alone."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from workbench.cite.index import SourceIndex, source_index
from workbench.cite.parts import with_parts
from workbench.cite.verify import Citation, HeldText, Verification, decide, held_text
from workbench.errors import CitationError
from workbench.models import text_sha256

if TYPE_CHECKING:  # the workspace is only read through the object a caller hands in
    from workbench.text.footnotes import FootnoteReading
    from workbench.text.table_cells import Table
    from workbench.workspace import Workspace


def verify_citation(
    citation: Citation,
    source_text: str,
    *,
    footnotes: FootnoteReading | None = None,
    tables: tuple[Table, ...] | None = None,
) -> Verification:
    """Verify `citation` against `source_text`, the version's text as stored, with its footnote
    reading and tables if given (`text.footnotes`, `text.table_cells`; the `footnote_unquoted`
    caveat and a cell citation's headers read them).

    The text is hashed to find its cached index (built on first use). Nothing here knows the
    version's recorded hash: use `verify_for_version`, which checks it, everywhere but tests.
    """
    index = source_index(source_text, text_sha256(source_text))
    return verify_indexed(index, citation, footnotes=footnotes, tables=tables)


def verify_indexed(
    index: SourceIndex,
    citation: Citation,
    *,
    footnotes: FootnoteReading | None = None,
    tables: tuple[Table, ...] | None = None,
) -> Verification:
    """Verify `citation` against an indexed text whose hash the caller has already checked. A
    citation naming a section raises `CitationError`: its section is read through the held
    version's profile, so it goes through `verify_for_version`."""
    if citation.section is not None:
        raise CitationError(
            f"{citation.version_id!r}: a citation naming a section is verified against its held "
            "version (verify_for_version), whose numbering profile reads the section"
        )
    held = HeldText(
        version_id=citation.version_id,
        recorded_sha256=index.text_sha256,
        stored_sha256=index.text_sha256,
        index=index,
        footnotes=footnotes,
        tables=tables,
    )
    return _decided(held, citation)


def _decided(held: HeldText, citation: Citation) -> Verification:
    """`decide`, or the alteration rule (which calls it) for a citation with alterations on (its
    module loaded only then: a plain verification never reads it)."""
    if citation.alterations:
        from workbench.cite.alterations import decide_altered

        return decide_altered(held, citation)
    return decide(held, citation)


def verify_for_version(workspace: Workspace, citation: Citation) -> Verification:
    """Verify one citation against its held version, checking the text hash first."""
    return verify_citations(workspace, (citation,))[0]


def verify_citations(
    workspace: Workspace, citations: Iterable[Citation]
) -> tuple[Verification, ...]:
    """Verify a batch, in input order. Each version is read once and its stored text hashed once
    against the recorded `text_sha256` before any of its citations is looked at; its index comes
    from the cache under that hash; then `decide` decides each citation, as it would alone."""
    citations = tuple(citations)
    groups: dict[str, list[int]] = {}
    for i, citation in enumerate(citations):
        if not isinstance(citation.version_id, str):
            raise CitationError(f"version_id {citation.version_id!r} must be a string")
        groups.setdefault(citation.version_id, []).append(i)
    # Versions in order of first citation, each version's citations in input order: the first
    # malformed citation raises, as it would alone.
    verdicts: list[Verification | None] = [None] * len(citations)
    for version_id, positions in groups.items():
        held = with_parts(workspace, held_text(workspace, version_id))
        for i in positions:
            verdict = _decided(held, citations[i])
            if citations[i].section is not None:
                # the numbering (profiles and the structure parser) loads with the first
                # citation that names a section
                from workbench.cite.pincites import check_section

                verdict = check_section(workspace, verdict)
            verdicts[i] = verdict
    return tuple(v for v in verdicts if v is not None)
