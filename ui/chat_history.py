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

The answered turns are also kept with the user's data (``ChatPipeline.keep_conversation``), so a
reload or a new browser session shows the conversation again (``restore``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import date

import streamlit as st

from elastic.model.plan import IntentPlan
from llm.answering.answer import Answer, Citation
from llm.conversation import KeptTurn
from llm.pipeline import ChatPipeline
from ui.context import ui_language

_HISTORY = "chat_history"
_WAITING = "chat_waiting_questions"
_LOCK = "chat_queue_lock"
_RESTORED = "chat_restored_for"  # the user whose kept conversation this session has shown
MAX_WAITING = 5  # questions queued in one session; one more is refused with a message
MAX_RESTORED = 30  # kept turns answered again when a session starts


@dataclass
class ChatTurn:
    question: str
    answer: Answer | None = None
    error: str | None = None  # shown instead of an answer when asking failed
    previous: IntentPlan | None = None  # the plan the question was asked after
    planned: IntentPlan | None = None  # a button's plan, asked again as it is
    language: str | None = None  # a button's language (its words may not say it)
    asked_on: date = field(default_factory=date.today)

    def kept(self) -> KeptTurn:
        """The turn as it is kept across reloads."""
        answer = self.answer
        return KeptTurn(
            question=self.question,
            plan=None if answer is None else answer.plan,
            routed=None if answer is None else answer.follow_up_basis,
            language=answer.language if answer is not None else self.language or "en",
            asked_on=self.asked_on,
            error=self.error,
        )

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
    planned: IntentPlan | None = None  # an example, a tile or a next step: its plan
    language: str | None = None


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


def restore(pipeline: ChatPipeline, user_id: str, fault: Callable[[Exception], str]) -> None:
    """Once per browser session: the user's kept conversation, its newest ``MAX_RESTORED``
    turns answered again from their plans (a turn that cannot be is shown with ``fault``)."""
    if st.session_state.get(_RESTORED) == user_id:
        return
    st.session_state[_RESTORED] = user_id
    turns = []
    for kept in pipeline.kept_conversation(user_id)[-MAX_RESTORED:]:
        turn = ChatTurn(kept.question, error=kept.error, asked_on=kept.asked_on)
        if kept.plan is not None:
            try:
                turn.answer = pipeline.answer_again(user_id, kept)
            except Exception as exc:  # shown in the turn; the rest of the conversation stays
                turn.error = fault(exc)
        turns.append(turn)
    st.session_state[_HISTORY] = turns + history()


def keep(pipeline: ChatPipeline, user_id: str) -> None:
    """Keep the session's turns with the user's data, for the next reload."""
    pipeline.keep_conversation(user_id, [turn.kept() for turn in history()])


def ask_again(turn_index: int, question: str | None = None) -> bool:
    """Ask turn ``turn_index`` again, as it was or as ``question`` (edited), in place of it and
    every later turn; False when it is gone or questions are still waiting."""
    with _queue_lock():
        turns, queue = history(), waiting()
        if turn_index >= len(turns) or queue:
            return False
        turn = turns[turn_index]
        del turns[turn_index:]
        if question is None:  # the same question: a button's plan is asked as it was
            queue.append(
                WaitingQuestion(turn.question, planned=turn.planned, language=turn.language)
            )
        else:
            queue.append(WaitingQuestion(question))
        return True


def previous_plan() -> IntentPlan | None:
    """The plan of the last answered question: follow-ups ("and in April?") refine it."""
    for turn in reversed(history()):
        if turn.answer is not None and turn.answer.result is not None:
            return turn.answer.follow_up_basis
    return None


def _queue_lock() -> threading.Lock:
    lock: threading.Lock = st.session_state.setdefault(_LOCK, threading.Lock())
    return lock


def queue_question(
    question: str,
    planned: IntentPlan | None = None,
    language: str | None = None,
    again_after: IntentPlan | None = None,
) -> bool:
    """Ask ``question`` after those already waiting: from its ``planned`` plan when a button
    offered it, or again after the plan ``again_after``; False (nothing queued) when
    ``MAX_WAITING`` are waiting already."""
    with _queue_lock():
        queue = waiting()
        if len(queue) >= MAX_WAITING:
            return False
        queue.append(
            WaitingQuestion(
                question,
                previous=again_after,
                again=again_after is not None,
                planned=planned,
                language=language,
            )
        )
        return True


def conversation_language() -> str:
    """The language the app speaks: the last answer's, else the browser's when answers can be
    written in it (``ui_language``)."""
    for turn in reversed(history()):
        if turn.answer is not None:
            return turn.answer.language
    return ui_language()


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
