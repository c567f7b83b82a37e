"""Nesting learned from agreement across versions (docs/profiles.md, rule 5): on families the tests
build, a level containment within one text ranks wrong is set right by the paths that recur in
the neighbouring versions, and a nesting containment backs clearly is not overturned by them."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from tests.cli.test_cli import _run
from tests.text.test_structure import _text_version
from workbench.text.induce import induce_profile
from workbench.text.nesting import AGREEMENT_MARGIN
from workbench.text.profiles import Profile, parse_profile
from workbench.text.structure import parse_text
from workbench.workspace import Workspace


def _requirements(listed: bool) -> str:
    """Four requirements `R1.` to `R4.`, each with three parts `n.1.` to `n.3.`; when `listed`,
    the first requirement's text ends in a Roman list (`i.` to `iii.`) before its parts, as an
    amendment adds one."""
    lines: list[str] = []
    for n in range(1, 5):
        lines.append(f"R{n}. Each entity shall keep the records named below for its sites.")
        if listed and n == 1:
            lines += [
                "i. Its control centres, staffed or not;",
                "ii. Its backup centres; and",
                "iii. Its field sites.",
            ]
        lines += [f"{n}.{k}. The entity keeps record number {k} of it." for k in (1, 2, 3)]
        lines.append("")
    return "\n".join(lines)


def _articles(inserted: bool) -> str:
    """Four articles, each with three paragraphs `(1)` to `(3)`, the second listing points `a)`
    to `c)`; when `inserted`, the first article gains a paragraph before the list's, which is
    numbered on (`(3)`)."""
    lines: list[str] = []
    for n in range(1, 5):
        lines += [f"Art. {n}. Scope of part {n}.", ""]
        paragraphs = ["The operator keeps a register.", "The register lists:", "It is public."]
        if inserted and n == 1:
            paragraphs.insert(1, "The register is kept in writing.")
        for k, words in enumerate(paragraphs, 1):
            lines.append(f"({k}) {words}")
            if words.endswith(":"):
                lines += [f"a) the plants of part {n};", "b) the fuels they burn;", "c) permits."]
        lines.append("")
    return "\n".join(lines)


def _paths(text: str, profile: Profile) -> dict[str, tuple[str, ...]]:
    """The path of every unit of `text` read through `profile`, by the line it opens."""
    parse = parse_text("v", text, profile)
    return {text[u.char_start : text.find("\n", u.char_start)]: u.path for u in parse.units}


def _evidence(source: str, level: str) -> str:
    """The nesting comment above the level named `level` in an induced profile's TOML."""
    block = source.split(f"\nname = '{level}'")[0].rsplit("[[levels]]", 1)[0]
    (line,) = [ln for ln in block.splitlines()[-8:] if ln.startswith(("# nested", "# outer"))]
    return line[2:]


def _recurring(texts: list[str], profile: Profile, label: re.Pattern[str]) -> tuple[int, int]:
    """(units whose last label matches `label` and whose path stands once in their version and
    once in the version before or after it, such units): agreement across versions, counted from
    the parser's units."""
    paths = [[u.path for u in parse_text("v", t, profile).units] for t in texts]
    counts = [Counter(p) for p in paths]
    agreed = total = 0
    for k, found in enumerate(paths):
        beside = [counts[j] for j in (k - 1, k + 1) if 0 <= j < len(texts)]
        for path in found:
            if label.fullmatch(path[-1]):
                total += 1
                agreed += counts[k][path] == 1 and any(c[path] == 1 for c in beside)
    return agreed, total


def test_agreement_across_versions_sets_right_a_level_containment_ties() -> None:
    """An amendment adds a Roman list to R1's text before its parts. Containment ranks the list
    and the parts alike (both open right after `R1.`, neither inside the other), so the parser
    nests `1.1.` inside `iii.` (a dotted number is deeper than a plain one of its rank): read
    alone, the amended version gives `R1/iii/1.1`. Across the three versions the parts' paths
    recur only with the list below them, so the family's profile reads `R1/1.1` in every
    version, and says that agreement ranked it."""
    texts = [_requirements(False), _requirements(True), _requirements(True)]
    alone = _paths(texts[1], induce_profile(texts[1:2]).profile())
    assert alone["1.1. The entity keeps record number 1 of it."] == ("R1", "iii", "1.1")
    induction = induce_profile(texts)
    for text in texts:
        paths = _paths(text, induction.profile())
        for n in range(1, 5):
            for k in (1, 2, 3):
                assert paths[f"{n}.{k}. The entity keeps record number {k} of it."] == (
                    f"R{n}",
                    f"{n}.{k}",
                )
    note = _evidence(induction.source, "dotted-dot")
    assert "; ranked by agreement across versions: " in note
    assert "ranked by agreement" not in _evidence(induce_profile(texts[1:2]).source, "dotted-dot")


def test_agreement_does_not_overturn_a_nesting_containment_backs() -> None:
    """Points `a)` open inside a paragraph in every article of every version (containment,
    twelve times). A paragraph inserted before the list's renumbers it (`(2)` to `(3)`) in the
    later versions, so the points' paths recur more often laid flat beside the paragraphs than
    nested in them, by fewer labels than `AGREEMENT_MARGIN` per containment observation: the
    points stay nested, and the level's evidence gives both counts."""
    texts = [_articles(False), _articles(True), _articles(True)]
    induction = induce_profile(texts)
    source = induction.source
    nested = induction.profile()
    rank = {level.name: level.rank for level in induction.levels}
    laid = f"name = 'lower-close'\npattern = '[^\n]*'\nrank = {rank['lower-close']}\n"
    flat_source = re.sub(
        laid,
        lambda m: m[0].replace(
            f"rank = {rank['lower-close']}", f"rank = {rank['paren-digits-close']}"
        ),
        source,
    )
    assert flat_source != source
    flat = parse_profile(flat_source.encode(), "flat")
    point = re.compile(r"[a-c]\)")
    agreed, total = _recurring(texts, nested, point)
    agreed_flat, _ = _recurring(texts, flat, point)
    lists = sum(t.count("\na) ") for t in texts)
    assert agreed < agreed_flat < agreed + AGREEMENT_MARGIN * lists
    assert _paths(texts[1], nested)["a) the plants of part 1;"] == ("1", "(3)", "a)")
    assert _evidence(source, "lower-close") == (
        f"nested under (1): containment {lists}/{lists}, agreement {agreed}/{total} across versions"
    )


def _opened(texts: list[str]) -> int:
    """Requirements whose first part opens on the line right after them."""
    return sum(len(re.findall(r"^R\d+\..*\n\d+\.1\. ", t, re.MULTILINE)) for t in texts)


@pytest.mark.parametrize(
    ("listed", "level", "note"),
    [
        pytest.param((True,), "dotted-dot", "nested under R1.: containment {opened}/{opened}",
                     id="one-text-containment-only"),
        pytest.param((False, True), "rdigits-dot", "outermost: agreement {units}/{units} across "
                     "versions", id="outermost-two-versions-agreement"),
    ],
)  # fmt: skip
def test_a_levels_evidence_says_what_it_counted(
    listed: tuple[bool, ...], level: str, note: str
) -> None:
    """One text: containment only (labels opening right after the parent, of those and the ones
    counting on across it); two versions or more: agreement too (every requirement's label
    recurs in the other version); an outermost level has no parent to count."""
    texts = [_requirements(x) for x in listed]
    units = sum(len(re.findall(r"^R\d+\.", t, re.MULTILINE)) for t in texts)
    expected = note.format(opened=_opened(texts), units=units)
    assert _evidence(induce_profile(texts).source, level) == expected


def test_structure_shows_how_agreement_ranked_a_level(tmp_path: Path) -> None:
    """`workbench structure` on a held version, read through the profile induced from its
    family, lists each level's nesting evidence as the TOML states it (`--json`: `levels`), the
    level agreement ranked among them."""
    texts = [_requirements(False), _requirements(True), _requirements(True)]
    with Workspace(tmp_path / "ws.sqlite") as workspace:
        for k, text in enumerate(texts, 1):
            version = _text_version(text, f"test/fam/v{k}.txt")
            workspace.add_version(replace(version, version_order=k), {})
    induction = induce_profile(texts)
    path = tmp_path / "induced.toml"
    path.write_text(induction.source, encoding="utf-8")
    args = ("structure", "test/fam/v2.txt", "--profile", str(path))
    shown = json.loads(_run(*args, "--json", workspace=tmp_path / "ws.sqlite").stdout)
    evidence = {entry["level"]: entry["evidence"] for entry in shown["levels"]}
    for level in induction.levels:
        assert _evidence(induction.source, level.name) in evidence[level.name]
    listing = _run(*args, workspace=tmp_path / "ws.sqlite").stdout.decode()
    ranked = _evidence(induction.source, "dotted-dot")
    assert "ranked by agreement across versions" in ranked
    assert ranked in next(line for line in listing.splitlines() if line.startswith("level dotted"))
