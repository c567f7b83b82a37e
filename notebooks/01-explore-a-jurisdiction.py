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
# # 01 · Explore a jurisdiction
#
# Point the workbench at corpus folders in mirror layout (`<jurisdiction>/<family>/<file>` with a
# `.provenance.json` beside each file) and look at what it admits, what it refuses and why, the
# families and versions of one jurisdiction, how its versions split into passages, and what changed
# between the versions of one family.
#
# Everything here calls the package's public API (`import workbench as wb`); the notebook only
# tabulates (polars) and draws (altair, rendered to SVG by `wb.render_chart`, so the charts show
# offline and in a code host's preview). Every setting is in the first code cell, tagged
# `parameters` (papermill's convention).
#
# The versions are held in a fresh workspace in a temporary folder, so a re-run starts clean and
# prints the same figures.

# %% tags=["parameters"]
ROOT = ""  # the repository root; "" = the nearest folder up from here holding corpus/catalogue.jsonl
CORPUS_FOLDERS = []  # folders in mirror layout to admit; [] = corpus/real and corpus/refused under ROOT
JURISDICTION = "us-dc"  # the jurisdiction to explore
FAMILY = "dc-code-34-1432"  # the family whose versions are diffed
INTERACTIVE_CHARTS = False  # True: charts also get an interactive view (offline, ~0.9 MB each)

# %%
import tempfile
from pathlib import Path

import altair as alt
import polars as pl

import workbench as wb

ROOT = Path(ROOT) if ROOT else next(
    p for p in (Path.cwd(), *Path.cwd().parents) if (p / "corpus" / "catalogue.jsonl").is_file()
)
FOLDERS = [ROOT / p for p in CORPUS_FOLDERS] or [ROOT / "corpus" / "real", ROOT / "corpus" / "refused"]
pl.Config(tbl_rows=30, fmt_str_lengths=60, tbl_width_chars=140)
print(
    "folders:",
    ", ".join(str(f.relative_to(ROOT)) if f.is_relative_to(ROOT) else str(f) for f in FOLDERS),
)
print("jurisdiction:", JURISDICTION, "| family:", FAMILY)

# %% [markdown]
# ## Admission: what is admitted, what is refused and why
#
# `wb.admit(folder)` checks every provenance record and every file's SHA-256 and size; a file whose
# provenance says it is not byte-faithful to the official filing is refused as a `transcription`.

# %%
admissions = {folder: wb.admit(folder) for folder in FOLDERS}
admitted = pl.DataFrame(
    [
        {
            "jurisdiction": row.jurisdiction,
            "family": row.family,
            "path": row.path,
            "media_type": row.media_type,
            "bytes": row.size,
            "folder": str(folder),
        }
        for folder, admission in admissions.items()
        for row in admission.rows
    ]
).sort("path")
refused = pl.DataFrame(
    [
        {"path": r.path, "reason": r.reason, "detail": r.detail}
        for admission in admissions.values()
        for r in admission.refusals
    ],
    schema={"path": pl.String, "reason": pl.String, "detail": pl.String},
).sort("path", "reason")
print(
    f"admitted {admitted.height} documents ({admitted['bytes'].sum()} bytes) in "
    f"{admitted['jurisdiction'].n_unique()} jurisdictions and "
    f"{admitted.select('jurisdiction', 'family').n_unique()} families; refused {refused.height}"
)
for reason, count in refused.group_by("reason").len().sort("reason").iter_rows():
    print(f"  refused as {reason}: {count}")

# %%
per_jurisdiction = (
    admitted.group_by("jurisdiction")
    .agg(
        documents=pl.len(),
        families=pl.col("family").n_unique(),
        megabytes=(pl.col("bytes").sum() / 1e6).round(2),
    )
    .sort("jurisdiction")
)
print(per_jurisdiction)

# %%
refused.select("path", "reason").head(25)

# %% tags=["nbval-ignore-output"]
wb.render_chart(
    alt.Chart(
        admitted.group_by("jurisdiction", "media_type").len().sort("jurisdiction", "media_type")
    )
    .mark_bar()
    .encode(
        x=alt.X("len:Q", title="documents"),
        y=alt.Y("jurisdiction:N", sort="-x", title=None),
        color=alt.Color("media_type:N", title="media type"),
        tooltip=["jurisdiction", "media_type", "len"],
    )
    .properties(title="Admitted documents per jurisdiction", width=520),
    interactive=INTERACTIVE_CHARTS,
)

# %% [markdown]
# ## The jurisdiction's families and versions
#
# Its admitted rows are held in a fresh workspace (`wb.ingest` extracts each artefact by a named,
# versioned extractor and checks every hash first). PDFs wait for their extractor and are counted.

# %%
workspace_dir = Path(tempfile.mkdtemp(prefix="wb-explore-"))
workspace = wb.Workspace(workspace_dir / "workspace.sqlite")
held, awaiting = [], []
for folder, admission in admissions.items():
    rows = [r for r in admission.rows if r.jurisdiction == JURISDICTION]
    report = wb.ingest(workspace, rows, folder)
    held += report.added + report.unchanged
    awaiting += report.awaiting
    assert not report.refused, [r.line() for r in report.refused]
print(f"workspace: {workspace.path}")
print(f"{JURISDICTION}: held {len(held)} versions; awaiting an extractor: {len(awaiting)}")

# %%
versions = pl.DataFrame(
    [
        {
            "family": v.family,
            "version_order": v.version_order,
            "file": Path(v.version_id).name,
            "extractor": f"{v.extractor} {v.extractor_version}",
            "characters": len(v.text),
        }
        for v in workspace.versions()
    ]
).sort("family", "version_order")
families = (
    versions.group_by("family")
    .agg(versions=pl.len(), first=pl.col("file").first(), last=pl.col("file").last())
    .sort("family")
)
print(f"{families.height} families, {versions.height} versions")
print(families)

# %% [markdown]
# ## Passage statistics
#
# `wb.segment_version` splits a version into passages with exact offsets (`text[start:end]` is
# the passage), read through its family's numbering profile: each passage has a kind (front
# matter, heading, body, furniture) and the label of the section it opens or lies in.

# %%
passages = pl.DataFrame(
    [
        {
            "family": v.family,
            "version_order": v.version_order,
            "file": Path(v.version_id).name,
            "characters": p.char_end - p.char_start,
            "labelled": p.section_label is not None,
        }
        for v in workspace.versions()
        for p in wb.segment_version(v)
    ]
)
per_version = (
    passages.group_by("family", "version_order", "file")
    .agg(
        passages=pl.len(),
        labelled=pl.col("labelled").sum(),
        median_characters=pl.col("characters").median(),
    )
    .sort("family", "version_order")
)
print(
    f"{passages.height} passages in {per_version.height} versions; "
    f"median {per_version['passages'].median():.0f} passages a version; "
    f"{passages['labelled'].sum()} passages ({passages['labelled'].mean():.1%}) open with a section label"
)
per_version.filter(pl.col("family") == FAMILY)

# %% tags=["nbval-ignore-output"]
wb.render_chart(
    alt.Chart(per_version)
    .mark_line(point=True)
    .encode(
        x=alt.X("version_order:O", title="version order"),
        y=alt.Y("passages:Q", title="passages"),
        color=alt.Color("family:N", title="family"),
        tooltip=["file", "passages", "labelled", "median_characters"],
    )
    .properties(title=f"Passages per version, {JURISDICTION}", width=520),
    interactive=INTERACTIVE_CHARTS,
)

# %% [markdown]
# ## One family's diff
#
# `wb.diff_versions(before, after)` pairs the passages of consecutive versions: unchanged, modified,
# added, removed. A modified pairing has a similarity and an alignment confidence, capped at
# `wb.RESTRUCTURE_CONFIDENCE_CEILING` where the two section labels disagree;
# `wb.pairing_is_uncertain` is the one predicate for doubt (notebook 03 reviews those pairings).

# %%
family_versions = workspace.versions(FAMILY)
changes = pl.DataFrame(
    [
        {
            "pair": f"{Path(before.version_id).name} → {Path(after.version_id).name}",
            "pair_order": before.version_order,
            "change_id": c.change_id,
            "kind": c.kind,
            "before_label": c.before_label,
            "after_label": c.after_label,
            "similarity": c.similarity,
            "alignment_confidence": c.alignment_confidence,
            "capped": c.capped,
            "doubtful": wb.pairing_is_uncertain(c),
        }
        for before, after in wb.consecutive_pairs(family_versions)
        for c in wb.diff_versions(before, after)
    ]
)
summary = (
    changes.group_by("pair_order", "pair")
    .agg(
        unchanged=(pl.col("kind") == "unchanged").sum(),
        modified=(pl.col("kind") == "modified").sum(),
        added=(pl.col("kind") == "added").sum(),
        removed=(pl.col("kind") == "removed").sum(),
        doubtful=pl.col("doubtful").sum(),
    )
    .sort("pair_order")
    .drop("pair_order")
)
print(f"{FAMILY}: {len(family_versions)} versions, {summary.height} consecutive pairs")
print(summary)

# %%
changes.filter(pl.col("doubtful")).select(
    "pair",
    "change_id",
    "before_label",
    "after_label",
    "similarity",
    "alignment_confidence",
    "capped",
).with_columns(pl.col("similarity", "alignment_confidence").round(3))

# %% tags=["nbval-ignore-output"]
wb.render_chart(
    alt.Chart(
        changes.filter(pl.col("kind") != "unchanged")
        .group_by("pair_order", "pair", "kind")
        .len()
        .sort("pair_order", "kind")
    )
    .mark_bar()
    .encode(
        x=alt.X("pair:N", sort=alt.SortField("pair_order"), title="version pair"),
        y=alt.Y("len:Q", title="changes"),
        color=alt.Color("kind:N", title="kind"),
        tooltip=["pair", "kind", "len"],
    )
    .properties(title=f"Changes between consecutive versions of {FAMILY}", width=520),
    interactive=INTERACTIVE_CHARTS,
)

# %%
workspace.close()
