"""Read a Word redline back and check it against the held versions it names (C23): it passes only if
its reject-all and accept-all readings still say exactly what the versions say."""

from __future__ import annotations

import zipfile
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from workbench.errors import RedlineRefused, VersionNotFound
from workbench.exports.redline_ooxml import CUSTOM_NS, PROPERTY_PREFIX, VT_NS
from workbench.models import Version
from workbench.text.normalize import normalize

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_ACCEPT_DROPS = frozenset({f"{W}del", f"{W}moveFrom"})  # text gone once every change is accepted
_REJECT_DROPS = frozenset({f"{W}ins", f"{W}moveTo"})  # text gone once every change is rejected
_TRACKED = _ACCEPT_DROPS | _REJECT_DROPS


@dataclass(frozen=True, slots=True, kw_only=True)
class Reading:
    """One reading of a redline: its text and where each paragraph starts in it."""

    text: str
    paragraph_starts: tuple[int, ...]

    def paragraph_at(self, offset: int) -> int:
        """The paragraph (counted from 1) holding `offset`."""
        return max(1, bisect_right(self.paragraph_starts, offset))


@dataclass(frozen=True, slots=True, kw_only=True)
class RedlineReading:
    """A redline read back: its custom properties and both readings."""

    properties: dict[str, str]
    accepted: Reading
    rejected: Reading


@dataclass(frozen=True, slots=True, kw_only=True)
class RedlineVerified:
    """A redline that passed: both versions, and how many paragraphs it holds."""

    path: Path
    before_id: str
    after_id: str
    paragraphs: int

    def line(self) -> str:
        return (
            f"{self.path}: verified: rejecting every change gives {self.before_id} and accepting "
            f"every change gives {self.after_id} ({self.paragraphs} paragraphs; both hashes match)"
        )


def _parts(path: Path) -> tuple[bytes, bytes | None]:
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            document = archive.read("word/document.xml")
            custom = archive.read("docProps/custom.xml") if "docProps/custom.xml" in names else None
    except (OSError, zipfile.BadZipFile, KeyError) as error:
        raise RedlineRefused(f"{path}: not a Word document ({error})") from error
    return document, custom


def _properties(path: Path, data: bytes | None) -> dict[str, str]:
    from lxml import etree

    if data is None:
        return {}
    try:
        root = etree.fromstring(data)
    except etree.XMLSyntaxError as error:
        raise RedlineRefused(f"{path}: docProps/custom.xml: {error}") from error
    found = {}
    for prop in root.iter(f"{{{CUSTOM_NS}}}property"):
        name = prop.get("name") or ""
        value = prop.find(f"{{{VT_NS}}}lpwstr")
        if name.startswith(PROPERTY_PREFIX) and value is not None:
            found[name[len(PROPERTY_PREFIX) :]] = value.text or ""
    return found


def read_redline_docx(path: Path) -> RedlineReading:
    """Both readings of the redline at `path` and its `workbench.` properties (prefix dropped).

    Each body paragraph is read in order: `w:t`, `w:delText` as text, `w:tab` as a tab, `w:br` and
    `w:cr` as a line feed, and a line feed between paragraphs. Text inside `w:del`/`w:moveFrom`
    is left out of the accepted reading, inside `w:ins`/`w:moveTo` out of the rejected one. A
    paragraph mark marked inserted (deleted) ends a paragraph in the accepted (rejected) reading
    only. RedlineRefused for a file that is not a .docx or whose XML does not parse.
    """
    from lxml import etree

    document, custom = _parts(path)
    try:
        root = etree.fromstring(document)
    except etree.XMLSyntaxError as error:
        raise RedlineRefused(f"{path}: word/document.xml: {error}") from error
    body = root.find(f"{W}body")
    paragraphs = [] if body is None else body.findall(f"{W}p")
    accepted: list[str] = []
    rejected: list[str] = []
    starts_a: list[int] = []
    starts_r: list[int] = []
    length_a = length_r = 0
    for number, paragraph in enumerate(paragraphs):
        starts_a.append(length_a)
        starts_r.append(length_r)
        for node in paragraph.iter(f"{W}t", f"{W}delText", f"{W}tab", f"{W}br", f"{W}cr"):
            tag = node.tag
            if tag in (f"{W}t", f"{W}delText"):
                text = node.text or ""
            else:
                text = "\t" if tag == f"{W}tab" else "\n"
            wrapper = next((a.tag for a in node.iterancestors() if a.tag in _TRACKED), None)
            if wrapper not in _ACCEPT_DROPS:
                accepted.append(text)
                length_a += len(text)
            if wrapper not in _REJECT_DROPS:
                rejected.append(text)
                length_r += len(text)
        if number == len(paragraphs) - 1:
            break
        mark = paragraph.find(f"{W}pPr/{W}rPr")
        inserted = mark is not None and mark.find(f"{W}ins") is not None
        deleted = mark is not None and mark.find(f"{W}del") is not None
        if not deleted:
            accepted.append("\n")
            length_a += 1
        if not inserted:
            rejected.append("\n")
            length_r += 1
    return RedlineReading(
        properties=_properties(path, custom),
        accepted=Reading(text="".join(accepted), paragraph_starts=tuple(starts_a)),
        rejected=Reading(text="".join(rejected), paragraph_starts=tuple(starts_r)),
    )


def _first_difference(reading: Reading, held: str) -> int | None:
    """The paragraph (from 1) where the reading first differs from `held` under the one
    normalization, or None when they are equal. A reading that stops short differs in its last
    paragraph."""
    ours = normalize(reading.text)
    theirs = normalize(held).text
    if ours.text == theirs:
        return None
    k = next(
        (i for i, (x, y) in enumerate(zip(ours.text, theirs, strict=False)) if x != y),
        min(len(ours.text), len(theirs)),
    )
    # A difference in white space alone is named where the next word stands: a space folds the
    # line feed that ends the paragraph before it.
    while k < len(ours.text) and ours.text[k] == " ":
        k += 1
    offset = ours.raw_start(k) if k < len(ours.text) else len(reading.text)
    return reading.paragraph_at(offset)


def _snippet(reading: Reading, paragraph: int) -> str:
    starts = reading.paragraph_starts
    end = starts[paragraph] if paragraph < len(starts) else len(reading.text)
    text = " ".join(reading.text[starts[paragraph - 1] : end].split())
    return text if len(text) <= 40 else text[:40] + "…"


def verify_redline_docx(path: Path, held: Callable[[str], Version]) -> RedlineVerified:
    """Check the redline at `path` against the versions it names, `held(version_id)` reading
    each (VersionNotFound when it is not held).

    Refused (RedlineRefused, one line naming the file): no `workbench.` version properties; a
    version not held; a held version whose artefact or text SHA-256 differs from the property;
    a rejected reading that is not the before text, or an accepted reading that is not the after
    text, under the one normalization (the message names the first paragraph that differs and
    quotes its start). Checked in that order; the first failure is the one reported.
    """
    reading = read_redline_docx(path)
    props = reading.properties
    versions = {}
    for side in ("before", "after"):
        version_id = props.get(f"{side}.version_id")
        if not version_id:
            raise RedlineRefused(
                f"{path}: no workbench.{side}.version_id property; not a workbench redline"
            )
        try:
            version = held(version_id)
        except VersionNotFound as error:
            raise RedlineRefused(
                f"{path}: the {side} version {version_id} is not held in this workspace"
            ) from error
        for field in ("artefact_sha256", "text_sha256"):
            recorded = props.get(f"{side}.{field}", "")
            if recorded != getattr(version, field):
                raise RedlineRefused(
                    f"{path}: {side} version {version_id}: {field} {recorded or '(none)'} in the "
                    f"redline, {getattr(version, field)} held"
                )
        versions[side] = version
    for side, what, part in (
        ("before", "rejecting", reading.rejected),
        ("after", "accepting", reading.accepted),
    ):
        paragraph = _first_difference(part, versions[side].text)
        if paragraph is not None:
            raise RedlineRefused(
                f"{path}: edited: {what} every change, paragraph {paragraph} "
                f"({_snippet(part, paragraph)!r}) differs from the {side} version "
                f"{versions[side].version_id}"
            )
    return RedlineVerified(
        path=path,
        before_id=versions["before"].version_id,
        after_id=versions["after"].version_id,
        paragraphs=len(reading.accepted.paragraph_starts),
    )
