"""`element_spans`: the spans of a version's text that chosen XML elements gave, text unchanged.

Checked on the real D.C. Laws, whose `codify:` elements are the Council's codification markup, and
on the D.C. Code releases, whose `annotations` hold the history notes: every span indexes the very
text `extract` gives (same bytes, same text hash), and holds exactly the words its element holds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import pytest
from lxml import etree

from tests.conftest import module_from_commit
from workbench.errors import ExtractionError, TextDecodeError
from workbench.models import CatalogueRow, text_sha256
from workbench.text.extraction import extract
from workbench.text.xml import (
    chooses_any,
    chosen_element_spans,
    element_spans,
    extract_xml,
    parse_xml,
    spans_of,
)

STORE = Path(__file__).resolve().parents[2] / "corpus" / "real"
CODIFY = "https://code.dccouncil.us/schemas/codify"
# The last commit whose `element_spans` rendered once per select (one parse and one render each).
ONE_SELECT_COMMIT = "3cdfce7"


def _laws(catalogue: tuple[CatalogueRow, ...]) -> list[CatalogueRow]:
    return [row for row in catalogue if row.family.startswith("dc-law-")]


def _codify(el: etree._Element) -> bool:
    return etree.QName(el).namespace == CODIFY


def test_the_catalogue_holds_seven_laws(catalogue: tuple[CatalogueRow, ...]) -> None:
    assert len(_laws(catalogue)) == 7


def test_codify_spans_hold_exactly_the_markup_words_and_leave_the_text_as_extract_gives_it(
    catalogue: tuple[CatalogueRow, ...],
) -> None:
    for row in _laws(catalogue):
        data = (STORE / row.path).read_bytes()
        text = extract(data, row.media_type, source=row.path).text
        spans = element_spans(data, source=row.path, select=_codify)
        outermost = [
            el
            for el in parse_xml(data, source=row.path).iter()
            if isinstance(el.tag, str)
            and _codify(el)
            and not any(_codify(a) for a in el.iterancestors())
            and "".join(map(str, el.itertext())).strip()
        ]
        assert [s.element for s in spans] == [str(el.tag) for el in outermost], row.path
        for span, el in zip(spans, outermost, strict=True):
            assert " ".join(text[span.char_start : span.char_end].split()) == " ".join(
                "".join(map(str, el.itertext())).split()
            ), (row.path, span)
        ends = [(s.char_start, s.char_end) for s in spans]
        assert ends == sorted(ends)
        assert all(a[1] <= b[0] for a, b in pairwise(ends))


def test_the_struck_phrase_of_24_314_stands_twice_in_the_text_once_outside_the_markup(
    catalogue: tuple[CatalogueRow, ...],
) -> None:
    row = next(r for r in catalogue if r.family == "dc-law-24-314")
    data = (STORE / row.path).read_bytes()
    text = extract(data, row.media_type, source=row.path).text
    spans = element_spans(data, source=row.path, select=_codify)
    at = [k for k in range(len(text)) if text.startswith("2.85% from solar energy", k)]
    inside = [k for k in at if any(s.char_start <= k < s.char_end for s in spans)]
    assert len(at) == 2 and len(inside) == 1


def test_annotation_spans_of_a_code_release_start_at_its_first_history_note(
    catalogue: tuple[CatalogueRow, ...],
) -> None:
    row = next(r for r in catalogue if r.path == "us-dc/dc-code-34-1432/34-1432@2023-04-05.xml")
    data = (STORE / row.path).read_bytes()
    extraction = extract(data, row.media_type, source=row.path)
    (notes,) = element_spans(
        data, source=row.path, select=lambda el: etree.QName(el).localname == "annotations"
    )
    assert extraction.text[notes.char_start :].startswith("Apr. 12, 2005, D.C. Law 15-340, § 4")
    assert extraction.text[notes.char_end :].strip() == ""
    assert text_sha256(extraction.text) == text_sha256(
        extract(data, row.media_type, source=row.path).text
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param(
            b"<a><b>x</a>",
            "probe.xml: malformed XML at line 1, column 12: Opening and ending tag mismatch: "
            "b line 1 and a",
            id="malformed",
        ),
        pytest.param(b"", "probe.xml: empty file; expected text", id="empty"),
    ],
)
def test_bad_bytes_are_refused_as_extract_refuses_them(data: bytes, message: str) -> None:
    with pytest.raises((ExtractionError, TextDecodeError)) as caught:
        element_spans(data, source="probe.xml", select=lambda el: True)
    assert str(caught.value) == message


@pytest.mark.slow
def test_a_document_without_notes_or_tables_is_not_rendered_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every real XML artefact's notes and tables, read with the render skipped where nothing
    is chosen, equal those read with the render always taken; and some are skipped (a law with
    no note and no table is rendered once, by its extraction)."""
    from workbench.text import footnotes, table_cells

    renders: list[str] = []

    def counted(root: etree._Element, source: str, select: object) -> object:
        renders.append(source)
        return chosen_element_spans(root, source, select)  # type: ignore[arg-type]

    def read_all() -> dict[Path, tuple[object, object]]:
        read: dict[Path, tuple[object, object]] = {}
        for path in sorted(STORE.rglob("*.xml")):
            data = path.read_bytes()
            text = extract_xml(data, source=str(path)).text
            read[path] = (
                footnotes.read_markup_footnotes(data, source=str(path)),
                table_cells.read_tables(data, source=str(path), text=text),
            )
        return read

    for module in (footnotes, table_cells):
        monkeypatch.setattr(module, "chosen_element_spans", counted)
    skipping = read_all()
    skipped_renders = len(renders)
    renders.clear()
    for module in (footnotes, table_cells):
        monkeypatch.setattr(module, "chooses_any", lambda root, select: True)
    assert read_all() == skipping
    assert len(skipping) > 100
    assert len(renders) == 2 * len(skipping) > skipped_renders


def _local_is(name: str) -> Callable[[etree._Element], bool]:
    return lambda el: etree.QName(el).localname == name


# What the amendment reader reads of a law in one render (markup, quoted matter), what it reads of
# a Code release (its notes), and selects that nest inside each other (every element; any `num`).
SELECTS = (
    _codify,
    _local_is("include"),
    _local_is("annotations"),
    lambda el: True,
    _local_is("num"),
)


@pytest.mark.slow
def test_one_render_gives_each_select_the_spans_a_render_of_its_own_gave_before() -> None:
    """On every real XML artefact: `spans_of` with several selects, in one render, gives for
    each exactly what `element_spans` gave for it alone at `ONE_SELECT_COMMIT` (a render per
    select); and a select `chooses_any` rules out lists nothing."""
    before = module_from_commit(ONE_SELECT_COMMIT, "workbench/text/xml.py", "xml_one_select")
    paths = sorted(STORE.rglob("*.xml"))
    assert len(paths) > 100
    chose = Counter[int]()
    for path in paths:
        data = path.read_bytes()
        root = parse_xml(data, source=path.name)
        now = spans_of(root, path.name, SELECTS)
        was = [before.element_spans(data, source=path.name, select=s) for s in SELECTS]
        assert [[x.as_json() for x in spans] for spans in now] == [
            [x.as_json() for x in spans] for spans in was
        ], path
        for k, select in enumerate(SELECTS):
            chose[k] += bool(now[k])
            assert chooses_any(root, select) or not now[k], (path, k)
    # every select chose somewhere, and not everywhere (the laws' markup, the Code's notes)
    assert all(chose[k] > 0 for k in range(len(SELECTS)))
    assert chose[0] < len(paths) and chose[2] < len(paths)


CANADA_REGS = STORE / "ca-federal" / "ca-cer-amp-regs" / "SOR-2013-138@2022-10-05.xml"
CANADA_ACT = STORE / "ca-federal" / "ca-energy-efficiency-act" / "E-6.4@2019-06-21.xml"
DC_LAW = STORE / "us-dc" / "dc-law-25-50" / "25-50.xml"
PIPELINE_REGS = STORE / "ca-federal" / "ca-cer-onshore-pipeline-regs" / "SOR-99-294@2022-10-05.xml"


def _parts_apart_and_together(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[tuple[object, object], tuple[object, object], int]:
    """A document's notes and tables read by each reader alone, and by `markup_parts`, with the
    renders `markup_parts` took."""
    from workbench.text import xml
    from workbench.text.footnotes import read_markup_footnotes
    from workbench.text.parts import markup_parts
    from workbench.text.table_cells import read_tables

    data = path.read_bytes()
    text = extract_xml(data, source=str(path)).text
    apart = (
        read_markup_footnotes(data, source=str(path)),
        read_tables(data, source=str(path), text=text),
    )
    renders: list[str] = []
    render = xml._render

    def counted(root: etree._Element, source: str, **options: object) -> object:
        renders.append(source)
        return render(root, source, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(xml, "_render", counted)
    together = markup_parts(data, source=str(path), text=text)
    monkeypatch.undo()
    return apart, together, len(renders)


@pytest.mark.parametrize(
    ("path", "notes", "tables"),
    [
        pytest.param(CANADA_REGS, True, True, id="canada-regs-notes-and-tables"),
        pytest.param(CANADA_ACT, True, False, id="canada-act-notes"),
        pytest.param(DC_LAW, False, True, id="dc-law-tables"),
        pytest.param(PIPELINE_REGS, False, False, id="canada-regs-neither"),
    ],
)
def test_markup_parts_read_both_readers_from_one_render(
    path: Path, notes: bool, tables: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`parts.markup_parts` gives exactly what the footnote and table readers give apart, from
    one render where either reads anything, none where neither does (every real XML artefact:
    the slow test below)."""
    apart, together, renders = _parts_apart_and_together(path, monkeypatch)
    assert together == apart
    reading, found = together
    assert (bool(reading.footnotes), bool(found)) == (notes, tables)  # type: ignore[attr-defined]
    assert renders == (1 if notes or tables else 0)


@pytest.mark.slow
def test_markup_parts_equal_both_readers_on_every_real_xml(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On every real XML artefact, `markup_parts` gives what the two readers give apart, in at
    most one render."""
    paths = sorted(STORE.rglob("*.xml"))
    assert len(paths) > 100
    for path in paths:
        apart, together, renders = _parts_apart_and_together(path, monkeypatch)
        assert together == apart, path
        assert renders <= 1, path
