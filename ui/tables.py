"""Transaction tables: sortable, money-formatted, masked accounts, with a CSV download."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from elastic.model.records import Transaction
from llm.answering.wording import currency_symbol
from ui.frames import csv_bytes, frame_currency, transactions_frame

# Streamlit's money formats (with thousands separators), by the symbol they show.
_SYMBOL_FORMATS = {"$": "dollar", "€": "euro", "¥": "yen"}


def money_format(currency: str) -> str:
    """How a money column shows ``currency``: the symbol ``money`` puts before amounts."""
    symbol = currency_symbol(currency)
    return _SYMBOL_FORMATS.get(symbol, f"{symbol}%.2f")


def money_column(label: str, currency: str, help_text: str | None = None) -> object:
    """A number column shown as money; still numeric, so sorting works."""
    return st.column_config.NumberColumn(label, format=money_format(currency), help=help_text)


def transactions_table(
    rows: Sequence[Transaction], key: str, file_name: str, height: int | str = "auto"
) -> None:
    """The rows as a sortable table and a CSV download of exactly those rows."""
    if not rows:
        st.info("No transactions match.", icon=":material/search_off:")
        return
    frame = transactions_frame(rows)
    currency = frame_currency(rows)
    st.dataframe(
        frame,
        hide_index=True,
        height=height,
        key=f"{key}-table",
        column_config={
            "Date": st.column_config.DateColumn("Date", format="YYYY-MM-DD", width="small"),
            "Description": st.column_config.TextColumn("Description", width="large"),
            "Amount": money_column("Amount", currency, "Negative = money out"),
        },
    )
    st.download_button(
        "Download CSV",
        data=csv_bytes(frame),
        file_name=file_name,
        mime="text/csv",
        icon=":material/download:",
        key=f"{key}-csv",
        on_click="ignore",
    )
