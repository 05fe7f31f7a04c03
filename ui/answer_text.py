"""Pure text transforms for showing answers and statement pages (HTML is always escaped first)."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from llm.answer import Citation

CITE_ATTRIBUTE = "data-fs-cite"
"""Marks an inline ``[N]``; the click catcher (``ui/citations.py``) reads it back."""

_MARKER = re.compile(r"\[(\d+)\]")
_MASK = re.compile(r"\*{3}(?=[0-9A-Za-z])")
_TABLE_LINE = re.compile(r"^\s*\|.*\|\s*$")
_MORE_LINE = re.compile(r"^…and \d[\d,]* more\.$")


def citation_ref(turn: int, n: int) -> str:
    """What a chip carries: which chat turn and which citation of it."""
    return f"{turn}:{n}"


def parse_citation_ref(value: object) -> tuple[int, int] | None:
    if not isinstance(value, str):
        return None
    turn, _, n = value.partition(":")
    if not (turn.isdigit() and n.isdigit()):
        return None
    return int(turn), int(n)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~$>])")


def plain_markdown(text: str) -> str:
    """Text someone typed, shown exactly as typed: no markup, emphasis, math or HTML."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(text, quote=False))


def literal_symbols(text: str) -> str:
    """Masked account numbers (``***1234``) and ``$`` escaped, so markdown shows them as written
    instead of reading emphasis or LaTeX math into them."""
    return _MASK.sub(r"\\*\\*\\*", text).replace("$", "\\$")


def link_citations(text: str, turn: int, citations: Sequence[Citation]) -> str:
    """Markdown with HTML escaped and each known ``[N]`` turned into a clickable chip.

    The result is meant for ``st.markdown(..., unsafe_allow_html=True)``: escaping first means
    nothing from a document or a model can inject markup; only the chips are HTML.
    """
    sources = {c.n: c for c in citations}

    def chip(match: re.Match[str]) -> str:
        citation = sources.get(int(match.group(1)))
        if citation is None:
            return match.group()
        where = f", page {citation.page}" if citation.page else ""
        title = html.escape(f"{citation.source}{where}", quote=True)
        return (
            f'<span class="fs-cite" role="button" tabindex="0" '
            f'{CITE_ATTRIBUTE}="{citation_ref(turn, citation.n)}" title="{title}">'
            f"{citation.n}</span>"
        )

    return _MARKER.sub(chip, literal_symbols(html.escape(text, quote=False)))


def without_tables(text: str) -> str:
    """The prose of an answer without its markdown tables (the UI shows them as real tables)."""
    kept = [
        line
        for line in text.splitlines()
        if not _TABLE_LINE.match(line) and not _MORE_LINE.match(line.strip())
    ]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()


def highlight_passage(page_text: str, passage: str | None) -> tuple[str, bool]:
    """The page text as HTML with the cited passage in ``<mark>``; whether it was found.

    Whitespace may differ between the stored passage and the page (line breaks, double spaces),
    so words are matched with any whitespace between them.
    """
    words = (passage or "").split()
    match = None
    if words:
        pattern = r"\s+".join(re.escape(word) for word in words)
        match = re.search(pattern, page_text)
    if match is None:
        return html.escape(page_text), False
    start, end = match.span()
    marked = (
        html.escape(page_text[:start])
        + '<mark id="fs-cited">'
        + html.escape(page_text[start:end])
        + "</mark>"
        + html.escape(page_text[end:])
    )
    return marked, True
