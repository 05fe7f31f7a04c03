"""The chat: questions in, answers out with clickable citations, charts and tables; a picture of
the money loaded before the first question, next steps and tools after every answer."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from datetime import date

import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.elements.lib.mutable_status_container import StatusContainer

from elastic.model.plan import IntentPlan
from elastic.model.results import Vocabulary
from llm.answering.answer import Answer, Note, Prose, Suggestions
from llm.answering.next_steps import next_steps, rows_behind_point
from llm.answering.wording import Wording, account_option_label, wording
from llm.pipeline import Scope
from llm.planned import PlannedQuestion
from llm.understanding.language import question_language
from ui.answer_text import inert_text, link_citations, plain_markdown
from ui.carried import carried_chips
from ui.charts import answer_numbers, mark_point, slice_click
from ui.chat_history import (
    MAX_WAITING,
    ChatTurn,
    WaitingQuestion,
    answered,
    ask_again,
    conversation_language,
    history,
    keep,
    previous_plan,
    queue_question,
    restore,
    waiting,
)
from ui.chat_tools import answer_details, copy_button, stage_label
from ui.citations import citation_list, requested_citation
from ui.context import AppContext, app_context
from ui.faults import fault_line, show_fault
from ui.overview import first_screen
from ui.sidebar import chat_filters, clear_chat_button, load_vocabulary
from ui.source_viewer import open_citation, transactions_dialog

log = logging.getLogger(__name__)

QUESTION_KEY = "chat-question"
_EDITING = "chat-editing"  # the turn whose question is being edited
WAIT_STEP_S = 0.25  # while an answer is computed, the run can be stopped this often
# Answers are computed outside the script run, so a run stopped by a newer question does not
# stop (or repeat) the answer: the next run picks it up. Shared by all sessions of the server.
_ANSWERING = ThreadPoolExecutor(max_workers=4, thread_name_prefix="answer")

USER_AVATAR = ":material/person:"
ASSISTANT_AVATAR = ":material/account_balance:"


def _welcome(
    context: AppContext, vocabulary: Vocabulary | None, scope: Scope, language: str
) -> None:
    """What the chat shows before the first question: what FinSync does, the data loaded, an
    overview of it and example questions (``ui/overview.py``)."""
    w = wording(language)
    st.markdown(w.text("welcome.intro"))
    if vocabulary is not None and not vocabulary.accounts:
        st.info(w.text("welcome.no_data"), icon=":material/info:")
        return
    if vocabulary is None:
        return  # the sidebar says the backend failed
    accounts = ", ".join(
        account_option_label(a.account_name, a.bank_name, a.last4) for a in vocabulary.accounts
    )
    period = w.period_range(vocabulary.first_date, vocabulary.last_date)
    span = w.text("welcome.data_span", accounts=plain_markdown(accounts), period=period)
    st.caption(f":material/account_balance_wallet: {span}")
    try:
        screen = context.first_screen(language, scope)
    except Exception as exc:
        show_fault(w.text("overview.title"), exc, "Questions still work: type one below.")
        return
    first_screen(screen, language, _send_planned)


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


def _next_steps(turn_index: int, answer: Answer, vocabulary: Vocabulary | None) -> None:
    """Two to four buttons that ask the next question about the same numbers."""
    steps = next_steps(answer, vocabulary.first_date if vocabulary else None)
    if not steps:
        return
    with st.container(horizontal=True, gap="small", key=f"next-{turn_index}"):
        st.caption(wording(answer.language).text("next_step.lead"), width="content")
        for number, step in enumerate(steps):
            st.button(
                plain_markdown(step.text),
                key=f"next-{turn_index}-{number}",
                icon=":material/arrow_forward:",
                on_click=_send_planned,
                args=(step,),
                wrap=True,
            )


def _answer_tools(context: AppContext, turn_index: int, answer: Answer, last: bool) -> None:
    """Copy, regenerate (the newest answer) and the details, on one quiet line."""
    w = wording(answer.language)
    with st.container(
        horizontal=True, gap="small", vertical_alignment="center", key=f"tools-{turn_index}"
    ):
        copy_button(answer, key=f"copy-{turn_index}")
        if last:
            st.button(
                w.text("chat_tools.regenerate"),
                key=f"regenerate-{turn_index}",
                type="tertiary",
                icon=":material/refresh:",
                help=w.text("chat_tools.regenerate_help"),
                on_click=ask_again,
                args=(turn_index,),
            )
        answer_details(context, answer, key=f"details-{turn_index}")


def _answer_body(
    context: AppContext,
    turn_index: int,
    answer: Answer,
    text_box: DeltaGenerator,
    vocabulary: Vocabulary | None,
    last: bool,
) -> None:
    """Text (with citation chips) in ``text_box``, then the numbers, sources, suggestions, next
    steps and tools."""
    answer_numbers(
        answer,
        key=f"turn-{turn_index}",
        names=context.source_labels(),
        open_rows=lambda citation, key: transactions_dialog(context, citation, key),
    )
    _answer_text(turn_index, answer, text_box)
    citation_list(turn_index, answer.citations, wording(answer.language))
    for part in answer.parts:
        if isinstance(part, Suggestions):
            _suggestions(turn_index, part)
    _next_steps(turn_index, answer, vocabulary)
    _answer_tools(context, turn_index, answer, last)


def _start_editing(turn_index: int) -> None:
    st.session_state[_EDITING] = turn_index


def _stop_editing() -> None:
    st.session_state.pop(_EDITING, None)


def _asked_edited(turn_index: int) -> None:
    """The edited question, asked in place of the turn and those after it."""
    edited = (st.session_state.get(f"edit-{turn_index}") or "").strip()
    _stop_editing()
    if edited:
        ask_again(turn_index, edited)


def _question(turn_index: int, turn: ChatTurn, w: Wording) -> None:
    """The question as asked, with a button to edit it and ask again; or the edit form."""
    if st.session_state.get(_EDITING) == turn_index:
        with st.form(f"edit-form-{turn_index}", border=False):
            st.text_area(
                w.text("chat_tools.edit_label"), value=turn.question, key=f"edit-{turn_index}"
            )
            with st.container(horizontal=True, gap="small"):
                st.form_submit_button(
                    w.text("chat_tools.ask_again"),
                    type="primary",
                    icon=":material/send:",
                    on_click=_asked_edited,
                    args=(turn_index,),
                )
                st.form_submit_button(w.text("chat_tools.cancel"), on_click=_stop_editing)
        return
    st.markdown(plain_markdown(turn.question))
    st.button(
        w.text("chat_tools.edit"),
        key=f"edit-button-{turn_index}",
        type="tertiary",
        icon=":material/edit:",
        help=w.text("chat_tools.edit_help"),
        on_click=_start_editing,
        args=(turn_index,),
    )


def _show_turn(
    context: AppContext,
    turn_index: int,
    turn: ChatTurn,
    vocabulary: Vocabulary | None,
    last: bool,
) -> None:
    language = turn.answer.language if turn.answer else turn.language or conversation_language()
    w = wording(language)
    with st.chat_message("user", avatar=USER_AVATAR):
        _question(turn_index, turn, w)
        if turn.answer is not None:
            carried_chips(turn_index, turn, w)
    with st.chat_message("assistant", avatar=ASSISTANT_AVATAR):
        if turn.error:
            st.error(turn.error, icon=":material/error:")
            if last:
                st.button(
                    w.text("chat_tools.regenerate"),
                    key=f"regenerate-{turn_index}",
                    icon=":material/refresh:",
                    on_click=ask_again,
                    args=(turn_index,),
                )
            return
        if turn.answer is not None:
            _answer_body(context, turn_index, turn.answer, st.empty(), vocabulary, last)


def _preview(box: DeltaGenerator) -> Callable[[str], None]:
    """Shows the verified pieces the pipeline hands over, as they are written, in ``box``; the
    finished answer replaces them."""
    written: list[str] = []

    def show(piece: str) -> None:
        written.append(piece)
        box.markdown(inert_text("".join(written)))

    return show


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
            planned=waiting_question.planned,
            language=waiting_question.language,
        )
    future = waiting_question.answer
    started = time.monotonic()
    w = wording(waiting_question.language or conversation_language())
    while not wait([future], timeout=WAIT_STEP_S).done:
        label = stage_label(w, waiting_question.stage, "chrome")
        status.update(label=f"{label} {time.monotonic() - started:.0f} s")
    return future.result()


def _answer_new(
    context: AppContext,
    turn_index: int,
    waiting_question: WaitingQuestion,
    scope: Scope,
    vocabulary: Vocabulary | None,
) -> ChatTurn:
    """Ask the pipeline with visible progress, which goes once the answer is there (its
    timings are in the answer's details); errors end up in the turn, never in a crash."""
    question = waiting_question.question
    turn = ChatTurn(question, planned=waiting_question.planned, language=waiting_question.language)
    w = wording(waiting_question.language or conversation_language())
    progress = st.empty()
    status = progress.status(stage_label(w, "route", "chrome"))
    text_box = st.empty()
    try:
        answer = _asked(context, waiting_question, scope, status)
        turn.previous = waiting_question.previous
        w = wording(answer.language)
        if context.pipeline.rewrites(answer):
            status.update(label=stage_label(w, "write", "chrome"))
            answer = context.pipeline.write(question, answer, _preview(text_box))
    except Exception as exc:
        status.update(label=w.text("chrome.failed"), state="error")
        turn.error = fault_line(w.text("chrome.sorry"), exc, w.text("chrome.kept"))
        st.error(turn.error, icon=":material/error:")
        return turn
    progress.empty()
    turn.answer = answer
    _answer_body(context, turn_index, answer, text_box, vocabulary, last=True)
    return turn


def _send(question: str, planned: IntentPlan | None = None, language: str | None = None) -> None:
    """Queue ``question`` (a callback: it runs before the script, so no run can lose it)."""
    _stop_editing()
    if not queue_question(question, planned, language):
        w = wording(conversation_language())
        st.toast(w.text("chrome.queue_full", count=MAX_WAITING), icon=":material/hourglass_top:")


def _send_planned(asked: PlannedQuestion) -> None:
    """Queue a question a button offers, to be answered from its plan."""
    _send(asked.text, asked.plan, asked.language)


def _sent_from_chat_input() -> None:
    question = (st.session_state.get(QUESTION_KEY) or "").strip()
    if question:
        _send(question)


def _answer_waiting(context: AppContext, scope: Scope, vocabulary: Vocabulary | None) -> None:
    """Each waiting question with a place for its answer, then the answers, oldest first; each
    answered turn is kept with the user's data."""
    pending = list(waiting())  # another run may take a question off meanwhile (chat_history)
    places = []
    for place_in_queue, waiting_question in enumerate(pending):
        with st.chat_message("user", avatar=USER_AVATAR):
            # The turn it becomes: its Edit works once it is answered, and speaks the
            # language the answer will.
            question = waiting_question.question
            language = waiting_question.language or question_language(question)
            turn = ChatTurn(question, language=language)
            _question(len(history()) + place_in_queue, turn, wording(language))
            chips = st.empty()
        with st.chat_message("assistant", avatar=ASSISTANT_AVATAR):
            place = st.empty()
            place.caption(wording(language).text("chat_tools.waiting"))
            places.append((chips, place))
    for (chips, place), waiting_question in zip(places, pending, strict=True):
        turn_index = len(history())
        with place.container():
            turn = _answer_new(context, turn_index, waiting_question, scope, vocabulary)
        if turn.answer is not None:
            with chips.container():
                carried_chips(turn_index, turn, wording(turn.answer.language))
        if answered(waiting_question, turn):
            keep(context.pipeline, context.user_id)


def _not_again(exc: Exception) -> str:
    w = wording(conversation_language())
    return fault_line(w.text("chrome.not_again"), exc, w.text("chrome.ask_it_again"))


def chat_page() -> None:
    context = app_context()
    restore(context.pipeline, context.user_id, _not_again)
    language = conversation_language()
    w = wording(language)
    vocabulary = load_vocabulary(context)
    scope = chat_filters(vocabulary, w)
    clear_chat_button(context)

    st.title(w.text("chrome.title"), anchor=False)
    st.chat_input(w.text("chrome.placeholder"), key=QUESTION_KEY, on_submit=_sent_from_chat_input)
    turns = history()
    if not turns and not waiting():
        _welcome(context, vocabulary, scope, language)
    for turn_index, turn in enumerate(turns):
        last = turn_index == len(turns) - 1 and not waiting()
        _show_turn(context, turn_index, turn, vocabulary, last)
    _answer_waiting(context, scope, vocabulary)
    if conversation_language() != language:
        st.rerun()  # the page's own words follow the conversation into its new language

    requested = requested_citation()
    clicked = slice_click()
    if requested is not None:
        turn_index, n = requested
        citation = turns[turn_index].citation(n) if turn_index < len(turns) else None
        if citation is not None:
            open_citation(context, citation, key=f"rows-{turn_index}-{n}")
    elif clicked is not None:
        _open_slice(context, turns, *clicked)


_CHART_KEY = re.compile(r"^turn-(\d+)(?:-([A-Z]{3}))?-chart$")  # answer_numbers' chart keys


def _open_slice(context: AppContext, turns: list[ChatTurn], chart: str, data: object) -> None:
    """The transactions behind a pie slice clicked in answer ``chart`` names."""
    match = _CHART_KEY.match(chart)
    if match is None or int(match[1]) >= len(turns):
        return
    answer = turns[int(match[1])].answer
    point = mark_point(data, match[2])
    if answer is not None and point is not None:
        citation = rows_behind_point(answer, point)
        if citation is not None:
            transactions_dialog(context, citation, f"{chart}-rows")
