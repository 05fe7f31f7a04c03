"""The conversation of one browser session, kept in ``st.session_state``."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from llm.answer import Answer, Citation
from llm.intent_plan import IntentPlan

_HISTORY = "chat_history"
_PENDING = "chat_pending_question"


@dataclass
class ChatTurn:
    question: str
    answer: Answer | None = None
    error: str | None = None  # shown instead of an answer when asking failed

    def citation(self, n: int) -> Citation | None:
        if self.answer is None:
            return None
        return next((c for c in self.answer.citations if c.n == n), None)


def history() -> list[ChatTurn]:
    turns: list[ChatTurn] = st.session_state.setdefault(_HISTORY, [])
    return turns


def clear_history() -> None:
    st.session_state[_HISTORY] = []
    st.session_state.pop(_PENDING, None)


def previous_plan() -> IntentPlan | None:
    """The plan of the last answered question: follow-ups ("and in April?") refine it."""
    for turn in reversed(history()):
        if turn.answer is not None and turn.answer.result is not None:
            return turn.answer.follow_up_basis
    return None


def queue_question(question: str) -> None:
    """Ask ``question`` on the next run (example questions and suggestions are buttons)."""
    st.session_state[_PENDING] = question


def take_queued_question() -> str | None:
    question: str | None = st.session_state.pop(_PENDING, None)
    return question
