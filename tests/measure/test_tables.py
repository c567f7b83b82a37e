"""The measurement tables `workbench measure --export` writes read back as the JSON's figures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from tests.conftest import link_families
from workbench.cli import main
from workbench.measure import html
from workbench.measure.tables import TABLE_KINDS
from workbench.models import CatalogueRow
from workbench.tables import flatten

# Two Internet-Draft families (capped and renumbered pairings), a bill whose structure is refused
# (`structure.unknown_by_cause.refused:*` columns) and a single-version PDF (no structure block).
FAMILIES = (
    "ietf/draft-nottingham-cache-extensions",
    "ietf/draft-nottingham-http-stale-if-error",
    "us-federal/116-hjres107",
    "us-federal/epa-oig-report-10-p-0154-excerpt",
)


@pytest.fixture(scope="module")
def export_runs(
    catalogue: tuple[CatalogueRow, ...], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, list[str]]:
    """`workbench measure --corpus DIR --export csv`, then again with parquet (a warm run): the
    output folder, and the format of each run that wrote the reports (`html.write_reports`)."""
    root = tmp_path_factory.mktemp("export")
    link_families(root / "mirror", FAMILIES)
    wrote: list[str] = []
    write = html.write_reports
    for fmt in ("csv", "parquet"):
        args = ["measure", "--corpus", str(root / "mirror"), "--out", str(root / "out")]
        with pytest.MonkeyPatch.context() as patch:

            def writing(*given: Any, fmt: str = fmt, **options: Any) -> Any:
                wrote.append(fmt)
                return write(*given, **options)

            patch.setattr(html, "write_reports", writing)
            code = main([*args, "--workspace", str(root / "w.sqlite"), "--export", fmt])
        assert code == 0
    return root / "out", wrote


@pytest.fixture(scope="module")
def exported(export_runs: tuple[Path, list[str]]) -> Path:
    return export_runs[0]


def test_a_warm_export_reduces_for_its_tables_and_writes_no_report(
    export_runs: tuple[Path, list[str]],
) -> None:
    """The parquet run finds the reports as the csv run wrote them, under the same key
    (`derived.DerivedState`): it reduces for its own tables and writes no report again."""
    out, wrote = export_runs
    assert wrote == ["csv"]
    assert {f"table-{k}.parquet" for k in TABLE_KINDS} <= {p.name for p in out.iterdir()}


def _read(out: Path, kind: str, fmt: str) -> list[dict[str, Any]]:
    path = out / f"table-{kind}.{fmt}"
    # CSV is text: read every cell as written, and compare with the JSON value as text.
    frame = pl.read_csv(path, infer_schema=False) if fmt == "csv" else pl.read_parquet(path)
    return frame.to_dicts()


def _cell(value: Any, fmt: str) -> Any:
    """A JSON value as the table holds it (CSV: its text; a list of labels: joined by "/")."""
    if isinstance(value, list):
        value = "/".join(value)
    if fmt == "parquet" or value is None:
        return value
    return str(value).lower() if isinstance(value, bool) else str(value)


def _reports(out: Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    return tuple(  # type: ignore[return-value]
        json.loads((out / name).read_bytes())
        for name in ("corpus-digests.json", "structure-measurement.json", "escalation-rates.json")
    )


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_scope_tables_hold_every_figure_of_the_json(exported: Path, fmt: str) -> None:
    """Each row is one family (or jurisdiction); each column one JSON leaf, named by its path."""
    _, structure, escalation = _reports(exported)
    sections = {
        "family": {
            "profile": structure["profiles_used"],
            "passages": structure["passages"]["families"],
            "structure": structure["families"],
            "escalation": escalation["families"],
        },
        "jurisdiction": {
            "versions_parsed": structure["versions_parsed"],
            "passages": structure["passages"]["jurisdictions"],
            "structure": structure["jurisdictions"],
            "escalation": escalation["jurisdictions"],
            "caution": escalation["caution"]["jurisdictions"],
            "text_origins": structure["text_origins"]["jurisdictions"],
        },
    }
    for kind, scope in (("families", "family"), ("jurisdictions", "jurisdiction")):
        rows = _read(exported, kind, fmt)
        names = sorted({name for blocks in sections[scope].values() for name in blocks})
        assert [row[scope] for row in rows] == names
        for row in rows:
            expected: dict[str, Any] = {}
            for section, blocks in sections[scope].items():
                if row[scope] in blocks:
                    expected.update(flatten(section, blocks[row[scope]]))
            held = {k: v for k, v in row.items() if k != scope and v is not None}
            assert held == {k: _cell(v, fmt) for k, v in expected.items()}, row[scope]
    families = {row["family"]: row for row in _read(exported, "families", fmt)}
    assert (
        families["us-federal/epa-oig-report-10-p-0154-excerpt"]["structure.modified_pairings"]
        is None
    )
    assert families["ietf/draft-nottingham-cache-extensions"][
        "structure.proxy_caps.holds"
    ] == _cell(
        structure["families"]["ietf/draft-nottingham-cache-extensions"]["proxy_caps"]["holds"], fmt
    )


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_evidence_tables_add_up_to_the_json_figures(exported: Path, fmt: str) -> None:
    digests, structure, escalation = _reports(exported)
    assert _read(exported, "documents", fmt) == [
        {k: _cell(v, fmt) for k, v in row.items()} for row in digests["rows"]
    ]
    pairings = _read(exported, "pairings", fmt)
    for name, block in structure["families"].items():
        mine = [p for p in pairings if f"{p['jurisdiction']}/{p['family']}" == name]
        assert len(mine) == block["modified_pairings"], name
        capped = [p for p in mine if p["proxy_capped"] == _cell(True, fmt)]
        assert len(capped) == block["proxy_caps"]["holds"], name
    examples = [e for cause in structure["examples"].values() for e in cause]
    assert examples  # the examples' paths are the table's paths, joined
    by_id = {p["evidence_id"]: p for p in pairings}
    for example in examples:
        row = by_id[example["change_id"]]
        assert [row["before_path"], row["after_path"]] == [_cell(p, fmt) for p in example["paths"]]
    cautions = _read(exported, "cautions", fmt)
    assert len(cautions) == escalation["caution"]["overall"]["non_equal_changes"]
    passages = _read(exported, "passages", fmt)
    assert len(passages) == sum(b["passages"] for b in structure["passages"]["families"].values())
    labelled = [p for p in passages if p["labelled"] == _cell(True, fmt)]
    assert len(labelled) == sum(
        b["own_label"]["holds"] for b in structure["passages"]["families"].values()
    )
    parses = _read(exported, "parses", fmt)
    assert len(parses) == sum(f["versions"] for f in structure["profiles_used"].values())
    # One text row per version, its characters by origin summing to the JSON's per jurisdiction.
    texts = _read(exported, "texts", fmt)
    assert len(texts) == len(parses)
    for name, block in structure["text_origins"]["jurisdictions"].items():
        mine = [t for t in texts if t["jurisdiction"] == name]
        assert len(mine) == block["versions"], name
        for origin in ("glyphs", "invisible", "ocr", "unrecorded"):
            assert sum(int(t[origin]) for t in mine) == block[origin]["holds"], (name, origin)
        assert block["characters"] == sum(
            block[o]["holds"] for o in ("glyphs", "invisible", "ocr", "unrecorded")
        )


def test_every_table_is_written_in_both_formats(exported: Path) -> None:
    names = {p.name for p in exported.iterdir() if p.name.startswith("table-")}
    assert names == {f"table-{k}.{f}" for k in TABLE_KINDS for f in ("csv", "parquet")}
