"""The words of each statement page with their positions, from the text layer or from OCR."""

from __future__ import annotations

from dataclasses import dataclass

from elastic.ingest.parsed import Box


@dataclass(frozen=True)
class Word:
    text: str
    box: Box  # x0, top, x1, bottom in PDF points from the page's top-left corner


@dataclass(frozen=True)
class PageText:
    number: int  # 1-based
    width: float  # points
    height: float
    words: list[Word]  # in reading order: top to bottom, then left to right
    text: str  # the page's lines joined by "\n", words of a line joined by single spaces
    ocr: bool = False  # the words came from OCR of a page with no text layer
    problem: str | None = None  # e.g. "page 1 has no text; it needs OCR" (words are empty)
