"""Re-make the committed outputs of notebooks, run exactly as the test run (nbval) runs them.

    .venv/bin/python scripts/execute_notebooks.py notebooks/03-alignment-review.ipynb [...]

Each notebook is executed in its own folder by a fresh kernel with the test run's parameter
overrides (`overrides_for` in notebooks/conftest.py: files a notebook would write in the project go
to a temporary folder), then written back with its own parameters cell, unchanged, and the new
outputs. So the outputs nbval compares against come from the same run nbval makes, and making
them writes nothing to the project's workspace or log. The jupytext twin (`.py`) is untouched: the
sources do not change.
"""

from __future__ import annotations

import argparse
import runpy
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import nbformat
from nbclient import NotebookClient

from workbench.exports import lab

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT_SECONDS = 1200


def execute(path: Path) -> None:
    """Execute one notebook with the test run's overrides and write its outputs in place."""
    parameters = SimpleNamespace(**runpy.run_path(str(ROOT / "notebooks" / "conftest.py")))
    notebook = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    index = lab.parameters_cell_index(notebook.cells)
    cell = notebook.cells[index]
    own = cell.source
    with tempfile.TemporaryDirectory(prefix=f"wb-execute-{path.stem}-") as scratch:
        overrides = parameters.overrides_for(path.stem, Path(scratch))
        cell.source = lab.with_parameters(own, overrides)
        try:
            NotebookClient(
                notebook,
                timeout=TIMEOUT_SECONDS,
                kernel_name=notebook.metadata.get("kernelspec", {}).get("name", "python3"),
                resources={"metadata": {"path": str(path.parent)}},
            ).execute()
        finally:
            cell.source = own
    nbformat.write(notebook, path)  # type: ignore[no-untyped-call]
    print(f"{path}: executed, {len(overrides)} parameter(s) overridden")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path, help="the .ipynb files to execute")
    for path in parser.parse_args(argv).notebooks:
        if path.suffix != ".ipynb" or not path.is_file():
            print(f"{path}: not a notebook file (.ipynb)", file=sys.stderr)
            return 2
        execute(path.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
