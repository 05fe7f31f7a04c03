"""Clickable citations: inline ``[N]`` chips in the answer text and a source list under it.

Streamlit markdown cannot hold widgets, so the chips are plain HTML (``ui/answer_text.py``) and
one tiny JavaScript component listens for clicks (and Enter or Space) on them anywhere on the
page, sends the chip's ``turn:n`` back to Python as a trigger value, and gives the chip focus
again when the dialog it opened closes. The buttons under each answer request the
same viewer through session state, so both ways open one dialog per run.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from llm.answering.answer import Citation
from llm.answering.wording import Wording, wording
from ui.answer_text import CITE_ATTRIBUTE, parse_citation_ref, plain_markdown

_REQUESTED = "citation_requested"

_CLICK_CATCHER_JS = f"""
// The chip that opened the dialog shown now: once that dialog closes (Escape, its close button
// or a click outside), focus goes back to the chip, so keyboard users keep their place.
let opener = null;
let dialogSeen = false;

export default function (component) {{
    const {{ parentElement, setTriggerValue }} = component;
    const page = parentElement.ownerDocument || document;
    const open = (event) => {{
        const chip = event.target.closest && event.target.closest("[{CITE_ATTRIBUTE}]");
        if (!chip) return;
        if (event.type === "keydown" && event.key !== "Enter" && event.key !== " ") return;
        event.preventDefault();
        opener = chip.getAttribute("{CITE_ATTRIBUTE}");
        dialogSeen = false;
        setTriggerValue("opened", opener);
    }};
    const refocus = () => {{
        if (opener === null) return;
        if (page.querySelector("[role=dialog]")) {{
            dialogSeen = true;
            return;
        }}
        if (!dialogSeen) return;
        const chip = page.querySelector(`[{CITE_ATTRIBUTE}="${{opener}}"]`);
        opener = null;
        if (chip) chip.focus();
    }};
    const watcher = new MutationObserver(refocus);
    watcher.observe(page.body, {{ childList: true, subtree: true }});
    page.addEventListener("click", open);
    page.addEventListener("keydown", open);
    return () => {{
        watcher.disconnect();
        page.removeEventListener("click", open);
        page.removeEventListener("keydown", open);
    }};
}}
"""

_click_catcher = st.components.v2.component("finsync.citation_clicks", js=_CLICK_CATCHER_JS)


def _request(turn: int, n: int) -> None:
    st.session_state[_REQUESTED] = (turn, n)


def _label(citation: Citation) -> str:
    """A button label (Streamlit reads markdown there): the source names a bank and account."""
    return plain_markdown(f"[{citation.n}] {citation.shown}")


def citation_list(turn: int, citations: Sequence[Citation], w: Wording | None = None) -> None:
    """One button per citation, under the answer; each opens its source."""
    if not citations:
        return
    w = w or wording()
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        st.caption(w.text("chrome.sources"), width="content")
        for citation in citations:
            icon = (
                ":material/description:"
                if citation.kind == "statement"
                else ":material/table_rows:"
            )
            st.button(
                _label(citation),
                key=f"cite-{turn}-{citation.n}",
                icon=icon,
                type="tertiary",
                on_click=_request,
                args=(turn, citation.n),
                help=w.text("chrome.open_source"),
            )


def requested_citation() -> tuple[int, int] | None:
    """The ``(turn, n)`` the user clicked this run, inline or in a source list.

    Mounts the (invisible) click catcher, so call it once per page run, after the chat.
    """
    with st.container(key="citation-click-catcher"):
        clicks = _click_catcher(key="citation-clicks", on_opened_change=lambda: None)
    inline = parse_citation_ref(clicks.get("opened"))
    requested: tuple[int, int] | None = st.session_state.pop(_REQUESTED, None)
    return inline or requested
