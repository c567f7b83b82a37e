# Two commands for a new machine (Python 3.11+ and make): `make measure` and `make test`.
# Everything is installed here: a pinned uv in .tools/, then the locked environment in .venv/.

PYTHON ?= python3
UV_VERSION := 0.13.9
UV := .tools/bin/uv
MIRROR ?= ../shared/corpus
# Use the local mirror when it exists; otherwise `corpus fetch` downloads from each row's mirror URL.
MIRROR_ARG := $(if $(wildcard $(MIRROR)),--mirror $(MIRROR),)
RUN := UV_PYTHON_DOWNLOADS=never $(UV) run --locked --all-extras --python $(PYTHON)
WB := $(RUN) workbench

CHROMIUM ?= /usr/bin/chromium
TESSERACT ?= /usr/bin/tesseract
SOFFICE ?= /usr/bin/soffice
TESSDATA := tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-fra tesseract-ocr-osd

.PHONY: lab measure eval test check check-tests fetch sync browser ocr libreoffice lint bench clean help

help:
	@echo "make measure  re-derive measurements/ from the real corpus (installs, fetches, ingests)"
	@echo "make test     install everything and run the whole test suite"
	@echo "make lab      your own copies of the notebooks in .workbench/notebooks/, opened in JupyterLab"
	@echo "make check    the inner loop: ruff, mypy and every test not marked slow"
	@echo "make eval     re-derive the eval scorecards (demonstration corpus, alignment against the documents' identifiers, amendments against the Council's markup)"
	@echo "make bench    run every benchmark and rewrite its figures in docs/benchmarks.md"
	@echo "make lint     ruff and mypy"

$(UV):
	$(PYTHON) -m venv .tools
	.tools/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

sync: $(UV)
	UV_PYTHON_DOWNLOADS=never $(UV) sync --locked --all-extras --python $(PYTHON) --quiet

fetch: sync
	$(WB) corpus fetch $(MIRROR_ARG)

# Headless Chromium (Debian's package; never a browser download) for the HTML and notebook tests.
browser:
	@if [ ! -x $(CHROMIUM) ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian's chromium for the browser tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "the browser tests need Chromium at $(CHROMIUM): run 'sudo apt-get install chromium'" >&2; exit 1; \
	  fi; \
	fi

# Debian's tesseract and its English, German, French and orientation data (never a download of
# models): the OCR extractor reads scanned PDF pages with it.
ocr:
	@if [ "$$($(TESSERACT) --list-langs 2>/dev/null | grep -cxE 'eng|deu|fra|osd')" != 4 ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian's tesseract-ocr for scanned pages"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      tesseract-ocr $(TESSDATA) >/dev/null; \
	  else \
	    echo "scanned pages need tesseract at $(TESSERACT): run 'sudo apt-get install tesseract-ocr $(TESSDATA)'" >&2; exit 1; \
	  fi; \
	fi

# Debian's LibreOffice Writer, headless (never a download of its own), and poppler's pdftoppm: the
# second implementation that accepts and rejects every tracked change of a Word redline, and the
# page of one that docs/diff.md shows. The whole libreoffice-writer, not -nogui: soffice builds
# Writer's comment windows even for a hidden document, and -nogui leaves out their .ui files
# (WRITER_UI, one of them), so soffice aborted where it built one.
WRITER_UI := /usr/lib/libreoffice/share/config/soffice.cfg/modules/swriter/ui/annotation.ui

libreoffice:
	@if [ ! -x $(SOFFICE) ] || [ ! -f $(WRITER_UI) ] || ! command -v pdftoppm >/dev/null; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian's libreoffice-writer for the Word redline tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      --no-install-recommends libreoffice-writer poppler-utils >/dev/null; \
	  else \
	    echo "the Word redline tests need LibreOffice Writer at $(SOFFICE): run 'sudo apt-get install libreoffice-writer poppler-utils'" >&2; exit 1; \
	  fi; \
	fi

measure: fetch ocr
	$(WB) measure
	$(MAKE) --no-print-directory eval

# JupyterLab on the researcher's own copies of the notebooks (the committed ones are templates).
lab: fetch
	$(WB) lab

# The eval scorecard on the demonstration corpus: the manifest is recomputed from the demo bytes by
# a script that does not import the workbench, then the workbench is scored against it.
# The alignment scorecard: a pairing truth is derived from the documents' own identifiers by a
# script that does not import the workbench either, then the real corpus's pairings are scored.
# The amendment scorecard: a truth of instructions is derived from the D.C. Council's codify:
# markup by a third script that does not import the workbench, and the laws' prose is scored.
# Each truth is kept with its key (the catalogue's SHA-256 and the scripts' own) in OUT.key: a run
# whose key holds derives nothing.
TRUTH := benchmarks/out/alignment-truth.json
AMENDMENT_TRUTH := benchmarks/out/amendment-truth.json

eval: fetch ocr
	$(RUN) python scripts/demo_manifest.py
	$(WB) ingest
	$(RUN) python scripts/alignment_truth.py --mirror corpus/real --out $(TRUTH)
	$(RUN) python scripts/amendment_truth.py --mirror corpus/real --out $(AMENDMENT_TRUTH)
	$(WB) eval --out measurements --truth $(TRUTH) --amendment-truth $(AMENDMENT_TRUTH)

# The tests run on WORKERS processes (pytest-xdist), each test module whole on one of them
# (--dist loadscope: a notebook's cells share one kernel, a module its fixtures); the whole-corpus
# fixtures are built once per run and shared (tests/conftest.py). They run with Python's bytecode
# cache on (PYTHONDONTWRITEBYTECODE dropped, as benchmarks/bench_startup.py does): otherwise every
# run, and every interpreter a test starts, compiles the package and its dependencies again.
# PYTEST_ARGS passes more options to pytest (benchmarks/bench_tests.py adds --durations).
WORKERS ?= 2
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(RUN) pytest -n $(WORKERS) --dist loadscope $(PYTEST_ARGS)

# The notebook runs: nbval re-runs each notebook and compares its outputs, sanitized (temporary
# paths, timestamps and timings masked; hashes never are).
NOTEBOOKS := --nbval --nbval-sanitize-with notebooks/nbval-sanitize.cfg

# Everything: whole-corpus tests (marked slow) and the notebook runs included.
test: fetch browser ocr libreoffice
	$(PYTEST) $(NOTEBOOKS)

# The inner loop: lint, types and every test not marked slow (no whole-corpus work, no notebook, no
# other program started for real work: docs/development.md says which tests are slow and why).
# `make -k check` runs the tests even when lint fails.
check: lint check-tests

# nbval is not loaded at all: every notebook cell is slow, and its import of jsonschema costs each
# worker seconds.
check-tests: sync browser ocr
	$(PYTEST) -m "not slow" -p no:nbval

lint: sync
	$(RUN) ruff check workbench tests benchmarks
	$(RUN) ruff format --check workbench tests benchmarks
	$(RUN) mypy

bench: fetch ocr
	for script in benchmarks/bench_*.py; do $(RUN) python $$script --write-docs || exit 1; done

clean:
	rm -rf .venv .tools .workbench corpus/real corpus/refused
