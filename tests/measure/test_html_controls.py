"""The measurement pages never hold a raw control character HTML forbids (C14)."""

from __future__ import annotations

import re
from pathlib import Path

from workbench.measure.html import _write

# HTML's "control-character-in-input-stream": C0 but ASCII white space, DEL and C1.
FORBIDDEN = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")


def test_a_page_shows_every_control_character_as_its_symbol(tmp_path: Path) -> None:
    hostile = "".join(chr(code) for code in (*range(0x20), *range(0x7F, 0xA0)))
    page = tmp_path / "page.html"
    _write(page, iter(("<p>", hostile, "</p>\n")))
    written = page.read_text(encoding="utf-8")
    assert FORBIDDEN.findall(written) == []
    assert written.startswith("<p>\u2400\u2401\u2402") and "\u241b" in written
    assert "\u2421" in written  # DEL
