from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from difflib import SequenceMatcher

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Indel

from workbench.changes.diff import (
    RESTRUCTURE_CONFIDENCE_CEILING,
    change_as_json,
    change_id,
    diff_versions,
    pairing_is_uncertain,
)
from workbench.models import Change
from workbench.text.normalize import normalized_text
from workbench.text.segment import segment_version


@dataclass(frozen=True)
class Doc:
    version_id: str
    text: str


# Few distinct paragraphs, so duplicates and transpositions are common.
paragraphs = st.lists(
    st.sampled_from(["1. alpha", "2. beta", "beta", "3. gamma  delta", "x", "2. bet"]), max_size=12
)


def _doc(version_id: str, parts: list[str]) -> Doc:
    return Doc(version_id, "\n\n".join(parts) + "\n")


def _changed(changes: tuple[Change, ...], side: str) -> set[tuple[int, int]]:
    spans = set()
    for change in changes:
        if change.kind == "unchanged":
            continue
        span = change.before if side == "before" else change.after
        if span is not None:
            spans.add((span.char_start, span.char_end))
    return spans


@given(paragraphs)
def test_diff_of_a_version_with_itself_is_all_unchanged(parts: list[str]) -> None:
    doc = _doc("a", parts)
    changes = diff_versions(doc, doc)
    assert all(c.kind == "unchanged" and c.similarity == 1.0 for c in changes)


@given(paragraphs, paragraphs)
@settings(max_examples=400)
def test_what_is_changed_does_not_depend_on_argument_order(
    left: list[str], right: list[str]
) -> None:
    a, b = _doc("a", left), _doc("b", right)
    forward, backward = diff_versions(a, b), diff_versions(b, a)
    assert _changed(forward, "before") == _changed(backward, "after")
    assert _changed(forward, "after") == _changed(backward, "before")


def test_transposition_is_symmetric() -> None:
    """A plain matcher keeps x unchanged one way and y the other; the canonical orientation keeps one."""
    a, b = _doc("a", ["x", "y"]), _doc("b", ["y", "x"])
    forward, backward = diff_versions(a, b), diff_versions(b, a)
    assert _changed(forward, "before") == _changed(backward, "after")
    assert (
        sum(c.kind == "unchanged" for c in forward)
        == sum(c.kind == "unchanged" for c in backward)
        == 1
    )


def test_cap_applies_when_labels_disagree_and_similarity_is_kept() -> None:
    a = _doc("a", ["6. The Commission shall publish the schedule annually."])
    b = _doc("b", ["5.4. The Commission shall publish the schedule annually."])
    (change,) = diff_versions(a, b)
    assert change.kind == "modified" and change.capped
    assert change.similarity is not None and change.similarity > 0.9
    assert change.alignment_confidence == RESTRUCTURE_CONFIDENCE_CEILING
    assert pairing_is_uncertain(change)


def test_agreeing_labels_leave_confidence_uncapped() -> None:
    a = _doc("a", ["6. The Commission shall publish the schedule annually."])
    b = _doc("b", ["6. The Commission shall publish the schedule quarterly."])
    (change,) = diff_versions(a, b)
    assert not change.capped and change.alignment_confidence == change.similarity
    assert not pairing_is_uncertain(change)


def test_narrowing_names_the_changed_characters() -> None:
    a = _doc("a", ["3. A fee of $10 per\n   month applies."])
    b = _doc("b", ["3. A fee of $12 per month applies."])
    (change,) = diff_versions(a, b)
    assert change.span_before is not None and change.span_after is not None
    assert a.text[change.span_before.char_start : change.span_before.char_end] == "0"
    assert b.text[change.span_after.char_start : change.span_after.char_end] == "2"


def test_surplus_in_a_gap_is_added_or_removed_after_the_pairs() -> None:
    a = _doc("a", ["1. keep", "2. old text here", "9. end"])
    b = _doc("b", ["1. keep", "2. new text here", "2a brand new", "9. end"])
    assert [c.kind for c in diff_versions(a, b)] == ["unchanged", "modified", "added", "unchanged"]


def test_change_ids_are_deterministic_and_positional() -> None:
    a, b = _doc("a", ["1. x", "2. y"]), _doc("b", ["1. x", "2. z"])
    first, second = diff_versions(a, b), diff_versions(a, b)
    assert first == second
    assert [c.change_id for c in first] == [change_id("a", "b", 0), change_id("a", "b", 1)]
    assert change_id("a", "b", 0) != change_id("b", "a", 0)
    canonical = json.dumps(["a", "b", 1], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert change_id("a", "b", 1) == "chg-" + hashlib.sha256(canonical.encode()).hexdigest()[:20]


def test_json_shape() -> None:
    a, b = _doc("a", ["1. x y"]), _doc("b", ["2. x z"])
    item = change_as_json(diff_versions(a, b)[0])
    assert set(item) == {
        "change_id",
        "kind",
        "before",
        "after",
        "before_label",
        "after_label",
        "similarity",
        "alignment_confidence",
        "capped",
        "uncertain",
        "front_matter",
        "span_before",
        "span_after",
        "origin",
        "machine_read",
        "low_confidence",
    }
    assert item["before"] == {"version_id": "a", "char_start": 0, "char_end": 6}
    assert item["front_matter"] is False
    # Something other than a held Version has no recorded origins: nothing is machine-read.
    assert item["origin"] == {"before": [], "after": []}
    assert (item["machine_read"], item["low_confidence"]) == (False, False)


@pytest.mark.slow
def test_real_pairs(corpus_pairs, corpus_diffs, corpus_passages) -> None:  # type: ignore[no-untyped-def]
    """On every real version pair: self-diff unchanged, symmetry, exact spans, minimal narrowing.
    Each side's passages are the session's segmentation (`corpus_passages`, what `diff_versions`
    makes when none are given), handed in rather than made again for every diff."""
    assert len(corpus_pairs) > 200
    modified = capped = 0
    for before, after in corpus_pairs:
        sides = corpus_passages[before.version_id], corpus_passages[after.version_id]
        itself = diff_versions(before, before, passages=(sides[0], sides[0]))
        assert all(c.kind == "unchanged" for c in itself)
        forward = corpus_diffs[(before.version_id, after.version_id)]
        backward = diff_versions(after, before, passages=sides[::-1])
        assert _view(forward) == _view(backward, mirrored=True), before.version_id
        # Minimal: no fewer passages kept than difflib's longest-block-first matching keeps.
        keys_a = [normalized_text(p.text) for p in sides[0]]
        keys_b = [normalized_text(p.text) for p in sides[1]]
        kept = sum(c.kind == "unchanged" for c in forward)
        blocks = SequenceMatcher(None, keys_a, keys_b, autojunk=False).get_matching_blocks()
        assert kept >= sum(block.size for block in blocks), before.version_id
        for change in forward:
            if change.kind != "modified":
                continue
            modified += 1
            capped += change.capped
            assert change.span_before and change.before and change.span_after and change.after
            assert (
                change.before.char_start
                <= change.span_before.char_start
                <= change.span_before.char_end
                <= change.before.char_end
            )
            assert (
                change.after.char_start
                <= change.span_after.char_start
                <= change.span_after.char_end
                <= change.after.char_end
            )
            # Outside the narrowed spans the two passages agree, once normalized.
            b_text, a_text = before.text, after.text
            head_a = b_text[change.before.char_start : change.span_before.char_start]
            head_b = a_text[change.after.char_start : change.span_after.char_start]
            tail_a = b_text[change.span_before.char_end : change.before.char_end]
            tail_b = a_text[change.span_after.char_end : change.after.char_end]
            assert normalized_text(head_a).strip() == normalized_text(head_b).strip()
            assert normalized_text(tail_a).strip() == normalized_text(tail_b).strip()
            # The similarity is the minimal (Indel) edit ratio of the normalized passages.
            norm_a = normalized_text(b_text[change.before.char_start : change.before.char_end])
            norm_b = normalized_text(a_text[change.after.char_start : change.after.char_end])
            assert change.similarity == pytest.approx(Indel.normalized_similarity(norm_a, norm_b))
    assert modified > 1000 and capped > 0


# ---------------------------------------------------------------------------------------------
# Pairing by content: moves, splits and merges

_MIRRORED = {"split": "merged", "merged": "split", "added": "removed", "removed": "added"}


def _view(changes: tuple[Change, ...], *, mirrored: bool = False) -> set[tuple[object, ...]]:
    """Every change as (kind, before side, after side), sides as passage spans; mirrored swaps."""

    def spans(many: tuple[object, ...], one: object) -> tuple[tuple[int, int], ...]:
        chosen = many or ((one,) if one is not None else ())
        return tuple((s.char_start, s.char_end) for s in chosen)  # type: ignore[attr-defined]

    out = set()
    for c in changes:
        a, b = spans(c.before_spans, c.before), spans(c.after_spans, c.after)
        out.add((_MIRRORED.get(c.kind, c.kind), b, a) if mirrored else (c.kind, a, b))
    return out


sentences = st.lists(
    st.sampled_from(
        [
            "1. The utility shall file a tariff.",
            "The utility shall file a tariff.",
            "It shall publish the tariff online.",
            "The utility shall file a tariff. It shall publish the tariff online.",
            "2. Fees are set by the Commission.",
            "Fees are set by the Commission each year.",
            "x",
        ]
    ),
    max_size=10,
)


@settings(max_examples=300, deadline=None)
@given(sentences, sentences)
def test_every_kind_is_mirrored_by_the_other_argument_order(
    left: list[str], right: list[str]
) -> None:
    a, b = _doc("a", left), _doc("b", right)
    forward, backward = diff_versions(a, b), diff_versions(b, a)
    assert _view(forward) == _view(backward, mirrored=True)
    assert diff_versions(a, b) == forward  # deterministic


@settings(max_examples=200, deadline=None)
@given(sentences, sentences)
def test_every_passage_is_in_exactly_one_change(left: list[str], right: list[str]) -> None:
    a, b = _doc("a", left), _doc("b", right)
    changes = diff_versions(a, b)
    for side, doc in (("before", a), ("after", b)):
        starts = [p.char_start for p in segment_version(doc)]
        used = [
            s.char_start
            for c in changes
            for s in (
                getattr(c, f"{side}_spans") or ((getattr(c, side),) if getattr(c, side) else ())
            )
        ]
        assert sorted(used) == starts


def test_a_moved_and_edited_passage_is_one_moved_change_with_narrowed_spans() -> None:
    moved = "Every request shall be answered within thirty days of its receipt by the utility."
    edited = "Every request shall be answered within twenty days of its receipt by the utility."
    a = _doc("a", ["1. Scope.", moved, "2. Fees.", "3. Records.", "4. Notices."])
    b = _doc("b", ["1. Scope.", "2. Fees.", "3. Records.", "4. Notices.", edited])
    (change,) = [c for c in diff_versions(a, b) if c.kind != "unchanged"]
    assert change.kind == "moved" and change.similarity is not None and change.similarity > 0.9
    assert change.span_before is not None and change.span_after is not None
    # The common prefix "t" and suffix "ty" are trimmed: the narrowest span outside which they agree.
    assert a.text[change.span_before.char_start : change.span_before.char_end] == "hir"
    assert b.text[change.span_after.char_start : change.span_after.char_end] == "wen"


def test_equal_passages_repeated_move_one_for_one() -> None:
    same = "Nothing in this section relieves the utility of any obligation."
    a = _doc("a", ["1. A.", same, "2. B.", same, "3. C."])
    b = _doc("b", [same, "1. A.", "2. B.", "3. C.", same])
    changes = diff_versions(a, b)
    kinds = sorted(c.kind for c in changes)
    assert kinds.count("unchanged") + kinds.count("moved") == 5
    assert "added" not in kinds and "removed" not in kinds
    assert _view(changes) == _view(diff_versions(b, a), mirrored=True)


def test_a_split_into_three_is_one_restructure_listing_every_piece() -> None:
    pieces = [
        "The utility shall keep every request for seven years.",
        "It shall make those records available to the staff.",
        "It shall destroy them only with the Commission's leave.",
    ]
    a = _doc("a", ["1. Records.", " ".join(pieces), "2. Fees."])
    b = _doc("b", ["1. Records.", *pieces, "2. Fees."])
    (change,) = [c for c in diff_versions(a, b) if c.kind != "unchanged"]
    assert change.kind == "split" and change.similarity == 1.0
    assert [b.text[s.char_start : s.char_end] for s in change.after_spans] == pieces
    assert change.after is not None and change.after.char_start == change.after_spans[0].char_start
    assert change.after.char_end == change.after_spans[-1].char_end
    assert change.alignment_confidence == RESTRUCTURE_CONFIDENCE_CEILING
    assert pairing_is_uncertain(change)
    assert set(change_as_json(change)) >= {"before_spans", "after_spans"}
    (mirror,) = [c for c in diff_versions(b, a) if c.kind != "unchanged"]
    assert mirror.kind == "merged" and len(mirror.before_spans) == 3


def test_a_merge_across_a_page_break() -> None:
    """A requirement cut by a page break (a form feed) in one version, whole in the next."""
    a = Doc("a", "R1. Each Responsible Entity shall\n\f\nimplement one or more documented plans.\n")
    b = Doc("b", "R1. Each Responsible Entity shall implement one or more documented plans.\n")
    (change,) = diff_versions(a, b)
    assert change.kind == "merged" and len(change.before_spans) == 2
    assert change.similarity == 1.0 and pairing_is_uncertain(change)


@pytest.mark.slow
def test_real_moves_splits_and_merges_hold_their_rules(
    corpus_pairs, corpus_diffs, corpus_passages
) -> None:  # type: ignore[no-untyped-def]
    """On every real pair: a move is more than the floor alike; a split's or merge's pieces are
    consecutive passages whose joined text is more than the floor alike to the one passage."""
    from workbench.changes.diff import PAIRING_FLOOR

    seen: set[str] = set()
    for before, after in corpus_pairs[::3]:
        passages = {
            side: {p.char_start: p for p in corpus_passages[version.version_id]}
            for side, version in (("before", before), ("after", after))
        }
        ordinals = {
            side: {p.char_start: p.ordinal for p in found.values()}
            for side, found in passages.items()
        }
        for change in corpus_diffs[(before.version_id, after.version_id)]:
            if change.kind not in ("moved", "split", "merged"):
                continue
            seen.add(change.kind)
            assert change.similarity is not None and change.similarity > PAIRING_FLOOR
            many = "after" if change.kind == "split" else "before"
            one = "before" if many == "after" else "after"
            if change.kind == "moved":
                continue
            spans = getattr(change, f"{many}_spans")
            numbers = [ordinals[many][s.char_start] for s in spans]
            assert (
                numbers == list(range(numbers[0], numbers[0] + len(numbers))) and len(numbers) >= 2
            )
            joined = " ".join(normalized_text(passages[many][s.char_start].text) for s in spans)
            single = getattr(change, one)
            text = normalized_text(passages[one][single.char_start].text)
            assert Indel.normalized_similarity(text, joined) == pytest.approx(change.similarity)
    assert seen == {"moved", "split", "merged"}
