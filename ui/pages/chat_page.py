"""The chat: questions in, answers out with clickable citations, charts and tables."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from datetime import date

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from elastic.results import Vocabulary
from llm.answer import Answer
from llm.intent_plan import Intent
from llm.pipeline import Scope
from ui.answer_text import link_citations, literal_symbols, plain_markdown, without_tables
from ui.charts import render_result
from ui.chat_history import ChatTurn, history, previous_plan, queue_question, take_queued_question
from ui.citations import citation_list, requested_citation
from ui.context import AnswerWriter, AppContext, app_context
from ui.formatting import account_option_label, period_label
from ui.sidebar import chat_filters, clear_chat_button, engine_panel, load_vocabulary
from ui.source_viewer import open_citation

log = logging.getLogger(__name__)

EXAMPLE_QUESTIONS = (
    "How much did I spend on travel last quarter?",
    "Show monthly grocery spending for 2024",
    "List the five largest card payments in March",
    "What is the overdraft fee on my checking account?",
)
_INTENT_LABELS = {
    Intent.aggregate: "a total",
    Intent.trend: "a trend over time",
    Intent.listing: "a list of transactions",
    Intent.text_qa: "a question about your statements",
    Intent.clarify: "a question that needs clarifying",
}
USER_AVATAR = ":material/person:"
ASSISTANT_AVATAR = ":material/account_balance:"
_STEP_LABELS = {
    "route": "Routing",
    "search": "Searching",
    "compose": "Composing",
    "write": "Writing",
}


def _welcome(vocabulary: Vocabulary | None) -> None:
    st.markdown(
        "Ask about your spending, income and statements. Every number comes straight from your "
        "data, and every source is one click away."
    )
    if vocabulary is not None and not vocabulary.accounts:
        st.info("There is no data yet: add some on the **Ingest** page.", icon=":material/info:")
    elif vocabulary is not None:
        accounts = ", ".join(account_option_label(a) for a in vocabulary.accounts)
        period = period_label(vocabulary.first_date, vocabulary.last_date)
        st.caption(f":material/account_balance_wallet: {literal_symbols(accounts)} · {period}")
    st.caption("Try one of these")
    with st.container(horizontal=True, gap="small", key="examples"):
        for number, question in enumerate(EXAMPLE_QUESTIONS):
            st.button(
                question,
                key=f"example-{number}",
                icon=":material/chat_bubble:",
                on_click=queue_question,
                args=(question,),
            )


def _done_label(answer: Answer) -> str:
    return f"Answered in {sum(answer.timings_ms.values()):,.0f} ms"


def _step_lines(answer: Answer) -> None:
    """What the question was understood as, and how long each stage took."""
    st.markdown(f"Understood as **{_INTENT_LABELS[answer.intent]}**")
    for stage, ms in answer.timings_ms.items():
        _step_line(stage, ms)


def _step_line(stage: str, ms: float) -> None:
    st.markdown(f":material/check: {_STEP_LABELS.get(stage, stage)} — {ms:,.1f} ms")


def _suggesting(answer: Answer) -> bool:
    return answer.intent is Intent.clarify and bool(answer.plan.suggestions)


def _answer_text(turn_index: int, answer: Answer, tables_shown: bool) -> str:
    """The markdown to show, without what the UI draws itself (tables, suggestion buttons)."""
    if _suggesting(answer) and answer.plan.clarification:
        text = answer.plan.clarification
    else:
        text = without_tables(answer.text) if tables_shown else answer.text
    return link_citations(text, turn_index, answer.citations)


def _answer_body(turn_index: int, answer: Answer, text_box: DeltaGenerator) -> None:
    """Text (with citation chips) in ``text_box``, then the numbers, sources and suggestions."""
    tables_shown = render_result(answer, key=f"turn-{turn_index}")
    text_box.markdown(_answer_text(turn_index, answer, tables_shown), unsafe_allow_html=True)
    citation_list(turn_index, answer.citations)
    if _suggesting(answer):
        st.caption("You could ask")
        with st.container(horizontal=True, gap="small"):
            for number, suggestion in enumerate(answer.plan.suggestions):
                st.button(
                    suggestion,
                    key=f"suggest-{turn_index}-{number}",
                    icon=":material/chat_bubble:",
                    on_click=queue_question,
                    args=(suggestion,),
                )


def _show_turn(turn_index: int, turn: ChatTurn) -> None:
    with st.chat_message("user", avatar=USER_AVATAR):
        st.markdown(plain_markdown(turn.question))
    with st.chat_message("assistant", avatar=ASSISTANT_AVATAR):
        if turn.error:
            st.error(turn.error, icon=":material/error:")
            return
        if turn.answer is not None:
            with st.status(_done_label(turn.answer), state="complete"):
                _step_lines(turn.answer)
            _answer_body(turn_index, turn.answer, st.empty())


def _written(writer: AnswerWriter, question: str, answer: Answer, box: DeltaGenerator) -> Answer:
    """Stream Gemini's verified wording into ``box``; the final answer is returned."""
    stream = writer.stream(question, answer)

    def pieces() -> Iterator[str]:
        for piece in stream:
            yield literal_symbols(piece)

    started = time.perf_counter()
    with box.container():
        st.write_stream(pieces())
    final = stream.answer
    final.timings_ms = {**answer.timings_ms, "write": (time.perf_counter() - started) * 1000}
    return final


STAGE_LABELS = {
    "route": "Understanding the question…",
    "search": "Searching your statements and transactions…",
    "compose": "Composing the answer…",
}


def _answer_new(context: AppContext, turn_index: int, question: str, scope: Scope) -> ChatTurn:
    """Ask the pipeline with visible progress; errors end up in the turn, never in a crash."""
    turn = ChatTurn(question)
    status = st.status("Understanding the question…")
    text_box = st.empty()

    def show_stage(stage: str) -> None:
        status.update(label=STAGE_LABELS.get(stage, stage))

    try:
        with status:
            answer = context.pipeline.ask(
                question,
                context.user_id,
                date.today(),
                previous_plan(),
                scope,
                rewrite=False,
                on_stage=show_stage,
            )
            _step_lines(answer)
        if context.writer is not None and answer.result is not None:
            status.update(label="Gemini is writing the answer…")
            answer = _written(context.writer, question, answer, text_box)
            with status:
                _step_line("write", answer.timings_ms["write"])
    except Exception as exc:
        log.exception("answering %r failed", question)
        status.update(label="Could not answer", state="error")
        turn.error = (
            f"Sorry, something went wrong while answering ({type(exc).__name__}). "
            "Your conversation is kept: try again, or rephrase the question."
        )
        st.error(turn.error, icon=":material/error:")
        return turn
    status.update(label=_done_label(answer), state="complete", expanded=False)
    turn.answer = answer
    _answer_body(turn_index, answer, text_box)
    return turn


def chat_page() -> None:
    context = app_context()
    vocabulary = load_vocabulary(context)
    scope = chat_filters(vocabulary)
    clear_chat_button()
    engine_panel(context)

    st.title("FinSync Chat", anchor=False)
    turns = history()
    queued = take_queued_question()  # an example or a suggestion that was clicked
    question = st.chat_input("Ask about your transactions and statements…") or queued
    if not turns and not question:
        _welcome(vocabulary)
    for turn_index, turn in enumerate(turns):
        _show_turn(turn_index, turn)
    if question:
        with st.chat_message("user", avatar=USER_AVATAR):
            st.markdown(plain_markdown(question))
        with st.chat_message("assistant", avatar=ASSISTANT_AVATAR):
            turns.append(_answer_new(context, len(turns), question, scope))

    requested = requested_citation()
    if requested is not None:
        turn_index, n = requested
        citation = turns[turn_index].citation(n) if turn_index < len(turns) else None
        if citation is not None:
            open_citation(context, citation, key=f"rows-{turn_index}-{n}")
