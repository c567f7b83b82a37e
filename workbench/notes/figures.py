"""Figures in notes bound to the measurement they quote (C22), checked against the file as it
stands, and the census of percentages in notes' prose that name no source. Rules and examples:
docs/verification.md."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any, Literal

from workbench.errors import NoteError
from workbench.models import strict_json
from workbench.notes.markdown import in_code
from workbench.notes.note import Note

# The keys a measurement file records its run's digest under, in the order looked for.
DIGEST_KEYS = ("corpus_digest", "demo_corpus_digest")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
# A percentage in prose: the one figure shape no section number, date or count is mistaken for.
PERCENTAGE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?%")
_FIGURE_LABEL = re.compile(r" {0,3}> ?(figure|from|digest|rounding):[ \t]*(.*)")
_BLOCKQUOTE = re.compile(r" {0,3}>")
FigureOutcome = Literal["bound", "value_changed", "digest_stale", "not_found"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Figure:
    """A bound figure as the note writes it: the text, the file and JSON pointer it quotes, the
    run digest it was read from, the decimals it is rounded to, and its body line."""

    text: str
    file: str
    pointer: str
    digest: str
    rounding: int
    line: int


@dataclass(frozen=True, slots=True, kw_only=True)
class FigureCheck:
    """One figure checked: `bound` (the value read, rounded, is the figure, and the digest is
    the file's) or why not, with both values named in `detail`."""

    figure: Figure
    outcome: FigureOutcome
    detail: str

    def line(self) -> str:
        return f"  figure line {self.figure.line} {self.outcome}: {self.detail}"


def parse_figures(note: Note) -> tuple[Figure, ...]:
    """The note's bound figures: each blockquote whose first line is `> figure: TEXT`, followed
    by `> from: FILE#POINTER` and `> digest: HEX` (required) and `> rounding: N` (decimals;
    default: as many as the figure writes). The figure must hold exactly one number."""
    lines = note.data.decode("utf-8").split("\n")
    figures: list[Figure] = []
    block: list[tuple[int, str, str]] = []
    for number, (text, code) in enumerate(zip(lines, in_code(lines), strict=True), start=1):
        match = None if code else _FIGURE_LABEL.fullmatch(text.rstrip("\r"))
        if match and (block or match[1] == "figure"):
            block.append((number, match[1], match[2].strip()))
            continue
        if block:
            figures.append(_figure(note.path, block))
            block = []
    if block:
        figures.append(_figure(note.path, block))
    return tuple(figures)


def _figure(path: Path, block: list[tuple[int, str, str]]) -> Figure:
    line = block[0][0]
    fields: dict[str, str] = {}
    for number, label, value in block:
        if label in fields:
            raise NoteError(f"{path}: line {number}: a second '{label}:' in one figure")
        fields[label] = value
    for label in ("from", "digest"):
        if not fields.get(label):
            raise NoteError(f"{path}: line {line}: the figure has no '{label}:' line")
    numbers = NUMBER.findall(fields["figure"])
    if len(numbers) != 1:
        raise NoteError(
            f"{path}: line {line}: the figure {fields['figure']!r} holds {len(numbers)} numbers; "
            "a bound figure holds exactly one"
        )
    file, _, pointer = fields["from"].partition("#")
    if not pointer.startswith("/"):
        raise NoteError(
            f"{path}: line {line}: 'from: {fields['from']}' names no JSON pointer "
            "(expected FILE#/key/...)"
        )
    written = numbers[0].partition(".")[2]
    rounding = fields.get("rounding", str(len(written)))
    if not rounding.isdigit():
        raise NoteError(f"{path}: line {line}: rounding {rounding!r} is not a number of decimals")
    return Figure(
        text=fields["figure"],
        file=file,
        pointer=pointer,
        digest=fields["digest"],
        rounding=int(rounding),
        line=line,
    )


def _resolve(value: Any, pointer: str) -> Any:
    """RFC 6901: `~1` is `/`, `~0` is `~`; a list step is a decimal index. KeyError if absent."""
    for raw in pointer.split("/")[1:]:
        step = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(value, list) and step.isdigit() and int(step) < len(value):
            value = value[int(step)]
        elif isinstance(value, dict) and step in value:
            value = value[step]
        else:
            raise KeyError(step)
    return value


def check_figure(figure: Figure, root: Path) -> FigureCheck:
    """`figure` against `root / figure.file` as it stands, in this order: the file and the
    pointer; the value (a JSON number, or a string's first number) rounded half away from zero to
    `figure.rounding` decimals must equal the figure's number; the file's run digest (the first
    of `DIGEST_KEYS` it holds) must be the figure's."""

    def refused(outcome: FigureOutcome, detail: str) -> FigureCheck:
        return FigureCheck(figure=figure, outcome=outcome, detail=detail)

    where = f"{figure.file}#{figure.pointer}"
    try:
        measured = strict_json((root / figure.file).read_bytes().decode("utf-8"), NoteError)
        value = _resolve(measured, figure.pointer)
    except FileNotFoundError:
        return refused("not_found", f"{figure.file} does not exist under {root}")
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return refused("not_found", f"{figure.file} is not a UTF-8 JSON file ({exc})")
    except KeyError as exc:
        return refused("not_found", f"{where}: the file holds no {exc.args[0]!r} there")
    numbers = NUMBER.findall(value) if isinstance(value, str) else []
    if type(value) in (int, float):
        read = Decimal(str(value))
    elif numbers:
        read = Decimal(numbers[0])
    else:
        return refused("not_found", f"{where} holds {json.dumps(value)[:80]}, not a number")
    step = Decimal(1).scaleb(-figure.rounding)
    rounded = read.quantize(step, rounding=ROUND_HALF_UP)
    written = Decimal(NUMBER.findall(figure.text)[0]).quantize(step, rounding=ROUND_HALF_UP)
    shown = json.dumps(value, ensure_ascii=False)
    if rounded != written:
        return refused(
            "value_changed",
            f"the note writes {figure.text!r}; {where} now holds {shown} ({rounded} to "
            f"{figure.rounding} decimals)",
        )
    digest = next(
        (measured[k] for k in DIGEST_KEYS if isinstance(measured, dict) and k in measured), None
    )
    if digest != figure.digest:
        return refused(
            "digest_stale",
            f"the note was read from the run with digest {figure.digest}; {figure.file} is now "
            f"from the run with digest {digest}",
        )
    return FigureCheck(
        figure=figure,
        outcome="bound",
        detail=f"{figure.text!r} is {where} = {shown}, digest current",
    )


def unbound_percentages(note: Note) -> tuple[tuple[int, str], ...]:
    """(line, text) of each percentage (`PERCENTAGE`) in the note's prose (outside its header,
    fenced code and blockquotes: quotes and bound figures) that none of its quotes holds: a
    figure the note quotes from its document is grounded by that quote."""
    lines = note.data.decode("utf-8").split("\n")
    body_start = note.data[: note.header_end].count(b"\n") + 2
    found = []
    for number, (text, code) in enumerate(zip(lines, in_code(lines), strict=True), start=1):
        if number < body_start or code or _BLOCKQUOTE.match(text):
            continue
        found += [
            (number, m.group())
            for m in PERCENTAGE.finditer(text)
            if not any(m.group() in quote.text for quote in note.quotes)
        ]
    return tuple(found)
