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
# # 04 · Citation checks: verified and refused, with reasons
#
# A citation says "these words stand at these offsets of this version". The verifier checks it by
# equality after the one shared normalization, never by similarity, and either verifies it or
# refuses it with a reason code and the text the source really holds there. Verification proves the
# words are at that place; it does not prove that a reading of them is right.
#
# This notebook builds citations from real D.C. Code Title 34 passages: honest ones, and the
# corruptions a careless tool or a hurried person produces; then it reads an amending law's
# instructions as claims about two releases and checks each the same way. Public API only. Every
# setting is in the first code cell, tagged `parameters` (papermill's convention).

# %% tags=["parameters"]
ROOT = ""  # the repository root; "" = the nearest folder up from here holding corpus/catalogue.jsonl
FAMILY = "dc-code-34-1432"  # the family whose versions are cited
LAW = "us-dc/dc-law-24-314/24-314.xml"  # the amending law whose instructions are checked
INTERACTIVE_CHARTS = False  # True: charts also get an interactive view (offline, ~0.9 MB each)
FR_ISSUE = "us-federal-register/fr-issue-2018-05-10/FR-2018-05-10-uslm.xml"  # footnotes and tables
ORDER = "us-ma/dpu-18-150-national-grid-base-rate-order/dpu-18-150_order_2019-09-30.pdf"  # PDF notes

# %%
import tempfile
from pathlib import Path

import altair as alt
import polars as pl

import workbench as wb

ROOT = Path(ROOT) if ROOT else next(
    p for p in (Path.cwd(), *Path.cwd().parents) if (p / "corpus" / "catalogue.jsonl").is_file()
)
pl.Config(tbl_rows=30, fmt_str_lengths=60, tbl_width_chars=150)
rows = [r for r in wb.read_catalogue(ROOT / "corpus") if r.family == FAMILY]
workspace_dir = tempfile.TemporaryDirectory()
held = wb.Workspace(Path(workspace_dir.name) / "workspace.sqlite")
wb.ingest(held, rows, ROOT / "corpus" / "real")
versions = held.versions(FAMILY)
print(f"family {FAMILY}: {len(versions)} versions held")

# %% [markdown]
# ## Citations, honest and corrupted
#
# From each version, the first passage opening with a sentence of at least eight words: the
# sentence quoted exactly; the same offsets with one digit changed in the quote (where it has a
# digit); the offsets shifted by one character; and an end offset past the end of the text.

# %%
citations: list[tuple[str, wb.Citation]] = []
for version in versions:
    for passage in wb.segment_version(version):
        sentence = passage.text.split(". ")[0]
        if len(sentence.split()) < 8 or "\n" in sentence:
            continue
        start = passage.char_start
        end = start + len(sentence)
        citations.append(("honest", wb.Citation(version_id=version.version_id, char_start=start, char_end=end, quoted_text=sentence)))
        digits = [i for i, ch in enumerate(sentence) if ch.isdigit()]
        if digits:
            i = digits[0]
            changed = sentence[:i] + str((int(sentence[i]) + 1) % 10) + sentence[i + 1 :]
            citations.append(("numeral changed", wb.Citation(version_id=version.version_id, char_start=start, char_end=end, quoted_text=changed)))
        citations.append(("offsets shifted", wb.Citation(version_id=version.version_id, char_start=start + 1, char_end=end + 1, quoted_text=sentence)))
        citations.append(("past the end", wb.Citation(version_id=version.version_id, char_start=start, char_end=len(version.text) + 5, quoted_text=sentence)))
        break
checks = wb.verify_citations(held, [c for _, c in citations])
frame = pl.DataFrame(
    [
        {
            "probe": kind,
            "version": c.version_id.rsplit("/", 1)[-1],
            "outcome": v.outcome,
            "reason": v.reason or "",
            "quoted": c.quoted_text[:50],
            "actually there": (v.actual_text or "")[:50],
        }
        for (kind, c), v in zip(citations, checks, strict=True)
    ]
)
frame

# %% [markdown]
# ## Outcomes by probe
#
# Every honest citation verifies; every corrupted one is refused, and for the right reason.

# %%
summary = frame.group_by("probe", "outcome", "reason").len().sort("probe", "outcome", "reason")
for row in summary.iter_rows(named=True):
    print(f"{row['probe']:<16} {row['outcome']:<9} {row['reason'] or '-':<14} {row['len']}")

# %% tags=["nbval-ignore-output"]
wb.render_chart(
    alt.Chart(summary)
    .mark_bar()
    .encode(
        y=alt.Y("probe:N"),
        x=alt.X("len:Q", title="citations"),
        color=alt.Color("reason:N"),
        tooltip=["probe", "outcome", "reason", "len"],
    )
    .properties(width=420, title="Verifier outcomes by probe"),
    interactive=INTERACTIVE_CHARTS,
)

# %% [markdown]
# ## A quote through the releases
#
# A quote can be dated: the releases of the family whose text holds it (exact search, after the
# one normalization), with its offsets and section in each. The quote here is found by code: the
# first sentence of the first release that at least two releases in a row hold and the latest
# release no longer holds. `quote_history` searches every release on its own; `cite_quote` makes
# the quote a citation of the first release, and `recheck_quotes` re-searches that citation in
# every later release: still present (where), gone, or now ambiguous. Offsets are never carried
# over from one release to the next; beside a gone quote, the passage the alignment paired with
# its old one is shown as a suggestion, never as evidence.

# %%
import re

folded = [" ".join(v.text.split()) for v in versions]
life_quote = next(
    s
    for s in (" ".join(part.split()) for part in re.split(r"(?<=[.;])\s+", versions[0].text))
    if 60 <= len(s) <= 300
    and [t.count(s) for t in folded][:2] == [1, 1]
    and folded[-1].count(s) == 0
)
life = wb.quote_history(held, life_quote, FAMILY)
print(f"quote: {life_quote[:100]}...")
for h in life.versions:
    where = ", ".join(f"[{o.char_start}, {o.char_end}) in {' > '.join(o.section_path)}" for o in h.occurrences)
    print(f"  {h.version_id.rsplit('@', 1)[-1]:<16} {'holds it at ' + where if h.holds else 'does not hold it'}")
print(f"first holding: {life.first_holding}")
print(f"last holding:  {life.last_holding}")
print(f"the latest release holds it: {life.latest_holds}")

# %%
cited = wb.cite_quote(held, life_quote, versions[0].version_id)
report = wb.recheck_quotes(held, citations=[("first release", cited.citation)])
for finding in report.findings:
    print(f"{finding.version_id.rsplit('@', 1)[-1]:<16} {finding.status}")
gone = report.findings[-1]
if gone.suggestion is not None:
    print(f"aligned passage in the newest release (is_evidence: {gone.suggestion.is_evidence}): {gone.suggestion.text[:90]}...")

# %% [markdown]
# ## A law's instructions, each checked against the releases around it
#
# An amending law says in its own words what it changes: "Paragraph (13) is amended by striking
# the phrase "2.85% from solar energy" and inserting the phrase "3.0% from solar energy" in its
# place." Each such sentence is a claim about two releases of its target, checked like a quote:
# the struck words must stand in the target unit of the latest release published before the law
# took effect, and the inserted words there in the first release published on or after it, both
# by exact search. `law_amendments` reads the law's prose (never the publisher's markup) into
# instructions, checks each, and says which change of that release pair each instruction made;
# `law_frame` sets every instruction beside the changes it made. Each instruction is itself an
# exact citation into the law (`char_start`, `char_end`).

# %%
store = ROOT / "corpus" / "real"
jurisdiction_rows = [r for r in wb.read_catalogue(ROOT / "corpus") if r.jurisdiction == LAW.split("/")[0]]
wb.ingest(held, jurisdiction_rows, store)
law = wb.law_amendments(held, LAW, jurisdiction_rows, store)
instructions = wb.law_frame(law, LAW, held)
instructions.select("law_section", "action", "target", "old_text", "new_text", "outcome", "change_kind", "change")

# %% [markdown]
# Every outcome, and the instructions that were not applied as their words say, with why. The
# law strikes "10.0% from solar energy" where the Code printed "10%": the claim fails on the
# release before (`target_missing`), and the change it made is still found, because the unit it
# names changed.

# %%
each = instructions.unique(subset=["char_start", "target"], keep="first", maintain_order=True)
for row in each.group_by("outcome").len().sort("outcome").iter_rows(named=True):
    print(f"{row['outcome']:<15} {row['len']}")
report = law.law(LAW)
for ins, check in zip(report.reading.instructions, report.checks, strict=True):
    if check.outcome not in ("applied", "created"):
        print(f"{ins.law_section} {ins.target.citation()}: {check.outcome}: {check.detail}")
        if check.reads_as_instructed_in:
            print(f"    reads as instructed in {check.reads_as_instructed_in[0].rsplit('/', 1)[-1]}")

# %% [markdown]
# ## Claims beyond quotes: an absence, a count, a model's citation
#
# "The first release never uses the word W": an absence claim is decided by the same exact search
# over a stated scope, and passes only with a positive control, a term the claim says is there and
# the search finds in every version searched. The words are picked here by code from the texts: a
# word the latest release holds and the first does not, and a control every release holds.

# %%
import json


def word_spans(text: str, word: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(rf"(?<![^\W_]){re.escape(word)}(?![^\W_])", text)]


first, last = versions[0], versions[-1]
candidates = list(dict.fromkeys(re.findall(r"[^\W\d_]{6,}", last.text)))
new_word = next(w for w in candidates if not word_spans(first.text, w))
control = next(w for w in candidates if all(word_spans(v.text, w) for v in versions))
for scope in (first.version_id, {"family": FAMILY}):
    verdict = wb.decide_claim(held, wb.Claim(quote=new_word, scope=scope, control=control))
    print(f"{verdict.outcome}{' ' + verdict.reason if verdict.reason else ''}: {verdict.detail}")
    for found in verdict.occurrences[:2]:
        print(f"  {found.version_id.rsplit('@', 1)[-1]} [{found.char_start}, {found.char_end}) {found.text!r}")

# %% [markdown]
# A count claim lists every occurrence's raw offsets, so any one can be re-checked. The word is
# one whose count changed between the first release and the latest; the count claimed is the
# first release's, counted here with a plain regular expression.

# %%
counted = next(w for w in candidates if len(word_spans(first.text, w)) != len(word_spans(last.text, w)) and word_spans(first.text, w))
claimed = len(word_spans(first.text, counted))
for version in (first, last):
    verdict = wb.decide_claim(held, wb.Claim(quote=counted, scope=version.version_id, count=claimed))
    print(f"{version.version_id.rsplit('@', 1)[-1]}: {verdict.outcome}{' ' + verdict.reason if verdict.reason else ''}: {verdict.detail}")

# %% [markdown]
# A Gemini citation gives UTF-8 *byte* offsets into the model's answer, and the chunk of source
# text it retrieved. The payload below is built in Gemini's documented shape: an answer with
# non-ASCII characters before the cited span, a support over that span, and a chunk holding a
# sentence of the latest release. Read as bytes the span is the segment text and the chunk's
# words verify in the release; read as characters the same offsets point elsewhere.

# %%
sentence = next(s for s in re.split(r"(?<=[.;])\s+", last.text) if 60 <= len(s) <= 200 and "\n" not in s)
answer = f"D’après le Code — « {sentence} »"
start = answer.encode("utf-8").index(sentence.encode("utf-8"))
gemini = {
    "candidates": [{
        "content": {"role": "model", "parts": [{"text": answer}]},
        "groundingMetadata": {
            "groundingChunks": [{"retrievedContext": {"title": FAMILY, "text": sentence}}],
            "groundingSupports": [{
                "segment": {"startIndex": start, "endIndex": start + len(sentence.encode("utf-8")), "text": sentence},
                "groundingChunkIndices": [0],
            }],
        },
    }]
}
print(f"the span starts at byte {start}, character {answer.index(sentence)}")
print(f"the same offsets read as characters: {answer[start : start + 30]!r}...")
lines = wb.read_citations(json.dumps(gemini).encode(), "auto", documents=(last.version_id,))
for v in wb.verify_lines(held, lines):
    print(f"{v.outcome}{' ' + v.reason if v.reason else ''}: {v.citation.version_id.rsplit('/', 1)[-1]} [{v.citation.char_start}, {v.citation.char_end}): {v.detail}")

# %% [markdown]
# ## What a verified quote does not prove
#
# A verified quote can still leave out a nearby "unless" or "except". The verifier flags such
# qualifiers next to the quote without changing the verdict.

# %%
flagged = [v for v in checks if v.verified and v.qualifiers]
print(f"verified citations with a qualifier nearby: {len(flagged)} of {sum(v.verified for v in checks)}")
for v in flagged[:3]:
    print(f"- {v.citation.version_id.rsplit('/', 1)[-1]}: {', '.join(q.word for q in v.qualifiers)}")

# %% [markdown]
# ## A footnote left out, and a table cell under its headers
#
# A clause can read as absolute while its footnote holds the exception. Here a Federal Register
# issue is held, its footnotes and tables read from its markup (`read_footnotes`, `read_tables`),
# and a sentence is quoted up to the marker of its first note: the quote verifies, with the caveat
# `footnote_unquoted` naming the note's offsets and words. Then a table cell is cited with its row
# and column headers (verified), with another column's header (refused, `header_mismatch`), and a
# cell spanning columns of different heads (refused, `cell_ambiguous`: its header is in doubt).
# Each is found by code, so the cells show what the document holds.

# %%
fr_rows = [r for r in wb.read_catalogue(ROOT / "corpus") if r.path == FR_ISSUE]
wb.ingest(held, fr_rows, store)
fr = held.version(FR_ISSUE)
fr_bytes = (store / FR_ISSUE).read_bytes()
notes = wb.read_footnotes(fr_bytes, source=FR_ISSUE, media_type=fr.media_type, text=fr.text)
tables = wb.read_tables(fr_bytes, source=FR_ISSUE, text=fr.text)
# The first note whose marker closes a sentence of at least 80 characters: that sentence is quoted.
opening = {n: fr.text.rindex(". ", 0, n.anchors[0][0]) + 2 for n in notes.footnotes if n.anchors}
note = next(n for n, at in opening.items() if n.anchors[0][0] - at >= 80)
marker, start = note.anchors[0][0], opening[note]
clause = wb.Citation(version_id=FR_ISSUE, char_start=start, char_end=marker, quoted_text=fr.text[start:marker])
verdict = wb.verify_citation(clause, fr.text, footnotes=notes)
print(f"quoted: {clause.quoted_text[:90]}...")
print(verdict.standing)
for caveat in verdict.caveats:
    print(caveat.line())

# %%
cells = [c for t in tables for c in t.cells]
values = [fr.text[c.char_start : c.char_end] for c in cells]
cell = next(c for c, v in zip(cells, values, strict=True) if c.doubt is None and c.row_header and values.count(v) == 1 and len(v) > 3)
other = next(c.column_header[-1] for c in cells if c.column_header and c.column_header[-1] != cell.column_header[-1])
merged = next(c for c in cells if c.doubt is not None and "spans" in c.doubt)


def cell_citation(c, row, column):
    return wb.Citation(version_id=FR_ISSUE, char_start=c.char_start, char_end=c.char_end, quoted_text=fr.text[c.char_start : c.char_end], row_header=row, column_header=column)


for label, citation in (
    ("its own headers", cell_citation(cell, cell.row_header[-1], cell.column_header[-1])),
    ("another column's header", cell_citation(cell, cell.row_header[-1], other)),
    ("a cell spanning heads", cell_citation(merged, "any", "any")),
):
    v = wb.verify_citation(citation, fr.text, tables=tables)
    print(f"{label:<24} {v.outcome:<9} {v.reason or '-':<16} {v.detail[:110]}")

# %% [markdown]
# ### A PDF's footnote, run on to the next page
#
# A PDF has no markup: its notes are read off its glyphs (`read_pdf_footnotes`: a raised, smaller
# number in the body links to the line at a page's foot that opens with the same number), and a
# note whose words run past its page's foot is joined to their continuation at the next page's
# foot. Here the Massachusetts D.P.U. rate order (602 pages) is held: ingest read its notes off the
# glyphs of the one extraction that gave its text and kept them (`held_parts`). The two lines before
# the marker of its first run-on note are quoted: the caveat names the note, its run-on span, and
# the qualifier words found in all of its words.

# %%
order_rows = [r for r in wb.read_catalogue(ROOT / "corpus") if r.path == ORDER]
wb.ingest(held, order_rows, store)
order = held.version(ORDER)
order_notes, _ = wb.held_parts(held, order)  # its notes and tables, kept by ingest
run_on = next(n for n in order_notes.footnotes if n.continued and n.anchors)
marker = run_on.anchors[0][0]
start = order.text.rindex("\n", 0, order.text.rindex("\n", 0, marker)) + 1  # two lines before
quote = wb.Citation(version_id=ORDER, char_start=start, char_end=marker, quoted_text=order.text[start:marker])
verdict = wb.verify_citation(quote, order.text, footnotes=order_notes)
joined = sum(bool(n.continued) for n in order_notes.footnotes)
print(f"{len(order_notes.footnotes)} notes read off the glyphs, {joined} run on across a page")
print(f"quoted: ...{quote.quoted_text[-80:]!r}")
print(verdict.standing)
for caveat in verdict.caveats:
    print(caveat.line())
held.close()
workspace_dir.cleanup()
