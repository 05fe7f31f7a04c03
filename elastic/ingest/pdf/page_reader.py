"""The words of each statement page with their boxes: from the text layer, or from Tesseract for
a scanned page.

Both the text layer and the rendering for OCR come from pypdfium2 rather than pdfplumber: one
parser gives words read from text and words read from a scan the same page geometry (crop box,
rotation), its C text extraction is several times faster than pdfminer's pure Python, and the
project already depends on it. pdfium reports characters with their boxes, including the spaces it
infers from gaps, so grouping them into words takes a few rules. Every pdfium call is made while
holding ``PDFIUM_LOCK``, one page at a time, so other sessions can read PDFs in between; Tesseract
runs outside the lock in its own process.
"""

from __future__ import annotations

import csv
import ctypes
import functools
import io
import math
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from PIL import Image

from elastic.ingest.parsed import Box, UnreadableFile
from elastic.ingest.pdf.page_words import PageText, Word
from elastic.ingest.pdf.reader import PDFIUM_LOCK

MAX_PAGES = 500
MAX_PAGE_POINTS = 200 * 72  # a page side beyond 200 inches is not a statement page
MAX_RENDER_PIXELS = 50_000_000
OCR_DPI = 300
OCR_LANGUAGES = ("eng", "deu")
OCR_TIMEOUT_SECONDS = 180
# Tesseract's sparse-text segmentation: every word it can find, in no particular order. Lines
# are formed here from the words' boxes; the default page segmentation drops narrow table columns
# (a payment type printed beside its details) as if they were noise.
OCR_SEGMENTATION = "11"
# Words on one line: their bottoms differ by less than this share of the smaller word's height.
# Text-layer boxes span the font's ascent to descent, so equal bottoms mean an equal baseline;
# OCR boxes end at the lowest ink, so a word with descenders sits a little lower.
LINE_TOLERANCE = 0.45
# Or, for OCR boxes of words with and without descenders, ascenders or capitals, the smaller
# word lies at least this share of its height within the other's top and bottom. (Text-layer
# boxes of a large and a small font overlap so without sharing a baseline.)
LINE_OVERLAP = 0.75
# A gap wider than this share of the font size between two characters separates words.
WORD_GAP = 0.25
# A scanned page turned by up to this many degrees is straightened before its lines are formed;
# the angle is found to a hundredth of a degree, and below the least one the page is left as is.
MAX_SKEW_DEGREES = 2.0
SKEW_STEP_DEGREES = 0.01
MIN_SKEW_DEGREES = 0.05
SKEW_TOLERANCE = 1.0  # points: word centres this close share a line at the right angle
_RULES = "|¦│┃"  # what OCR makes of a table's vertical ruled lines
MIN_SKEW_WORDS = 20


@dataclass(frozen=True)
class _Geometry:
    """Maps pdfium's page space (origin bottom-left, unrotated) to the page as displayed."""

    left: float
    bottom: float
    right: float
    top: float
    rotation: int  # clockwise, as the page is displayed

    @property
    def size(self) -> tuple[float, float]:
        width, height = self.right - self.left, self.top - self.bottom
        return (height, width) if self.rotation in (90, 270) else (width, height)

    def point(self, x: float, y: float) -> tuple[float, float]:
        if self.rotation == 90:
            return y - self.bottom, x - self.left
        if self.rotation == 180:
            return self.right - x, y - self.bottom
        if self.rotation == 270:
            return self.top - y, self.right - x
        return x - self.left, self.top - y

    def box(self, left: float, bottom: float, right: float, top: float) -> Box:
        (ax, ay), (bx, by) = self.point(left, bottom), self.point(right, top)
        return min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)

    def clip(self, box: Box) -> Box:
        """The box rounded to hundredths of a point and kept on the page."""
        width, height = self.size
        x0, top, x1, bottom = box
        return _clamp(x0, width), _clamp(top, height), _clamp(x1, width), _clamp(bottom, height)

    def upright(self, angle: float) -> bool:
        """Whether a character drawn at ``angle`` (pdfium: radians, clockwise) reads left to
        right on the displayed page; rotated margin text and diagonal watermarks do not."""
        off = (math.degrees(angle) + self.rotation) % 360
        return min(off, 360 - off) < 2


def _clamp(value: float, limit: float) -> float:
    return round(min(max(value, 0.0), limit), 2)


def read_pages(path: Path, ocr: bool = True) -> list[PageText]:
    """Every page's words and lines, in reading order.

    A page without a text layer is recognised with Tesseract when ``ocr`` is set and Tesseract
    is installed; otherwise it has no words and a ``problem``. Past ``MAX_PAGES`` pages, one more
    ``PageText`` numbered ``MAX_PAGES + 1`` carries only the problem saying so. Raises
    ``UnreadableFile`` for a file pdfium cannot open (corrupt, not a PDF, encrypted).
    """
    document = _open(path)
    try:
        with PDFIUM_LOCK:
            count = len(document)
        pages = [
            _read_page(document, number, ocr) for number in range(1, min(count, MAX_PAGES) + 1)
        ]
        if count > MAX_PAGES:
            with PDFIUM_LOCK:
                width, height = (round(side, 2) for side in document.get_page_size(MAX_PAGES))
            problem = f"the PDF has {count} pages; only the first {MAX_PAGES} were read"
            pages.append(PageText(MAX_PAGES + 1, width, height, [], "", problem=problem))
    finally:
        with PDFIUM_LOCK:
            document.close()
    return pages


def _open(path: Path) -> pdfium.PdfDocument:
    with PDFIUM_LOCK:
        try:
            return pdfium.PdfDocument(path)
        except pdfium.PdfiumError as exc:
            code, message = pdfium_c.FPDF_GetLastError(), str(exc)
    if code in (pdfium_c.FPDF_ERR_PASSWORD, pdfium_c.FPDF_ERR_SECURITY):
        raise UnreadableFile("the PDF is encrypted (it cannot be opened without its password)")
    raise UnreadableFile(f"not a readable PDF: {message}")


def _read_page(document: pdfium.PdfDocument, number: int, ocr: bool) -> PageText:
    needs_ocr = f"page {number} has no text; it needs OCR"
    tesseract = _tesseract() if ocr else None
    image: Image.Image | None = None
    try:
        with PDFIUM_LOCK:
            page = document[number - 1]
            try:
                geometry = _geometry(page)
                width, height = (round(side, 2) for side in geometry.size)
                words, has_text = _text_layer_words(page, geometry)
                too_large = _too_large(width, height)
                if not has_text and tesseract and not too_large:
                    image = _render(page)
            finally:
                page.close()
    except pdfium.PdfiumError as exc:
        return PageText(number, 0.0, 0.0, [], "", problem=f"page {number} cannot be read ({exc})")
    if words:
        return _page_text(number, width, height, words, ocr=False)
    if has_text:
        problem = f"page {number} has text only at an angle; it was not read"
        return PageText(number, width, height, [], "", problem=problem)
    if tesseract and too_large:
        return PageText(number, width, height, [], "", problem=f"{needs_ocr}, but {too_large}")
    if tesseract is None or image is None:
        return PageText(number, width, height, [], "", problem=needs_ocr)
    try:
        words = _ocr_words(image, OCR_DPI / 72, tesseract)
    except (OSError, subprocess.SubprocessError) as exc:
        problem = f"{needs_ocr} (Tesseract failed: {exc})"
        return PageText(number, width, height, [], "", ocr=True, problem=problem)
    if not words:
        problem = f"page {number} has no text; OCR found none"
        return PageText(number, width, height, [], "", ocr=True, problem=problem)
    return _page_text(number, width, height, _straightened(words, width, height), ocr=True)


def _geometry(page: pdfium.PdfPage) -> _Geometry:
    left, bottom, right, top = page.get_bbox()
    return _Geometry(left, bottom, right, top, page.get_rotation())


def _too_large(width: float, height: float) -> str | None:
    """Why a page is not rendered for OCR, or None when it can be."""
    if width > MAX_PAGE_POINTS or height > MAX_PAGE_POINTS:
        return f"at {width / 72:.0f} x {height / 72:.0f} inches it is too large to render"
    pixels = (width * OCR_DPI / 72) * (height * OCR_DPI / 72)
    if pixels > MAX_RENDER_PIXELS:
        return (
            f"rendering it at {OCR_DPI} dpi would take {pixels / 1e6:.0f} megapixels "
            f"(at most {MAX_RENDER_PIXELS / 1e6:.0f})"
        )
    return None


def _text_layer_words(page: pdfium.PdfPage, geometry: _Geometry) -> tuple[list[Word], bool]:
    """Characters grouped into words: a space, a line break, a gap, a jump back or to another
    baseline ends a word. Characters that are not upright on the displayed page are left out.
    The flag says whether the page has a text layer at all (any visible character)."""
    textpage = page.get_textpage()
    rect = pdfium_c.FS_RECTF()
    try:
        words: list[Word] = []
        text, boxes = "", []
        has_text = False
        for index in range(textpage.count_chars()):
            char = chr(pdfium_c.FPDFText_GetUnicode(textpage, index))
            printed = char.isprintable() and not char.isspace()
            has_text = has_text or printed
            box = None
            if printed and geometry.upright(pdfium_c.FPDFText_GetCharAngle(textpage, index)):
                box = _char_box(textpage, index, geometry, rect)
            if boxes and (box is None or not _same_word(boxes[-1], box)):
                words.append(Word(text, geometry.clip(_union(boxes))))
                text, boxes = "", []
            if box is not None:
                text += char
                boxes.append(box)
        if boxes:
            words.append(Word(text, geometry.clip(_union(boxes))))
    finally:
        textpage.close()
    return _without_overprint(words), has_text


def _char_box(
    textpage: pdfium.PdfTextPage, index: int, geometry: _Geometry, rect: pdfium_c.FS_RECTF
) -> Box:
    """The character's advance across its font's ascent to descent, as displayed.

    pdfium's loose box has that shape but collapses to a point for text drawn at an angle (the
    upright text of a page displayed rotated); there the box runs from the character's origin
    to the end of its ink, and the font size gives its height around the baseline.
    """
    pdfium_c.FPDFText_GetLooseCharBox(textpage, index, rect)
    if rect.right > rect.left and rect.top > rect.bottom:
        return geometry.box(rect.left, rect.bottom, rect.right, rect.top)
    x, y = ctypes.c_double(), ctypes.c_double()
    pdfium_c.FPDFText_GetCharOrigin(textpage, index, x, y)
    size = pdfium_c.FPDFText_GetFontSize(textpage, index)
    origin, baseline = geometry.point(x.value, y.value)
    ink = geometry.box(*textpage.get_charbox(index))
    return origin, baseline - 0.8 * size, max(origin, ink[2]), baseline + 0.2 * size


def _same_word(previous: Box, box: Box) -> bool:
    size = previous[3] - previous[1]
    gap = box[0] - previous[2]
    return -size * WORD_GAP < gap <= size * WORD_GAP and abs(box[3] - previous[3]) < size / 2


def _union(boxes: Sequence[Box]) -> Box:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _without_overprint(words: list[Word]) -> list[Word]:
    """Drops a word printed again over itself (a bold effect some statement printers use)."""
    kept: list[Word] = []
    for word in words:
        if not any(k.text == word.text and _overlap(k.box, word.box) > 0.8 for k in kept[-8:]):
            kept.append(word)
    return kept


def _overlap(a: Box, b: Box) -> float:
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    area = (a[2] - a[0]) * (a[3] - a[1])
    return width * height / area if width > 0 and height > 0 and area > 0 else 0.0


def _straightened(words: list[Word], width: float, height: float) -> list[Word]:
    """OCR words of a page scanned at a slight angle, with their boxes turned back about the
    page's centre so that each printed line shares one baseline again. A box moves by at most
    the angle (in radians) times its distance from the centre: a few points on a page turned by
    half a degree."""
    angle = _skew(words, width / 2)
    if abs(angle) < math.radians(MIN_SKEW_DEGREES):
        return words
    cos, sin = math.cos(angle), math.sin(angle)
    cx, cy = width / 2, height / 2
    turned: list[Word] = []
    for word in words:
        x0, top, x1, bottom = word.box
        x, y = (x0 + x1) / 2 - cx, (top + bottom) / 2 - cy
        mx, my = cx + x * cos + y * sin, cy - x * sin + y * cos
        half_w, half_h = (x1 - x0) / 2, (bottom - top) / 2
        box = (
            _clamp(mx - half_w, width),
            _clamp(my - half_h, height),
            _clamp(mx + half_w, width),
            _clamp(my + half_h, height),
        )
        turned.append(Word(word.text, box))
    return turned


def _skew(words: Sequence[Word], middle: float) -> float:
    """The angle (radians, clockwise as displayed) at which the words' centres line up best:
    the most pairs of words whose centres lie within ``SKEW_TOLERANCE`` of one line, searched
    coarsely over ``MAX_SKEW_DEGREES`` either way and then finely around the best."""
    if len(words) < MIN_SKEW_WORDS:
        return 0.0
    centres = [((w.box[0] + w.box[2]) / 2 - middle, (w.box[1] + w.box[3]) / 2) for w in words]

    def aligned(degrees: float) -> int:
        slope = math.tan(math.radians(degrees))
        heights = sorted(y - x * slope for x, y in centres)
        pairs, start = 0, 0
        for end, value in enumerate(heights):
            while value - heights[start] > SKEW_TOLERANCE:
                start += 1
            pairs += end - start
        return pairs

    coarse = 10 * SKEW_STEP_DEGREES
    steps = round(MAX_SKEW_DEGREES / coarse)
    best = max((n * coarse for n in range(-steps, steps + 1)), key=lambda d: (aligned(d), -abs(d)))
    fine = (best + n * SKEW_STEP_DEGREES for n in range(-10, 11))
    return math.radians(max(fine, key=lambda d: (aligned(d), -abs(d))))


def group_lines(words: Sequence[Word], ocr: bool = False) -> list[list[Word]]:
    """Words that share a baseline, top to bottom; each line's words left to right. ``ocr``:
    the boxes end at the words' ink, as OCR gives them."""
    lines: list[list[Word]] = []
    for word in sorted(words, key=lambda w: (w.box[3], w.box[0])):
        if lines:
            first = lines[-1][0]
            height = min(word.box[3] - word.box[1], first.box[3] - first.box[1])
            shared = min(word.box[3], first.box[3]) - max(word.box[1], first.box[1])
            if word.box[3] - first.box[3] <= LINE_TOLERANCE * height or (
                ocr and shared >= LINE_OVERLAP * height
            ):
                lines[-1].append(word)
                continue
        lines.append([word])
    return [sorted(line, key=lambda w: w.box[0]) for line in lines]


def _page_text(number: int, width: float, height: float, words: list[Word], ocr: bool) -> PageText:
    lines = group_lines(words, ocr)
    ordered = [word for line in lines for word in line]
    text = "\n".join(" ".join(word.text for word in line) for line in lines)
    return PageText(number, width, height, ordered, text, ocr=ocr)


def _render(page: pdfium.PdfPage) -> Image.Image:
    """The page in grayscale at ``OCR_DPI``, copied out of pdfium's buffer (called under the
    lock; the copy outlives the page)."""
    bitmap = page.render(scale=OCR_DPI / 72, grayscale=True)
    try:
        return bitmap.to_pil().copy()
    finally:
        bitmap.close()


@functools.cache
def _tesseract() -> str | None:
    return shutil.which("tesseract")


@functools.cache
def _ocr_languages(tesseract: str) -> str:
    """English and German where their trained data is installed (English alone otherwise)."""
    listing = subprocess.run(
        [tesseract, "--list-langs"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    ).stdout.split()
    return "+".join(lang for lang in OCR_LANGUAGES if lang in listing) or OCR_LANGUAGES[0]


def _ocr_words(image: Image.Image, scale: float, tesseract: str) -> list[Word]:
    """Tesseract's words (TSV output, level 5) with pixel boxes turned back into points."""
    buffer = io.BytesIO()
    image.save(buffer, format="PPM")
    # One thread per recognition: several sessions may recognise pages at the same time.
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    command = [tesseract, "stdin", "stdout", "-l", _ocr_languages(tesseract)]
    result = subprocess.run(
        [*command, "--dpi", str(OCR_DPI), "--psm", OCR_SEGMENTATION, "tsv"],
        input=buffer.getvalue(),
        capture_output=True,
        timeout=OCR_TIMEOUT_SECONDS,
        env=env,
        check=False,
    )
    if result.returncode != 0:
        detail = result.stderr.decode(errors="replace").strip().splitlines()
        raise OSError(f"exit status {result.returncode}: {detail[-1] if detail else 'no output'}")
    rows = csv.DictReader(
        io.StringIO(result.stdout.decode("utf-8", errors="replace")),
        delimiter="\t",
        quoting=csv.QUOTE_NONE,
    )
    width, height = image.width / scale, image.height / scale
    words: list[Word] = []
    for row in rows:
        # A table's ruled lines come out as bars of their own or stuck to a word ("5,500.00|").
        text = (row.get("text") or "").strip().strip(_RULES)
        if row.get("level") != "5" or not text or float(row.get("conf") or -1) < 0:
            continue
        left, top = int(row["left"]) / scale, int(row["top"]) / scale
        right = left + int(row["width"]) / scale
        bottom = top + int(row["height"]) / scale
        box = (
            _clamp(left, width),
            _clamp(top, height),
            _clamp(right, width),
            _clamp(bottom, height),
        )
        words.append(Word(text, box))
    return words
