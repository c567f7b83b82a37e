"""`workbench update`: one process that admits, ingests, measures, updates the search index and
reconciles, equal to the separate commands on the real us-dc laws and Code sections."""

from __future__ import annotations

import itertools
import json
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import STORE, link_families
from workbench.amendments import reconcile as reconcile_module
from workbench.amendments import whole_code
from workbench.amendments.diffs import KeptDiffs
from workbench.amendments.lawbook import LawBook
from workbench.amendments.style import STYLES_DIR, style_for
from workbench.amendments.whole_code import reconcile_code
from workbench.changes.diff import diff_versions
from workbench.cli import main
from workbench.corpus.provenance import PROVENANCE_SUFFIX
from workbench.errors import AmendmentError
from workbench.evals.reconciliation import reconciliation_report
from workbench.measure import corpus_digest, measure_corpus, plan_measure
from workbench.measure.cache import CACHE_DIR_NAME
from workbench.measure.index import SummaryIndex
from workbench.measure.summary import COUNTED_PARTS, add_counts, counts_of
from workbench.measure.update import UpdateRun, update_corpus
from workbench.models import CatalogueRow
from workbench.search.index import update_index
from workbench.workspace import Workspace
from workbench.workspace.catalogue import TableRows, families, read_held

# The two Code sections whose newest release arrives after the first update.
LATE = ("us-dc/dc-code-34-306", "us-dc/dc-code-34-1436")


def _newest(family: Path) -> Path:
    """The family's document of the highest version order, as its provenance says."""
    documents = [p for p in family.iterdir() if not p.name.endswith(PROVENANCE_SUFFIX)]
    return max(
        documents,
        key=lambda p: json.loads(Path(f"{p}{PROVENANCE_SUFFIX}").read_bytes())["version_order"],
    )


def _tree(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (the reports and the induced profiles beside them)."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


Released = tuple[Path, UpdateRun, UpdateRun, list[str]]


def _release(folder: Path, families: list[str]) -> Released:
    """A mirror of `families` less the newest release of the `LATE` sections, updated; then
    those releases linked in and the mirror updated again."""
    mirror = link_families(folder / "mirror", families)
    late = [_newest(mirror / family) for family in LATE]
    for document in late:
        os.rename(document, folder / document.name)
        os.rename(f"{document}{PROVENANCE_SUFFIX}", folder / f"{document.name}{PROVENANCE_SUFFIX}")
    plan = plan_measure(corpus=mirror, workspace=folder / "w.sqlite", out=folder / "out")
    first = update_corpus(plan)
    for document in late:
        os.rename(folder / document.name, document)
        os.rename(folder / f"{document.name}{PROVENANCE_SUFFIX}", f"{document}{PROVENANCE_SUFFIX}")
    second = update_corpus(plan)
    return mirror, first, second, [os.fsdecode(d.relative_to(mirror)) for d in late]


# The release pairs each update attributed, and those `reconcile` diffed itself, of `released`.
Spied = tuple[list[tuple[str, str, str]], list[tuple[str, str]]]


@pytest.fixture(scope="module")
def released_spied(
    catalogue: tuple[CatalogueRow, ...], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Released, Spied]:
    """Every us-dc family, laws and Code sections, released as `_release` releases them: a whole
    jurisdiction updated twice, for the tests marked slow (docs/development.md, rule 3); with
    the release pairs both updates attributed, and those `reconcile` diffed from the versions."""
    families = sorted(
        {f"{r.jurisdiction}/{r.family}" for r in catalogue if r.jurisdiction == "us-dc"}
    )
    attributed: list[tuple[str, str, str]] = []
    diffed: list[tuple[str, str]] = []
    real_reconcile = getattr(whole_code, "reconcile")  # noqa: B009
    real_diff = getattr(reconcile_module, "diff_versions")  # noqa: B009

    def reconciling(pairs: Any, *args: Any, **kw: Any) -> Any:
        attributed.extend(pairs)
        return real_reconcile(pairs, *args, **kw)

    def diffing(before: Any, after: Any, *args: Any, **kw: Any) -> Any:
        diffed.append((before.version_id, after.version_id))
        return real_diff(before, after, *args, **kw)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(whole_code, "reconcile", reconciling)
        patch.setattr(reconcile_module, "diff_versions", diffing)
        done = _release(tmp_path_factory.mktemp("update"), families)
    return done, (attributed, diffed)


@pytest.fixture(scope="module")
def released(released_spied: tuple[Released, Spied]) -> Released:
    return released_spied[0]


@pytest.fixture(scope="module")
def released_sections(
    catalogue: tuple[CatalogueRow, ...], tmp_path_factory: pytest.TempPathFactory
) -> Released:
    """The `LATE` sections and one section no release touches, released as `_release` releases
    them: the second update replaces two families' summaries and reuses the third's."""
    return _release(tmp_path_factory.mktemp("update-sections"), [*LATE, "us-dc/dc-code-34-131"])


@pytest.mark.slow
def test_an_update_after_a_release_equals_the_separate_commands_run_cold(
    released: Released, tmp_path: Path
) -> None:
    """After the release, the update extracts only its versions, measures only its families,
    adds only them to the index and reads again only its sections; and what it wrote is what
    `measure`, `search --reindex` and `reconcile` write on a fresh workspace of the same mirror."""
    mirror, first, second, late = released
    assert first.reconciled is not None and second.reconciled is not None
    assert sorted(second.measured.extracted) == sorted(late)
    touched = sorted(os.path.dirname(v) for v in late)
    assert sorted(set(second.measured.families) - set(second.measured.reused)) == touched
    assert second.index is not None and (second.index.built, second.index.added) == (False, 2)
    sections = len(second.reconciled.sections)
    assert second.reconciled.reused["sections"] == sections - len(late)
    # Most families are untouched: their summaries are reused, never read again from a shard.
    assert len(second.measured.reused) > len(second.measured.families) / 2
    # The separate commands, cold, on the whole mirror.
    cold = measure_corpus(mirror=mirror, out=tmp_path / "out", workspace=tmp_path / "w.sqlite")
    assert _tree(tmp_path / "out") == _tree(second.plan.out)
    assert cold.settings is not None
    with Workspace(tmp_path / "w.sqlite") as held:
        index = update_index(held)
        rows = read_held(held, cold.settings.catalogue)  # as `reconcile` reads them: the file
        fresh = reconcile_code(held, "us-dc", rows, mirror)
    assert index.status.texts == second.index.status.texts
    assert index.status.passages == second.index.status.passages
    digest = corpus_digest(rows)
    assert second.measured.corpus_digest == digest
    assert reconciliation_report(second.reconciled, corpus_digest=digest) == (
        reconciliation_report(fresh, corpus_digest=digest)
    )


def test_an_update_of_a_corpus_with_no_law_measures_and_says_why_it_did_not_reconcile(
    tmp_path: Path, catalogue: tuple[CatalogueRow, ...]
) -> None:
    mirror = link_families(tmp_path / "mirror", ["ietf/draft-nottingham-cache-extensions"])
    plan = plan_measure(corpus=mirror, workspace=tmp_path / "w.sqlite", out=tmp_path / "out")
    done = update_corpus(plan)
    assert done.reconciled is None and done.index is not None and done.index.built
    assert done.measured.documents == len(
        [r for r in catalogue if r.family == "draft-nottingham-cache-extensions"]
    )
    law_families = style_for("us-dc").law_families
    assert done.not_reconciled == (
        f"{tmp_path / 'w.sqlite'}: no held law of us-dc (families matching {law_families!r}); "
        "admit and ingest the laws, e.g. with 'workbench corpus add --from-git REPO --at-head'"
    )


def test_an_unknown_jurisdiction_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    styles = ", ".join(sorted(p.stem for p in STYLES_DIR.glob("*.toml")))
    with pytest.raises(AmendmentError) as refused:
        update_corpus(
            plan_measure(corpus=STORE, workspace=tmp_path / "w.sqlite"), jurisdiction="xx-nowhere"
        )
    message = f"xx-nowhere: no drafting style names this jurisdiction; expected one of {styles}"
    assert str(refused.value) == message
    args = ["update", "--corpus", str(STORE), "--workspace", str(tmp_path / "w.sqlite")]
    assert main([*args, "--jurisdiction", "xx-nowhere"]) == 2
    assert capsys.readouterr().err == f"workbench: error: {message}\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_the_update_command_prints_each_step(
    released: Released,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Run again with nothing new: every family reused, nothing added to the index, every
    section taken from the workspace, and the reconciliation report written."""
    mirror, _, second, _ = released
    assert second.reconciled is not None
    args = ["update", "--corpus", str(mirror), "--workspace", str(second.plan.workspace)]
    args += ["--out", str(second.plan.out), "--reconciliation", str(tmp_path / "report")]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    families = len(second.measured.families)
    assert lines[0] == (
        f"measured: {len(second.measured.written)} files up to date in {second.plan.out} "
        f"({second.measured.documents} documents, {families} families; {families} reused "
        "unchanged from the cache, 0 measured in this process)"
    )
    held = second.index.status if second.index else None
    assert held is not None and lines[1] == (
        f"search index: up to date ({held.texts} distinct texts, {held.passages} passages)"
    )
    sections = len(second.reconciled.sections)
    assert f"{sections} of {sections} sections" in lines[-2]
    assert lines[-1] == (
        "wrote reconciliation.json, reconciliation.md, titles.csv, not-applied.csv into "
        f"{tmp_path / 'report'}"
    )


def test_the_counts_the_index_sums_are_those_its_summaries_add_up_to(
    released_sections: Released,
) -> None:
    """The reduce adds up the counts the summary index keeps as rows (`SummaryIndex.summed`),
    never parsing a summary for them: after the update replaced the release's families, each
    jurisdiction's sum of each part is what `add_counts` gives over its summaries parsed whole
    (a family's pairings where it has some, its cautions where it has a non-equal change)."""
    _, _, second, _ = released_sections
    assert second.measured.reused == ("us-dc/dc-code-34-131",)  # one summary kept, two replaced
    with SummaryIndex(second.plan.workspace.parent / CACHE_DIR_NAME) as index:
        summed: dict[tuple[str, str], list[tuple[str, int]]] = defaultdict(list)
        for jurisdiction, part, path, count in index.summed():
            summed[(jurisdiction, part)].append((path, count))
        added: dict[tuple[str, str], dict[str, Any]] = {}
        for summary in index.summaries():
            for part in COUNTED_PARTS:
                value = summary[part]
                if value is not None and (part != "cautions" or value["non_equal"]):
                    scope = (summary["jurisdiction"], part)
                    added[scope] = add_counts(added.get(scope, COUNTED_PARTS[part]()), value)
    assert {scope for scope, c in added.items() if scope[1] != "texts" or c["versions"]} == set(
        summed
    )
    for scope, rows in summed.items():
        assert counts_of(scope[1], rows) == added[scope], scope
    assert {part for _, part in summed} == set(COUNTED_PARTS)


@pytest.mark.slow
def test_an_update_attributes_each_release_pair_over_the_diff_measure_kept(
    released_spied: tuple[Released, Spied],
) -> None:
    """Every release pair an update attributes is read over the diff its measure kept: no pair
    is diffed again from the versions, the release's included; and on every release pair of
    every held Code section, the kept diff `KeptDiffs` takes is the one `diff_versions` gives."""
    (mirror, _, second, late), (attributed, diffed) = released_spied
    assert {os.path.basename(v) for _, _, v in attributed} >= {os.path.basename(v) for v in late}
    assert diffed == []
    with Workspace(second.plan.workspace) as held:
        code = LawBook(held, "us-dc", TableRows(held), mirror).code
        pairs = 0
        for family in code.families:
            dated = [version for _, version in code.dated(family)]
            releases = list(itertools.pairwise(dated))
            taken = KeptDiffs(held, "us-dc").of(family, releases)
            assert set(taken) == {(b.version_id, a.version_id) for b, a in releases}, family
            for before, after in releases:
                assert taken[(before.version_id, after.version_id)] == diff_versions(
                    before, after
                ), (family, before.version_id, after.version_id)
            pairs += len(releases)
    assert pairs > len(late)


def test_an_update_reconciles_reading_only_the_catalogue_rows_of_laws_and_code_sections(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After its reports are written, an update makes a `CatalogueRow` only of a row whose bytes
    its reconciliation reads: a law's (its facts) or a Code release's (where its notes begin),
    looked up in the catalogue table (`TableRows`), never the table read whole. The mirror holds
    two laws, two Code sections and two families of other jurisdictions (XML and text)."""
    from workbench.measure import html

    laws = ["us-dc/dc-law-24-314", "us-dc/dc-law-25-50"]
    sections = ["us-dc/dc-code-34-1432", "us-dc/dc-code-34-1436"]
    others = ["us-federal/115-hr255", "ietf/draft-cedik-http-warning"]
    mirror = link_families(tmp_path / "mirror", [*laws, *sections, *others])
    made: list[str] = []  # the family of each row made once the reports are written
    written = False
    real_init, real_write = CatalogueRow.__init__, html.write_reports

    def making(row: CatalogueRow, **fields: Any) -> None:
        real_init(row, **fields)
        if written:
            made.append("/".join(row.path.split("/")[:2]))

    def writing(*args: Any, **options: Any) -> Any:
        nonlocal written
        done = real_write(*args, **options)
        written = True
        return done

    monkeypatch.setattr(CatalogueRow, "__init__", making)
    monkeypatch.setattr(html, "write_reports", writing)
    plan = plan_measure(corpus=mirror, workspace=tmp_path / "w.sqlite", out=tmp_path / "out")
    done = update_corpus(plan)
    assert done.reconciled is not None and written
    assert sorted(f"us-dc/{family}" for family in done.reconciled.sections) == sections
    assert set(made) == {*laws, *sections}
    with Workspace(plan.workspace) as held:
        tabled = {f"{jurisdiction}/{family}" for jurisdiction, family, _ in families(held)}
    assert tabled == {*laws, *sections, *others}
