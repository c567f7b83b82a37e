"""The reduce of the measurement (C12, C13): every family's rows, sorted, into reports headed by the
corpus digest, with no timestamps or floats, serialized one way so a re-run writes the same
bytes."""

from __future__ import annotations

import functools
import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from typing import Any, Protocol, TypeVar

from workbench.changes.diff import RESTRUCTURE_CONFIDENCE_CEILING
from workbench.measure.family import CAP_CAUSES, CAUTION_CAUSES, FamilyMeasurement
from workbench.measure.summary import (
    EXAMPLES_PER_CAUSE,
    KNOWN_TARGET,
    MIN_SUBJECTS,
    add_counts,
    caution_block,
    caution_counts,
    counts_of,
    escalation_block,
    family_summary,
    numbering_report,
    pairing_counts,
    passage_block,
    rate_text,
    share,
    structure_block,
    summary_counts,
    text_block,
    text_counts,
)
from workbench.models import CatalogueRow, Refusal, content_id
from workbench.workspace.catalogue import Listed

DIGESTS_NAME = "corpus-digests.json"
STRUCTURE_NAME = "structure-measurement.json"
ESCALATION_NAME = "escalation-rates.json"


# ---------------------------------------------------------------------------------------------
# rate(): shares only over enough distinct subjects


class Evidence(Protocol):
    @property
    def evidence_id(self) -> str: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Rate:
    """A share of distinct subjects; `text` is "n = X subjects; no rate" below `MIN_SUBJECTS`."""

    holds: int
    subjects: int
    text: str

    def as_json(self) -> dict[str, Any]:
        return {"holds": self.holds, "subjects": self.subjects, "rate": self.text}


E = TypeVar("E", bound=Evidence)


def rate(rows: Iterable[E], holds: Callable[[E], bool]) -> Rate:
    """The share of distinct subjects for which `holds` is true.

    Subjects are counted from the rows' own `evidence_id`, never passed in: a row repeated counts
    once, and two rows with one id that disagree are an error (`summary.share`). Below
    `MIN_SUBJECTS` distinct subjects no percentage is printed at all. The percentage has two
    decimals, rounded half to even on the exact fraction (`summary.rate_text`).
    """
    count, subjects = share(rows, holds)
    return Rate(holds=count, subjects=subjects, text=rate_text(count, subjects))


# ---------------------------------------------------------------------------------------------
# The reduce: reports


def corpus_digest(rows: Iterable[CatalogueRow | Listed]) -> str:
    """SHA-256 over the canonical JSON of sorted [path, sha256] pairs."""
    pairs = sorted([row.path, row.sha256] for row in rows)
    return content_id(pairs)


def corpus_digests(
    rows: Iterable[CatalogueRow | Listed],
    refusals: Iterable[Refusal] = (),
    not_ingested: Iterable[Refusal] = (),
) -> dict[str, Any]:
    """The corpus-digests report: one digest, per-jurisdiction counts, per-document hashes, and
    every admitted document that was not ingested (`not_ingested`: no text from its bytes, by
    its extractor or by OCR, or bytes missing): listed, and never counted as measured."""
    rows = sorted(rows, key=lambda r: r.path)
    per: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"documents": 0, "bytes": 0, "families": set(), "media_types": Counter()}
    )
    for row in rows:
        entry = per[row.jurisdiction]
        entry["documents"] += 1
        entry["bytes"] += row.size
        entry["families"].add(row.family)
        entry["media_types"][row.media_type] += 1
    refused = Counter(r.reason for r in refusals)
    unread = sorted(not_ingested, key=lambda r: (r.path, r.reason))
    return {
        "corpus_digest": corpus_digest(rows),
        "digest_rule": "sha256 of canonical JSON of sorted [path, sha256] pairs of admitted documents",
        "documents": len(rows),
        "documents_measured": len(rows) - len({r.path for r in unread}),
        "documents_not_ingested": len({r.path for r in unread}),
        "not_ingested": [r.as_json() for r in unread],
        "bytes": sum(r.size for r in rows),
        "families": len({(r.jurisdiction, r.family) for r in rows}),
        "refused": dict(sorted(refused.items())),
        "refusals": [r.as_json() for r in sorted(refusals, key=lambda r: (r.path, r.reason))],
        "jurisdictions": {
            name: {
                "documents": e["documents"],
                "bytes": e["bytes"],
                "families": len(e["families"]),
                "media_types": dict(sorted(e["media_types"].items())),
            }
            for name, e in sorted(per.items())
        },
        "rows": Members(
            lambda: ({"path": r.path, "sha256": r.sha256, "bytes": r.size} for r in rows)
        ),
    }


class Section:
    """A report section whose members are made on demand, in order, each time it is read: the
    families of a corpus too large to hold (`index.SummaryIndex` makes them from its scan).
    `items()` gives (name, value) pairs, each value plain JSON (no section inside); two sections
    are equal when their pairs are."""

    __slots__ = ("_make",)

    def __init__(self, make: Callable[[], Iterable[tuple[str, Any]]]) -> None:
        self._make = make

    def items(self) -> Iterator[tuple[str, Any]]:
        return iter(self._make())

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self.items())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Section | dict):
            return list(self.items()) == list(other.items())
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


class Members:
    """A report list whose members are made on demand, in order, each time it is read: the
    documents of a corpus, made from its catalogue rows as they are written rather than held
    as a dictionary each; each member plain JSON (no section inside). Equal to a list of the
    same members."""

    __slots__ = ("_make",)

    def __init__(self, make: Callable[[], Iterable[Any]]) -> None:
        self._make = make

    def __iter__(self) -> Iterator[Any]:
        return iter(self._make())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Members | list):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True, slots=True, kw_only=True)
class Measurements:
    """Every report `workbench measure` writes, as JSON-ready dicts; a corpus's per-family
    sections may be `Section`s, read from the summary index as they are written."""

    digests: dict[str, Any]
    structure: dict[str, Any]
    escalation: dict[str, Any]
    # Each family's row of the structure page's profile table (`profile_row`), made from one
    # read of its profile and passages rather than from two of the report's own sections.
    profile_table: Section | dict[str, Any]

    def held(self) -> Measurements:
        """These reports with every `Section` read into a dict (`held_sections`)."""
        return Measurements(
            digests=self.digests,
            structure=held_sections(self.structure),
            escalation=held_sections(self.escalation),
            profile_table=dict(self.profile_table.items()),
        )


def _name(summary: Mapping[str, Any]) -> str:
    return f"{summary['jurisdiction']}/{summary['family']}"


@dataclass(slots=True)
class _Totals:
    """What the reduce adds up over every family summary: the corpus's, each jurisdiction's and
    the overall counts, and the first examples of each cap cause."""

    pairings: dict[str, Any] = field(default_factory=dict)  # overall
    by_jurisdiction: dict[str, dict[str, Any]] = field(default_factory=dict)
    cautions: dict[str, Any] = field(default_factory=dict)
    cautions_by_jurisdiction: dict[str, dict[str, Any]] = field(default_factory=dict)
    passages: dict[str, dict[str, Any]] = field(default_factory=dict)
    reading: dict[str, Any] = field(default_factory=dict)  # overall
    reading_by_jurisdiction: dict[str, dict[str, Any]] = field(default_factory=dict)
    parses: dict[str, dict[str, Any]] = field(default_factory=dict)
    texts: dict[str, Any] = field(default_factory=dict)  # overall
    texts_by_jurisdiction: dict[str, dict[str, Any]] = field(default_factory=dict)
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


class Summaries(Protocol):
    """Family summaries in order: of each, its jurisdiction, family and the parts named (None:
    all); with `present` (a part), only those whose part holds something may be given (a
    family whose part is None or empty adds nothing where it is asked)."""

    def __call__(
        self, parts: Sequence[str] | None, *, present: str | None = None
    ) -> Iterable[Mapping[str, Any]]: ...


# The families' counts summed (`summary.summary_counts`): (jurisdiction, part, path, count).
Summed = Iterable[tuple[str, str, str, int]]


def summed_counts(summaries: Iterable[Mapping[str, Any]]) -> list[tuple[str, str, str, int]]:
    """The counts of `summaries` summed by (jurisdiction, part, path), in that order: what the
    summary index gives (`index.SummaryIndex.summed`) for the summaries it holds."""
    total: Counter[tuple[str, str, str]] = Counter()
    for summary in summaries:
        for part, path, count in summary_counts(summary):
            total[(summary["jurisdiction"], part, path)] += count
    return [(*scope, count) for scope, count in sorted(total.items())]


def _totals(summed: Summed, examples: Iterable[Mapping[str, Any]]) -> _Totals:
    """The totals from the summed counts: every jurisdiction's passages, reading and parses (each
    family adds them); its pairings, cautions and texts where a family added some; the overall
    counts the sum of the jurisdictions'. `examples`: each family's, in order."""
    by: dict[tuple[str, str], list[tuple[str, int]]] = defaultdict(list)
    for jurisdiction, part, path, count in summed:
        by[(jurisdiction, part)].append((path, count))
    names = sorted({jurisdiction for jurisdiction, part in by if part == "passages"})

    def scoped(part: str, *, every: bool) -> dict[str, dict[str, Any]]:
        return {
            j: counts_of(part, by.get((j, part), ())) for j in names if every or (j, part) in by
        }

    def overall(scopes: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        total: dict[str, Any] = {}
        for counts in scopes.values():
            add_counts(total, counts)
        return total

    totals = _Totals(
        by_jurisdiction=scoped("pairings", every=False),
        cautions_by_jurisdiction=scoped("cautions", every=False),
        passages=scoped("passages", every=True),
        reading_by_jurisdiction=scoped("reading", every=True),
        parses=scoped("parses", every=True),
        texts_by_jurisdiction=scoped("texts", every=False),
    )
    totals.pairings = overall(totals.by_jurisdiction)
    totals.cautions = overall(totals.cautions_by_jurisdiction)
    totals.reading = overall(totals.reading_by_jurisdiction)
    totals.texts = overall(totals.texts_by_jurisdiction)
    for summary in examples:
        for cause, found in summary["examples"].items():
            kept = totals.examples.setdefault(cause, [])
            kept.extend(found[: EXAMPLES_PER_CAUSE - len(kept)])
    return totals


def reduce_summaries(
    summaries: Summaries,
    rows: Iterable[CatalogueRow | Listed],
    refusals: Iterable[Refusal] = (),
    not_ingested: Iterable[Refusal] = (),
    *,
    by_name: Summaries | None = None,
    summed: Summed | None = None,
) -> Measurements:
    """Reduce family summaries (`summary.family_summary`) into the reports.

    `summaries(parts)` must give every family once, sorted by (jurisdiction, family), with at
    least the parts named (None: every part). The corpus's, each jurisdiction's and the overall
    counts are added up from `summed` (the families' counts summed, as the summary index keeps
    them: `index.SummaryIndex.summed`), or when None from one pass over every whole summary
    (`summed_counts`); the examples from a pass over the `examples` part. It is called again by
    each per-family section as it is written (`Section`), with only the parts that section
    shows. `by_name`
    gives them sorted by the name `jurisdiction/family` instead (the order of the structure and
    escalation reports' `families`; it differs where one jurisdiction's name opens another's);
    by default they are sorted here. Nothing depends on the order families were measured in.
    `rows` are the catalogue's (as `Listed`, what the reports read of each, or whole);
    `refusals` the admission's, `not_ingested` the admitted documents ingest refused.
    """
    rows = list(rows)
    digests = corpus_digests(rows, refusals, not_ingested)
    digest = digests["corpus_digest"]
    if summed is None:
        summed = summed_counts(summaries(None))
    totals = _totals(summed, summaries(("examples",), present="examples"))

    def named(parts: Sequence[str], *, present: str | None = None) -> Iterable[Mapping[str, Any]]:
        if by_name is not None:
            return by_name(parts, present=present)
        return sorted(summaries(parts, present=present), key=_name)

    def families(block: Callable[[Mapping[str, Any]], dict[str, Any]]) -> Section:
        return Section(
            lambda: (
                (_name(s), block(s["pairings"]))
                for s in named(("pairings",), present="pairings")
                if s["pairings"] is not None
            )
        )

    def every(member: Callable[[Mapping[str, Any]], Any], *parts: str) -> Section:
        return Section(lambda: ((_name(s), member(s)) for s in summaries(parts)))

    examples = {cause: totals.examples.get(cause, []) for cause in CAP_CAUSES}
    overall = structure_block(totals.pairings) if totals.pairings else _empty_structure()
    structure = {
        "corpus_digest": digest,
        "rules": {
            "proxy": "a passage's leading number (segment.leading_number); capped where the two labels differ",
            "profiles": "each family is read through the profile naming it (applies_to), else the one "
            "profiles.choose_profile finds reads the most consistent numbering",
            "structure_known": "both passages of a modified pairing carry a structural path and the "
            "family's numbering was read (numbering_read); pairings with front matter or furniture "
            "on either side are excluded and counted beside",
            "known_target": f"{KNOWN_TARGET:.2f}",
            "structure": "the document's own numbering (structure.parse_structure); capped where the two paths "
            "differ, and where either path is unknown the proxy's verdict stands",
            "cap_causes_in_order": list(CAP_CAUSES),
            "min_subjects_for_a_rate": MIN_SUBJECTS,
        },
        "numbering_read": numbering_report(totals.reading, totals.reading_by_jurisdiction),
        "versions_parsed": {j: dict(sorted(c.items())) for j, c in sorted(totals.parses.items())},
        "text_origins": _text_origin_report(totals),
        "profiles_used": every(_profile_used, "profile", "versions"),
        "passages": {
            "jurisdictions": {j: passage_block(c) for j, c in sorted(totals.passages.items())},
            "families": every(lambda s: passage_block(s["passages"]), "passages"),
        },
        "overall": overall,
        "jurisdictions": {j: structure_block(c) for j, c in sorted(totals.by_jurisdiction.items())},
        "families": families(structure_block),
        "examples": examples,
    }
    escalation = {
        "corpus_digest": digest,
        "rule": "share of modified pairings left cautioned (confidence at or below "
        f"{RESTRUCTURE_CONFIDENCE_CEILING}) under the proxy and under the structure rule",
        "overall": escalation_block(totals.pairings or _no_pairings()),
        "jurisdictions": {
            j: escalation_block(c) for j, c in sorted(totals.by_jurisdiction.items())
        },
        "families": families(escalation_block),
        "wiring": wiring_decision(totals.by_jurisdiction, totals.pairings or _no_pairings()),
        "caution": {
            "rule": "a pairing is cautioned when pairing_is_uncertain holds; causes in order: "
            + ", ".join(CAUTION_CAUSES)
            + "; a pairing of two machine readings (each side touches invisible or ocr text) is "
            "cautioned whatever its confidence and counted in pairings_machine_read",
            "overall": caution_block(totals.cautions or _no_cautions()),
            "jurisdictions": {
                j: caution_block(c) for j, c in sorted(totals.cautions_by_jurisdiction.items())
            },
        },
    }
    return Measurements(
        digests=digests,
        structure=structure,
        escalation=escalation,
        profile_table=every(profile_row, "profile", "passages"),
    )


def _text_origin_report(totals: _Totals) -> dict[str, Any]:
    return {
        "rule": "non-white-space characters of every measured version by the origin its extractor "
        "recorded (C18): glyphs the document draws, invisible (someone's OCR layer), ocr (the "
        "workbench's own OCR), unrecorded (a PDF held before origins were recorded); machine_read "
        "is invisible and ocr together; a version is mostly machine-read when they are more than "
        "half of its characters",
        "overall": text_block(totals.texts or _no_texts()),
        "jurisdictions": {
            j: text_block(c) for j, c in sorted(totals.texts_by_jurisdiction.items())
        },
    }


def induced_profile_file(jurisdiction: str, family: str) -> str:
    """Where, under the reports' folder, the TOML of a profile induced for a family is written."""
    return f"profiles/{jurisdiction}/{family}.toml"


def _profile_used(summary: Mapping[str, Any]) -> dict[str, Any]:
    """A family's profile that read it, how it was chosen, and its versions' count; an induced
    profile's TOML is named by the file it is written to, not repeated."""
    profile = summary["profile"]
    record: dict[str, Any] = {k: v for k, v in profile.items() if k != "toml"}
    if "toml" in profile:
        record["file"] = induced_profile_file(summary["jurisdiction"], summary["family"])
    return {**record, "versions": summary["versions"]}


def profile_row(summary: Mapping[str, Any]) -> list[Any]:
    """A family's profile (name, how it was chosen, its reading, origin and SHA-256) and the
    share of its passages carrying their own label, as `profiles_used` and `passages` give them."""
    profile = summary["profile"]
    own_label = rate_text(*summary["passages"]["own_label"])
    return [*(profile[k] for k in ("name", "chosen", "reading", "origin", "sha256")), own_label]


def _no_pairings() -> dict[str, Any]:
    return pairing_counts(())


def _no_cautions() -> dict[str, Any]:
    return caution_counts(())


def _no_texts() -> dict[str, Any]:
    return text_counts(())


def _empty_structure() -> dict[str, Any]:
    return structure_block(_no_pairings())


def reduce_families(
    families: Iterable[FamilyMeasurement],
    rows: Iterable[CatalogueRow | Listed],
    refusals: Iterable[Refusal] = (),
    not_ingested: Iterable[Refusal] = (),
) -> Measurements:
    """Reduce family measurements held in memory into the reports, every section a dict; the
    result does not depend on family order (`reduce_summaries` over their summaries)."""
    summaries = sorted(
        (family_summary(f) for f in families), key=lambda s: (s["jurisdiction"], s["family"])
    )
    m = reduce_summaries(lambda _parts, present=None: summaries, rows, refusals, not_ingested)
    return m.held()


def held_sections(report: Mapping[str, Any]) -> dict[str, Any]:
    """`report` with every `Section` read into a dict."""
    return {
        key: dict(value.items())
        if isinstance(value, Section)
        else held_sections(value)
        if isinstance(value, dict)
        else value
        for key, value in report.items()
    }


WIRING_MIN_KNOWN_SHARE = 0.9


def wiring_decision(
    by_jurisdiction: Mapping[str, Mapping[str, Any]], overall: Mapping[str, Any]
) -> dict[str, Any]:
    """What wiring the structure into `pairing_is_uncertain` would change, and whether to.

    Rule: wire it in only if the structure is known (parsed and covering) on both sides of at least
    `WIRING_MIN_KNOWN_SHARE` of the modified pairings outside front matter and furniture in every
    jurisdiction that has them; otherwise most decisions would still fall back to the proxy and
    the two rules would disagree mainly by omission. The workbench keeps the proxy unless this
    says "justified". `by_jurisdiction` and `overall` are pairing counts (`summary.pairing_counts`).
    """
    known = {j: c["known_rows"] for j, c in sorted(by_jurisdiction.items()) if c["known_rows"][1]}
    justified = bool(known) and all(
        holds >= WIRING_MIN_KNOWN_SHARE * rows for holds, rows in known.values()
    )
    causes = overall["cap_causes"]
    return {
        "structure_known_share": {j: f"{holds} of {rows}" for j, (holds, rows) in known.items()},
        "min_known_share": f"{WIRING_MIN_KNOWN_SHARE:.2f}",
        "caps_the_structure_would_lift": overall["caps_lifted"],
        "caps_the_structure_would_add": overall["caps_added"],
        "proxy_caps_by_cause": {cause: causes.get(cause, 0) for cause in CAP_CAUSES},
        "decision": "justified: the structure is known for enough pairings in every jurisdiction"
        if justified
        else "not justified: the workbench keeps the section-label proxy",
    }


def report_bytes(report: Mapping[str, Any]) -> bytes:
    """The bytes a report is written as: indented, keys in build order, UTF-8, one trailing newline."""
    return "".join(report_chunks(report)).encode("utf-8")


def report_chunks(report: Mapping[str, Any]) -> Iterator[str]:
    """`report_bytes` as text, piece by piece, reading each `Section` as it is written: the same
    characters `json.dumps(report, indent=2, ensure_ascii=False)` gives a report held whole."""
    # CAUTION: not sort_keys: the corpus digest stays at the head; every dict is built in a fixed order.
    yield from _json_chunks(report, 0)
    yield "\n"


def _json_chunks(value: Any, level: int) -> Iterator[str]:
    if not isinstance(value, Section | Members) and not _holds_section(value):
        # A value with no section inside: json's own text, each line indented to this level.
        yield _indented_json(value, "  " * level)
        return
    inner = "  " * (level + 1)
    first = True
    if isinstance(value, Members):  # its members are plain JSON values: json's own text each
        for member in value:
            yield ("[\n" if first else ",\n") + inner + _indented_json(member, inner)
            first = False
        yield "[]" if first else "\n" + "  " * level + "]"
        return
    of_section = isinstance(value, Section)  # so are a section's
    for key, member in value.items():
        yield ("{\n" if first else ",\n") + inner + json.dumps(key, ensure_ascii=False) + ": "
        if of_section:
            yield _indented_json(member, inner)
        else:
            yield from _json_chunks(member, level + 1)
        first = False
    yield "{}" if first else "\n" + "  " * level + "}"


def _indented_json(value: Any, indent: str) -> str:
    """`json.dumps(value, indent=2, ensure_ascii=False)`, each line after the first indented by
    `indent`. (With `indent`, json encodes in Python.) Here a list or dict with no list or dict
    inside, most of a report, is encoded by json's C encoder with its items separated by a newline
    and the indentation; only the containers around those are laid out in Python. Any other
    value (a tuple, a key not a string, a float) is json's own text, re-indented. The real
    corpus's reports, equal to `measurements/` (tests/measure/test_measure.py), and the awkward
    values of tests/measure/test_summary.py hold it to json's text."""
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if kind is int:
        return int.__repr__(value)
    if (kind is not dict and kind is not list) or (kind is dict and not _str_keys(value)):
        # A newline in a string is escaped by json, so every newline of its text starts a line.
        return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + indent)
    if not value:
        return "{}" if kind is dict else "[]"
    inner = indent + "  "
    members = value.values() if kind is dict else value
    if any(isinstance(m, _CONTAINERS) for m in members):
        if kind is dict:
            items = [
                f"{encode_basestring(k)}: {_indented_json(m, inner)}" for k, m in value.items()
            ]
        else:
            items = [_indented_json(m, inner) for m in value]
        text = f",\n{inner}".join(items)
    else:
        text = _flat_encoder(inner).encode(value)[1:-1]
    opening, closing = ("{", "}") if kind is dict else ("[", "]")
    return f"{opening}\n{inner}{text}\n{indent}{closing}"


_CONTAINERS = (dict, list, tuple)  # a tuple, not a union: isinstance takes it faster


def _str_keys(value: dict[Any, Any]) -> bool:
    return all(type(key) is str for key in value)


@functools.cache
def _flat_encoder(inner: str) -> json.JSONEncoder:
    """`json.dumps(ensure_ascii=False)`'s encoder, but with its items separated by a newline and
    `inner`: a plain list or dict's text at that indentation. Without `indent`, json encodes in
    C (its `c_make_encoder`)."""
    return json.JSONEncoder(ensure_ascii=False, separators=(",\n" + inner, ": "))


def _holds_section(value: Any) -> bool:
    return isinstance(value, dict) and any(
        isinstance(v, Section | Members) or _holds_section(v) for v in value.values()
    )
