"""Hostile inputs the tests and benchmarks/bench_hostile.py build: PDFs written object by object,
each beside its benign control of the same shape."""

from __future__ import annotations

CONTENT = b"BT /F1 12 Tf 72 500 Td (A page of text that reads as a sentence.) Tj ET"
FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def page(size: int, resources: bytes) -> bytes:
    """The one page object: `size` × `size` pt, its content object 4 and `resources`."""
    return (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Contents 4 0 R /Resources %s >>"
        % (
            size,
            size,
            resources,
        )
    )


def pdf(
    kids: bytes,
    count: int,
    *,
    size: int = 612,
    content: bytes = CONTENT,
    resources: bytes = b"<< /Font << /F1 5 0 R >> >>",
    fifth: bytes = FONT,
) -> bytes:
    """A PDF of one page object of `size` × `size` pt under a page tree whose kids are `kids`
    (`2 0 R` is the tree itself); object 5 is `fifth` (a font, or an image)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % count,
        page(size, resources),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        fifth,
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    trailer = b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
    return out + trailer % (len(objects) + 1, xref)


def scan(size: int) -> bytes:
    """A page of `size` × `size` pt holding one 1 × 1 image over the whole of it: a scan."""
    pixel = b"<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray "
    pixel += b"/BitsPerComponent 8 /Length 1 >>\nstream\n\x80\nendstream"
    content = b"q %d 0 0 %d 0 0 cm /Im1 Do Q" % (size, size)
    return pdf(
        b"3 0 R",
        1,
        size=size,
        content=content,
        resources=b"<< /XObject << /Im1 5 0 R >> >>",
        fifth=pixel,
    )


SELF_HOLDING = pdf(b"3 0 R 2 0 R", 2)  # the second kid is the page tree itself
BENIGN = pdf(b"3 0 R", 1)
