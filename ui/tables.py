"""Transaction tables: date, merchant and amount first, money signed and coloured by direction,
as an HTML table of escaped text with a CSV download.

A canvas table (``st.dataframe``) clips its last columns in a narrow chat column and cannot be
read by a screen reader; this table is plain, so on a phone it keeps only date, merchant and
amount (``ui/styles.py``) and everything else is one hover (``title``) or scroll away.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from datetime import date

import streamlit as st

from elastic.model.records import Transaction
from elastic.visible_text import visible
from llm.answering.wording import Wording, currency_symbol, wording
from ui.frames import TRANSACTION_COLUMNS, csv_bytes, transaction_labels, transactions_frame

_BIDI_MARKS = dict.fromkeys(map(ord, "\u200e\u200f\u061c"))  # LRM, RLM, ALM
LEADING_COLUMNS = ("date", "merchant", "amount")
"""What a question about transactions asks for: always shown, the only columns on a phone."""
_CLIPPED_COLUMNS = ("merchant", "description", "account", "source")  # long text: "…" + title

# Streamlit's money formats (with thousands separators), by the symbol they show.
_SYMBOL_FORMATS = {"$": "dollar", "€": "euro", "¥": "yen"}


def money_format(currency: str) -> str:
    """How a money column shows ``currency``: the symbol ``money`` puts before amounts."""
    symbol = currency_symbol(currency)
    return _SYMBOL_FORMATS.get(symbol, f"{symbol}%.2f")


def money_column(label: str, currency: str, help_text: str | None = None) -> object:
    """A number column shown as money; still numeric, so sorting works."""
    return st.column_config.NumberColumn(label, format=money_format(currency), help=help_text)


def signed_amount(row: Transaction, words: Wording) -> tuple[str, str]:
    """The amount as shown (``-$12.50`` money out, ``+$2,500.00`` money in) and its CSS class."""
    # The cell sets its own direction (left to right), so the locale's bidi marks go.
    shown = words.money(row.amount, row.currency).translate(_BIDI_MARKS)
    if row.amount < 0:
        return shown, "fs-out"
    if row.amount > 0:
        return f"+{shown}", "fs-in"
    return shown, ""


def _cell(key: str, value: object) -> str:
    shown = value.isoformat() if isinstance(value, date) else visible(str(value), keep_marks=True)
    text = html.escape(shown, quote=True)
    extra = "" if key in LEADING_COLUMNS else " fs-extra"
    title = f' title="{text}"' if key in _CLIPPED_COLUMNS else ""
    return f'<td class="fs-k-{key}{extra}"{title}>{text}</td>'


def transactions_html(
    rows: Sequence[Transaction], language: str = "en", names: Mapping[str, str] | None = None
) -> str:
    """The rows as an HTML table in which every text is escaped: documents are data, never
    markup. The wrapper scrolls a long or wide table, so it takes keyboard focus."""
    words = wording(language)
    frame = transactions_frame(rows, language, names)
    keys, labels = TRANSACTION_COLUMNS, transaction_labels(language)
    head = "".join(
        f'<th scope="col" class="fs-k-{key}{"" if key in LEADING_COLUMNS else " fs-extra"}"'
        + (f' title="{html.escape(words.text("column.amount_help"))}"' if key == "amount" else "")
        + f">{html.escape(labels[key])}</th>"
        for key in keys
    )
    body = []
    for row, values in zip(rows, frame.itertuples(index=False), strict=True):
        cells = []
        for key, value in zip(keys, values, strict=True):
            if key == "amount":
                shown, direction = signed_amount(row, words)
                cells.append(f'<td class="fs-k-amount {direction}">{html.escape(shown)}</td>')
            else:
                cells.append(_cell(key, value))
        body.append(f"<tr>{''.join(cells)}</tr>")
    return (
        f'<div class="fs-tx-wrap" dir="{words.direction}" role="region" '
        f'aria-label="{html.escape(words.text("chart.transactions"))}" tabindex="0">'
        f'<table class="fs-tx"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def transactions_table(
    rows: Sequence[Transaction],
    key: str,
    file_name: str,
    language: str = "en",
    names: Mapping[str, str] | None = None,
) -> None:
    """The rows as a table, headed in ``language``, and a CSV download of exactly those rows;
    ``names`` shows each file by its name (``provenance_label``)."""
    if not rows:
        st.info(wording(language).text("tables.no_rows"), icon=":material/search_off:")
        return
    with st.container(key=f"{key}-table"):
        st.html(transactions_html(rows, language, names))
    st.download_button(
        wording(language).text("chart.download"),
        data=csv_bytes(transactions_frame(rows, language, names)),
        file_name=file_name,
        mime="text/csv",
        icon=":material/download:",
        key=f"{key}-csv",
        on_click="ignore",
    )
