"""The README is a guide that stays true: its links resolve, its quickstart runs on the real corpus,
its command table is the parser's, and it stays short enough to read."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
MAX_README_LINES = 250
MIRROR = ROOT.parent / "shared" / "corpus"


def _parser_commands() -> set[str]:
    found: set[str] = set()

    def walk(parser: argparse.ArgumentParser, prefix: list[str]) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            found.add(" ".join(prefix))
        for action in subs:
            for name, sub in action.choices.items():
                walk(sub, [*prefix, name])

    walk(build_parser(), [])
    return found


def _table_commands() -> set[str]:
    """The command each row of the README's command table names (its words before any argument)."""
    names = set()
    for row in re.findall(r"^\| `workbench ([^`]+)` \|", README, flags=re.MULTILINE):
        words = [w for w in row.split() if re.fullmatch(r"[a-z][a-z-]*", w)]
        names.add(" ".join(words[:2]) if " ".join(words[:2]) in _parser_commands() else words[0])
    return names


def test_the_readme_is_a_short_guide() -> None:
    assert len(README.splitlines()) <= MAX_README_LINES
    assert README.startswith("# Regulatory-text workbench\n")
    assert (
        "make measure" in README.split("\n## ", 1)[0] and "make test" in README.split("\n## ", 1)[0]
    )


def test_the_command_table_is_the_parser() -> None:
    assert _table_commands() == _parser_commands()


@pytest.mark.parametrize(
    "target", sorted(set(re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README))), ids=str
)
def test_every_link_in_the_readme_resolves(target: str) -> None:
    assert not re.match(r"[a-z]+:", target), f"{target}: the README links only into the repository"
    assert (ROOT / target).is_file(), f"{target}: no such file"


def test_every_docs_page_links_only_to_pages_that_exist() -> None:
    for page in sorted((ROOT / "docs").glob("*.md")):
        prose = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
        for target in re.findall(r"\]\(([^)#\s:]+)(?:#[^)]*)?\)", prose):
            assert (page.parent / target).exists(), f"{page.name}: {target} does not exist"


def test_the_python_quickstart_runs_on_the_real_corpus(tmp_path: Path) -> None:
    (block,) = re.findall(r"```python\n(.*?)```", README, flags=re.DOTALL)
    workspace = ".workbench/quickstart.sqlite"
    assert workspace in block and '"../shared/corpus"' in block
    script = block.replace(workspace, str(tmp_path / "quickstart.sqlite")).replace(
        '"../shared/corpus"', repr(str(MIRROR))
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, cwd=ROOT, check=False, timeout=300
    )
    assert result.returncode == 0, result.stderr.decode()
    first, second = result.stdout.decode().splitlines()
    assert first.startswith("modified ") and first.endswith(" verified")
    assert second.startswith("index: ")
