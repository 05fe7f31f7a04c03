"""The chat's first screen: a picture of the money loaded and questions to start with, all of it
computed by the pipeline (``llm/first_screen.py``). Every tile is a question: its button (and a
click anywhere on the tile) asks it in the chat, where the answer shows the same figures."""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

import streamlit as st

from elastic.visible_text import visible
from llm.answering.wording import wording
from llm.first_screen import FirstScreen, Tile
from llm.planned import PlannedQuestion
from ui.answer_text import plain_markdown

Ask = Callable[[PlannedQuestion], None]
TILES_PER_ROW = 3


def _lines(lines: Sequence[tuple[str, str]]) -> str:
    """A list tile's names and amounts as rows of escaped text."""
    rows = "".join(
        f'<li><span class="fs-tile-name">{html.escape(visible(name))}</span>'
        f'<span class="fs-tile-amount">{html.escape(amount)}</span></li>'
        for name, amount in lines
    )
    return f'<ol class="fs-tile-lines">{rows}</ol>'


def _tile(tile: Tile, number: int, ask: Ask) -> None:
    with st.container(border=True, key=f"fs-tile-{number}"):
        if tile.lines:  # a list: its rows are the figures
            st.markdown(f"**{plain_markdown(tile.title)}**")
            st.html(_lines(tile.lines))
        else:
            delta_color = "inverse" if tile.key == "month" else "normal"  # spending up: bad
            st.metric(
                plain_markdown(tile.title), tile.value, delta=tile.delta, delta_color=delta_color
            )
        st.caption(plain_markdown(tile.detail))
        st.button(
            plain_markdown(tile.question.text),
            key=f"tile-ask-{number}",
            type="tertiary",
            icon=":material/chat_bubble:",
            on_click=ask,
            args=(tile.question,),
        )


def _tiles(tiles: Sequence[Tile], ask: Ask) -> None:
    for start in range(0, len(tiles), TILES_PER_ROW):
        row = tiles[start : start + TILES_PER_ROW]
        for column, (offset, tile) in zip(st.columns(TILES_PER_ROW), enumerate(row), strict=False):
            with column:
                _tile(tile, start + offset, ask)


def examples(questions: Sequence[PlannedQuestion], lead: str, ask: Ask) -> None:
    st.caption(lead)
    with st.container(horizontal=True, gap="small", key="examples"):
        for number, question in enumerate(questions):
            st.button(
                plain_markdown(question.text),
                key=f"example-{number}",
                icon=":material/chat_bubble:",
                on_click=ask,
                args=(question,),
                wrap=True,  # a question is read whole, on a phone too
            )


def first_screen(screen: FirstScreen, language: str, ask: Ask) -> None:
    """The overview tiles, then the example questions."""
    w = wording(language)
    if screen.tiles:
        st.subheader(w.text("overview.title"), anchor=False)
        with st.container(key="overview"):
            _tiles(screen.tiles, ask)
    if screen.examples:
        examples(screen.examples, w.text("starter.lead"), ask)
