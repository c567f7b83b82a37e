"""A profile induced from texts alone, on real documents: what it finds, what it nests, what it
refuses to invent, and that it reads no profile and no jurisdiction."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import sys
import tomllib
from collections import defaultdict
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import ROOT, STORE
from tests.text.relabel import WRITERS, relabel
from tests.text.test_structure import _text_version
from workbench.changes.queue import doubtful_pairings
from workbench.cli import main
from workbench.corpus import admit
from workbench.evals.paths import (
    Agreement,
    TruthUnit,
    agreement,
    label_key,
    locate,
    score_family,
)
from workbench.measure.family import measure_family
from workbench.models import Version
from workbench.text import profiles
from workbench.text.choice import UNREAD, choose_profile, profile_score, read_numbering
from workbench.text.furniture import compile_furniture, induce_furniture
from workbench.text.induce import Induction, induce_profile
from workbench.text.markup import inline_view
from workbench.text.profiles import (
    Profile,
    named_profile,
    parse_profile,
    registry,
    shipped_profiles,
)
from workbench.text.shapes import label_token
from workbench.text.structure import parse_structure, parse_text, read_text
from workbench.wording import counted
from workbench.workspace import Workspace, ingest

DC = "dc-code-34-1436"  # a D.C. Code section four levels deep: (c)(1)(G)(i)
NUMBER_NOTHING = {  # tables, a tariff label and a form: no numbering of their own
    "eprtr-pollutant-thresholds-guidance-excerpt",
    "good-energy-svt-tariff-information-label",
    "senate-report-of-expenditures-page",
    "wi-dcf-f-2476-e-90-day-summary-report",
}
TRANSCRIPT = "scotus-07-1315-oral-argument-transcript"  # its only numbers are gutter line numbers
EXAMPLES = {"fr-decrets": "french", "de-gesetze": "german"}  # docs example -> relabelling


def _family(workspace: Workspace, family: str, jurisdiction: str = "renamed") -> list[Version]:
    return [replace(v, jurisdiction=jurisdiction) for v in workspace.versions(family)]


def _renamed_copy(jurisdiction: str, family: str, mirror: Path) -> None:
    """The fetched files of one family in mirror layout under `mirror`, their provenance naming
    the jurisdiction "elsewhere" (the documents' bytes unchanged)."""
    folder = mirror / "elsewhere" / family
    folder.mkdir(parents=True)
    for path in sorted((STORE / jurisdiction / family).iterdir()):
        data = path.read_bytes()
        if path.name.endswith(".provenance.json"):
            record = json.loads(data)
            record["jurisdiction"] = "elsewhere"
            data = json.dumps(record).encode()
        (folder / path.name).write_bytes(data)


def _expected(profile: profiles.Profile, chain: tuple[str, ...]) -> tuple[str, ...]:
    """The path elements a profile writes for a chain of printed labels (its `number` groups),
    each label read as it opens a line, with a title after it."""
    out = []
    for label in chain:
        match = next(m for level in profile.levels if (m := level.regex.match(f"{label} Title")))
        out.append(match.group("number"))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# The shapes codes use, on real text


def _docs_examples() -> list[str]:
    page = (ROOT / "docs" / "profiles.md").read_text(encoding="utf-8")
    return re.findall(r"```toml\n(.*?)```", page, flags=re.DOTALL)


def test_every_docs_example_has_a_relabelling() -> None:
    names = {parse_profile(t.encode(), "docs").name for t in _docs_examples()}
    assert names == set(EXAMPLES)


@pytest.mark.parametrize("source", _docs_examples(), ids=lambda t: t.split('"')[1])
def test_every_docs_example_parses_a_real_text(workspace: Workspace, source: str) -> None:
    profile = parse_profile(source.encode(), "docs/profiles.md")
    original = workspace.versions(DC)[-1]
    relabelled = relabel(original, WRITERS[EXAMPLES[profile.name]])
    parse = parse_structure(relabelled.version, profile)
    assert parse.refusal is None and parse.inconsistent == 0, parse
    assert len(relabelled.chains) >= 15
    for start, chain in relabelled.chains:
        assert parse.path_at(start) == _expected(profile, chain), (start, chain)


@pytest.mark.parametrize("shapes", sorted(WRITERS))
def test_the_inducer_nests_relabelled_shapes_as_the_document_does(
    workspace: Workspace, shapes: str
) -> None:
    relabelled = [relabel(v, WRITERS[shapes]) for v in workspace.versions(DC)]
    induced = induce_profile([r.version.text for r in relabelled]).profile()
    for r in relabelled:
        parse = parse_structure(r.version, induced)
        assert parse.refusal is None
        wrong = [
            (start, chain)
            for start, chain in r.chains
            if parse.path_at(start) != _expected(induced, chain)
        ]
        assert wrong == [], r.version.version_id


# ---------------------------------------------------------------------------------------------
# What the inducer finds in real documents


def test_dc_sections_number_and_nesting(workspace: Workspace) -> None:
    induction = induce_profile([v.text for v in workspace.versions("dc-code-34-1432")])
    by_rank = sorted(induction.levels, key=lambda level: level.rank)
    assert [(lv.shape.describe(), lv.rank, lv.sequence) for lv in by_rank] == [
        ("1-1", 0, "none"),  # the section's own number, "34-1432 Renewable energy ..."
        ("(a)", 1, "alpha"),
        ("(1)", 2, "numeric"),
    ]
    assert by_rank[0].document_number and not induction.furniture


def test_ietf_headings_at_the_margin_and_page_furniture(workspace: Workspace) -> None:
    texts = [v.text for v in workspace.versions("draft-ietf-appsawg-http-problem")]
    induction = induce_profile(texts)
    margin = [lv for lv in induction.levels if lv.shape.place == "margin"]
    assert {lv.shape.describe() for lv in margin} >= {"1.", "1.1."}
    assert all(lv.rank < min(b.rank for b in induction.levels if b.shape.place == "body")
               for lv in margin if any(b.shape.place == "body" for b in induction.levels))  # fmt: skip
    furniture = induction.profile().furniture
    footer = "Nottingham & Wilde        Expires June 8, 2016                  [Page 1]"
    assert any(p.fullmatch(footer) for p in furniture)
    assert induction.preamble == "front_matter"


def test_missouri_gutter_and_running_headers(workspace: Workspace) -> None:
    induction = induce_profile(
        [workspace.version("us-mo/mo-2024-hb1746/HB1746_introduced.md").text]
    )
    assert induction.gutter
    assert any(re.fullmatch(p, "HB 1746 2") for p in induction.furniture)


@pytest.mark.slow
def test_texts_that_number_nothing_get_no_label(corpus_workspace: Workspace) -> None:
    for family in sorted(NUMBER_NOTHING):
        versions = corpus_workspace.versions(family)
        induction = induce_profile([v.text for v in versions])
        assert induction.numbers_nothing, family
        profile = induction.profile()
        assert all(parse_text(v.version_id, v.text, profile).units == () for v in versions)


@pytest.mark.slow
def test_profile_suggest_runs_on_every_jurisdiction(corpus_workspace: Workspace) -> None:
    groups: dict[str, dict[str, list[Version]]] = defaultdict(lambda: defaultdict(list))
    for version in corpus_workspace.versions():
        groups[version.jurisdiction][version.family].append(version)
    assert len(groups) >= 15
    for jurisdiction, families in sorted(groups.items()):
        versions = next(iter(families.values()))
        induction = induce_profile([v.text for v in versions])
        profile = induction.profile()  # the TOML loads
        for version in versions:
            parse = parse_text(version.version_id, version.text, profile)
            assert parse.refusal in (None, "no_numbering", "gutter_ambiguous"), jurisdiction
        nothing = NUMBER_NOTHING | {TRANSCRIPT}
        assert induction.numbers_nothing == (versions[0].family in nothing), jurisdiction


# ---------------------------------------------------------------------------------------------
# No profile and no jurisdiction


def _suggest(workspace: Path, family: str, capfdbinary: pytest.CaptureFixture[bytes]) -> bytes:
    assert main(["profile", "suggest", "--family", family, "--workspace", str(workspace)]) == 0
    return capfdbinary.readouterr().out


def test_the_inducer_reads_no_profile_and_no_jurisdiction(
    workspace: Workspace,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfdbinary: pytest.CaptureFixture[bytes],
) -> None:
    family = "dc-code-34-1432"
    expected = _suggest(workspace.path, family, capfdbinary)
    _renamed_copy("us-dc", family, tmp_path / "mirror")
    admission = admit(tmp_path / "mirror")
    assert len(admission.rows) == len(workspace.versions(family)), admission.refusals
    with Workspace(tmp_path / "w.sqlite") as renamed:
        ingest(renamed, admission.rows, tmp_path / "mirror")
    real_read_bytes = Path.read_bytes

    def no_profiles(path: Path) -> bytes:
        assert path.suffix != ".toml", f"the inducer read a profile: {path}"
        return real_read_bytes(path)

    monkeypatch.setattr(profiles, "SHIPPED_DIR", tmp_path / "no-profiles")
    monkeypatch.setattr(Path, "read_bytes", no_profiles)
    profiles.shipped_profiles.cache_clear()
    try:
        assert _suggest(tmp_path / "w.sqlite", family, capfdbinary) == expected
    finally:
        profiles.shipped_profiles.cache_clear()
    assert b"us-dc" not in expected and b"elsewhere" not in expected


# ---------------------------------------------------------------------------------------------
# Scored against the documents' own identifiers


def _script(name: str) -> ModuleType:
    """The truth script `scripts/<name>.py` (it imports nothing from the workbench)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _truth_script() -> ModuleType:
    return _script("alignment_truth")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("jurisdiction", "family", "rule"),
    [
        pytest.param("us-dc", "dc-code-34-1436", "marks", id="dc-num"),
        pytest.param("us-federal", "116-hr264", "marks", id="uslm-identifier"),
        pytest.param("ca-federal", "ca-cpra", "marks", id="justice-canada-label"),
        pytest.param("ietf", "draft-nottingham-site-meta", "headings", id="ietf-sections"),
        pytest.param("us-nerc", "nerc-cip-003", "requirements", id="nerc-requirements"),
    ],
)
def test_an_induced_profile_reads_the_documents_own_paths(
    corpus_workspace: Workspace, jurisdiction: str, family: str, rule: str
) -> None:
    script = _truth_script()

    def truth_of(version: Version) -> list[TruthUnit]:
        read = script.READERS[version.jurisdiction]
        units = read((STORE / version.version_id).read_bytes(), version.version_id)
        return [
            TruthUnit(unit_id=u.unit_id, path=u.path, heading=u.heading, text=u.text) for u in units
        ]

    versions = [
        v
        for v in corpus_workspace.versions(family)
        if v.media_type != "application/pdf" or rule == "requirements"
    ]
    shipped = named_profile(shipped_profiles(), jurisdiction, family)
    assert shipped is not None
    score = score_family(versions, rule, truth_of, shipped)  # type: ignore[arg-type]
    assert score is not None and score.induced.placed >= 10
    induced = score.induced.agree / score.induced.placed
    assert induced >= 0.9
    assert 100 * induced >= 100 * score.shipped.agree / score.shipped.placed - 5


@pytest.mark.slow
def test_measures_printed_before_the_parts_stay_companions(corpus_workspace: Workspace) -> None:
    """CIP-009 prints each requirement's measure (`M1.`) before the requirement's parts (`1.1`
    ...), and one version's text lost a `R2.`: the measures are still companions of the
    requirements (ranked below every body shape, holding nothing), so no part of a requirement
    is read inside a measure, and most of the document's own requirement paths are read."""
    script = _truth_script()
    versions = [
        v for v in corpus_workspace.versions("nerc-cip-009") if v.version_id.endswith(".pdf")
    ]
    induction = induce_profile([v.text for v in versions])
    rank = {level.shape.describe(): level.rank for level in induction.levels}
    assert rank["M1."] > max(r for shape, r in rank.items() if shape != "M1.")
    total = Agreement(agree=0, placed=0)
    for version in versions:
        read = script.READERS[version.jurisdiction]
        units = [
            TruthUnit(unit_id=u.unit_id, path=u.path, heading=u.heading, text=u.text)
            for u in read((STORE / version.version_id).read_bytes(), version.version_id)
        ]
        placed = locate("requirements", version.text, units)
        parse = parse_structure(version, induction.profile())
        total += agreement(parse, placed)
        for unit in placed:
            path = parse.path_at(unit.char_start) or ()
            assert not any(re.fullmatch(r"M\d+", label_key(p)) for p in path), (unit, path)
    assert total.placed >= 30 and total.agree * 2 > total.placed


@pytest.mark.slow
def test_the_review_queue_does_not_grow_where_the_hand_profile_reads_better(
    corpus_workspace: Workspace,
) -> None:
    """On a jurisdiction whose own (hand-written) profile reads families more consistently (net
    consistent steps over every version) than the automatic choice made without it, the review
    queue that profile gives those families holds no more pairings than the automatic one's:
    NERC's standards, read from their PDFs by both. (Per family it may: CIP-012's hand reading
    splits a requirement the induced one keeps whole, one pairing more.)"""
    shipped = shipped_profiles()
    queues = {"hand": 0, "automatic": 0}
    better = 0
    for family in sorted(
        {v.family for v in corpus_workspace.versions() if v.jurisdiction == "us-nerc"}
    ):
        versions = sorted(corpus_workspace.versions(family), key=lambda v: v.version_order)
        named = named_profile(shipped, "us-nerc", family)
        assert named is not None
        others = tuple(p for p in shipped if p is not named)
        _, hand = read_numbering(versions, shipped)
        _, automatic = read_numbering(versions, others)
        if hand.consistent - hand.inconsistent > automatic.consistent - automatic.inconsistent:
            better += 1
            queues["hand"] += len(doubtful_pairings(corpus_workspace, family, profiles=shipped))
            queues["automatic"] += len(doubtful_pairings(corpus_workspace, family, profiles=others))
    assert better >= 3
    assert queues["hand"] <= queues["automatic"]


# ---------------------------------------------------------------------------------------------
# The automatic choice


# The form's "A." and "B." sections read as a requirement standard's parts under another
# jurisdiction's profile, so its choice is that profile's; its induced profile still reads nothing.
TABLES = sorted(NUMBER_NOTHING - {"wi-dcf-f-2476-e-90-day-summary-report"})


@pytest.mark.slow
@pytest.mark.parametrize("family", TABLES)
def test_no_profile_reads_what_numbers_nothing(corpus_workspace: Workspace, family: str) -> None:
    versions = _family(corpus_workspace, family)
    choice = choose_profile(versions)
    assert (choice.how, choice.note, choice.profile.origin) == ("unread", UNREAD, "induced")
    measured = measure_family(versions)
    assert measured.profile["chosen"] == "unread" and measured.profile["note"] == UNREAD
    assert sum(p.labelled for p in measured.passages) == 0


def test_the_induced_profile_is_a_candidate_and_wins_where_it_reads_most(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    versions = _family(workspace, "nerc-cip-003")
    texts = [v.text for v in versions]
    induction = induce_profile(texts)
    # The choice is handed the induction of these same texts, not inducing them again.
    monkeypatch.setattr("workbench.text.choice.induce_profile", _induced_once(texts, induction))
    choice = choose_profile(versions)
    induced = induction.profile()
    scores = {p.name: profile_score(p, versions) for p in (*registry(), induced)}

    def rank(name: str) -> tuple[int, int, bool, str]:
        """Net consistent steps first, then fewer inconsistent, then the induced profile."""
        good, bad = scores[name]
        return (bad - good, bad, name != "induced", name)

    best = min(scores, key=rank)
    assert choice.profile.name == best
    assert choice.how == ("induced" if best == "induced" else "automatic")
    assert (choice.consistent, choice.inconsistent) == scores[best]
    # The rival is the best of the other kind, and the contest states both and the margin.
    others = [n for n in scores if (n == "induced") != (best == "induced")]
    rival = min(others, key=rank)
    assert choice.rival == (rival, *scores[rival])
    margin = (scores[best][0] - scores[best][1]) - (scores[rival][0] - scores[rival][1])
    assert choice.contest == (
        f"{best} read {scores[best][0]} consistent and {scores[best][1]} inconsistent steps "
        f"against {rival}'s {scores[rival][0]} and {scores[rival][1]}: {margin} net steps more"
    )
    assert margin >= 0


def test_a_profile_reading_more_out_of_order_than_in_order_does_not_win() -> None:
    """A numbered list read by several shipped profiles: in order in one version, out of order
    in the next. Each reads some consistent steps but more inconsistent ones; the induced profile
    reads none of either, so nothing read the family and no shipped profile is chosen for it."""
    texts = (
        "1. Scope of the rule\n\n2. Terms used in it\n\n3. Fees are due monthly\n",
        "1. Scope of the rule\n\n4. Terms used in it\n\n9. Fees are due monthly\n\n"
        "2. More terms here\n\n7. Other fees here\n",
    )
    versions = [
        replace(_text_version(text, f"test/fam/{k}.txt"), version_order=k)
        for k, text in enumerate(texts, start=1)
    ]
    scores = {p.name: profile_score(p, versions) for p in registry()}
    accidental = sorted(name for name, (good, bad) in scores.items() if 0 < good < bad)
    assert accidental  # read by the most consistent steps alone, one of these would have won
    choice = choose_profile(versions)
    assert (choice.how, choice.profile.origin, choice.consistent) == ("unread", "induced", 0)


def test_a_named_profile_always_wins(workspace: Workspace) -> None:
    versions = workspace.versions("nerc-cip-003")
    choice = choose_profile(versions)
    assert (choice.how, choice.profile.name) == ("named", "us-nerc")


def test_an_xml_family_no_profile_reads_is_read_by_its_marks(workspace: Workspace) -> None:
    choice = choose_profile(_family(workspace, "dc-code-34-1432"))
    assert choice.how == "unread"
    assert choice.note == f"{UNREAD}; its extractor's marks number it"


@pytest.mark.slow
def test_measure_writes_the_induced_profile_beside_the_reports(
    workspace: Workspace, tmp_path: Path
) -> None:
    family = "nerc-cip-003"  # no shipped profile reads it as well as its own induced one
    _renamed_copy("us-nerc", family, tmp_path / "corpus")
    out = tmp_path / "out"
    assert main(["measure", "--corpus", str(tmp_path / "corpus"), "--out", str(out),
                 "--workspace", str(tmp_path / "w.sqlite")]) == 0  # fmt: skip
    used = json.loads((out / "structure-measurement.json").read_bytes())["profiles_used"]
    record = used[f"elsewhere/{family}"]
    assert record["chosen"] == "induced" and record["origin"] == "induced"
    written = (out / record["file"]).read_bytes()
    versions = _family(workspace, family, "elsewhere")
    assert written == induce_profile([v.text for v in versions]).source.encode()
    assert record["sha256"] == parse_profile(written, "x").sha256


def test_profile_suggest_writes_the_toml_and_says_how_it_reads_each_version(
    workspace: Workspace, tmp_path: Path, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    family = "dc-code-34-1432"
    out = tmp_path / "suggested.toml"
    args = ["profile", "suggest", "--family", family, "--workspace", str(workspace.path)]
    assert main([*args, "--out", str(out)]) == 0
    said = capfdbinary.readouterr().out.decode().splitlines()
    induction = induce_profile([v.text for v in workspace.versions(family)])
    assert out.read_bytes() == induction.source.encode()
    profile = induction.profile()
    assert said[0] == (
        f"wrote {out} (sha256 {profile.sha256[:12]}): {counted(len(induction.levels), 'level')} "
        f"from {counted(len(workspace.versions(family)), 'version')}"
    )
    assert len(said) == 1 + len(workspace.versions(family))
    assert main([*args, "--json"]) == 0
    shown = json.loads(capfdbinary.readouterr().out)
    assert shown["toml"] == induction.source and shown["sha256"] == profile.sha256
    assert [v["version_id"] for v in shown["versions"]] == [
        v.version_id for v in workspace.versions(family)
    ]


@pytest.mark.slow
def test_profile_suggest_says_when_texts_number_nothing(
    corpus_workspace: Workspace, tmp_path: Path, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    family = "wi-dcf-f-2476-e-90-day-summary-report"
    out = tmp_path / "form.toml"
    args = ["profile", "suggest", "--family", family, "--out", str(out)]
    assert main([*args, "--workspace", str(corpus_workspace.path)]) == 0
    said = capfdbinary.readouterr().out.decode()
    held = len(corpus_workspace.versions(family))
    assert said.startswith(
        f"these {counted(held, 'version')} number nothing: no label shape opens lines and counts\n"
    )
    assert parse_profile(out.read_bytes(), str(out)).levels[0].name == "none"


# ---------------------------------------------------------------------------------------------
# Jurisdictions never seen: the Legalize bundles, scored by `scripts/numbering_truth.py`

BUNDLES = ROOT.parent / "shared" / "external" / "numbering"


def _numbering_truth() -> ModuleType:
    return _script("numbering_truth")


Laws = Callable[[str], dict[str, list[str]]]


@pytest.fixture(scope="module")
def legalize(tmp_path_factory: pytest.TempPathFactory) -> Laws:
    """`legalize(country)`: every version's text of every law of that country's bundle, oldest
    first, by law path; each bundle cloned and read once for the module's tests."""
    read: dict[str, dict[str, list[str]]] = {}

    def laws(country: str) -> dict[str, list[str]]:
        if country not in read:
            read[country] = _laws(country, tmp_path_factory.mktemp(f"legalize-{country}"))
        return read[country]

    return laws


def _laws(country: str, into: Path) -> dict[str, list[str]]:
    """Every version's text of every law of one bundle, oldest first, by law path (other
    modules' tests read a bundle through it too)."""
    script = _numbering_truth()
    (bundle,) = BUNDLES.glob(f"legalize-{country}-*.bundle")
    laws: dict[str, list[str]] = defaultdict(list)
    for path, _, _, text in script.bundle_versions(bundle, into):
        laws[path].append(text)
    return laws


def _right(parse: object, text: str, start: int, keys: list[str]) -> bool:
    """The path read at the end of the unit's line ends with the truth's keys, a label matching
    a key when one of its words, or two adjacent words joined, is the key (case aside)."""
    end = text.find("\n", start)
    found = parse.path_at((len(text) if end < 0 else end) - 1)  # type: ignore[attr-defined]
    if found is None or len(found) < len(keys):
        return False
    for label, key in zip(found[len(found) - len(keys) :], keys, strict=True):
        words = [w.casefold() for w in re.findall(r"[^\W_]+", label)]
        if key not in words and key not in {a + b for a, b in pairwise(words)}:
            return False
    return True


Headings = Sequence[Collection[tuple[int, int]]] | None


def _induced_once(texts: list[str], induction: Induction) -> Callable[..., Induction]:
    """`induce_profile` that gives `induction` for `texts` without headings, as inducing them
    again would, and induces anything else."""

    def induce(seen: Sequence[str], headings: Headings = None) -> Induction:
        if headings is None and list(seen) == texts:
            return induction
        return induce_profile(seen, headings)

    return induce


@pytest.mark.slow
@pytest.mark.parametrize(
    "country",
    [
        # A number with its level's word after it (`1 §`, `2 luku.`), in headings whose depth
        # says which holds which, sections numbered on through the chapters, inserted units'
        # letters apart (`35 a §`).
        pytest.param("fi", id="fi-word-after-the-number"),
        # Parts numbered by ordinal words the library does not know (`ČÁST PRVNÍ`), placed by
        # the texts' own order; `§ N` headings never taken for page furniture.
        pytest.param("cz", id="cz-ordinal-word-parts"),
        # Articles in bold with a dash stuck to the number (`ARTICULO 18.—`), numbered through
        # the whole act across its títulos and capítulos (held by them all the same), division
        # words printed with and without their accent, Roman numerals of four letters (`VIII`).
        pytest.param("ar", id="ar-articles-through-divisions"),
        # `Art. 1<sup>er</sup>.` (the indicator is no inserted letter), `Art. 14*bis*.` (an
        # inserted unit keeps its suffix inside emphasis), articles as headings in one version
        # and plain lines in the next (one level).
        pytest.param("lu", id="lu-superscript-and-inserted-articles"),
    ],
)
def test_an_unseen_jurisdictions_own_paths_are_read(
    legalize: Laws, country: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The profile induced from each law's versions, and the automatic choice among it and the
    shipped profiles, read at least 90% of the units the documents' own identifiers give (the
    issue's target), each with its label and its whole path."""
    script = _numbering_truth()
    hits: defaultdict[str, int] = defaultdict(int)
    total = 0
    for path, texts in legalize(country).items():
        versions = [_text_version(text, f"{path}@{k}") for k, text in enumerate(texts)]
        versions = [replace(v, jurisdiction=country, family=path) for v in versions]
        induction = induce_profile(texts)
        # The choice induces the profile of these same texts (a function of the texts alone) to
        # rank it beside the shipped ones: it is handed the one just induced, not inducing again.
        monkeypatch.setattr("workbench.text.choice.induce_profile", _induced_once(texts, induction))
        read = {
            "suggest": induction.profile(),
            "automatic": choose_profile(versions, shipped_profiles()).profile,
        }
        for text in texts:
            units = script.read_units(country, text)
            total += len(units)
            for how, profile in read.items():
                parse = parse_text("v", text, profile)
                hits[how] += sum(_right(parse, text, start, keys) for start, _, keys in units)
    assert total >= 100
    assert hits["suggest"] >= 0.9 * total
    assert hits["automatic"] >= 0.9 * total


def test_a_level_numbered_through_its_parents_is_counted_through(legalize: Laws) -> None:
    """Sections numbered on across chapters: inconsistent under their chapters, consistent
    counted through the text, and the induced profile says so (`counts = "through"`)."""
    laws = legalize("fi")
    texts = laws["fi/2019-764.md"]
    induction = induce_profile(texts)
    (through,) = [level for level in induction.levels if level.through_because is not None]
    assert through.shape.after == "§" and through.sequence == "numeric"
    assert '\ncounts = "through"\n' in induction.source
    within = parse_profile(induction.source.replace('counts = "through"\n', "").encode(), "w")
    for text in texts:
        assert parse_text("v", text, induction.profile()).inconsistent == 0
    assert sum(parse_text("v", t, within).inconsistent for t in texts) > 0


INDUCER = ("induce", "shapes", "nesting", "ordinals", "ordinal_words", "choice", "furniture")
# ordinals.py's own lists, kept on purpose: the Latin multiplicatives (`bis`, `ter`) are a
# numbering system of their own, as Roman numerals are, that codes of many languages use to insert
# a unit; the ordinal indicators (`1°`, `1er`, `3rd`) are how a number is written, not a label's
# word. Neither names a level.
KEPT = {"ordinals": ("LATIN_INSERTIONS", "_INDICATOR")}


def _label_words() -> set[str]:
    """Every word a label uses in the shipped profiles (their levels' `words`) and in the bundles'
    truth (its kinds and the words of its patterns): the words a rule naming one language or
    jurisdiction would hold. Roman numerals and the profiles' own keys (`title`) are no such word."""
    words: set[str] = set()
    for path in sorted(profiles.SHIPPED_DIR.glob("*.toml")):
        for level in tomllib.loads(path.read_text(encoding="utf-8"))["levels"]:
            for word in level.get("words", []):
                words.update(w.casefold() for w in re.findall(r"[^\W\d_]{2,}", word))
    for kinds in _numbering_truth().READERS.values():
        for kind, pattern in kinds:
            words.add(kind.casefold())
            words.update(w.casefold() for w in re.findall(r"[^\W\d_]{3,}", pattern))
    roman = {w for w in words if set(w) <= set("ivxlcdm")}
    return words - roman - set(profiles._LEVEL_KEYS) - {"key", "suffix"}


@pytest.mark.parametrize("module", INDUCER)
def test_the_inducer_names_no_label_word(module: str) -> None:
    """No string in the inducer's source (docstrings aside) holds a word a label uses in the
    shipped profiles or the bundles' identifiers: levels are told apart by shape, never by a
    language's words."""
    tree = ast.parse((ROOT / "workbench" / "text" / f"{module}.py").read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    kept = {
        id(constant)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id in KEPT.get(module, ()) for t in node.targets)
        for constant in ast.walk(node.value)
    }
    label_words = _label_words()
    found = sorted(
        word
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and id(node) not in docstrings | kept
        for word in re.findall(r"[^\W\d_]{2,}", node.value)
        if word.casefold() in label_words
    )  # fmt: skip
    assert found == []


def test_a_markdown_heading_is_never_page_furniture(legalize: Laws) -> None:
    """`##### § N` headings stand at regular distances and count up by one, as a page counter
    does; they are the law's sections, so no furniture pattern matches a heading line."""
    texts = legalize("cz")["cz/SB-2009-157.md"]
    headings = [line for t in texts for line in t.split("\n") if line.startswith("#")]
    assert sum(line.startswith("##### § ") for line in headings) >= 3 * len(texts)
    patterns = compile_furniture(induce_furniture(texts))
    assert [line for line in headings if any(p.fullmatch(line) for p in patterns)] == []


@pytest.mark.parametrize(
    ("country", "law"),
    [
        pytest.param("lu", "lu/leg-rgd-2010-08-16-n7.md", id="superscript-and-bold-headings"),
        pytest.param("ar", "ar/LEY-17319.md", id="bold-articles-with-a-dash"),
    ],
)
def test_labels_inside_inline_markup_are_read_in_place(
    legalize: Laws, country: str, law: str
) -> None:
    """Labels inside emphasis or a superscript (`**Art. 2º —**`, `Art. 1<sup>er</sup>.`): the
    induced profile reads lines through their markup (`inline_markup = true`), reads more of the
    documents' own paths than the same profile reading the lines as written, and places every
    label at its first character in the text."""
    script = _numbering_truth()
    texts = legalize(country)[law]
    induction = induce_profile(texts)
    assert "\ninline_markup = true" in induction.source
    written = parse_profile(induction.source.replace("inline_markup = true", "").encode(), "w")
    right = {"view": 0, "written": 0}
    for text in texts:
        units = script.read_units(country, text)
        for how, profile in (("view", induction.profile()), ("written", written)):
            parse = parse_text("v", text, profile)
            right[how] += sum(_right(parse, text, start, keys) for start, _, keys in units)
        for reading in read_text(text, induction.profile()):
            if reading.printed is not None:
                assert text[reading.label_start] == reading.printed[0]
    assert right["view"] > right["written"]


@pytest.mark.parametrize(
    ("country", "law"),
    [
        pytest.param("lu", "lu/leg-rgd-2010-08-16-n7.md", id="superscript-and-bold"),
        pytest.param("ar", "ar/LEY-13577.md", id="adjacent-bold-runs"),
    ],
)
def test_the_inline_view_keeps_every_other_character_in_place(
    legalize: Laws, country: str, law: str
) -> None:
    """Every view character is the line's character at its offset, but the space standing for
    two adjacent emphasis runs between a word and a number (at the runs' first offset)."""
    for text in legalize(country)[law]:
        for line in text.split("\n"):
            view, positions = inline_view(line)
            spaces = [k for k, p in enumerate(positions[:-1]) if line[p] != view[k]]
            assert all(view[k] == " " and line[positions[k]] in "*_<" for k in spaces)
            apart = r"(?<=[^\W\d_])\*{4,}(?=\d)|(?<=\d)\*{4,}(?=[^\W\d_])"
            assert len(spaces) == len(re.findall(apart, line))
            assert positions[-1] == len(line)
            assert ("<sup>" in line or "**" in line) <= (len(view) < len(line))


@pytest.mark.parametrize(
    ("line", "view"),
    [
        pytest.param("**ARTICULO****66**", "ARTICULO 66", id="word-and-number-in-two-runs"),
        pytest.param("**Ley 13.577****Conservando", "Ley 13.577 Conservando", id="number-word"),
        pytest.param("***ARTICULO 6****7", "ARTICULO 67", id="digits-stay-one-number"),
        pytest.param("*Art*__12__", "Art 12", id="mixed-delimiters-two-runs"),
        pytest.param("Art</b><b>12", "Art 12", id="closing-then-opening-tag"),
        pytest.param("**Título****Preliminar**", "TítuloPreliminar", id="letters-stay-one-word"),
        pytest.param("Art. 14*bis*.", "Art. 14bis.", id="one-run-joins-a-suffix"),
        pytest.param("Art. 1<sup>er</sup>.", "Art. 1er.", id="one-tag-joins-an-indicator"),
    ],
)
def test_two_adjacent_emphasis_runs_set_a_word_and_a_number_apart(line: str, view: str) -> None:
    assert inline_view(line)[0] == view


def test_a_word_and_its_number_in_two_adjacent_runs_are_read_as_a_label(legalize: Laws) -> None:
    """`**ARTICULO****66**`: the word's run and the number's run stand side by side; the
    induced profile reads the article's number from every such line, as the truth does."""
    texts = legalize("ar")["ar/LEY-13577.md"]
    joined = re.compile(r"\*\*[^\W\d_]+\*{4}(\d+)")
    profile = induce_profile(texts).profile()
    seen = 0
    for paths in _read_paths(texts, profile):
        for line, path in paths.items():
            found = joined.match(line)
            if found:
                seen += 1
                assert path is not None and label_key(path[-1]) == found.group(1)
    lines = sum(len(joined.findall(t)) for t in texts)
    assert lines >= 10 and seen == sum(1 for t in texts for ln in t.split("\n") if joined.match(ln))


def test_shapes_that_break_the_count_are_reported_as_skipped(legalize: Laws) -> None:
    """A shape that opens lines but does not count is no level, and the profile says so with
    its labels and the share that counted (`edella 1`: a sentence's word and a number)."""
    induction = induce_profile(legalize("fi")["fi/2020-733.md"])
    head, _, rest = induction.source.partition("# Skipped (no level):\n")
    skipped = [line for line in rest.split("\n\n")[0].splitlines() if line.startswith("# ")]
    assert head and skipped
    levels = {level.shape.describe() for level in induction.levels}
    for line in skipped:
        shape, _, why = line.removeprefix("# ").partition(": ")
        assert shape not in levels
        share = float(re.search(r"only ([\d.]+)% count on", why).group(1))  # type: ignore[union-attr]
        assert share < 80


def _read_paths(texts: list[str], profile: Profile) -> list[dict[str, tuple[str, ...] | None]]:
    """Each text's path read at the end of every line opening a label, by the line."""
    out = []
    for text in texts:
        parse = parse_text("v", text, profile)
        lines = {}
        for reading in read_text(text, profile):
            if reading.printed is not None:
                end = text.find("\n", reading.label_start)
                line = text[text.rfind("\n", 0, reading.label_start) + 1 : end]
                lines[line] = parse.path_at((len(text) if end < 0 else end) - 1)
        out.append(lines)
    return out


def test_a_dash_stuck_to_an_articles_number_sets_its_title_apart(legalize: Laws) -> None:
    """`**ARTICULO 12.**— La actividad`: after a word, a dash right after the number (or its
    dot), emphasis aside, starts the title; the induced level says so (`dash = true`) and reads
    those lines, which the same profile without the key does not."""
    texts = legalize("ar")["ar/LEY-26020.md"]
    stuck = {}
    for line in texts[0].split("\n"):
        found = re.match(r"ART\w+ (\d+)[º°]?\.?[—–-]", re.sub(r"[*#]", "", line).strip())
        if found:
            stuck[line] = found.group(1)
    assert len(stuck) >= 20
    induction = induce_profile(texts)
    assert "\ndash = true" in induction.source
    without = parse_profile(re.sub(r"\ndash = true[^\n]*", "", induction.source).encode(), "w")
    with_dash, no_dash = (_read_paths(texts, p)[0] for p in (induction.profile(), without))
    for line, number in stuck.items():
        path = with_dash.get(line)
        assert path is not None and label_key(path[-1]) == number
        assert line not in no_dash


def test_articles_numbered_through_the_act_are_held_by_its_divisions(legalize: Laws) -> None:
    """Articles count on across the títulos (`Art. 13` under TITULO I, `Art. 14` under TITULO
    II), as the títulos count on across them: each título opens a stretch of articles, so the
    articles nest in the títulos (counted through) rather than standing beside them, and every
    article's path read holds its título's number as the truth does."""
    script = _numbering_truth()
    texts = legalize("ar")["ar/LEY-17319.md"]
    induction = induce_profile(texts)
    titles = [lv for lv in induction.levels if lv.shape.kind == "roman-upper" and lv.shape.word]
    articles = max(induction.levels, key=lambda lv: lv.labels)
    assert titles and articles.rank > min(lv.rank for lv in titles)
    assert articles.through_because is not None
    for text in texts:
        parse = parse_text("v", text, induction.profile())
        units = [u for u in script.read_units("ar", text) if len(u[2]) == 2]
        assert len(units) >= 50
        right = sum(_right(parse, text, start, keys) for start, _, keys in units)
        assert right >= 0.9 * len(units)


@pytest.mark.parametrize(
    ("law", "line", "label"),
    [
        pytest.param(
            "lu/leg-loi-2008-12-19-n12.md", "### Art. 14*bis*.", "14bis", id="latin-in-emphasis"
        ),
        pytest.param(
            "lu/leg-rgd-2002-04-29-n6.md", "#### Art. 1<sup>er</sup>.", "1", id="superscript-er"
        ),
    ],
)
def test_labels_in_markup_keep_their_suffix_and_lose_their_indicator(
    legalize: Laws, law: str, line: str, label: str
) -> None:
    """An inserted unit keeps its Latin suffix written inside emphasis (`14*bis*` is 14bis, after
    14), and an ordinal indicator in superscript is no suffix (`1<sup>er</sup>` is 1)."""
    texts = legalize("lu")[law]
    profile = induce_profile(texts).profile()
    read = [paths[found] for paths in _read_paths(texts, profile) for found in paths
            if found.startswith(line)]  # fmt: skip
    assert read and all(path is not None and label_key(path[-1]) == label for path in read)


def test_a_heading_word_is_one_shape_with_or_without_its_accent() -> None:
    """`Título I` and `TITULO II` are one level's labels: the shape's word is folded (case,
    accents), the level's words keep each spelling as printed."""
    (first,) = label_token("Título I", 0, 0, "heading")
    (second,) = label_token("TITULO II", 0, 0, "heading")
    assert first.shape == second.shape and first.word == "Título"


# ---------------------------------------------------------------------------------------------
# Codes numbered in another script's numerals: a corpus the test builds (held-out kinds)

# (chapter word, article word, article mark, digits 0-9 or None for the script's numerals, words)
SCRIPTS = {
    "arabic-indic": ("الفصل", "المادة", "", "٠١٢٣٤٥٦٧٨٩", "يجب على الجهة المختصة تطبيق الأحكام"),
    "devanagari": ("अध्याय", "धारा", ".", "०१२३४५६७८९", "इस अधिनियम के उपबंध लागू होंगे"),
    "cjk": ("第{}章", "第{}条", "", None, "本法の規定は適用される"),
}
_CJK = "〇一二三四五六七八九"


def _numeral(n: int, digits: str | None) -> str:
    """`n` in the script's digits, or in CJK numerals with their tens (`十二`, `二十三`)."""
    if digits is not None:
        return str(n).translate(str.maketrans("0123456789", digits))
    tens, ones = divmod(n, 10)
    return ((_CJK[tens] if tens > 1 else "") + "十" if tens else "") + (_CJK[ones] if ones else "")


def _script_law(script: str, extra: int) -> tuple[str, list[tuple[int, list[str]]]]:
    """A code in Markdown of three chapters (`##` headings), its articles numbered through them
    (`extra` more in the last),
    each with two or three numbered paragraphs in parentheses (none in CJK); and its truth: each
    unit's line start and path of keys, as built."""
    chapter, article, mark, digits, words = SCRIPTS[script]
    lines: list[str] = ["", words + " " + words, ""]
    units: list[tuple[int, list[str]]] = []
    number = 0
    for c, count in enumerate((4, 5, 4 + extra), start=1):
        key = _numeral(c, digits)
        lines += ["## " + (chapter.format(key) if "{}" in chapter else f"{chapter} {key}"), ""]
        units.append((len(lines) - 2, [key]))
        for _ in range(count):
            number += 1
            art = _numeral(number, digits)
            label = article.format(art) if "{}" in article else f"{article} {art}{mark}"
            lines += [f"{label} {words}", ""]
            units.append((len(lines) - 2, [key, art]))
            for p in range(1, 2 + number % 2 + 1) if digits is not None else ():
                item = _numeral(p, digits)
                lines += [f"({item}) {words} {words}.", ""]
                units.append((len(lines) - 2, [key, art, item]))
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    return "\n".join(lines), [(starts[k], keys) for k, keys in units]


@pytest.mark.parametrize("script", sorted(SCRIPTS), ids=sorted(SCRIPTS))
def test_a_code_numbered_in_another_scripts_numerals_is_read(
    script: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Arabic-Indic and Devanagari digits after words of scripts without case (`المادة ١٢`,
    `धारा १२.`: a word's combining marks are part of it), CJK numerals between their unit markers
    (`第十二条`, read by rule from Unicode's numeric values): the induced profile and the automatic
    choice read at least 90% of the built code's units with their whole path, and the articles
    count on through the chapters."""
    laws = [_script_law(script, extra) for extra in range(3)]
    texts = [text for text, _ in laws]
    versions = [
        replace(_text_version(text, f"{script}@{k}"), jurisdiction=script, family=script)
        for k, text in enumerate(texts)
    ]
    induced = induce_profile(texts)
    assert any(level.through_because is not None for level in induced.levels)
    # The choice is handed the induction of these same texts, not inducing them again.
    monkeypatch.setattr("workbench.text.choice.induce_profile", _induced_once(texts, induced))
    for profile in (induced.profile(), choose_profile(versions, shipped_profiles()).profile):
        hits = total = 0
        for text, units in laws:
            parse = parse_text("v", text, profile)
            hits += sum(_right(parse, text, start, keys) for start, keys in units)
            total += len(units)
        assert total >= 40 and hits >= 0.9 * total, (profile.name, hits, total)
