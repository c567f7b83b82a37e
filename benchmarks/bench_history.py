"""Citations through time: `history` and `recheck` over every D.C. Code and IETF family.

Run: `.venv/bin/python benchmarks/bench_history.py [--workspace PATH] [--write-docs]`. Without
`--workspace` it ingests the fetched corpus into a temporary workspace (as `bench_search` does).
It prints figures; it asserts nothing about time. `--write-docs` replaces the block between the
`bench:history` markers in docs/ with what it printed (`bench_spine.report_to_docs`).

One quote per family, chosen by a fixed rule: the first sentence (split after `.` or `;` and
white space) of at least eight words and at most 300 characters, in the first version's body
passages, that the first version holds exactly once.

1. `quote_history` of each family's quote, each family from a cold index cache (every version's
   text normalized and indexed on first use, as a fresh process would), beside the floor of a
   plain `str.count` of the white-space-folded quote in every white-space-folded text (no
   line-break hyphen readings, no offsets: what a naive checker does).
2. `recheck_quotes` of one citation per family (`cite_quote` into the first version), in one call:
   every newer version searched, and beside each quote gone from the newest version, the
   alignment's suggestion (one diff of the first and newest version per family).
3. The note route on the D.C. families: one note per family, its quote checked into the first
   version, then rechecked against every newer version, each check a separate process and a
   ledger run.
"""

from __future__ import annotations

import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench_search import bench_workspace
from bench_spine import ROOT, STORE, bench_options, report_to_docs, store_missing

from workbench.cite.index import clear_cache
from workbench.history.dating import cite_quote, quote_history
from workbench.history.recheck import recheck_quotes
from workbench.models import Version
from workbench.notes import Ledger, notes_in
from workbench.text.segment import segment_version
from workbench.workspace import Workspace

JURISDICTIONS = ("us-dc", "ietf")
_SENTENCE_END = re.compile(r"(?<=[.;])\s+")


def family_quote(workspace: Workspace, first: Version) -> str | None:
    """The family's quote by the rule in the module docstring (None if no sentence fits)."""
    for passage in segment_version(first):
        if passage.kind != "body":
            continue
        for sentence in _SENTENCE_END.split(passage.text):
            fits = len(sentence.split()) >= 8 and len(sentence) <= 300
            if fits and cite_quote(workspace, sentence, first.version_id).status == "cited":
                return sentence
    return None


def _families(workspace: Workspace) -> list[tuple[str, tuple[Version, ...], str]]:
    chosen = []
    names = sorted({(v.jurisdiction, v.family) for v in workspace.versions()})
    for jurisdiction, family in names:
        if jurisdiction not in JURISDICTIONS:
            continue
        versions = workspace.versions(family)
        quote = family_quote(workspace, versions[0])
        if quote is not None and len(versions) > 1:
            chosen.append((jurisdiction, versions, quote))
    return chosen


def _summary(seconds: list[float]) -> str:
    return (
        f"total {sum(seconds):.2f} s, median {statistics.median(seconds) * 1000:.0f} ms, "
        f"max {max(seconds) * 1000:.0f} ms per family"
    )


def run(workspace: Workspace) -> None:
    families = _families(workspace)
    by_jurisdiction = Counter(j for j, _, _ in families)
    versions = sum(len(v) for _, v, _ in families)
    print(
        f"families: {len(families)} ({', '.join(f'{n} {j}' for j, n in by_jurisdiction.items())}), "
        f"{versions} versions, one quote each"
    )
    history_s, floor_s = [], []
    latest_holds = 0
    for _, family_versions, quote in families:
        clear_cache()
        start = time.perf_counter()
        life = quote_history(workspace, quote, family_versions[0].family)
        history_s.append(time.perf_counter() - start)
        latest_holds += life.latest_holds
        folded = " ".join(quote.split())
        start = time.perf_counter()
        for v in family_versions:
            " ".join(v.text.split()).count(folded)
        floor_s.append(time.perf_counter() - start)
    print("\n1. history, cold index cache per family")
    print(f"   quote_history:            {_summary(history_s)}")
    print(f"   floor (str.count, folded): {_summary(floor_s)}")
    print(
        f"   families whose latest version still holds the quote: {latest_holds} of {len(families)}"
    )

    citations = []
    for _, family_versions, quote in families:
        cited = cite_quote(workspace, quote, family_versions[0].version_id)
        assert cited.citation is not None
        citations.append((family_versions[0].family, cited.citation))
    clear_cache()
    start = time.perf_counter()
    report = recheck_quotes(workspace, citations=citations)
    spent = time.perf_counter() - start
    statuses = Counter(f.status for f in report.findings)
    suggested = sum(f.suggestion is not None for f in report.findings)
    newest = {v[0].family: v[-1].version_id for _, v, _ in families}
    gone_newest = sum(
        f.status == "gone" and f.version_id == newest[f.subject] for f in report.findings
    )
    print("\n2. recheck of one citation per family into its first version, one call")
    print(
        f"   {len(report.findings)} searches in newer versions in {spent:.2f} s "
        f"({spent / max(1, len(report.findings)) * 1000:.1f} ms each, diffs for suggestions included)"
    )
    print(
        "   "
        + ", ".join(
            f"{statuses[s]} {s}"
            for s in ("still_present", "gone", "now_ambiguous", "still_ambiguous")
        )
        + f"; gone from the newest version: {gone_newest}, with an aligned suggestion: {suggested}"
    )

    dc = [(v, q) for j, v, q in families if j == "us-dc"]
    with tempfile.TemporaryDirectory() as tmp:
        notes = Path(tmp) / "notes"
        notes.mkdir()
        for family_versions, quote in dc:
            (notes / f"{family_versions[0].family}.md").write_text(
                "---\nstatus: draft\norigin: document\n"
                f"pointer: {family_versions[0].version_id}\n---\n\n"
                f"> quote: {quote}\n> locator: the section\n",
                encoding="utf-8",
            )
        with Ledger(Path(tmp) / "ledger.sqlite") as ledger:
            start = time.perf_counter()
            noted = recheck_quotes(
                workspace,
                notes=notes_in(notes),
                ledger=ledger,
                corpus_dir=ROOT / "corpus",
                store=STORE,
            )
            spent = time.perf_counter() - start
    runs = len(noted.runs)
    print("\n3. recheck of one note per D.C. family, each check a separate process")
    print(
        f"   {len(dc)} notes, {runs} ledger runs in {spent:.2f} s "
        f"({spent / max(1, runs) * 1000:.0f} ms a run); "
        f"{sum(f.status == 'gone' for f in noted.findings)} gone"
    )


def main() -> int:
    options = bench_options(__doc__, sys.argv[1:], valued=("--workspace",))
    if store_missing():
        return 2
    with bench_workspace(sys.argv[1:]) as held:
        report_to_docs(lambda: run(held), "bench:history", options["--write-docs"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
