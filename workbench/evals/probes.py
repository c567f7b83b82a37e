"""The corruption suite and the line-break hyphen census on held real text (C6, C17): citations
whose right outcome is known by construction, never by asking the verifier. Both are deterministic
for a given workspace and seed."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from itertools import islice
from typing import TYPE_CHECKING, Any

from workbench.cite.blocks import BlockMap, version_blocks
from workbench.cite.index import skeleton
from workbench.cite.verify import Citation, Verification
from workbench.models import MACHINE_READ, Version
from workbench.text.normalize import normalize, normalized_text
from workbench.text.segment import segment

if TYPE_CHECKING:
    from workbench.workspace import Workspace

_SUPERSCRIPTS = {
    "0": "⁰",
    "1": "¹",
    "2": "²",
    "3": "³",
    "4": "⁴",
    "5": "⁵",
    "6": "⁶",
    "7": "⁷",
    "8": "⁸",
    "9": "⁹",
}
_PLAIN = {v: k for k, v in _SUPERSCRIPTS.items()}
_EDGE = re.compile(r"[A-Za-z0-9.,;:()]")
_WORD = re.compile(r"[^\W_]+")
_MARKS = re.compile(r"\.\.\.|\. \. \.|…|[\[\]]")
_CONJUNCTIONS = frozenset({"and", "or", "nor", "to", "und", "oder", "bis"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Probe:
    kind: str
    citation: Citation
    # "verified" (plainly), a caveat kind it must be verified with, or the reason it must be
    # refused with: what `outcome` gives for the right verdict
    expected: str


def outcome(verification: Verification) -> str:
    """What a probe's verdict is compared with: the refusal's reason, else the caveat kinds
    (comma-joined, in order), else the outcome (`verified`, `resolved`)."""
    return (
        verification.reason
        or ",".join(c.kind for c in verification.caveats)
        or verification.outcome
    )


SHIFTS = (-2, -1, 1, 2)


def shifted_probes(
    cite: Callable[[int, int], Citation], text: str, start: int, end: int
) -> list[Probe]:
    """An honest quote of raw `[start, end)` cited with its offsets moved by each of `SHIFTS`
    (`cite(start, end)` makes the citation), where the moved slice differs from the quoted one:
    each must be refused as `quote_mismatch`."""
    return [
        Probe(
            kind=f"offsets shifted {shift:+d}",
            citation=cite(start + shift, end + shift),
            expected="quote_mismatch",
        )
        for shift in SHIFTS
        if text[start + shift : end + shift] != text[start:end]
    ]


def occurrence_probes(
    what: str, cite_at: Callable[..., Citation], k: int, count: int
) -> list[Probe]:
    """A quote that occurs `count` times, cited at occurrence `k + 1` (`cite_at(occurrence=n)`
    makes the citation): with no occurrence named (refused as ambiguous), the right one (verified), and
    the next one round (refused as the wrong occurrence). `what` opens each kind's name."""
    return [
        Probe(
            kind=f"{what}, no occurrence named",
            citation=cite_at(occurrence=None),
            expected="ambiguous_occurrence",
        ),
        Probe(
            kind=f"{what}, right occurrence named",
            citation=cite_at(occurrence=k + 1),
            expected="verified",
        ),
        Probe(
            kind=f"{what}, wrong occurrence named",
            citation=cite_at(occurrence=(k + 1) % count + 1),
            expected="wrong_occurrence",
        ),
    ]


def _quiet_edges(text: str, start: int, end: int) -> bool:
    """Two characters either side of both ends are plain printing characters (no white space, no
    folded character), so moving an end by one or two changes the compared text."""
    return (
        start >= 2
        and end + 2 <= len(text)
        and all(
            _EDGE.fullmatch(text[i])
            for i in (*range(start - 2, start + 2), *range(end - 2, end + 2))
        )
    )


def held_markers(
    workspace: Workspace, versions: Iterable[Version]
) -> dict[str, list[tuple[int, int]]]:
    """Each version's footnote markers as the workspace keeps them (`workspace.parts.held_footnotes`),
    raw spans by version id: what `corruption_probes` leaves out."""
    from workbench.workspace.parts import held_footnotes

    markers = {}
    for version in versions:
        reading = held_footnotes(workspace, version)
        markers[version.version_id] = [
            (m.char_start, m.char_end) for m in (reading.markers if reading else ())
        ]
    return markers


def corruption_probes(
    versions: Iterable[Version],
    seed: int = 3,
    per_version: int = 3,
    markers: Mapping[str, Sequence[tuple[int, int]]] | None = None,
) -> list[Probe]:
    """Probes of every kind from the held versions, `per_version` passages each where possible.

    `markers`: each version's footnote markers (raw spans, by version id). A probe whose span
    holds one is left out: its right outcome depends on whether the quote carries the note
    (`footnote_unquoted`), which the footnote tests check apart, not on how it was built."""
    rng = random.Random(seed)
    probes: list[Probe] = []
    for version in versions:
        first = len(probes)
        text, vid = version.text, version.version_id
        folded = normalize(text)
        skel = skeleton(folded.text)

        def cite(
            start: int,
            end: int,
            quote: str,
            occurrence: int | None = None,
            vid: str = vid,
            altered: bool = False,
        ) -> Citation:
            return Citation(
                version_id=vid,
                char_start=start,
                char_end=end,
                quoted_text=quote,
                occurrence=occurrence,
                alterations=altered,
            )

        passages = segment(vid, text)
        groups: dict[str, list[tuple[int, int]]] = {}
        for p in passages:
            key = normalized_text(p.text)
            if len(key) >= 30 and "-" not in key and "\u2010" not in key:
                groups.setdefault(key, []).append((p.char_start, p.char_end))
        repeated = [(k, v) for k, v in groups.items() if len(v) >= 2]
        for key, spans in rng.sample(repeated, min(per_version, len(repeated))):
            if skel.count(skeleton(key)) != len(spans):
                continue  # it also occurs inside other passages: the index is not known here
            k = rng.randrange(len(spans))
            start, end = spans[k]
            probes += occurrence_probes(
                "repeated", partial(cite, start, end, text[start:end]), k, len(spans)
            )
        unique = []
        singles = [v[0] for v in groups.values() if len(v) == 1]
        for p_start, p_end in rng.sample(singles, min(4 * per_version, len(singles))):
            starts = [
                i for i in range(p_start + 2, min(p_end, p_start + 40)) if _quiet_edges(text, i, i)
            ]
            ends = [
                j for j in range(max(p_start, p_end - 40), p_end - 2) if _quiet_edges(text, j, j)
            ]
            if starts and ends and ends[-1] - starts[0] >= 30:
                start, end = starts[0], ends[-1]
                if skel.count(skeleton(normalized_text(text[start:end]))) == 1:
                    unique.append((start, end))
        for start, end in unique[:per_version]:
            quote = text[start:end]
            probes.append(
                Probe(kind="honest quote", citation=cite(start, end, quote), expected="verified")
            )
            probes += [
                Probe(
                    kind=kind, citation=cite(start, end, altered, altered=True), expected=expected
                )
                for kind, altered, expected in altered_quotes(text, start, end)
            ]
            probes += shifted_probes(partial(cite, quote=quote), text, start, end)
            digits = [i for i, ch in enumerate(quote) if ch.isdigit() and ch.isascii()]
            if digits:
                i = rng.choice(digits)
                changed = (
                    quote[:i] + str((int(quote[i]) + 1 + rng.randrange(9)) % 10) + quote[i + 1 :]
                )
                probes.append(
                    Probe(
                        kind="one numeral changed",
                        citation=cite(start, end, changed),
                        expected="quote_mismatch",
                    )
                )
                sup = quote[:i] + _SUPERSCRIPTS[quote[i]] + quote[i + 1 :]
                probes.append(
                    Probe(
                        kind="plain digit quoted as superscript",
                        citation=cite(start, end, sup),
                        expected="quote_mismatch",
                    )
                )
        for match in re.finditer("[⁰¹²³⁴-⁹]", text):
            start, end = max(0, match.start() - 20), min(len(text), match.end() + 20)
            quote = text[start:end]
            plain = quote.replace(match.group(), _PLAIN[match.group()], 1)
            probes.append(
                Probe(
                    kind="superscript quoted as plain digit",
                    citation=cite(start, end, plain),
                    expected="quote_mismatch",
                )
            )
        for match in list(re.finditer("\u00ad", text))[:per_version]:
            start, end = match.start() - 12, match.end() + 12
            if start < 0 or end > len(text):
                continue
            quote = text[start:end].replace("\u00ad", "")
            if skel.count(skeleton(normalized_text(quote))) == 1:
                probes.append(
                    Probe(
                        kind="spans a soft hyphen",
                        citation=cite(start, end, quote),
                        expected="verified",
                    )
                )
        for h in folded.line_break_hyphens[:per_version]:
            before = folded.text.rfind(" ", 0, h)
            after = folded.text.find(" ", h + 2)
            if before < 0 or after < 0:
                continue
            start, end = folded.raw_span(before + 1, after)
            left, right = folded.text[before + 1 : h], folded.text[h + 2 : after]
            hyphen = folded.text[h]
            readings = {
                "joined": left + right,
                "hyphen kept": left + hyphen + right,
                "hyphen and space": left + hyphen + " " + right,
            }
            if not left or not right or skel.count(skeleton(left + right)) != 1:
                continue
            for name, quote in readings.items():
                probes.append(
                    Probe(
                        kind=f"line-break hyphen, {name}",
                        citation=cite(start, end, quote),
                        expected="verified",
                    )
                )
            probes.append(
                Probe(
                    kind="line-break hyphen, space only",
                    citation=cite(start, end, left + " " + right),
                    expected="quote_mismatch",
                )
            )
            probes.append(
                Probe(
                    kind="line-break hyphen, as U+0002",
                    citation=cite(start, end, left + "\u0002" + right),
                    expected="verified",
                )
            )
        probes += _not_probes(text, skel, cite, per_version)
        probes += _inline_hyphen_probes(text, skel, cite, per_version)
        held = (markers or {}).get(vid, ())
        probes[first:] = [
            replace(
                p,
                expected=read_as(version, p.citation.char_start, p.citation.char_end, p.expected),
            )
            for p in probes[first:]
            if not any(a < p.citation.char_end and p.citation.char_start < b for a, b in held)
        ]
    return probes


def read_as(version: Version, char_start: int, char_end: int, expected: str) -> str:
    """What a probe whose construction says `expected` gets once the span's origins are read:
    a verified span (`verified`, or `qualifier_omitted`) that touches machine-read text (C18:
    `invisible` or `ocr`, as the version's recorded origins say) carries `machine_read` first."""
    touched = version.origin.touched(char_start, char_end) if version.origin is not None else ()
    if expected not in ("verified", "qualifier_omitted") or MACHINE_READ.isdisjoint(touched):
        return expected
    return "machine_read" if expected == "verified" else f"machine_read,{expected}"


def _inline_hyphen_probes(
    text: str, skel: str, cite: Callable[..., Citation], per_version: int
) -> list[Probe]:
    """A hyphenated word inside a line (letters either side of the hyphen, two words after it,
    single spaces), the span's text held once, quoted with its hyphen written U+0002, as a PDF
    citation writes a hyphen that ends a line: refused, since the source has no line break there."""
    probes = []
    for match in re.finditer(r"(?<= )[A-Za-z]{2,}-[A-Za-z]{2,} [A-Za-z]+ [A-Za-z]+(?= )", text):
        if skel.count(skeleton(match.group())) != 1:
            continue
        probes.append(
            Probe(
                kind="in-line hyphen quoted as U+0002",
                citation=cite(match.start(), match.end(), match.group().replace("-", "\u0002", 1)),
                expected="quote_mismatch",
            )
        )
        if len(probes) == per_version:
            break
    return probes


_QUALIFIER_WORDS = frozenset(
    {"not", "no", "unless", "except", "notwithstanding", "provided", "subject"}
)


def _not_probes(
    text: str, skel: str, cite: Callable[..., Citation], per_version: int
) -> list[Probe]:
    """Omissions that swallow a `not`: two plain words either side of a lower-case `not` (words
    of letters only, single spaces between), the span's text held once, quoted as the outer two
    pairs with an ellipsis between; verified only with the caveat `qualifier_omitted`."""
    probes = []
    for match in re.finditer(r"(?<= )[a-z]+ [a-z]+ not [a-z]+ [a-z]+(?= )", text):
        words = match.group().split(" ")
        quote = f"{words[0]} {words[1]} … {words[3]} {words[4]}"
        if skel.count(skeleton(match.group())) != 1:
            continue
        probes.append(
            Probe(
                kind="altered, a not omitted",
                citation=cite(match.start(), match.end(), quote, altered=True),
                expected="qualifier_omitted",
            )
        )
        if len(probes) == per_version:
            break
    return probes


def altered_quotes(text: str, start: int, end: int) -> list[tuple[str, str, str]]:
    """(kind, altered quote, expected) for a span whose text the version holds once, built from
    its words alone: a middle omitted (when it holds no word a qualifier could start with) and a
    first letter bracketed (verified), its first and last
    words quoted in the reverse order between ellipses (`fragment_out_of_order`, when each occurs
    once in the span), a bracket put between its first two words (`bracket_over_nothing`), and
    the words just after the span quoted inside it (`fragment_not_found`, when the span does not
    hold them under any reading: checked on the skeleton, which can only over-find)."""
    words = normalized_text(text[start:end]).strip(" ").split(" ")
    if len(words) < 6 or _MARKS.search(" ".join(words)):
        return []  # the span's own text holds what would read as a mark
    head, tail = " ".join(words[:2]), " ".join(words[-2:])
    middle = {re.sub(r"[^\w]", "", w).lower() for w in words[2:-2]}
    out = (
        []
        if middle & _QUALIFIER_WORDS
        else [("altered, middle omitted", f"{head} … {tail}", "verified")]
    )
    out += [
        (
            "altered, bracket between two words",
            f"{words[0]} [such] {' '.join(words[1:])}",
            "bracket_over_nothing",
        ),
    ]
    first = words[0]
    if first[0].isalpha() and first[0].swapcase() != first[0]:
        out.append(
            (
                "altered, first letter bracketed",
                f"[{first[0].swapcase()}]{' '.join(words)[1:]}",
                "verified",
            )
        )
    body = " ".join(words)
    if body.count(head) == 1 and body.count(tail) == 1 and len(head) + len(tail) < len(body):
        out.append(
            ("altered, fragments out of order", f"… {tail} … {head} …", "fragment_out_of_order")
        )
    after = normalized_text(text[end : end + 40]).strip(" ").split(" ")[:3]
    outside = " ".join(after)
    if len(outside) >= 8 and not _MARKS.search(outside) and skeleton(outside) not in skeleton(body):
        out.append(
            (
                "altered, fragment from outside the span",
                f"{head} … {outside} … {tail}",
                "fragment_not_found",
            )
        )
    return out


def _whole_word(text: str, word: str) -> bool:
    """`word` occurs in `text` with no letter or digit either side."""
    return re.search(rf"(?<![^\W_]){re.escape(word)}(?![^\W_])", text) is not None


def hyphen_census(versions: Iterable[Version]) -> Counter[str]:
    """Line-break hyphens by the reading their own document supports.

    For each recorded point "left- right" (the word pieces either side): `line number between` if
    the piece after the break is a number followed by a word (a gutter line number sits between the
    halves, and no reading recovers the word); `suspended (hyphen and space)` if the next word is a
    conjunction (and, or, nor, to, und, oder, bis); otherwise by whether the joined word and the
    hyphenated compound occur unbroken elsewhere in the same document (case-insensitive, whole
    hyphen-chained words): `joined`, `hyphen kept`, `both occur`, or `no evidence`.
    """
    counts: Counter[str] = Counter()
    for version in versions:
        folded = normalize(version.text)
        text = folded.text
        lower = text.lower()
        for h in folded.line_break_hyphens:
            left_match = re.search(r"[^\W_]+$", text[max(0, h - 60) : h])
            right_match = _WORD.match(text, h + 2)
            if not left_match or not right_match:
                counts["no word either side"] += 1
                continue
            left, right = left_match.group().lower(), right_match.group().lower()
            if right.isdigit() and re.match(r" [^\W\d_]", text[right_match.end() :]):
                counts["line number between"] += 1
            elif right in _CONJUNCTIONS:
                counts["suspended (hyphen and space)"] += 1
            else:
                joined = _whole_word(lower, left + right)
                kept = _whole_word(lower, f"{left}-{right}") or _whole_word(
                    lower, f"{left}\u2010{right}"
                )
                counts[
                    "both occur"
                    if joined and kept
                    else "joined"
                    if joined
                    else "hyphen kept"
                    if kept
                    else "no evidence"
                ] += 1
    return counts


def _held_once(skel: str, raw: str) -> bool:
    """Whether raw text occurs once in the text whose skeleton is `skel` (on the skeleton, which
    can only over-count)."""
    return skel.count(skeleton(normalized_text(raw).strip(" "))) == 1


@dataclass(frozen=True, slots=True, kw_only=True)
class BlockProbe:
    """An Anthropic `content_block_location` citation (`record`, document index 0) into
    `document` (a blocks map, or a version id), and the outcome it must get (`outcome`)."""

    kind: str
    record: dict[str, Any]
    document: BlockMap | str
    expected: str


def block_probes(
    versions: Iterable[Version], per_version: int = 2, workspace: Workspace | None = None
) -> list[BlockProbe]:
    """Citations of each version's blocks (`cite.blocks.version_blocks`, the passages kept in
    the `workspace` that holds them when given), `per_version` block
    pairs each where the version has them (the first pairs whose block k, and whose two blocks
    together, the version holds once, on the skeleton): block k cited with its own text, and blocks k and
    k + 1 with the text from the one's start to the other's end (verified); block k with block
    k + 1's text where the two differ once normalized (`quote_mismatch`); a block past the last
    (`block_out_of_range`); the document given as its version id, and the map with block k's
    span moved by one and its hash left as written (`blocks_not_written`)."""
    probes: list[BlockProbe] = []
    for version in versions:
        blocks = version_blocks(version, workspace)
        spans, texts, written = blocks.map.spans, blocks.texts, blocks.map
        skel = skeleton(normalize(version.text).text)
        once = partial(_held_once, skel)
        pairs = list(
            islice(
                (
                    k
                    for k in range(len(spans) - 1)
                    if once(texts[k])
                    and once(version.text[spans[k][0] : spans[k + 1][1]])
                    and normalized_text(texts[k]) != normalized_text(texts[k + 1])
                ),
                per_version,
            )
        )

        def cited(quote: str, start: int, end: int) -> dict[str, Any]:
            return {
                "type": "content_block_location",
                "cited_text": quote,
                "document_index": 0,
                "start_block_index": start,
                "end_block_index": end,
            }

        for k in pairs:
            moved = tuple((s + (i == k), e) for i, (s, e) in enumerate(spans))
            probes += [
                BlockProbe(
                    kind="block, its own text",
                    record=cited(texts[k], k, k + 1),
                    document=written,
                    expected=read_as(version, *spans[k], "verified"),
                ),
                BlockProbe(
                    kind="two blocks, their text",
                    record=cited(version.text[spans[k][0] : spans[k + 1][1]], k, k + 2),
                    document=written,
                    expected=read_as(version, spans[k][0], spans[k + 1][1], "verified"),
                ),
                BlockProbe(
                    kind="block, the next block's text",
                    record=cited(texts[k + 1], k, k + 1),
                    document=written,
                    expected="quote_mismatch",
                ),
                BlockProbe(
                    kind="block past the last",
                    record=cited(texts[k], len(spans), len(spans) + 1),
                    document=written,
                    expected="block_out_of_range",
                ),
                BlockProbe(
                    kind="document given as a version id",
                    record=cited(texts[k], k, k + 1),
                    document=version.version_id,
                    expected="blocks_not_written",
                ),
                BlockProbe(
                    kind="blocks map edited",
                    record=cited(texts[k], k, k + 1),
                    document=replace(written, spans=moved),
                    expected="blocks_not_written",
                ),
            ]
    return probes
