"""Absence and count claims (C22) on the real corpus: a word absent from one release of an IETF
draft and present in the next, a count that changed between releases, a scope naming a version
not held, and a positive control that fails. The expected counts are derived here from the
stored files with a plain regular expression, nothing from `workbench`.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.conftest import STORE
from workbench.cite.claims import Claim, claim_from_json, decide_claim
from workbench.cli import main
from workbench.errors import CitationError
from workbench.workspace import Workspace

FAMILY = "draft-ietf-appsawg-http-problem"


def _id(release: str) -> str:
    return f"ietf/{FAMILY}/{FAMILY}-{release}.txt"


def _words(release: str, word: str) -> list[tuple[int, int]]:
    """The word's raw spans in the stored plain text (identity extraction: the file is the text)."""
    text = (STORE / _id(release)).read_bytes().decode("utf-8")
    return [m.span() for m in re.finditer(rf"(?<![^\W_]){re.escape(word)}(?![^\W_])", text)]


def test_a_word_absent_from_one_release_and_present_in_the_next(workspace: Workspace) -> None:
    assert not _words("01", "Deprecated") and _words("02", "Deprecated")
    absent = decide_claim(workspace, Claim(quote="Deprecated", scope=_id("01"), control="Problem"))
    assert absent.outcome == "absent", absent.detail
    assert absent.texts == ((_id("01"), workspace.version(_id("01")).text_sha256),)
    assert [(o.char_start, o.char_end) for o in absent.control_found] == _words("01", "Problem")
    found = decide_claim(
        workspace,
        Claim(
            quote="Deprecated",
            scope={"family": FAMILY, "from": _id("01"), "to": _id("02")},
            control="Problem",
        ),
    )
    assert (found.outcome, found.reason) == ("refused", "found")
    assert [(o.version_id, o.char_start, o.char_end) for o in found.occurrences] == [
        (_id("02"), *span) for span in _words("02", "Deprecated")
    ]
    assert {o.text for o in found.occurrences} == {"Deprecated"}


def test_a_count_that_changed_between_releases(workspace: Workspace) -> None:
    before, after = _words("02", "status"), _words("03", "status")
    assert len(before) != len(after)
    verified = decide_claim(workspace, Claim(quote="status", scope=_id("02"), count=len(before)))
    assert verified.outcome == "count_verified", verified.detail
    assert [(o.char_start, o.char_end) for o in verified.occurrences] == before
    mismatch = decide_claim(workspace, Claim(quote="status", scope=_id("03"), count=len(before)))
    assert (mismatch.outcome, mismatch.reason) == ("refused", "count_mismatch")
    assert mismatch.detail == (
        f"claimed {len(before)}, found {len(after)}: 'status' as a word in {_id('03')} (1 version)"
    )
    assert [(o.char_start, o.char_end) for o in mismatch.occurrences] == after


def test_word_and_substring_units_count_differently(workspace: Workspace) -> None:
    # "status" inside "statuses" or "Status-Code" counts as a substring, not always as a word.
    text = (STORE / _id("03")).read_bytes().decode("utf-8")
    as_substring = len(re.findall("status", text))
    verdict = decide_claim(
        workspace, Claim(quote="status", scope=_id("03"), count=as_substring, match="substring")
    )
    assert verdict.outcome == "count_verified", verdict.detail


@pytest.mark.parametrize(
    ("scope", "detail"),
    [
        pytest.param(
            _id("99"),
            f"{_id('99')}: no such version is held; the held versions of its family are listed "
            f"by 'workbench versions {FAMILY}'",
            id="version-not-held",
        ),
        pytest.param(
            [_id("01"), _id("99")],
            f"{_id('99')}: no such version is held; the held versions of its family are listed "
            f"by 'workbench versions {FAMILY}'",
            id="list-with-one-not-held",
        ),
        pytest.param(
            {"family": "no-such-family"},
            "family 'no-such-family' is not held; the held families are listed by 'workbench "
            "families'",
            id="family-not-held",
        ),
        pytest.param(
            {"family": FAMILY, "from": _id("01"), "to": _id("99")},
            f"{_id('99')}: no such version is held; the held versions of its family are listed "
            f"by 'workbench versions {FAMILY}'",
            id="range-end-not-held",
        ),
    ],
)
def test_a_scope_naming_what_is_not_held_is_refused(
    workspace: Workspace, scope: Any, detail: str
) -> None:
    verdict = decide_claim(workspace, Claim(quote="status", scope=scope, count=1))
    assert (verdict.outcome, verdict.reason, verdict.detail) == (
        "refused",
        "unknown_version",
        detail,
    )


def test_a_control_not_found_is_control_failed_never_absent(workspace: Workspace) -> None:
    # "Deprecated" is in release 02 only: as the control of a claim over 01 and 02, it is missing
    # from 01, so nothing is passed as absent there.
    scope = {"family": FAMILY, "from": _id("01"), "to": _id("02")}
    shown: list[tuple[str, tuple[str, ...]]] = []

    def nearest(term: str, version_ids: Any) -> list[str]:
        shown.append((term, tuple(version_ids)))
        return ["a candidate"]

    verdict = decide_claim(
        workspace, Claim(quote="tamper", scope=scope, control="Deprecated"), nearest
    )
    assert (verdict.outcome, verdict.reason) == ("refused", "control_failed")
    assert shown == [("Deprecated", (_id("01"),))] and verdict.nearest == ("a candidate",)
    assert [(o.version_id, o.char_start, o.char_end) for o in verdict.control_found] == [
        (_id("02"), *span) for span in _words("02", "Deprecated")
    ]


def test_the_commands_print_one_verdict_and_exit_by_it(
    workspace: Workspace, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    at = ["--workspace", str(workspace.path)]
    assert (
        main(["absent", "tamper", "--family", FAMILY, "--control", "Problem", "--json", *at]) == 0
    )
    shape = json.loads(capsys.readouterr().out)
    assert shape["outcome"] == "absent"
    assert [s["version_id"] for s in shape["scope"]] == [
        v.version_id for v in workspace.versions(FAMILY)
    ]
    assert shape["normalization"] == "wb-normalize v3" and shape["match"] == "word"
    assert main(["absent", "Problem", "--family", FAMILY, "--control", "status", *at]) == 1
    assert capsys.readouterr().out.startswith("refused found: 'Problem' occurs ")
    # Control failed, through the candidate index: the nearest passages are shown, never passed.
    code = main(["absent", "tamper", "--family", FAMILY, "--control", "Deprecated", *at])
    printed = capsys.readouterr().out
    assert code == 1 and printed.startswith("refused control_failed: ")
    near = [n for n in printed.splitlines() if n.startswith("  nearest (a place to look, not")]
    assert near and all(f" {_id('01')} [" in n for n in near), printed
    claims = tmp_path / "claims.jsonl"
    claims.write_text(
        json.dumps({"count": len(_words("02", "status")), "of": "status", "scope": _id("02")})
        + "\n"
        + json.dumps({"absent": "Deprecated", "scope": [_id("01")], "control": "Problem"})
        + "\n"
    )
    assert main(["verify", str(claims), *at]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("line 1: count_verified: 'status' occurs ")
    assert "line 2: absent: 'Deprecated' occurs nowhere as a word" in printed
    assert printed.endswith("claims: 1 absent, 1 count_verified\n")


@pytest.mark.parametrize(
    ("record", "error"),
    [
        pytest.param({"absent": "x", "scope": "a/b/c"}, "field 'control' missing from an absent claim", id="no-control"),
        pytest.param({"count": -1, "of": "x", "scope": "a/b/c"}, "field 'count': expected a whole number from 0, got -1", id="negative-count"),
        pytest.param({"count": 1, "of": "x", "scope": "a/b/c", "match": "regex"}, "field 'match': expected 'word' or 'substring', got 'regex'", id="bad-match"),
        pytest.param({"absent": "x", "scope": "a/b/c", "control": "y", "near": 1}, "field 'near': unknown in an absent claim (absent, control, match, scope)", id="unknown-field"),
        pytest.param({"count": 1, "of": "x", "scope": {"family": "f", "since": "a"}}, "field 'scope': expected a version id, a list of them, or an object with 'version', or 'family' (with 'from' and 'to' for a release range)", id="bad-scope"),
    ],
)  # fmt: skip
def test_malformed_claims_name_the_field(record: dict[str, Any], error: str) -> None:
    with pytest.raises(CitationError) as raised:
        claim_from_json(record)
    assert str(raised.value) == error


def test_a_bundle_refuses_claim_lines(workspace: Workspace, tmp_path: Any) -> None:
    from tests.conftest import CORPUS_DIR
    from workbench.errors import BundleError
    from workbench.exports.bundle import write_bundle

    line = json.dumps({"count": 1, "of": "status", "scope": _id("02")}) + "\n"
    with pytest.raises(BundleError) as raised:
        write_bundle(tmp_path / "b.zip", workspace, CORPUS_DIR, citations=line.encode())
    assert str(raised.value) == (
        "-: line 1 is an absence or count claim; a bundle holds citations ('workbench verify' "
        "decides claims)"
    )
