"""OCR as a named extractor (C4, C18): a scanned page read by Debian's tesseract in a child process,
its reading a pure function of inputs whose `derived_key` names its cache entry, and a worker with
another engine build refused by name. The steps, settings and why: docs/extraction.md, "Scanned
pages (OCR)"."""

from __future__ import annotations

import ctypes
import fcntl
import functools
import hashlib
import json
import math
import os
import re
import subprocess
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.metadata import version as distribution_version
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium  # type: ignore[import-untyped]
import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]

from workbench.derived import derived_key
from workbench.errors import ExtractionError, OcrEngineMismatch, OcrUnavailable
from workbench.files import replace_file
from workbench.models import LOW_CONFIDENCE, strict_json

__all__ = [
    "CACHE_DIR_NAME",
    "LOW_CONFIDENCE",
    "OCR_EXTRACTOR",
    "OCR_EXTRACTOR_VERSION",
    "OCR_LANGUAGES",
    "OCR_SETTINGS",
    "EngineBuild",
    "OcrOptions",
    "OcrWordBox",
    "PageReading",
    "default_cache",
    "engine_build",
    "read_page",
    "tesseract_languages",
]

OCR_EXTRACTOR = "tesseract-ocr"
OCR_EXTRACTOR_VERSION = "1"
TESSERACT = "tesseract"
DPI = 300
PSM = 3  # automatic page segmentation; orientation is detected apart, first (OSD, --psm 0)
OEM = 1  # the LSTM engine only
OSD_MIN_CONFIDENCE = 2.0  # tesseract's orientation confidence needed to turn a page
OCR_SETTINGS: tuple[tuple[str, str], ...] = (
    ("dpi", str(DPI)),
    ("oem", str(OEM)),
    ("osd_min_confidence", str(OSD_MIN_CONFIDENCE)),
    ("psm", str(PSM)),
    ("renderer", f"pypdfium2-{distribution_version('pypdfium2')} grey"),
)
# The provenance's `language` (a BCP 47 tag; its primary subtag is looked up) to tesseract's codes.
OCR_LANGUAGES: Mapping[str, str] = {"en": "eng", "de": "deu", "fr": "fra"}
DEFAULT_LANGUAGE = "en"
CACHE_DIR_NAME = "ocr-cache"  # beside the workspace file
CACHE_ENV = "WORKBENCH_OCR_CACHE"  # names one cache every run on a machine shares
TIMEOUT = 600  # seconds one engine call may take before the page is refused
# A page is rendered with at most this many pixels (a letter page at `DPI` has 8.4 million): a
# larger page (a drawing, or a 14,400 pt page a hostile PDF declares) is read at the lower
# resolution that fits, and refused by page when that would be under `MIN_DPI`, where no text
# is legible. The grey bitmap, its copy and the engine's working images stay under a gigabyte.
MAX_PIXELS = 40_000_000
MIN_DPI = 70

_ROTATE = re.compile(r"^Rotate: (\d+)$", re.MULTILINE)
_CONFIDENCE = re.compile(r"^Orientation confidence: ([0-9.]+)$", re.MULTILINE)
_DATA_DIR = re.compile(r'"([^"]+)"')


@dataclass(frozen=True, slots=True, kw_only=True)
class OcrOptions:
    """Where readings are cached (None: nowhere, every page is read) and which engine build a run
    requires (None: the one installed; a Dask worker gets the client's, `engine_build()`)."""

    cache: Path | None = None
    engine: EngineBuild | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class OcrWordBox:
    """A word as the engine read it: its text, confidence (0 to 100), box in PDF points (page
    coordinates, y upwards), the (block, paragraph, line) it stands in and the direction it reads
    in on the page (0, 90, 180 or 270 degrees counter-clockwise, as `pdf.py` measures glyphs)."""

    text: str
    confidence: float
    x0: float
    y0: float
    x1: float
    y1: float
    line: tuple[int, int, int]
    quadrant: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PageReading:
    """One page read by OCR: the engine identity, languages, rotation applied and the words in
    the engine's reading order."""

    engine: str
    languages: str
    rotation: int
    words: tuple[OcrWordBox, ...]

    @property
    def mean_confidence(self) -> float:
        """The mean of the words' confidences, 0.0 for a page with no word."""
        return sum(w.confidence for w in self.words) / len(self.words) if self.words else 0.0


def default_cache(workspace_file: Path) -> Path:
    """The OCR cache of a workspace: the folder `$WORKBENCH_OCR_CACHE` names when set (one cache
    that every workspace on a machine shares, as the test suite's do), else `CACHE_DIR_NAME`
    beside the workspace file."""
    named = os.environ.get(CACHE_ENV)
    return Path(named) if named else workspace_file.parent / CACHE_DIR_NAME


def tesseract_languages(language: str | None, *, source: str) -> str:
    """Tesseract's language code for a provenance `language` (English when None).

    Refused with `OcrUnavailable` when the tag's primary subtag has no entry in `OCR_LANGUAGES`.
    """
    tag = (language or DEFAULT_LANGUAGE).split("-")[0].lower()
    if tag not in OCR_LANGUAGES:
        known = ", ".join(sorted(OCR_LANGUAGES))
        raise OcrUnavailable(
            f"{source}: provenance language {language!r} has no OCR data here; expected one of "
            f"{known}"
        )
    return OCR_LANGUAGES[tag]


@dataclass(frozen=True, slots=True, kw_only=True)
class EngineBuild:
    """The OCR engine a machine has: the versions `tesseract --version` prints and the digest
    (SHA-256, first 16 hex digits) of every data file it has, by name (`eng`, `osd`, ...)."""

    version: str
    data: tuple[tuple[str, str], ...]

    def identity(self, languages: str) -> str:
        """What a reading in `languages` depends on: the versions and the digests of the data
        files it loads (the languages, and `osd` for orientation)."""
        held = dict(self.data)
        files = [*languages.split("+"), "osd"]
        missing = [name for name in files if name not in held]
        if missing:
            raise OcrUnavailable(
                f"no tesseract data for {', '.join(missing)}; expected Debian's "
                + " ".join(f"tesseract-ocr-{name}" for name in missing)
            )
        return f"{self.version} " + " ".join(f"{name}:{held[name]}" for name in files)


@functools.cache
def engine_build() -> EngineBuild:
    """This machine's engine build, asked of the binary once a process. Refused with
    `OcrUnavailable` when tesseract is not installed."""
    try:
        shown = _run([TESSERACT, "--version"], b"").decode("utf-8", "replace").split("\n")
        listed = _run([TESSERACT, "--list-langs"], b"", check=False).decode("utf-8", "replace")
    except FileNotFoundError as error:
        raise OcrUnavailable(
            f"the OCR engine '{TESSERACT}' is not installed; expected Debian's tesseract-ocr "
            "(run 'make ocr', or 'apt-get install tesseract-ocr tesseract-ocr-eng')"
        ) from error
    folder = _DATA_DIR.search(listed)
    if folder is None:
        raise OcrUnavailable(f"'{TESSERACT} --list-langs' names no data folder; expected one")
    data = []
    for path in sorted(Path(folder.group(1)).glob("*.traineddata")):
        data.append((path.stem, hashlib.sha256(path.read_bytes()).hexdigest()[:16]))
    return EngineBuild(version=" ".join(line.strip() for line in shown[:2]), data=tuple(data))


def read_page(
    page: pdfium.PdfPage,
    *,
    page_number: int,
    artefact_sha256: str,
    languages: str,
    options: OcrOptions,
    source: str,
) -> PageReading:
    """Read one page by OCR, or take its reading from the cache (rules: docs/extraction.md, "Scanned pages (OCR)").

    Refused with `OcrUnavailable` when the engine or a data file is missing, with
    `OcrEngineMismatch` when `options.engine` names another build, and with `ExtractionError`
    when the engine fails on the page.
    """
    try:
        engine = engine_build().identity(languages)
        required = None if options.engine is None else options.engine.identity(languages)
    except OcrUnavailable as error:
        raise OcrUnavailable(f"{source}: page {page_number} is a scan: {error}") from error
    if required is not None and required != engine:
        raise OcrEngineMismatch(
            f"{source}: page {page_number}: this machine's OCR engine is '{engine}'; the run "
            f"requires '{required}'; install the same tesseract build and data everywhere"
        )
    inputs = {
        "extractor": [OCR_EXTRACTOR, OCR_EXTRACTOR_VERSION],
        "artefact_sha256": artefact_sha256,
        "page": page_number,
        "engine": engine,
        "languages": languages,
        "settings": dict(OCR_SETTINGS),
    }
    if options.cache is None:
        return _read(
            page, page_number=page_number, engine=engine, languages=languages, source=source
        )
    cache = OcrCache(options.cache)
    if (held := cache.get(inputs)) is not None:
        return held
    with cache.reading(inputs):  # another process reading this page waits, then takes its words
        if (held := cache.get(inputs)) is not None:
            return held
        reading = _read(
            page, page_number=page_number, engine=engine, languages=languages, source=source
        )
        cache.put(inputs, reading)
    return reading


# ---------------------------------------------------------------------------------------------
# The engine


def _run(arguments: list[str], stdin: bytes, *, check: bool = True) -> bytes:
    """Run the engine single-threaded (in the child's environment only) and return its stdout;
    with `check`, a non-zero exit is an `ExtractionError` quoting the engine's last word."""
    done = subprocess.run(
        arguments,
        input=stdin,
        capture_output=True,
        env={**os.environ, "OMP_THREAD_LIMIT": "1"},
        timeout=TIMEOUT,
        check=False,
    )
    if check and done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ExtractionError(f"tesseract failed ({detail[-1] if detail else done.returncode})")
    return done.stdout


def page_dpi(width_pt: float, height_pt: float) -> int:
    """The resolution a page of `width_pt` × `height_pt` points is read at: `DPI`, or the
    highest whole number of dots per inch that keeps it within `MAX_PIXELS`; 0 when that is
    under `MIN_DPI` (the page is refused)."""
    area = max(width_pt, 1.0) * max(height_pt, 1.0) / 72**2  # square inches
    fits = min(DPI, math.floor(math.sqrt(MAX_PIXELS / area)))
    while (
        fits > 0 and math.ceil(width_pt * fits / 72) * math.ceil(height_pt * fits / 72) > MAX_PIXELS
    ):
        fits -= 1  # rounding up of each side may cross the cap
    return fits if fits >= MIN_DPI else 0


def _render(page: pdfium.PdfPage, rotation: int, dpi: int) -> tuple[bytes, int, int]:
    """The page rendered in grey at `dpi`, turned `rotation` degrees clockwise, as a PGM file."""
    bitmap = page.render(scale=dpi / 72, grayscale=True, rotation=rotation)
    width, height, stride = bitmap.width, bitmap.height, bitmap.stride
    raw = bytes(bitmap.buffer)
    if stride != width:  # rows padded to the stride: keep each row's pixels only
        raw = b"".join(raw[row * stride : row * stride + width] for row in range(height))
    return b"P5\n%d %d\n255\n" % (width, height) + raw, width, height


def _read(
    page: pdfium.PdfPage, *, page_number: int, engine: str, languages: str, source: str
) -> PageReading:
    width_pt, height_pt = page.get_size()
    dpi = page_dpi(width_pt, height_pt)
    if not dpi:
        raise ExtractionError(
            f"{source}: page {page_number}: {width_pt:g} × {height_pt:g} pt is too large to read "
            f"by OCR: within {MAX_PIXELS} pixels it would be under {MIN_DPI} dpi"
        )
    common = ["-", "stdout", "--dpi", str(dpi)]
    try:
        image, width, height = _render(page, 0, dpi)
        # OSD exits non-zero when it finds too few characters: the page then stands as it is.
        detected = _run([TESSERACT, *common, "--psm", "0"], image, check=False)
        shown = detected.decode("utf-8", "replace")
        rotate, confidence = _ROTATE.search(shown), _CONFIDENCE.search(shown)
        rotation = 0
        if rotate and confidence and float(confidence.group(1)) >= OSD_MIN_CONFIDENCE:
            rotation = int(rotate.group(1)) % 360
        if rotation:
            image, width, height = _render(page, rotation, dpi)
        table = _run(
            [TESSERACT, *common, "--psm", str(PSM), "--oem", str(OEM), "-l", languages, "tsv"],
            image,
        ).decode("utf-8")
    except ExtractionError as error:
        raise ExtractionError(f"{source}: page {page_number}: {error}") from error
    except subprocess.TimeoutExpired as error:
        raise ExtractionError(
            f"{source}: page {page_number}: tesseract took over {TIMEOUT} seconds"
        ) from error
    words = _words(table, page, width, height, rotation)
    return PageReading(engine=engine, languages=languages, rotation=rotation, words=words)


def _words(
    table: str, page: pdfium.PdfPage, width: int, height: int, rotation: int
) -> tuple[OcrWordBox, ...]:
    """The TSV's words (level 5, a confidence, not blank), boxes mapped to PDF points."""
    x, y = ctypes.c_double(), ctypes.c_double()
    x_ref, y_ref = ctypes.byref(x), ctypes.byref(y)
    turn = rotation // 90

    def to_page(px: float, py: float) -> tuple[float, float]:
        pdfium_c.FPDF_DeviceToPage(
            page.raw, 0, 0, width, height, turn, round(px), round(py), x_ref, y_ref
        )
        return x.value, y.value

    words = []
    for row in table.split("\n")[1:]:
        cells = row.split("\t")
        if len(cells) != 12 or cells[0] != "5" or not cells[11].strip():
            continue
        confidence = float(cells[10])
        if confidence < 0:
            continue
        left, top, w, h = (int(c) for c in cells[6:10])
        corners = [to_page(left, top), to_page(left + w, top + h)]
        (ax, ay), (bx, by) = to_page(left, top + h / 2), to_page(left + w, top + h / 2)
        angle = math.degrees(math.atan2(by - ay, bx - ax)) % 360
        words.append(
            OcrWordBox(
                text=cells[11].strip(),
                confidence=confidence,
                x0=min(c[0] for c in corners),
                y0=min(c[1] for c in corners),
                x1=max(c[0] for c in corners),
                y1=max(c[1] for c in corners),
                line=(int(cells[2]), int(cells[3]), int(cells[4])),
                quadrant=round(angle / 90) % 4 * 90,
            )
        )
    return tuple(words)


# ---------------------------------------------------------------------------------------------
# The cache


@dataclass(frozen=True, slots=True)
class OcrCache:
    """A folder of page readings, one `<content id of the inputs>.json` each (written whole)."""

    folder: Path

    def path(self, inputs: Mapping[str, Any]) -> Path:
        """The entry of `inputs`, named by the one key rule (`derived.derived_key`): the reading
        is derived by this extractor's version (the engine build is among the inputs)."""
        code = f"{OCR_EXTRACTOR} {OCR_EXTRACTOR_VERSION}"
        return self.folder / f"{derived_key('ocr-page', dict(inputs), code)}.json"

    def get(self, inputs: Mapping[str, Any]) -> PageReading | None:
        """The reading held for exactly `inputs`, or None (absent, unreadable, other inputs)."""
        try:
            data = strict_json(self.path(inputs).read_text("utf-8"), ValueError)
            if data["inputs"] != dict(inputs):
                return None
            return PageReading(
                engine=data["inputs"]["engine"],
                languages=data["inputs"]["languages"],
                rotation=data["rotation"],
                words=tuple(
                    OcrWordBox(
                        text=t, confidence=c, x0=a, y0=b, x1=d, y1=e, line=tuple(n), quadrant=q
                    )
                    for t, c, a, b, d, e, n, q in data["words"]
                ),
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    @contextmanager
    def reading(self, inputs: Mapping[str, Any]) -> Iterator[None]:
        """Held by one process at a time for the entry of `inputs`: two processes that miss the
        same page run the engine once. The lock is on the entry's own file (opened to append, so
        created empty if absent: an entry that cannot be read, as `get` takes it); `put` replaces
        that file whole, and the lock ends with its holder, however it ends."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with self.path(inputs).open("a") as entry:
            fcntl.flock(entry, fcntl.LOCK_EX)
            yield

    def put(self, inputs: Mapping[str, Any], reading: PageReading) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        data = {
            "inputs": dict(inputs),
            "rotation": reading.rotation,
            "words": [
                [w.text, w.confidence, w.x0, w.y0, w.x1, w.y1, list(w.line), w.quadrant]
                for w in reading.words
            ],
        }
        payload = json.dumps(data, ensure_ascii=False, sort_keys=True) + "\n"
        replace_file(self.path(inputs), payload.encode("utf-8"))
