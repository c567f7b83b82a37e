"""What the workbench's own OCR read on a page (C18): the engine, its settings and every word kept,
with its confidence and box."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class OcrWord:
    """One word the workbench's OCR read: `text[char_start:char_end]`, the engine's confidence
    (0 to 100) and its box in PDF points in the page's own (unrotated) coordinates, y upwards,
    rounded to 0.1, as `Furniture` boxes are."""

    char_start: int
    char_end: int
    confidence: float
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass(frozen=True, slots=True, kw_only=True)
class OcrReading:
    """How the OCR extractor read one page: the engine build, languages and settings (the named
    extractor's full identity), the quarter turn that set the page upright, the mean word
    confidence, whether it fell below the stated threshold, and every word kept in the text."""

    extractor: str  # "tesseract-ocr" and its rule version, e.g. "tesseract-ocr 1"
    engine: str  # the engine build, e.g. "tesseract 5.3.0 leptonica-1.82.0"
    languages: str  # the engine's language codes, e.g. "eng"
    settings: tuple[tuple[str, str], ...]
    rotation: int  # degrees clockwise the page image was turned to read upright
    mean_confidence: float
    low_confidence: bool
    words: tuple[OcrWord, ...] = ()
