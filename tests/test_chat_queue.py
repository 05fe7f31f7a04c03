"""No question sent to the chat is lost when two script runs of one session overlap.

A question sent while another is answered stops the running script run, but only at its next
Streamlit call: for a moment two runs answer the same question, and either may finish first.
These tests replay that interleaving, and race many runs at once, on the real queue."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
import streamlit as st

from tests.reliability import record
from ui.chat_history import ChatTurn, answered, history, queue_question, waiting

pytestmark = pytest.mark.reliability


@pytest.fixture(autouse=True)
def fresh_session() -> Iterator[None]:
    st.session_state.clear()
    yield
    st.session_state.clear()


def test_a_stopping_run_that_finishes_first_takes_only_its_own_question() -> None:
    assert queue_question("How much did I spend on groceries in 2024?")
    assert queue_question("How much did I spend on travel in 2024?")
    groceries, travel = pending = list(waiting())  # the newer run's view, taken first

    assert answered(groceries, ChatTurn(groceries.question))  # the stopping run ends first
    assert not answered(groceries, ChatTurn(groceries.question))  # the newer run: nothing twice
    assert waiting() == [travel]
    assert answered(travel, ChatTurn(travel.question))

    assert [turn.question for turn in history()] == [q.question for q in pending]
    assert waiting() == []


def test_racing_runs_store_each_answer_exactly_once_in_order() -> None:
    questions = [f"How much did I spend in {2019 + n}?" for n in range(5)]
    for question in questions:
        assert queue_question(question)
    pending = list(waiting())
    start = threading.Barrier(4)
    stored: list[bool] = []

    def run() -> None:
        start.wait()
        for waiting_question in pending:
            stored.append(answered(waiting_question, ChatTurn(waiting_question.question)))

    runs = [threading.Thread(target=run) for _ in range(4)]
    for thread in runs:
        thread.start()
    for thread in runs:
        thread.join()

    assert stored.count(True) == len(questions)
    assert [turn.question for turn in history()] == questions
    assert waiting() == []
    record(
        "chat",
        "four overlapping script runs finishing the same five questions",
        "each answer stored once, in order; no question lost",
    )
