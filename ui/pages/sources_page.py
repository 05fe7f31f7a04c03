"""Browse what the answers are built from: statements (page by page) and transactions."""

from __future__ import annotations

import logging
from datetime import date

import pandas as pd
import streamlit as st

from elastic.model.plan import Direction, Intent, IntentPlan, SortOrder
from elastic.model.results import ListingResult, StatementInfo, Vocabulary
from llm.answering.wording import account_label, account_option_label, bucket_label, wording
from ui.answer_text import plain_markdown
from ui.charts import recurring_frame
from ui.context import AppContext, app_context, data_changed
from ui.faults import show_fault
from ui.frames import reconciliation_mark
from ui.sidebar import account_names, engine_panel, load_vocabulary
from ui.source_viewer import statement_dialog
from ui.tables import transactions_table

log = logging.getLogger(__name__)

PAGE_SIZE = 50
_DIRECTIONS = {"All": Direction.any, "Money out": Direction.out, "Money in": Direction.in_}
_CURSORS = "sources-cursors"  # the ``after`` value of every page shown so far, for "Previous"


def _statements_frame(statements: list[StatementInfo]) -> pd.DataFrame:
    return pd.DataFrame(
        {
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
        _statements_frame(statements),
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
    transactions_table(result.rows, key="tx-browse", file_name=f"transactions-page-{page}.csv")
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


def _forget_panel(context: AppContext) -> None:
    """Delete one file's data, or all of it, from the store and the kept PDFs."""
    pipeline = context.pipeline
    labels = {
        s.source_file: f"{s.bank_name} · {s.account_name} statement "
        f"{s.statement_from} – {s.statement_to}"
        for s in pipeline.statements(context.user_id)
    }
    files = sorted({*pipeline.source_files(context.user_id), *labels})
    with st.expander("Forget data", icon=":material/delete:"):
        if files:
            chosen = st.selectbox(
                "File", files, format_func=lambda f: labels.get(f, f), key="forget-file"
            )
            if st.button("Forget this file", key="forget-one"):
                deleted = pipeline.forget(context.user_id, context.store, [chosen]).documents
                data_changed(context)
                forgotten = plain_markdown(labels.get(chosen, chosen))
                st.success(f"Forgot {deleted:,} stored documents of {forgotten}.")
        sure = st.checkbox("I want to delete all my data", key="forget-all-sure")
        if st.button("Forget all my data", type="primary", disabled=not sure, key="forget-all"):
            deleted = pipeline.forget(context.user_id, context.store).documents
            context.importer.forget_uploads()
            data_changed(context)
            st.success(f"Forgot all {deleted:,} stored documents.")


def sources_page() -> None:
    context = app_context()
    engine_panel(context)
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
