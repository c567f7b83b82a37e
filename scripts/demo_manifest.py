"""Compute the demonstration corpus's manifest of deliberate edits from its bytes, without the workbench.

The demonstration corpus (`corpus/demo/`) is three versions of one regulatory-style document written
for the project, with known edits. This script is the oracle the eval scores the workbench against
(DESIGN.md C12), so it deliberately imports nothing from `workbench`: it reads the files as bytes,
decodes them strictly as UTF-8, and locates each deliberate edit by strings known to stand before
and after it. Every located string must occur exactly once, or the script stops.

Its own rules, stated here because the eval compares the workbench's answers with them:

* A paragraph is a maximal run of lines holding a non-white-space character; its span runs from
  the first such character of its first line to just past the last such character of its last line.
  (The demo is written so that every paragraph is one passage: no body line opens with a number.)
* The exact changed characters of a paragraph pair are found by trimming the longest common prefix
  and then the longest common suffix of the two raw paragraph texts; what is left on each side is
  the edit's span (empty on a side that only lost or gained text).
* Offsets are half-open `[start, end)` Python string indices (code points) into the decoded text.
* `caution` says whether a reader should be cautioned about that pairing: a restructure (a section
  renumbered, a paragraph split in two) should be, an edit of words inside one passage should not.
  A lone added or removed paragraph is not a pairing, so its caution is false.
* A paragraph split into consecutive paragraphs is one `split` change: its before side is the one
  paragraph, its after side runs from the first piece's start to the last one's end, and
  `after_spans` lists every piece in order (a merge is the mirror, with `before_spans`).

Usage: `python scripts/demo_manifest.py [DEMO_DIR]` writes `DEMO_DIR/manifest.json` (default
`corpus/demo`). The output is deterministic: same bytes in, same bytes out.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

FAMILY = "tariff-rule"
VERSIONS = ("tariff-rule/v1.txt", "tariff-rule/v2.txt", "tariff-rule/v3.txt")
BOILERPLATE = (
    "Nothing in this section relieves the utility or a customer of any\n"
    "   obligation under the Commission's rules."
)


class ManifestError(Exception):
    """A known string is missing or not unique in a demo file."""


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def paragraphs(text: str) -> list[tuple[int, int]]:
    """Spans of the paragraphs of `text`, in order (see the module docstring)."""
    spans: list[tuple[int, int]] = []
    start = end = -1
    at = 0
    for line in text.split("\n"):
        content = line.strip()
        if content:
            first = at + (len(line) - len(line.lstrip()))
            last = first + len(content)
            if start < 0:
                start = first
            end = last
        elif start >= 0:
            spans.append((start, end))
            start = -1
        at += len(line) + 1
    if start >= 0:
        spans.append((start, end))
    return spans


def locate(text: str, needle: str, where: str) -> int:
    """The one offset of `needle` in `text`; stops unless it occurs exactly once."""
    count = text.count(needle)
    if count != 1:
        raise ManifestError(f"{where}: {needle!r} occurs {count} times; expected exactly once")
    return text.index(needle)


def paragraph_at(text: str, offset: int, where: str) -> tuple[int, int]:
    for start, end in paragraphs(text):
        if start <= offset < end:
            return start, end
    raise ManifestError(f"{where}: offset {offset} lies in no paragraph")


def span(text: str, start: int, end: int) -> dict[str, Any]:
    return {"start": start, "end": end, "text": text[start:end]}


def trimmed(a: str, b: str) -> tuple[int, int, int, int]:
    """(a_start, a_end, b_start, b_end): the spans left after trimming the common prefix, then
    the common suffix (never overlapping the prefix)."""
    p = 0
    while p < len(a) and p < len(b) and a[p] == b[p]:
        p += 1
    s = 0
    while s < len(a) - p and s < len(b) - p and a[-1 - s] == b[-1 - s]:
        s += 1
    return p, len(a) - s, p, len(b) - s


class Demo:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.texts = {
            path: (root / path).read_bytes().decode("utf-8", errors="strict") for path in VERSIONS
        }

    def para(self, version: str, needle: str) -> tuple[int, int]:
        text = self.texts[version]
        return paragraph_at(text, locate(text, needle, version), version)

    def modified(
        self, before: str, after: str, needle_before: str, needle_after: str, caution: bool
    ) -> dict[str, Any]:
        a_text, b_text = self.texts[before], self.texts[after]
        a0, a1 = self.para(before, needle_before)
        b0, b1 = self.para(after, needle_after)
        s0, s1, t0, t1 = trimmed(a_text[a0:a1], b_text[b0:b1])
        return {
            "kind": "modified",
            "before": span(a_text, a0, a1),
            "after": span(b_text, b0, b1),
            "span_before": span(a_text, a0 + s0, a0 + s1),
            "span_after": span(b_text, b0 + t0, b0 + t1),
            "caution": caution,
        }

    def split(
        self, before: str, after: str, needle_before: str, needles_after: list[str], caution: bool
    ) -> dict[str, Any]:
        """One paragraph become several consecutive ones: one change, every piece listed in order;
        its after side runs from the first piece's start to the last one's end."""
        a_text, b_text = self.texts[before], self.texts[after]
        a0, a1 = self.para(before, needle_before)
        pieces = [self.para(after, needle) for needle in needles_after]
        return {
            "kind": "split",
            "before": span(a_text, a0, a1),
            "after": span(b_text, pieces[0][0], pieces[-1][1]),
            "span_before": None,
            "span_after": None,
            "before_spans": [],
            "after_spans": [span(b_text, p0, p1) for p0, p1 in pieces],
            "caution": caution,
        }

    def lone(self, kind: str, version: str, needle: str) -> dict[str, Any]:
        text = self.texts[version]
        p0, p1 = self.para(version, needle)
        side = span(text, p0, p1)
        return {
            "kind": kind,
            "before": side if kind == "removed" else None,
            "after": side if kind == "added" else None,
            "span_before": None,
            "span_after": None,
            "caution": False,
        }


def edits(demo: Demo) -> list[dict[str, Any]]:
    v1, v2, v3 = VERSIONS
    out: list[dict[str, Any]] = []

    def edit(
        edit_id: str,
        before: str,
        after: str,
        kind: str,
        description: str,
        why: str,
        changes: list[dict[str, Any]],
    ) -> None:
        out.append(
            {
                "id": edit_id,
                "before_version": before,
                "after_version": after,
                "kind": kind,
                "description": description,
                "caution_why": why,
                "changes": changes,
            }
        )

    edit(
        "renumber-6-to-5.4",
        v1,
        v2,
        "renumbered",
        "section 6 (Cost Recovery) becomes subsection 5.4 of Engineering Review",
        "a restructure: the section now sits under another parent, so a reader must check the "
        "pairing",
        [demo.modified(v1, v2, "6.  Cost Recovery", "5.4.  Cost Recovery", True)],
    )
    ripple = ((7, 6, "Billing"), (8, 7, "Disputes"), (9, 8, "Records"), (10, 9, "Effective Date"))
    for old, new, title in ripple:
        edit(
            f"ripple-{old}-to-{new}",
            v1,
            v2,
            "renumbered",
            f"ripple of the renumbering: section {old} ({title}) becomes section {new}",
            "a restructure: the section's number changed, so a citation by number now points "
            "elsewhere",
            [demo.modified(v1, v2, f"{old}.  {title}", f"{new}.  {title}", True)],
        )
    edit(
        "cost-floor-numeral",
        v1,
        v2,
        "numeral_changed",
        "the cost floor for a study rises from $1,250 to $1,750",
        "an edit of words inside one passage: the pairing is certain, the change is the content",
        [
            demo.modified(
                v1, v2, "less than $1,250 per request", "less than $1,750 per request", False
            )
        ],
    )
    edit(
        "paragraph-added",
        v1,
        v2,
        "added",
        "section 3 gains a paragraph on acknowledging requests",
        "a lone new paragraph is not a pairing",
        [demo.lone("added", v2, "shall acknowledge each request in writing")],
    )
    edit(
        "qualifier-removed",
        v2,
        v3,
        "qualifier_removed",
        "section 4(b) loses its 'unless the customer has an unpaid balance' qualifier",
        "an edit of words inside one passage: the pairing is certain, the change is the content",
        [
            demo.modified(
                v2,
                v3,
                "unless the customer has an unpaid balance",
                "the \ufb01nal bill.\n",
                False,
            )
        ],
    )
    edit(
        "paragraph-removed",
        v2,
        v3,
        "removed",
        "section 7 (Disputes) loses its paragraph on an informal meeting",
        "a lone removed paragraph is not a pairing",
        [demo.lone("removed", v2, "shall meet within fifteen business days")],
    )
    edit(
        "paragraph-split",
        v2,
        v3,
        "split",
        "section 8 (Records): one paragraph becomes two, at the sentence on making records available",
        "a restructure: one passage became two, so a one-to-one pairing reads the moved sentence "
        "as deleted",
        [
            demo.split(
                v2,
                v3,
                "shall keep every request",
                ["shall keep every request", "shall make those records available"],
                True,
            )
        ],
    )
    return out


def non_edits(demo: Demo) -> list[dict[str, Any]]:
    """Places where the bytes differ between versions and the text a reader reads does not."""
    v1, v2, v3 = VERSIONS
    out = []
    for edit_id, before, after, needle, description in (
        (
            "soft-hyphen-dropped",
            v1,
            v2,
            "the charges a utility may recover",
            "section 1: the soft hyphen in 'inter\u00adconnection' is not printed in v2",
        ),
        (
            "ligature-expanded",
            v2,
            v3,
            "gure,\n   study and fee",
            "section 2(b): the ligature in '\ufb01gure' is typed as 'fi' in v3",
        ),
    ):
        a0, a1 = demo.para(before, needle)
        b0, b1 = demo.para(after, needle)
        out.append(
            {
                "id": edit_id,
                "before_version": before,
                "after_version": after,
                "description": description,
                "before": span(demo.texts[before], a0, a1),
                "after": span(demo.texts[after], b0, b1),
            }
        )
    return out


def quotes(demo: Demo) -> list[dict[str, Any]]:
    """Honest quotes a reader could type, with the span each stands at (for the verifier probes).

    `quoted_text` is what a reader types (no soft hyphen, no ligature, a split word joined); the
    span is where its words stand in the raw text.
    """
    out = []
    for version, raw, typed, note in (
        (
            VERSIONS[0],
            "no\n   less than $1,250 per request",
            "no less than $1,250 per request",
            "the cost floor as v1 states it",
        ),
        (
            VERSIONS[1],
            "no\n   less than $1,750 per request",
            "no less than $1,750 per request",
            "the cost floor as v2 states it",
        ),
        (
            VERSIONS[1],
            "the cost of up\u00adgrades shall be",
            "the cost of upgrades shall be",
            "spans a soft hyphen",
        ),
        (
            VERSIONS[0],
            "by \ufb01ling the standard application",
            "by filing the standard application",
            "spans a ligature",
        ),
        (
            VERSIONS[2],
            "reliability and regu-\n   lation of voltage",
            "reliability and regulation of voltage",
            "spans a line-break hyphen, read joined",
        ),
        (
            VERSIONS[1],
            "unless the customer has an unpaid balance for service",
            "unless the customer has an unpaid balance for service",
            "the qualifier v3 removes",
        ),
        (
            VERSIONS[2],
            "within thirty days after\n   the \ufb01nal bill.",
            "within thirty days after the final bill.",
            "the refund clause without its qualifier",
        ),
    ):
        text = demo.texts[version]
        start = locate(text, raw, version)
        out.append(
            {
                "version": version,
                "start": start,
                "end": start + len(raw),
                "text": raw,
                "quoted_text": typed,
                "note": note,
            }
        )
    return out


def boilerplate(demo: Demo) -> dict[str, Any]:
    occurrences = {}
    for version in VERSIONS:
        text = demo.texts[version]
        found = []
        at = text.find(BOILERPLATE)
        while at >= 0:
            found.append([at, at + len(BOILERPLATE)])
            at = text.find(BOILERPLATE, at + 1)
        if len(found) != 3:
            raise ManifestError(f"{version}: boilerplate occurs {len(found)} times; expected 3")
        occurrences[version] = found
    return {"text": BOILERPLATE, "occurrences": occurrences}


def manifest(root: Path) -> dict[str, Any]:
    demo = Demo(root)
    files = []
    for path in VERSIONS:
        data = (root / path).read_bytes()
        files.append({"path": path, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)})
    pairs = sorted([f["path"], f["sha256"]] for f in files)
    return {
        "corpus_digest": hashlib.sha256(canonical(pairs).encode("utf-8")).hexdigest(),
        "digest_rule": "sha256 of canonical JSON of sorted [path, sha256] pairs of the demo files",
        "computed_by": "scripts/demo_manifest.py (imports nothing from workbench)",
        "span_rule": "paragraphs are runs of non-blank lines; an edit's span is what is left of "
        "the two raw paragraph texts after trimming their common prefix, then their common suffix",
        "family": FAMILY,
        "files": files,
        "version_pairs": [[VERSIONS[0], VERSIONS[1]], [VERSIONS[1], VERSIONS[2]]],
        "edits": edits(demo),
        "non_edits": non_edits(demo),
        "boilerplate": boilerplate(demo),
        "quotes": quotes(demo),
    }


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path("corpus/demo")
    try:
        data = manifest(root)
    except (ManifestError, OSError, UnicodeDecodeError) as exc:
        print(f"demo_manifest: error: {exc}", file=sys.stderr)
        return 2
    out = root / "manifest.json"
    out.write_bytes((json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    print(f"wrote {out}: {len(data['edits'])} edits, digest {data['corpus_digest']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
