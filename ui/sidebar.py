"""The sidebar: filters that scope every question, and chat controls. Which engines answered is
an answer's detail (``ui/chat_tools.py``), not the sidebar's."""

from __future__ import annotations

import logging
from datetime import date

import streamlit as st

from elastic.model.results import AccountInfo, Vocabulary
from llm.answering.wording import Wording, account_option_label, wording
from llm.pipeline import Scope
from ui.chat_history import clear_history, conversation_language
from ui.context import AppContext
from ui.faults import fault_line

log = logging.getLogger(__name__)


def load_vocabulary(context: AppContext) -> Vocabulary | None:
    """The user's accounts, categories and dates; None (with a warning) if the backend fails."""
    try:
        return context.vocabulary()
    except Exception as exc:
        st.sidebar.warning(
            fault_line("Filters are unavailable", exc, "Questions still work without them.")
        )
        return None


def _date_range(vocabulary: Vocabulary, w: Wording) -> tuple[date | None, date | None]:
    """The chosen range; the full range of the data means no date constraint."""
    first, last = vocabulary.first_date, vocabulary.last_date
    if first is None or last is None:
        return None, None
    chosen = st.sidebar.date_input(
        w.text("chrome.dates"),
        value=(first, last),
        min_value=first,
        max_value=last,
        format="YYYY-MM-DD",
        key="filter-dates",
        help=w.text("chrome.dates_help"),
    )
    picked = [d for d in (chosen if isinstance(chosen, tuple) else (chosen,)) if d is not None]
    if len(picked) != 2:  # the second day is still being picked
        return None, None
    start, end = picked
    return (None if start == first else start), (None if end == last else end)


def chat_filters(vocabulary: Vocabulary | None, w: Wording | None = None) -> Scope:
    """Accounts and dates that constrain every question in the chat, labelled in ``w``'s
    language."""
    w = w or wording()
    st.sidebar.subheader(w.text("chrome.filters"))
    if vocabulary is None:
        return Scope()
    if not vocabulary.accounts:
        st.sidebar.caption(w.text("chrome.no_filters_data"))
        return Scope()
    labels = account_names(vocabulary.accounts)
    chosen: list[str] = st.sidebar.multiselect(
        w.text("chrome.accounts"),
        options=list(labels),
        format_func=labels.__getitem__,
        placeholder=w.text("chrome.all_accounts"),
        help=w.text("chrome.accounts_help"),
        key="filter-accounts",
    )
    date_from, date_to = _date_range(vocabulary, w)
    return Scope(accounts=tuple(chosen), date_from=date_from, date_to=date_to)


def _clear_chat(context: AppContext) -> None:
    """The conversation goes from the page and from where it is kept."""
    clear_history()
    context.pipeline.forget_conversation(context.user_id)


def clear_chat_button(context: AppContext) -> None:
    st.sidebar.button(
        wording(conversation_language()).text("chat_tools.clear"),
        icon=":material/delete_sweep:",
        on_click=_clear_chat,
        args=(context,),
        width="stretch",
        key="clear-chat",
    )


def account_names(accounts: list[AccountInfo]) -> dict[str, str]:
    """Account name → its label with bank and masked number, for selection widgets."""
    return {
        a.account_name: account_option_label(a.account_name, a.bank_name, a.last4) for a in accounts
    }
