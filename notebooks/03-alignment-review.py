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
# # 03 · Alignment review
#
# The diff pairs each passage of a version with one of the next version. Where it is unsure, the
# pairing is *doubtful*: `wb.pairing_is_uncertain` flags a modified pairing whose alignment
# confidence is at or below `wb.RESTRUCTURE_CONFIDENCE_CEILING` (0.5), either because the two
# passages are no more than half alike or because their section labels disagree (then the
# confidence is capped). Here a reviewer answers each doubtful pairing in the widget below:
# **Confirmed** (one passage, edited), **Disputed** (not the same passage) or **Cannot tell**.
#
# Each answer is appended to the verdict log in the workspace: an append-only, hash-chained table
# whose rows quote the computed confidence as it stood (it is never overwritten). Caution stands on
# a pairing until it is confirmed or disputed (`wb.pairing_caution_stands`, the same predicate
# `workbench review list` uses); a change of mind is a new row that names the row it undoes.
#
# Every setting is in the first code cell, tagged `parameters` (papermill's convention: edit it, or
# run `papermill -p JURISDICTION us-tx ...`). Answers go to the project's workspace by default,
# the file `workbench review list` and `workbench review log` read, so they are kept; the cell
# below prints where. The test run points `WORKSPACE` at a temporary file (notebooks/conftest.py).

# %% tags=["parameters"]
ROOT = ""  # the repository root; "" = the nearest folder up from here holding corpus/catalogue.jsonl
JURISDICTION = "us-dc"  # whose doubtful pairings fill the queue
WORKSPACE = ".workbench/workspace.sqlite"  # versions and verdicts; a relative path is under ROOT
INTERACTIVE_CHARTS = False  # True: charts also get an interactive view (offline, ~0.9 MB each)
AUDIT_SEED = 1  # the seed of the confident audit's sample
AUDIT_N = 20  # confident pairings it draws per jurisdiction
AUDIT_RATE = 0.1  # the audit flags a jurisdiction whose bound is above this rate

# %%
from pathlib import Path

import altair as alt
import polars as pl

import workbench as wb

ROOT = Path(ROOT) if ROOT else next(
    p for p in (Path.cwd(), *Path.cwd().parents) if (p / "corpus" / "catalogue.jsonl").is_file()
)
WORKSPACE = (ROOT / WORKSPACE).resolve()  # an absolute WORKSPACE stays as it is
pl.Config(tbl_rows=40, fmt_str_lengths=40, tbl_width_chars=140)
print("workspace (versions and your verdicts are kept here):", WORKSPACE)
print(f"read the log from a shell: workbench review log --workspace {WORKSPACE}")
print("jurisdiction:", JURISDICTION)

# %% [markdown]
# ## Hold the versions
#
# The workspace is read with the corpus it remembers: the catalogue, the store and the numbering
# profiles `workbench measure` used on it, so the queue below is the one the measurement counted
# and the one `workbench review list` shows. A workspace made here remembers the project's corpus
# (`corpus/`, fetched into `corpus/real` by `make test` or `workbench corpus fetch`). The
# jurisdiction's catalogued versions are ingested; ingest is idempotent, so re-running this cell on
# a workspace that already holds them writes nothing.

# %%
workspace = wb.open_workspace(WORKSPACE, create=True, root=ROOT)
workspace.remember(workspace.settings, by="notebooks/03-alignment-review")
catalogue = wb.read_catalogue(workspace.settings.catalogue)
rows = [r for r in catalogue if r.jurisdiction == JURISDICTION]
report = wb.ingest(workspace, rows, workspace.settings.store)
assert not report.refused, [r.line() for r in report.refused]
print(
    f"{len(rows)} catalogued {JURISDICTION} versions; "
    f"held {len(report.added) + len(report.unchanged)}; awaiting an extractor {len(report.awaiting)}"
)

# %% [markdown]
# ## The queue
#
# The doubtful pairings between consecutive versions of every family, recomputed from the held
# versions (change ids are deterministic, so an answer given yesterday names the same pairing).

# %%
pairings = wb.doubtful_pairings(
    workspace, jurisdiction=JURISDICTION, profiles=workspace.profile_registry()
)
queue = wb.review_frame(pairings, wb.read_verdicts(workspace))
print(
    f"{queue.height} doubtful pairings in {queue['family'].n_unique()} families; "
    f"capped because the section labels disagree: {queue['capped'].sum()}; "
    f"caution stands on {queue['caution_stands'].sum()}"
)
queue.select(
    "family",
    "change_id",
    "before_label",
    "after_label",
    "similarity",
    "alignment_confidence",
    "capped",
).with_columns(pl.col("similarity", "alignment_confidence").round(3))

# %% tags=["nbval-ignore-output"]
wb.render_chart(
    alt.Chart(queue)
    .mark_bar()
    .encode(
        x=alt.X("count():Q", title="doubtful pairings"),
        y=alt.Y("family:N", title=None),
        color=alt.Color("capped:N", title="confidence capped"),
        tooltip=["family", "capped", "count()"],
    )
    .properties(title=f"Doubtful pairings per family, {JURISDICTION}", width=480),
    interactive=INTERACTIVE_CHARTS,
)

# %% [markdown]
# ## Review
#
# For each pairing: the two passages side by side, the changed characters highlighted; each side's
# section label (what the cap is computed from) and its structural path (the document's own
# numbering, or why it could not be read); the confidence and why it is doubtful; the answers
# already in the log. Type your name, optionally your reasoning, and press an answer.

# %% tags=["nbval-ignore-output"]
wb.ReviewWidget(workspace, pairings)

# %% [markdown]
# ## The log
#
# Re-run these cells after answering. `wb.verify_chain` re-derives every link and digest and names
# the first gap, broken link, altered row or unknown scheme; from a shell, `workbench review log`
# and `workbench review verify-chain --workspace PATH` say the same.

# %%
verdicts = wb.read_verdicts(workspace)
answered = wb.review_frame(pairings, verdicts)
print(
    f"{len(verdicts)} rows in the log; caution stands on {answered['caution_stands'].sum()} of {answered.height} pairings"
)
print(wb.verify_chain(workspace).line())

# %% [markdown]
# ## The confident audit
#
# The queue holds only what the diff doubts; every other pairing is taken as right and never
# shown. To say how often such a *confident* pairing is wrong, draw a seeded sample of them per
# jurisdiction (recorded in the verdict log with the seed and the population's digest; re-running
# this cell on the same versions returns the same sample), answer its items in the widget, then
# audit: per jurisdiction, an exact one-sided upper bound on the share that are wrong (cannot tell
# counts as wrong). The audit refuses, in one line, until every item is answered; see
# [docs/review.md](../docs/review.md#the-confident-audit). From a shell: `workbench review sample
# --confident` and `workbench review audit`.

# %%
sample = wb.sample_confident(
    workspace,
    n=AUDIT_N,
    seed=AUDIT_SEED,
    by=("jurisdiction",),
    profiles=workspace.profile_registry(),
    reuse=True,
)
print(
    f"{len(sample.items)} confident pairings drawn with seed {sample.seed} from "
    f"{sample.population_size}; population digest {sample.population_digest}"
)
for stratum in sample.strata:
    print(f"  {stratum.name}: {stratum.drawn} of {stratum.size}")

# %% tags=["nbval-ignore-output"]
sampled = wb.sample_pairings(
    sample, wb.confident_pairings(workspace, profiles=workspace.profile_registry())
)
wb.ReviewWidget(workspace, sampled, sample_id=sample.sample_id)

# %% [markdown]
# Re-run this cell after answering. The sample's id names a draw, so it differs from run to run.

# %% tags=["nbval-ignore-output"]
from workbench.changes.audit import audit_markdown
from workbench.errors import AuditError

try:
    print(
        audit_markdown(
            wb.audit_confident(workspace, rate=AUDIT_RATE, profiles=workspace.profile_registry())
        )
    )
except AuditError as refused:
    print(refused)
