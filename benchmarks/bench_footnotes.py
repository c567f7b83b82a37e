"""Footnote links scored against others' markup, and read on the held markup documents.

Run: `.venv/bin/python benchmarks/bench_footnotes.py [--write-docs]`. It prints figures; it asserts
nothing. `--write-docs` replaces the block between the `bench:footnotes` markers in docs/.

1. The three Federal Register rules in `../shared/external/footnotes-fr-notices-cfpb/`: the links
   `scripts/footnote_truth.py` (no workbench import) reads off their `FTREF`/`FTNT` markup against
   the links `text.footnotes` reads, per file: links in the truth, read, agreed, precision and
   recall, each miss and each extra link, and the markers and notes each side leaves unlinked.
2. Every held XML and Markdown version of the fetched corpus that has a note or a marker: notes,
   markers, linked markers, markers with no note, markers two notes share, notes no marker names.
3. The held PDFs with footnotes (the D.P.U. order, the NERC standards, the Federal Register PDF),
   read by their glyphs (`text.pdf_footnotes`): the same counts and the notes run on across a
   page, the labels of every marker not linked and every note no marker names, and the seconds
   to extract and read each.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from bench_spine import ROOT, STORE, bench_options, report_to_docs, store_missing, truth_from_script

from workbench.evals.footnote_score import precision_recall, score_files
from workbench.text.extraction import extract
from workbench.text.footnotes import read_footnotes
from workbench.text.ocr import OcrOptions
from workbench.text.pdf_footnotes import read_pdf_footnotes

FR_NOTICES = ROOT.parent / "shared" / "external" / "footnotes-fr-notices-cfpb"


def _external() -> None:
    truth = truth_from_script("footnote_truth.py", sorted(str(p) for p in FR_NOTICES.glob("*.xml")))
    scores = score_files(FR_NOTICES, truth)
    print("1. Federal Register GPO XML, links against the FTREF/FTNT markup")
    for s in scores:
        print(f"   {s.file}: truth {s.truth}, read {s.read}, agreed {s.agreed}")
        for label, before, note in s.missed:
            print(f"      missed {label}: ...{before} -> {note}...")
        for label, before, note in s.extra:
            print(f"      extra {label}: ...{before} -> {note}...")
        print(
            f"      markers with no note: truth {list(s.unlinked_truth)}, "
            f"read {list(s.unlinked_read)}; notes no marker names: truth "
            f"{list(s.unanchored_truth)}, read {list(s.unanchored_read)}"
        )
    precision, recall = precision_recall(scores)
    print(f"   all: precision {precision:.4f}, recall {recall:.4f}")


def _held() -> None:
    print(
        "2. held markup versions with footnotes (notes, markers, linked, no note, shared, unnamed)"
    )
    for path in sorted(STORE.rglob("*")):
        if path.suffix not in (".xml", ".md") or not path.is_file():
            continue
        data = path.read_bytes()
        media_type = "application/xml" if path.suffix == ".xml" else "text/markdown"
        text = extract(data, media_type=media_type, source=str(path)).text
        reading = read_footnotes(data, source=str(path), media_type=media_type, text=text)
        if not (reading.footnotes or reading.markers):
            continue
        linked = sum(len(f.anchors) for f in reading.footnotes)
        print(
            f"   {path.relative_to(STORE)}: {len(reading.footnotes)}, {len(reading.markers)}, "
            f"{linked}, {len(reading.unlinked)}, {len(reading.ambiguous)}, "
            f"{len(reading.unanchored)}"
        )


def _pdfs() -> None:
    print(
        "3. held PDFs read by their glyphs (notes, run on across a page, markers, linked, "
        "no note, shared, unnamed, s)"
    )
    ocr = OcrOptions(
        cache=Path(os.environ.get("WORKBENCH_OCR_CACHE", ROOT / ".workbench" / "ocr-cache"))
    )
    held = [*STORE.glob("us-ma/*/*.pdf"), *STORE.glob("us-nerc/*/*.pdf")]
    for path in sorted([*held, *STORE.glob("us-federal-register/*/*.pdf")]):
        data = path.read_bytes()
        started = time.perf_counter()
        text = extract(data, media_type="application/pdf", source=str(path), ocr=ocr).text
        reading = read_pdf_footnotes(data, source=str(path), text=text, ocr=ocr)
        took = time.perf_counter() - started
        linked = sum(len(f.anchors) for f in reading.footnotes)
        run_on = sum(bool(f.continued) for f in reading.footnotes)
        print(
            f"   {path.relative_to(STORE)}: {len(reading.footnotes)}, {run_on}, "
            f"{len(reading.markers)}, {linked}, {len(reading.unlinked)}, "
            f"{len(reading.ambiguous)}, {len(reading.unanchored)}, {took:.1f}"
        )
        # Every note found is linked to a marker or listed here, and every marker not linked.
        for name, listed in (
            ("markers with no note", [m.label for m in reading.unlinked]),
            ("markers two notes share", [m.label for m in reading.ambiguous]),
            ("notes no marker names", [n.label for n in reading.unanchored]),
        ):
            if listed:
                print(f"      {name}: {listed}")


def main() -> int:
    options = bench_options(__doc__, sys.argv[1:])
    if store_missing():
        return 2

    def run() -> None:
        _external()
        _held()
        _pdfs()

    report_to_docs(run, "bench:footnotes", options["--write-docs"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
