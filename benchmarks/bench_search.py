"""Candidate search benchmark: the index against a brute-force rapidfuzz scan, in the same run.

Run: `.venv/bin/python benchmarks/bench_search.py [--workspace PATH] [--write-docs]`. Without
`--workspace` it ingests the fetched corpus into a temporary workspace; with it, it uses (and
re-indexes) that workspace. When the corpus holds fewer than 10^5 passages, whole versions are
replicated under new version ids until it does. It prints figures and ratios; it asserts nothing
about time. `--write-docs` replaces the block between the `bench:search` markers in docs/
with what it printed.

The brute force scores every passage the index holds (each version's through its search profile,
`passages_for_search`; not every distinct text) with the same rule as the search:
substring candidates first, then `fuzz.token_set_ratio` / `fuzz.ratio` by length, ties by version
id then offset. Two query sets, both drawn with a fixed seed from the held passages:

* verifiable quotes: random spans of real passages; recall is the share whose passage is offered;
* paraphrases: real sentences with words swapped for synonyms from a fixed table; recall@10 is the
  share whose source sentence's passage text is among the top 10.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import platform
import random
import re
import statistics
import sys
import tempfile
import time
from bisect import bisect_left
from collections.abc import Callable, Iterator
from pathlib import Path

from bench_spine import bench_options, replace_docs_block, store_missing
from rapidfuzz import fuzz, process

from workbench.corpus.catalogue import read_catalogue
from workbench.models import Passage
from workbench.search import (
    SearchScope,
    build_index,
    find_candidates,
    passages_for_search,
    ranking_key,
    substring_key,
)
from workbench.text.normalize import normalized_text
from workbench.workspace import Workspace, ingest

ROOT = Path(__file__).resolve().parents[1]
STORE = ROOT / "corpus" / "real"
TARGET_PASSAGES = 100_000
QUERIES = 60
K = 10
SEED = 20240601

# Words a company or a summary might put for the regulator's word (and back).
SYNONYMS = {
    "shall": "must", "must": "shall", "provide": "supply", "provided": "supplied",
    "require": "demand", "required": "demanded", "requires": "demands",
    "commission": "regulator", "Commission": "Regulator", "utility": "provider",
    "company": "firm", "customer": "client", "customers": "clients", "person": "individual",
    "notice": "notification", "rate": "charge", "rates": "charges", "order": "directive",
    "plan": "scheme", "report": "statement", "filed": "submitted", "information": "data",
    "approve": "authorize", "approved": "authorized", "determine": "decide",
    "ensure": "guarantee", "include": "contain", "includes": "contains",
    "including": "containing", "may": "can", "upon": "on", "prior": "before",
    "begin": "start", "use": "employ", "used": "employed", "purpose": "aim",
    "necessary": "needed", "reasonable": "fair", "submit": "file", "receive": "obtain",
    "pay": "remit", "payment": "remittance", "amount": "sum", "cost": "expense",
    "costs": "expenses", "energy": "power", "document": "record", "message": "communication",
    "request": "query", "response": "reply", "section": "clause", "Section": "Clause",
    "following": "subsequent", "specified": "stated", "described": "outlined",
    "allow": "permit", "allows": "permits", "example": "instance", "additional": "extra",
    "within": "inside",
}  # fmt: skip


@dataclasses.dataclass(frozen=True, slots=True)
class Scanned:
    """Every passage with its keys, sorted by ranking-key length for the length rule."""

    passages: list[Passage]
    substring_keys: list[str]
    by_length: list[int]  # passage indexes sorted by (ranking-key length, index)
    lengths: list[int]
    ranking_keys: list[str]  # in by_length order


def scanned(workspace: Workspace) -> Scanned:
    passages = sorted(
        (p for v in workspace.versions() for p in passages_for_search(v)),
        key=lambda p: (p.version_id, p.char_start),
    )
    normalized = [normalized_text(p.text) for p in passages]
    ranking = [ranking_key(n) for n in normalized]
    order = sorted(range(len(passages)), key=lambda i: (len(ranking[i]), i))
    return Scanned(
        passages=passages,
        substring_keys=[substring_key(n) for n in normalized],
        by_length=order,
        lengths=[len(ranking[i]) for i in order],
        ranking_keys=[ranking[i] for i in order],
    )


def brute_force(data: Scanned, query: str, k: int) -> list[int]:
    """Indexes of the passages the search rule offers, computed over every passage."""
    key, query_key = substring_key(query), ranking_key(query)
    exact = [i for i, s in enumerate(data.substring_keys) if key in s]
    if len(exact) >= k:
        return exact
    split = bisect_left(data.lengths, len(query_key))
    found: list[tuple[float, int]] = []
    for scorer, low, high in ((fuzz.ratio, 0, split), (fuzz.token_set_ratio, split, None)):
        choices = data.ranking_keys[low:high]
        limit = k + len(exact) + 20
        hits = process.extract(query_key, choices, scorer=scorer, processor=None, limit=limit)
        if len(hits) == limit:  # ties may run past the limit: take every tie of the last score
            hits = process.extract(
                query_key,
                choices,
                scorer=scorer,
                processor=None,
                limit=None,
                score_cutoff=hits[-1][1],
            )
        found += [(score, data.by_length[low + j]) for _, score, j in hits]
    taken = set(exact)
    ranked = sorted((-s, i) for s, i in found if i not in taken)
    return exact + [i for _, i in ranked[: k - len(exact)]]


def with_enough_passages(workspace: Workspace) -> int:
    """Replicate whole held versions under new ids until there are TARGET_PASSAGES passages."""
    versions = workspace.versions()
    total = sum(len(passages_for_search(v)) for v in versions)
    copy = 0
    while total < TARGET_PASSAGES:
        copy += 1
        for v in versions:
            replica = dataclasses.replace(
                v, version_id=f"replica-{copy}/{v.version_id}", family=f"replica-{copy}-{v.family}"
            )
            workspace.add_version(replica, {"replica_of": v.version_id})
            total += len(passages_for_search(v))
            if total >= TARGET_PASSAGES:
                break
    return total


def quotes(data: Scanned, rng: random.Random) -> list[tuple[str, int]]:
    found: list[tuple[str, int]] = []
    while len(found) < QUERIES:
        i = rng.randrange(len(data.passages))
        text = data.passages[i].text
        if len(text) < 40:
            continue
        start = rng.randrange(len(text) - 20)
        quote = text[start : start + rng.randint(20, 200)]
        if len(normalized_text(quote).strip()) >= 20:
            found.append((quote, i))
    return found


def paraphrases(data: Scanned, rng: random.Random) -> list[tuple[str, str]]:
    """(paraphrase, normalized text of its source passage)."""
    sentences: list[tuple[str, str]] = []
    for p in data.passages[:: max(1, len(data.passages) // 20_000)]:
        normalized = normalized_text(p.text)
        for sentence in re.split(r"(?<=\.) ", normalized):
            if 60 <= len(sentence) <= 250 and sum(w in SYNONYMS for w in sentence.split()) >= 2:
                sentences.append((sentence, normalized))
    found = []
    for sentence, source in rng.sample(sentences, QUERIES):
        words = sentence.split(" ")
        swappable = [j for j, w in enumerate(words) if w in SYNONYMS]
        for j in rng.sample(swappable, min(3, len(swappable))):
            words[j] = SYNONYMS[words[j]]
        found.append((" ".join(words), source))
    return found


def timed(func: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    value = func()
    return time.perf_counter() - start, value


def run(workspace: Workspace) -> None:
    print(
        f"python {sys.version.split()[0]}, {platform.machine()}, {os.cpu_count()} cores; "
        f"{QUERIES} queries of each kind, seed {SEED}, k={K}\n"
    )
    total = with_enough_passages(workspace)
    built_in, status = timed(lambda: build_index(workspace))
    data = scanned(workspace)
    print(f"corpus: {total} passages in {len(workspace.versions())} versions")
    print(f"index build: {built_in:.1f} s, {status.texts} distinct passage texts")  # type: ignore[attr-defined]
    rng = random.Random(SEED)
    scope = SearchScope(workspace=workspace)
    address = {(p.version_id, p.char_start): i for i, p in enumerate(data.passages)}

    def compare(
        queries: list[tuple[str, object]], hit: Callable[[object, list[int]], bool]
    ) -> None:
        brute_times, index_times, brute_hits, index_hits, agree = [], [], 0, 0, []
        plain_times = []
        for query, truth in queries:
            spent, _ = timed(
                lambda q=query: process.extract(
                    ranking_key(q), data.ranking_keys, scorer=fuzz.ratio, processor=None, limit=K
                )
            )
            plain_times.append(spent)
            spent, brute = timed(lambda q=query: brute_force(data, q, K))
            brute_times.append(spent)
            spent, result = timed(lambda q=query: find_candidates(q, scope, K))
            index_times.append(spent)
            offered = [address[(c.version_id, c.char_start)] for c in result.candidates]  # type: ignore[attr-defined]
            brute_hits += hit(truth, brute)  # type: ignore[arg-type]
            index_hits += hit(truth, offered)
            agree.append(len(set(brute[:K]) & set(offered[:K])) / min(K, len(brute) or 1))
        b, i = statistics.median(brute_times), statistics.median(index_times)
        print(
            f"   brute-force scan:  median {b * 1000:7.1f} ms   recall {brute_hits / len(queries):.3f}"
        )
        print(
            f"   index:             median {i * 1000:7.1f} ms   recall {index_hits / len(queries):.3f}"
        )
        plain = statistics.median(plain_times)
        print(
            f"   for scale, one plain fuzz.ratio pass over every passage: median {plain * 1000:.1f} ms "
            f"({plain / i:.1f}x the index)"
        )
        print(
            f"   index is {b / i:.1f}x faster; recall ratio (index / brute force) "
            f"{(index_hits / max(brute_hits, 1)):.3f}; mean top-{K} overlap with brute force "
            f"{statistics.mean(agree):.3f}"
        )

    normalized = [normalized_text(p.text) for p in data.passages]
    print("\n1. verifiable quotes (random spans of real passages); recall: the passage is offered")
    compare(list(quotes(data, rng)), lambda truth, got: truth in got)  # type: ignore[arg-type]
    print("\n2. paraphrases (real sentences, up to 3 words swapped); recall@10: source in top 10")
    compare(
        list(paraphrases(data, rng)),  # type: ignore[arg-type]
        lambda truth, got: any(normalized[i] == truth for i in got[:K]),
    )
    with tempfile.TemporaryDirectory() as tmp, Workspace(Path(tmp) / "bare.sqlite") as bare:
        dc = [r for r in read_catalogue(ROOT / "corpus") if r.jurisdiction == "us-dc"]
        ingest(bare, dc, STORE)
        spent, result = timed(
            lambda: find_candidates("post collateral", SearchScope(workspace=bare))
        )
        print(
            f"\n3. no index (D.C. Code only, {len(dc)} versions): full scan in {spent * 1000:.0f} ms; "
            f"path {result.path}"  # type: ignore[attr-defined]
        )


@contextlib.contextmanager
def bench_workspace(argv: list[str]) -> Iterator[Workspace]:
    if "--workspace" in argv:
        with Workspace(Path(argv[argv.index("--workspace") + 1])) as held:
            yield held
        return
    with tempfile.TemporaryDirectory() as tmp, Workspace(Path(tmp) / "w.sqlite") as held:
        ingest(held, read_catalogue(ROOT / "corpus"), STORE)
        yield held


def main() -> int:
    options = bench_options(__doc__, sys.argv[1:], valued=("--workspace",))
    if store_missing():
        return 2
    buffer = io.StringIO()
    with bench_workspace(sys.argv[1:]) as held, contextlib.redirect_stdout(buffer):
        run(held)
    print(buffer.getvalue(), end="")
    if options["--write-docs"]:
        replace_docs_block("bench:search", "python benchmarks/bench_search.py", buffer.getvalue())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
