"""Statement PDF text as pdfium extracts it, page by page, and the chunks pages are split into."""

from __future__ import annotations

import re
import threading
from collections.abc import Collection
from pathlib import Path

import pypdfium2 as pdfium

CHUNK_CHARS = 900
# pdfium is not thread-safe, and Streamlit serves sessions from several threads at once.
PDFIUM_LOCK = threading.Lock()

_HEADER_LINE = re.compile(
    r"^\s*(Account Statement|Account name:.*|Account number:.*|Statement period:.*|"
    r"Page \d+ of \d+)\s*$",
    re.I,
)


def body_text(text: str, bank_name: str) -> str:
    """Page text without the header block every page of a statement repeats."""
    lines = [ln for ln in text.splitlines() if not _HEADER_LINE.match(ln)]
    if lines and lines[0].strip() == bank_name:
        lines = lines[1:]
    return "\n".join(ln.rstrip() for ln in lines).strip()


def split_chunks(body: str, limit: int = CHUNK_CHARS) -> list[str]:
    """Split page text on line boundaries into chunks of at most ``limit`` characters."""
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for line in body.splitlines():
        if current and size + len(line) + 1 > limit:
            chunks.append("\n".join(current))
            current, size = [], 0
        current.append(line)
        size += len(line) + 1
    if current and "".join(current).strip():
        chunks.append("\n".join(current))
    return chunks


def page_texts(
    path: Path, numbers: Collection[int] | None = None
) -> list[tuple[int, str | None, str | None]]:
    """``(page_number, text, error)`` for every page, or only for the page ``numbers`` given;
    an unreadable page has an error."""
    pages: list[tuple[int, str | None, str | None]] = []
    with PDFIUM_LOCK:
        document = pdfium.PdfDocument(path)
        try:
            wanted = range(len(document)) if numbers is None else sorted(n - 1 for n in numbers)
            for index in wanted:
                try:
                    text = document[index].get_textpage().get_text_bounded()
                except pdfium.PdfiumError as exc:
                    pages.append((index + 1, None, f"text could not be extracted ({exc})"))
                    continue
                pages.append((index + 1, text.replace("\r\n", "\n").replace("\r", "\n"), None))
        finally:
            document.close()
    return pages
