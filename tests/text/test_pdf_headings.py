"""Lines a PDF sets as headings (`text.pdf_headings`) and the numbers alone on them read as labels
(`induce.induce_profile`'s `headings`), on PDFs LibreOffice makes from Word files this test
builds: articles numbered through the act with a bare number on a line of its own and divisions
with a bare Roman numeral, inserted units lettered after their number. Set larger, or standing
in the margin, they are headings and the automatic choice reads the units' labels and paths; the
same numbers at body size and at the margin are no headings and are not read. The truth (each
unit's label and path, its heading lines) comes from the generator, which imports nothing from
`workbench`."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from docx import Document
from docx.shared import Pt

from tests.exports.libreoffice import Job, convert_all
from tests.text.test_structure import _text_version
from workbench.cli import main
from workbench.models import Version
from workbench.text.choice import choose_profile
from workbench.text.induced_toml import level_evidence
from workbench.text.pdf import Placed, extract_pdf
from workbench.text.pdf_headings import heading_lines
from workbench.text.profiles import registry
from workbench.text.shapes import alone_label
from workbench.text.structure import parse_text
from workbench.workspace.parts import _decoded, _kept

BODY = 11  # points: the body's type size
ARTICLE = 15  # points: an article's number, set larger
DIVISION = 17  # points: a division's numeral, set larger still
OUTDENT = -40  # points: a paragraph's left indent standing it in the margin
SHARE = 0.9  # of the units that must get their own label and path

# Each version: divisions, each with its articles, numbered through the act; units inserted later
# keep the number they follow with a letter after it.
VERSIONS = (
    (("I", ("1", "2", "3")), ("II", ("4", "5", "6", "7")), ("III", ("8", "9"))),
    (("I", ("1", "2", "3", "3a")), ("II", ("4", "5", "6", "7")), ("III", ("8", "9"))),
    (("I", ("1", "2", "3", "3a")), ("II", ("4", "5", "5a", "6", "7")), ("III", ("8", "9", "10"))),
)


@dataclass(frozen=True, slots=True)
class Setting:
    """How the generator sets the numbers: their type sizes and their paragraphs' left indent."""

    division: int
    article: int
    indent: int = 0

    @property
    def headings(self) -> bool:
        """Whether the numbers are set apart from the body (the truth of `heading_lines`)."""
        return self.division > BODY or self.indent < 0


SETTINGS = {
    "larger": Setting(division=DIVISION, article=ARTICLE),
    "in-the-margin": Setting(division=BODY, article=BODY, indent=OUTDENT),
    "body-size-at-the-margin": Setting(division=BODY, article=BODY),
}


def _opening(article: str) -> str:
    """The words opening an article's body, naming it (where the truth looks its unit up)."""
    return f"The provisions of unit {article} apply"


def _document(
    version: tuple[tuple[str, tuple[str, ...]], ...], setting: Setting, path: Path
) -> None:
    document = Document()
    document.styles["Normal"].font.size = Pt(BODY)
    for division, articles in version:
        for number, size in [(division, setting.division)] + [
            (a, setting.article) for a in articles
        ]:
            paragraph = document.add_paragraph()
            paragraph.add_run(number).font.size = Pt(size)
            if setting.indent:
                paragraph.paragraph_format.left_indent = Pt(setting.indent)
            if number == division:
                continue
            document.add_paragraph(
                f"{_opening(number)} to every body named in it and to nobody else, for as long "
                "as it holds, and they run on over the line so that the paragraph wraps."
            )
            document.add_paragraph("A second paragraph of the same unit, at body size.")
    document.save(str(path))


@dataclass(frozen=True, slots=True)
class Built:
    """One built PDF read by the extractor: its text, the traced runs and the generator's truth."""

    path: Path
    text: str
    trace: list[Placed]
    version: tuple[tuple[str, tuple[str, ...]], ...]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Built]]:
    """Every setting's versions as PDFs, converted in one LibreOffice run, then extracted."""
    work = tmp_path_factory.mktemp("pdf-headings")
    jobs = []
    for name, setting in SETTINGS.items():
        for k, version in enumerate(VERSIONS):
            source = work / f"{name}-{k}.docx"
            _document(version, setting, source)
            jobs.append(Job("pdf", source, (source.with_suffix(".pdf"),)))
    convert_all(jobs, work)
    out: dict[str, list[Built]] = {}
    for name in SETTINGS:
        for k, version in enumerate(VERSIONS):
            path = work / f"{name}-{k}.pdf"
            trace: list[Placed] = []
            text = extract_pdf(path.read_bytes(), source=str(path), trace=trace).text
            built = Built(path=path, text=text, trace=trace, version=version)
            out.setdefault(name, []).append(built)
    return out


def _versions(builds: list[Built], name: str) -> list[Version]:
    """The built texts as one family's versions, oldest first, under a jurisdiction no profile
    names."""
    return [
        replace(_text_version(b.text, f"test/{name}/v{k}.pdf"), version_order=k,
                media_type="application/pdf")
        for k, b in enumerate(builds)
    ]  # fmt: skip


def _right(build: Built, profile_parse: object) -> float:
    """The share of the generator's articles whose body the parse puts under their own label
    and their division's: path (division, article)."""
    units = [(d, a) for d, articles in build.version for a in articles]
    hits = sum(
        profile_parse.path_at(build.text.index(_opening(a))) == (d, a)  # type: ignore[attr-defined]
        for d, a in units
    )
    return hits / len(units)


@pytest.mark.slow
@pytest.mark.parametrize("name", [pytest.param(n, id=n) for n in SETTINGS])
def test_heading_lines_are_the_numbers_set_apart(name: str, built: dict[str, list[Built]]) -> None:
    """Set larger or in the margin, every division's and article's number is a heading line,
    and nothing else is (the body's paragraphs are not); at body size at the margin, none is."""
    for build in built[name]:
        found = [build.text[a:b] for a, b in heading_lines(build.trace, build.text)]
        numbers = [n for d, articles in build.version for n in (d, *articles)]
        assert found == (numbers if SETTINGS[name].headings else [])


@pytest.mark.slow
@pytest.mark.parametrize("name", [pytest.param(n, id=n) for n, s in SETTINGS.items() if s.headings])
def test_the_automatic_choice_reads_numbers_alone_on_heading_lines(
    name: str, built: dict[str, list[Built]]
) -> None:
    """With each version's heading lines, the automatic choice (shipped profiles and the induced
    one) reads at least `SHARE` of the articles with their own label under their division, the
    inserted ones with their letters, in every version; each level says how many of its labels
    stood alone on heading lines. Without them, the same texts read none: the line reader takes
    no number alone on its line."""
    builds = built[name]
    versions = _versions(builds, name)
    headings = [heading_lines(b.trace, b.text) for b in builds]
    choice = choose_profile(versions, registry(), headings=headings)
    assert choice.how == "induced"
    for build, version in zip(builds, versions, strict=True):
        assert _right(build, parse_text(version.version_id, version.text, choice.profile)) >= SHARE
    evidence = dict(level_evidence(choice.profile.source.decode("utf-8")))
    printed = {
        "divisions": sum(len(b.version) for b in builds),
        "articles": sum(len(a) for b in builds for _, a in b.version),
    }
    said = sorted(
        int(note.split(": ")[1].split()[0])
        for notes in evidence.values()
        for note in notes
        if note.startswith("from PDF headings: ")
    )
    assert said == sorted(printed.values())
    blind = choose_profile(versions, registry())
    for build, version in zip(builds, versions, strict=True):
        assert _right(build, parse_text(version.version_id, version.text, blind.profile)) == 0


@pytest.mark.slow
def test_numbers_at_body_size_are_not_read_as_headings(built: dict[str, list[Built]]) -> None:
    """The control: the same numbers alone on their lines at body size, at the margin, give no
    heading line, so the induced profile reads no level from PDF headings and no article."""
    builds = built["body-size-at-the-margin"]
    versions = _versions(builds, "control")
    headings = [heading_lines(b.trace, b.text) for b in builds]
    assert headings == [()] * len(builds)
    choice = choose_profile(versions, registry(), headings=headings)
    assert "from PDF headings" not in choice.profile.source.decode("utf-8")
    for build, version in zip(builds, versions, strict=True):
        assert _right(build, parse_text(version.version_id, version.text, choice.profile)) == 0


@pytest.mark.parametrize(
    ("line", "read"),
    [
        pytest.param("12", ("12", "digits", ""), id="bare-number"),
        pytest.param("IV", ("IV", "letters-upper", ""), id="roman-numeral-no-marks"),
        pytest.param("3a", ("3a", "digits", ""), id="inserted-unit-letter"),
        pytest.param("5 bis", ("5", "digits", "bis"), id="latin-insertion-word"),
        pytest.param("A.", ("A", "letters-upper", "."), id="letter-with-dot"),
        pytest.param("(b)", ("(b)", "letters-lower", ")"), id="letter-in-parentheses"),
        pytest.param("12 months", None, id="number-with-words-after"),
        pytest.param("Act", None, id="a-word"),
        pytest.param("1 75.00", None, id="two-numbers"),
        pytest.param("Title", None, id="a-title-alone"),
    ],
)
def test_a_number_alone_on_a_heading_line(line: str, read: tuple[str, str, str] | None) -> None:
    """`alone_label` takes a line that is one number token and nothing else (letters need no
    marks), at the margin place with no title; a number with words after it, or a word, is none."""
    token = alone_label(line, 7)
    if read is None:
        assert token is None
        return
    assert token is not None
    assert (token.number, token.shape.kind, token.latin or token.shape.close) == read
    assert (token.char_start, token.shape.place, token.title, token.alone) == (
        7,
        "margin",
        "",
        True,
    )


@pytest.mark.parametrize(
    "headings",
    [pytest.param((), id="no-heading-lines"), pytest.param(((0, 2), (40, 43)), id="two-lines")],
)
def test_heading_lines_are_kept_and_read_back_with_the_parts(
    headings: tuple[tuple[int, int], ...],
) -> None:
    """The workspace keeps a version's heading lines beside its footnotes and tables, as JSON,
    and reads back the same spans (a PDF with none keeps an empty tuple)."""
    kept = json.loads(json.dumps(_kept(None, (), headings)))
    read = tuple(_decoded(column, kept[column]) for column in ("footnotes", "tables", "headings"))
    assert read == (None, (), headings)


@pytest.mark.slow
def test_commands_read_a_held_pdfs_heading_lines(
    built: dict[str, list[Built]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The PDFs set larger, added, admitted and ingested as one family: `structure` (the profile
    measure chooses, reading the heading lines the workspace keeps) reads every article under its
    division with the evidence beside each level, and `families --numbering` says it is read."""
    into, workspace = tmp_path / "into", str(tmp_path / "ws.sqlite")
    builds = built["larger"]
    for k, build in enumerate(builds):
        facts = ["--jurisdiction", "test-pdf", "--family", "act", "--official", "--order"]
        url = f"https://example.org/act/v{k}.pdf"
        args = [str(build.path), "--into", str(into), *facts, str(k + 1), "--url", url]
        assert main(["corpus", "add", *args, "--label", f"v{k}"]) == 0
    corpus = str(tmp_path / "corpus")
    assert main(["corpus", "admit", str(into), "--corpus-dir", corpus]) == 0
    held = ["--workspace", workspace]
    assert main(["ingest", "--corpus-dir", corpus, "--store", str(into), *held]) == 0
    capsys.readouterr()
    last = builds[-1]
    assert main(["structure", f"test-pdf/act/{last.path.name}", *held]) == 0
    shown = capsys.readouterr().out
    paths = [line.split()[3] for line in shown.splitlines() if line.strip()[:1].isdigit()]
    assert paths == [
        p for d, articles in last.version for p in (d, *(f"{d}/{a}" for a in articles))
    ]
    said = sorted(int(n.split()[0]) for n in shown.split("from PDF headings: ")[1:])
    printed = [
        sum(len(b.version) for b in builds),
        sum(len(a) for b in builds for _, a in b.version),
    ]
    assert said == sorted(printed)
    assert main(["families", "--numbering", *held]) == 0
    assert "numbering: 1 families read, 0 read with inconsistencies" in capsys.readouterr().out
