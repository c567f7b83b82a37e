"""The whole code's reconciliation report (`workbench reconcile`, C19): shares per scope and title,
the amendment scorecard's own, and the instructions not applied, as a pure function of the
reconciliation and the corpus digest it names."""

from __future__ import annotations

import csv
import io
import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any, get_args

from workbench.amendments.enactment import Check, Outcome
from workbench.amendments.instructions import Instruction
from workbench.amendments.reconcile import ATTRIBUTION_KINDS
from workbench.amendments.tally import Tally, total
from workbench.amendments.whole_code import CodeReconciliation, title_of
from workbench.evals.amendments import reader_line, tally_shares
from workbench.evals.cards import write_card
from workbench.files import replace_file

REPORT_JSON = "reconciliation.json"
REPORT_MD = "reconciliation.md"
TITLES_CSV = "titles.csv"
NOT_APPLIED_CSV = "not-applied.csv"
OUTCOMES: tuple[str, ...] = get_args(Outcome)
APPLIED = frozenset({"applied", "created"})
# The title of an instruction whose target number no held Code title carries (a law's own section).
NO_HELD_TITLE = "(no held title)"
SCOPES = ("targeted", "every")
_SCOPE_NAMES = {"targeted": "sections a held law targets", "every": "every section"}
_NOT_APPLIED_COLUMNS: tuple[str, ...] = ("law", "law_section", "char_start", "char_end")
_NOT_APPLIED_COLUMNS += ("action", "target", "target_held", "title", "outcome", "before", "after")
_NOT_APPLIED_COLUMNS += ("detail",)
_NOT_APPLIED_COLUMNS += ("sentence",)


def _title_key(title: str) -> tuple[Any, ...]:
    return (title.startswith("("), [int(n) for n in re.findall(r"\d+", title)], title)


def _scope(
    rec: CodeReconciliation, families: list[str], unreflected_titles: Counter[str]
) -> dict[str, Any]:
    """The shares of the changes of `families`, overall and per title (a title listed where it
    has a change or an unreflected instruction), summed from their tallies."""
    by_title: dict[str, list[Tally]] = defaultdict(list)
    for family in families:
        if rec.tallies[family].changes:
            by_title[title_of(rec.sections.get(family))].append(rec.tallies[family])
    return {
        "overall": tally_shares(
            total(rec.tallies[f] for f in families), sum(unreflected_titles.values())
        ),
        "titles": {
            title: tally_shares(total(by_title[title]), unreflected_titles[title])
            for title in sorted(by_title.keys() | unreflected_titles.keys(), key=_title_key)
        },
    }


def reconciliation_report(rec: CodeReconciliation, *, corpus_digest: str) -> dict[str, Any]:
    """The report's one JSON object: shares per scope (`targeted`, `every`) and per title, outcomes
    per title, and every instruction neither `applied` nor `created` (docs/amendments.md)."""
    instructions = list(rec.instructions())
    held_numbers = frozenset(rec.sections.values())
    held_titles = frozenset(title_of(n) for n in held_numbers)
    titles = {}
    for ins, check in instructions:
        if check.family is not None and check.family in rec.sections:
            titles[ins.instruction_id] = title_of(rec.sections[check.family])
        elif ins.target.section is None or title_of(ins.target.section) in held_titles:
            titles[ins.instruction_id] = title_of(ins.target.section)
        else:  # a number no held title carries (a law's own section, say): no Code title
            titles[ins.instruction_id] = NO_HELD_TITLE
    unreflected = Counter(titles[i] for i in rec.not_reflected)
    families = list(rec.tallies)
    targeted = [family for family in families if family in rec.targeted]
    outcomes: dict[str, Counter[str]] = defaultdict(Counter)
    for ins, check in instructions:
        outcomes[titles[ins.instruction_id]][check.outcome] += 1
    overall: Counter[str] = Counter(check.outcome for _, check in instructions)
    not_applied = [
        reader_line(ins)
        | {
            "title": titles[ins.instruction_id],
            "outcome": check.outcome,
            "before": check.before.version_id if check.before else None,
            "after": check.after.version_id if check.after else None,
            "detail": check.detail,
            "target_held": _target_held(ins, check, held_numbers),
        }
        for ins, check in instructions
        if check.outcome not in APPLIED
    ]
    return {
        "corpus_digest": corpus_digest,
        "jurisdiction": rec.jurisdiction,
        "laws": len(rec.laws),
        "instructions": len(instructions),
        "unread": sum(len(law.reading.unread) for law in rec.laws),
        "sections": len(rec.sections),
        "targeted_sections": len(rec.targeted & rec.sections.keys()),
        "release_pairs": rec.pairs,
        "scopes": {
            "targeted": _scope(rec, targeted, unreflected),
            "every": _scope(rec, families, unreflected),
        },
        "outcomes": {
            "overall": {o: overall[o] for o in OUTCOMES},
            "titles": {
                title: {o: outcomes[title][o] for o in OUTCOMES}
                for title in sorted(outcomes, key=_title_key)
            },
        },
        "not_applied": not_applied,
    }


def _target_held(ins: Instruction, check: Check, held_numbers: frozenset[str]) -> bool:
    """Whether the instruction's target is a Code section the workspace holds (its check found
    the section's family, or its number is a held section's); an instruction whose target is not
    held cannot be applied here, whatever the law did."""
    if check.family is not None:
        return True
    return ins.target.document == "code" and ins.target.section in held_numbers


def _share(block: Mapping[str, Any], kind: str) -> str:
    return str(block[kind]["rate"])


def report_lines(report: Mapping[str, Any]) -> list[str]:
    """The command's summary: what was read, each scope's shares, the outcomes."""
    lines = [
        f"{report['laws']} laws, {report['instructions']} instructions ({report['unread']} "
        f"unread); {report['sections']} sections ({report['targeted_sections']} targeted), "
        f"{report['release_pairs']} release pairs"
    ]
    for scope in SCOPES:
        block = report["scopes"][scope]["overall"]
        shares = "; ".join(f"{kind} {_share(block, kind)}" for kind in ATTRIBUTION_KINDS)
        lines.append(f"{_SCOPE_NAMES[scope]}: {block['changes']} changes: {shares}")
    outcomes = report["outcomes"]["overall"]
    lines.append("instructions: " + ", ".join(f"{o} {outcomes[o]}" for o in OUTCOMES))
    rows = report["not_applied"]
    not_held = sum(not r["target_held"] for r in rows)
    lines.append(
        f"instructions neither applied nor created: {len(rows) - not_held} of those whose target "
        f"is held; {not_held} more whose target is not held (not counted against the reader)"
    )
    return lines


def report_markdown(report: Mapping[str, Any]) -> bytes:
    """The report as a Markdown page: the summary, a table per scope by title, the outcomes by
    title, and every instruction neither applied nor created."""
    out = ["# The Code reconciled with the laws", "", *report_lines(report), ""]
    kinds = " | ".join(ATTRIBUTION_KINDS)
    for scope in SCOPES:
        out += [f"## Changes by title: {_SCOPE_NAMES[scope]} (`{scope}`)", ""]
        out += [f"| title | changes | pairs | {kinds} | not reflected |", "|---" * 6 + "|---|"]
        rows = [("all", report["scopes"][scope]["overall"])]
        rows += list(report["scopes"][scope]["titles"].items())
        for title, block in rows:
            shares = " | ".join(_share(block, kind) for kind in ATTRIBUTION_KINDS)
            out.append(
                f"| {title} | {block['changes']} | {block['pairs']} | {shares} | "
                f"{block['not_reflected']} |"
            )
        out.append("")
    out += ["## Instruction outcomes by title", ""]
    out += ["| title | " + " | ".join(OUTCOMES) + " |", "|---" * (len(OUTCOMES) + 1) + "|"]
    outcome_rows = [("all", report["outcomes"]["overall"])]
    outcome_rows += list(report["outcomes"]["titles"].items())
    for title, counts in outcome_rows:
        out.append(f"| {title} | " + " | ".join(str(counts[o]) for o in OUTCOMES) + " |")
    out += ["", "## Instructions neither applied nor created", ""]
    out += ["| law | section [start, end) | action | target | outcome | releases | why |"]
    out += ["|---|---|---|---|---|---|---|"]
    for row in report["not_applied"]:
        pair = " -> ".join(v for v in (row["before"], row["after"]) if v)
        cells = (
            row["law"],
            f"{row['law_section']} [{row['char_start']}, {row['char_end']})",
            row["action"],
            row["target"],
            row["outcome"],
            pair,
            row["detail"],
        )
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    return ("\n".join(out) + "\n").encode("utf-8")


def _csv(header: tuple[str, ...], rows: list[tuple[Any, ...]]) -> bytes:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def write_reconciliation(out: Path, report: Mapping[str, Any]) -> tuple[str, ...]:
    """Write the report into `out` (created if missing): its JSON and Markdown, `titles.csv`
    (one row per scope and title: changes, each kind's count, outcomes) and `not-applied.csv`;
    a file whose bytes would not change is not rewritten. Returns the names written."""
    write_card(out, report, (REPORT_JSON, REPORT_MD), report_markdown(report))
    header = ("scope", "title", "changes", "pairs", *ATTRIBUTION_KINDS, "not_reflected")
    header += OUTCOMES
    rows: list[tuple[Any, ...]] = []
    empty = dict.fromkeys(OUTCOMES, 0)
    for scope in SCOPES:
        block = report["scopes"][scope]
        for title, shares in [("all", block["overall"]), *block["titles"].items()]:
            counts = (
                report["outcomes"]["overall"]
                if title == "all"
                else report["outcomes"]["titles"].get(title, empty)
            )
            rows.append(
                (
                    scope,
                    title,
                    shares["changes"],
                    shares["pairs"],
                    *(shares[kind]["holds"] for kind in ATTRIBUTION_KINDS),
                    shares["not_reflected"],
                    *(counts[o] for o in OUTCOMES),
                )
            )
    tables = {
        TITLES_CSV: _csv(header, rows),
        NOT_APPLIED_CSV: _csv(
            _NOT_APPLIED_COLUMNS,
            [tuple(r[c] for c in _NOT_APPLIED_COLUMNS) for r in report["not_applied"]],
        ),
    }
    for name, data in tables.items():
        path = out / name
        if not path.is_file() or path.read_bytes() != data:
            replace_file(path, data)
    return (REPORT_JSON, REPORT_MD, *tables)
