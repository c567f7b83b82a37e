from __future__ import annotations

import gc
import hashlib
import json
import operator
import random
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS_DIR, ROOT, STORE, link_families
from tests.text.test_structure import _text_version
from workbench.corpus import admit, read_catalogue, read_refusals
from workbench.corpus.catalogue import CATALOGUE_NAME, catalogue_bytes
from workbench.derived import code_digest
from workbench.errors import ExportFormatError
from workbench.measure import (
    CACHE_DIR_NAME,
    CAP_CAUSES,
    VERSION_FACTS,
    FamilyMeasurement,
    MeasurementCache,
    MeasureRun,
    corpus_digest,
    family_cache_key,
    family_measurement_from_json,
    held_version_facts,
    measure_corpus,
    measure_family,
    rate,
    reduce_families,
    version_facts,
)
from workbench.measure.admitted import TABLE as ADMITTED_TABLE
from workbench.measure.apparatus import apparatus_report
from workbench.measure.html import _write, structure_html, write_reports
from workbench.measure.index import INDEX_NAME
from workbench.measure.readme import headline_readme
from workbench.measure.reports import STRUCTURE_NAME, Measurements, reduce_summaries
from workbench.models import CatalogueRow, Refusal, Version
from workbench.text.profiles import (
    SHIPPED_DIR,
    Profile,
    named_profile,
    parse_profile,
    read_profile_dir,
    registry,
    shipped_profiles,
)
from workbench.text.structure import StructureParse, parse_structure
from workbench.workspace import Workspace
from workbench.workspace.catalogue import exported, held_rows

MEASUREMENTS = ROOT / "measurements"


@dataclass(frozen=True)
class Row:
    evidence_id: str
    flag: bool


@pytest.mark.parametrize(
    ("rows", "text"),
    [
        pytest.param(
            [Row(str(i), i < 3) for i in range(9)], "n = 9 subjects; no rate", id="below-ten"
        ),
        pytest.param([Row(str(i), i < 3) for i in range(10)], "30.00% (3 of 10)", id="ten"),
        pytest.param(
            [Row("same", True)] * 50, "n = 1 subjects; no rate", id="one-subject-repeated"
        ),
        pytest.param(
            [Row(str(i % 12), i % 12 == 0) for i in range(120)],
            "8.33% (1 of 12)",
            id="repeats-count-once",
        ),
        pytest.param([], "n = 0 subjects; no rate", id="empty"),
        pytest.param(
            [Row(str(i), i < 2) for i in range(3)] * 4,
            "n = 3 subjects; no rate",
            id="twelve-rows-three-subjects",
        ),
    ],
)
def test_rate(rows: list[Row], text: str) -> None:
    assert rate(rows, lambda r: r.flag).text == text


def test_rate_refuses_contradictory_evidence() -> None:
    with pytest.raises(ValueError, match="evidence x: rows with one id disagree"):
        rate([Row("x", True), Row("x", False)], lambda r: r.flag)


def _pair(before: str, after: str) -> FamilyMeasurement:
    a = _text_version(before, "test/fam/a.txt")
    b = _text_version(after, "test/fam/b.txt")
    b = b.__class__(**{**{f: getattr(b, f) for f in b.__slots__}, "version_order": 2})
    return measure_family([a, b])


@pytest.mark.parametrize(
    ("before", "after", "cause"),
    [
        pytest.param(
            "1.  Scope\n\n2024 annual filing of the rates\n",
            "1.  Scope\n\n2025 annual filing of the rates\n",
            "year_like",
            id="year",
        ),
        pytest.param(
            "1.  Scope\n\n127 STAT. 1165\n",
            "1.  Scope\n\n128 STAT. 1165\n",
            "page_or_gutter",
            id="page-header",
        ),
        pytest.param(
            "1.  Scope\n\n2.  Fees shall be paid monthly\n",
            "1.  Scope\n\n1.1.  Fees shall be paid monthly\n",
            "renumbered",
            id="renumbered",
        ),
        pytest.param(
            "Preamble\n\n§ 7 Fees shall be paid monthly\n",
            "Preamble\n\n§ 8 Fees shall be paid monthly\n",
            "structure_refused",
            id="no-structure",
        ),
    ],
)
def test_cap_causes(before: str, after: str, cause: str) -> None:
    capped = [p for p in _pair(before, after).pairings if p.proxy_capped]
    assert [p.cap_cause for p in capped] == [cause]


@pytest.mark.parametrize(
    ("before", "after", "status", "reading"),
    [
        pytest.param(
            "1. Scope of the rule\n\n2. Terms used in it\n\n3. Fees are due monthly\n",
            "1. Scope of the rule\n\n5. Terms used in it\n\n9. Fees are due monthly\n",
            "refused",
            "read with inconsistencies",
            id="one-side-refused",
        ),
        pytest.param(
            "Preamble\n\n§ 7 Fees are due\n",
            "Preamble\n\n§ 8 Fees are due\n",
            "unread",
            "unread",
            id="family-unread",
        ),
    ],
)
def test_a_refusal_never_lifts_a_cap(before: str, after: str, status: str, reading: str) -> None:
    measured = _pair(before, after)
    assert measured.profile["reading"] == reading
    capped = [p for p in measured.pairings if p.proxy_capped]
    assert capped and all(p.structure_status == status and p.structure_capped for p in capped)
    assert not any(p.known for p in measured.pairings)


def test_measurement_does_not_depend_on_family_order(
    family_measurements: list[FamilyMeasurement], catalogue: tuple[CatalogueRow, ...]
) -> None:
    first = reduce_families(family_measurements, catalogue)
    shuffled = list(family_measurements)
    random.Random(7).shuffle(shuffled)
    assert reduce_families(shuffled, list(reversed(catalogue))) == first


def test_every_family_records_the_profile_that_read_it(
    family_measurements: list[FamilyMeasurement],
) -> None:
    shipped = {p.name: p for p in shipped_profiles()}
    for family in family_measurements:
        profile = family.profile
        path = SHIPPED_DIR / profile["origin"].removeprefix("shipped:")
        assert profile["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        assert profile["chosen"] == "named", family.family  # every corpus jurisdiction has one
        assert shipped[profile["name"]] is named_profile(
            shipped_profiles(), family.jurisdiction, family.family
        )
        assert {p.profile for p in family.parses} == {profile["name"]}


@pytest.mark.slow
@pytest.mark.parametrize("jurisdiction", ["ietf", "us-dc", "us-nerc", "ca-federal"])
def test_structure_is_known_for_nine_in_ten_numbered_pairings(
    corpus_measurements: list[FamilyMeasurement],
    catalogue: tuple[CatalogueRow, ...],
    jurisdiction: str,
) -> None:
    block = reduce_families(corpus_measurements, catalogue).structure["jurisdictions"][jurisdiction]
    known = block["structure_known"]
    assert block["meets_target"] == "yes", known
    assert known["holds"] * 10 >= 9 * known["subjects"]
    assert (
        known["subjects"] + block["excluded_front_matter_or_furniture"]
        == block["modified_pairings"]
    )


@pytest.mark.slow
def test_unnumbered_federal_resolutions_are_the_only_unknown_federal_pairings(
    corpus_measurements: list[FamilyMeasurement], catalogue: tuple[CatalogueRow, ...]
) -> None:
    """U.S. joint and concurrent resolutions number nothing (no <num> element): their pairings are
    unknown by that stated cause, and every other federal pairing is known."""
    block = reduce_families(corpus_measurements, catalogue).structure["jurisdictions"]["us-federal"]
    assert set(block["unknown_by_cause"]) == {"refused:no_numbering"}
    unknown = [
        p
        for f in corpus_measurements
        if f.jurisdiction == "us-federal"
        for p in f.pairings
        if not p.excluded and not p.known
    ]
    assert unknown and all(re.search(r"(?:jres|conres)", p.family) for p in unknown)


@pytest.mark.slow
@pytest.mark.parametrize("jurisdiction", ["us-mo", "us-ma", "us-federal-register"])
def test_single_version_numbered_documents_give_nine_in_ten_body_passages_a_path(
    corpus_measurements: list[FamilyMeasurement],
    catalogue: tuple[CatalogueRow, ...],
    jurisdiction: str,
) -> None:
    block = reduce_families(corpus_measurements, catalogue).structure["passages"]["jurisdictions"][
        jurisdiction
    ]
    with_path = block["body_with_path"]
    assert block["body_with_path_meets_target"] == "yes", with_path
    assert with_path["holds"] * 10 >= 9 * with_path["subjects"]


def test_a_researchers_profile_is_recorded_by_path_and_hash(
    tmp_path: Path, held_versions: tuple[Version, ...]
) -> None:
    source = (
        (SHIPPED_DIR / "us-nerc.toml").read_bytes().replace(b'name = "us-nerc"', b'name = "mine"')
    )
    (tmp_path / "mine.toml").write_bytes(source)
    own = read_profile_dir(tmp_path)
    family = [v for v in held_versions if v.family == "nerc-cip-012"]
    measured = measure_family(family, registry(own))
    parses = [parse_structure(v, own[0]) for v in family]
    assert measured.profile == {
        "name": "mine",
        "sha256": hashlib.sha256(source).hexdigest(),
        "origin": str(tmp_path / "mine.toml"),
        "chosen": "named",
        **_reading_record(parses),
    }


def _reading_record(parses: list[StructureParse]) -> dict[str, Any]:
    """The reading a profile record should state, counted here from the parses themselves."""
    consistent = sum(p.checked - p.inconsistent for p in parses if p.refusal is None)
    inconsistent = sum(p.inconsistent for p in parses)
    status = "read with inconsistencies" if inconsistent else "read"
    return {
        "reading": "unread" if consistent == 0 else status,
        "consistent_steps": consistent,
        "inconsistent_steps": inconsistent,
    }


@pytest.mark.slow
def test_committed_measurements_are_fresh(
    corpus_measurements: list[FamilyMeasurement],
    corpus_measured: Workspace,
    catalogue: tuple[CatalogueRow, ...],
    tmp_path: Path,
) -> None:
    """Re-derive every report from the corpus; the committed files must match byte for byte."""
    measured = reduce_families(corpus_measurements, catalogue, read_refusals(CORPUS_DIR))
    measured.structure["apparatus"] = apparatus_report(corpus_measured, STORE)  # as measure does
    written = write_reports(tmp_path, measured)
    assert all((MEASUREMENTS / name).is_file() for name in written), (
        "a report is missing: run 'make measure'"
    )
    stale = [
        name
        for name in written
        if (tmp_path / name).read_bytes() != (MEASUREMENTS / name).read_bytes()
    ]
    assert not stale, f"measurements/ is stale ({', '.join(stale)}): run 'make measure' and commit"


def test_reports_are_headed_by_the_corpus_digest() -> None:
    digest = json.loads((MEASUREMENTS / "corpus-digests.json").read_bytes())["corpus_digest"]
    for name in ("corpus-digests.json", "structure-measurement.json", "escalation-rates.json"):
        assert next(iter(json.loads((MEASUREMENTS / name).read_bytes()))) == "corpus_digest"
        assert json.loads((MEASUREMENTS / name).read_bytes())["corpus_digest"] == digest
    for name in (
        "README.md",
        "corpus-digests.html",
        "structure-measurement.html",
        "escalation-rates.html",
    ):
        assert digest in (MEASUREMENTS / name).read_text(encoding="utf-8")


def _field(report: object, dotted: str) -> object:
    value = report
    for key in dotted.split("."):
        assert isinstance(value, dict), dotted
        value = value[key]
    return value


def test_every_readme_figure_is_in_the_json_it_names() -> None:
    """Each bullet names its sources as [file: field, field; file: field]; every figure in it must
    come from them."""
    checked = 0
    for line in (MEASUREMENTS / "README.md").read_text(encoding="utf-8").splitlines():
        match = re.fullmatch(r"- (?P<text>.*) \[(?P<sources>[\w.-]+\.json: .*)\]", line)
        if not match:
            continue
        values = []
        for source in match["sources"].split("; "):  # one or more "file.json: field, field"
            file, fields = source.split(": ", 1)
            report = json.loads((MEASUREMENTS / file).read_bytes())
            values += [str(_field(report, name.strip())) for name in fields.split(",")]
        assert all(value in match["text"] for value in values), (line, values)
        for figure in re.findall(r"\d+(?:\.\d+)?%?", match["text"]):
            assert any(figure in value for value in values), (line, figure)
        checked += 1
    assert checked >= 15


def test_html_escapes_filing_text(
    tmp_path: Path,
    family_measurements: list[FamilyMeasurement],
    catalogue: tuple[CatalogueRow, ...],
) -> None:
    measurements = reduce_families(family_measurements, catalogue)
    cause = next(c for c in CAP_CAUSES if measurements.structure["examples"][c])
    measurements.structure["examples"][cause][0]["before_excerpt"] = "<script>alert('x')</script>"
    # The one page that shows the examples, written as `write_reports` writes it.
    path = tmp_path / "structure-measurement.html"
    _write(path, structure_html(measurements.structure, measurements.profile_table))
    page = path.read_text(encoding="utf-8")
    assert "<script>" not in page and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page


@pytest.mark.slow
def test_html_reports_render_offline_in_chromium(tmp_path: Path) -> None:
    """Headless Chromium, network disabled, opens each report: the chart SVGs are there and drawn."""
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        context = browser.new_context(offline=True)
        page = context.new_page()
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        for name in ("corpus-digests.html", "structure-measurement.html", "escalation-rates.html"):
            page.goto((MEASUREMENTS / name).resolve().as_uri())
            charts = page.locator("figure svg")
            assert charts.count() >= 1, name
            box = charts.first.bounding_box()
            assert box is not None and box["width"] > 100 and box["height"] > 100, name
            assert page.locator("figure svg .mark-rect path, figure svg path").count() > 0, name
        page.screenshot(path=str(tmp_path / "escalation-rates.png"), full_page=True)
        browser.close()
    assert all(url.startswith("file://") for url in requests), requests


# ---------------------------------------------------------------------------------------------
# measure_corpus: warm runs reuse what is unchanged, and write the same bytes

# Three small families: an Internet-Draft pair with capped and renumbered pairings, a bill in XML
# whose structure is refused, and a single-version PDF (no pairing at all).
SMALL = (
    "ietf/draft-nottingham-cache-extensions",
    "us-federal/116-hjres107",
    "us-federal/epa-oig-report-10-p-0154-excerpt",
)


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture(scope="module")
def small_mirror(
    catalogue: tuple[CatalogueRow, ...], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A mirror-layout folder of the `SMALL` families, hard-linked from the fetched store."""
    return link_families(tmp_path_factory.mktemp("small-mirror"), SMALL)


@pytest.fixture(scope="module")
def cold(small_mirror: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, MeasureRun]:
    """One cold run: a fresh workspace and an empty cache beside it."""
    folder = tmp_path_factory.mktemp("cold")
    run = measure_corpus(mirror=small_mirror, out=folder / "out", workspace=folder / "w.sqlite")
    return folder, run


@pytest.fixture
def warm(cold: tuple[Path, MeasureRun], tmp_path: Path) -> Path:
    """The cold run's workspace and cache, copied, so each test starts from the same state."""
    folder = tmp_path / "warm"
    folder.mkdir()
    shutil.copy2(cold[0] / "w.sqlite", folder / "w.sqlite")
    shutil.copytree(cold[0] / CACHE_DIR_NAME, folder / CACHE_DIR_NAME)
    return folder


def test_a_cold_run_extracts_and_measures_everything(
    cold: tuple[Path, MeasureRun], small_mirror: Path
) -> None:
    folder, run = cold
    admitted = admit(small_mirror).rows
    assert run.families == SMALL and run.reused == ()
    assert sorted(run.extracted) == sorted(r.path for r in admitted) and len(admitted) == 6
    assert len(list((folder / CACHE_DIR_NAME).glob("*.json"))) == len(SMALL)
    assert {p.name for p in run.written} == set(_tree(folder / "out"))


def test_the_map_holds_a_batch_of_families_rows_never_the_catalogue(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the map runs, the client holds the rows of the batch it runs and of the one before
    (a family each here), the next family's first row and the page of the catalogue table it
    reads them from (one row here), not the catalogue: the live `CatalogueRow`s are counted as
    each family's task runs, on a mirror of the twelve smallest families of text and XML."""
    from workbench.measure import cluster
    from workbench.measure.tasks import run_family_task as run_task
    from workbench.workspace import catalogue as table

    families = _families(row for row in catalogue if row.media_type != "application/pdf")
    chosen = sorted(families.values(), key=lambda rows: (sum(r.size for r in rows), rows[0].path))
    mirror = link_families(tmp_path / "mirror", sorted(_name(rows[0]) for rows in chosen[:12]))
    admitted = _families(admit(mirror).rows)

    counted: list[tuple[str, int]] = []

    def counting(task: Any, **options: Any) -> Any:
        counted.append((task.name, _live_rows() - before))
        return run_task(task, **options)

    monkeypatch.setattr(cluster, "BATCH_VERSIONS", 1)  # a batch is one family
    monkeypatch.setattr(table, "PAGE_ROWS", 1)
    monkeypatch.setattr(cluster, "run_family_task", counting)
    before = _live_rows()
    run = measure_corpus(mirror=mirror, out=tmp_path / "out", workspace=tmp_path / "w.sqlite")
    assert [name for name, _ in counted] == sorted(admitted) == list(run.families)
    two = sum(sorted(map(len, admitted.values()))[-2:])  # the two largest families' rows
    assert max(live for _, live in counted) <= two + 2 < sum(map(len, admitted.values()))


def test_the_map_knows_how_many_families_it_measures_before_it_makes_a_task(
    catalogue: tuple[CatalogueRow, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The families to measure are decided (reused or not) before the first task is made, so the
    map is handed their count (its progress bar's total) with no task made yet; then one task per
    family measured. Two of the smallest text families are measured, then a mirror of those two
    and a third into the same workspace and output: two reused, one measured."""
    from workbench.measure import cluster, corpus_map

    families = _families(row for row in catalogue if row.media_type == "text/plain")
    chosen = sorted(families, key=lambda name: sum(r.size for r in families[name]))[:3]
    names = sorted(chosen[:2]), sorted(chosen)
    made: list[str] = []  # the families whose task was made, in order
    seen: list[tuple[int, int]] = []  # (the count handed to the map, tasks made by then)
    real_task, real_map = corpus_map.family_task, cluster.map_tasks

    def making(rows: Any, *args: Any, **options: Any) -> Any:
        made.append(_name(rows[0]))
        return real_task(rows, *args, **options)

    def recording(tasks: Any, on_result: Any, **options: Any) -> None:
        seen.append((len(tasks), len(made)))
        real_map(tasks, on_result, **options)

    monkeypatch.setattr(corpus_map, "family_task", making)
    monkeypatch.setattr(cluster, "map_tasks", recording)
    out, workspace = tmp_path / "out", tmp_path / "w.sqlite"
    for k, chosen_names in enumerate(names):
        mirror = link_families(tmp_path / f"mirror-{k}", chosen_names)
        run = measure_corpus(mirror=mirror, out=out, workspace=workspace)
    assert len(run.reused) == 2 and list(run.families) == names[1]
    assert seen == [(2, 0), (1, 2)]
    assert made == [*names[0], next(n for n in names[1] if n not in names[0])]


def test_the_reduce_is_given_what_the_reports_read_of_each_row_never_the_rows(
    cold: tuple[Path, MeasureRun], small_mirror: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    """The reduce gets the few columns of each catalogue row the reports read (`Listed`, read
    from the table without the rows' lines), the same values a `CatalogueRow` gives, and no
    `CatalogueRow` is live while it runs. The reports are the cold run's bytes."""
    from workbench.measure import run as runs
    from workbench.workspace.catalogue import Listed, table_rows

    given: list[list[Any]] = []
    live: list[int] = []

    def reducing(summaries: Any, rows: Any, *args: Any, **options: Any) -> Measurements:
        given.append(list(rows))
        live.append(_live_rows() - before)
        return reduce_summaries(summaries, given[-1], *args, **options)

    monkeypatch.setattr(runs, "reduce_summaries", reducing)
    before = _live_rows()
    measure_corpus(mirror=small_mirror, out=tmp_path / "out", workspace=tmp_path / "w.sqlite")
    assert [type(row) for row in given[0]] == [Listed] * len(admit(small_mirror).rows)
    with Workspace(tmp_path / "w.sqlite") as held:
        assert given[0] == [Listed.of(row) for row in table_rows(held)]
    assert live == [0]
    assert _tree(tmp_path / "out") == _tree(cold[0] / "out")


def _live_rows() -> int:
    """How many `CatalogueRow`s this process holds: every object the collector tracks, its type
    compared in C (`CatalogueRow` has no subclass, so this is the `isinstance` count)."""
    assert not CatalogueRow.__subclasses__()
    return operator.countOf(map(type, gc.get_objects()), CatalogueRow)


def _name(row: CatalogueRow) -> str:
    return f"{row.jurisdiction}/{row.family}"


def _families(rows: Iterable[CatalogueRow]) -> dict[str, list[CatalogueRow]]:
    grouped: dict[str, list[CatalogueRow]] = {}
    for row in rows:
        grouped.setdefault(_name(row), []).append(row)
    return grouped


def test_the_cache_gives_back_what_measure_family_computes(cold: tuple[Path, MeasureRun]) -> None:
    folder, _ = cold
    cache = MeasurementCache(folder=folder / CACHE_DIR_NAME)
    with Workspace(folder / "w.sqlite") as held:
        facts = held_version_facts(held)
        assert facts == tuple(version_facts(v) for v in held.versions())
        for family in SMALL:
            jurisdiction, name = family.split("/")
            versions = [v for v in held.versions(name) if v.jurisdiction == jurisdiction]
            key = family_cache_key([version_facts(v) for v in versions], registry(), code_digest())
            assert cache.get(key) == measure_family(versions), family


def _ietf_copy(tmp_path: Path) -> tuple[Path, ...]:
    """A folder holding a researcher's copy of the shipped ietf profile, one comment longer:
    other bytes."""
    path = tmp_path / "profiles" / "ietf.toml"
    path.parent.mkdir()
    path.write_bytes((SHIPPED_DIR / "ietf.toml").read_bytes() + b"\n# a researcher's copy\n")
    return (path.parent,)


@pytest.mark.parametrize(
    ("change", "reused"),
    [
        pytest.param("nothing", SMALL, id="nothing-changed-every-family-reused"),
        pytest.param("profile", SMALL[1:], id="a-profile-changes-only-its-families"),
        pytest.param("code", (), id="other-code-measures-everything-again"),
        pytest.param("damaged-entry", SMALL[1:], id="a-damaged-entry-is-measured-again"),
        pytest.param("no-cache", (), id="use-cache-false-measures-everything"),
    ],
)
def test_a_warm_run_reuses_exactly_what_is_unchanged(
    change: str,
    reused: tuple[str, ...],
    cold: tuple[Path, MeasureRun],
    warm: Path,
    small_mirror: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Nothing is extracted again; a family is measured again only when its key changed; the
    reports are the cold run's bytes."""
    folder = warm
    own: tuple[Path, ...] = ()
    if change == "nothing":

        def measured_again(*args: object) -> FamilyMeasurement:
            raise AssertionError("a warm run measured a family it had measured before")

        monkeypatch.setattr("workbench.measure.run.measure_family", measured_again)
    elif change == "profile":
        own = _ietf_copy(tmp_path)
    elif change == "code":
        for module in ("run", "corpus_map"):
            monkeypatch.setattr(f"workbench.measure.{module}.code_digest", lambda: "0" * 64)
    elif change == "damaged-entry":
        with Workspace(folder / "w.sqlite") as held:
            facts = [f for f in held_version_facts(held) if f[1] == "ietf"]
        entry = (
            folder / CACHE_DIR_NAME / f"{family_cache_key(facts, registry(), code_digest())}.json"
        )
        entry.write_bytes(entry.read_bytes()[:100])  # a run killed mid-write, without the rename
        # The summary index is the cold run's; without it, each family's shard is read again.
        (folder / CACHE_DIR_NAME / INDEX_NAME).unlink()
    run = measure_corpus(
        mirror=small_mirror,
        out=tmp_path / "out",
        workspace=folder / "w.sqlite",
        profile_folders=own,
        use_cache=change != "no-cache",
    )
    assert run.extracted == () and run.reused == reused
    if change != "profile":  # the researcher's profile is recorded by its path, so bytes differ
        assert _tree(tmp_path / "out") == _tree(cold[0] / "out")


@pytest.fixture(scope="module")
def first_run(
    cold: tuple[Path, MeasureRun], small_mirror: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, MeasureRun]:
    """A run from the cold run's workspace and cache (as `warm` copies them) into a new reports
    folder, made once in `case/` and kept beside it as it left that folder (`kept/`)."""
    folder = tmp_path_factory.mktemp("first-run")
    case = folder / "case"
    case.mkdir()
    shutil.copy2(cold[0] / "w.sqlite", case / "w.sqlite")
    shutil.copytree(cold[0] / CACHE_DIR_NAME, case / CACHE_DIR_NAME)
    first = measure_corpus(mirror=small_mirror, out=case / "out", workspace=case / "w.sqlite")
    shutil.copytree(case, folder / "kept")
    return folder, first


@pytest.fixture
def after_first(first_run: tuple[Path, MeasureRun]) -> tuple[Path, MeasureRun]:
    """`case/` put back as the first run left it, at the same path (the reports' view names its
    folder), for each test to change and run again; and that run."""
    folder, first = first_run
    shutil.rmtree(folder / "case")
    shutil.copytree(folder / "kept", folder / "case")
    return folder / "case", first


@pytest.mark.parametrize(
    ("change", "derived", "changed"),
    [
        pytest.param("nothing", False, (), id="nothing-changed-nothing-derived"),
        pytest.param(
            "report-edited", True, (STRUCTURE_NAME,), id="an-edited-report-is-derived-again"
        ),
        pytest.param(
            "report-removed", True, (STRUCTURE_NAME,), id="a-removed-report-is-derived-again"
        ),
        pytest.param("other-folder", True, None, id="reports-into-another-folder-are-derived"),
        pytest.param("no-cache", True, (), id="use-cache-false-derives-again"),
    ],
)
def test_a_second_run_with_nothing_changed_derives_no_report(
    change: str,
    derived: bool,
    changed: tuple[str, ...] | None,
    cold: tuple[Path, MeasureRun],
    after_first: tuple[Path, MeasureRun],
    small_mirror: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The reports a run wrote are kept under their key (`derived.DerivedState`): a second run
    with nothing changed checks the key and the files' SHA-256 and reduces nothing; a file
    changed or removed, another folder, or `use_cache=False` derive them again. Either way the
    files are the cold run's bytes and the run says the same."""
    folder, first = after_first
    if change == "report-edited":
        (folder / "out" / STRUCTURE_NAME).write_bytes(b"{}\n")
    elif change == "report-removed":
        (folder / "out" / STRUCTURE_NAME).unlink()
    out = folder / ("other" if change == "other-folder" else "out")
    reduced: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> Measurements:
        reduced.append(1)
        return reduce_summaries(*args, **kwargs)

    monkeypatch.setattr("workbench.measure.run.reduce_summaries", counted)
    second = measure_corpus(
        mirror=small_mirror,
        out=out,
        workspace=folder / "w.sqlite",
        use_cache=change != "no-cache",
    )
    assert bool(reduced) == derived
    assert _tree(out) == _tree(cold[0] / "out")
    assert [p.name for p in second.written] == [p.name for p in first.written]
    # Only a file whose bytes differed is written again (None: every one, into a new folder).
    assert second.changed == (
        second.written if changed is None else tuple(out / n for n in changed)
    )
    assert second.numbering == first.numbering is not None
    assert second.families == first.families and second.extracted == ()


def test_a_second_run_of_a_mirror_reads_again_only_the_documents_that_moved(
    small_mirror: Path, tmp_path: Path, documents_read: list[str]
) -> None:
    """The workspace keeps each admitted document's file stamp (`measure.admitted`); the next
    run of the same mirror parses no provenance and hashes no byte of a document whose stamp
    has not moved, and writes the same reports."""
    mirror = tmp_path / "mirror"  # copied: the stamps of hard links move as links are made
    shutil.copytree(small_mirror, mirror)
    first = measure_corpus(mirror=mirror, out=tmp_path / "out1", workspace=tmp_path / "w.sqlite")
    with Workspace(tmp_path / "w.sqlite") as held:
        kept = dict(held.read(f"SELECT path, stamp FROM {ADMITTED_TABLE}"))
    assert set(kept) == {row.path for row in admit(mirror).rows} and first.documents == len(kept)
    documents_read.clear()  # the first run read every one
    second = measure_corpus(mirror=mirror, out=tmp_path / "out2", workspace=tmp_path / "w.sqlite")
    assert documents_read == [] and second.documents == first.documents
    assert _tree(tmp_path / "out2") == _tree(tmp_path / "out1")
    # The catalogue file is the export of the workspace's table (`workspace.catalogue`).
    catalogue = read_catalogue(tmp_path)  # beside the workspace (`corpus.catalogue_folder`)
    with Workspace(tmp_path / "w.sqlite") as held:
        assert exported(held) == (str(tmp_path.resolve()), catalogue.sha256)
        table = held_rows(held, tmp_path, catalogue.sha256)
    assert table is not None and list(table) == list(catalogue)
    assert second.corpus_digest == first.corpus_digest == corpus_digest(catalogue)
    assert catalogue_bytes(table) == (tmp_path / CATALOGUE_NAME).read_bytes()


def test_a_cache_key_names_every_input(cold: tuple[Path, MeasureRun]) -> None:
    """Each version fact, the candidate profiles and the code digest each change the key."""
    with Workspace(cold[0] / "w.sqlite") as held:
        facts = [f for f in held_version_facts(held) if f[1] == "ietf"]
    profiles, code = registry(), code_digest()
    key = family_cache_key(facts, profiles, code)
    changed = [
        family_cache_key(
            [facts[0], tuple("x" if i == at else v for i, v in enumerate(facts[1]))], profiles, code
        )
        for at in range(len(VERSION_FACTS))
    ]
    changed += [
        family_cache_key(facts[::-1], profiles, code),
        family_cache_key(facts, registry(_ietf_copy_of_bytes()), code),
        family_cache_key(facts, profiles, "0" * 64),
    ]
    assert key not in changed and len(set(changed)) == len(changed)
    # A profile the family cannot be read through leaves its key as it was.
    us_dc = parse_profile((SHIPPED_DIR / "us-dc.toml").read_bytes() + b"\n#\n", "elsewhere.toml")
    assert family_cache_key(facts, registry((us_dc,)), code) == key


def _ietf_copy_of_bytes() -> tuple[Profile, ...]:
    return (parse_profile((SHIPPED_DIR / "ietf.toml").read_bytes() + b"\n#\n", "own/ietf.toml"),)


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda d: {k: v for k, v in d.items() if k != "parses"}, id="missing-field"),
        pytest.param(lambda d: {**d, "extra": 1}, id="unknown-field"),
        pytest.param(
            lambda d: {**d, "pairings": [{**d["pairings"][0], "unknown": 1}]},
            id="unknown-row-field",
        ),
        pytest.param(lambda d: {**d, "profile": ["ietf"]}, id="profile-not-an-object"),
        pytest.param(lambda d: {**d, "parses": {}}, id="rows-not-a-list"),
        pytest.param(lambda d: [d], id="not-an-object"),
    ],
)
def test_a_malformed_family_measurement_is_refused(
    damage: Any, cold: tuple[Path, MeasureRun]
) -> None:
    cache = MeasurementCache(folder=cold[0] / CACHE_DIR_NAME)
    # An entry with evidence rows of each kind, whichever family's key sorts first.
    entries = [json.loads(p.read_bytes()) for p in sorted(cache.folder.glob("*.json"))]
    data = next(
        e["measurement"]
        for e in entries
        if e["measurement"]["pairings"] and e["measurement"]["parses"]
    )
    assert family_measurement_from_json(data) is not None
    with pytest.raises(ValueError, match=r"^not a family measurement"):
        family_measurement_from_json(damage(data))


def test_measure_corpus_refuses_an_unknown_export_format(tmp_path: Path) -> None:
    with pytest.raises(
        ExportFormatError, match=r"^xlsx: not an export format; expected one of csv, parquet$"
    ):
        measure_corpus(out=tmp_path / "out", workspace=tmp_path / "w.sqlite", export="xlsx")
    assert not (tmp_path / "out").exists() and not (tmp_path / "w.sqlite").exists()


def test_text_origins_per_jurisdiction_say_us_tx_is_machine_read(
    family_measurements: list[FamilyMeasurement],
    catalogue: tuple[CatalogueRow, ...],
    workspace: Workspace,
) -> None:
    """The share of characters by origin (C18), counted from the versions' own records: us-tx's
    text is mostly a machine's reading, and the README says what that does to its diffs."""
    measured = reduce_families(family_measurements, catalogue)
    blocks = measured.structure["text_origins"]["jurisdictions"]
    held = [v for f in family_measurements for v in workspace.versions(f.family)]
    for jurisdiction, block in blocks.items():
        mine = [v for v in held if v.jurisdiction == jurisdiction]
        assert block["versions"] == len(mine), jurisdiction
        for name in ("glyphs", "invisible", "ocr"):
            expected = sum(
                v.origin.characters(v.text).get(name, 0) for v in mine if v.origin is not None
            )
            assert block[name]["holds"] == expected, (jurisdiction, name)
    tx = blocks["us-tx"]
    machine = tx["invisible"]["holds"] + tx["ocr"]["holds"]
    assert tx["machine_read"]["holds"] == machine and machine * 2 > tx["characters"]
    assert blocks["us-dc"]["machine_read"]["holds"] == 0  # XML: every character drawn
    caution = measured.escalation["caution"]["jurisdictions"]["us-tx"]
    assert caution["pairings_machine_read"]["holds"] > 0
    readme = headline_readme(measured).decode()
    assert f"- us-tx: machine-read {tx['machine_read']['rate']};" in readme
    assert (
        f"- us-tx holds machine-read text ({tx['versions_mostly_machine_read']} of its "
        f"{tx['versions']} versions mostly so), so its diffs compare machine readings: pairings "
        f"of two machine readings {caution['pairings_machine_read']['rate']}"
    ) in readme
    assert "- us-dc holds machine-read text" not in readme


def test_a_document_not_ingested_is_listed_and_never_counted_as_measured(
    family_measurements: list[FamilyMeasurement], catalogue: tuple[CatalogueRow, ...]
) -> None:
    unread = Refusal(
        path=catalogue[0].path,
        reason="extraction_failed",
        detail="no page has usable text (page 1: no_text)",
    )
    measured = reduce_families(family_measurements, catalogue, (), [unread])
    digests = measured.digests
    assert digests["not_ingested"] == [unread.as_json()]
    assert digests["documents_measured"] == digests["documents"] - 1
    assert digests["documents_not_ingested"] == 1
    readme = headline_readme(measured).decode()
    assert (
        f"- measured: {digests['documents'] - 1} of them; admitted but not ingested, so never "
        "measured: 1"
    ) in readme
    assert f"  - `{unread.path}`: extraction_failed (no page has usable text" in readme
    plain = reduce_families(family_measurements, catalogue)
    assert plain.digests["not_ingested"] == []
    assert plain.digests["documents_measured"] == plain.digests["documents"]
    assert plain.digests["documents_not_ingested"] == 0
