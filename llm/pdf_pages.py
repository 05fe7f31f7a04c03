"""Statement pages rendered to PNG with pdfium: account numbers blacked out (last four digits
left), the cited passage highlighted: the app's source viewer and the API's page images draw
them here, so both mask alike. No Streamlit here.

A page is drawn at ``RENDER_SCALE`` unless that would exceed ``MAX_RENDER_PIXELS`` (or
``MAX_RENDER_SIDE``): then at the scale that fits, and not at all below ``MIN_RENDER_SCALE``.
pdfium cannot be interrupted, and what a page costs to draw also depends on what it holds (a
compressed image of a billion pixels is decoded whole), so each page is drawn in a child
process (``python -m llm.pdf_pages``) that is stopped after ``RENDER_TIMEOUT_S`` and may use at
most ``RENDER_MEMORY_BYTES``.
"""

from __future__ import annotations

import io
import json
import logging
import math
import re
import resource
import subprocess
import sys
import threading
from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image, ImageDraw

from elastic.ingest.pdf.reader import PDFIUM_LOCK
from elastic.model.records import Box
from llm.redaction import hidden_spans

log = logging.getLogger(__name__)

RENDER_SCALE = 1.5  # 108 dpi: sharp in a dialog, small enough to send quickly
MAX_RENDER_PIXELS = 5_000_000  # an A4 page at RENDER_SCALE is 1.1 megapixels
MAX_RENDER_SIDE = 6_000  # pixels on the longer side: a strip of a page is no more useful
MIN_RENDER_SCALE = 0.1  # 7 dpi: below this nothing on the page could be read
RENDER_TIMEOUT_S = 20.0
RENDER_MEMORY_BYTES = 1536 * 1024 * 1024
RENDER_PROCESSES = 2  # pages drawn at once in this server; others wait for a slot
HIGHLIGHT_RGBA = (253, 224, 71, 110)
REDACTION_RGB = (30, 41, 59)
_PAD = 1.5  # points around each text box
_PROJECT = Path(__file__).resolve().parent.parent
_TOO_LARGE_EXIT = 3  # the child's exit status for a page too large to draw
_render_slots = threading.BoundedSemaphore(RENDER_PROCESSES)


PixelBox = tuple[float, float, float, float]  # left, top, right, bottom in image pixels


class PageNotDrawn(Exception):
    """A page that is not shown as an image; the message says why, for the person viewing."""


def page_count(pdf_path: Path) -> int:
    with PDFIUM_LOCK:
        document = pdfium.PdfDocument(pdf_path)
        try:
            return len(document)
        finally:
            document.close()


def readable_page_count(pdf_path: Path) -> int | None:
    """The pages of a PDF, or None when pdfium cannot open it."""
    try:
        return page_count(pdf_path)
    except pdfium.PdfiumError:
        return None


def render_scale(width: float, height: float) -> float | None:
    """The scale to draw a page of ``width`` × ``height`` points at, or None when even
    ``MIN_RENDER_SCALE`` would exceed the pixel budget.

    pdfium rounds each side up, so the budget is kept for ``(w·s + 1)(h·s + 1)`` pixels: the
    positive root of ``w·h·s² + (w + h)·s + 1 − MAX_RENDER_PIXELS = 0``."""
    area, perimeter = width * height, width + height
    if area <= 0:
        return None
    fits = (-perimeter + math.sqrt(perimeter**2 + 4 * area * (MAX_RENDER_PIXELS - 1))) / (2 * area)
    scale = min(RENDER_SCALE, fits, (MAX_RENDER_SIDE - 1) / max(width, height))
    return scale if scale >= MIN_RENDER_SCALE else None


def _passage_span(text: str, passage: str | None) -> tuple[int, int] | None:
    words = (passage or "").split()
    if not words:
        return None
    match = re.search(r"\s+".join(re.escape(word) for word in words), text)
    return match.span() if match else None


def _boxes(
    textpage: pdfium.PdfTextPage, span: tuple[int, int], height: float, scale: float
) -> list[PixelBox]:
    """Pixel boxes covering characters ``span`` of the text page, one per line."""
    start, end = span
    boxes = []
    for index in range(textpage.count_rects(start, end - start)):
        left, bottom, right, top = textpage.get_rect(index)
        boxes.append(
            (
                (left - _PAD) * scale,
                (height - top - _PAD) * scale,
                (right + _PAD) * scale,
                (height - bottom + _PAD) * scale,
            )
        )
    return boxes


def _marked(
    image: Image.Image, highlights: list[PixelBox], redactions: list[PixelBox]
) -> Image.Image:
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    for box in highlights:
        draw.rectangle(box, fill=HIGHLIGHT_RGBA)
    for box in redactions:
        draw.rectangle(box, fill=(*REDACTION_RGB, 255))
    return Image.alpha_composite(image.convert("RGBA"), overlay).convert("RGB")


def page_png(
    pdf_path: Path,
    page: int,
    account_no: str,
    passage: str | None = None,
    region: Box | None = None,
) -> bytes:
    """Page ``page`` (1-based) as PNG, ``account_no`` masked, ``passage`` highlighted, and
    ``region`` (a cited row or fact: x0, top, x1, bottom in points) highlighted too, drawn in
    this process at :func:`render_scale`. Raises PageNotDrawn for a page too large to draw."""
    with PDFIUM_LOCK:
        document = pdfium.PdfDocument(pdf_path)
        try:
            if not 1 <= page <= len(document):
                raise IndexError(f"page {page} is not in a {len(document)}-page statement")
            pdf_page = document[page - 1]
            width, height = pdf_page.get_size()
            scale = render_scale(width, height)
            if scale is None:
                raise PageNotDrawn(
                    f"at {width / 72:,.0f} × {height / 72:,.0f} inches the page is too large "
                    "to draw"
                )
            image = pdf_page.render(scale=scale).to_pil()
            textpage = pdf_page.get_textpage()
            text = textpage.get_text_range(0, textpage.count_chars())
            passage_span = _passage_span(text, passage)
            highlights = _boxes(textpage, passage_span, height, scale) if passage_span else []
            if region is not None:
                x0, top, x1, bottom = region
                highlights.append(
                    (
                        (x0 - _PAD) * scale,
                        (top - _PAD) * scale,
                        (x1 + _PAD) * scale,
                        (bottom + _PAD) * scale,
                    )
                )
            redactions = [
                box
                for span in hidden_spans(text, account_no)
                for box in _boxes(textpage, span, height, scale)
            ]
        finally:
            document.close()
    buffer = io.BytesIO()
    _marked(image, highlights, redactions).save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def bounded_page_png(
    pdf_path: Path,
    page: int,
    account_no: str,
    passage: str | None = None,
    region: Box | None = None,
) -> bytes:
    """:func:`page_png` drawn in a child process bounded in time and memory.

    Raises PageNotDrawn saying why when the page is too large, too slow or fails to draw. The
    account number travels on the child's standard input, never on its command line."""
    request = {
        "pdf": str(pdf_path.resolve()),
        "page": page,
        "account_no": account_no,
        "passage": passage,
        "region": list(region) if region is not None else None,
    }
    with _render_slots:
        try:
            child = subprocess.run(
                [sys.executable, "-m", "llm.pdf_pages"],
                input=json.dumps(request).encode(),
                capture_output=True,
                timeout=RENDER_TIMEOUT_S,
                cwd=_PROJECT,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            log.warning("drawing page %s of %s took over %ss", page, pdf_path.name, exc.timeout)
            raise PageNotDrawn(
                f"drawing it takes longer than {RENDER_TIMEOUT_S:.0f} seconds"
            ) from None
    reason = child.stderr.decode(errors="replace").strip()
    if child.returncode == 0 and child.stdout:
        return child.stdout
    if child.returncode == _TOO_LARGE_EXIT:
        raise PageNotDrawn(reason)
    log.error(
        "drawing page %s of %s failed (exit %s): %s",
        page,
        pdf_path.name,
        child.returncode,
        reason[-2000:],
    )
    raise PageNotDrawn("pdfium could not draw it (the details are in the server log)")


def _child() -> None:
    """Draw the page requested on standard input, PNG to standard output."""
    resource.setrlimit(resource.RLIMIT_AS, (RENDER_MEMORY_BYTES, RENDER_MEMORY_BYTES))
    request = json.loads(sys.stdin.buffer.read())
    region = request["region"]
    try:
        png = page_png(
            Path(request["pdf"]),
            request["page"],
            request["account_no"],
            request["passage"],
            tuple(region) if region is not None else None,
        )
    except PageNotDrawn as exc:
        sys.stderr.write(str(exc))
        sys.exit(_TOO_LARGE_EXIT)
    sys.stdout.buffer.write(png)


if __name__ == "__main__":
    _child()
