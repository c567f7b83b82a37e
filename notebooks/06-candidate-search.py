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
# # 06 · Candidate search: from a company's words to the clause, then the verifier
#
# A compliance team writes its obligations in its own words. Before anyone can cite the D.C. Code
# for one, they have to find where the Code says it. `find_candidates` suggests passages (rapidfuzz
# over normalized text); **a candidate is never evidence**. A person picks the clause, and only the
# verifier decides whether the quoted words stand at those offsets.
#
# This notebook builds its own workspace of the D.C. Code Title 34 sections from the fetched
# corpus (`WORKSPACE`, by default `.workbench/notebook-06.sqlite`), indexes it, searches for every
# obligation in `notebooks/data/dc-title-34-obligations.md`, verifies the clause a person picks,
# and measures how many obligations have no lexical path to their clause. Every setting is in the
# first code cell, tagged `parameters` (papermill's convention); the test run points `WORKSPACE`
# at a temporary file (notebooks/conftest.py).

# %% tags=["parameters"]
ROOT = ""  # the repository root; "" = the nearest folder up from here holding corpus/catalogue.jsonl
STORE = "corpus/real"  # the fetched corpus bytes; a relative path is under ROOT
WORKSPACE = ".workbench/notebook-06.sqlite"  # this notebook's workspace and index; under ROOT if relative
K = 10  # candidates asked for each obligation
INTERACTIVE_CHARTS = False  # True: charts also get an interactive view (offline, ~0.9 MB each)

# %%
from pathlib import Path

import altair as alt
import polars as pl

from workbench import Workspace, ingest, read_catalogue, render_chart
from workbench.cite import Citation, verify_for_version
from workbench.text.normalize import normalize
from workbench.search import SearchScope, build_index, find_candidates, index_status

ROOT = Path(ROOT) if ROOT else next(
    p for p in (Path.cwd(), *Path.cwd().parents) if (p / "corpus" / "catalogue.jsonl").is_file()
)
STORE = ROOT / STORE
WORKSPACE = (ROOT / WORKSPACE).resolve()  # an absolute WORKSPACE stays as it is
_ = pl.Config.set_tbl_rows(40)
print("workspace:", WORKSPACE)

# %% [markdown]
# ## The workspace: every held version of the D.C. Code sections
#
# Ingest is idempotent (identical bytes write nothing), so re-running the notebook reuses the file.
# The index records the normalizer scheme and the corpus digest it was built from; if either has
# moved since, it is stale and is rebuilt here.

# %%
rows = [r for r in read_catalogue(ROOT / "corpus") if r.jurisdiction == "us-dc"]
workspace = Workspace(WORKSPACE)
report = ingest(workspace, rows, STORE)
assert not report.refused, [r.line() for r in report.refused]
status = index_status(workspace)
if status.state != "fresh":
    status = build_index(workspace)
print(f"D.C. Code versions held: {workspace.count()} of {len(rows)} catalogued")
print(f"index: {status.state}, {status.texts} distinct passage texts, {status.passages} passages")

# %% [markdown]
# ## The obligations, in the company's words

# %%
table = [
    line
    for line in (ROOT / "notebooks" / "data" / "dc-title-34-obligations.md")
    .read_text(encoding="utf-8")
    .splitlines()
    if line.startswith("| O")
]
obligations = pl.DataFrame(
    [[cell.strip() for cell in line.strip("|").split(" | ")] for line in table],
    schema=["id", "section", "expected", "obligation", "clause"],
    orient="row",
)
print(f"obligations: {obligations.height}")
print(obligations.group_by("expected").len().sort("expected"))

# %% [markdown]
# ## Search: the top `K` candidates for each obligation (10 unless the parameter says otherwise)
#
# The clause is *found* when a candidate passage of the obligation's section contains the clause's
# words (after normalization); its rank is that candidate's place in the list.

# %%
scope = SearchScope(workspace=workspace, jurisdiction="us-dc")


def passage_text(candidate):
    return workspace.version(candidate.version_id).text[candidate.char_start : candidate.char_end]


def clause_rank(candidates, section, clause):
    wanted = normalize(clause).text
    for rank, candidate in enumerate(candidates, start=1):
        in_section = candidate.version_id.split("/")[1] == section
        if in_section and wanted in normalize(passage_text(candidate)).text:
            return rank, candidate
    return None, None


found_rows, picks = [], {}
for row in obligations.iter_rows(named=True):
    result = find_candidates(row["obligation"], scope, K)
    rank, pick = clause_rank(result.candidates, row["section"], row["clause"])
    assert result.path == "index" and all(not c.is_evidence for c in result.candidates)
    if pick is not None:
        picks[row["id"]] = pick
    top = result.candidates[0]
    found_rows.append(
        {
            "id": row["id"],
            "expected": row["expected"],
            "rank": rank,
            "top_section": top.version_id.split("/")[1],
            "top_score": round(top.score, 1),
            "clause_score": round(pick.score, 1) if pick else None,
        }
    )
found = pl.DataFrame(found_rows)
print(found)

# %% [markdown]
# ## A person picks; the verifier decides
#
# For each obligation whose clause was among the candidates, the person picks that candidate and
# quotes the clause at its offsets. The verifier re-reads the held text; a candidate's score plays
# no part.

# %%
outcomes = []
for row in obligations.iter_rows(named=True):
    pick = picks.get(row["id"])
    if pick is None:
        continue
    at = passage_text(pick).find(row["clause"])
    citation = Citation(
        version_id=pick.version_id,
        char_start=pick.char_start + at,
        char_end=pick.char_start + at + len(row["clause"]),
        quoted_text=row["clause"],
    )
    verdict = verify_for_version(workspace, citation)
    outcomes.append({"id": row["id"], "outcome": verdict.outcome, "reason": verdict.reason})
    print(f"{row['id']}: {verdict.outcome} {verdict.reason or ''} at {pick.version_id} [{citation.char_start}, {citation.char_end})")

# %% [markdown]
# A verdict of `refused` with `ambiguous_occurrence` would mean the words occur more than once in
# that version and the citation must name which occurrence; it is still not a similarity judgment.
#
# ## Obligations with no lexical path
#
# Where the company's words share nothing distinctive with the statute, string matching cannot
# bridge the gap: the clause is not among the top 10. Searching with the clause's own words (once a
# person has found them some other way) offers it as a substring candidate every time.

# %%
missing = found.filter(pl.col("rank").is_null())["id"].to_list()
for row in obligations.filter(pl.col("id").is_in(missing)).iter_rows(named=True):
    again = find_candidates(row["clause"], scope, K)
    rank, _ = clause_rank(again.candidates, row["section"], row["clause"])
    print(f"{row['id']}: by its own words the clause is candidate {rank}, match {again.candidates[rank - 1].match}")

# %%
labelled = obligations.join(found, on=["id", "expected"])
no_path = labelled.filter(pl.col("rank").is_null())
print(f"obligations: {labelled.height}")
print(f"clause among the top {K}: {labelled.height - no_path.height}")
print(f"no lexical path (clause not in the top {K}): {no_path.height}")
print(f"  of those labelled 'no lexical path' beforehand: {no_path.filter(pl.col('expected') == 'no lexical path').height} of {labelled.filter(pl.col('expected') == 'no lexical path').height}")
print(f"  labelled 'paraphrased' yet not found: {no_path.filter(pl.col('expected') == 'paraphrased')['id'].to_list()}")
print(f"found although labelled 'no lexical path': {labelled.filter((pl.col('expected') == 'no lexical path') & pl.col('rank').is_not_null())['id'].to_list()}")
print(f"picked clauses verified: {sum(o['outcome'] == 'verified' for o in outcomes)} of {len(outcomes)}")

# %% tags=["nbval-ignore-output"]
chart_data = found.with_columns(pl.col("rank").fill_null(K + 1).alias("rank shown"))
render_chart(
    alt.Chart(chart_data)
    .mark_bar()
    .encode(
        x=alt.X("id:N", sort=None, title="obligation"),
        y=alt.Y("rank shown:Q", title=f"rank of the clause ({K + 1} = not in the top {K})"),
        color=alt.Color("expected:N", title="labelled beforehand"),
    )
    .properties(width=520, height=220, title="Where the clause ranks among the candidates"),
    interactive=INTERACTIVE_CHARTS,
)

# %%
workspace.close()
