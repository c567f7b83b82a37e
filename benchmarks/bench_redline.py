"""Word redlines side by side: the workbench's (`diff --docx`) and python-redlines' on the same pairs.

Run: `.venv/bin/python benchmarks/bench_redline.py [--workspace PATH] [--write-docs]`. Without
`--workspace` it ingests the families of `in_bench` into a temporary workspace (an empty verdict
log); with one, it reads that workspace's pairs of those families and its verdict log. It prints
figures; it asserts nothing about time. `--write-docs` replaces the block between the
`bench:redline` markers in docs/ with what it printed (`bench_spine.report_to_docs`).

The pairs: every consecutive version pair of `in_bench` (every D.C. Code section; IETF text,
USLM and Justice Canada XML, NERC and Texas PDFs). For each pair:

1. the workbench: `diff_versions`, then `write_redline_docx` with the workspace's verdict log;
   moves asserted are the `w:moveFrom` ranges it wrote (one per confirmed move);
2. python-redlines 2.0 with its Docxodus engine (its command line, stopped after
   `PAIR_TIMEOUT` seconds on a pair and counted apart) (a self-contained .NET binary shipped in the
   `python-redlines-docxodus` wheel: no .NET runtime to install), `detect_moves=True`, comparing
   two .docx files made of the versions' texts, one paragraph per line; moves asserted are its
   distinct `w:moveFrom` range names.

Beside both: the moves the workbench's diff paired (`moved` changes), how many of them are doubtful,
and how many a reviewer confirmed in the verdict log (`standing_verdict` is "confirmed"). A move
python-redlines asserts is its similarity's guess: it has no log to read.
"""

from __future__ import annotations

import io
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench_spine import ROOT, STORE, bench_options, report_to_docs, store_missing
from lxml import etree

from workbench.changes.caution import standing_verdict
from workbench.changes.diff import diff_versions, pairing_is_uncertain
from workbench.changes.log import read_verdicts
from workbench.changes.pairs import family_readers
from workbench.corpus import read_catalogue
from workbench.exports.redline_docx import LogHead, write_redline_docx
from workbench.models import Version, consecutive_pairs
from workbench.workspace import Workspace, ingest

PAIR_TIMEOUT = 30  # seconds python-redlines may take over one pair before it is stopped
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
# Every D.C. Code section (`in_bench`), and these.
OTHER_FAMILIES = (
    "ietf/draft-ietf-appsawg-http-problem",
    "ietf/draft-nottingham-http-link-header",
    "ietf/draft-wilde-xml-patch",
    "ietf/draft-cedik-http-warning",
    "us-federal/115-hr255",
    "us-federal/114-hr636",
    "ca-federal/ca-cer-act",
    "us-nerc/nerc-cip-002",
    "us-nerc/nerc-cip-003",
    "us-nerc/nerc-cip-012",
    "us-tx/puct-49421-item80-cehe-response-to-tiec-rfi-set1",
    "us-tx/puct-49595-puc01-01-rate-case-expense-update",
)


def in_bench(family: str) -> bool:
    """A "jurisdiction/family" the benchmark compares: a D.C. Code section or `OTHER_FAMILIES`."""
    return family.startswith("us-dc/dc-code-") or family in OTHER_FAMILIES


def _move_names(data: bytes) -> int:
    """Distinct `w:moveFromRangeStart` names in a .docx's document part: the moves it asserts."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        root = etree.fromstring(archive.read("word/document.xml"))
    return len({m.get(f"{W}name") for m in root.iter(f"{W}moveFromRangeStart")})


def _plain_docx(version: Version) -> bytes:
    """The version's text as a .docx, one paragraph per line (characters XML cannot hold, which
    no held version of `in_bench` has but form feeds, read as spaces)."""
    import docx

    document = docx.Document()
    for line in version.text.split("\n"):
        document.add_paragraph("".join(c if c == "\t" or c >= " " else " " for c in line))
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


@contextmanager
def _workspace(argv: list[str]) -> Iterator[Workspace]:
    if "--workspace" in argv:
        with Workspace(Path(argv[argv.index("--workspace") + 1]), create=False) as held:
            yield held
        return
    rows = [r for r in read_catalogue(ROOT / "corpus") if in_bench("/".join(r.path.split("/")[:2]))]
    with tempfile.TemporaryDirectory() as tmp, Workspace(Path(tmp) / "w.sqlite") as held:
        ingest(held, rows, STORE)
        yield held


def run(held: Workspace) -> None:
    from python_redlines.engines import DocxodusEngine

    engine = DocxodusEngine()
    verdicts = read_verdicts(held)
    versions = [v for v in held.versions() if in_bench(f"{v.jurisdiction}/{v.family}")]
    readers = family_readers(versions, None)
    ours: list[float] = []
    theirs: list[float] = []
    counts = dict.fromkeys(("paired", "doubtful", "confirmed", "ours", "theirs", "timed_out"), 0)
    kinds: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for k, (before, after) in enumerate(consecutive_pairs(versions)):
            started = time.perf_counter()
            changes = diff_versions(before, after, readers[(before.jurisdiction, before.family)])
            write_redline_docx(
                Path(tmp) / f"{k}.docx",
                before,
                after,
                changes,
                verdicts=verdicts,
                log_head=LogHead(rows=0, head=""),
            )
            ours.append(time.perf_counter() - started)
            counts["ours"] += _move_names((Path(tmp) / f"{k}.docx").read_bytes())
            kinds[before.jurisdiction] = kinds.get(before.jurisdiction, 0) + 1
            moved = [c for c in changes if c.kind == "moved"]
            counts["paired"] += len(moved)
            counts["doubtful"] += sum(pairing_is_uncertain(c) for c in moved)
            counts["confirmed"] += sum(
                (v := standing_verdict(c, verdicts)) is not None and v.answer == "confirmed"
                for c in moved
            )
            inputs = (Path(tmp) / f"{k}-before.docx", Path(tmp) / f"{k}-after.docx")
            for path, version in zip(inputs, (before, after), strict=True):
                path.write_bytes(_plain_docx(version))
            target = Path(tmp) / f"{k}-theirs.docx"
            # The engine's own command line (what `run_redline(..., detect_moves=True)` runs),
            # started here so that a pair it takes too long over can be stopped and counted.
            command = [engine.extracted_binaries_path, *map(str, inputs), str(target)]
            started = time.perf_counter()
            try:
                subprocess.run(
                    [*command, "--author=python-redlines", "--detect-moves"],
                    check=True,
                    capture_output=True,
                    timeout=PAIR_TIMEOUT,
                )
            except subprocess.TimeoutExpired:
                counts["timed_out"] += 1
                continue
            theirs.append(time.perf_counter() - started)
            counts["theirs"] += _move_names(target.read_bytes())
    where = ", ".join(f"{n} {j}" for j, n in sorted(kinds.items()))
    print(f"{len(ours)} version pairs ({where}); verdict log: {len(verdicts)} rows\n")
    print(
        f"the workbench's diff paired {counts['paired']} moves, {counts['doubtful']} of them "
        f"doubtful; a reviewer confirmed {counts['confirmed']}\n"
    )
    print(
        f"{'':38} {'moves asserted':>15} {'of them confirmed':>18} {'median s/pair':>14} {'total s':>8}"
    )
    for name, times, asserted, confirmed in (
        ("workbench (diff + write_redline_docx)", ours, counts["ours"], counts["ours"]),
        (f"python-redlines 2.0 ({len(theirs)} pairs)", theirs, counts["theirs"], 0),
    ):
        print(
            f"{name:38} {asserted:>15} {confirmed:>18} {statistics.median(times):>14.3f} "
            f"{sum(times):>8.1f}"
        )
    print(
        f"\npython-redlines was stopped on {counts['timed_out']} pairs after {PAIR_TIMEOUT} s each "
        "(not counted above)"
    )
    print(
        "per pair: the workbench's diff and its redline written; python-redlines' engine "
        "process, its comparison included (its two input .docx files made beforehand)"
    )


def main() -> int:
    bench_options(__doc__, sys.argv[1:], valued=("--workspace",))
    if store_missing():
        return 2
    with _workspace(sys.argv[1:]) as held:
        report_to_docs(lambda: run(held), "bench:redline", "--write-docs" in sys.argv[1:])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
