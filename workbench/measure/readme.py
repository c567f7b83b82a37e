"""The headline `README.md` beside the measurement reports: figures quoted only from the JSON it
sits beside, each with the JSON field it came from, and the command that wrote them (`make
measure` for the project's corpus, whose committed reports a test re-derives; for any other
corpus the `workbench measure` command line that made them, handed in as `made_by`).
"""

from __future__ import annotations

from typing import Any

from workbench.measure.apparatus import apparatus_readme
from workbench.measure.family import CAP_CAUSES, CAUTION_CAUSES
from workbench.measure.reports import (
    DIGESTS_NAME,
    ESCALATION_NAME,
    STRUCTURE_NAME,
    Measurements,
)
from workbench.measure.summary import READING_FIELDS, TEXT_ORIGIN_FIELDS, reading_text

COMMAND = "make measure  (or: workbench measure)"  # the project's corpus: what its reports say


def _origins_readme(origins: dict[str, Any], caution: dict[str, Any]) -> list[str]:
    """The README's section on where the text came from (C18), and what it does to the diff of
    each jurisdiction that holds machine-read text."""
    field = f"[{STRUCTURE_NAME}: text_origins.jurisdictions"
    lines = [
        "## Where the text came from",
        "",
        "Each version's non-white-space characters by the origin its extractor recorded: `glyphs`",
        "the document draws, `invisible` (someone's OCR layer under a scan), `ocr` (the workbench's",
        "own OCR of a scan), `unrecorded` (a PDF held before origins were recorded); origins a",
        "jurisdiction has no character of are left out. Machine-read text (`invisible` and `ocr`) is",
        "a machine's reading, not the filing's own words.",
        "",
    ]
    for j, b in origins["jurisdictions"].items():
        held = [name for name in TEXT_ORIGIN_FIELDS if b[name]["holds"]]
        lines.append(
            f"- {j}: machine-read {b['machine_read']['rate']}; "
            + ", ".join(f"{name} {b[name]['rate']}" for name in held)
            + f" {field}.{j}.machine_read.rate, "
            + ", ".join(f"text_origins.jurisdictions.{j}.{n}.rate" for n in held)
            + "]"
        )
    lines.append("")
    for j, b in origins["jurisdictions"].items():
        pairings = caution.get(j, {}).get("pairings_machine_read")
        if not b["machine_read"]["holds"] or pairings is None:
            continue
        lines.append(
            f"- {j} holds machine-read text ({b['versions_mostly_machine_read']} of its "
            f"{b['versions']} versions mostly so), so its diffs compare machine readings: "
            f"pairings of two machine readings {pairings['rate']}, each cautioned whatever its "
            "confidence (cause `machine_read` where no other applies), one review item per version "
            f"pair {field}.{j}.versions_mostly_machine_read; {ESCALATION_NAME}: "
            f"caution.jurisdictions.{j}.pairings_machine_read.rate]"
        )
    return [*lines, ""] if lines[-1] else lines


def _numbering_readme(numbering: dict[str, Any]) -> list[str]:
    """The README's lines on how many families each jurisdiction's numbering was read for."""
    scopes = [("overall", "overall", numbering["overall"])]
    scopes += [(j, f"jurisdictions.{j}", b) for j, b in numbering["jurisdictions"].items()]
    return [
        f"- {scope}: {reading_text(b)} [{STRUCTURE_NAME}: "
        + ", ".join(f"numbering_read.{field}.{name}" for name in READING_FIELDS)
        + "]"
        for scope, field, b in scopes
    ] + [""]


def headline_readme(m: Measurements, made_by: str | None = None) -> bytes:
    """measurements/README.md: headline figures, each beside the JSON field it was read from;
    `made_by` is the command that made them (None: the project's, `COMMAND`)."""
    d, s, e = m.digests, m.structure, m.escalation
    o, eo, w = s["overall"], e["overall"], e["wiring"]
    lines = [
        "# Measurements",
        "",
        f"Written by `{made_by or COMMAND}` from the corpus with digest `{d['corpus_digest']}`. Every figure below is",
        "copied by the code from the JSON beside it (file and field in brackets); none is typed by hand.",
        *(
            ["A test re-derives these files and fails if any byte differs."]
            if made_by is None
            else []
        ),
        "",
        "## Corpus",
        "",
        f"- {d['documents']} admitted documents in {d['families']} families [{DIGESTS_NAME}: documents, families]",
        *(
            f"- refused as `{reason}`: {n} [{DIGESTS_NAME}: refused.{reason}]"
            for reason, n in d["refused"].items()
        ),
        f"- measured: {d['documents_measured']} of them; admitted but not ingested, so never "
        f"measured: {d['documents_not_ingested']} "
        f"[{DIGESTS_NAME}: documents_measured, documents_not_ingested]",
        *(
            f"  - `{r['path']}`: {r['reason']} ({r['detail']}) [{DIGESTS_NAME}: not_ingested]"
            for r in d["not_ingested"]
        ),
        "",
        *_origins_readme(s["text_origins"], e["caution"]["jurisdictions"]),
        *(apparatus_readme(s["apparatus"], STRUCTURE_NAME) if "apparatus" in s else ()),
        "## Section-label proxy against the structure",
        "",
        f"- modified pairings over every version pair: {o['modified_pairings']} [{STRUCTURE_NAME}: overall.modified_pairings]",
        f"- capped by the proxy: {o['proxy_caps']['rate']} [{STRUCTURE_NAME}: overall.proxy_caps.rate]",
        *(
            f"- caps caused by `{c}`: {o['cap_causes'][c]} [{STRUCTURE_NAME}: overall.cap_causes.{c}]"
            for c in CAP_CAUSES
        ),
        f"- structure contradicts labels that agree: {o['structure_contradicts_agreeing_labels']} "
        f"[{STRUCTURE_NAME}: overall.structure_contradicts_agreeing_labels]",
        f"- structure confirms labels that disagree: {o['structure_confirms_disagreeing_labels']} "
        f"[{STRUCTURE_NAME}: overall.structure_confirms_disagreeing_labels]",
        "",
        "## Structure known, through the numbering profiles",
        "",
        "Each family is read through one numbering profile (the one naming its jurisdiction, else the",
        "automatic choice); the profile's name, SHA-256 and how it was chosen are in",
        f"`{STRUCTURE_NAME}` under `profiles_used`. A family is read when its profile read a",
        "consistent label step (or its extractor's marks number it), read with inconsistencies when it",
        "also read inconsistent ones, and unread when it read none:",
        "",
        *_numbering_readme(s["numbering_read"]),
        "A modified pairing is known when both passages carry a structural path and the family's",
        "numbering was read; pairings with front matter or furniture on either side are excluded and",
        "counted beside; unknown pairings are counted by cause (`refused:<code>`, `uncovered`,",
        "`unread`).",
        "",
        *(
            f"- {j}: structure known for {b['structure_known']['rate']}, {b['excluded_front_matter_or_furniture']} "
            f"excluded [{STRUCTURE_NAME}: jurisdictions.{j}.structure_known.rate, "
            f"jurisdictions.{j}.excluded_front_matter_or_furniture]"
            for j, b in s["jurisdictions"].items()
        ),
        "",
        "Passages carrying their own label, and body passages carrying a structural path:",
        "",
        *(
            f"- {j}: own label {b['own_label']['rate']}, body with a path {b['body_with_path']['rate']} "
            f"[{STRUCTURE_NAME}: passages.jurisdictions.{j}.own_label.rate, "
            f"passages.jurisdictions.{j}.body_with_path.rate]"
            for j, b in s["passages"]["jurisdictions"].items()
        ),
        "",
        "## Escalation (modified pairings left cautioned)",
        "",
        f"- under the proxy: {eo['proxy']['rate']} [{ESCALATION_NAME}: overall.proxy.rate]",
        f"- under the structure rule: {eo['structure']['rate']} [{ESCALATION_NAME}: overall.structure.rate]",
        *(
            f"- {j}: proxy {b['proxy']['rate']}, structure {b['structure']['rate']} "
            f"[{ESCALATION_NAME}: jurisdictions.{j}.proxy.rate, jurisdictions.{j}.structure.rate]"
            for j, b in e["jurisdictions"].items()
        ),
        "",
        "## What the diff cautions, and why",
        "",
        "Every non-equal change as the diff pairs passages (by content: modified, moved, split,",
        "merged; the rest added or removed). A pairing is cautioned when `pairing_is_uncertain` holds;",
        f"each caution has one cause, in this order: {', '.join(f'`{c}`' for c in CAUTION_CAUSES)}.",
        "The review queue holds each restructure group once, the pairings of two machine readings",
        "once per version pair, and each lone doubtful pairing once; its size is given per non-equal",
        "change. Every other pairing is confident: no reviewer is asked about it, and its count is",
        "given per jurisdiction (a bound on how often one is wrong: `workbench review audit`).",
        "",
        f"- overall: {e['caution']['overall']['non_equal_changes']} non-equal changes; review queue "
        f"items per non-equal change {e['caution']['overall']['review_queue_items_per_non_equal_change']['rate']} "
        f"[{ESCALATION_NAME}: caution.overall.non_equal_changes, "
        "caution.overall.review_queue_items_per_non_equal_change.rate]",
        *(
            f"- {j}: {b['non_equal_changes']} non-equal changes; pairings cautioned "
            f"{b['pairings_cautioned']['rate']}; by cause "
            + ", ".join(f"{c} {b['cautioned_by_cause'][c]}" for c in CAUTION_CAUSES)
            + f"; pairings at most half alike {b['pairings_at_most_half_alike']['rate']}; review "
            f"queue items per non-equal change {b['review_queue_items_per_non_equal_change']['rate']}"
            f"; confident pairings no reviewer is asked about {b['confident_pairings_unexamined']}"
            + f" [{ESCALATION_NAME}: "
            + ", ".join(
                f"caution.jurisdictions.{j}.{field}"
                for field in (
                    "non_equal_changes",
                    "pairings_cautioned.rate",
                    *(f"cautioned_by_cause.{c}" for c in CAUTION_CAUSES),
                    "pairings_at_most_half_alike.rate",
                    "review_queue_items_per_non_equal_change.rate",
                    "confident_pairings_unexamined",
                )
            )
            + "]"
            for j, b in e["caution"]["jurisdictions"].items()
        ),
        "",
        "## Wiring the structure in",
        "",
        f"- {w['decision']} [{ESCALATION_NAME}: wiring.decision]",
        f"- caps the structure would lift: {w['caps_the_structure_would_lift']} [{ESCALATION_NAME}: wiring.caps_the_structure_would_lift]",
        f"- caps the structure would add: {w['caps_the_structure_would_add']} [{ESCALATION_NAME}: wiring.caps_the_structure_would_add]",
        *(
            f"- {j}: structure known for {share} modified pairings [{ESCALATION_NAME}: wiring.structure_known_share.{j}]"
            for j, share in w["structure_known_share"].items()
        ),
        "",
        "Charts and tables: `corpus-digests.html`, `structure-measurement.html`, `escalation-rates.html`",
        "(self-contained; open them offline).",
        "",
    ]
    return "\n".join(lines).encode("utf-8")
