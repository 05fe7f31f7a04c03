"""Pure text transforms for showing answers and statement pages (HTML is always escaped first,
and characters that draw nothing but change how text reads are dropped: ``visible``)."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from elastic.visible_text import visible
from llm.answering.answer import Citation

CITE_ATTRIBUTE = "data-fs-cite"
"""Marks an inline ``[N]``; the click catcher (``ui/citations.py``) reads it back."""

_MARKER = re.compile(r"\[(\d+)\]")
_MASK = re.compile(r"\*{3}(?=[0-9A-Za-z])")


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


# Every ASCII punctuation character: CommonMark lets each be backslash-escaped, and every
# markdown, GFM and Streamlit construct (emphasis, headings, lists, tables, links, images,
# autolinks, HTML, math, ``:color[…]`` directives) starts with or needs one of them.
_ASCII_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
# GFM also links bare URLs, "www." names and email addresses by matching the text itself after
# escapes are read, so no escape stops it; an invisible word joiner inside "://", after "www"
# and after "@" does.
_AUTOLINK = re.compile(r"(?<=:)(?=//)|(?<=\bwww)(?=\.)|(?<=@)", re.IGNORECASE)
_WORD_JOINER = "\u2060"


def _unlinked(text: str) -> str:
    return _AUTOLINK.sub(_WORD_JOINER, text)


def plain_markdown(text: str) -> str:
    """Text from a file or a person, for anywhere Streamlit reads markdown (``st.markdown``,
    captions, alerts, widget and button labels): shown exactly as written, with nothing in it
    taken as markup, a link, an image, math or HTML."""
    return _ASCII_PUNCTUATION.sub(r"\\\1", _unlinked(visible(text, keep_marks=True)))


def plain_figure_text(text: str) -> str:
    """Text from a file for a plotly figure (titles, axis and legend labels, hover text): plotly
    reads a subset of HTML there (``<a href>``, ``<b>``, ``<br>``), so ``<``, ``>`` and ``&`` are
    written as entities, which it shows as the characters."""
    return html.escape(visible(text, keep_marks=True), quote=False)


def literal_symbols(text: str) -> str:
    """Masked account numbers (``***1234``) and ``$`` escaped, so markdown shows them as written
    instead of reading emphasis or LaTeX math into them."""
    return _MASK.sub(r"\\*\\*\\*", text).replace("$", "\\$")


def _without_links(markdown: str, markers: Sequence[int]) -> str:
    """``markdown`` in which nothing can become a link or an image: every ``[`` escaped except
    those of the citation markers ``markers`` (they become chips), and bare URLs, "www." names
    and email addresses broken up. Emphasis and tables still work."""
    known = "|".join(str(n) for n in markers)
    opening = rf"\[(?!(?:{known})\])" if known else r"\["
    return _unlinked(re.sub(opening, r"\\[", markdown))


def link_citations(text: str, turn: int, citations: Sequence[Citation]) -> str:
    """Markdown with HTML escaped, links and images made inert, and each known ``[N]`` turned
    into a chip that opens its source on a click, Enter or Space, named for screen readers
    ("Source 1: Chase · Checking ***1234, page 3").

    The result is meant for ``st.markdown(..., unsafe_allow_html=True)``: escaping first means
    nothing from a document or a model can inject markup or reach outside the app; only the
    chips are HTML.
    """
    sources = {c.n: c for c in citations}

    def chip(match: re.Match[str]) -> str:
        citation = sources.get(int(match.group(1)))
        if citation is None:
            return match.group()
        title = html.escape(citation.shown, quote=True)
        return (
            f'<span class="fs-cite" role="button" tabindex="0" '
            f'{CITE_ATTRIBUTE}="{citation_ref(turn, citation.n)}" title="{title}" '
            f'aria-label="Source {citation.n}: {title}">{citation.n}</span>'
        )

    return _MARKER.sub(chip, _inert(text, list(sources)))


def inert_text(text: str) -> str:
    """Model text written so far (shown again whole as each piece arrives), made as inert as
    ``link_citations`` makes a whole answer: no HTML, link or image; ``$`` and masks literal;
    markers stay ``[N]`` until the answer is shown whole."""
    return _inert(text)


def _inert(text: str, markers: Sequence[int] = ()) -> str:
    return _without_links(
        literal_symbols(html.escape(visible(text, keep_marks=True), quote=False)), markers
    )


def highlight_passage(page_text: str, passage: str | None) -> tuple[str, bool]:
    """The page text as HTML with the cited passage in ``<mark>``; whether it was found.

    Whitespace may differ between the stored passage and the page (line breaks, double spaces),
    so words are matched with any whitespace between them.
    """
    page_text = visible(page_text, keep_marks=True)
    words = visible(passage or "", keep_marks=True).split()
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
