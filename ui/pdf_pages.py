"""Statement pages rendered to PNG with pdfium: account numbers blacked out (last four digits
left), the cited passage highlighted. No Streamlit here."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image, ImageDraw

from elastic.pdf_reader import PDFIUM_LOCK
from elastic.records import Box
from ui.redaction import hidden_spans

RENDER_SCALE = 1.5  # 108 dpi: sharp in a dialog, small enough to send quickly
HIGHLIGHT_RGBA = (253, 224, 71, 110)
REDACTION_RGB = (30, 41, 59)
_PAD = 1.5  # points around each text box


PixelBox = tuple[float, float, float, float]  # left, top, right, bottom in image pixels


def page_count(pdf_path: Path) -> int:
    with PDFIUM_LOCK:
        document = pdfium.PdfDocument(pdf_path)
        try:
            return len(document)
        finally:
            document.close()


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
    scale: float = RENDER_SCALE,
    region: Box | None = None,
) -> bytes:
    """Page ``page`` (1-based) as PNG, ``account_no`` masked, ``passage`` highlighted, and
    ``region`` (a cited row or fact: x0, top, x1, bottom in points) highlighted too."""
    with PDFIUM_LOCK:
        document = pdfium.PdfDocument(pdf_path)
        try:
            if not 1 <= page <= len(document):
                raise IndexError(f"page {page} is not in a {len(document)}-page statement")
            pdf_page = document[page - 1]
            image = pdf_page.render(scale=scale).to_pil()
            height = pdf_page.get_height()
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
