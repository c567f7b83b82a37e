"""Bytes to text, exactly (DESIGN.md C1, C14): strict UTF-8 with no newline translation, and every
byte-level refusal named by the byte or line at fault. Every extractor that reads text (plain text,
Markdown, XML) decodes here first, so they refuse the same bytes with the same words.
"""

from __future__ import annotations

from workbench.errors import TextDecodeError

MAX_LINE_CHARS = 1_000_000


def decode_text(data: bytes, *, source: str, line_limit: bool = True) -> str:
    """Decode `data` as strict UTF-8, exactly: no newline translation, a UTF-8 BOM kept as U+FEFF.

    Refused with `TextDecodeError`, cheapest check first: empty input; a UTF-32 or UTF-16 byte
    order mark at byte 0; a NUL byte; invalid UTF-8 (the offset and value of the first bad byte);
    with `line_limit`, a line (ended by "\\n") longer than `MAX_LINE_CHARS` characters (its
    1-based number, length). The line limit guards plain text, whose lines become the passages'
    lines; XML is laid out by its elements, and one-line XML files are common (Justice Canada's).
    """
    if not data:
        raise TextDecodeError(f"{source}: empty file; expected text")
    # CAUTION: UTF-32 LE's mark begins with UTF-16 LE's; the longer marks are tested first.
    for mark, name in (
        (b"\xff\xfe\x00\x00", "UTF-32"),
        (b"\x00\x00\xfe\xff", "UTF-32"),
        (b"\xff\xfe", "UTF-16"),
        (b"\xfe\xff", "UTF-16"),
    ):
        if data.startswith(mark):
            raise TextDecodeError(f"{source}: {name} byte order mark at byte 0; expected UTF-8")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise TextDecodeError(f"{source}: NUL byte at byte {nul}; expected text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TextDecodeError(
            f"{source}: invalid UTF-8 at byte {error.start} "
            f"(0x{data[error.start]:02x}); expected UTF-8 text"
        ) from error
    # A line has no more characters than bytes, so only a byte run longer than the limit can fail;
    # rfind over a limit-sized window steps over many short lines per call, in C.
    pos = 0
    while line_limit and len(data) - pos > MAX_LINE_CHARS:
        newline = data.rfind(b"\n", pos, pos + MAX_LINE_CHARS + 1)
        if newline < 0:
            end = data.find(b"\n", pos)
            end = len(data) if end < 0 else end
            length = len(data[pos:end].decode("utf-8"))
            if length > MAX_LINE_CHARS:
                line = data.count(b"\n", 0, pos) + 1
                raise TextDecodeError(
                    f"{source}: line {line} is {length} characters long; "
                    f"expected at most {MAX_LINE_CHARS}"
                )
            newline = end
        pos = newline + 1
    return text
