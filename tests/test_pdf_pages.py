"""Statement pages as images: the cited region highlighted, nothing else changed."""

from __future__ import annotations

import io

from PIL import Image

from llm.pdf_pages import HIGHLIGHT_RGBA, RENDER_SCALE, page_png
from scripts.sample_data import SampleSet


def _pixel(png: bytes, x_points: float, y_points: float) -> tuple[int, int, int]:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    return image.getpixel((int(x_points * RENDER_SCALE), int(y_points * RENDER_SCALE)))


def test_a_cited_region_is_highlighted_where_it_is(sample_set: SampleSet):
    pdf = sample_set.statement_pdfs[0]
    plain = page_png(pdf, 1, "")
    marked = page_png(pdf, 1, "", region=(400.0, 700.0, 500.0, 720.0))
    assert _pixel(plain, 450, 710) == (255, 255, 255)  # blank paper there
    red, green, blue = _pixel(marked, 450, 710)
    assert (red, green) > (240, 230) and blue < 255 - HIGHLIGHT_RGBA[3] // 2
    assert _pixel(marked, 100, 710) == _pixel(plain, 100, 710)  # outside the region
