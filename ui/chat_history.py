"""The conversation of one browser session, kept in ``st.session_state``: the answered turns, and
the questions still waiting for an answer.

A question sent while another is being answered starts a new script run, which stops the running
one. So every question goes into the waiting queue first and leaves it only once its turn is in
the history: a run that is stopped leaves the question queued, and the next run answers it (or
picks up its answer, if it was computed meanwhile) before the newer one.

The stopped run only stops at its next Streamlit call, so for a moment two runs of one session
can be answering the same question at once, and either may finish first. A question therefore
leaves the queue by who it is, never by its place, under the session's lock, and only once:
the second run to finish it stores nothing. (Taking "the oldest" off the queue instead let the
slower run take the next question off with it, which was then never answered.)
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from dataclasses import dataclass

import streamlit as st

from elastic.model.plan import IntentPlan
from llm.answering.answer import Answer, Citation
from llm.answering.wording import ENGLISH, wording

_HISTORY = "chat_history"
_WAITING = "chat_waiting_questions"
_LOCK = "chat_queue_lock"
MAX_WAITING = 5  # questions queued in one session; one more is refused with a message


@dataclass
class ChatTurn:
    question: str
    answer: Answer | None = None
    error: str | None = None  # shown instead of an answer when asking failed
    previous: IntentPlan | None = None  # the plan the question was asked after

    def citation(self, n: int) -> Citation | None:
        if self.answer is None:
            return None
        return next((c for c in self.answer.citations if c.n == n), None)


@dataclass
class WaitingQuestion:
    """A question not answered yet; ``answer`` is being computed once asked. A question asked
    again without something it carried over has its own ``previous`` plan (``again``)."""

    question: str
    answer: Future[Answer] | None = None
    stage: str = "route"  # the pipeline's stage, set from the thread computing the answer
    previous: IntentPlan | None = None
    again: bool = False


def history() -> list[ChatTurn]:
    turns: list[ChatTurn] = st.session_state.setdefault(_HISTORY, [])
    return turns


def waiting() -> list[WaitingQuestion]:
    """The questions to answer, oldest first."""
    queue: list[WaitingQuestion] = st.session_state.setdefault(_WAITING, [])
    return queue


def clear_history() -> None:
    st.session_state[_HISTORY] = []
    st.session_state[_WAITING] = []


def previous_plan() -> IntentPlan | None:
    """The plan of the last answered question: follow-ups ("and in April?") refine it."""
    for turn in reversed(history()):
        if turn.answer is not None and turn.answer.result is not None:
            return turn.answer.follow_up_basis
    return None


def _queue_lock() -> threading.Lock:
    lock: threading.Lock = st.session_state.setdefault(_LOCK, threading.Lock())
    return lock


def queue_question(question: str, again_after: IntentPlan | None = None) -> bool:
    """Ask ``question`` after those already waiting, or again after the plan ``again_after``;
    False (nothing queued) when ``MAX_WAITING`` are waiting already."""
    with _queue_lock():
        queue = waiting()
        if len(queue) >= MAX_WAITING:
            return False
        again = again_after is not None
        queue.append(WaitingQuestion(question, previous=again_after, again=again))
        return True


def conversation_language(browser: str | None = None) -> str:
    """The language the app speaks: the last answer's, else the browser's (``browser``, a
    locale such as "fr-FR") when answers can be written in it, else English."""
    for turn in reversed(history()):
        if turn.answer is not None:
            return turn.answer.language
    code = (browser or "").split("-")[0].split("_")[0].casefold()
    return wording(code).code if code else ENGLISH


def answered(waiting_question: WaitingQuestion, turn: ChatTurn) -> bool:
    """Store ``turn`` as the answer of ``waiting_question`` and take that question off the
    queue, unless another run of the session has already done so; whether this call did."""
    with _queue_lock():
        queue = waiting()
        for place, queued in enumerate(queue):
            if queued is waiting_question:
                del queue[place]
                history().append(turn)
                return True
        return False
