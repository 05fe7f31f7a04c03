"""Browse what the answers are built from: statements (page by page) and transactions."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date
from functools import partial

import pandas as pd
import streamlit as st

from elastic.model.plan import Direction, Intent, IntentPlan, SortOrder
from elastic.model.results import ListingResult, StatementInfo, Vocabulary
from llm.answering.wording import (
    Wording,
    account_label,
    account_option_label,
    bucket_label,
    wording,
)
from llm.sources import SourceFile
from ui.answer_text import plain_markdown
from ui.charts import recurring_frame
from ui.context import AppContext, app_context, data_changed, ui_language
from ui.faults import show_fault
from ui.frames import reconciliation_mark
from ui.sidebar import account_names, load_vocabulary
from ui.source_viewer import statement_dialog
from ui.tables import transactions_table

log = logging.getLogger(__name__)

PAGE_SIZE = 50
_FORGOT = "sources-forgot"  # what the last forget deleted, said once after it
_DIRECTIONS = {"All": Direction.any, "Money out": Direction.out, "Money in": Direction.in_}
_CURSORS = "sources-cursors"  # the ``after`` value of every page shown so far, for "Previous"


def _statements_frame(statements: list[StatementInfo], w: Wording) -> pd.DataFrame:
    """One row per statement: the file it came in, by its name, and its month first."""
    return pd.DataFrame(
        {
            w.text("files.column_file"): [s.file_name or "" for s in statements],
            w.text("files.column_month"): [
                w.period_name(s.statement_from, s.statement_to) for s in statements
            ],
            "Bank": [s.bank_name for s in statements],
            "Account": [account_label(s.account_name, s.account_no) for s in statements],
            "From": [s.statement_from for s in statements],
            "To": [s.statement_to for s in statements],
            "Pages": [s.pages for s in statements],
            "Rows": [s.reconciliation.rows if s.reconciliation else 0 for s in statements],
            "Check": [reconciliation_mark(s.reconciliation) for s in statements],
        }
    )


def _statements_tab(context: AppContext) -> None:
    statements = context.pipeline.statements(context.user_id)
    if not statements:
        st.info("No statements yet: upload PDFs on the **Ingest** page.", icon=":material/info:")
        return
    labels = {
        s.account_name: account_option_label(s.account_name, s.bank_name, s.account_no)
        for s in statements
    }
    chosen_accounts = st.multiselect(
        "Accounts",
        list(labels),
        format_func=labels.__getitem__,
        placeholder="All accounts",
        key="statement-accounts",
    )
    if chosen_accounts:
        statements = [s for s in statements if s.account_name in chosen_accounts]
    st.caption(f"{len(statements):,} statements. Select one to read it page by page.")
    selection = st.dataframe(
        _statements_frame(statements, wording(ui_language())),
        hide_index=True,
        on_select="rerun",
        selection_mode="single-row",
        key="statements-table",
        height=360,
        column_config={
            "From": st.column_config.DateColumn(format="YYYY-MM-DD"),
            "To": st.column_config.DateColumn(format="YYYY-MM-DD"),
        },
    )
    rows = selection.selection.rows
    chosen = statements[rows[0]] if rows and rows[0] < len(statements) else statements[0]
    if chosen.reconciliation is not None:
        st.caption(
            plain_markdown(
                f"{chosen.account_name}, {bucket_label(chosen.statement_from, 'month')}: "
                f"{chosen.reconciliation.rows:,} rows read, "
                f"{chosen.reconciliation.describe()}"
            )
        )
    with st.container(horizontal=True, vertical_alignment="bottom", gap="small"):
        page = st.number_input(
            f"Page of {plain_markdown(chosen.account_name)}, "
            f"{bucket_label(chosen.statement_from, 'month')}",
            min_value=1,
            max_value=max(chosen.pages, 1),
            value=1,
            key=f"statement-page-{chosen.statement_id}",
            width=260,
        )
        if st.button("Open page", icon=":material/visibility:", type="primary"):
            statement_dialog(context, chosen.statement_id, int(page))


def _transaction_filters(vocabulary: Vocabulary) -> IntentPlan:
    names = account_names(vocabulary.accounts)
    left, middle = st.columns(2)
    accounts = left.multiselect(
        "Accounts",
        list(names),
        format_func=names.__getitem__,
        placeholder="All accounts",
        key="tx-accounts",
    )
    categories = middle.multiselect(
        "Categories", vocabulary.categories, placeholder="All categories", key="tx-categories"
    )
    left, middle, right = st.columns([2, 2, 1.4], vertical_alignment="bottom")
    text = left.text_input(
        "Description contains", placeholder="e.g. DELTA, ATM, PAYROLL", key="tx-text"
    )
    first, last = vocabulary.first_date, vocabulary.last_date
    picked = middle.date_input(
        "Dates",
        value=(first, last) if first and last else (),
        min_value=first,
        max_value=last,
        format="YYYY-MM-DD",
        key="tx-dates",
    )
    days: list[date] = [d for d in (picked if isinstance(picked, tuple) else (picked,)) if d]
    direction = right.segmented_control(
        "Direction", list(_DIRECTIONS), default="All", key="tx-direction"
    )
    return IntentPlan(
        intent=Intent.listing,
        direction=_DIRECTIONS[direction or "All"],
        accounts=accounts,
        categories=categories,
        date_from=days[0] if days else None,
        date_to=days[1] if len(days) == 2 else None,
        text=text.strip() or None,
        sort=SortOrder.newest,
        limit=PAGE_SIZE,
    )


def _page_of(context: AppContext, plan: IntentPlan) -> tuple[ListingResult, int]:
    """The current page of ``plan`` and its number; new filters start again at page one."""
    signature = plan.model_dump_json()
    state = st.session_state.get(_CURSORS)
    if state is None or state[0] != signature:
        state = (signature, [None])
        st.session_state[_CURSORS] = state
    cursors: list[str | None] = state[1]
    result = context.pipeline.transactions(context.user_id, plan, cursors[-1])
    return result, len(cursors)


def _next_page(after: str) -> None:
    st.session_state[_CURSORS][1].append(after)


def _previous_page() -> None:
    st.session_state[_CURSORS][1].pop()


def _transactions_tab(context: AppContext) -> None:
    vocabulary = load_vocabulary(context)
    if vocabulary is None or not vocabulary.accounts:
        st.info("No transactions yet: upload a CSV on the **Ingest** page.", icon=":material/info:")
        return
    _category_correction(context, vocabulary)
    plan = _transaction_filters(vocabulary)
    result, page = _page_of(context, plan)
    start = (page - 1) * PAGE_SIZE
    shown = f"{start + 1:,}–{start + len(result.rows):,}" if result.rows else "0"
    st.caption(f"Transactions {shown} of {result.total:,}, newest first")
    transactions_table(
        result.rows,
        key="tx-browse",
        file_name=f"transactions-page-{page}.csv",
        names=context.source_labels(),
    )
    with st.container(horizontal=True, gap="small"):
        st.button(
            "Previous page",
            icon=":material/chevron_left:",
            disabled=page == 1,
            on_click=_previous_page,
        )
        st.button(
            "Next page",
            icon=":material/chevron_right:",
            icon_position="right",
            disabled=result.next_after is None or start + len(result.rows) >= result.total,
            on_click=_next_page,
            args=(result.next_after,),
        )


def _category_correction(context: AppContext, vocabulary: Vocabulary) -> None:
    """Set a merchant's category for all its rows and for later imports."""
    with st.expander("Correct a merchant's category", icon=":material/edit:"):
        with st.form("category-correction", border=False):
            merchant = st.selectbox("Merchant", vocabulary.merchants, key="fix-merchant")
            known = st.selectbox(
                "Category",
                vocabulary.categories,
                index=None,
                key="fix-category",
                placeholder="Choose a category",
            )
            typed = st.text_input("…or a new category", key="fix-new-category")
            submitted = st.form_submit_button("Apply to every row of this merchant")
        category = (typed or known or "").strip()
        if submitted and merchant and category:
            changed = context.pipeline.correct_category(context.user_id, merchant, category)
            data_changed(context)
            st.success(
                f"{changed:,} rows of {plain_markdown(merchant)} are now "
                f"{plain_markdown(category)}; later imports follow.",
                icon=":material/check_circle:",
            )
        elif submitted:
            st.warning("Choose a merchant and a category.", icon=":material/warning:")


def _recurring_tab(context: AppContext) -> None:
    """The recurring payments and subscriptions found in the user's rows, with what the active
    ones cost a month."""
    result = context.pipeline.recurring(context.user_id)
    if not result.series:
        st.info("No recurring payments found yet.", icon=":material/info:")
        return
    words = wording("en")
    active = sum(1 for s in result.series if s.active)
    monthly = ", ".join(words.money(v, c) for c, v in result.monthly.items())
    st.caption(
        f"{len(result.series):,} recurring payments, {active:,} still running, "
        f"costing {monthly} a month."
    )
    st.dataframe(recurring_frame(result, words), hide_index=True, key="recurring-table")


def _contents(source: SourceFile, w: Wording) -> str:
    """What forgetting a file deletes: ``3 pages, 47 transactions``."""
    parts = [w.plural(source.pages, "page")] if source.pages else []
    parts.append(w.plural(source.rows, "transaction"))
    return w.text("filter.list_separator").join(parts)


def _option(source: SourceFile, w: Wording) -> str:
    return w.text(
        "files.option", name=source.name, period=source.period, contents=_contents(source, w)
    )


def _forget_one(context: AppContext, source: SourceFile, w: Wording) -> None:
    deleted = context.pipeline.forget(context.user_id, context.store, [source.key])
    data_changed(context)
    name = plain_markdown(source.name)
    st.session_state[_FORGOT] = w.text(
        "files.forgot_one", name=name, documents=f"{deleted.documents:,}"
    )


def _forget_all(context: AppContext, w: Wording) -> None:
    deleted = context.pipeline.forget(context.user_id, context.store)
    context.importer.forget_uploads()
    data_changed(context)
    st.session_state[_FORGOT] = w.text("files.forgot_all", documents=f"{deleted.documents:,}")


def _closed_after_forgetting() -> None:
    """The dialog closes once its button has forgotten the data (the page says what went)."""
    if st.session_state.get(_FORGOT):
        st.rerun()


def _answer_buttons(w: Wording, key: str, forget: Callable[[], None]) -> None:
    """Forget (a callback: it runs whether or not the dialog is drawn again) or cancel."""
    with st.container(horizontal=True, gap="small"):
        st.button(w.text("files.confirm"), type="primary", key=f"{key}-confirm", on_click=forget)
        if st.button(w.text("files.cancel"), key=f"{key}-cancel"):
            st.rerun()


def _confirm_one(context: AppContext, source: SourceFile, w: Wording) -> None:
    """Name what goes (the file, its month, its pages and rows), then forget it or not."""
    _closed_after_forgetting()
    st.markdown(
        w.text(
            "files.confirm_one",
            name=plain_markdown(source.name),
            period=source.period,
            contents=_contents(source, w),
        )
    )
    _answer_buttons(w, "forget-one", partial(_forget_one, context, source, w))


def _confirm_all(context: AppContext, sources: list[SourceFile], w: Wording) -> None:
    """Name what goes (every file, its pages and rows, the conversation), then forget it all
    or not."""
    _closed_after_forgetting()
    pages = sum(source.pages for source in sources)
    rows = sum(source.rows for source in sources)
    contents = w.text("filter.list_separator").join(
        [w.plural(pages, "page"), w.plural(rows, "transaction")]
    )
    st.markdown(
        w.text("files.confirm_all", files=w.plural(len(sources), "file"), contents=contents)
    )
    _answer_buttons(w, "forget-all", partial(_forget_all, context, w))


def _forget_panel(context: AppContext) -> None:
    """Delete one file's data, or all of it, from the store and the kept PDFs: files listed by
    name and month, and nothing goes before a dialog has said what will."""
    w = wording(ui_language())
    done = st.session_state.pop(_FORGOT, None)
    if done:
        st.success(done, icon=":material/check_circle:")
    sources = context.sources(w.code)
    with st.expander(w.text("files.forget_title"), icon=":material/delete:"):
        if not sources:
            st.caption(w.text("files.none"))
            return
        chosen = st.selectbox(
            w.text("files.file"),
            sources,
            format_func=lambda source: _option(source, w),
            key="forget-file",
        )
        confirm = st.dialog(w.text("files.confirm_title"), width="medium")
        if st.button(w.text("files.forget_one"), key="forget-one", icon=":material/delete:"):
            confirm(_confirm_one)(context, chosen, w)
        if st.button(w.text("files.forget_all"), type="primary", key="forget-all"):
            confirm(_confirm_all)(context, sources, w)


def sources_page() -> None:
    context = app_context()
    st.title("Sources", anchor=False)
    st.caption("Everything the answers are computed from, exactly as it was ingested.")
    statements_tab, transactions_tab, recurring_tab = st.tabs(
        ["Statements", "Transactions", "Recurring"]
    )
    try:
        _forget_panel(context)
        with statements_tab:
            _statements_tab(context)
        with transactions_tab:
            _transactions_tab(context)
        with recurring_tab:
            _recurring_tab(context)
    except Exception as exc:
        show_fault("Your sources could not be shown", exc, "Try again in a moment.")
