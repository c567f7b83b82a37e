"""One normalization, applied to both sides of every comparison and never to stored text (C5): what
a printer or an extractor varies is folded, nothing else, and every normalized character maps back
to the raw characters it came from. What it folds and why: docs/text-and-offsets.md."""

from __future__ import annotations

import importlib
import re
import sys

from workbench.text.normal_form import HYPHENS as _HYPHENS
from workbench.text.normal_form import LIGATURES as _LIGATURES
from workbench.text.normal_form import LINE_BREAKS as _LINE_BREAKS
from workbench.text.normal_form import REMOVED as _REMOVED
from workbench.text.normal_form import Normalized

SCHEME = "wb-normalize"
SCHEME_VERSION = 3  # v3: U+0002 read as a line-end hyphen

_LINE_END_HYPHENS = frozenset("-\u2010\u2011")
# PDFium's marker for a hyphen ending a line; with the white space after it, it folds to "- ".
_LINE_END_MARK = "\x02"
# One match per place where normalized text differs from raw text. White space and removed
# characters are one class so that "a \u00ad b" folds to "a b", not "a  b".
# A lone " " is already normal and is not matched at all (most of a text's runs are lone spaces):
# a run of two or more, any other white space, or a removed character starts a match.
_FOLD = re.compile(
    r"\x02[\s\u00ad\ufeff]*"
    r"|[\s\u00ad\ufeff]{2,}|[^\S ]|[\u00ad\ufeff]|[\ufb00-\ufb04]|[\uff10-\uff19]|[\u2010\u2011]"
)


LONG_TEXT = 2048
ARRAY_PAYS = 1 << 22
_ARRAY_MODULE = "workbench.text.normalize_array"


def _takes_array_pass(text: str) -> bool:
    """True when `text` is normalized by the array pass: it holds no U+0002, and it has at least
    `ARRAY_PAYS` characters (where one call repays numpy's import, about 0.3 s), or at least
    `LONG_TEXT` once the array pass is loaded (a batch that normalizes many texts imports
    `normalize_array`). Both passes give the same result; only the time differs."""
    if len(text) < LONG_TEXT or _LINE_END_MARK in text:
        return False
    return len(text) >= ARRAY_PAYS or _ARRAY_MODULE in sys.modules


def load_array_pass() -> None:
    """Load the array pass, and numpy with it: a batch that normalizes many long texts (the
    measurement, the search index, the reconciliation) calls it first."""
    importlib.import_module(_ARRAY_MODULE)


def normalize(text: str) -> Normalized:
    """Normalize `text` under scheme `wb-normalize` v3 and keep the map back to raw offsets."""
    if _takes_array_pass(text):
        from workbench.text.normalize_array import normalize_long

        return normalize_long(text)
    return normalize_short(text)


def normalize_short(text: str) -> Normalized:
    """`normalize`, one regular-expression match at a time (fast for short texts)."""
    pieces: list[str] = []
    norm_starts: list[int] = []
    raw_starts: list[int] = []
    raw_lens: list[int] = []
    identity: list[bool] = []
    hyphens: list[int] = []
    out_len = 0
    raw_at = 0

    def segment(raw_start: int, raw_len: int, out: str, is_identity: bool) -> None:
        nonlocal out_len
        if not out:
            return
        norm_starts.append(out_len)
        raw_starts.append(raw_start)
        raw_lens.append(raw_len)
        identity.append(is_identity)
        pieces.append(out)
        out_len += len(out)

    for match in _FOLD.finditer(text):
        start, end = match.span()
        run = match.group()
        if run == " ":
            continue  # already normal; stays inside the surrounding identity run
        segment(raw_at, start - raw_at, text[raw_at:start], True)
        raw_at = end
        first = run[0]
        if first == _LINE_END_MARK:
            hyphens.append(out_len)
            segment(start, end - start, "- ", False)
        elif first in _LIGATURES:
            segment(start, 1, _LIGATURES[first], False)
        elif "\uff10" <= first <= "\uff19":
            segment(start, 1, chr(ord(first) - 0xFF10 + 0x30), False)
        elif first in _HYPHENS:
            segment(start, 1, _HYPHENS[first], False)
        elif any(ch.isspace() for ch in run):
            if (
                start > 0
                and text[start - 1] in _LINE_END_HYPHENS
                and not _LINE_BREAKS.isdisjoint(run)
            ):
                hyphens.append(out_len - 1)
            segment(start, end - start, " ", False)
        # else: only removed characters (soft hyphens, U+FEFF) — nothing is emitted for them.
    segment(raw_at, len(text) - raw_at, text[raw_at:], True)
    return Normalized(
        text="".join(pieces),
        raw_length=len(text),
        norm_starts=tuple(norm_starts),
        raw_starts=tuple(raw_starts),
        raw_lens=tuple(raw_lens),
        identity=tuple(identity),
        line_break_hyphens=tuple(hyphens),
        expands=any(
            len(piece) > 1 for piece, same in zip(pieces, identity, strict=True) if not same
        ),
    )


# The same folds as `normalize`, as one translate table and one white-space pass: removing the
# removed characters first lets the white space around them merge into one run, exactly as the
# combined run class in `_FOLD` does.
_TABLE = str.maketrans(
    {
        **_LIGATURES,
        **_HYPHENS,
        **{chr(0xFF10 + d): str(d) for d in range(10)},
        **dict.fromkeys(_REMOVED, None),
        _LINE_END_MARK: "- ",
    }
)
_SPECIAL = re.compile(r"[\x02\u00ad\ufeff\ufb00-\ufb04\uff10-\uff19\u2010\u2011]")


def normalized_text(text: str) -> str:
    """`normalize(text).text` without building the map: the diff's passage keys use this.

    CAUTION: must stay equal to `normalize(text).text` for every input; a property test holds it.
    `str.translate` with this table is slow, so it runs only on text that needs it.
    """
    if _takes_array_pass(text):
        from workbench.text.normalize_array import normalize_long

        return normalize_long(text).text
    if _SPECIAL.search(text):
        text = text.translate(_TABLE)
    # Every run of white space becomes one space: `str.split` cuts at exactly the characters
    # the `\s` of the mapped fold matches (both are `str.isspace`), and a run at either end
    # leaves one space there.
    words = text.split()
    if not words:
        return " " if text else ""
    return (
        (" " if text[0].isspace() else "") + " ".join(words) + (" " if text[-1].isspace() else "")
    )
