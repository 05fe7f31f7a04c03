"""What an answer offers besides its text: copy it, answer it again, and its details (what the
question was understood as, how long each stage took, which engines answered) in a small
popover rather than a bar over every answer. Words come from the templates in the answer's
language (``[chat_tools]``)."""

from __future__ import annotations

from decimal import Decimal

import streamlit as st

from llm.answering.answer import Answer
from llm.answering.copying import copy_text
from llm.answering.wording import Wording, plan_kind, wording
from ui.context import AppContext

_COPY_JS = """
// A real button (focusable, named) that puts the answer's text and numbers on the clipboard.
// Without the Clipboard API (a page served over plain HTTP beyond this machine) a hidden
// text area and the copy command do the same.
export default function (component) {
    const { parentElement, data } = component;
    const root = parentElement;
    let button = root.querySelector("button");
    if (!button) {
        button = root.ownerDocument.createElement("button");
        button.type = "button";
        button.className = "fs-copy";
        root.appendChild(button);
    }
    const status = () => root.querySelector("[role=status]") || (() => {
        const live = root.ownerDocument.createElement("span");
        live.setAttribute("role", "status");
        live.className = "fs-copy-status";
        root.appendChild(live);
        return live;
    })();
    const icon = '<svg aria-hidden="true" width="16" height="16" viewBox="0 0 24 24">'
        + '<path fill="currentColor" d="M9 18q-.825 0-1.412-.587T7 16V4q0-.825.588-1.412T9 2h9'
        + 'q.825 0 1.413.588T20 4v12q0 .825-.587 1.413T18 18zm0-2h9V4H9zm-4 6q-.825 0-1.412-.587'
        + 'T3 20V6h2v14h11v2z"/></svg>';
    const label = () => { button.innerHTML = `${icon}<span>${data.label}</span>`; };
    label();
    button.title = data.help;
    button.setAttribute("aria-label", data.help);
    const copied = () => {
        button.innerHTML = `${icon}<span>${data.copied}</span>`;
        status().textContent = data.copied;
        setTimeout(() => { label(); status().textContent = ""; }, 2000);
    };
    const fallback = () => {
        const area = root.ownerDocument.createElement("textarea");
        area.value = data.text;
        area.setAttribute("readonly", "");
        area.style.position = "fixed";
        area.style.opacity = "0";
        root.appendChild(area);
        area.select();
        root.ownerDocument.execCommand("copy");
        area.remove();
        copied();
    };
    button.onclick = () => {
        const clipboard = navigator.clipboard;
        if (clipboard && window.isSecureContext) {
            clipboard.writeText(data.text).then(copied, fallback);
        } else {
            fallback();
        }
    };
}
"""

_COPY_CSS = """
.fs-copy {
    display: inline-flex;
    align-items: center;
    gap: 0.3rem;
    padding: 0.25rem 0.5rem;
    border: none;
    border-radius: 0.5rem;
    background: transparent;
    color: inherit;
    font: inherit;
    font-size: 0.875rem;
    cursor: pointer;
}
.fs-copy:hover { background: rgba(15, 23, 42, 0.06); }
.fs-copy:focus-visible { outline: 2px solid #1D4ED8; outline-offset: 1px; }
.fs-copy-status {
    position: absolute;
    width: 1px;
    height: 1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
}
"""

_copy_button = st.components.v2.component("finsync.copy_answer", js=_COPY_JS, css=_COPY_CSS)


def copy_button(answer: Answer, key: str) -> None:
    """A button that copies ``answer`` as text and tab-separated numbers."""
    w = wording(answer.language)
    _copy_button(
        key=key,
        data={
            "text": copy_text(answer),
            "label": w.text("chat_tools.copy"),
            "copied": w.text("chat_tools.copied"),
            "help": w.text("chat_tools.copy_help"),
        },
        width="content",
    )


def _engines(context: AppContext, w: Wording) -> str:
    settings, pipeline = context.settings, context.pipeline
    backend = w.text(f"chat_tools.backend_{pipeline.backend_name}")
    answers = (
        w.text("chat_tools.answers_gemini", model=settings.gemini_model)
        if settings.vertex_enabled
        else w.text("chat_tools.answers_offline")
    )
    return w.text(
        "chat_tools.engine", backend=backend, answers=answers, model=pipeline.embedder.model_name
    )


def answer_details(context: AppContext, answer: Answer, key: str) -> None:
    """How long the answer took, as a small button; what it was understood as, each stage and
    the engines that answered it, in its popover."""
    w = wording(answer.language)
    total = sum(answer.timings_ms.values())
    with st.popover(
        w.text("chat_tools.took", ms=w.number(round(total))),
        type="tertiary",
        icon=":material/schedule:",
        help=w.text("chat_tools.details"),
        key=key,
    ):
        kind = plan_kind(answer.plan)
        st.markdown(
            w.text("chat_tools.understood", kind=f"**{w.text(f'chat_tools.kind_{kind}')}**")
        )
        for stage, ms in answer.timings_ms.items():
            name = stage_label(w, stage, "chat_tools")
            st.markdown(
                ":material/check: "
                + w.text("chat_tools.stage_line", stage=name, ms=w.number(Decimal(f"{ms:.1f}")))
            )
        st.caption(_engines(context, w))


def stage_label(w: Wording, stage: str, table: str) -> str:
    """A stage of answering as ``table`` of the templates names it: the status line's words
    (``chrome``) or the details' (``chat_tools``); the stage's own name where it has none."""
    key = f"{table}.stage_{stage}"
    return w.text(key) if w.has(key) else stage
