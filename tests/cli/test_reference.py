"""The command-line reference page (docs/cli.md) is what the parser prints, command by command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from workbench.cli import main
from workbench.cli.reference import COLUMNS, TARGET, parsers, reference_page

PAGE = ROOT / TARGET
COMMANDS = [command.split()[1:] for command, _ in parsers()]


def test_the_committed_page_is_the_page_the_parser_makes() -> None:
    # On failure: python -m workbench.cli.reference --write docs/cli.md
    assert PAGE.read_text(encoding="utf-8") == reference_page()


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(["workbench", *c]))
def test_each_command_stands_on_the_page_as_its_help_prints(
    command: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", str(COLUMNS))  # argparse wraps at the terminal's width
    with pytest.raises(SystemExit) as exit_info:
        main([*command, "--help"])
    assert exit_info.value.code == 0
    printed = capsys.readouterr().out.rstrip("\n")
    heading = " ".join(["workbench", *command])
    assert f"\n## `{heading}`\n\n```text\n{printed}\n```\n" in PAGE.read_text(encoding="utf-8")


def test_every_command_is_on_the_page_once_in_parser_order() -> None:
    headings = [
        line[len("## `") : -1]
        for line in PAGE.read_text(encoding="utf-8").splitlines()
        if line.startswith("## `")
    ]
    assert headings == [" ".join(["workbench", *c]) for c in COMMANDS]
    assert headings[:3] == ["workbench", "workbench corpus", "workbench corpus add"]


def test_the_one_command_prints_and_writes_the_page(tmp_path: Path) -> None:
    module = [sys.executable, "-m", "workbench.cli.reference"]
    printed = subprocess.run(module, capture_output=True, check=True, cwd=ROOT).stdout
    assert printed == reference_page().encode("utf-8")
    written = tmp_path / "cli.md"
    subprocess.run([*module, "--write", str(written)], check=True, cwd=ROOT)
    assert written.read_bytes() == printed
