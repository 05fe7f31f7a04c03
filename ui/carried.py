"""What a follow-up carried over from the question before, as chips the user can take away:
"Dining ✕", "Q1 2025 ✕". Taking one away asks the question again without it."""

from __future__ import annotations

import streamlit as st

from elastic.model.plan import IntentPlan
from llm.answering.wording import Wording
from llm.understanding.follow_ups import carried_slots, without
from ui.answer_text import plain_markdown
from ui.chat_history import ChatTurn, queue_question


def carried_chips(turn_index: int, turn: ChatTurn, w: Wording) -> None:
    """The chips of a turn whose plan kept filters of the question before."""
    answer, previous = turn.answer, turn.previous
    if answer is None or previous is None:
        return
    plan = answer.follow_up_basis
    chips = w.carried(plan, carried_slots(plan))
    if not chips:
        return
    with st.container(horizontal=True, gap="small", key=f"carried-{turn_index}"):
        st.caption(w.text("chrome.carried"), width="content")
        for slot, label in chips:
            st.button(
                f"{plain_markdown(label)} ✕",
                key=f"carried-{turn_index}-{slot}",
                type="secondary",
                help=w.text("chrome.drop", what=label),
                on_click=_ask_without,
                args=(turn.question, previous, slot),
            )


def _ask_without(question: str, previous: IntentPlan, slot: str) -> None:
    """Ask ``question`` again after ``previous`` without what fills ``slot`` there, which the
    question carried over (a callback)."""
    queue_question(question, again_after=without(previous, slot))
