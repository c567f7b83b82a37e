"""The induction scorecard: jurisdictions the workbench has never seen, and the shared corpus's.

Run: `make bench` (or `.venv/bin/python benchmarks/bench_numbering.py [--write-docs] [--misses J]`;
`--misses J` scores jurisdiction J alone and lists each unit the automatic choice missed: its law
and version, its line, the truth's path and the path read). First the
Legalize bundles: every version of every law in `../shared/external/numbering/*.bundle` (each
commit changing a law's file) is read as a text version, as `corpus add --from-git` would hold it,
under its bundle's country code as jurisdiction, which no shipped profile names. Their truth is
`scripts/numbering_truth.py` (it imports nothing from the workbench): each unit's line and its path
of keys, read from the jurisdiction's own identifiers. A unit is right when the path the workbench
reads at the end of the unit's line (`StructureParse.path_at`) ends with the unit's path, key for
key: a path label matches a key when one of its words, or two adjacent words joined, is the key,
case aside (`Art. 8 bis` matches `8bis`); containers the truth does not number may stand above.
Then the shared corpus's jurisdictions whose documents carry their own identifiers, with the
truth of `scripts/alignment_truth.py` placed and compared as `evals.paths` does (`bench_induce`).
Scored three ways per family, each read as `measure` reads it (`parse_structure`: an XML
version by its extractor's marks, whatever the profile): the automatic choice
(`choice.choose_profile` over the registry and the induced profile; for the shared corpus with the
profile naming the jurisdiction withheld, as if it were new), `profile suggest` (the profile
induced from all the family's versions, `induce.induce_profile`), and the shipped profile naming
the jurisdiction (n/a where none does). Printed per jurisdiction: laws (families), versions,
units, the share right for each, the families the automatic choice left unread
(`choice.family_reading`), and how it chose (induced, unread, marks for XML no profile reads, or
the registry profile it took). Set `WORKBENCH_WORKSPACE` to a workspace that holds the catalogue
to skip the ingest into a temporary one. It asserts nothing: it measures and prints.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

from bench_induce import RULES, load_truth_script, readable, truth_units
from bench_profiles import _versions
from bench_spine import ROOT, STORE, bench_options, report_to_docs, script_module

from workbench.evals.paths import Agreement, Placed, agreement, agrees, locate
from workbench.models import Version, text_sha256
from workbench.text.choice import family_reading, read_numbering
from workbench.text.induce import induce_profile
from workbench.text.parts import lazy_headings, version_parts_and_headings
from workbench.text.profiles import Profile, named_profile, shipped_profiles
from workbench.text.structure import StructureParse, is_marked, parse_structure

BUNDLES = ROOT.parent / "shared" / "external" / "numbering"
TARGET = 0.9  # the share of units right the issue asks for, per jurisdiction
_WORD = re.compile(r"[^\W_]+")
TruthUnit = tuple[int, str, list[str]]  # (char_start of its line, kind, path of keys)


def _version(jurisdiction: str, family: str, order: int, commit: str, text: str) -> Version:
    data = text.encode("utf-8")
    return Version(
        version_id=f"{family}@{commit[:12]}.md",
        jurisdiction=jurisdiction,
        family=family.split("/")[-1],
        version_order=order,
        version_label=commit[:12],
        media_type="text/markdown",
        artefact_sha256=hashlib.sha256(data).hexdigest(),
        artefact_bytes=len(data),
        extractor="identity",
        extractor_version="1",
        text_sha256=text_sha256(text),
        text=text,
    )


def label_matches(label: str, key: str) -> bool:
    """True if one word of `label`, or two adjacent words joined, is `key` (case aside)."""
    words = [w.casefold() for w in _WORD.findall(label)]
    return key in words or key in {a + b for a, b in itertools.pairwise(words)}


def right(parse: StructureParse, text: str, start: int, path: list[str]) -> bool:
    """The workbench's path at the end of the unit's line ends with the truth's, key for key."""
    end = text.find("\n", start)
    found = parse.path_at((len(text) if end < 0 else end) - 1)
    if found is None or len(found) < len(path):
        return False
    return all(
        label_matches(label, key)
        for label, key in zip(found[len(found) - len(path) :], path, strict=True)
    )


def _miss(version: Version, start: int, truth: Sequence[str], parse: StructureParse) -> None:
    """Print one unit the automatic choice missed: where, its line, the truth's path, the read."""
    end = version.text.find("\n", start)
    end = len(version.text) if end < 0 else end
    found = parse.path_at(end - 1)
    print(
        f"{version.family}@{version.version_order} {start}: {version.text[start:end][:70]!r}\n"
        f"    truth {list(truth)}  read {list(found) if found is not None else None}"
    )


def _score(
    profile: Profile | None,
    versions: list[Version],
    units: dict[str, list[TruthUnit]],
    misses: bool = False,
) -> tuple[int, int]:
    if profile is None:
        return 0, 0
    hits = total = 0
    for version in versions:
        parse = parse_structure(version, profile)
        for start, _, path in units[version.version_id]:
            hit = right(parse, version.text, start, path)
            if misses and not hit:
                _miss(version, start, path, parse)
            hits += hit
            total += 1
    return hits, total


def _pct(hits: int, total: int) -> str:
    return f"{100 * hits / total:6.2f}%" if total else "    n/a"


def run(misses: str | None = None) -> None:
    script = script_module("numbering_truth")
    laws: dict[str, dict[str, list[Version]]] = defaultdict(lambda: defaultdict(list))
    units: dict[str, list[TruthUnit]] = {}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-numbering-") as tmp:
        for bundle in sorted(BUNDLES.glob("*.bundle")):
            for path, order, commit, text in script.bundle_versions(bundle, Path(tmp)):
                jurisdiction, family = path.split("/")[0], path.removesuffix(".md")
                if misses is not None and jurisdiction != misses:
                    continue
                version = _version(jurisdiction, family, order, commit, text)
                laws[jurisdiction][family].append(version)
                units[version.version_id] = script.read_units(jurisdiction, text)
    shipped = shipped_profiles()
    print(
        "| jurisdiction | laws (families) | versions | units | automatic | profile suggest | shipped "
        "profile | laws unread (automatic) | automatic choices | automatic meets 90% |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for jurisdiction, by_law in sorted(laws.items()):
        totals: defaultdict[str, list[int]] = defaultdict(lambda: [0, 0])
        unread = 0
        chosen: Counter[str] = Counter()
        named = named_profile(shipped, jurisdiction, "")
        for versions in by_law.values():
            choice, reading = read_numbering(versions, shipped)
            unread += reading.status == "unread"
            chosen[choice.how if choice.how != "automatic" else choice.profile.name] += 1
            suggested = induce_profile([v.text for v in versions]).profile()
            for name, profile in (("auto", choice.profile), ("suggest", suggested)):
                hits, total = _score(
                    profile, versions, units, misses=name == "auto" and misses is not None
                )
                totals[name][0] += hits
                totals[name][1] += total
            hits, total = _score(named, versions, units)
            totals["shipped"][0] += hits
            totals["shipped"][1] += total
        auto, suggest, own = totals["auto"], totals["suggest"], totals["shipped"]
        meets = "yes" if auto[1] and auto[0] >= TARGET * auto[1] else "no"
        print(
            f"| {jurisdiction} | {len(by_law)} | {sum(len(v) for v in by_law.values())} | "
            f"{auto[1]} | {_pct(*auto)} | {_pct(*suggest)} | {_pct(*own) if named else 'n/a'} | "
            f"{unread} of {len(by_law)} | "
            + ", ".join(f"{how} {n}" for how, n in sorted(chosen.items()))
            + f" | {meets} |"
        )
    if misses is None or not laws:
        _shared_corpus_rows(misses)
    print(f"\n{time.perf_counter() - started:.1f} s")


def _agreement(
    profile: Profile | None,
    family: list[Version],
    placed: dict[str, list[Placed]],
    misses: bool = False,
) -> Agreement:
    total = Agreement(agree=0, placed=0)
    if profile is None:
        return total
    for version in family:
        parse = parse_structure(version, profile)
        total += agreement(parse, placed[version.version_id])
        for unit in placed[version.version_id] if misses else ():
            if not agrees(parse.path_at(unit.char_start), unit.chain):
                _miss(version, unit.char_start, unit.chain, parse)
    return total


def _shared_corpus_rows(misses: str | None = None) -> None:
    """The shared corpus's jurisdictions whose documents carry their own identifiers, scored by
    `scripts/alignment_truth.py`'s units placed as `evals.paths.locate` places them; the automatic
    choice is made with the profile naming the jurisdiction withheld (as if it were new)."""
    script = load_truth_script()
    families: dict[str, dict[str, list[Version]]] = defaultdict(lambda: defaultdict(list))
    for version in _versions():
        if (
            version.jurisdiction in RULES
            and readable(version)
            and misses in (None, version.jurisdiction)
        ):
            families[version.jurisdiction][version.family].append(version)
    shipped = shipped_profiles()
    for jurisdiction, by_family in sorted(families.items()):
        named = named_profile(shipped, jurisdiction, "")
        others = tuple(p for p in shipped if p is not named)
        zero = Agreement(agree=0, placed=0)
        auto, suggest, own = zero, zero, zero
        unread = 0
        chosen: Counter[str] = Counter()
        for group in by_family.values():
            family = sorted(group, key=lambda v: v.version_order)
            placed = {
                v.version_id: locate(
                    RULES[jurisdiction], v.text, truth_units(script, v), v.structure
                )
                for v in family
            }
            # A PDF's heading lines, read off its glyphs, as every command reads them.
            headings = lazy_headings(family, lambda v: version_parts_and_headings(v, STORE)[2])
            choice, _ = read_numbering(family, others, headings=headings)
            parses = [parse_structure(v, choice.profile) for v in family]
            marked = all(is_marked(v) for v in family)
            unread += family_reading(choice, parses, marked=marked).status == "unread"
            how = "marks" if choice.marked else choice.how
            chosen[how if how != "automatic" else choice.profile.name] += 1
            suggested = induce_profile([v.text for v in family], headings and headings()).profile()
            auto += _agreement(choice.profile, family, placed, misses=misses is not None)
            suggest += _agreement(suggested, family, placed)
            own += _agreement(named, family, placed)
        meets = "yes" if auto.placed and auto.agree >= TARGET * auto.placed else "no"
        print(
            f"| {jurisdiction} | {len(by_family)} | "
            f"{sum(len(g) for g in by_family.values())} | {auto.placed} | "
            f"{_pct(auto.agree, auto.placed)} | {_pct(suggest.agree, suggest.placed)} | "
            f"{_pct(own.agree, own.placed)} | {unread} of {len(by_family)} | "
            + ", ".join(f"{how} {n}" for how, n in sorted(chosen.items()))
            + f" | {meets} |"
        )


if __name__ == "__main__":
    options = bench_options(__doc__, sys.argv[1:], valued=("--misses",))
    if options["--misses"] is not None:
        run(options["--misses"])
    else:
        report_to_docs(run, "bench:numbering", options["--write-docs"])
