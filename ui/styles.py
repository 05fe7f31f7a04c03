"""The few CSS rules the theme in ``.streamlit/config.toml`` cannot express."""

from __future__ import annotations

import streamlit as st

_CSS = """
<style>
.fs-cite {
    display: inline-block;
    min-width: 1.35em;
    padding: 0 0.35em;
    margin: 0 0.1em;
    border-radius: 0.6em;
    background: var(--st-primary-color, #1D4ED8);
    color: #fff;
    font-size: 0.72em;
    font-weight: 600;
    line-height: 1.5;
    text-align: center;
    vertical-align: super;
    cursor: pointer;
    user-select: none;
}
.fs-cite:hover, .fs-cite:focus-visible {
    filter: brightness(1.2);
    outline: 2px solid var(--st-primary-color, #1D4ED8);
    outline-offset: 1px;
}
.fs-page-image { margin: 0; }
.fs-page-image img { width: 100%; height: auto; border: 1px solid var(--st-border-color, #DCE3EE); }
.fs-page-image figcaption { font-size: 0.8rem; opacity: 0.75; margin-top: 0.25rem; }
.fs-page-text {
    white-space: pre-wrap;
    font-family: "Source Code Pro", ui-monospace, monospace;
    font-size: 0.8rem;
    line-height: 1.45;
}
.fs-page-text mark {
    background: #FDE68A;
    padding: 0.1em 0;
    border-radius: 0.2em;
}
.fs-cited-passage {
    border-left: 4px solid #F59E0B;
    background: #FFFBEB;
    padding: 0.5rem 0.8rem;
    border-radius: 0.3rem;
    font-size: 0.95rem;
}
.st-key-citation-click-catcher, .st-key-slice-click-catcher { display: none; }
/* Transaction tables (ui/tables.py). Money out and in keep 4.5:1 contrast (WCAG AA) on the
   theme's backgrounds #FFFFFF and #F3F6FB: #B91C1C 6.0:1 or more, #15803D 4.6:1 or more. */
.fs-tx-wrap {
    max-height: 30rem;
    overflow: auto;
    border: 1px solid #DCE3EE;
    border-radius: 0.5rem;
}
.fs-tx-wrap:focus-visible { outline: 2px solid #1D4ED8; outline-offset: 2px; }
.fs-tx {
    width: 100%;
    min-width: 78rem;
    table-layout: fixed;
    border-collapse: separate;
    border-spacing: 0;
    margin: 0;
    font-size: 0.875rem;
    line-height: 1.4;
}
.fs-tx th, .fs-tx td {
    padding: 0.35rem 0.6rem;
    border: none;
    border-bottom: 1px solid #DCE3EE;
    background: #FFFFFF;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
    text-align: left;
}
.fs-tx thead th {
    position: sticky;
    top: 0;
    z-index: 1;
    background: #F3F6FB;
    color: #0F172A;
    font-weight: 600;
}
.fs-tx tbody tr:last-child td { border-bottom: none; }
/* Date, merchant and amount stay in view while the other columns scroll sideways. */
.fs-tx .fs-k-date, .fs-tx .fs-k-merchant, .fs-tx .fs-k-amount { position: sticky; z-index: 1; }
.fs-tx thead .fs-k-date, .fs-tx thead .fs-k-merchant, .fs-tx thead .fs-k-amount { z-index: 2; }
.fs-tx .fs-k-date { width: 6.6rem; left: 0; }
.fs-tx .fs-k-merchant { width: 11rem; left: 6.6rem; }
.fs-tx .fs-k-amount {
    width: 8rem;
    left: 17.6rem;
    text-align: right;
    font-variant-numeric: tabular-nums;
    border-right: 1px solid #DCE3EE;
}
.fs-tx .fs-k-description { width: 16rem; }
.fs-tx .fs-k-category { width: 8rem; }
.fs-tx .fs-k-account { width: 11rem; }
.fs-tx .fs-k-currency { width: 5.4rem; }
.fs-tx .fs-k-source { width: 12rem; }
/* Right to left (an Arabic answer): the same three columns, held at the right edge. */
.fs-tx-wrap[dir="rtl"] .fs-tx th, .fs-tx-wrap[dir="rtl"] .fs-tx td { text-align: right; }
.fs-tx-wrap[dir="rtl"] .fs-tx .fs-k-date { left: auto; right: 0; }
.fs-tx-wrap[dir="rtl"] .fs-tx .fs-k-merchant { left: auto; right: 6.6rem; }
.fs-tx-wrap[dir="rtl"] .fs-tx .fs-k-amount {
    left: auto;
    right: 17.6rem;
    text-align: left;
    border-right: none;
    border-left: 1px solid #DCE3EE;
}
/* An amount reads left to right inside the right-to-left table: "-100.25 US$". */
.fs-tx-wrap[dir="rtl"] .fs-tx td.fs-k-amount { direction: ltr; }
.fs-tx .fs-out { color: #B91C1C; }
.fs-tx .fs-in { color: #15803D; }
/* Overview tiles (ui/overview.py): a list tile's names and amounts, amounts aligned. */
ol.fs-tile-lines { list-style: none; margin: 0; padding: 0; font-size: 0.95rem; }
ol.fs-tile-lines li {
    display: flex;
    justify-content: space-between;
    gap: 0.75rem;
    padding: 0.15rem 0;
    border-bottom: 1px solid #DCE3EE;
}
ol.fs-tile-lines li { margin: 0; }
ol.fs-tile-lines li:last-child { border-bottom: none; }
.fs-tile-name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.fs-tile-amount { font-variant-numeric: tabular-nums; white-space: nowrap; }
@media (max-width: 480px) {
    .fs-tx { min-width: 0; }
    .fs-tx .fs-extra { display: none; }
    .fs-tx th, .fs-tx td { padding: 0.35rem 0.4rem; }
    .fs-tx .fs-k-date { width: 5.6rem; }
    .fs-tx .fs-k-merchant { width: auto; }
    .fs-tx .fs-k-amount { width: 6.8rem; border-right: none; }
    .fs-tx-wrap[dir="rtl"] .fs-tx .fs-k-merchant { right: 5.6rem; }
    .fs-tx-wrap[dir="rtl"] .fs-tx .fs-k-amount { border-left: none; }
}
</style>
"""


def apply_styles() -> None:
    st.html(_CSS)
