# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 05 · Grounded claims: grades, the out-of-process check, the ledger and the quotes register
#
# A note names its ground in its header; a grade is read off that header and the run ledger every
# time, never stored. The check runs in a separate process handed only the note and the document:
# checksum first, then every verbatim quote, by the verifier's exact search. A quote may instead
# link a source report: an ordinary link is checked against the report's retained extracts only,
# a link marked `(snapshot required)` against the report's exact snapshot, which fails closed when
# it is absent or altered.
#
# This notebook copies the example base (`notes/` and `notes/reports/`) to a temporary folder,
# writes the reports' snapshots there from the fetched corpus, and works on the copy, so the
# committed notes are never written. Public API only. Every setting is in the first code cell,
# tagged `parameters` (papermill's convention).

# %% tags=["parameters"]
ROOT = ""  # the repository root; "" = the nearest folder up from here holding corpus/catalogue.jsonl
SOURCE_NOTES = "notes"  # the notes folder to copy and check; a relative path is under ROOT
INTERACTIVE_CHARTS = False  # True: charts also get an interactive view (offline, ~0.9 MB each)

# %%
import os
import shutil
import tempfile
from pathlib import Path

import altair as alt
import polars as pl

import workbench as wb
from workbench.notes import Ledger, check_linked_quote, snapshot_path

ROOT = (Path(ROOT) if ROOT else next(
    p for p in (Path.cwd(), *Path.cwd().parents) if (p / "corpus" / "catalogue.jsonl").is_file()
)).resolve()
SOURCE_NOTES = (ROOT / SOURCE_NOTES).resolve()
CORPUS = ROOT / "corpus"
STORE = CORPUS / "real"
pl.Config(tbl_rows=40, fmt_str_lengths=70, tbl_width_chars=160)

# Work in a temporary folder so that every path printed below is short and the same on each run.
scratch = tempfile.TemporaryDirectory()
started_in = Path.cwd()
os.chdir(scratch.name)
NOTES = Path("notes")
shutil.copytree(SOURCE_NOTES, NOTES, ignore=shutil.ignore_patterns(".snapshots"))
REPORTS = sorted((NOTES / "reports").glob("*.ingest.md"))
for report in REPORTS:
    done = wb.write_snapshot(report, corpus_dir=CORPUS, store=STORE)
    print(f"{done.path}: written, sha256 {done.sha256}")
ledger = Ledger(Path("ledger.sqlite"))
print(f"{len(list(NOTES.glob('*.md')))} notes and {len(REPORTS)} source reports copied")

# %% [markdown]
# ## Grades before any check
#
# Read off each header: *top* is validated by a named person, *middle* carries a pointer, *floor*
# has none. The ledger is empty, so no pointer has a run behind it yet.

# %%
def grade_frame(census: object) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "note": g.note.name,
                "grade": g.grade,
                "pointer": (g.pointer or "").rsplit("/", 1)[-1],
                "backing run": g.backing_run,
                "why": "; ".join(g.why)[:70],
            }
            for g in census.grades
        ]
    ).sort("note")


before = wb.census(NOTES, corpus_dir=CORPUS, ledger=ledger)
grade_frame(before)

# %% [markdown]
# ## The check, one separate process per note
#
# `check_notes` parses every note (and every source report a note links) first, then checks each
# against its pointer or else its `document`. A confirmed run sets the pointer; any quote not
# found leaves the note at the floor and lists the gap.

# %%
reports = wb.check_notes(NOTES, corpus_dir=CORPUS, store=STORE, ledger=ledger)
for r in reports:
    found = sum(q["status"] == "found" for q in r.run.quotes)
    print(f"{r.note.name:<42} {r.run.outcome:<10} {found}/{len(r.run.quotes)} quotes found")

# %% [markdown]
# ## The census after the check

# %%
after = wb.census(NOTES, corpus_dir=CORPUS, ledger=ledger)
for line in after.lines():
    print(line)

# %% [markdown]
# ## The ledger, one row per quote
#
# Each run records every quote with its status; a quote linking a source report also records its
# route (`quotes` or `snapshot`) and the report. Pids and times are left out: they differ per run.

# %%
def ledger_frame(runs: object) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "run": run.run,
                "note": Path(run.note).name,
                "outcome": run.outcome,
                "line": q["line"],
                "route": q.get("route", "document"),
                "report": Path(q["report"]).name if "report" in q else "",
                "status": q["status"],
            }
            for run in runs
            for q in run.quotes
        ],
        schema={
            "run": pl.Int64,
            "note": pl.String,
            "outcome": pl.String,
            "line": pl.Int64,
            "route": pl.String,
            "report": pl.String,
            "status": pl.String,
        },
    ).sort("run", "line")


ledger_frame(ledger.runs())

# %% [markdown]
# ## Grades, before and after the check

# %%
grades = pl.concat(
    [
        grade_frame(before).select("grade").with_columns(pl.lit("before the check").alias("when")),
        grade_frame(after).select("grade").with_columns(pl.lit("after the check").alias("when")),
    ]
).group_by("when", "grade").len().sort("when", "grade")
for row in grades.iter_rows(named=True):
    print(f"{row['when']:<17} {row['grade']:<7} {row['len']}")

# %% tags=["nbval-ignore-output"]
wb.render_chart(
    alt.Chart(grades)
    .mark_bar()
    .encode(
        y=alt.Y("when:N", title=None, sort=["before the check", "after the check"]),
        x=alt.X("len:Q", title="notes"),
        color=alt.Color("grade:N", sort=["floor", "middle", "top"]),
        tooltip=["when", "grade", "len"],
    )
    .properties(width=420, title="Grades of the example notes"),
    interactive=INTERACTIVE_CHARTS,
)

# %% [markdown]
# ## The quotes register
#
# A report keeps verbatim extracts in one `## Quotes` section; validation checks the structure,
# the catalogue, the snapshot, and that every extract is in the snapshot's text.

# %%
for report in REPORTS:
    problems = wb.validate_report(report, corpus_dir=CORPUS)
    held = wb.parse_report(report)
    print(f"{report}: {len(problems)} problems, {len(held.extracts)} retained extracts")
dc_report = NOTES / "reports" / "dc-34-1432-2024-07-30.ingest.md"
pl.DataFrame(
    [
        {"line": e.line, "location": e.location, "extract": " ".join(e.text.split())[:90]}
        for e in wb.parse_report(dc_report).extracts
    ]
)

# %% [markdown]
# ### The ordinary route reads only the retained extracts
#
# The same words, checked on both routes: present in the snapshot, but an ordinary link passes
# only when a retained extract holds them.

# %%
for words in (
    "shall not apply to electricity sold to the District of Columbia government",
    "not less than 0.40% from solar energy",
):
    for required in (False, True):
        check = check_linked_quote(dc_report, words, None, snapshot_required=required)
        print(f"{check.route:<8} {check.status:<13} {words!r}")

# %% [markdown]
# ### The snapshot route fails closed
#
# Remove the http-problem-01 snapshot (an ignored local copy, absent on a fresh checkout) and check
# the note whose link says `(snapshot required)` again. The corpus file still holds the words; the
# check does not fall back to it.

# %%
http_report = NOTES / "reports" / "http-problem-01.ingest.md"
snapshot_path(http_report).unlink()
again = wb.check_note(
    NOTES / "http-problem-01-snapshot-route.md",
    against=None,
    corpus_dir=CORPUS,
    store=STORE,
    ledger=ledger,
)
print(f"outcome {again.run.outcome}; pointer {again.pointer_before} -> {again.pointer_after}")
for q in again.run.missing:
    print(f"  {q['route']} route of {q['report']}: {q['status']}")
for problem in wb.validate_report(http_report, corpus_dir=CORPUS):
    print(problem)

# %%
restored = wb.write_snapshot(http_report, corpus_dir=CORPUS, store=STORE)
third = wb.check_note(
    NOTES / "http-problem-01-snapshot-route.md",
    against=None,
    corpus_dir=CORPUS,
    store=STORE,
    ledger=ledger,
)
print(f"snapshot restored ({restored.sha256[:12]}): outcome {third.run.outcome}")
ledger_frame(ledger.runs("notes/http-problem-01-snapshot-route.md"))

# %%
ledger.close()
os.chdir(started_in)
scratch.cleanup()
