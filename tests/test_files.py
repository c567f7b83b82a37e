"""Replacing a file whole: the old bytes stand until the new ones are complete."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.files import replace_file, replace_file_with


def test_a_replaced_file_holds_the_new_bytes_and_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "catalogue.jsonl"
    path.write_bytes(b"old\n")
    replace_file(path, b"new\n", mode=0o444)
    assert path.read_bytes() == b"new\n"
    assert path.stat().st_mode & 0o777 == 0o444
    assert sorted(p.name for p in tmp_path.iterdir()) == ["catalogue.jsonl"]


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "note.md"
    path.write_bytes(b"---\npointer:\n---\n")

    def half(temporary: Path) -> None:
        temporary.write_bytes(b"---\npoin")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        replace_file_with(path, half)
    assert path.read_bytes() == b"---\npointer:\n---\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["note.md"]


def test_a_folder_in_the_way_is_refused_and_nothing_is_left(tmp_path: Path) -> None:
    (tmp_path / "page.html").mkdir()
    with pytest.raises(OSError):
        replace_file(tmp_path / "page.html", b"<p>x</p>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]
