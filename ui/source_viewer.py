"""The source viewer: a statement page (image and text, passage highlighted) or the rows behind
a number. Chat citations and the Sources page open the same dialogs."""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import streamlit as st

from elastic.masking import mask_account_numbers
from elastic.model.records import Box, Transaction
from elastic.model.results import ListingResult, StatementHit, StatementInfo
from llm.answering.answer import Citation
from llm.answering.wording import account_label, money, period_range
from llm.pdf_pages import PageNotDrawn, bounded_page_png, page_count
from ui.answer_text import highlight_passage, plain_markdown
from ui.context import AppContext
from ui.faults import show_fault
from ui.frames import frame_currency
from ui.tables import transactions_table

MAX_ROWS_SHOWN = 2000  # rows behind a number fetched page by page (100 each) up to this many


@dataclass(frozen=True)
class PageImage:
    """A drawn page, or why it is not drawn."""

    png: bytes | None
    not_drawn: str | None = None


@st.cache_data(max_entries=64, ttl="1h", show_spinner="Drawing the page…")
def _page_image(
    pdf_path: str, page: int, account_no: str, passage: str | None, region: Box | None
) -> PageImage:
    """Cached whether drawn or not: a page that took too long is not tried again at once."""
    try:
        return PageImage(bounded_page_png(Path(pdf_path), page, account_no, passage, region))
    except PageNotDrawn as exc:
        return PageImage(None, str(exc))


@st.cache_data(max_entries=256, show_spinner=False)
def _pages_in(pdf_path: str) -> int:
    return page_count(Path(pdf_path))


def page_figure(png: bytes, page: int) -> str:
    """A drawn page as an ``<img>`` holding its own data: a statement page never gets a
    ``/media`` address that anyone holding the link could open while the session lasts."""
    caption = html.escape(f"Page {page} of the original statement (account number masked)")
    data = base64.b64encode(png).decode("ascii")
    return (
        f'<figure class="fs-page-image"><img src="data:image/png;base64,{data}" alt="{caption}">'
        f"<figcaption>{caption}</figcaption></figure>"
    )


def _stored_pdf(context: AppContext, chunk: StatementHit) -> Path | None:
    try:
        path = context.store.path(chunk.source_file, context.user_id)
    except ValueError:
        return None
    return path if path.exists() else None


def statement_page(
    context: AppContext,
    statement_id: str,
    page: int,
    passage: str | None,
    region: Box | None = None,
) -> None:
    """Bank, masked account, period and page; the page image beside its text, with the cited
    passage, row or fact marked."""
    chunks = context.pipeline.statement_pages(context.user_id, statement_id)
    if not chunks:
        st.warning("This statement is no longer in your data.", icon=":material/search_off:")
        return
    first = chunks[0]
    pdf_path = _stored_pdf(context, first)
    pages = _pages_in(str(pdf_path)) if pdf_path else max(c.page for c in chunks)
    cited_page = page
    title, picker = st.columns([4, 1], vertical_alignment="bottom")
    with picker:
        page = int(
            st.number_input(
                f"Page (of {pages})",
                min_value=1,
                max_value=pages,
                value=min(page, pages),
                key=f"viewer-page-{statement_id}-{cited_page}",
            )
        )
    with title:
        period = period_range(first.statement_from, first.statement_to)
        account = account_label(first.account_name, first.account_no)
        st.markdown("#### " + plain_markdown(f"{first.bank_name} · {account}"))
        st.caption(f"Statement period {period} · page {page} of {pages}")
    shown_passage = passage if page == cited_page else None
    text = mask_account_numbers(
        "\n".join(c.text for c in chunks if c.page == page), [first.account_no]
    )
    marked, found = highlight_passage(text, shown_passage)
    if shown_passage and found:
        quoted = html.escape(mask_account_numbers(shown_passage.strip(), [first.account_no]))
        st.html(f'<div class="fs-cited-passage">Cited passage: “{quoted}”</div>')
    image_column, text_column = st.columns([3, 2], gap="medium")
    with image_column:
        image = (
            _page_image(
                str(pdf_path),
                page,
                first.account_no,
                shown_passage,
                region if page == cited_page else None,
            )
            if pdf_path is not None
            else PageImage(None, "the original PDF is not stored")
        )
        if image.png is not None:
            st.html(page_figure(image.png, page))
        else:
            st.info(
                f"This page is not shown as an image: {image.not_drawn}. Its text is beside.",
                icon=":material/hide_image:",
            )
    with text_column, st.container(height=620, border=True):
        st.html(f'<div class="fs-page-text">{marked or "<em>No text on this page.</em>"}</div>')


def _all_rows_behind(context: AppContext, citation: Citation) -> ListingResult:
    """The rows a number stands for, following ``next_after`` until all (or enough) are in."""
    first = context.pipeline.rows_behind(context.user_id, citation)
    rows, after = list(first.rows), first.next_after
    while after is not None and len(rows) < MAX_ROWS_SHOWN:
        more = context.pipeline.rows_behind(context.user_id, citation, after)
        rows.extend(more.rows)
        after = more.next_after
    return ListingResult(rows=rows, total=first.total, next_after=after)


def _printed_rows(
    rows: list[Transaction], statements: dict[str, StatementInfo]
) -> list[tuple[Transaction, StatementInfo]]:
    """The rows read from a statement PDF the user still has, with that statement."""
    return [
        (row, statements[row.source_file])
        for row in rows
        if row.page and row.box and row.source_file in statements
    ]


def _row_label(row: Transaction) -> str:
    amount = money(row.amount, row.currency)
    return f"{row.date.isoformat()} · {row.merchant or row.description} · {amount}"


def transactions_behind(context: AppContext, citation: Citation, key: str) -> None:
    """The rows behind a number. A row read from a statement PDF opens its page with the row
    marked: at once when it is the only one, else the one chosen below the table."""
    result = _all_rows_behind(context, citation)
    # A clicked mark of a chart (n 0) is no numbered source of the answer.
    title = f"[{citation.n}] {citation.source}" if citation.n else citation.source
    st.markdown("#### " + plain_markdown(title))
    if len(result.rows) < result.total:
        st.caption(f"The newest {len(result.rows):,} of {result.total:,} transactions")
    else:
        total = sum((row.amount for row in result.rows), start=Decimal(0))
        currency = frame_currency(result.rows)
        st.caption(
            f"{result.total:,} {'transaction' if result.total == 1 else 'transactions'} · "
            f"signed total {money(total, currency)} "
            "(negative = money out)"
        )
    statements = {s.source_file: s for s in context.pipeline.statements(context.user_id)}
    printed = _printed_rows(result.rows, statements)
    if len(result.rows) == 1 and printed:
        row, statement = printed[0]
        statement_page(context, statement.statement_id, row.page or 1, None, row.box)
    transactions_table(
        result.rows,
        key=key,
        file_name=f"citation-{citation.n}-rows.csv",
        names=context.source_labels(),
    )
    if len(result.rows) > 1 and printed:
        labels = {_row_label(row): (row, statement) for row, statement in printed}
        chosen = st.selectbox(
            "Show a row on its statement page",
            list(labels),
            index=None,
            placeholder="Choose a row",
            key=f"{key}-page-row",
        )
        if chosen:
            row, statement = labels[chosen]
            statement_page(context, statement.statement_id, row.page or 1, None, row.box)


@st.dialog("Statement page", width="large")
def statement_dialog(
    context: AppContext,
    statement_id: str,
    page: int,
    passage: str | None = None,
    region: Box | None = None,
) -> None:
    try:
        statement_page(context, statement_id, page, passage, region)
    except Exception as exc:
        show_fault(
            f"Page {page} of this statement could not be shown",
            exc,
            "Close this and open the citation again; the answer itself is unaffected.",
        )


@st.dialog("Where the file states it")
def file_fact_dialog(citation: Citation) -> None:
    """A figure stated by a bank export (no page to show): the file and the place in it."""
    st.markdown(f"**{plain_markdown(citation.source)}**")
    st.caption("Bank exports have no pages; the figure is printed at this place in the file.")


@st.dialog("Transactions behind the number", width="large")
def transactions_dialog(context: AppContext, citation: Citation, key: str) -> None:
    try:
        transactions_behind(context, citation, key)
    except Exception as exc:
        show_fault(
            f"The transactions behind [{citation.n}] could not be listed",
            exc,
            "Close this and open the citation again; the answer itself is unaffected.",
        )


def open_citation(context: AppContext, citation: Citation, key: str) -> None:
    """Open the viewer that fits the citation: the statement page, or the rows behind it."""
    if citation.kind == "statement" and citation.statement_id and citation.page:
        statement_dialog(
            context, citation.statement_id, citation.page, citation.passage, citation.box
        )
    elif citation.kind == "statement":
        file_fact_dialog(citation)
    elif citation.rows_plan is not None:
        transactions_dialog(context, citation, key)
