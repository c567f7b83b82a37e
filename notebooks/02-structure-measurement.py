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
# # 02 · The section-label proxy against the documents' own numbering
#
# The diff caps a pairing's alignment confidence at 0.5 when the two passages' section labels
# disagree. The label is a *proxy*: a passage's leading number. This notebook re-derives, from the
# fetched corpus, how often the proxy caps a pairing, why (a year, a page or gutter number, a real
# renumbering the structure confirms, a structure that cannot be read, or a cap the structure does not
# confirm), and what the escalation rate would be if the documents' own numbering decided instead.
#
# It calls the package's public API only and re-derives exactly what `make measure` writes to
# `measurements/`; the last cell checks the two agree byte for byte. Every setting is in the
# first code cell, tagged `parameters` (papermill's convention).

# %% tags=["parameters"]
ROOT = ""  # the repository root; "" = the nearest folder up from here holding corpus/catalogue.jsonl
WORKSPACE = ".workbench/workspace.sqlite"  # the one `make measure` fills; a relative path is under ROOT
FAMILY = "draft-ietf-appsawg-http-problem"  # the family shown pairing by pairing
INTERACTIVE_CHARTS = False  # True: charts also get an interactive view (offline, ~0.9 MB each)

# %%
import json
import tempfile
from pathlib import Path

import altair as alt
import polars as pl

import workbench as wb

ROOT = Path(ROOT) if ROOT else next(
    p for p in (Path.cwd(), *Path.cwd().parents) if (p / "corpus" / "catalogue.jsonl").is_file()
)
pl.Config(tbl_rows=20, fmt_str_lengths=70, tbl_width_chars=150)
WORKSPACE = (ROOT / WORKSPACE).resolve()  # an absolute WORKSPACE stays as it is
rows = wb.read_catalogue(ROOT / "corpus")
print(f"catalogue: {len(rows)} documents; corpus digest {wb.corpus_digest(rows)}")

# %% [markdown]
# ## Ingest and measure
#
# `measure_corpus` is what `workbench measure` runs, here on the workspace `WORKSPACE`: it ingests
# only the versions that workspace does not hold yet, maps `measure_family` (structure parse of
# each version, diff of each consecutive pair) over only the families whose key names no measurement
# it kept (so after `make measure` it measures nothing again), reduces the evidence rows
# (`reduce_families`) and writes the reports (here into a temporary folder, not `measurements/`).
# With `keep_results=True` it also returns every family's measurement and the reduce, which the
# cells below explore.

# %%
reports_dir = tempfile.TemporaryDirectory()
run = wb.measure_corpus(
    out=Path(reports_dir.name) / "measurements",
    workspace=WORKSPACE,
    corpus_dir=ROOT / "corpus",
    store=ROOT / "corpus" / "real",
    keep_results=True,
)
families, measurements = run.results, run.measurements
pairings = [p for f in families for p in f.pairings]
print(f"versions held: {run.documents}; families measured: {len(families)}; modified pairings: {len(pairings)}")

# %% [markdown]
# ## How each version's numbering was read
#
# XML versions are read from their `<num>` elements, RFC-style text from its column-0 headings, and
# line-numbered bills from their statute sections once the gutter numbers are set aside. A version
# whose numbering cannot be read is refused with a code, never guessed.

# %%
parses = pl.DataFrame(
    [{"jurisdiction": p.jurisdiction, "outcome": p.refusal or f"parsed ({p.method})"} for f in families for p in f.parses]
)
parses.group_by("jurisdiction", "outcome").len().sort("jurisdiction", "outcome")

# %% [markdown]
# ## Which families' numbering was read
#
# A family is *read* when its profile read at least one consistent label step (or its extractor's
# marks number every version), *read with inconsistencies* when it also read inconsistent ones, and
# *unread* when it read none. An unread family contributes nothing to "structure known": its
# pairings are unknown, for the cause `unread`, whatever paths the profile gave.

# %%
numbering = measurements.structure["numbering_read"]
print("overall: " + ", ".join(f"{name} {count}" for name, count in numbering["overall"].items()))
pl.DataFrame([{"jurisdiction": j, **counts} for j, counts in numbering["jurisdictions"].items()])

# %%
pl.DataFrame(
    [
        {
            "family": f"{f.jurisdiction}/{f.family}",
            "profile": f.profile["name"],
            "chosen": f.profile["chosen"],
            "reading": f.profile["reading"],
            "consistent": f.profile["consistent_steps"],
            "inconsistent": f.profile["inconsistent_steps"],
        }
        for f in families
        if f.profile["reading"] != "read"
    ]
).sort("reading", "family")

# %% [markdown]
# ## Why the proxy caps
#
# Each capped pairing gets one cause, in this order: `year_like`, `page_or_gutter`, `renumbered`,
# `structure_refused`, `structure_agrees`.

# %%
frame = pl.DataFrame(
    [
        {
            "jurisdiction": p.jurisdiction,
            "family": p.family,
            "change_id": p.evidence_id,
            "labels": f"{p.before_label} -> {p.after_label}",
            "proxy_capped": p.proxy_capped,
            "cause": p.cap_cause,
            "structure": p.structure_status,
            "proxy_cautioned": p.proxy_cautioned,
            "structure_cautioned": p.structure_cautioned,
        }
        for p in pairings
    ]
).sort("jurisdiction", "family", "change_id")
causes = (
    frame.filter(pl.col("proxy_capped"))
    .group_by("jurisdiction", "cause")
    .len()
    .sort("jurisdiction", "cause")
)
causes

# %% tags=["nbval-ignore-output"]
wb.render_chart(
    alt.Chart(causes)
    .mark_bar()
    .encode(
        y=alt.Y("jurisdiction:N"),
        x=alt.X("len:Q", stack="normalize", title="share of the proxy's caps", axis=alt.Axis(format="%")),
        color=alt.Color("cause:N"),
        tooltip=["jurisdiction", "cause", "len"],
    )
    .properties(width=520, title="Proxy caps by cause"),
    interactive=INTERACTIVE_CHARTS,
)

# %% [markdown]
# ## Escalation: pairings left cautioned
#
# The share of modified pairings whose confidence stays at or below the ceiling, under the proxy and
# under the structure rule (paths differ → cap; path unknown → the proxy's verdict stands). Shares
# come from `rate()`, which prints no percentage below 10 distinct pairings.

# %%
for name, block in [("overall", measurements.escalation["overall"]), *measurements.escalation["jurisdictions"].items()]:
    print(f"{name:<12} proxy {block['proxy']['rate']:<28} structure {block['structure']['rate']}")

# %% tags=["nbval-ignore-output"]
escalation = pl.DataFrame(
    [
        {"jurisdiction": j, "rule": rule, "cautioned": b[rule]["holds"], "pairings": b["modified_pairings"]}
        for j, b in measurements.escalation["jurisdictions"].items()
        for rule in ("proxy", "structure")
    ]
).with_columns((pl.col("cautioned") / pl.col("pairings")).alias("share"))
wb.render_chart(
    alt.Chart(escalation)
    .mark_bar()
    .encode(
        x=alt.X("jurisdiction:N"),
        xOffset="rule:N",
        y=alt.Y("share:Q", axis=alt.Axis(format="%"), title="modified pairings left cautioned"),
        color="rule:N",
        tooltip=["jurisdiction", "rule", "cautioned", "pairings"],
    )
    .properties(width=360, title="Escalation under the proxy and under the structure"),
    interactive=INTERACTIVE_CHARTS,
)

# %% [markdown]
# ## Should the structure decide?
#
# The code keeps the proxy unless the structure is known for at least 90% of the modified pairings
# in every jurisdiction. The decision, and what wiring the structure in would change:

# %%
wiring = measurements.escalation["wiring"]
print(wiring["decision"])
print("caps the structure would lift:", wiring["caps_the_structure_would_lift"])
print("caps the structure would add:", wiring["caps_the_structure_would_add"])
for jurisdiction, share in wiring["structure_known_share"].items():
    print(f"structure known in {jurisdiction}: {share} modified pairings")

# %% [markdown]
# ## One family, pairing by pairing
#
# The capped pairings of one family, with both labels, both structural paths and the cause.

# %%
pl.DataFrame(
    [
        {
            "after": p.after_id.rsplit("/", 1)[-1],
            "labels": f"{p.before_label} -> {p.after_label}",
            "paths": f"{'.'.join(p.before_path) if p.before_path else '-'} -> {'.'.join(p.after_path) if p.after_path else '-'}",
            "cause": p.cap_cause,
            "before passage": p.before_excerpt[:60],
        }
        for p in pairings
        if p.family == FAMILY and p.proxy_capped
    ]
).head(12)

# %% [markdown]
# ## The committed measurements are these
#
# The same reduce wrote `measurements/`; re-deriving it here must give the same JSON.

# %%
for name, report_dict in (
    ("corpus-digests.json", measurements.digests),
    ("structure-measurement.json", measurements.structure),
    ("escalation-rates.json", measurements.escalation),
):
    committed = json.loads((ROOT / "measurements" / name).read_bytes())
    print(f"{name}: matches the committed file: {committed == report_dict}")
reports_dir.cleanup()
