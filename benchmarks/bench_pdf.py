"""PDF benchmark: speed and fidelity of the candidate libraries on the catalogued PDFs, in one run.

Run: `.venv/bin/python benchmarks/bench_pdf.py [--write-docs]` (part of `make bench`). It prints
figures and asserts nothing about time. With `--write-docs` it replaces two marked blocks in
docs/ with what it printed (`bench:pdf` and `pdf:hyphens`), so the figures there are always the
code's own output.

1. Every catalogued PDF through each library once, in one process, in the same order: pages per
   CPU second (process time, not wall clock: this machine is shared, and CPU time is what a
   library costs), with ratios against the chosen extractor ("pdf-text": PDFium glyphs and our layout).
   pypdfium2's own text (PDFium's reading of the content stream, no layout) is the floor.
2. Fidelity on the same run: how many of the sentences a person read off the rendered pages
   (`tests/text/test_extract_pdf.py`, `READ_OFF_THE_PAGE`) each library's text holds exactly once
   (under the shared normalization, a typed "-" also matching a line-end hyphen), and whether the
   three-column proposed rule's page 2 comes out in column order.
3. Hyphens and dashes: each hyphen and dash character counted over the extracted corpus, with how
   many end a line, in the NERC standards and in the other PDFs; and how the NERC standards print
   their own identifiers ("CIP-003-8" with U+002D or "CIP‐003‐9" with U+2010).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import platform
import re
import sys
import time
from collections import Counter
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import pdfplumber
import pypdf
import pypdfium2 as pdfium
from pdfminer.high_level import extract_text as pdfminer_text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_spine import bench_options, replace_docs_block, store_missing  # noqa: E402

from tests.text.test_extract_pdf import FR, READ_OFF_THE_PAGE, _matches  # noqa: E402
from workbench.corpus.catalogue import read_catalogue  # noqa: E402
from workbench.text.normalize import normalized_text  # noqa: E402
from workbench.text.pdf import extract_pdf  # noqa: E402

STORE = ROOT / "corpus" / "real"
DASHES = {
    "\u002d": "HYPHEN-MINUS",
    "\u00ad": "SOFT HYPHEN",
    "\u2010": "HYPHEN",
    "\u2011": "NON-BREAKING HYPHEN",
    "\u2012": "FIGURE DASH",
    "\u2013": "EN DASH",
    "\u2014": "EM DASH",
    "\u2212": "MINUS SIGN",
}
FOLDED = "\u2010\u2011"  # what wb-normalize v2 folds to "-" (U+00AD it removes, as in v1)
COLUMN_ORDER = [  # page 2 of the NPRM, read off the page: column 1, its footnotes, columns 2, 3
    "Hatta International Airport in Jakarta, Indonesia, resulting in 189 fatalities.",
    "Preliminary KNKT.18.10.35.04 Aircraft Accident Investigation Report",
    "On March 10, 2019, a Boeing Model",
    "To address the unsafe condition, the FAA proposes to require four design changes:",
]


def _pypdf(data: bytes) -> list[str]:
    return [page.extract_text() or "" for page in pypdf.PdfReader(io.BytesIO(data)).pages]


def _pdfminer(data: bytes) -> list[str]:
    return pdfminer_text(io.BytesIO(data)).split("\f")


def _pdfplumber(data: bytes) -> list[str]:
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        return [page.extract_text() or "" for page in pdf.pages]


def _pdfium_raw(data: bytes) -> list[str]:
    document = pdfium.PdfDocument(data)
    try:
        return [document[i].get_textpage().get_text_range() for i in range(len(document))]
    finally:
        document.close()


def _ours(data: bytes) -> list[str]:
    return [extract_pdf(data, source="bench").text]


LIBRARIES: list[tuple[str, Callable[[bytes], list[str]]]] = [
    (f"pdf-text (pypdfium2 {version('pypdfium2')} + our layout)", _ours),
    (f"pypdfium2 {version('pypdfium2')} text, no layout", _pdfium_raw),
    (f"pypdf {version('pypdf')}", _pypdf),
    (f"pdfminer.six {version('pdfminer.six')}", _pdfminer),
    (f"pdfplumber {version('pdfplumber')}", _pdfplumber),
]


def _column_order(text: str) -> bool:
    normal = normalized_text(text)
    found = [normal.find(normalized_text(s)) for s in COLUMN_ORDER]
    return -1 not in found and found == sorted(found)


def bench_libraries(pdfs: dict[str, bytes], pages: int) -> dict[str, str]:
    print(f"1. speed and fidelity, {len(pdfs)} catalogued PDFs, {pages} pages, one run each;")
    print("   speed in pages per CPU second (process time: the machine is shared)")
    print(f"   fidelity: of {len(READ_OFF_THE_PAGE)} sentences read off the rendered pages, how")
    print("   many the text holds exactly once; column order: the NPRM's page 2 read in order\n")
    ours: dict[str, str] = {}
    baseline = 0.0
    for name, function in LIBRARIES:
        texts: dict[str, str] = {}
        start = time.process_time()
        for path, data in pdfs.items():
            texts[path] = "\n".join(function(data))
        seconds = time.process_time() - start
        if not baseline:
            baseline, ours = seconds, texts
        found = sum(len(_matches(s, texts[p])) == 1 for p, _, s in READ_OFF_THE_PAGE)
        columns = "in order" if _column_order(texts[FR]) else "out of order"
        print(
            f"   {name:<46} {pages / seconds:7.1f} pages/s ({seconds / baseline:5.2f}x time)  "
            f"sentences {found:2d}/{len(READ_OFF_THE_PAGE)}  columns {columns}"
        )
    return ours


def count_hyphens(texts: dict[str, str]) -> None:
    print("2. hyphens and dashes in the extracted text (pdf-text), all 42 PDFs")
    print(f"   {'character':<28}{'NERC':>8}{'line end':>10}{'other':>8}{'line end':>10}  folded")
    nerc = {p: t for p, t in texts.items() if p.startswith("us-nerc/")}
    other = {p: t for p, t in texts.items() if not p.startswith("us-nerc/")}
    for char, name in DASHES.items():
        row = []
        for group in (nerc, other):
            total = sum(t.count(char) for t in group.values())
            at_end = sum(t.count(char + "\n") for t in group.values())
            row += [total, at_end]
        fold = "to -" if char in FOLDED else "removed" if char == "\u00ad" else "no"
        print(
            f"   U+{ord(char):04X} {name:<21}{row[0]:>8}{row[1]:>10}{row[2]:>8}{row[3]:>10}  {fold}"
        )
    identifier = re.compile(r"CIP([-\u2010])\d{3}\1\d")
    by_standard: Counter[str] = Counter()
    for _path, text in sorted(nerc.items()):
        marks = {m.group(1) for m in identifier.finditer(text)}
        by_standard[
            "U+2010 only" if marks == {"\u2010"} else "U+002D only" if marks == {"-"} else "both"
        ] += 1
    print(
        "   NERC standards printing their CIP identifiers with: "
        + ", ".join(f"{k} {v}" for k, v in sorted(by_standard.items()))
    )


def report(run: Callable[[], dict[str, str]]) -> tuple[str, str]:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        print(f"python {sys.version.split()[0]}, {platform.machine()}, {os.cpu_count()} cores\n")
        texts = run()
    speed = buffer.getvalue()
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        count_hyphens(texts)
    return speed, buffer.getvalue()


def main() -> int:
    options = bench_options(__doc__, sys.argv[1:])
    if store_missing():
        return 2
    logging.disable(logging.WARNING)  # pypdf and pdfminer warn about fonts on every page
    rows = [r for r in read_catalogue(ROOT / "corpus") if r.media_type == "application/pdf"]
    pdfs = {r.path: (STORE / r.path).read_bytes() for r in rows}
    pages = sum(len(pypdf.PdfReader(io.BytesIO(d)).pages) for d in pdfs.values())
    speed, hyphens = report(lambda: bench_libraries(pdfs, pages))
    print(speed + "\n" + hyphens, end="")
    if options["--write-docs"]:
        replace_docs_block("bench:pdf", "python benchmarks/bench_pdf.py", speed)
        replace_docs_block("pdf:hyphens", "python benchmarks/bench_pdf.py", hyphens)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
