"""Start-up: building the command line loads no heavy library, and a command loads only its own
command module.

A fresh interpreter imports `workbench.cli` (what `workbench --help` does before parsing) or runs
one command, and lists every module it loaded; none of the libraries only some commands need may
be among them. The speed itself is a benchmark's business (benchmarks/bench_startup.py), not a
test's.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import workbench
from tests.conftest import ROOT, FreshWorkspace
from workbench.cli.commands import COMMANDS, Command
from workbench.corpus import read_catalogue
from workbench.derived import code_digest
from workbench.history.dating import cite_quote
from workbench.text.normalize import LONG_TEXT

HEAVY = ("numpy", "polars", "altair", "pypdfium2", "rapidfuzz", "dask", "ipywidgets")
# what a plain verification of one citation never needs: the array pass, the tables, a pattern
# engine, an XML library, templates, the matcher that shows a quote found nowhere
NOT_TO_VERIFY = ("numpy", "polars", "regex", "lxml", "jinja2", "difflib", "secrets")
# nor the rules and readers a plain citation line does not ask for: the alteration rule, the claim
# rule, a cell's header check, the W3C, blocks and provider readers; nor ingest, the listings,
# admission or the catalogue
NOT_TO_VERIFY_MODULES = (
    "workbench.cite.alterations",
    "workbench.cite.claims",
    "workbench.cite.cell_headers",
    "workbench.cite.w3c",
    "workbench.cite.blocks",
    "workbench.cite.responses",
    "workbench.cite.anthropic",
    "workbench.cite.gemini",
    "workbench.cite.openai",
    "workbench.cite.cohere",
    "workbench.cite.bedrock",
    "workbench.workspace.holding",
    "workbench.workspace.listing",
    "workbench.corpus.admission",
    "workbench.corpus.catalogue",
    "workbench.corpus.store",
    # the records of other stages: catalogue rows, extractions, passages, diffs, OCR readings
    "workbench.models.rows",
    "workbench.models.extraction",
    "workbench.models.passages",
    "workbench.models.diffs",
    "workbench.models.ocr",
)
# and so never makes their classes (each frozen dataclass made costs start-up time)
NOT_TO_VERIFY_RECORDS = (
    "CatalogueRow",
    "Refusal",
    "Extraction",
    "Passage",
    "Span",
    "Change",
    "OcrReading",
    "OcrWord",
    "IngestReport",
    "Admission",
    "FetchReport",
    "CellCheck",
)
COMMAND_MODULES = sorted({f"workbench.cli.{command.module}" for command in COMMANDS})


LISTED = "listed: "  # what a listing's line starts with, among a command's own lines
MODULES = f"import json, sys; print({LISTED!r} + json.dumps(sorted(sys.modules)))"
RECORDS_MADE = f"""\
import dataclasses, json, sys
made = {{
    value.__name__
    for name, module in list(sys.modules.items())
    if name.startswith("workbench")
    for value in vars(module).values()
    if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == name
}}
print({LISTED!r} + json.dumps(sorted(made)))
"""


def _listings(*steps: str) -> list[set[str]]:
    """What each listing (`MODULES`, `RECORDS_MADE`) among `steps` printed, in order, the steps
    run in turn in one fresh interpreter: a listing after a later step holds what the steps
    before it loaded too."""
    done = subprocess.run(
        [sys.executable, "-c", "\n".join(steps)], check=True, capture_output=True, text=True
    )
    lines = done.stdout.splitlines()
    return [set(json.loads(line.removeprefix(LISTED))) for line in lines if line.startswith(LISTED)]


def _modules(code: str) -> set[str]:
    """Every module a fresh interpreter holds after running `code`."""
    (listed,) = _listings(code, MODULES)
    return listed


def _helped(argv: list[str]) -> str:
    """Code that prints a help the command line exits after."""
    return f"from workbench.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass"


def _packages(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def _loaded(code: str) -> set[str]:
    """The top-level packages among `_modules(code)`."""
    return _packages(_modules(code))


def test_importing_the_command_line_loads_no_heavy_library() -> None:
    loaded = _loaded("import workbench.cli\nworkbench.cli.build_parser()")
    assert "workbench" in loaded
    assert sorted(loaded & set(HEAVY)) == []


def test_the_top_level_help_loads_no_command_module() -> None:
    loaded = _modules(_helped(["--help"]))
    assert "workbench.cli.commands" in loaded
    assert sorted(loaded & set(COMMAND_MODULES)) == []


@pytest.mark.parametrize(
    "command", [pytest.param(c, id=c.name) for c in COMMANDS if c.name in ("diff", "verify", "lab")]
)
def test_a_command_help_loads_its_module_alone(command: Command) -> None:
    loaded = _modules(_helped([command.name, "--help"]))
    assert sorted(loaded & set(COMMAND_MODULES)) == [f"workbench.cli.{command.module}"]


def test_the_command_table_names_each_module_s_commands() -> None:
    """Every module the table names fills exactly the commands the table gives it."""
    for module in COMMAND_MODULES:
        named = {c.name for c in COMMANDS if f"workbench.cli.{c.module}" == module}
        assert set(importlib.import_module(module).ARGUMENTS) == named, module


@pytest.mark.parametrize(
    "package", ["workbench.cite", "workbench.corpus", "workbench.models", "workbench.workspace"]
)
def test_a_lazy_package_types_each_name_where_it_loads_it(package: str) -> None:
    """The names the type checker reads (the `TYPE_CHECKING` imports), the names offered
    (`__all__`) and where each is loaded from at first use (`_HOME`) are one list."""
    loaded = importlib.import_module(package)
    tree = ast.parse(Path(loaded.__file__ or "").read_text(encoding="utf-8"))
    (guard,) = [n for n in tree.body if isinstance(n, ast.If)]
    typed = {
        alias.name: str(node.module)
        for node in guard.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert typed == loaded._HOME
    assert sorted(loaded.__all__) == sorted(typed)
    for name, home in typed.items():
        assert getattr(loaded, name) is getattr(importlib.import_module(home), name)


def test_importing_the_package_loads_no_heavy_library() -> None:
    loaded = _loaded("import workbench\nworkbench.__all__")
    assert sorted(loaded & set(HEAVY)) == []


def test_the_update_loads_the_ordinal_words_library_only_where_a_word_is_read() -> None:
    """`workbench update` (its verb and the report it writes) loads no language's module of
    `num2words` until an ordinal word is read (`ordinal_words.lexicon`), then in the same
    interpreter does."""
    update = "import workbench.measure.update, workbench.cli.amendments"
    read = "from workbench.text.ordinal_words import word_value\nassert word_value('third') == 3"
    updated, words = map(_packages, _listings(update, MODULES, read, MODULES))
    assert "num2words" not in updated
    assert "num2words" in words


def test_the_guard_sees_a_heavy_library_when_one_loads() -> None:
    # The listing is real: comparing two texts loads rapidfuzz (loading the diff does not).
    compared = "from workbench.changes.diff import aligned\naligned(['a rule'], ['a new rule'])"
    diff = "import workbench\nworkbench.diff_versions"
    loaded, comparing = map(_packages, _listings(diff, MODULES, compared, MODULES))
    assert "rapidfuzz" not in loaded
    assert "rapidfuzz" in comparing


def test_every_package_verb_resolves_to_its_home() -> None:
    import importlib

    import workbench

    for name, home in workbench._HOME.items():
        module, _, attribute = home.partition(":")
        assert getattr(workbench, name) is getattr(
            importlib.import_module(module), attribute or name
        )
    assert set(workbench.__all__) == set(workbench._HOME) <= set(dir(workbench))
    with pytest.raises(AttributeError, match="no attribute 'segment_versions'"):
        getattr(workbench, "segment_versions")  # noqa: B009


def test_a_plain_verification_loads_only_what_it_uses(
    fresh_workspace: FreshWorkspace, tmp_path: Path
) -> None:
    """One citation verified by the command in a fresh interpreter: the normalizer's array pass
    (numpy) stays out of a single verification, however long the version it counts in, and so do
    the other commands' modules and the libraries `NOT_TO_VERIFY` names; then, asked for, the
    alteration rule loads."""
    rows = [r for r in read_catalogue(ROOT / "corpus") if r.jurisdiction == "ietf"]
    row = max(rows, key=lambda r: r.size)
    held = tmp_path / "workspace.sqlite"
    with fresh_workspace([row], held) as workspace:
        text = workspace.version(row.path).text
        line = next(line for line in text.split("\n") if len(line.strip()) > 20).strip()
        citation = cite_quote(workspace, line, row.path, occurrence=1).citation_json()
    citations = tmp_path / "one.jsonl"
    citations.write_text(json.dumps(citation) + "\n", encoding="utf-8")
    assert len(text) >= 10 * LONG_TEXT  # a whole version the array pass would once have read
    argv = ["verify", str(citations), "--workspace", str(held)]
    verified = f"from workbench.cli import main\nassert main({argv!r}) == 0"
    # then, in the same interpreter, the same citation with the alteration rule asked for
    altering = f"main({[*argv, '--alterations']!r})"
    modules, made, altered = _listings(verified, MODULES, RECORDS_MADE, altering, MODULES)
    loaded = _packages(modules)
    assert "workbench" in loaded and sorted(loaded & set(NOT_TO_VERIFY)) == []
    assert sorted(modules & set(NOT_TO_VERIFY_MODULES)) == []
    assert {"Version", "Verification"} <= made  # the listing is real
    assert sorted(made & set(NOT_TO_VERIFY_RECORDS)) == []
    # the command table loads the verify command's module, no other command's
    assert sorted(modules & set(COMMAND_MODULES)) == ["workbench.cli.citations"]
    # The listing is real: asking for the alteration rule loads it.
    assert "workbench.cite.alterations" in altered


# what a diff of held versions whose diff is kept never needs: the pairing (rapidfuzz's similarity
# matrix is a numpy array), the profile registry and its choice, the segmenter, a pattern engine;
# nor, once a diff has kept its footnote changes, the versions' parts or an XML library
PAIRING = (
    "numpy",
    "regex",
    "workbench.text.choice",
    "workbench.text.profiles",
    "workbench.text.segment",
    "workbench.workspace.passages",
)
PARTS = ("lxml", "workbench.text.footnotes", "workbench.workspace.parts")


def test_a_kept_diff_loads_no_pairing(fresh_workspace: FreshWorkspace, tmp_path: Path) -> None:
    """`workbench diff` of a held pair in a fresh interpreter, three times: the first chooses
    the profile, pairs and keeps the diff; the second reads the kept diff and loads none of
    `PAIRING` or `PARTS`, but finds the word pieces of the changes it shows (rapidfuzz) and
    keeps them with the diff; the third loads no word matcher either."""
    family = "draft-nottingham-http-link-header"
    rows = [r for r in read_catalogue(ROOT / "corpus") if r.family == family][:2]
    held = tmp_path / "workspace.sqlite"
    with fresh_workspace(rows, held):
        pass
    argv = ["diff", family, "--workspace", str(held)]
    code = f"from workbench.cli import main\nassert main({argv!r}) == 0"
    first, kept, marked = _modules(code), _modules(code), _modules(code)
    assert sorted(first & set(PAIRING)) == sorted(PAIRING)
    assert "workbench.changes.kept" in kept
    assert sorted(kept & {*PAIRING, *PARTS}) == []
    assert "rapidfuzz" in kept  # the listing is real: its word pieces were found there
    assert sorted(marked & {*PAIRING, *PARTS, "rapidfuzz"}) == []


# what counting a family's numbering reads with: the profiles, their choice and the measuring
# summary; a plain listing of the families reads the versions table's index alone
NUMBERING = ("workbench.measure.summary", "workbench.text.choice", "workbench.text.profiles")


def test_a_plain_family_listing_loads_no_numbering_reader(
    fresh_workspace: FreshWorkspace, tmp_path: Path
) -> None:
    """`workbench families` in a fresh interpreter loads none of `NUMBERING`; then, with
    `--numbering`, it loads them all (the listing is real)."""
    rows = [r for r in read_catalogue(ROOT / "corpus") if r.family == "draft-cedik-http-warning"]
    held = tmp_path / "workspace.sqlite"
    with fresh_workspace(rows, held):
        pass
    argv = ["families", "--workspace", str(held)]
    listed = f"from workbench.cli import main\nassert main({argv!r}) == 0"
    numbering = f"assert main({[*argv, '--numbering']!r}) == 0"  # then, in the same interpreter
    plain, numbered = _listings(listed, MODULES, numbering, MODULES)
    assert sorted(plain & set(NUMBERING)) == []
    assert sorted(numbered & set(NUMBERING)) == sorted(NUMBERING)


# Prefixed to a command's code: counts the package's Python sources the process opens through
# `io.open` (what reading a file does; the import system reads through `io.open_code`, uncounted),
# and prints their number after the command's own output.
SOURCES_OPENED = """\
import atexit, io, builtins, pathlib, workbench
package = pathlib.Path(workbench.__file__).resolve().parent
opened = []
real_open = io.open
def counting(file, *args, **kwargs):
    if isinstance(file, (str, pathlib.PurePath)) and str(file).endswith(".py"):
        if pathlib.Path(file).resolve().is_relative_to(package):
            opened.append(str(file))
    return real_open(file, *args, **kwargs)
io.open = builtins.open = counting
atexit.register(lambda: print(len(opened)))
"""


def test_a_command_takes_the_code_digest_kept_beside_the_bytecode(tmp_path: Path) -> None:
    """The code digest in two fresh interpreters that write bytecode (under a prefix of their
    own): the first reads and hashes every source and keeps the digest; the second takes it as
    kept, and opens no source (unless a source changed in the two seconds before the first:
    `derived.RACY_NS`)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path / "bytecode")
    code = SOURCES_OPENED + "from workbench.derived import code_digest\nprint(code_digest())"

    def run() -> tuple[str, int]:
        done = subprocess.run(
            [sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env
        )
        digest, opened = done.stdout.split()
        return digest, int(opened)

    (first, read), (second, taken) = run(), run()
    sources = len(list(Path(workbench.__file__).resolve().parent.rglob("*.py")))
    assert first == second == code_digest()
    assert (read, taken) == (sources, 0)
