"""The chat: questions in, answers out with clickable citations, charts and tables."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from datetime import date
from decimal import Decimal

import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.elements.lib.mutable_status_container import StatusContainer

from elastic.model.results import Vocabulary
from llm.answering.answer import Answer, Note, Prose, Suggestions
from llm.answering.wording import Wording, account_option_label, plan_kind, wording
from llm.pipeline import Scope
from ui.answer_text import inert_text, link_citations, plain_markdown
from ui.carried import carried_chips
from ui.charts import answer_numbers
from ui.chat_history import (
    MAX_WAITING,
    ChatTurn,
    WaitingQuestion,
    answered,
    conversation_language,
    history,
    previous_plan,
    queue_question,
    waiting,
)
from ui.citations import citation_list, requested_citation
from ui.context import AppContext, app_context
from ui.faults import fault_line
from ui.sidebar import chat_filters, clear_chat_button, engine_panel, load_vocabulary
from ui.source_viewer import open_citation

log = logging.getLogger(__name__)

QUESTION_KEY = "chat-question"
WAIT_STEP_S = 0.25  # while an answer is computed, the run can be stopped this often
# Answers are computed outside the script run, so a run stopped by a newer question does not
# stop (or repeat) the answer: the next run picks it up. Shared by all sessions of the server.
_ANSWERING = ThreadPoolExecutor(max_workers=4, thread_name_prefix="answer")

EXAMPLES = 4  # example questions in the templates' chrome (example_1 ...)


def examples(w: Wording) -> tuple[str, ...]:
    """The example questions of the welcome, in ``w``'s language."""
    return tuple(w.text(f"chrome.example_{n}") for n in range(1, EXAMPLES + 1))


EXAMPLE_QUESTIONS = examples(wording())
USER_AVATAR = ":material/person:"
ASSISTANT_AVATAR = ":material/account_balance:"


def _ms(w: Wording, ms: float, places: int = 0) -> str:
    """Milliseconds in the language's digits: "1,234" / "1.234", "8.5" / "8,5"."""
    return w.number(round(Decimal(str(ms)), places) if places else round(ms))


def _welcome(vocabulary: Vocabulary | None, w: Wording) -> None:
    st.markdown(w.text("chrome.welcome"))
    if vocabulary is not None and not vocabulary.accounts:
        st.info(w.text("chrome.no_data"), icon=":material/info:")
    elif vocabulary is not None:
        accounts = ", ".join(
            account_option_label(a.account_name, a.bank_name, a.last4) for a in vocabulary.accounts
        )
        period = w.period_range(vocabulary.first_date, vocabulary.last_date)
        st.caption(f":material/account_balance_wallet: {plain_markdown(accounts)} · {period}")
    st.caption(w.text("chrome.examples"))
    with st.container(horizontal=True, gap="small", key="examples"):
        for number, question in enumerate(examples(w)):
            st.button(
                question,
                key=f"example-{number}",
                icon=":material/chat_bubble:",
                on_click=_send,
                args=(question,),
            )


def _done_label(answer: Answer) -> str:
    w = wording(answer.language)
    return w.text("chrome.answered", ms=_ms(w, sum(answer.timings_ms.values())))


def _step_lines(answer: Answer) -> None:
    """What the question was understood as, and how long each stage took."""
    w = wording(answer.language)
    kind = plan_kind(answer.plan)
    st.markdown(w.text("chrome.understood", kind=w.text(f"chrome.kind_{kind}")))
    for stage, ms in answer.timings_ms.items():
        _step_line(w, stage, ms)


def _step_line(w: Wording, stage: str, ms: float) -> None:
    key = f"chrome.step_{stage}"
    step = w.text(key) if w.has(key) else stage
    st.markdown(f":material/check: {w.text('chrome.step_line', step=step, ms=_ms(w, ms, 1))}")


def _answer_text(turn_index: int, answer: Answer, text_box: DeltaGenerator) -> None:
    """The answer's paragraphs and notes, with citation chips, in ``text_box``. Its tables are
    drawn from the result by ``answer_numbers`` (sortable, with a CSV download), and its
    suggestions become buttons under the sources. Right-to-left languages (Arabic) read right
    to left."""
    direction = wording(answer.language).direction
    with text_box.container():
        for part in answer.parts:
            if isinstance(part, Prose | Note):
                shown = link_citations(part.markdown(), turn_index, answer.citations)
                if direction != "ltr":
                    shown = f'<div dir="{direction}">\n\n{shown}\n\n</div>'
                st.markdown(shown, unsafe_allow_html=True)


def _suggestions(turn_index: int, suggestions: Suggestions) -> None:
    st.caption(suggestions.lead.rstrip(":"))
    with st.container(horizontal=True, gap="small"):
        for number, suggestion in enumerate(suggestions.questions):
            st.button(
                plain_markdown(suggestion),
                key=f"suggest-{turn_index}-{number}",
                icon=":material/chat_bubble:",
                on_click=_send,
                args=(suggestion,),
            )


def _answer_body(turn_index: int, answer: Answer, text_box: DeltaGenerator) -> None:
    """Text (with citation chips) in ``text_box``, then the numbers, sources and suggestions."""
    answer_numbers(answer, key=f"turn-{turn_index}")
    _answer_text(turn_index, answer, text_box)
    citation_list(turn_index, answer.citations, wording(answer.language))
    for part in answer.parts:
        if isinstance(part, Suggestions):
            _suggestions(turn_index, part)


def _show_turn(turn_index: int, turn: ChatTurn) -> None:
    with st.chat_message("user", avatar=USER_AVATAR):
        st.markdown(plain_markdown(turn.question))
        if turn.answer is not None:
            carried_chips(turn_index, turn, wording(turn.answer.language))
    with st.chat_message("assistant", avatar=ASSISTANT_AVATAR):
        if turn.error:
            st.error(turn.error, icon=":material/error:")
            return
        if turn.answer is not None:
            with st.status(_done_label(turn.answer), state="complete"):
                _step_lines(turn.answer)
            _answer_body(turn_index, turn.answer, st.empty())


def _preview(box: DeltaGenerator) -> Callable[[str], None]:
    """Shows the verified pieces the pipeline hands over, as they are written, in ``box``; the
    finished answer replaces them."""
    written: list[str] = []

    def show(piece: str) -> None:
        written.append(piece)
        box.markdown(inert_text("".join(written)))

    return show


def stage_label(w: Wording, stage: str) -> str:
    """What a stage of answering is doing, as the status line says it."""
    key = f"chrome.stage_{stage}"
    return w.text(key) if w.has(key) else stage


def _asked(
    context: AppContext, waiting_question: WaitingQuestion, scope: Scope, status: StatusContainer
) -> Answer:
    """The question's answer, computed in ``_ANSWERING`` while ``status`` follows its stages.
    Waiting in short steps lets a newer question stop this run at once: the computation goes on
    and the next run collects it."""
    if waiting_question.answer is None:

        def on_stage(stage: str) -> None:
            waiting_question.stage = stage

        if not waiting_question.again:
            waiting_question.previous = previous_plan()
        waiting_question.answer = _ANSWERING.submit(
            context.pipeline.ask,
            waiting_question.question,
            context.user_id,
            date.today(),
            waiting_question.previous,
            scope,
            rewrite=False,
            on_stage=on_stage,
        )
    future = waiting_question.answer
    started = time.monotonic()
    w = wording(conversation_language())
    while not wait([future], timeout=WAIT_STEP_S).done:
        label = stage_label(w, waiting_question.stage)
        status.update(label=f"{label} {time.monotonic() - started:.0f} s")
    answer = future.result()
    with status:
        _step_lines(answer)
    return answer


def _answer_new(
    context: AppContext, turn_index: int, waiting_question: WaitingQuestion, scope: Scope
) -> ChatTurn:
    """Ask the pipeline with visible progress; errors end up in the turn, never in a crash."""
    question = waiting_question.question
    turn = ChatTurn(question)
    w = wording(conversation_language())
    status = st.status(stage_label(w, "route"))
    text_box = st.empty()
    try:
        answer = _asked(context, waiting_question, scope, status)
        turn.previous = waiting_question.previous
        w = wording(answer.language)
        if context.pipeline.rewrites(answer):
            status.update(label=stage_label(w, "write"))
            answer = context.pipeline.write(question, answer, _preview(text_box))
            with status:
                _step_line(w, "write", answer.timings_ms["write"])
    except Exception as exc:
        status.update(label=w.text("chrome.failed"), state="error")
        turn.error = fault_line(w.text("chrome.sorry"), exc, w.text("chrome.kept"))
        st.error(turn.error, icon=":material/error:")
        return turn
    status.update(label=_done_label(answer), state="complete", expanded=False)
    turn.answer = answer
    _answer_body(turn_index, answer, text_box)
    return turn


def _send(question: str) -> None:
    """Queue ``question`` (a callback: it runs before the script, so no run can lose it)."""
    if not queue_question(question):
        w = wording(conversation_language())
        st.toast(w.text("chrome.queue_full", count=MAX_WAITING), icon=":material/hourglass_top:")


def _sent_from_chat_input() -> None:
    question = (st.session_state.get(QUESTION_KEY) or "").strip()
    if question:
        _send(question)


def _answer_waiting(context: AppContext, scope: Scope) -> None:
    """Each waiting question with a place for its answer, then the answers, oldest first."""
    pending = list(waiting())  # another run may take a question off meanwhile (chat_history)
    places = []
    w = wording(conversation_language())
    for waiting_question in pending:
        with st.chat_message("user", avatar=USER_AVATAR):
            st.markdown(plain_markdown(waiting_question.question))
            chips = st.empty()
        with st.chat_message("assistant", avatar=ASSISTANT_AVATAR):
            place = st.empty()
            place.caption(w.text("chrome.waiting"))
            places.append((chips, place))
    for (chips, place), waiting_question in zip(places, pending, strict=True):
        turn_index = len(history())
        with place.container():
            turn = _answer_new(context, turn_index, waiting_question, scope)
        if turn.answer is not None:
            with chips.container():
                carried_chips(turn_index, turn, wording(turn.answer.language))
        answered(waiting_question, turn)


def chat_page() -> None:
    context = app_context()
    language = conversation_language(st.context.locale)
    w = wording(language)
    vocabulary = load_vocabulary(context)
    scope = chat_filters(vocabulary, w)
    clear_chat_button()
    engine_panel(context)

    st.title(w.text("chrome.title"), anchor=False)
    st.chat_input(w.text("chrome.placeholder"), key=QUESTION_KEY, on_submit=_sent_from_chat_input)
    turns = history()
    if not turns and not waiting():
        _welcome(vocabulary, w)
    for turn_index, turn in enumerate(turns):
        _show_turn(turn_index, turn)
    _answer_waiting(context, scope)
    if conversation_language(st.context.locale) != language:
        st.rerun()  # the page's own words follow the conversation into its new language

    requested = requested_citation()
    if requested is not None:
        turn_index, n = requested
        citation = turns[turn_index].citation(n) if turn_index < len(turns) else None
        if citation is not None:
            open_citation(context, citation, key=f"rows-{turn_index}-{n}")
